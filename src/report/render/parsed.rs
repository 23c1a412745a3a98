//! What lancet reads in edit text, in words (`lancet parse`): each operation with its path and
//! edit line, and what it holds — a hunk's `@@` headers, conditions and lines as a diff, a new
//! file's lines, line-anchored edits — so a person sees what a reply says before applying it.

use super::InWords;
use super::batch_notes::batch_note;
use lancet_core::batch::{Anchor, Batch, FileOp, Format, Hunk, LineAction, Occurrences, OpKind};
use lancet_core::line_map::{LineMap, Step};
use std::fmt::Write as _;

/// Most lines of one operation's or hunk's content shown (`--json` holds all of it).
const SHOWN_LINES: usize = 40;

impl InWords for Batch {
    /// The batch for people: the format, then each operation and what it holds.
    fn render_human(&self) -> String {
        let mut out = format!("{}: {} operation(s)\n", self.format.name(), self.ops.len());
        for op in &self.ops {
            operation(&mut out, op);
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {}", batch_note(note));
        }
        out
    }

    /// The batch for programs: its operations as they are, its notes in words.
    fn render_json(&self) -> String {
        serde_json::to_string_pretty(&BatchInJson::of(self)).unwrap_or_default() + "\n"
    }
}

/// The bytes a parsed edit's provenance digest is taken of (`edit_sha256`): the batch as
/// compact JSON, as `lancet parse --json` prints it but on one line, so the same edit gives the
/// same digest in every repository.
pub fn parsed_edit_bytes(batch: &Batch) -> Vec<u8> {
    serde_json::to_vec(&BatchInJson::of(batch)).unwrap_or_default()
}

// What `lancet parse --json` prints and `schema/batch.schema.json` describes: a batch's
// fields, its notes in words (the engine's batch holds them as facts). The doc comments are
// the schema's descriptions.
/// An ordered list of file operations parsed from one edit text.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "Batch")]
pub(crate) struct BatchInJson<'a> {
    /// The format the text was read as.
    pub(crate) format: Format,
    /// The operations, in the order the text gives them; later ones see earlier ones' results.
    pub(crate) ops: &'a [FileOp],
    /// Leniencies applied while parsing (ignored prose, a stripped fence), for the report.
    pub(crate) notes: Vec<String>,
}

impl BatchInJson<'_> {
    fn of(batch: &Batch) -> BatchInJson<'_> {
        BatchInJson {
            format: batch.format,
            ops: &batch.ops,
            notes: batch.notes.iter().map(batch_note).collect(),
        }
    }
}

/// One operation: its letter, path and edit line, then its content.
fn operation(out: &mut String, op: &FileOp) {
    let head =
        |letter: &str, what: String| format!("{letter} {}{what} (edit line {})", op.path, op.line);
    match &op.kind {
        OpKind::Create {
            content,
            executable,
        } => {
            let mode = if *executable { ", executable" } else { "" };
            let _ = writeln!(out, "{}", head("A", mode.to_string()));
            content_lines(out, content, '+');
        }
        OpKind::Write { content } => {
            let _ = writeln!(out, "{}", head("W", ", whole content".into()));
            content_lines(out, content, '+');
        }
        OpKind::Append { content } => {
            let _ = writeln!(out, "{}", head("M", ", appended at the end".into()));
            content_lines(out, content, '+');
        }
        OpKind::Delete => {
            let _ = writeln!(out, "{}", head("D", String::new()));
        }
        OpKind::Splice { spans, .. } => {
            let _ = writeln!(out, "{}", head("M", format!(", {} span(s)", spans.len())));
            for s in spans.iter().take(SHOWN_LINES) {
                let _ = writeln!(
                    out,
                    "    line {}: bytes {}..{} become {:?}",
                    s.line, s.start, s.end, s.new
                );
            }
        }
        OpKind::Lines { base_sha256, edits } => {
            let read = base_sha256
                .as_deref()
                .map(|s| format!(", as read (sha256 {}…)", &s[..12.min(s.len())]))
                .unwrap_or_default();
            let _ = writeln!(out, "{}", head("M", read));
            for e in edits {
                let range = match e.first == e.last {
                    true => e.first.to_string(),
                    false => format!("{}..{}", e.first, e.last),
                };
                let action = match e.action {
                    LineAction::Replace => "replace",
                    LineAction::InsertAfter => "insert after",
                    LineAction::InsertBefore => "insert before",
                    LineAction::Delete => "delete",
                };
                let _ = writeln!(out, "  @@ {action} {range} (edit line {})", e.line);
                shown(out, e.lines.iter().map(|l| format!("+{l}")));
            }
        }
        OpKind::Update { hunks, move_to } => {
            let to = move_to
                .as_ref()
                .map(|t| format!(" -> {t}"))
                .unwrap_or_default();
            let letter = if move_to.is_some() { "R" } else { "M" };
            let _ = writeln!(out, "{}", head(letter, to));
            for (i, h) in hunks.iter().enumerate() {
                hunk(out, i + 1, h);
            }
        }
    }
}

/// A hunk: its number, edit line, `@@` headers and conditions, then its lines as a diff.
fn hunk(out: &mut String, index: usize, h: &Hunk) {
    let mut conditions = Vec::new();
    match h.occurrences {
        Occurrences::One => {}
        Occurrences::All => conditions.push("every occurrence".to_string()),
        Occurrences::Exactly(n) => conditions.push(format!("exactly {n} occurrence(s)")),
    }
    match h.anchor {
        Anchor::Anywhere => {}
        Anchor::EndOfFile => conditions.push("at the end of the file".into()),
        Anchor::AfterLine(0) => conditions.push("inserted at the top".into()),
        Anchor::AfterLine(n) => conditions.push(format!("inserted after line {n}")),
    }
    if let Some(n) = h.line_hint {
        conditions.push(format!("near line {n}"));
    }
    let conditions = match conditions.is_empty() {
        true => String::new(),
        false => format!(": {}", conditions.join(", ")),
    };
    let _ = writeln!(out, "  chunk {index} (edit line {}){conditions}", h.line);
    for header in &h.context {
        let _ = writeln!(out, "    @@ {header}");
    }
    let map = LineMap::of(&h.old, &h.new);
    let lines = map.steps().map(|step| match step {
        Step::Kept { old, .. } => format!(" {}", h.old[old]),
        Step::Removed(old) => format!("-{}", h.old[old]),
        Step::Added(new) => format!("+{}", h.new[new]),
    });
    shown(out, lines);
}

/// A new file's or an appended text's lines, each with `sign`.
fn content_lines(out: &mut String, content: &str, sign: char) {
    shown(out, content.lines().map(|l| format!("{sign}{l}")));
}

/// Lines, indented, at most [`SHOWN_LINES`], then how many more.
fn shown(out: &mut String, lines: impl Iterator<Item = String>) {
    let mut more = 0;
    for (i, line) in lines.enumerate() {
        match i < SHOWN_LINES {
            true => {
                let _ = writeln!(out, "    {line}");
            }
            false => more += 1,
        }
    }
    if more > 0 {
        let _ = writeln!(out, "    … and {more} more line(s) (--json holds them all)");
    }
}

#[cfg(test)]
mod tests {
    use super::InWords;
    use lancet_core::format::{FormatChoice, ParseOptions, parse_bytes};

    /// Issue #41: `parse` printed counts only (`update (1 hunks)`, `-2 +2 lines`); it shows
    /// what each operation holds.
    #[test]
    fn a_parsed_patch_shows_its_headers_and_lines() {
        let edit = b"*** Begin Patch\n*** Update File: f.py\n@@ def f():\n     a = 1\n-    b = 2\n+    b = 3\n*** Add File: new.py\n+x = 1\n*** Delete File: old.py\n*** End Patch\n";
        let batch = parse_bytes(edit, FormatChoice::Auto, &ParseOptions::default()).unwrap();
        assert_eq!(
            batch.render_human(),
            "patch: 3 operation(s)\n\
             M f.py (edit line 2)\n  chunk 1 (edit line 3)\n    @@ def f():\n         a = 1\n    -    b = 2\n    +    b = 3\n\
             A new.py (edit line 7)\n    +x = 1\n\
             D old.py (edit line 9)\n"
        );
    }
}
