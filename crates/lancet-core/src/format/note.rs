//! What building a batch took in stride, as facts: the text around the edits left out, a file
//! name taken from somewhere other than its own line, a slip of the model's repaired, a
//! language server that ran unconfined. A batch carries them to the report, where the facade
//! words them: no sentence is made here.

/// One leniency a parser applied (with what it counted or where, lines 1-based in the text),
/// or what the batch's maker says of how it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchNote {
    // The Codex patch.
    /// Lines before `*** Begin Patch` left out (prose, a fence, a heredoc wrapper).
    BeforePatch(usize),
    /// Lines after `*** End Patch` left out.
    AfterPatch(usize),
    /// Lines between two patch envelopes left out.
    BetweenPatches(usize),
    /// A chunk line with no ` `, `+` or `-` prefix, read as context.
    UnprefixedContext {
        /// Its line in the text.
        line: usize,
        /// The line as written.
        text: String,
    },

    // Whole files.
    /// Prose lines around the fenced files left out.
    ProseAroundFiles(usize),
    /// The one block naming no file is the `--path` file.
    BlockIsPathFile(String),
    /// Fenced blocks naming no file left out (examples, commands).
    UnnamedBlocks(usize),
    /// A file name taken from the prose line before the block opening at `line`.
    NameFromProse {
        /// The file name.
        path: String,
        /// The block's opening fence.
        line: usize,
    },
    /// A file name taken from the fence's info string at `line`.
    NameFromInfo {
        /// The file name.
        path: String,
        /// The block's opening fence.
        line: usize,
    },
    /// Earlier or weaker blocks for a file another block also gives, left out.
    RivalBlocks(usize),

    // JSON edits (and OpenAI's operations).
    /// JSON read from fenced blocks, the prose around them left out.
    JsonInFences {
        /// The fenced blocks read.
        blocks: usize,
        /// The prose lines left out.
        prose: usize,
    },
    /// Edits naming no file apply to the `--path` file.
    JsonPathFile,

    // Line-anchored edits.
    /// Lines outside the edits left out (prose, fences).
    OutsideLineEdits(usize),

    // Unified diffs.
    /// Lines around the diff left out: prose and fence lines.
    AroundDiff {
        /// Prose lines.
        prose: usize,
        /// Fence lines.
        fences: usize,
    },
    /// Hunks before any file header edit the `--path` file.
    HunksArePathFile,
    /// A block of hunks with no `---`/`+++` header edits the file before it.
    HeaderInherited(String),
    /// Hunks with no `@@` line after their file header.
    ImplicitHunks(usize),
    /// Blank lines at the end of hunks dropped (separators, not context).
    BlankSeparators(usize),
    /// `--- /dev/null` with context or removed lines, read as an update of this file.
    DevNullUpdate(String),
    /// Unprefixed blank lines in a new file read as empty lines.
    BlankAdded(usize),
    /// Hunks with only context lines dropped (they change nothing).
    ContextOnlyHunks(usize),
    /// Hunks repeating an earlier hunk of the same file dropped.
    DuplicateHunks(usize),
    /// File mode changes left out, of this many files.
    ModeIgnored(usize),
    /// `\ No newline at end of file` not applied to updates.
    NoNewlineIgnored,

    // SEARCH/REPLACE blocks.
    /// No block at all: nothing to apply.
    NoBlocks,
    /// Lines outside the blocks left out (prose, code fences).
    OutsideBlocks(usize),
    /// Shell command blocks left out: lancet runs no commands.
    ShellBlocks(usize),
    /// Blocks naming no file, given the file of the block before them.
    ReusedFile(usize),
    /// `--path` applies to every block: the file names the text gives, and their lines, are
    /// left out.
    PathOverridesNames {
        /// The `--path` file.
        path: String,
        /// Each name left out, with its line.
        names: Vec<(String, usize)>,
    },
    /// Backslash-escaped marker lines read as literal text.
    UnescapedMarkers(usize),
    /// A second divider read as the end of the blocks at these lines (the closing marker was
    /// missing or came right after it).
    ClosedByDivider(Vec<usize>),
    /// Fence lines wrapping both the SEARCH and REPLACE text of this many blocks removed.
    UnwrappedFences(usize),

    // A batch a refactor made.
    /// The language server whose rename this is ran unconfined: no sandbox could be built
    /// (why, in the system's words), and the person allowed running without one.
    ServerUnconfined(String),
}
