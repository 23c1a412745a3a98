//! Taking a batch back through the door: the rollback of a failed write or test run and the
//! recovery of a crashed batch put back what the journal names, decided by content (see
//! [`crate::journal`]), and never complete a git repository lookalike doing so.

use super::durable::{fsync_dir_in, parent_of, write_in_place};
use super::lookalike::{self, Touch};
use super::swap::rename_with;
use crate::journal::{Entry, FileState, Journal};
use crate::state::PreImages;
use cap_std::fs::Dir;
pub use lancet_core::Rollback;
use lancet_core::Root;
use std::io;

/// Undoes what a journal describes, decided by content, through the root's handle. Idempotent.
/// A path whose restore would make a directory look like a git repository (another path of the
/// directory changed meanwhile) is left as the batch wrote it, its pre-image kept, and listed
/// in [`Rollback::refused`].
pub(crate) fn roll_back(journal: &Journal, root: &Root, pre: &PreImages, fsync: bool) -> Rollback {
    let dir = root.dir();
    let mut report = Rollback {
        id: journal.id.clone(),
        ..Default::default()
    };
    let states: Vec<FileState> = journal
        .entries
        .iter()
        .map(|e| FileState::of(dir, &e.path))
        .collect();
    let restores = |e: &Entry, now: &FileState| {
        *now != e.pre && (*now == e.post || (e.in_place && matches!(now, FileState::File { .. })))
    };
    let refused = refused_restores(root, journal, &states, &restores);
    for d in &journal.removed_dirs {
        if !refused.iter().any(|r| inside(d, r)) {
            let _ = dir.create_dir(d);
        }
    }
    for (e, now) in journal.entries.iter().zip(&states).rev() {
        let mut keep_backup = false;
        if *now == e.pre {
            report.unchanged.push(e.path.clone());
        } else if refused.contains(&e.path) {
            report.refused.push(e.path.clone());
            keep_backup = true;
            if let Some(kept) = e.backup.as_ref().and_then(|b| pre.keep(b)) {
                report.kept_pre_images.push((e.path.clone(), kept));
            }
        } else if restores(e, now) {
            match lancet_core::failpoint::check("recover").and_then(|()| restore(dir, pre, e)) {
                Ok(Restore::Done) => report.restored.push(e.path.clone()),
                Ok(Restore::SavedMeanwhile) => {
                    report.conflicts.push(e.path.clone());
                    keep_backup = true;
                    if let Some(kept) = e.backup.as_ref().and_then(|b| pre.keep(b)) {
                        report.kept_pre_images.push((e.path.clone(), kept));
                    }
                }
                Err(_) => {
                    report.failed.push(e.path.clone());
                    keep_backup = true;
                }
            }
        } else {
            report.conflicts.push(e.path.clone());
            keep_backup = true;
            if let Some(kept) = e.backup.as_ref().and_then(|b| pre.keep(b)) {
                report.kept_pre_images.push((e.path.clone(), kept));
            }
        }
        if let Some(temp) = &e.temp {
            let _ = dir.remove_file(temp);
        }
        if let Some(backup) = e.backup.as_ref().filter(|_| !keep_backup) {
            let _ = pre.dir.remove_file(backup);
        }
    }
    for d in journal.created_dirs.iter().rev() {
        let _ = dir.remove_dir(d);
    }
    if fsync {
        let mut dirs: Vec<String> = journal.entries.iter().map(|e| parent_of(&e.path)).collect();
        dirs.sort();
        dirs.dedup();
        for d in dirs {
            let _ = fsync_dir_in(dir, &d);
        }
        let _ = pre.fsync();
    }
    report.restored.reverse();
    report.unchanged.reverse();
    report.conflicts.reverse();
    report.failed.reverse();
    report.refused.reverse();
    report
}

/// The paths whose restore the door refuses: every restore into a directory that the restores
/// would turn into a repository lookalike (judged again without them, until none is left).
fn refused_restores(
    root: &Root,
    journal: &Journal,
    states: &[FileState],
    restores: &dyn Fn(&Entry, &FileState) -> bool,
) -> Vec<String> {
    let mut refused: Vec<String> = Vec::new();
    loop {
        let mut touches: Vec<Touch<'_>> = journal
            .entries
            .iter()
            .zip(states)
            .filter(|(e, now)| restores(e, now) && !refused.contains(&e.path))
            .map(|(e, _)| Touch {
                path: &e.path,
                puts: e.pre != FileState::Missing,
            })
            .collect();
        touches.extend(journal.removed_dirs.iter().map(|d| Touch {
            path: d,
            puts: true,
        }));
        let Some(found) = lookalike::judge(root, &touches) else {
            return refused;
        };
        let before = refused.len();
        refused.extend(
            touches
                .iter()
                .filter(|t| {
                    inside(t.path, &found.dir) && !journal.removed_dirs.iter().any(|d| d == t.path)
                })
                .map(|t| t.path.to_string()),
        );
        if refused.len() == before {
            // Only re-made directories complete it: refuse every restore in the directory.
            refused.push(found.dir);
            return refused;
        }
    }
}

/// Whether `path` lies in `dir` (`""`: the root) or is it.
fn inside(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Removes what a batch prepared before its first rename (temp files, pre-images, the
/// directories it made): for a batch refused at its last check, when no target was touched.
pub(crate) fn discard(journal: &Journal, root: &Root, pre: &PreImages) {
    let dir = root.dir();
    for e in &journal.entries {
        if let Some(temp) = &e.temp {
            let _ = dir.remove_file(temp);
        }
        if let Some(backup) = &e.backup {
            let _ = pre.dir.remove_file(backup);
        }
    }
    for d in journal.created_dirs.iter().rev() {
        let _ = dir.remove_dir(d);
    }
}

/// How putting one path back went.
enum Restore {
    /// The path holds what it held before the batch.
    Done,
    /// A save landed on the path after it was judged to hold the batch's content: it stays,
    /// and the path is reported changed by someone else.
    SavedMeanwhile,
}

/// Puts one path back to its pre-image — or, where the batch's swap had taken a file out of the
/// tree and not yet compared it (it sits under the batch's temp name), that file: it is what
/// stood there at the swap, a save that landed after the judgement included. As a forward
/// write, the path is swapped and what came out compared: only the batch's own content is
/// replaced.
fn restore(dir: &Dir, pre: &PreImages, e: &Entry) -> io::Result<Restore> {
    if e.in_place
        && let Some(backup) = &e.backup
    {
        // Back into the same inode, so the other names see the old content again.
        let bytes = pre.dir.read(backup)?;
        write_in_place(dir, &e.path, &bytes, true)?;
        pre.dir.remove_file(backup)?;
        return Ok(Restore::Done);
    }
    if let Some(temp) = e.temp.as_deref().filter(|t| swapped_out(dir, t, e)) {
        return put_back(dir, temp, dir, e);
    }
    match &e.pre {
        FileState::Missing => take_away(dir, e),
        FileState::File { .. } | FileState::Link { .. } => {
            let backup = e
                .backup
                .as_ref()
                .ok_or_else(|| io::Error::other("no pre-image kept"))?;
            // The backup is the original inode (or a copy of it): putting it back restores
            // content, mode and ownership at once.
            put_back(&pre.dir, backup, dir, e)
        }
    }
}

/// Puts `from` (under `from_dir`) at `e.path` in exchange for what stands there, which must be
/// the batch's content: what came out is compared, and exchanged back if a save landed since the
/// path was judged. Where the file system cannot exchange, a plain rename (or a copy).
fn put_back(from_dir: &Dir, from: &str, dir: &Dir, e: &Entry) -> io::Result<Restore> {
    if rename_with(from_dir, from, dir, &e.path, libc::RENAME_EXCHANGE).is_err() {
        if from_dir.rename(from, dir, &e.path).is_err() {
            from_dir.copy(from, dir, &e.path)?;
            from_dir.remove_file(from)?;
        }
        return Ok(Restore::Done);
    }
    if FileState::of(from_dir, from) == e.post {
        let _ = from_dir.remove_file(from);
        return Ok(Restore::Done);
    }
    rename_with(from_dir, from, dir, &e.path, libc::RENAME_EXCHANGE)?;
    Ok(Restore::SavedMeanwhile)
}

/// Removes a file the batch created, moved aside first (to its temp name beside it) and
/// compared: a save that landed since the path was judged goes back in place.
fn take_away(dir: &Dir, e: &Entry) -> io::Result<Restore> {
    let Some(aside) = e.temp.as_deref() else {
        dir.remove_file(&e.path)?;
        return Ok(Restore::Done);
    };
    if rename_with(dir, &e.path, dir, aside, libc::RENAME_NOREPLACE).is_err() {
        dir.remove_file(&e.path)?;
        return Ok(Restore::Done);
    }
    if FileState::of(dir, aside) == e.post {
        dir.remove_file(aside)?;
        return Ok(Restore::Done);
    }
    rename_with(dir, aside, dir, &e.path, libc::RENAME_NOREPLACE)?;
    Ok(Restore::SavedMeanwhile)
}

/// Whether the batch's temp name holds what its swap took out of the tree: something other
/// than the batch's own new file (which it holds until the swap, and again once a stale swap
/// is exchanged back).
fn swapped_out(dir: &Dir, temp: &str, e: &Entry) -> bool {
    let at_temp = FileState::of(dir, temp);
    at_temp != FileState::Missing && at_temp != e.post
}
