//! Compare-and-swap on a path: each target replaced only where it still holds exactly the bytes
//! that were judged, compared as late as the file system allows.
//!
//! - The expectation is taken before the bytes are read: the target's stamp (inode, size,
//!   modification time), then its content hashed against the staged pre-image. A write after
//!   the stamp changes the stamp; a write before it changes the hash.
//! - An existing target is swapped with `renameat2(RENAME_EXCHANGE)`: the new file takes its
//!   name in one step, and what came out — whatever stood there at that instant — is compared
//!   with the judged pre-image by content (a save can keep the stamp: same length, and a
//!   modification time restored as `cp -p` does, or repeated where timestamps are coarse). Not
//!   the judged pre-image (a save by rename or in place landed since): exchanged back (a save by
//!   rename over the new file meanwhile is newer, and stays), refused as `stale`. There is no
//!   window for a rename-save.
//! - A new file is put in place with `RENAME_NOREPLACE`: a file created meanwhile refuses it.
//! - A deletion moves the target aside and compares what moved the same way.
//! - Before the pre-image is dropped (the commit point, or a test verdict) the inode that came
//!   out is compared again, its stamp and its content: an in-place write that landed in it
//!   after the swap (an editor holding the file open) is detected and the batch rolled back,
//!   or, after a verdict, its bytes kept and reported — never silently dropped.
//! - Where the file system cannot exchange (overlayfs, NFS: `EINVAL`), each target's stamp is
//!   compared right before a plain rename, and the report says so.

use crate::state::PreImages;
use cap_std::fs::{Dir, MetadataExt};
use lancet_core::sha256_hex;
use lancet_core::sized::read_sized;
use lancet_core::{Before, StagedFile};
use std::io;
use std::os::fd::AsRawFd;

/// A file's version as the file system tells it: which inode, how long, last modified when.
/// (Not the change time: a rename changes it without changing the content.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl Stamp {
    /// The stamp of `path` in `dir` (a link's own), if it exists.
    pub(crate) fn of(dir: &Dir, path: &str) -> Option<Stamp> {
        Some(Stamp::from(&dir.symlink_metadata(path).ok()?))
    }

    fn from(m: &cap_std::fs::Metadata) -> Stamp {
        Stamp {
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
        }
    }
}

/// What a target held when it was judged for the last time: its stamp, taken before its bytes
/// were compared with the staged pre-image. `None`: it did not match (someone wrote it). One
/// look gives the stamp and says whether a regular file is there to read.
pub(crate) fn expectation(dir: &Dir, f: &StagedFile) -> Option<Option<Stamp>> {
    let at = f.path.as_str();
    let look = dir.symlink_metadata(at).ok();
    let stamp = look.as_ref().map(Stamp::from);
    let holds = match (&f.before, &look) {
        (Before::Missing, _) => look.is_none(),
        (Before::File { sha256, .. }, Some(m)) => {
            m.is_file() && read_sized(dir, at, m.len()).is_ok_and(|b| sha256_hex(&b) == *sha256)
        }
        (Before::File { .. }, None) => false,
        (Before::Link { .. }, _) => holds(dir, at, f),
    };
    holds.then_some(stamp)
}

/// Whether `path` holds the judged pre-image of `f`: a regular file with its bytes, or a link
/// to its target. Compared by content, never by stamp alone: a save can keep the stamp (the
/// same length, a modification time restored, or repeated within a coarse timestamp's tick).
fn holds(dir: &Dir, path: &str, f: &StagedFile) -> bool {
    match &f.before {
        Before::Missing => false,
        Before::File { sha256, .. } => holds_file(dir, path, sha256),
        Before::Link { target } => dir.read_link_contents(path).is_ok_and(|t| t == *target),
    }
}

/// Whether `path` is a regular file whose bytes hash to `sha256`.
fn holds_file(dir: &Dir, path: &str, sha256: &str) -> bool {
    dir.symlink_metadata(path).is_ok_and(|m| {
        m.is_file() && read_sized(dir, path, m.len()).is_ok_and(|b| sha256_hex(&b) == sha256)
    })
}

/// Why a swap did not happen.
pub(crate) enum SwapError {
    /// The target is no longer the expected pre-image: someone wrote it (nothing swapped).
    Stale,
    /// An I/O error (nothing swapped).
    Io(io::Error),
}

impl From<io::Error> for SwapError {
    fn from(e: io::Error) -> Self {
        SwapError::Io(e)
    }
}

/// Where the replaced inode of a target is, after its swap: compared again before the
/// pre-image is dropped.
#[derive(Debug, Clone)]
pub(crate) enum Aside {
    /// Beside the target, under the batch's temp name (until its pre-image link is checked).
    Tree(String),
    /// In the pre-image directory, under its backup name.
    Pre(String),
}

/// What a swap replaced: where that inode is now and its stamp at the swap, when an inode was
/// replaced.
#[derive(Debug, Clone)]
pub(crate) struct Swapped {
    pub(crate) aside: Aside,
    pub(crate) stamp: Stamp,
    /// The sha256 of the judged pre-image, for a regular file (a link cannot be written in
    /// place: its stamp says it all).
    pub(crate) judged: Option<String>,
}

/// The sha256 a swapped-out `f` must keep until its pre-image goes.
fn judged(f: &StagedFile) -> Option<String> {
    match &f.before {
        Before::File { sha256, .. } => Some(sha256.clone()),
        Before::Missing | Before::Link { .. } => None,
    }
}

/// Whether the file system can exchange two names atomically; found out on the first try and
/// kept for the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exchange {
    /// Not tried yet, or it worked.
    Atomic,
    /// The file system refused it (or `LANCET_FAILPOINT=no-exchange:1`): stamps are compared
    /// right before plain renames.
    Unsupported,
}

/// Replaces the target `f.path` by the file at `temp` (beside it), only if the target is still
/// the expected pre-image. Returns what was swapped out, if an inode was. The target's directory
/// is opened once, beneath `dir`, and every step of the swap names a single component in it:
/// the few looks, reads and renames of one target do not each resolve its path again.
pub(crate) fn swap_in(
    dir: &Dir,
    f: &StagedFile,
    temp: &str,
    expected: Option<Stamp>,
    exchange: &mut Exchange,
) -> Result<Option<Swapped>, SwapError> {
    let swapped = match (temp.rsplit_once('/'), f.path.as_str().rsplit_once('/')) {
        (Some((temp_dir, temp_name)), Some((target_dir, target_name)))
            if temp_dir == target_dir =>
        {
            let beside = dir.open_dir(temp_dir)?;
            swap_beside(&beside, f, temp_name, target_name, expected, exchange)?
        }
        _ => swap_beside(dir, f, temp, f.path.as_str(), expected, exchange)?,
    };
    // What came out stands under the temp name beside the target: named from the root again.
    Ok(swapped.map(|s| Swapped {
        aside: Aside::Tree(temp.to_string()),
        ..s
    }))
}

/// [`swap_in`] with `temp` and `target` named in `dir` (the target's directory, or the root).
fn swap_beside(
    dir: &Dir,
    f: &StagedFile,
    temp: &str,
    target: &str,
    expected: Option<Stamp>,
    exchange: &mut Exchange,
) -> Result<Option<Swapped>, SwapError> {
    if *exchange == Exchange::Atomic && lancet_core::failpoint::check("no-exchange").is_err() {
        *exchange = Exchange::Unsupported;
    }
    if f.before == Before::Missing {
        return match (
            *exchange,
            rename_with(dir, temp, dir, target, libc::RENAME_NOREPLACE),
        ) {
            (Exchange::Atomic, Ok(())) => Ok(None),
            (Exchange::Atomic, Err(e)) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(SwapError::Stale)
            }
            (Exchange::Atomic, Err(e)) if !unsupported(&e) => Err(e.into()),
            _ => {
                *exchange = Exchange::Unsupported;
                if Stamp::of(dir, target).is_some() {
                    return Err(SwapError::Stale);
                }
                dir.rename(temp, dir, target)?;
                Ok(None)
            }
        };
    }
    if *exchange == Exchange::Atomic {
        let ours = Stamp::of(dir, temp).map(|s| s.ino);
        match rename_with(dir, temp, dir, target, libc::RENAME_EXCHANGE) {
            Ok(()) => {
                lancet_core::failpoint::check("exchanged")?;
                if !holds(dir, temp, f) {
                    take_back(dir, f, temp, target, ours)?;
                    return Err(SwapError::Stale);
                }
                let stamp = Stamp::of(dir, temp).ok_or_else(|| io::Error::other("vanished"))?;
                return Ok(Some(Swapped {
                    aside: Aside::Tree(temp.to_string()),
                    stamp,
                    judged: judged(f),
                }));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(SwapError::Stale),
            Err(e) if !unsupported(&e) => return Err(e.into()),
            Err(_) => *exchange = Exchange::Unsupported,
        }
    }
    if Stamp::of(dir, target) != expected || !holds(dir, target, f) {
        return Err(SwapError::Stale);
    }
    dir.rename(temp, dir, target)?;
    Ok(None)
}

/// Takes a stale swap back: whatever came out goes back where it was, as it was — unless a save
/// landed on the batch's new file while it stood there (what the exchange back brings out is
/// not the batch's file `ours` with the batch's bytes: a save by rename replaced it, or one in
/// place wrote into it): that save is newer than what came out, and is put back in its place.
/// What came out then goes with the temp name, as the save would have replaced it.
fn take_back(
    dir: &Dir,
    f: &StagedFile,
    temp: &str,
    target: &str,
    ours: Option<u64>,
) -> io::Result<()> {
    rename_with(dir, temp, dir, target, libc::RENAME_EXCHANGE)?;
    let untouched = Stamp::of(dir, temp).map(|s| s.ino) == ours
        && f.after.as_deref().is_none_or(|bytes| {
            dir.symlink_metadata(temp).is_ok_and(|m| m.is_file())
                && dir.read(temp).is_ok_and(|now| now == bytes)
        });
    if !untouched {
        rename_with(dir, temp, dir, target, libc::RENAME_EXCHANGE)?;
    }
    Ok(())
}

/// Moves the target of a deletion to its backup in `pre`, only if it is still the expected
/// pre-image (else it is moved back and the batch is stale). Returns what moved.
pub(crate) fn move_aside(
    dir: &Dir,
    f: &StagedFile,
    pre: &PreImages,
    backup: &str,
    expected: Option<Stamp>,
) -> Result<Option<Swapped>, SwapError> {
    let target = f.path.as_str();
    match rename_with(dir, target, &pre.dir, backup, libc::RENAME_NOREPLACE) {
        Ok(()) => {
            if !holds(&pre.dir, backup, f) {
                rename_with(&pre.dir, backup, dir, target, libc::RENAME_NOREPLACE)?;
                return Err(SwapError::Stale);
            }
            let stamp = Stamp::of(&pre.dir, backup).ok_or_else(|| io::Error::other("vanished"))?;
            Ok(Some(Swapped {
                aside: Aside::Pre(backup.to_string()),
                stamp,
                judged: judged(f),
            }))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(SwapError::Stale),
        Err(_) => {
            // Another file system (or no renameat2): copy it aside, compared first.
            if Stamp::of(dir, target) != expected || !holds(dir, target, f) {
                return Err(SwapError::Stale);
            }
            dir.copy(target, &pre.dir, backup)?;
            pre.dir.open(backup)?.sync_all()?;
            dir.remove_file(target)?;
            Ok(None)
        }
    }
}

/// Whether an inode swapped out is as it was at its swap: no in-place write landed in it since
/// (its stamp, and its bytes: a write can keep the stamp).
pub(crate) fn still_as_swapped(dir: &Dir, pre: &PreImages, swapped: &Swapped) -> bool {
    let (at, name) = match &swapped.aside {
        Aside::Tree(name) => (dir, name),
        Aside::Pre(name) => (&pre.dir, name),
    };
    Stamp::of(at, name) == Some(swapped.stamp)
        && swapped
            .judged
            .as_deref()
            .is_none_or(|sha256| holds_file(at, name, sha256))
}

/// Lets the swapped-out inode be found through its pre-image only, where the pre-image is a
/// link to it (the usual case): its temp name beside the target goes. A copied pre-image
/// keeps the temp name until the batch is decided.
pub(crate) fn settle(dir: &Dir, pre: &PreImages, backup: Option<&str>, swapped: &mut Swapped) {
    let Aside::Tree(temp) = &swapped.aside else {
        return;
    };
    let same_inode = backup
        .and_then(|b| Stamp::of(&pre.dir, b))
        .is_some_and(|s| s.ino == swapped.stamp.ino);
    if same_inode
        && let Some(backup) = backup
        && dir.remove_file(temp).is_ok()
    {
        swapped.aside = Aside::Pre(backup.to_string());
    }
}

/// Whether an error says the file system cannot do `renameat2` with these flags.
fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    )
}

/// `renameat2(2)` between two paths under directory handles, each resolved beneath its handle:
/// the parent directories are opened through cap-std (a link leading out fails there), the
/// rename itself names single components.
pub(crate) fn rename_with(
    from_dir: &Dir,
    from: &str,
    to_dir: &Dir,
    to: &str,
    flags: u32,
) -> io::Result<()> {
    let (from_parent, from_name) = split(from_dir, from)?;
    let (to_parent, to_name) = split(to_dir, to)?;
    let from_fd = from_parent.as_ref().unwrap_or(from_dir).as_raw_fd();
    let to_fd = to_parent.as_ref().unwrap_or(to_dir).as_raw_fd();
    // SAFETY: renameat2(2) with NUL-terminated single-component names and descriptors we hold.
    let rc =
        unsafe { libc::renameat2(from_fd, from_name.as_ptr(), to_fd, to_name.as_ptr(), flags) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A relative path as its parent directory (opened beneath `dir`; `None`: `dir` itself) and its
/// last component.
fn split(dir: &Dir, path: &str) -> io::Result<(Option<Dir>, std::ffi::CString)> {
    let (parent, name) = match path.rsplit_once('/') {
        Some((parent, name)) => (Some(dir.open_dir(parent)?), name),
        None => (None, path),
    };
    if name.is_empty() || name == "." || name == ".." {
        return Err(io::Error::other(format!("not a name: {path:?}")));
    }
    Ok((
        parent,
        std::ffi::CString::new(name).map_err(io::Error::other)?,
    ))
}
