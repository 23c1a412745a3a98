//! The tiers of the ladder, strict to loose, and how each reads a line: byte for byte, with
//! CRLF read as LF, without trailing whitespace, without indentation, and loosest of all with
//! typographic punctuation read as ASCII and whitespace kept only between two words.

use crate::text::common_indent;
use schemars::JsonSchema;
use serde::Serialize;

/// Matcher tiers, ordered from strict to loose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Byte-identical.
    Exact,
    /// Identical once CRLF is read as LF.
    Eol,
    /// Identical ignoring trailing whitespace.
    TrailingWs,
    /// Identical once each side's common indentation is removed (relative indentation kept).
    Indent,
    /// Identical ignoring leading and trailing whitespace.
    Trimmed,
    /// As `Trimmed`, with typographic quotes, dashes, ellipses and special spaces read as ASCII,
    /// and whitespace significant only between two words (`f( a, b )` reads as `f(a,b)`).
    Unicode,
    /// Matched once literal `\n`, `\t`, `\"` in the edit were read as what they stand for.
    Escapes,
    /// Matched once read-view line-number prefixes (`12→`, `12:`, `12 | `) were stripped.
    LineNumbers,
    /// `...` lines split the old text into pieces matched in order; the elided lines are kept.
    Elision,
    /// Identical once all whitespace, line breaks included, is read loosely: the edit broke one
    /// file line across several, joined several, or (SEARCH/REPLACE, `old_string`) named part of
    /// one line. Only the differing middle is spliced; the file keeps its own line structure.
    Reflow,
    /// First and last lines match, the middle is similar.
    Anchor,
    /// The most similar window, above a threshold and clearly ahead of any other.
    Fuzzy,
}

impl Tier {
    /// Every tier, in the order they are tried.
    pub const LADDER: [Tier; 12] = [
        Tier::Exact,
        Tier::Eol,
        Tier::TrailingWs,
        Tier::Indent,
        Tier::Trimmed,
        Tier::Unicode,
        Tier::Escapes,
        Tier::LineNumbers,
        Tier::Elision,
        Tier::Reflow,
        Tier::Anchor,
        Tier::Fuzzy,
    ];

    /// The tiers that compare lines, the ladder's first six; the garbled-needle readings run
    /// these on the repaired text.
    pub(super) const LINE_TIERS: &'static [Tier] = Tier::LADDER.split_at(6).0;

    /// The tier's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Eol => "eol",
            Tier::TrailingWs => "trailing_ws",
            Tier::Indent => "indent",
            Tier::Trimmed => "trimmed",
            Tier::Unicode => "unicode",
            Tier::Escapes => "escapes",
            Tier::LineNumbers => "line_numbers",
            Tier::Elision => "elision",
            Tier::Reflow => "reflow",
            Tier::Anchor => "anchor",
            Tier::Fuzzy => "fuzzy",
        }
    }

    /// Whether a file line equals a needle line at this tier (for `Indent`, the per-line part of
    /// the test; the block test also compares relative indentation).
    pub fn line_eq(self, file: &str, needle: &str) -> bool {
        match self {
            Tier::Exact => file == needle,
            Tier::Eol => strip_cr(file) == strip_cr(needle),
            Tier::TrailingWs => file.trim_end() == needle.trim_end(),
            Tier::Indent | Tier::Trimmed => file.trim() == needle.trim(),
            _ => loose_chars(file).eq(loose_chars(needle)),
        }
    }

    /// Whether the file's lines from `start` equal the needle's at this tier; for `Indent`, their
    /// relative indentation must agree too (each side's common indentation stripped).
    #[inline]
    pub(super) fn block_eq(self, lines: &[&str], start: usize, needle: &[String]) -> bool {
        if start + needle.len() > lines.len() {
            return false;
        }
        let window = &lines[start..start + needle.len()];
        if !needle.iter().zip(window).all(|(n, f)| self.line_eq(f, n)) {
            return false;
        }
        if self != Tier::Indent {
            return true;
        }
        let file_base = common_indent(window.iter().copied());
        let needle_base = common_indent(needle.iter().map(String::as_str));
        needle.iter().zip(window).all(|(n, f)| {
            n.trim().is_empty()
                || f.strip_prefix(file_base).map(str::trim_end)
                    == n.strip_prefix(needle_base).map(str::trim_end)
        })
    }

    /// Whether a match at this tier may differ in indentation, so inserted lines must be
    /// re-indented to the file's.
    pub fn ignores_indent(self) -> bool {
        self >= Tier::Indent
    }
}

fn strip_cr(s: &str) -> &str {
    s.strip_suffix('\r').unwrap_or(s)
}

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

/// How a file line differs from a needle line, as the tiers see it: the strictest line tier
/// past `Exact` that forgives the difference names it; ASCII quotes swapped (`'` for `"`) no
/// tier forgives; anything else is content.
pub(super) enum LineDifference {
    /// `Eol` forgives it.
    LineEnding,
    /// `TrailingWs` forgives it.
    TrailingWhitespace,
    /// `Trimmed` forgives it.
    Indentation,
    /// `Unicode` forgives it.
    Typography,
    /// Only ASCII quotes differ.
    QuotesSwapped,
    /// The content differs.
    Content,
}

impl LineDifference {
    /// How `file` differs from `needle`.
    pub(super) fn of(file: &str, needle: &str) -> LineDifference {
        let forgiven = [
            (Tier::Eol, LineDifference::LineEnding),
            (Tier::TrailingWs, LineDifference::TrailingWhitespace),
            (Tier::Trimmed, LineDifference::Indentation),
            (Tier::Unicode, LineDifference::Typography),
        ]
        .into_iter()
        .find(|(tier, _)| tier.line_eq(file, needle));
        match forgiven {
            Some((_, difference)) => difference,
            None if ascii_quotes_swapped(file, needle) => LineDifference::QuotesSwapped,
            None => LineDifference::Content,
        }
    }
}

/// Whether two lines differ only in ASCII quotes, `'` for `"` or the reverse.
fn ascii_quotes_swapped(file: &str, needle: &str) -> bool {
    let plain = |s: &str| s.trim().replace('\'', "\"");
    file.trim() != needle.trim() && plain(file) == plain(needle)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_difference_is_named_by_the_strictest_tier_that_forgives_it() {
        let of = |file, needle| match LineDifference::of(file, needle) {
            LineDifference::LineEnding => "eol",
            LineDifference::TrailingWhitespace => "trailing",
            LineDifference::Indentation => "indent",
            LineDifference::Typography => "typography",
            LineDifference::QuotesSwapped => "quotes",
            LineDifference::Content => "content",
        };
        assert_eq!(of("x = 1\r", "x = 1"), "eol");
        assert_eq!(of("x = 1  ", "x = 1"), "trailing");
        assert_eq!(of("    x = 1", "x = 1"), "indent");
        assert_eq!(of("say \u{201c}hi\u{201d}", "say \"hi\""), "typography");
        assert_eq!(of("say 'hi'", "say \"hi\""), "quotes");
        assert_eq!(of("x = 2", "x = 1"), "content");
    }
}
