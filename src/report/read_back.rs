//! A step's report read back: what a fleet engine (a GitHub Actions matrix, Sourcegraph batch
//! changes, multi-gitter, GNU parallel) does with each repository's outcome, and the files a
//! report names as written or held back. Its words (a pull-request description, a summary of
//! many) are the renderer's (`render/step.rs`).
//!
//! The step contract: exit codes as ever (0 applied or nothing to do, 1 refused or written in
//! part, 2 malformed, 3 tests failed and rolled back, 4 environment); the report's `status`
//! tells applied, already applied, nothing matched, refused, tests failed and held back
//! (`partial`, with `--bisect`) apart; a second run over the same repository changes nothing
//! and exits 0; a repository is never left half-written (every batch is all or nothing).

use crate::report::Status;
use serde_json::Value;

/// What a fleet engine does with a repository's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// Written (and tested, when asked): open the pull request.
    Changed,
    /// `--dry-run`: it would change the repository; nothing was written.
    WouldChange,
    /// Every change already in place: nothing to do.
    AlreadyApplied,
    /// No site matched the mod: nothing to do.
    NothingMatched,
    /// Written in part, some files held back (`--bisect`) or failing (`--partial`): open the
    /// pull request as a draft, naming what was held back.
    HeldBack,
    /// Refused, nothing written: a person looks at why.
    Refused,
    /// The tests failed and the batch was rolled back: nothing written.
    TestsFailed,
    /// The edit or command line was malformed, or the environment failed.
    Failed,
}

impl StepOutcome {
    /// The outcome a report's status (as its JSON names it) means; `None` for no status of
    /// lancet's.
    pub fn of(status: &str) -> Option<StepOutcome> {
        Some(match status {
            "applied" => StepOutcome::Changed,
            "dry_run" => StepOutcome::WouldChange,
            "already_applied" => StepOutcome::AlreadyApplied,
            "nothing_matched" => StepOutcome::NothingMatched,
            "partial" => StepOutcome::HeldBack,
            "refused" => StepOutcome::Refused,
            "test_failed" => StepOutcome::TestsFailed,
            "malformed" | "error" => StepOutcome::Failed,
            _ => return None,
        })
    }

    /// The outcome of a status.
    pub fn of_status(status: Status) -> StepOutcome {
        let name = serde_json::to_value(status).unwrap_or_default();
        StepOutcome::of(name.as_str().unwrap_or_default()).unwrap_or(StepOutcome::Failed)
    }

    /// Every outcome, in the summary's order.
    pub const ALL: [StepOutcome; 8] = [
        StepOutcome::Changed,
        StepOutcome::WouldChange,
        StepOutcome::AlreadyApplied,
        StepOutcome::NothingMatched,
        StepOutcome::HeldBack,
        StepOutcome::Refused,
        StepOutcome::TestsFailed,
        StepOutcome::Failed,
    ];

    /// Whether a person must look at it (held back, refused, tests failed, failed).
    pub fn needs_attention(self) -> bool {
        matches!(
            self,
            StepOutcome::HeldBack
                | StepOutcome::Refused
                | StepOutcome::TestsFailed
                | StepOutcome::Failed
        )
    }
}

/// One repository's report as read back (`lancet report`).
#[derive(Debug, Clone)]
pub struct StepReport {
    /// Where it was read from (a file name), for errors and the summary.
    pub source: String,
    /// The repository it names (its provenance), else its source.
    pub repository: String,
    /// Its outcome.
    pub outcome: StepOutcome,
    /// The report as JSON.
    pub json: Value,
}

/// Why a report cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{from}: {why}")]
pub struct StepReportError {
    /// Where it was read from.
    pub from: String,
    /// What is wrong.
    pub why: String,
}

impl StepReport {
    /// Reads a report lancet printed with `--json` (`source` names it in errors).
    pub fn parse(source: &str, text: &str) -> Result<StepReport, StepReportError> {
        let fail = |why: String| StepReportError {
            from: source.to_string(),
            why,
        };
        let json: Value = serde_json::from_str(text).map_err(|e| {
            fail(format!(
                "not JSON ({e}); pass reports lancet printed with --json"
            ))
        })?;
        let status = json
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| fail("no \"status\": not a lancet report".into()))?;
        let outcome = StepOutcome::of(status)
            .ok_or_else(|| fail(format!("unknown status {status:?}: not a lancet report")))?;
        let repository = json
            .pointer("/provenance/repository")
            .and_then(Value::as_str)
            .unwrap_or(source)
            .to_string();
        Ok(StepReport {
            source: source.to_string(),
            repository,
            outcome,
            json,
        })
    }

    /// The string at a JSON pointer of the report.
    pub fn str_at(&self, pointer: &str) -> Option<&str> {
        self.json.pointer(pointer).and_then(Value::as_str)
    }

    /// The files written: (action, path) of each file the report says was applied.
    pub fn written(&self) -> Vec<(String, String)> {
        self.files()
            .filter(|f| f.get("status").and_then(Value::as_str) == Some("applied"))
            .map(|f| {
                let field =
                    |k: &str, or: &str| f.get(k).and_then(Value::as_str).unwrap_or(or).to_string();
                (field("action", "update"), field("path", "?"))
            })
            .collect()
    }

    /// The files held back (`--bisect`) or failing (`--partial`).
    pub fn held_back(&self) -> Vec<String> {
        self.files()
            .filter(|f| {
                matches!(
                    f.get("status").and_then(Value::as_str),
                    Some("held_back" | "failed" | "ambiguous")
                )
            })
            .filter_map(|f| f.get("path").and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    /// The report's files, as JSON.
    pub(crate) fn files(&self) -> impl Iterator<Item = &Value> {
        self.json
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_maps_to_an_outcome() {
        for status in [
            Status::Applied,
            Status::AlreadyApplied,
            Status::NothingMatched,
            Status::DryRun,
            Status::Refused,
            Status::TestFailed,
            Status::Partial,
            Status::Malformed,
            Status::Error,
        ] {
            let name = serde_json::to_value(status).unwrap();
            assert!(
                StepOutcome::of(name.as_str().unwrap()).is_some(),
                "{status:?} has no outcome"
            );
        }
        assert_eq!(
            StepOutcome::of_status(Status::Partial),
            StepOutcome::HeldBack
        );
        assert_eq!(
            StepOutcome::of_status(Status::NothingMatched),
            StepOutcome::NothingMatched
        );
        assert_eq!(
            StepOutcome::of_status(Status::DryRun),
            StepOutcome::WouldChange
        );
    }

    #[test]
    fn a_report_that_is_not_lancets_is_refused_naming_it() {
        let e = StepReport::parse("a.json", "{\"status\": 3}").unwrap_err();
        assert!(e.to_string().starts_with("a.json: no \"status\""), "{e}");
        let e = StepReport::parse("b.json", "not json").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = StepReport::parse("c.json", "{\"status\": \"done\"}").unwrap_err();
        assert!(e.to_string().contains("unknown status"), "{e}");
    }
}
