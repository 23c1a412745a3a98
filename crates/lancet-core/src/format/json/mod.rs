//! Tool-call objects: the edit schemas agents already send, as JSON.
//!
//! Grammar, as lancet reads it:
//!
//! ```text
//! text    := ws json ws | prose* (fence_open json fence_close prose*)+   fence_open: ```json (or a
//!                                                                       bare ``` before { or [)
//! json    := object | "[" object ("," object)* "]"
//! object  := edit | multi | write | command
//! edit    := { path?, old, new, replace_all?, expected_replacements?, instruction? }
//! multi   := { path?, "edits": [ { old, new, replace_all?, expected_replacements? }, … ], instruction? }
//! write   := { path?, "content": string }
//! command := { "command": "create", path?, "file_text": string }
//!          | { "command": "str_replace", path?, old, new? }
//!          | { "command": "insert", path?, "insert_line": N ≥ 0, new }
//! path    := "path" | "file_path" | "filePath"                       (absent: --path)
//! old     := "old_string" | "oldString" | "old_str" | "old_text"
//! new     := "new_string" | "newString" | "new_str" | "new_text"
//! replace_all := "replace_all" | "replaceAll" | "allow_multiple"     (true or false)
//! expected_replacements := "expected_replacements" | "expectedReplacements"   (integer ≥ 1)
//! ```
//!
//! Mapping: a non-empty old string becomes a substring hunk that must match once (`replace_all`:
//! every occurrence, at least one; `expected_replacements: n`: exactly n); an empty old string
//! creates the file from the new string (the engine fills a missing or empty file and refuses a
//! non-empty one); `content` (Claude Code's and Gemini's write tools) replaces the whole file;
//! `create` creates the file from `file_text`; `insert` inserts `new_str` after line
//! `insert_line` (0 = the top); each MultiEdit edit becomes its own operation, in order. Strings
//! are copied verbatim: `$1`, `$&` or `\1` in a new string stay literal. `null` counts as absent.
//!
//! Leniencies: prose around one or more ```` ```json ```` fences (noted); Gemini's `instruction`
//! (a description of the edit) is accepted and ignored; `new_str` may be omitted with
//! `command: str_replace` (it deletes the old string), as in the text-editor tool.
//!
//! Refused: any other field (the message names it and lists the accepted ones), two aliases of
//! one field, a wrong type, identical old and new strings, `replace_all` with
//! `expected_replacements`, `insert_line` without `command: insert`, the `view` and `undo_edit`
//! commands (they are not edits), and a missing path when no `--path` is given.

mod fields;
mod text;

use super::{ParseError, ParseOptions};
use crate::batch::{Anchor, Batch, FileOp, Format, Hunk, Occurrences, OpKind, split_lines};
use crate::notes::BatchNote;
use fields::{Field, Fields};
use serde_json::{Map, Value};
use text::{array_elements, is_json_fence, member_value};
pub(super) use text::{line_of, line_text, regions, skip_ws};

const PATH_KEYS: [&str; 3] = ["path", "file_path", "filePath"];
const OLD_KEYS: [&str; 4] = ["old_string", "oldString", "old_str", "old_text"];
const NEW_KEYS: [&str; 4] = ["new_string", "newString", "new_str", "new_text"];
const REPLACE_ALL_KEYS: [&str; 3] = ["replace_all", "replaceAll", "allow_multiple"];
const EXPECTED_KEYS: [&str; 2] = ["expected_replacements", "expectedReplacements"];
const COMMAND_KEY: &str = "command";
const FILE_TEXT_KEY: &str = "file_text";
const INSERT_LINE_KEY: &str = "insert_line";
const EDITS_KEY: &str = "edits";
const CONTENT_KEY: &str = "content";
/// Fields that describe an edit without changing it (Gemini CLI's `instruction`).
const METADATA_KEYS: [&str; 1] = ["instruction"];
const CREATE: &str = "create";
const STR_REPLACE: &str = "str_replace";
const INSERT: &str = "insert";
const NOT_EDITS: [&str; 2] = ["view", "undo_edit"];
const FENCE: &str = "```";
const JSON_INFO: [&str; 3] = ["json", "jsonc", "json5"];
const OBJECT_EXPECTED: &str =
    "a JSON object {\"path\", \"old_string\", \"new_string\"} or an array of them";

/// Whether the text looks like a JSON edit: it starts with `{` (or `[` then `{`), or holds a
/// ```` ```json ```` fence.
pub fn looks_like(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{')
        || t.strip_prefix('[')
            .is_some_and(|r| r.trim_start().starts_with('{'))
        || text.lines().any(|l| is_json_fence(l.trim_end()))
}

/// Parses tool-call objects into a batch; errors carry the 1-based line of the text.
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    let mut notes = Vec::new();
    let regions = regions(text, &mut notes)?;
    let mut parser = Parser {
        text,
        line_starts: crate::text::line_starts(text),
        opts,
        ops: Vec::new(),
        used_default_path: false,
    };
    for (start, end) in regions {
        parser.region(start, end)?;
    }
    if parser.used_default_path {
        notes.push(BatchNote::JsonPathFile);
    }
    Ok(Batch {
        format: Format::Json,
        ops: parser.ops,
        notes,
    })
}

struct Parser<'t> {
    text: &'t str,
    /// Where each line of `text` starts: an edit's line is found in O(log n), so a MultiEdit of
    /// thousands of edits does not count the text's newlines once per edit.
    line_starts: Vec<usize>,
    opts: &'t ParseOptions,
    ops: Vec<FileOp>,
    used_default_path: bool,
}

impl Parser<'_> {
    /// The 1-based line holding byte `offset` of the text.
    fn line_of(&self, offset: usize) -> usize {
        crate::text::line_of(&self.line_starts, offset)
    }

    fn region(&mut self, start: usize, end: usize) -> Result<(), ParseError> {
        let slice = &self.text[start..end];
        let first_line = self.line_of(start);
        let value: Value = serde_json::from_str(slice).map_err(|e| {
            let line = first_line + e.line().max(1) - 1;
            ParseError::new(
                line,
                line_text(self.text, line),
                "valid JSON",
                format!("the JSON edit does not parse: {e}"),
            )
        })?;
        let b = self.text.as_bytes();
        let at = skip_ws(b, start);
        match &value {
            Value::Object(obj) => self.object(obj, at),
            Value::Array(items) => {
                if items.is_empty() {
                    return Err(self.error_at(at, OBJECT_EXPECTED, "the array holds no edits"));
                }
                for (item, pos) in items.iter().zip(array_elements(b, at)) {
                    match item {
                        Value::Object(obj) => self.object(obj, pos)?,
                        _ => {
                            return Err(self.error_at(
                                pos,
                                OBJECT_EXPECTED,
                                "every element of the array must be an edit object",
                            ));
                        }
                    }
                }
                Ok(())
            }
            _ => Err(self.error_at(at, OBJECT_EXPECTED, "the JSON is not an object or an array")),
        }
    }

    fn error_at(&self, offset: usize, expected: &str, message: impl Into<String>) -> ParseError {
        let line = self.line_of(offset);
        ParseError::new(line, line_text(self.text, line), expected, message)
    }

    fn object(&mut self, obj: &Map<String, Value>, at: usize) -> Result<(), ParseError> {
        let f = self.fields(obj, at)?;
        let path = self.path(&f)?;
        let command = self.string(&f, Field::Command)?;
        if let Some(command) = command {
            return self.command(&f, command, path);
        }
        self.reject(&f, &[Field::FileText], "needs \"command\": \"create\"")?;
        self.reject(
            &f,
            &[Field::InsertLine],
            "needs \"command\": \"insert\" (it inserts after line N, 0 = the top)",
        )?;
        if let Some((_, key, value)) = f.found.iter().find(|(g, _, _)| *g == Field::Edits) {
            self.reject(
                &f,
                &[
                    Field::Old,
                    Field::New,
                    Field::ReplaceAll,
                    Field::Expected,
                    Field::Content,
                ],
                "belongs inside each element of \"edits\"",
            )?;
            let Value::Array(edits) = value else {
                return Err(self.field_error(
                    &f,
                    key,
                    "an array of {\"old_string\", \"new_string\"} objects",
                    format!("'{key}' must be an array of edits"),
                ));
            };
            if edits.is_empty() {
                return Err(self.field_error(
                    &f,
                    key,
                    "at least one edit",
                    format!("'{key}' is empty"),
                ));
            }
            let b = self.text.as_bytes();
            let list_at = member_value(b, at, key).unwrap_or(at);
            let positions = array_elements(b, list_at);
            for (k, edit) in edits.iter().enumerate() {
                let pos = positions.get(k).copied().unwrap_or(list_at);
                let Value::Object(edit) = edit else {
                    return Err(self.error_at(
                        pos,
                        "an object {\"old_string\", \"new_string\"}",
                        format!("edit {} of '{key}' is not an object", k + 1),
                    ));
                };
                let ef = self.fields(edit, pos)?;
                self.reject(
                    &ef,
                    &[
                        Field::Path,
                        Field::Command,
                        Field::FileText,
                        Field::InsertLine,
                        Field::Edits,
                        Field::Content,
                        Field::Metadata,
                    ],
                    "does not belong inside an element of \"edits\"",
                )?;
                self.replace(&ef, path.clone(), false)?;
            }
            return Ok(());
        }
        if let Some(content) = self.string(&f, Field::Content)? {
            self.reject(
                &f,
                &[Field::Old, Field::New, Field::ReplaceAll, Field::Expected],
                "cannot be combined with \"content\" (a whole-file write)",
            )?;
            self.push(path, OpKind::Write { content }, f.line);
            return Ok(());
        }
        self.replace(&f, path, false)
    }

    fn command(&mut self, f: &Fields, command: String, path: String) -> Result<(), ParseError> {
        let key = COMMAND_KEY;
        match command.as_str() {
            CREATE => {
                self.reject(
                    f,
                    &[
                        Field::Old,
                        Field::New,
                        Field::ReplaceAll,
                        Field::Expected,
                        Field::InsertLine,
                        Field::Edits,
                        Field::Content,
                    ],
                    "does not apply to \"command\": \"create\" (it takes \"path\" and \"file_text\")",
                )?;
                let Some(content) = self.string(f, Field::FileText)? else {
                    return Err(self.field_error(
                        f,
                        key,
                        "\"file_text\": the new file's content",
                        "\"command\": \"create\" needs \"file_text\"".to_string(),
                    ));
                };
                self.push(
                    path,
                    OpKind::Create {
                        content,
                        executable: false,
                    },
                    f.line,
                );
                Ok(())
            }
            STR_REPLACE => {
                self.reject(
                    f,
                    &[Field::FileText, Field::InsertLine, Field::Edits, Field::Content],
                    "does not apply to \"command\": \"str_replace\" (it takes \"path\", \"old_str\" and \"new_str\")",
                )?;
                self.replace(f, path, true)
            }
            INSERT => {
                self.reject(
                    f,
                    &[
                        Field::Old,
                        Field::ReplaceAll,
                        Field::Expected,
                        Field::FileText,
                        Field::Edits,
                        Field::Content,
                    ],
                    "does not apply to \"command\": \"insert\" (it takes \"path\", \"insert_line\" and \"new_str\")",
                )?;
                let after = self.insert_line(f)?;
                let text = self.string(f, Field::New)?.unwrap_or_default();
                if text.is_empty() {
                    return Err(self.field_error(
                        f,
                        key,
                        "\"new_str\": the lines to insert",
                        "\"command\": \"insert\" needs a non-empty \"new_str\"".to_string(),
                    ));
                }
                let hunk = Hunk {
                    anchor: Anchor::AfterLine(after),
                    ..Hunk::lines(Vec::new(), split_lines(&text), f.line)
                };
                self.push(
                    path,
                    OpKind::Update {
                        hunks: vec![hunk],
                        move_to: None,
                    },
                    f.line,
                );
                Ok(())
            }
            other => {
                let message = if NOT_EDITS.contains(&other) {
                    format!(
                        "\"command\": \"{other}\" is not an edit; lancet applies \"create\", \"str_replace\" and \"insert\" (use `lancet read` to view a file)"
                    )
                } else {
                    format!(
                        "unknown command \"{other}\"; lancet applies \"create\", \"str_replace\" and \"insert\""
                    )
                };
                Err(self.field_error(f, key, "\"create\", \"str_replace\" or \"insert\"", message))
            }
        }
    }

    /// An old → new replacement (`lenient_new`: a missing new string means "").
    fn replace(&mut self, f: &Fields, path: String, lenient_new: bool) -> Result<(), ParseError> {
        let Some(old) = self.string(f, Field::Old)? else {
            return Err(self.missing(
                f,
                "\"old_string\": the exact text to replace (\"\" creates a new file)",
            ));
        };
        let new = match self.string(f, Field::New)? {
            Some(new) => new,
            None if lenient_new => String::new(),
            None => return Err(self.missing(f, "\"new_string\": the text to put in its place")),
        };
        let key_of = |g: Field| {
            f.found
                .iter()
                .find(|(x, _, _)| *x == g)
                .map_or("", |(_, k, _)| *k)
        };
        if old == new {
            return Err(self.field_error(
                f,
                key_of(Field::Old),
                "different old and new strings",
                format!(
                    "No changes to apply: '{}' and '{}' are identical",
                    key_of(Field::Old),
                    key_of(Field::New)
                ),
            ));
        }
        let all = self.bool(f, Field::ReplaceAll)?.unwrap_or(false);
        let expected = self.count(f)?;
        if all && expected.is_some() {
            return Err(self.field_error(
                f,
                key_of(Field::Expected),
                "either replace_all or expected_replacements",
                format!(
                    "'{}' and '{}' contradict each other: give one",
                    key_of(Field::ReplaceAll),
                    key_of(Field::Expected)
                ),
            ));
        }
        if old.is_empty() {
            if all || expected.is_some_and(|n| n != 1) {
                let key = if all {
                    key_of(Field::ReplaceAll)
                } else {
                    key_of(Field::Expected)
                };
                return Err(self.field_error(
                    f,
                    key,
                    "a non-empty old string",
                    format!(
                        "'{key}' needs a non-empty '{}' (an empty one creates a file)",
                        key_of(Field::Old)
                    ),
                ));
            }
            self.push(
                path,
                OpKind::Create {
                    content: new,
                    executable: false,
                },
                f.line,
            );
            return Ok(());
        }
        let occurrences = match (all, expected) {
            (true, _) => Occurrences::All,
            (false, Some(n)) if n > 1 => Occurrences::Exactly(n),
            _ => Occurrences::One,
        };
        let hunk = Hunk {
            occurrences,
            ..Hunk::substring(old, new, f.line)
        };
        self.push(
            path,
            OpKind::Update {
                hunks: vec![hunk],
                move_to: None,
            },
            f.line,
        );
        Ok(())
    }

    fn push(&mut self, path: String, kind: OpKind, line: usize) {
        self.ops.push(FileOp { path, kind, line });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(text: &str) -> Vec<FileOp> {
        parse(text, &ParseOptions::default()).unwrap().ops
    }

    fn err(text: &str) -> ParseError {
        parse(text, &ParseOptions::default()).unwrap_err()
    }

    fn update(path: &str, hunk: Hunk, line: usize) -> FileOp {
        FileOp {
            path: path.into(),
            kind: OpKind::Update {
                hunks: vec![hunk],
                move_to: None,
            },
            line,
        }
    }

    fn sub(old: &str, new: &str, line: usize) -> Hunk {
        Hunk::substring(old.into(), new.into(), line)
    }

    #[test]
    fn every_alias_maps_to_one_substring_hunk() {
        for (p, o, n) in [
            ("path", "old_string", "new_string"),
            ("file_path", "oldString", "newString"),
            ("filePath", "old_str", "new_str"),
            ("path", "old_text", "new_text"),
        ] {
            let text =
                format!("{{\"{p}\": \"a.py\", \"{o}\": \"x = 1\\n\", \"{n}\": \"x = 2\\n\"}}");
            assert_eq!(
                ops(&text),
                vec![update("a.py", sub("x = 1\n", "x = 2\n", 1), 1)],
                "{text}"
            );
        }
    }

    #[test]
    fn occurrences_from_replace_all_and_expected_replacements() {
        for (extra, want) in [
            ("\"replace_all\": true", Occurrences::All),
            ("\"replaceAll\": true", Occurrences::All),
            ("\"allow_multiple\": true", Occurrences::All),
            ("\"replace_all\": false", Occurrences::One),
            ("\"expected_replacements\": 3", Occurrences::Exactly(3)),
            ("\"expected_replacements\": 1", Occurrences::One),
        ] {
            let text = format!(
                "{{\"path\": \"f\", \"old_string\": \"a\", \"new_string\": \"b\", {extra}}}"
            );
            let hunk = Hunk {
                occurrences: want,
                ..sub("a", "b", 1)
            };
            assert_eq!(ops(&text), vec![update("f", hunk, 1)], "{extra}");
        }
        let e = err(
            r#"{"path": "f", "old_string": "a", "new_string": "b", "expected_replacements": 0}"#,
        );
        assert_eq!(e.expected, "an integer ≥ 1");
        let e = err(
            r#"{"path": "f", "old_string": "a", "new_string": "b", "replace_all": true, "expected_replacements": 2}"#,
        );
        assert!(e.message.contains("contradict"));
    }

    #[test]
    fn array_with_lines_of_each_object() {
        let text = "[\n  {\"path\": \"a\", \"old_string\": \"1\", \"new_string\": \"2\"},\n\n  {\n    \"file_path\": \"b\",\n    \"old_string\": \"3\",\n    \"new_string\": \"4\"\n  }\n]\n";
        assert_eq!(
            ops(text),
            vec![
                update("a", sub("1", "2", 2), 2),
                update("b", sub("3", "4", 4), 4)
            ]
        );
    }

    #[test]
    fn multi_edit_becomes_one_op_per_edit_in_order() {
        let text = r#"{"file_path": "m.py", "edits": [
  {"old_string": "a", "new_string": "b"},
  {"old_string": "c", "new_string": "d", "replace_all": true}
]}"#;
        let all = Hunk {
            occurrences: Occurrences::All,
            ..sub("c", "d", 3)
        };
        assert_eq!(
            ops(text),
            vec![update("m.py", sub("a", "b", 2), 2), update("m.py", all, 3)]
        );
        let e = err(
            r#"{"file_path": "m.py", "edits": [{"path": "x", "old_string": "a", "new_string": "b"}]}"#,
        );
        assert!(e.message.contains("'path'"), "{}", e.message);
    }

    #[test]
    fn text_editor_commands() {
        let text = r#"[{"command": "create", "path": "n.txt", "file_text": "hi\n"},
 {"command": "str_replace", "path": "n.txt", "old_str": "hi", "new_str": "ho"},
 {"command": "str_replace", "path": "n.txt", "old_str": "ho\n"},
 {"command": "insert", "path": "n.txt", "insert_line": 0, "new_str": "top\nsecond"}]"#;
        let insert = Hunk {
            anchor: Anchor::AfterLine(0),
            ..Hunk::lines(vec![], vec!["top".into(), "second".into()], 4)
        };
        assert_eq!(
            ops(text),
            vec![
                FileOp {
                    path: "n.txt".into(),
                    kind: OpKind::Create {
                        content: "hi\n".into(),
                        executable: false
                    },
                    line: 1
                },
                update("n.txt", sub("hi", "ho", 2), 2),
                update("n.txt", sub("ho\n", "", 3), 3),
                update("n.txt", insert, 4),
            ]
        );
        for (cmd, line) in [("view", 1), ("undo_edit", 1), ("rename", 1)] {
            let e = err(&format!("{{\"command\": \"{cmd}\", \"path\": \"n.txt\"}}"));
            assert_eq!(e.line, line);
            assert!(e.message.contains(cmd), "{}", e.message);
        }
        let e = err(r#"{"command": "insert", "path": "n", "insert_line": -1, "new_str": "x"}"#);
        assert!(e.message.contains("insert_line"));
        let e = err(r#"{"path": "n", "insert_line": 3, "new_str": "x"}"#);
        assert!(
            e.message.contains("\"command\": \"insert\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn empty_old_string_creates_and_content_writes() {
        assert_eq!(
            ops(r#"{"path": "new.txt", "old_string": "", "new_string": "body"}"#),
            vec![FileOp {
                path: "new.txt".into(),
                kind: OpKind::Create {
                    content: "body".into(),
                    executable: false
                },
                line: 1
            }]
        );
        assert_eq!(
            ops(r#"{"file_path": "w.txt", "content": "all\n"}"#)[0].kind,
            OpKind::Write {
                content: "all\n".into()
            }
        );
        let e = err(r#"{"path": "f", "old_string": "", "new_string": ""}"#);
        assert!(e.message.contains("identical"));
        let e = err(r#"{"path": "f", "old_string": "", "new_string": "x", "replace_all": true}"#);
        assert!(e.message.contains("non-empty"));
    }

    #[test]
    fn unknown_fields_are_named_with_the_accepted_list() {
        let e = err(
            "{\"path\": \"f\",\n \"old_string\": \"a\",\n \"new_string\": \"b\",\n \"force\": true}",
        );
        assert_eq!((e.line, e.found.as_str()), (4, " \"force\": true}"));
        assert!(e.message.contains("'force'"));
        assert!(e.message.contains("old_string") && e.message.contains("allow_multiple"));
        // Gemini's instruction is metadata, accepted and ignored.
        assert_eq!(
            ops(
                r#"{"file_path": "f", "instruction": "bump", "old_string": "a", "new_string": "b"}"#
            )
            .len(),
            1
        );
        let e = err(r#"{"path": "f", "file_path": "g", "old_string": "a", "new_string": "b"}"#);
        assert!(e.message.contains("same field"));
    }

    #[test]
    fn default_path_and_missing_path() {
        let opts = ParseOptions {
            default_path: Some("src/d.rs".into()),
            ..ParseOptions::default()
        };
        let batch = parse(r#"{"old_string": "a", "new_string": "b"}"#, &opts).unwrap();
        assert_eq!(batch.ops, vec![update("src/d.rs", sub("a", "b", 1), 1)]);
        assert_eq!(batch.notes.len(), 1);
        let e = err(r#"{"old_string": "a", "new_string": "b"}"#);
        assert!(e.expected.contains("path"));
    }

    #[test]
    fn replacement_patterns_stay_literal() {
        let text = r#"{"path": "f.js", "old_string": "x", "new_string": "$1 $& $$ \\1 $<name>"}"#;
        assert_eq!(
            ops(text),
            vec![update("f.js", sub("x", "$1 $& $$ \\1 $<name>", 1), 1)]
        );
    }

    #[test]
    fn fenced_json_with_prose_and_errors_with_lines() {
        let text = "I'll edit it:\n\n```json\n{\"path\": \"a\", \"old_string\": \"1\", \"new_string\": \"2\"}\n```\nDone.\n";
        let batch = parse(text, &ParseOptions::default()).unwrap();
        assert_eq!(batch.ops, vec![update("a", sub("1", "2", 4), 4)]);
        assert_eq!(batch.notes.len(), 1);
        let e = err("```json\n{\"path\": \"a\",\n \"old_string\": 1}\n```\n");
        assert_eq!(e.line, 3);
        let e = err("{\"path\": \"a\",\n \"old_string\": \"x\" \"new_string\": \"y\"}");
        assert_eq!((e.line, e.expected.as_str()), (2, "valid JSON"));
        let e = err("```json\n{\"path\": \"a\"\n");
        assert_eq!(e.line, 1);
        assert!(looks_like(" [ {\"a\": 1}]") && looks_like("x\n```json\n{}\n```"));
        assert!(!looks_like("[link](x)") && !looks_like("f.py\n```python\n{}\n```"));
    }

    #[test]
    fn never_panics_on_scrambled_input() {
        let frags = [
            "{",
            "}",
            "[",
            "]",
            ",",
            "\"path\": \"a\"",
            "\"old_string\": \"x\"",
            "\"new_string\": \"y\"",
            "\"edits\": [",
            "\"command\": \"insert\"",
            "\"insert_line\": 2",
            "\"new_str\": \"z\"",
            "\"replace_all\": true",
            "\"expected_replacements\": 2",
            "\"content\": \"c\"",
            "```json",
            "```",
            "prose",
            "\"é\": null",
            ":",
            "\"file_text\": \"t\"",
        ];
        super::super::survives_scrambles(&frags, ' ', |text, opts| {
            let _ = looks_like(text);
            let _ = parse(text, opts);
        });
    }
}
