//! The symbol's sites in the tree's other modules: `import { f } from './a'` and `export { f }
//! from './a'` pointed at the new module (the statement split when it names more), `ns.f`
//! through `import * as ns from './a'` made `f` imported from the new module, a module that
//! re-exports everything of the old one given `export { f } from './b'`; a string naming the
//! old module (`require`, `import()`, `vi.mock`), `export * as ns from './a'` and a namespace
//! used whole gathered as undecided.

use super::super::edits::{Edits, line_end, line_start};
use super::naming::Naming;
use super::specifiers::respell;
use super::syntax::{self, Brings, Module, ModuleStatement, NsUse, Spec};
use super::{Moved, Request, left_site};
use crate::rename::ecma::EcmaProject;
use crate::report::{LeftWhy, MoveLeft, MoveRefusal, Site};
use lancet_core::{line_of, line_starts};

/// What the sites tell the rest of the plan.
#[derive(Default)]
pub(super) struct SiteWork {
    /// Files that will import the new module, and whether at run time.
    pub(super) new_importers: Vec<(String, bool)>,
}

/// The source files the sites are looked for in.
fn is_source(path: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// A text a module's specifier of the old module must hold: its file name's stem (its
/// directory's name for an index).
fn stem_of(path: &str) -> &str {
    let file = path.rsplit_once('/').map_or(path, |(_, f)| f);
    let stem = file.split('.').next().unwrap_or(file);
    if stem == "index" {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        return dir.rsplit_once('/').map_or(dir, |(_, d)| d);
    }
    stem
}

/// Rewrites every site in the other modules; `Err` lists the undecided ones (unless left).
pub(super) fn collect(
    req: &Request,
    project: &EcmaProject,
    b: &Module,
    moved: &Moved,
    planned: &mut super::super::Planned,
) -> Result<SiteWork, MoveRefusal> {
    let (a_path, _) = req.from;
    let stem = stem_of(a_path);
    let mut naming = Naming::new(a_path, project);
    let mut work = SiteWork::default();
    for path in req
        .files
        .iter()
        .filter(|p| is_source(p) && p.as_str() != a_path)
    {
        // A file naming the symbol was scanned; one that does not may still re-export
        // everything of the old module or name it in a string, so its specifier's stem, and
        // it is parsed only when its text may (the new module's facts are read already).
        let text = match req.scans.iter().find(|s| &s.path == path) {
            Some(scan) => scan.parsed.text.clone(),
            None => match (req.read)(path) {
                Some(text)
                    if memchr::memmem::find(text.as_bytes(), stem.as_bytes()).is_some()
                        && (path == req.to || naming.may_name(path, &text)) =>
                {
                    text
                }
                _ => continue,
            },
        };
        let x = if path == req.to {
            None
        } else {
            Some(syntax::read(path, &text))
        };
        let facts = x.as_ref().unwrap_or(b);
        if facts.broken {
            continue;
        }
        let mut file = File {
            req,
            project,
            path,
            text: &text,
            facts,
            moved,
            edits: Edits::default(),
            import_added: false,
        };
        file.rewrite(&mut work, planned);
        if !file.edits.is_empty() {
            planned
                .edits
                .entry(path.clone())
                .or_default()
                .extend(file.edits);
        }
    }
    Ok(work)
}

/// One module's sites being rewritten.
struct File<'r, 'a> {
    req: &'r Request<'a>,
    project: &'r EcmaProject<'r>,
    path: &'r str,
    text: &'r str,
    facts: &'r Module,
    moved: &'r Moved,
    edits: Edits,
    /// `import { f } from './b'` added already (for `ns.f`).
    import_added: bool,
}

impl File<'_, '_> {
    fn is_new_module(&self) -> bool {
        self.path == self.req.to
    }

    /// Whether a specifier of this module names the file `target`.
    fn names(&self, specifier: &str, target: &str) -> bool {
        self.project
            .module_file(self.path, specifier)
            .is_ok_and(|f| f == target)
    }

    fn site(&self, at: usize) -> Site {
        let starts = line_starts(self.text);
        let line = line_of(&starts, at);
        Site {
            path: self.path.to_string(),
            line,
            column: at - starts[line - 1] + 1,
            doctest: false,
        }
    }

    fn rewrite(&mut self, work: &mut SiteWork, planned: &mut super::super::Planned) {
        let (a_path, _) = self.req.from;
        let name = self.req.name;
        for st in &self.facts.statements {
            if !self.names(&st.source, a_path) {
                continue;
            }
            match &st.what {
                Brings::Import {
                    default,
                    namespace,
                    named,
                    ..
                } => {
                    for (i, spec) in named.iter().enumerate() {
                        if spec.imported != name {
                            continue;
                        }
                        planned.sites.push(self.site(spec.span.0));
                        if self.is_new_module() {
                            let only = named.len() == 1 && default.is_none() && namespace.is_none();
                            if only {
                                self.remove_statement(st);
                            } else {
                                remove_spec(&mut self.edits, self.text, named, i);
                            }
                            continue;
                        }
                        // TypeScript drops an import whose names are read as types alone.
                        let read_as_value = self
                            .facts
                            .bindings
                            .get(&spec.local)
                            .is_some_and(|b| b.refs.iter().any(|r| r.value));
                        let runtime = !(st.type_only || spec.type_only || self.moved.is_type())
                            && read_as_value;
                        work.new_importers.push((self.path.to_string(), runtime));
                        let only = named.len() == 1 && default.is_none() && namespace.is_none();
                        self.retarget(st, named, i, only, "import");
                    }
                    if let Some(ns) = namespace {
                        self.namespace(st, ns, work, planned);
                    }
                }
                Brings::ExportFrom { named } => {
                    for (i, spec) in named.iter().enumerate() {
                        if spec.imported != name {
                            continue;
                        }
                        if self.is_new_module() {
                            planned.unresolved.push(left_site(
                                self.path,
                                self.text,
                                spec.span.0,
                                LeftWhy::Move(MoveLeft::Reexported),
                            ));
                            continue;
                        }
                        planned.sites.push(self.site(spec.span.0));
                        let runtime = !(st.type_only || spec.type_only || self.moved.is_type());
                        work.new_importers.push((self.path.to_string(), runtime));
                        self.retarget(st, named, i, named.len() == 1, "export");
                    }
                }
                Brings::Star { named: true } => planned.unresolved.push(left_site(
                    self.path,
                    self.text,
                    st.span.0,
                    LeftWhy::Move(MoveLeft::NamespaceExport {
                        name: name.to_string(),
                    }),
                )),
                Brings::Star { named: false } => {
                    self.star(st, work, planned);
                }
            }
        }
        for (at, value, what) in &self.facts.module_strings {
            if !value.is_empty() && self.names(value, a_path) {
                planned.unresolved.push(left_site(
                    self.path,
                    self.text,
                    *at,
                    LeftWhy::Move(MoveLeft::ModuleString {
                        reader: what,
                        name: name.to_string(),
                    }),
                ));
            }
        }
    }

    /// `import { f } from './a'` (or `export { f } from`) pointed at the new module: its
    /// specifier respelled when `f` is all it names, else `f` taken out into a statement of its
    /// own.
    fn retarget(&mut self, st: &ModuleStatement, named: &[Spec], i: usize, only: bool, kw: &str) {
        let (a_path, _) = self.req.from;
        let new = respell(self.path, &st.source, a_path, self.req.to);
        let spec = &self.text[named[i].span.0..named[i].span.1];
        // The file's own list of the new module's names of that kind takes it, if it has one.
        if let Some(end) = self.list_of_new_module(st, kw) {
            if only {
                self.remove_statement(st);
            } else {
                remove_spec(&mut self.edits, self.text, named, i);
            }
            self.edits.insert(end, format!(", {spec}"));
            return;
        }
        if only {
            self.edits
                .replace(st.source_span.0 + 1, st.source_span.1 - 1, new);
            return;
        }
        remove_spec(&mut self.edits, self.text, named, i);
        let quote = &self.text[st.source_span.0..st.source_span.0 + 1];
        let semi = if self.text[..st.span.1].ends_with(';') {
            ";"
        } else {
            ""
        };
        let type_kw = if st.type_only { " type" } else { "" };
        self.edits.insert(
            st.span.1,
            format!("\n{kw}{type_kw} {{ {spec} }} from {quote}{new}{quote}{semi}"),
        );
    }

    /// Where a name joins the file's `import { … } from './b'` (or `export { … } from`) of
    /// the same kind as `st` (`type` or not): past its last name.
    fn list_of_new_module(&self, st: &ModuleStatement, kw: &str) -> Option<usize> {
        self.facts.statements.iter().find_map(|other| {
            let named = match &other.what {
                Brings::Import {
                    namespace: None,
                    named,
                    ..
                } if kw == "import" => named,
                Brings::ExportFrom { named } if kw == "export" => named,
                _ => return None,
            };
            let last = named.last()?;
            (other.type_only == st.type_only && self.names(&other.source, self.req.to))
                .then_some(last.span.1)
        })
    }

    /// `ns.f` through `import * as ns from './a'`: `f`, imported from the new module (or its
    /// own, in the new module).
    fn namespace(
        &mut self,
        st: &ModuleStatement,
        ns: &str,
        work: &mut SiteWork,
        planned: &mut super::super::Planned,
    ) {
        let name = self.req.name;
        let Some(uses) = self.facts.namespace_uses.get(ns) else {
            return;
        };
        let members: Vec<(usize, usize)> = uses
            .iter()
            .filter_map(|u| match u {
                NsUse::Member { span, name: n } if n == name => Some(*span),
                _ => None,
            })
            .collect();
        if members.is_empty() {
            return;
        }
        let shadowed = !self.is_new_module() && self.facts.all_names.iter().any(|n| n == name);
        if shadowed {
            for span in &members {
                planned.unresolved.push(left_site(
                    self.path,
                    self.text,
                    span.0,
                    LeftWhy::Move(MoveLeft::NameTaken {
                        namespace: ns.to_string(),
                        name: name.to_string(),
                    }),
                ));
            }
            return;
        }
        for u in uses {
            if let NsUse::Whole { at } = u {
                planned.unresolved.push(left_site(
                    self.path,
                    self.text,
                    *at,
                    LeftWhy::Move(MoveLeft::NamespaceWhole {
                        namespace: ns.to_string(),
                        name: name.to_string(),
                    }),
                ));
            }
        }
        for span in &members {
            planned.sites.push(self.site(span.0));
            self.edits.replace(span.0, span.1, name);
        }
        // Nothing else read through it: the namespace import goes (TypeScript would drop it
        // unused anyway, and `noUnusedLocals` would flag it), the new import in its place.
        let only_namespace =
            matches!(&st.what, Brings::Import { default: None, named, .. } if named.is_empty());
        let replaced = members.len() == uses.len() && only_namespace;
        if self.is_new_module() {
            if replaced {
                self.remove_statement(st);
            }
            return;
        }
        if self.import_added {
            return;
        }
        self.import_added = true;
        let (a_path, _) = self.req.from;
        let new = respell(self.path, &st.source, a_path, self.req.to);
        let quote = &self.text[st.source_span.0..st.source_span.0 + 1];
        let semi = if self.text[..st.span.1].ends_with(';') {
            ";"
        } else {
            ""
        };
        let type_kw = if self.moved.is_type()
            && self.moved.type_imports
            && syntax::is_typescript(self.path)
        {
            " type"
        } else {
            ""
        };
        let line = format!("import{type_kw} {{ {name} }} from {quote}{new}{quote}{semi}");
        if replaced {
            self.edits.replace(st.span.0, st.span.1, line);
        } else {
            self.edits.insert(st.span.1, format!("\n{line}"));
        }
        work.new_importers
            .push((self.path.to_string(), !self.moved.is_type()));
    }

    /// `export * from './a'`: the module goes on answering for the symbol with `export { f }
    /// from './b'`, unless it re-exports everything of the new module too, is the new module,
    /// or the old module keeps re-exporting it.
    fn star(
        &mut self,
        st: &ModuleStatement,
        work: &mut SiteWork,
        planned: &mut super::super::Planned,
    ) {
        if self.is_new_module() || self.req.keep_reexport {
            return;
        }
        let reaches_new = self.facts.statements.iter().any(|s| {
            matches!(s.what, Brings::Star { named: false }) && self.names(&s.source, self.req.to)
        });
        if reaches_new {
            return;
        }
        let (a_path, _) = self.req.from;
        let new = respell(self.path, &st.source, a_path, self.req.to);
        let quote = &self.text[st.source_span.0..st.source_span.0 + 1];
        let semi = if self.text[..st.span.1].ends_with(';') {
            ";"
        } else {
            ""
        };
        let type_kw = if self.moved.is_type() && syntax::is_typescript(self.path) {
            " type"
        } else {
            ""
        };
        planned.sites.push(self.site(st.span.0));
        self.edits.insert(
            st.span.1,
            format!(
                "\nexport{type_kw} {{ {} }} from {quote}{new}{quote}{semi}",
                self.req.name
            ),
        );
        work.new_importers
            .push((self.path.to_string(), !self.moved.is_type()));
    }

    /// A statement removed with its line when it is alone on it.
    fn remove_statement(&mut self, st: &ModuleStatement) {
        remove_range(&mut self.edits, self.text, st.span);
    }
}

/// A statement's range removed, its whole line(s) when nothing else is on them.
pub(super) fn remove_range(edits: &mut Edits, text: &str, span: (usize, usize)) {
    let start = line_start(text, span.0);
    let end = line_end(text, span.1.saturating_sub(1).max(span.0));
    if text[start..span.0].trim().is_empty() && text[span.1..end].trim().is_empty() {
        edits.replace(start, end, "");
    } else {
        edits.replace(span.0, span.1, "");
    }
}

/// One name taken out of an import or export list, with the comma beside it.
pub(super) fn remove_spec(edits: &mut Edits, text: &str, list: &[Spec], i: usize) {
    let spec = &list[i];
    if let Some(next) = list.get(i + 1) {
        edits.replace(spec.span.0, next.span.0, "");
    } else if i > 0 {
        edits.replace(list[i - 1].span.1, spec.span.1, "");
    } else {
        // The only name: `{ f }` becomes `{}`.
        let _ = text;
        edits.replace(spec.span.0, spec.span.1, "");
    }
}
