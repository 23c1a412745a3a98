//! The rollback ledger: which files failed tests how often, so a retry loop that keeps breaking
//! the same file is told to stop and ask a person. Kept in the state directory beside the
//! journal and the log.

use crate::state::StateDir;
use serde::{Deserialize, Serialize};

/// The ledger's name in the state directory.
const LEDGER: &str = "ledger.jsonl";

/// One batch in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// The batch id.
    pub id: String,
    /// The paths it touched.
    pub files: Vec<String>,
    /// Whether a failed test run rolled it back.
    pub rolled_back: bool,
    /// Who sent it: empty for the command line (its runs are one retry loop, the person's),
    /// an MCP session's id otherwise (each session is a loop of its own).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub actor: String,
}

/// How many recent batches the ledger looks at.
pub const LEDGER_WINDOW: usize = 20;
/// Rollbacks of one file within the window that mean "stop retrying".
pub const LEDGER_LIMIT: usize = 3;

/// Appends a batch to the ledger and returns the files rolled back at least
/// [`LEDGER_LIMIT`] times within the last [`LEDGER_WINDOW`] batches of the same actor.
pub fn record_in_ledger(state: &StateDir, entry: &LedgerEntry) -> Vec<String> {
    let handle = state.handle().ok();
    let mut all: Vec<LedgerEntry> = handle
        .as_ref()
        .and_then(|h| h.read_to_string(LEDGER).ok())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    all.push(entry.clone());
    let keep = all.len().saturating_sub(LEDGER_WINDOW * 5);
    let text: String = all[keep..]
        .iter()
        .filter_map(|e| serde_json::to_string(e).ok())
        .map(|l| l + "\n")
        .collect();
    if let Some(h) = &handle {
        let _ = h.write(LEDGER, text);
    }
    let mine: Vec<&LedgerEntry> = all.iter().filter(|e| e.actor == entry.actor).collect();
    let recent = &mine[mine.len().saturating_sub(LEDGER_WINDOW)..];
    let mut hot: Vec<String> = entry
        .files
        .iter()
        .filter(|f| {
            recent
                .iter()
                .filter(|e| e.rolled_back && e.files.contains(f))
                .count()
                >= LEDGER_LIMIT
        })
        .cloned()
        .collect();
    hot.sort();
    hot.dedup();
    hot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_flags_a_file_rolled_back_three_times() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(
            dir.path().join("s"),
            false,
            dir.path().to_path_buf(),
            String::new(),
        );
        let entry = |id: &str, rolled_back, actor: &str| LedgerEntry {
            id: id.into(),
            files: vec!["a.py".into()],
            rolled_back,
            actor: actor.into(),
        };
        assert!(record_in_ledger(&state, &entry("1", true, "")).is_empty());
        assert!(record_in_ledger(&state, &entry("2", false, "")).is_empty());
        assert!(record_in_ledger(&state, &entry("3", true, "")).is_empty());
        // Another actor's rollbacks are its own: an MCP session starts its own count.
        assert!(record_in_ledger(&state, &entry("4", true, "mcp:1")).is_empty());
        assert!(record_in_ledger(&state, &entry("5", true, "mcp:1")).is_empty());
        assert_eq!(
            record_in_ledger(&state, &entry("6", true, "")),
            vec!["a.py".to_string()]
        );
        assert_eq!(
            record_in_ledger(&state, &entry("7", true, "mcp:1")),
            vec!["a.py".to_string()]
        );
        assert!(record_in_ledger(&state, &entry("8", true, "mcp:2")).is_empty());
    }
}
