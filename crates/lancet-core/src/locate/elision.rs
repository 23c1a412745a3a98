//! Elided and omitted lines: old text whose `...` lines split it into pieces matched in order,
//! the lines between them kept; and how an elision or an omission placeholder is recognised
//! (`// ... existing code ...`), so that new text whose placeholder would delete code is refused.

use super::ladder::{Ladder, Search};
use super::{LocateError, Located, Match, Placement, Tier, closest};
use crate::batch::{Hunk, Occurrences, Pick};
use crate::line_map::{LineMap, Region};
use crate::locate::MissNote;

/// Elision: the old text's `...` lines split it into pieces that must match, in order, each
/// uniquely after the previous one; each is replaced by the new text's matching piece, and the
/// elided lines between them are kept.
pub(super) fn locate_elided(search: &Search, hunk: &Hunk) -> Result<Located, LocateError> {
    let old_pieces = split_at_elisions(&hunk.old);
    let new_pieces = split_at_elisions(&hunk.new);
    if old_pieces.len() != new_pieces.len() {
        return Err(LocateError::ElisionMismatch {
            old: old_pieces.len() - 1,
            new: new_pieces.len() - 1,
        });
    }
    let mut placements = Vec::new();
    let mut floor = 0;
    for (old, new) in old_pieces.iter().zip(&new_pieces) {
        if old.iter().all(|l| l.trim().is_empty()) {
            if new.iter().all(|l| l.trim().is_empty()) {
                continue;
            }
            return Err(LocateError::ElisionMismatch {
                old: old_pieces.len() - 1,
                new: new_pieces.len() - 1,
            });
        }
        let piece_search = Search {
            floor,
            cursor: floor,
            regions: None,
            occurrences: Occurrences::One,
            pick: Pick::Unique,
            ..search.clone()
        };
        match piece_search.ladder(old, Tier::LINE_TIERS) {
            Ladder::Found(tier, starts, _) => {
                let start = starts[0];
                floor = start + old.len();
                placements.push(Placement {
                    at: Match {
                        start,
                        end: start + old.len(),
                        tier: Tier::Elision,
                    },
                    bytes: None,
                    old: old.clone(),
                    new: new.clone(),
                    new_text: None,
                    reindent: tier.ignores_indent(),
                    notes: Vec::new(),
                });
            }
            Ladder::Missing { .. } => {
                return Err(LocateError::NotFound {
                    closest: closest::closest_block(search.lines, search.hay.sketches(), old),
                    note: Some(Box::new(MissNote::ElidedPieceMissing {
                        piece: old
                            .iter()
                            .find(|l| !l.trim().is_empty())
                            .cloned()
                            .unwrap_or_default(),
                        after: floor,
                    })),
                });
            }
            other => return other.into_result(old, new, Some(Tier::Elision)),
        }
    }
    Ok(Located::Replace(placements))
}

fn split_at_elisions(lines: &[String]) -> Vec<Vec<String>> {
    let mut pieces = vec![Vec::new()];
    for line in lines {
        if is_elision_line(line) {
            pieces.push(Vec::new());
        } else if let Some(last) = pieces.last_mut() {
            last.push(line.clone());
        }
    }
    pieces
}

/// Comment leaders stripped before looking at a line's words.
const COMMENT_MARKS: [&str; 8] = ["//", "#", "/*", "*/", "<!--", "-->", "--", ";"];

/// Words an omission note is made of (`// ... existing code ...`, `# rest of file unchanged`).
const OMISSION_WORDS: [&str; 37] = [
    "existing",
    "code",
    "rest",
    "of",
    "the",
    "file",
    "function",
    "functions",
    "method",
    "methods",
    "class",
    "classes",
    "unchanged",
    "remains",
    "remaining",
    "same",
    "other",
    "others",
    "omitted",
    "previous",
    "lines",
    "here",
    "as",
    "before",
    "implementation",
    "body",
    "content",
    "contents",
    "properties",
    "fields",
    "members",
    "imports",
    "tests",
    "cases",
    "items",
    "etc",
    "kept",
];

fn strip_comment_marks(s: &str) -> (&str, bool) {
    let mut t = s.trim();
    let mut had = false;
    loop {
        let before = t;
        for m in COMMENT_MARKS {
            if let Some(rest) = t.strip_prefix(m) {
                t = rest.trim_start();
                had = true;
            }
            if let Some(rest) = t.strip_suffix(m) {
                t = rest.trim_end();
                had = true;
            }
        }
        if t == before {
            return (t, had);
        }
    }
}

fn omission_words_only(s: &str) -> bool {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| OMISSION_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Whether a line of old text stands for omitted lines: `...`, `…`, or a comment made of dots
/// and omission words (`// ... existing code ...`).
pub fn is_elision_line(line: &str) -> bool {
    let (body, _) = strip_comment_marks(line);
    let dots = body.contains("...") || body.contains('\u{2026}');
    dots && omission_words_only(&body.replace("...", " ").replace('\u{2026}', " "))
}

/// Whether a line of new text is an omission placeholder that would delete code if written:
/// a comment of dots (`// ...`), or dots with omission words (`... rest of code ...`). A bare
/// `...` line is not one (it is valid Python and a common stub).
pub fn is_placeholder_line(line: &str) -> bool {
    let (body, commented) = strip_comment_marks(line);
    let has_dots = body.contains("...") || body.contains('\u{2026}');
    let words = body.replace("...", " ").replace('\u{2026}', " ");
    let has_words = words.chars().any(char::is_alphanumeric);
    if has_dots {
        (commented || has_words) && omission_words_only(&words)
    } else {
        commented && has_words && omission_words_only(&words) && {
            let w = words.to_ascii_lowercase();
            w.contains("existing code") || w.contains("rest of")
        }
    }
}

/// The first placeholder line `new` introduces that `old` does not have.
pub fn introduced_placeholder<'a>(old: &[String], new: &'a [String]) -> Option<&'a str> {
    let mut placeholders = new
        .iter()
        .map(String::as_str)
        .filter(|l| is_placeholder_line(l))
        .peekable();
    placeholders.peek()?;
    // The old lines are indexed once, so many placeholders cost no more than one.
    let old: std::collections::HashSet<&str> = old.iter().map(|o| o.trim()).collect();
    placeholders.find(|l| !old.contains(l.trim()))
}

/// For formats where every removed line is written out (`-` lines of a unified diff or a Codex
/// patch), a placeholder hides code only where its diff run deletes non-blank lines it does not
/// add back: `# ... rest unchanged` in a pure insertion, or beside re-added copies of every
/// removed line, deletes nothing. Returns the placeholder that does hide deleted lines.
pub fn placeholder_hiding_deletions<'a>(old: &[String], new: &'a [String]) -> Option<&'a str> {
    introduced_placeholder(old, new)?;
    for region in LineMap::of(old, new).regions() {
        let Region::Changed {
            old: removed,
            new: added,
        } = region
        else {
            continue;
        };
        if removed.is_empty() || added.is_empty() {
            continue;
        }
        let added = &new[added.clone()];
        let Some(placeholder) = introduced_placeholder(old, added) else {
            continue;
        };
        let added: std::collections::HashSet<&str> = added.iter().map(|a| a.trim()).collect();
        let lost = old[removed.clone()]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .any(|l| !added.contains(l.trim()));
        if lost {
            return Some(placeholder);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::locate::owned_lines as v;

    #[test]
    fn a_placeholder_hides_code_only_where_its_run_deletes_lines() {
        // Pure insertion of a comment that happens to look like a placeholder: nothing lost.
        let old = v(&["def f():", "    return 1"]);
        let new = v(&["def f():", "    # ... rest unchanged", "    return 1"]);
        assert_eq!(placeholder_hiding_deletions(&old, &new), None);
        // Every removed line added back beside it: nothing lost.
        let old = v(&["a = 1", "b = 2"]);
        let new = v(&["# ... existing code ...", "a = 1", "b = 3"]);
        assert_eq!(placeholder_hiding_deletions(&old, &new), None);
        // Removed lines replaced by the placeholder: code would be deleted.
        let old = v(&["x()", "a = 1", "b = 2", "y()"]);
        let new = v(&["x()", "# ... existing code ...", "y()"]);
        assert_eq!(
            placeholder_hiding_deletions(&old, &new),
            Some("# ... existing code ...")
        );
    }

    #[test]
    fn recognises_elisions_and_placeholders() {
        for l in [
            "...",
            "    ...",
            "\u{2026}",
            "// ...",
            "# ... existing code ...",
            "/* ... */",
            "<!-- ... -->",
        ] {
            assert!(is_elision_line(l), "{l:?}");
        }
        assert!(!is_elision_line("x = ..."));
        assert!(!is_elision_line("print('...')"));
        for l in [
            "// ... existing code ...",
            "# ... rest of code ...",
            "// rest of the file unchanged",
            "    // ...",
            "(rest of methods ...)",
        ] {
            assert!(is_placeholder_line(l), "{l:?}");
        }
        for l in [
            "...",
            "    ...",
            "x = 1",
            "// handles ... edge cases",
            "# TODO",
        ] {
            assert!(!is_placeholder_line(l), "{l:?}");
        }
        assert_eq!(
            introduced_placeholder(&v(&["a", "b"]), &v(&["a", "// ... existing code ..."])),
            Some("// ... existing code ...")
        );
        assert_eq!(
            introduced_placeholder(&v(&["// ...", "b"]), &v(&["// ...", "c"])),
            None
        );
    }
}
