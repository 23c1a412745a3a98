//! The phases of a long batch in words, as an observer shows them (a bar's label, an MCP
//! progress notification).

use crate::report::Phase;

/// A phase's words.
pub(crate) fn phase_words(phase: &Phase) -> String {
    match phase {
        Phase::Staging { operations } => format!("staging {operations} operations"),
        Phase::CheckingSyntax { files } => format!("checking the syntax of {files} files"),
        Phase::Writing { files } => format!("checkpoint and writing {files} files"),
        Phase::Testing { command } => format!("running `{command}`"),
        Phase::Bisecting {
            run,
            max_runs,
            written,
            files,
        } => format!(
            "bisecting: test run {run} of at most {max_runs}, {written} of {files} files written"
        ),
        Phase::ScanningForMod { files } => format!("scanning {files} files"),
        Phase::ScanningForRename { files, old } => {
            format!("scanning {files} files for `{old}`")
        }
    }
}
