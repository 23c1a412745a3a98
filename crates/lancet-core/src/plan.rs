//! One file's edit, planned: every hunk located against the file's text and turned into the
//! byte splices it makes, with no file system and no words. Staging plans each Update with
//! [`plan_file`], puts failures into words (`explain`), and splices with [`FilePlan::splice`];
//! a caller can plan to inspect where an edit would land without staging anything.
//!
//! ```text
//! TextFile + Hunk[] ─plan_file─▶ FilePlan (per hunk: splices | already applied | overlap | not located) ─splice─▶ bytes
//! ```

use crate::batch::Hunk;
use crate::line_map::{LineMap, Region};
use crate::locate::{self, Haystack, Hints, LocateError, Located, Match, Placement, Tier};
use crate::text::{
    IndentMap, IndentUnit, Splice, TextFile, apply_splices, common_indent, indent_of, with_eol,
};

/// What became of one hunk.
#[derive(Debug)]
pub enum HunkPlan {
    /// Located: the places it replaces (one, or each place of an all-occurrences hunk) and
    /// the splice for each.
    Replace {
        /// Where, and what each place's old and new lines are.
        placements: Vec<Placement>,
        /// The byte splice for each placement, in the same order.
        splices: Vec<Splice>,
    },
    /// The file already holds the hunk's new text here (with evidence: see `locate`).
    AlreadyApplied {
        /// The lines holding it.
        at: Match,
    },
    /// Located, but its change overlaps an earlier hunk's: two hunks may not edit one place.
    Overlaps {
        /// Where it located.
        placements: Vec<Placement>,
        /// The earlier hunk (0-based index) it overlaps.
        other: usize,
    },
    /// Not located (not found, ambiguous, or refused by a tier's rule).
    NotLocated(LocateError),
}

impl HunkPlan {
    /// Whether this hunk keeps the file's edit from applying.
    pub fn failed(&self) -> bool {
        matches!(self, HunkPlan::Overlaps { .. } | HunkPlan::NotLocated(_))
    }
}

/// Every hunk of one file's Update, planned in order.
#[derive(Debug)]
pub struct FilePlan {
    /// One plan per hunk, in the edit's order.
    pub hunks: Vec<HunkPlan>,
}

impl FilePlan {
    /// Whether any hunk failed.
    pub fn failed(&self) -> bool {
        self.hunks.iter().any(HunkPlan::failed)
    }

    /// The splices of the located hunks, each with its hunk's 0-based index.
    pub fn splices(&self) -> Vec<(usize, Splice)> {
        self.hunks
            .iter()
            .enumerate()
            .flat_map(|(i, h)| match h {
                HunkPlan::Replace { splices, .. } => {
                    splices.iter().map(|s| (i, s.clone())).collect()
                }
                _ => Vec::new(),
            })
            .collect()
    }

    /// The file's new bytes: every located hunk's splices applied to `before` (the bytes the
    /// plan was made from). Pure; a failed hunk contributes nothing.
    pub fn splice(&self, before: &[u8]) -> Vec<u8> {
        let only: Vec<Splice> = self.splices().into_iter().map(|(_, s)| s).collect();
        apply_splices(before, &only)
    }
}

/// Locates every hunk of one file's Update against `file`, in order (each search starts after
/// the previous hunk's place, `hints.cursor`), and builds each located hunk's splices. A hunk
/// whose splice overlaps an earlier one's is marked, not spliced.
pub fn plan_file(file: &TextFile, hunks: &[Hunk], mut hints: Hints) -> FilePlan {
    let hay = Haystack::new(file);
    let mut claimed: Vec<(usize, (usize, usize))> = Vec::new();
    let mut plans = Vec::with_capacity(hunks.len());
    for (i, hunk) in hunks.iter().enumerate() {
        let plan = match locate::locate(&hay, hunk, hints) {
            Ok(Located::Replace(placements)) => {
                hints.cursor = placements.last().map_or(0, |p| p.at.end);
                let splices: Vec<Splice> = placements.iter().map(|p| splice_for(file, p)).collect();
                let clash = splices.iter().find_map(|s| {
                    claimed
                        .iter()
                        .find(|(_, t)| overlaps((s.start, s.end), *t))
                        .map(|(other, _)| *other)
                });
                match clash {
                    Some(other) => HunkPlan::Overlaps { placements, other },
                    None => {
                        claimed.extend(splices.iter().map(|s| (i, (s.start, s.end))));
                        HunkPlan::Replace {
                            placements,
                            splices,
                        }
                    }
                }
            }
            Ok(Located::AlreadyApplied { at }) => {
                hints.cursor = at.end;
                HunkPlan::AlreadyApplied { at }
            }
            Err(e) => HunkPlan::NotLocated(e),
        };
        plans.push(plan);
    }
    FilePlan { hunks: plans }
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    // Two insertions at one point do not overlap; a range overlaps what lies strictly inside.
    a.0 < b.1 && b.0 < a.1
}

/// Which old line an inserted line takes its indentation from (its index in `old`, whose file
/// twin sits at the same offset in the matched window). A replacing line follows the line it
/// replaces. An inserted line follows the nearest non-blank line before it, unless that line
/// opens a block (`:`, `{`, `(`, `[`, `=>`): then the line after it, which is inside the block
/// the insertion joins.
fn indent_anchor(old: &[String], old_index: usize, replacing: bool) -> Option<usize> {
    let nonblank = |i: &usize| !old[*i].trim().is_empty();
    if replacing && old_index < old.len() && nonblank(&old_index) {
        return Some(old_index);
    }
    let before = (0..old_index.min(old.len())).rev().find(nonblank);
    let after = (old_index..old.len()).find(nonblank);
    let opens_block = |i: usize| {
        let t = old[i].trim_end();
        [":", "{", "(", "[", "=>"].iter().any(|o| t.ends_with(o))
    };
    match (before, after) {
        (Some(b), Some(a)) if opens_block(b) => Some(a),
        (Some(b), _) => Some(b),
        (None, a) => a,
    }
}

/// What a line the hunk keeps becomes: the file's own bytes (whitespace the edit adds or
/// garbles is noise), but the edit's version where it only strips trailing whitespace on
/// purpose (`reindented` gives it the file's indentation), and the edit's blank line as sent
/// in a re-indented block (it has no content to keep; the block's layout is the edit's).
fn kept_line(
    old: &str,
    new: &str,
    file: &str,
    reindent: bool,
    reindented: impl FnOnce() -> String,
) -> String {
    if old != new && new.trim_end() == new {
        reindented()
    } else if reindent && new.trim().is_empty() && file.trim().is_empty() {
        new.to_string()
    } else {
        file.to_string()
    }
}

/// How the edit's indentation maps onto the file's, from the lines that matched each other.
fn indent_map(file: &TextFile, old: &[String], new: &[String], file_lines: &[&str]) -> IndentMap {
    let pairs: Vec<(&str, &str)> = old
        .iter()
        .map(String::as_str)
        .zip(file_lines.iter().copied())
        .collect();
    let edit_unit = IndentUnit::of(old.iter().chain(new).map(String::as_str));
    let file_unit = IndentUnit::of(file.line_strs().into_iter());
    IndentMap::plan(&pairs, edit_unit, file_unit)
}

/// Builds the byte splice for one placement. A substring match is replaced by the new text
/// (its line breaks in the file's style). For line matches, lines the hunk keeps (context) keep
/// the file's own bytes; inserted lines get the file's line ending (and, when the match ignored
/// indentation, the file's indentation); the file's final-newline state is preserved.
fn splice_for(file: &TextFile, p: &Placement) -> Splice {
    if let (Some((start, end)), Some(new)) = (p.bytes, &p.new_text) {
        // The new text's line breaks take the file's style, whatever the edit used.
        let text = with_eol(new, file.style().eol);
        return Splice { start, end, text };
    }
    let (at, old, new) = (p.at, &p.old[..], &p.new[..]);
    let text = file.text();
    let lines = file.lines();
    let file_lines: Vec<&str> = (at.start..at.end).map(|i| file.line(i)).collect();
    let map = p.reindent.then(|| indent_map(file, old, new, &file_lines));
    let bases = (
        common_indent(old.iter().map(String::as_str)),
        common_indent(file_lines.iter().copied()),
    );
    let inserted = |s: &str, anchor: Option<usize>| -> String {
        let Some(map) = &map else {
            return s.to_string();
        };
        let anchor = match anchor {
            Some(i) => (indent_of(&old[i]), indent_of(file_lines[i])),
            None => bases,
        };
        map.apply(s, anchor)
    };
    // (content, its own line ending if kept from the file)
    let mut pieces: Vec<(String, Option<&str>)> = Vec::new();
    // A match that ignored trailing whitespace cannot trust the edit's to tell its context
    // lines from its changes; the lines it adds are written as sent.
    let loose_ws = at.tier >= Tier::TrailingWs;
    let key = |l: &String| {
        if loose_ws {
            l.trim_end().to_string()
        } else {
            l.clone()
        }
    };
    let (old_keys, new_keys): (Vec<String>, Vec<String>) =
        (old.iter().map(key).collect(), new.iter().map(key).collect());
    // Added lines are written as sent in a re-indented block; a match that only ignored
    // trailing whitespace cannot tell the edit's from noise, so they lose theirs.
    let inserted = |s: &str, anchor: Option<usize>| -> String {
        inserted(
            if loose_ws && !p.reindent {
                s.trim_end()
            } else {
                s
            },
            anchor,
        )
    };

    for region in LineMap::of(&old_keys, &new_keys).regions() {
        match *region {
            Region::Kept {
                old: old_index,
                new: new_index,
                len,
            } => {
                let first = at.start + old_index;
                for (k, &l) in lines[first..first + len].iter().enumerate() {
                    // A CRLF line's `\r` belongs to its line ending here, so that dropping
                    // the ending (a new last line without newline) drops all of it.
                    let content = &text[l.start..l.end];
                    let content = match content.strip_suffix('\r') {
                        Some(c) if l.next > l.end => c,
                        _ => content,
                    };
                    let own_start = l.start + content.len();
                    let own = (l.next > own_start).then(|| &text[own_start..l.next]);
                    // Equal but for trailing whitespace, which the edit strips on purpose (its
                    // old version has some, its new one none): the new version. Otherwise,
                    // whitespace the edit adds or garbles is noise: the file's bytes.
                    let (o, n) = (&old[old_index + k], &new[new_index + k]);
                    let body = kept_line(o, n, content, p.reindent, || {
                        inserted(n, Some(old_index + k))
                    });
                    pieces.push((body, own));
                }
            }
            // Lines only removed leave nothing; lines added (in place of removed ones, or
            // inserted) take their indentation from the old line they stand at.
            Region::Changed {
                old: ref gone,
                new: ref added,
            } if !added.is_empty() => {
                let anchor = indent_anchor(old, gone.start, !gone.is_empty());
                for line in &new[added.clone()] {
                    pieces.push((inserted(line, anchor), None));
                }
            }
            Region::Changed { .. } => {}
        }
    }
    assemble(file, at.start, at.end, pieces)
}

/// The splice that puts `pieces` (each line's content and, when kept from the file, its own
/// line ending) in place of lines `first..last`: the file's line endings for new lines, and
/// its final-newline state kept at the end of the file.
fn assemble(
    file: &TextFile,
    first: usize,
    last: usize,
    pieces: Vec<(String, Option<&str>)>,
) -> Splice {
    let text = file.text();
    let lines = file.lines();
    let n = lines.len();
    let style = file.style();
    let eol = style.eol.as_str();
    let mut start = if first < n {
        lines[first].start
    } else {
        text.len()
    };
    let end = if last > first {
        lines[last - 1].next
    } else {
        start
    };
    let open_end = last == n && n > 0 && !style.final_newline;
    let mut out = String::new();
    if pieces.is_empty() {
        if open_end && first > 0 && last > first {
            // Deleting the unterminated last line: the line before it becomes the last one and
            // loses its line ending, so the file still ends without a newline.
            start = lines[first - 1].end;
            if text[..start].ends_with('\r') {
                start -= 1;
            }
        }
    } else {
        if open_end && first == n {
            out.push_str(eol);
        }
        let count = pieces.len();
        for (i, (content, own)) in pieces.into_iter().enumerate() {
            // An inserted line that carries its own `\r` (a CRLF line in a diff) ends with the
            // file's CRLF once, not twice.
            let content = match content.strip_suffix('\r') {
                Some(bare) if own.is_none() && eol == "\r\n" => bare,
                _ => &content,
            };
            out.push_str(content);
            if !(open_end && i + 1 == count) {
                out.push_str(own.unwrap_or(eol));
            }
        }
    }
    Splice {
        start,
        end,
        text: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::Tier;

    fn splice(text: &str, at: (usize, usize, Tier), old: &[&str], new: &[&str]) -> String {
        let file = TextFile::new(text);
        let p = Placement {
            at: Match {
                start: at.0,
                end: at.1,
                tier: at.2,
            },
            bytes: None,
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            new_text: None,
            notes: Vec::new(),
            reindent: at.2.ignores_indent(),
        };
        let s = splice_for(&file, &p);
        String::from_utf8(apply_splices(text.as_bytes(), &[s])).unwrap()
    }

    #[test]
    fn crlf_file_keeps_crlf_and_context_bytes() {
        assert_eq!(
            splice(
                "a\r\nb\r\nc\r\n",
                (0, 3, Tier::Eol),
                &["a", "b", "c"],
                &["a", "B", "c"]
            ),
            "a\r\nB\r\nc\r\n"
        );
    }

    #[test]
    fn missing_final_newline_is_preserved() {
        assert_eq!(
            splice("a\nb", (1, 2, Tier::Exact), &["b"], &["B", "C"]),
            "a\nB\nC"
        );
        assert_eq!(splice("a\nb", (1, 2, Tier::Exact), &["b"], &[]), "a");
        assert_eq!(splice("a\r\nb", (1, 2, Tier::Exact), &["b"], &[]), "a");
        assert_eq!(splice("a\nb", (2, 2, Tier::Exact), &[], &["c"]), "a\nb\nc");
        assert_eq!(
            splice("a\nb", (0, 2, Tier::Exact), &["a", "b"], &["b", "a"]),
            "b\na"
        );
    }

    #[test]
    fn context_lines_keep_their_trailing_spaces() {
        assert_eq!(
            splice(
                "foo   \nbar\n",
                (0, 2, Tier::TrailingWs),
                &["foo", "bar"],
                &["foo", "baz"]
            ),
            "foo   \nbaz\n"
        );
    }

    #[test]
    fn trimmed_matches_reindent_inserted_lines() {
        assert_eq!(
            splice(
                "def f():\n\tif x:\n\t\treturn 1\n",
                (1, 3, Tier::Trimmed),
                &["    if x:", "        return 1"],
                &["    if x:", "        log()", "        return 2"]
            ),
            "def f():\n\tif x:\n\t\tlog()\n\t\treturn 2\n"
        );
    }

    #[test]
    fn insertion_into_empty_file() {
        assert_eq!(splice("", (0, 0, Tier::Exact), &[], &["x"]), "x\n");
    }

    fn hunk(old: &str, new: &str) -> Hunk {
        Hunk::substring(old.to_string(), new.to_string(), 1)
    }

    #[test]
    fn plans_then_splices_every_hunk_in_order() {
        let file = TextFile::new("a = 1\nb = 2\nc = 3\n");
        let plan = plan_file(
            &file,
            &[hunk("a = 1", "a = 10"), hunk("c = 3", "c = 30")],
            Hints::default(),
        );
        assert!(!plan.failed());
        assert_eq!(
            plan.splices().iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert_eq!(
            plan.splice(file.text().as_bytes()),
            b"a = 10\nb = 2\nc = 30\n"
        );
    }

    #[test]
    fn a_missing_hunk_is_not_located_and_splices_nothing() {
        let file = TextFile::new("a = 1\n");
        let plan = plan_file(&file, &[hunk("zzz = 9", "x")], Hints::default());
        assert!(plan.failed());
        assert!(matches!(plan.hunks[0], HunkPlan::NotLocated(_)));
        assert_eq!(plan.splice(file.text().as_bytes()), b"a = 1\n");
    }

    #[test]
    fn a_hunk_overlapping_an_earlier_one_is_marked() {
        let file = TextFile::new("a = 1\nb = 2\n");
        let plan = plan_file(
            &file,
            &[hunk("a = 1\nb = 2", "x"), hunk("b = 2", "y")],
            Hints::default(),
        );
        assert!(
            matches!(plan.hunks[1], HunkPlan::Overlaps { other: 0, .. }),
            "{:?}",
            plan.hunks[1]
        );
        assert!(plan.failed());
    }

    #[test]
    fn already_applied_hunks_splice_nothing() {
        let file = TextFile::new("def f():\n    x = 1\n    y = 3\n    return x + y\n");
        let plan = plan_file(
            &file,
            &[hunk(
                "    x = 1\n    y = 2\n    return x + y\n",
                "    x = 1\n    y = 3\n    return x + y\n",
            )],
            Hints::default(),
        );
        assert!(
            matches!(plan.hunks[0], HunkPlan::AlreadyApplied { .. }),
            "{:?}",
            plan.hunks[0]
        );
        assert!(plan.splices().is_empty());
    }
}
