//! Verdicts a caller computes before staging, from a tree it already holds (`lancet rename`
//! parses every file it edits): the gate takes them instead of parsing again.

use crate::introduced::classify;
use crate::languages::LanguageEntry;
use crate::parse::{error_sites, parse_from};
use lancet_core::SyntaxError;
use lancet_core::digest;
use std::collections::HashMap;
use tree_sitter::{Parser, Tree};

/// A file's tree-sitter verdict, computed by a caller that already held the file's tree
/// (`lancet rename` parses every file it edits): it edits that tree and reparses incrementally,
/// a fraction of a fresh parse. The gate takes it instead of parsing when the staged content is
/// exactly the content checked; the compiler check still runs as for any file.
#[derive(Debug, Clone)]
pub struct Prechecked {
    pub(crate) after_sha256: String,
    pub(crate) language: &'static str,
    pub(crate) errors: Vec<SyntaxError>,
    pub(crate) preexisting: Vec<SyntaxError>,
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
/// and errors are classified as for any file. `None` when the parse gave up (after
/// [`GATE_BUDGET`](crate::GATE_BUDGET): the gate then parses the file itself, within the batch's
/// time).
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
    let deadline = std::time::Instant::now() + crate::GATE_BUDGET;
    let new_tree = parse_from(parser, after, Some(&old_tree), deadline)?;
    drop(old_tree);
    let after_errors = error_sites(&new_tree);
    drop(new_tree);
    let (errors, preexisting) =
        classify(path, Some(before), after, &after_errors, || before_errors);
    Some(Prechecked {
        after_sha256: digest::sha256_hex(after),
        language: language.name.as_str(),
        errors,
        preexisting,
    })
}
