//! The repository checkpoints go to, opened as the state found it and never by a name someone
//! may have swapped since.
//!
//! libgit2 opens a repository by path and cannot take a descriptor. So the private repository
//! (`<state>/git`, outside a git repository) is opened through the state handle's descriptor,
//! `/proc/self/fd/<state>/git`: a `.lancet` swapped for a link since the handle was opened does
//! not lead it elsewhere, and no part of `git/` may be a link. A repository's own git directory
//! (the state is `.git/lancet/`) must still be, once opened, the directory (device, inode)
//! [`StateDir::locate`] found. Either failing refuses the batch (`state_dir`): a checkpoint
//! recorded elsewhere would let an undo restore from, and git write into, a place that is not
//! the person's.

use crate::kept_repository::Lent;
use crate::state::{DirId, StateDir};
use cap_std::fs::{Dir, MetadataExt};
use git2::Repository;
use lancet_core::{BatchFailure, StateTrouble};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Why the repository holding checkpoints cannot be opened.
#[derive(Debug)]
pub enum RepositoryError {
    /// It is not the directory the state names: a link, a directory swapped in since the batch
    /// started, or no way to reach it through the state's handle.
    StateDir {
        /// The repository's directory.
        path: PathBuf,
        /// What is wrong with it.
        source: io::Error,
        /// Where the state lives and what kind of trouble it is.
        trouble: StateTrouble,
    },
    /// git could not open or create it.
    Git(git2::Error),
}

impl RepositoryError {
    /// The failure as the report tells it when checkpoints are to be read (the renderer words
    /// it).
    pub fn failure(&self) -> BatchFailure {
        match self {
            RepositoryError::StateDir {
                path,
                source,
                trouble,
            } => BatchFailure::StateDir {
                path: path.display().to_string(),
                error: source.to_string(),
                trouble: trouble.clone(),
            },
            RepositoryError::Git(e) => BatchFailure::CheckpointsUnreadable {
                error: e.to_string(),
            },
        }
    }
}

impl std::fmt::Display for RepositoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RepositoryError::StateDir { path, source, .. } => {
                write!(f, "{}: {source}", path.display())
            }
            RepositoryError::Git(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RepositoryError {}

impl From<git2::Error> for RepositoryError {
    fn from(e: git2::Error) -> Self {
        RepositoryError::Git(e)
    }
}

impl StateDir {
    /// The repository this state's checkpoints live in: the repository's own (its git
    /// directory as [`StateDir::locate`] found it), else the private one in the state, created
    /// when `create` (else a missing one is an error). Opened once per process and checked
    /// again each time it is lent (the git directory still the one found).
    pub(crate) fn checkpoint_repository(&self, create: bool) -> Result<Lent<'_>, RepositoryError> {
        let repository = match self.repository.take() {
            Some(repository) if self.in_git => {
                self.still_the_one_found(&repository)?;
                repository
            }
            Some(repository) => repository,
            None if self.in_git => self.own_repository()?,
            None => self.private_repository(create)?,
        };
        Ok(self.repository.lend(repository))
    }

    /// Refuses a repository whose git directory is no longer the one [`StateDir::locate`]
    /// found (replaced, or swapped for a link, since).
    fn still_the_one_found(&self, repository: &Repository) -> Result<(), RepositoryError> {
        let git_dir = self.off_limits();
        let refused = |why: String| {
            let source = io::Error::other(why);
            RepositoryError::StateDir {
                path: git_dir.to_path_buf(),
                trouble: self.trouble(&source),
                source,
            }
        };
        let found = self.git_dir.ok_or_else(|| {
            refused("the repository's git directory was not identified when lancet located its state, so it cannot be checked".into())
        })?;
        if identity(repository.path()).ok() != Some(found) {
            return Err(refused(format!(
                "{} is not the git directory found when this command started: it was replaced, or swapped for a link, since; no checkpoint is recorded through it",
                repository.path().display()
            )));
        }
        Ok(())
    }

    fn own_repository(&self) -> Result<Repository, RepositoryError> {
        let repo = Repository::open(self.off_limits())?;
        self.still_the_one_found(&repo)?;
        Ok(repo)
    }

    fn private_repository(&self, create: bool) -> Result<Repository, RepositoryError> {
        let path = self.dir.join("git");
        let refused = |source: io::Error| RepositoryError::StateDir {
            path: path.clone(),
            trouble: self.trouble(&source),
            source,
        };
        let state = self.handle().map_err(refused)?;
        let git = own_subdir(&state, "git", create).map_err(refused)?;
        if let Some(link) = first_link(&git, Path::new("")).map_err(refused)? {
            return Err(refused(io::Error::other(format!(
                "its part {} is a symlink; lancet's checkpoint repository must be real files and directories of its own",
                link.display()
            ))));
        }
        let want = git.dir_metadata().map_err(refused)?;
        let want = (want.dev(), want.ino());
        // The state as its handle holds it, wherever its name leads now.
        let through = PathBuf::from(format!("/proc/self/fd/{}", state.as_raw_fd()));
        if identity(&through.join("git")).ok() != Some(want) {
            return Err(refused(io::Error::other(
                "it cannot be reached through the state's open handle (/proc/self/fd, which lancet needs to open it safely, is missing or differs); pass --no-checkpoint to write without a checkpoint",
            )));
        }
        let through = through.join("git");
        let repo = match Repository::open_bare(&through) {
            Ok(repo) => repo,
            Err(_) if create => Repository::init_bare(&through)?,
            Err(e) => return Err(e.into()),
        };
        if identity(repo.path()).ok() != Some(want) {
            return Err(refused(io::Error::other(
                "it was swapped for another directory while it was being opened; no checkpoint is recorded through it",
            )));
        }
        Ok(repo)
    }
}

/// A directory's device and inode, following links (what a path leads to now).
fn identity(path: &Path) -> io::Result<DirId> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

/// The subdirectory `name` of `dir`, created when missing if `create`; a link there is refused.
fn own_subdir(dir: &Dir, name: &str, create: bool) -> io::Result<Dir> {
    match dir.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(io::Error::other(
                "it is a symlink; lancet's checkpoint repository must be a real directory of its own",
            ));
        }
        Ok(m) if !m.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "it is not a directory",
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound && create => match dir.create_dir(name) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        },
        Err(e) => return Err(e),
    }
    dir.open_dir(name)
}

/// The first symlink under `dir` (its path from `dir`), if any: every entry of every directory,
/// but the loose objects' own (`objects/ab/…`, only ever files, which git writes by temp file
/// and rename and so never through a link): those directories are checked, not opened, so the
/// cost stays that of a few directories however many objects there are.
fn first_link(dir: &Dir, at: &Path) -> io::Result<Option<PathBuf>> {
    for entry in dir.entries()? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = at.join(entry.file_name());
        if kind.is_symlink() {
            return Ok(Some(name));
        }
        if kind.is_dir()
            && !is_loose_objects(&name)
            && let Some(link) = first_link(&entry.open_dir()?, &name)?
        {
            return Ok(Some(link));
        }
    }
    Ok(None)
}

/// Whether `path` (from the repository's directory) is one of `objects/00` … `objects/ff`.
fn is_loose_objects(path: &Path) -> bool {
    path.parent() == Some(Path::new("objects"))
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.len() == 2 && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private_state(dir: &Path) -> StateDir {
        StateDir::new(dir.join(".lancet"), false, dir.to_path_buf(), String::new())
    }

    #[test]
    fn the_private_repository_is_opened_through_the_state_handle() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let state = private_state(tmp.path());
        state.handle().unwrap();
        // Swapped for a link after the handle was opened: the repository is made in the
        // directory the handle holds, nothing outside.
        std::fs::rename(tmp.path().join(".lancet"), tmp.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join(".lancet")).unwrap();
        let repo = state.checkpoint_repository(true).unwrap();
        assert_eq!(
            identity(repo.path()).unwrap(),
            identity(&tmp.path().join("moved/git")).unwrap()
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_link_anywhere_in_the_private_repository_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let state = private_state(tmp.path());
        state.checkpoint_repository(true).unwrap();
        let refs = tmp.path().join(".lancet/git/refs/lancet");
        std::fs::create_dir_all(refs.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(outside.path(), &refs).unwrap();
        let Err(err) = private_state(tmp.path()).checkpoint_repository(false) else {
            panic!("a linked refs/lancet was taken");
        };
        assert!(
            matches!(&err, RepositoryError::StateDir { source, .. } if source.to_string().contains("refs/lancet is a symlink")),
            "{err}"
        );
        // A loose objects' directory too, checked without being opened.
        std::fs::remove_file(&refs).unwrap();
        assert!(
            private_state(tmp.path())
                .checkpoint_repository(false)
                .is_ok()
        );
        let objects = tmp.path().join(".lancet/git/objects/ab");
        std::os::unix::fs::symlink(outside.path(), &objects).unwrap();
        let Err(err) = private_state(tmp.path()).checkpoint_repository(false) else {
            panic!("a linked objects/ab was taken");
        };
        assert!(err.to_string().contains("objects/ab is a symlink"), "{err}");
    }

    #[test]
    fn a_repository_swapped_since_it_was_located_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        Repository::init(tmp.path()).unwrap();
        Repository::init(other.path()).unwrap();
        let root = lancet_core::Root::new(tmp.path()).unwrap();
        let state = StateDir::locate(&root);
        assert!(state.checkpoint_repository(false).is_ok());
        std::fs::rename(tmp.path().join(".git"), tmp.path().join("moved.git")).unwrap();
        std::os::unix::fs::symlink(other.path().join(".git"), tmp.path().join(".git")).unwrap();
        let Err(err) = state.checkpoint_repository(false) else {
            panic!("a swapped .git was taken");
        };
        assert!(
            matches!(&err, RepositoryError::StateDir { source, .. } if source.to_string().contains("not the git directory found")),
            "{err}"
        );
    }
}
