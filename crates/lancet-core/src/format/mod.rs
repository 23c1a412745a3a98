//! Edit-text formats: each module turns text into a [`Batch`] without touching the disk.

pub mod anchors;
pub mod json;
pub mod openai;
pub mod patch;
pub mod search_replace;
pub mod unified;
pub mod whole;

use crate::batch::{Batch, Format};
use serde::Serialize;

/// Which format to read the edit text as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// Detect the format from the text.
    #[default]
    Auto,
    /// Force one format.
    Only(Format),
}

/// What a parser may need besides the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// The file edits apply to when they name none (`--path`). For SEARCH/REPLACE blocks it
    /// names the target of every block, overriding filename lines (Roo and Cline pass the
    /// path beside the blocks, and their texts may start with unrelated names).
    pub default_path: Option<String>,
    /// Refuse a SEARCH/REPLACE block that matches several places even where Aider's contract
    /// ("replaces the first match") would take the first (`--unique`).
    pub unique: bool,
}

/// Malformed edit text: where, what was there, and what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("malformed edit text at line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number in the edit text (0 when the text is not text at all).
    pub line: usize,
    /// The offending line, verbatim.
    pub found: String,
    /// What would have been valid there.
    pub expected: String,
    /// The whole explanation.
    pub message: String,
}

impl ParseError {
    /// Builds an error at `line` (1-based) showing `found`.
    pub fn new(
        line: usize,
        found: impl Into<String>,
        expected: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ParseError {
            line,
            found: found.into(),
            expected: expected.into(),
            message: message.into(),
        }
    }
}

/// Edit bytes as a batch: decoded (edit text must be UTF-8), then parsed as `choice` says.
pub fn parse_bytes(
    bytes: &[u8],
    choice: FormatChoice,
    opts: &ParseOptions,
) -> Result<Batch, ParseError> {
    decode(bytes).and_then(|text| parse(text, choice, opts))
}

/// Decodes edit bytes; edit text must be UTF-8.
pub fn decode(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        ParseError::new(
            line,
            "",
            "UTF-8 text",
            format!(
                "the edit text is not UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// One entry of JSON lines: its 1-based line, and its batch or why it is none.
pub type JsonLine = (usize, Result<Batch, ParseError>);

/// JSON lines (`--jsonl`): one edit per non-blank line, either a JSON string of edit text
/// (parsed by `choice`) or an object (an OpenAI apply_patch operation, or a JSON edit). Each
/// entry's batch or its error, with its 1-based line; an error when the bytes are no text.
pub fn parse_json_lines(
    bytes: &[u8],
    choice: FormatChoice,
    opts: &ParseOptions,
) -> Result<Vec<JsonLine>, ParseError> {
    let text = decode(bytes)?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let parsed = match serde_json::from_str::<serde_json::Value>(line) {
                Ok(serde_json::Value::String(edit)) => parse(&edit, choice, opts),
                // An object: a tool call, or an OpenAI apply_patch operation.
                Ok(_) => {
                    let as_format = if openai::looks_like(line) {
                        Format::OpenaiPatch
                    } else {
                        Format::Json
                    };
                    parse(line, FormatChoice::Only(as_format), opts)
                }
                Err(e) => Err(ParseError::new(
                    1,
                    line.chars().take(80).collect::<String>(),
                    "one JSON value per line: a tool-call object or a string of edit text",
                    format!("not JSON: {e}"),
                )),
            };
            (i + 1, parsed)
        })
        .collect())
}

/// Parses edit text in the chosen format, or detects it: every format whose shape the text has
/// is tried, strictest first ([`Format::STRICTEST_FIRST`]); the first that parses wins. When none
/// parses, the error of the strictest one that recognised its shape is reported.
pub fn parse(text: &str, choice: FormatChoice, opts: &ParseOptions) -> Result<Batch, ParseError> {
    match choice {
        FormatChoice::Only(format) => parse_as(format, text, opts),
        FormatChoice::Auto => {
            if text.trim().is_empty() {
                return Err(ParseError::new(
                    1,
                    "",
                    "an edit",
                    "the edit text is empty; send a patch, a diff, SEARCH/REPLACE blocks, or a JSON edit",
                ));
            }
            let mut first_error = None;
            for format in Format::STRICTEST_FIRST {
                if !looks_like(format, text) {
                    continue;
                }
                match parse_as(format, text, opts) {
                    Ok(batch) => return Ok(batch),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            if first_error.is_none()
                && search_replace::has_marker_like_line(text)
                && let Err(e) = parse_as(Format::SearchReplace, text, opts)
            {
                // No format recognised the text, but a line looks like a mistyped SEARCH/REPLACE
                // marker: that parser's error names the line and the marker to write.
                return Err(e);
            }
            Err(first_error.unwrap_or_else(|| {
                let (line, found) = text
                    .lines()
                    .enumerate()
                    .find(|(_, l)| !l.trim().is_empty())
                    .map(|(i, l)| (i + 1, l.to_string()))
                    .unwrap_or((1, String::new()));
                ParseError::new(
                    line,
                    found,
                    "a `*** Begin Patch` envelope, a unified diff, `<<<<<<< SEARCH` blocks, a JSON edit, or a filename line and a fenced file",
                    "no edit found in the text",
                )
            }))
        }
    }
}

/// A sketch is the whole new text of the file `--path` names, markers and all.
fn sketch(text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    let Some(path) = opts.default_path.clone() else {
        return Err(ParseError::new(
            1,
            text.lines().next().unwrap_or_default(),
            "--path naming the file the sketch is the new text of",
            "a sketch names no file: pass --path PATH with --format sketch",
        ));
    };
    Ok(Batch {
        format: Format::Sketch,
        ops: vec![crate::batch::FileOp {
            path,
            kind: crate::batch::OpKind::Write {
                content: text.to_string(),
            },
            line: 1,
        }],
        notes: Vec::new(),
    })
}

fn looks_like(format: Format, text: &str) -> bool {
    match format {
        Format::Patch => patch::looks_like(text),
        Format::OpenaiPatch => openai::looks_like(text),
        Format::Anchors => anchors::looks_like(text),
        Format::SearchReplace => search_replace::looks_like(text),
        Format::Unified => unified::looks_like(text),
        Format::Json => json::looks_like(text),
        Format::Whole => whole::looks_like(text),
        Format::Sketch | Format::Rename | Format::Mod | Format::Signature | Format::Move => false,
    }
}

fn parse_as(format: Format, text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    match format {
        Format::Patch => patch::parse(text),
        Format::OpenaiPatch => openai::parse(text),
        Format::Anchors => anchors::parse(text),
        Format::SearchReplace => search_replace::parse(text, opts),
        Format::Unified => unified::parse(text, opts),
        Format::Json => json::parse(text, opts),
        Format::Whole => whole::parse(text, opts),
        Format::Sketch => sketch(text, opts),
        Format::Rename | Format::Mod | Format::Signature | Format::Move => Err(ParseError::new(
            1,
            String::new(),
            "edit text in one of the text formats",
            format!(
                "`{}` batches come from `lancet {}`, not from edit text",
                format.name(),
                format.name()
            ),
        )),
    }
}

/// Test support: a parser must survive scrambled input built from its own fragments (3,000
/// pseudo-random texts, with and without a default path), never panic.
#[cfg(test)]
pub(crate) fn survives_scrambles(
    frags: &[&str],
    separator: char,
    run: impl Fn(&str, &ParseOptions),
) {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        seed
    };
    for _ in 0..3000 {
        let mut text = String::new();
        let n = (next() >> 59) as usize + 1;
        for _ in 0..n * 2 {
            text.push_str(frags[(next() >> 33) as usize % frags.len()]);
            text.push(separator);
        }
        for opts in [
            ParseOptions::default(),
            ParseOptions {
                default_path: Some("d".into()),
                ..ParseOptions::default()
            },
        ] {
            run(&text, &opts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_detection_names_a_mistyped_search_replace_marker() {
        let auto = |text: &str| parse(text, FormatChoice::Auto, &ParseOptions::default());
        for (text, line) in [
            ("a.txt\n<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", 2),
            ("a.txt\n<<<<<<< search\na\n=======\nb\n>>>>>>> REPLACE\n", 2),
        ] {
            let e = auto(text).unwrap_err();
            assert_eq!(e.line, line, "{e:?}");
            assert!(e.message.contains("not a marker"), "{e:?}");
        }
        // Prose that merely mentions the words still gets the generic answer.
        let e = auto("first search the docs\n<< SEARCH is a word\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("no edit found"), "{e:?}");
        assert!(search_replace::has_marker_like_line(">>>>>>REPLACE"));
        assert!(!search_replace::has_marker_like_line("-- search results"));
    }
}
