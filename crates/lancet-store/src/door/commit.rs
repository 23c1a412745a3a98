//! The commit sequence of the crate docs: every target checked against what was staged, the
//! journal, the checkpoint between, then temp files, pre-images and renames up to the commit point.

use super::durable::{fsync_dir_in, parent_of, sync_together, write_in_place};
use super::files::{emptied_dirs, keep_pre_image, missing_dirs, write_temp};
use super::rollback::{discard, roll_back};
use super::swap::{self, Exchange, Stamp, SwapError, Swapped};
use super::{Admitted, lookalike};
use crate::journal::{Entry, FileState, Journal, Rollback, Syncing};
use crate::state::{self, PreImages, StateDir};
use cap_std::fs::{Dir, File};
use lancet_core::Root;
use lancet_core::failpoint;
use lancet_core::sha256_hex;
use lancet_core::{BatchFailure, StateTrouble};
use lancet_core::{Before, StagedFile};
use rayon::prelude::*;
use std::io;

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
    /// The door's last look before the renames refused the batch (the tree changed since it
    /// was admitted); nothing was written.
    Refused(BatchFailure),
    /// The state directory, or the repository checkpoints go to, is not what lancet located
    /// (a link, a directory swapped in since); nothing was written.
    StateDir {
        /// The directory.
        path: String,
        /// What is wrong with it.
        source: io::Error,
        /// Where the state lives and what kind of trouble it is.
        trouble: StateTrouble,
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
            CommitError::Refused(failure) => failure.clone(),
            CommitError::StateDir {
                path,
                source,
                trouble,
            } => BatchFailure::StateDir {
                path: path.clone(),
                error: source.to_string(),
                trouble: trouble.clone(),
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
    /// The journal's sync, under way while the checkpoint is built.
    syncing: Syncing,
}

impl Prepared<'_> {
    /// Waits until the journal is durable: before the checkpoint is recorded (its ref and log
    /// entry) and before the first file is written. An error gives the batch up ([`abandon`]).
    ///
    /// [`abandon`]: Prepared::abandon
    pub fn journal_durable(&self) -> Result<(), CommitError> {
        self.syncing.wait().map_err(|source| CommitError::Io {
            path: "the journal".into(),
            source,
            intact: true,
        })
    }

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
/// directories to remove once emptied (an undo taking back what its batch created). Takes the
/// door's token: only an admitted change is written.
pub fn prepare<'a>(
    admitted: &'a Admitted<'a>,
    state: &'a StateDir,
    id: &str,
    opts: WriteOptions,
    remove_dirs: &[String],
) -> Result<Prepared<'a>, CommitError> {
    let (root, files) = (admitted.root, admitted.files.as_slice());
    failpoint::check("verify").map_err(|source| CommitError::Io {
        path: "the batch".into(),
        source,
        intact: true,
    })?;
    if let Some(f) = files
        .iter()
        .find(|f| swap::expectation(root.dir(), f).is_none())
    {
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
    let armed = journal.arm(state, opts.fsync).and_then(|syncing| {
        if let Err(e) = failpoint::check("journal") {
            let _ = syncing.wait();
            return Err(e);
        }
        Ok(syncing)
    });
    let syncing = match armed {
        Ok(syncing) => syncing,
        Err(e) => {
            // Nothing was written yet: the journal (if it got written at all) describes
            // nothing.
            if let Ok(handle) = state.handle() {
                let _ = handle.remove_file(state::JOURNAL);
            }
            return Err(io_err("the journal", e));
        }
    };
    Ok(Prepared {
        root,
        files,
        state,
        pre,
        opts,
        journal,
        syncing,
    })
}

/// A batch on disk, as the door wrote it: what a verdict keeps ([`release`]) or takes back
/// ([`roll_back_committed`]).
#[derive(Debug, Clone)]
pub struct Written {
    journal: Journal,
    /// Per entry, the inode its write swapped out (compared again before its pre-image goes).
    swapped: Vec<Option<Swapped>>,
    exchange: Exchange,
}

impl Written {
    /// The batch's journal (its paths, hashes and kept pre-images).
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Whether the file system could not exchange files atomically, so each target's stamp
    /// was compared right before a plain rename instead (a save landing in that instant could
    /// slip past): the report says so.
    pub fn exchange_unsupported(&self) -> bool {
        self.exchange == Exchange::Unsupported
    }
}

/// A write that landed, in place, in a file a batch had already replaced (an editor holding it
/// open): its bytes are not in the tree, so they are kept and reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateWrite {
    /// The path, relative to the root.
    pub path: String,
    /// Where its bytes are kept (in the state's `kept/`).
    pub kept: std::path::PathBuf,
}

/// Steps 3 to 6: every staged file or none (see the module docs). Returns the batch as written
/// (its pre-images still exist when `await_verdict` was asked for).
pub fn write(prepared: Prepared<'_>) -> Result<Written, CommitError> {
    if let Err(e) = prepared.journal_durable() {
        prepared.abandon();
        return Err(e);
    }
    let Prepared {
        root,
        files,
        state,
        pre,
        opts,
        journal,
        syncing: _,
    } = prepared;
    let forget = |journal: &Journal| {
        state.forget_batch(&journal.id);
        if let Ok(handle) = state.handle() {
            let _ = handle.remove_file(state::JOURNAL);
        }
    };
    match write_all(root, files, &journal, &pre, state, opts) {
        Ok((swapped, exchange)) => {
            if !opts.await_verdict {
                drop_pre_images(&pre, &journal);
            }
            Ok(Written {
                journal,
                swapped,
                exchange,
            })
        }
        Err(WriteFailure::Refused(failure)) => {
            discard(&journal, root, &pre);
            forget(&journal);
            Err(CommitError::Refused(failure))
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
            discard(&rest, root, &pre);
            let rollback = roll_back(&done, root, &pre, opts.fsync);
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
            let rollback = roll_back(&journal, root, &pre, opts.fsync);
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
/// batch's commit point), then the pre-images it kept. A write that landed in place, since the
/// batch's swap, in a file the batch replaced keeps its bytes (in `kept/`) and is returned, to
/// be reported.
pub fn release(
    root: &Root,
    state: &StateDir,
    written: &Written,
    fsync: bool,
) -> io::Result<Vec<LateWrite>> {
    let journal = &written.journal;
    failpoint::check("commit")?;
    let pre = state.pre_images()?;
    let mut late = Vec::new();
    for (e, swapped) in journal.entries.iter().zip(&written.swapped) {
        let Some(swapped) = swapped else {
            continue;
        };
        if !swap::still_as_swapped(root.dir(), &pre, swapped)
            && let Some(kept) = e.backup.as_deref().and_then(|b| pre.keep(b))
        {
            late.push(LateWrite {
                path: e.path.clone(),
                kept,
            });
        }
        if let (swap::Aside::Tree(temp), Some(_)) = (&swapped.aside, &e.temp) {
            let _ = root.dir().remove_file(temp);
        }
    }
    state.handle()?.remove_file(state::JOURNAL)?;
    if fsync {
        state.fsync()?;
    }
    drop_pre_images(&pre, journal);
    Ok(late)
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
    written: &Written,
    fsync: bool,
) -> Rollback {
    let journal = &written.journal;
    let _ = journal.write(state, fsync);
    let Ok(pre) = state.pre_images() else {
        // The journal stands: the next lancet command finishes the rollback.
        return Rollback {
            id: journal.id.clone(),
            failed: journal.entries.iter().map(|e| e.path.clone()).collect(),
            ..Default::default()
        };
    };
    let report = roll_back(journal, root, &pre, fsync);
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
    /// The door's last look found the tree changed so that the batch would now complete a
    /// repository lookalike; nothing was renamed.
    Refused(BatchFailure),
    /// An I/O error at this path.
    Io(String, io::Error),
}

/// The maker of an I/O failure at a path.
fn io_at(path: &str) -> impl FnOnce(io::Error) -> WriteFailure {
    let path = path.to_string();
    move |e| WriteFailure::Io(path, e)
}

/// Steps 3–6, every path through the root's handle: the files readied beside their targets,
/// each target judged a last time, swapped in, and the batch finished.
fn write_all(
    root: &Root,
    files: &[StagedFile],
    journal: &Journal,
    pre: &PreImages,
    state: &StateDir,
    opts: WriteOptions,
) -> Result<(Vec<Option<Swapped>>, Exchange), WriteFailure> {
    ready(root.dir(), files, journal, pre, opts)?;
    let expected = judge(root, files)?;
    let (swapped, exchange) = swap_all(root.dir(), files, journal, pre, &expected, opts)?;
    finish(root.dir(), journal, pre, state, &swapped, opts)?;
    Ok((swapped, exchange))
}

/// Steps 3 and 4: the directories the batch creates, every temp file (written in parallel, then
/// made durable together) and every pre-image.
fn ready(
    dir: &Dir,
    files: &[StagedFile],
    journal: &Journal,
    pre: &PreImages,
    opts: WriteOptions,
) -> Result<(), WriteFailure> {
    let mut clock = std::time::Instant::now();
    for d in &journal.created_dirs {
        dir.create_dir(d).map_err(io_at(d))?;
    }
    // Every temp file of a chunk is written, then their contents made durable together
    // (`sync_together`); a chunk at a time, so a large batch holds few descriptors open. A
    // failure leaves the other temp files for the rollback to remove.
    let temp = |(f, e): (&StagedFile, &Entry)| match (f.after.as_deref(), &f.after_link, &e.temp) {
        (Some(bytes), _, Some(temp)) => write_temp(dir, temp, bytes, f.mode)
            .map(Some)
            .map_err(io_at(&e.path)),
        (None, Some(target), Some(temp)) => dir
            .symlink(target, temp)
            .map(|()| None)
            .map_err(io_at(&e.path)),
        _ => Ok(None),
    };
    for (chunk, entries) in files
        .chunks(TEMPS_AT_ONCE)
        .zip(journal.entries.chunks(TEMPS_AT_ONCE))
    {
        // One file: no thread pool is worth starting for it.
        let written: Vec<Option<File>> = if chunk.len() < 2 {
            chunk
                .iter()
                .zip(entries)
                .map(temp)
                .collect::<Result<_, _>>()?
        } else {
            chunk
                .par_iter()
                .zip(entries)
                .map(temp)
                .collect::<Result<_, _>>()?
        };
        let (paths, written): (Vec<&str>, Vec<File>) = entries
            .iter()
            .zip(written)
            .filter_map(|(e, file)| Some((e.path.as_str(), file?)))
            .unzip();
        lancet_core::timing::lap("commit: temp files written", &mut clock);
        if written.is_empty() {
            continue;
        }
        failpoint::check("sync_temps").map_err(io_at("the batch"))?;
        if opts.fsync {
            sync_together(&written).map_err(|(i, e)| WriteFailure::Io(paths[i].to_string(), e))?;
            lancet_core::timing::lap("commit: temp files synced", &mut clock);
        }
    }
    for (f, e) in files.iter().zip(&journal.entries) {
        if let Some(backup) = e.backup.as_ref().filter(|_| f.puts_something()) {
            keep_pre_image(dir, &e.path, pre, backup, f.in_place).map_err(io_at(&e.path))?;
        }
    }
    lancet_core::timing::lap("commit: pre-images kept", &mut clock);
    Ok(())
}

/// The last look before the swaps: a target written by someone else since staging (while the
/// journal, the checkpoint and the temp files were being written) refuses the batch rather
/// than being overwritten. Each expectation is the target's stamp, taken before its bytes are
/// compared; the lookalike check runs again on the tree as it is now.
fn judge(root: &Root, files: &[StagedFile]) -> Result<Vec<Option<Stamp>>, WriteFailure> {
    failpoint::check("verify_again").map_err(io_at("the batch"))?;
    let mut expected: Vec<Option<Stamp>> = Vec::with_capacity(files.len());
    for f in files {
        let Some(stamp) = swap::expectation(root.dir(), f) else {
            return Err(WriteFailure::Stale {
                path: f.path.to_string(),
                renamed: 0,
            });
        };
        expected.push(stamp);
        failpoint::check("judged").map_err(io_at(f.path.as_str()))?;
    }
    if let Some(found) = lookalike::judge(root, &super::touches(files)) {
        return Err(WriteFailure::Refused(BatchFailure::RepositoryLookalike {
            dir: found.dir,
            into: found.into,
        }));
    }
    Ok(expected)
}

/// Step 5: each target swapped in only where it is still what was judged ([`swap`]).
fn swap_all(
    dir: &Dir,
    files: &[StagedFile],
    journal: &Journal,
    pre: &PreImages,
    expected: &[Option<Stamp>],
    opts: WriteOptions,
) -> Result<(Vec<Option<Swapped>>, Exchange), WriteFailure> {
    let mut clock = std::time::Instant::now();
    let mut exchange = Exchange::Atomic;
    let mut swapped: Vec<Option<Swapped>> = vec![None; files.len()];
    for (i, (f, e)) in files.iter().zip(&journal.entries).enumerate() {
        failpoint::check("rename").map_err(io_at(&e.path))?;
        let step = match (&e.temp, &e.backup) {
            (Some(temp), _) => swap::swap_in(dir, f, temp, expected[i], &mut exchange),
            // Written in place: no swap can carry it (it may also share its inode with another
            // target of the batch); judged at the last look.
            (None, _) if e.in_place => write_in_place(
                dir,
                &e.path,
                f.after.as_deref().unwrap_or_default(),
                opts.fsync,
            )
            .map(|()| None)
            .map_err(SwapError::Io),
            (None, Some(backup)) => swap::move_aside(dir, f, pre, backup, expected[i]),
            (None, None) => Ok(None),
        };
        swapped[i] = match step {
            Ok(s) => s,
            Err(SwapError::Stale) => {
                return Err(WriteFailure::Stale {
                    path: e.path.clone(),
                    renamed: i,
                });
            }
            Err(SwapError::Io(err)) => return Err(WriteFailure::Io(e.path.clone(), err)),
        };
        if let Some(s) = swapped[i].as_mut() {
            swap::settle(dir, pre, e.backup.as_deref(), s);
        }
    }
    lancet_core::timing::lap("commit: renamed into place", &mut clock);
    Ok((swapped, exchange))
}

/// Step 6: emptied directories go, the parents are synced, the swapped-out files compared
/// again, and the journal deleted (the commit point) — unless the batch awaits a verdict.
fn finish(
    dir: &Dir,
    journal: &Journal,
    pre: &PreImages,
    state: &StateDir,
    swapped: &[Option<Swapped>],
    opts: WriteOptions,
) -> Result<(), WriteFailure> {
    let mut clock = std::time::Instant::now();
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
        let dirs: Vec<&String> = dirs
            .iter()
            .filter(|d| !journal.removed_dirs.contains(d))
            .collect();
        // The pre-images' links were made before the swaps: where one ordered log holds both,
        // the tree's syncs make them durable too; elsewhere their directory is synced at the
        // same time.
        let one_log = match (dir.open("."), pre.dir.open(".")) {
            (Ok(tree), Ok(pre_dir)) => super::ordered::one_log(&tree, &pre_dir),
            _ => false,
        };
        std::thread::scope(|scope| {
            let pre_synced = (!one_log).then(|| scope.spawn(|| pre.fsync()));
            sync_dirs(dir, &dirs)?;
            match pre_synced.map(|t| t.join()) {
                Some(Ok(Err(e))) => Err(io_at("the lancet state directory")(e)),
                Some(Err(_)) => Err(io_at("the lancet state directory")(io::Error::other(
                    "the sync thread panicked",
                ))),
                Some(Ok(Ok(()))) | None => Ok(()),
            }
        })?;
        lancet_core::timing::lap("commit: directories synced", &mut clock);
    }
    if opts.await_verdict {
        return Ok(());
    }
    // Compared again before the pre-images may go: a write that landed in place in a replaced
    // file after its swap (an editor holding it open) takes the batch back, with that write.
    failpoint::check("verify_swapped").map_err(io_at("the batch"))?;
    if let Some(i) = swapped.iter().position(|s| {
        s.as_ref()
            .is_some_and(|s| !swap::still_as_swapped(dir, pre, s))
    }) {
        return Err(WriteFailure::Stale {
            path: journal.entries[i].path.clone(),
            renamed: journal.entries.len(),
        });
    }
    for (s, e) in swapped.iter().zip(&journal.entries) {
        if let (Some(s), Some(_)) = (s, &e.temp)
            && let swap::Aside::Tree(temp) = &s.aside
        {
            let _ = dir.remove_file(temp);
        }
    }
    failpoint::check("commit").map_err(io_at("the journal"))?;
    state
        .handle()
        .and_then(|h| h.remove_file(state::JOURNAL))
        .map_err(io_at("the journal"))?;
    if opts.fsync {
        state.fsync().map_err(io_at("the lancet state directory"))?;
    }
    Ok(())
}

/// Batches touching at least this many directories sync the file system once (`syncfs`)
/// instead of each directory.
const SYNCFS_FROM: usize = 64;

/// Syncs the directories a batch changed: each once, several at a time; a batch touching many
/// syncs the whole file system once instead (one flush, however many directories).
fn sync_dirs(dir: &Dir, dirs: &[&String]) -> Result<(), WriteFailure> {
    if dirs.len() >= SYNCFS_FROM {
        failpoint::check("fsync_dir").map_err(io_at("the tree"))?;
        // (A directory handle may be a path-only descriptor: sync through a fresh read one.)
        let opened = dir.open(".").map_err(io_at("the tree"))?;
        // SAFETY: syncfs(2) on a descriptor we hold.
        let rc = unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&opened)) };
        return if rc == 0 {
            Ok(())
        } else {
            Err(WriteFailure::Io(
                "the tree".into(),
                io::Error::last_os_error(),
            ))
        };
    }
    let one = |d: &&String| fsync_dir_in(dir, d).map_err(io_at(d));
    if dirs.len() < 2 {
        dirs.iter().try_for_each(one)
    } else {
        dirs.par_iter().try_for_each(one)
    }
}

/// Temp files written before their contents are made durable together: a chunk's worth of
/// descriptors held open at once.
const TEMPS_AT_ONCE: usize = 256;

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
    ) -> Result<Written, CommitError> {
        let admitted = super::super::admit(
            root,
            files.to_vec(),
            state.off_limits(),
            &Default::default(),
        )
        .map_err(CommitError::Refused)?;
        prepare(&admitted, state, id, opts, remove_dirs).and_then(write)
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
