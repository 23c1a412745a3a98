//! # lancet-core — the edit model, the formats and the matcher, with no I/O beyond the root
//!
//! Everything lancet knows about an edit before anything is checked or written: the data model
//! ([`batch`], [`staged`], the [`report`] and its one [`report::ErrorKind`] list), text handling
//! ([`text`], [`encoding`]), confined paths ([`path`]: every access through a handle on the
//! root), the five format parsers ([`format`]), the matcher ladder ([`locate`]) and staging
//! ([`stage`]: locate + splice every operation in memory). It depends on no git, parser,
//! async runtime, CLI or MCP crate; the fuzz targets need nothing else.
//!
//! Its place in the pipeline (the crates above it in brackets):
//!
//! ```text
//! edit text ─format─▶ Batch ─stage─▶ StagedFile[] ─[lancet-syntax gate]─▶ [lancet-store commit] ─▶ Report
//! ```
#![deny(missing_docs)]

pub mod anchors;
pub mod batch;
pub mod digest;
pub mod encoding;
mod explain;
pub mod failpoint;
pub mod failure;
pub mod format;
pub mod kinds;
pub mod locate;
pub mod path;
pub mod plan;
pub mod rebase;
mod render;
pub mod report;
pub mod sketch;
pub mod stage;
pub use stage::staged;
pub mod text;
pub mod timing;
pub mod verdicts;
