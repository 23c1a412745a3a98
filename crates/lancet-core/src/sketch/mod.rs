//! Lazy sketches, applied deterministically: new text in which markers (`# ... existing code
//! ...`, `// ... rest unchanged ...`, a bare `...`) stand for old lines the model did not
//! repeat. The sketch's concrete lines are aligned with the old lines; each marker keeps
//! exactly the old lines between its aligned neighbours; sketch lines that align nowhere are new
//! code; old lines between two aligned sketch lines with no marker between them are replaced.
//!
//! The alignment is one dynamic program over (sketch item, old line) that maximises matched
//! lines and penalises deleting old lines outside markers; a marker indented by k columns keeps
//! only lines inside a block at that depth. Whenever the best alignment is not unique in what it
//! keeps, or leaves a doubt a reader would have, the sketch is refused with the reason: never
//! apply what the model did not mean.

mod align;
mod check;
mod doubts;
mod fragment;
mod lines;
mod markers;

use align::{Alignment, Step};
use check::{MarkerInfo, Placement, Source};
pub use fragment::{Region, fragment_region};
use markers::{Item, items};

/// A sketch resolved against the old lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The new lines, markers replaced by the old lines they stand for.
    pub lines: Vec<String>,
    /// How many markers the sketch had.
    pub markers: usize,
    /// How many old lines the markers kept.
    pub kept: usize,
}

/// Why a sketch was not applied, as facts: what lancet found that keeps it from placing the
/// sketch, with the lines it names (1-based, as the model sent them, texts trimmed). The
/// facade's renderer words each one with what to send instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The sketch is too large to align with the old text.
    TooLarge {
        /// The sketch's lines.
        sketch: usize,
        /// The old text's lines.
        old: usize,
    },
    /// The sketch repeats too many of the old lines to align them.
    TooRepetitive {
        /// The sketch's lines.
        sketch: usize,
        /// The old text's lines.
        old: usize,
    },
    /// A marker that could stand for more than one run of old lines.
    MarkerUnpinned {
        /// The marker's line of the new text.
        line: usize,
        /// Whether its start is what is open (else its end).
        start: bool,
        /// The old lines it could start or end before (at most four).
        before: Vec<usize>,
    },
    /// No line of the sketch places it around its markers.
    NothingPlaces(Unplaced),
    /// An old line the sketch would delete where nothing says so.
    DeletedUnmarked {
        /// The old line.
        line: usize,
        /// Its text.
        text: String,
        /// Where it lies.
        lies: Unmarked,
    },
    /// Old lines before the sketch's first line (`head`) or after its last, where it has no
    /// marker.
    DroppedAtEnd {
        /// The first of them and its text.
        first: (usize, String),
        /// The last of them and its text, when there are several.
        last: Option<(usize, String)>,
        /// Before the first line (else after the last).
        head: bool,
    },
    /// An old line deleted just above a sketch line that may have moved up over a marker.
    PulledUp {
        /// The deleted old line and its text.
        deleted: (usize, String),
        /// The sketch line standing right after it.
        new_line: usize,
        /// The old line that sketch line is, and its text.
        at: (usize, String),
        /// The marker right below.
        marker: usize,
    },
    /// A changed copy of an old line with no unchanged line beside it to pin it there.
    ReplacementUnpinned {
        /// The new text's line and its text.
        new: (usize, String),
        /// The old line it looks like a change of, and its text.
        old: (usize, String),
    },
    /// A marker that keeps no line, right before the new text changes an old line.
    EmptyMarkerBeforeChange {
        /// The marker's line.
        marker: usize,
        /// The old line changed, and its text.
        old: (usize, String),
    },
    /// A marker that keeps no line beside an old line that would be deleted, indented deeper.
    EmptyMarkerTooDeep {
        /// The marker's line.
        marker: usize,
        /// Its indentation, in columns.
        depth: usize,
        /// The old line deleted, and its text.
        old: (usize, String),
    },
    /// An old line that would give way to new text, right after a marker, in a block that
    /// otherwise stays.
    BlockHeadChanged {
        /// The old line, and its text.
        old: (usize, String),
        /// The marker.
        marker: usize,
    },
    /// A new line next to a marker that keeps the same line.
    WrittenTwiceBesideMarker {
        /// The new text's line and its text.
        new: (usize, String),
        /// The marker.
        marker: usize,
        /// The old line the marker keeps.
        old: usize,
    },
    /// A new line next to a marker that looks like a changed version of a line it keeps.
    ChangedBesideMarker {
        /// The new text's line and its text.
        new: (usize, String),
        /// The marker.
        marker: usize,
        /// The old line the marker keeps, and its text.
        old: (usize, String),
    },
    /// A line of a new definition that matches an old line inside other code.
    NewDefinitionMatchesOld {
        /// The new text's line and its text.
        new: (usize, String),
        /// The new definition's line.
        definition: String,
        /// The old line it matches.
        old: usize,
    },
    /// A definition a marker keeps that the sketch also writes as new code.
    DefinitionTwice {
        /// The new text's line.
        new: usize,
        /// The definition's text.
        text: String,
        /// The old line the marker keeps it at.
        old: usize,
    },
    /// The placement fails lancet's own check of it.
    Broken(Broken),
    /// The placement would leave a string open.
    StringLeftOpen {
        /// The closing line written while a marker keeps it, and the old line: `None` when
        /// the string is left open otherwise.
        written_and_kept: Option<(String, usize)>,
    },
    /// A sketch of one region whose line stands nowhere in the file.
    FragmentLineNowhere {
        /// The line's text.
        text: String,
    },
    /// A sketch of one region whose line stands several times in the file.
    FragmentLineRepeated {
        /// The line's text.
        text: String,
        /// The lines it stands at (the first five).
        at: Vec<usize>,
        /// How many times it stands.
        count: usize,
    },
    /// Read as a sketch, the hunk changes nothing (its markers keep every line it removes).
    ChangesNothing,
}

/// Why no line of a sketch places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unplaced {
    /// Its lines also in the old text cannot stand around its markers (a marker would leave
    /// its block).
    MarkerWouldLeaveBlock,
    /// Its lines stand in the old text only with other indentation.
    OtherIndentation,
    /// No line other than its markers stands in the old text.
    NoSharedLine,
}

/// Where an old line the sketch would delete unmarked lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmarked {
    /// After the new text's last line, in the block its first line opens.
    OpenTail,
    /// Beside a marker, outside the block the marker's indentation covers.
    BesideMarker,
    /// Before the new text's first line or after its last, where it has no marker.
    AtAnEnd,
}

/// What lancet's check of a placement found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// A line of the new text is not where the sketch puts it.
    Misplaced {
        /// Its text.
        text: String,
    },
    /// An old line would be kept twice or out of order.
    KeptTwice {
        /// The old line.
        old: usize,
    },
    /// A marker would keep an old line indented less than it is.
    MarkerDeeper {
        /// The marker's line.
        marker: usize,
        /// Its indentation, in columns.
        indent: usize,
        /// The old line, and its text.
        old: (usize, String),
    },
    /// The result's brackets would not balance, though the old text's do.
    Unbalanced {
        /// Brackets left open (negative: closed too often).
        open: i64,
    },
    /// An old line dropped with no sketch lines around it and nothing in its place.
    DroppedUnseen {
        /// The old line, and its text.
        old: (usize, String),
    },
}

/// Whether the new text holds a marker the old text lacks (then it is a sketch).
pub fn is_sketch(old: &[String], new: &[String]) -> bool {
    let items = items(old, new);
    items.iter().any(|i| matches!(i, Item::Marker { .. }))
}

/// Most DP cells (sketch items × old lines) lancet aligns: beyond it a sketch is refused.
const MAX_CELLS: usize = 6_000_000;

/// Resolves `sketch` against `old`. `whole_file`: the sketch is the whole new file, so old
/// lines it would drop at its head or tail without a marker there are refused rather than
/// deleted (models leave out headers and trailers they did not mean to delete).
pub fn resolve(old: &[String], sketch: &[String], whole_file: bool) -> Result<Resolved, Refusal> {
    let ends = if whole_file {
        Ends::Anchored
    } else {
        Ends::Open
    };
    resolve_lines(old, 0, sketch, ends)
}

/// Resolves a fragment against the region of the file `old` it stands for: refusals number
/// old lines as the file does.
pub fn resolve_region(
    old: &[String],
    region: Region,
    sketch: &[String],
) -> Result<Resolved, Refusal> {
    let ends = if region.end_inferred {
        Ends::OpenTail
    } else {
        Ends::Anchored
    };
    resolve_lines(&old[region.first..=region.last], region.first, sketch, ends)
}

/// What the old lines beyond the sketch's first and last lines are.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ends {
    /// Lines the sketch may drop (a SEARCH block's ends).
    Open,
    /// The file's, or an anchored region's, ends: dropping lines there needs new lines in
    /// their place.
    Anchored,
    /// A region whose end lancet inferred: nothing after the sketch's last line is dropped.
    OpenTail,
}

fn resolve_lines(
    old: &[String],
    base: usize,
    sketch: &[String],
    ends: Ends,
) -> Result<Resolved, Refusal> {
    let items = items(old, sketch);
    let markers = items
        .iter()
        .filter(|i| matches!(i, Item::Marker { .. }))
        .count();
    if (items.len() + 1) * (old.len() + 1) > MAX_CELLS {
        return Err(Refusal::TooLarge {
            sketch: sketch.len(),
            old: old.len(),
        });
    }
    let dp = Alignment::new(old, base, &items).ok_or(Refusal::TooRepetitive {
        sketch: sketch.len(),
        old: old.len(),
    })?;
    dp.check_unique()?;
    let path = dp.one_path();
    dp.check_path(&path, ends)?;
    let mut out: Vec<(&str, Source)> = Vec::new();
    for step in &path {
        match *step {
            Step::Match(i, _) | Step::Insert(i) | Step::Replace(i, _) => {
                if let Item::Line { text, soft, .. } = &items[i] {
                    out.push((
                        text,
                        Source::Sketch {
                            item: i,
                            soft: *soft,
                        },
                    ));
                }
            }
            Step::Absorb(m, j) => out.push((&old[j], Source::Kept { marker: m, old: j })),
            Step::Delete(_) | Step::Exit(_) => {}
        }
    }
    let result = merge_blank_runs(&out);
    let placement = Placement {
        old,
        base,
        concrete: items
            .iter()
            .enumerate()
            .filter_map(|(n, i)| match i {
                Item::Line { text, .. } => Some((n, text.as_str())),
                Item::Marker { .. } => None,
            })
            .collect(),
        markers: items
            .iter()
            .enumerate()
            .filter_map(|(n, i)| match *i {
                Item::Marker { indent, line, .. } => Some(MarkerInfo {
                    item: n,
                    line,
                    indent,
                }),
                Item::Line { .. } => None,
            })
            .collect(),
        result,
        open_ends: ends == Ends::Open,
    };
    placement.check()?;
    let kept = placement
        .result
        .iter()
        .filter(|(_, s)| matches!(s, Source::Kept { .. }))
        .count();
    Ok(Resolved {
        lines: placement.result.into_iter().map(|(t, _)| t).collect(),
        markers,
        kept,
    })
}

/// In a run of blank lines where the sketch's blanks beside a marker meet blanks the marker
/// keeps, the longer of the two stands: the layout is not doubled.
fn merge_blank_runs(out: &[(&str, Source)]) -> Vec<(String, Source)> {
    let soft = |s: &Source| matches!(s, Source::Sketch { soft: true, .. });
    let mut lines = Vec::with_capacity(out.len());
    let mut k = 0;
    while k < out.len() {
        if !out[k].0.trim().is_empty() {
            lines.push((out[k].0.to_string(), out[k].1));
            k += 1;
            continue;
        }
        let end = (k..out.len())
            .find(|&e| !out[e].0.trim().is_empty())
            .unwrap_or(out.len());
        let run = &out[k..end];
        let softs = run.iter().filter(|(_, s)| soft(s)).count();
        let kept = run
            .iter()
            .filter(|(_, s)| matches!(s, Source::Kept { .. }))
            .count();
        let mut drop_soft = softs.min(kept);
        for (text, source) in run {
            if soft(source) && drop_soft > 0 {
                drop_soft -= 1;
                continue;
            }
            lines.push(((*text).to_string(), *source));
        }
        k = end;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    fn apply(old: &str, sketch: &str) -> Result<String, Refusal> {
        resolve(&lines(old), &lines(sketch), true).map(|r| r.lines.join("\n") + "\n")
    }

    const CLASS: &str = "import os\n\nclass A:\n    def f(self):\n        x = 1\n        return x\n\n    def g(self):\n        return 2\n\n\ndef main():\n    A().f()\n";

    #[test]
    fn a_marker_keeps_the_lines_between_its_aligned_neighbours() {
        let sketch = "# ... existing code ...\n    def g(self):\n        return 3\n\n\n# ... rest of file ...\n";
        // The column-0 marker may stand for `return 2` too: replace it, or keep it beside
        // `return 3`? Refused rather than guessed.
        let e = apply(CLASS, sketch).unwrap_err();
        assert_eq!(
            e,
            Refusal::ChangedBesideMarker {
                new: (3, "return 3".into()),
                marker: 6,
                old: (9, "return 2".into())
            }
        );
        // With a class-level marker after g's body, nothing pins where `return 2` goes
        // (dropped before or after the empty marker): refused too, overcautiously.
        let indented = "import os\n\nclass A:\n    # ... existing code ...\n    def g(self):\n        return 3\n    # ... rest of the class ...\n\n\ndef main():\n    A().f()\n";
        let e = apply(CLASS, indented).unwrap_err();
        assert!(
            matches!(&e, Refusal::MarkerUnpinned { start: true, before, .. } if before[0] == 9),
            "{e:?}"
        );
    }

    #[test]
    fn a_new_method_goes_at_the_end_of_the_block_its_marker_covers() {
        let sketch = "import os\n\nclass A:\n    # ... existing methods ...\n\n    def h(self):\n        return 4\n# ... rest of file ...\n";
        let want = CLASS.replace(
            "        return 2\n",
            "        return 2\n\n    def h(self):\n        return 4\n",
        );
        assert_eq!(apply(CLASS, sketch).unwrap(), want);
    }

    #[test]
    fn a_body_marker_cannot_swallow_the_next_definition() {
        // `# ...` indented 8 stands only for f's body, so g must be kept by something else:
        // here nothing keeps it, and dropping it silently is refused.
        let sketch = "import os\n\nclass A:\n    def f(self):\n        # ... existing code ...\n\n\ndef main():\n    A().f()\n";
        let e = apply(CLASS, sketch).unwrap_err();
        assert_eq!(
            e,
            Refusal::DeletedUnmarked {
                line: 8,
                text: "def g(self):".into(),
                lies: Unmarked::BesideMarker
            }
        );
    }

    #[test]
    fn identical_places_are_ambiguous() {
        let old = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
        let sketch = "# ...\n    def f(self):\n        return 2\n# ...\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(matches!(e, Refusal::MarkerUnpinned { .. }), "{e:?}");
        // Pinned by the class line, it applies.
        let pinned = "# ...\nclass B:\n    def f(self):\n        return 2\n";
        assert_eq!(
            apply(old, pinned).unwrap(),
            "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n"
        );
    }

    /// A sketch ending without a marker before the file ends says which old lines after its
    /// last line would be dropped and to end it with a marker (issue #41: it said the lines
    /// "cannot be placed around its markers" and to include lines around each marker, which
    /// still dropped the tail).
    #[test]
    fn a_dropped_tail_is_named_with_its_lines_and_the_marker_that_keeps_it() {
        let old = "import os\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let e = apply(old, "# ... existing code ...\ndef b():\n    return 22\n").unwrap_err();
        assert_eq!(
            e,
            Refusal::DroppedAtEnd {
                first: (8, "def c():".into()),
                last: Some((9, "return 3".into())),
                head: false
            }
        );
        let more = "# ... existing code ...\ndef b():\n    return 22\n\n\ndef c():\n";
        let e = apply(old, more).unwrap_err();
        assert_eq!(
            e,
            Refusal::DroppedAtEnd {
                first: (9, "return 3".into()),
                last: None,
                head: false
            }
        );
        let kept = "# ... existing code ...\ndef b():\n    return 22\n\n\ndef c():\n# ... existing code ...\n";
        assert_eq!(
            apply(old, kept).unwrap(),
            old.replace("return 2\n", "return 22\n")
        );
    }

    #[test]
    fn a_changed_line_next_to_a_marker_is_refused() {
        let old = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
        let sketch = "def f():\n    # ... existing code ...\n    return a + b + 1\n";
        let e = apply(old, sketch).unwrap_err();
        assert_eq!(
            e,
            Refusal::ChangedBesideMarker {
                new: (3, "return a + b + 1".into()),
                marker: 2,
                old: (4, "return a + b".into())
            }
        );
    }

    #[test]
    fn new_lines_between_two_markers_at_one_depth_are_refused() {
        let old = "def f():\n    a = 1\n    b = 2\n    c = 3\n";
        let sketch = "def f():\n    # ...\n    print('hi')\n    # ...\n";
        assert!(apply(old, sketch).is_err());
    }

    #[test]
    fn a_moved_definition_under_a_marker_is_refused() {
        let old = "def a():\n    return 1\n\ndef b():\n    return 2\n";
        let sketch = "def b():\n    return 2\n\n# ... existing code ...\n";
        assert!(apply(old, sketch).is_err());
    }

    #[test]
    fn closing_braces_stay_with_their_blocks() {
        let old = "impl A {\n    fn a(&self) -> u8 {\n        1\n    }\n}\n\nfn main() {}\n";
        let sketch = "impl A {\n    // ... existing code ...\n\n    fn b(&self) -> u8 {\n        2\n    }\n}\n// ... rest of file ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            "impl A {\n    fn a(&self) -> u8 {\n        1\n    }\n\n    fn b(&self) -> u8 {\n        2\n    }\n}\n\nfn main() {}\n"
        );
    }

    #[test]
    fn a_sketch_matching_nothing_is_refused_and_a_stub_is_not_a_marker() {
        let e = apply("a = 1\n", "# ...\nb = 2\n").unwrap_err();
        assert_eq!(e, Refusal::NothingPlaces(Unplaced::NoSharedLine));
        let e = apply("    a = 1\n    b = 2\n", "a = 1\n# ...\n").unwrap_err();
        assert_eq!(e, Refusal::NothingPlaces(Unplaced::OtherIndentation));
        assert!(!is_sketch(
            &lines("def f():\n    return 1\n"),
            &lines("def f():\n    ...\n")
        ));
        assert!(is_sketch(
            &lines("def f():\n    a()\n    return 1\n"),
            &lines("def f():\n    ...\n    return 2\n")
        ));
    }

    #[test]
    fn deleting_between_two_aligned_lines_without_a_marker_replaces() {
        let old = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";
        let sketch = "def a():\n    return 1\n\ndef c():\n    return 3\n# ... rest ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            "def a():\n    return 1\n\ndef c():\n    return 3\n"
        );
    }

    fn apply_fragment(old: &str, sketch: &str) -> Result<String, Refusal> {
        let (old, sketch) = (lines(old), lines(sketch));
        let region = fragment_region(&old, &sketch)?.expect("the sketch is a fragment");
        let inner = resolve_region(&old, region, &sketch)?;
        let out = [
            &old[..region.first],
            &inner.lines[..],
            &old[region.last + 1..],
        ]
        .concat();
        Ok(out.join("\n") + "\n")
    }

    #[test]
    fn a_column0_marker_after_a_deeper_one_keeps_only_module_lines() {
        let old = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\ndef h():\n    return 3\n";
        let sketch = "class A:\n    def f(self):\n        return 10\n\n    # ... existing code ...\n\n\n# ... existing code ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("return 1\n", "return 10\n")
        );
    }

    #[test]
    fn a_changed_copy_pinned_by_the_next_line_replaces_the_old_line() {
        let old = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
        let sketch = "function a() {\n  return 11;\n}\n\n// ... existing code ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("return 1;", "return 11;")
        );
        // Pinned only by the line before it, it stays a question.
        let old = "class S:\n    retries = 3\n    timeout = 1\n\n    def f(self):\n        pass\n";
        let e = apply(
            old,
            "class S:\n    retries = 5\n    # ... existing code ...\n",
        )
        .unwrap_err();
        assert_eq!(
            e,
            Refusal::ChangedBesideMarker {
                new: (2, "retries = 5".into()),
                marker: 3,
                old: (2, "retries = 3".into())
            }
        );
    }

    #[test]
    fn a_fragment_stands_for_the_block_its_first_line_opens() {
        let old = "import os\n\n\nclass Session:\n    retries = 3\n\n    def close(self):\n        pass\n\n\ndef main():\n    pass\n";
        let sketch = "class Session:\n    # ... existing code ...\n\n    def close(self):\n        self.closed = True\n";
        assert_eq!(
            apply_fragment(old, sketch).unwrap(),
            old.replace(
                "        pass\n\n\ndef",
                "        self.closed = True\n\n\ndef"
            )
        );
        // Without markers, the block's tail may not be dropped where it holds definitions.
        let e = apply_fragment(old, "class Session:\n    retries = 5\n").unwrap_err();
        assert_eq!(
            e,
            Refusal::DeletedUnmarked {
                line: 5,
                text: "retries = 3".into(),
                lies: Unmarked::OpenTail
            }
        );
    }

    #[test]
    fn a_fragment_refusal_numbers_old_lines_as_the_file_does() {
        let old = "import os\n\n\ndef f():\n    a = 1\n    b = 2\n    return a\n";
        let sketch = "def f():\n    a = 10\n    # ... existing code ...\n    return a\n";
        let e = apply_fragment(old, sketch).unwrap_err();
        assert_eq!(
            e,
            Refusal::ChangedBesideMarker {
                new: (2, "a = 10".into()),
                marker: 3,
                old: (5, "a = 1".into())
            }
        );
    }

    #[test]
    fn a_line_pulled_up_above_a_marker_over_dropped_lines_is_refused() {
        let old = "fn router() {\n    new()\n        .route(\"/health\")\n        .route(\"/items\")\n        .route(\"/items/:id\")\n        .done()\n}\n";
        let sketch = "fn router() {\n    new()\n        .route(\"/items\")\n        // ... existing code ...\n        .done()\n}\n";
        let e = apply(old, sketch).unwrap_err();
        assert_eq!(
            e,
            Refusal::PulledUp {
                deleted: (3, ".route(\"/health\")".into()),
                new_line: 3,
                at: (4, ".route(\"/items\")".into()),
                marker: 4
            }
        );
    }

    #[test]
    fn a_closing_bracket_the_sketch_writes_is_not_kept_again_by_the_marker() {
        let old = "impl A {\n    fn new() -> Self {\n        Self\n    }\n\n    fn get(&self) -> u8 {\n        0\n    }\n}\n";
        let sketch = "impl A {\n    fn new() -> Self {\n        check();\n        Self\n    }\n\n    // ... existing code ...\n}\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("        Self\n", "        check();\n        Self\n")
        );
    }
}
