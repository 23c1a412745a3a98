//! Reading header lines: the sides and paths of file headers (git prefixes, C-quoted names,
//! `diff --git` lines) and the numbers of an `@@` hunk header.

use super::{DEV_NULL, HUNK_HEADER, NEW_PREFIX, OLD_PREFIX, Section};

/// One side of a file header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Side {
    DevNull,
    Path(String),
}

impl Side {
    pub(super) fn from_header(raw: &str) -> Side {
        let path = header_path(raw);
        if path == DEV_NULL {
            Side::DevNull
        } else {
            Side::Path(path)
        }
    }

    fn has_prefix(&self, prefix: &str) -> bool {
        matches!(self, Side::Path(p) if p.starts_with(prefix) && p.len() > prefix.len())
    }

    fn strip(self, prefix: &str) -> Side {
        match self {
            Side::Path(p) => Side::Path(p.strip_prefix(prefix).unwrap_or(&p).to_string()),
            d => d,
        }
    }
}

/// Removes git's `a/` and `b/` prefixes when both sides carry them (or are `/dev/null`).
pub(super) fn strip_git_prefixes(old: Side, new: Side) -> (Side, Side) {
    let old_ok = old == Side::DevNull || old.has_prefix(OLD_PREFIX);
    let new_ok = new == Side::DevNull || new.has_prefix(NEW_PREFIX);
    if old_ok && new_ok && (old.has_prefix(OLD_PREFIX) || new.has_prefix(NEW_PREFIX)) {
        (old.strip(OLD_PREFIX), new.strip(NEW_PREFIX))
    } else {
        (old, new)
    }
}

/// The path a section leaves its file at (for a following headerless block).
pub(super) fn target_path(s: &Section) -> String {
    if let Some(p) = &s.inherited {
        return p.clone();
    }
    if let Some(p) = &s.rename_to {
        return p.clone();
    }
    let sides = s.file_headers.clone().or_else(|| s.git_paths.clone());
    match sides.map(|(o, n)| strip_git_prefixes(o, n)) {
        Some((_, Side::Path(p))) | Some((Side::Path(p), Side::DevNull)) => p,
        _ => String::new(),
    }
}

/// The path of a `---`/`+++`/`rename` header: C-quoted, or up to a tab (timestamps follow one).
pub(super) fn header_path(raw: &str) -> String {
    let raw = raw.trim_start();
    if raw.starts_with('"')
        && let Some((path, _)) = unquote(raw)
    {
        return path;
    }
    raw.split('\t').next().unwrap_or("").trim_end().to_string()
}

/// Decodes a C-quoted git path at the start of `s`; returns it and the rest after the quote.
fn unquote(s: &str) -> Option<(String, &str)> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), &s[i + 1..])),
            b'\\' if i + 1 < bytes.len() => {
                let c = bytes[i + 1];
                i += 2;
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'v' => out.push(11),
                    b'0'..=b'7' => {
                        let mut v = u32::from(c - b'0');
                        let mut k = 0;
                        while k < 2 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                            v = v * 8 + u32::from(bytes[i] - b'0');
                            i += 1;
                            k += 1;
                        }
                        out.push((v & 0xff) as u8);
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// The two paths of a `diff --git` line (prefixes kept), when they can be told apart.
pub(super) fn git_line_paths(rest: &str) -> Option<(Side, Side)> {
    let rest = rest.trim();
    let side = |p: &str| Side::Path(p.to_string());
    if rest.starts_with('"') {
        let (old, after) = unquote(rest)?;
        let after = after.trim_start();
        let new = if after.starts_with('"') {
            unquote(after)?.0
        } else {
            after.to_string()
        };
        return Some((Side::Path(old), Side::Path(new)));
    }
    if let Some(q) = rest.find(" \"") {
        let (new, _) = unquote(&rest[q + 1..])?;
        return Some((side(&rest[..q]), Side::Path(new)));
    }
    let splits: Vec<usize> = rest.match_indices(' ').map(|(k, _)| k).collect();
    let same = |k: usize| {
        let (o, n) = (&rest[..k], &rest[k + 1..]);
        o.strip_prefix(OLD_PREFIX).unwrap_or(o) == n.strip_prefix(NEW_PREFIX).unwrap_or(n)
    };
    let k = splits.iter().copied().find(|&k| same(k)).or_else(|| {
        let b: Vec<usize> = splits
            .iter()
            .copied()
            .filter(|&k| rest[k + 1..].starts_with(NEW_PREFIX))
            .collect();
        (b.len() == 1).then(|| b[0])
    })?;
    Some((side(&rest[..k]), side(&rest[k + 1..])))
}

/// Reads ` -A[,B] +C[,D] @@` after `@@`: the old start `A` and the counts `B` and `D`. Anything
/// else (Aider's `@@ ... @@`, a bare `@@`) gives neither.
pub(super) fn hunk_numbers(rest: &str) -> (Option<usize>, Option<usize>, Option<(usize, usize)>) {
    fn range(s: &str) -> Option<(usize, usize, &str)> {
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let start = s[..digits].parse().ok()?;
        let s = &s[digits..];
        if let Some(s) = s.strip_prefix(',') {
            let d = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            Some((start, s[..d].parse().ok()?, &s[d..]))
        } else {
            Some((start, 1, s))
        }
    }
    fn ranges(rest: &str) -> Option<(usize, usize, usize, usize)> {
        let s = rest.trim_start().strip_prefix('-')?;
        let (a, b, s) = range(s)?;
        let s = s.trim_start().strip_prefix('+')?;
        let (c, d, s) = range(s)?;
        s.trim_start()
            .starts_with(HUNK_HEADER)
            .then_some((a, b, c, d))
    }
    match ranges(rest) {
        Some((a, b, c, d)) => (Some(a), Some(c), Some((b, d))),
        None => (None, None, None),
    }
}
