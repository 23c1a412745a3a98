//! `--at PATH:LINE:COL` as read: the one identifier a rename names by its place.

/// `--at PATH:LINE:COL`, read: the identifier there.
#[derive(Clone)]
pub(crate) struct At {
    /// The path, relative to the root.
    pub(crate) path: String,
    /// Byte offset of the identifier's first byte.
    pub(crate) offset: usize,
    /// The identifier.
    pub(crate) name: String,
    /// As the caller wrote it, for messages.
    pub(crate) place: String,
}
