//! How thorough the gate is and what it leaves alone: the settings a caller hands it.

use crate::{precise, trees};
use std::time::Duration;

/// How thorough the gate is, and what it leaves alone (from `lancet.toml`'s `[gate]`).
#[derive(Debug, Clone)]
pub struct GateOptions {
    /// Languages whose external check command runs where installed (`python`, `ruby`,
    /// `bash`, `javascript`): opt-in, since each run starts an interpreter and uses whatever
    /// version is on PATH.
    pub external: Vec<String>,
    /// The Python version the precise parser checks against.
    pub python: precise::Version,
    /// Files larger than this many bytes are judged by a precise parser only (a tree-sitter
    /// tree of a 20 MB file costs seconds and hundreds of MB); without one they are unchecked,
    /// with a note.
    pub max_file_bytes: usize,
    /// Files the gate does not check (globs on root-relative paths), reported unchecked.
    pub skip: globset::GlobSet,
    /// Let a precise parser judge where lancet has one (off: tree-sitter alone, which the
    /// gate benchmark and the tree-sitter tests measure).
    pub precise: bool,
    /// Trees kept from earlier calls (the MCP server keeps one cache for its lifetime): a file
    /// whose old content has a kept tree is reparsed incrementally from it.
    pub trees: Option<std::sync::Arc<trees::TreeCache>>,
    /// How long the gate may take over a batch: a file it has not judged when the time is up
    /// refuses the batch (a writer holds the root meanwhile, and padding a batch with slow
    /// files must not get the rest written unjudged). `lancet check`, which writes nothing,
    /// gives each file this long.
    pub budget: Duration,
}

/// The default [`GateOptions::budget`].
pub const GATE_BUDGET: Duration = Duration::from_secs(20);

/// The default size above which only a precise parser checks a file.
pub const MAX_FILE_BYTES: usize = 5_000_000;

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            external: Vec::new(),
            python: precise::NEWEST_PYTHON,
            max_file_bytes: MAX_FILE_BYTES,
            skip: globset::GlobSet::empty(),
            precise: true,
            trees: None,
            budget: GATE_BUDGET,
        }
    }
}

impl GateOptions {
    /// Whether a precise parser judges `language` (lancet's name): tree-sitter's verdict on
    /// it is not used, so a caller need not compute one ahead (a rename's incremental
    /// precheck).
    pub fn judges_precisely(&self, language: &str) -> bool {
        self.precise && precise::checker(language).is_some()
    }

    /// Whether `language`'s external check is asked for.
    pub(crate) fn external_for(&self, language: &str) -> bool {
        self.external.iter().any(|l| l == language)
    }
}
