//! Stale edits: a file that changed since the model read it is edited as read (the base's
//! snapshot), and the result is merged into the file as it is now ([`crate::rebase`]).

use super::present::{numbered, unified_diff};
use super::staged::Before;
use super::workspace::Workspace;
use super::{Base, OpResult, StageError};
use crate::digest::sha256_hex;
use crate::failure::OpFailure;
use crate::notes::FileNote;
use crate::path::{RelPath, Root};
use crate::report::{FileReport, Outcome};
use crate::text::TextFile;
use std::collections::HashMap;
use std::sync::Arc;

/// The bases whose file changed since the read, by the file's key, with the snapshot to run
/// the operations against; a base whose file is unchanged is only a check that it still is.
pub(super) fn stale_bases(
    root: &Root,
    bases: &[Base],
) -> Result<HashMap<RelPath, Arc<Vec<u8>>>, StageError> {
    let mut stale = HashMap::new();
    for base in bases {
        let rel = root.rel(&base.path)?;
        let key = root.resolve(&rel, true)?.real;
        let now = root
            .read_regular(&key)
            .ok_or_else(|| StageError::ExpectedMissing {
                path: rel.to_string(),
                expected: base.sha256.clone(),
            })?;
        if sha256_hex(&now).eq_ignore_ascii_case(base.sha256.trim()) {
            continue;
        }
        let snapshot = base
            .snapshot
            .clone()
            .filter(|s| sha256_hex(s).eq_ignore_ascii_case(base.sha256.trim()))
            .ok_or_else(|| StageError::NoSnapshot {
                path: rel.to_string(),
                sha256: base.sha256.clone(),
            })?;
        stale.insert(key, snapshot);
    }
    Ok(stale)
}

impl Workspace<'_> {
    /// Merges each rebased file's result (the operations ran on what the model read) into the
    /// file as it is now; a conflict, or a deletion of a file that changed, fails the last
    /// operation on it and leaves the file as it is.
    pub(super) fn merge_rebased(&mut self, reports: &mut [OpResult]) {
        for entry in self.entries.values_mut() {
            let Some(read) = entry.rebase_from.take() else {
                continue;
            };
            let Before::File { bytes: now, .. } = &entry.disk else {
                continue;
            };
            let edited = entry.current.replace(now.clone());
            let Some(Ok(report)) = reports
                .iter_mut()
                .find(|(i, _)| *i == entry.last_op)
                .map(|(_, r)| r)
            else {
                continue;
            };
            if matches!(report.status, Outcome::Failed | Outcome::Ambiguous) {
                continue;
            }
            let path = report.path.clone();
            match edited {
                None => fail_rebase(report, OpFailure::DeleteChanged { path }),
                Some(edited) if edited == *read => {}
                Some(edited) => match crate::rebase::merge(&read, now, &edited) {
                    Ok(merged) => {
                        renumber_rebased(report, &merged.read_to_now, &edited, &merged.bytes);
                        let already_there = merged.bytes == *now;
                        report.noted.push(match already_there {
                            true => FileNote::RebasedAlreadyThere,
                            false => FileNote::Rebased(merged.read_to_now.changed_lines()),
                        });
                        if already_there {
                            report.status = Outcome::AlreadyApplied;
                            for h in &mut report.hunks {
                                h.status = Outcome::AlreadyApplied;
                            }
                        }
                        report.diff = std::str::from_utf8(now)
                            .ok()
                            .zip(std::str::from_utf8(&merged.bytes).ok())
                            .map(|(a, b)| unified_diff(&path, Some(a), Some(b)));
                        entry.current = Some(merged.bytes);
                    }
                    Err(regions) => {
                        fail_rebase(report, OpFailure::RebaseConflict { path, regions });
                    }
                },
            }
        }
    }
}

/// Renumbers a rebased operation's report into the file as it is (hunk places were found in
/// what the model read; snippets were cut from the snapshot with the edit) and cuts each
/// snippet again from the merged file.
fn renumber_rebased(
    report: &mut FileReport,
    to_now: &crate::line_map::LineMap,
    edited: &[u8],
    merged: &[u8],
) {
    let to_merged = crate::line_map::LineMap::between(edited, merged);
    let merged_text = String::from_utf8_lossy(merged);
    let merged_file = TextFile::new(&merged_text);
    for h in &mut report.hunks {
        h.start_line = h.start_line.map(|l| to_now.forward(l));
        h.end_line = h.end_line.map(|l| to_now.forward(l));
        for m in &mut h.matches {
            *m = [to_now.forward(m[0]), to_now.forward(m[1])];
        }
        if let (Some(first), Some(last)) = (h.snippet.first(), h.snippet.last()) {
            let (from, to) = (to_merged.forward(first.line), to_merged.forward(last.line));
            h.snippet = (from..=to.max(from))
                .filter(|&l| l >= 1 && l <= merged_file.len())
                .map(|l| numbered(&merged_file, l - 1))
                .collect();
        }
    }
}

/// Fails an operation whose rebase could not be made.
fn fail_rebase(report: &mut FileReport, failure: OpFailure) {
    report.status = Outcome::Failed;
    report.kind = Some(failure.kind());
    report.failure = Some(Arc::new(failure));
    report.diff = None;
}
