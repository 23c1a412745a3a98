//! What a batch did, as data: each operation's and hunk's outcome as staging finds it, the
//! batch's status, and what each feature found (a rename's sites, a mod's rules). The facade's
//! `Report` carries these to every surface (CLI text, `--json`, MCP); its words — what applied
//! and how, or for a refusal, what was wrong, where, the nearest real text and what to send
//! next — are written by the facade's renderer (`src/report/render/`), not here.

use crate::failure::{HunkFailure, OpFailure};
pub use crate::kinds::ErrorKind;
use crate::locate::Tier;
use crate::locate::closest::{Closest, NumberedLine};
use crate::verdicts::TestRun;
use schemars::JsonSchema;
use serde::Serialize;

/// The outcome of a whole batch; it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every operation was written.
    Applied,
    /// Every change was already in place; nothing was written.
    AlreadyApplied,
    /// A mod (or a `--exec` command) found nothing to change: no site matched its rules, which
    /// says nothing of whether it ran before. Nothing was written.
    NothingMatched,
    /// `--dry-run`: everything would apply; nothing was written.
    DryRun,
    /// Something could not be applied; nothing was written.
    Refused,
    /// The batch was written, the test command failed, and the batch was rolled back.
    TestFailed,
    /// `--partial`: what located was written, the rest is reported (exit 1).
    Partial,
    /// The edit text or command line is malformed; nothing was written.
    Malformed,
    /// The environment failed (I/O); see `message` for whether files are intact.
    Error,
}

impl Status {
    /// The documented, stable exit code: 0 applied (or nothing to do), 1 refused (or only partly applied), 2 malformed
    /// input, 3 the tests failed and the batch was rolled back, 4 the environment failed.
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Applied | Status::AlreadyApplied | Status::NothingMatched | Status::DryRun => 0,
            Status::Refused | Status::Partial => 1,
            Status::Malformed => 2,
            Status::TestFailed => 3,
            Status::Error => 4,
        }
    }
}

/// What an operation does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Create a file.
    Add,
    /// Change a file in place.
    Update,
    /// Remove a file.
    Delete,
    /// Change and rename a file.
    Move,
}

impl Action {
    /// The one-letter code of the human report (A/M/D/R).
    pub fn letter(self) -> char {
        match self {
            Action::Add => 'A',
            Action::Update => 'M',
            Action::Delete => 'D',
            Action::Move => 'R',
        }
    }
}

/// The outcome of one operation or hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Applied (in a dry run: would apply).
    Applied,
    /// Already in place; nothing to do.
    AlreadyApplied,
    /// Could not be applied.
    Failed,
    /// Matched in several places; refused.
    Ambiguous,
    /// Located, but not written: `--bisect` found the tests fail with it.
    HeldBack,
}

/// How many candidates, lines or places a report lists before it says "and N more": a refusal
/// stays short however many places match.
pub const MAX_LISTED: usize = 20;

/// One hunk's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HunkReport {
    /// 1-based position of the hunk within its operation.
    pub index: usize,
    /// What happened.
    pub status: Outcome,
    /// The matcher tier that located it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// First matched line (1-based) in the file before the edit; for a pure insertion, the line
    /// after which the new lines go (0 = top of file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Last matched line (1-based, inclusive); equal to `start_line` for an insertion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Whether the hunk only inserts lines (after `start_line`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub insertion: bool,
    /// Every matched range `[start, end]` when the hunk replaced several places.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<[usize; 2]>,
    /// 1-based line of the edit text where the hunk starts; left out where no edit text was
    /// sent (rename, mod, undo).
    #[serde(skip_serializing_if = "no_edit_text")]
    pub edit_line: usize,
    /// A stable failure kind: `no_match`, `ambiguous`, `count_mismatch`, `context_not_found`,
    /// `placeholder`, `elision_mismatch`, `overlap`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For ambiguity: the candidates' 1-based start lines (the first
    /// [`MAX_LISTED`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// How many candidates there are, when more than are listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates_total: Option<usize>,
    /// For a miss: the closest real lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
    /// For a change: the result around it, numbered (a few lines of context on each side).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snippet: Vec<NumberedLine>,
    /// What a model must know about how the place was chosen: candidates a format's contract
    /// passed over ("first of 3 matches"), context lines that differed and were kept as is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why it failed, as facts; the renderer words them into `error` when the report is
    /// built, in the vocabulary of the surface that shows it.
    #[serde(skip)]
    pub failure: Option<Box<HunkFailure>>,
}

impl FileReport {
    /// A report for one operation on `path`, to be filled in.
    pub fn new(path: String, action: Action, edit_line: usize) -> Self {
        FileReport {
            path,
            action,
            to: None,
            status: Outcome::Applied,
            edit_line,
            hunks: Vec::new(),
            kind: None,
            error: None,
            notes: Vec::new(),
            diff: None,
            failure: None,
        }
    }
}

impl HunkReport {
    /// A hunk report to be filled in, for the hunk at 1-based `index` from edit line `edit_line`.
    pub fn new(index: usize, edit_line: usize) -> Self {
        HunkReport {
            index,
            status: Outcome::Applied,
            tier: None,
            start_line: None,
            end_line: None,
            insertion: false,
            matches: Vec::new(),
            edit_line,
            kind: None,
            error: None,
            candidates: Vec::new(),
            candidates_total: None,
            closest: None,
            snippet: Vec::new(),
            notes: Vec::new(),
            failure: None,
        }
    }

    /// Records the candidates of an ambiguity: the first [`MAX_LISTED`], and
    /// how many there are when that is more.
    pub fn set_candidates(&mut self, mut candidates: Vec<usize>) {
        let total = candidates.len();
        if total > MAX_LISTED {
            candidates.truncate(MAX_LISTED);
            self.candidates_total = Some(total);
        }
        self.candidates = candidates;
    }
}

/// One operation's outcome.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileReport {
    /// The path operated on, relative to the root (the source, for a move).
    pub path: String,
    /// What the operation does.
    pub action: Action,
    /// The destination of a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What happened.
    pub status: Outcome,
    /// 1-based line of the edit text that introduced the operation; left out where no edit
    /// text was sent (rename, mod, undo).
    #[serde(skip_serializing_if = "no_edit_text")]
    pub edit_line: usize,
    /// Per-hunk outcomes (updates only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkReport>,
    /// A stable kind for a whole-operation failure (see [`ErrorKind`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    /// Why the operation failed, when it failed as a whole (missing file, not UTF-8, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a model must know about how the whole operation was carried out (a sketch's
    /// markers expanded, an edit rebased over changes made since the model read the file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A unified diff of what the operation changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why the operation failed as a whole, as facts; the renderer words them into `error`
    /// when the report is built, in the vocabulary of the surface that shows it.
    #[serde(skip)]
    pub failure: Option<std::sync::Arc<OpFailure>>,
}

// ---------------------------------------------------------------------------------------------
// What a rename found: the report's data and its words.

/// The kinds of definition `--kind` can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// Whatever OLD names.
    Any,
    /// A free function.
    Function,
    /// A class, struct, enum, trait or type alias.
    Class,
    /// A function defined in a class, impl or trait.
    Method,
    /// A variable, parameter, constant or static.
    Variable,
    /// A field or property a struct, class or interface declares (`self.x = …` in Python).
    Field,
    /// An enum's variant or member.
    Variant,
}

impl SymbolKind {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Any => "any",
            SymbolKind::Function => "function",
            SymbolKind::Class => "class",
            SymbolKind::Method => "method",
            SymbolKind::Variable => "variable",
            SymbolKind::Field => "field",
            SymbolKind::Variant => "variant",
        }
    }
}

/// A whole-word mention of OLD inside a string or a comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Mention {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// `string` or `comment`.
    pub context: &'static str,
    /// Whether it was renamed (`--include-strings` / `--include-comments`).
    pub renamed: bool,
    /// The whole line, trimmed, for a person or model to judge.
    pub text: String,
}

/// A place where OLD is defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Definition {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// What kind of symbol it defines.
    pub kind: SymbolKind,
}

/// A code site a rename renames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Site {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// In a doctest: code inside a comment that the language's test runner compiles (a Rust
    /// doc comment's code block, a Python docstring's `>>>` line), renamed as code.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub doctest: bool,
}

/// A code site spelled OLD that a rename leaves alone, and why: it does not resolve to the
/// symbol lancet can prove (`unresolved`), or it resolves outside the tree (`outside`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LeftSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// The whole line, trimmed.
    pub text: String,
    /// Why it was not renamed.
    pub why: String,
}

/// What a rename found, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RenameSummary {
    /// The old name.
    pub old: String,
    /// The new name.
    pub new: String,
    /// Files of a renameable language that were walked.
    pub files_scanned: usize,
    /// Files that contained OLD's bytes and were parsed.
    pub files_parsed: usize,
    /// Files with at least one renamed place.
    pub files_changed: usize,
    /// Identifier occurrences renamed in code.
    pub sites: usize,
    /// Where OLD is defined.
    pub definitions: Vec<Definition>,
    /// Mentions in strings and comments (renamed only when asked).
    pub mentions: Vec<Mention>,
    /// How sites were resolved: `binding` (lancet's scopes and imports) or `lsp:<server>`.
    pub engine: String,
    /// Every code site renamed, in file order.
    pub renamed: Vec<Site>,
    /// Code sites spelled OLD that could not be resolved (renamed only with
    /// `--include-unresolved`, and then also listed in `renamed`).
    pub unresolved: Vec<LeftSite>,
    /// Code sites spelled OLD that resolve to something outside the tree: never renamed.
    pub outside: Vec<LeftSite>,
    /// Files that were skipped, with the reason (not UTF-8, unreadable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<String>,
    /// The language servers asked about the sites lancet could not decide (the hybrid
    /// resolver), each with the sites it decided.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decided_by: Vec<ServerDecisions>,
}

/// What one language server decided of a rename's undecided sites: lancet asked it, per site,
/// where the identifier there is defined, and renamed the site when that is the symbol's
/// definition (a model or person can see which sites rest on the server's word).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ServerDecisions {
    /// The server, as found on PATH (`basedpyright-langserver`).
    pub server: String,
    /// Its version as it reported it (`None`: it did not say).
    pub version: Option<String>,
    /// The sites it decided.
    pub sites: Vec<DecidedSite>,
    /// Sites it was asked about and could not decide (still listed as unresolved).
    pub undecided: usize,
    /// Why it ran outside lancet's sandbox, when it did (the kernel has none; the CLI only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfined: Option<String>,
}

/// A site a language server decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DecidedSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// Whether it is the symbol (renamed) or another one (left).
    pub renamed: bool,
    /// Where the server says it is defined: `path:line` in the tree, or a path outside it.
    pub definition: String,
}

// ---------------------------------------------------------------------------------------------
// What a signature change found.

/// What `lancet signature` did: the function and its parameters before and after, each
/// definition rewritten (the function and its overrides), each call updated, and the sites it
/// could not update, so a person or model can check the change without reading every diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SignatureSummary {
    /// The function, as its file and qualified name (`shop/cart.py::Cart.total`).
    pub function: String,
    /// The changes, in the order they were applied (`add timeout=None@2:30`, `remove verbose`,
    /// `rename n=count`, `reorder b,a`).
    pub changes: Vec<String>,
    /// The parameter list before (`(self, a, b=1)`).
    pub before: String,
    /// The parameter list after.
    pub after: String,
    /// Files of the function's language that were walked.
    pub files_scanned: usize,
    /// Files written.
    pub files_changed: usize,
    /// Every definition rewritten: the function's and its overrides'.
    pub definitions: Vec<Definition>,
    /// Every call updated, in file order.
    pub calls: Vec<Site>,
    /// Calls that needed no change (their arguments bind as before).
    pub calls_unchanged: usize,
    /// Uses and calls that cannot be updated safely (a use as a value, `functools.partial`,
    /// `*args` forwarding): each stops the change unless left (`--leave-unresolved`), and is
    /// then left as it is.
    pub unsafe_sites: Vec<LeftSite>,
    /// Calls through a receiver lancet cannot decide: each stops the change unless updated
    /// (`--include-unresolved`, then also listed in `calls`) or left (`--leave-unresolved`).
    pub unresolved: Vec<LeftSite>,
}

// ---------------------------------------------------------------------------------------------
// What a move found.

/// What `lancet move` did: the symbol, the file it left and the one it went to, each import
/// and use rewritten, the imports the moved code brought and the ones the old module lost, so
/// a person or model can check the move without reading every diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MoveSummary {
    /// The symbol, as its old file and name (`shop/cart.py::total`).
    pub symbol: String,
    /// The file it left.
    pub from: String,
    /// The file it went to.
    pub to: String,
    /// Whether the destination was created.
    pub created: bool,
    /// The lines moved, in the old file (its comments and decorators with it).
    pub lines: [usize; 2],
    /// Files of the symbol's language that were walked.
    pub files_scanned: usize,
    /// Files written (the destination counted).
    pub files_changed: usize,
    /// Every import and qualified use rewritten to the new module, in file order.
    pub sites: Vec<Site>,
    /// The imports the moved code needs, added to the destination.
    pub imports_added: Vec<String>,
    /// The imports of the old module that only the moved code used, removed from it.
    pub imports_removed: Vec<String>,
    /// Sites lancet could not decide are the symbol (a string naming it, an attribute of a
    /// value of unknown type): each stops the move unless left (`--leave-unresolved`).
    pub unresolved: Vec<LeftSite>,
}

// ---------------------------------------------------------------------------------------------
// What a code mod found.

/// What `lancet mod` did: the rules it ran, the files it looked at and every site it rewrote,
/// so a CI log or a model can check each change without reading the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ModSummary {
    /// The rules, in the order they were given, with how many sites each rewrote.
    pub rules: Vec<ModRule>,
    /// Files walked under the paths.
    pub files_scanned: usize,
    /// Files of a rule's language that were parsed.
    pub files_parsed: usize,
    /// Files with at least one rewritten site.
    pub files_changed: usize,
    /// Every rewritten site, by path then position.
    pub sites: Vec<ModSite>,
    /// Files that could not be read or parsed, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<String>,
    /// `--exec`: the command's run in the scratch copy (its exit code and output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec: Option<TestRun>,
}

/// One rule of a mod and its count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ModRule {
    /// The rule's `id` (`pattern` for `-p`).
    pub id: String,
    /// Its language, by lancet's name.
    pub language: String,
    /// Sites it rewrote.
    pub sites: usize,
}

/// One rewritten site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ModSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line of the site's start.
    pub line: usize,
    /// 1-based column (in characters) of the site's start.
    pub column: usize,
    /// The rule that rewrote it.
    pub rule: String,
    /// The text replaced.
    pub before: String,
    /// The text written.
    pub after: String,
}

/// Whether an `edit_line` names no line of edit text (0: a batch lancet built itself).
fn no_edit_text(line: &usize) -> bool {
    *line == 0
}
