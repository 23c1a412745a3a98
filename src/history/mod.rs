//! Batch history, one room per job: a batch's id and checkpoint record ([`checkpoint`]), crash
//! recovery ([`recovery`]), `lancet log` ([`log`]) and `lancet undo` ([`undo`]).

mod checkpoint;
mod log;
mod recovery;
mod undo;

pub(crate) use checkpoint::record_checkpoint;
pub use checkpoint::{meta_for, new_batch_id};
pub use log::{LogFilter, log};
pub(crate) use recovery::recover_if_needed;
pub use recovery::{finish_interrupted, recover};
pub use undo::{UndoOptions, undo};
