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
    /// Files the gate had not judged when the batch's time was up (`gate_timeout`): the batch
    /// is refused, as a file is never written unjudged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unjudged: Vec<String>,
}

impl SyntaxReport {
    /// Whether the batch may not be written: it introduces errors, or a file was not judged.
    pub fn refuses(&self) -> bool {
        !self.errors.is_empty() || !self.unjudged.is_empty()
    }
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
    /// The caller cancelled the call before the verdict (over MCP, `notifications/cancelled`):
    /// the command's group was stopped and the batch is rolled back, whatever the command did.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// How long it ran, in milliseconds.
    pub duration_ms: u128,
    /// Its output, cut to what a model needs.
    pub output: String,
    /// What confined it, when it ran in lancet's sandbox (`None`: unconfined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// What `--bisect` did after the command failed on the whole batch (`None`: no bisection).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bisect: Option<Bisection>,
}

impl TestRun {
    /// Whether the run was stopped from outside (a stop signal, a cancelled call) rather than
    /// judged: nothing more is run after it.
    pub fn stopped(&self) -> bool {
        self.interrupted_by.is_some() || self.cancelled
    }
}

/// How a bisection ended: what a caller must know before reading the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BisectOutcome {
    /// The culprits were held back and the rest of the batch written; the tests passed on it.
    HeldBack,
    /// The bound on test runs was reached first: the whole batch was rolled back.
    OutOfRuns,
    /// Every file was held back, so nothing of the batch passes: nothing written.
    NothingPasses,
    /// The tests passed on a set of files, then failed on the same files: nothing written.
    Inconsistent,
    /// A stop signal ended a run: nothing written.
    Interrupted,
}

/// A file `--bisect` held back, with the run that showed it: the tests failed with it and the
/// files before it written, and passed with only those files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Culprit {
    /// Its paths: one, or a move's source and destination (moved together).
    pub paths: Vec<String>,
    /// How many other files of the batch were written in that run.
    pub alongside: usize,
    /// That run's exit code (none when killed).
    pub exit_code: Option<i32>,
    /// Whether that run timed out.
    pub timed_out: bool,
    /// That run's output, cut as the report's test output is.
    pub output: String,
}

/// What `--bisect` did: the runs, the files held back and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Bisection {
    /// How it ended.
    pub outcome: BisectOutcome,
    /// Test runs in all, the first (the whole batch) included.
    pub runs: usize,
    /// The bound on runs (`--bisect-max-runs`).
    pub max_runs: usize,
    /// How many files it bisected over: each path alone, a move's two paths as one.
    pub files: usize,
    /// The culprits found (for an outcome other than `held_back`: found before it stopped).
    pub culprits: Vec<Culprit>,
    /// Every path of the batch left unwritten: the culprits' paths when the rest was written,
    /// every path otherwise.
    pub held_back: Vec<String>,
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
    /// Paths the door would not put back: their restore would have made a directory look like
    /// a git repository (another path of it changed meanwhile). They keep the batch's content;
    /// their pre-image is kept (in `kept_pre_images`).
    pub refused: Vec<String>,
}

impl Rollback {
    /// Whether every path is back to its pre-image.
    pub fn intact(&self) -> bool {
        self.conflicts.is_empty() && self.failed.is_empty() && self.refused.is_empty()
    }

    /// Whether the rollback finished (nothing left to retry): the journal may go.
    pub fn finished(&self) -> bool {
        self.failed.is_empty()
    }
}
