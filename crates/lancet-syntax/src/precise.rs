//! The languages' own grammars, in process: where lancet has a parser of a language's real
//! grammar, its verdict overrules tree-sitter both ways (tree-sitter grammars are lenient in
//! places and, in others, behind the language). Today: Python, with Astral's
//! `ruff_python_parser`, checked against the project's target Python version.

use crate::Site;
use ruff_python_ast::PythonVersion;
use ruff_python_parser::{Mode, ParseOptions, parse_unchecked};
use ruff_text_size::TextSize;

/// Who the report says found an error: the precise Python parser.
pub const CHECKER: &str = "ruff_python_parser";

/// A Python version, `(major, minor)`.
pub type Version = (u8, u8);

/// The newest Python the precise parser knows: the target when a project names none.
pub const NEWEST_PYTHON: Version = (3, 14);

/// The parser that checks `language` (lancet's name), if lancet has one.
fn has_precise(language: &str) -> bool {
    language == "python"
}

/// The errors of `text` in `language` as sites the gate classifies like tree-sitter's (the
/// parser's message as the kind), or `None` when lancet has no precise parser for it or the
/// text is not UTF-8 (then tree-sitter judges).
pub(crate) fn errors(language: &str, text: &[u8], python: Version) -> Option<Vec<Site>> {
    if !has_precise(language) {
        return None;
    }
    let source = std::str::from_utf8(text).ok()?;
    if too_deep(text) {
        return None;
    }
    // The parser descends recursively: a thread of its own with a stack sized for the deepest
    // input `too_deep` lets through, whatever stack the caller's worker has.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || python_errors(source, python))
            .ok()?
            .join()
            .ok()
    })
}

/// The stack the precise parser runs on.
const PARSER_STACK: usize = 64 << 20;

/// Deepest nesting the precise parser is given: CPython itself refuses more than 200 nested
/// brackets, so real code stays far below; deeper input goes to tree-sitter, which does not
/// recurse.
const MAX_NESTING: usize = 200;

/// Whether `text` nests brackets, or chains prefix operators, deeper than [`MAX_NESTING`]: a
/// byte scan (strings and comments counted too, which only errs towards tree-sitter).
fn too_deep(text: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut run = 0usize;
    for &b in text {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return true;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        match b {
            b'-' | b'+' | b'~' | b'*' => {
                run += 1;
                if run > MAX_NESTING {
                    return true;
                }
            }
            b' ' | b'\t' => {}
            _ => run = 0,
        }
    }
    false
}

fn python_errors(source: &str, version: Version) -> Vec<Site> {
    let options = ParseOptions::from(Mode::Module).with_target_version(PythonVersion {
        major: version.0,
        minor: version.1,
    });
    let parsed = parse_unchecked(source, options);
    let lines = LineStarts::new(source);
    let mut found: Vec<Site> = parsed
        .errors()
        .iter()
        .map(|e| lines.error(e.location.start(), e.location.end(), e.error.to_string()))
        .chain(
            parsed
                .unsupported_syntax_errors()
                .iter()
                .map(|e| lines.error(e.range.start(), e.range.end(), e.to_string())),
        )
        .collect();
    // One error per line: what follows the first on a line is mostly its echo.
    found.sort_by_key(|e| (e.line, e.column));
    found.dedup_by_key(|e| e.line);
    found
}

/// Byte offsets of line starts, to turn a parser's offsets into lines and columns.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(newline_ends(source.as_bytes()));
        LineStarts(starts)
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= offset).saturating_sub(1);
        (line, offset - self.0[line])
    }

    fn error(&self, start: TextSize, end: TextSize, message: String) -> Site {
        let (line, column) = self.position(start.to_usize());
        let end = self.position(end.to_usize().max(start.to_usize() + 1));
        Site {
            line,
            column,
            end,
            kind: message,
        }
    }
}

fn newline_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python(text: &str, version: Version) -> Vec<String> {
        errors("python", text.as_bytes(), version)
            .unwrap()
            .into_iter()
            .map(|e| format!("{}:{}: {}", e.line + 1, e.column + 1, e.kind))
            .collect()
    }

    #[test]
    fn python_3_12_syntax_is_valid_for_3_12_and_named_for_3_11() {
        let text = "type X = list[int]\ndef f[T](x: T) -> T:\n    return x\n";
        assert_eq!(python(text, (3, 12)), Vec::<String>::new());
        let old = python(text, (3, 11));
        assert!(!old.is_empty());
        assert!(old[0].starts_with("1:1: "), "{old:?}");
        assert!(old[0].contains("3.12"), "{old:?}");
    }

    #[test]
    fn errors_say_what_is_expected_and_where() {
        let found = python("def f(x)\n    return x\n", NEWEST_PYTHON);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found, vec!["1:9: Expected `:`, found newline".to_string()]);
        let quotes = python("x = \u{201c}hi\u{201d}\n", NEWEST_PYTHON);
        assert!(!quotes.is_empty());
        assert!(quotes[0].starts_with("1:5: "), "{quotes:?}");
    }

    #[test]
    fn deep_nesting_goes_to_tree_sitter_instead_of_overflowing() {
        let deep = format!("x = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        assert!(errors("python", deep.as_bytes(), NEWEST_PYTHON).is_none());
        let unary = format!("x = {}1\n", "- ".repeat(100_000));
        assert!(errors("python", unary.as_bytes(), NEWEST_PYTHON).is_none());
        let fine = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
        assert_eq!(
            errors("python", fine.as_bytes(), NEWEST_PYTHON),
            Some(Vec::new())
        );
    }

    #[test]
    fn only_python_has_a_precise_parser_and_non_utf8_falls_back() {
        assert!(errors("rust", b"fn main() {}", NEWEST_PYTHON).is_none());
        assert!(errors("python", b"x = '\xff'\n", NEWEST_PYTHON).is_none());
    }
}
