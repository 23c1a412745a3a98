//! The report: one value describing what a batch did, rendered for people, models and programs.
//!
//! Every surface (CLI text, `--json`, later MCP) renders the same [`Report`]. Its `message` is
//! the text a model should read: what applied and how, or for a refusal, what was wrong, where,
//! the nearest real text and what to send next.

use crate::format::ParseError;
use crate::locate::Tier;
use crate::locate::closest::Closest;
use serde::Serialize;
use std::fmt::Write as _;

/// The outcome of a whole batch; it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every operation was written.
    Applied,
    /// Every change was already in place; nothing was written.
    AlreadyApplied,
    /// `--dry-run`: everything would apply; nothing was written.
    DryRun,
    /// Something could not be applied; nothing was written.
    Refused,
    /// The edit text or command line is malformed; nothing was written.
    Malformed,
    /// The environment failed (I/O); see `message` for whether files are intact.
    Error,
}

impl Status {
    /// The documented, stable exit code (DESIGN §9).
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Applied | Status::AlreadyApplied | Status::DryRun => 0,
            Status::Refused => 1,
            Status::Malformed => 2,
            Status::Error => 4,
        }
    }
}

/// What an operation does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

/// One hunk's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// 1-based line of the edit text where the hunk starts.
    pub edit_line: usize,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For ambiguity: every candidate's 1-based start line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// For a miss: the closest real lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
}

/// One operation's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// 1-based line of the edit text that introduced the operation.
    pub edit_line: usize,
    /// Per-hunk outcomes (updates only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkReport>,
    /// Why the operation failed, when it failed as a whole (missing file, not UTF-8, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A unified diff of what the operation changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// A batch-level problem: malformed text, unsafe path, stale file, I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchError {
    /// A stable kind: `malformed`, `unsafe_path`, `stale`, `io`.
    pub kind: &'static str,
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// The text to show a model or a person.
    pub message: String,
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
            status: Status::Malformed,
            format: None,
            files: Vec::new(),
            notes: Vec::new(),
            error: Some(BatchError {
                kind: "malformed",
                line: Some(e.line),
                found: Some(e.found.clone()),
                expected: Some(e.expected.clone()),
                detail: e.message.clone(),
            }),
            message,
        }
    }

    /// A report for a batch refused or failed as a whole, before or while writing.
    pub fn batch_error(status: Status, kind: &'static str, detail: String, next: &str) -> Report {
        let lead = match status {
            Status::Error => "Environment failure",
            _ => "Refused, nothing was written",
        };
        Report {
            status,
            format: None,
            files: Vec::new(),
            notes: Vec::new(),
            error: Some(BatchError {
                kind,
                line: None,
                found: None,
                expected: None,
                detail: detail.clone(),
            }),
            message: format!("{lead}: {detail}\n{next}"),
        }
    }

    /// Builds the report of a staged batch and writes its message.
    pub fn from_ops(
        status: Status,
        format: &'static str,
        files: Vec<FileReport>,
        notes: Vec<String>,
    ) -> Report {
        let mut report = Report {
            status,
            format: Some(format),
            files,
            notes,
            error: None,
            message: String::new(),
        };
        report.message = compose_message(&report);
        report
    }

    /// Human-readable rendering: one line per file, hunk lines, diffs, then the message.
    pub fn render_human(&self, color: bool) -> String {
        let mut out = String::new();
        for f in &self.files {
            let target = match &f.to {
                Some(to) => format!("{} -> {}", f.path, to),
                None => f.path.clone(),
            };
            let state = match f.status {
                Outcome::Applied => String::new(),
                Outcome::AlreadyApplied => "  (already applied)".into(),
                Outcome::Failed | Outcome::Ambiguous => "  (FAILED)".into(),
            };
            let _ = writeln!(out, "{} {target}{state}", f.action.letter());
            for h in &f.hunks {
                let _ = writeln!(out, "  {}", hunk_summary(h));
            }
        }
        for f in &self.files {
            if let Some(diff) = &f.diff {
                out.push_str(&colorize_diff(diff, color));
                if !diff.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        out.push_str(&self.message);
        if !self.message.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

fn hunk_summary(h: &HunkReport) -> String {
    let lines = match (h.start_line, h.end_line) {
        (Some(s), _) if h.insertion && h.status == Outcome::Applied => {
            format!("insert after line {s}")
        }
        (Some(s), Some(e)) if s == e => format!("line {s}"),
        (Some(s), Some(e)) => format!("lines {s}-{e}"),
        _ => String::new(),
    };
    match h.status {
        Outcome::Applied => format!(
            "chunk {}: {} ({})",
            h.index,
            lines,
            h.tier.map(Tier::name).unwrap_or("-")
        ),
        Outcome::AlreadyApplied => format!("chunk {}: already applied at {}", h.index, lines),
        Outcome::Failed => format!("chunk {}: not found", h.index),
        Outcome::Ambiguous => format!(
            "chunk {}: ambiguous (lines {})",
            h.index,
            join_lines(&h.candidates)
        ),
    }
}

/// Joins line numbers as `3, 7, 12`.
pub fn join_lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn colorize_diff(diff: &str, color: bool) -> String {
    if !color {
        return diff.to_string();
    }
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        let code = if line.starts_with("+++") || line.starts_with("---") {
            "1"
        } else if line.starts_with('+') {
            "32"
        } else if line.starts_with('-') {
            "31"
        } else if line.starts_with("@@") {
            "36"
        } else {
            ""
        };
        if code.is_empty() {
            out.push_str(line);
        } else {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let _ = write!(out, "\x1b[{code}m{body}\x1b[0m");
            if line.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

fn op_label(f: &FileReport) -> String {
    match &f.to {
        Some(to) => format!("{} {} -> {}", f.action.letter(), f.path, to),
        None => format!("{} {}", f.action.letter(), f.path),
    }
}

fn compose_message(report: &Report) -> String {
    let mut msg = String::new();
    match report.status {
        Status::Refused => {
            let failed: Vec<&FileReport> = report
                .files
                .iter()
                .filter(|f| matches!(f.status, Outcome::Failed | Outcome::Ambiguous))
                .collect();
            let _ = writeln!(
                msg,
                "Refused, nothing was written: {} of {} operation(s) could not be applied.",
                failed.len(),
                report.files.len()
            );
            for f in failed {
                if let Some(e) = &f.error {
                    let _ = writeln!(msg, "- {} (edit line {}): {e}", op_label(f), f.edit_line);
                }
                for h in &f.hunks {
                    if matches!(h.status, Outcome::Failed | Outcome::Ambiguous) {
                        let _ = writeln!(
                            msg,
                            "- {} chunk {} (edit line {}): {}",
                            f.path,
                            h.index,
                            h.edit_line,
                            h.error.as_deref().unwrap_or("failed")
                        );
                    }
                }
            }
            msg.push_str(
                "Fix the failed part(s) and resend the whole edit: none of it was applied, not even the parts that matched.",
            );
        }
        Status::Applied | Status::DryRun | Status::AlreadyApplied => {
            let lead = match report.status {
                Status::Applied => "Applied",
                Status::DryRun => "Dry run, nothing was written; would apply",
                _ => "Nothing to do, every change is already in place",
            };
            let items: Vec<String> = report
                .files
                .iter()
                .map(|f| {
                    let mut s = op_label(f);
                    if f.status == Outcome::AlreadyApplied {
                        s.push_str(" (already applied)");
                    }
                    let loose: Vec<String> = f
                        .hunks
                        .iter()
                        .filter(|h| h.tier.is_some_and(|t| t != Tier::Exact))
                        .map(|h| {
                            format!(
                                "chunk {} matched at lines {}-{} only by tier {}",
                                h.index,
                                h.start_line.unwrap_or(0),
                                h.end_line.unwrap_or(0),
                                h.tier.map(Tier::name).unwrap_or("-")
                            )
                        })
                        .collect();
                    if !loose.is_empty() {
                        let _ = write!(s, " [{}]", loose.join("; "));
                    }
                    let already: Vec<String> = f
                        .hunks
                        .iter()
                        .filter(|h| h.status == Outcome::AlreadyApplied)
                        .map(|h| h.index.to_string())
                        .collect();
                    if !already.is_empty() && f.status != Outcome::AlreadyApplied {
                        let _ = write!(s, " [chunk {} already applied]", already.join(", "));
                    }
                    s
                })
                .collect();
            let _ = write!(msg, "{lead}: {}.", items.join(", "));
        }
        Status::Malformed | Status::Error => {}
    }
    for note in &report.notes {
        let _ = write!(msg, "\nNote: {note}.");
    }
    msg
}
