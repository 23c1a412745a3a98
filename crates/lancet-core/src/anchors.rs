//! Line anchors (`LINE:HASH`): a line named by its number and a short hash of its exact bytes.
//! A model addresses lines without copying them (what weaker models get wrong most), and lancet
//! can tell whether the line it names still stands there, moved, or changed since the read that
//! handed the anchor out.

use sha2::{Digest, Sha256};
use std::fmt;

/// Characters of a line hash.
pub const HASH_LEN: usize = 3;

const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// The anchor hash of one line, its bytes without the line ending: 3 base-36 characters.
pub fn line_hash(line: &str) -> String {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let digest = Sha256::digest(line.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    let mut n = u64::from_be_bytes(head) % 36u64.pow(HASH_LEN as u32);
    let mut out = [b'0'; HASH_LEN];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 36) as usize];
        n /= 36;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

/// `LINE:HASH`: a 1-based line number and the hash its line had when it was read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct LineAnchor {
    /// 1-based line number in the read.
    pub line: usize,
    /// [`line_hash`] of the line as read.
    pub hash: String,
}

impl LineAnchor {
    /// Reads `12:a3k`; `None` unless it is a line number ≥ 1, a colon and 3 base-36 characters.
    pub fn parse(text: &str) -> Option<LineAnchor> {
        let (line, hash) = text.trim().split_once(':')?;
        let line: usize = line.parse().ok().filter(|&n| n >= 1)?;
        let valid = hash.len() == HASH_LEN
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase());
        valid.then(|| LineAnchor {
            line,
            hash: hash.to_string(),
        })
    }
}

impl fmt::Display for LineAnchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_three_base36_characters_of_the_bytes_without_the_line_ending() {
        let h = line_hash("    return total");
        assert_eq!(h.len(), 3);
        assert!(h.bytes().all(|b| DIGITS.contains(&b)));
        assert_eq!(line_hash("x\r\n"), line_hash("x"));
        assert_eq!(line_hash("x\n"), line_hash("x"));
        assert_ne!(line_hash("x "), line_hash("x"));
        // Pinned: a change of the hash would invalidate every anchor handed out before.
        assert_eq!(line_hash(""), "3tg");
    }

    #[test]
    fn anchors_parse_strictly() {
        assert_eq!(
            LineAnchor::parse("12:a3k"),
            Some(LineAnchor {
                line: 12,
                hash: "a3k".into()
            })
        );
        for bad in ["0:a3k", "12:A3K", "12:a3", "12:a3kk", "x:a3k", "12a3k"] {
            assert_eq!(LineAnchor::parse(bad), None, "{bad}");
        }
        assert_eq!(LineAnchor::parse("7:0zz").unwrap().to_string(), "7:0zz");
    }
}
