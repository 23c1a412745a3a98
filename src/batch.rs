//! The batch: what an edit text asks for, as plain data, before anything touches the disk.
//!
//! Every format parser produces a [`Batch`]; everything after parsing consumes one. Paths are
//! kept as written here — they are validated against the root when the batch is staged, so the
//! parsers stay free of file-system access.

use serde::Serialize;

/// The edit formats lancet reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// The Codex `*** Begin Patch` envelope.
    Patch,
}

impl Format {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::Patch => "patch",
        }
    }
}

/// An ordered list of file operations parsed from one edit text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The format the text was read as.
    pub format: Format,
    /// The operations, in the order the text gives them; later ones see earlier ones' results.
    pub ops: Vec<FileOp>,
    /// Leniencies applied while parsing (ignored prose, a stripped fence), for the report.
    pub notes: Vec<String>,
}

/// One operation on one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOp {
    /// The path as written in the edit text.
    pub path: String,
    /// What to do.
    pub kind: OpKind,
    /// 1-based line of the edit text that introduced the operation, for messages.
    pub line: usize,
}

/// The kinds of file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpKind {
    /// Create a file that must not exist yet (identical content counts as already applied).
    Create {
        /// The new file's full content.
        content: String,
    },
    /// Remove a file (a symlink is removed itself, not its target).
    Delete,
    /// Change parts of an existing file, optionally renaming it.
    Update {
        /// The changes, located independently in the file as it was before this operation.
        hunks: Vec<Hunk>,
        /// A new path for the file.
        move_to: Option<String>,
    },
}

/// One located change: replace the block `old` by `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The lines that must be found (context and removed lines), without line endings.
    pub old: Vec<String>,
    /// The lines that replace them (context and added lines), without line endings.
    pub new: Vec<String>,
    /// `@@` header lines, outermost first; each narrows the search to what follows it.
    pub context: Vec<String>,
    /// A 1-based line number the edit claims the hunk starts at; only ever narrows a choice.
    pub line_hint: Option<usize>,
    /// Where the hunk may match.
    pub anchor: Anchor,
    /// 1-based line of the edit text where the hunk starts, for messages.
    pub line: usize,
}

/// Where a hunk is allowed to match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Anywhere in the file.
    Anywhere,
    /// Its last old line must be the file's last line (`*** End of File`).
    EndOfFile,
}
