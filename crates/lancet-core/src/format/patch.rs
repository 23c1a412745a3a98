//! The Codex `*** Begin Patch` format.
//!
//! Grammar, as lancet reads it (a superset of what the Codex engine accepts):
//!
//! ```text
//! text    := prose* envelope (prose* envelope)* prose*   prose: fences, heredoc lines, chatter
//! envelope:= BEGIN env_id? op+ END                       markers match with surrounding blanks
//! BEGIN   := "*** Begin Patch"
//! END     := "*** End Patch"
//! env_id  := "*** Environment ID: " id                   parsed and ignored
//! op      := add | delete | update
//! add     := "*** Add File: " path NL ("+" text NL)*     each line becomes `text\n`
//! delete  := "*** Delete File: " path NL
//! update  := "*** Update File: " path NL ("*** Move to: " path NL)? chunk+
//! chunk   := header* line+ ("*** End of File" NL)?       the first chunk may omit its header
//! header  := "@@" | "@@ " context | "@@ -N[,M] +N[,M] @@" context?
//! line    := " " text | "+" text | "-" text | ""         an empty line is an empty context line
//! ```
//!
//! Stacked headers (`@@ class A` then `@@ def f():`) each narrow the search to what follows the
//! previous one. Line numbers in unified-style headers become hints. Every line loses one
//! trailing `\r`, so CRLF patch text reads like LF text.

use super::ParseError;
use crate::batch::{Anchor, Batch, FileOp, Format, Hunk, OpKind};
use crate::notes::BatchNote;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";
const ENVIRONMENT_ID: &str = "*** Environment ID:";
const VALID_HEADERS: &str =
    "'*** Add File: {path}', '*** Delete File: {path}' or '*** Update File: {path}'";

/// Whether the text contains a patch envelope (used by format detection).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| l.trim() == BEGIN)
}

/// Parses a patch into a batch; errors carry the 1-based line of the original text.
pub fn parse(text: &str) -> Result<Batch, ParseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let first_text = lines.iter().position(|l| !l.trim().is_empty());
    let Some(begin) = lines.iter().position(|l| l.trim() == BEGIN) else {
        let at = first_text.unwrap_or(0);
        return Err(ParseError::new(
            at + 1,
            lines.get(at).copied().unwrap_or(""),
            BEGIN,
            "The first line of the patch must be '*** Begin Patch'",
        ));
    };
    let Some(end) = lines
        .iter()
        .rposition(|l| l.trim() == END)
        .filter(|&e| e > begin)
    else {
        let last = lines
            .iter()
            .rposition(|l| !l.trim().is_empty())
            .unwrap_or(begin);
        return Err(ParseError::new(
            last + 1,
            lines[last],
            END,
            "The last line of the patch must be '*** End Patch': the patch looks cut off; send it whole",
        ));
    };
    let mut notes = Vec::new();
    let before = count_text_lines(&lines[..begin]);
    if before > 0 {
        notes.push(BatchNote::BeforePatch(before));
    }
    let after = count_text_lines(&lines[end + 1..]);
    if after > 0 {
        notes.push(BatchNote::AfterPatch(after));
    }
    let mut parser = Parser {
        lines: &lines,
        i: begin + 1,
        end,
        ops: Vec::new(),
        environment_id_seen: false,
        notes,
    };
    parser.run()?;
    if parser.ops.is_empty() {
        return Err(ParseError::new(
            end + 1,
            lines[end],
            VALID_HEADERS,
            "the patch contains no file operations",
        ));
    }
    Ok(Batch {
        format: Format::Patch,
        ops: parser.ops,
        notes: parser.notes,
    })
}

fn count_text_lines(lines: &[&str]) -> usize {
    lines.iter().filter(|l| !l.trim().is_empty()).count()
}

/// Whether a line, trimmed, starts a new operation or closes the envelope.
fn is_op_boundary(line: &str) -> bool {
    let t = line.trim();
    t == END || t == BEGIN || t.starts_with(ADD) || t.starts_with(DELETE) || t.starts_with(UPDATE)
}

/// Inside an Update body an indented marker is a context line, so only unindented ones count.
fn is_update_boundary(line: &str) -> bool {
    let t = line.trim_end();
    t == END || t == BEGIN || t.starts_with(ADD) || t.starts_with(DELETE) || t.starts_with(UPDATE)
}

struct Parser<'t, 'l> {
    lines: &'l [&'t str],
    i: usize,
    end: usize,
    ops: Vec<FileOp>,
    environment_id_seen: bool,
    notes: Vec<BatchNote>,
}

#[derive(Default)]
struct ChunkBuilder {
    line: usize,
    opened: bool,
    headers: Vec<String>,
    hint: Option<usize>,
    old: Vec<String>,
    new: Vec<String>,
    changed: bool,
    eof: bool,
}

impl ChunkBuilder {
    fn starting_at(line: usize) -> Self {
        ChunkBuilder {
            line,
            ..Default::default()
        }
    }

    fn has_lines(&self) -> bool {
        !self.old.is_empty() || !self.new.is_empty() || self.changed
    }

    fn finish(self) -> Hunk {
        Hunk {
            context: self.headers,
            line_hint: self.hint,
            anchor: if self.eof {
                Anchor::EndOfFile
            } else {
                Anchor::Anywhere
            },
            ..Hunk::lines(self.old, self.new, self.line)
        }
    }
}

impl Parser<'_, '_> {
    fn error(&self, i: usize, expected: &str, message: impl Into<String>) -> ParseError {
        ParseError::new(i + 1, self.lines[i], expected, message)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while self.i < self.end {
            let line = self.lines[self.i];
            let t = line.trim();
            if t.is_empty() {
                self.i += 1;
            } else if t == END {
                self.skip_to_next_envelope()?;
            } else if t == BEGIN {
                return Err(self.error(
                    self.i,
                    VALID_HEADERS,
                    "'*** Begin Patch' inside a patch: close the previous envelope with '*** End Patch' first",
                ));
            } else if let Some(id) = t.strip_prefix(ENVIRONMENT_ID) {
                if self.environment_id_seen || !self.ops.is_empty() {
                    return Err(self.error(
                        self.i,
                        VALID_HEADERS,
                        "'*** Environment ID:' may appear once, right after '*** Begin Patch'",
                    ));
                }
                if id.trim().is_empty() {
                    return Err(self.error(
                        self.i,
                        "*** Environment ID: <id>",
                        "the environment id is empty",
                    ));
                }
                self.environment_id_seen = true;
                self.i += 1;
            } else if let Some(rest) = t.strip_prefix(ADD) {
                let path = self.path(rest)?;
                self.parse_add(path)?;
            } else if let Some(rest) = t.strip_prefix(DELETE) {
                let path = self.path(rest)?;
                self.parse_delete(path)?;
            } else if let Some(rest) = t.strip_prefix(UPDATE) {
                let path = self.path(rest)?;
                self.parse_update(path)?;
            } else {
                return Err(self.error(
                    self.i,
                    VALID_HEADERS,
                    format!(
                        "'{t}' is not a valid hunk header. Valid hunk headers: {VALID_HEADERS}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// After an inner `*** End Patch`, prose may follow until the next `*** Begin Patch`.
    fn skip_to_next_envelope(&mut self) -> Result<(), ParseError> {
        let inner_end = self.i;
        match (self.i + 1..self.end).find(|&j| self.lines[j].trim() == BEGIN) {
            Some(j) => {
                let skipped = count_text_lines(&self.lines[self.i + 1..j]);
                if skipped > 0 {
                    self.notes.push(BatchNote::BetweenPatches(skipped));
                }
                self.i = j + 1;
                Ok(())
            }
            None => Err(self.error(
                inner_end,
                VALID_HEADERS,
                "'*** End Patch' appears before the last '*** End Patch'; what follows it would be lost",
            )),
        }
    }

    fn path(&self, rest: &str) -> Result<String, ParseError> {
        let path = rest.trim();
        if path.is_empty() {
            return Err(self.error(
                self.i,
                "a path after the colon",
                "the operation names no file",
            ));
        }
        Ok(path.to_string())
    }

    fn parse_add(&mut self, path: String) -> Result<(), ParseError> {
        let op_line = self.i + 1;
        self.i += 1;
        let mut content = String::new();
        while self.i < self.end {
            let line = self.lines[self.i];
            if let Some(text) = line.strip_prefix('+') {
                content.push_str(text);
                content.push('\n');
                self.i += 1;
            } else if is_op_boundary(line) {
                break;
            } else if line.trim().is_empty() {
                let next = (self.i..self.end)
                    .find(|&j| !self.lines[j].trim().is_empty())
                    .unwrap_or(self.end);
                if next == self.end || is_op_boundary(self.lines[next]) {
                    self.i = next;
                    break;
                }
                return Err(self.error(
                    self.i,
                    "'+' (an empty line of the new file is a lone '+')",
                    "every line of an Add File body must start with '+'",
                ));
            } else {
                return Err(self.error(
                    self.i,
                    "'+' followed by the line's text",
                    "every line of an Add File body must start with '+'",
                ));
            }
        }
        self.ops.push(FileOp {
            path,
            kind: OpKind::Create {
                content,
                executable: false,
            },
            line: op_line,
        });
        Ok(())
    }

    fn parse_delete(&mut self, path: String) -> Result<(), ParseError> {
        let op_line = self.i + 1;
        self.i += 1;
        while self.i < self.end && !is_op_boundary(self.lines[self.i]) {
            if !self.lines[self.i].trim().is_empty() {
                return Err(self.error(
                    self.i,
                    VALID_HEADERS,
                    "nothing may follow '*** Delete File:' except the next operation",
                ));
            }
            self.i += 1;
        }
        self.ops.push(FileOp {
            path,
            kind: OpKind::Delete,
            line: op_line,
        });
        Ok(())
    }

    #[allow(
        clippy::too_many_lines,
        reason = "a parser that follows its format's grammar: one arm per kind of line"
    )]
    fn parse_update(&mut self, path: String) -> Result<(), ParseError> {
        let op_line = self.i + 1;
        self.i += 1;
        let mut move_to = None;
        if self.i < self.end
            && let Some(rest) = self.lines[self.i].trim().strip_prefix(MOVE)
        {
            move_to = Some(self.path(rest)?);
            self.i += 1;
        }
        let mut hunks = Vec::new();
        let mut chunk = ChunkBuilder::starting_at(self.i + 1);
        let mut after_end_of_file = false;
        while self.i < self.end {
            let line = self.lines[self.i];
            let rt = line.trim_end();
            if is_update_boundary(line) {
                break;
            }
            if rt.starts_with(MOVE) {
                return Err(self.error(
                    self.i,
                    "' ', '+' or '-' lines",
                    "'*** Move to:' must directly follow its '*** Update File:' line",
                ));
            }
            if rt == END_OF_FILE {
                if !chunk.has_lines() {
                    return Err(self.error(
                        self.i,
                        "' ', '+' or '-' lines before '*** End of File'",
                        "'*** End of File' must follow a chunk's lines",
                    ));
                }
                chunk.eof = true;
                hunks.push(std::mem::take(&mut chunk).finish());
                chunk = ChunkBuilder::starting_at(self.i + 2);
                after_end_of_file = true;
                self.i += 1;
                continue;
            }
            if let Some(rest) = rt.strip_prefix("@@") {
                after_end_of_file = false;
                let (hint, context) = parse_chunk_header(rest);
                if chunk.has_lines() {
                    hunks.push(std::mem::take(&mut chunk).finish());
                    chunk = ChunkBuilder::starting_at(self.i + 1);
                } else if context.is_none() && chunk.opened {
                    return Err(self.error(
                        self.i,
                        "' ', '+' or '-' lines after the previous '@@'",
                        "empty chunk: this '@@' follows another '@@' with no lines between them",
                    ));
                }
                if !chunk.opened {
                    chunk.line = self.i + 1;
                }
                chunk.opened = true;
                chunk.headers.extend(context);
                if hint.is_some() {
                    chunk.hint = hint;
                }
                self.i += 1;
                continue;
            }
            if after_end_of_file {
                if rt.is_empty() {
                    self.i += 1;
                    continue;
                }
                return Err(self.error(
                    self.i,
                    "'@@' or the next operation",
                    "after '*** End of File' only a new '@@' chunk or the next operation may follow",
                ));
            }
            match line.as_bytes().first() {
                None => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                }
                Some(b' ') => {
                    chunk.old.push(line[1..].to_string());
                    chunk.new.push(line[1..].to_string());
                }
                Some(b'+') => {
                    chunk.new.push(line[1..].to_string());
                    chunk.changed = true;
                }
                Some(b'-') => {
                    chunk.old.push(line[1..].to_string());
                    chunk.changed = true;
                }
                Some(_) => {
                    // A context line whose leading space the model dropped: nothing else it
                    // can be inside a chunk (markers and headers were read above).
                    chunk.old.push(line.to_string());
                    chunk.new.push(line.to_string());
                    self.notes.push(BatchNote::UnprefixedContext {
                        line: self.i + 1,
                        text: line.to_string(),
                    });
                }
            }
            self.i += 1;
        }
        if chunk.has_lines() {
            hunks.push(chunk.finish());
        } else if chunk.opened {
            return Err(ParseError::new(
                chunk.line,
                self.lines[chunk.line - 1],
                "' ', '+' or '-' lines after the '@@'",
                "Update hunk does not contain any lines",
            ));
        }
        if hunks.is_empty() {
            return Err(ParseError::new(
                op_line,
                self.lines[op_line - 1],
                "'@@' followed by ' ', '+' or '-' lines",
                format!(
                    "Update file hunk for path '{path}' is empty (a pure rename needs one context line)"
                ),
            ));
        }
        self.ops.push(FileOp {
            path,
            kind: OpKind::Update { hunks, move_to },
            line: op_line,
        });
        Ok(())
    }
}

/// Splits what follows `@@` into a line hint (from `-N,M +N,M @@`) and a context line.
fn parse_chunk_header(rest: &str) -> (Option<usize>, Option<String>) {
    let text = rest.trim();
    if let Some(ranges) = text.strip_prefix('-')
        && ranges.starts_with(|c: char| c.is_ascii_digit())
        && let Some((ranges, context)) = ranges.split_once("@@")
        && ranges.contains('+')
    {
        let start: String = ranges.chars().take_while(char::is_ascii_digit).collect();
        let hint = start.parse::<usize>().ok().filter(|&n| n > 0);
        let context = context.trim();
        return (hint, (!context.is_empty()).then(|| context.to_string()));
    }
    (None, (!text.is_empty()).then(|| text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(text: &str) -> Vec<FileOp> {
        parse(text).unwrap().ops
    }

    fn hunks(op: &FileOp) -> &[Hunk] {
        match &op.kind {
            OpKind::Update { hunks, .. } => hunks,
            other => panic!("not an update: {other:?}"),
        }
    }

    #[test]
    fn parses_every_operation() {
        let ops = ops(
            "*** Begin Patch\n*** Add File: a.txt\n+x\n+\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d.txt\n@@ def f():\n ctx\n-old\n+new\n*** End of File\n*** End Patch\n",
        );
        assert_eq!(ops.len(), 3);
        assert_eq!(
            ops[0].kind,
            OpKind::Create {
                content: "x\n\n".into(),
                executable: false
            }
        );
        assert_eq!(ops[1].kind, OpKind::Delete);
        let OpKind::Update { hunks, move_to } = &ops[2].kind else {
            panic!()
        };
        assert_eq!(move_to.as_deref(), Some("d.txt"));
        assert_eq!(hunks[0].context, vec!["def f():"]);
        assert_eq!(hunks[0].old, vec!["ctx", "old"]);
        assert_eq!(hunks[0].new, vec!["ctx", "new"]);
        assert_eq!(hunks[0].anchor, Anchor::EndOfFile);
        assert_eq!(hunks[0].line, 8);
    }

    #[test]
    fn accepts_prose_fences_and_heredocs_with_a_note() {
        let text = "Here you go:\n```diff\napply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nPATCH\n```\nDone.";
        let batch = parse(text).unwrap();
        assert_eq!(batch.ops.len(), 1);
        assert_eq!(batch.notes.len(), 2);
    }

    #[test]
    fn stacked_headers_and_unified_hints() {
        let ops = ops(
            "*** Begin Patch\n*** Update File: f.py\n@@ class B\n@@   def m():\n-    x=1\n+    x=2\n@@ -10,2 +10,2 @@ def g():\n-a\n+b\n*** End Patch",
        );
        let h = hunks(&ops[0]);
        assert_eq!(h[0].context, vec!["class B", "def m():"]);
        assert_eq!(h[1].line_hint, Some(10));
        assert_eq!(h[1].context, vec!["def g():"]);
    }

    #[test]
    fn crlf_text_and_padded_markers() {
        let ops =
            ops(" *** Begin Patch\r\n  *** Update File: f\r\n-old\r\r\n+new\r\n*** End Patch \r\n");
        let h = hunks(&ops[0]);
        assert_eq!(h[0].old, vec!["old\r"]);
        assert_eq!(h[0].new, vec!["new"]);
    }

    #[test]
    fn a_context_line_without_its_space_is_read_as_context_and_noted() {
        let batch =
            parse("*** Begin Patch\n*** Update File: f\n@@\n-a\nkept\n+b\n*** End Patch").unwrap();
        let h = hunks(&batch.ops[0]);
        assert_eq!(
            (h[0].old.clone(), h[0].new.clone()),
            (
                vec!["a".to_string(), "kept".into()],
                vec!["kept".to_string(), "b".into()]
            )
        );
        assert_eq!(
            batch.notes,
            [BatchNote::UnprefixedContext {
                line: 5,
                text: "kept".into()
            }]
        );
    }

    #[test]
    fn errors_name_line_found_and_expected() {
        let e = parse("hello\n").unwrap_err();
        assert_eq!((e.line, e.expected.as_str()), (1, BEGIN));
        let e = parse("*** Begin Patch\n*** Add File: a\n+x\n").unwrap_err();
        assert!(e.message.contains("cut off"));
        let e =
            parse("*** Begin Patch\n*** Update File: f\n@@\n@@\n-a\n*** End Patch").unwrap_err();
        assert_eq!(e.line, 4);
        let e = parse("*** Begin Patch\n*** Update File: f\n*** Move to: g\n*** End Patch")
            .unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** End Patch").unwrap_err();
        assert_eq!(e.line, 4);
        let e = parse("*** Begin Patch\n*** End Patch").unwrap_err();
        assert!(e.message.contains("no file operations"));
    }

    #[test]
    fn indented_markers_inside_an_update_are_context() {
        let ops = ops(
            "*** Begin Patch\n*** Update File: a\n-old\n+new\n *** Update File: b\n*** End Patch",
        );
        assert_eq!(ops.len(), 1);
        assert_eq!(hunks(&ops[0])[0].old, vec!["old", "*** Update File: b"]);
    }

    #[test]
    fn blank_lines_after_end_of_file_are_ignored() {
        let ops =
            ops("*** Begin Patch\n*** Update File: a\n@@\n+q\n*** End of File\n\n*** End Patch");
        assert_eq!(hunks(&ops[0]).len(), 1);
    }
}
