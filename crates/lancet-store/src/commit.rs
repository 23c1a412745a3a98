//! The commit sequence of the crate docs: every target checked against what was staged, the
//! journal, the checkpoint between, then temp files, pre-images and renames up to the commit point.

use crate::durable::{fsync_dir_in, parent_of, write_in_place};
use crate::journal::{self, Entry, FileState, Journal, Rollback};
use crate::state::{self, PreImages, StateDir};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};
use lancet_core::BatchFailure;
use lancet_core::failpoint;
use lancet_core::sha256_hex;
use lancet_core::{Before, StagedFile};
use lancet_core::{RelPath, Root};
use rayon::prelude::*;
use std::io::{self, Write};

/// Options for writing.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// fsync files and directories (off only for throwaway trees).
    pub fsync: bool,
    /// Keep the batch pending after its writes, journal and pre-images in place, until a test
    /// verdict decides its fate ([`release`] or [`roll_back_committed`]): a crash or a kill
    /// while the tests run is rolled back by the next lancet command, as tests never passed.
    pub await_verdict: bool,
}

/// Why a commit did not happen or did not finish.
#[derive(Debug)]
pub enum CommitError {
    /// A target changed between staging and writing; nothing was written.
    Stale {
        /// The path, relative to the root.
        path: String,
    },
    /// The state directory, or the repository checkpoints go to, is not what lancet located
    /// (a link, a directory swapped in since); nothing was written.
    StateDir {
        /// The directory.
        path: String,
        /// What is wrong with it.
        source: io::Error,
    },
    /// An I/O error; `intact` says whether every file was restored.
    Io {
        /// The path being written.
        path: String,
        /// The error.
        source: io::Error,
        /// Whether the rollback restored every file.
        intact: bool,
    },
}

impl CommitError {
    /// The failure as the report tells it (the renderer words it).
    pub fn failure(&self) -> BatchFailure {
        match self {
            CommitError::Stale { path } => BatchFailure::ChangedWhileWriting { path: path.clone() },
            CommitError::StateDir { path, source } => BatchFailure::StateDir {
                path: path.clone(),
                error: source.to_string(),
            },
            CommitError::Io {
                path,
                source,
                intact,
            } => BatchFailure::WriteFailed {
                path: path.clone(),
                error: source.to_string(),
                intact: *intact,
            },
        }
    }
}

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.failure().fmt(f)
    }
}

impl std::error::Error for CommitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommitError::Stale { .. } => None,
            CommitError::StateDir { source, .. } | CommitError::Io { source, .. } => Some(source),
        }
    }
}

/// A batch whose journal is durable and whose files are not written yet: what must happen
/// alongside it (recording the checkpoint) happens now, between [`prepare`] and [`write()`], and
/// is forgotten with the batch if it is abandoned ([`Prepared::abandon`]) or rolled back.
pub struct Prepared<'a> {
    root: &'a Root,
    files: &'a [StagedFile],
    state: &'a StateDir,
    pre: PreImages,
    opts: WriteOptions,
    /// The batch's journal: its paths, hashes, temp and backup names, created directories.
    pub journal: Journal,
}

impl Prepared<'_> {
    /// Gives the batch up before any file is written (its checkpoint could not be recorded):
    /// the journal goes, nothing else was touched.
    pub fn abandon(self) {
        self.state.forget_batch(&self.journal.id);
        if let Ok(state) = self.state.handle() {
            let _ = state.remove_file(state::JOURNAL);
        }
    }
}

/// Steps 1 and 2: checks every target against what was staged (a file changed meanwhile →
/// [`CommitError::Stale`], nothing written) and writes the journal durably. `remove_dirs` are
/// directories to remove once emptied (an undo taking back what its batch created).
pub fn prepare<'a>(
    root: &'a Root,
    files: &'a [StagedFile],
    state: &'a StateDir,
    id: &str,
    opts: WriteOptions,
    remove_dirs: &[String],
) -> Result<Prepared<'a>, CommitError> {
    failpoint::check("verify").map_err(|source| CommitError::Io {
        path: "the batch".into(),
        source,
        intact: true,
    })?;
    if let Some(f) = files.iter().find(|f| !still_matches(root.dir(), f)) {
        return Err(CommitError::Stale {
            path: f.path.to_string(),
        });
    }
    let mut journal = plan(root, files, state, id);
    journal.removed_dirs = remove_dirs.to_vec();
    for d in emptied_dirs(root.dir(), files) {
        if !journal.removed_dirs.contains(&d) {
            journal.removed_dirs.push(d);
        }
    }
    journal.removed_dirs.sort_by_key(|d| d.matches('/').count());
    let io_err = |path: &str, source: io::Error| CommitError::Io {
        path: path.to_string(),
        source,
        intact: true,
    };
    let pre = state
        .pre_images()
        .map_err(|e| io_err("the lancet state directory", e))?;
    if let Err(e) = journal
        .write(state, opts.fsync)
        .and_then(|()| failpoint::check("journal"))
    {
        // Nothing was written yet: the journal (if it got written at all) describes nothing.
        if let Ok(handle) = state.handle() {
            let _ = handle.remove_file(state::JOURNAL);
        }
        return Err(io_err("the journal", e));
    }
    Ok(Prepared {
        root,
        files,
        state,
        pre,
        opts,
        journal,
    })
}

/// Steps 3 to 6: every staged file or none (see the module docs). Returns the batch's journal
/// (whose pre-images still exist when `await_verdict` was asked for).
pub fn write(prepared: Prepared<'_>) -> Result<Journal, CommitError> {
    let Prepared {
        root,
        files,
        state,
        pre,
        opts,
        journal,
    } = prepared;
    let forget = |journal: &Journal| {
        state.forget_batch(&journal.id);
        if let Ok(handle) = state.handle() {
            let _ = handle.remove_file(state::JOURNAL);
        }
    };
    match write_all(root, files, &journal, &pre, state, opts) {
        Ok(()) => {
            if !opts.await_verdict {
                drop_pre_images(&pre, &journal);
            }
            Ok(journal)
        }
        Err(WriteFailure::Stale { path, renamed }) => {
            // The targets renamed so far go back; the rest (the changed one first) were never
            // touched: only lancet's own temp files and pre-images of them go.
            let mut done = journal.clone();
            let rest = Journal {
                entries: done.entries.split_off(renamed),
                created_dirs: Vec::new(),
                ..journal.clone()
            };
            journal::discard(&rest, root, &pre);
            let rollback = journal::roll_back(&done, root, &pre, opts.fsync);
            if rollback.finished() {
                forget(&journal);
            }
            if rollback.intact() {
                Err(CommitError::Stale { path })
            } else {
                Err(CommitError::Io {
                    source: io::Error::other("it changed on disk while the batch was written"),
                    path,
                    intact: false,
                })
            }
        }
        Err(WriteFailure::Io(path, source)) => {
            let rollback = journal::roll_back(&journal, root, &pre, opts.fsync);
            if rollback.finished() {
                forget(&journal);
            }
            Err(CommitError::Io {
                path,
                source,
                intact: rollback.intact(),
            })
        }
    }
}

/// The verdict "keep it" for a batch written with `await_verdict`: the journal goes (the
/// batch's commit point), then the pre-images it kept.
pub fn release(state: &StateDir, journal: &Journal, fsync: bool) -> io::Result<()> {
    failpoint::check("commit")?;
    state.handle()?.remove_file(state::JOURNAL)?;
    if fsync {
        state.fsync()?;
    }
    if let Ok(pre) = state.pre_images() {
        drop_pre_images(&pre, journal);
    }
    Ok(())
}

fn drop_pre_images(pre: &PreImages, journal: &Journal) {
    for e in &journal.entries {
        if let Some(b) = &e.backup {
            let _ = pre.dir.remove_file(b);
        }
    }
}

/// The verdict "take it back" for a batch written with `await_verdict` (a failed or stopped
/// test run): rolled back from its kept pre-images under its journal (written again, in case),
/// so a crash during the rollback is finished by the next lancet command. Paths changed since
/// the batch are left alone and reported, their pre-images kept (see [`Rollback`]).
pub fn roll_back_committed(
    root: &Root,
    state: &StateDir,
    journal: &Journal,
    fsync: bool,
) -> Rollback {
    let _ = journal.write(state, fsync);
    let Ok(pre) = state.pre_images() else {
        // The journal stands: the next lancet command finishes the rollback.
        return Rollback {
            id: journal.id.clone(),
            failed: journal.entries.iter().map(|e| e.path.clone()).collect(),
            ..Default::default()
        };
    };
    let report = journal::roll_back(journal, root, &pre, fsync);
    if report.finished() {
        if let Ok(handle) = state.handle() {
            let _ = handle.remove_file(state::JOURNAL);
        }
        if fsync {
            let _ = state.fsync();
        }
    }
    report
}

/// The journal of a batch: temp and backup names chosen up front, so recovery knows them. Every
/// path is relative (to the root, or for backups to the pre-image directory).
fn plan(root: &Root, files: &[StagedFile], state: &StateDir, id: &str) -> Journal {
    let mut created_dirs: Vec<String> = Vec::new();
    let entries = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let pre = match &f.before {
                Before::Missing => FileState::Missing,
                Before::File { sha256, .. } => FileState::File {
                    sha256: sha256.clone(),
                },
                Before::Link { target } => FileState::Link {
                    target: target.clone(),
                },
            };
            let post = match (&f.after, &f.after_link) {
                (Some(bytes), _) => FileState::File {
                    sha256: sha256_hex(bytes),
                },
                (None, Some(target)) => FileState::Link {
                    target: target.clone(),
                },
                (None, None) => FileState::Missing,
            };
            // A short name of its own, not the target's plus a suffix: a target whose name is
            // near NAME_MAX must still be editable. The journal records it for recovery.
            let temp = (f.puts_something() && !f.in_place).then(|| {
                f.path
                    .with_file_name(&format!(".lancet-{id}-{i}.tmp"))
                    .to_string()
            });
            let backup = (pre != FileState::Missing).then(|| format!("{id}-{i}"));
            if f.puts_something()
                && let Some(parent) = f.path.parent()
            {
                for dir in missing_dirs(root.dir(), &parent) {
                    if !created_dirs.contains(&dir) {
                        created_dirs.push(dir);
                    }
                }
            }
            Entry {
                path: f.path.to_string(),
                pre,
                post,
                temp,
                backup,
                in_place: f.in_place,
            }
        })
        .collect();
    Journal {
        id: id.to_string(),
        root: state.root_in_home.clone(),
        entries,
        created_dirs,
        removed_dirs: Vec::new(),
    }
}

/// How steps 3–6 failed (the caller rolls back).
enum WriteFailure {
    /// A target changed after it was checked: someone wrote it while the batch was in flight.
    /// The entries before `renamed` were already written.
    Stale {
        /// The changed target.
        path: String,
        /// How many entries had been renamed into place.
        renamed: usize,
    },
    /// An I/O error at this path.
    Io(String, io::Error),
}

/// Steps 3–6, every path through the root's handle.
fn write_all(
    root: &Root,
    files: &[StagedFile],
    journal: &Journal,
    pre: &PreImages,
    state: &StateDir,
    opts: WriteOptions,
) -> Result<(), WriteFailure> {
    let dir = root.dir();
    let io = |path: &str| {
        let path = path.to_string();
        move |e| WriteFailure::Io(path, e)
    };
    let mut clock = std::time::Instant::now();
    for d in &journal.created_dirs {
        dir.create_dir(d).map_err(io(d))?;
    }
    // Temp files are independent until renamed: written (and fsynced) in parallel, so the
    // devices' flushes overlap. A failure leaves the others for the rollback to remove.
    files
        .par_iter()
        .zip(&journal.entries)
        .try_for_each(
            |(f, e)| match (f.after.as_deref(), &f.after_link, &e.temp) {
                (Some(bytes), _, Some(temp)) => {
                    write_temp(dir, temp, bytes, f.mode, opts).map_err(io(&e.path))
                }
                (None, Some(target), Some(temp)) => dir.symlink(target, temp).map_err(io(&e.path)),
                _ => Ok(()),
            },
        )?;
    lancet_core::timing::lap("commit: temp files written", &mut clock);
    for (f, e) in files.iter().zip(&journal.entries) {
        if let Some(backup) = e.backup.as_ref().filter(|_| f.puts_something()) {
            keep_pre_image(dir, &e.path, pre, backup, f.in_place).map_err(io(&e.path))?;
        }
    }
    lancet_core::timing::lap("commit: pre-images kept", &mut clock);
    // The last look before the renames: a target written by someone else since staging (while
    // the journal, the checkpoint and the temp files were being written) refuses the batch
    // rather than being overwritten.
    failpoint::check("verify_again").map_err(io("the batch"))?;
    if let Some(f) = files.iter().find(|f| !still_matches(dir, f)) {
        return Err(WriteFailure::Stale {
            path: f.path.to_string(),
            renamed: 0,
        });
    }
    // What each target looked like at that check; looked at again right before its own
    // rename, so the window for an unseen write is one metadata call wide.
    let seen: Vec<Option<Stamp>> = files.iter().map(|f| Stamp::of(dir, &f.path)).collect();
    for (i, (f, e)) in files.iter().zip(&journal.entries).enumerate() {
        // (A file written in place may share its inode with another target of the batch.)
        if !e.in_place && Stamp::of(dir, &f.path) != seen[i] {
            return Err(WriteFailure::Stale {
                path: e.path.clone(),
                renamed: i,
            });
        }
        let step = failpoint::check("rename").and_then(|()| match (&e.temp, &e.backup) {
            (Some(temp), _) => dir.rename(temp, dir, &e.path),
            (None, _) if e.in_place => write_in_place(
                dir,
                &e.path,
                f.after.as_deref().unwrap_or_default(),
                opts.fsync,
            ),
            (None, Some(backup)) => move_aside(dir, &e.path, pre, backup),
            (None, None) => Ok(()),
        });
        step.map_err(io(&e.path))?;
    }
    lancet_core::timing::lap("commit: renamed into place", &mut clock);
    // Directories an undo empties go with it (innermost first; one still holding something
    // stays).
    for d in journal.removed_dirs.iter().rev() {
        let _ = dir.remove_dir(d);
    }
    if opts.fsync {
        let mut dirs: Vec<String> = journal
            .entries
            .iter()
            .map(|e| parent_of(&e.path))
            .chain(journal.created_dirs.iter().map(|d| parent_of(d)))
            .chain(journal.removed_dirs.iter().map(|d| parent_of(d)))
            .collect();
        dirs.sort();
        dirs.dedup();
        // A directory the batch removed (its entries' parent, emptied by an undo) is gone:
        // its own parent holds the change.
        for d in dirs.iter().filter(|d| !journal.removed_dirs.contains(d)) {
            fsync_dir_in(dir, d).map_err(io(d))?;
        }
        pre.fsync().map_err(io("the lancet state directory"))?;
        lancet_core::timing::lap("commit: directories synced", &mut clock);
    }
    if opts.await_verdict {
        return Ok(());
    }
    failpoint::check("commit").map_err(io("the journal"))?;
    state
        .handle()
        .and_then(|h| h.remove_file(state::JOURNAL))
        .map_err(io("the journal"))?;
    if opts.fsync {
        state.fsync().map_err(io("the lancet state directory"))?;
    }
    Ok(())
}

/// A target's identity and version as the file system tells it: inode, size, modification
/// time (a write changes one of them).
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl Stamp {
    fn of(dir: &Dir, path: &RelPath) -> Option<Stamp> {
        use cap_std::fs::MetadataExt;
        let m = dir.symlink_metadata(path.as_path()).ok()?;
        Some(Stamp {
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
        })
    }
}

/// Whether the target still holds what was staged as its pre-image.
fn still_matches(dir: &Dir, f: &StagedFile) -> bool {
    let at = f.path.as_path();
    match &f.before {
        Before::Missing => dir.symlink_metadata(at).is_err(),
        Before::File { sha256, .. } => {
            dir.symlink_metadata(at).is_ok_and(|m| m.is_file())
                && dir.read(at).is_ok_and(|b| sha256_hex(&b) == *sha256)
        }
        Before::Link { target } => dir.read_link_contents(at).is_ok_and(|t| t == *target),
    }
}

/// Creates the temp file (never an existing one), writes the content with the target's mode
/// (or the umask's default for a new file), and fsyncs it.
fn write_temp(
    dir: &Dir,
    temp: &str,
    bytes: &[u8],
    mode: Option<u32>,
    opts: WriteOptions,
) -> io::Result<()> {
    failpoint::check("write")?;
    let mut file = dir.open_with(
        temp,
        OpenOptions::new().write(true).create_new(true).mode(0o666),
    )?;
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    if opts.fsync {
        file.sync_all()?;
    }
    Ok(())
}

/// Keeps the original of a file about to be replaced: a hard link (the same inode, so content,
/// mode and owner come back exactly), or a copy where linking is impossible, or always a copy
/// for a file written in place (its inode is about to change).
fn keep_pre_image(
    dir: &Dir,
    target: &str,
    pre: &PreImages,
    backup: &str,
    in_place: bool,
) -> io::Result<()> {
    failpoint::check("backup")?;
    if !in_place && dir.hard_link(target, &pre.dir, backup).is_ok() {
        return Ok(());
    }
    dir.copy(target, &pre.dir, backup)?;
    pre.dir.open(backup)?.sync_all()
}

/// A deletion: the target moves to its backup (restorable until the commit point).
fn move_aside(dir: &Dir, target: &str, pre: &PreImages, backup: &str) -> io::Result<()> {
    match dir.rename(target, &pre.dir, backup) {
        Ok(()) => Ok(()),
        Err(_) => {
            dir.copy(target, &pre.dir, backup)?;
            pre.dir.open(backup)?.sync_all()?;
            dir.remove_file(target)
        }
    }
}

/// The directories a batch's deletions leave empty (nothing else in them, nothing written into
/// them), outermost first: they go with their last file, as git removes them.
fn emptied_dirs(root: &Dir, files: &[StagedFile]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let deleted: BTreeSet<&str> = files
        .iter()
        .filter(|f| !f.puts_something() && f.before != Before::Missing)
        .map(|f| f.path.as_str())
        .collect();
    let written: Vec<&str> = files
        .iter()
        .filter(|f| f.puts_something())
        .map(|f| f.path.as_str())
        .collect();
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for path in &deleted {
        let mut cur = RelPath::from_state(path).and_then(|p| p.parent());
        while let Some(d) = cur {
            cur = d.parent();
            candidates.insert(d.to_string());
        }
    }
    // Innermost first: a directory is emptied when each of its entries is deleted or is an
    // emptied directory itself.
    let mut emptied: BTreeMap<String, bool> = BTreeMap::new();
    let mut by_depth: Vec<&String> = candidates.iter().collect();
    by_depth.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    for d in by_depth {
        let receives = written.iter().any(|w| {
            w.strip_prefix(d.as_str())
                .is_some_and(|r| r.starts_with('/'))
        });
        let all_go = root.read_dir(d).is_ok_and(|entries| {
            entries.flatten().all(|e| {
                let child = format!("{d}/{}", e.file_name().to_string_lossy());
                deleted.contains(child.as_str()) || emptied.get(&child) == Some(&true)
            })
        });
        emptied.insert(d.clone(), all_go && !receives);
    }
    let mut out: Vec<String> = emptied
        .into_iter()
        .filter(|(_, e)| *e)
        .map(|(d, _)| d)
        .collect();
    out.sort_by_key(|d| d.matches('/').count());
    out
}

/// Ancestors of `dir` (relative to the root) that do not exist yet, outermost first.
fn missing_dirs(root: &Dir, dir: &RelPath) -> Vec<String> {
    let mut missing = Vec::new();
    let mut cur = Some(dir.clone());
    while let Some(d) = cur {
        if root.symlink_metadata(d.as_path()).is_ok() {
            break;
        }
        cur = d.parent();
        missing.push(d.to_string());
    }
    missing.reverse();
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// prepare and write, nothing in between.
    fn commit_all(
        root: &Root,
        files: &[StagedFile],
        state: &StateDir,
        id: &str,
        opts: WriteOptions,
        remove_dirs: &[String],
    ) -> Result<Journal, CommitError> {
        prepare(root, files, state, id, opts, remove_dirs).and_then(write)
    }

    fn staged(root: &Root, rel: &str, before: Before, after: Option<&[u8]>) -> StagedFile {
        StagedFile {
            path: root.rel(rel).unwrap(),
            after_link: None,
            in_place: false,
            before,
            after: after.map(<[u8]>::to_vec),
            mode: None,
        }
    }

    fn file(bytes: &[u8]) -> Before {
        Before::File {
            bytes: bytes.to_vec(),
            sha256: sha256_hex(bytes),
            mode: 0o644,
        }
    }

    #[test]
    fn a_target_changed_since_staging_refuses_the_whole_batch() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "changed by someone else\n").unwrap();
        let files = [
            staged(&root, "a.txt", file(b"a\n"), Some(b"A\n")),
            staged(&root, "b.txt", file(b"b\n"), Some(b"B\n")),
        ];
        let state = StateDir::locate(&root);
        let err = commit_all(
            &root,
            &files,
            &state,
            "t1",
            WriteOptions {
                fsync: false,
                await_verdict: false,
            },
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, CommitError::Stale { ref path } if path == "b.txt"));
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
        let created = [staged(&root, "c.txt", Before::Missing, Some(b"c\n"))];
        std::fs::write(dir.path().join("c.txt"), "appeared meanwhile\n").unwrap();
        assert!(matches!(
            commit_all(
                &root,
                &created,
                &state,
                "t2",
                WriteOptions {
                    fsync: false,
                    await_verdict: false
                },
                &[],
            ),
            Err(CommitError::Stale { .. })
        ));
    }

    #[test]
    fn writes_creates_and_deletes_leaving_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("gone.txt"), "g\n").unwrap();
        let files = [
            staged(&root, "a.txt", file(b"a\n"), Some(b"A\n")),
            staged(&root, "sub/dir/new.txt", Before::Missing, Some(b"n\n")),
            staged(&root, "gone.txt", file(b"g\n"), None),
        ];
        commit_all(
            &root,
            &files,
            &StateDir::locate(&root),
            "t3",
            WriteOptions {
                fsync: true,
                await_verdict: false,
            },
            &[],
        )
        .unwrap();
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"A\n");
        assert_eq!(
            std::fs::read(dir.path().join("sub/dir/new.txt")).unwrap(),
            b"n\n"
        );
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".lancet", "a.txt", "sub"]);
        let leftovers = std::fs::read_dir(dir.path().join(".lancet/pre"))
            .unwrap()
            .count();
        assert_eq!(leftovers, 0, "backups are removed after the commit");
        assert!(!dir.path().join(".lancet/journal.json").exists());
    }
}
