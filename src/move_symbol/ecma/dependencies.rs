//! What the moved code needs and leaves: the old module's imports it uses (copied into the
//! new module, their specifiers carried there), the old module's own names it uses (imported
//! from the old module, which exports them when it did not), the old module's imports only it
//! used (dropped; a side-effect import never), the uses of the symbol left in the old module
//! (importing it from the new one), and the new module's changes.

use super::super::edits::{Edits, is_blank_line, line_end, line_start};
use super::sites::remove_range;
use super::specifiers::{carry, is_relative, spell_like};
use super::syntax::{Brings, DeclKind, Module, is_typescript};
use super::{Moved, Request};
use crate::rename::ecma::EcmaProject;
use crate::report::MoveRefusal;
use lancet_core::{line_of, line_starts};
use std::collections::BTreeMap;

/// An import the new module gets.
pub(super) struct NewImport {
    /// The statement, as written.
    pub(super) line: String,
    /// The file of the tree it imports, when it is one.
    pub(super) target: Option<String>,
    /// The names it brings.
    pub(super) names: Vec<String>,
    /// Whether it runs when the module loads (a value of it is used).
    pub(super) runtime: bool,
    /// Its named specifiers as written (`a`, `b as c`), when they are all it brings: they can
    /// join the new module's own `import { … }` of the same module instead.
    joinable: Vec<String>,
    /// Its specifier, as the new module writes it.
    source: String,
    /// Whether it is `import type`.
    type_only: bool,
}

/// What the moved code needs from where it was.
pub(super) struct Needs {
    /// The old module's imports, copied (each with the names the moved code uses).
    pub(super) copied: Vec<NewImport>,
    /// The import of the old module's own names, when the moved code uses some.
    pub(super) from_old: Option<NewImport>,
    /// Import statements of the old module (by index) and the names of each the moved code
    /// alone used.
    only_moved: BTreeMap<usize, Vec<String>>,
    /// Where `export ` goes on the old module's declarations the new one now imports.
    to_export: Vec<usize>,
}

/// How a module writes its statements: the quote of its specifiers, and whether it ends
/// statements with `;`.
fn style(m: &Module, text: &str) -> (char, &'static str) {
    match m.statements.first() {
        Some(st) => (
            text[st.source_span.0..].chars().next().unwrap_or('\''),
            if text[..st.span.1].ends_with(';') {
                ";"
            } else {
                ""
            },
        ),
        None => {
            let quote = if text.matches('"').count() > text.matches('\'').count() {
                '"'
            } else {
                '\''
            };
            let semi = if text.is_empty() || text.contains(";\n") {
                ";"
            } else {
                ""
            };
            (quote, semi)
        }
    }
}

/// The first relative import of a module, as an example of its specifiers' style: (file,
/// specifier, the file it names).
fn example<'m>(
    path: &'m str,
    m: &'m Module,
    project: &EcmaProject,
) -> Option<(&'m str, &'m str, String)> {
    m.statements.iter().find_map(|st| {
        if !is_relative(&st.source) {
            return None;
        }
        let target = project.module_file(path, &st.source).ok()?;
        Some((path, st.source.as_str(), target))
    })
}

/// The moved code's needs, each name checked free in the new module (or bound there to the
/// same thing).
pub(super) fn needs(
    req: &Request,
    project: &EcmaProject,
    a: &Module,
    b: &Module,
    moved: &Moved,
) -> Result<Needs, MoveRefusal> {
    let (a_path, _) = req.from;
    let b_starts = line_starts(req.to_text);
    let in_block = |at: usize| moved.block.0 <= at && at < moved.block.1;
    // The symbol itself: free in the new module but for an import of it from the old one.
    if let Some(bound) = b.bindings.get(req.name)
        && !b_imports_from(b, req, project, bound.import, req.name, a_path)
    {
        return Err(MoveRefusal::NameTaken {
            name: req.name.to_string(),
            path: req.to.to_string(),
            line: line_of(&b_starts, bound.at),
        });
    }
    let mut by_statement: BTreeMap<usize, Vec<(String, bool)>> = BTreeMap::new();
    let mut only_moved: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut own: Vec<(String, bool)> = Vec::new();
    let mut to_export = Vec::new();
    let mut names: Vec<&String> = a.bindings.keys().collect();
    names.sort();
    for name in names {
        let binding = &a.bindings[name];
        if name == req.name || in_block(binding.at) {
            continue;
        }
        let inside: Vec<_> = binding.refs.iter().filter(|r| in_block(r.at)).collect();
        if inside.is_empty() {
            continue;
        }
        let runtime = inside.iter().any(|r| r.value);
        if let Some(i) = binding.import {
            if inside.len() == binding.refs.len() {
                only_moved.entry(i).or_default().push(name.clone());
            }
            let source = &a.statements[i].source;
            let target = project.module_file(a_path, source).ok();
            if target.as_deref() == Some(req.to) {
                // The new module's own name: nothing to import, if it binds it by that name.
                if imported_name(a, i, name) == *name && b.bindings.contains_key(name) {
                    continue;
                }
                return Err(MoveRefusal::Destination {
                    to: req.to.to_string(),
                    problem: crate::report::DestinationProblem::Path(format!(
                        "the moved code uses `{name}`, which the old module imports from it but it does not declare under that name: import it there by its own name first"
                    )),
                });
            }
            if let Some(bound) = b.bindings.get(name) {
                let same = bound.import.is_some_and(|j| {
                    let st = &b.statements[j];
                    imported_name(b, j, name) == imported_name(a, i, name)
                        && match &target {
                            Some(t) => {
                                project.module_file(req.to, &st.source).ok().as_ref() == Some(t)
                            }
                            None => st.source == carry(source, a_path, req.to),
                        }
                });
                if same {
                    continue;
                }
                return Err(taken(req, name, bound.at, &b_starts));
            }
            by_statement
                .entry(i)
                .or_default()
                .push((name.clone(), runtime));
        } else {
            if let Some(bound) = b.bindings.get(name) {
                if b_imports_from(b, req, project, bound.import, name, a_path) {
                    continue;
                }
                return Err(taken(req, name, bound.at, &b_starts));
            }
            let exported = a.decls.iter().any(|d| d.exported && d.names.contains(name))
                || a.local_exports.iter().any(|(_, _, specs)| {
                    specs
                        .iter()
                        .any(|s| &s.imported == name && &s.local == name)
                });
            if !exported && let Some(d) = a.decls.iter().find(|d| d.names.contains(name)) {
                to_export.push(d.keyword_at);
            }
            own.push((name.clone(), runtime));
        }
    }
    let (copied, from_old) = write_imports(req, project, a, moved, by_statement, &own);
    Ok(Needs {
        copied,
        from_old,
        only_moved,
        to_export,
    })
}

/// The new module's import statements: the old module's imports the moved code uses (with
/// the names it uses), then its own names it uses.
fn write_imports(
    req: &Request,
    project: &EcmaProject,
    a: &Module,
    moved: &Moved,
    by_statement: BTreeMap<usize, Vec<(String, bool)>>,
    own: &[(String, bool)],
) -> (Vec<NewImport>, Option<NewImport>) {
    let (a_path, a_text) = req.from;
    let (quote, semi) = style(a, a_text);
    let ts = is_typescript(req.to);
    let mut copied = Vec::new();
    for (i, used) in by_statement {
        let st = &a.statements[i];
        let Brings::Import {
            default,
            namespace,
            named,
            ..
        } = &st.what
        else {
            continue;
        };
        let is_used = |n: &str| used.iter().any(|(u, _)| u == n);
        let mut parts = Vec::new();
        if let Some(d) = default.as_deref().filter(|d| is_used(d)) {
            parts.push(d.to_string());
        }
        if let Some(ns) = namespace.as_deref().filter(|n| is_used(n)) {
            parts.push(format!("* as {ns}"));
        }
        let specs: Vec<&str> = named
            .iter()
            .filter(|s| is_used(&s.local))
            .map(|s| &a_text[s.span.0..s.span.1])
            .collect();
        if !specs.is_empty() {
            parts.push(format!("{{ {} }}", specs.join(", ")));
        }
        let type_kw = if st.type_only { " type" } else { "" };
        let spec = carry(&st.source, a_path, req.to);
        let value_spec = named.iter().any(|s| {
            is_used(&s.local) && !s.type_only && used.iter().any(|(u, r)| u == &s.local && *r)
        }) || default
            .as_deref()
            .is_some_and(|d| used.iter().any(|(u, r)| u == d && *r))
            || namespace
                .as_deref()
                .is_some_and(|n| used.iter().any(|(u, r)| u == n && *r));
        let only_named = parts.len() == 1 && !specs.is_empty();
        copied.push(NewImport {
            line: format!(
                "import{type_kw} {} from {quote}{spec}{quote}{semi}",
                parts.join(", ")
            ),
            target: project.module_file(a_path, &st.source).ok(),
            names: used.iter().map(|(n, _)| n.clone()).collect(),
            runtime: !st.type_only && value_spec,
            joinable: if only_named {
                specs.iter().map(|s| s.to_string()).collect()
            } else {
                Vec::new()
            },
            source: spec,
            type_only: st.type_only,
        });
    }
    let from_old = (!own.is_empty()).then(|| {
        let runtime = own.iter().any(|(_, r)| *r);
        let ex = example(a_path, a, project);
        let spec = spell_like(
            req.to,
            a_path,
            ex.as_ref().map(|(f, s, t)| (*f, *s, t.as_str())),
        );
        let type_kw = if ts && !runtime && moved.type_imports {
            " type"
        } else {
            ""
        };
        let names: Vec<String> = own.iter().map(|(n, _)| n.clone()).collect();
        NewImport {
            line: format!(
                "import{type_kw} {{ {} }} from {quote}{spec}{quote}{semi}",
                names.join(", ")
            ),
            target: Some(a_path.to_string()),
            joinable: names.clone(),
            names,
            runtime,
            source: spec,
            type_only: !type_kw.is_empty(),
        }
    });
    (copied, from_old)
}

/// The name an import statement's binding `local` imports (`default`, `*`, or its name).
fn imported_name(m: &Module, i: usize, local: &str) -> String {
    match &m.statements[i].what {
        Brings::Import {
            default,
            namespace,
            named,
            ..
        } => {
            if default.as_deref() == Some(local) {
                "default".into()
            } else if namespace.as_deref() == Some(local) {
                "*".into()
            } else {
                named
                    .iter()
                    .find(|s| s.local == local)
                    .map_or_else(String::new, |s| s.imported.clone())
            }
        }
        _ => String::new(),
    }
}

/// Whether the new module's binding (from import statement `import`) is `name` imported from
/// the old module.
fn b_imports_from(
    b: &Module,
    req: &Request,
    project: &EcmaProject,
    import: Option<usize>,
    name: &str,
    a_path: &str,
) -> bool {
    import.is_some_and(|j| {
        imported_name(b, j, name) == name
            && project
                .module_file(req.to, &b.statements[j].source)
                .is_ok_and(|f| f == a_path)
    })
}

fn taken(req: &Request, name: &str, at: usize, starts: &[usize]) -> MoveRefusal {
    MoveRefusal::NameTaken {
        name: name.to_string(),
        path: req.to.to_string(),
        line: line_of(starts, at),
    }
}

/// The uses of the symbol left in the old module (offsets), with whether any reads it as a
/// value.
pub(super) fn uses_left(req: &Request, a: &Module, moved: &Moved) -> Vec<(usize, bool)> {
    a.bindings
        .get(req.name)
        .map(|b| {
            b.refs
                .iter()
                .filter(|r| !(moved.block.0 <= r.at && r.at < moved.block.1))
                .map(|r| (r.at, r.value))
                .collect()
        })
        .unwrap_or_default()
}

/// Inserts a statement after a module's last import statement the move keeps (before the
/// first one when it removes them all). In a module without imports it goes past the
/// directives, a hashbang (which must stay first) and a heading (`heading_end`), else above
/// everything, with a blank line between it and the code.
fn insert_import(edits: &mut Edits, m: &Module, text: &str, line: &str) {
    let imports: Vec<_> = m
        .statements
        .iter()
        .filter(|s| matches!(s.what, Brings::Import { .. }))
        .collect();
    if let Some(kept) = imports.iter().rev().find(|s| !edits.covers(s.span.1 - 1)) {
        edits.insert(kept.span.1, format!("\n{line}"));
    } else if let Some(first) = imports.first() {
        edits.insert(line_start(text, first.span.0), format!("{line}\n"));
    } else if m.import_point > 0 {
        // Past the directives (`'use client'`); code on the last one's line goes to the next.
        let at = m.import_point;
        let tail = if !is_blank_line(text, at) || code_follows(edits, text, line_end(text, at)) {
            "\n"
        } else {
            ""
        };
        edits.insert(at, format!("\n{line}{tail}"));
    } else if let Some(end) = heading_end(m, text) {
        // The blank line under the heading stays between the import and the code.
        edits.insert(end, format!("\n\n{line}"));
    } else if text.starts_with("#!") {
        let next = line_end(text, 0);
        let at = text[..next].trim_end_matches(['\n', '\r']).len();
        let tail = if code_follows(edits, text, next) {
            "\n"
        } else {
            ""
        };
        edits.insert(at, format!("\n{line}{tail}"));
    } else {
        // Above whatever else is written at the start (`export ` on the first statement).
        let blank = if code_follows(edits, text, 0) {
            "\n"
        } else {
            ""
        };
        edits.insert_first(0, format!("{line}\n{blank}"));
    }
}

/// Whether the first line from `at` on that the edits keep holds code (not blank, not the
/// end): an import inserted above it wants a blank line between.
fn code_follows(edits: &Edits, text: &str, mut at: usize) -> bool {
    while at < text.len() && edits.covers(at) {
        at = line_end(text, at);
    }
    at < text.len() && !is_blank_line(text, at)
}

/// Where the comments heading a module end (past a hashbang) when a blank line sets them
/// apart from what follows: a licence, a `// TYPES` heading, which stay first (TypeScript's
/// own refactors put imports under them). Comments directly above the first statement are
/// its own: `None`.
fn heading_end(m: &Module, text: &str) -> Option<usize> {
    let mut at = if text.starts_with("#!") {
        line_end(text, 0)
    } else {
        0
    };
    let mut end = None;
    loop {
        let rest = &text[at..];
        let next = at + (rest.len() - rest.trim_start().len());
        if end.is_some() && text[at..next].matches('\n').count() >= 2 {
            return end;
        }
        let comment = m.comments.iter().find(|c| c.0 == next)?;
        at = comment.1;
        end = Some(at);
    }
}

/// Where names join a module's `import { … }` of `target` that the move keeps: past its
/// last name; a list under `import type` takes types alone (`values` false).
fn import_list(
    m: &Module,
    path: &str,
    target: &str,
    project: &EcmaProject,
    values: bool,
    edits: &Edits,
) -> Option<usize> {
    m.statements.iter().find_map(|st| {
        let Brings::Import {
            namespace: None,
            named,
            ..
        } = &st.what
        else {
            return None;
        };
        let last = named.last()?;
        let fits = !(edits.covers(st.span.1 - 1) || st.type_only && values);
        (fits
            && project
                .module_file(path, &st.source)
                .is_ok_and(|f| f == target))
        .then_some(last.span.1)
    })
}

/// Where a copied import's names join the new module's `import { … }` of the same module
/// and kind (`import type` lists take type-only imports alone, and only those): past its last
/// name; a list some earlier import joins already is left to it.
fn same_kind_list(
    b: &Module,
    path: &str,
    import: &NewImport,
    project: &EcmaProject,
    edits: &Edits,
    taken: &[(usize, String)],
) -> Option<usize> {
    b.statements.iter().find_map(|st| {
        let Brings::Import {
            namespace: None,
            named,
            ..
        } = &st.what
        else {
            return None;
        };
        let end = named.last()?.span.1;
        let same_module = match &import.target {
            Some(target) => project
                .module_file(path, &st.source)
                .is_ok_and(|f| &f == target),
            None => st.source == import.source,
        };
        let fits = same_module
            && st.type_only == import.type_only
            && !edits.covers(st.span.1 - 1)
            && !taken.iter().any(|(at, _)| *at == end);
        fits.then_some(end)
    })
}

/// The old module's changes: the block cut, the imports only it used dropped, its names the
/// new module imports exported, and the uses left (or `--keep-reexport`) pointed at the new
/// module.
pub(super) fn old_module(
    req: &Request,
    project: &EcmaProject,
    a: &Module,
    moved: &Moved,
    needs: &Needs,
    uses_left: &[(usize, bool)],
    planned: &mut super::super::Planned,
) {
    let (a_path, text) = req.from;
    let edits = planned.edits.entry(a_path.to_string()).or_default();
    let (start, end) = tidy_cut(text, moved.block.0, moved.block.1);
    edits.replace(start, end, "");
    for (&i, names) in &needs.only_moved {
        let st = &a.statements[i];
        let Brings::Import {
            default,
            namespace,
            named,
            ..
        } = &st.what
        else {
            continue;
        };
        let all = default.iter().chain(namespace).all(|n| names.contains(n))
            && named.iter().all(|s| names.contains(&s.local));
        if all {
            remove_range(edits, text, st.span);
            planned
                .imports_removed
                .push(text[st.span.0..st.span.1].trim_end_matches(';').to_string());
            continue;
        }
        let gone: Vec<usize> = (0..named.len())
            .filter(|&k| names.contains(&named[k].local))
            .collect();
        remove_runs(edits, named, &gone);
        for k in gone {
            planned
                .imports_removed
                .push(format!("{} from '{}'", named[k].local, st.source));
        }
    }
    for &at in &needs.to_export {
        if !(moved.block.0 <= at && at < moved.block.1) {
            edits.insert(at, "export ");
        }
    }
    if uses_left.is_empty() && !req.keep_reexport {
        return;
    }
    let (quote, semi) = style(a, text);
    let ex = example(a_path, a, project);
    let spec = spell_like(
        a_path,
        req.to,
        ex.as_ref().map(|(f, s, t)| (*f, *s, t.as_str())),
    );
    let type_kw = if moved.is_type() && is_typescript(a_path) {
        " type"
    } else {
        ""
    };
    let import_kw = if moved.type_imports { type_kw } else { "" };
    let mut lines = Vec::new();
    let list = import_list(a, a_path, req.to, project, !moved.is_type(), edits);
    match list {
        Some(end) if !uses_left.is_empty() => edits.insert(end, format!(", {}", req.name)),
        _ if !uses_left.is_empty() => lines.push(format!(
            "import{import_kw} {{ {} }} from {quote}{spec}{quote}{semi}",
            req.name
        )),
        _ => {}
    }
    if req.keep_reexport {
        lines.push(format!(
            "export{type_kw} {{ {} }} from {quote}{spec}{quote}{semi}",
            req.name
        ));
    }
    if !lines.is_empty() {
        insert_import(edits, a, text, &lines.join("\n"));
    }
}

/// Removes some names of an import list: each run of removed names with the comma after it
/// (before it, for a run at the end).
fn remove_runs(edits: &mut Edits, list: &[super::syntax::Spec], gone: &[usize]) {
    let mut k = 0;
    while k < gone.len() {
        let first = gone[k];
        let mut last = first;
        while k + 1 < gone.len() && gone[k + 1] == last + 1 {
            k += 1;
            last = gone[k];
        }
        if let Some(next) = list.get(last + 1) {
            edits.replace(list[first].span.0, next.span.0, "");
        } else if first > 0 {
            edits.replace(list[first - 1].span.1, list[last].span.1, "");
        } else {
            edits.replace(list[first].span.0, list[last].span.1, "");
        }
        k += 1;
    }
}

/// The cut, widened over the blank lines after it when a blank line stands before it (or it
/// ends the file), so that the blocks around it keep one blank line between them.
fn tidy_cut(text: &str, start: usize, end: usize) -> (usize, usize) {
    let mut after = end;
    while after < text.len() && is_blank_line(text, after) {
        after = line_end(text, after);
    }
    if after >= text.len() {
        let mut before = start;
        while before > 0 {
            let prev = line_start(text, before - 1);
            if !is_blank_line(text, prev) {
                break;
            }
            before = prev;
        }
        return (before, text.len());
    }
    let blank_before = start == 0 || is_blank_line(text, line_start(text, start - 1));
    (start, if blank_before { after } else { end })
}

/// The new module's changes: its imports, the moved block (exported when something imports
/// it; before the first top-level statement that uses it, else at the end), or its whole
/// content when it is new.
pub(super) fn new_module(
    req: &Request,
    project: &EcmaProject,
    b: &Module,
    moved: &Moved,
    needs: &Needs,
    imported: bool,
    planned: &mut super::super::Planned,
) {
    let (_, a_text) = req.from;
    let mut code = a_text[moved.block.0..moved.block.1].to_string();
    if !moved.decl.exported && imported {
        code.insert_str(moved.decl.keyword_at - moved.block.0, "export ");
    }
    if !code.ends_with('\n') {
        code.push('\n');
    }
    planned.imports_added = needs
        .copied
        .iter()
        .chain(&needs.from_old)
        .map(|i| i.line.trim_end_matches(';').to_string())
        .collect();
    // The old module's names join the new module's own import of it, if it keeps one.
    let untouched = Edits::default();
    let joined = needs
        .from_old
        .as_ref()
        .filter(|_| req.to_exists)
        .and_then(|old| {
            let edits = planned.edits.get(req.to).unwrap_or(&untouched);
            let end = import_list(b, req.to, req.from.0, project, old.runtime, edits)?;
            Some((end, old.names.join(", ")))
        });
    // The old module's imports the moved code needs join the new module's own import of the
    // same module, of the same kind (values with values, `import type` with its like).
    let current = planned.edits.get(req.to).unwrap_or(&untouched);
    let mut lists = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for import in &needs.copied {
        let list = (req.to_exists && !import.joinable.is_empty())
            .then(|| same_kind_list(b, req.to, import, project, current, &lists))
            .flatten();
        match list {
            Some(end) => lists.push((end, import.joinable.join(", "))),
            None => lines.push(import.line.clone()),
        }
    }
    lines.extend(
        needs
            .from_old
            .iter()
            .filter(|_| joined.is_none())
            .map(|i| i.line.clone()),
    );
    if !req.to_exists || req.to_text.trim().is_empty() {
        let mut content = lines.join("\n");
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(&code);
        if req.to_exists {
            planned
                .edits
                .entry(req.to.to_string())
                .or_default()
                .replace(0, req.to_text.len(), content);
        } else {
            planned.created = Some(content);
        }
        return;
    }
    let text = req.to_text;
    let edits = planned.edits.entry(req.to.to_string()).or_default();
    for (end, names) in joined.into_iter().chain(lists) {
        edits.insert(end, format!(", {names}"));
    }
    if !lines.is_empty() {
        insert_import(edits, b, text, &lines.join("\n"));
    }
    // A class, `const` or enum is not hoisted: before the first top-level statement using it.
    let hoisted = matches!(moved.decl.kind, DeclKind::Function) || moved.is_type();
    let first_use = (!hoisted)
        .then_some(())
        .and_then(|()| b.bindings.get(req.name))
        .and_then(|bound| bound.refs.iter().map(|r| r.at).min())
        .and_then(|at| b.decls.iter().find(|d| d.span.0 <= at && at < d.span.1))
        .map(|d| line_start(text, d.span.0));
    match first_use {
        Some(at) if at >= b.import_point => edits.insert(at, format!("{code}\n")),
        _ => {
            let sep = if text.ends_with("\n\n") {
                ""
            } else if text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            edits.insert(text.len(), format!("{sep}{code}"));
        }
    }
}
