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

/// A UTC timestamp for people: `2026-11-21 07:15:31Z`.
pub fn format_time(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_times() {
        assert_eq!(format_time(0), "1970-01-01 00:00:00Z");
        assert_eq!(format_time(1_763_709_331), "2025-11-21 07:15:31Z");
        assert_eq!(format_time(951_782_400), "2000-02-29 00:00:00Z");
    }
}
