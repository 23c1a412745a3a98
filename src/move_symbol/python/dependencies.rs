//! What the moved code takes from its old module: the names it looks up there (not bound
//! inside it), each one's import copied into the new module (respelled from there), or
//! imported from the old module when the old module defines it.

use super::super::modules::dir_of;
use super::Request;
use super::statements::{
    bound_name, brings_from, import_items, imported_file, statement_binds, text, top_statements,
};
use crate::rename::model::Parsed;
use crate::rename::python::{PyProject, binds, imports_star, is_builtin, scope_of};
use crate::report::{MoveRefusal, Unmovable};
use tree_sitter::Node;

/// What the moved code takes from its old module.
pub(super) struct Dependencies<'t> {
    /// Import statements to copy into the new module.
    pub(super) imports: Vec<String>,
    /// The old module's import items the moved code used: each item, its statement and its
    /// spelling (for the report).
    pub(super) copied_items: Vec<(Node<'t>, Node<'t>, String)>,
    /// Names the old module defines that the moved code uses (`from a import …`).
    pub(super) from_old: Vec<String>,
    /// Attributes of the new module (`b.x`, through the old module's `import b`) in the
    /// moved code: the ranges of the `b.` to drop.
    pub(super) self_attributes: Vec<(usize, usize)>,
    /// Imports the old module makes for the type checker alone (`if TYPE_CHECKING:`), as the
    /// new module writes them.
    pub(super) type_checking: Vec<String>,
}

/// The names the moved code looks up in its module, and where each comes from there.
pub(super) fn dependencies<'t>(
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
        type_checking: Vec::new(),
    };
    let not_movable = |why: Unmovable| MoveRefusal::NotMovable {
        symbol: req.name.to_string(),
        place: place.to_string(),
        why,
    };
    let free = free_names(stmt, a, req.name);
    let mut imports: Vec<(usize, String)> = Vec::new();
    for (name, uses) in free {
        let binding: Vec<Node> = top_statements(a)
            .into_iter()
            .filter(|s| s.id() != stmt.id() && statement_binds(*s, a, &name))
            .collect();
        if binding.is_empty() {
            if imports_star(a) && !is_builtin(&name) {
                return Err(not_movable(Unmovable::StarName(name)));
            }
            continue; // a builtin (or a name unbound before the move too)
        }
        let direct_imports: Vec<Node> = binding
            .iter()
            .copied()
            .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
            .collect();
        // Imported only for the type checker (`if TYPE_CHECKING:`): copied under one too.
        if let [only] = binding.as_slice()
            && let Some(items) = type_checking_imports(*only, a, &name)
        {
            for (item, stmt) in items {
                let line = import_line(item, stmt, a, req, py);
                let b = req.to_parsed;
                let bound_alike =
                    type_checked_in(b, &name, &line) || b_import_lines(b, &name).contains(&line);
                if !bound_alike && let Some(existing) = b_binding_line(b, &name) {
                    return Err(MoveRefusal::NameTaken {
                        name,
                        path: req.to.to_string(),
                        line: existing,
                    });
                }
                if !bound_alike && !deps.type_checking.contains(&line) {
                    deps.type_checking.push(line);
                }
            }
            continue;
        }
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
            // Defined in the old module: imported from it (unless the new module does already).
            let imported_already = top_statements(req.to_parsed)
                .into_iter()
                .any(|s| brings_from(s, req.to_parsed, &name, &a.path, py));
            if imported_already {
                continue;
            }
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
                import_dependency(req, py, (&name, &uses), (item, s), &mut deps, &mut imports)?;
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

/// One import item of the old module the moved code uses: dropped when it names the new
/// module or one of its names (`b.x` becomes `x`), kept when the new module imports it alike,
/// refused when the new module binds the name otherwise, else copied.
fn import_dependency<'t>(
    req: &Request<'t>,
    py: &PyProject,
    (name, uses): (&str, &[Node<'t>]),
    (item, s): (Node<'t>, Node<'t>),
    deps: &mut Dependencies<'t>,
    imports: &mut Vec<(usize, String)>,
) -> Result<(), MoveRefusal> {
    let a = req.from;
    let b = req.to_parsed;
    // A name the new module defines (`from b import helper`): its own there.
    let from_new = s.kind() == "import_from_statement"
        && s.child_by_field_name("module_name")
            .and_then(|m| py.import_file(a, text(m, a)))
            .as_deref()
            == Some(req.to);
    // An import of the new module itself: its names are the new module's own.
    let new_itself = imported_file(item, s, a, py).as_deref() == Some(req.to);
    if from_new || new_itself {
        if new_itself {
            for use_node in uses {
                deps.self_attributes
                    .push(own_attribute(req, name, *use_node)?);
            }
        }
        let line = plain_import_line(item, s, a);
        deps.copied_items.push((item, s, line));
        return Ok(());
    }
    let line = import_line(item, s, a, req, py);
    if let Some(existing) = b_binding_line(b, name) {
        if b_import_lines(b, name).contains(&line) {
            deps.copied_items.push((item, s, line));
            return Ok(());
        }
        // Imported alike for the type checker alone: imported when it runs too.
        if type_checking_only(b, name, |i, st| plain_import_line(i, st, b) == line) {
            imports.push((item.start_byte(), line.clone()));
            deps.copied_items.push((item, s, line));
            return Ok(());
        }
        return Err(MoveRefusal::NameTaken {
            name: name.to_string(),
            path: req.to.to_string(),
            line: existing,
        });
    }
    imports.push((item.start_byte(), line.clone()));
    deps.copied_items.push((item, s, line));
    Ok(())
}

/// The `b.` of `b.x` in the moved code (the new module's own `x` once there); a bare use of
/// the module `b` there is refused (a module cannot name itself by an import of itself).
fn own_attribute(req: &Request, name: &str, use_node: Node) -> Result<(usize, usize), MoveRefusal> {
    let attr = use_node.parent().filter(|p| {
        p.kind() == "attribute"
            && p.child_by_field_name("object")
                .is_some_and(|o| o.id() == use_node.id())
    });
    match attr {
        Some(attr) => Ok((
            attr.start_byte(),
            attr.child_by_field_name("attribute")
                .map_or(attr.end_byte(), |x| x.start_byte()),
        )),
        None => Err(MoveRefusal::NameTaken {
            name: name.to_string(),
            path: req.to.to_string(),
            line: use_node.start_position().row + 1,
        }),
    }
}

/// Whether a top-level statement is `if TYPE_CHECKING:` (or `typing.`/`t.TYPE_CHECKING`),
/// with no other branch.
pub(super) fn is_type_checking_block(stmt: Node, m: &Parsed) -> bool {
    stmt.kind() == "if_statement"
        && stmt.child_by_field_name("condition").is_some_and(|c| {
            text(c, m) == "TYPE_CHECKING" || text(c, m).ends_with(".TYPE_CHECKING")
        })
        && stmt.child_by_field_name("alternative").is_none()
}

/// The import items binding `name` directly in an `if TYPE_CHECKING:` block, with their
/// statements; `None` when the statement is no such block or binds it otherwise.
fn type_checking_imports<'t>(
    stmt: Node<'t>,
    m: &Parsed,
    name: &str,
) -> Option<Vec<(Node<'t>, Node<'t>)>> {
    if !is_type_checking_block(stmt, m) {
        return None;
    }
    let body = stmt.child_by_field_name("consequence")?;
    let mut cursor = body.walk();
    let mut items = Vec::new();
    for child in body.named_children(&mut cursor) {
        if !statement_binds(child, m, name) {
            continue;
        }
        if !matches!(child.kind(), "import_statement" | "import_from_statement") {
            return None;
        }
        items.extend(
            import_items(child)
                .into_iter()
                .filter(|i| bound_name(*i, m) == name)
                .map(|i| (i, child)),
        );
    }
    (!items.is_empty()).then_some(items)
}

/// Whether every top-level binding of `name` in `m` is an import item, for the type checker
/// alone, that `alike` accepts.
pub(super) fn type_checking_only(
    m: &Parsed,
    name: &str,
    alike: impl Fn(Node, Node) -> bool,
) -> bool {
    let binding: Vec<Node> = top_statements(m)
        .into_iter()
        .filter(|s| statement_binds(*s, m, name))
        .collect();
    !binding.is_empty()
        && binding.iter().all(|s| {
            type_checking_imports(*s, m, name)
                .is_some_and(|items| items.iter().all(|(item, stmt)| alike(*item, *stmt)))
        })
}

/// Whether the new module imports `name` for the type checker as `line` already.
fn type_checked_in(b: &Parsed, name: &str, line: &str) -> bool {
    top_statements(b)
        .into_iter()
        .filter(|s| is_type_checking_block(*s, b))
        .filter_map(|s| type_checking_imports(s, b, name))
        .flatten()
        .any(|(item, stmt)| plain_import_line(item, stmt, b) == line)
}

/// Whether a compound statement holds an import binding `name`.
pub(super) fn contains_import_of(stmt: Node, m: &Parsed, name: &str) -> bool {
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
pub(super) fn b_binding_line(b: &Parsed, name: &str) -> Option<usize> {
    top_statements(b)
        .into_iter()
        .find(|s| statement_binds(*s, b, name))
        .map(|s| s.start_position().row + 1)
}

/// The new module's top-level imports binding `name`, spelled as the move spells them.
pub(super) fn b_import_lines(b: &Parsed, name: &str) -> Vec<String> {
    top_statements(b)
        .into_iter()
        .filter(|s| matches!(s.kind(), "import_statement" | "import_from_statement"))
        .flat_map(|s| {
            import_items(s)
                .into_iter()
                .filter(|i| bound_name(*i, b) == name)
                .map(move |i| (i, s))
        })
        .map(|(i, s)| plain_import_line(i, s, b))
        .collect()
}

/// The line of a binding of `name` in the new module other than `from <old> import name`.
pub(super) fn b_binds_otherwise(req: &Request, py: &PyProject, name: &str) -> Option<usize> {
    let b = req.to_parsed;
    top_statements(b)
        .into_iter()
        .find(|s| statement_binds(*s, b, name) && !brings_from(*s, b, name, &req.from.path, py))
        .map(|s| s.start_position().row + 1)
}

/// An import item of the old module as the new module writes it: a relative module
/// respelled from the new module's place, an absolute one that would reach another file
/// from there spelled by its dotted name.
pub(super) fn import_line(
    item: Node,
    stmt: Node,
    a: &Parsed,
    req: &Request,
    py: &PyProject,
) -> String {
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
pub(super) fn plain_import_line(item: Node, stmt: Node, b: &Parsed) -> String {
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
pub(super) fn merge_from_imports(lines: &[String]) -> Vec<String> {
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
pub(super) fn free_names<'t>(
    stmt: Node<'t>,
    m: &Parsed,
    own: &str,
) -> Vec<(String, Vec<Node<'t>>)> {
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
pub(super) fn is_lookup(ident: Node) -> bool {
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
pub(super) fn looked_up_in_module(ident: Node, m: &Parsed, name: &str, stmt: Node) -> bool {
    let mut scope = scope_of(ident, m);
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
        scope = scope_of(s, m);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::merge_from_imports;

    #[test]
    fn imports_from_one_module_are_merged() {
        let lines = ["from m import a", "import os", "from m import b as c"].map(String::from);
        assert_eq!(
            merge_from_imports(&lines),
            ["from m import a, b as c", "import os"]
        );
    }
}
