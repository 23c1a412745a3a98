//! The report and its words, in one top room: the [`Report`] every surface shows, what it
//! carries, and the renderer (`render`) that words every fact below it — the engine's failures,
//! the gate's and the tests' verdicts, each feature's outcomes and refusals — in the vocabulary
//! of the surface that shows it ([`Surface`]). The engine (`lancet-core`) and the features hand
//! this room facts; no sentence is composed below it.

mod facts;
mod frame;
mod read_back;
pub(crate) mod render;

pub use facts::*;
pub use frame::{BatchError, Provenance, Report, Surface};
pub use lancet_core::report::*;
pub use read_back::{StepOutcome, StepReport, StepReportError};
pub use render::{InWords, checkpoints_in_words, parsed_edit_bytes};
