//! Line-anchored edits as hunks: each `LINE:HASH` anchor is checked against the lines it is
//! applied to, the edit's old lines are read from there, and the hunk carries the line as its
//! hint, so the ladder places it exactly there even among identical lines.
//!
//! An anchor holds when its line still has its hash. Anchors always run on a read (staging
//! refuses those that name none, `stage/reads.rs`). When the lines are that read's snapshot (the
//! file changed since), nothing else is accepted. When the read is the file now (unchanged
//! since, or an MCP session's last sight of it, its own last write included), a line that moved
//! is searched by its hash within [`MOVE_WINDOW`] lines; a unique hit is taken and noted,
//! several are refused with the candidates, none means the line changed: refused.

use crate::anchors::{LineAnchor, line_hash};
use crate::batch::{Hunk, LineAction, LineEdit};
use crate::notes::FileNote;
use crate::text::TextFile;

/// How far (in lines) a moved anchor is looked for when the read is the file now.
pub const MOVE_WINDOW: usize = 20;

/// Why line anchors do not hold, as facts (the facade words them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorProblem {
    /// A range whose last anchor stands before its first.
    Backwards {
        /// The range's first anchor.
        first: LineAnchor,
        /// Its last anchor.
        last: LineAnchor,
        /// The 1-based lines of the file they name.
        lines: (usize, usize),
    },
    /// An anchor that does not match the read it was copied from.
    NotAsRead {
        /// The anchor.
        anchor: LineAnchor,
        /// What stands at its line.
        now: AnchoredLine,
    },
    /// An anchor whose line changed, with no line nearby holding its hash.
    Stale {
        /// The anchor.
        anchor: LineAnchor,
        /// What stands at its line.
        now: AnchoredLine,
    },
    /// An anchor whose hash stands on several nearby lines.
    Ambiguous {
        /// The anchor.
        anchor: LineAnchor,
        /// The 1-based lines holding its hash.
        lines: Vec<usize>,
    },
}

/// What stands at the line an anchor names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchoredLine {
    /// No line: the file is shorter (its line count).
    Beyond(usize),
    /// The line, with its text and hash.
    Reads {
        /// The 1-based line.
        line: usize,
        /// Its text.
        text: String,
        /// Its hash.
        hash: String,
    },
}

/// A file's lines as anchors name them: without their endings (a CRLF's `\r` too).
pub fn lines_of<'a>(file: &TextFile<'a>) -> Vec<&'a str> {
    (0..file.len())
        .map(|i| {
            let l = file.line(i);
            l.strip_suffix('\r').unwrap_or(l)
        })
        .collect()
}

/// Whether every anchor of `edits` holds in `lines`: its line is there and has its hash.
pub fn hold_in(lines: &[&str], edits: &[LineEdit]) -> bool {
    edits.iter().all(|e| {
        [&e.first, &e.last].into_iter().all(|a| {
            lines
                .get(a.line - 1)
                .is_some_and(|l| line_hash(l) == a.hash)
        })
    })
}

/// The hunks of line-anchored edits on `lines` (without line endings), and notes on anchors
/// found moved. `as_read`: the lines are the read the anchors came from.
pub fn hunks(
    lines: &[&str],
    edits: &[LineEdit],
    as_read: bool,
) -> Result<(Vec<Hunk>, Vec<FileNote>), AnchorProblem> {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    for edit in edits {
        let first = place(lines, &edit.first, as_read, &mut notes)?;
        let last = if edit.last == edit.first {
            first
        } else {
            place(lines, &edit.last, as_read, &mut notes)?
        };
        if last < first {
            return Err(AnchorProblem::Backwards {
                first: edit.first.clone(),
                last: edit.last.clone(),
                lines: (first + 1, last + 1),
            });
        }
        let span: Vec<String> = lines[first..=last].iter().map(|l| l.to_string()).collect();
        let (old, new) = match edit.action {
            LineAction::Replace => (span, edit.lines.clone()),
            LineAction::Delete => (span, Vec::new()),
            LineAction::InsertAfter => {
                let mut new = vec![lines[first].to_string()];
                new.extend(edit.lines.iter().cloned());
                (vec![lines[first].to_string()], new)
            }
            LineAction::InsertBefore => {
                let mut new = edit.lines.clone();
                new.push(lines[first].to_string());
                (vec![lines[first].to_string()], new)
            }
        };
        out.push(Hunk {
            line_hint: Some(first + 1),
            ..Hunk::lines(old, new, edit.line)
        });
    }
    Ok((out, notes))
}

/// The 0-based line an anchor names in `lines`.
fn place(
    lines: &[&str],
    anchor: &LineAnchor,
    as_read: bool,
    notes: &mut Vec<FileNote>,
) -> Result<usize, AnchorProblem> {
    let at = anchor.line - 1;
    let holds = |i: usize| lines.get(i).is_some_and(|l| line_hash(l) == anchor.hash);
    if holds(at) {
        return Ok(at);
    }
    let now = lines.get(at).map_or_else(
        || AnchoredLine::Beyond(lines.len()),
        |l| AnchoredLine::Reads {
            line: anchor.line,
            text: l.to_string(),
            hash: line_hash(l),
        },
    );
    if as_read {
        return Err(AnchorProblem::NotAsRead {
            anchor: anchor.clone(),
            now,
        });
    }
    let low = at.saturating_sub(MOVE_WINDOW);
    let high = (at + MOVE_WINDOW).min(lines.len().saturating_sub(1));
    let hits: Vec<usize> = (low..=high.max(low)).filter(|&i| holds(i)).collect();
    match hits.as_slice() {
        [one] => {
            notes.push(FileNote::AnchorMoved {
                anchor: anchor.clone(),
                now: one + 1,
            });
            Ok(*one)
        }
        [] => Err(AnchorProblem::Stale {
            anchor: anchor.clone(),
            now,
        }),
        many => Err(AnchorProblem::Ambiguous {
            anchor: anchor.clone(),
            lines: many.iter().map(|i| i + 1).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(lines: &[&str], n: usize) -> LineAnchor {
        LineAnchor {
            line: n,
            hash: line_hash(lines[n - 1]),
        }
    }

    fn edit(action: LineAction, first: LineAnchor, last: LineAnchor, lines: &[&str]) -> LineEdit {
        LineEdit {
            action,
            first,
            last,
            lines: lines.iter().map(|l| l.to_string()).collect(),
            line: 1,
        }
    }

    #[test]
    fn anchors_that_hold_become_hunks_with_their_line_as_hint() {
        let file = ["a", "}", "b", "}"];
        let e = edit(
            LineAction::InsertAfter,
            anchor(&file, 4),
            anchor(&file, 4),
            &["c"],
        );
        let (h, notes) = hunks(&file, &[e], true).unwrap();
        assert_eq!(
            (h[0].old.clone(), h[0].new.clone()),
            (vec!["}".into()], vec!["}".into(), "c".into()])
        );
        assert_eq!(h[0].line_hint, Some(4));
        assert!(notes.is_empty());
    }

    #[test]
    fn a_moved_line_is_found_once_nearby_or_refused() {
        let read = ["a", "b", "c"];
        let b = anchor(&read, 2);
        let now = ["x", "a", "b", "c"];
        let e = edit(LineAction::Delete, b.clone(), b.clone(), &[]);
        let (h, notes) = hunks(&now, std::slice::from_ref(&e), false).unwrap();
        assert_eq!(h[0].line_hint, Some(3));
        assert!(
            matches!(notes[..], [FileNote::AnchorMoved { .. }]),
            "{notes:?}"
        );
        assert!(
            hunks(&now, std::slice::from_ref(&e), true).is_err(),
            "the read itself must match"
        );
        let twice = ["b", "x", "b"];
        let err = hunks(&twice, std::slice::from_ref(&e), false).unwrap_err();
        assert_eq!(
            err,
            AnchorProblem::Ambiguous {
                anchor: b.clone(),
                lines: vec![1, 3]
            }
        );
        let changed = ["a", "B", "c"];
        assert_eq!(
            hunks(&changed, &[e], false).unwrap_err(),
            AnchorProblem::Stale {
                anchor: b,
                now: AnchoredLine::Reads {
                    line: 2,
                    text: "B".into(),
                    hash: line_hash("B")
                }
            }
        );
    }
}
