//! Where a syntax error is before it is rendered, and its rendering for the report (the lines
//! around it with a caret under the column).

use lancet_core::SyntaxError;

/// Where an error is, before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Site {
    /// 0-based start line and byte column.
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// 0-based end line and byte column (exclusive).
    pub(crate) end: (usize, usize),
    pub(crate) kind: String,
}

impl Site {
    /// The error as the report carries it, with an excerpt of `text` around it.
    pub(crate) fn into_error(self, path: &str, text: &Lines, checker: &str) -> SyntaxError {
        SyntaxError {
            path: path.to_string(),
            line: self.line + 1,
            column: self.column + 1,
            excerpt: excerpt(&text.0, self.line, self.column),
            kind: self.kind,
            checker: checker.to_string(),
        }
    }
}

/// A text split into lines once: the excerpts of thousands of errors in one file cost one pass
/// over it, not one each.
pub(crate) struct Lines<'a>(Vec<&'a [u8]>);

impl<'a> Lines<'a> {
    /// Splits `text` at its line feeds.
    pub(crate) fn new(text: &'a [u8]) -> Self {
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        lancet_core::work::tick(lines.len());
        Lines(lines)
    }
}

/// The line before, the error line, a caret under the column, and the line after.
fn excerpt(lines: &[&[u8]], line: usize, column: usize) -> String {
    lancet_core::work::tick(3);
    let show = |i: usize| -> String {
        let raw = String::from_utf8_lossy(lines[i]);
        let raw = raw.strip_suffix('\r').unwrap_or(&raw).to_string();
        // Long lines (minified code) are cut around the column.
        if raw.len() > 160 {
            let from = column.saturating_sub(60).min(raw.len());
            let from = (0..=from)
                .rev()
                .find(|&k| raw.is_char_boundary(k))
                .unwrap_or(0);
            let to = (from + 120).min(raw.len());
            let to = (to..=raw.len())
                .find(|&k| raw.is_char_boundary(k))
                .unwrap_or(raw.len());
            format!("…{}…", &raw[from..to])
        } else {
            raw
        }
    };
    let mut out = String::new();
    let width = (line + 2).to_string().len();
    if line > 0 && line - 1 < lines.len() {
        out.push_str(&format!("{:>width$} | {}\n", line, show(line - 1)));
    }
    if line < lines.len() {
        let text_line = show(line);
        let caret_at = if text_line.starts_with('…') {
            61.min(text_line.chars().count())
        } else {
            String::from_utf8_lossy(&lines[line][..column.min(lines[line].len())])
                .chars()
                .count()
        };
        out.push_str(&format!("{:>width$} | {}\n", line + 1, text_line));
        out.push_str(&format!("{:>width$} | {}^\n", "", " ".repeat(caret_at)));
    }
    if line + 1 < lines.len() && !(line + 2 == lines.len() && lines[line + 1].is_empty()) {
        out.push_str(&format!("{:>width$} | {}\n", line + 2, show(line + 1)));
    }
    out
}
