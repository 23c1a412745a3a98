//! The languages' own grammars, in process: where lancet has a parser of a language's real
//! grammar, its verdict overrules tree-sitter both ways (tree-sitter grammars are lenient in
//! places and, in others, behind the language). Python with Astral's `ruff_python_parser`,
//! checked against the project's target Python version; JavaScript, TypeScript, JSX and TSX with
//! `oxc_parser`, which follows the current ECMAScript and TypeScript grammars. Rust has a second
//! opinion instead: `syn`, the parser procedural macros use, clears what tree-sitter flags but
//! syn parses (syn follows the newest edition and refuses some 2015-edition code rustc still
//! takes, so it may clear errors, never add them).

use crate::site::Site;
use oxc_allocator::Allocator;
use oxc_span::SourceType;
use ruff_python_ast::PythonVersion;
use ruff_python_parser::{Mode, ParseOptions, parse_unchecked};
use ruff_text_size::TextSize;

/// Who the report says found an error in Python: the precise Python parser.
pub const PYTHON_CHECKER: &str = "ruff_python_parser";

/// Who the report says found an error in JavaScript or TypeScript.
pub const ECMASCRIPT_CHECKER: &str = "oxc_parser";

/// Who the report says found an error in Rust.
pub const RUST_CHECKER: &str = "syn";

/// A Python version, `(major, minor)`.
pub type Version = (u8, u8);

/// The newest Python the precise parser knows: the target when a project names none.
pub const NEWEST_PYTHON: Version = (3, 14);

/// The precise parser that checks `language` (lancet's name), if lancet has one: the name
/// reports give it.
pub(crate) fn checker(language: &str) -> Option<&'static str> {
    match language {
        "python" => Some(PYTHON_CHECKER),
        "javascript" | "typescript" | "tsx" => Some(ECMASCRIPT_CHECKER),
        _ => None,
    }
}

/// The errors of `text` (the file at `path`) in `language` as sites the gate classifies like
/// tree-sitter's (the parser's message as the kind), or `None` when lancet has no precise
/// parser for it or the text is not UTF-8 (then tree-sitter judges).
pub(crate) fn errors(
    language: &str,
    path: &str,
    text: &[u8],
    python: Version,
) -> Option<Vec<Site>> {
    let checker = checker(language)?;
    on_parser_stack(text, |source| {
        if checker == PYTHON_CHECKER {
            python_errors(source, python)
        } else {
            ecmascript_errors(language, path, source)
        }
    })
}

/// Runs a parser on `text` as UTF-8, on a thread of its own: the parsers descend recursively,
/// so they get a stack sized for the deepest input `too_deep` lets through, whatever stack the
/// caller's worker has. A small, shallow text parsed on the main thread (a one-file edit) runs
/// there: its 8 MiB hold it many times over, and a thread costs more than the parse. `None`
/// when the text is not UTF-8 or nests too deep (then tree-sitter judges alone).
fn on_parser_stack<T: Send>(text: &[u8], parse: impl FnOnce(&str) -> T + Send) -> Option<T> {
    let source = std::str::from_utf8(text).ok()?;
    if too_deep(text) {
        return None;
    }
    let inline = PARSER_SIZED.with(std::cell::Cell::get)
        || (text.len() <= INLINE_MAX_BYTES
            && std::thread::current().name() == Some("main")
            && nesting(text) <= INLINE_MAX_NESTING);
    if inline {
        return Some(parse(source));
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || parse(source))
            .ok()?
            .join()
            .ok()
    })
}

/// The largest text parsed on the main thread's own stack.
const INLINE_MAX_BYTES: usize = 64 * 1024;

/// The deepest bracket nesting parsed on the main thread's own stack.
const INLINE_MAX_NESTING: usize = 32;

/// How deep `text` nests brackets at most (strings and comments counted too).
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for &b in text {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The stack the precise parser runs on: a thread of a long-lived caller started with at
/// least this much (and saying so with [`thread_has_parser_stack`]) runs it without starting
/// one per file.
pub const PARSER_STACK: usize = 64 << 20;

thread_local! {
    /// Whether this thread was started with a stack of [`PARSER_STACK`] or more.
    static PARSER_SIZED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The threads a batch's files are parsed on, each started once on [`PARSER_STACK`] (and
/// saying so): without them every file of a batch parsed on a worker of rayon's global pool,
/// whose stacks are small, started a thread of its own — 200 thread starts for a 200-file
/// patch. `None` when the pool cannot be started (then the global pool parses, as before).
pub(crate) fn parser_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(PARSER_STACK)
            .thread_name(|i| format!("lancet-parse-{i}"))
            .start_handler(|_| thread_has_parser_stack())
            .build()
            .ok()
    })
    .as_ref()
}

/// Declares that the calling thread was started with a stack of at least [`PARSER_STACK`]
/// bytes, so the precise parsers run on it: a long-lived caller's worker threads (the MCP
/// server's) then spare each edit a thread start. Call it only from such a thread.
pub fn thread_has_parser_stack() {
    PARSER_SIZED.with(|sized| sized.set(true));
}

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

/// The syntax errors of a JavaScript or TypeScript file. The extension says which dialect
/// (`.d.ts`, `.mts`, `.jsx`, ...); a file of another name (a `#!/usr/bin/env node` script) is
/// JavaScript. Whether a `.js` file is a module or a script is read from its content, and a
/// `.js` file is valid when it parses as plain JavaScript or as JSX: projects put JSX in `.js`
/// files and leave it to their bundler.
fn ecmascript_errors(language: &str, path: &str, source: &str) -> Vec<Site> {
    let source_type = SourceType::from_path(path).unwrap_or_else(|_| match language {
        "typescript" => SourceType::ts(),
        "tsx" => SourceType::tsx(),
        _ => SourceType::unambiguous(),
    });
    let found = ecmascript_parse(source, source_type);
    if found.is_empty() || !source_type.is_javascript() || source_type.is_jsx() {
        return found;
    }
    let as_jsx = ecmascript_parse(source, source_type.with_jsx(true));
    if as_jsx.is_empty() { as_jsx } else { found }
}

/// Whether a language's second opinion accepts `text`, which tree-sitter flagged: `Some(true)`
/// clears tree-sitter's errors; `None` when there is no second opinion for the language, the
/// text is not UTF-8 or nests too deep.
pub(crate) fn second_opinion_accepts(language: &str, text: &[u8]) -> Option<bool> {
    if language != "rust" {
        return None;
    }
    on_parser_stack(text, |source| rust_errors(source).is_empty())
}

/// The syntax error of a Rust file: `syn` stops at the first, which is the one a fix starts
/// from. Its message says what was expected (`expected `;``, `unexpected end of input`).
fn rust_errors(source: &str) -> Vec<Site> {
    let Err(error) = syn::parse_file(source) else {
        return Vec::new();
    };
    let lines = LineStarts::new(source);
    let at = |p: proc_macro2::LineColumn| lines.offset_of_char(source, p.line, p.column);
    let span = error.span();
    let start = at(span.start());
    let end = at(span.end()).max(start);
    let start = u32::try_from(start).unwrap_or(u32::MAX);
    let end = u32::try_from(end).unwrap_or(u32::MAX);
    vec![lines.error(TextSize::new(start), TextSize::new(end), error.to_string())]
}

/// TypeScript errors `oxc_parser` reports that `tsc` reports from its type checker, not its
/// parser: the code parses, and transpilers (esbuild, swc, Babel) accept it. TS1222: an overload
/// signature declared as a generator (`export function* f(): Gen<T>;`).
const CHECKER_ONLY_TS_ERRORS: [&str; 1] = ["1222"];

fn ecmascript_parse(source: &str, source_type: SourceType) -> Vec<Site> {
    let allocator = Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, source, source_type).parse();
    let lines = LineStarts::new(source);
    let mut found: Vec<Site> = parsed
        .diagnostics
        .iter()
        .filter(|d| {
            !(d.code.scope.as_deref() == Some("TS")
                && d.code
                    .number
                    .as_deref()
                    .is_some_and(|n| CHECKER_ONLY_TS_ERRORS.contains(&n)))
        })
        .map(|d| {
            let (start, len) = d
                .labels
                .iter()
                .find(|l| l.primary())
                .or_else(|| d.labels.first())
                .map_or((0, 0), |l| (l.offset(), l.len()));
            lines.error(
                TextSize::new(start),
                TextSize::new(start + len),
                d.message.to_string(),
            )
        })
        .collect();
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

    /// The byte offset of a 1-based line and 0-based character column (what `proc_macro2`
    /// spans give).
    fn offset_of_char(&self, source: &str, line: usize, column: usize) -> usize {
        let Some(&start) = self.0.get(line.saturating_sub(1)) else {
            return source.len();
        };
        source[start..]
            .char_indices()
            .nth(column)
            .map_or(source.len(), |(i, _)| start + i)
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
        errors("python", "t.py", text.as_bytes(), version)
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
        assert!(errors("python", "t.py", deep.as_bytes(), NEWEST_PYTHON).is_none());
        let unary = format!("x = {}1\n", "- ".repeat(100_000));
        assert!(errors("python", "t.py", unary.as_bytes(), NEWEST_PYTHON).is_none());
        let fine = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
        assert_eq!(
            errors("python", "t.py", fine.as_bytes(), NEWEST_PYTHON),
            Some(Vec::new())
        );
    }

    #[test]
    fn languages_without_a_precise_parser_and_non_utf8_fall_back() {
        assert!(errors("rust", "m.rs", b"fn main() {}", NEWEST_PYTHON).is_none());
        assert_eq!(second_opinion_accepts("rust", b"fn main() {}"), Some(true));
        assert_eq!(second_opinion_accepts("rust", b"fn main( {}"), Some(false));
        assert_eq!(
            second_opinion_accepts("rust", b"fn main() { '\xff' }"),
            None
        );
        assert_eq!(second_opinion_accepts("go", b"package main\n"), None);
        assert!(errors("python", "t.py", b"x = '\xff'\n", NEWEST_PYTHON).is_none());
        assert!(errors("javascript", "t.js", b"x = '\xff'\n", NEWEST_PYTHON).is_none());
    }

    fn rust(text: &str) -> Vec<String> {
        rust_errors(text)
            .into_iter()
            .map(|e| format!("{}:{}: {}", e.line + 1, e.column + 1, e.kind))
            .collect()
    }

    #[test]
    fn rust_constructs_tree_sitter_rejects_are_valid_and_errors_are_placed() {
        let valid = [
            "struct S<T> where T: Eq;\n",
            "unsafe extern \"C\" { pub safe fn f(); pub type T; }\n",
            "fn f() { let t = (1, #[allow(unused)] 2); let _ = g::<A, -1, 1>(); }\n",
            "macro_rules! m { ($a:ident, $) => {}; }\nfn g() { let x = u16!(1); }\n",
            "fn h(x: E) { match x { raw @ (E::A | E::B) => {} } }\n",
            "impl<T> Tr for T where (): Tr {}\n",
        ];
        for text in valid {
            assert_eq!(rust(text), Vec::<String>::new(), "{text}");
        }
        assert_eq!(
            rust("fn main() {\n    let é = 1\n    f(é);\n}\n"),
            vec!["3:5: expected `;`".to_string()]
        );
    }

    fn ecmascript(path: &str, text: &str) -> Vec<String> {
        let language = match path.rsplit('.').next() {
            Some("tsx") => "tsx",
            Some("ts" | "mts" | "cts") => "typescript",
            _ => "javascript",
        };
        errors(language, path, text.as_bytes(), NEWEST_PYTHON)
            .unwrap()
            .into_iter()
            .map(|e| format!("{}:{}: {}", e.line + 1, e.column + 1, e.kind))
            .collect()
    }

    #[test]
    fn typescript_generator_overloads_and_declarations_are_valid() {
        let overloads = "export function* f(): Generator<number>;\nexport function* f(x?: number): Generator<number> {\n  yield x ?? 1;\n}\n";
        assert_eq!(ecmascript("gen.ts", overloads), Vec::<String>::new());
        let declaration = "declare module 'm' {\n  export function g(a: string): void;\n}\n";
        assert_eq!(ecmascript("m.d.ts", declaration), Vec::<String>::new());
        assert_eq!(
            ecmascript("bad.ts", "function f(a: number {\n  return a;\n}\n"),
            vec!["1:22: Expected `,` or `)` but found `{`".to_string()]
        );
    }

    #[test]
    fn jsx_text_may_hold_a_bare_ampersand_and_js_files_may_hold_jsx() {
        let tsx = "export const A = () => <p>Tom & Jerry</p>;\n";
        assert_eq!(ecmascript("a.tsx", tsx), Vec::<String>::new());
        assert_eq!(ecmascript("a.jsx", tsx), Vec::<String>::new());
        assert_eq!(ecmascript("a.js", tsx), Vec::<String>::new());
        // A script (no import/export) may use what modules forbid.
        assert_eq!(
            ecmascript("old.js", "with (o) { x = 1; }\n"),
            Vec::<String>::new()
        );
        let broken = ecmascript("b.jsx", "const A = () => <p>unclosed;\n");
        assert!(!broken.is_empty(), "{broken:?}");
        // TypeScript casts are not JSX in a .ts file.
        assert_eq!(
            ecmascript("c.ts", "const n = <number>x;\n"),
            Vec::<String>::new()
        );
    }
}
