//! Each surface's vocabulary: how a model or a person does the next thing (read a file, list
//! the batches, undo one, name a hash) in the words of the surface showing the report. A third
//! surface is one more arm in each.

use crate::report::Surface;

impl Surface {
    /// How to read a whole file again.
    pub fn read(self, path: &str) -> String {
        match self {
            Surface::Cli => format!("lancet read {path}"),
            Surface::Mcp => format!("read_file with path \"{path}\""),
        }
    }

    /// How to send line anchors with the read they came from, so an edit runs on that read.
    pub fn name_the_read(self, path: &str) -> String {
        match self {
            Surface::Cli => format!(
                "send the sha256 of the read the anchors came from (`*** Edit Lines: {path} sha256 HEX`, HEX as `lancet read --anchors {path}` prints it), or read it again and use its anchors"
            ),
            Surface::Mcp => format!(
                "read it (read_file with path \"{path}\" and anchors true) and resend the edits on the anchors it shows"
            ),
        }
    }

    /// How to read `limit` lines from 1-based line `offset`.
    pub fn read_lines(self, path: &str, offset: usize, limit: usize) -> String {
        match self {
            Surface::Cli => format!("lancet read {path} --offset {offset} --limit {limit}"),
            Surface::Mcp => {
                format!("read_file with path \"{path}\", offset {offset}, limit {limit}")
            }
        }
    }

    /// How to list the batches.
    pub fn log(self) -> &'static str {
        match self {
            Surface::Cli => "lancet log",
            Surface::Mcp => "the checkpoints tool",
        }
    }

    /// How to undo batch `id` over files changed since it ran.
    pub fn undo_force(self, id: &str) -> String {
        match self {
            Surface::Cli => format!("lancet undo {id} --force"),
            Surface::Mcp => format!("undo with id \"{id}\" and force true"),
        }
    }

    /// How to undo batch `id` (an undo's id: redo what it undid).
    pub fn undo_id(self, id: &str) -> String {
        match self {
            Surface::Cli => format!("lancet undo {id}"),
            Surface::Mcp => format!("undo with id \"{id}\""),
        }
    }

    /// How to undo only the files a batch's later edits left alone.
    pub fn undo_partial(self, id: &str) -> String {
        match self {
            Surface::Cli => format!("lancet undo {id} --partial"),
            Surface::Mcp => format!("undo with id \"{id}\" and partial true"),
        }
    }

    /// An option that takes a value, in this surface's words: `--at` on the command line, `at`
    /// over MCP.
    pub fn param(self, flag: &str) -> String {
        match self {
            Surface::Cli => flag.to_string(),
            Surface::Mcp => flag.trim_start_matches('-').replace('-', "_"),
        }
    }

    /// A switch, in this surface's words: `--lsp` on the command line, `lsp true` over MCP.
    pub fn switch(self, flag: &str) -> String {
        match self {
            Surface::Cli => flag.to_string(),
            Surface::Mcp => format!("{} true", self.param(flag)),
        }
    }

    /// How a rename proceeds past sites it could not decide: rename them too, or leave them.
    pub fn unresolved_switches(self) -> (String, String) {
        (
            self.switch("--include-unresolved"),
            self.switch("--leave-unresolved"),
        )
    }

    /// How a caller states the hash it last read.
    pub fn expect_flag(self) -> &'static str {
        match self {
            Surface::Cli => "--expect",
            Surface::Mcp => "expected_sha256",
        }
    }
}
