//! The commit journal: what a batch is about to do, durable before the first rename, so that a
//! crash at any point is repaired by the next lancet command.
//!
//! Recovery is decided by content, not by "where we were": for each path, if it holds the
//! batch's new content it goes back to its pre-image; if it holds the pre-image it stays; anything
//! else was written by someone else and is reported, never overwritten. That rule also makes
//! recovery idempotent (a crash during recovery is repaired by running it again), and it is the
//! same rule used to roll a batch back after an error or a failed test run.

use super::{fsync_dir, sha256_hex};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The state of a path, as far as a batch cares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileState {
    /// Nothing there.
    Missing,
    /// A regular file with this content hash.
    File {
        /// Hex SHA-256 of the content.
        sha256: String,
    },
    /// A symlink to this target.
    Link {
        /// The link's target, as stored.
        target: PathBuf,
    },
}

impl FileState {
    /// What is at `path` now (symlinks are not followed).
    pub fn of(path: &Path) -> FileState {
        match fs::symlink_metadata(path) {
            Err(_) => FileState::Missing,
            Ok(m) if m.file_type().is_symlink() => FileState::Link {
                target: fs::read_link(path).unwrap_or_default(),
            },
            Ok(m) if m.is_file() => FileState::File {
                sha256: fs::read(path).map(|b| sha256_hex(&b)).unwrap_or_default(),
            },
            // A directory or special file is neither pre- nor post-image: a conflict.
            Ok(_) => FileState::Link {
                target: PathBuf::from("<not a file>"),
            },
        }
    }
}

/// One path of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The path relative to the root, for messages.
    pub path: String,
    /// The file system path written.
    pub target: PathBuf,
    /// What was there before the batch.
    pub pre: FileState,
    /// What the batch puts there.
    pub post: FileState,
    /// The temp file holding the new content, beside the target.
    pub temp: Option<PathBuf>,
    /// Where the pre-image is kept while the batch is in flight (a hard link to the original,
    /// or the original itself for a deletion).
    pub backup: Option<PathBuf>,
}

/// Everything recovery needs to undo a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// The batch id.
    pub id: String,
    /// Every path the batch writes, in write order.
    pub entries: Vec<Entry>,
    /// Directories the batch creates, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

/// Why a journal could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading failed.
    #[error("cannot read the journal {path}: {source}")]
    Io {
        /// The journal file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The checksum does not match: the journal is damaged.
    #[error("the journal {path} is damaged (checksum mismatch); it was set aside as {kept}")]
    Damaged {
        /// The journal file.
        path: PathBuf,
        /// Where it was moved.
        kept: PathBuf,
    },
}

impl Journal {
    /// Writes the journal atomically (temp file, fsync, rename, fsync of the directory): the
    /// first line is the SHA-256 of the second, so damage is detected.
    pub fn write(&self, path: &Path, fsync: bool) -> io::Result<()> {
        let body = serde_json::to_string(self).map_err(io::Error::other)?;
        let dir = path
            .parent()
            .ok_or_else(|| io::Error::other("journal has no directory"))?;
        fs::create_dir_all(dir)?;
        let tmp = path.with_extension("json.tmp");
        {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(format!("{}\n{body}\n", sha256_hex(body.as_bytes())).as_bytes())?;
            if fsync {
                f.sync_all()?;
            }
        }
        fs::rename(&tmp, path)?;
        if fsync {
            fsync_dir(dir)?;
        }
        Ok(())
    }

    /// Reads a journal; `Ok(None)` when there is none.
    pub fn read(path: &Path) -> Result<Option<Journal>, JournalError> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(JournalError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let parsed = text.split_once('\n').and_then(|(sum, body)| {
            let body = body.trim_end_matches('\n');
            (sha256_hex(body.as_bytes()) == sum)
                .then(|| serde_json::from_str::<Journal>(body).ok())
                .flatten()
        });
        match parsed {
            Some(j) => Ok(Some(j)),
            None => {
                let kept = path.with_extension("damaged");
                let _ = fs::rename(path, &kept);
                Err(JournalError::Damaged {
                    path: path.to_path_buf(),
                    kept,
                })
            }
        }
    }
}

/// What a rollback did, path by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rollback {
    /// The batch id.
    pub id: String,
    /// Paths put back to their pre-image.
    pub restored: Vec<String>,
    /// Paths that already held their pre-image.
    pub unchanged: Vec<String>,
    /// Paths holding neither the batch's content nor the pre-image: left alone.
    pub conflicts: Vec<String>,
    /// Paths whose restore failed (an I/O error): the journal and the pre-image are kept, so
    /// the next recovery tries again.
    pub failed: Vec<String>,
    /// Pre-images kept for conflicting paths (someone else's content stands; the original is
    /// here if it is wanted).
    pub kept_pre_images: Vec<PathBuf>,
}

impl Rollback {
    /// Whether every path is back to its pre-image.
    pub fn intact(&self) -> bool {
        self.conflicts.is_empty() && self.failed.is_empty()
    }

    /// Whether the rollback finished (nothing left to retry): the journal may go.
    pub fn finished(&self) -> bool {
        self.failed.is_empty()
    }
}

/// Undoes what a journal describes, decided by content (see the module docs). Idempotent.
pub fn roll_back(journal: &Journal, fsync: bool) -> Rollback {
    let mut report = Rollback {
        id: journal.id.clone(),
        ..Default::default()
    };
    for e in journal.entries.iter().rev() {
        let now = FileState::of(&e.target);
        let mut keep_backup = false;
        if now == e.pre {
            report.unchanged.push(e.path.clone());
        } else if now == e.post {
            match crate::failpoint::check("recover").and_then(|()| restore(e)) {
                Ok(()) => report.restored.push(e.path.clone()),
                Err(_) => {
                    report.failed.push(e.path.clone());
                    keep_backup = true;
                }
            }
        } else {
            report.conflicts.push(e.path.clone());
            keep_backup = true;
            if let Some(b) = e.backup.as_ref().filter(|b| b.exists()) {
                report.kept_pre_images.push(b.clone());
            }
        }
        if let Some(temp) = &e.temp {
            let _ = fs::remove_file(temp);
        }
        if let Some(backup) = e.backup.as_ref().filter(|_| !keep_backup) {
            let _ = fs::remove_file(backup);
        }
    }
    for dir in journal.created_dirs.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
    if fsync {
        let mut dirs: Vec<&Path> = journal
            .entries
            .iter()
            .filter_map(|e| e.target.parent())
            .collect();
        dirs.sort();
        dirs.dedup();
        for d in dirs {
            let _ = fsync_dir(d);
        }
    }
    report.restored.reverse();
    report.unchanged.reverse();
    report.conflicts.reverse();
    report.failed.reverse();
    report
}

/// Puts one path back to its pre-image.
fn restore(e: &Entry) -> io::Result<()> {
    match &e.pre {
        FileState::Missing => fs::remove_file(&e.target),
        FileState::File { .. } | FileState::Link { .. } => {
            let backup = e
                .backup
                .as_ref()
                .ok_or_else(|| io::Error::other("no pre-image kept"))?;
            // The backup is the original inode (or a copy of it): renaming it back restores
            // content, mode and ownership at once.
            match fs::rename(backup, &e.target) {
                Ok(()) => Ok(()),
                Err(_) => {
                    let bytes = fs::read(backup)?;
                    let mode = fs::metadata(backup)?.permissions().mode();
                    fs::write(&e.target, bytes)?;
                    fs::set_permissions(&e.target, fs::Permissions::from_mode(mode))?;
                    fs::remove_file(backup)
                }
            }
        }
    }
}
