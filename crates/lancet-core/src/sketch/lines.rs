//! What one line of code is, read from its text alone: its indentation, a closing bracket, a
//! comment, a string's continuation, a definition's head and name.

use crate::locate::fuzzy::definition_name;
use crate::locate::levenshtein::normalized as normalized_levenshtein;

/// A line that closes a bracketed block (`}`, `});`, `]`, `)`) or an `end`.
pub(super) fn is_closer(line: &str) -> bool {
    let t = line.trim();
    t.starts_with(['}', ')', ']']) && is_trivial(t) || t == "end"
}

/// Leading whitespace width, a tab counting 4.
pub(super) fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// A line with no letter or digit (`}`, `)`, `]);`, blank): matching it pins nothing.
pub(super) fn is_trivial(line: &str) -> bool {
    !line.chars().any(char::is_alphanumeric)
}

/// Whether two definition heads define the same thing: the same name (`def f(a)` and
/// `def f(a, b)`); an `impl` names what it implements and for whom, so all of its head counts.
pub(super) fn same_definition(a: &str, b: &str) -> bool {
    let head = |l: &str| {
        let t = l.trim().trim_end_matches('{').trim();
        let t = t.strip_prefix("unsafe ").unwrap_or(t);
        t.starts_with("impl").then(|| t.to_string())
    };
    // Go methods name their receiver first: `func (l *List) Name(`.
    let name = |l: &str| {
        let t = l.trim_start();
        match t.strip_prefix("func (").and_then(|r| r.split_once(')')) {
            Some((_, rest)) => {
                let rest = rest.trim_start();
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (end > 0).then(|| rest[..end].to_string())
            }
            None => definition_name(l).map(str::to_string),
        }
    };
    match (head(a), head(b)) {
        (None, None) => name(a).is_some_and(|n| Some(n) == name(b)),
        (x, y) => x == y,
    }
}

/// A decorator or attribute line (`@action`, `#[test]`), which belongs to the definition below.
pub(super) fn is_decoration(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('@') || t.starts_with("#[")
}

/// A JavaScript/TypeScript class method's head: `name(args) {`, `async name(args): T {`.
pub(super) fn is_method_head(line: &str) -> bool {
    const KEYWORDS: [&str; 8] = [
        "if", "for", "while", "switch", "catch", "with", "return", "function",
    ];
    let t = line.trim();
    let t = [
        "async ",
        "static ",
        "public ",
        "private ",
        "protected ",
        "get ",
        "set ",
    ]
    .iter()
    .fold(t, |t, m| t.strip_prefix(m).unwrap_or(t));
    let name_end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(t.len());
    name_end > 0
        && !KEYWORDS.contains(&&t[..name_end])
        && t[name_end..].starts_with('(')
        && t.ends_with('{')
}

/// Per line: whether it begins inside a string literal that an earlier line opened (a
/// Python triple-quoted string, a JavaScript template literal or Go raw string, a string
/// continued with a trailing backslash). Its indentation is the string's, not the code's.
pub(super) fn inside_strings(lines: &[String]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Option<&str> = None;
    for line in lines {
        out.push(open.is_some());
        let mut rest = line.as_str();
        while !rest.is_empty() {
            if let Some(close) = open {
                match find_unescaped(rest, close) {
                    Some(at) => {
                        rest = &rest[at + close.len()..];
                        open = None;
                    }
                    None => {
                        // A one-quote string stays open only through a trailing backslash.
                        if close == "\"" && !rest.ends_with('\\') {
                            open = None;
                        }
                        break;
                    }
                }
                continue;
            }
            let Some(at) = rest.find(['"', '\'', '`', '#', '/']) else {
                break;
            };
            let tail = &rest[at..];
            if tail.starts_with("//") || (tail.starts_with('#') && !tail.starts_with("#[")) {
                break;
            }
            let quote = ["\"\"\"", "'''", "`", "\""]
                .into_iter()
                .find(|q| tail.starts_with(q));
            match quote {
                Some(q) => {
                    open = Some(q);
                    rest = &tail[q.len()..];
                }
                // A single quote: a character, a lifetime or a one-line string, skipped.
                None => rest = &tail[1..],
            }
        }
    }
    out
}

/// Whether the lines end inside a string literal one of them opened (a triple-quoted string,
/// a template literal or raw string left open), as [`inside_strings`] reads them.
pub(super) fn ends_inside_string(lines: &[String]) -> bool {
    let mut with_next = lines.to_vec();
    with_next.push(String::new());
    inside_strings(&with_next).last().copied().unwrap_or(false)
}

/// The byte offset of the first `close` in `s` not escaped by a backslash.
fn find_unescaped(s: &str, close: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = s[from..].find(close) {
        let at = from + at;
        let backslashes = s[..at].chars().rev().take_while(|&c| c == '\\').count();
        if backslashes % 2 == 0 {
            return Some(at);
        }
        from = at + close.len();
    }
    None
}

/// A line that is only a comment (`#`, `//`, `/*`, `*`, `--`), not code.
pub(super) fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    (t.starts_with('#') && !t.starts_with("#[") && !t.starts_with("#!"))
        || t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with("* ")
        || t == "*/"
}

/// Same indentation and most of the text the same.
pub(super) fn looks_changed(new: &str, old: &str) -> bool {
    if indent(new) != indent(old) || new.trim() == old.trim() {
        return false;
    }
    let (a, b) = (new.trim(), old.trim());
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let (na, nb) = (a.chars().count(), b.chars().count());
    let (shorter, longer) = (na.min(nb), na.max(nb));
    // The edit distance is at least the difference in length: when that alone is too far,
    // the distance need not be computed.
    let similar = |distance: usize| 1.0 - distance as f64 / longer as f64 >= 0.6;
    (shorter >= 4 && 2 * shared >= shorter)
        || (similar(longer - shorter) && normalized_levenshtein(a, b) >= 0.6)
}

/// The text of the nearest line above `at` indented less (its enclosing block's opener).
pub(super) fn container(lines: &[&str], at: usize) -> String {
    let depth = indent(lines[at]);
    lines[..at]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty() && indent(l) < depth)
        .map(|l| l.trim().to_string())
        .unwrap_or_default()
}

/// A line that opens a definition (`def`, `class`, `fn`, `function`, `func`, `struct`, ...).
pub(super) fn is_definition(line: &str) -> bool {
    const MODIFIERS: [&str; 12] = [
        "pub",
        "pub(crate)",
        "export",
        "default",
        "async",
        "static",
        "private",
        "public",
        "protected",
        "abstract",
        "unsafe",
        "const",
    ];
    const KEYWORDS: [&str; 12] = [
        "def",
        "class",
        "fn",
        "function",
        "function*",
        "func",
        "struct",
        "enum",
        "impl",
        "trait",
        "interface",
        "mod",
    ];
    line.split_whitespace()
        .find(|w| !MODIFIERS.contains(w))
        .is_some_and(|w| KEYWORDS.contains(&w))
}
