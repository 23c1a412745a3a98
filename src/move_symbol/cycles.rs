//! The import-cycle search a move runs, whatever the language: each import the move adds closes
//! a cycle when its target already reaches its importer through the imports that run when a
//! module loads. Each language says what those imports are ([`LoadImports`]: Python's
//! top-level imports, JavaScript/TypeScript's value imports); the search, its bound and the
//! refusal naming the cycle are here once.

use crate::report::MoveRefusal;
use std::collections::{HashMap, HashSet};

/// How many modules a cycle search reads at most; past it no cycle is reported.
const MAX_MODULES: usize = 4000;

/// An import the move adds: `importer` will import `names` from `target` when it loads.
pub(super) struct NewImport {
    pub(super) importer: String,
    pub(super) target: String,
    pub(super) names: Vec<String>,
}

/// The modules each module imports when it loads, after the move: the tree's, read on demand,
/// with the move's imports added (and any it removes gone).
pub(super) trait LoadImports {
    /// Reads the imports of those of `files` not read yet (one level of the search at once, so
    /// a language may read them in parallel).
    fn read_level(&mut self, files: &[String]);

    /// The modules `file` imports at load after the move (read before: [`Self::read_level`]).
    fn imports(&self, file: &str) -> Vec<String>;
}

/// Every module `from` reaches through imports, each with the module it was reached from (a
/// breadth-first search, one level read at a time, bounded by [`MAX_MODULES`]).
fn reached(graph: &mut impl LoadImports, from: &str) -> HashMap<String, String> {
    let mut came: HashMap<String, String> = HashMap::new();
    let mut seen = HashSet::from([from.to_string()]);
    let mut level = vec![from.to_string()];
    while !level.is_empty() && seen.len() <= MAX_MODULES {
        graph.read_level(&level);
        let mut next = Vec::new();
        for at in &level {
            for module in graph.imports(at) {
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

/// Refuses the move when one of the imports it adds closes a cycle, naming the cycle's modules
/// as `name` spells them.
pub(super) fn refuse_cycles(
    graph: &mut impl LoadImports,
    added: &[NewImport],
    name: impl Fn(&str) -> String,
) -> Result<(), MoveRefusal> {
    let mut searched: HashMap<String, HashMap<String, String>> = HashMap::new();
    for import in added {
        if import.importer == import.target {
            continue;
        }
        if !searched.contains_key(&import.target) {
            let came = reached(graph, &import.target);
            searched.insert(import.target.clone(), came);
        }
        let Some(path) = path_to(&searched[&import.target], &import.importer) else {
            continue;
        };
        let through: Vec<String> = path[1..path.len() - 1].iter().map(|p| name(p)).collect();
        let adds_back = added
            .iter()
            .any(|a| a.importer == import.target && a.target == import.importer);
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
    Ok(())
}
