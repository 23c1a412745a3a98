//! # lancet-core — the edit model, the formats and the matcher, with no I/O beyond the root
//!
//! Everything lancet knows about an edit before anything is checked or written: the data model
//! ([`Batch`], [`StagedFile`], the outcomes staging fills ([`FileReport`]) and the one
//! [`ErrorKind`] list), text handling
//! ([`TextFile`]), confined paths ([`Root`]: every access through a handle on the root), the
//! seven format parsers ([`parse_bytes`]), the matcher ladder and staging ([`stage`]: locate
//! and splice every operation in memory), and failures as facts ([`OpFailure`], [`StageError`],
//! [`BatchFailure`]). Their words are not here: the report and its renderer are the facade's
//! (`src/report/`), the one room every sentence comes from. It depends on no git, parser, async
//! runtime, CLI or MCP crate; the fuzz targets need nothing else.
//!
//! Its place in the pipeline (the crates above it in brackets):
//!
//! ```text
//! edit text ─format─▶ Batch ─stage─▶ StagedFile[] + FileReport[] ─[lancet-syntax gate]─▶ [lancet-store commit] ─▶ [the facade's Report]
//! ```
#![deny(missing_docs)]

// The modules are the crate's rooms, reachable (hidden) by lancet's own benches, fuzz targets
// and tests; a crate above names what this list hands on. `failpoint`, `timing` and `work` are
// seams, named by their module.
#[doc(hidden)]
pub mod anchors;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod digest;
#[doc(hidden)]
pub mod encoding;
mod explain;
pub mod failpoint;
#[doc(hidden)]
pub mod failure;
#[doc(hidden)]
pub mod format;
#[doc(hidden)]
pub mod kinds;
#[doc(hidden)]
pub mod line_map;
#[doc(hidden)]
pub mod locate;
/// What a batch, an operation and a hunk tell the model beyond their outcome, as facts.
pub mod notes;
#[doc(hidden)]
pub mod path;
#[doc(hidden)]
pub mod plan;
#[doc(hidden)]
pub mod rebase;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod sized;
#[doc(hidden)]
pub mod sketch;
#[doc(hidden)]
pub mod stage;
#[doc(hidden)]
pub mod text;
pub mod timing;
#[doc(hidden)]
pub mod verdicts;
#[doc(hidden)]
pub mod work;
#[doc(hidden)]
pub use stage::staged;

// The edit model, the formats, staging, the report and what later phases hand it.
pub use anchors::{LineAnchor, line_hash};
pub use batch::{Batch, FileOp, Format, Hunk, LineAction, LineEdit, Occurrences, OpKind, Span};
pub use digest::sha256_hex;
pub use failure::{BatchFailure, Doing, HunkFailure, OpFailure, StageError, StateTrouble};
pub use format::{FormatChoice, JsonLine, ParseError, ParseOptions, parse_bytes, parse_json_lines};
pub use locate::closest::NumberedLine;
pub use path::{PathError, RelPath, Root};
pub use report::{Action, ErrorKind, FileReport, HunkReport, MAX_LISTED, Outcome, Status};
pub use stage::staged::{Before, HardLinks, StagedFile};
pub use stage::{Base, Expectation, StageOptions, Staged, stage};
pub use text::{NotUtf8, TextFile, TextStyle, line_of, line_starts, replace_ranges};
pub use verdicts::{
    BisectOutcome, Bisection, Culprit, Rollback, SyntaxError, SyntaxReport, TestRun,
};
