//! Python's scopes and what each binds: the scope a name is looked up in first, a scope's
//! qualified name (the id of what it binds), and every way a scope binds a name (definitions,
//! assignments, parameters, `for` and `with` targets, imports, `global` / `nonlocal`).

use super::{PyModule, python_id, text};
use crate::rename::model::SymbolId;
use crate::rename::scan::ancestors;
use tree_sitter::Node;

/// One way a scope binds a name.
#[derive(Debug, Clone)]
pub(super) enum Bound {
    Function,
    Class,
    Param,
    /// A parameter or an assignment with an annotation (`p: Pool`, `app: Flask = …`): the
    /// annotation's byte range.
    Annotated(usize, usize),
    Assign,
    /// `name = value` or `with value as name`: the value's byte range, for the type of a local
    /// assigned once from a class call.
    Value(usize, usize),
    /// `with value as name`: the value's byte range (`name` is what its `__enter__` returns).
    Entered(usize, usize),
    ImportFrom {
        module: String,
        name: String,
        alias: bool,
    },
    Import {
        module: String,
    },
    Global,
    Nonlocal,
}

fn is_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "class_definition"
            | "lambda"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

/// The scope a node of `module` has its names looked up in first: the innermost function or
/// lambda whose body or parameter list holds it (defaults, annotations and decorators belong
/// outside), the class whose body holds it, the comprehension, or the module (`None`).
pub(crate) fn scope_of<'t>(node: Node<'t>, module: &'t PyModule) -> Option<Node<'t>> {
    let mut child = node;
    for parent in ancestors(node, module.tree.root_node()).into_iter().rev() {
        match parent.kind() {
            "function_definition" | "lambda" => {
                let in_body = parent
                    .child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id());
                let in_params = parent
                    .child_by_field_name("parameters")
                    .is_some_and(|p| p.id() == child.id())
                    && is_parameter_name(node);
                if in_body || in_params {
                    return Some(parent);
                }
            }
            "class_definition"
                if parent
                    .child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id()) =>
            {
                return Some(parent);
            }
            "class_definition" => {}
            kind if is_scope(kind) => return Some(parent),
            _ => {}
        }
        child = parent;
    }
    None
}

/// Whether an identifier is a parameter's own name (not a default value or annotation).
fn is_parameter_name(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    match parent.kind() {
        "parameters" | "lambda_parameters" => true,
        "default_parameter" | "typed_default_parameter" => parent
            .child_by_field_name("name")
            .is_some_and(|n| n.id() == node.id()),
        "typed_parameter" => parent.named_child(0).is_some_and(|n| n.id() == node.id()),
        "list_splat_pattern" | "dictionary_splat_pattern" => parent.parent().is_some_and(|g| {
            matches!(
                g.kind(),
                "parameters" | "lambda_parameters" | "typed_parameter"
            )
        }),
        _ => false,
    }
}

/// The qualified name of a scope: the names of the classes and functions around it, outermost
/// first, joined by `.` (a lambda or comprehension is `<lambda>` / `<comp>`).
pub(crate) fn qual_of(scope: Node, module: &PyModule) -> String {
    let mut parts = Vec::new();
    let mut at = Some(scope);
    while let Some(node) = at {
        match node.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    parts.push(text(name, module).to_string());
                }
            }
            "lambda" => parts.push(format!("<lambda@{}>", node.start_byte())),
            kind if is_scope(kind) => parts.push(format!("<comp@{}>", node.start_byte())),
            _ => {}
        }
        at = node.parent();
    }
    parts.reverse();
    parts.join(".")
}

/// The id of name `name` bound in `scope` (None: the module).
pub(crate) fn binding_id(module: &PyModule, scope: Option<Node>, name: &str) -> SymbolId {
    python_id(&module.path, binding_qual(module, scope, name))
}

/// The qualified name, in its module, of name `name` bound in `scope` (None: the module).
pub(super) fn binding_qual(module: &PyModule, scope: Option<Node>, name: &str) -> String {
    match scope {
        None => name.to_string(),
        Some(s) if s.kind() == "class_definition" => format!("{}.{name}", qual_of(s, module)),
        Some(s) => format!("{}::{name}", qual_of(s, module)),
    }
}

/// Every way `scope` (None: the module) binds `name`, in source order.
pub(super) fn bindings_in(module: &PyModule, scope: Option<Node>, name: &str) -> Vec<Bound> {
    let mut out = Vec::new();
    let root = module.tree.root_node();
    match scope {
        None => collect(root, module, name, &mut out),
        Some(s) => {
            if let Some(params) = s.child_by_field_name("parameters") {
                params_binding(params, module, name, &mut out);
            }
            match s.kind() {
                "function_definition" | "class_definition" | "lambda" => {
                    if let Some(body) = s.child_by_field_name("body") {
                        collect(body, module, name, &mut out);
                    }
                }
                _ => {
                    // A comprehension: its `for` targets.
                    let mut cursor = s.walk();
                    for clause in s.named_children(&mut cursor) {
                        if clause.kind() == "for_in_clause"
                            && let Some(left) = clause.child_by_field_name("left")
                            && target_binds(left, module, name)
                        {
                            out.push(Bound::Assign);
                        }
                    }
                }
            }
        }
    }
    out
}

pub(super) fn params_binding(params: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut stack = vec![params];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && text(n, module) == name && is_parameter_name(n) {
            let annotation = n
                .parent()
                .filter(|p| matches!(p.kind(), "typed_parameter" | "typed_default_parameter"))
                .and_then(|p| p.child_by_field_name("type"));
            out.push(match annotation {
                Some(a) => Bound::Annotated(a.start_byte(), a.end_byte()),
                None => Bound::Param,
            });
        }
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            if !matches!(c.kind(), "lambda") {
                stack.push(c);
            }
        }
    }
}

/// Whether an assignment target binds `name` (a name, or a name inside a tuple/list pattern).
fn target_binds(target: Node, module: &PyModule, name: &str) -> bool {
    match target.kind() {
        "identifier" => text(target, module) == name,
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
                .any(|c| target_binds(c, module, name))
        }
        _ => false,
    }
}

/// Walks a scope's body for bindings of `name`, not entering nested scopes (whose own names
/// bind here).
fn collect(node: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" | "class_definition" => {
                if child
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, module) == name)
                {
                    out.push(if child.kind() == "class_definition" {
                        Bound::Class
                    } else {
                        Bound::Function
                    });
                }
                // Decorators and defaults are evaluated here, but bind nothing.
            }
            "decorated_definition" => collect(child, module, name, out),
            "lambda" => {}
            kind if is_scope(kind) => {}
            "assignment" | "augmented_assignment" => {
                let left = child.child_by_field_name("left");
                if left.is_some_and(|l| target_binds(l, module, name)) {
                    let plain = child.kind() == "assignment"
                        && left.is_some_and(|l| l.kind() == "identifier");
                    // `name: C = value`: the declared class is the name's, whatever the value
                    // (`current_app: Flask = LocalProxy(…)`), as a type checker takes it.
                    let annotation = child.child_by_field_name("type").filter(|_| plain);
                    let value = child.child_by_field_name("right").filter(|_| plain);
                    out.push(match (annotation, value) {
                        (Some(a), _) => Bound::Annotated(a.start_byte(), a.end_byte()),
                        (None, Some(v)) => Bound::Value(v.start_byte(), v.end_byte()),
                        (None, None) => Bound::Assign,
                    });
                }
                collect(child, module, name, out);
            }
            "for_statement" | "for_in_clause" => {
                if child
                    .child_by_field_name("left")
                    .is_some_and(|l| target_binds(l, module, name))
                {
                    out.push(Bound::Assign);
                }
                collect(child, module, name, out);
            }
            "named_expression" => {
                if child
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, module) == name)
                {
                    out.push(Bound::Assign);
                }
                collect(child, module, name, out);
            }
            "as_pattern" => {
                let alias = child.child_by_field_name("alias");
                if alias.is_some_and(|a| target_binds(a, module, name)) {
                    // `with Session() as s`: `s` is what `__enter__` returns, the instance
                    // itself for the classes that return self; only a plain name counts.
                    let value = child
                        .named_child(0)
                        .filter(|_| alias.is_some_and(|a| a.named_child_count() <= 1))
                        .filter(|v| v.kind() == "call");
                    out.push(match value {
                        Some(v) if child.parent().is_some_and(|p| p.kind() == "with_item") => {
                            Bound::Entered(v.start_byte(), v.end_byte())
                        }
                        _ => Bound::Assign,
                    });
                }
                collect(child, module, name, out);
            }
            "except_clause" => {
                // `except E as name`: the identifier after `as`.
                let mut c = child.walk();
                let mut after_as = false;
                for part in child.children(&mut c) {
                    if part.kind() == "as" {
                        after_as = true;
                    } else if after_as && part.kind() == "identifier" {
                        if text(part, module) == name {
                            out.push(Bound::Assign);
                        }
                        after_as = false;
                    }
                }
                collect(child, module, name, out);
            }
            "global_statement" | "nonlocal_statement" => {
                let mut c = child.walk();
                if child
                    .named_children(&mut c)
                    .any(|n| n.kind() == "identifier" && text(n, module) == name)
                {
                    out.push(if child.kind() == "global_statement" {
                        Bound::Global
                    } else {
                        Bound::Nonlocal
                    });
                }
            }
            "import_statement" => import_binding(child, module, name, out),
            "import_from_statement" => import_from_binding(child, module, name, out),
            _ => collect(child, module, name, out),
        }
    }
}

fn import_binding(stmt: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut cursor = stmt.walk();
    for item in stmt.children_by_field_name("name", &mut cursor) {
        match item.kind() {
            "aliased_import" => {
                if item
                    .child_by_field_name("alias")
                    .is_some_and(|a| text(a, module) == name)
                    && let Some(dotted) = item.child_by_field_name("name")
                {
                    out.push(Bound::Import {
                        module: text(dotted, module).to_string(),
                    });
                }
            }
            _ => {
                let dotted = text(item, module);
                if dotted.split('.').next() == Some(name) {
                    out.push(Bound::Import {
                        module: name.to_string(),
                    });
                }
            }
        }
    }
}

fn import_from_binding(stmt: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let Some(from) = stmt.child_by_field_name("module_name") else {
        return;
    };
    let from = text(from, module).to_string();
    let mut cursor = stmt.walk();
    for item in stmt.children_by_field_name("name", &mut cursor) {
        let (original, local, alias) = match item.kind() {
            "aliased_import" => {
                let Some(original) = item.child_by_field_name("name") else {
                    continue;
                };
                let Some(alias) = item.child_by_field_name("alias") else {
                    continue;
                };
                // `import x as x` (a package's explicit re-export) is no alias: the name is
                // the imported one, renamed with it.
                let (original, alias) = (text(original, module), text(alias, module));
                (original, alias, original != alias)
            }
            _ => (text(item, module), text(item, module), false),
        };
        if local == name {
            out.push(Bound::ImportFrom {
                module: from.clone(),
                name: original.to_string(),
                alias,
            });
        }
    }
}

/// Whether the module has a `from x import *` (a name it does not bind may come from it).
pub(super) fn has_wildcard(module: &PyModule) -> bool {
    let root = module.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|stmt| {
        stmt.kind() == "import_from_statement" && {
            let mut c = stmt.walk();
            stmt.named_children(&mut c)
                .any(|n| n.kind() == "wildcard_import")
        }
    })
}
