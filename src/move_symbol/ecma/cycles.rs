//! Import cycles a move would make: each import the move adds that runs when its module loads
//! (the new module importing the old one or what the moved code needs, the old module or an
//! importer importing the new one) closes a cycle when its target already reaches its
//! importer through the tree's imports that run. Type-only imports (`import type`, names
//! used as types alone, which TypeScript drops) are no edges: a cycle through them is none.
//! The search itself is [`super::super::cycles`]; this room says which imports run.

use super::super::cycles::{LoadImports, NewImport, refuse_cycles};
use super::dependencies::Needs;
use super::sites::SiteWork;
use super::syntax::{self, Brings, Module};
use super::{Moved, Request};
use crate::rename::ecma::EcmaProject;
use crate::report::MoveRefusal;
use std::collections::HashMap;

/// The modules each module imports at load, read on demand (the old and the new module as the
/// plan read them), with the move's imports added.
struct Graph<'r, 'a> {
    req: &'r Request<'a>,
    project: &'r EcmaProject<'r>,
    old: &'r Module,
    new: &'r Module,
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

impl LoadImports for Graph<'_, '_> {
    fn read_level(&mut self, files: &[String]) {
        for file in files {
            if self.read.contains_key(file) {
                continue;
            }
            let (a_path, _) = self.req.from;
            let found = if *file == a_path {
                runtime_imports(file, self.old, self.project)
            } else if *file == self.req.to {
                runtime_imports(file, self.new, self.project)
            } else {
                (self.req.read)(file)
                    .map(|t| runtime_imports(file, &syntax::read(file, &t), self.project))
                    .unwrap_or_default()
            };
            self.read.insert(file.to_string(), found);
        }
    }

    fn imports(&self, file: &str) -> Vec<String> {
        let mut all = self.read.get(file).cloned().unwrap_or_default();
        all.extend(self.added.get(file).cloned().unwrap_or_default());
        all
    }
}

/// Refuses the move when one of its imports that runs closes a cycle, naming it (`a` and `b`:
/// the old and the new module as read).
pub(super) fn refuse(
    req: &Request,
    project: &EcmaProject,
    (a, b): (&Module, &Module),
    needs: &Needs,
    work: &SiteWork,
    uses_left_value: bool,
    moved: &Moved,
) -> Result<(), MoveRefusal> {
    let (a_path, _) = req.from;
    let to = req.to.to_string();
    let mut added: Vec<NewImport> = Vec::new();
    for import in needs.copied.iter().chain(&needs.from_old) {
        if let Some(target) = import.target.as_ref().filter(|_| import.runtime) {
            added.push(NewImport {
                importer: to.clone(),
                target: target.clone(),
                names: import.names.clone(),
            });
        }
    }
    if (uses_left_value || req.keep_reexport) && !moved.is_type() {
        added.push(NewImport {
            importer: a_path.to_string(),
            target: to.clone(),
            names: vec![req.name.to_string()],
        });
    }
    for (importer, runtime) in &work.new_importers {
        if *runtime {
            added.push(NewImport {
                importer: importer.clone(),
                target: to.clone(),
                names: vec![req.name.to_string()],
            });
        }
    }
    let mut graph = Graph {
        req,
        project,
        old: a,
        new: b,
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
    refuse_cycles(&mut graph, &added, str::to_string)
}
