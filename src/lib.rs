//! # lancet — transactional multi-file edits for AI coding agents and code mods
//!
//! Lancet takes edit text in the formats language models write (today: the Codex
//! `*** Begin Patch` format), locates every hunk with a ladder of matchers that never guesses
//! between two candidates, stages every resulting file in memory, and writes them all or none.
//!
//! The pipeline runs one way, one module per stage, with plain data between them:
//!
//! ```text
//! edit text ─format─▶ Batch ─stage (locate + splice)─▶ StagedFile[] ─store─▶ disk
//!                                                                     └──▶ Report
//! ```
//!
//! ```no_run
//! let opts = lancet::ApplyOptions::new(std::path::PathBuf::from("."));
//! let report = lancet::apply(b"*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n", &opts);
//! println!("{}", report.message);
//! std::process::exit(report.exit_code().into());
//! ```
#![deny(missing_docs)]

pub mod batch;
pub mod check;
pub mod cli;
mod failpoint;
pub mod format;
pub mod locate;
pub mod path;
pub mod read;
pub mod report;
pub mod stage;
pub mod store;
pub mod syntax;
pub mod text;

use batch::Batch;
use format::{FormatChoice, ParseOptions};
use path::Root;
use report::{Report, Status};
use stage::{Expectation, StageError};
use std::path::PathBuf;
use store::{CommitError, WriteOptions};
use syntax::GateOptions;

/// How to apply a batch.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// The directory every path is confined to.
    pub root: PathBuf,
    /// Which format to read edit text as.
    pub format: FormatChoice,
    /// Compute and report everything, write nothing.
    pub dry_run: bool,
    /// Refuse unless these files still have these hashes.
    pub expect: Vec<Expectation>,
    /// fsync files and directories when writing.
    pub fsync: bool,
    /// Parser options (the default path for blocks naming no file).
    pub parse: ParseOptions,
    /// Write what located even when some hunks failed (reported; exit 1).
    pub partial: bool,
    /// Refuse a batch that introduces syntax errors (tree-sitter).
    pub syntax_check: bool,
    /// Also run languages' external check commands (e.g. `python3 -m py_compile`).
    pub compile_check: bool,
}

impl ApplyOptions {
    /// Defaults: auto-detected format, real run, fsync on.
    pub fn new(root: PathBuf) -> Self {
        ApplyOptions {
            root,
            format: FormatChoice::Auto,
            dry_run: false,
            expect: Vec::new(),
            fsync: true,
            parse: ParseOptions::default(),
            partial: false,
            syntax_check: true,
            compile_check: true,
        }
    }
}

/// Parses edit text and applies it; every outcome, including malformed input, is a report.
pub fn apply(edit: &[u8], opts: &ApplyOptions) -> Report {
    let parsed =
        format::decode(edit).and_then(|text| format::parse(text, opts.format, &opts.parse));
    match parsed {
        Ok(batch) => apply_batch(&batch, opts),
        Err(e) => Report::malformed(&e, None),
    }
}

/// Applies an already parsed batch: stage everything in memory, then write all or nothing.
pub fn apply_batch(batch: &Batch, opts: &ApplyOptions) -> Report {
    let root = match Root::new(&opts.root) {
        Ok(r) => r,
        Err(e) => {
            return Report::batch_error(
                Status::Error,
                "io",
                format!("cannot open the root {}: {e}", opts.root.display()),
                "Pass an existing directory with -C.",
            );
        }
    };
    let staged = match stage::stage(&root, batch, &opts.expect, opts.partial) {
        Ok(s) => s,
        Err(e) => return stage_error_report(e),
    };
    let format = batch.format.name();
    let notes = batch.notes.clone();
    let status = match (staged.failed(), opts.partial) {
        (true, false) => return Report::from_ops(Status::Refused, format, staged.reports, notes),
        (true, true) if staged.files.is_empty() => {
            return Report::from_ops(Status::Refused, format, staged.reports, notes);
        }
        (true, true) => Status::Partial,
        (false, _) => Status::Applied,
    };
    if staged.files.is_empty() {
        return Report::from_ops(Status::AlreadyApplied, format, staged.reports, notes);
    }
    let syntax = opts.syntax_check.then(|| {
        syntax::gate(
            &staged.files,
            GateOptions {
                compile_check: opts.compile_check,
            },
        )
    });
    if let Some(report) = &syntax
        && !report.errors.is_empty()
    {
        return Report::from_ops(Status::Refused, format, staged.reports, notes)
            .with_syntax(syntax);
    }
    if opts.dry_run {
        return Report::from_ops(Status::DryRun, format, staged.reports, notes).with_syntax(syntax);
    }
    match store::commit(&staged.files, WriteOptions { fsync: opts.fsync }) {
        Ok(()) => Report::from_ops(status, format, staged.reports, notes).with_syntax(syntax),
        Err(e @ CommitError::Stale { .. }) => Report::batch_error(
            Status::Refused,
            "stale",
            e.to_string(),
            "Something else wrote the file meanwhile: re-read it and resend the edit.",
        ),
        Err(e @ CommitError::Io { .. }) => Report::batch_error(
            Status::Error,
            "io",
            e.to_string(),
            "Check permissions and free space, then resend the edit.",
        ),
    }
}

fn stage_error_report(e: StageError) -> Report {
    match e {
        StageError::Path(p) => Report::batch_error(
            Status::Refused,
            "unsafe_path",
            p.to_string(),
            "Use a path relative to the root, inside it, and outside .git.",
        ),
        StageError::Stale { .. } => Report::batch_error(
            Status::Refused,
            "stale",
            e.to_string(),
            "Re-read the file (lancet read PATH) and rebuild the edit from what it holds now.",
        ),
        StageError::Io { .. } => Report::batch_error(
            Status::Error,
            "io",
            e.to_string(),
            "Nothing was written; check the path and permissions.",
        ),
    }
}
