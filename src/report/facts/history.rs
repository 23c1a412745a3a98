//! What an undo and a crash recovery did, as data: the room words them (`render/history.rs`).

use lancet_store::journal::Rollback;

/// What finishing a batch a crash interrupted came to, for the note a report carries and the
/// line `lancet` prints before a read-only command.
#[derive(Debug)]
pub enum Recovery {
    /// The batch was taken back: what the journal says of each file.
    Finished(Rollback),
    /// The recovery failed: the state directory's own error.
    Failed(String),
}

/// How an undo ended, for its words (the files and the batch undone travel beside it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum UndoEnd<'a> {
    /// Refused as a whole: files changed since the batch, and neither force nor partial.
    OverChanges,
    /// Nothing written: every file already held its content from before the batch.
    AlreadyRestored,
    /// Nothing written: the files not restored by hand changed since, and were left alone.
    NoneRestored,
    /// Restored: the files written, those that already held their earlier content, and the
    /// undo's own batch id.
    Undid {
        /// Files written back.
        restored: usize,
        /// Files that already held their content from before the batch.
        by_hand: usize,
        /// The undo's own batch.
        undo_id: &'a str,
    },
}
