//! What a batch left: the report, and the bytes it wrote — the one result of every operation
//! that writes (an edit, a rename, an undo).

use crate::report::Report;
use lancet_core::staged;

/// What a batch left (an edit, a rename, an undo): its report, and the bytes now at each path
/// it wrote.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The batch's report: what a model, a person or a script reads.
    pub report: Report,
    /// Each path the batch wrote and kept (relative to the root, a symlink's target when the
    /// edit went through a link) with its new bytes; empty when nothing stayed written. A caller
    /// that remembers what a model has seen (the MCP server) learns it here, not by reading back.
    pub written: Vec<(String, Vec<u8>)>,
}

impl Applied {
    /// A batch that stands: its report, and the content of every staged file that put content
    /// at its path.
    pub(crate) fn kept(report: Report, files: Vec<staged::StagedFile>) -> Applied {
        let written = files
            .into_iter()
            .filter_map(|f| Some((f.path.to_string(), f.after?)))
            .collect();
        Applied { report, written }
    }
}

impl From<Report> for Applied {
    /// A report of a batch that left nothing written.
    fn from(report: Report) -> Applied {
        Applied {
            report,
            written: Vec::new(),
        }
    }
}
