//! Whether a module the rename did not parse (its text lacks the symbol's name) may still hold a
//! site of the move, read from its text alone: a module without one is not parsed at all.
//!
//! Such a module has a site only through a re-export of everything (`export * from`, `export
//! type * from`), an identifier spelled with `\u` escapes, or a string naming the old module
//! where a module string stands — an argument (`require('…')`, `import('…')`, `vi.mock('…')`,
//! an `import('…')` type): a statement `from` the old module imports or re-exports names, and
//! the symbol's would be spelled in the text. So each string read from a quote whose previous
//! token is `(`, `,` or a comment's end (or stands past a line holding `//`) is a candidate,
//! escapes decoded (one that cannot be counts as naming it); a relative one whose last path
//! segment cannot be the old module's file (nor its directory, for an index) does not name it,
//! nor does a bare one where no bare specifier reaches the tree (no tsconfig `paths`, no
//! package of the tree's own, no `node_modules` above); any other is resolved as the move's
//! sites resolve it, once per directory. The check only ever says "may" wrongly: what it lets
//! through is parsed and decided as before.

use crate::rename::ecma::{EcmaProject, relative};
use std::collections::HashMap;

/// How many bytes of strings one module's check reads, per byte of its text, before it gives
/// up and lets the module be parsed (a long line of many quotes).
const MAX_READ_PER_BYTE: usize = 64;

/// The old module a move takes the symbol from, as a string must spell it to name it.
struct OldModule<'a> {
    /// Its path.
    path: &'a str,
    /// Its file name (`utils.ts`).
    file: &'a str,
    /// Its directory's name (what a specifier of an index ends with).
    dir: &'a str,
}

impl<'a> OldModule<'a> {
    /// The old module at `path`.
    fn new(path: &'a str) -> Self {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let dir = dir.rsplit_once('/').map_or(dir, |(_, d)| d);
        OldModule { path, file, dir }
    }

    /// Whether a specifier's last path segment may be the old module's: its file name's start
    /// (`utils`, `utils.js`), its directory's name, or a segment naming a directory.
    fn last_segment_may_be(&self, specifier: &str) -> bool {
        let last = specifier.rsplit('/').next().unwrap_or(specifier);
        let stem = last.split('.').next().unwrap_or(last);
        matches!(last, "" | "." | "..") || last == self.dir || self.file.starts_with(stem)
    }
}

/// The check over a move's modules, with the specifiers it resolved (a specifier resolves by
/// its module's directory alone).
pub(super) struct Naming<'a> {
    old: OldModule<'a>,
    project: &'a EcmaProject<'a>,
    /// Directory → specifier → whether it names the old module.
    resolved: HashMap<String, HashMap<String, bool>>,
    /// Directory → whether a bare specifier there may name a file of the tree.
    bare_reaches: HashMap<String, bool>,
}

impl<'a> Naming<'a> {
    /// The check of strings naming the old module at `old`.
    pub(super) fn new(old: &'a str, project: &'a EcmaProject<'a>) -> Self {
        Naming {
            old: OldModule::new(old),
            project,
            resolved: HashMap::new(),
            bare_reaches: HashMap::new(),
        }
    }

    /// Whether the module at `path` may hold a site of the move: see the module's doc.
    pub(super) fn may_name(&mut self, path: &str, text: &str) -> bool {
        let bytes = text.as_bytes();
        if memchr::memmem::find(bytes, b"\\u").is_some() || exports_everything(text) {
            return true;
        }
        let mut budget = text.len().saturating_mul(MAX_READ_PER_BYTE);
        for at in memchr::memchr2_iter(b'\'', b'"', bytes) {
            if !argument_may_start(&text[..at]) {
                continue;
            }
            let (raw, read) = string_from(&bytes[at + 1..], bytes[at]);
            budget = match budget.checked_sub(read) {
                Some(left) => left,
                None => return true,
            };
            let Some(raw) = raw else {
                continue;
            };
            match unescape(&text[at + 1..at + 1 + raw]) {
                Some(value) if !self.names(path, &value) => {}
                _ => return true,
            }
        }
        false
    }

    /// Whether a bare specifier of the module at `path` (in `dir`) may name a file of the tree.
    fn bare_may_reach_tree(&mut self, path: &str, dir: &str) -> bool {
        if let Some(&known) = self.bare_reaches.get(dir) {
            return known;
        }
        let reaches = self.project.bare_may_reach_tree(path);
        self.bare_reaches.insert(dir.to_string(), reaches);
        reaches
    }

    /// Whether `specifier`, in the module at `path`, names the old module.
    fn names(&mut self, path: &str, specifier: &str) -> bool {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        if relative(specifier) {
            if !self.old.last_segment_may_be(specifier) {
                return false;
            }
        } else if !self.bare_may_reach_tree(path, dir) {
            return false;
        }
        if let Some(&known) = self
            .resolved
            .get(dir)
            .and_then(|known| known.get(specifier))
        {
            return known;
        }
        let named = self
            .project
            .module_file(path, specifier)
            .is_ok_and(|file| file == self.old.path);
        self.resolved
            .entry(dir.to_string())
            .or_default()
            .insert(specifier.to_string(), named);
        named
    }
}

/// Whether a string starting where `before` ends may be an argument: its previous token is `(`,
/// `,` or the end of a block comment, or it is on an earlier line that holds `//` (a line
/// comment's last character is any).
fn argument_may_start(before: &str) -> bool {
    let trimmed = before.trim_end();
    let Some(last) = trimmed.chars().next_back() else {
        return false;
    };
    if matches!(last, '(' | ',' | '/') {
        return true;
    }
    if !before[trimmed.len()..].contains('\n') {
        return false;
    }
    let line = trimmed.rsplit_once('\n').map_or(trimmed, |(_, l)| l);
    line.contains("//")
}

/// Whether the text may re-export everything of a module: `export`, then (past blanks and
/// comments, and a `type`) `*`.
fn exports_everything(text: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), "export").any(|at| {
        let rest = skip_blanks(&text[at + "export".len()..]);
        let rest = rest.strip_prefix("type").map_or(rest, skip_blanks);
        rest.starts_with('*')
    })
}

/// The text past leading whitespace and comments.
fn skip_blanks(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix("//") {
            text = rest.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(rest) = trimmed.strip_prefix("/*") {
            text = rest.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return trimmed;
        }
    }
}

/// The raw string after an opening `quote` (its length, up to the closing quote not escaped;
/// `None` when its line or the text ends first) and the bytes read. A line continued by a
/// backslash is read on: [`unescape`] then gives up on it.
fn string_from(rest: &[u8], quote: u8) -> (Option<usize>, usize) {
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => return (None, i),
            c if c == quote => return (Some(i), i + 1),
            _ => i += 1,
        }
    }
    (None, i)
}

/// A string's value from its raw text, JavaScript's escapes decoded; `None` for an escape it
/// does not decode (a line continuation, a malformed one): the caller then assumes the worst.
fn unescape(raw: &str) -> Option<String> {
    if !raw.contains('\\') {
        return Some(raw.to_string());
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '0' if !chars.peek().is_some_and(char::is_ascii_digit) => '\0',
            'x' => hex(&mut chars, 2)?,
            'u' if chars.peek() == Some(&'{') => {
                chars.next();
                let digits: String = chars.by_ref().take_while(|&d| d != '}').collect();
                char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?
            }
            'u' => hex(&mut chars, 4)?,
            d if d.is_ascii_digit() || d == '\n' || d == '\r' => return None,
            other => other,
        };
        out.push(decoded);
    }
    Some(out)
}

/// The character `count` hex digits spell.
fn hex(chars: &mut impl Iterator<Item = char>, count: usize) -> Option<char> {
    let digits: String = chars.take(count).collect();
    if digits.len() != count {
        return None;
    }
    char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rename::resolve::testing::Fixture;

    /// Before, every module whose text held the old module's stem was parsed; now only those
    /// that may hold a site.
    #[test]
    fn a_module_is_parsed_only_where_its_text_may_name_the_old_module() {
        let files = [
            (
                "src/utils.ts",
                "export function f() {}\nexport function g() {}\n",
            ),
            (
                "src/imports_other.ts",
                "import { g } from './utils'\nit('utils', () => g())\nconst s = './utils'\n",
            ),
            (
                "src/other_module.ts",
                "vi.mock('./utilsx/utils')\nf('../utils')\n",
            ),
            ("src/mocks.ts", "vi.mock('./utils')\n"),
            ("src/star.ts", "export * from './utils'\n"),
            (
                "src/star_type.ts",
                "export type /* all */ * from './utils'\n",
            ),
            (
                "src/commented.ts",
                "await import(\n  // the helpers\n  './utils'\n)\n",
            ),
            ("src/escaped.ts", "import { \\u0066 } from './utils'\n"),
            // `.` is a candidate by its text, and resolved: src/index, not the old module.
            ("src/index_dir.ts", "require('.')\n"),
            ("test/deep.ts", "require('../src/utils.js')\n"),
        ];
        let fixture = Fixture::new(&files, &[]);
        let sources = fixture.sources();
        let project = EcmaProject::new(&sources);
        let mut naming = Naming::new("src/utils.ts", &project);
        let may: Vec<&str> = files
            .iter()
            .filter(|(path, text)| naming.may_name(path, text))
            .map(|(path, _)| *path)
            .collect();
        assert_eq!(
            may,
            [
                "src/mocks.ts",
                "src/star.ts",
                "src/star_type.ts",
                "src/commented.ts",
                "src/escaped.ts",
                "test/deep.ts"
            ]
        );
    }

    #[test]
    fn only_an_argument_or_a_string_past_a_comment_is_a_candidate() {
        assert!(argument_may_start("vi.mock("));
        assert!(argument_may_start("f(a, "));
        assert!(argument_may_start("import(/* chunk */ "));
        assert!(argument_may_start("f(\n  // the old module\n  "));
        assert!(!argument_may_start("import { a } from "));
        assert!(!argument_may_start("x === "));
        assert!(!argument_may_start("{ status: "));
        assert!(!argument_may_start("f(\n  a\n  "));
        assert!(!argument_may_start(""));
    }

    #[test]
    fn everything_reexported_is_seen_past_comments_and_type() {
        assert!(exports_everything("export * from './a'"));
        assert!(exports_everything("export /* all */\n  * as ns from './a'"));
        assert!(exports_everything("export type * from './a'"));
        assert!(!exports_everything(
            "export { a } from './a'\nexport const b = 1"
        ));
    }

    #[test]
    fn a_bare_specifier_is_resolved_where_the_tree_maps_some() {
        let files = [
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }"#,
            ),
            ("src/utils.ts", "export function f() {}\n"),
            ("src/aliased.ts", "vi.mock('@/utils')\n"),
            (
                "src/other.ts",
                "vi.mock('@/types')\nit('utils', () => {})\n",
            ),
        ];
        let fixture = Fixture::new(&files, &[]);
        let sources = fixture.sources();
        let project = EcmaProject::new(&sources);
        let mut naming = Naming::new("src/utils.ts", &project);
        assert!(naming.may_name(files[2].0, files[2].1));
        assert!(!naming.may_name(files[3].0, files[3].1));
    }

    #[test]
    fn escapes_decode_or_give_up() {
        assert_eq!(unescape(r"./ut\x69ls").as_deref(), Some("./utils"));
        assert_eq!(unescape(r"./\u0075tils").as_deref(), Some("./utils"));
        assert_eq!(unescape(r"./\u{75}tils").as_deref(), Some("./utils"));
        assert_eq!(unescape(r"it\'s").as_deref(), Some("it's"));
        assert_eq!(unescape(r"\1"), None);
        assert_eq!(unescape(r"\x6"), None);
    }

    #[test]
    fn a_string_ends_at_its_unescaped_quote_on_its_line() {
        assert_eq!(string_from(br"ab\'c' rest", b'\''), (Some(5), 6));
        assert_eq!(string_from(b"ab\ncd'", b'\''), (None, 2));
        assert_eq!(string_from(b"ab\"cd'", b'\''), (Some(5), 6));
    }

    #[test]
    fn a_last_segment_is_the_file_its_directory_or_a_directory() {
        let old = OldModule::new("src/utils.ts");
        assert!(old.last_segment_may_be("./utils"));
        assert!(old.last_segment_may_be("../src/utils.js"));
        assert!(old.last_segment_may_be("./src"));
        assert!(old.last_segment_may_be(".."));
        assert!(old.last_segment_may_be("./"));
        assert!(!old.last_segment_may_be("./types"));
        assert!(!old.last_segment_may_be("../lib/util-x"));
    }
}
