//! What a batch did, as data: each operation's and hunk's outcome as staging finds it, the
//! batch's status, and what each feature found (a rename's sites, a mod's rules). The facade's
//! `Report` carries these to every surface (CLI text, `--json`, MCP); its words — what applied
//! and how, or for a refusal, what was wrong, where, the nearest real text and what to send
//! next — are written by the facade's renderer (`src/report/render/`), not here.

use crate::failure::{HunkFailure, OpFailure};
pub use crate::kinds::ErrorKind;
use crate::locate::Tier;
use crate::locate::closest::{Closest, NumberedLine};
use schemars::JsonSchema;
use serde::Serialize;

/// The outcome of a whole batch; it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every operation was written.
    Applied,
    /// Every change was already in place; nothing was written.
    AlreadyApplied,
    /// A mod (or a `--exec` command) found nothing to change: no site matched its rules, which
    /// says nothing of whether it ran before. Nothing was written.
    NothingMatched,
    /// `--dry-run`: everything would apply; nothing was written.
    DryRun,
    /// Something could not be applied; nothing was written.
    Refused,
    /// The batch was written, the test command failed, and the batch was rolled back.
    TestFailed,
    /// `--partial`: what located was written, the rest is reported (exit 1).
    Partial,
    /// The edit text or command line is malformed; nothing was written.
    Malformed,
    /// The environment failed (I/O); see `message` for whether files are intact.
    Error,
}

impl Status {
    /// The documented, stable exit code: 0 applied (or nothing to do), 1 refused (or only partly applied), 2 malformed
    /// input, 3 the tests failed and the batch was rolled back, 4 the environment failed.
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Applied | Status::AlreadyApplied | Status::NothingMatched | Status::DryRun => 0,
            Status::Refused | Status::Partial => 1,
            Status::Malformed => 2,
            Status::TestFailed => 3,
            Status::Error => 4,
        }
    }
}

/// What an operation does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Create a file.
    Add,
    /// Change a file in place.
    Update,
    /// Remove a file.
    Delete,
    /// Change and rename a file.
    Move,
}

impl Action {
    /// The one-letter code of the human report (A/M/D/R).
    pub fn letter(self) -> char {
        match self {
            Action::Add => 'A',
            Action::Update => 'M',
            Action::Delete => 'D',
            Action::Move => 'R',
        }
    }
}

/// The outcome of one operation or hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Applied (in a dry run: would apply).
    Applied,
    /// Already in place; nothing to do.
    AlreadyApplied,
    /// Could not be applied.
    Failed,
    /// Matched in several places; refused.
    Ambiguous,
    /// Located, but not written: `--bisect` found the tests fail with it.
    HeldBack,
}

/// How many candidates, lines or places a report lists before it says "and N more": a refusal
/// stays short however many places match.
pub const MAX_LISTED: usize = 20;

/// One hunk's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HunkReport {
    /// 1-based position of the hunk within its operation.
    pub index: usize,
    /// What happened.
    pub status: Outcome,
    /// The matcher tier that located it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// First matched line (1-based) in the file before the edit; for a pure insertion, the line
    /// after which the new lines go (0 = top of file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Last matched line (1-based, inclusive); equal to `start_line` for an insertion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Whether the hunk only inserts lines (after `start_line`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub insertion: bool,
    /// Every matched range `[start, end]` when the hunk replaced several places.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<[usize; 2]>,
    /// 1-based line of the edit text where the hunk starts; left out where no edit text was
    /// sent (rename, mod, undo).
    #[serde(skip_serializing_if = "no_edit_text")]
    pub edit_line: usize,
    /// A stable failure kind: `no_match`, `ambiguous`, `count_mismatch`, `context_not_found`,
    /// `placeholder`, `elision_mismatch`, `overlap`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For ambiguity: the candidates' 1-based start lines (the first
    /// [`MAX_LISTED`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// How many candidates there are, when more than are listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates_total: Option<usize>,
    /// For a miss: the closest real lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
    /// For a change: the result around it, numbered (a few lines of context on each side).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snippet: Vec<NumberedLine>,
    /// What a model must know about how the place was chosen: candidates a format's contract
    /// passed over ("first of 3 matches"), context lines that differed and were kept as is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Those notes as facts; the renderer words them into `notes` when the report is built.
    #[serde(skip)]
    pub noted: Vec<crate::notes::HunkNote>,
    /// Why it failed, as facts; the renderer words them into `error` when the report is
    /// built, in the vocabulary of the surface that shows it.
    #[serde(skip)]
    pub failure: Option<Box<HunkFailure>>,
}

impl FileReport {
    /// A report for one operation on `path`, to be filled in.
    pub fn new(path: String, action: Action, edit_line: usize) -> Self {
        FileReport {
            path,
            action,
            to: None,
            status: Outcome::Applied,
            edit_line,
            hunks: Vec::new(),
            kind: None,
            error: None,
            notes: Vec::new(),
            noted: Vec::new(),
            diff: None,
            failure: None,
        }
    }
}

impl HunkReport {
    /// A hunk report to be filled in, for the hunk at 1-based `index` from edit line `edit_line`.
    pub fn new(index: usize, edit_line: usize) -> Self {
        HunkReport {
            index,
            status: Outcome::Applied,
            tier: None,
            start_line: None,
            end_line: None,
            insertion: false,
            matches: Vec::new(),
            edit_line,
            kind: None,
            error: None,
            candidates: Vec::new(),
            candidates_total: None,
            closest: None,
            snippet: Vec::new(),
            notes: Vec::new(),
            noted: Vec::new(),
            failure: None,
        }
    }

    /// Records the candidates of an ambiguity: the first [`MAX_LISTED`], and
    /// how many there are when that is more.
    pub fn set_candidates(&mut self, mut candidates: Vec<usize>) {
        let total = candidates.len();
        if total > MAX_LISTED {
            candidates.truncate(MAX_LISTED);
            self.candidates_total = Some(total);
        }
        self.candidates = candidates;
    }
}

/// One operation's outcome.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileReport {
    /// The path operated on, relative to the root (the source, for a move).
    pub path: String,
    /// What the operation does.
    pub action: Action,
    /// The destination of a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What happened.
    pub status: Outcome,
    /// 1-based line of the edit text that introduced the operation; left out where no edit
    /// text was sent (rename, mod, undo).
    #[serde(skip_serializing_if = "no_edit_text")]
    pub edit_line: usize,
    /// Per-hunk outcomes (updates only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkReport>,
    /// A stable kind for a whole-operation failure (see [`ErrorKind`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    /// Why the operation failed, when it failed as a whole (missing file, not UTF-8, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a model must know about how the whole operation was carried out (a sketch's
    /// markers expanded, an edit rebased over changes made since the model read the file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Those notes as facts; the renderer words them into `notes` when the report is built.
    #[serde(skip)]
    pub noted: Vec<crate::notes::FileNote>,
    /// A unified diff of what the operation changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why the operation failed as a whole, as facts; the renderer words them into `error`
    /// when the report is built, in the vocabulary of the surface that shows it.
    #[serde(skip)]
    pub failure: Option<std::sync::Arc<OpFailure>>,
}

/// Whether an `edit_line` names no line of edit text (0: a batch lancet built itself).
fn no_edit_text(line: &usize) -> bool {
    *line == 0
}
