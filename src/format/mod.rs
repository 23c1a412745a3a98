//! Edit-text formats: each module turns text into a [`Batch`] without touching the disk.

pub mod patch;

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

/// Parses edit text in the chosen format, or detects it.
pub fn parse(text: &str, choice: FormatChoice) -> Result<Batch, ParseError> {
    match choice {
        FormatChoice::Only(Format::Patch) => patch::parse(text),
        FormatChoice::Auto => {
            if text.trim().is_empty() {
                return Err(ParseError::new(
                    1,
                    "",
                    "an edit",
                    "the edit text is empty; send a `*** Begin Patch` … `*** End Patch` envelope",
                ));
            }
            if patch::looks_like(text) {
                patch::parse(text)
            } else {
                let (line, found) = text
                    .lines()
                    .enumerate()
                    .find(|(_, l)| !l.trim().is_empty())
                    .map(|(i, l)| (i + 1, l.to_string()))
                    .unwrap_or((1, String::new()));
                Err(ParseError::new(
                    line,
                    found,
                    "*** Begin Patch",
                    "no edit found: the text has no `*** Begin Patch` line",
                ))
            }
        }
    }
}
