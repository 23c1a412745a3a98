//! `--at PATH:LINE:COL` as read: the one identifier a rename names by its place.

/// `--at PATH:LINE:COL`, read: the identifier there.
#[derive(Clone)]
pub(super) struct At {
    /// The path, relative to the root.
    pub(super) path: String,
    /// Byte offset of the identifier's first byte.
    pub(super) offset: usize,
    /// The identifier.
    pub(super) name: String,
    /// As the caller wrote it, for messages.
    pub(super) place: String,
}
