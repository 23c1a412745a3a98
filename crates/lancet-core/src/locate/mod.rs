//! Locating hunks: the matcher ladder.
//!
//! A hunk's old text is searched tier by tier from strict to loose ([`Tier::LADDER`]). The first
//! tier that finds any candidate decides: exactly one candidate (or exactly the requested count)
//! is a match; several are narrowed by hints (the `@@` context headers, the previous hunk's
//! position, a line-number hint) and, if still several, refused as ambiguous with every
//! candidate listed. A looser tier never runs to choose among a stricter tier's candidates.
//!
//! The tiers: byte-exact substring (tool-call edits) and `exact` lines; `eol`; `trailing_ws`;
//! `indent` (relative indentation kept, absolute ignored); `trimmed`; `unicode`; then readings
//! of garbled needles — `escapes` (over-escaped text), `line_numbers` (read-view prefixes),
//! `elision` (`...` pieces in order) — each tried with the line tiers; then `anchor` (first and
//! last lines, similar middle) and `fuzzy` (most similar window, clear margin), both only for
//! substantial needles and at bounded cost (see `fuzzy.rs`).

pub mod anchored;
pub mod closest;
pub(crate) mod elision;
mod evidence;
pub(crate) mod fuzzy;
mod headers;
mod insertion;
mod ladder;
pub(crate) mod levenshtein;
mod readings;
mod reflow;
mod tier;

use crate::batch::Hunk;
use crate::notes::HunkNote;
use crate::text::TextFile;
use closest::Closest;
use elision::locate_elided;
use evidence::{already_applied, new_text_note, settle};
use headers::{header_regions, locate_by_body_alone, locate_without_anchor};
use insertion::locate_insertion;
use ladder::{Approximate, Search, Strict};
use readings::Readings;
use reflow::locate_reflowed;
pub use tier::Tier;

/// A file prepared for searching: its text, line contents and line start offsets.
#[derive(Debug)]
pub struct Haystack<'a> {
    /// The whole text.
    pub text: &'a str,
    /// Each line's content (CRLF's `\r` included).
    pub lines: Vec<&'a str>,
    starts: Vec<usize>,
    /// Line sketches for the approximate tiers, built on first use.
    sketches: std::cell::OnceCell<Vec<fuzzy::Sketch>>,
}

impl<'a> Haystack<'a> {
    /// Indexes a decoded file.
    pub fn new(file: &TextFile<'a>) -> Self {
        Haystack {
            text: file.text(),
            lines: file.line_strs(),
            starts: file.lines().iter().map(|l| l.start).collect(),
            sketches: std::cell::OnceCell::new(),
        }
    }

    fn sketches(&self) -> &[fuzzy::Sketch] {
        self.sketches.get_or_init(|| fuzzy::sketch_all(&self.lines))
    }

    /// The lines in `range` that contain `word`, found with one SIMD substring scan of the
    /// text instead of a per-line comparison (a 10 MB file is scanned in about a millisecond).
    fn lines_containing(&self, word: &str, range: std::ops::Range<usize>) -> Vec<usize> {
        if range.is_empty() {
            return Vec::new();
        }
        let from = self.starts[range.start];
        let mut out: Vec<usize> = Vec::new();
        for hit in memchr::memmem::find_iter(&self.text.as_bytes()[from..], word.as_bytes()) {
            let line = self.line_of(from + hit);
            if line >= range.end {
                break;
            }
            if out.last() != Some(&line) {
                out.push(line);
            }
        }
        out
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

/// Where a hunk's old text was found: lines `start..end` (0-based, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// First matched line (0-based); for an insertion, the line it goes before.
    pub start: usize,
    /// One past the last matched line.
    pub end: usize,
    /// The tier that found it.
    pub tier: Tier,
}

/// One place to change and what to put there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The lines involved (for line edits, exactly the replaced lines).
    pub at: Match,
    /// For a byte-exact substring match: the byte range to replace with `new_text`.
    pub bytes: Option<(usize, usize)>,
    /// The needle lines used to find it (after any repair).
    pub old: Vec<String>,
    /// The lines to put in place of `old`.
    pub new: Vec<String>,
    /// For a substring match: the replacement text.
    pub new_text: Option<String>,
    /// Whether inserted lines must be re-indented to the file's indentation.
    pub reindent: bool,
    /// What the report must say about how this place was chosen: the other candidates a format's
    /// contract let it pass over, each context line whose drift was forgiven.
    pub notes: Vec<HunkNote>,
}

/// A successful location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Replace each placement (several for `All`/`Exactly(n)` and for elided pieces).
    Replace(Vec<Placement>),
    /// The old text is absent but the new text stands where it would be: nothing to do.
    AlreadyApplied {
        /// Where the new text is.
        at: Match,
    },
}

/// What lancet saw of a hunk it could not place, beyond the closest lines (lines 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissNote {
    /// An approximate window stood, but a line the edit removes differs in content.
    RemovedLineDiffers {
        /// The window's first line.
        first: usize,
        /// Its last line.
        last: usize,
        /// The line that differs.
        line: usize,
        /// What the edit sent (trimmed).
        sent: String,
        /// What the file has (trimmed).
        file: String,
    },
    /// The text stands at these lines once the file's blank lines there are left out.
    BlankLinesLeftOut {
        /// Its first line.
        first: usize,
        /// Its last line.
        last: usize,
    },
    /// The lines occur, but not after the `@@` context.
    OutsideHeader {
        /// Where they occur.
        line: usize,
        /// The context as sent.
        header: String,
        /// The context's line.
        header_line: usize,
    },
    /// An insertion after a line the file does not have.
    PastTheEnd {
        /// The line asked for.
        line: usize,
        /// The file's lines.
        lines: usize,
    },
    /// A piece of an elided old text, starting with `piece`, stands nowhere after `after`.
    ElidedPieceMissing {
        /// The piece's first non-blank line.
        piece: String,
        /// The line it was looked for after.
        after: usize,
    },
    /// The new text stands at these lines, with nothing to show it is this edit's result.
    NewTextStands {
        /// Its first line.
        first: usize,
        /// Its last line.
        last: usize,
    },
}

/// Why a hunk could not be located.
#[derive(Debug, Clone, PartialEq)]
pub enum LocateError {
    /// No tier found the old text.
    NotFound {
        /// The most similar real lines, for the model's next try.
        closest: Option<Closest>,
        /// What else lancet saw (e.g. found, but not after the `@@` header).
        note: Option<Box<MissNote>>,
    },
    /// The deciding tier found several candidates and no hint singled one out.
    Ambiguous {
        /// The deciding tier.
        tier: Tier,
        /// 1-based start lines of every candidate.
        candidates: Vec<usize>,
    },
    /// `expected_replacements` differs from the number of occurrences.
    CountMismatch {
        /// The deciding tier.
        tier: Tier,
        /// How many the edit expected.
        expected: usize,
        /// 1-based start lines of the occurrences found.
        candidates: Vec<usize>,
    },
    /// An `@@` context header matches no line.
    ContextNotFound {
        /// The header text.
        header: String,
        /// The most similar real line.
        closest: Option<Closest>,
    },
    /// A pure addition's `@@` header occurs several times.
    ContextAmbiguous {
        /// The header text.
        header: String,
        /// 1-based lines where it occurs.
        candidates: Vec<usize>,
    },
    /// The new text introduces an omission placeholder that would delete code.
    Placeholder {
        /// The placeholder line.
        line: String,
    },
    /// The lines the hunk adds stand right beside its old text already, but what stands there
    /// cannot tell a re-sent edit from a deliberate second copy (only blank lines or brackets,
    /// or only some of them): lancet cannot decide.
    AppliedOrCopy {
        /// 1-based first line of what already stands there.
        at: usize,
        /// 1-based line where the old text is.
        old_at: usize,
        /// Whether every line the hunk adds stands there (else only some do).
        whole: bool,
    },
    /// The old text stands only with other indentation (at `found_at`) while the new text
    /// stands verbatim elsewhere (at `applied_at`), placed there by the hunk's own context:
    /// already applied there, or meant for the place found? lancet cannot decide.
    AppliedOrElsewhere {
        /// 1-based first line of the new text standing.
        applied_at: usize,
        /// 1-based first line of the old text found with other indentation.
        found_at: usize,
    },
    /// A pure addition under an `@@` header that opens a definition, whose first added line
    /// defines the same name otherwise (a parameter added): the model likely meant to replace
    /// that line, yet the chunk adds beside it, inside the definition. lancet cannot decide.
    ChangedHeader {
        /// The file's header line, trimmed.
        header: String,
        /// 1-based line of the header.
        line: usize,
        /// The added line that looks like its changed version, trimmed.
        added: String,
    },
    /// The old text's lines repeat so much in the file that comparing it at every place its
    /// lines stand would take longer than any answer is worth: lancet cannot decide.
    TooRepetitive {
        /// Places its rarest sampled line stands at.
        places: usize,
        /// Lines of the old text.
        lines: usize,
    },
    /// The old and new texts elide different numbers of pieces.
    ElisionMismatch {
        /// Elided pieces in the old text.
        old: usize,
        /// Elided pieces in the new text.
        new: usize,
    },
}

impl LocateError {
    /// A stable machine-readable kind for reports.
    pub fn kind(&self) -> crate::kinds::ErrorKind {
        use crate::kinds::ErrorKind;
        match self {
            LocateError::NotFound { .. } => ErrorKind::NoMatch,
            LocateError::Ambiguous { .. } => ErrorKind::Ambiguous,
            LocateError::CountMismatch { .. } => ErrorKind::CountMismatch,
            LocateError::ContextNotFound { .. } => ErrorKind::ContextNotFound,
            LocateError::ContextAmbiguous { .. } => ErrorKind::Ambiguous,
            LocateError::Placeholder { .. } => ErrorKind::Placeholder,
            LocateError::ElisionMismatch { .. } => ErrorKind::ElisionMismatch,
            LocateError::TooRepetitive { .. } => ErrorKind::Ambiguous,
            LocateError::AppliedOrCopy { .. } => ErrorKind::Ambiguous,
            LocateError::AppliedOrElsewhere { .. } => ErrorKind::Ambiguous,
            LocateError::ChangedHeader { .. } => ErrorKind::Ambiguous,
        }
    }
}

/// Hints that narrow a choice among candidates; they never add candidates.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    /// The line after the previous hunk of the same file (0-based).
    pub cursor: usize,
    /// The format may name part of a line (SEARCH/REPLACE, `old_string`), so a one-line old
    /// text found inside a longer line replaces just that part. Codex and unified hunks write
    /// whole lines: a match must cover whole lines.
    pub fragments: bool,
    /// The format writes every removed line out (Codex, unified): an omission placeholder
    /// hides code only where its diff run deletes lines it does not add back.
    pub explicit_removals: bool,
}

/// Locates one hunk in a file.
pub fn locate(hay: &Haystack, hunk: &Hunk, hints: Hints) -> Result<Located, LocateError> {
    let placeholder = if hints.explicit_removals {
        elision::placeholder_hiding_deletions(&hunk.old, &hunk.new)
    } else {
        elision::introduced_placeholder(&hunk.old, &hunk.new)
    };
    if let Some(line) = placeholder {
        return Err(LocateError::Placeholder {
            line: line.to_string(),
        });
    }
    let lines = &hay.lines[..];
    let regions = match header_regions(hay, &hunk.context) {
        Err(LocateError::ContextNotFound { header, .. })
            if hunk.context_advisory && hunk.context.len() == 1 && !hunk.old.is_empty() =>
        {
            return locate_without_anchor(hay, hunk, hints, &header);
        }
        Err(LocateError::ContextNotFound { header, closest }) if !hunk.old.is_empty() => {
            return locate_by_body_alone(hay, hunk, header, closest);
        }
        other => other?,
    };
    let search = Search {
        hay,
        lines,
        anchor: hunk.anchor,
        regions: regions.as_ref().map(|r| r.starts.as_slice()),
        cursor: hints.cursor,
        floor: 0,
        line_hint: hunk.line_hint.map(|h| h.saturating_sub(1)),
        occurrences: hunk.occurrences,
        pick: hunk.pick,
    };
    let readings = Readings::of(hunk);
    if hunk.old.is_empty() && readings.substring.is_none() {
        return locate_insertion(&search, hunk, regions.as_ref());
    }
    let mut note = None;
    match search.strict(&readings) {
        Strict::Found { reading, decided } => return settle(hay, &search, hunk, reading, decided),
        Strict::Missing { outside_regions } => {
            if let (Some(line), Some(r)) = (outside_regions, &regions) {
                note = Some(Box::new(MissNote::OutsideHeader {
                    line: line + 1,
                    header: r.header.clone(),
                    header_line: r.starts[0],
                }));
            }
        }
    }
    // Before any approximate reading: if the new text already stands there, a re-sent edit
    // must not be applied a second time.
    if let Some(at) = already_applied(hay, &search, hunk) {
        return Ok(Located::AlreadyApplied { at });
    }
    if hunk.old.iter().any(|l| elision::is_elision_line(l)) {
        return locate_elided(&search, hunk);
    }
    if let Some(found) = locate_reflowed(&search, hunk, hints.fragments) {
        return found;
    }
    match search.approximate(hunk) {
        Approximate::Decided(found) => return found,
        Approximate::Missing(why) => note = why.map(Box::new).or(note),
    }
    let note = note.or_else(|| new_text_note(hay, hunk).map(Box::new));
    Err(LocateError::NotFound {
        closest: closest::closest_block(lines, hay.sketches(), &hunk.old),
        note,
    })
}

/// Lines as the owned strings a hunk holds, for the tests of the ladder's rooms.
#[cfg(test)]
fn owned_lines(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{Anchor, Occurrences};

    fn hunk(old: &[&str], new: &[&str], context: &[&str]) -> Hunk {
        Hunk {
            context: context.iter().map(|s| s.to_string()).collect(),
            ..Hunk::lines(
                old.iter().map(|s| s.to_string()).collect(),
                new.iter().map(|s| s.to_string()).collect(),
                1,
            )
        }
    }

    fn run(text: &str, h: &Hunk, hints: Hints) -> Result<Located, LocateError> {
        let file = TextFile::new(text);
        locate(&Haystack::new(&file), h, hints)
    }

    fn at(r: Result<Located, LocateError>) -> (usize, usize, Tier) {
        match r.unwrap() {
            Located::Replace(p) if p.len() == 1 => (p[0].at.start, p[0].at.end, p[0].at.tier),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_blank_context_line_the_file_lacks_is_never_reflowed_into_it() {
        // Context `a` and a blank line, then `+c`: the file has no blank line after `a`.
        let h = hunk(&["a", ""], &["a", "", "c"], &[]);
        assert!(run("a\nb\n", &h, Hints::default()).is_err());
        // Where the file has it, the edit applies.
        assert!(run("a\n\nb\n", &h, Hints::default()).is_ok());
    }

    #[test]
    fn each_line_tier_matches_what_it_should() {
        let cases: [(&str, &str, Tier); 6] = [
            ("foo()", "foo()", Tier::Exact),
            ("foo()\r", "foo()", Tier::Eol),
            ("foo()  \t", "foo()", Tier::TrailingWs),
            ("    foo()", "foo()", Tier::Indent),
            (
                "say \u{201c}hi\u{201d}\u{a0}\u{2014} ok\u{2026}",
                "say \"hi\" - ok...",
                Tier::Unicode,
            ),
            ("x = 'a\tb'", "x = 'a\\tb'", Tier::Escapes),
        ];
        for (file, needle, tier) in cases {
            let text = format!("x\n{file}\ny\n");
            assert_eq!(
                at(run(&text, &hunk(&[needle], &["z"], &[]), Hints::default())),
                (1, 2, tier),
                "{file:?}"
            );
        }
    }

    #[test]
    fn indent_keeps_relative_depth_and_trimmed_does_not() {
        let text = "def f():\n    if x:\n        y()\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["if x:", "    y()"], &["if x:", "    z()"], &[]),
                Hints::default()
            )),
            (1, 3, Tier::Indent)
        );
        assert_eq!(
            at(run(
                text,
                &hunk(&["if x:", "y()"], &["if x:", "z()"], &[]),
                Hints::default()
            )),
            (1, 3, Tier::Trimmed)
        );
    }

    #[test]
    fn ambiguity_at_a_strict_tier_is_never_resolved_by_a_looser_one() {
        let err = run(
            "a\nb\na\nb\n  a\n",
            &hunk(&["a"], &["A"], &[]),
            Hints::default(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            LocateError::Ambiguous {
                tier: Tier::Exact,
                candidates: vec![1, 3]
            }
        );
    }

    #[test]
    fn headers_and_cursor_narrow() {
        let text = "fn a\nx=10\nfn b\nx=10\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["x=10"], &["x=11"], &["fn b"]),
                Hints::default()
            )),
            (3, 4, Tier::Exact)
        );
        assert_eq!(
            at(run(
                text,
                &hunk(&["x=10"], &["x=11"], &[]),
                Hints {
                    cursor: 2,
                    ..Hints::default()
                }
            )),
            (3, 4, Tier::Exact)
        );
        let text = "class A\n  def m():\n    x\nclass B\n  def m():\n    x\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["    x"], &["    y"], &["class B", "def m():"]),
                Hints::default()
            )),
            (5, 6, Tier::Exact)
        );
        assert!(matches!(
            run(
                text,
                &hunk(&["    x"], &["    y"], &["def m():"]),
                Hints::default()
            ),
            Err(LocateError::Ambiguous { .. })
        ));
        assert!(matches!(
            run(
                text,
                &hunk(&["    x"], &["    y"], &["def q():"]),
                Hints::default()
            ),
            Err(LocateError::ContextNotFound { .. })
        ));
    }

    #[test]
    fn out_of_order_unique_hunks_are_found() {
        assert_eq!(
            at(run(
                "1\n2\n3\n4\n",
                &hunk(&["1"], &["one"], &[]),
                Hints {
                    cursor: 3,
                    ..Hints::default()
                }
            )),
            (0, 1, Tier::Exact)
        );
    }

    #[test]
    fn end_of_file_anchor_only_matches_at_the_end() {
        let mut h = hunk(&["x", "y"], &["X", "y"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert_eq!(
            at(run("x\ny\nx\ny\n", &h, Hints::default())),
            (2, 4, Tier::Exact)
        );
        let mut h = hunk(&["x"], &["X"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert!(run("x\ny\nx\ny\n", &h, Hints::default()).is_err());
    }

    #[test]
    fn pure_addition_goes_after_header_explicit_line_or_at_end() {
        let text = "def a():\n    pass\ndef b():\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&[], &["    # c"], &["def a():"]),
                Hints::default()
            )),
            (1, 1, Tier::Exact)
        );
        assert_eq!(
            at(run(text, &hunk(&[], &["x"], &[]), Hints::default())),
            (3, 3, Tier::Exact)
        );
        let mut h = hunk(&[], &["x"], &[]);
        h.anchor = Anchor::AfterLine(0);
        assert_eq!(at(run(text, &h, Hints::default())), (0, 0, Tier::Exact));
        h.anchor = Anchor::AfterLine(4);
        assert!(run(text, &h, Hints::default()).is_err());
    }

    #[test]
    fn trailing_blank_context_is_dropped_when_it_prevents_a_match() {
        let r = run(
            "foo\nbar\nbaz\n",
            &hunk(&["foo", "bar", ""], &["FOO", "bar", ""], &[]),
            Hints::default(),
        );
        let Ok(Located::Replace(p)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            (p[0].at.start, p[0].at.end, p[0].old.len(), p[0].new.len()),
            (0, 2, 2, 2)
        );
    }

    #[test]
    fn already_applied_when_new_lines_stand_in_place() {
        let r = run(
            "a\nnew line\nc\n",
            &hunk(&["a", "old line", "c"], &["a", "new line", "c"], &[]),
            Hints::default(),
        );
        assert!(matches!(r, Ok(Located::AlreadyApplied { .. })));
        let r = run("a\n}\nc\n", &hunk(&["x"], &["}"], &[]), Hints::default());
        assert!(matches!(r, Err(LocateError::NotFound { .. })));
    }

    #[test]
    fn line_hint_singles_out_a_nearby_candidate() {
        let mut lines = vec!["pad"; 40];
        lines[5] = "dup";
        lines[30] = "dup";
        let text = lines.join("\n") + "\n";
        let mut h = hunk(&["dup"], &["DUP"], &[]);
        h.line_hint = Some(29);
        assert_eq!(at(run(&text, &h, Hints::default())), (30, 31, Tier::Exact));
        h.line_hint = None;
        assert!(run(&text, &h, Hints::default()).is_err());
    }

    #[test]
    fn substring_edits_match_bytes_and_count_occurrences() {
        let mut h = Hunk::substring("foo(1)".into(), "foo(2)".into(), 1);
        let r = run("x = foo(1)\ny = 3\n", &h, Hints::default()).unwrap();
        let Located::Replace(p) = r else { panic!() };
        assert_eq!(p[0].bytes, Some((4, 10)));
        h.occurrences = Occurrences::All;
        let Located::Replace(p) = run("foo(1) foo(1)\nfoo(1)\n", &h, Hints::default()).unwrap()
        else {
            panic!()
        };
        assert_eq!(p.len(), 3);
        h.occurrences = Occurrences::Exactly(2);
        assert!(matches!(
            run("foo(1) foo(1)\nfoo(1)\n", &h, Hints::default()),
            Err(LocateError::CountMismatch { expected: 2, .. })
        ));
        h.occurrences = Occurrences::One;
        assert_eq!(
            run("foo(1)\nfoo(1)\n", &h, Hints::default()).unwrap_err(),
            LocateError::Ambiguous {
                tier: Tier::Exact,
                candidates: vec![1, 2]
            }
        );
    }

    #[test]
    fn line_numbers_are_stripped_and_become_a_hint() {
        let text = "a\nb\nc\nb\n";
        let h = hunk(&["4\u{2192}b"], &["4\u{2192}B"], &[]);
        assert_eq!(
            at(run(text, &h, Hints::default())),
            (3, 4, Tier::LineNumbers)
        );
        // An anchored read's `LINE:HASH|` prefix, copied into another format.
        let b = crate::anchors::line_hash("b");
        let h = hunk(&[&format!("4:{b}|b")], &[&format!("4:{b}|B")], &[]);
        let Located::Replace(p) = run(text, &h, Hints::default()).unwrap() else {
            panic!()
        };
        assert_eq!(
            (p[0].at.start, p[0].new.clone()),
            (3, vec!["B".to_string()])
        );
    }

    #[test]
    fn elision_matches_pieces_in_order_and_keeps_the_middle() {
        let text = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n";
        let h = hunk(
            &["def f():", "    ...", "    return a"],
            &["def f(x):", "    ...", "    return x"],
            &[],
        );
        let Located::Replace(p) = run(text, &h, Hints::default()).unwrap() else {
            panic!()
        };
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].at.start, p[1].at.start, p[1].at.tier),
            (0, 4, Tier::Elision)
        );
        let bad = hunk(
            &["def f():", "    ...", "    return a"],
            &["def f(x):", "    return x"],
            &[],
        );
        assert!(matches!(
            run(text, &bad, Hints::default()),
            Err(LocateError::ElisionMismatch { .. })
        ));
    }

    #[test]
    fn placeholders_in_new_text_are_refused() {
        let h = hunk(&["a", "b"], &["a", "// ... existing code ..."], &[]);
        assert!(matches!(
            run("a\nb\n", &h, Hints::default()),
            Err(LocateError::Placeholder { .. })
        ));
    }

    #[test]
    fn approximate_tiers_forgive_kept_context_only() {
        let text = "def load(path):\n    with open(path) as f:\n        data = json.load(f)\n    return data\n";
        // The drifted lines are removed: the model never saw the file's versions. Refused,
        // with the differing line shown both ways.
        let removed = hunk(
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(fh)",
                "    return data",
            ],
            &[
                "def load(path):",
                "    return json.loads(open(path).read())",
            ],
            &[],
        );
        match run(text, &removed, Hints::default()) {
            Err(LocateError::NotFound { note: Some(n), .. }) => match *n {
                MissNote::RemovedLineDiffers {
                    line, sent, file, ..
                } => assert_eq!(
                    (line, sent.as_str(), file.as_str()),
                    (2, "with open(path) as fh:", "with open(path) as f:")
                ),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        // The same drift in lines the hunk keeps: anchored, each difference noted, and the
        // file's own lines kept.
        let kept = hunk(
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(f)",
                "    return data",
            ],
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(f)",
                "    return data or {}",
            ],
            &[],
        );
        let Ok(Located::Replace(p)) = run(text, &kept, Hints::default()) else {
            panic!()
        };
        assert_eq!(
            (p[0].at.start, p[0].at.end, p[0].at.tier),
            (0, 4, Tier::Anchor)
        );
        assert_eq!(
            p[0].notes,
            vec![HunkNote::ContextKept {
                line: 2,
                sent: "with open(path) as fh:".into(),
                file: "with open(path) as f:".into()
            }]
        );
        let fuzzy = hunk(
            &[
                "def load(path):",
                "    with open(path) as f:",
                "        data = json.load(f)",
                "    return dat",
            ],
            &[
                "def load(path):",
                "    with open(path) as f:",
                "        data = json.load(f)",
                "    return dat",
                "x",
            ],
            &[],
        );
        assert_eq!(at(run(text, &fuzzy, Hints::default())), (0, 4, Tier::Fuzzy));
        assert!(run(text, &hunk(&["retrun data"], &["x"], &[]), Hints::default()).is_err());
    }
}
