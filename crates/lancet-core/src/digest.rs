//! Content identity: the SHA-256 every layer names a file version by (reports, `--expect`,
//! journals, splices computed from an earlier read).

use sha2::{Digest, Sha256};

/// The hex SHA-256 of some bytes: the identity of a file version in reports and `--expect`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
