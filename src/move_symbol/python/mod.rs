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

use super::cycles::{NewImport, refuse_cycles};
use super::edits::Edits;
use super::modules::Modules;
use crate::rename::model::{FileScan, Parsed, Resolution, SymbolId};
use crate::rename::python::PyProject;
use crate::report::{LeftSite, MoveRefusal, Site, Unmovable};
use lancet_core::{line_of, line_starts};
use std::collections::BTreeMap;
use tree_sitter::Node;

mod cycles;
mod dependencies;
mod placement;
mod sites;
mod statements;

use dependencies::{Dependencies, dependencies, is_type_checking_block, type_checking_only};
use placement::{
    add_to_all, block_range, first_top_level_use, insert_import, remove_from_all, remove_item,
    rewrite_block, still_used, tidy_blank_lines, tidy_cut,
};
use sites::{SiteWork, collect_sites, imports_module_at, keeps_importing};
use statements::{
    bound_name, brings_from, find_global, future_imports, import_items, imported_file,
    imported_file_on_load, in_all, statement_binds, text, top_statements, uses_relative_imports,
};

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

/// Plans the move: `Err` for what stops it.
pub(super) fn plan(req: &Request, py: &PyProject) -> Result<Planned, MoveRefusal> {
    let a = req.from;
    let (stmt, rebinds) = definition(req)?;
    let block = block_range(a, stmt);
    let starts = line_starts(&a.text);
    let last = stmt.end_byte().saturating_sub(1).max(stmt.start_byte());
    let place = format!("{}:{}", a.path, line_of(&starts, stmt.start_byte()));
    let mut planned = Planned {
        edits: BTreeMap::new(),
        created: None,
        sites: Vec::new(),
        imports_added: Vec::new(),
        imports_removed: Vec::new(),
        unresolved: Vec::new(),
        lines: [line_of(&starts, block.0), line_of(&starts, last)],
    };
    let mut clock = std::time::Instant::now();
    let deps = dependencies(req, py, stmt, &place)?;
    lancet_core::timing::lap("move: the moved code's names", &mut clock);
    planned.imports_added = new_imports(req, &deps);
    name_free_in_new(req, py)?;
    let mut sites = SiteWork::default();
    collect_sites(req, py, block, &mut sites, &mut planned)?;
    lancet_core::timing::lap("move: sites", &mut clock);
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
    let qualified = qualified_uses(req, py, &sites);
    if !rebinds.is_empty() && (qualified.is_none() || used_elsewhere(req)) {
        return Err(MoveRefusal::NotMovable {
            symbol: req.name.to_string(),
            place: place.clone(),
            why: Unmovable::Redefined {
                lines: std::iter::once(stmt)
                    .chain(rebinds.iter().copied())
                    .map(|n| n.start_position().row + 1)
                    .collect(),
            },
        });
    }
    no_cycle(req, py, &deps, &sites, &planned.edits)?;
    no_longer_cycle(req, py, &deps, &sites, &planned.edits)?;
    lancet_core::timing::lap("move: import cycles", &mut clock);
    old_module(req, &deps, &sites, qualified.as_ref(), block, &mut planned);
    tidy_blank_lines(&mut planned, &a.text, &a.path);
    let mut moved = a.text[block.0..block.1].to_string();
    if !moved.ends_with('\n') {
        moved.push('\n');
    }
    let moved = rewrite_block(&moved, &deps.self_attributes, block.0)?;
    new_module(req, &moved, &mut planned);
    if req.to_exists {
        tidy_blank_lines(&mut planned, &req.to_parsed.text, req.to);
    }
    planned.edits.retain(|_, e| !e.is_empty());
    Ok(planned)
}

/// What the new module gets: the old module's `__future__` imports it lacks, the imports
/// copied, then the names of the old module the moved code uses.
fn new_imports(req: &Request, deps: &Dependencies) -> Vec<String> {
    let (a, b) = (req.from, req.to_parsed);
    let mut lines: Vec<String> = Vec::new();
    for future in future_imports(a) {
        if !b.text.contains(&future) {
            lines.push(future);
        }
    }
    for line in &deps.imports {
        if !lines.contains(line) {
            lines.push(line.clone());
        }
    }
    if !deps.from_old.is_empty() {
        lines.push(format!(
            "from {} import {}",
            req.modules.spell(req.to, &a.path, uses_relative_imports(a)),
            deps.from_old.join(", ")
        ));
    }
    if !deps.type_checking.is_empty() {
        lines.push(type_checking_block(b, &deps.type_checking));
    }
    lines
}

/// The imports for the type checker alone, as the new module writes them: under its own
/// `TYPE_CHECKING` when it imports one, else `typing`'s (imported with them).
fn type_checking_block(b: &Parsed, imports: &[String]) -> String {
    let imports_flag = top_statements(b).into_iter().any(|s| {
        matches!(s.kind(), "import_statement" | "import_from_statement")
            && statement_binds(s, b, "TYPE_CHECKING")
    });
    let flag_taken = top_statements(b)
        .into_iter()
        .any(|s| statement_binds(s, b, "TYPE_CHECKING"));
    let (import, flag) = match (imports_flag, flag_taken) {
        (true, _) => ("", "TYPE_CHECKING"),
        (false, false) => ("from typing import TYPE_CHECKING\n", "TYPE_CHECKING"),
        (false, true) => ("import typing\n", "typing.TYPE_CHECKING"),
    };
    let body: Vec<String> = imports.iter().map(|l| format!("    {l}")).collect();
    format!("{import}\nif {flag}:\n{}", body.join("\n"))
}

/// The name must be free in the new module (but for an import of it from the old one, at
/// run time or for the type checker).
fn name_free_in_new(req: &Request, py: &PyProject) -> Result<(), MoveRefusal> {
    let b = req.to_parsed;
    if !req.to_exists {
        return Ok(());
    }
    // Its import for the type checker alone gives way too (removed as a site).
    let type_checking_import = type_checking_only(b, req.name, |_, stmt| {
        brings_from(stmt, b, req.name, &req.from.path, py)
    });
    for s in top_statements(b) {
        if statement_binds(s, b, req.name)
            && !brings_from(s, b, req.name, &req.from.path, py)
            && !(type_checking_import && is_type_checking_block(s, b))
        {
            return Err(MoveRefusal::NameTaken {
                name: req.name.to_string(),
                path: req.to.to_string(),
                line: s.start_position().row + 1,
            });
        }
    }
    Ok(())
}

/// Refuses a move after which the two modules would import each other at module level.
fn no_cycle(
    req: &Request,
    py: &PyProject,
    deps: &Dependencies,
    sites: &SiteWork,
    edits: &BTreeMap<String, Edits>,
) -> Result<(), MoveRefusal> {
    let a = req.from;
    let b_imports_a = !deps.from_old.is_empty()
        || keeps_importing(req.to_parsed, &a.path, req.name, py, edits.get(req.to));
    let a_imports_b_why = if let Some(line) = sites.uses_left.first() {
        Some(format!("uses of `{}` left in it, line {line}", req.name))
    } else if req.keep_reexport {
        Some("--keep-reexport leaves `from … import` of it there".to_string())
    } else {
        imports_module_at(a, req.to, py).map(|line| format!("an import at line {line}"))
    };
    match a_imports_b_why {
        Some(back) if b_imports_a => {
            let needs = if deps.from_old.is_empty() {
                vec![format!("(its existing import of {})", a.path)]
            } else {
                deps.from_old.clone()
            };
            Err(MoveRefusal::Cycle {
                from: a.path.clone(),
                to: req.to.to_string(),
                needs,
                back,
            })
        }
        _ => Ok(()),
    }
}

/// Refuses a move whose new imports close a cycle through other modules of the tree: an
/// importer now importing the new module, the new module importing what the moved code
/// needs, the old module importing the new one.
fn no_longer_cycle(
    req: &Request,
    py: &PyProject,
    deps: &Dependencies,
    sites: &SiteWork,
    edits: &BTreeMap<String, Edits>,
) -> Result<(), MoveRefusal> {
    let (a, to) = (&req.from.path, req.to.to_string());
    let had = |file: &str| -> Vec<String> {
        if file == req.to && !req.to_exists {
            Vec::new()
        } else {
            py.imports_on_load(file)
        }
    };
    let mut added: Vec<NewImport> = Vec::new();
    let b_had = had(req.to);
    if !sites.uses_left.is_empty() || req.keep_reexport {
        added.push(NewImport {
            importer: a.clone(),
            target: to.clone(),
            names: vec![req.name.to_string()],
        });
    }
    if !deps.from_old.is_empty() && !b_had.contains(a) {
        added.push(NewImport {
            importer: to.clone(),
            target: a.clone(),
            names: deps.from_old.clone(),
        });
    }
    for (item, stmt, _) in &deps.copied_items {
        let target = imported_file_on_load(*item, *stmt, req.from, py).or_else(|| {
            stmt.child_by_field_name("module_name")
                .and_then(|m| py.import_file_on_load(req.from, text(m, req.from)))
        });
        if let Some(target) = target.filter(|t| !b_had.contains(t)) {
            added.push(NewImport {
                importer: to.clone(),
                target,
                names: vec![bound_name(*item, req.from)],
            });
        }
    }
    for importer in &sites.new_importers {
        if !had(importer).contains(&to) {
            added.push(NewImport {
                importer: importer.clone(),
                target: to.clone(),
                names: vec![req.name.to_string()],
            });
        }
    }
    let removed: Vec<(String, String)> =
        if keeps_importing(req.to_parsed, a, req.name, py, edits.get(req.to)) {
            Vec::new()
        } else {
            vec![(to.clone(), a.clone())]
        };
    let mut graph = cycles::ImportGraph::new(py, &added, &removed);
    refuse_cycles(&mut graph, &added, |p| req.modules.dotted(p))
}

/// Whether a file other than the old module names the symbol (its later reassignments in
/// the old module would then not be seen by importers that load the new module first).
fn used_elsewhere(req: &Request) -> bool {
    req.scans.iter().any(|s| {
        s.path != req.from.path
            && s.occurrences
                .iter()
                .any(|o| matches!(&o.resolution, Some(Resolution::Symbol(id)) if id == req.primary))
    })
}

/// How the old module names the symbol it keeps using, when in the style of the file's
/// imports that is `b.f`: the file imports modules whole (`import m`), or nothing at all
/// (rope's way: `import b`, `b.f`), and its from-imports are not how it takes names of the
/// tree's modules; `None` for `from b import f` (a file that imports names with `from`, a
/// `--keep-reexport`, or a name `b` the file uses otherwise).
fn qualified_uses(req: &Request, py: &PyProject, sites: &SiteWork) -> Option<QualifiedUses> {
    let a = req.from;
    if req.keep_reexport || (sites.use_offsets.is_empty() && sites.rebind_offsets.is_empty()) {
        return None;
    }
    let imports: Vec<Node> = top_statements(a)
        .into_iter()
        .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
        .collect();
    let in_tree = |s: &Node| {
        import_items(*s)
            .iter()
            .any(|item| imported_file(*item, *s, a, py).is_some())
            || s.child_by_field_name("module_name")
                .is_some_and(|m| py.import_file(a, text(m, a)).is_some())
    };
    let plain = |s: &&Node| s.kind() == "import_statement";
    let from_tree = imports.iter().any(|s| !plain(&s) && in_tree(s));
    let plain_tree = imports.iter().filter(plain).any(in_tree);
    let from_any = imports.iter().any(|s| !plain(&s));
    let plain_any = imports.iter().any(|s| plain(&s));
    if (from_tree && !plain_tree) || (from_any && !plain_any) {
        return None;
    }
    // `global f`, `del f`: not an expression `b.f` can stand in.
    let expression_uses = sites.use_offsets.iter().all(|at| {
        a.tree
            .root_node()
            .descendant_for_byte_range(*at, at + req.name.len())
            .and_then(|n| n.parent())
            .is_some_and(|p| {
                !matches!(
                    p.kind(),
                    "global_statement" | "nonlocal_statement" | "delete_statement"
                )
            })
    });
    if !expression_uses {
        return None;
    }
    let dotted = req.modules.dotted(req.to);
    let imported = imports.iter().filter(plain).any(|s| {
        import_items(*s)
            .iter()
            .any(|item| item.kind() != "aliased_import" && text(*item, a) == dotted)
    });
    let top = dotted.split('.').next().unwrap_or(&dotted);
    if !imported && names_anywhere(a, top) {
        return None;
    }
    Some(QualifiedUses {
        reference: dotted.clone(),
        import: (!imported).then(|| format!("import {dotted}")),
    })
}

/// `b.f` for the uses left in the old module: the module's name there, and the import to add.
struct QualifiedUses {
    reference: String,
    import: Option<String>,
}

/// Whether an identifier spelled `name` stands anywhere in the module.
fn names_anywhere(m: &Parsed, name: &str) -> bool {
    let mut stack = vec![m.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && text(n, m) == name {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// The old module's changes: the block cut, the imports only it used dropped, `__all__`, and
/// the uses left (or `--keep-reexport`) importing it from the new module, or naming it there
/// (`b.f`) in the file's style.
fn old_module(
    req: &Request,
    deps: &Dependencies,
    sites: &SiteWork,
    qualified: Option<&QualifiedUses>,
    block: (usize, usize),
    planned: &mut Planned,
) {
    let a = req.from;
    let edits = planned.edits.entry(a.path.clone()).or_default();
    let (cut_start, cut_end) = tidy_cut(&a.text, block.0, block.1);
    edits.replace(cut_start, cut_end, "");
    for (item, stmt_node, line) in &deps.copied_items {
        let name = bound_name(*item, a);
        if still_used(a, &name, block) {
            continue;
        }
        remove_item(edits, a, *stmt_node, *item);
        planned.imports_removed.push(line.clone());
    }
    if !req.keep_reexport {
        remove_from_all(edits, a, req.name);
    }
    if let Some(q) = qualified {
        let starts = line_starts(&a.text);
        for at in sites.use_offsets.iter().chain(&sites.rebind_offsets) {
            edits.replace(
                *at,
                at + req.name.len(),
                format!("{}.{}", q.reference, req.name),
            );
            planned.sites.push(Site {
                path: a.path.clone(),
                line: line_of(&starts, *at),
                column: at - starts[line_of(&starts, *at) - 1] + 1,
                doctest: false,
            });
        }
        if let Some(import) = &q.import {
            insert_import(edits, a, import);
        }
    } else if !sites.uses_left.is_empty() || req.keep_reexport {
        let mut line = format!(
            "from {} import {}",
            req.modules.spell(&a.path, req.to, uses_relative_imports(a)),
            req.name
        );
        if sites.uses_left.is_empty() && !in_all(a, req.name) {
            line.push_str("  # noqa: F401 (re-exported)");
        }
        insert_import(edits, a, &line);
    }
}

/// The new module's changes: its imports, the moved block (before the first statement that
/// uses the symbol on import, else at the end), `__all__`; or its whole content when it is
/// new or empty.
fn new_module(req: &Request, moved: &str, planned: &mut Planned) {
    let b = req.to_parsed;
    let whole = || {
        let mut content: String = planned
            .imports_added
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(moved);
        content
    };
    if !req.to_exists {
        planned.created = Some(whole());
        return;
    }
    if b.text.trim().is_empty() {
        let content = whole();
        planned
            .edits
            .entry(req.to.to_string())
            .or_default()
            .replace(0, b.text.len(), content);
        return;
    }
    let edits = planned.edits.entry(req.to.to_string()).or_default();
    if !planned.imports_added.is_empty() {
        insert_import(edits, b, &planned.imports_added.join("\n"));
    }
    match first_top_level_use(req, b) {
        Some(at) => edits.insert(at, format!("{moved}\n\n")),
        None => {
            let sep = if b.text.ends_with("\n\n\n") {
                ""
            } else if b.text.ends_with("\n\n") {
                "\n"
            } else if b.text.ends_with('\n') {
                "\n\n"
            } else {
                "\n\n\n"
            };
            edits.insert(b.text.len(), format!("{sep}{moved}"));
        }
    }
    add_to_all(edits, b, req.name);
}

/// The top-level statement defining the symbol in its module, and the later top-level
/// statements that only reassign it (`foo += 3`, `foo = 4` after `foo = 123`: they stay,
/// writing the new module's `foo`, when the uses left are qualified; see [`plan`]).
fn definition<'t>(req: &Request<'t>) -> Result<(Node<'t>, Vec<Node<'t>>), MoveRefusal> {
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
    let (stmt, rebinds) = match binding.as_slice() {
        [] => {
            return Err(not_movable(
                a.path.clone(),
                Unmovable::NotDefinition("a `global` statement in a function".into()),
            ));
        }
        [one] => (*one, Vec::new()),
        [first, rest @ ..]
            if reassigns_only(*first, a, name, false)
                && rest.iter().all(|s| reassigns_only(*s, a, name, true)) =>
        {
            (*first, rest.to_vec())
        }
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
                    && asg
                        .child_by_field_name("right")
                        .is_none_or(|r| r.kind() != "assignment")
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
    Ok((stmt, rebinds))
}

/// Whether a top-level statement is one plain assignment to `name` alone (`name = …`), or
/// with `augmented`, an augmented one too (`name += …`).
fn reassigns_only(stmt: Node, m: &Parsed, name: &str, augmented: bool) -> bool {
    let Some(expr) = stmt
        .named_child(0)
        .filter(|_| stmt.kind() == "expression_statement" && stmt.named_child_count() == 1)
    else {
        return false;
    };
    let kind_fits =
        expr.kind() == "assignment" || (augmented && expr.kind() == "augmented_assignment");
    kind_fits
        && expr
            .child_by_field_name("left")
            .is_some_and(|l| l.kind() == "identifier" && text(l, m) == name)
        && expr
            .child_by_field_name("right")
            .is_none_or(|r| r.kind() != "assignment")
}
