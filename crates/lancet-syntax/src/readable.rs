//! Valid text a grammar cannot read, made readable without moving a byte, before tree-sitter
//! parses it: the gate must never refuse valid code, and some valid code is beyond a grammar.
//! tree-sitter-css has no rule for an unquoted `url(...)`, whose `../img/icon.png` or
//! `data:image/svg+xml;...` is no CSS value it knows (Django's admin CSS is full of them), nor
//! for Internet Explorer's `filter: progid:DXImageTransform...(startColorstr='#fff', ...)`
//! (select2's CSS, shipped with Django): each is read as a plain word of the same length. It
//! knows `@import`, `@media`, `!important` only in lower case, where CSS takes any case
//! (Django's `@IMporT uRL(...)`). tree-sitter-json takes no `+` in an exponent (`1e+16`, what
//! Python's `json.dumps(1e16)` writes; ansible's JSON test files): it reads `1e016`.
//! Positions stay where they were, so an error still points at the text as written.

use std::borrow::Cow;

/// `text` as the grammar of `language` (lancet's name for it) is handed it.
pub(crate) fn readable<'t>(language: &str, text: &'t [u8]) -> Cow<'t, [u8]> {
    match language {
        "css" => each_in_turn(
            text,
            &[css_urls_masked, css_progids_masked, css_keywords_lowered],
        ),
        "json" => json_exponent_signs_dropped(text),
        _ => Cow::Borrowed(text),
    }
}

/// One rewrite: the text unchanged (borrowed) or changed (a copy).
type Rewrite = for<'a> fn(&'a [u8]) -> Cow<'a, [u8]>;

/// `text` through each rewrite in turn, copied only once one of them changes something.
fn each_in_turn<'t>(text: &'t [u8], rewrites: &[Rewrite]) -> Cow<'t, [u8]> {
    let mut out = Cow::Borrowed(text);
    for rewrite in rewrites {
        let changed = match rewrite(&out) {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        };
        if let Some(changed) = changed {
            out = Cow::Owned(changed);
        }
    }
    out
}

/// The at-rules the CSS grammar names (its `@-webkit-keyframes` too) and `!important` in
/// lower case, however they were written: CSS keywords are case-insensitive.
fn css_keywords_lowered(text: &[u8]) -> Cow<'_, [u8]> {
    const AT_RULES: &[&[u8]] = &[
        b"import",
        b"media",
        b"charset",
        b"namespace",
        b"supports",
        b"scope",
        b"keyframes",
    ];
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(found) = text[at..].iter().position(|&b| b == b'@' || b == b'!') {
        let start = at + found + 1;
        let len = text[start..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            .count();
        at = start + len;
        let word = &text[start..start + len];
        let keyword = if text[start - 1] == b'@' {
            AT_RULES.iter().any(|k| word.eq_ignore_ascii_case(k))
                || (word.len() > 9 && word[word.len() - 9..].eq_ignore_ascii_case(b"keyframes"))
        } else {
            word.eq_ignore_ascii_case(b"important")
        };
        if keyword && word.iter().any(u8::is_ascii_uppercase) {
            out.get_or_insert_with(|| text.to_vec())[start..start + len].make_ascii_lowercase();
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Every exponent sign `+` of a number (`1e+16`, `2.5E+3`: a digit or `.`, then `e` or `E`,
/// then `+`, then a digit) turned to `0` (`1e016`), the same number to the grammar. In a
/// string the change is harmless: a string stays a string.
fn json_exponent_signs_dropped(text: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    for i in 2..text.len().saturating_sub(1) {
        if text[i] == b'+'
            && matches!(text[i - 1], b'e' | b'E')
            && (text[i - 2].is_ascii_digit() || text[i - 2] == b'.')
            && text[i + 1].is_ascii_digit()
        {
            out.get_or_insert_with(|| text.to_vec())[i] = b'0';
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Every unquoted `url(ADDRESS)` with its address's bytes turned to `x` (a quoted one is a
/// string the grammar reads; an address holding a quote, a parenthesis or a space is no url
/// token, and stays as it is).
fn css_urls_masked(text: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(found) = find_url(text, at) {
        let open = found + 4;
        let mut start = open;
        while text.get(start).is_some_and(u8::is_ascii_whitespace) {
            start += 1;
        }
        at = start;
        if matches!(text.get(start), Some(b'"' | b'\'') | None) {
            continue;
        }
        let Some(len) = text[start..].iter().position(|&b| b == b')') else {
            break;
        };
        let address = &text[start..start + len];
        let body = address.trim_ascii_end();
        let plain = |b: &u8| !matches!(b, b'"' | b'\'' | b'(' | b'\\') && !b.is_ascii_whitespace();
        if body.is_empty() || !body.iter().all(plain) {
            continue;
        }
        let out = out.get_or_insert_with(|| text.to_vec());
        out[start..start + body.len()].fill(b'x');
        at = start + len;
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Every value that starts with Internet Explorer's `progid:` turned to `x` up to the `;` or
/// `}` that ends it (its parentheses and quotes passed over; line breaks kept).
fn css_progids_masked(text: &[u8]) -> Cow<'_, [u8]> {
    const PROGID: &[u8] = b"progid:";
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(start) = (at..text.len().saturating_sub(PROGID.len() - 1))
        .find(|&i| text[i..i + PROGID.len()].eq_ignore_ascii_case(PROGID))
    {
        let (mut depth, mut quote, mut end) = (0usize, None, start);
        while end < text.len() {
            match (quote, text[end]) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b @ (b'"' | b'\'')) => quote = Some(b),
                (None, b'(') => depth += 1,
                (None, b')') => depth = depth.saturating_sub(1),
                (None, b';' | b'}') if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let out = out.get_or_insert_with(|| text.to_vec());
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b'x';
            }
        }
        at = end;
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// The next `url(` at or after `from` (any case) that starts a function name, not the end of a
/// longer one (`myurl(`).
fn find_url(text: &[u8], from: usize) -> Option<usize> {
    (from..text.len().saturating_sub(3)).find(|&i| {
        text[i..i + 4].eq_ignore_ascii_case(b"url(")
            && (i == 0
                || !(text[i - 1].is_ascii_alphanumeric() || matches!(text[i - 1], b'-' | b'_')))
    })
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn unquoted_css_urls_become_plain_words_of_the_same_length() {
        let css = b".a { background: url(../img/icon.png) no-repeat; }\n@import url( fonts.css );\n.b { c: url(\"x y\"); d: URL(data:image/svg+xml;utf8,%3Csvg%3E); }\n";
        let read = readable("css", css);
        assert_eq!(read.len(), css.len());
        let x = |address: &str| "x".repeat(address.len());
        assert_eq!(
            std::str::from_utf8(&read).unwrap(),
            format!(
                ".a {{ background: url({}) no-repeat; }}\n@import url( {} );\n.b {{ c: url(\"x y\"); d: URL({}); }}\n",
                x("../img/icon.png"),
                x("fonts.css"),
                x("data:image/svg+xml;utf8,%3Csvg%3E")
            )
        );
        assert!(matches!(
            readable("scss", css),
            std::borrow::Cow::Borrowed(_)
        ));
        // A non-ASCII address keeps its length in bytes (and the text stays UTF-8).
        let wide = "a { b: url(é.png) }".as_bytes();
        let read = readable("css", wide);
        assert_eq!(read.len(), wide.len());
        assert!(std::str::from_utf8(&read).is_ok());
    }

    #[test]
    fn internet_explorer_progid_filters_become_plain_words() {
        let css = b".a { filter: progid:DXImageTransform.Microsoft.gradient(startColorstr='#FFF;', GradientType=0); color: red }";
        let read = readable("css", css);
        let value =
            "progid:DXImageTransform.Microsoft.gradient(startColorstr='#FFF;', GradientType=0)";
        assert_eq!(
            std::str::from_utf8(&read).unwrap(),
            format!(".a {{ filter: {}; color: red }}", "x".repeat(value.len()))
        );
    }

    #[test]
    fn css_keywords_in_any_case_are_read_in_lower_case() {
        let css = b"@IMporT uRL(\"a.css\");\n@Charset \"utf-8\";\n@-WebKit-KeyFrames k { from { a: b } }\na { color: red !IMPORTANT; --x: @Other; b: \"!Keep\" }\n";
        let read = readable("css", css);
        assert_eq!(
            std::str::from_utf8(&read).unwrap(),
            "@import uRL(\"a.css\");\n@charset \"utf-8\";\n@-webkit-keyframes k { from { a: b } }\na { color: red !important; --x: @Other; b: \"!Keep\" }\n"
        );
        assert!(matches!(
            readable("css", b"@media screen { a { b: c !important } }"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn json_exponent_signs_are_read_as_digits() {
        let json = b"[1e+16, 2.5E+3, -1e-7, 3e+, \"e+1\", \"1e+1\"]";
        let read = readable("json", json);
        assert_eq!(
            std::str::from_utf8(&read).unwrap(),
            "[1e016, 2.5E03, -1e-7, 3e+, \"e+1\", \"1e01\"]"
        );
        assert!(matches!(
            readable("json", b"{\"a\": 1e5}"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
