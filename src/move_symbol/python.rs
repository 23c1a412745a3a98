//! A Python symbol's move planned: its statement cut from the old module (with the comments
//! directly above it and its decorators), the imports it needs written into the new one, and
//! every import and qualified use the resolver decided is of it rewritten to the new module.
//!
//! The sites are the rename's ([`crate::rename`]): each identifier spelled the symbol's name
//! that resolves to it is an imported name (`from a import f [as g]`: its module respelled,
//! or the statement split when it imports more), an attribute of the old module (`a.f`: the
//! new module in its place, imported as the file imports modules), or a plain use (left as
//! it is; in the old module, it gets `from b import f`). What the text cannot decide (an
//! attribute of a value of unknown type, a string naming it, a doctest) stops the move.

use super::edits::{Edits, is_blank_line, line_end, line_start};
use super::modules::{Modules, dir_of};
use crate::rename::model::{FileScan, Parsed, Resolution, SymbolId};
use crate::rename::python::{PyProject, binds, imports_star, scope_of};
use crate::rename::scan::line_text;
use lancet_core::{LeftSite, MoveRefusal, Site, Unmovable, line_of, line_starts};
use std::collections::BTreeMap;
use tree_sitter::Node;

/// What to move where, and what the tree holds of its name.
pub(super) struct Request<'a> {
    /// The symbol's name.
    pub(super) name: &'a str,
    /// The old module, parsed.
    pub(super) from: &'a Parsed,
    /// The new module's path.
    pub(super) to: &'a str,
    /// The new module, parsed, when it exists (a stub with no text when it does not).
    pub(super) to_parsed: &'a Parsed,
    /// Whether the new module exists.
    pub(super) to_exists: bool,
    /// The files holding the name, scanned and resolved.
    pub(super) scans: &'a [FileScan],
    /// The symbol.
    pub(super) primary: &'a SymbolId,
    /// Keep `from b import f` in the old module for its outside users.
    pub(super) keep_reexport: bool,
    /// The tree's module names.
    pub(super) modules: &'a Modules<'a>,
}

/// The move planned: each existing file's changes, the new file's content, and what the
/// report says.
pub(super) struct Planned {
    /// Changes of files that exist (the old module, the new one when it exists, importers).
    pub(super) edits: BTreeMap<String, Edits>,
    /// The new module's content, when it is created.
    pub(super) created: Option<String>,
    /// Every import and qualified use rewritten.
    pub(super) sites: Vec<Site>,
    /// The imports added to the new module.
    pub(super) imports_added: Vec<String>,
    /// The imports the old module lost.
    pub(super) imports_removed: Vec<String>,
    /// The sites not decided (a refusal unless left).
    pub(super) unresolved: Vec<LeftSite>,
    /// The lines moved, in the old file.
    pub(super) lines: [usize; 2],
}

fn text<'t>(node: Node, parsed: &'t Parsed) -> &'t str {
    &parsed.text[node.byte_range()]
}

/// Plans the move: `Err` for what stops it.
pub(super) fn plan(req: &Request, py: &PyProject) -> Result<Planned, MoveRefusal> {
    let a = req.from;
    let stmt = definition(req)?;
    let (block_start, block_end) = block_range(a, stmt);
    let starts = line_starts(&a.text);
    let lines = [
        line_of(&starts, block_start),
        line_of(
            &starts,
            stmt.end_byte().saturating_sub(1).max(stmt.start_byte()),
        ),
    ];
    let place = format!("{}:{}", a.path, line_of(&starts, stmt.start_byte()));
    let mut planned = Planned {
        edits: BTreeMap::new(),
        created: None,
        sites: Vec::new(),
        imports_added: Vec::new(),
        imports_removed: Vec::new(),
        unresolved: Vec::new(),
        lines,
    };
    let relative_style = uses_relative_imports(a);
    let deps = dependencies(req, py, stmt, &place)?;
    let b = req.to_parsed;
    // What the new module gets: `__future__` imports first, then the imports copied, then
    // the names of the old module it uses.
    let mut new_imports: Vec<String> = Vec::new();
    for future in future_imports(a) {
        if !b.text.contains(&future) {
            new_imports.push(future);
        }
    }
    for line in &deps.imports {
        if !new_imports.contains(line) {
            new_imports.push(line.clone());
        }
    }
    if !deps.from_old.is_empty() {
        new_imports.push(format!(
            "from {} import {}",
            req.modules.spell(req.to, &a.path, relative_style),
            deps.from_old.join(", ")
        ));
    }
    planned.imports_added = new_imports.clone();
    // The name itself must be free in the new module (but for an import of it from the old).
    if req.to_exists {
        for s in top_statements(b) {
            if statement_binds(s, b, req.name) && !imports_from(s, b, req.name, &a.path, py) {
                return Err(MoveRefusal::NameTaken {
                    name: req.name.to_string(),
                    path: req.to.to_string(),
                    line: s.start_position().row + 1,
                });
            }
        }
    }
    let mut sites = SiteWork::default();
    collect_sites(req, py, (block_start, block_end), &mut sites, &mut planned)?;
    // A star import of the old module gets the symbol only while the old module re-exports
    // it: refused (naming each), unless it does.
    if !sites.stars.is_empty() && !req.keep_reexport {
        return Err(MoveRefusal::StarImports {
            symbol: req.name.to_string(),
            total: sites.stars.len(),
            sites: sites
                .stars
                .into_iter()
                .take(lancet_core::MAX_LISTED)
                .collect(),
        });
    }
    // Imports between the two modules, after the move.
    let b_imports_a = !deps.from_old.is_empty() || keeps_importing(b, &a.path, req.name, py);
    let a_imports_b_why = if let Some(line) = sites.uses_left.first() {
        Some(format!("uses of `{}` left in it, line {line}", req.name))
    } else if req.keep_reexport {
        Some("--keep-reexport leaves `from … import` of it there".to_string())
    } else {
        imports_module_at(a, req.to, py).map(|line| format!("an import at line {line}"))
    };
    if b_imports_a && let Some(back) = a_imports_b_why {
        let needs = if deps.from_old.is_empty() {
            vec![format!("(its existing import of {})", a.path)]
        } else {
            deps.from_old.clone()
        };
        return Err(MoveRefusal::Cycle {
            from: a.path.clone(),
            to: req.to.to_string(),
            needs,
            back,
        });
    }
    // The old module: the block cut, the imports only it used dropped, `__all__` and the
    // uses left pointed at the new module.
    {
        let edits = planned.edits.entry(a.path.clone()).or_default();
        let (cut_start, cut_end) = tidy_cut(&a.text, block_start, block_end);
        edits.replace(cut_start, cut_end, "");
        for (item, stmt_node, line) in &deps.copied_items {
            let name = bound_name(*item, a);
            if still_used(a, &name, (block_start, block_end)) {
                continue;
            }
            remove_item(edits, a, *stmt_node, *item);
            planned.imports_removed.push(line.clone());
        }
        if !req.keep_reexport {
            remove_from_all(edits, a, req.name);
        }
        if !sites.uses_left.is_empty() || req.keep_reexport {
            let mut line = format!(
                "from {} import {}",
                req.modules.spell(&a.path, req.to, relative_style),
                req.name
            );
            if sites.uses_left.is_empty() && !in_all(a, req.name) {
                line.push_str("  # noqa: F401 (re-exported)");
            }
            edits.insert(import_point(a), format!("{line}\n"));
        }
    }
    tidy_old_module(&mut planned, &a.text, &a.path);
    // The new module.
    let mut block = a.text[block_start..block_end].to_string();
    if !block.ends_with('\n') {
        block.push('\n');
    }
    block = rewrite_block(&block, &deps.self_attributes, block_start)?;
    let new_module = |new_imports: &[String]| {
        let mut content: String = new_imports.iter().map(|l| format!("{l}\n")).collect();
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(&block);
        content
    };
    if req.to_exists && b.text.trim().is_empty() {
        // An empty module: written as a new one.
        let content = new_module(&new_imports);
        planned
            .edits
            .entry(req.to.to_string())
            .or_default()
            .replace(0, b.text.len(), content);
    } else if req.to_exists {
        let edits = planned.edits.entry(req.to.to_string()).or_default();
        if !new_imports.is_empty() {
            let at = import_point(b);
            let mut added: String = new_imports.iter().map(|l| format!("{l}\n")).collect();
            if at == 0 && !b.text.is_empty() {
                added.push('\n');
            }
            edits.insert(at, added);
        }
        match first_top_level_use(req, b) {
            Some(at) => edits.insert(at, format!("{block}\n\n")),
            None => {
                let sep = if b.text.trim().is_empty() {
                    ""
                } else if b.text.ends_with("\n\n\n") {
                    ""
                } else if b.text.ends_with("\n\n") {
                    "\n"
                } else if b.text.ends_with('\n') {
                    "\n\n"
                } else {
                    "\n\n\n"
                };
                edits.insert(b.text.len(), format!("{sep}{block}"));
            }
        }
        add_to_all(edits, b, req.name);
    } else {
        planned.created = Some(new_module(&new_imports));
    }
    planned.edits.retain(|_, e| !e.is_empty());
    Ok(planned)
}

/// The old module's changes as one replacement when they leave blank lines at its top, or
/// more than two in a row, where it had none: the text with those dropped.
fn tidy_old_module(planned: &mut Planned, text: &str, path: &str) {
    let Some(edits) = planned.edits.remove(path) else {
        return;
    };
    let Ok(after) = edits.clone_applied(text) else {
        planned.edits.insert(path.to_string(), edits);
        return;
    };
    let leading = |t: &str| t.starts_with('\n');
    let runs = |t: &str| t.contains("\n\n\n\n");
    if !(leading(&after) && !leading(text)) && !(runs(&after) && !runs(text)) {
        planned.edits.insert(path.to_string(), edits);
        return;
    }
    let mut tidy = after.clone();
    if !leading(text) {
        tidy = tidy.trim_start_matches('\n').to_string();
    }
    if !runs(text) {
        while tidy.contains("\n\n\n\n") {
            tidy = tidy.replace("\n\n\n\n", "\n\n\n");
        }
    }
    let mut whole = Edits::default();
    whole.replace(0, text.len(), tidy);
    planned.edits.insert(path.to_string(), whole);
}

/// The one top-level statement defining the symbol in its module.
fn definition<'t>(req: &Request<'t>) -> Result<Node<'t>, MoveRefusal> {
    let a = req.from;
    let name = req.name;
    let binding: Vec<Node> = top_statements(a)
        .into_iter()
        .filter(|s| statement_binds(*s, a, name))
        .collect();
    let place_of = |n: Node| format!("{}:{}", a.path, n.start_position().row + 1);
    let not_movable = |place: String, why: Unmovable| MoveRefusal::NotMovable {
        symbol: name.to_string(),
        place,
        why,
    };
    let stmt = match binding.as_slice() {
        [] => {
            return Err(not_movable(
                a.path.clone(),
                Unmovable::NotDefinition("a `global` statement in a function".into()),
            ));
        }
        [one] => *one,
        many => {
            return Err(not_movable(
                place_of(many[0]),
                Unmovable::Redefined {
                    lines: many.iter().map(|n| n.start_position().row + 1).collect(),
                },
            ));
        }
    };
    let place = place_of(stmt);
    let def = match stmt.kind() {
        "decorated_definition" => stmt.child_by_field_name("definition"),
        _ => Some(stmt),
    };
    match def.map(|d| d.kind()) {
        Some("function_definition" | "class_definition" | "type_alias_statement") => {}
        Some("expression_statement") => {
            let only = stmt.named_child_count() == 1;
            let assignment = stmt.named_child(0).filter(|c| c.kind() == "assignment");
            let single = assignment.is_some_and(|asg| {
                asg.child_by_field_name("left")
                    .is_some_and(|l| l.kind() == "identifier" && text(l, a) == name)
                    && !asg
                        .child_by_field_name("right")
                        .is_some_and(|r| r.kind() == "assignment")
            });
            if !(only && single) {
                let what = if assignment.is_some()
                    || stmt
                        .named_child(0)
                        .is_some_and(|c| c.kind() == "augmented_assignment")
                {
                    Unmovable::Shared
                } else {
                    Unmovable::NotDefinition("an expression".into())
                };
                return Err(not_movable(place, what));
            }
        }
        Some("import_statement" | "import_from_statement") => {
            return Err(not_movable(
                place,
                Unmovable::NotDefinition("an import".into()),
            ));
        }
        Some(other) => {
            let keyword = other.trim_end_matches("_statement");
            return Err(not_movable(
                place,
                Unmovable::NotDefinition(format!("a `{keyword}` statement")),
            ));
        }
        None => return Err(not_movable(place, Unmovable::NotGlobal)),
    }
    // Alone on its lines.
    let shares = |other: Option<Node>, row: usize, before: bool| {
        other.is_some_and(|o| {
            o.kind() != "comment"
                && if before {
                    o.end_position().row == row
                } else {
                    o.start_position().row == row
                }
        })
    };
    if shares(stmt.prev_named_sibling(), stmt.start_position().row, true)
        || shares(stmt.next_named_sibling(), stmt.end_position().row, false)
    {
        return Err(not_movable(place, Unmovable::Shared));
    }
    if let Some(global) = find_global(stmt, a) {
        return Err(not_movable(place, Unmovable::Global(global)));
    }
    Ok(stmt)
}

/// The module's top-level statements.
fn top_statements(m: &Parsed) -> Vec<Node<'_>> {
    let root = m.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// Whether a top-level statement binds `name` in the module's scope (through its nested
/// `if`/`try`/`for`/`with` blocks, not into functions or classes).
fn statement_binds(stmt: Node, m: &Parsed, name: &str) -> bool {
    match stmt.kind() {
        "function_definition" | "class_definition" => stmt
            .child_by_field_name("name")
            .is_some_and(|n| text(n, m) == name),
        "decorated_definition" => stmt
            .child_by_field_name("definition")
            .is_some_and(|d| statement_binds(d, m, name)),
        "type_alias_statement" => stmt
            .named_child(0)
            .is_some_and(|n| text(n, m).split('[').next() == Some(name)),
        "import_statement" | "import_from_statement" => import_items(stmt)
            .into_iter()
            .any(|item| bound_name(item, m) == name),
        "assignment" | "augmented_assignment" => {
            stmt.child_by_field_name("left")
                .is_some_and(|l| target_binds(l, m, name))
                || stmt
                    .child_by_field_name("right")
                    .is_some_and(|r| statement_binds(r, m, name))
        }
        "for_statement" | "for_in_clause" => {
            stmt.child_by_field_name("left")
                .is_some_and(|l| target_binds(l, m, name))
                || children_bind(stmt, m, name)
        }
        "named_expression" => {
            stmt.child_by_field_name("name")
                .is_some_and(|n| text(n, m) == name)
                || children_bind(stmt, m, name)
        }
        "as_pattern" => {
            stmt.child_by_field_name("alias")
                .is_some_and(|a| target_binds(a, m, name))
                || children_bind(stmt, m, name)
        }
        "except_clause" => {
            let mut cursor = stmt.walk();
            let mut after_as = false;
            let bound = stmt.children(&mut cursor).any(|part| {
                let hit = after_as && part.kind() == "identifier" && text(part, m) == name;
                after_as = part.kind() == "as";
                hit
            });
            bound || children_bind(stmt, m, name)
        }
        "lambda"
        | "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression"
        | "string"
        | "comment" => false,
        _ => children_bind(stmt, m, name),
    }
}

fn children_bind(node: Node, m: &Parsed, name: &str) -> bool {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|c| statement_binds(c, m, name))
}

/// Whether an assignment target binds `name` (a name, or one inside a tuple or list).
fn target_binds(target: Node, m: &Parsed, name: &str) -> bool {
    match target.kind() {
        "identifier" => text(target, m) == name,
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "list_splat_pattern"
        | "tuple"
        | "list"
        | "parenthesized_expression"
        | "expression_list"
        | "as_pattern_target" => {
            let mut cursor = target.walk();
            target
                .named_children(&mut cursor)
                .any(|c| target_binds(c, m, name))
        }
        _ => false,
    }
}

/// An import statement's items (`a.b`, `x as y`).
fn import_items(stmt: Node) -> Vec<Node> {
    let mut cursor = stmt.walk();
    stmt.children_by_field_name("name", &mut cursor).collect()
}

/// The name an import item binds: its alias, the name imported, or a dotted import's first
/// part.
fn bound_name(item: Node, m: &Parsed) -> String {
    if item.kind() == "aliased_import" {
        return item
            .child_by_field_name("alias")
            .map(|a| text(a, m).to_string())
            .unwrap_or_default();
    }
    let spelled = text(item, m);
    let from_import = item
        .parent()
        .is_some_and(|p| p.kind() == "import_from_statement");
    if from_import {
        spelled.to_string()
    } else {
        spelled
            .split('.')
            .next()
            .unwrap_or(spelled)
            .trim()
            .to_string()
    }
}

/// Whether `stmt` of `m` is `from <the old module> import name`.
fn imports_from(stmt: Node, m: &Parsed, name: &str, old: &str, py: &PyProject) -> bool {
    stmt.kind() == "import_from_statement"
        && stmt
            .child_by_field_name("module_name")
            .and_then(|n| py.import_file(m, text(n, m)))
            .is_some_and(|f| f == old)
        && import_items(stmt).iter().all(|i| {
            let original = if i.kind() == "aliased_import" {
                i.child_by_field_name("name")
            } else {
                Some(*i)
            };
            original.is_some_and(|o| text(o, m) == name)
        })
}

/// A `global NAME` inside the moved code, by name.
fn find_global(stmt: Node, m: &Parsed) -> Option<String> {
    let mut stack = vec![stmt];
    while let Some(n) = stack.pop() {
        if n.kind() == "global_statement" {
            let mut cursor = n.walk();
            return n
                .named_children(&mut cursor)
                .find(|c| c.kind() == "identifier")
                .map(|c| text(c, m).to_string());
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    None
}

/// The bytes that move: the statement's lines, with the comments directly above it (not a
/// shebang or an encoding line).
fn block_range(m: &Parsed, stmt: Node) -> (usize, usize) {
    let mut start = line_start(&m.text, stmt.start_byte());
    let mut row = stmt.start_position().row;
    let mut prev = stmt.prev_sibling();
    while let Some(p) = prev {
        let is_header = p.start_position().row < 2 && {
            let t = text(p, m);
            t.starts_with("#!") || t.contains("coding")
        };
        if p.kind() != "comment"
            || p.end_position().row + 1 != row
            || p.start_position().column != 0
            || is_header
        {
            break;
        }
        start = line_start(&m.text, p.start_byte());
        row = p.start_position().row;
        prev = p.prev_sibling();
    }
    let end = line_end(
        &m.text,
        stmt.end_byte().saturating_sub(1).max(stmt.start_byte()),
    );
    (start, end)
}

/// The range cut from the old module: the block, and the blank lines after it when blank
/// lines stood before it too (or all of them at the end of the file), so the separation
/// between what stays is as it was.
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

/// What the moved code takes from its old module.
struct Dependencies<'t> {
    /// Import statements to copy into the new module.
    imports: Vec<String>,
    /// The old module's import items the moved code used: each item, its statement and its
    /// spelling (for the report).
    copied_items: Vec<(Node<'t>, Node<'t>, String)>,
    /// Names the old module defines that the moved code uses (`from a import …`).
    from_old: Vec<String>,
    /// Attributes of the new module (`b.x`, through the old module's `import b`) in the
    /// moved code: the ranges of the `b.` to drop.
    self_attributes: Vec<(usize, usize)>,
}

/// The names the moved code looks up in its module, and where each comes from there.
fn dependencies<'t>(
    req: &Request<'t>,
    py: &PyProject,
    stmt: Node<'t>,
    place: &str,
) -> Result<Dependencies<'t>, MoveRefusal> {
    let a = req.from;
    let mut deps = Dependencies {
        imports: Vec::new(),
        copied_items: Vec::new(),
        from_old: Vec::new(),
        self_attributes: Vec::new(),
    };
    let not_movable = |why: Unmovable| MoveRefusal::NotMovable {
        symbol: req.name.to_string(),
        place: place.to_string(),
        why,
    };
    let free = free_names(stmt, a, req.name);
    let mut imports: Vec<(usize, String)> = Vec::new();
    let b = req.to_parsed;
    for (name, uses) in free {
        let binding: Vec<Node> = top_statements(a)
            .into_iter()
            .filter(|s| s.id() != stmt.id() && statement_binds(*s, a, &name))
            .collect();
        if binding.is_empty() {
            if imports_star(a) {
                return Err(not_movable(Unmovable::StarName(name)));
            }
            continue; // a builtin (or a name unbound before the move too)
        }
        let direct_imports: Vec<Node> = binding
            .iter()
            .copied()
            .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
            .collect();
        if direct_imports.len() < binding.len() {
            let nested_import = binding.iter().find(|s| {
                !matches!(s.kind(), "import_statement" | "import_from_statement")
                    && contains_import_of(**s, a, &name)
            });
            if let Some(s) = nested_import {
                return Err(not_movable(Unmovable::ConditionalImport {
                    name,
                    line: s.start_position().row + 1,
                }));
            }
            // Defined in the old module: imported from it.
            if let Some(line) = b_binds_otherwise(req, py, &name) {
                return Err(MoveRefusal::NameTaken {
                    name,
                    path: req.to.to_string(),
                    line,
                });
            }
            deps.from_old.push(name);
            continue;
        }
        for s in direct_imports {
            for item in import_items(s) {
                if bound_name(item, a) != name {
                    continue;
                }
                // A name the new module defines (`from b import helper`): its own there.
                let from_new = s.kind() == "import_from_statement"
                    && s.child_by_field_name("module_name")
                        .and_then(|m| py.import_file(a, text(m, a)))
                        .as_deref()
                        == Some(req.to);
                if from_new {
                    let line = plain_import_line(item, s, a, req, py);
                    deps.copied_items.push((item, s, line));
                    continue;
                }
                // An import of the new module itself: its names are the new module's own.
                if imported_file(item, s, a, py).as_deref() == Some(req.to) {
                    for use_node in &uses {
                        let attr = use_node.parent().filter(|p| {
                            p.kind() == "attribute"
                                && p.child_by_field_name("object")
                                    .is_some_and(|o| o.id() == use_node.id())
                        });
                        match attr {
                            Some(attr) => deps.self_attributes.push((
                                attr.start_byte(),
                                attr.child_by_field_name("attribute")
                                    .map_or(attr.end_byte(), |x| x.start_byte()),
                            )),
                            None => {
                                return Err(MoveRefusal::NameTaken {
                                    name: name.clone(),
                                    path: req.to.to_string(),
                                    line: use_node.start_position().row + 1,
                                });
                            }
                        }
                    }
                    let line = plain_import_line(item, s, a, req, py);
                    deps.copied_items.push((item, s, line));
                    continue;
                }
                let line = import_line(item, s, a, req, py);
                if let Some(existing) = b_binding_line(b, &name) {
                    if b_import_lines(b, &name, req, py).contains(&line) {
                        deps.copied_items.push((item, s, line));
                        continue;
                    }
                    return Err(MoveRefusal::NameTaken {
                        name: name.clone(),
                        path: req.to.to_string(),
                        line: existing,
                    });
                }
                imports.push((item.start_byte(), line.clone()));
                deps.copied_items.push((item, s, line));
            }
        }
    }
    // `from x import a` and `from x import b` as one statement.
    // In the order the old module imports them.
    imports.sort_by_key(|(at, _)| *at);
    let lines: Vec<String> = imports.into_iter().map(|(_, line)| line).collect();
    deps.imports = merge_from_imports(&lines);
    Ok(deps)
}

/// Whether a compound statement holds an import binding `name`.
fn contains_import_of(stmt: Node, m: &Parsed, name: &str) -> bool {
    let mut stack = vec![stmt];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "import_statement" | "import_from_statement")
            && import_items(n).iter().any(|i| bound_name(*i, m) == name)
        {
            return true;
        }
        if matches!(n.kind(), "function_definition" | "class_definition") {
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// The line of a top-level binding of `name` in the new module, if any.
fn b_binding_line(b: &Parsed, name: &str) -> Option<usize> {
    top_statements(b)
        .into_iter()
        .find(|s| statement_binds(*s, b, name))
        .map(|s| s.start_position().row + 1)
}

/// The new module's top-level imports binding `name`, spelled as the move spells them.
fn b_import_lines(b: &Parsed, name: &str, req: &Request, py: &PyProject) -> Vec<String> {
    top_statements(b)
        .into_iter()
        .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
        .flat_map(|s| {
            import_items(s)
                .into_iter()
                .filter(|i| bound_name(*i, b) == name)
                .map(move |i| (i, s))
        })
        .map(|(i, s)| plain_import_line(i, s, b, req, py))
        .collect()
}

/// The line of a binding of `name` in the new module other than `from <old> import name`.
fn b_binds_otherwise(req: &Request, py: &PyProject, name: &str) -> Option<usize> {
    let b = req.to_parsed;
    top_statements(b)
        .into_iter()
        .find(|s| statement_binds(*s, b, name) && !imports_from(*s, b, name, &req.from.path, py))
        .map(|s| s.start_position().row + 1)
}

/// The file an import item names (its module, or for `from m import x` the module `m`).
fn imported_file(item: Node, stmt: Node, m: &Parsed, py: &PyProject) -> Option<String> {
    match stmt.kind() {
        "import_statement" => {
            let dotted = if item.kind() == "aliased_import" {
                item.child_by_field_name("name")?
            } else {
                item
            };
            py.import_file(m, text(dotted, m))
        }
        _ => {
            let from = text(stmt.child_by_field_name("module_name")?, m);
            let original = if item.kind() == "aliased_import" {
                item.child_by_field_name("name")?
            } else {
                item
            };
            let sub = if from.ends_with('.') {
                format!("{from}{}", text(original, m))
            } else {
                format!("{from}.{}", text(original, m))
            };
            py.import_file(m, &sub)
        }
    }
}

/// An import item of the old module as the new module writes it: a relative module
/// respelled from the new module's place, an absolute one that would reach another file
/// from there spelled by its dotted name.
fn import_line(item: Node, stmt: Node, a: &Parsed, req: &Request, py: &PyProject) -> String {
    let item_text = text(item, a);
    match stmt.kind() {
        "import_statement" => {
            let dotted_node = if item.kind() == "aliased_import" {
                item.child_by_field_name("name")
            } else {
                Some(item)
            };
            let dotted = dotted_node.map(|d| text(d, a)).unwrap_or(item_text);
            let here = py.import_file(a, dotted);
            let there = py.import_file(req.to_parsed, dotted);
            match here {
                Some(file) if there.as_deref() != Some(file.as_str()) => {
                    // `import mod5` beside its importer (Python 2's implicit relative
                    // import): the same module under its full name.
                    let full = req.modules.dotted(&file);
                    format!("import {full} as {}", bound_name(item, a))
                }
                _ => format!("import {item_text}"),
            }
        }
        _ => {
            let module = stmt
                .child_by_field_name("module_name")
                .map(|n| text(n, a))
                .unwrap_or_default();
            let same_dir = dir_of(&a.path) == dir_of(req.to);
            let respelled = match py.import_file(a, module) {
                Some(file) if !(same_dir && module.starts_with('.')) => {
                    let there = py.import_file(req.to_parsed, module);
                    if there.as_deref() == Some(file.as_str()) {
                        module.to_string()
                    } else {
                        req.modules.spell(req.to, &file, module.starts_with('.'))
                    }
                }
                _ => module.to_string(),
            };
            format!("from {respelled} import {item_text}")
        }
    }
}

/// An import item of the new module, spelled as [`import_line`] would (to compare).
fn plain_import_line(
    item: Node,
    stmt: Node,
    b: &Parsed,
    _req: &Request,
    _py: &PyProject,
) -> String {
    let item_text = text(item, b);
    match stmt.kind() {
        "import_statement" => format!("import {item_text}"),
        _ => format!(
            "from {} import {item_text}",
            stmt.child_by_field_name("module_name")
                .map(|n| text(n, b))
                .unwrap_or_default()
        ),
    }
}

/// `from m import a` and `from m import b` as `from m import a, b`, in first-seen order.
fn merge_from_imports(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        if let Some((module, names)) = line
            .strip_prefix("from ")
            .and_then(|rest| rest.split_once(" import "))
            && let Some(existing) = out.iter_mut().find(|l| {
                l.strip_prefix("from ")
                    .and_then(|rest| rest.split_once(" import "))
                    .is_some_and(|(m, _)| m == module)
            })
        {
            existing.push_str(", ");
            existing.push_str(names);
            continue;
        }
        if !out.contains(line) {
            out.push(line.clone());
        }
    }
    out
}

/// The names the moved code looks up in the module scope, each with its uses, in order of
/// first use (the symbol's own name left out).
fn free_names<'t>(stmt: Node<'t>, m: &Parsed, own: &str) -> Vec<(String, Vec<Node<'t>>)> {
    let mut out: Vec<(String, Vec<Node>)> = Vec::new();
    let mut stack = vec![stmt];
    let mut idents = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            idents.push(n);
        }
        if matches!(
            n.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        ) {
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    idents.sort_by_key(|n| n.start_byte());
    for ident in idents {
        let name = text(ident, m);
        if name == own || !is_lookup(ident) {
            continue;
        }
        if !looked_up_in_module(ident, m, name, stmt) {
            continue;
        }
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, uses)) => uses.push(ident),
            None => out.push((name.to_string(), vec![ident])),
        }
    }
    out
}

/// Whether an identifier is a name looked up (not an attribute's, a keyword argument's, a
/// parameter's or a definition's own name).
fn is_lookup(ident: Node) -> bool {
    let Some(parent) = ident.parent() else {
        return false;
    };
    let is_field = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|f| f.id() == ident.id())
    };
    match parent.kind() {
        "attribute" => !is_field("attribute"),
        "keyword_argument" => !is_field("name"),
        "function_definition" | "class_definition" => !is_field("name"),
        "parameters" | "lambda_parameters" | "list_splat_pattern" | "dictionary_splat_pattern" => {
            false
        }
        "default_parameter" | "typed_default_parameter" => !is_field("name"),
        "typed_parameter" => parent.named_child(0).is_none_or(|n| n.id() != ident.id()),
        "global_statement" | "nonlocal_statement" | "dotted_name" | "aliased_import" => false,
        _ => true,
    }
}

/// Whether `ident`'s name, looked up where it stands, reaches the module scope: no scope
/// inside the moved code binds it (a class body does not reach the functions inside it).
fn looked_up_in_module(ident: Node, m: &Parsed, name: &str, stmt: Node) -> bool {
    let mut scope = scope_of(ident);
    let mut from_function = false;
    while let Some(s) = scope {
        if s.start_byte() < stmt.start_byte() || s.end_byte() > stmt.end_byte() {
            break;
        }
        let is_class = s.kind() == "class_definition";
        if !(is_class && from_function) && binds(m, Some(s), name) {
            return false;
        }
        if !is_class {
            from_function = true;
        }
        scope = scope_of(s);
    }
    true
}

/// Whether the module spells any import relatively (`from .x import y`).
fn uses_relative_imports(m: &Parsed) -> bool {
    top_statements(m).iter().any(|s| {
        s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .is_some_and(|n| text(n, m).starts_with('.'))
    })
}

/// The module's `from __future__ import …` statements, as written.
fn future_imports(m: &Parsed) -> Vec<String> {
    top_statements(m)
        .into_iter()
        .filter(|s| s.kind() == "future_import_statement")
        .map(|s| text(s, m).to_string())
        .collect()
}

/// Where imports are added to a module: after its first run of imports (past its docstring
/// and `__future__` imports), else after its docstring, else at the top.
fn import_point(m: &Parsed) -> usize {
    let mut last = None;
    let mut docstring = None;
    for (i, s) in top_statements(m).into_iter().enumerate() {
        match s.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                last = Some(s)
            }
            "expression_statement"
                if i == 0 && s.named_child(0).is_some_and(|c| c.kind() == "string") =>
            {
                docstring = Some(s)
            }
            _ => break,
        }
    }
    match last.or(docstring) {
        Some(s) => line_end(&m.text, s.end_byte().saturating_sub(1).max(s.start_byte())),
        None => 0,
    }
}

/// Whether the new module still imports the old one at its top once `from a import name`
/// is gone.
fn keeps_importing(b: &Parsed, old: &str, name: &str, py: &PyProject) -> bool {
    top_statements(b).into_iter().any(|s| {
        matches!(s.kind(), "import_statement" | "import_from_statement")
            && !imports_from(s, b, name, old, py)
            && imports_file(s, b, old, py)
    })
}

/// The line of a top-level import of `target` in `m`.
fn imports_module_at(m: &Parsed, target: &str, py: &PyProject) -> Option<usize> {
    top_statements(m)
        .into_iter()
        .find(|s| {
            matches!(s.kind(), "import_statement" | "import_from_statement")
                && imports_file(*s, m, target, py)
        })
        .map(|s| s.start_position().row + 1)
}

/// Whether an import statement imports the file `target` (or a name from it).
fn imports_file(stmt: Node, m: &Parsed, target: &str, py: &PyProject) -> bool {
    if stmt.kind() == "import_from_statement" {
        let from = stmt
            .child_by_field_name("module_name")
            .and_then(|n| py.import_file(m, text(n, m)));
        if from.as_deref() == Some(target) {
            return true;
        }
    }
    import_items(stmt)
        .into_iter()
        .any(|i| imported_file(i, stmt, m, py).as_deref() == Some(target))
}

/// Whether `name` is still used in the old module outside the moved block (an identifier,
/// or a string of its `__all__`).
fn still_used(m: &Parsed, name: &str, (start, end): (usize, usize)) -> bool {
    let mut stack = vec![m.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.start_byte() >= start && n.end_byte() <= end && n.start_byte() < end {
            continue;
        }
        if matches!(n.kind(), "import_statement" | "import_from_statement") {
            continue;
        }
        if n.kind() == "identifier" && text(n, m) == name {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    in_all(m, name)
}

/// Removes one item of an import statement (or `__all__`'s list), or the whole statement
/// (its lines, when it stands alone on them) when it is the only one.
fn remove_item(edits: &mut Edits, m: &Parsed, stmt: Node, item: Node) {
    let items = import_items(stmt);
    remove_among(edits, m, stmt, &items, item);
}

/// Removes `item` among `items` (the named parts of `holder`): with its comma, or
/// `holder`'s statement when it is the only one.
fn remove_among(edits: &mut Edits, m: &Parsed, holder: Node, items: &[Node], item: Node) {
    let Some(i) = items.iter().position(|x| x.id() == item.id()) else {
        return;
    };
    if items.len() == 1 {
        let stmt = statement_of(holder);
        let (start, end) = (stmt.start_byte(), stmt.end_byte());
        let line_from = line_start(&m.text, start);
        let line_to = line_end(&m.text, end.saturating_sub(1).max(start));
        let alone =
            m.text[line_from..start].trim().is_empty() && m.text[end..line_to].trim().is_empty();
        if alone {
            edits.replace(line_from, line_to, "");
        } else {
            edits.replace(start, end, "pass");
        }
        return;
    }
    if i + 1 < items.len() {
        edits.replace(item.start_byte(), items[i + 1].start_byte(), "");
    } else {
        edits.replace(items[i - 1].end_byte(), item.end_byte(), "");
    }
}

/// The statement holding a node (itself when it is one).
fn statement_of(node: Node) -> Node {
    let mut at = node;
    while !at.kind().ends_with("statement") {
        match at.parent() {
            Some(p) if p.kind() != "module" && p.kind() != "block" => at = p,
            _ => break,
        }
    }
    at
}

/// The module's `__all__ = [...]` (or tuple) list node, when it is a literal.
fn all_list(m: &Parsed) -> Option<Node<'_>> {
    top_statements(m).into_iter().find_map(|s| {
        let asg = s.named_child(0).filter(|c| c.kind() == "assignment")?;
        let left = asg.child_by_field_name("left")?;
        if text(left, m) != "__all__" {
            return None;
        }
        asg.child_by_field_name("right")
            .filter(|r| matches!(r.kind(), "list" | "tuple"))
    })
}

/// The string items of `__all__` and their contents.
fn all_items<'t>(list: Node<'t>, m: &'t Parsed) -> Vec<(Node<'t>, &'t str)> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .map(|c| (c, string_content(c, m).unwrap_or("")))
        .collect()
}

/// A plain string literal's content.
fn string_content<'t>(node: Node, m: &'t Parsed) -> Option<&'t str> {
    if node.kind() != "string" {
        return None;
    }
    let t = text(node, m);
    let t = t.trim_start_matches(['r', 'u', 'R', 'U']);
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = t.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return Some(inner);
        }
    }
    None
}

/// Whether `name` is listed in the module's `__all__`.
fn in_all(m: &Parsed, name: &str) -> bool {
    all_list(m).is_some_and(|l| all_items(l, m).iter().any(|(_, s)| *s == name))
}

/// Drops `name` from the module's `__all__`.
fn remove_from_all(edits: &mut Edits, m: &Parsed, name: &str) {
    let Some(list) = all_list(m) else { return };
    let items = all_items(list, m);
    let nodes: Vec<Node> = items.iter().map(|(n, _)| *n).collect();
    if let Some((node, _)) = items.iter().find(|(_, s)| *s == name) {
        if nodes.len() == 1 {
            edits.replace(node.start_byte(), node.end_byte(), "");
        } else {
            remove_among(edits, m, list, &nodes, *node);
        }
    }
}

/// Adds `name` to the module's `__all__`, when it has a literal one without it.
fn add_to_all(edits: &mut Edits, m: &Parsed, name: &str) {
    let Some(list) = all_list(m) else { return };
    let items = all_items(list, m);
    if items.iter().any(|(_, s)| *s == name) {
        return;
    }
    let quote = items
        .first()
        .and_then(|(n, _)| text(*n, m).chars().next())
        .filter(|c| *c == '\'' || *c == '"')
        .unwrap_or('"');
    match items.last() {
        Some((last, _)) => edits.insert(last.end_byte(), format!(", {quote}{name}{quote}")),
        None => edits.insert(list.start_byte() + 1, format!("{quote}{name}{quote}")),
    }
}

/// Where the moved block goes in an existing new module that uses the name at its top
/// level (run on import): before the first statement that does.
fn first_top_level_use(req: &Request, b: &Parsed) -> Option<usize> {
    let scan = req.scans.iter().find(|s| s.path == req.to)?;
    for o in &scan.occurrences {
        if o.doctest || !matches!(&o.resolution, Some(Resolution::Symbol(id)) if id == req.primary)
        {
            continue;
        }
        let node = b
            .tree
            .root_node()
            .descendant_for_byte_range(o.at, o.at + req.name.len())?;
        let mut at = node;
        let mut runs_on_import = true;
        let mut in_import = false;
        while let Some(p) = at.parent() {
            match p.kind() {
                "function_definition" | "lambda" => {
                    if p.child_by_field_name("body")
                        .is_some_and(|b| b.id() == at.id())
                    {
                        runs_on_import = false;
                    }
                }
                "import_from_statement" | "import_statement" => in_import = true,
                _ => {}
            }
            if p.kind() == "module" {
                break;
            }
            at = p;
        }
        if runs_on_import && !in_import {
            return Some(line_start(&b.text, at.start_byte()));
        }
    }
    None
}

/// Drops the `b.` of `b.x` in the moved block (the new module's own names).
fn rewrite_block(
    block: &str,
    ranges: &[(usize, usize)],
    block_start: usize,
) -> Result<String, MoveRefusal> {
    if ranges.is_empty() {
        return Ok(block.to_string());
    }
    let mut edits = Edits::default();
    for (start, end) in ranges {
        edits.replace(start - block_start, end - block_start, "");
    }
    edits.apply(block).map_err(|at| MoveRefusal::Overlap {
        path: String::new(),
        line: at,
    })
}

/// Per-file facts gathered while rewriting sites.
#[derive(Default)]
struct SiteWork {
    /// Lines of the old module where the symbol is still used after the move.
    uses_left: Vec<usize>,
    /// `from <old> import *` in the files holding the name.
    stars: Vec<LeftSite>,
}

/// Rewrites every import and qualified use of the symbol, lists the undecided ones.
fn collect_sites(
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
        let mut file_edits = Edits::default();
        let mut module_ref: Option<String> = None;
        let mut rewritten_objects: Vec<(usize, usize)> = Vec::new();
        let mut object_imports: Vec<(Node, Node)> = Vec::new();
        let column = |at: usize| at - scan.starts[line_of(&scan.starts, at) - 1] + 1;
        let left = |at: usize, why: String| LeftSite {
            path: scan.path.clone(),
            line: line_of(&scan.starts, at),
            column: column(at),
            text: line_text(&x.text, &scan.starts, line_of(&scan.starts, at)),
            why,
        };
        let site = |at: usize| Site {
            path: scan.path.clone(),
            line: line_of(&scan.starts, at),
            column: column(at),
            doctest: false,
        };
        let stars_before = work.stars.len();
        if !in_old {
            star_imports_of(x, &a.path, py, |at| {
                work.stars.push(left(
                    at,
                    "imports everything of the old module with `*`".into(),
                ))
            });
        }
        let has_star = work.stars.len() > stars_before;
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
                    planned.unresolved.push(left(o.at, why.clone()));
                    continue;
                }
                _ => continue,
            }
            if o.doctest {
                planned.unresolved.push(left(
                    o.at,
                    "in a doctest, which lancet does not rewrite".into(),
                ));
                continue;
            }
            let Some(node) = x
                .tree
                .root_node()
                .descendant_for_byte_range(o.at, o.at + req.name.len())
            else {
                continue;
            };
            let Some(parent) = node.parent() else {
                continue;
            };
            // `from a import f [as g]`.
            let import_item = match parent.kind() {
                "dotted_name" => {
                    let holder = parent.parent();
                    match holder.map(|h| h.kind()) {
                        Some("import_from_statement") => Some((parent, holder)),
                        Some("aliased_import")
                            if holder
                                .and_then(|h| h.child_by_field_name("name"))
                                .is_some_and(|n| n.id() == parent.id()) =>
                        {
                            Some((holder.unwrap_or(parent), holder.and_then(|h| h.parent())))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((item, Some(stmt))) = import_item {
                if stmt.kind() != "import_from_statement"
                    || stmt
                        .child_by_field_name("module_name")
                        .is_some_and(|m| m.id() == item.id())
                {
                    continue;
                }
                let Some(module_node) = stmt.child_by_field_name("module_name") else {
                    continue;
                };
                let module = text(module_node, x);
                if py.import_file(x, module).as_deref() != Some(a.path.as_str()) || in_old {
                    continue; // through a re-export, updated where it re-exports
                }
                let items = import_items(stmt);
                if in_new {
                    remove_item(&mut file_edits, x, stmt, item);
                } else if items.len() == 1 {
                    let spelled = req
                        .modules
                        .spell(&scan.path, req.to, module.starts_with('.'));
                    file_edits.replace(module_node.start_byte(), module_node.end_byte(), spelled);
                } else {
                    remove_item(&mut file_edits, x, stmt, item);
                    let spelled = req
                        .modules
                        .spell(&scan.path, req.to, module.starts_with('.'));
                    let indent = &x.text[line_start(&x.text, stmt.start_byte())..stmt.start_byte()];
                    let at = line_end(&x.text, stmt.end_byte().saturating_sub(1));
                    let eol = if x.text[..at].ends_with('\n') {
                        ""
                    } else {
                        "\n"
                    };
                    file_edits.insert(
                        at,
                        format!("{eol}{indent}from {spelled} import {}\n", text(item, x)),
                    );
                }
                planned.sites.push(site(o.at));
                continue;
            }
            // `a.f`.
            if parent.kind() == "attribute"
                && parent
                    .child_by_field_name("attribute")
                    .is_some_and(|n| n.id() == node.id())
            {
                let Some(object) = parent.child_by_field_name("object") else {
                    continue;
                };
                if py.module_of(x, object).as_deref() != Some(a.path.as_str()) {
                    continue; // a package re-exporting it: updated where it re-exports
                }
                if in_new {
                    file_edits.replace(parent.start_byte(), node.start_byte(), "");
                } else {
                    let reference = match &module_ref {
                        Some(r) => r.clone(),
                        None => {
                            let r = new_module_ref(
                                req,
                                py,
                                x,
                                object,
                                &mut file_edits,
                                &mut object_imports,
                            )?;
                            module_ref = Some(r.clone());
                            r
                        }
                    };
                    file_edits.replace(object.start_byte(), object.end_byte(), reference);
                    rewritten_objects.push((object.start_byte(), object.end_byte()));
                }
                planned.sites.push(site(o.at));
                continue;
            }
            if in_old && !o.kinds.is_empty() {
                continue;
            }
            if in_old {
                work.uses_left.push(o.line);
            }
        }
        // The old module's import, unused once its uses point at the new module.
        for import in object_imports {
            prune_module_import(x, import, &rewritten_objects, &mut file_edits);
        }
        // Strings naming it: `getattr(a, "f")`, `mock.patch("pkg.a.f")`.
        strings_naming(x, req, &old_dotted, in_old || in_new, |at, why| {
            planned.unresolved.push(left(at, why))
        });
        if !file_edits.is_empty() {
            let entry = planned.edits.entry(scan.path.clone()).or_default();
            merge(entry, file_edits);
        }
    }
    Ok(())
}

/// Moves one file's changes into another's list.
fn merge(into: &mut Edits, from: Edits) {
    into.extend(from);
}

/// How a file names the new module in `b.f`: an import of it it has (`import pkg.b`,
/// `import pkg.b as m`, `from pkg import b`), else one added in the style of the import the
/// old module came through (`from pkg import b` beside `from pkg import a`, else `import
/// pkg.b`), after it (or with the file's other imports).
fn new_module_ref<'t>(
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
        None => edits.insert(import_point(x), format!("{line}\n")),
    }
    Ok(reference)
}

/// Removes the import of the old module (`import a`, `from pkg import a`) when nothing but
/// the rewritten `a.f` used it.
fn prune_module_import(
    x: &Parsed,
    (stmt, item): (Node, Node),
    rewritten: &[(usize, usize)],
    edits: &mut Edits,
) {
    let name = bound_name(item, x);
    let mut stack = vec![x.tree.root_node()];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "import_statement" | "import_from_statement") {
            continue;
        }
        if n.kind() == "identifier"
            && text(n, x) == name
            && !rewritten
                .iter()
                .any(|(s, e)| *s <= n.start_byte() && n.end_byte() <= *e)
        {
            return;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    if edits.covers(item.start_byte()) {
        return;
    }
    remove_item(edits, x, stmt, item);
}

/// Each `from <old> import *` of a file, by offset.
fn star_imports_of(x: &Parsed, old: &str, py: &PyProject, mut report: impl FnMut(usize)) {
    let mut stack = vec![x.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "import_from_statement" {
            let mut cursor = n.walk();
            let star = n
                .named_children(&mut cursor)
                .any(|c| c.kind() == "wildcard_import");
            if star
                && n.child_by_field_name("module_name")
                    .and_then(|m| py.import_file(x, text(m, x)))
                    .is_some_and(|f| f == old)
            {
                report(n.start_byte());
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(
            n.named_children(&mut cursor)
                .filter(|c| !matches!(c.kind(), "string" | "comment")),
        );
    }
}

/// Strings that name the symbol as code would (`"f"`, `"pkg.a.f"`), which lancet does not
/// rewrite: each reported. `__all__` of the two modules is updated instead.
fn strings_naming(
    x: &Parsed,
    req: &Request,
    old_dotted: &str,
    skip_all: bool,
    mut report: impl FnMut(usize, String),
) {
    let all = if skip_all { all_list(x) } else { None };
    let qualified = format!("{old_dotted}.{}", req.name);
    let mut stack = vec![x.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "string" {
            if all.is_some_and(|l| n.parent().is_some_and(|p| p.id() == l.id())) {
                continue;
            }
            if let Some(content) = string_content(n, x)
                && (content == req.name
                    || content == qualified
                    || content.starts_with(&format!("{qualified}.")))
            {
                report(
                    n.start_byte(),
                    "a string naming it, which lancet does not rewrite".into(),
                );
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

#[cfg(test)]
mod tests {
    use super::{merge_from_imports, tidy_cut};

    #[test]
    fn the_cut_keeps_the_separation_of_what_stays() {
        let text = "a = 1\n\n\ndef f():\n    pass\n\n\nb = 2\n";
        let start = text.find("def").unwrap();
        let end = text.find("\n\n\nb").unwrap() + 1;
        let (s, e) = tidy_cut(text, start, end);
        assert_eq!(
            format!("{}{}", &text[..s], &text[e..]),
            "a = 1\n\n\nb = 2\n"
        );
        let last = "a = 1\n\n\ndef f():\n    pass\n";
        let (s, e) = tidy_cut(last, last.find("def").unwrap(), last.len());
        assert_eq!(format!("{}{}", &last[..s], &last[e..]), "a = 1\n");
    }

    #[test]
    fn imports_from_one_module_are_merged() {
        let lines = ["from m import a", "import os", "from m import b as c"].map(String::from);
        assert_eq!(
            merge_from_imports(&lines),
            ["from m import a, b as c", "import os"]
        );
    }
}
