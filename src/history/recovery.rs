//! Crash recovery: a batch a crash interrupted is finished (taken back) before any command
//! looks at the files, and `lancet recover` does it on request.

use crate::report::{Recovery, Report, Surface};
use lancet_core::{BatchFailure, Root};
use lancet_store::StateDir;

/// Finishes a batch a crash interrupted before a read-only command looks at the files (the
/// writing commands do it themselves and report it): what happened, when anything did (its
/// `Display` is the line a person reads).
pub fn finish_interrupted(root: &Root) -> Option<Recovery> {
    recover_if_needed(&StateDir::locate(root), true, true)
}

/// Finishes a batch a crash interrupted, if one is recorded (the caller holds the lock, or
/// `lock` asks for it). Returns what happened, for the report.
pub(crate) fn recover_if_needed(state: &StateDir, fsync: bool, lock: bool) -> Option<Recovery> {
    if !state.journal_path().exists() {
        if !lock && state.dir.join("pre").is_dir() {
            state.sweep_orphans();
        }
        return None;
    }
    let _held = if lock { Some(state.lock().ok()?) } else { None };
    match state.recover(fsync) {
        Ok(Some(rollback)) => Some(Recovery::Finished(rollback)),
        Ok(None) => None,
        Err(e) => Some(Recovery::Failed(e.to_string())),
    }
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
        return Report::nothing_to_recover();
    }
    let lock = match state.lock() {
        Ok(l) => l,
        Err(e) => return Report::batch_failed(&e.failure(), Surface::Cli),
    };
    let result = state.recover(fsync);
    drop(lock);
    match result {
        Ok(Some(r)) => Report::recovered(&r),
        Ok(None) => Report::nothing_to_recover(),
        Err(e) => Report::batch_failed(
            &BatchFailure::RecoveryFailed {
                error: e.to_string(),
            },
            Surface::Cli,
        ),
    }
}
