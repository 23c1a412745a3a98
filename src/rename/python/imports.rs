//! Imports between the tree's modules: the file an `import` names (absolute, relative, a
//! package's submodule; one file of the tree, or outside it, or unknown), and what
//! `from m import name` brings.

use super::scopes::has_wildcard;
use super::{MAX_DEPTH, PyModule, PyProject, Target, remembered, target_symbol, text};
use crate::rename::model::Resolution;
use std::sync::Arc;
use tree_sitter::Node;

/// The import statements a module runs when it loads, each on one line (continuations
/// joined, comments dropped): those at its top level and in its top-level `try` blocks. Read
/// from the lines, so an import written at the start of a line of a docstring counts too (a
/// cycle then refused that is none; never one missed).
fn load_time_imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_try = false;
    let mut current: Option<String> = None;
    let mut depth = 0i32;
    for line in text.lines() {
        if let Some(statement) = current.as_mut() {
            let code = line.split('#').next().unwrap_or("");
            statement.push(' ');
            statement.push_str(code.trim().trim_end_matches('\\'));
            depth += paren_balance(code);
            if depth <= 0 && !code.trim_end().ends_with('\\') {
                out.extend(current.take());
            }
            continue;
        }
        let top = !line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if top {
            let word = line.split([' ', ':']).next().unwrap_or("");
            in_try = matches!(word, "try" | "except" | "else" | "finally");
        }
        // Only a top-level line or one of a top-level `try` block starts an import read here
        // (most lines of a module are neither: they are not looked at further).
        if !(top || in_try) {
            continue;
        }
        let code = line.split('#').next().unwrap_or("");
        let trimmed = code.trim();
        if trimmed.starts_with("import ") || trimmed.starts_with("from ") {
            depth = paren_balance(code);
            let statement = trimmed.trim_end_matches('\\').to_string();
            if depth > 0 || trimmed.ends_with('\\') {
                current = Some(statement);
            } else {
                out.push(statement);
            }
        }
    }
    out
}

/// Opening minus closing parentheses on a line.
fn paren_balance(code: &str) -> i32 {
    code.chars()
        .map(|c| match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        })
        .sum()
}

impl PyProject<'_> {
    /// The file of module `dotted` (absolute) imported from `from`: the one file of the tree
    /// that is it; among several, the one beside the importing file (a script's directory is
    /// first on its path; a type checker looks there last), else the one under a source root
    /// (the tree's top, `src/`, `lib/`). With `as_run`, as Python 3 runs it: inside a package
    /// an absolute import never means a sibling (`import logging` in `p/a.py` is the top-level
    /// `logging`, not `p/logging.py`).
    fn module_file(&self, dotted: &str, from: &str, as_run: bool) -> Option<String> {
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
        if !(as_run && self.is_package(own_dir)) {
            let beside: Vec<&String> = candidates.iter().filter(|c| prefix(c) == own_dir).collect();
            if let [one] = beside.as_slice() {
                return Some((*one).clone());
            }
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

    /// Whether a directory of the tree is a package (holds `__init__.py`).
    fn is_package(&self, dir: &str) -> bool {
        let init = if dir.is_empty() {
            "__init__.py".to_string()
        } else {
            format!("{dir}/__init__.py")
        };
        self.files.contains(&init)
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
        .find(|c| self.files.contains(c))
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
        let under_a_root = roots.chain([own_dir]).any(|root| {
            let base = if root.is_empty() {
                top.to_string()
            } else {
                format!("{root}/{top}")
            };
            self.files.contains(&format!("{base}.py")) || self.files.has_dir(&base)
        });
        // Anywhere else (`tools/helpers.py` after `sys.path.insert(0, "tools")`): maybe the
        // tree's own, never known to be another package's.
        under_a_root || self.files.names_anything(top)
    }

    /// Every file of the tree that could be module `dotted`.
    fn module_candidates(&self, dotted: &str) -> Option<Vec<String>> {
        if let Some(hit) = self.modules.lock().ok()?.get(dotted) {
            return hit.clone();
        }
        let rel = dotted.replace('.', "/");
        let endings = [format!("{rel}.py"), format!("{rel}/__init__.py")];
        let last = dotted.rsplit('.').next().unwrap_or(dotted);
        let hits: Vec<&String> = self
            .files
            .ending_in(last)
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
        self.resolve_module_at(&from.path, dotted, false)
    }

    /// [`Self::resolve_module`] from a file by its path; with `as_run`, as Python runs it (see
    /// [`Self::module_file`]).
    pub(super) fn resolve_module_at(
        &self,
        from_path: &str,
        dotted: &str,
        as_run: bool,
    ) -> Result<String, (bool, String)> {
        // The answer depends on the importer's directory alone.
        let dir = from_path.rsplit_once('/').map_or("", |(d, _)| d);
        let key = (dir.to_string(), dotted.to_string(), as_run);
        remembered(&self.resolved, key, || {
            self.resolve_module_uncached(from_path, dotted, as_run)
        })
    }

    /// [`Self::resolve_module_at`], worked out.
    fn resolve_module_uncached(
        &self,
        from_path: &str,
        dotted: &str,
        as_run: bool,
    ) -> Result<String, (bool, String)> {
        if let Some(rest) = dotted.strip_prefix('.') {
            let ups = rest.chars().take_while(|&c| c == '.').count();
            let rest = &rest[ups..];
            let mut dir: Vec<&str> = from_path.split('/').collect();
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
                .find(|c| self.files.contains(c))
                .ok_or((
                    false,
                    format!("module `{dotted}` is not a file of the tree"),
                ));
        }
        if let Some(file) = self.module_file(dotted, from_path, as_run) {
            return Ok(file);
        }
        let top = dotted.split('.').next().unwrap_or(dotted);
        if self.package_in_tree(top, from_path) {
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
    /// `from pkg import sub` the submodule, resolved as Python runs them. What a move asks to
    /// tell an import cycle, of many modules: read from the text's import lines, not parsed.
    pub(crate) fn imports_on_load(&self, path: &str) -> Vec<String> {
        let Some(text) = (self.read)(path) else {
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
        for statement in load_time_imports(&text) {
            if let Some(rest) = statement.strip_prefix("import ") {
                for item in rest.split(',') {
                    let dotted = item.split(" as ").next().unwrap_or("").trim();
                    let parts: Vec<&str> = dotted.split('.').collect();
                    for end in 1..=parts.len() {
                        add(self
                            .resolve_module_at(path, &parts[..end].join("."), true)
                            .ok());
                    }
                }
            } else if let Some((from, names)) = statement
                .strip_prefix("from ")
                .and_then(|rest| rest.split_once(" import "))
            {
                let from = from.trim();
                add(self.resolve_module_at(path, from, true).ok());
                for item in names
                    .trim_matches(|c| c == '(' || c == ')' || c == ' ')
                    .split(',')
                {
                    let name = item.split(" as ").next().unwrap_or("").trim();
                    if name.is_empty() || name == "*" {
                        continue;
                    }
                    let sub = if from.ends_with('.') {
                        format!("{from}{name}")
                    } else {
                        format!("{from}.{name}")
                    };
                    add(self.resolve_module_at(path, &sub, true).ok());
                }
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

#[cfg(test)]
mod tests {
    use super::load_time_imports;

    #[test]
    fn the_imports_a_module_runs_on_load_are_read_from_its_lines() {
        let text = "import os, sys as system\nfrom .a import (\n    b,  # the b\n    c as d,\n)\ntry:\n    import json\nexcept ImportError:\n    json = None\n\n\ndef f():\n    import lazy\n";
        assert_eq!(
            load_time_imports(text),
            [
                "import os, sys as system",
                "from .a import ( b, c as d, )",
                "import json"
            ]
        );
    }
}
