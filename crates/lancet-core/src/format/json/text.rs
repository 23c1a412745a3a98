//! Where the JSON stands in the edit text: the regions holding it (the whole text or fenced
//! blocks), where each value starts and ends, and which line an offset is on.

use super::{FENCE, JSON_INFO, OBJECT_EXPECTED};
use crate::format::ParseError;
use crate::notes::BatchNote;

pub(super) fn is_json_fence(line: &str) -> bool {
    line.strip_prefix(FENCE)
        .is_some_and(|info| JSON_INFO.contains(&info.trim()))
}

/// The byte ranges holding JSON: the whole text, or the bodies of its fences.
pub(in crate::format) fn regions(
    text: &str,
    notes: &mut Vec<BatchNote>,
) -> Result<Vec<(usize, usize)>, ParseError> {
    let t = text.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        return Ok(vec![(0, text.len())]);
    }
    // (byte offset of the line, the line without its line ending)
    let mut lines = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        lines.push((at, raw.trim_end_matches(['\n', '\r'])));
        at += raw.len();
    }
    let mut out = Vec::new();
    let mut prose = 0;
    let mut i = 0;
    while i < lines.len() {
        let (_, line) = lines[i];
        let opens = is_json_fence(line.trim_end())
            || (line.trim_end() == FENCE
                && lines[i + 1..]
                    .iter()
                    .find(|(_, l)| !l.trim().is_empty())
                    .is_some_and(|(_, l)| l.trim_start().starts_with(['{', '['])));
        if !opens {
            if !line.trim().is_empty() {
                prose += 1;
            }
            i += 1;
            continue;
        }
        let close = (i + 1..lines.len()).find(|&j| lines[j].1.trim_end() == FENCE);
        let Some(close) = close else {
            return Err(ParseError::new(
                i + 1,
                line,
                "a closing ``` after the JSON",
                "the ```json fence opened here is never closed: the reply looks cut off, so nothing was applied",
            ));
        };
        let start = lines.get(i + 1).map_or(text.len(), |l| l.0);
        out.push((start, lines[close].0));
        i = close + 1;
    }
    if out.is_empty() {
        let at = lines
            .iter()
            .position(|(_, l)| !l.trim().is_empty())
            .unwrap_or(0);
        return Err(ParseError::new(
            at + 1,
            lines.get(at).map_or("", |l| l.1),
            OBJECT_EXPECTED,
            "no JSON edit found: send a JSON object (or an array of them), bare or in a ```json fence",
        ));
    }
    notes.push(BatchNote::JsonInFences {
        blocks: out.len(),
        prose,
    });
    Ok(out)
}

/// 1-based line of a byte offset.
pub(in crate::format) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The text of 1-based line `n`.
pub(in crate::format) fn line_text(text: &str, n: usize) -> &str {
    let l = text.split('\n').nth(n - 1).unwrap_or("");
    l.strip_suffix('\r').unwrap_or(l)
}

/// Offset just past the JSON value starting at `i` (the text is known to be valid JSON).
pub(super) fn value_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    loop {
        match b[i] {
            b'"' => {
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                i += 1;
            }
            _ if depth == 0 => {
                while i < b.len()
                    && !matches!(b[i], b',' | b']' | b'}')
                    && !b[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                return i;
            }
            _ => i += 1,
        }
        if depth == 0 {
            return i;
        }
    }
}

pub(in crate::format) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Start offsets of the elements of the array starting at `i`.
pub(super) fn array_elements(b: &[u8], i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = skip_ws(b, i + 1);
    while i < b.len() && b[i] != b']' {
        out.push(i);
        i = skip_ws(b, value_end(b, i));
        if i < b.len() && b[i] == b',' {
            i = skip_ws(b, i + 1);
        }
    }
    out
}

/// Start offset of the value of member `key` of the object starting at `i`.
pub(super) fn member_value(b: &[u8], i: usize, key: &str) -> Option<usize> {
    let mut i = skip_ws(b, i + 1);
    while i < b.len() && b[i] == b'"' {
        let key_end = value_end(b, i);
        let name: String = serde_json::from_slice(&b[i..key_end]).ok()?;
        i = skip_ws(b, key_end);
        i = skip_ws(b, i + 1); // the colon
        if name == key {
            return Some(i);
        }
        i = skip_ws(b, value_end(b, i));
        if i < b.len() && b[i] == b',' {
            i = skip_ws(b, i + 1);
        }
    }
    None
}
