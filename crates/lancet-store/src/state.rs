//! Where lancet keeps its state for a root, and the one handle every state write goes through.
//!
//! The state directory is `lancet/` in the git directory of the repository holding the root, as
//! git finds it (`discover.rs`: `.git/lancet/`, or `$GIT_DIR/lancet/` for a bare "dotfiles"
//! repository whose work tree `GIT_WORK_TREE` or `core.worktree` names), else `.lancet/` at the
//! root. A state directory inside a work tree (`.lancet/`, or a git directory kept in its own
//! work tree) holds a `.gitignore` of `*`, so `git status` never shows it and `git add -A` never
//! commits it. It is opened once per process, as a capability handle: the journal, the
//! pre-images, the checkpoint log, the ledger and the snapshots are all written through it, so
//! a `.lancet` swapped for a link (or a shipped `.lancet/snapshots` link) mid-batch cannot send a
//! write elsewhere: a path through a link leading out of it fails at the moment of the write.
//! libgit2 opens the checkpoint repository by path: `repository.rs` opens it through this
//! handle's descriptor, or checks it is still the git directory [`StateDir::locate`] found.

use crate::discover::{Found, GitEnv};
use cap_std::fs::{Dir, OpenOptions};
use lancet_core::{Root, StateTrouble};
use std::io;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where lancet keeps its state for a root: inside the git directory of the repository that
/// holds the root (`.git/lancet/`), or `.lancet/` at the root outside any repository.
#[derive(Debug, Clone)]
pub struct StateDir {
    /// The directory.
    pub dir: PathBuf,
    /// Whether it lives in a git repository's directory (else it is `<root>/.lancet`).
    pub in_git: bool,
    /// The directory whose state this is (the work tree, or the root outside git): journals
    /// name their root relative to it, and recovery never leaves it.
    pub home: PathBuf,
    /// The root relative to `home` (`""` when they are the same).
    pub root_in_home: String,
    /// The handle on `dir`, opened at the first write and kept for the process.
    handle: Arc<Mutex<Option<Arc<Dir>>>>,
    /// In a repository, its git directory as [`StateDir::locate`] found it: the checkpoint
    /// repository must still be that directory when it is opened.
    pub(crate) git_dir: Option<DirId>,
    /// Why the state cannot be used at all (a setup git itself refuses): every write through
    /// the handle fails with it.
    refusal: Option<String>,
    /// The checkpoint repository, opened once for the process (opening one reads three config
    /// files: a tenth of a one-file edit) and checked again each time it is taken.
    pub(crate) repository: crate::kept_repository::Kept,
}

/// A directory's identity: its device and inode.
pub(crate) type DirId = (u64, u64);

impl PartialEq for StateDir {
    fn eq(&self, other: &Self) -> bool {
        (&self.dir, self.in_git, &self.home, &self.root_in_home)
            == (&other.dir, other.in_git, &other.home, &other.root_in_home)
    }
}

impl Eq for StateDir {}

/// The parts of the state directory, each refused when it is a symlink (lancet reaches its own
/// state by name only).
pub const PARTS: [&str; 14] = [
    "pre",
    "kept",
    "git",
    "checkpoints",
    "snapshots",
    "lock",
    "journal.json",
    "journal.json.tmp",
    "ledger.jsonl",
    "retention.jsonl",
    "snapshots.index",
    "packs",
    "packs.tmp",
    "checkpoints.tally",
];

/// The journal's name in the state directory.
pub const JOURNAL: &str = "journal.json";

/// The `.gitignore` a state directory inside a work tree holds: everything in it is lancet's.
const IGNORE_ALL: &str =
    "# lancet's state (journal, checkpoints, undo history): not part of the project\n*\n";

impl StateDir {
    /// The state of `dir`, for a root `root_in_home` below `home`.
    pub fn new(dir: PathBuf, in_git: bool, home: PathBuf, root_in_home: String) -> StateDir {
        StateDir {
            dir,
            in_git,
            home,
            root_in_home,
            handle: Arc::default(),
            git_dir: None,
            refusal: None,
            repository: crate::kept_repository::Kept::default(),
        }
    }

    /// Finds the state directory for a root (creating nothing): in the git directory of the
    /// repository holding it, found as git finds it with this process's environment, else
    /// `.lancet/` at the root.
    pub fn locate(root: &Root) -> StateDir {
        StateDir::locate_with(root, &GitEnv::of_process())
    }

    pub(crate) fn locate_with(root: &Root, env: &GitEnv) -> StateDir {
        let at_root = || {
            StateDir::new(
                root.path().join(".lancet"),
                false,
                root.path().to_path_buf(),
                String::new(),
            )
        };
        let (found, opened) = crate::discover::found_and_opened(root.path(), env);
        match found {
            Found::Repository { git_dir, work_tree } => {
                let Some(root_in_home) = root.relative_to(&work_tree) else {
                    return at_root();
                };
                let id = std::fs::metadata(&git_dir).ok().map(|m| (m.dev(), m.ino()));
                StateDir {
                    git_dir: id,
                    repository: crate::kept_repository::Kept::new(opened),
                    ..StateDir::new(git_dir.join("lancet"), true, work_tree, root_in_home)
                }
            }
            Found::Nothing => at_root(),
            Found::Refused { git_dir, why } => StateDir {
                refusal: Some(why),
                ..StateDir::new(
                    git_dir.join("lancet"),
                    true,
                    root.path().to_path_buf(),
                    String::new(),
                )
            },
        }
    }

    /// What no batch may write: the state directory, and in a repository its whole git
    /// directory, which may lie inside the root (`GIT_DIR=~/.dotfiles`, work tree `~`).
    pub fn off_limits(&self) -> &Path {
        match self.dir.parent() {
            Some(git_dir) if self.in_git => git_dir,
            _ => &self.dir,
        }
    }

    /// Whether the state directory lies where git would show it unless told not to:
    /// `.lancet/` always (an enclosing repository lancet does not find, a dotfiles work tree
    /// without the variables), a git directory only when kept in its own work tree under a name
    /// other than `.git` (which git never shows).
    fn in_work_tree(&self) -> bool {
        !self.in_git
            || self.dir.strip_prefix(&self.home).is_ok_and(|inside| {
                !inside
                    .components()
                    .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
            })
    }

    /// What kept lancet from its state when the handle or a state write failed with `error`:
    /// a setup git refuses, the file system refusing writes where the state lives, or else.
    pub fn trouble(&self, error: &io::Error) -> StateTrouble {
        if self.refusal.is_some() {
            return StateTrouble::Misconfigured;
        }
        if !matches!(
            error.kind(),
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
        ) {
            return StateTrouble::Other;
        }
        if self.in_git {
            StateTrouble::GitDirUnwritable {
                git_dir: self.off_limits().display().to_string(),
            }
        } else {
            StateTrouble::RootUnwritable
        }
    }

    /// The journal of the batch in flight, for messages and for a look whether there is one.
    pub fn journal_path(&self) -> PathBuf {
        self.dir.join(JOURNAL)
    }

    /// The handle every state write goes through: the state directory, created if missing and
    /// opened once (a link there is refused), then the same handle for the process.
    pub fn handle(&self) -> io::Result<Arc<Dir>> {
        let mut held = self
            .handle
            .lock()
            .map_err(|_| io::Error::other("the state handle's lock is poisoned"))?;
        if let Some(dir) = held.as_ref() {
            return Ok(Arc::clone(dir));
        }
        let dir = Arc::new(self.open()?);
        *held = Some(Arc::clone(&dir));
        Ok(dir)
    }

    fn open(&self) -> io::Result<Dir> {
        if let Some(why) = &self.refusal {
            return Err(io::Error::other(why.clone()));
        }
        let (Some(parent), Some(name)) = (self.dir.parent(), self.dir.file_name()) else {
            return Err(io::Error::other("the state directory has no parent"));
        };
        let parent = Dir::open_ambient_dir(parent, cap_std::ambient_authority())?;
        let created = match parent.symlink_metadata(name) {
            Ok(m) if m.file_type().is_symlink() => return Err(link_refused()),
            Ok(m) if !m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "it is not a directory",
                ));
            }
            Ok(_) => false,
            Err(e) if e.kind() == io::ErrorKind::NotFound => match parent.create_dir(name) {
                Ok(()) => true,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let dir = parent.open_dir(name)?;
        if self.in_work_tree() {
            match ignore_all(&dir) {
                // A directory made now must not show in `git status`; one made by an older
                // lancet gets its `.gitignore` whenever it can (a read-only one is still read).
                Err(e) if created => return Err(e),
                _ => {}
            }
        }
        for part in PARTS {
            if dir
                .symlink_metadata(part)
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                return Err(io::Error::other(format!(
                    "its part {part} is a symlink; lancet's state must be real files and directories of its own"
                )));
            }
        }
        Ok(dir)
    }

    /// A subdirectory of the state (created if missing), through the handle.
    pub fn subdir(&self, name: &str) -> io::Result<Dir> {
        let handle = self.handle()?;
        handle.create_dir_all(name)?;
        handle.open_dir(name)
    }

    /// fsyncs the state directory itself, so a rename or removal in it is durable.
    pub fn fsync(&self) -> io::Result<()> {
        lancet_core::failpoint::check("fsync_dir")?;
        // (A directory handle may be a path-only descriptor: fsync a fresh read one.)
        self.handle()?.open(".")?.sync_all()
    }

    /// Opens (creating it if needed) the directory pre-images are kept in.
    pub fn pre_images(&self) -> io::Result<PreImages> {
        Ok(PreImages {
            dir: self.subdir("pre")?,
            state: self.handle()?,
            path: self.dir.join("pre"),
        })
    }
}

/// Writes the state directory's `.gitignore` of `*` unless an entry of that name stands there
/// (created exclusively: never through a link, never over the person's own).
fn ignore_all(dir: &Dir) -> io::Result<()> {
    match dir.open_with(
        ".gitignore",
        OpenOptions::new().write(true).create_new(true),
    ) {
        Ok(mut file) => file.write_all(IGNORE_ALL.as_bytes()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

fn link_refused() -> io::Error {
    io::Error::other("it is a symlink; lancet's state must be a real directory of its own")
}

/// The directory pre-images are kept in while a batch is in flight: a handle for the writes and
/// its name for messages.
pub struct PreImages {
    pub(crate) dir: Dir,
    state: Arc<Dir>,
    pub(crate) path: PathBuf,
}

impl PreImages {
    /// Keeps a pre-image past the batch, for a path someone else changed during it: moved out
    /// of `pre/` (which is swept) into `kept/`, where a person or `undo --force` finds it.
    /// Returns where it now is.
    pub fn keep(&self, name: &str) -> Option<PathBuf> {
        self.state.create_dir_all("kept").ok()?;
        let kept = self.state.open_dir("kept").ok()?;
        self.dir.rename(name, &kept, name).ok()?;
        Some(
            self.path
                .parent()
                .unwrap_or(Path::new("."))
                .join("kept")
                .join(name),
        )
    }

    /// fsyncs the pre-image directory.
    pub(crate) fn fsync(&self) -> io::Result<()> {
        lancet_core::failpoint::check("fsync_dir")?;
        self.dir.open(".")?.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_state_directory_or_part_is_refused_and_the_handle_stays_put() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join(".lancet")).unwrap();
        let state = StateDir::new(
            tmp.path().join(".lancet"),
            false,
            tmp.path().to_path_buf(),
            String::new(),
        );
        assert!(state.handle().is_err());
        std::fs::remove_file(tmp.path().join(".lancet")).unwrap();
        std::fs::create_dir(tmp.path().join(".lancet")).unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join(".lancet/snapshots")).unwrap();
        assert!(state.handle().is_err(), "a linked part");
        std::fs::remove_file(tmp.path().join(".lancet/snapshots")).unwrap();
        let handle = state.handle().unwrap();
        // Swapped for a link after opening: writes still land in the directory opened.
        std::fs::rename(tmp.path().join(".lancet"), tmp.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join(".lancet")).unwrap();
        state.handle().unwrap().write("x", "x").unwrap();
        assert!(tmp.path().join("moved/x").exists());
        assert!(!outside.path().join("x").exists());
        drop(handle);
    }
}
