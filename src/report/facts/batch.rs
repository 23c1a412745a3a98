//! What a batch's report notes beyond its files, as facts the report words.

use lancet_core::notes::BatchNote;

/// The notes of an applied (or refused) batch beyond its files: what reading the edit text
/// noted, and the files a write gave a copy of their own, splitting their hard links. The
/// pipeline hands them over as they are; the report words them.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchNotes<'a> {
    /// What the parser noted of the edit text (lines it ignored, readings it chose).
    pub parsed: &'a [BatchNote],
    /// The files whose other hard links keep the old content.
    pub split_hard_links: &'a [String],
}
