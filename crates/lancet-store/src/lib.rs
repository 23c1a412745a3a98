//! Writing a staged batch to disk: all or nothing, also across a crash (a journal names every
//! target and its pre-image before the first write, and recovery finishes or undoes it). Every
//! write into the tree passes [`door`]: a change is admitted ([`admit`]: confinement, lancet's
//! settings, git repository lookalikes, hard links) before the commit takes it.
//!
//! 1. Every target is re-read and compared with what was staged (a file changed meanwhile →
//!    refused, nothing written).
//! 2. The journal (what will be written where, and every pre-image's hash) is written and
//!    fsynced, file and directory: from here a crash is repaired by the next lancet command.
//! 3. Each new content goes to a temp file beside its target (same directory: the rename is
//!    atomic and never crosses a file system), with the target's mode, fsynced.
//! 4. Each pre-image is kept: a hard link to the original (or a copy where links fail).
//! 5. Every temp file is renamed over its target (a deletion renames the target to its
//!    backup); the parent directories are fsynced.
//! 6. The journal is deleted: the commit point. Backups are then removed.
//!
//! An error at steps 3–6 rolls everything back through the journal, by content (the door's
//! rollback, which never completes a repository lookalike).
//!
//! # lancet-store
//!
//! This crate owns lancet's whole on-disk state: the state directory and its locks, the
//! journal, the all-or-nothing commit, the git checkpoints and their log, and the rollback
//! ledger. Its place in the pipeline:
//!
//! ```text
//! [lancet-core] StagedFile[] ─[lancet-syntax gate]─▶ commit (journal, checkpoint, writes) ─▶ disk
//! ```

#![deny(missing_docs)]

#[doc(hidden)]
pub mod checkpoint;
mod discover;
pub mod door;
#[doc(hidden)]
pub mod journal;
mod kept_repository;
#[doc(hidden)]
pub mod ledger;
mod locks;
mod packs;
mod repository;
mod retention;
#[doc(hidden)]
pub mod snapshots;
mod state;

pub use checkpoint::{CheckpointMeta, Checkpoints, Image, TestSummary, TouchedFile};
pub use door::{
    Admitted, Checks, CommitError, LateWrite, Prepared, SettingsJudge, WriteOptions, Written,
    admit, prepare, release, roll_back_committed, write,
};
pub use journal::{Entry, FileState, Journal};
pub use ledger::LedgerEntry;
pub use locks::{LOCK_WAIT, LockError, RootLock};
pub use packs::{FOLD_AT, Folded};
pub use repository::RepositoryError;
pub use retention::Retention;
pub use state::{PreImages, StateDir};
