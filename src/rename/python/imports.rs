//! Imports between the tree's modules: the file an `import` names (absolute, relative, a
//! package's submodule; one file of the tree, or outside it, or unknown), and what
//! `from m import name` brings.

use super::scopes::has_wildcard;
use super::{MAX_DEPTH, PyModule, PyProject, Target, target_symbol, text};
use crate::rename::model::Resolution;
use std::sync::Arc;
use tree_sitter::Node;

impl PyProject<'_> {
    /// The file of module `dotted` (absolute) imported from `from`: the one file of the tree
    /// that is it; among several, the one beside the importing file (a script's directory is
    /// first on its path), else the one under a source root (the tree's top, `src/`, `lib/`).
    fn module_file(&self, dotted: &str, from: &str) -> Option<String> {
        let candidates = self.module_candidates(dotted)?;
        let rel = dotted.replace('.', "/");
        // An absolute import finds a module only under a directory on the path: a source root
        // (the tree's top, `src/`, `lib/`) or the importing script's own directory; `json`
        // is not `flask/json/`.
        let prefix = |c: &String| {
            c.strip_suffix(&format!("{rel}.py"))
                .or_else(|| c.strip_suffix(&format!("{rel}/__init__.py")))
                .unwrap_or_default()
                .trim_end_matches('/')
                .to_string()
        };
        let own_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let beside: Vec<&String> = candidates.iter().filter(|c| prefix(c) == own_dir).collect();
        if let [one] = beside.as_slice() {
            return Some((*one).clone());
        }
        let rooted: Vec<&String> = candidates
            .iter()
            .filter(|c| self.source_roots.contains(&prefix(c)))
            .collect();
        match rooted.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// The submodule `name` of the package whose `__init__.py` is `file` (`pkg.sub`, bound as
    /// an attribute of `pkg` once anything imports it).
    pub(super) fn submodule(&self, file: &str, name: &str) -> Option<String> {
        let dir = file.strip_suffix("/__init__.py")?;
        [
            format!("{dir}/{name}.py"),
            format!("{dir}/{name}/__init__.py"),
        ]
        .into_iter()
        .find(|c| self.files.iter().any(|f| f == c))
    }

    /// Whether the package `init` (an `__init__.py`) imports from its submodule `name` (`from
    /// .name import x`, `from . import name`): importing it binds the submodule as the package's
    /// attribute, for every importer of the package (as type checkers have it).
    pub(super) fn package_imports_from(&self, init: &str, name: &str) -> bool {
        let Some(m) = self.module(init) else {
            return false;
        };
        let root = m.tree.root_node();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "import_from_statement" {
                let from = n
                    .child_by_field_name("module_name")
                    .map(|x| text(x, &m).to_string())
                    .unwrap_or_default();
                let first = from
                    .strip_prefix('.')
                    .map(|r| r.split('.').next().unwrap_or(""));
                if first == Some(name) {
                    return true;
                }
                if from == "." {
                    let mut cursor = n.walk();
                    if n.children_by_field_name("name", &mut cursor)
                        .any(|item| text(item, &m) == name)
                    {
                        return true;
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        false
    }

    /// Whether `module` imports the module file `target` by a dotted `import a.b` of its own
    /// (`import a.b.c` imports `a.b` too): `a.b` is then an attribute there. (Without it the
    /// submodule is an attribute only if something else imported it first, which a type
    /// checker does not assume either.)
    pub(super) fn imports_module(&self, module: &PyModule, target: &str) -> bool {
        let root = module.tree.root_node();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "import_statement" {
                let mut cursor = n.walk();
                for item in n.children_by_field_name("name", &mut cursor) {
                    let dotted = if item.kind() == "aliased_import" {
                        item.child_by_field_name("name")
                    } else {
                        Some(item)
                    };
                    let Some(dotted) = dotted.map(|d| text(d, module)) else {
                        continue;
                    };
                    let prefixes = dotted
                        .match_indices('.')
                        .map(|(i, _)| &dotted[..i])
                        .chain([dotted]);
                    if prefixes
                        .filter_map(|d| self.resolve_module(module, d).ok())
                        .any(|f| f == target)
                    {
                        return true;
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| !matches!(c.kind(), "string" | "comment")),
            );
        }
        false
    }

    /// Whether an absolute module could be in the tree: some file under a source root or the
    /// importing file's directory starts its path, or a module or package of its name is
    /// anywhere in it (a namespace package, PEP 420, is a directory without `__init__.py`).
    fn package_in_tree(&self, top: &str, from: &str) -> bool {
        let own_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let roots = self.source_roots.iter().map(String::as_str);
        roots.chain([own_dir]).any(|root| {
            let base = if root.is_empty() {
                top.to_string()
            } else {
                format!("{root}/{top}")
            };
            self.files
                .iter()
                .any(|f| f == &format!("{base}.py") || f.starts_with(&format!("{base}/")))
        }) || self.files.iter().any(|f| {
            // Anywhere else (`tools/helpers.py` after `sys.path.insert(0, "tools")`): maybe
            // the tree's own, never known to be another package's.
            let (dir, file) = f.rsplit_once('/').unwrap_or(("", f));
            file == format!("{top}.py") || dir.split('/').any(|d| d == top)
        })
    }

    /// Every file of the tree that could be module `dotted`.
    fn module_candidates(&self, dotted: &str) -> Option<Vec<String>> {
        if let Some(hit) = self.modules.lock().ok()?.get(dotted) {
            return hit.clone();
        }
        let rel = dotted.replace('.', "/");
        let endings = [format!("{rel}.py"), format!("{rel}/__init__.py")];
        let hits: Vec<&String> = self
            .files
            .iter()
            .filter(|f| {
                endings.iter().any(|e| {
                    *f == e || (f.ends_with(e.as_str()) && f[..f.len() - e.len()].ends_with('/'))
                })
            })
            .collect();
        let found = (!hits.is_empty()).then(|| hits.into_iter().cloned().collect::<Vec<_>>());
        self.modules
            .lock()
            .ok()?
            .insert(dotted.to_string(), found.clone());
        found
    }

    /// The module an import in `from` names: relative (`.`, `..x`) to `from`'s package, or
    /// absolute. `Err` says whether it is outside the tree (true) or unknown (false).
    pub(super) fn resolve_module(
        &self,
        from: &PyModule,
        dotted: &str,
    ) -> Result<String, (bool, String)> {
        if let Some(rest) = dotted.strip_prefix('.') {
            let ups = rest.chars().take_while(|&c| c == '.').count();
            let rest = &rest[ups..];
            let mut dir: Vec<&str> = from.path.split('/').collect();
            dir.pop();
            for _ in 0..ups {
                if dir.pop().is_none() {
                    return Err((false, format!("relative import `{dotted}` leaves the tree")));
                }
            }
            let mut base = dir.join("/");
            if !rest.is_empty() {
                if !base.is_empty() {
                    base.push('/');
                }
                base.push_str(&rest.replace('.', "/"));
            }
            let candidates = [format!("{base}.py"), format!("{base}/__init__.py")];
            let candidates = candidates.map(|c| c.trim_start_matches('/').to_string());
            return candidates
                .into_iter()
                .find(|c| self.files.iter().any(|f| f == c))
                .ok_or((
                    false,
                    format!("module `{dotted}` is not a file of the tree"),
                ));
        }
        if let Some(file) = self.module_file(dotted, &from.path) {
            return Ok(file);
        }
        let top = dotted.split('.').next().unwrap_or(dotted);
        if self.package_in_tree(top, &from.path) {
            Err((
                false,
                format!(
                    "module `{dotted}` is not one file of the tree (a module of that name is in the tree: a sys.path entry or a package root may reach it)"
                ),
            ))
        } else {
            Err((true, format!("`{dotted}` is outside the tree")))
        }
    }

    /// The files of the tree a module imports when it runs: its top-level imports (and those
    /// in top-level `try` blocks), each module with the packages above it, and for
    /// `from pkg import sub` the submodule. What a move asks to tell an import cycle.
    pub(crate) fn imports_on_load(&self, path: &str) -> Vec<String> {
        let Some(m) = self.module(path) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        let mut add = |file: Option<String>| {
            if let Some(f) = file
                && !out.contains(&f)
            {
                out.push(f);
            }
        };
        let root = m.tree.root_node();
        let mut stack: Vec<Node> = {
            let mut cursor = root.walk();
            root.named_children(&mut cursor).collect()
        };
        while let Some(stmt) = stack.pop() {
            match stmt.kind() {
                "try_statement" | "block" | "except_clause" | "else_clause" | "finally_clause" => {
                    let mut cursor = stmt.walk();
                    stack.extend(stmt.named_children(&mut cursor));
                }
                "import_statement" => {
                    let mut cursor = stmt.walk();
                    for item in stmt.children_by_field_name("name", &mut cursor) {
                        let dotted = if item.kind() == "aliased_import" {
                            item.child_by_field_name("name")
                        } else {
                            Some(item)
                        };
                        let Some(dotted) = dotted.map(|d| text(d, &m)) else {
                            continue;
                        };
                        let parts: Vec<&str> = dotted.split('.').collect();
                        for end in 1..=parts.len() {
                            add(self.resolve_module(&m, &parts[..end].join(".")).ok());
                        }
                    }
                }
                "import_from_statement" => {
                    let Some(from) = stmt.child_by_field_name("module_name") else {
                        continue;
                    };
                    let from = text(from, &m);
                    add(self.resolve_module(&m, from).ok());
                    let mut cursor = stmt.walk();
                    for item in stmt.children_by_field_name("name", &mut cursor) {
                        let original = if item.kind() == "aliased_import" {
                            item.child_by_field_name("name")
                        } else {
                            Some(item)
                        };
                        if let Some(name) = original.map(|o| text(o, &m)) {
                            let sub = if from.ends_with('.') {
                                format!("{from}{name}")
                            } else {
                                format!("{from}.{name}")
                            };
                            add(self.resolve_module(&m, &sub).ok());
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// What `from <from> import <name>` in `module` brings.
    pub(super) fn imported(
        &self,
        module: &PyModule,
        from: &str,
        name: &str,
        depth: usize,
    ) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("an import chain too long to follow".into());
        }
        let file = match self.resolve_module(module, from) {
            Ok(f) => f,
            Err((true, why)) => return Target::Outside(format!("imported from {why}")),
            Err((false, why)) => return Target::Unknown(why),
        };
        let Some(target) = self.module(&file) else {
            return Target::Unknown(format!("{file} cannot be read"));
        };
        // `from . import sub` in a package's `__init__.py` names its submodule, not itself (a
        // doctest importing from its own module names the module's binding).
        let bound = if target.path == module.path && module.doctest_wrappers.is_none() {
            Arc::new(Vec::new())
        } else {
            self.bindings(&target, None, name)
        };
        if bound.is_empty() {
            // `from pkg import sub`: a submodule.
            let sub = if from.ends_with('.') {
                format!("{from}{name}")
            } else {
                format!("{from}.{name}")
            };
            if let Ok(file) = self.resolve_module(module, &sub) {
                return Target::Module(file);
            }
            return if has_wildcard(&target) {
                Target::Unknown(format!(
                    "`{name}` may come from a `from … import *` in {file}"
                ))
            } else {
                Target::Unknown(format!("{file} does not bind `{name}`"))
            };
        }
        // A variable the module binds is the binding itself.
        match self.bound_target(&target, None, name, &bound, false, depth) {
            Target::Variable(id, _) => Target::Binding(id),
            t => t,
        }
    }

    /// An identifier inside a dotted name: an imported name (`from m import name`), or part of
    /// a module path (modules are files; renaming one is not a rename of an identifier).
    pub(super) fn in_import(&self, module: &PyModule, dotted: Node, name: &str) -> Resolution {
        let Some(stmt) = dotted.parent() else {
            return Resolution::Unresolved("part of a dotted name".into());
        };
        let holder = if stmt.kind() == "aliased_import" {
            stmt.parent()
        } else {
            Some(stmt)
        };
        let Some(holder) = holder else {
            return Resolution::Unresolved("part of a dotted name".into());
        };
        let is_module_name = holder
            .child_by_field_name("module_name")
            .is_some_and(|m| m.id() == dotted.id());
        if holder.kind() == "import_from_statement" && !is_module_name {
            let from = holder
                .child_by_field_name("module_name")
                .map(|m| text(m, module).to_string())
                .unwrap_or_default();
            if dotted.named_child_count() == 1 {
                return match self.imported(module, &from, name, 0) {
                    Target::Module(_) => Resolution::Unresolved(format!(
                        "`{name}` is a module of the tree (a file, not renamed)"
                    )),
                    t => target_symbol(t),
                };
            }
        }
        Resolution::Unresolved("part of a module path (a file, not renamed)".into())
    }
}
