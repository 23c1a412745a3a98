//! What the MCP session knows of the model's reads where it stops a change: a file the model
//! never read, which a change would replace. Its words are `render/reads.rs`'s.

/// What a change would do to a file the session has not read: the refusal says so, and what
/// would let it through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadChange {
    /// A batch's whole-file write.
    Overwritten,
    /// A batch's delete.
    Deleted,
    /// A batch's move.
    Moved,
    /// `write_file`, which may pass the file's sha256 instead of reading it.
    WrittenWhole,
}
