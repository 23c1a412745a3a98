//! `lancet log`: the checkpoints a root's history lists, and their times for people.

use lancet_core::Root;
use lancet_store::{CheckpointMeta, StateDir};

/// Which checkpoints a log lists.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    /// At most this many (the newest).
    pub limit: Option<usize>,
    /// Only batches that touched this path (relative to the root, or absolute inside it; a
    /// directory means any file under it).
    pub path: Option<String>,
    /// Only batches made at or after this time (seconds since the Unix epoch): "what did the
    /// agent do this afternoon".
    pub since: Option<u64>,
    /// Also batches that touched paths outside this root (made from another root of the same
    /// repository): the person's `--any-root`; never over MCP.
    pub any_root: bool,
}

/// `lancet log`: checkpoints, newest first, as `filter` keeps them.
pub fn log(root: &Root, filter: &LogFilter) -> Vec<CheckpointMeta> {
    // As the root reads it (an absolute path inside the root, `./a.py`); a directory keeps
    // the batches that touched a file under it.
    let path = filter.path.as_deref().map(|p| {
        root.rel(p)
            .map(|rel| rel.to_string())
            .unwrap_or_else(|_| p.trim_start_matches("./").to_string())
    });
    let under = |touched: &str, p: &str| {
        p.is_empty()
            || touched == p
            || touched
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let state = StateDir::locate(root);
    state
        .list_meta()
        .into_iter()
        .filter(|m| filter.any_root || m.within(&state.root_in_home))
        .filter(|m| {
            path.as_deref()
                .is_none_or(|p| m.files.iter().any(|f| under(&f.path, p)))
        })
        .filter(|m| filter.since.is_none_or(|since| m.time >= since))
        .take(filter.limit.unwrap_or(usize::MAX))
        .collect()
}
