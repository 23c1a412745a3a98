//! The readings of a hunk the strict tiers try, made before any search ([`Readings`]): its text
//! as sent, its needle without the blank lines models add or drop at its edges, and the
//! repaired readings of a garbled needle, with how each garbling is read back (over-escaped
//! text unescaped, read-view line-number prefixes stripped).

use super::Tier;
use crate::batch::{Hunk, HunkText, split_lines};
use std::borrow::Cow;

/// Every reading of a hunk's old text the strict tiers try, in ladder order, read once before
/// any search so that the ladder walks them top-down: the text as sent, then its lines without
/// blank edges, then the readings of a garbled needle.
pub(super) struct Readings<'h> {
    /// The old text as sent, byte for byte, for a format that names part of a line.
    pub(super) substring: Option<&'h HunkText>,
    /// The old and new lines as sent, then without the blank lines models add or drop at the
    /// edges ([`blank_trimmed`]).
    pub(super) lines: Vec<(&'h [String], &'h [String])>,
    /// The substring with its over-escapes undone, when it has any.
    pub(super) unescaped: Option<HunkText>,
    /// The repaired readings of the lines ([`repaired_readings`]): the strictest tier among
    /// them decides.
    pub(super) repaired: Vec<Reading>,
}

impl<'h> Readings<'h> {
    /// Reads a hunk every way the strict tiers try.
    pub(super) fn of(hunk: &'h Hunk) -> Self {
        let substring = hunk.text.as_ref().filter(|t| !t.old.is_empty());
        let escapes = escapes_undone(hunk);
        Readings {
            substring,
            lines: blank_trimmed(&hunk.old, &hunk.new),
            repaired: repaired_readings(hunk, escapes.as_ref()),
            unescaped: escapes.filter(|_| substring.is_some()),
        }
    }
}

/// A repaired reading of a hunk: its lines read back from a garbling.
pub(super) struct Reading {
    /// The tier a match by this reading reports (escapes, line numbers).
    pub(super) reported: Tier,
    /// The old lines, read back.
    pub(super) old: Vec<String>,
    /// The new lines, read back the same way.
    pub(super) new: Vec<String>,
    /// The line the reading points at (0-based): a read view's first line number.
    pub(super) hint: Option<usize>,
}

/// The needle as given, then without the blank lines models add or drop at its edges: trailing
/// blank lines common to old and new text (a blank line before the next marker), then leading
/// blank lines of the old text (and as many of the new text's, when it has them too).
fn blank_trimmed<'h>(old: &'h [String], new: &'h [String]) -> Vec<(&'h [String], &'h [String])> {
    let blank_run = |v: &[String], from_end: bool| {
        let it: Box<dyn Iterator<Item = &String>> = if from_end {
            Box::new(v.iter().rev())
        } else {
            Box::new(v.iter())
        };
        it.take_while(|l| l.trim().is_empty()).count()
    };
    let tail = blank_run(old, true).min(blank_run(new, true));
    let tail = if tail < old.len() { tail } else { 0 };
    let mut out = vec![(old, new)];
    let (o, n) = (&old[..old.len() - tail], &new[..new.len() - tail]);
    if tail > 0 {
        out.push((o, n));
    }
    let head = blank_run(o, false);
    if head > 0 && head < o.len() {
        let cut = head.min(blank_run(n, false));
        out.push((&o[head..], &n[cut..]));
    }
    out
}

/// The hunk's text (the substring, else its lines joined) with its over-escapes undone, when it
/// has any: read once, for the substring's reading and the lines' alike.
fn escapes_undone(hunk: &Hunk) -> Option<HunkText> {
    let (old, new) = match &hunk.text {
        Some(t) => (unescape(&t.old)?, Cow::Borrowed(t.new.as_str())),
        // Most hunks hold no backslash: nothing to join.
        None if hunk.old.iter().any(|l| l.contains('\\')) => (
            unescape(&hunk.old.join("\n"))?,
            Cow::Owned(hunk.new.join("\n")),
        ),
        None => return None,
    };
    let new = unescape(&new).unwrap_or_else(|| new.into_owned());
    Some(HunkText { old, new })
}

/// The garbled-needle readings, in ladder order: over-escaped text (`escapes`, read by
/// [`escapes_undone`]), then read-view line numbers (whose first number becomes a line hint).
fn repaired_readings(hunk: &Hunk, escapes: Option<&HunkText>) -> Vec<Reading> {
    let mut out = Vec::new();
    if let Some(t) = escapes {
        out.push(Reading {
            reported: Tier::Escapes,
            old: split_lines(&t.old),
            new: split_lines(&t.new),
            hint: None,
        });
    }
    for (old, first, eat_space) in strip_line_numbers(&hunk.old) {
        let new = strip_line_numbers_where_present(&hunk.new, eat_space);
        out.push(Reading {
            reported: Tier::LineNumbers,
            old,
            new,
            hint: Some(first.saturating_sub(1)),
        });
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::locate::owned_lines as v;

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
}
