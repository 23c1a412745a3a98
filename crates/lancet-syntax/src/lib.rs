//! The syntax gate: a batch that breaks the syntax of a file it touches never reaches disk.
//!
//! Every staged file of a known language is parsed with tree-sitter, in parallel (rayon, one
//! parser per language per worker). A file whose new content parses without error passes after
//! one parse. Otherwise its old content is parsed too, and only errors the edit introduced
//! count: an error is pre-existing when it sits on lines the edit left alone and the old text
//! had the same error at the same place. Where a language names an external check (Python's
//! `compile()`; tree-sitter's Python grammar is lenient) and the tool is installed, it runs on
//! the new content of changed files, and again on the old content if it fails, with the same
//! rule. At most two trees per worker exist at once: parse, collect errors, drop.
//!
//! # lancet-syntax
//!
//! This crate is that gate, the language table (`grammars/languages.toml`, which grammar
//! parses which file) and the grammars' query files. Its place in the pipeline:
//!
//! ```text
//! [lancet-core] stage ─▶ StagedFile[] ─gate─▶ SyntaxReport ─▶ [lancet-store] commit
//! ```
//!
//! Each grammar but Python's and Rust's is a cargo feature (`lang-*`); a file of a language
//! compiled out is reported unchecked, never silently passed.
#![deny(missing_docs)]

pub mod languages;
pub mod precise;
pub mod trees;

mod external;
mod gate;
mod introduced;
mod job;
mod parse;
mod site;

pub use external::distrust_programs_under;
use gate::{language_name, run};
use introduced::classify;
use job::Job;
use lancet_core::digest;
use lancet_core::staged::{Before, StagedFile};
pub use lancet_core::verdicts::{SyntaxError, SyntaxReport};
use languages::LanguageEntry;
use parse::{error_sites, parse_from};
use std::collections::HashMap;
use tree_sitter::{Parser, Tree};

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
}

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
        }
    }
}

impl GateOptions {
    /// Whether `language`'s external check is asked for.
    fn external_for(&self, language: &str) -> bool {
        self.external.iter().any(|l| l == language)
    }
}

/// A file's tree-sitter verdict, computed by a caller that already held the file's tree
/// (`lancet rename` parses every file it edits): it edits that tree and reparses incrementally,
/// a fraction of a fresh parse. The gate takes it instead of parsing when the staged content is
/// exactly the content checked; the compiler check still runs as for any file.
#[derive(Debug, Clone)]
pub struct Prechecked {
    after_sha256: String,
    language: &'static str,
    errors: Vec<SyntaxError>,
    preexisting: Vec<SyntaxError>,
}

impl Prechecked {
    /// Whether the checked content has no syntax error at all.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty() && self.preexisting.is_empty()
    }
}

/// Verdicts computed before staging, by path.
pub type Prechecks = HashMap<String, Prechecked>;

/// Checks an edit of a file whose old tree the caller has: `edits` (in the old text's
/// coordinates, in the order given) are applied to `old_tree`, `after` is reparsed from it,
/// and errors are classified as for any file. `None` when the parse gave up.
pub fn precheck_edit(
    path: &str,
    language: &'static LanguageEntry,
    parser: &mut Parser,
    mut old_tree: Tree,
    before: &[u8],
    after: &[u8],
    edits: &[tree_sitter::InputEdit],
) -> Option<Prechecked> {
    let before_errors = error_sites(&old_tree);
    for edit in edits {
        old_tree.edit(edit);
    }
    let new_tree = parse_from(parser, after, Some(&old_tree))?;
    drop(old_tree);
    let after_errors = error_sites(&new_tree);
    drop(new_tree);
    let (errors, preexisting) =
        classify(path, Some(before), after, &after_errors, || before_errors);
    Some(Prechecked {
        after_sha256: digest::sha256_hex(after),
        language: language_name(language),
        errors,
        preexisting,
    })
}

/// Checks a staged batch: errors the batch introduces, per file.
pub fn gate(files: &[StagedFile], opts: &GateOptions) -> SyntaxReport {
    gate_prechecked(files, opts, &Prechecks::new())
}

/// [`gate`], taking the verdicts in `prechecked` for files whose staged content they checked.
pub fn gate_prechecked(
    files: &[StagedFile],
    opts: &GateOptions,
    prechecked: &Prechecks,
) -> SyntaxReport {
    let jobs: Vec<Job> = files
        .iter()
        .filter_map(|f| {
            let after = f.after.as_deref()?;
            let before = match &f.before {
                Before::File { bytes, .. } => Some(bytes.as_slice()),
                _ => None,
            };
            Some(Job {
                path: f.path.as_str(),
                before,
                after,
                prechecked: prechecked.get(f.path.as_str()),
            })
        })
        .collect();
    run(&jobs, opts)
}

/// Checks files as they are (`lancet check`): every error counts.
pub fn check_contents(files: &[(String, Vec<u8>)], opts: &GateOptions) -> SyntaxReport {
    let jobs: Vec<Job> = files
        .iter()
        .map(|(path, bytes)| Job {
            path,
            before: None,
            after: bytes,
            prechecked: None,
        })
        .collect();
    run(&jobs, opts)
}
