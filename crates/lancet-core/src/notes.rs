//! What a batch, an operation and a hunk tell the model beyond their outcome, as facts: what a
//! parser took in stride, how an operation was carried out, how a hunk's place was chosen. The
//! report carries them and the facade words them: no sentence is made here. A leaf: the
//! parsers, the ladder and staging all write them, so it imports none of them.

use crate::anchors::LineAnchor;

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

/// A parser's tally of one leniency, with the note that says it.
pub type Tally = (usize, fn(usize) -> BatchNote);

impl BatchNote {
    /// The notes of the tallies that are not zero, each made by its variant, in order.
    pub fn counted(counts: &[Tally]) -> impl Iterator<Item = BatchNote> + '_ {
        counts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, note)| note(*n))
    }
}

/// What a model must know of how a whole operation was carried out, as facts (lines 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileNote {
    /// A line anchor's hash names a line that moved: it is now line `now`.
    AnchorMoved {
        /// The anchor as sent.
        anchor: LineAnchor,
        /// Where its line is now.
        now: usize,
    },
    /// The file changed since the model read it, and it already holds the change.
    RebasedAlreadyThere,
    /// The file changed since the model read it: the edit was applied to what it read, then
    /// rebased (a 3-way merge, no conflict) over this many changed lines of the file now.
    Rebased(usize),
    /// Whole-file content read as a lazy sketch: its markers kept old lines in place.
    Sketch {
        /// The markers.
        markers: usize,
        /// The old lines they kept.
        kept: usize,
    },
    /// A fragment read as a sketch of old lines `first..=last`, the rest of the file kept.
    SketchOfLines {
        /// Its first old line.
        first: usize,
        /// Its last old line.
        last: usize,
        /// Its markers (0: none).
        markers: usize,
        /// The old lines they kept.
        kept: usize,
    },
}

/// What a model must know of how a hunk's place was chosen, as facts (lines 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkNote {
    /// Several places matched and the edit's line number chose `line`.
    NearestToLineNumber {
        /// The place chosen.
        line: usize,
        /// Every place that matched.
        candidates: Vec<usize>,
    },
    /// Several places matched and the format's contract took the first.
    FirstOfMatches(Vec<usize>),
    /// Several places matched and the one nearest the hunk's own line number was taken.
    NearestToHunkLine {
        /// The hunk's line number.
        hint: usize,
        /// Every place that matched.
        candidates: Vec<usize>,
    },
    /// A context line that differs from the file's beyond presentation, kept as the file has it.
    ContextKept {
        /// The file's line.
        line: usize,
        /// What the edit sent (trimmed).
        sent: String,
        /// What the file has (trimmed).
        file: String,
    },
    /// The one `@@` anchor matches no line; advisory in this format, so the lines placed it.
    AdvisoryAnchor(String),
    /// The `@@` header matches no line; the chunk's lines occur once below the nearest one.
    HeaderMissed {
        /// The header as sent.
        header: String,
        /// The nearest line to it.
        nearest: usize,
        /// That line's text (trimmed).
        nearest_text: String,
    },
    /// The file was read in another encoding (or line ending) and is written back in it.
    Transcoded {
        /// The file.
        path: String,
        /// What it was read as (`UTF-16LE`, `UTF-8 with CR-only line endings`).
        read_as: String,
    },
    /// The hunk's new text was read as a lazy sketch: its markers kept old lines in place.
    Sketch {
        /// The markers.
        markers: usize,
        /// The old lines they kept.
        kept: usize,
    },
}
