//! The phases of a long batch an observer is told of, as data: their words are
//! `render/progress.rs`'s.

/// A phase of a batch as it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase<'a> {
    /// Staging the batch's operations.
    Staging {
        /// How many.
        operations: usize,
    },
    /// The syntax gate over the staged files.
    CheckingSyntax {
        /// How many files.
        files: usize,
    },
    /// The checkpoint and the writes.
    Writing {
        /// How many files.
        files: usize,
    },
    /// The test command after the writes.
    Testing {
        /// The command, as the person gave it.
        command: &'a str,
    },
    /// One test run of a bisection.
    Bisecting {
        /// Which run (1-based).
        run: usize,
        /// The most runs it may take.
        max_runs: usize,
        /// Files written for this run.
        written: usize,
        /// Files of the batch.
        files: usize,
    },
    /// A mod's scan of the walked files.
    ScanningForMod {
        /// How many files.
        files: usize,
    },
    /// A rename's scan of the walked files for OLD.
    ScanningForRename {
        /// How many files.
        files: usize,
        /// OLD.
        old: &'a str,
    },
}
