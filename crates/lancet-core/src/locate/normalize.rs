//! How models garble text, and how each garbling is read back: typographic punctuation,
//! over-escaping, read-view line-number prefixes, `...` elisions and omission placeholders.

use crate::line_map::{LineMap, Region};

/// Characters models substitute for ASCII punctuation, read back as ASCII.
pub fn ascii_folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(|c| {
        let folded: &'static str = match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
            '\u{2018}'..='\u{201B}' | '\u{2032}' => "'",
            '\u{201C}'..='\u{201F}' | '\u{2033}' => "\"",
            '\u{2026}' => "...",
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
            _ => "",
        };
        let mut chars = if folded.is_empty() {
            Folded::One(Some(c))
        } else {
            Folded::Str(folded.chars())
        };
        std::iter::from_fn(move || chars.next())
    })
}

/// The loosest reading of a line: typographic characters folded to ASCII, and whitespace only
/// where it separates two words (`if\t(  x )` reads as `if(x)`, `const   x` as `const x`).
/// Leading and trailing whitespace vanish. Lazy, so comparing two lines allocates nothing.
pub fn loose_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut chars = ascii_folded(s).peekable();
    let mut last_word = false;
    let mut queued: Option<char> = None;
    std::iter::from_fn(move || {
        if let Some(c) = queued.take() {
            return Some(c);
        }
        let mut spaced = false;
        loop {
            let c = chars.next()?;
            if c.is_whitespace() {
                spaced = true;
                continue;
            }
            let word = c.is_alphanumeric() || c == '_';
            let emit_space = spaced && last_word && word;
            last_word = word;
            if emit_space {
                queued = Some(c);
                return Some(' ');
            }
            return Some(c);
        }
    })
}

/// The name a definition line defines (`load` of `def load(path):`), if it opens one (`def`,
/// `class`, `fn`, `function`, `struct`, …). The name is the identity of a place: a kept line
/// that defines another name is another place, while a changed signature is drift.
pub fn definition_name(line: &str) -> Option<&str> {
    const MODIFIERS: [&str; 9] = [
        "pub ",
        "pub(crate) ",
        "export ",
        "default ",
        "async ",
        "static ",
        "public ",
        "private ",
        "protected ",
    ];
    const OPENERS: [&str; 14] = [
        "def ",
        "class ",
        "fn ",
        "function ",
        "function* ",
        "func ",
        "struct ",
        "enum ",
        "trait ",
        "impl ",
        "interface ",
        "type ",
        "module ",
        "namespace ",
    ];
    let mut rest = line.trim_start();
    while let Some(m) = MODIFIERS.iter().find(|m| rest.starts_with(**m)) {
        rest = &rest[m.len()..];
    }
    let opener = OPENERS.iter().find(|o| rest.starts_with(**o))?;
    let rest = rest[opener.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The loose reading of a whole text (as [`loose_chars`], with line breaks as whitespace), and
/// for each byte of that reading the source bytes `(start, end)` of the character it came
/// from, so a match found in the reading can be spliced in the source.
pub fn loose_indexed(s: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(s.len());
    let mut origin = Vec::with_capacity(s.len());
    let mut last_word = false;
    // Where the whitespace run before the current character began, if there is one.
    let mut space_from: Option<usize> = None;
    let push = |out: &mut String, origin: &mut Vec<(usize, usize)>, c: char, at| {
        out.push(c);
        origin.extend(std::iter::repeat_n(at, c.len_utf8()));
    };
    for (i, raw) in s.char_indices() {
        let at = (i, i + raw.len_utf8());
        for c in ascii_folded(&s[i..at.1]) {
            if c.is_whitespace() {
                space_from.get_or_insert(i);
                continue;
            }
            let word = c.is_alphanumeric() || c == '_';
            if let Some(from) = space_from.take()
                && last_word
                && word
            {
                // The one space kept between two words stands for the whole run.
                push(&mut out, &mut origin, ' ', (from, i));
            }
            last_word = word;
            push(&mut out, &mut origin, c, at);
        }
    }
    (out, origin)
}

enum Folded {
    One(Option<char>),
    Str(std::str::Chars<'static>),
}

impl Folded {
    fn next(&mut self) -> Option<char> {
        match self {
            Folded::One(c) => c.take(),
            Folded::Str(s) => s.next(),
        }
    }
}

/// Reads over-escaped text back: `\n`, `\t`, `\r`, `\"`, `\'`, `` \` `` and `\\` written
/// literally become the characters they stand for. Returns `None` when there is nothing to
/// unescape, so callers only try this reading when it differs.
pub fn unescape(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(q @ ('"' | '\'' | '`' | '\\' | '$')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
                continue;
            }
            None => {
                out.push('\\');
                continue;
            }
        }
        changed = true;
    }
    changed.then_some(out)
}

/// The line number and the rest of a line carrying a read-view prefix: `12→`, `12:`,
/// `12 | `, `12\t`, `12:a3k|` (an anchored read), optionally indented (as `cat -n` and agents' read tools print them). After
/// `:` and `|` a single space may be part of the prefix or of the line: `eat_space` decides.
fn split_line_number<'a>(line: &'a str, eat_space: bool) -> Option<(usize, &'a str)> {
    let t = line.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let number = t[..digits].parse().ok()?;
    let rest = &t[digits..];
    let space = |s: &'a str| -> &'a str {
        if eat_space {
            s.strip_prefix(' ').unwrap_or(s)
        } else {
            s
        }
    };
    let anchored = rest
        .strip_prefix(':')
        .and_then(|r| r.get(..crate::anchors::HASH_LEN + 1).map(|head| (head, r)))
        .filter(|(head, _)| {
            head.ends_with('|')
                && head[..crate::anchors::HASH_LEN]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        });
    let body = if let Some((_, r)) = anchored {
        // `12:a3k|text`: an anchored read's prefix, the line's bytes right after `|`.
        &r[crate::anchors::HASH_LEN + 1..]
    } else if let Some(b) = rest.strip_prefix('\u{2192}') {
        b
    } else if let Some(b) = rest.strip_prefix('\t') {
        b
    } else if let Some(b) = rest.strip_prefix(" |").or_else(|| rest.strip_prefix('|')) {
        space(b)
    } else {
        space(rest.strip_prefix(':')?)
    };
    Some((number, body))
}

/// Strips read-view line-number prefixes when every non-empty line carries one with increasing
/// numbers. Returns each reading — the stripped lines, the first number (a line hint), and
/// whether the optional space after `:` or `|` was taken as part of the prefix — with and
/// without that space when the two differ.
pub fn strip_line_numbers(lines: &[String]) -> Vec<(Vec<String>, usize, bool)> {
    let mut readings: Vec<(Vec<String>, usize, bool)> = Vec::new();
    for eat_space in [true, false] {
        if let Some((stripped, first)) = strip_with(lines, eat_space)
            && readings.iter().all(|r| r.0 != stripped)
        {
            readings.push((stripped, first, eat_space));
        }
    }
    readings
}

fn strip_with(lines: &[String], eat_space: bool) -> Option<(Vec<String>, usize)> {
    let mut out = Vec::with_capacity(lines.len());
    let mut first = None;
    let mut last = 0;
    for line in lines {
        if line.trim().is_empty() {
            out.push(String::new());
            continue;
        }
        let (n, body) = split_line_number(line, eat_space)?;
        if first.is_some() && n <= last {
            return None;
        }
        first.get_or_insert(n);
        last = n;
        out.push(body.to_string());
    }
    Some((out, first?))
}

/// Strips line-number prefixes from the lines that carry one (a replacement mixes copied,
/// numbered lines with new, unnumbered ones).
pub fn strip_line_numbers_where_present(lines: &[String], eat_space: bool) -> Vec<String> {
    lines
        .iter()
        .map(|l| match split_line_number(l, eat_space) {
            Some((_, body)) => body.to_string(),
            None => l.clone(),
        })
        .collect()
}

/// Comment leaders stripped before looking at a line's words.
const COMMENT_MARKS: [&str; 8] = ["//", "#", "/*", "*/", "<!--", "-->", "--", ";"];

/// Words an omission note is made of (`// ... existing code ...`, `# rest of file unchanged`).
const OMISSION_WORDS: [&str; 37] = [
    "existing",
    "code",
    "rest",
    "of",
    "the",
    "file",
    "function",
    "functions",
    "method",
    "methods",
    "class",
    "classes",
    "unchanged",
    "remains",
    "remaining",
    "same",
    "other",
    "others",
    "omitted",
    "previous",
    "lines",
    "here",
    "as",
    "before",
    "implementation",
    "body",
    "content",
    "contents",
    "properties",
    "fields",
    "members",
    "imports",
    "tests",
    "cases",
    "items",
    "etc",
    "kept",
];

fn strip_comment_marks(s: &str) -> (&str, bool) {
    let mut t = s.trim();
    let mut had = false;
    loop {
        let before = t;
        for m in COMMENT_MARKS {
            if let Some(rest) = t.strip_prefix(m) {
                t = rest.trim_start();
                had = true;
            }
            if let Some(rest) = t.strip_suffix(m) {
                t = rest.trim_end();
                had = true;
            }
        }
        if t == before {
            return (t, had);
        }
    }
}

fn omission_words_only(s: &str) -> bool {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| OMISSION_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Whether a line of old text stands for omitted lines: `...`, `…`, or a comment made of dots
/// and omission words (`// ... existing code ...`).
pub fn is_elision_line(line: &str) -> bool {
    let (body, _) = strip_comment_marks(line);
    let dots = body.contains("...") || body.contains('\u{2026}');
    dots && omission_words_only(&body.replace("...", " ").replace('\u{2026}', " "))
}

/// Whether a line of new text is an omission placeholder that would delete code if written:
/// a comment of dots (`// ...`), or dots with omission words (`... rest of code ...`). A bare
/// `...` line is not one (it is valid Python and a common stub).
pub fn is_placeholder_line(line: &str) -> bool {
    let (body, commented) = strip_comment_marks(line);
    let has_dots = body.contains("...") || body.contains('\u{2026}');
    let words = body.replace("...", " ").replace('\u{2026}', " ");
    let has_words = words.chars().any(char::is_alphanumeric);
    if has_dots {
        (commented || has_words) && omission_words_only(&words)
    } else {
        commented && has_words && omission_words_only(&words) && {
            let w = words.to_ascii_lowercase();
            w.contains("existing code") || w.contains("rest of")
        }
    }
}

/// The first placeholder line `new` introduces that `old` does not have.
pub fn introduced_placeholder<'a>(old: &[String], new: &'a [String]) -> Option<&'a str> {
    let mut placeholders = new
        .iter()
        .map(String::as_str)
        .filter(|l| is_placeholder_line(l))
        .peekable();
    placeholders.peek()?;
    // The old lines are indexed once, so many placeholders cost no more than one.
    let old: std::collections::HashSet<&str> = old.iter().map(|o| o.trim()).collect();
    placeholders.find(|l| !old.contains(l.trim()))
}

/// For formats where every removed line is written out (`-` lines of a unified diff or a Codex
/// patch), a placeholder hides code only where its diff run deletes non-blank lines it does not
/// add back: `# ... rest unchanged` in a pure insertion, or beside re-added copies of every
/// removed line, deletes nothing. Returns the placeholder that does hide deleted lines.
pub fn placeholder_hiding_deletions<'a>(old: &[String], new: &'a [String]) -> Option<&'a str> {
    introduced_placeholder(old, new)?;
    for region in LineMap::of(old, new).regions() {
        let Region::Changed {
            old: removed,
            new: added,
        } = region
        else {
            continue;
        };
        if removed.is_empty() || added.is_empty() {
            continue;
        }
        let added = &new[added.clone()];
        let Some(placeholder) = introduced_placeholder(old, added) else {
            continue;
        };
        let added: std::collections::HashSet<&str> = added.iter().map(|a| a.trim()).collect();
        let lost = old[removed.clone()]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .any(|l| !added.contains(l.trim()));
        if lost {
            return Some(placeholder);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_placeholder_hides_code_only_where_its_run_deletes_lines() {
        // Pure insertion of a comment that happens to look like a placeholder: nothing lost.
        let old = v(&["def f():", "    return 1"]);
        let new = v(&["def f():", "    # ... rest unchanged", "    return 1"]);
        assert_eq!(placeholder_hiding_deletions(&old, &new), None);
        // Every removed line added back beside it: nothing lost.
        let old = v(&["a = 1", "b = 2"]);
        let new = v(&["# ... existing code ...", "a = 1", "b = 3"]);
        assert_eq!(placeholder_hiding_deletions(&old, &new), None);
        // Removed lines replaced by the placeholder: code would be deleted.
        let old = v(&["x()", "a = 1", "b = 2", "y()"]);
        let new = v(&["x()", "# ... existing code ...", "y()"]);
        assert_eq!(
            placeholder_hiding_deletions(&old, &new),
            Some("# ... existing code ...")
        );
    }

    #[test]
    fn loose_indexed_maps_every_byte_back_to_its_source() {
        let (loose, origin) = loose_indexed("  if (a,\n     b) \u{2014}\u{201c}x\u{201d}\n");
        assert_eq!(loose, "if(a,b)-\"x\"");
        assert_eq!(loose.len(), origin.len());
        assert_eq!(origin[0], (2, 3));
        // `b` sits after the line break and the continuation indentation.
        assert_eq!(origin[loose.find('b').unwrap()], (14, 15));
        // The folded dash maps to the whole three-byte em dash.
        assert_eq!(origin[loose.find('-').unwrap()], (17, 20));
        let (loose, origin) = loose_indexed("return\n    value");
        assert_eq!(loose, "return value");
        assert_eq!(
            origin[6],
            (6, 11),
            "the kept space stands for the whole run"
        );
    }

    #[test]
    fn loose_reading_keeps_only_word_separating_spaces() {
        let k = |s: &str| loose_chars(s).collect::<String>();
        assert_eq!(k("  function  myFunc( a, b ) {"), "function myFunc(a,b){");
        assert_eq!(k("if\t \t( \tcondition\t )\t{"), "if(condition){");
        assert_eq!(k("const   x    =     5;"), "const x=5;");
        assert_eq!(k("say \u{201c}hi\u{201d}"), "say\"hi\"");
        assert_ne!(k("int x"), k("intx"));
    }

    #[test]
    fn unescapes_only_what_models_over_escape() {
        assert_eq!(unescape("a\\nb\\t\\\"c\\\""), Some("a\nb\t\"c\"".into()));
        assert_eq!(unescape("no escapes"), None);
        assert_eq!(unescape("keep \\d and \\w"), None);
    }

    #[test]
    fn strips_consistent_line_number_prefixes() {
        let (lines, first, _) = strip_line_numbers(&v(&[
            "    12\u{2192}fn a() {",
            "    13\u{2192}    x",
            "14: }",
        ]))
        .remove(0);
        assert_eq!(lines, v(&["fn a() {", "    x", "}"]));
        assert_eq!(first, 12);
        assert!(strip_line_numbers(&v(&["3 | a", "2 | b"])).is_empty());
        assert!(strip_line_numbers(&v(&["3 | a", "plain"])).is_empty());
        assert_eq!(
            strip_line_numbers(&v(&["7\tx", "", "9\ty"]))[0].0,
            v(&["x", "", "y"])
        );
    }

    #[test]
    fn recognises_elisions_and_placeholders() {
        for l in [
            "...",
            "    ...",
            "\u{2026}",
            "// ...",
            "# ... existing code ...",
            "/* ... */",
            "<!-- ... -->",
        ] {
            assert!(is_elision_line(l), "{l:?}");
        }
        assert!(!is_elision_line("x = ..."));
        assert!(!is_elision_line("print('...')"));
        for l in [
            "// ... existing code ...",
            "# ... rest of code ...",
            "// rest of the file unchanged",
            "    // ...",
            "(rest of methods ...)",
        ] {
            assert!(is_placeholder_line(l), "{l:?}");
        }
        for l in [
            "...",
            "    ...",
            "x = 1",
            "// handles ... edge cases",
            "# TODO",
        ] {
            assert!(!is_placeholder_line(l), "{l:?}");
        }
        assert_eq!(
            introduced_placeholder(&v(&["a", "b"]), &v(&["a", "// ... existing code ..."])),
            Some("// ... existing code ...")
        );
        assert_eq!(
            introduced_placeholder(&v(&["// ...", "b"]), &v(&["// ...", "c"])),
            None
        );
    }

    #[test]
    fn an_import_defines_no_name() {
        assert_eq!(super::definition_name("import os"), None);
        assert_eq!(
            super::definition_name("pub(crate) async fn run<T>("),
            Some("run")
        );
    }
}
