//! Crash recovery: a batch a crash interrupted is finished (taken back) before any command
//! looks at the files, and `lancet recover` does it on request.

use crate::report::{Report, Surface};
use lancet_core::{BatchFailure, Root, Status};
use lancet_store::StateDir;
use lancet_store::journal::Rollback;

/// Finishes a batch a crash interrupted before a read-only command looks at the files (the
/// writing commands do it themselves and report it): what happened, when anything did.
pub fn finish_interrupted(root: &Root) -> Option<String> {
    recover_if_needed(&StateDir::locate(root), true, true)
}

/// Finishes a batch a crash interrupted, if one is recorded (the caller holds the lock, or
/// `lock` asks for it). Returns what happened, for the report.
pub(crate) fn recover_if_needed(state: &StateDir, fsync: bool, lock: bool) -> Option<String> {
    if !state.journal_path().exists() {
        if !lock && state.dir.join("pre").is_dir() {
            state.sweep_orphans();
        }
        return None;
    }
    let _held = if lock { Some(state.lock().ok()?) } else { None };
    match state.recover(fsync) {
        Ok(Some(rollback)) => Some(describe_recovery(&rollback)),
        Ok(None) => None,
        Err(e) => Some(e.to_string()),
    }
}

fn describe_recovery(r: &Rollback) -> String {
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

/// `lancet recover`: the report of an explicit recovery.
pub fn recover(root: &Root, fsync: bool) -> Report {
    let state = StateDir::locate(root);
    if !state.journal_path().exists() {
        if state.dir.join("pre").is_dir()
            && let Ok(_lock) = state.lock()
        {
            state.sweep_orphans();
        }
        return Report::note_only(
            Status::AlreadyApplied,
            "Nothing to recover: no batch was interrupted.",
        );
    }
    let lock = match state.lock() {
        Ok(l) => l,
        Err(e) => return Report::batch_failed(&e.failure(), Surface::Cli),
    };
    let result = state.recover(fsync);
    drop(lock);
    match result {
        Ok(Some(r)) => {
            let status = if r.intact() {
                Status::Applied
            } else {
                Status::Refused
            };
            Report::note_only(status, &format!("Recovery: {}.", describe_recovery(&r)))
        }
        Ok(None) => Report::note_only(
            Status::AlreadyApplied,
            "Nothing to recover: no batch was interrupted.",
        ),
        Err(e) => Report::batch_failed(
            &BatchFailure::RecoveryFailed {
                error: e.to_string(),
            },
            Surface::Cli,
        ),
    }
}
