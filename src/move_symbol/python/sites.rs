//! The symbol's sites in the tree rewritten: `from a import f` respelled (or split),
//! `a.f` pointed at the new module (imported as the file imports modules), the old module's
//! import dropped when nothing else uses it; star imports of the old module and strings
//! naming the symbol gathered for the refusal.

use super::super::edits::{Edits, line_end, line_start};
use super::super::modules::dir_of;
use super::placement::{insert_import, remove_item};
use super::statements::{
    all_list, bound_name, import_items, imported_file, imports_file, imports_only, statement_binds,
    string_content, text, top_statements,
};
use super::{Planned, Request};
use crate::rename::model::{FileScan, Parsed, Resolution};
use crate::rename::python::PyProject;
use crate::report::{LeftSite, LeftWhy, MoveLeft, MoveRefusal};
use tree_sitter::Node;

/// Whether the new module still imports the old one at its top once `from a import name`
/// is gone, and the imports the move removes from it (`removed`: its planned changes; an
/// `import a` that served only `a.name` goes) with it.
pub(super) fn keeps_importing(
    b: &Parsed,
    old: &str,
    name: &str,
    py: &PyProject,
    removed: Option<&Edits>,
) -> bool {
    let stays = |item: &Node| removed.is_none_or(|edits| !edits.covers(item.start_byte()));
    top_statements(b).into_iter().any(|s| {
        if !matches!(s.kind(), "import_statement" | "import_from_statement")
            || imports_only(s, b, name, old, py)
            || !imports_file(s, b, old, py)
        {
            return false;
        }
        let from_old = s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .and_then(|m| py.import_file(b, text(m, b)))
                .is_some_and(|f| f == old);
        let items = import_items(s);
        // `from a import *` has no item to remove.
        (from_old && items.is_empty())
            || items.iter().any(|item| {
                stays(item)
                    && (from_old || imported_file(*item, s, b, py).is_some_and(|f| f == old))
            })
    })
}

/// The line of a top-level import of `target` in `m`.
pub(super) fn imports_module_at(m: &Parsed, target: &str, py: &PyProject) -> Option<usize> {
    top_statements(m)
        .into_iter()
        .find(|s| {
            matches!(s.kind(), "import_statement" | "import_from_statement")
                && imports_file(*s, m, target, py)
        })
        .map(|s| s.start_position().row + 1)
}

/// Per-file facts gathered while rewriting sites.
#[derive(Default)]
pub(super) struct SiteWork {
    /// Lines of the old module where the symbol is still used after the move.
    pub(super) uses_left: Vec<usize>,
    /// Where those uses stand (offsets of the name, outside imports).
    pub(super) use_offsets: Vec<usize>,
    /// Where the old module's later top-level reassignments of it name it (`foo += 3`).
    pub(super) rebind_offsets: Vec<usize>,
    /// `from <old> import *` in the files holding the name.
    pub(super) stars: Vec<LeftSite>,
    /// Files that will import the new module when they load (their top-level import of the
    /// old one respelled, or one added).
    pub(super) new_importers: Vec<String>,
}

/// Rewrites every import and qualified use of the symbol, lists the undecided ones.
pub(super) fn collect_sites(
    req: &Request,
    py: &PyProject,
    block: (usize, usize),
    work: &mut SiteWork,
    planned: &mut Planned,
) -> Result<(), MoveRefusal> {
    let a = req.from;
    let old_dotted = req.modules.dotted(&a.path);
    for scan in req.scans.iter().filter(|s| s.language == "python") {
        let x: &Parsed = &scan.parsed;
        let in_old = scan.path == a.path;
        let in_new = scan.path == req.to;
        let mut file = FileWork {
            x,
            in_new,
            edits: Edits::default(),
            module_ref: None,
            rewritten_objects: Vec::new(),
            object_imports: Vec::new(),
            imports_new_on_load: false,
        };
        let left = |at: usize, why: LeftWhy| scan.left_at(at, why);
        let has_star = !in_old && gather_stars(x, scan, &a.path, py, &mut work.stars);
        for o in &scan.occurrences {
            if in_old && o.at >= block.0 && o.at < block.1 {
                continue;
            }
            match &o.resolution {
                Some(Resolution::Symbol(id)) if id == req.primary => {}
                // Through a star import of the old module: it keeps answering with
                // --keep-reexport (and the star import is refused without it).
                Some(Resolution::Unresolved(why)) if why.contains("import *") && has_star => {
                    continue;
                }
                Some(Resolution::Unresolved(why)) if !o.doctest => {
                    planned
                        .unresolved
                        .push(left(o.at, LeftWhy::Said(why.clone())));
                    continue;
                }
                _ => continue,
            }
            if o.doctest {
                planned
                    .unresolved
                    .push(left(o.at, LeftWhy::Move(MoveLeft::Doctest)));
                continue;
            }
            let Some(node) = x
                .tree
                .root_node()
                .descendant_for_byte_range(o.at, o.at + req.name.len())
            else {
                continue;
            };
            let rewritten = match site_kind(node) {
                SiteKind::Import(item, stmt) => !in_old && file.import_site(req, py, item, stmt),
                SiteKind::Attribute(attribute, object) => {
                    file.attribute_site(req, py, attribute, object, node)?
                }
                SiteKind::Use => {
                    if in_old && o.kinds.is_empty() {
                        work.uses_left.push(o.line);
                        work.use_offsets.push(o.at);
                    } else if in_old && is_top_level_assignment_target(node) {
                        // A later reassignment (other bindings are refused before).
                        work.uses_left.push(o.line);
                        work.rebind_offsets.push(o.at);
                    }
                    false
                }
            };
            if rewritten {
                planned.sites.push(scan.site_at(o.at));
            }
        }
        let FileWork {
            mut edits,
            rewritten_objects,
            object_imports,
            imports_new_on_load,
            ..
        } = file;
        if imports_new_on_load && !in_new {
            work.new_importers.push(scan.path.clone());
        }
        let file_edits = &mut edits;
        // The old module's import, unused once its uses point at the new module.
        for import in object_imports {
            prune_module_import(x, import, &rewritten_objects, file_edits);
        }
        // Strings naming it: `getattr(a, "f")`, `mock.patch("pkg.a.f")`.
        strings_naming(x, req, &old_dotted, in_old || in_new, |at| {
            planned
                .unresolved
                .push(left(at, LeftWhy::Move(MoveLeft::String)))
        });
        if !edits.is_empty() {
            let entry = planned.edits.entry(scan.path.clone()).or_default();
            merge(entry, edits);
        }
    }
    Ok(())
}

/// Lists the file's star imports of the old module; whether it has one.
fn gather_stars(
    x: &Parsed,
    scan: &FileScan,
    old: &str,
    py: &PyProject,
    stars: &mut Vec<LeftSite>,
) -> bool {
    let before = stars.len();
    star_imports_of(x, old, py, |at| {
        stars.push(scan.left_at(at, LeftWhy::Move(MoveLeft::StarImport)))
    });
    stars.len() > before
}

/// Whether an identifier is the target of a top-level (augmented) assignment statement.
fn is_top_level_assignment_target(node: Node) -> bool {
    let assignment = node.parent().filter(|p| {
        matches!(p.kind(), "assignment" | "augmented_assignment")
            && p.child_by_field_name("left")
                .is_some_and(|l| l.id() == node.id())
    });
    let statement = assignment.and_then(|a| a.parent());
    statement.is_some_and(|s| {
        s.kind() == "expression_statement" && s.parent().is_some_and(|m| m.kind() == "module")
    })
}

/// Whether a statement runs only when a function is called (not when its module loads).
fn runs_lazily(stmt: Node) -> bool {
    let mut at = stmt.parent();
    while let Some(p) = at {
        if matches!(p.kind(), "function_definition" | "lambda") {
            return true;
        }
        at = p.parent();
    }
    false
}

/// What a site of the symbol is, by its syntax.
enum SiteKind<'t> {
    /// `from m import f [as g]`: the item and its statement.
    Import(Node<'t>, Node<'t>),
    /// `obj.f`: the attribute and its object.
    Attribute(Node<'t>, Node<'t>),
    /// Anything else: a plain use, or the definition.
    Use,
}

/// What the identifier of a site stands in.
fn site_kind(node: Node) -> SiteKind {
    let Some(parent) = node.parent() else {
        return SiteKind::Use;
    };
    match parent.kind() {
        "dotted_name" => {
            let holder = parent.parent();
            let (item, stmt) = match holder.map(|h| h.kind()) {
                Some("import_from_statement") => (parent, holder),
                Some("aliased_import")
                    if holder
                        .and_then(|h| h.child_by_field_name("name"))
                        .is_some_and(|n| n.id() == parent.id()) =>
                {
                    (holder.unwrap_or(parent), holder.and_then(|h| h.parent()))
                }
                _ => return SiteKind::Use,
            };
            match stmt {
                Some(stmt)
                    if stmt.kind() == "import_from_statement"
                        && stmt
                            .child_by_field_name("module_name")
                            .is_none_or(|m| m.id() != item.id()) =>
                {
                    SiteKind::Import(item, stmt)
                }
                _ => SiteKind::Use,
            }
        }
        "attribute"
            if parent
                .child_by_field_name("attribute")
                .is_some_and(|n| n.id() == node.id()) =>
        {
            match parent.child_by_field_name("object") {
                Some(object) => SiteKind::Attribute(parent, object),
                None => SiteKind::Use,
            }
        }
        _ => SiteKind::Use,
    }
}

/// One file's changes while its sites are rewritten.
struct FileWork<'t> {
    x: &'t Parsed,
    in_new: bool,
    edits: Edits,
    /// How the file names the new module, once decided.
    module_ref: Option<String>,
    /// The objects (`a` of `a.f`) rewritten.
    rewritten_objects: Vec<(usize, usize)>,
    /// The imports the rewritten objects came through.
    object_imports: Vec<(Node<'t>, Node<'t>)>,
    /// Whether the file will import the new module when it loads.
    imports_new_on_load: bool,
}

impl<'t> FileWork<'t> {
    /// `from a import f [as g]` of the old module: respelled to the new one (split when it
    /// imports more); in the new module, dropped. Whether it was rewritten.
    fn import_site(&mut self, req: &Request, py: &PyProject, item: Node, stmt: Node) -> bool {
        let x = self.x;
        let Some(module_node) = stmt.child_by_field_name("module_name") else {
            return false;
        };
        let module = text(module_node, x);
        if py.import_file(x, module).as_deref() != Some(req.from.path.as_str()) {
            return false; // through a re-export, updated where it re-exports
        }
        let spelled = req.modules.spell(&x.path, req.to, module.starts_with('.'));
        if !runs_lazily(stmt) {
            self.imports_new_on_load = true;
        }
        if self.in_new {
            remove_item(&mut self.edits, x, stmt, item);
        } else if import_items(stmt).len() == 1 {
            self.edits
                .replace(module_node.start_byte(), module_node.end_byte(), spelled);
        } else {
            remove_item(&mut self.edits, x, stmt, item);
            let indent = &x.text[line_start(&x.text, stmt.start_byte())..stmt.start_byte()];
            let at = line_end(&x.text, stmt.end_byte().saturating_sub(1));
            let eol = if x.text[..at].ends_with('\n') {
                ""
            } else {
                "\n"
            };
            self.edits.insert(
                at,
                format!("{eol}{indent}from {spelled} import {}\n", text(item, x)),
            );
        }
        true
    }

    /// `a.f` of the old module: the new module in its place (`f` alone in the new module).
    /// Whether it was rewritten.
    fn attribute_site(
        &mut self,
        req: &Request,
        py: &PyProject,
        attribute: Node<'t>,
        object: Node<'t>,
        name: Node<'t>,
    ) -> Result<bool, MoveRefusal> {
        let x = self.x;
        if py.module_of(x, object).as_deref() != Some(req.from.path.as_str()) {
            return Ok(false); // a package re-exporting it: updated where it re-exports
        }
        if self.in_new {
            self.edits
                .replace(attribute.start_byte(), name.start_byte(), "");
            // The new module's import of the old one, unused once `a.f` is its own `f`.
            if let Some(import) = import_binding(x, text(object, x), &req.from.path, py)
                && !self
                    .object_imports
                    .iter()
                    .any(|(s, i)| s.id() == import.0.id() && i.id() == import.1.id())
            {
                self.object_imports.push(import);
            }
            self.rewritten_objects
                .push((object.start_byte(), object.end_byte()));
            return Ok(true);
        }
        let reference = match &self.module_ref {
            Some(r) => r.clone(),
            None => {
                let r = new_module_ref(
                    req,
                    py,
                    x,
                    object,
                    &mut self.edits,
                    &mut self.object_imports,
                )?;
                // An import of it added at the top (or one the file had: a no-op then).
                self.imports_new_on_load = true;
                self.module_ref = Some(r.clone());
                r
            }
        };
        self.edits
            .replace(object.start_byte(), object.end_byte(), reference);
        self.rewritten_objects
            .push((object.start_byte(), object.end_byte()));
        Ok(true)
    }
}

/// The top-level import item of `x` binding `object` (`import a`, `import pkg.a`, `from pkg
/// import a`) to the module file `old`, with its statement.
fn import_binding<'t>(
    x: &'t Parsed,
    object: &str,
    old: &str,
    py: &PyProject,
) -> Option<(Node<'t>, Node<'t>)> {
    top_statements(x)
        .into_iter()
        .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
        .flat_map(|s| import_items(s).into_iter().map(move |item| (s, item)))
        .find(|(s, item)| {
            let binds = if s.kind() == "import_statement" && item.kind() != "aliased_import" {
                text(*item, x).to_string()
            } else {
                bound_name(*item, x)
            };
            binds == object && imported_file(*item, *s, x, py).as_deref() == Some(old)
        })
}

/// Moves one file's changes into another's list.
pub(super) fn merge(into: &mut Edits, from: Edits) {
    into.extend(from);
}

/// How a file names the new module in `b.f`: an import of it it has (`import pkg.b`,
/// `import pkg.b as m`, `from pkg import b`), else one added in the style of the import the
/// old module came through (`from pkg import b` beside `from pkg import a`, else `import
/// pkg.b`), after it (or with the file's other imports).
pub(super) fn new_module_ref<'t>(
    req: &Request,
    py: &PyProject,
    x: &'t Parsed,
    object: Node<'t>,
    edits: &mut Edits,
    object_imports: &mut Vec<(Node<'t>, Node<'t>)>,
) -> Result<String, MoveRefusal> {
    let dotted = req.modules.dotted(req.to);
    let object_text = text(object, x);
    let new_last = dotted.rsplit('.').next().unwrap_or(&dotted).to_string();
    // The import the object came through, and the line that imports the new module alike.
    let mut came_through: Option<(Node, Node, String, String)> = None;
    for s in top_statements(x) {
        if !matches!(s.kind(), "import_statement" | "import_from_statement") {
            continue;
        }
        for item in import_items(s) {
            if imported_file(item, s, x, py).as_deref() == Some(req.to) {
                return Ok(
                    if s.kind() == "import_statement" && item.kind() != "aliased_import" {
                        text(item, x).to_string()
                    } else {
                        bound_name(item, x)
                    },
                );
            }
            let binds = if s.kind() == "import_statement" && item.kind() != "aliased_import" {
                text(item, x)
            } else {
                &bound_name(item, x)
            };
            if binds != object_text || came_through.is_some() {
                continue;
            }
            if s.kind() == "import_from_statement" {
                let package = s
                    .child_by_field_name("module_name")
                    .map(|m| text(m, x))
                    .unwrap_or_default();
                // The package the old module came from holds the new one too.
                let holds_new = py
                    .import_file(x, package)
                    .is_some_and(|init| init == format!("{}/__init__.py", dir_of(req.to)));
                if holds_new {
                    came_through = Some((
                        s,
                        item,
                        format!("from {package} import {new_last}"),
                        new_last.clone(),
                    ));
                    continue;
                }
            }
            came_through = Some((s, item, format!("import {dotted}"), dotted.clone()));
        }
    }
    let (line, reference) = match &came_through {
        Some((_, _, line, reference)) => (line.clone(), reference.clone()),
        None => (format!("import {dotted}"), dotted.clone()),
    };
    let top = reference.split('.').next().unwrap_or(&reference);
    if let Some(other) = top_statements(x).into_iter().find(|s| {
        statement_binds(*s, x, top) && !(s.kind() == "import_statement" && reference.contains('.'))
    }) {
        return Err(MoveRefusal::NameTaken {
            name: top.to_string(),
            path: x.path.clone(),
            line: other.start_position().row + 1,
        });
    }
    match came_through {
        Some((stmt, item, _, _)) => {
            object_imports.push((stmt, item));
            let at = line_end(&x.text, stmt.end_byte().saturating_sub(1));
            let eol = if x.text[..at].ends_with('\n') {
                ""
            } else {
                "\n"
            };
            edits.insert(at, format!("{eol}{line}\n"));
        }
        None => insert_import(edits, x, &line),
    }
    Ok(reference)
}

/// Removes the import of the old module (`import a`, `from pkg import a`) when nothing but
/// the rewritten `a.f` used it.
pub(super) fn prune_module_import(
    x: &Parsed,
    (stmt, item): (Node, Node),
    rewritten: &[(usize, usize)],
    edits: &mut Edits,
) {
    let name = bound_name(item, x);
    // Only where the text spells the name can an identifier of it stand: those places are
    // looked at, not the whole tree (a big importer is walked once per pruned import
    // otherwise).
    let used = memchr::memmem::find_iter(x.text.as_bytes(), name.as_bytes()).any(|at| {
        x.tree
            .root_node()
            .descendant_for_byte_range(at, at + name.len())
            .is_some_and(|n| {
                n.kind() == "identifier"
                    && n.start_byte() == at
                    && text(n, x) == name
                    && !in_import_statement(n)
                    && !rewritten
                        .iter()
                        .any(|(s, e)| *s <= n.start_byte() && n.end_byte() <= *e)
            })
    });
    if used {
        return;
    }
    if edits.covers(item.start_byte()) {
        return;
    }
    remove_item(edits, x, stmt, item);
}

/// Whether a node stands in an import statement (at any depth of the tree).
fn in_import_statement(node: Node) -> bool {
    let mut at = node.parent();
    while let Some(p) = at {
        if matches!(p.kind(), "import_statement" | "import_from_statement") {
            return true;
        }
        at = p.parent();
    }
    false
}

/// Each `from <old> import *` of a file, by offset, in the order of the text.
pub(super) fn star_imports_of(
    x: &Parsed,
    old: &str,
    py: &PyProject,
    mut report: impl FnMut(usize),
) {
    // Every star import's text holds `import` followed by `*`: only those places are looked
    // at (most files have none).
    for at in star_import_words(&x.text) {
        let statement = x
            .tree
            .root_node()
            .descendant_for_byte_range(at, at + "import".len())
            .and_then(|keyword| keyword.parent())
            .filter(|s| s.kind() == "import_from_statement");
        if let Some(n) = statement
            && n.child_by_field_name("module_name")
                .and_then(|m| py.import_file(x, text(m, x)))
                .is_some_and(|f| f == old)
        {
            report(n.start_byte());
        }
    }
}

/// Where the text holds `import` followed by `*` (spaces and line continuations between):
/// every star import does (a `*` elsewhere, in `*args` or a product, does not count).
fn star_import_words(text: &str) -> impl Iterator<Item = usize> + '_ {
    memchr::memmem::find_iter(text.as_bytes(), "import").filter(|&at| {
        text[at + "import".len()..]
            .trim_start_matches([' ', '\t', '\\', '\r', '\n'])
            .starts_with('*')
    })
}

/// Whether a string is the name argument of `getattr`, `hasattr`, `setattr` or `delattr`.
fn is_attribute_name_argument(string: Node, x: &Parsed) -> bool {
    let Some(args) = string.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let second = args.named_child(1).is_some_and(|n| n.id() == string.id());
    second
        && args
            .parent()
            .and_then(|call| call.child_by_field_name("function"))
            .is_some_and(|f| matches!(text(f, x), "getattr" | "hasattr" | "setattr" | "delattr"))
}

/// Strings that name the symbol as code would (`getattr(m, "f")`, `"pkg.a.f"`), which lancet does
/// not rewrite: each reported where it starts. `__all__` of the two modules is updated instead.
pub(super) fn strings_naming(
    x: &Parsed,
    req: &Request,
    old_dotted: &str,
    skip_all: bool,
    mut report: impl FnMut(usize),
) {
    let qualified = format!("{old_dotted}.{}", req.name);
    let quoted = |q: char| format!("{q}{}{q}", req.name);
    // Only where the text spells the qualified name or the quoted name can such a string
    // stand: those places are looked at (most files have none), each string once.
    let mut places: Vec<usize> = [qualified.clone(), quoted('"'), quoted('\'')]
        .iter()
        .flat_map(|needle| memchr::memmem::find_iter(x.text.as_bytes(), needle.as_bytes()))
        .collect();
    if places.is_empty() {
        return;
    }
    places.sort_unstable();
    let all = if skip_all { all_list(x) } else { None };
    let mut seen: Vec<usize> = Vec::new();
    for at in places {
        let Some(string) = x
            .tree
            .root_node()
            .descendant_for_byte_range(at, at + 1)
            .and_then(enclosing_string)
        else {
            continue;
        };
        if seen.contains(&string.id())
            || all.is_some_and(|l| string.parent().is_some_and(|p| p.id() == l.id()))
        {
            continue;
        }
        seen.push(string.id());
        if let Some(content) = string_content(string, x)
            && ((content == req.name && is_attribute_name_argument(string, x))
                || content == qualified
                || content.starts_with(&format!("{qualified}.")))
        {
            report(string.start_byte());
        }
    }
}

/// The string literal a node stands in (itself when it is one).
fn enclosing_string(node: Node) -> Option<Node> {
    let mut at = Some(node);
    while let Some(n) = at {
        if n.kind() == "string" {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::star_import_words;

    #[test]
    fn only_an_import_followed_by_a_star_tells_a_star_import() {
        let words = |text: &str| star_import_words(text).collect::<Vec<_>>();
        assert_eq!(words("from a import *\n"), [7]);
        assert_eq!(words("from a import \\\n    *\n"), [7]);
        assert!(words("import os\n\ndef f(*args):\n    return 2 * 3\n").is_empty());
    }
}
