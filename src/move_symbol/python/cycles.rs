//! Import cycles a move would make through the tree: each import the move adds (an importer
//! now importing the new module, the new module importing what the moved code needs, the old
//! module importing the new one) closes a cycle when its target already reaches its importer
//! through the modules' top-level imports. Python runs such a cycle's `from x import name`
//! before `x` has bound `name`: refused, naming the path.

use super::super::modules::Modules;
use crate::rename::python::PyProject;
use lancet_core::MoveRefusal;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// How many modules a cycle search reads at most; past it no cycle is reported.
const MAX_MODULES: usize = 4000;

/// An import the move adds: `importer` will import `names` from `target` when it loads.
pub(super) struct NewImport {
    pub(super) importer: String,
    pub(super) target: String,
    pub(super) names: Vec<String>,
}

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

    /// The modules `file` imports when it loads, after the move (read before: [`Self::read`]).
    fn imports(&self, file: &str) -> Vec<String> {
        let read = self.read.get(file).cloned().unwrap_or_default();
        read.into_iter()
            .chain(self.added.get(file).cloned().unwrap_or_default())
            .filter(|to| !self.removed.contains(&(file.to_string(), to.clone())))
            .collect()
    }

    /// Reads the imports of the modules not read yet, in parallel (each module's text is
    /// read and scanned for its import lines once per move).
    fn read(&mut self, files: &[String]) {
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

    /// Every module `from` reaches through imports, each with the module it was reached from
    /// (a breadth-first search, one level read at a time, bounded by [`MAX_MODULES`]).
    fn reached(&mut self, from: &str) -> HashMap<String, String> {
        let mut came: HashMap<String, String> = HashMap::new();
        let mut seen = HashSet::from([from.to_string()]);
        let mut level = vec![from.to_string()];
        while !level.is_empty() && seen.len() <= MAX_MODULES {
            self.read(&level);
            let mut next = Vec::new();
            for at in &level {
                for module in self.imports(at) {
                    if seen.insert(module.clone()) {
                        came.insert(module.clone(), at.clone());
                        next.push(module);
                    }
                }
            }
            level = next;
        }
        came
    }
}

/// The path from the search's start to `to` (both ends included), if it was reached.
fn path_to(came: &HashMap<String, String>, to: &str) -> Option<Vec<String>> {
    let mut path = vec![to.to_string()];
    while let Some(prev) = came.get(path.last()?) {
        path.push(prev.clone());
        if path.len() > came.len() + 1 {
            return None;
        }
    }
    path.reverse();
    (path.len() > 1).then_some(path)
}

/// Refuses the move when one of its imports closes a cycle.
pub(super) fn refuse_cycles(
    graph: &mut ImportGraph,
    added: &[NewImport],
    modules: &Modules,
) -> Result<(), MoveRefusal> {
    let mut searched: HashMap<String, HashMap<String, String>> = HashMap::new();
    for import in added {
        if import.importer == import.target {
            continue;
        }
        let came = searched
            .entry(import.target.clone())
            .or_insert_with(|| graph.reached(&import.target));
        if let Some(path) = path_to(came, &import.importer) {
            let through: Vec<String> = path[1..path.len() - 1]
                .iter()
                .map(|p| modules.dotted(p))
                .collect();
            let adds_back = graph
                .added
                .get(&import.target)
                .is_some_and(|targets| targets.contains(&import.importer));
            let back = if through.is_empty() && adds_back {
                "an import the move adds there".to_string()
            } else if through.is_empty() {
                "an import it has".to_string()
            } else {
                format!("through {}", through.join(" -> "))
            };
            return Err(MoveRefusal::Cycle {
                from: import.target.clone(),
                to: import.importer.clone(),
                needs: import.names.clone(),
                back,
            });
        }
    }
    Ok(())
}
