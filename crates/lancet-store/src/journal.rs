//! The commit journal: what a batch is about to do, durable before the first rename, so that a
//! crash at any point is repaired by the next lancet command.
//!
//! Recovery is decided by content, not by "where we were": for each path, if it holds the
//! batch's new content it goes back to its pre-image; if it holds the pre-image it stays; anything
//! else was written by someone else and is reported, never overwritten. That rule also makes
//! recovery idempotent (a crash during recovery is repaired by running it again), and it is the
//! same rule used to roll a batch back after an error or a failed test run.

use crate::state::{self, StateDir};
use cap_std::fs::Dir;
pub use lancet_core::Rollback;
use lancet_core::failpoint;
use lancet_core::sha256_hex;
use lancet_core::{RelPath, Root};
use serde::{Deserialize, Serialize};

use std::io::{self, Write};
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
    /// What is at `path` (relative to `dir`) now; symlinks are not followed.
    pub fn of(dir: &Dir, path: &str) -> FileState {
        match dir.symlink_metadata(path) {
            Err(_) => FileState::Missing,
            Ok(m) if m.file_type().is_symlink() => FileState::Link {
                target: dir.read_link_contents(path).unwrap_or_default(),
            },
            Ok(m) if m.is_file() => FileState::File {
                sha256: dir.read(path).map(|b| sha256_hex(&b)).unwrap_or_default(),
            },
            // A directory or special file is neither pre- nor post-image: a conflict.
            Ok(_) => FileState::Link {
                target: PathBuf::from("<not a file>"),
            },
        }
    }
}

/// One path of a batch. Every path is relative: recovery resolves them through a handle on the
/// root, never by an absolute name a forged journal could choose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The path written, relative to the root.
    pub path: String,
    /// What was there before the batch.
    pub pre: FileState,
    /// What the batch puts there.
    pub post: FileState,
    /// The temp file holding the new content, beside the target (relative to the root).
    pub temp: Option<String>,
    /// The name under which the pre-image is kept in the state's `pre/` directory while the
    /// batch is in flight (a hard link to the original, or the original itself for a deletion;
    /// a copy for a file written in place).
    pub backup: Option<String>,
    /// Written in place (a file with other hard links): restored in place from the copy, and a
    /// content that is neither image is this batch's torn write, restored too.
    #[serde(default)]
    pub in_place: bool,
}

/// Everything recovery needs to undo a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// The batch id.
    pub id: String,
    /// The root the batch ran on, relative to the state's home (`""`: the home itself).
    pub root: String,
    /// Every path the batch writes, in write order.
    pub entries: Vec<Entry>,
    /// Directories the batch creates, outermost first (relative to the root).
    pub created_dirs: Vec<String>,
    /// Directories the batch removes once emptied (an undo taking back what its batch created),
    /// outermost first; a rollback makes them again before restoring what was in them.
    #[serde(default)]
    pub removed_dirs: Vec<String>,
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
    /// A path in the journal is not a plain relative path under its root: the journal was not
    /// written by lancet. It is set aside untouched, and nothing it names is touched.
    #[error(
        "the journal {path} names {problem}; it was not written by lancet and was set aside as {kept} without touching anything"
    )]
    Rejected {
        /// The journal file.
        path: PathBuf,
        /// Where it was moved.
        kept: PathBuf,
        /// What is wrong with it.
        problem: String,
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
    /// Checks that every path is one lancet would have written: relative, normalised, outside
    /// `.git` and the state directory; backups are plain names.
    pub fn check(&self) -> Result<(), String> {
        let paths = self
            .entries
            .iter()
            .flat_map(|e| std::iter::once(&e.path).chain(&e.temp))
            .chain(&self.created_dirs)
            .chain(&self.removed_dirs);
        for p in paths {
            if RelPath::from_state(p).is_none() {
                return Err(format!("the path {p:?}, which is not inside its root"));
            }
        }
        if !self.root.is_empty() && RelPath::from_state(&self.root).is_none() {
            return Err(format!(
                "the root {:?}, which is not inside its home",
                self.root
            ));
        }
        for b in self.entries.iter().filter_map(|e| e.backup.as_ref()) {
            if RelPath::from_state(b).is_none() || b.contains('/') {
                return Err(format!("the backup {b:?}, which is not a plain name"));
            }
        }
        Ok(())
    }

    /// Arms a batch: writes its journal, which no journal stands beside, straight to its name
    /// and starts its sync on a thread of its own ([`Syncing`]), so the checkpoint is built
    /// while the device works; nothing in the tree is touched before [`Syncing::wait`] returns.
    /// Where the file system logs metadata in order, the file's sync also makes the name durable
    /// (`door/ordered.rs`); elsewhere the directory is synced too, at the same time. A journal
    /// cut short by a crash here fails its checksum: the batch had touched nothing yet, and
    /// recovery sets it aside. Where a journal stands already, [`Journal::write`] (synced
    /// before it returns).
    pub fn arm(&self, state: &StateDir, fsync: bool) -> io::Result<Syncing> {
        let body = serde_json::to_string(self).map_err(io::Error::other)?;
        let dir = state.handle()?;
        let created = dir.open_with(
            crate::state::JOURNAL,
            cap_std::fs::OpenOptions::new().write(true).create_new(true),
        );
        let mut f = match created {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return self.write(state, fsync).map(|()| Syncing::done());
            }
            Err(e) => return Err(e),
        };
        f.write_all(format!("{}\n{body}\n", sha256_hex(body.as_bytes())).as_bytes())?;
        if !fsync {
            return Ok(Syncing::done());
        }
        // (A directory handle may be a path-only descriptor: sync a fresh read one.)
        let parent = match crate::door::ordered::logs_in_order(&f) {
            true => None,
            false => Some(dir.open(".")?),
        };
        Ok(Syncing::start(f, parent))
    }

    /// Writes the journal atomically through the state's handle (temp file, fsync, rename,
    /// fsync of the directory): the first line is the SHA-256 of the second, so damage is
    /// detected. (A journal rewritten while its batch is on disk must never be seen cut
    /// short.)
    pub fn write(&self, state: &StateDir, fsync: bool) -> io::Result<()> {
        let body = serde_json::to_string(self).map_err(io::Error::other)?;
        let dir = state.handle()?;
        {
            let mut f = dir.open_with(
                TEMP,
                cap_std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true),
            )?;
            f.write_all(format!("{}\n{body}\n", sha256_hex(body.as_bytes())).as_bytes())?;
            if fsync {
                f.sync_all()?;
            }
        }
        dir.rename(TEMP, &dir, crate::state::JOURNAL)?;
        if fsync {
            state.fsync()?;
        }
        Ok(())
    }

    /// Reads the journal from the state's handle (`dir` names the state directory in errors);
    /// `Ok(None)` when there is none. A damaged one is set aside.
    pub fn read(state: &Dir, dir: &Path) -> Result<Option<Journal>, JournalError> {
        let path = dir.join(crate::state::JOURNAL);
        let text = match state.read_to_string(crate::state::JOURNAL) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(JournalError::Io { path, source }),
        };
        if cut_short_while_armed(&text) {
            // `arm` writes the journal straight to its name before the batch touches anything:
            // killed mid-write, it leaves a prefix. No file was touched: nothing to recover.
            return match state.remove_file(crate::state::JOURNAL) {
                Ok(()) => Ok(None),
                Err(source) => Err(JournalError::Io { path, source }),
            };
        }
        let parsed = text.split_once('\n').and_then(|(sum, body)| {
            let body = body.trim_end_matches('\n');
            (sha256_hex(body.as_bytes()) == sum)
                .then(|| serde_json::from_str::<Journal>(body).ok())
                .flatten()
        });
        match parsed {
            Some(j) => Ok(Some(j)),
            None => {
                let _ = state.rename(crate::state::JOURNAL, state, DAMAGED);
                Err(JournalError::Damaged {
                    path,
                    kept: dir.join(DAMAGED),
                })
            }
        }
    }
}

/// A journal's sync under way on a thread of its own (see [`Journal::arm`]): waited for once,
/// before anything in the tree is touched.
#[derive(Debug)]
pub struct Syncing(std::sync::Mutex<Option<std::thread::JoinHandle<io::Result<()>>>>);

impl Syncing {
    /// Nothing to wait for (no fsync asked, or the journal synced already).
    fn done() -> Syncing {
        Syncing(std::sync::Mutex::new(None))
    }

    /// Syncs the journal's file, and its directory where given, both at once.
    fn start(file: cap_std::fs::File, dir: Option<cap_std::fs::File>) -> Syncing {
        let handle = std::thread::spawn(move || {
            std::thread::scope(|scope| {
                let parent = dir.map(|dir| {
                    scope.spawn(move || {
                        failpoint::check("fsync_dir")?;
                        dir.sync_all()
                    })
                });
                let own = file.sync_all();
                let parent = parent.map_or(Ok(()), |p| {
                    p.join()
                        .unwrap_or_else(|_| Err(io::Error::other("the sync thread panicked")))
                });
                own.and(parent)
            })
        });
        Syncing(std::sync::Mutex::new(Some(handle)))
    }

    /// Waits until the journal is durable (at once after the first call); its error otherwise.
    pub fn wait(&self) -> io::Result<()> {
        let handle = self
            .0
            .lock()
            .map_err(|_| io::Error::other("the journal's sync was poisoned"))?
            .take();
        match handle {
            None => Ok(()),
            Some(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the journal's sync thread panicked"))),
        }
    }
}

/// Whether a journal's text is a prefix of one that [`Journal::arm`] was writing when the
/// process died: empty, or not ending with the newline that ends every journal, or its
/// checksum line alone. Every later write of a journal is atomic ([`Journal::write`]: temp
/// file, rename), so a complete-looking journal whose checksum fails is damage, never this.
fn cut_short_while_armed(text: &str) -> bool {
    !text.ends_with('\n')
        || text
            .split_once('\n')
            .is_none_or(|(_, body)| body.is_empty())
}

/// The journal being written, before its rename into place.
pub const TEMP: &str = "journal.json.tmp";
/// Where a journal lancet did not write is set aside.
pub const REJECTED: &str = "journal.rejected";
/// Where a damaged journal is set aside.
pub const DAMAGED: &str = "journal.damaged";

impl StateDir {
    /// Repairs a batch interrupted by a crash, if one is recorded. The caller holds the lock.
    /// The journal's paths are re-validated and opened through a handle on the root it names
    /// (inside this state's home): a forged journal is set aside and nothing is touched.
    pub fn recover(&self, fsync: bool) -> Result<Option<Rollback>, JournalError> {
        let path = self.journal_path();
        let state = self.handle().map_err(|source| JournalError::Io {
            path: self.dir.clone(),
            source,
        })?;
        let _ = state.remove_file(TEMP);
        let Some(journal) = Journal::read(&state, &self.dir)? else {
            return Ok(None);
        };
        let refuse = |problem: String| {
            let _ = state.rename(state::JOURNAL, &state, REJECTED);
            JournalError::Rejected {
                path: path.clone(),
                kept: self.dir.join(REJECTED),
                problem,
            }
        };
        journal.check().map_err(refuse)?;
        let root = Root::new(&self.home)
            .and_then(|home| Root::within(&home, &journal.root))
            .map_err(|e| refuse(format!("its root {:?} cannot be opened: {e}", journal.root)))?;
        let pre = self.pre_images().map_err(|source| JournalError::Io {
            path: self.dir.join("pre"),
            source,
        })?;
        let report = crate::door::roll_back(&journal, &root, &pre, fsync);
        if report.finished() {
            // The batch is gone from the log before its journal goes: a crash in between is
            // finished by the next recovery, never leaves a log entry for a batch not on disk.
            self.forget_batch(&journal.id);
            if failpoint::check("recovered").is_err() {
                return Ok(Some(report));
            }
            let _ = state.remove_file(state::JOURNAL);
            if fsync {
                let _ = self.fsync();
            }
        }
        Ok(Some(report))
    }

    /// Removes pre-images no journal refers to: left by a crash after a batch's commit point
    /// (the batch stands, so they are not needed). The caller holds the lock.
    pub fn sweep_orphans(&self) {
        let Ok(state) = self.handle() else {
            return;
        };
        // A journal still being written when its process died describes nothing: it only ever
        // counts once renamed into place.
        let _ = state.remove_file(TEMP);
        if state.exists(state::JOURNAL) {
            return;
        }
        if let Ok(pre) = state.open_dir("pre")
            && let Ok(entries) = pre.entries()
        {
            for e in entries.flatten() {
                let _ = pre.remove_file(e.file_name());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cut_short_while_armed;

    #[test]
    fn a_journal_killed_while_armed_is_told_from_a_damaged_one() {
        let whole = "0123abcd\n{\"id\":\"x\"}\n";
        for cut in 0..whole.len() {
            assert!(cut_short_while_armed(&whole[..cut]), "{:?}", &whole[..cut]);
        }
        assert!(!cut_short_while_armed(whole));
        // A complete journal with a flipped byte is damage: set aside, not removed.
        assert!(!cut_short_while_armed("0123abcd\n{\"id\":\"y\"}\n"));
    }
}
