//! A batch's id and its record: the log entry, and the checkpoint (before and after commits)
//! recorded once its journal is durable.

use crate::report::Report;
use lancet_core::Root;
use lancet_core::{Before, StagedFile};
use lancet_store::{self as store, CommitError, StateDir};
use lancet_store::{CheckpointMeta, Checkpoints, TouchedFile};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A new batch id: milliseconds since the epoch and a process-local counter, in hex, so ids
/// sort by time and two batches never share one.
pub fn new_batch_id() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let salt = (std::process::id() << 8) ^ COUNTER.fetch_add(1, Ordering::SeqCst);
    format!("{ms:012x}{:04x}", salt & 0xffff)
}

/// The log entry of a committed batch.
pub fn meta_for(
    state: &StateDir,
    id: &str,
    format: &str,
    files: &[StagedFile],
    report: &Report,
) -> CheckpointMeta {
    CheckpointMeta {
        root: state.root_in_home.clone(),
        id: id.to_string(),
        time: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default(),
        format: format.to_string(),
        files: files
            .iter()
            .map(|f| TouchedFile {
                path: f.path.to_string(),
                action: match (&f.before, &f.after) {
                    (Before::Missing, _) => "add",
                    (_, None) => "delete",
                    _ => "update",
                }
                .to_string(),
                mode: match &f.before {
                    Before::File { mode, .. } => Some(*mode),
                    _ => None,
                },
            })
            .collect(),
        summary: report.summary_line(),
        test: None,
        undone: false,
        commit: None,
        created_dirs: Vec::new(),
        undone_by: None,
        undoes: None,
    }
}

/// Records the batch's checkpoint (its before and after commits) and its log entry; returns
/// the entry as saved. The objects are written first; the ref and the log entry only once
/// `journal_durable` returns (the batch's journal synced meanwhile, on a thread of its own), so
/// a crash never leaves a checkpoint of a batch no journal can take back.
pub(crate) fn record_checkpoint(
    root: &Root,
    state: &StateDir,
    files: &[StagedFile],
    report: &Report,
    meta: &store::CheckpointMeta,
    journal: &store::Journal,
    journal_durable: &dyn Fn() -> Result<(), CommitError>,
) -> Result<store::CheckpointMeta, CommitError> {
    let git_error = |e: git2::Error| CommitError::Io {
        path: "the checkpoint".into(),
        source: std::io::Error::other(e.to_string()),
        intact: true,
    };
    let checkpoints = Checkpoints::open(root, state).map_err(|e| match e {
        store::RepositoryError::StateDir {
            path,
            source,
            trouble,
        } => CommitError::StateDir {
            path: path.display().to_string(),
            source,
            trouble,
        },
        store::RepositoryError::Git(e) => git_error(e),
    })?;
    let mut clock = std::time::Instant::now();
    let after = checkpoints
        .write_objects(&meta.id, files, &report.summary_line())
        .map_err(git_error)?;
    journal_durable()?;
    lancet_core::timing::lap("checkpoint: journal durable", &mut clock);
    let commit = checkpoints.point_ref(&meta.id, after).map_err(git_error)?;
    lancet_core::timing::lap("checkpoint", &mut clock);
    let mut entry = meta.clone();
    entry.commit = Some(commit.to_string());
    entry.created_dirs = journal.created_dirs.clone();
    state
        .save_new_meta(&entry)
        .map_err(|source| CommitError::Io {
            path: "the checkpoint log".into(),
            source,
            intact: true,
        })?;
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_are_unique() {
        let a = new_batch_id();
        let b = new_batch_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
        assert!(a[..12] <= b[..12]);
    }
}
