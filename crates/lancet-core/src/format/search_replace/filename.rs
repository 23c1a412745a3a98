//! Which file a block edits (`--path`, a filename line before it, or the previous block's), and
//! the fence lines that may wrap a block's bodies.

use super::{FENCE, FILENAME_LOOKBACK, FILENAME_MAX_LEN, HEAD, Parser, TAG_FENCES};
use crate::format::ParseError;

impl<'t, 'l> Parser<'t, 'l> {
    /// The file of the block at `head`: `--path`, a filename line, or the previous block's.
    pub(super) fn path_for(
        &mut self,
        head: usize,
        after_previous: usize,
    ) -> Result<String, ParseError> {
        let named = self.find_filename(after_previous, head);
        if named.is_some() {
            self.filename_lines += 1;
        }
        if let Some(path) = self.default_path {
            if let Some((name, at)) = named
                && name != path
            {
                self.overridden_names.push((name, at + 1));
            }
            return Ok(path.to_string());
        }
        if let Some((name, _)) = named {
            self.previous_path = Some(name.clone());
            return Ok(name);
        }
        if let Some(previous) = &self.previous_path {
            self.reused += 1;
            return Ok(previous.clone());
        }
        Err(self.error(
            head,
            "the file's path alone on the line before the block, or --path",
            format!(
                "the SEARCH/REPLACE block at line {} names no file: put the file's path alone on the line right before `{HEAD}` (or before the ``` fence that opens the block), or pass --path PATH",
                head + 1
            ),
        ))
    }

    /// Up to [`FILENAME_LOOKBACK`] lines before `head` (not before `lo`), nearest first, walking
    /// on only past fence lines; the first candidate holding `.` or `/`, else the first.
    fn find_filename(&self, lo: usize, head: usize) -> Option<(String, usize)> {
        let mut candidates = Vec::new();
        for k in (lo..head).rev().take(FILENAME_LOOKBACK) {
            let t = self.lines[k].trim();
            if let Some(name) = filename_in(t) {
                candidates.push((name, k));
            }
            if !is_fence(t) {
                break;
            }
        }
        let dotted = candidates
            .iter()
            .position(|(name, _)| name.contains(['.', '/']));
        let pick = dotted.unwrap_or(0);
        (pick < candidates.len()).then(|| candidates.swap_remove(pick))
    }
}

/// A (trimmed) line opening or closing a code fence: ```` ``` ```` or one of Aider's tags.
fn is_fence(t: &str) -> bool {
    t.starts_with(FENCE)
        || TAG_FENCES.iter().any(|tag| {
            t.starts_with(tag)
                || t.strip_prefix("</")
                    .is_some_and(|c| c.starts_with(&tag[1..]))
        })
}

/// The file a (trimmed) line names, if it looks like a path.
fn filename_in(t: &str) -> Option<String> {
    if is_fence(t) {
        // A fence opener's info string names a file only when it holds `.` or `/`.
        let info = TAG_FENCES
            .iter()
            .find_map(|tag| t.strip_prefix(tag))
            .unwrap_or_else(|| t.trim_start_matches('`'))
            .trim();
        return (!t.starts_with("</") && info.contains(['.', '/']) && looks_like_path(info, false))
            .then(|| info.to_string());
    }
    let mut name = t;
    let mut quoted = false;
    loop {
        let before = name;
        name = name.trim().trim_end_matches(':').trim_start_matches('#');
        if let Some(inner) = name.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
            quoted = true;
            name = inner;
        }
        name = name.trim_matches(['`', '*', '"', '\'']);
        if name == before {
            break;
        }
    }
    looks_like_path(name, quoted).then(|| name.to_string())
}

/// Whether a cleaned candidate can be a path rather than prose.
fn looks_like_path(name: &str, quoted: bool) -> bool {
    !name.is_empty()
        && name != "..."
        && name.len() <= FILENAME_MAX_LEN
        && name.chars().any(char::is_alphanumeric)
        && (quoted || !name.chars().any(char::is_whitespace))
        && !name.contains(['<', '>', '|'])
        && !name.ends_with(['.', ',', ';', '!', '?', ')'])
}

/// A body wrapped in its own fence lines (optionally after a line repeating the file name),
/// without the wrapping.
pub(super) fn unwrap_fenced(body: &[String], path: &str) -> Option<Vec<String>> {
    let mut body = body;
    if body.len() >= 3 && filename_in(body[0].trim()).is_some_and(|name| name == path) {
        body = &body[1..];
    }
    let (first, last) = (body.first()?, body.last()?);
    let closes = last.trim().len() >= FENCE.len() && last.trim().bytes().all(|b| b == b'`');
    (body.len() >= 2 && first.trim_start().starts_with(FENCE) && closes)
        .then(|| body[1..body.len() - 1].to_vec())
}
