//! The registry of resolvers: every language's resolver over one rename's sources, and the
//! pass that asks each occurrence's resolver what it refers to.

use super::ecma::EcmaProject;
use super::model::{FileScan, Parsed, Resolution};
use super::python::PyProject;
use super::resolve::{Resolved, Resolver, Sources};
use super::rust::RustProject;
use lancet_core::Root;
use rayon::prelude::*;
use std::sync::Arc;

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
    let real = |path: &str| -> Option<String> {
        let rel = root.rel(path).ok()?;
        Some(root.resolve(&rel, true).ok()?.real.to_string())
    };
    let sources = Sources {
        files,
        scanned: scans
            .iter()
            .map(|s| (s.language, Arc::clone(&s.parsed)))
            .collect(),
        read: &read,
        real: &real,
    };
    let registry = resolvers(&sources);
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
}
