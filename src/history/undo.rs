//! `lancet undo`: a batch put back. Undo follows the same rule as recovery: a path goes back to
//! its pre-image only if it still holds what the batch wrote; a path changed since is listed and
//! left alone (unless `--force`). The restore itself is a batch like any other: staged,
//! journaled, all or nothing.

use super::checkpoint::{meta_for, new_batch_id, record_checkpoint};
use super::recovery::recover_if_needed;
use crate::applied::Applied;
use crate::report::{Report, Surface, UndoEnd};
use lancet_core::sha256_hex;
use lancet_core::{Action, FileReport, Outcome};
use lancet_core::{BatchFailure, ErrorKind};
use lancet_core::{Before, StagedFile};
use lancet_core::{RelPath, Root};
use lancet_store::{self as store, StateDir, WriteOptions};
use lancet_store::{CheckpointMeta, Checkpoints, Image};

/// How `lancet undo` treats files changed since the batch, and which batches it may reach.
#[derive(Debug, Clone, Default)]
pub struct UndoOptions {
    /// Restore changed files anyway (their newer content is lost).
    pub force: bool,
    /// Restore the unchanged files and leave the changed ones (reported as partial); without
    /// it, one changed file refuses the whole undo, as one bad hunk refuses a batch.
    pub partial: bool,
    /// fsync the writes.
    pub fsync: bool,
    /// Whose words the advice uses.
    pub surface: Surface,
    /// Refuse an undo that would change lancet's settings (the MCP server sets it: an undo a
    /// model asks for must not rewrite the person's configuration).
    pub protect_settings: bool,
    /// Reach batches that touched paths outside this root (the person's `--any-root`); without
    /// it a root's history is the batches whose every path lies inside it. Never over MCP.
    pub any_root: bool,
    /// What the caller has read, as the sha256 of each file by its path relative to the root
    /// undone from: with it, `force` overwrites a file changed since the batch only where it
    /// still holds what the caller read (the MCP server passes its session's reads); `None`
    /// is the person's own call.
    pub read: Option<std::collections::HashMap<String, String>>,
    /// What a restore does to a file with other hard links (the person's choice).
    pub hard_links: lancet_core::HardLinks,
}

/// `lancet undo [ID] [--force|--partial]`: puts back the newest batch of this root not yet
/// undone (an undo left aside: repeated, undo goes further back), or `id` (a prefix; an undo's
/// id redoes what it undid). All or nothing by default; the restore is itself a checkpointed,
/// journaled batch through the door, and the log marks the batch undone in the same step, so a
/// crash leaves either both or neither. A batch undone already is refused, never undone twice.
pub fn undo(root: &Root, id: Option<&str>, opts: UndoOptions) -> Applied {
    let state = StateDir::locate(root);
    let _lock = match state.lock() {
        Ok(l) => l,
        Err(e) => {
            return Report::batch_failed(&e.failure(), opts.surface).into();
        }
    };
    let recovered = recover_if_needed(&state, opts.fsync, false);
    let mut applied = choose_batch(&state, id, &opts)
        .and_then(|meta| plan_restore(&state, meta, &opts))
        .map_or_else(
            |refusal| (*refusal).into(),
            |plan| write_restore(&state, plan, &opts),
        );
    if let Some(recovered) = recovered {
        applied.report = applied.report.with_recovery(&recovered);
    }
    applied
}

/// The batch an undo means: the one `id` (a prefix, refused when it names several, as git
/// does; refused when it is undone already), or the newest not yet undone that is not itself an
/// undo — among this root's batches unless the person reaches further.
fn choose_batch(
    state: &StateDir,
    id: Option<&str>,
    opts: &UndoOptions,
) -> Result<CheckpointMeta, Box<Report>> {
    let fail = |failure: BatchFailure| Box::new(Report::batch_failed(&failure, opts.surface));
    let all: Vec<CheckpointMeta> = state
        .list_meta()
        .into_iter()
        .filter(|m| opts.any_root || m.within(&state.root_in_home))
        .collect();
    let chosen = match id {
        Some(prefix) => {
            let matching: Vec<&CheckpointMeta> =
                all.iter().filter(|m| m.id.starts_with(prefix)).collect();
            if let [_, _, ..] = matching[..] {
                return Err(fail(BatchFailure::AmbiguousId {
                    prefix: prefix.to_string(),
                    ids: matching.iter().map(|m| m.id.clone()).collect(),
                }));
            }
            if let Some(undone) = matching.first().filter(|m| m.undone) {
                return Err(fail(BatchFailure::AlreadyUndone {
                    id: undone.id.clone(),
                    by: undone.undone_by.clone(),
                }));
            }
            matching.first().copied()
        }
        None => all.iter().find(|m| !m.undone && m.undoes.is_none()),
    };
    chosen.cloned().ok_or_else(|| {
        fail(BatchFailure::NoCheckpoint {
            id: id.map(str::to_string),
        })
    })
}

/// What an undo will write: the restores, a report entry per touched path, and the paths left
/// alone because they changed since the batch.
struct RestorePlan {
    meta: CheckpointMeta,
    root: Root,
    staged: Vec<StagedFile>,
    files: Vec<FileReport>,
    left_alone: Vec<String>,
}

/// Compares each touched path with the batch's checkpoint and plans its restore; refuses the
/// whole undo when a path changed since and neither force nor partial was asked for.
fn plan_restore(
    state: &StateDir,
    meta: CheckpointMeta,
    opts: &UndoOptions,
) -> Result<RestorePlan, Box<Report>> {
    let fail = |failure: BatchFailure| Box::new(Report::batch_failed(&failure, opts.surface));
    // The batch's own root: its paths are relative to it, even when undone from another root
    // of the same repository.
    let root = Root::new(&state.home)
        .and_then(|home| Root::within(&home, &meta.root))
        .map_err(|e| {
            fail(BatchFailure::BatchRootUnopenable {
                root: meta.root.clone(),
                id: meta.id.clone(),
                error: e.to_string(),
            })
        })?;
    let checkpoints = Checkpoints::open(&root, state).map_err(|e| fail(e.failure()))?;
    let mut plan = RestorePlan {
        staged: Vec::new(),
        files: Vec::new(),
        left_alone: Vec::new(),
        root,
        meta,
    };
    let mut unread: Vec<String> = Vec::new();
    for touched in &plan.meta.files {
        let (pre, post) = checkpoints
            .images(&plan.meta.id, &touched.path)
            .map_err(|e| {
                fail(BatchFailure::CheckpointUnreadable {
                    id: plan.meta.id.clone(),
                    error: e.to_string(),
                })
            })?;
        let rel = RelPath::from_state(&touched.path).ok_or_else(|| {
            fail(BatchFailure::CheckpointPathOutside {
                id: plan.meta.id.clone(),
                path: touched.path.clone(),
            })
        })?;
        let now = disk_image(&plan.root, &rel);
        let action = match (&pre, &post) {
            (Image::Missing, _) => Action::Delete,
            (_, Image::Missing) => Action::Add,
            _ => Action::Update,
        };
        let mut report = FileReport::new(rel.to_string(), action, 0);
        if now == pre {
            report.status = Outcome::AlreadyApplied;
        } else if now != post && opts.force && !was_read(state, &plan.meta, &rel, &now, opts) {
            unread.push(rel.to_string());
        } else if now != post && !opts.force {
            report.status = Outcome::Failed;
            report.kind = Some(ErrorKind::ChangedSince);
            plan.left_alone.push(rel.to_string());
        } else {
            plan.staged.push(restore_plan(
                &plan.root,
                &rel,
                now,
                &pre,
                touched.mode,
                opts.hard_links,
            ));
        }
        plan.files.push(report);
    }
    if !unread.is_empty() {
        return Err(fail(BatchFailure::ForceOverUnread {
            id: plan.meta.id.clone(),
            paths: unread,
        }));
    }
    if !plan.left_alone.is_empty() && !opts.partial {
        return Err(Box::new(Report::undo(
            UndoEnd::OverChanges,
            plan.files,
            &plan.meta,
            opts.surface,
        )));
    }
    Ok(plan)
}

/// Whether a file changed since the batch may be overwritten by a forced undo: always for the
/// person; for a caller that says what it read, only where the file holds what it read.
fn was_read(
    state: &StateDir,
    meta: &CheckpointMeta,
    rel: &RelPath,
    now: &Image,
    opts: &UndoOptions,
) -> bool {
    let Some(read) = &opts.read else {
        return true;
    };
    // The path as the caller names it: relative to the root undone from.
    let in_home = if meta.root.is_empty() {
        rel.to_string()
    } else {
        format!("{}/{rel}", meta.root)
    };
    let from_root = if state.root_in_home.is_empty() {
        Some(in_home.as_str())
    } else {
        in_home
            .strip_prefix(&state.root_in_home)
            .and_then(|r| r.strip_prefix('/'))
    };
    let bytes = match now {
        Image::File { bytes, .. } => bytes.as_slice(),
        Image::Link { .. } => return false,
        // Nothing there: nothing unread to destroy.
        Image::Missing => return true,
    };
    from_root
        .and_then(|p| read.get(p))
        .is_some_and(|sha| *sha == sha256_hex(bytes))
}

/// Writes the restores as one batch through the door (every check a write passes: a restore
/// may not make a directory look like a repository either), checkpointed like any batch (so
/// undoing the undo redoes it), which also marks the log entry undone and removes the
/// directories the batch created (a crash leaves all of it or none).
fn write_restore(state: &StateDir, plan: RestorePlan, opts: &UndoOptions) -> Applied {
    let RestorePlan {
        meta,
        root,
        staged,
        files,
        left_alone,
    } = plan;
    let whole = left_alone.is_empty();
    let restored_by_hand = files
        .iter()
        .filter(|f| f.status == Outcome::AlreadyApplied)
        .count();
    if staged.is_empty() {
        return nothing_to_restore(state, meta, files, &left_alone, opts.surface);
    }
    let checks = crate::guard::door_checks(opts.protect_settings, opts.hard_links);
    let admitted = match store::admit(&root, staged, state.off_limits(), &checks) {
        Ok(a) => a,
        Err(failure) => return Report::batch_failed(&failure, opts.surface).into(),
    };
    let write = WriteOptions {
        fsync: opts.fsync,
        await_verdict: false,
    };
    let undo_id = new_batch_id();
    let remove_dirs = if whole {
        meta.created_dirs.clone()
    } else {
        Vec::new()
    };
    let end = UndoEnd::Undid {
        restored: admitted.files().len(),
        by_hand: restored_by_hand,
        undo_id: &undo_id,
    };
    let mut report = Report::undo(end, files, &meta, opts.surface);
    let failed = |e: store::CommitError| Report::undo_failed(&e.failure());
    let prepared = match store::prepare(&admitted, state, &undo_id, write, &remove_dirs) {
        Ok(p) => p,
        Err(e) => return failed(e).into(),
    };
    // The undo's own checkpoint and log entry, and the undone batch marked, with the journal
    // durable and before any file: a crash rolls the restore back, and recovery forgets the
    // undo and marks the batch live again (`StateDir::forget_batch`).
    let mut undo_meta = meta_for(state, &undo_id, "undo", admitted.files(), &report);
    undo_meta.root = meta.root.clone();
    undo_meta.summary = Report::undo_summary(&meta);
    undo_meta.undoes = Some(meta.id.clone());
    let recorded = record_checkpoint(
        &root,
        state,
        admitted.files(),
        &report,
        &undo_meta,
        &prepared.journal,
        &|| prepared.journal_durable(),
    )
    .and_then(|_| {
        let mut marked = meta.clone();
        if whole {
            marked.undone = true;
            marked.undone_by = Some(undo_id.clone());
        }
        state
            .save_meta(&marked)
            .map_err(|source| store::CommitError::Io {
                path: "the checkpoint log".into(),
                source,
                intact: true,
            })
    });
    if let Err(e) = recorded {
        prepared.abandon();
        return failed(e).into();
    }
    if let Err(e) = store::write(prepared) {
        return failed(e).into();
    }
    // An undo of an undo: the batch that undo took back is live again.
    if whole
        && let Some(redone) = meta.undoes.as_deref()
        && let Some(mut batch) = state.list_meta().into_iter().find(|m| m.id == redone)
    {
        batch.undone = false;
        batch.undone_by = None;
        let _ = state.save_meta(&batch);
    }
    report.checkpoint = Some(undo_id);
    Applied::kept(report, admitted.into_files())
}

/// An undo with nothing to write: every file already holds its earlier content (put back by
/// hand: the batch is marked undone), or the rest changed since and are left alone.
fn nothing_to_restore(
    state: &StateDir,
    mut meta: CheckpointMeta,
    files: Vec<FileReport>,
    left_alone: &[String],
    surface: Surface,
) -> Applied {
    if left_alone.is_empty() {
        meta.undone = true;
        let _ = state.save_meta(&meta);
        return Report::undo(UndoEnd::AlreadyRestored, files, &meta, surface).into();
    }
    Report::undo(UndoEnd::NoneRestored, files, &meta, surface).into()
}

/// What is at a path now, read through the root's handle (a link is not followed).
fn disk_image(root: &Root, rel: &RelPath) -> Image {
    let dir = root.dir();
    let at = rel.as_path();
    match dir.symlink_metadata(at) {
        Err(_) => Image::Missing,
        Ok(m) if m.file_type().is_symlink() => Image::Link {
            target: dir.read_link_contents(at).unwrap_or_default(),
        },
        Ok(m) => Image::File {
            bytes: dir.read(at).unwrap_or_default(),
            executable: cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0,
        },
    }
}

/// The staged write that puts `pre` back where `now` is: a file with the mode it had before the
/// batch (recorded in the log; git keeps only the executable bit), or a symlink as a link.
fn restore_plan(
    root: &Root,
    rel: &RelPath,
    now: Image,
    pre: &Image,
    pre_mode: Option<u32>,
    hard_links: lancet_core::HardLinks,
) -> StagedFile {
    let meta = root.dir().symlink_metadata(rel.as_path()).ok();
    let current_mode = meta
        .as_ref()
        .map(|m| cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o7777);
    // A file with other names now is put back in place where the person chose to write
    // through hard links, so they all see the old content; else it gets its own inode.
    let shared = hard_links == lancet_core::HardLinks::InPlace
        && meta.is_some_and(|m| m.is_file() && cap_std::fs::MetadataExt::nlink(&m) > 1);
    let before = match now {
        Image::Missing => Before::Missing,
        Image::File { bytes, .. } => Before::File {
            sha256: sha256_hex(&bytes),
            bytes,
            mode: current_mode.unwrap_or(0o644),
        },
        Image::Link { target } => Before::Link { target },
    };
    let (after, after_link, mode) = match pre {
        Image::Missing => (None, None, None),
        Image::File { bytes, executable } => (
            Some(bytes.clone()),
            None,
            pre_mode
                .or(current_mode.filter(|_| matches!(before, Before::File { .. })))
                .or(executable.then_some(0o755)),
        ),
        Image::Link { target } => (None, Some(target.clone()), None),
    };
    StagedFile {
        path: rel.clone(),
        before,
        in_place: shared && after.is_some(),
        after,
        after_link,
        mode,
    }
}
