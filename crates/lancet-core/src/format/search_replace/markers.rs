//! Recognising marker lines: HEAD, DIVIDER, UPDATED and Roo's separator in every dialect,
//! lines that try to be markers and are not, and backslash-escaped markers in a body.

use super::{
    ANGLE_RUN, CLINE_MIN_RUN, DIVIDER_MIN_RUN, ESCAPABLE, REPLACE_WORD, ROO_SEPARATOR,
    ROO_SEPARATOR_MIN_RUN, SEARCH_WORD,
};

/// `run` of `angle` (a count in [`ANGLE_RUN`]) or of `cline` (at least [`CLINE_MIN_RUN`]), one
/// space, `word`, an optional `>`: the whole (trimmed) line.
fn is_word_marker(t: &str, angle: u8, cline: u8, word: &str) -> bool {
    let Some(&first) = t.as_bytes().first() else {
        return false;
    };
    let run = t.bytes().take_while(|&b| b == first).count();
    let run_ok =
        (first == angle && ANGLE_RUN.contains(&run)) || (first == cline && run >= CLINE_MIN_RUN);
    run_ok
        && t[run..]
            .strip_prefix(' ')
            .and_then(|rest| rest.strip_prefix(word))
            .is_some_and(|rest| rest.is_empty() || rest == ">")
}

/// The opening marker, on a trimmed line.
pub(super) fn is_head(t: &str) -> bool {
    is_word_marker(t, b'<', b'-', SEARCH_WORD)
}

/// The divider, on a trimmed line.
pub(super) fn is_divider(t: &str) -> bool {
    t.len() >= DIVIDER_MIN_RUN && t.bytes().all(|b| b == b'=')
}

/// The closing marker, on a trimmed line.
pub(super) fn is_updated(t: &str) -> bool {
    is_word_marker(t, b'>', b'+', REPLACE_WORD)
}

/// Roo's separator after HEAD: `-------`, or any run of 5 or more `-` after line markers.
pub(super) fn is_roo_separator(t: &str, after_line_markers: bool) -> bool {
    if after_line_markers {
        t.len() >= ROO_SEPARATOR_MIN_RUN && t.bytes().all(|b| b == b'-')
    } else {
        t == ROO_SEPARATOR
    }
}

/// A trimmed line that tries to be a marker and is not: two or more of `run_chars`, optional
/// spaces, `word` in any case, then nothing but `>` and spaces.
pub(super) fn is_near_miss(t: &str, run_chars: &[u8], word: &str) -> bool {
    let run = t.bytes().take_while(|b| run_chars.contains(b)).count();
    if run < 2 || is_head(t) || is_updated(t) {
        return false;
    }
    let rest = t[run..].trim_start();
    rest.get(..word.len())
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
        && rest[word.len()..]
            .bytes()
            .all(|b| b == b'>' || b.is_ascii_whitespace())
}

/// A trimmed line that looks like a closing marker with something wrong (text after it, too
/// few or too many `>`), for hints.
pub(super) fn is_near_miss_updated(t: &str) -> bool {
    let run = t.bytes().take_while(|b| b"+>".contains(b)).count();
    run >= 2
        && !is_updated(t)
        && t[run..]
            .trim_start()
            .get(..REPLACE_WORD.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(REPLACE_WORD))
}

/// A body line `\` + marker is the marker text itself.
pub(super) fn unescape(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('\\')?;
    ESCAPABLE
        .iter()
        .any(|marker| rest.starts_with(marker))
        .then_some(rest)
}

/// Whether a line looks like a SEARCH/REPLACE marker, well formed or not (`<<<< SEARCH`,
/// `<<<<<<< search`, `>>>>>>REPLACE`): then a text no format recognises was most likely meant as
/// SEARCH/REPLACE blocks, and this parser's error says which marker is wrong.
pub fn has_marker_like_line(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .any(|t| is_near_miss(t, b"<-", SEARCH_WORD) || is_near_miss_updated(t))
}
