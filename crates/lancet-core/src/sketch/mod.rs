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

/// Why a sketch was not applied: what a model needs to send something lancet can place.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

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
        return Err(Refusal(format!(
            "the sketch ({} lines) is too large to align with {} lines; send the change as SEARCH/REPLACE blocks or old_string/new_string edits of the parts that change",
            sketch.len(),
            old.len()
        )));
    }
    let dp = Alignment::new(old, base, &items).ok_or_else(|| {
        Refusal(format!(
            "the sketch ({} lines) repeats too many of the {} old lines to align them; send the change as SEARCH/REPLACE blocks or old_string/new_string edits of the parts that change",
            sketch.len(),
            old.len()
        ))
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

    fn apply(old: &str, sketch: &str) -> Result<String, String> {
        resolve(&lines(old), &lines(sketch), true)
            .map(|r| r.lines.join("\n") + "\n")
            .map_err(|e| e.0)
    }

    const CLASS: &str = "import os\n\nclass A:\n    def f(self):\n        x = 1\n        return x\n\n    def g(self):\n        return 2\n\n\ndef main():\n    A().f()\n";

    #[test]
    fn a_marker_keeps_the_lines_between_its_aligned_neighbours() {
        let sketch = "# ... existing code ...\n    def g(self):\n        return 3\n\n\n# ... rest of file ...\n";
        // The column-0 marker may stand for `return 2` too: replace it, or keep it beside
        // `return 3`? Refused rather than guessed.
        let e = apply(CLASS, sketch).unwrap_err();
        assert!(e.contains("looks like a changed version"), "{e}");
        // With a class-level marker after g's body, nothing pins where `return 2` goes
        // (dropped before or after the empty marker): refused too, overcautiously.
        let indented = "import os\n\nclass A:\n    # ... existing code ...\n    def g(self):\n        return 3\n    # ... rest of the class ...\n\n\ndef main():\n    A().f()\n";
        let e = apply(CLASS, indented).unwrap_err();
        assert!(e.contains("could start before old line 9"), "{e}");
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
        assert!(e.contains("old line 8"), "{e}");
    }

    #[test]
    fn identical_places_are_ambiguous() {
        let old = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
        let sketch = "# ...\n    def f(self):\n        return 2\n# ...\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(e.contains("could start") || e.contains("could end"), "{e}");
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
        assert!(
            e.starts_with("old lines 8–9 (\"def c():\" … \"return 3\") after the sketch's last line would be dropped"),
            "{e}"
        );
        assert!(e.contains("End the sketch with a marker"), "{e}");
        let more = "# ... existing code ...\ndef b():\n    return 22\n\n\ndef c():\n";
        let e = apply(old, more).unwrap_err();
        assert!(
            e.starts_with(
                "old line 9 (\"return 3\") after the sketch's last line would be dropped"
            ),
            "{e}"
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
        assert!(e.contains("looks like a changed version"), "{e}");
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
        assert!(
            e.starts_with("no line of the new text other than its markers occurs"),
            "{e}"
        );
        let e = apply("    a = 1\n    b = 2\n", "a = 1\n# ...\n").unwrap_err();
        assert!(e.contains("only with other indentation"), "{e}");
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

    fn apply_fragment(old: &str, sketch: &str) -> Result<String, String> {
        let (old, sketch) = (lines(old), lines(sketch));
        let region = fragment_region(&old, &sketch)
            .map_err(|e| e.0)?
            .ok_or("no region")?;
        let inner = resolve_region(&old, region, &sketch).map_err(|e| e.0)?;
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
        assert!(
            e.contains("looks like a changed version of old line 2"),
            "{e}"
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
        assert!(e.contains("after the new text's last line"), "{e}");
    }

    #[test]
    fn a_fragment_refusal_numbers_old_lines_as_the_file_does() {
        let old = "import os\n\n\ndef f():\n    a = 1\n    b = 2\n    return a\n";
        let sketch = "def f():\n    a = 10\n    # ... existing code ...\n    return a\n";
        let e = apply_fragment(old, sketch).unwrap_err();
        assert!(e.contains("old line 5"), "{e}");
    }

    #[test]
    fn a_line_pulled_up_above_a_marker_over_dropped_lines_is_refused() {
        let old = "fn router() {\n    new()\n        .route(\"/health\")\n        .route(\"/items\")\n        .route(\"/items/:id\")\n        .done()\n}\n";
        let sketch = "fn router() {\n    new()\n        .route(\"/items\")\n        // ... existing code ...\n        .done()\n}\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(e.contains("moved up"), "{e}");
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
