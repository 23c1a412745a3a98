//! Python statements read as a move needs them: the module's top-level statements, what
//! each binds, an import's items and the name each binds, the file an import reaches, the
//! module's `__all__` and plain string literals.

use crate::rename::model::Parsed;
use crate::rename::python::PyProject;
use tree_sitter::Node;

/// A node's text.
pub(super) fn text<'t>(node: Node, parsed: &'t Parsed) -> &'t str {
    &parsed.text[node.byte_range()]
}

/// The module's top-level statements.
pub(super) fn top_statements(m: &Parsed) -> Vec<Node<'_>> {
    let root = m.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// Whether a top-level statement binds `name` in the module's scope (through its nested
/// `if`/`try`/`for`/`with` blocks, not into functions or classes).
pub(super) fn statement_binds(stmt: Node, m: &Parsed, name: &str) -> bool {
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

pub(super) fn children_bind(node: Node, m: &Parsed, name: &str) -> bool {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|c| statement_binds(c, m, name))
}

/// Whether an assignment target binds `name` (a name, or one inside a tuple or list).
pub(super) fn target_binds(target: Node, m: &Parsed, name: &str) -> bool {
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
pub(super) fn import_items(stmt: Node) -> Vec<Node> {
    let mut cursor = stmt.walk();
    stmt.children_by_field_name("name", &mut cursor).collect()
}

/// The name an import item binds: its alias, the name imported, or a dotted import's first
/// part.
pub(super) fn bound_name(item: Node, m: &Parsed) -> String {
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

/// Whether `stmt` of `m` binds `name` by `from <the old module> import name` (among other
/// names or not).
pub(super) fn brings_from(stmt: Node, m: &Parsed, name: &str, old: &str, py: &PyProject) -> bool {
    stmt.kind() == "import_from_statement"
        && stmt
            .child_by_field_name("module_name")
            .and_then(|n| py.import_file(m, text(n, m)))
            .is_some_and(|f| f == old)
        && import_items(stmt)
            .iter()
            .any(|i| i.kind() != "aliased_import" && text(*i, m) == name)
}

/// Whether `stmt` of `m` is `from <the old module> import name` and nothing more.
pub(super) fn imports_only(stmt: Node, m: &Parsed, name: &str, old: &str, py: &PyProject) -> bool {
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
pub(super) fn find_global(stmt: Node, m: &Parsed) -> Option<String> {
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

/// The file an import item names (its module, or for `from m import x` the module `m`).
pub(super) fn imported_file(item: Node, stmt: Node, m: &Parsed, py: &PyProject) -> Option<String> {
    py.import_file(m, &imported_name(item, stmt, m)?)
}

/// [`imported_file`] as Python runs the import (for the import cycles).
pub(super) fn imported_file_on_load(
    item: Node,
    stmt: Node,
    m: &Parsed,
    py: &PyProject,
) -> Option<String> {
    py.import_file_on_load(m, &imported_name(item, stmt, m)?)
}

/// The dotted name an import item imports (`a.b`; `m.x` for `from m import x`).
fn imported_name(item: Node, stmt: Node, m: &Parsed) -> Option<String> {
    let original = if item.kind() == "aliased_import" {
        item.child_by_field_name("name")?
    } else {
        item
    };
    if stmt.kind() == "import_statement" {
        return Some(text(original, m).to_string());
    }
    let from = text(stmt.child_by_field_name("module_name")?, m);
    Some(if from.ends_with('.') {
        format!("{from}{}", text(original, m))
    } else {
        format!("{from}.{}", text(original, m))
    })
}

/// Whether the module spells any import relatively (`from .x import y`).
pub(super) fn uses_relative_imports(m: &Parsed) -> bool {
    top_statements(m).iter().any(|s| {
        s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .is_some_and(|n| text(n, m).starts_with('.'))
    })
}

/// The module's `from __future__ import …` statements, as written.
pub(super) fn future_imports(m: &Parsed) -> Vec<String> {
    top_statements(m)
        .into_iter()
        .filter(|s| s.kind() == "future_import_statement")
        .map(|s| text(s, m).to_string())
        .collect()
}

/// Whether an import statement imports the file `target` (or a name from it).
pub(super) fn imports_file(stmt: Node, m: &Parsed, target: &str, py: &PyProject) -> bool {
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

/// The statement holding a node (itself when it is one).
pub(super) fn statement_of(node: Node) -> Node {
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
pub(super) fn all_list(m: &Parsed) -> Option<Node<'_>> {
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
pub(super) fn all_items<'t>(list: Node<'t>, m: &'t Parsed) -> Vec<(Node<'t>, &'t str)> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .map(|c| (c, string_content(c, m).unwrap_or("")))
        .collect()
}

/// A plain string literal's content.
pub(super) fn string_content<'t>(node: Node, m: &'t Parsed) -> Option<&'t str> {
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
pub(super) fn in_all(m: &Parsed, name: &str) -> bool {
    all_list(m).is_some_and(|l| all_items(l, m).iter().any(|(_, s)| *s == name))
}
