//! One rename interface: [`Resolver`], which the resolution of each family of languages
//! implements (Python, JavaScript/TypeScript, Rust), and [`resolve_all`], which hands every
//! scanned file to the resolver that takes its language.

use super::ecma::EcmaProject;
use super::model::{FileScan, Parsed, Resolution};
use super::python::PyProject;
use super::rust::RustProject;
use crate::path::Root;
use rayon::prelude::*;
use std::sync::Arc;
use tree_sitter::Node;

/// What a resolver decides of one occurrence of OLD.
pub(super) struct Resolved {
    /// What it refers to (for a shorthand field, the value: a local or an item).
    pub(super) value: Resolution,
    /// A Rust shorthand field (`P { major }`, `let P { major } = p`): the field it also names.
    pub(super) field: Option<Resolution>,
}

impl From<Resolution> for Resolved {
    fn from(value: Resolution) -> Self {
        Resolved { value, field: None }
    }
}

/// What resolvers are built over: the tree's walked files, the files scanned for OLD (parsed),
/// and a reader of any file of the tree (for a module that does not hold OLD).
pub(super) struct Sources<'a> {
    /// The walked files, relative to the root.
    pub(super) files: &'a [String],
    /// Each scanned file's language and parse.
    pub(super) scanned: Vec<(&'static str, Arc<Parsed>)>,
    /// Reads a file of the tree as text.
    pub(super) read: &'a (dyn Fn(&str) -> Option<String> + Sync),
}

impl Sources<'_> {
    /// The scanned files of one language.
    pub(super) fn of_language<'s>(
        &'s self,
        language: &'s str,
    ) -> impl Iterator<Item = &'s Arc<Parsed>> {
        self.scanned
            .iter()
            .filter(move |(l, _)| *l == language)
            .map(|(_, parsed)| parsed)
    }
}

/// The name resolution of a family of languages, as a rename needs it: which files it takes,
/// and what each occurrence of OLD in one of them refers to.
pub(super) trait Resolver: Sync {
    /// The languages (names of `grammars/languages.toml`) whose files it resolves.
    fn languages(&self) -> &'static [&'static str];

    /// What each occurrence of `old` (byte offsets, in file order) in `file` refers to, in the
    /// order of `offsets`.
    fn resolve_file(&self, file: &Parsed, offsets: &[usize], old: &str) -> Vec<Resolved>;
}

/// Every resolver, over one rename's sources.
fn resolvers<'a>(sources: &'a Sources<'a>) -> [Box<dyn Resolver + 'a>; 3] {
    [
        Box::new(PyProject::new(sources)),
        Box::new(EcmaProject::new(sources)),
        Box::new(RustProject::new(sources)),
    ]
}

/// Resolves every code occurrence of OLD in the scans: Python through the tree's modules
/// (parsing, on demand, modules that do not hold OLD), JavaScript/TypeScript through
/// their imports and exports (`oxc_semantic`), Rust file by file.
pub(super) fn resolve_all(root: &Root, files: &[String], scans: &mut [FileScan], old: &str) {
    let read =
        |path: &str| -> Option<String> { String::from_utf8(root.dir().read(path).ok()?).ok() };
    let sources = Sources {
        files,
        scanned: scans
            .iter()
            .map(|s| (s.language, Arc::clone(&s.parsed)))
            .collect(),
        read: &read,
    };
    let registry = resolvers(&sources);
    let resolved: Vec<Vec<Resolved>> = scans
        .par_iter()
        .map(|scan| {
            let offsets: Vec<usize> = scan.occurrences.iter().map(|o| o.at).collect();
            match registry
                .iter()
                .find(|r| r.languages().contains(&scan.language))
            {
                Some(resolver) => resolver.resolve_file(&scan.parsed, &offsets, old),
                None => offsets
                    .iter()
                    .map(|_| {
                        Resolution::Unresolved(format!(
                            "lancet resolves no names in {}",
                            scan.language
                        ))
                        .into()
                    })
                    .collect(),
            }
        })
        .collect();
    for (scan, resolutions) in scans.iter_mut().zip(resolved) {
        for (o, r) in scan.occurrences.iter_mut().zip(resolutions) {
            o.resolution = Some(r.value);
            o.field = r.field;
        }
    }
}

/// Resolves each occurrence through the syntax node that is exactly it (an occurrence that is
/// no one node is unresolved): for the resolvers that read tree-sitter's tree.
pub(super) fn by_node(
    file: &Parsed,
    offsets: &[usize],
    old: &str,
    resolve: impl Fn(Node) -> Resolved,
) -> Vec<Resolved> {
    offsets
        .iter()
        .map(|&at| {
            let range = at..at + old.len();
            let node = file
                .tree
                .root_node()
                .descendant_for_byte_range(range.start, range.end)
                .filter(|n| n.byte_range() == range);
            match node {
                Some(node) => resolve(node),
                None => Resolution::Unresolved("not one syntax node".into()).into(),
            }
        })
        .collect()
}
