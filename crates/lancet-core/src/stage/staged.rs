//! The staged batch's data: what each path held before and what it will hold, computed in
//! memory by staging and consumed by the gate, the checkpoint and the commit.

use crate::path::RelPath;
use std::path::PathBuf;

/// What was at a path before the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// Nothing.
    Missing,
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Their SHA-256, hex.
        sha256: String,
        /// Its permission bits.
        mode: u32,
    },
    /// A symlink (only ever staged for deletion: edits go to the link's target).
    Link {
        /// Where it points.
        target: PathBuf,
    },
}

/// One path's new state, computed in memory and ready to commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedFile {
    /// Where it is, relative to the root, with no symlink on the way (a symlink's target, when
    /// an edit went through a link): the store writes exactly this through the root's handle.
    pub path: RelPath,
    /// What is there now; checked again just before writing.
    pub before: Before,
    /// The new content, or `None` to remove the path (or to put `after_link` there).
    pub after: Option<Vec<u8>>,
    /// Instead of content, a symlink to this target: only an undo writes one, restoring a link
    /// a batch removed or moved.
    pub after_link: Option<PathBuf>,
    /// Permission bits for `after` (copied from the file, or from a move's source); `None` for a
    /// new file, which gets the umask's default.
    pub mode: Option<u32>,
    /// The file has other hard links and its content is rewritten in place (same inode, so
    /// every name sees the edit) instead of replaced by a rename, its pre-image kept as a copy.
    /// Staging sets it for every hard-linked file; the pipeline clears it (the file gets its
    /// own inode) unless the person chose [`HardLinks::InPlace`].
    pub in_place: bool,
}

/// What a write does to a regular file with other hard links (some of which may lie outside
/// the root).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HardLinks {
    /// The file gets its own inode (written by rename, as every file is); its other names keep
    /// the old content. The default: an edit never reaches through a link to a file elsewhere.
    #[default]
    Split,
    /// The content is rewritten in the shared inode: every name sees the edit, also names
    /// outside the root. Only the person's configuration chooses it.
    InPlace,
}

impl HardLinks {
    /// `"split"` or `"in-place"`, as the configuration spells them.
    pub fn parse(value: &str) -> Option<HardLinks> {
        match value {
            "split" => Some(HardLinks::Split),
            "in-place" => Some(HardLinks::InPlace),
            _ => None,
        }
    }
}

impl StagedFile {
    /// Whether something (content or a link) takes the path's place, rather than nothing.
    pub fn puts_something(&self) -> bool {
        self.after.is_some() || self.after_link.is_some()
    }
}
