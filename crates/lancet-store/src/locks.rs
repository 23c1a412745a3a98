//! The locks that make one lancet process at a time the writer of a root: a per-path lock on
//! the root and shared ones on every directory above it (so nested roots serialise and siblings
//! run in parallel), then the state directory's own lock.
//!
//! The per-path lock files live in the user's runtime directory (`$XDG_RUNTIME_DIR/lancet/
//! locks`, else `~/.cache/lancet/locks`), which must be the user's own: owned by the effective
//! user and writable by nobody else, or another user could plant a link there that makes lancet
//! create a file elsewhere. Lock files are opened without following links.

use crate::state::StateDir;
use lancet_core::sha256_hex;
use lancet_core::{BatchFailure, StateTrouble};
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a second lancet process waits for the first one's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(3);

/// An exclusive hold on a root; released when dropped.
#[derive(Debug)]
pub struct RootLock {
    /// The per-path locks (directories above the root, then the root) with their files' names.
    paths: Vec<(File, PathBuf)>,
    /// The state directory's lock.
    state: Option<File>,
}

impl Drop for RootLock {
    fn drop(&mut self) {
        // The per-path lock files stay for the next call (creating and removing them cost a
        // one-file edit a tenth of its time); now and then, the ones nobody holds are swept
        // ([`sweep_released`]) so they do not pile up one per directory ever used.
        let dir = self
            .paths
            .first()
            .and_then(|(_, path)| path.parent().map(Path::to_path_buf));
        self.paths.clear();
        self.state.take();
        if let Some(dir) = dir
            && now_and_then()
        {
            sweep_released(&dir);
        }
    }
}

/// Whether this release is one of the few (about one in [`SWEEP_EVERY`]) that sweeps.
fn now_and_then() -> bool {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    (nanos / 1000).is_multiple_of(SWEEP_EVERY)
}

/// About one release in this many sweeps the lock directory.
const SWEEP_EVERY: u32 = 32;

/// Removes the lock files in `dir` that nobody holds: each taken exclusively first (a holder
/// keeps it), then removed while held; a process that opened it meanwhile finds the name gone
/// and takes a new one ([`lock_path`]).
pub(crate) fn sweep_released(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if let Ok(file) = open_lock_file(&path)
            && file.try_lock().is_ok()
        {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Why the root could not be locked: another process holds it, or the state directory cannot
/// be used at all (read-only, no permission, no space), which waiting would not fix.
#[derive(Debug)]
pub enum LockError {
    /// Another lancet process holds the root.
    Busy {
        /// The lock file.
        path: PathBuf,
    },
    /// The state directory, the lock directory or a lock file cannot be created, opened or
    /// trusted.
    StateDir {
        /// The directory or lock file.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
        /// Where the state lives and what kind of trouble it is.
        trouble: StateTrouble,
    },
}

impl LockError {
    /// The failure as the report tells it (the renderer words it).
    pub fn failure(&self) -> BatchFailure {
        match self {
            LockError::Busy { path } => BatchFailure::Busy {
                lock: path.display().to_string(),
                waited_secs: LOCK_WAIT.as_secs(),
            },
            LockError::StateDir {
                path,
                source,
                trouble,
            } => BatchFailure::StateDir {
                path: path.display().to_string(),
                error: source.to_string(),
                trouble: trouble.clone(),
            },
        }
    }
}

impl StateDir {
    /// Takes the root's lock, waiting up to [`LOCK_WAIT`] for another process to finish: a
    /// shared hold on every directory above the root and an exclusive one on the root itself
    /// (so `lancet -C X` and `lancet -C X/sub` exclude each other, while `X/a` and `X/b` do not),
    /// then the state directory's own lock (roots of one repository share its journal), taken
    /// through the state handle every later state write uses.
    pub fn lock(&self) -> Result<RootLock, LockError> {
        let started = Instant::now();
        let mut held = Vec::new();
        // Components, not text: `home.join("")` would end in a separator and name another lock.
        let root: PathBuf = self.home.join(&self.root_in_home).components().collect();
        if let Some(dir) = path_lock_dir()? {
            let chain: Vec<&Path> = root.ancestors().collect();
            for (i, path) in chain.iter().rev().enumerate() {
                let exclusive = i + 1 == chain.len();
                // Lock files are named by the path they stand for; a directory they cannot be
                // made in (a read-only home) leaves only the state lock, as before.
                let lock_file = dir.join(lock_name(path));
                let opened = match open_lock_file(&lock_file) {
                    Ok(file) => file,
                    // A link planted where a lock file goes is not followed, nor ignored.
                    Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                        return Err(LockError::StateDir {
                            path: lock_file,
                            source: io::Error::other("it is a symlink, not a lock file"),
                            trouble: StateTrouble::LockDir,
                        });
                    }
                    Err(_) => {
                        held.clear();
                        break;
                    }
                };
                let file = lock_path(&lock_file, opened, exclusive, started)
                    .map_err(|()| LockError::Busy { path: root.clone() })?;
                held.push((file, lock_file));
            }
        }
        let state_error = |source| LockError::StateDir {
            path: self.dir.clone(),
            trouble: self.trouble(&source),
            source,
        };
        let handle = self.handle().map_err(state_error)?;
        let file = handle
            .open_with(
                "lock",
                cap_std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true),
            )
            .map_err(state_error)?
            .into_std();
        let path = self.dir.join("lock");
        wait_for(&file, true, started).map_err(|()| LockError::Busy { path })?;
        Ok(RootLock {
            paths: held,
            state: Some(file),
        })
    }
}

/// Locks a per-path lock file that a sweep may remove (`file`, just opened at `path`): after
/// the lock is taken, the name must still lead to the locked file, or the lock belongs to a
/// removed file and is taken again on the new one.
fn lock_path(path: &Path, mut file: File, exclusive: bool, started: Instant) -> Result<File, ()> {
    loop {
        wait_for(&file, exclusive, started)?;
        let held = file.metadata().map_err(|_| ())?;
        if fs::symlink_metadata(path)
            .is_ok_and(|now| now.ino() == held.ino() && now.dev() == held.dev())
        {
            return Ok(file);
        }
        file = open_lock_file(path).map_err(|_| ())?;
    }
}

/// Where the per-path lock files live: the user's runtime directory, else their cache; `None`
/// when it cannot be made (a read-only home: only the state lock is taken, as before), an error
/// when it exists but is not the user's own.
fn path_lock_dir() -> Result<Option<PathBuf>, LockError> {
    let Some(base) = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
    else {
        return Ok(None);
    };
    let dir = base.join("lancet").join("locks");
    if fs::create_dir_all(&dir).is_err() {
        return Ok(None);
    }
    own_private_dir(&dir).map_err(|source| LockError::StateDir {
        path: dir.clone(),
        source,
        trouble: StateTrouble::LockDir,
    })?;
    Ok(Some(dir))
}

/// Checks that a directory (not a link) is owned by the effective user and writable by nobody
/// else.
fn own_private_dir(dir: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() {
        return Err(io::Error::other(
            "the lock directory is not a directory (a link?)",
        ));
    }
    if meta.uid() != me {
        return Err(io::Error::other(format!(
            "the lock directory is owned by uid {}, not by you (uid {me})",
            meta.uid()
        )));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "the lock directory is writable by others (mode {:o})",
            meta.mode() & 0o777
        )));
    }
    Ok(())
}

/// A lock file's name for a directory: a hash of its path (any length, any bytes).
fn lock_name(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    sha256_hex(path.as_os_str().as_bytes())[..32].to_string()
}

/// Opens (creating) a lock file, never through a link.
fn open_lock_file(path: &Path) -> io::Result<File> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Takes a lock, retrying until [`LOCK_WAIT`] after `started`.
fn wait_for(file: &File, exclusive: bool, started: Instant) -> Result<(), ()> {
    loop {
        let got = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match got {
            Ok(()) => return Ok(()),
            Err(_) if started.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(_) => return Err(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_lock_directory_not_the_users_own_is_refused_and_links_are_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("locks");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        assert!(own_private_dir(&dir).is_ok());
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let e = own_private_dir(&dir).unwrap_err();
        assert!(e.to_string().contains("writable by others"), "{e}");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        // A planted link in the lock directory is not followed to create a file elsewhere.
        let elsewhere = tmp.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, dir.join("planted")).unwrap();
        assert!(open_lock_file(&dir.join("planted")).is_err());
        assert!(!elsewhere.exists());
    }

    #[test]
    fn a_sweep_removes_only_the_lock_files_nobody_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let held = tmp.path().join("held");
        let free = tmp.path().join("free");
        let holder = open_lock_file(&held).unwrap();
        holder.try_lock_shared().unwrap();
        drop(open_lock_file(&free).unwrap());
        sweep_released(tmp.path());
        assert!(held.exists(), "a held lock stays");
        assert!(!free.exists(), "a free one goes");
    }
}
