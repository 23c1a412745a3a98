//! Locating hunks: the matcher ladder.
//!
//! A hunk's old lines are searched as one contiguous block, tier by tier from strict to loose
//! ([`Tier::LADDER`]). The first tier that finds any candidate decides: exactly one candidate is
//! a match; several are narrowed by hints (the `@@` context headers, the previous hunk's
//! position, a line-number hint) and, if still several, refused as ambiguous with every
//! candidate listed. A looser tier never runs to choose among a stricter tier's candidates.

pub mod closest;

use crate::batch::{Anchor, Hunk};
use closest::Closest;
use serde::Serialize;

/// Matcher tiers, ordered from strict to loose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Byte-identical lines.
    Exact,
    /// Identical once CRLF is read as LF.
    Eol,
    /// Identical ignoring trailing whitespace.
    TrailingWs,
    /// Identical ignoring leading and trailing whitespace; inserted lines are re-indented.
    Trimmed,
    /// As `Trimmed`, with typographic quotes, dashes, ellipses and special spaces read as ASCII.
    Unicode,
}

impl Tier {
    /// Every tier, in the order they are tried.
    pub const LADDER: [Tier; 5] = [
        Tier::Exact,
        Tier::Eol,
        Tier::TrailingWs,
        Tier::Trimmed,
        Tier::Unicode,
    ];

    /// The tier's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Eol => "eol",
            Tier::TrailingWs => "trailing_ws",
            Tier::Trimmed => "trimmed",
            Tier::Unicode => "unicode",
        }
    }

    /// Whether a file line equals a needle line at this tier.
    pub fn line_eq(self, file: &str, needle: &str) -> bool {
        match self {
            Tier::Exact => file == needle,
            Tier::Eol => strip_cr(file) == strip_cr(needle),
            Tier::TrailingWs => file.trim_end() == needle.trim_end(),
            Tier::Trimmed => file.trim() == needle.trim(),
            Tier::Unicode => ascii_folded(file.trim()).eq(ascii_folded(needle.trim())),
        }
    }

    /// Whether a match at this tier may differ in indentation, so inserted lines need
    /// re-indenting to the file's.
    pub fn ignores_indent(self) -> bool {
        self >= Tier::Trimmed
    }
}

fn strip_cr(s: &str) -> &str {
    s.strip_suffix('\r').unwrap_or(s)
}

/// Characters models substitute for ASCII punctuation, read back as ASCII.
fn ascii_folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(|c| {
        let folded: &'static str = match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
            '\u{2018}'..='\u{201B}' | '\u{2032}' => "'",
            '\u{201C}'..='\u{201F}' | '\u{2033}' => "\"",
            '\u{2026}' => "...",
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
            _ => "",
        };
        let mut chars = if folded.is_empty() {
            FoldedChars::One(Some(c))
        } else {
            FoldedChars::Str(folded.chars())
        };
        std::iter::from_fn(move || chars.next())
    })
}

enum FoldedChars {
    One(Option<char>),
    Str(std::str::Chars<'static>),
}

impl FoldedChars {
    fn next(&mut self) -> Option<char> {
        match self {
            FoldedChars::One(c) => c.take(),
            FoldedChars::Str(s) => s.next(),
        }
    }
}

/// Where a hunk's old lines were found: lines `start..end` (0-based, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// First matched line (0-based); for an insertion, the line it goes before.
    pub start: usize,
    /// One past the last matched line.
    pub end: usize,
    /// The tier that found it.
    pub tier: Tier,
}

/// A successful location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Replace the matched lines. `old_len`/`new_len` are the hunk's line counts actually
    /// used (a trailing empty context line may have been dropped to find the match).
    Replace {
        /// Where.
        at: Match,
        /// Number of old lines used.
        old_len: usize,
        /// Number of new lines used.
        new_len: usize,
    },
    /// The old lines are absent but the new ones stand where they would be: nothing to do.
    AlreadyApplied {
        /// Where the new lines are.
        at: Match,
    },
}

/// Why a hunk could not be located.
#[derive(Debug, Clone, PartialEq)]
pub enum LocateError {
    /// No tier found the old lines.
    NotFound {
        /// The most similar real lines, for the model's next try.
        closest: Option<Closest>,
        /// Extra explanation (e.g. found, but not after the `@@` header).
        note: Option<String>,
    },
    /// The deciding tier found several candidates and no hint singled one out.
    Ambiguous {
        /// The deciding tier.
        tier: Tier,
        /// 1-based start lines of every candidate.
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
}

/// Hints that narrow a choice among candidates; they never add candidates.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    /// The line after the previous hunk of the same file (0-based).
    pub cursor: usize,
}

/// Locates one hunk in `lines` (a file's line contents).
pub fn locate(lines: &[&str], hunk: &Hunk, hints: Hints) -> Result<Located, LocateError> {
    let regions = header_regions(lines, &hunk.context)?;
    let search = Search {
        lines,
        anchor: hunk.anchor,
        regions: regions.as_ref().map(|r| r.starts.as_slice()),
        cursor: hints.cursor,
        line_hint: hunk.line_hint.map(|h| h.saturating_sub(1)),
    };
    if hunk.old.is_empty() {
        return locate_insertion(&search, hunk, regions.as_ref());
    }
    let (mut old, mut new) = (&hunk.old[..], &hunk.new[..]);
    let mut note = None;
    loop {
        match search.ladder(old) {
            Ladder::Found(at) => {
                return Ok(Located::Replace {
                    at,
                    old_len: old.len(),
                    new_len: new.len(),
                });
            }
            Ladder::Ambiguous(tier, candidates) => {
                return Err(LocateError::Ambiguous {
                    tier,
                    candidates: candidates.iter().map(|c| c + 1).collect(),
                });
            }
            Ladder::Missing { outside_regions } => {
                if note.is_none()
                    && let (Some(line), Some(r)) = (outside_regions, &regions)
                {
                    note = Some(format!(
                        "these lines occur at line {}, but not after the @@ context {:?} (line {})",
                        line + 1,
                        r.header,
                        r.starts[0],
                    ));
                }
            }
        }
        let trailing_blank = old.len() > 1
            && old.last().is_some_and(String::is_empty)
            && new.last().is_some_and(String::is_empty);
        if !trailing_blank {
            break;
        }
        old = &old[..old.len() - 1];
        new = &new[..new.len() - 1];
    }
    if is_substantive_change(hunk)
        && let Ladder::Found(at) = search.ladder(trim_trailing_blank(&hunk.new))
    {
        return Ok(Located::AlreadyApplied { at });
    }
    Err(LocateError::NotFound {
        closest: closest::closest_block(lines, &hunk.old),
        note,
    })
}

/// A pure addition goes after its `@@` context line, or at the end of the file.
fn locate_insertion(
    search: &Search<'_, '_>,
    hunk: &Hunk,
    regions: Option<&Regions>,
) -> Result<Located, LocateError> {
    let n = search.lines.len();
    let at = match (hunk.anchor, regions) {
        (Anchor::EndOfFile, _) | (Anchor::Anywhere, None) => n,
        (Anchor::Anywhere, Some(r)) => {
            let narrowed = search.narrow(r.starts.clone());
            match narrowed.as_slice() {
                [one] => *one,
                many => {
                    return Err(LocateError::ContextAmbiguous {
                        header: r.header.clone(),
                        candidates: many.to_vec(),
                    });
                }
            }
        }
    };
    let new = trim_trailing_blank(&hunk.new);
    let present = if at == n && regions.is_none() {
        n.checked_sub(new.len())
            .filter(|&s| block_eq(search.lines, s, new, Tier::TrailingWs))
    } else {
        Some(at).filter(|&s| block_eq(search.lines, s, new, Tier::TrailingWs))
    };
    if let Some(start) = present
        && has_words(new)
    {
        return Ok(Located::AlreadyApplied {
            at: Match {
                start,
                end: start + new.len(),
                tier: Tier::TrailingWs,
            },
        });
    }
    Ok(Located::Replace {
        at: Match {
            start: at,
            end: at,
            tier: Tier::Exact,
        },
        old_len: 0,
        new_len: hunk.new.len(),
    })
}

/// Whether "the new lines are already there" may be concluded for this hunk: it must change
/// something, and what it leaves must have real content, not just braces or blank lines.
fn is_substantive_change(hunk: &Hunk) -> bool {
    hunk.old != hunk.new && has_words(&hunk.new)
}

fn has_words(lines: &[String]) -> bool {
    lines.iter().any(|l| l.chars().any(|c| c.is_alphanumeric()))
}

fn trim_trailing_blank(lines: &[String]) -> &[String] {
    let keep = lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
    &lines[..keep]
}

fn block_eq(lines: &[&str], start: usize, needle: &[String], tier: Tier) -> bool {
    start + needle.len() <= lines.len()
        && needle
            .iter()
            .zip(&lines[start..])
            .all(|(n, f)| tier.line_eq(f, n))
}

/// Regions opened by a chain of `@@` headers: each start is the line after a possible
/// occurrence of the last header.
struct Regions {
    /// The last header, for messages.
    header: String,
    /// Sorted, distinct 0-based line indexes.
    starts: Vec<usize>,
}

fn header_regions(lines: &[&str], headers: &[String]) -> Result<Option<Regions>, LocateError> {
    let mut starts: Option<Vec<usize>> = None;
    for header in headers {
        let floor = starts
            .as_ref()
            .and_then(|s| s.first().copied())
            .unwrap_or(0);
        let hits = Tier::LADDER
            .iter()
            .map(|&tier| {
                (floor..lines.len())
                    .filter(|&i| tier.line_eq(lines[i], header))
                    .collect::<Vec<_>>()
            })
            .find(|hits| !hits.is_empty())
            .unwrap_or_default();
        let mut next: Vec<usize> = match &starts {
            None => hits.iter().map(|h| h + 1).collect(),
            Some(starts) => starts
                .iter()
                .filter_map(|&s| hits.iter().find(|&&h| h >= s).map(|h| h + 1))
                .collect(),
        };
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return Err(LocateError::ContextNotFound {
                header: header.clone(),
                closest: closest::closest_line(lines, header),
            });
        }
        starts = Some(next);
    }
    Ok(starts.map(|starts| Regions {
        header: headers.last().cloned().unwrap_or_default(),
        starts,
    }))
}

/// Everything a ladder run needs besides the needle.
struct Search<'l, 's> {
    lines: &'l [&'s str],
    anchor: Anchor,
    regions: Option<&'l [usize]>,
    cursor: usize,
    line_hint: Option<usize>,
}

enum Ladder {
    Found(Match),
    Ambiguous(Tier, Vec<usize>),
    /// Nothing found; `outside_regions` is a candidate that the headers excluded.
    Missing {
        outside_regions: Option<usize>,
    },
}

/// How far from a line hint a candidate may be and still be singled out by it.
const LINE_HINT_WINDOW: usize = 10;

impl Search<'_, '_> {
    fn ladder(&self, needle: &[String]) -> Ladder {
        let mut outside_regions = None;
        for tier in Tier::LADDER {
            let all = self.candidates(needle, tier);
            if all.is_empty() {
                continue;
            }
            let in_regions = match self.regions {
                None => all,
                Some(starts) => {
                    let mut firsts: Vec<usize> = starts
                        .iter()
                        .filter_map(|&s| all.iter().find(|&&c| c >= s).copied())
                        .collect();
                    firsts.dedup();
                    if firsts.is_empty() {
                        outside_regions.get_or_insert(all[0]);
                        continue;
                    }
                    firsts
                }
            };
            let narrowed = self.narrow(in_regions);
            return match narrowed.as_slice() {
                [one] => Ladder::Found(Match {
                    start: *one,
                    end: one + needle.len(),
                    tier,
                }),
                many => Ladder::Ambiguous(tier, many.to_vec()),
            };
        }
        Ladder::Missing { outside_regions }
    }

    /// Narrows several candidates by the previous hunk's position, then by the line hint.
    /// Returns the input unchanged when no hint singles one out.
    fn narrow(&self, candidates: Vec<usize>) -> Vec<usize> {
        if candidates.len() < 2 {
            return candidates;
        }
        let after_cursor: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&c| c >= self.cursor)
            .collect();
        if after_cursor.len() == 1 {
            return after_cursor;
        }
        if let Some(hint) = self.line_hint {
            let near: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&c| c.abs_diff(hint) <= LINE_HINT_WINDOW)
                .collect();
            if near.len() == 1 {
                return near;
            }
        }
        candidates
    }

    fn candidates(&self, needle: &[String], tier: Tier) -> Vec<usize> {
        let n = self.lines.len();
        let k = needle.len();
        if k > n {
            return Vec::new();
        }
        let starts = match self.anchor {
            Anchor::EndOfFile => n - k..n - k + 1,
            Anchor::Anywhere => 0..n - k + 1,
        };
        starts
            .filter(|&s| block_eq(self.lines, s, needle, tier))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(old: &[&str], new: &[&str], context: &[&str]) -> Hunk {
        Hunk {
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            context: context.iter().map(|s| s.to_string()).collect(),
            line_hint: None,
            anchor: Anchor::Anywhere,
            line: 1,
        }
    }

    fn at(r: Result<Located, LocateError>) -> (usize, usize, Tier) {
        match r.unwrap() {
            Located::Replace { at, .. } => (at.start, at.end, at.tier),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_tier_matches_what_it_should() {
        let cases: [(&str, &str, Tier); 5] = [
            ("foo()", "foo()", Tier::Exact),
            ("foo()\r", "foo()", Tier::Eol),
            ("foo()  \t", "foo()", Tier::TrailingWs),
            ("    foo()", "foo()", Tier::Trimmed),
            (
                "say \u{201c}hi\u{201d}\u{a0}\u{2014} ok\u{2026}",
                "say \"hi\" - ok...",
                Tier::Unicode,
            ),
        ];
        for (file, needle, tier) in cases {
            let lines = vec!["x", file, "y"];
            assert_eq!(
                at(locate(
                    &lines,
                    &hunk(&[needle], &["z"], &[]),
                    Hints::default()
                )),
                (1, 2, tier),
                "{file:?}"
            );
        }
    }

    #[test]
    fn ambiguity_at_a_strict_tier_is_never_resolved_by_a_looser_one() {
        let lines = vec!["a", "b", "a", "b", "  a"];
        let err = locate(&lines, &hunk(&["a"], &["A"], &[]), Hints::default()).unwrap_err();
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
        let lines = vec!["fn a", "x=10", "fn b", "x=10"];
        assert_eq!(
            at(locate(
                &lines,
                &hunk(&["x=10"], &["x=11"], &["fn b"]),
                Hints::default()
            )),
            (3, 4, Tier::Exact)
        );
        assert_eq!(
            at(locate(
                &lines,
                &hunk(&["x=10"], &["x=11"], &[]),
                Hints { cursor: 2 }
            )),
            (3, 4, Tier::Exact)
        );
        let lines = vec![
            "class A",
            "  def m():",
            "    x",
            "class B",
            "  def m():",
            "    x",
        ];
        assert_eq!(
            at(locate(
                &lines,
                &hunk(&["    x"], &["    y"], &["class B", "def m():"]),
                Hints::default()
            )),
            (5, 6, Tier::Exact)
        );
        assert!(matches!(
            locate(
                &lines,
                &hunk(&["    x"], &["    y"], &["def m():"]),
                Hints::default()
            ),
            Err(LocateError::Ambiguous { .. })
        ));
        assert!(matches!(
            locate(
                &lines,
                &hunk(&["    x"], &["    y"], &["def q():"]),
                Hints::default()
            ),
            Err(LocateError::ContextNotFound { .. })
        ));
    }

    #[test]
    fn out_of_order_unique_hunks_are_found() {
        let lines = vec!["1", "2", "3", "4"];
        assert_eq!(
            at(locate(
                &lines,
                &hunk(&["1"], &["one"], &[]),
                Hints { cursor: 3 }
            )),
            (0, 1, Tier::Exact)
        );
    }

    #[test]
    fn end_of_file_anchor_only_matches_at_the_end() {
        let lines = vec!["x", "y", "x", "y"];
        let mut h = hunk(&["x", "y"], &["X", "y"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert_eq!(
            at(locate(&lines, &h, Hints::default())),
            (2, 4, Tier::Exact)
        );
        let mut h = hunk(&["x"], &["X"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert!(locate(&lines, &h, Hints::default()).is_err());
    }

    #[test]
    fn pure_addition_goes_after_header_or_at_end() {
        let lines = vec!["def a():", "    pass", "def b():"];
        assert_eq!(
            at(locate(
                &lines,
                &hunk(&[], &["    # c"], &["def a():"]),
                Hints::default()
            )),
            (1, 1, Tier::Exact)
        );
        assert_eq!(
            at(locate(&lines, &hunk(&[], &["x"], &[]), Hints::default())),
            (3, 3, Tier::Exact)
        );
    }

    #[test]
    fn trailing_blank_context_is_dropped_when_it_prevents_a_match() {
        let lines = vec!["foo", "bar", "baz"];
        let r = locate(
            &lines,
            &hunk(&["foo", "bar", ""], &["FOO", "bar", ""], &[]),
            Hints::default(),
        );
        assert_eq!(
            r.unwrap(),
            Located::Replace {
                at: Match {
                    start: 0,
                    end: 2,
                    tier: Tier::Exact
                },
                old_len: 2,
                new_len: 2
            }
        );
    }

    #[test]
    fn already_applied_when_new_lines_stand_in_place() {
        let lines = vec!["a", "new line", "c"];
        let r = locate(
            &lines,
            &hunk(&["a", "old line", "c"], &["a", "new line", "c"], &[]),
            Hints::default(),
        );
        assert!(matches!(r, Ok(Located::AlreadyApplied { .. })));
        let lines = vec!["a", "}", "c"];
        let r = locate(&lines, &hunk(&["x"], &["}"], &[]), Hints::default());
        assert!(matches!(r, Err(LocateError::NotFound { .. })));
    }

    #[test]
    fn line_hint_singles_out_a_nearby_candidate() {
        let mut lines = vec!["pad"; 40];
        lines[5] = "dup";
        lines[30] = "dup";
        let mut h = hunk(&["dup"], &["DUP"], &[]);
        h.line_hint = Some(29);
        assert_eq!(
            at(locate(&lines, &h, Hints::default())),
            (30, 31, Tier::Exact)
        );
        h.line_hint = None;
        assert!(locate(&lines, &h, Hints::default()).is_err());
    }
}
