//! The batch: what an edit text asks for, as plain data, before anything touches the disk.
//!
//! Every format parser produces a [`Batch`]; everything after parsing consumes one. Paths are
//! kept as written here — they are validated against the root when the batch is staged, so the
//! parsers stay free of file-system access.

use schemars::JsonSchema;
use serde::Serialize;

/// The edit formats lancet reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// The Codex `*** Begin Patch` envelope.
    Patch,
    /// Line-anchored edits (`*** Edit Lines:`, `@@ replace 12:a3k..15:k9z`) on `LINE:HASH`
    /// anchors a read handed out.
    Anchors,
    /// OpenAI's `apply_patch` operations (`create_file`/`update_file`/`delete_file` with a bare
    /// V4A `diff`), as JSON.
    OpenaiPatch,
    /// `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks (Aider, Roo, Cline dialects).
    SearchReplace,
    /// Unified and git diffs.
    Unified,
    /// Tool-call objects (`old_string`/`new_string`, the text-editor tool's commands).
    Json,
    /// A filename line followed by a fenced block holding the whole new file.
    Whole,
    /// The whole new text of one file (`--path`), unchanged parts elided by markers
    /// (`// ... existing code ...`): a lazy sketch. Never auto-detected.
    Sketch,
    /// Not a text format: the batch `lancet rename` computes from the syntax trees.
    Rename,
    /// Not a text format: the batch `lancet mod` computes from structural rules.
    Mod,
    /// Not a text format: the batch `lancet signature` computes from the syntax trees.
    Signature,
    /// Not a text format: the batch `lancet move` computes from the syntax trees.
    Move,
}

impl Format {
    /// Every format, strictest first: when several parse, auto-detection takes the first.
    pub const STRICTEST_FIRST: [Format; 7] = [
        Format::OpenaiPatch,
        Format::Json,
        Format::Patch,
        Format::Anchors,
        Format::Unified,
        Format::SearchReplace,
        Format::Whole,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::Patch => "patch",
            Format::OpenaiPatch => "openai-patch",
            Format::Anchors => "anchors",
            Format::SearchReplace => "search-replace",
            Format::Unified => "unified",
            Format::Json => "json",
            Format::Whole => "whole",
            Format::Sketch => "sketch",
            Format::Rename => "rename",
            Format::Mod => "mod",
            Format::Signature => "signature",
            Format::Move => "move",
        }
    }
}

/// An ordered list of file operations parsed from one edit text. (What `lancet parse --json`
/// prints is the facade's: the notes are facts here, worded there.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The format the text was read as.
    pub format: Format,
    /// The operations, in the order the text gives them; later ones see earlier ones' results.
    pub ops: Vec<FileOp>,
    /// Leniencies applied while parsing (ignored prose, a stripped fence), for the report,
    /// which words them.
    pub notes: Vec<crate::notes::BatchNote>,
}

/// One operation on one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileOp {
    /// The path as written in the edit text.
    pub path: String,
    /// What to do.
    pub kind: OpKind,
    /// 1-based line of the edit text that introduced the operation, for messages.
    pub line: usize,
}

/// The kinds of file operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OpKind {
    /// Create a file that must not exist yet (identical content counts as already applied; an
    /// existing empty file is filled).
    Create {
        /// The new file's full content.
        content: String,
        /// Created executable (a git diff's `new file mode 100755`): the umask's default mode
        /// with the execute bits where it grants read.
        executable: bool,
    },
    /// Replace a file's whole content, creating it if missing.
    Write {
        /// The new full content.
        content: String,
    },
    /// Append text at the end of a file (after a line ending), creating it if missing: what an
    /// empty SEARCH block means.
    Append {
        /// The text to add.
        content: String,
    },
    /// Remove a file (a symlink is removed itself, not its target).
    Delete,
    /// Replace exact byte spans of a file as it was read: what `lancet rename` produces after
    /// finding the spans with a parser. Nothing is searched; the file must still hash to
    /// `base_sha256`, so spans computed from an older read are never applied.
    Splice {
        /// The hex SHA-256 of the bytes the spans were computed from.
        base_sha256: String,
        /// The replacements, in file order, not overlapping.
        spans: Vec<Span>,
    },
    /// Change lines of an existing file named by anchors (`LINE:HASH`) a read handed out.
    Lines {
        /// The hex SHA-256 of the read the anchors come from: when the file changed since, the
        /// edits run on that read's snapshot and are merged into the file as it is now.
        base_sha256: Option<String>,
        /// The edits, each on lines of the file as read.
        edits: Vec<LineEdit>,
    },
    /// Change parts of an existing file, optionally renaming it.
    Update {
        /// The changes, located independently in the file as it was before this operation.
        hunks: Vec<Hunk>,
        /// A new path for the file.
        move_to: Option<String>,
    },
}

/// One line-anchored edit: what to do with the lines from `first` to `last`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LineEdit {
    /// What to do.
    pub action: LineAction,
    /// The first line it touches (for an insertion, the line it goes after or before).
    pub first: crate::anchors::LineAnchor,
    /// The last line it touches (`first` for one line).
    pub last: crate::anchors::LineAnchor,
    /// The new lines (none for a deletion), without line endings.
    pub lines: Vec<String>,
    /// 1-based line of the edit text where the edit starts, for messages.
    pub line: usize,
}

/// What a [`LineEdit`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineAction {
    /// Replace the lines `first..=last` by the new lines.
    Replace,
    /// Put the new lines after `first`.
    InsertAfter,
    /// Put the new lines before `first`.
    InsertBefore,
    /// Remove the lines `first..=last`.
    Delete,
}

/// One byte span of a [`OpKind::Splice`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Span {
    /// Byte offset where the replaced text starts.
    pub start: usize,
    /// Byte offset just past the replaced text.
    pub end: usize,
    /// The text put in its place.
    pub new: String,
    /// The 1-based line of `start`, for the report.
    pub line: usize,
}

/// One located change: replace the block `old` by `new`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Hunk {
    /// The lines that must be found (context and removed lines), without line endings.
    pub old: Vec<String>,
    /// The lines that replace them (context and added lines), without line endings.
    pub new: Vec<String>,
    /// For tool-call edits (`old_string`/`new_string`): the exact strings, which may start or end
    /// inside a line. The exact tier searches these bytes; looser tiers use the line view above.
    pub text: Option<HunkText>,
    /// How many places the hunk must match.
    pub occurrences: Occurrences,
    /// `@@` header lines, outermost first; each narrows the search to what follows it.
    pub context: Vec<String>,
    /// A lone `@@` header that matches no line is a hint, not a condition: the hunk's own lines
    /// place it (OpenAI's V4A dialect reads a single anchor so; Codex refuses).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub context_advisory: bool,
    /// A 1-based line number the edit claims the hunk starts at; only ever narrows a choice.
    pub line_hint: Option<usize>,
    /// A 1-based line number the edit claims its new text starts at (a unified hunk's `+c`):
    /// new text standing near it is evidence the hunk is already applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_line_hint: Option<usize>,
    /// Where the hunk may match.
    pub anchor: Anchor,
    /// 1-based line of the edit text where the hunk starts, for messages.
    pub line: usize,
    /// What to do when the deciding tier finds several places: the format author's contract.
    pub pick: Pick,
}

/// How a hunk chooses among several equally good places, as each format's authors taught their
/// models (Codex: the first match after the previous hunk; aider: the first; SEARCH/REPLACE with
/// a `:start_line:` hint: the nearest): lancet keeps each contract instead of imposing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// Refuse as ambiguous (tool calls' `old_string`, Codex patches, Roo/Cline blocks).
    #[default]
    Unique,
    /// The first occurrence in the file, noted in the report (Aider's "replaces the first
    /// match"); `--unique` turns it back into [`Pick::Unique`].
    First,
    /// The candidate strictly nearest to the line hint (`git apply`'s rule for unified diffs);
    /// a tie is refused.
    Nearest,
}

/// The exact strings of a substring edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HunkText {
    /// The text to find, byte for byte.
    pub old: String,
    /// The text to put in its place.
    pub new: String,
}

/// How many places a hunk must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Occurrences {
    /// Exactly one (the default: several is ambiguous).
    One,
    /// Every occurrence, at least one (`replace_all`).
    All,
    /// Exactly this many, all replaced (`expected_replacements`).
    Exactly(usize),
}

impl Span {
    /// The span as a byte-range replacement (for [`crate::text::replace_ranges`]).
    pub fn replacement(&self) -> (usize, usize, &str) {
        (self.start, self.end, self.new.as_str())
    }
}

/// Where a hunk is allowed to match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// Anywhere in the file.
    Anywhere,
    /// Its last old line must be the file's last line (`*** End of File`).
    EndOfFile,
    /// A pure insertion after this 1-based line (0 = the top of the file): `insert_line`.
    AfterLine(usize),
}

impl Hunk {
    /// A line-based hunk with defaults: one occurrence, anywhere, no headers or hints. A BOM a
    /// model copied from the top of the file is dropped: the file keeps its own one.
    pub fn lines(mut old: Vec<String>, mut new: Vec<String>, line: usize) -> Hunk {
        for text in [&mut old, &mut new] {
            if let Some(first) = text.first_mut() {
                strip_bom(first);
            }
        }
        Hunk {
            old,
            new,
            text: None,
            occurrences: Occurrences::One,
            context: Vec::new(),
            context_advisory: false,
            line_hint: None,
            new_line_hint: None,
            anchor: Anchor::Anywhere,
            line,
            pick: Pick::Unique,
        }
    }

    /// A substring hunk (a tool call's `old_string` → `new_string`), with its line view (line
    /// endings dropped, CRLF included, so the line tiers compare content only).
    pub fn substring(mut old: String, mut new: String, line: usize) -> Hunk {
        strip_bom(&mut old);
        strip_bom(&mut new);
        let view = |s: &str| -> Vec<String> {
            split_lines(s)
                .into_iter()
                .map(|l| l.strip_suffix('\r').map(str::to_string).unwrap_or(l))
                .collect()
        };
        Hunk {
            text: None,
            ..Hunk::lines(view(&old), view(&new), line)
        }
        .with_text(old, new)
    }

    fn with_text(mut self, old: String, new: String) -> Hunk {
        self.text = Some(HunkText { old, new });
        self
    }
}

/// Drops a leading U+FEFF: in an edit's old or new text it is the file's BOM copied by the model.
fn strip_bom(text: &mut String) {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
}

/// Splits text into lines without their `\n`; a final line ending adds no empty last line.
pub fn split_lines(text: &str) -> Vec<String> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n').map(str::to_string).collect()
}
