//! The in-memory overlay of the disk that staging works on: one buffer per file (keyed by its
//! real path, loaded on first touch), and the staged files it ends as.

use super::StageError;
use super::hunks::EditContext;
use super::staged::{Before, StagedFile};
use crate::batch::Format;
use crate::digest::sha256_hex;
use crate::failure::{Doing, OpFailure};
use crate::path::{RelPath, Root};
use std::collections::HashMap;
use std::sync::Arc;

/// Refuses an operation on a directory or a special file (only regular files are edited).
pub(super) fn regular_file(entry: &Entry, doing: Doing, rel: &RelPath) -> Result<(), OpFailure> {
    let path = rel.to_string();
    if entry.is_dir {
        return Err(OpFailure::IsDirectory { path, doing });
    }
    if entry.is_special {
        return Err(OpFailure::NotRegular { path, doing });
    }
    Ok(())
}

pub(super) struct Entry {
    pub(super) disk: Before,
    pub(super) is_dir: bool,
    pub(super) is_special: bool,
    /// A regular file with other hard links: written in place, as replacing it by rename would
    /// split them.
    pub(super) hard_linked: bool,
    pub(super) current: Option<Vec<u8>>,
    pub(super) mode: Option<u32>,
    /// For a symlink entry: the batch removes the link itself.
    pub(super) remove_link: bool,
    /// What the model read, when the file changed since: `current` starts from it, and the
    /// result is merged into `disk` once the operations ran.
    pub(super) rebase_from: Option<Arc<Vec<u8>>>,
    /// The last operation that touched the entry (the one a rebase's outcome is reported on).
    pub(super) last_op: usize,
}

pub(super) struct Workspace<'r> {
    pub(super) root: &'r Root,
    /// Files that changed since the model read them, with what it read.
    pub(super) rebases: &'r HashMap<RelPath, Arc<Vec<u8>>>,
    /// Line-anchored operations (by index) no kept read decides, with how many kept reads fit.
    pub(super) unread: &'r HashMap<usize, usize>,
    pub(super) entries: HashMap<RelPath, Entry>,
    /// Keys in the order first touched, with the index of the operation that touched them.
    pub(super) order: Vec<(usize, RelPath)>,
    /// The index of the operation running now.
    pub(super) op: usize,
    pub(super) partial: bool,
    pub(super) format: Format,
}

impl Workspace<'_> {
    /// The settings an Update's hunks are located with.
    pub(super) fn context(&self, partial: bool) -> EditContext {
        EditContext {
            partial,
            format: self.format,
        }
    }

    /// The key under which a path's content lives: its real location relative to the root, so a
    /// symlink and its target share one buffer.
    pub(super) fn key(&self, rel: &RelPath, follow: bool) -> Result<RelPath, StageError> {
        Ok(self.root.resolve(rel, follow)?.real)
    }

    /// The key and entry of a file an operation rewrites: a regular file with no other hard
    /// links (or a missing one, for the operations that create).
    pub(super) fn rewritable(
        &mut self,
        rel: &RelPath,
        doing: Doing,
    ) -> Result<(RelPath, &mut Entry), OpFailure> {
        let key = self.key(rel, true)?;
        let entry = self.entry(&key)?;
        regular_file(entry, doing, rel)?;
        Ok((key, entry))
    }

    pub(super) fn entry(&mut self, key: &RelPath) -> Result<&mut Entry, StageError> {
        if !self.entries.contains_key(key) {
            let dir = self.root.dir();
            let at = key.as_path();
            let io = |source| StageError::Io {
                path: key.to_string(),
                source,
            };
            let meta = dir.symlink_metadata(at);
            let hard_linked = meta
                .as_ref()
                .is_ok_and(|m| m.is_file() && cap_std::fs::MetadataExt::nlink(m) > 1);
            let (disk, is_dir, is_special) = match meta {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    (Before::Missing, false, false)
                }
                Err(e) => return Err(io(e)),
                Ok(m) if m.file_type().is_symlink() => (
                    Before::Link {
                        target: dir.read_link_contents(at).map_err(io)?,
                    },
                    false,
                    false,
                ),
                Ok(m) if m.is_dir() => (Before::Missing, true, false),
                Ok(m) if m.is_file() => {
                    let bytes = crate::sized::read_sized(dir, at, m.len()).map_err(io)?;
                    let sha256 = sha256_hex(&bytes);
                    (
                        Before::File {
                            bytes,
                            sha256,
                            mode: cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o7777,
                        },
                        false,
                        false,
                    )
                }
                Ok(_) => (Before::Missing, false, true),
            };
            let rebase_from = match &disk {
                Before::File { .. } => self.rebases.get(key).cloned(),
                _ => None,
            };
            let (current, mode) = match (&disk, &rebase_from) {
                (Before::File { mode, .. }, Some(read)) => (Some(read.to_vec()), Some(*mode)),
                (Before::File { bytes, mode, .. }, None) => (Some(bytes.clone()), Some(*mode)),
                _ => (None, None),
            };
            self.order.push((self.op, key.clone()));
            self.entries.insert(
                key.clone(),
                Entry {
                    disk,
                    is_dir,
                    is_special,
                    hard_linked,
                    current,
                    mode,
                    remove_link: false,
                    rebase_from,
                    last_op: self.op,
                },
            );
        }
        let entry = self.entries.get_mut(key).expect("inserted above");
        entry.last_op = self.op;
        Ok(entry)
    }

    /// The changed files, each with the index of the operation that first touched it.
    pub(super) fn into_staged(mut self) -> Vec<(usize, StagedFile)> {
        let mut out = Vec::new();
        for (op, key) in self.order {
            let Some(e) = self.entries.remove(&key) else {
                continue;
            };
            let changed = match (&e.disk, &e.current) {
                (Before::File { bytes, .. }, Some(now)) => bytes != now,
                (Before::File { .. }, None) => true,
                (Before::Missing, Some(_)) => true,
                (Before::Missing, None) => false,
                (Before::Link { .. }, Some(_)) => true,
                (Before::Link { .. }, None) => e.remove_link,
            };
            if changed {
                out.push((
                    op,
                    StagedFile {
                        path: key,
                        after_link: None,
                        in_place: e.hard_linked && e.current.is_some(),
                        mode: e.mode.filter(|_| e.current.is_some()),
                        before: e.disk,
                        after: e.current,
                    },
                ));
            }
        }
        out
    }
}
