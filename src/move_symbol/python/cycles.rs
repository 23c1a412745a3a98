//! Import cycles a move would make through the tree: each import the move adds (an importer
//! now importing the new module, the new module importing what the moved code needs, the old
//! module importing the new one) closes a cycle when its target already reaches its importer
//! through the modules' top-level imports. Python runs such a cycle's `from x import name`
//! before `x` has bound `name`: refused, naming the path.

use super::super::modules::Modules;
use crate::rename::python::PyProject;
use lancet_core::MoveRefusal;
use std::collections::{HashMap, HashSet, VecDeque};

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

    /// The modules `file` imports when it loads, after the move.
    fn imports(&mut self, file: &str) -> Vec<String> {
        let read = self
            .read
            .entry(file.to_string())
            .or_insert_with(|| self.py.imports_on_load(file))
            .clone();
        read.into_iter()
            .chain(self.added.get(file).cloned().unwrap_or_default())
            .filter(|to| !self.removed.contains(&(file.to_string(), to.clone())))
            .filter(|to| !is_ancestor_package(to, file))
            .collect()
    }

    /// The path of imports from `from` to `to`, if any (both ends included).
    fn path(&mut self, from: &str, to: &str) -> Option<Vec<String>> {
        let mut came: HashMap<String, String> = HashMap::new();
        let mut queue = VecDeque::from([from.to_string()]);
        let mut seen = HashSet::from([from.to_string()]);
        while let Some(at) = queue.pop_front() {
            if seen.len() > MAX_MODULES {
                return None;
            }
            for next in self.imports(&at) {
                if !seen.insert(next.clone()) {
                    continue;
                }
                came.insert(next.clone(), at.clone());
                if next == to {
                    let mut path = vec![next];
                    while let Some(prev) = came.get(path.last()?) {
                        path.push(prev.clone());
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(next);
            }
        }
        None
    }
}

/// Whether `init` is the `__init__.py` of a package holding `file`: Python starts loading
/// the package before any module in it, so importing it from inside is no cycle that stops a
/// load.
fn is_ancestor_package(init: &str, file: &str) -> bool {
    init.strip_suffix("__init__.py")
        .is_some_and(|dir| file.starts_with(dir) && file != init)
}

/// Refuses the move when one of its imports closes a cycle.
pub(super) fn refuse_cycles(
    graph: &mut ImportGraph,
    added: &[NewImport],
    modules: &Modules,
) -> Result<(), MoveRefusal> {
    for import in added {
        if import.importer == import.target {
            continue;
        }
        if let Some(path) = graph.path(&import.target, &import.importer) {
            let through: Vec<String> = path[1..path.len() - 1]
                .iter()
                .map(|p| modules.dotted(p))
                .collect();
            let back = if through.is_empty() {
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
