//! Words in bytes: what a name's occurrences are found by before any syntax is read (a byte of
//! an identifier, a whole word), shared by the scan and every reader of text it does not parse.

/// Whether `b` may stand in an identifier (any non-ASCII byte may: a UTF-8 letter's).
pub(super) fn is_word_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80
}

/// Where `word` stands in `bytes` as a whole word (not inside a longer identifier).
pub(super) fn whole_word_offsets(bytes: &[u8], word: &str) -> Vec<usize> {
    memchr::memmem::find_iter(bytes, word.as_bytes())
        .filter(|&at| {
            let after = at + word.len();
            (at == 0 || !is_word_byte(bytes[at - 1]))
                && (after >= bytes.len() || !is_word_byte(bytes[after]))
        })
        .collect()
}
