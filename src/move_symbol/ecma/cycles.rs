//! Import cycles a move would make: each import the move adds that runs when its module loads
//! (the new module importing the old one or what the moved code needs, the old module or an
//! importer importing the new one) closes a cycle when its target already reaches its
//! importer through the tree's imports that run. Type-only imports (`import type`, names
//! used as types alone, which TypeScript drops) are no edges: a cycle through them is none.

use super::dependencies::Needs;
use super::sites::SiteWork;
use super::syntax::{self, Brings, Module};
use super::{Moved, Request};
use crate::rename::ecma::EcmaProject;
use lancet_core::MoveRefusal;
use std::collections::{HashMap, HashSet, VecDeque};

/// How many modules a cycle search reads at most; past it no cycle is reported.
const MAX_MODULES: usize = 4000;

/// An import the move adds.
struct Added {
    importer: String,
    target: String,
    names: Vec<String>,
}

/// The modules each module imports at load, read on demand, with the move's imports added.
struct Graph<'r, 'a> {
    req: &'r Request<'a>,
    project: &'r EcmaProject<'r>,
    read: HashMap<String, Vec<String>>,
    added: HashMap<String, Vec<String>>,
}

/// The files a module's statements import at load.
fn runtime_imports(path: &str, m: &Module, project: &EcmaProject) -> Vec<String> {
    let mut out = Vec::new();
    for (i, st) in m.statements.iter().enumerate() {
        let runs = !st.type_only
            && match &st.what {
                Brings::Import {
                    default,
                    namespace,
                    braces,
                    ..
                } => {
                    let bare = default.is_none() && namespace.is_none() && !braces;
                    // TypeScript drops an import none of whose names is read as a value.
                    bare || m
                        .bindings
                        .values()
                        .any(|b| b.import == Some(i) && b.refs.iter().any(|r| r.value))
                }
                Brings::ExportFrom { named } => named.iter().any(|s| !s.type_only),
                Brings::Star { .. } => true,
            };
        if runs && let Ok(file) = project.module_file(path, &st.source) {
            out.push(file);
        }
    }
    out
}

impl Graph<'_, '_> {
    fn imports(&mut self, file: &str) -> Vec<String> {
        if !self.read.contains_key(file) {
            let (a_path, a_text) = self.req.from;
            let text = if file == a_path {
                Some(a_text.to_string())
            } else if file == self.req.to {
                Some(self.req.to_text.to_string())
            } else {
                (self.req.read)(file)
            };
            let found = text
                .map(|t| runtime_imports(file, &syntax::read(file, &t), self.project))
                .unwrap_or_default();
            self.read.insert(file.to_string(), found);
        }
        let mut all = self.read[file].clone();
        all.extend(self.added.get(file).cloned().unwrap_or_default());
        all
    }

    /// The module each module reached from `from` was reached from.
    fn reached(&mut self, from: &str) -> HashMap<String, String> {
        let mut came: HashMap<String, String> = HashMap::new();
        let mut queue = VecDeque::from([from.to_string()]);
        let mut seen = HashSet::from([from.to_string()]);
        while let Some(at) = queue.pop_front() {
            if seen.len() > MAX_MODULES {
                break;
            }
            for next in self.imports(&at) {
                if seen.insert(next.clone()) {
                    came.insert(next.clone(), at.clone());
                    queue.push_back(next);
                }
            }
        }
        came
    }
}

/// Refuses the move when one of its imports that runs closes a cycle, naming it.
pub(super) fn refuse(
    req: &Request,
    project: &EcmaProject,
    needs: &Needs,
    work: &SiteWork,
    uses_left_value: bool,
    moved: &Moved,
) -> Result<(), MoveRefusal> {
    let (a_path, _) = req.from;
    let to = req.to.to_string();
    let mut added: Vec<Added> = Vec::new();
    for import in needs.copied.iter().chain(&needs.from_old) {
        if let Some(target) = import.target.as_ref().filter(|_| import.runtime) {
            added.push(Added {
                importer: to.clone(),
                target: target.clone(),
                names: import.names.clone(),
            });
        }
    }
    if (uses_left_value || req.keep_reexport) && !moved.is_type() {
        added.push(Added {
            importer: a_path.to_string(),
            target: to.clone(),
            names: vec![req.name.to_string()],
        });
    }
    for (importer, runtime) in &work.new_importers {
        if *runtime {
            added.push(Added {
                importer: importer.clone(),
                target: to.clone(),
                names: vec![req.name.to_string()],
            });
        }
    }
    let mut graph = Graph {
        req,
        project,
        read: HashMap::new(),
        added: HashMap::new(),
    };
    for a in &added {
        graph
            .added
            .entry(a.importer.clone())
            .or_default()
            .push(a.target.clone());
    }
    let mut searched: HashMap<String, HashMap<String, String>> = HashMap::new();
    for import in &added {
        if import.importer == import.target {
            continue;
        }
        let came = searched
            .entry(import.target.clone())
            .or_insert_with(|| graph.reached(&import.target));
        if let Some(path) = path_to(came, &import.importer) {
            let through = &path[1..path.len() - 1];
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
