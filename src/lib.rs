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
//! ```no_run
//! let opts = lancet::ApplyOptions::new(std::path::PathBuf::from("."));
//! let report = lancet::apply(b"*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n", &opts);
//! println!("{}", report.message);
//! std::process::exit(report.exit_code().into());
//! ```
#![deny(missing_docs)]

// `lap` and `apply_batch_prechecked` (below) stay reachable at the root for `src/rename`.
use lancet_core::timing::lap;
pub use lancet_core::{
    anchors, batch, digest, encoding, format, locate, path, report, stage, staged, text, verdicts,
};
pub use lancet_store as store;
pub use lancet_syntax as syntax;

mod check;
mod config;
mod guard;
mod history;
mod pipeline;
mod progress;
mod read;
mod reaper;
mod rename;
pub mod sandbox;
mod verify;

pub use check::{CheckError, CheckOptions, Checked, check};
pub use config::trust::{PersonFiles, Trust, TrustRecord};
pub use config::{CONFIG_FILE, Config, ConfigError, GUARDED_KEYS, Ignored, RepositorySettings};
pub use history::{UndoOptions, format_time, log, recover, recover_if_needed, undo, undo_written};
pub(crate) use pipeline::apply_batch_prechecked;
pub use pipeline::{Applied, ApplyOptions, apply, apply_batch, apply_batch_written};
pub use progress::{Observer, PROGRESS_THRESHOLD, Watch};
pub use read::{ReadError, ReadView, read, read_only};
pub use rename::lsp::{Confinement, LanguageServers, Lsp};
pub use rename::{RenameOptions, rename, rename_written};
pub use verify::{TestRun, run_tests};
