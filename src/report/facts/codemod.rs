//! What a code mod did and why one refuses, as data: the rules run, every site rewritten,
//! and its refusals — its rules, its pattern, its paths. Their words are `render/codemod.rs`'s.

use lancet_core::verdicts::TestRun;
use schemars::JsonSchema;
use serde::Serialize;

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

/// Why a code mod must not run: its rules, its pattern or its paths. Nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum ModRefusal {
    /// A rule file (or `-p`/`-r`) that ast-grep's rule format rejects.
    Rule {
        /// The rule file, or `-p` for a pattern.
        source: String,
        /// ast-grep's own explanation.
        detail: String,
    },
    /// A pattern that is not code of its language as the grammar reads it: ast-grep would
    /// match it against nothing, silently, and a mod in CI would report success having done
    /// nothing.
    PatternSyntax(Box<PatternSyntax>),
    /// A rule names a language lancet has no grammar for.
    UnknownLanguage {
        /// The name given.
        lang: String,
        /// The names lancet knows.
        known: Vec<String>,
    },
    /// A rule without `fix`: it would find but not rewrite.
    NoFix {
        /// The rule's id.
        id: String,
    },
    /// Neither `--rule` nor `-p` with `-r` was given.
    NothingToRun,
    /// A path leads outside the root.
    PathOutside {
        /// Why.
        error: String,
    },
    /// A path does not exist under the root.
    PathMissing {
        /// The path as given.
        path: String,
    },
    /// `--exec`: the command failed (an exit code not accepted, a timeout, a signal), so what
    /// it left is not trusted.
    ExecFailed {
        /// Its run.
        run: Box<TestRun>,
    },
    /// `--exec`: the command changed something a batch cannot carry (a binary file, a link,
    /// only a mode).
    ExecUnsupported {
        /// The path, relative to the root.
        path: String,
        /// What it did.
        what: String,
    },
    /// `--exec`: lancet's sandbox cannot be built here, and the command never runs outside it.
    ExecNoSandbox {
        /// Why.
        why: String,
    },
    /// `--exec`: the scratch copy could not be made.
    ExecScratch {
        /// Why.
        error: String,
    },
}

/// A pattern the grammar does not read as code of its language (see
/// [`ModRefusal::PatternSyntax`]): the facts its refusal quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternSyntax {
    /// Where it was given: `-p`, or the rule file and the rule's id.
    pub source: String,
    /// The pattern as written.
    pub pattern: String,
    /// Its language.
    pub language: String,
    /// The grammar's error: what is wrong, where in the pattern (`an error at column 5:
    /// `...``, `a missing `;` at column 9`).
    pub error: String,
    /// When the pattern parses on its own but as another node than the code holds (Go's
    /// `strconv.Itoa($X)`, a type conversion at the top level, a call in a function): the
    /// reading, and the context in which it is the node the code holds.
    pub misread: Option<Misread>,
}

/// A pattern read as another node on its own than where such code stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Misread {
    /// The node kind the pattern is on its own (`type_conversion_expression`).
    pub alone: String,
    /// The node kind it is in `context` (`call_expression`).
    pub in_context: String,
    /// The pattern inside a snippet where it reads as the code holds it, as written (its `$`).
    pub context: String,
}
