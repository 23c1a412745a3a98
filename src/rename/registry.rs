//! The registry of resolvers: every language's resolver over one rename's sources, and the
//! pass that asks each occurrence's resolver what it refers to.

use super::ecma::EcmaProject;
use super::model::{FileScan, Parsed, Resolution, SymbolId};
use super::python::PyProject;
use super::resolve::{Resolved, Resolver, Sources};
use super::rust::RustProject;
use crate::report::OutsideReach;
use lancet_core::Root;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Every language's resolver over one rename's sources, kept after the sites are resolved for
/// what is built on them (a move's plan), with what they learnt: the modules they parsed on
/// demand, the imports, scopes and members they resolved.
pub(crate) struct Resolvers<'a> {
    /// Python's.
    pub(crate) python: PyProject<'a>,
    /// JavaScript's and TypeScript's.
    pub(crate) ecma: EcmaProject<'a>,
    rust: RustProject<'a>,
}

impl<'a> Resolvers<'a> {
    fn new(sources: &'a Sources<'a>) -> Self {
        Resolvers {
            python: PyProject::new(sources),
            ecma: EcmaProject::new(sources),
            rust: RustProject::new(sources),
        }
    }

    /// Each, to be asked by the language of a file.
    fn each(&self) -> [&dyn Resolver; 3] {
        [&self.python, &self.ecma, &self.rust]
    }
}

/// The symbols the sites resolve to, in groups a rename takes together (a method and the ones
/// overriding it): each group one symbol to the person who asked.
pub(crate) type Symbols = Vec<Vec<SymbolId>>;

/// The member symbols found (each named OLD) that code outside the tree may reach by a name,
/// each with what may (see [`Resolver::reached_from_outside`]).
#[derive(Default)]
pub(crate) struct OutsideReaches {
    /// By OLD: a rename would stop the override.
    pub(crate) old: HashMap<SymbolId, OutsideReach>,
    /// By NEW: a rename would start one.
    pub(crate) new: HashMap<SymbolId, OutsideReach>,
    /// NEW defined by a class of the tree in the member's class's hierarchy, in any file: its
    /// file, line and name.
    pub(crate) new_in_tree: HashMap<SymbolId, (String, usize, String)>,
}

impl Resolvers<'_> {
    /// Each member symbol found that code outside the tree may reach by OLD or by NEW (a base
    /// outside the tree that may define it), with what may.
    pub(crate) fn reached_from_outside(
        &self,
        symbols: &Symbols,
        (old, new): (&str, &str),
    ) -> OutsideReaches {
        let registry = self.each();
        let by = |name: &str| -> HashMap<SymbolId, OutsideReach> {
            symbols
                .iter()
                .flatten()
                .filter(|id| id.is_member())
                .filter_map(|id| {
                    let reach = registry
                        .iter()
                        .find_map(|r| r.reached_from_outside(id, name))?;
                    Some((id.clone(), reach))
                })
                .collect()
        };
        let new_in_tree = symbols
            .iter()
            .flatten()
            .filter(|id| id.is_member())
            .filter_map(|id| {
                let found = registry.iter().find_map(|r| r.in_hierarchy(id, new))?;
                Some((id.clone(), found))
            })
            .collect();
        OutsideReaches {
            old: by(old),
            new: by(new),
            new_in_tree,
        }
    }
}

/// At most this many distinct symbols are compared pairwise for ties; past it each is its own.
const MAX_COMPARED: usize = 256;

/// Resolves every code occurrence of OLD in the scans: Python through the tree's modules
/// (parsing, on demand, modules that do not hold OLD), JavaScript/TypeScript through their
/// imports and exports (`oxc_semantic`), Rust file by file; then `then` with the scans, the
/// symbols found (grouped by the ties their resolvers know) and the resolvers that found them,
/// which a rename asks what else it weighs (a member's outside base) and a move plans on, so
/// neither builds them again nor parses again the modules they read.
pub(crate) fn resolve_all_then<R>(
    root: &Root,
    files: &[String],
    mut scans: Vec<FileScan>,
    old: &str,
    then: impl FnOnce(Vec<FileScan>, Symbols, &Resolvers) -> R,
) -> R {
    let (read, real) = readers(root);
    let sources = sources(files, &scans, &read, &real);
    let resolvers = Resolvers::new(&sources);
    let symbols = resolve_with(&resolvers, &mut scans, old);
    then(scans, symbols, &resolvers)
}

/// The resolvers' sources: the walked files, the scanned ones as parsed, the tree's readers.
fn sources<'a>(
    files: &'a [String],
    scans: &[FileScan],
    read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    real: &'a (dyn Fn(&str) -> Option<String> + Sync),
) -> Sources<'a> {
    Sources {
        files,
        scanned: scans
            .iter()
            .map(|s| (s.language, Arc::clone(&s.parsed)))
            .collect(),
        read,
        real,
    }
}

/// Each occurrence resolved by its file's language's resolver; the symbols found, grouped.
fn resolve_with(resolvers: &Resolvers, scans: &mut [FileScan], old: &str) -> Symbols {
    let registry = resolvers.each();
    let resolved: Vec<(Vec<Resolved>, Vec<Resolved>)> = scans
        .par_iter()
        .map(|scan| {
            let resolver = registry
                .iter()
                .find(|r| r.languages().contains(&scan.language));
            // The file's own code, then its doctests (on their own parse).
            let offsets = |doctest: bool| -> Vec<usize> {
                let of = scan.occurrences.iter().filter(|o| o.doctest == doctest);
                of.map(|o| o.at).collect()
            };
            let resolve = |parsed: &Parsed, offsets: Vec<usize>| match resolver {
                Some(resolver) => resolver.resolve_file(parsed, &offsets, old),
                None => offsets
                    .iter()
                    .map(|_| {
                        let why = format!("lancet resolves no names in {}", scan.language);
                        Resolution::Unresolved(why).into()
                    })
                    .collect(),
            };
            let code = resolve(&scan.parsed, offsets(false));
            let doctests = match &scan.doctests {
                Some(parsed) => resolve(parsed, offsets(true)),
                None => Vec::new(),
            };
            (code, doctests)
        })
        .collect();
    for (scan, (code, doctests)) in scans.iter_mut().zip(resolved) {
        let (mut code, mut doctests) = (code.into_iter(), doctests.into_iter());
        for o in &mut scan.occurrences {
            let next = if o.doctest {
                doctests.next()
            } else {
                code.next()
            };
            if let Some(r) = next {
                o.resolution = Some(r.value);
                o.field = r.field;
            }
        }
    }
    group(scans, &registry)
}

/// How resolvers read the tree's files (as text) and follow its links (to a path of the tree).
fn readers(
    root: &Root,
) -> (
    impl Fn(&str) -> Option<String> + Sync + '_,
    impl Fn(&str) -> Option<String> + Sync + '_,
) {
    let read =
        |path: &str| -> Option<String> { String::from_utf8(root.dir().read(path).ok()?).ok() };
    let real = |path: &str| -> Option<String> {
        let rel = root.rel(path).ok()?;
        let real = root.resolve(&rel, true).ok()?.real;
        // A path that does not exist resolves to itself: it leads nowhere.
        root.dir().symlink_metadata(real.as_str()).ok()?;
        Some(real.to_string())
    };
    (read, real)
}

/// The distinct symbols of the scans (by first site), joined where a resolver ties two.
fn group(scans: &[FileScan], registry: &[&dyn Resolver]) -> Symbols {
    let mut ids: Vec<SymbolId> = Vec::new();
    let mut seen = HashSet::new();
    for o in scans.iter().flat_map(|s| &s.occurrences) {
        for r in [&o.resolution, &o.field].into_iter().flatten() {
            if let Resolution::Symbol(id) = r
                && seen.insert(id.clone())
            {
                ids.push(id.clone());
            }
        }
    }
    // Union-find over the ties, smallest index as each group's root.
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    fn root_of(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    if ids.len() <= MAX_COMPARED {
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                if registry.iter().any(|r| r.related(&ids[i], &ids[j])) {
                    let (a, b) = (root_of(&mut parent, i), root_of(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let mut groups: Vec<Vec<SymbolId>> = Vec::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    for (i, id) in ids.into_iter().enumerate() {
        let r = root_of(&mut parent, i);
        let g = *index.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(id);
    }
    groups
}
