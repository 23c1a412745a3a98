//! OpenAI's `apply_patch` operations (the Responses API's hosted tool, the Agents SDK's
//! editors): V4A hunks without the `*** Begin Patch` envelope, one operation per file.
//!
//! Grammar, as lancet reads it:
//!
//! ```text
//! text      := ws json ws | prose* (```json json ```)+ prose*     (as the JSON tool calls)
//! json      := op | "[" op ("," op)* "]" | call | { "operations": [ op, … ] }
//! call      := { "operation": op, "type"?: "apply_patch_call", "call_id"?, "id"?, "status"? }
//! op        := { "type": "create_file", "path": P, "diff": "+" lines }
//!            | { "type": "update_file", "path": P, "diff": v4a, "move_to"?: P }
//!            | { "type": "delete_file", "path": P }
//! v4a       := a Codex Update File body: chunk+ (see `patch.rs`)
//! ```
//!
//! Where V4A differs from Codex, the peer's reference applier (`apply_diff.py`) decides:
//! - `create_file` joins its `+` lines with the diff's own line ending and ends with none,
//!   unless its last line is a bare `+` (`"+a\n+b\n"` is `a\nb`; `"+a\n+b\n+"` is `a\nb\n`).
//! - A chunk with one `@@ anchor` that matches no line is placed by its own lines (the anchor
//!   is advisory, and the report says so); with two or more `@@` lines (a bare `@@` counts)
//!   every named anchor must match. A bare `@@` right after a named one continues the stack.
//!
//! Where lancet differs, on purpose: a chunk whose lines match several places is refused,
//! never given the first (the peer picks the first match).

use super::{ParseError, json, patch};
use crate::batch::{Batch, FileOp, Format, OpKind};
use serde_json::{Map, Value};

const OP_KEYS: [&str; 4] = ["type", "path", "diff", "move_to"];
const CALL_KEYS: [&str; 5] = ["operation", "type", "call_id", "id", "status"];
const OP_TYPES: [&str; 3] = ["create_file", "update_file", "delete_file"];
const EXPECTED: &str = "an operation {\"type\": \"create_file\" | \"update_file\" | \"delete_file\", \"path\", \"diff\"}, a list of them, or {\"operations\": [...]}";

/// Whether the text looks like OpenAI `apply_patch` operations: JSON naming an operation type.
pub fn looks_like(text: &str) -> bool {
    json::looks_like(text)
        && text.contains("\"type\"")
        && OP_TYPES.iter().any(|t| text.contains(&format!("\"{t}\"")))
}

/// Parses operations into a batch; errors carry the 1-based line of the text where the JSON
/// holding the operation starts.
pub fn parse(text: &str) -> Result<Batch, ParseError> {
    let mut notes = Vec::new();
    let mut ops = Vec::new();
    for (start, end) in json::regions(text, &mut notes)? {
        // The operations are named by the line their JSON starts on.
        let line = json::line_of(text, json::skip_ws(text.as_bytes(), start));
        let value: Value = serde_json::from_str::<Strict>(&text[start..end])
            .map(|s| s.0)
            .map_err(|e| {
                let at = json::line_of(text, start) + e.line().max(1) - 1;
                error(
                    text,
                    at,
                    "valid JSON",
                    format!("the operations do not parse: {e}"),
                )
            })?;
        for (n, op) in operations(&value).map_err(|m| error(text, line, EXPECTED, m))? {
            ops.push(operation(text, line, n, op)?);
        }
    }
    if ops.is_empty() {
        return Err(error(text, 1, EXPECTED, "no operation found"));
    }
    Ok(Batch {
        format: Format::OpenaiPatch,
        ops,
        notes,
    })
}

/// A JSON value whose objects repeat no key: `{"path": "a", "path": "b"}` names two files,
/// and taking the last (as JSON parsers do) would edit one the model may not have meant.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if obj.insert(key.clone(), v).is_some() {
                return Err(serde::de::Error::custom(format!(
                    "the key `{key}` appears twice in one object"
                )));
            }
        }
        Ok(Value::Object(obj))
    }
}

fn error(text: &str, line: usize, expected: &str, message: impl Into<String>) -> ParseError {
    ParseError::new(line, json::line_text(text, line), expected, message)
}

/// An operation object and its number (from 1, in the order given).
type Numbered<'v> = (usize, &'v Map<String, Value>);

/// The operation objects of one JSON value, numbered from 1 in the order given.
fn operations(value: &Value) -> Result<Vec<Numbered<'_>>, String> {
    let list: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(obj) if obj.contains_key("operations") => {
            if let Some(extra) = obj.keys().find(|k| *k != "operations") {
                return Err(format!(
                    "`{extra}` beside `operations`: the object holds only the list"
                ));
            }
            match &obj["operations"] {
                Value::Array(items) => items.iter().collect(),
                _ => return Err("`operations` must be a list of operations".into()),
            }
        }
        other => vec![other],
    };
    if list.is_empty() {
        return Err("the list holds no operation".into());
    }
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            let obj = v
                .as_object()
                .ok_or_else(|| format!("operation {} is not a JSON object", i + 1))?;
            Ok((
                i + 1,
                unwrap_call(obj).map_err(|m| format!("operation {}: {m}", i + 1))?,
            ))
        })
        .collect()
}

/// `{"type": "apply_patch_call", "operation": {...}}`: the call item a model emits, read as
/// the operation it carries.
fn unwrap_call(obj: &Map<String, Value>) -> Result<&Map<String, Value>, String> {
    let Some(inner) = obj.get("operation") else {
        return Ok(obj);
    };
    if let Some(extra) = obj.keys().find(|k| !CALL_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{extra}` beside `operation` (accepted: {})",
            CALL_KEYS.join(", ")
        ));
    }
    if let Some(kind) = obj
        .get("type")
        .filter(|t| t.as_str() != Some("apply_patch_call"))
    {
        return Err(format!(
            "a call carrying `operation` has type \"apply_patch_call\", not {kind}"
        ));
    }
    inner
        .as_object()
        .ok_or_else(|| "`operation` must be an operation object".to_string())
}

fn string_field<'v>(op: &'v Map<String, Value>, key: &str) -> Result<Option<&'v str>, String> {
    match op.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}

/// One operation object as a file operation.
fn operation(
    text: &str,
    line: usize,
    n: usize,
    op: &Map<String, Value>,
) -> Result<FileOp, ParseError> {
    let fail = |expected: &str, message: String| {
        error(text, line, expected, format!("operation {n}: {message}"))
    };
    if let Some(extra) = op.keys().find(|k| !OP_KEYS.contains(&k.as_str())) {
        return Err(fail(
            EXPECTED,
            format!("unknown field `{extra}` (accepted: {})", OP_KEYS.join(", ")),
        ));
    }
    let field = |key: &str| string_field(op, key).map_err(|m| fail(EXPECTED, m));
    let kind = field("type")?.ok_or_else(|| {
        fail(
            "\"type\": \"create_file\", \"update_file\" or \"delete_file\"",
            "the operation has no `type`".into(),
        )
    })?;
    let path = field("path")?
        .filter(|p| !p.trim().is_empty())
        .ok_or_else(|| {
            fail(
                "\"path\": the file's path",
                "the operation names no file".into(),
            )
        })?
        .to_string();
    let diff = field("diff")?;
    let move_to = field("move_to")?;
    if move_to.is_some() && kind != "update_file" {
        return Err(fail(
            EXPECTED,
            format!("`move_to` belongs to update_file, not {kind}"),
        ));
    }
    let needs_diff = || {
        diff.filter(|d| !d.is_empty()).ok_or_else(|| {
            fail(
                "\"diff\": the V4A body",
                format!("{kind} of {path} has no diff"),
            )
        })
    };
    let kind = match kind {
        "create_file" => OpKind::Create {
            content: created(needs_diff()?).map_err(|(k, m)| {
                fail(
                    "'+' followed by the line's text",
                    format!("{path}: line {k} of the diff: {m}"),
                )
            })?,
            executable: false,
        },
        "delete_file" => {
            if diff.is_some_and(|d| !d.trim().is_empty()) {
                return Err(fail(
                    EXPECTED,
                    format!("delete_file of {path} takes no diff"),
                ));
            }
            OpKind::Delete
        }
        "update_file" => updated(&path, needs_diff()?, move_to, line)
            .map_err(|e| fail(&e.expected, e.message))?,
        other => {
            return Err(fail(
                "\"type\": \"create_file\", \"update_file\" or \"delete_file\"",
                format!("unknown operation type \"{other}\""),
            ));
        }
    };
    Ok(FileOp { path, kind, line })
}

/// A `create_file` diff's content: its `+` lines joined by the diff's own line ending, with a
/// final one only when the last line is a bare `+`.
fn created(diff: &str) -> Result<String, (usize, String)> {
    let newline = if diff.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<&str> = diff
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let mut out = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        match l.strip_prefix('+') {
            Some(rest) => out.push(rest),
            None => {
                return Err((
                    i + 1,
                    format!("every line of a create_file diff starts with '+' (found {l:?})"),
                ));
            }
        }
    }
    Ok(out.join(newline))
}

/// An `update_file` diff as the Codex reader reads an Update File body, with V4A's anchors:
/// a bare `@@` continuing a stack joins it, and a chunk's lone anchor is advisory.
fn updated(
    path: &str,
    diff: &str,
    move_to: Option<&str>,
    line: usize,
) -> Result<OpKind, ParseError> {
    let mut body = Vec::new();
    // Per chunk, whether its anchor is one named `@@` line (advisory).
    let mut advisory = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut any_lines = false;
    // The diff's own final newline ends its last line; it is no empty context line.
    let diff = diff.strip_suffix('\n').unwrap_or(diff);
    for (k, line) in diff
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
    {
        // One operation, one file: a patch header inside the diff would edit another.
        if line.starts_with("***") && line.trim_end() != "*** End of File" {
            return Err(ParseError::new(
                1,
                line,
                "' ', '-', '+' or '@@' lines (and '*** End of File')",
                format!(
                    "update_file of {path}, line {} of the diff: '{line}' has no place in one operation's diff (send each file as its own operation)",
                    k + 1
                ),
            ));
        }
        if line.starts_with("@@") {
            run.push(line);
            continue;
        }
        if !run.is_empty() {
            advisory.push(run.len() == 1 && run[0].trim() != "@@");
            // `@@ class A` then a bare `@@`: one stack whose bare lines add nothing.
            let named: Vec<&str> = run.iter().copied().filter(|h| h.trim() != "@@").collect();
            if named.is_empty() {
                body.push("@@");
            } else {
                body.extend(named);
            }
            run.clear();
        } else if !any_lines && !line.is_empty() {
            // The first chunk may omit its `@@`.
            advisory.push(false);
        }
        any_lines |= !line.is_empty();
        body.push(line);
    }
    body.extend(run);
    let header = 2 + usize::from(move_to.is_some());
    let mut envelope = format!("*** Begin Patch\n*** Update File: {path}\n");
    if let Some(to) = move_to {
        envelope.push_str(&format!("*** Move to: {to}\n"));
    }
    envelope.push_str(&body.join("\n"));
    envelope.push_str("\n*** End Patch\n");
    let batch = patch::parse(&envelope).map_err(|e| {
        let k = e.line.saturating_sub(header);
        ParseError::new(
            e.line,
            e.found,
            e.expected,
            format!("update_file of {path}, line {k} of the diff: {}", e.message),
        )
    })?;
    let Some(FileOp {
        kind: OpKind::Update { mut hunks, move_to },
        ..
    }) = batch.ops.into_iter().next()
    else {
        return Err(ParseError::new(
            1,
            "",
            "the V4A body of an update",
            format!("update_file of {path}: the diff holds no chunk"),
        ));
    };
    // A chunk of only `+` lines and no anchor names no place: V4A puts it at a cursor the
    // model never sees (the top of the file, or after the previous chunk); lancet refuses.
    if let Some(h) = hunks
        .iter()
        .find(|h| h.old.is_empty() && h.context.is_empty())
    {
        return Err(ParseError::new(
            1,
            h.new.first().map_or("", String::as_str),
            "'@@ <a line of the file>' or context lines around the '+' lines",
            format!(
                "update_file of {path}: a chunk of only '+' lines with no anchor or context names no place in the file; add the line it goes after as '@@ <that line>' or as a ' ' context line"
            ),
        ));
    }
    if hunks.len() == advisory.len() {
        for (hunk, lone) in hunks.iter_mut().zip(advisory) {
            hunk.context_advisory = lone && hunk.context.len() == 1;
        }
    }
    // A chunk is named by the JSON holding its operation: the diff is one string there.
    for hunk in &mut hunks {
        hunk.line = line;
    }
    Ok(OpKind::Update { hunks, move_to })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(text: &str) -> Vec<FileOp> {
        parse(text).unwrap_or_else(|e| panic!("{e:?}")).ops
    }

    #[test]
    fn create_file_ends_with_a_newline_only_after_a_bare_plus() {
        let content = |diff: &str| match &ops(
            &serde_json::json!({"type": "create_file", "path": "a", "diff": diff}).to_string(),
        )[0]
        .kind
        {
            OpKind::Create { content, .. } => content.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(content("+hello\n+world\n"), "hello\nworld");
        assert_eq!(content("+hello\n+world\n+"), "hello\nworld\n");
        assert_eq!(content("+a\r\n+b\r\n+\r\n"), "a\r\nb\r\n");
        let e = parse(r#"{"type": "create_file", "path": "a", "diff": "+a\nb\n"}"#).unwrap_err();
        assert!(e.message.contains("line 2 of the diff"), "{e:?}");
    }

    #[test]
    fn a_lone_anchor_is_advisory_and_a_stack_is_not() {
        let hunks = |diff: &str| match &ops(
            &serde_json::json!({"type": "update_file", "path": "a", "diff": diff}).to_string(),
        )[0]
        .kind
        {
            OpKind::Update { hunks, .. } => hunks
                .iter()
                .map(|h| (h.context.clone(), h.context_advisory))
                .collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            hunks("@@ nope\n-a\n+b\n"),
            [(vec!["nope".to_string()], true)]
        );
        assert_eq!(
            hunks("@@ class Only\n@@\n-a\n+b\n"),
            [(vec!["class Only".to_string()], false)]
        );
        assert_eq!(
            hunks("@@ class A\n@@ def f():\n-a\n+b\n"),
            [(vec!["class A".to_string(), "def f():".to_string()], false)]
        );
        assert_eq!(
            hunks("-a\n+b\n@@ x\n-c\n+d\n"),
            [(vec![], false), (vec!["x".to_string()], true)]
        );
    }

    #[test]
    fn wrappers_lists_and_bad_fields() {
        let list = r#"{"operations": [{"type": "delete_file", "path": "a"}, {"type": "create_file", "path": "b", "diff": "+x\n"}]}"#;
        assert_eq!(ops(list).len(), 2);
        let call = r#"{"type": "apply_patch_call", "call_id": "c1", "operation": {"type": "delete_file", "path": "a"}}"#;
        assert_eq!(ops(call)[0].kind, OpKind::Delete);
        let e = parse(r#"{"type": "update_file", "path": "a", "patch": "x"}"#).unwrap_err();
        assert!(e.message.contains("unknown field `patch`"), "{e:?}");
        let e = parse(r#"{"type": "rename_file", "path": "a"}"#).unwrap_err();
        assert!(e.message.contains("unknown operation type"), "{e:?}");
        let e = parse(r#"{"type": "update_file", "path": "a"}"#).unwrap_err();
        assert!(e.message.contains("has no diff"), "{e:?}");
        assert!(
            looks_like(call)
                && !looks_like(r#"{"path": "a", "old_string": "x", "new_string": "y"}"#)
        );
        let e = parse(r#"{"type": "delete_file", "path": "a", "path": "b"}"#).unwrap_err();
        assert!(e.message.contains("appears twice"), "{e:?}");
        let e = parse(r#"{"type": "update_file", "path": "a", "diff": "@@\n-a\n+A\n*** Update File: b\n-b\n+B\n"}"#).unwrap_err();
        assert!(e.message.contains("has no place in one operation"), "{e:?}");
        let e = parse(r#"{"type": "update_file", "path": "a", "diff": "+NEW\n"}"#).unwrap_err();
        assert!(e.message.contains("names no place"), "{e:?}");
    }
}
