//! What the phases after staging found, as data a report carries: the syntax gate's findings,
//! a test run, a rollback. The phases live in crates above this one; their results are plain
//! data here, so the report (and everything that renders it) needs none of them.

use schemars::JsonSchema;
use serde::Serialize;
use std::path::PathBuf;

/// One syntax error the gate found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SyntaxError {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// What is wrong: `ERROR`, `MISSING )`, or the check command's verdict.
    pub kind: String,
    /// Who found it: `tree-sitter` or the check command.
    pub checker: String,
    /// A few lines of the new text around the error, with a caret under it.
    pub excerpt: String,
}

/// What the gate did to a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SyntaxReport {
    /// Files parsed, as `path (language)`.
    pub checked: Vec<String>,
    /// Files of no known language (or whose grammar is compiled out), with the reason.
    pub unchecked: Vec<String>,
    /// Errors the batch introduces (for `lancet check`: every error).
    pub errors: Vec<SyntaxError>,
    /// Errors that were there before the batch and are still there: reported, not blocking.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preexisting: Vec<SyntaxError>,
    /// Things worth knowing (a check tool missing, a parse given up on).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What a test run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TestRun {
    /// The command, as given.
    pub command: String,
    /// Whether it exited 0 in time.
    pub passed: bool,
    /// Its exit code (none when killed).
    pub exit_code: Option<i32>,
    /// Whether it ran out of time and was killed.
    pub timed_out: bool,
    /// The signal (`SIGTERM`, `SIGINT`, `SIGHUP`) that stopped lancet while the command ran:
    /// the command's group was stopped and the batch is rolled back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u128,
    /// Its output, cut to what a model needs.
    pub output: String,
    /// What confined it, when it ran in lancet's sandbox (`None`: unconfined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

impl TestRun {
    /// Why it did not pass, in a few words (`timed out`, `exited with 1`, …).
    pub fn why(&self) -> String {
        if let Some(signal) = &self.interrupted_by {
            format!("was stopped because lancet received {signal}")
        } else if self.timed_out {
            "timed out".to_string()
        } else {
            format!(
                "exited with {}",
                self.exit_code.map_or("a signal".into(), |c| c.to_string())
            )
        }
    }
}

/// What a rollback did, path by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rollback {
    /// The batch id.
    pub id: String,
    /// Paths put back to their pre-image.
    pub restored: Vec<String>,
    /// Paths that already held their pre-image.
    pub unchanged: Vec<String>,
    /// Paths holding neither the batch's content nor the pre-image: left alone.
    pub conflicts: Vec<String>,
    /// Paths whose restore failed (an I/O error): the journal and the pre-image are kept, so
    /// the next recovery tries again.
    pub failed: Vec<String>,
    /// Pre-images kept for conflicting paths (someone else's content stands; the original is
    /// here if it is wanted), outside the swept `pre/` directory.
    pub kept_pre_images: Vec<(String, PathBuf)>,
}

impl Rollback {
    /// Whether every path is back to its pre-image.
    pub fn intact(&self) -> bool {
        self.conflicts.is_empty() && self.failed.is_empty()
    }

    /// Whether the rollback finished (nothing left to retry): the journal may go.
    pub fn finished(&self) -> bool {
        self.failed.is_empty()
    }
}
