//! The report's frame: the one value every surface shows (CLI text, `--json`, MCP), what it
//! carries as data, and who reads its words ([`Surface`]).

use crate::report::{
    ErrorKind, FileReport, ModSummary, MoveSummary, RenameSummary, SignatureSummary, Status,
};
use lancet_core::ParseError;
use lancet_core::verdicts::{SyntaxReport, TestRun};
use schemars::JsonSchema;
use serde::Serialize;

/// Who reads a report's advice. Each surface has its own vocabulary: a model over MCP can call
/// `read_file` but not run `lancet read`, so "what to send next" names that surface's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Surface {
    /// The command line (and the library, whose callers read the CLI's words).
    #[default]
    Cli,
    /// The MCP server's tools.
    Mcp,
}

/// A batch-level problem: malformed text, unsafe path, stale file, I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BatchError {
    /// A stable kind (see [`ErrorKind`]).
    pub kind: ErrorKind,
    /// 1-based line of the edit text, when it applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The offending text, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// What was expected instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The explanation.
    pub detail: String,
}

/// Everything a batch did, and the message a model should read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Report {
    /// The batch's outcome.
    pub status: Status,
    /// The edit format the text was read as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// One entry per operation, in edit order.
    pub files: Vec<FileReport>,
    /// Leniencies applied while reading the edit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A batch-level problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<BatchError>,
    /// What the syntax gate checked and found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax: Option<SyntaxReport>,
    /// The checkpoint recording the batch (`lancet undo <id>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// The test run (`--test`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<TestRun>,
    /// What `lancet rename` found: sites, definitions, mentions left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<RenameSummary>,
    /// What `lancet mod` found: the rules run and every site they rewrote.
    #[serde(rename = "mod", skip_serializing_if = "Option::is_none")]
    pub codemod: Option<ModSummary>,
    /// What `lancet signature` changed: the definitions, every call updated, the sites left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<SignatureSummary>,
    /// What `lancet move` moved: the symbol, from where to where, every import and use updated.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub moved: Option<MoveSummary>,
    /// Where and from what this report came (`--provenance`): what a fleet engine keeps beside
    /// each repository's report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// The text to show a model or a person.
    pub message: String,
    /// Set by [`Report::brief`]: the text form lists at most a few chunks per file.
    #[serde(skip)]
    pub compact: bool,
}

/// Where a report came from: enough to tell, across hundreds of repositories, which lancet ran
/// what edit on which commit, and for how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Provenance {
    /// lancet's version.
    pub lancet_version: String,
    /// The root the command ran on (absolute).
    pub root: String,
    /// The repository: its `origin` remote's URL when it has one, else the root's name.
    pub repository: String,
    /// The commit HEAD named when the command started (none outside git or before the first
    /// commit): the base the change applies to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    /// The SHA-256 of the edit, rule or command: equal across repositories for the same step.
    pub edit_sha256: String,
    /// How long the command took, in milliseconds.
    pub duration_ms: u64,
}

impl Report {
    /// The process exit code for this report.
    pub fn exit_code(&self) -> u8 {
        self.status.exit_code()
    }

    /// A report for malformed edit text.
    pub fn malformed(e: &ParseError, input: Option<&str>) -> Report {
        let place = match input {
            Some(name) => format!("{name} line {}", e.line),
            None => format!("line {}", e.line),
        };
        let message = format!(
            "Malformed edit, nothing was written. At {place}: {}\n  found:    {:?}\n  expected: {}\nFix that line and resend the whole edit.",
            e.message, e.found, e.expected
        );
        Report {
            error: Some(BatchError {
                kind: ErrorKind::Malformed,
                line: Some(e.line),
                found: Some(e.found.clone()),
                expected: Some(e.expected.clone()),
                detail: e.message.clone(),
            }),
            ..Report::note_only(Status::Malformed, &message)
        }
    }

    /// A report for a batch refused or failed as a whole, before or while writing.
    pub fn batch_error(status: Status, kind: ErrorKind, detail: String, next: &str) -> Report {
        let lead = match status {
            Status::Error => "Environment failure",
            _ => "Refused, nothing was written",
        };
        let message = format!("{lead}: {detail}\n{next}");
        Report {
            error: Some(BatchError {
                kind,
                line: None,
                found: None,
                expected: None,
                detail,
            }),
            ..Report::note_only(status, &message)
        }
    }

    /// A report that is only a message (recover, nothing to do): every other report starts
    /// from it.
    pub fn note_only(status: Status, message: &str) -> Report {
        Report {
            status,
            format: None,
            files: Vec::new(),
            notes: Vec::new(),
            error: None,
            syntax: None,
            checkpoint: None,
            test: None,
            rename: None,
            codemod: None,
            signature: None,
            moved: None,
            provenance: None,
            message: message.to_string(),
            compact: false,
        }
    }

    /// A report over per-file outcomes with a ready message (undo).
    pub(crate) fn from_files(status: Status, files: Vec<FileReport>, message: String) -> Report {
        Report {
            files,
            ..Report::note_only(status, &message)
        }
    }

    /// Adds a note (e.g. an interrupted batch recovered first) to the notes and the message.
    pub(crate) fn with_note(mut self, note: String) -> Report {
        self.message = format!("Note: {note}.\n{}", self.message);
        self.notes.push(note);
        self
    }
}
