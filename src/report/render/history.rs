//! Batch history in words: what an undo restored, left alone or refused to overwrite, and how
//! to force or redo it; what a crash recovery put back. The facts are the checkpoint's
//! (`CheckpointMeta`) and the journal's (`Rollback`).

use crate::report::{Report, Surface};
use lancet_core::Status;
use lancet_store::CheckpointMeta;
use lancet_store::journal::Rollback;

/// Why one file of an undo was left alone.
pub(crate) fn changed_after(rel: &impl std::fmt::Display, id: &str) -> String {
    format!("{rel} changed after batch {id}; left alone (undo --force restores it anyway)")
}

/// An undo refused as a whole: files changed since the batch, and how to go on.
pub(crate) fn undo_over_changes(
    left_alone: &[String],
    meta: &CheckpointMeta,
    surface: Surface,
) -> String {
    format!(
        "Nothing was undone: {} changed since batch {} ({}) ran, and restoring it would overwrite newer work. Run {} to restore everything anyway, or {} to restore only the files that did not change.",
        left_alone.join(", "),
        meta.id,
        meta.summary,
        surface.undo_force(&meta.id),
        surface.undo_partial(&meta.id),
    )
}

/// An undo of a batch every file of which already holds its earlier content.
pub(crate) fn already_restored(meta: &CheckpointMeta) -> String {
    format!(
        "Batch {} ({}) is already restored: every file it changed holds its content from before it (put back by hand?). Nothing was written; it is now marked undone.",
        meta.id, meta.summary
    )
}

/// An undo that restored nothing: the rest changed since, and were left alone.
pub(crate) fn none_restored(
    meta: &CheckpointMeta,
    left_alone: &[String],
    surface: Surface,
) -> String {
    format!(
        "Undid batch {} ({}): 0 file(s) restored. Left alone (changed since the batch): {}. Run {} to restore them anyway.",
        meta.id,
        meta.summary,
        left_alone.join(", "),
        surface.undo_force(&meta.id)
    )
}

/// What a successful undo says: what it restored, what it left, and how to redo it.
pub(crate) fn undid(
    meta: &CheckpointMeta,
    restored: usize,
    restored_by_hand: usize,
    left_alone: &[String],
    undo_id: &str,
    surface: Surface,
) -> String {
    let mut message = format!(
        "Undid batch {} ({}): {restored} file(s) restored.",
        meta.id, meta.summary
    );
    if restored_by_hand > 0 {
        message.push_str(&format!(
            " {restored_by_hand} file(s) already held their content from before it."
        ));
    }
    if !left_alone.is_empty() {
        message.push_str(&format!(
            " Left alone (changed since the batch): {}. Run {} to restore them anyway.",
            left_alone.join(", "),
            surface.undo_force(&meta.id)
        ));
    }
    message.push_str(&format!(
        " The undo is batch {undo_id}: {} redoes it.",
        surface.undo_id(undo_id)
    ));
    message
}

/// An undo's own line in the log.
pub(crate) fn undo_summary(meta: &CheckpointMeta) -> String {
    format!("undo of {} ({})", meta.id, meta.summary)
}

/// What a crash recovery did: restored, untouched, left alone, not put back, not yet restored.
pub(crate) fn recovery(r: &Rollback) -> String {
    let mut s = format!(
        "recovered batch {} interrupted by a crash: {} file(s) restored to their state before it, {} untouched",
        r.id,
        r.restored.len(),
        r.unchanged.len()
    );
    if !r.conflicts.is_empty() {
        s.push_str(&format!(
            "; {} changed by someone else and left alone: {}",
            r.conflicts.len(),
            r.conflicts.join(", ")
        ));
        if !r.kept_pre_images.is_empty() {
            let kept: Vec<String> = r
                .kept_pre_images
                .iter()
                .map(|(path, kept)| format!("{path} in {}", kept.display()))
                .collect();
            s.push_str(&format!(
                " (their earlier content is kept in {})",
                kept.join(", ")
            ));
        }
    }
    if !r.refused.is_empty() {
        s.push_str(&format!(
            "; {} not put back, because that would have made a directory look like a git repository: {} (their earlier content is kept in lancet's kept/ directory)",
            r.refused.len(),
            r.refused.join(", ")
        ));
    }
    if !r.failed.is_empty() {
        s.push_str(&format!(
            "; {} could not be restored yet ({}): the journal is kept and the next lancet command retries",
            r.failed.len(),
            r.failed.join(", ")
        ));
    }
    s
}

impl Report {
    /// `lancet recover` with no batch interrupted.
    pub(crate) fn nothing_to_recover() -> Report {
        Report::note_only(
            Status::AlreadyApplied,
            "Nothing to recover: no batch was interrupted.",
        )
    }

    /// `lancet recover` after it finished an interrupted batch.
    pub(crate) fn recovered(r: &Rollback) -> Report {
        let status = if r.intact() {
            Status::Applied
        } else {
            Status::Refused
        };
        Report::note_only(status, &format!("Recovery: {}.", recovery(r)))
    }
}
