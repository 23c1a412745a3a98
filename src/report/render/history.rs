//! Batch history in words: what an undo restored, left alone or refused to overwrite, and how
//! to force or redo it; what a crash recovery put back. The facts are the checkpoint's
//! (`CheckpointMeta`) and the journal's (`Rollback`).

use crate::report::{Recovery, Report, Surface, UndoEnd};
use lancet_core::{ErrorKind, FileReport, Status};
use lancet_store::CheckpointMeta;
use lancet_store::journal::Rollback;

/// Why one file of an undo was left alone.
fn changed_after(rel: &str, id: &str) -> String {
    format!("{rel} changed after batch {id}; left alone (undo --force restores it anyway)")
}

/// An undo refused as a whole: files changed since the batch, and how to go on.
fn undo_over_changes(left_alone: &[String], meta: &CheckpointMeta, surface: Surface) -> String {
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
fn already_restored(meta: &CheckpointMeta) -> String {
    format!(
        "Batch {} ({}) is already restored: every file it changed holds its content from before it (put back by hand?). Nothing was written; it is now marked undone.",
        meta.id, meta.summary
    )
}

/// An undo that restored nothing: the rest changed since, and were left alone.
fn none_restored(meta: &CheckpointMeta, left_alone: &[String], surface: Surface) -> String {
    format!(
        "Undid batch {} ({}): 0 file(s) restored. Left alone (changed since the batch): {}. Run {} to restore them anyway.",
        meta.id,
        meta.summary,
        left_alone.join(", "),
        surface.undo_force(&meta.id)
    )
}

/// What a successful undo says: what it restored, what it left, and how to redo it.
fn undid(
    meta: &CheckpointMeta,
    (restored, restored_by_hand): (usize, usize),
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

/// What a crash recovery did: restored, untouched, left alone, not put back, not yet restored.
fn recovery(r: &Rollback) -> String {
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

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recovery::Finished(rollback) => f.write_str(&recovery(rollback)),
            Recovery::Failed(error) => f.write_str(error),
        }
    }
}

impl Report {
    /// The report of an undo that ended as `end` says, over its files (those changed since the
    /// batch marked `changed_since`, which this words), of the batch `meta`.
    pub(crate) fn undo(
        end: UndoEnd,
        mut files: Vec<FileReport>,
        meta: &CheckpointMeta,
        surface: Surface,
    ) -> Report {
        let mut left_alone = Vec::new();
        for file in &mut files {
            if file.kind == Some(ErrorKind::ChangedSince) {
                file.error = Some(changed_after(&file.path, &meta.id));
                left_alone.push(file.path.clone());
            }
        }
        let (status, message) = match end {
            UndoEnd::OverChanges => (
                Status::Refused,
                undo_over_changes(&left_alone, meta, surface),
            ),
            UndoEnd::AlreadyRestored => (Status::AlreadyApplied, already_restored(meta)),
            UndoEnd::NoneRestored => (Status::Partial, none_restored(meta, &left_alone, surface)),
            UndoEnd::Undid {
                restored,
                by_hand,
                undo_id,
            } => (
                if left_alone.is_empty() {
                    Status::Applied
                } else {
                    Status::Partial
                },
                undid(meta, (restored, by_hand), &left_alone, undo_id, surface),
            ),
        };
        Report::from_files(status, files, message)
    }

    /// An undo's own line in the log: the batch it undoes.
    pub(crate) fn undo_summary(meta: &CheckpointMeta) -> String {
        format!("undo of {} ({})", meta.id, meta.summary)
    }

    /// The report with what finishing an interrupted batch first came to, as a note.
    pub(crate) fn with_recovery(self, recovered: &Recovery) -> Report {
        self.with_note(recovered.to_string())
    }

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

/// The batches `lancet log` lists (the command line) or the `checkpoints` tool returns (MCP),
/// newest first, in the surface's words: each one's id, time, what it did and whether its
/// tests passed or it was undone; `filtered` says the caller narrowed the list, for the words
/// of an empty one.
pub fn checkpoints_in_words(
    entries: &[CheckpointMeta],
    filtered: bool,
    surface: Surface,
) -> String {
    match (surface, entries.is_empty(), filtered) {
        (Surface::Cli, true, true) => "No checkpoint matches -n/--path/--since.\n".to_string(),
        (Surface::Mcp, true, true) => "No checkpoint matches limit/path.".to_string(),
        (Surface::Cli, true, false) => "No checkpoints yet.\n".to_string(),
        (Surface::Mcp, true, false) => "No checkpoints yet.".to_string(),
        (Surface::Cli, false, _) => entries.iter().map(cli_entry).collect(),
        (Surface::Mcp, false, _) => entries.iter().map(mcp_entry).collect::<Vec<_>>().join("\n"),
    }
}

/// One batch as `lancet log` prints it: two lines, the second its summary.
fn cli_entry(m: &CheckpointMeta) -> String {
    let test = match &m.test {
        Some(t) if t.passed => " tests passed",
        Some(_) => " tests FAILED",
        None => "",
    };
    let undone = if m.undone { " (undone)" } else { "" };
    let commit = m.commit.as_deref().map_or(String::new(), |c| {
        format!("  commit {}", &c[..c.len().min(12)])
    });
    format!(
        "{}  {}  {:<14} {} file(s){test}{undone}{commit}\n    {}\n",
        m.id,
        format_time(m.time),
        m.format,
        m.files.len(),
        m.summary
    )
}

/// One batch as the `checkpoints` tool says it: one line.
fn mcp_entry(m: &CheckpointMeta) -> String {
    let test = m.test.as_ref().map_or("", |t| match t.passed {
        true => "  [tests passed]",
        false => "  [tests failed]",
    });
    let undone = if m.undone { "  (undone)" } else { "" };
    format!(
        "{}  {}  {}{test}{undone}",
        m.id,
        format_time(m.time),
        m.summary
    )
}

/// A UTC timestamp for people: `2026-11-21 07:15:31Z`.
fn format_time(secs: u64) -> String {
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

    fn meta(test: Option<bool>, undone: bool) -> CheckpointMeta {
        serde_json::from_value(serde_json::json!({
            "id": "b1", "time": 1_763_709_331u64, "format": "patch", "files": [],
            "summary": "M a.py", "undone": undone, "commit": "0123456789abcdef",
            "created_dirs": [], "root": "",
            "test": test.map(|passed| serde_json::json!({"command": "make", "passed": passed})),
        }))
        .unwrap()
    }

    #[test]
    fn the_log_is_worded_in_each_surface_s_form() {
        let entries = [meta(Some(true), false), meta(Some(false), true)];
        assert_eq!(
            checkpoints_in_words(&entries, false, Surface::Cli),
            "b1  2025-11-21 07:15:31Z  patch          0 file(s) tests passed  commit 0123456789ab\n    M a.py\n\
             b1  2025-11-21 07:15:31Z  patch          0 file(s) tests FAILED (undone)  commit 0123456789ab\n    M a.py\n"
        );
        assert_eq!(
            checkpoints_in_words(&entries, false, Surface::Mcp),
            "b1  2025-11-21 07:15:31Z  M a.py  [tests passed]\nb1  2025-11-21 07:15:31Z  M a.py  [tests failed]  (undone)"
        );
        assert_eq!(
            checkpoints_in_words(&[], true, Surface::Mcp),
            "No checkpoint matches limit/path."
        );
        assert_eq!(
            checkpoints_in_words(&[], false, Surface::Cli),
            "No checkpoints yet.\n"
        );
    }

    #[test]
    fn an_undo_words_each_file_left_alone_and_its_ending() {
        let m = meta(None, false);
        let files = || {
            let mut changed = FileReport::new("a.py".into(), lancet_core::Action::Update, 0);
            changed.kind = Some(ErrorKind::ChangedSince);
            let kept = FileReport::new("b.py".into(), lancet_core::Action::Update, 0);
            vec![changed, kept]
        };
        let refused = Report::undo(UndoEnd::OverChanges, files(), &m, Surface::Cli);
        assert_eq!(refused.status, Status::Refused);
        assert_eq!(
            refused.files[0].error.as_deref(),
            Some("a.py changed after batch b1; left alone (undo --force restores it anyway)")
        );
        assert_eq!(refused.files[1].error, None);
        assert!(
            refused
                .message
                .starts_with("Nothing was undone: a.py changed since batch b1 (M a.py) ran"),
            "{}",
            refused.message
        );
        let end = UndoEnd::Undid {
            restored: 1,
            by_hand: 0,
            undo_id: "u1",
        };
        let partial = Report::undo(end, files(), &m, Surface::Cli);
        assert_eq!(partial.status, Status::Partial);
        assert_eq!(
            partial.message,
            "Undid batch b1 (M a.py): 1 file(s) restored. Left alone (changed since the batch): a.py. Run lancet undo b1 --force to restore them anyway. The undo is batch u1: lancet undo u1 redoes it."
        );
    }

    #[test]
    fn formats_utc_times() {
        assert_eq!(format_time(0), "1970-01-01 00:00:00Z");
        assert_eq!(format_time(1_763_709_331), "2025-11-21 07:15:31Z");
        assert_eq!(format_time(951_782_400), "2000-02-29 00:00:00Z");
    }
}
