//! Durable file-system steps under the root, through its handle: rewriting a file in its own
//! inode, fsyncing a directory, a path's parent. The commit and the journal's rollback both
//! take them.

use cap_std::fs::{Dir, OpenOptions};
use lancet_core::failpoint;
use std::io::{self, Write};

/// The directory holding a root-relative path (`.` for a top-level name).
pub(crate) fn parent_of(path: &str) -> String {
    path.rsplit_once('/')
        .map_or_else(|| ".".to_string(), |(p, _)| p.to_string())
}

/// Rewrites a file's content in its own inode (a file with other hard links: every name sees
/// the new content). Not atomic: the journal's copy of the pre-image covers a torn write.
pub(crate) fn write_in_place(dir: &Dir, target: &str, bytes: &[u8], fsync: bool) -> io::Result<()> {
    let mut file = dir.open_with(target, OpenOptions::new().write(true).truncate(true))?;
    file.write_all(bytes)?;
    if fsync {
        file.sync_all()?;
    }
    Ok(())
}

/// fsyncs a directory under the root, through the root's handle.
pub(crate) fn fsync_dir_in(root: &Dir, dir: &str) -> io::Result<()> {
    failpoint::check("fsync_dir")?;
    root.open(dir)?.sync_all()
}
