//! Line-anchored edits: lines named by the `LINE:HASH` anchors `lancet read --anchors` hands
//! out, so a model never copies old text.
//!
//! Grammar, as lancet reads it:
//!
//! ```text
//! text    := prose* file+ prose*
//! file    := "*** Edit Lines: " path (" sha256 " hex)? NL edit+ ("*** End Lines" NL)?
//! edit    := "@@ replace " anchor (".." anchor)? NL line*    the new lines, verbatim
//!          | "@@ insert after " anchor NL line+
//!          | "@@ insert before " anchor NL line+
//!          | "@@ delete " anchor (".." anchor)? NL
//! anchor  := LINE ":" HASH                                    e.g. 12:a3k
//! ```
//!
//! A new line runs to the next `@@ ` edit, `*** Edit Lines:` or `*** End Lines`. The `sha256`
//! of the read names its snapshot: when the file changed since, the edits run on what was read
//! and are merged into the file as it is now. Each line loses one trailing `\r`.

use super::ParseError;
use crate::anchors::LineAnchor;
use crate::batch::{Batch, FileOp, Format, LineAction, LineEdit, OpKind};
use crate::notes::BatchNote;

const FILE: &str = "*** Edit Lines:";
const END: &str = "*** End Lines";
const EDIT: &str = "@@ ";
const EXPECTED_EDIT: &str = "'@@ replace L:H[..L:H]', '@@ insert after L:H', '@@ insert before L:H' or '@@ delete L:H[..L:H]'";

/// Whether the text holds a line-anchored edit.
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| l.trim_end().starts_with(FILE))
}

/// Parses line-anchored edits into a batch; errors carry the 1-based line of the text.
pub fn parse(text: &str) -> Result<Batch, ParseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut ops: Vec<FileOp> = Vec::new();
    let mut prose = 0;
    let mut i = 0;
    // The file whose edits are being read.
    let mut open: Option<usize> = None;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix(FILE) {
            if let Some(op) = open {
                check_not_empty(&ops[op], &lines)?;
            }
            ops.push(header(rest, i, &lines)?);
            open = Some(ops.len() - 1);
            i += 1;
        } else if line.trim_end() == END {
            if let Some(op) = open.take() {
                check_not_empty(&ops[op], &lines)?;
            }
            i += 1;
        } else if let Some(op) = open {
            let (edit, next) = edit(&lines, i)?;
            if let OpKind::Lines { edits, .. } = &mut ops[op].kind {
                edits.push(edit);
            }
            i = next;
        } else {
            if !line.trim().is_empty() {
                prose += 1;
            }
            i += 1;
        }
    }
    if let Some(op) = open {
        check_not_empty(&ops[op], &lines)?;
    }
    if ops.is_empty() {
        return Err(error(
            &lines,
            0,
            "*** Edit Lines: PATH",
            "no '*** Edit Lines:' found",
        ));
    }
    let notes = (prose > 0)
        .then_some(BatchNote::OutsideLineEdits(prose))
        .into_iter()
        .collect();
    Ok(Batch {
        format: Format::Anchors,
        ops,
        notes,
    })
}

fn error(lines: &[&str], i: usize, expected: &str, message: impl Into<String>) -> ParseError {
    ParseError::new(
        i + 1,
        lines.get(i).copied().unwrap_or(""),
        expected,
        message,
    )
}

/// `*** Edit Lines: PATH [sha256 HEX]` (what follows the marker) as an empty operation.
fn header(rest: &str, i: usize, lines: &[&str]) -> Result<FileOp, ParseError> {
    const SHAPE: &str = "*** Edit Lines: PATH [sha256 HEX]";
    let mut words = rest.split_whitespace();
    let path = words
        .next()
        .ok_or_else(|| error(lines, i, SHAPE, "the edit names no file"))?;
    let base = match (words.next(), words.next(), words.next()) {
        (None, _, _) => None,
        (Some("sha256"), Some(hex), None)
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Some(hex.to_ascii_lowercase())
        }
        _ => {
            return Err(error(
                lines,
                i,
                SHAPE,
                "after the path only 'sha256' and the read's 64-hex-digit hash may follow",
            ));
        }
    };
    Ok(FileOp {
        path: path.to_string(),
        kind: OpKind::Lines {
            base_sha256: base,
            edits: Vec::new(),
        },
        line: i + 1,
    })
}

/// The edit starting at line `i` (an `@@ ` line) and the index of the line after it.
fn edit(lines: &[&str], i: usize) -> Result<(LineEdit, usize), ParseError> {
    let line = lines[i];
    let Some(command) = line.strip_prefix(EDIT) else {
        return Err(error(
            lines,
            i,
            EXPECTED_EDIT,
            "a new line outside an edit: start each edit with '@@ replace', '@@ insert after', '@@ insert before' or '@@ delete'",
        ));
    };
    let (action, range) = read_command(command).ok_or_else(|| {
        error(
            lines,
            i,
            EXPECTED_EDIT,
            format!("'{line}' is not an edit line"),
        )
    })?;
    let (first, last) = read_range(range, action).ok_or_else(|| {
        error(
            lines,
            i,
            EXPECTED_EDIT,
            format!("'{range}' is not an anchor (LINE:HASH, e.g. 12:a3k) or a range of two"),
        )
    })?;
    let mut next = i + 1;
    let mut new = Vec::new();
    while next < lines.len()
        && !lines[next].starts_with(EDIT)
        && !lines[next].starts_with(FILE)
        && lines[next].trim_end() != END
    {
        new.push(lines[next].to_string());
        next += 1;
    }
    // The text's own final newline is no line of the edit.
    if next == lines.len() && new.last().is_some_and(|l| l.is_empty()) {
        new.pop();
    }
    match action {
        LineAction::Delete if new.iter().any(|l| !l.trim().is_empty()) => {
            return Err(error(
                lines,
                i + 1,
                EXPECTED_EDIT,
                "a delete takes no new lines",
            ));
        }
        LineAction::Delete => new.clear(),
        LineAction::InsertAfter | LineAction::InsertBefore if new.is_empty() => {
            return Err(error(
                lines,
                i,
                "the lines to insert",
                "an insert with no lines",
            ));
        }
        _ => {}
    }
    let edit = LineEdit {
        action,
        first,
        last,
        lines: new,
        line: i + 1,
    };
    Ok((edit, next))
}

fn check_not_empty(op: &FileOp, lines: &[&str]) -> Result<(), ParseError> {
    match &op.kind {
        OpKind::Lines { edits, .. } if edits.is_empty() => Err(error(
            lines,
            op.line - 1,
            EXPECTED_EDIT,
            format!("'*** Edit Lines: {}' holds no edit", op.path),
        )),
        _ => Ok(()),
    }
}

fn read_command(command: &str) -> Option<(LineAction, &str)> {
    [
        ("replace ", LineAction::Replace),
        ("insert after ", LineAction::InsertAfter),
        ("insert before ", LineAction::InsertBefore),
        ("delete ", LineAction::Delete),
    ]
    .into_iter()
    .find_map(|(word, action)| command.strip_prefix(word).map(|rest| (action, rest.trim())))
}

fn read_range(range: &str, action: LineAction) -> Option<(LineAnchor, LineAnchor)> {
    match range.split_once("..") {
        Some((a, b)) if matches!(action, LineAction::Replace | LineAction::Delete) => {
            Some((LineAnchor::parse(a)?, LineAnchor::parse(b)?))
        }
        Some(_) => None,
        None => {
            let one = LineAnchor::parse(range)?;
            Some((one.clone(), one))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_of_every_kind_with_a_base() {
        let text = format!(
            "*** Edit Lines: src/a.py sha256 {}\n@@ replace 2:abc..3:def\n    return 2\n@@ insert after 5:0zz\n\n# done\n@@ delete 7:k9k\n*** End Lines\n",
            "a".repeat(64)
        );
        let batch = parse(&text).unwrap();
        let OpKind::Lines { base_sha256, edits } = &batch.ops[0].kind else {
            panic!()
        };
        assert_eq!(base_sha256.as_deref(), Some("a".repeat(64).as_str()));
        assert_eq!(edits.len(), 3);
        assert_eq!((edits[0].first.line, edits[0].last.line), (2, 3));
        assert_eq!(edits[0].lines, ["    return 2"]);
        assert_eq!(edits[1].lines, ["", "# done"]);
        assert_eq!(edits[2].action, LineAction::Delete);
        assert!(edits[2].lines.is_empty());
    }

    #[test]
    fn bad_edits_name_their_line() {
        for (text, line) in [
            ("*** Edit Lines: a\n@@ replace 2:ABC\nx\n", 2),
            ("*** Edit Lines: a\n@@ move 2:abc\n", 2),
            ("*** Edit Lines: a\n@@ insert after 2:abc..3:abc\nx\n", 2),
            ("*** Edit Lines: a\n@@ insert after 2:abc\n", 2),
            ("*** Edit Lines: a\n@@ delete 2:abc\nleftover\n", 3),
            ("*** Edit Lines: a\n*** End Lines\n", 1),
            ("*** Edit Lines: a sha256 xyz\n@@ delete 1:abc\n", 1),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e:?}");
        }
    }
}
