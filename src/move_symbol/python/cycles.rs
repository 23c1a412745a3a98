//! Python's imports for a move's cycle search ([`super::super::cycles`]): the modules'
//! top-level imports, with the move's own (an importer now importing the new module, the new
//! module importing what the moved code needs, the old module importing the new one) added and
//! those it removes gone. Python runs a cycle's `from x import name` before `x` has bound
//! `name`: such a move is refused, naming the path.

use super::super::cycles::{LoadImports, NewImport};
use crate::rename::python::PyProject;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// The modules' top-level imports after the move, read on demand.
pub(super) struct ImportGraph<'a> {
    py: &'a PyProject<'a>,
    read: HashMap<String, Vec<String>>,
    /// Edges the move adds.
    added: HashMap<String, Vec<String>>,
    /// Edges the move removes (`from old import f` in the new module, when it was all it
    /// took from the old one).
    removed: HashSet<(String, String)>,
}

impl<'a> ImportGraph<'a> {
    /// The graph as the tree has it, with the move's imports added and its removed ones gone.
    pub(super) fn new(
        py: &'a PyProject<'a>,
        added: &[NewImport],
        removed: &[(String, String)],
    ) -> Self {
        let mut edges: HashMap<String, Vec<String>> = HashMap::new();
        for import in added {
            edges
                .entry(import.importer.clone())
                .or_default()
                .push(import.target.clone());
        }
        ImportGraph {
            py,
            read: HashMap::new(),
            added: edges,
            removed: removed.iter().cloned().collect(),
        }
    }
}

impl LoadImports for ImportGraph<'_> {
    fn imports(&self, file: &str) -> Vec<String> {
        let read = self.read.get(file).cloned().unwrap_or_default();
        read.into_iter()
            .chain(self.added.get(file).cloned().unwrap_or_default())
            .filter(|to| !self.removed.contains(&(file.to_string(), to.clone())))
            .collect()
    }

    /// Reads them in parallel (each module's text is read and scanned for its import lines once
    /// per move).
    fn read_level(&mut self, files: &[String]) {
        let unread: Vec<&String> = files
            .iter()
            .filter(|f| !self.read.contains_key(f.as_str()))
            .collect();
        let py = self.py;
        let read: Vec<(String, Vec<String>)> = unread
            .par_iter()
            .map(|f| (f.to_string(), py.imports_on_load(f)))
            .collect();
        self.read.extend(read);
    }
}
