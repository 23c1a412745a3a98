//! # lancet — transactional multi-file edits for AI coding agents and code mods
//!
//! Lancet takes edit text in the formats language models write (Codex `*** Begin Patch`,
//! SEARCH/REPLACE blocks, unified diffs, `old_string`/`new_string` JSON, whole files; detected
//! automatically), locates every hunk with a ladder of matchers that never guesses between two
//! candidates, stages every resulting file in memory, checks their syntax, and writes them all
//! or none, with a git checkpoint to undo and an optional test run that rolls back on failure.
//!
//! This crate is the facade: the pipeline as named phases over the crates below it, and the
//! operations a caller runs ([`apply`], [`apply_batch`], [`rename`], [`undo`], [`log`],
//! [`recover`], [`read`], [`check`]). Data flows one way:
//!
//! ```text
//! edit text ─format─▶ Batch ─stage─▶ StagedFile[] ─gate─▶ checkpoint + commit ─▶ verify ─▶ Report
//!            lancet-core          lancet-core      lancet-syntax  lancet-store      (this crate)
//! ```
//!
//! See ARCHITECTURE.md for the crates and modules, one line each.
//!
//! # Using lancet from another program
//!
//! Apply an edit a model wrote, in any format lancet reads, and read what happened:
//!
//! ```
//! use lancet::{ApplyOptions, Status};
//!
//! let project = tempfile::tempdir()?;
//! let app = project.path().join("app.py");
//! std::fs::write(&app, "def greet(name):\n    return 'Hi ' + name\n")?;
//!
//! // A SEARCH/REPLACE block; a patch, a diff or JSON edits would do the same.
//! let edit = "app.py\n<<<<<<< SEARCH\n    return 'Hi ' + name\n=======\n    return 'Hello, ' + name\n>>>>>>> REPLACE\n";
//! let opts = ApplyOptions { checkpoint: false, ..ApplyOptions::new(project.path().into()) };
//! let applied = lancet::apply(edit.as_bytes(), &opts);
//!
//! // One report for the whole batch: every file and hunk, where it landed, and the message a
//! // model reads (for a refusal: what was wrong, where, the nearest real text, what to send).
//! let report = &applied.report;
//! assert_eq!(report.status, Status::Applied);
//! assert_eq!(report.files[0].hunks[0].start_line, Some(2));
//! println!("{}", report.message);
//!
//! // What it wrote, for a caller that keeps track of what the model has seen.
//! assert_eq!(applied.written[0].0, "app.py");
//! assert!(std::fs::read_to_string(&app)?.contains("Hello, "));
//! # Ok::<(), std::io::Error>(())
//! ```
#![deny(missing_docs)]

mod applied;
mod apply_options;
mod background;
mod bisect;
mod cancel;
mod check;
mod codemod;
mod config;
mod guard;
mod history;
mod kept;
mod move_symbol;
mod pipeline;
mod progress;
mod quarantine;
mod read;
mod rename;
mod report;
mod sandbox;
mod schema;
mod signature;
mod step;
mod verify;
mod walk;

// What a program using lancet needs: the operations, their options and results, and the data
// they take and give.
pub use applied::Applied;
pub use apply_options::ApplyOptions;
pub use cancel::Cancellation;
pub use check::{CheckError, CheckOptions, Checked, check};
pub use codemod::{ModOptions, ModSpec, RuleFile, codemod};
pub use config::trust::Trust;
pub use config::{Config, ConfigError, Ignored};
pub use history::{LogFilter, UndoOptions, finish_interrupted, log, recover, undo};
pub use kept::Kept;
pub use lancet_core::HardLinks;
pub use lancet_core::LineAnchor;
pub use lancet_core::Root;
pub use lancet_core::sha256_hex;
pub use lancet_core::{Base, Expectation};
pub use lancet_core::{Batch, FileOp, Format, Hunk, LineAction, LineEdit, Occurrences, OpKind};
pub use lancet_core::{ErrorKind, FileReport, Status};
pub use lancet_core::{FormatChoice, ParseError, ParseOptions, parse_bytes as parse};
pub use lancet_store::{CheckpointMeta, Retention};
pub use lancet_syntax::GateOptions;
pub use lancet_syntax::TreeCache;
pub use move_symbol::{MoveOptions, move_symbol};
pub use pipeline::{apply, apply_batch};
pub use progress::{Observer, Watch};
pub use read::{ReadError, ReadView, read, read_only};
pub use rename::lsp::{Confinement, LanguageServers, Lsp};
pub use rename::{RenameOptions, rename};
pub use report::{MoveRefusal, MoveSummary, SignatureRefusal, SignatureSummary, UnreadChange};
pub use report::{Provenance, Recovery, Report, Surface, SymbolKind};
pub use signature::{ParamChange, SignatureOptions, change_signature};
pub use verify::TestRun;

/// What lancet's own surfaces (the CLI, the MCP server) use beyond the library's interface:
/// their renderings of what they print besides a report, the JSON schemas they publish, the
/// person's settings trust, a fleet step's reports read back, the languages `lancet languages`
/// lists, the edits of a JSON-lines input, and the MCP server's worker threads. Not an interface: it changes with them.
#[doc(hidden)]
pub mod surfaces {
    pub use crate::codemod::mod_languages;
    pub use crate::config::RepositorySettings;
    pub use crate::config::trust::PersonFiles;
    pub use crate::rename::renameable_languages;
    pub use crate::report::{
        InWords, StepOutcome, StepReport, StepReportError, checkpoints_in_words, parsed_edit_bytes,
    };
    pub use crate::schema::{Contract, Schema, schema_for};
    pub use crate::step::provenance;
    pub use lancet_core::parse_json_lines;
    /// A long-lived caller's worker threads started with this stack, and saying so, run the
    /// precise parsers without starting a thread per edit (the MCP server's).
    pub use lancet_syntax::{PARSER_STACK, thread_has_parser_stack};
}

/// The crates below the facade, whole, for lancet's own benches, fuzz targets and tests: not
/// an interface (it changes with them).
#[doc(hidden)]
pub mod internals {
    pub use lancet_core::{
        anchors, batch, digest, encoding, format, locate, path, report, stage, staged, text,
        timing, verdicts,
    };
    pub use lancet_store as store;
    pub use lancet_syntax as syntax;
}
