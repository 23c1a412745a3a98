//! JavaScript and TypeScript as a signature change reads them: a function's parameters (a
//! `function` declaration, or an arrow function or function expression a `const` holds), a
//! call's arguments, and what an occurrence of the function's name is. Every parameter is
//! ordinary but a rest parameter (`...args`); arguments are positional, a spread (`...xs`)
//! unknown. A method, a TypeScript overload, a parameter property (`private x`), a `this`
//! parameter and a destructured parameter are not read: the change is refused.

use super::binding::{Arg, ArgKind};
use super::layout::List;
use super::params::{Entry, Origin, Param, Signature};
use super::syntax::{Def, DefProblem, Use};
use crate::report::{SiteProblem, UnsupportedDefinition};
use std::ops::Range;
use tree_sitter::Node;

/// The node holding a function's parameters: the `function_declaration`, or the arrow
/// function or function expression a declarator holds.
pub(crate) fn function_of(definition: Node) -> Node {
    if definition.kind() == "variable_declarator" {
        return definition
            .child_by_field_name("value")
            .unwrap_or(definition);
    }
    definition
}

/// Reads a function's parameters.
pub(crate) fn read_def<'t>(definition: Node<'t>, source: &str) -> Result<Def<'t>, DefProblem> {
    let function = function_of(definition);
    match function.kind() {
        "function_signature" => {
            return Err(DefProblem::Unsupported(UnsupportedDefinition::Overload));
        }
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            return Err(DefProblem::Unsupported(UnsupportedDefinition::Method));
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_expression"
        | "function"
        | "generator_function"
        | "arrow_function" => {}
        _ => return Err(DefProblem::Unreadable),
    }
    if let Some(sibling) = function.prev_named_sibling().or_else(|| {
        function
            .parent()
            .filter(|p| p.kind() == "export_statement")
            .and_then(|p| p.prev_named_sibling())
    }) {
        // `function f(a: string): void;` before the body: an overload.
        let inner = match sibling.kind() {
            "export_statement" => sibling.named_child(0).unwrap_or(sibling),
            _ => sibling,
        };
        let same_name = |n: Node| {
            n.child_by_field_name("name")
                .zip(function.child_by_field_name("name"))
                .is_some_and(|(a, b)| source[a.byte_range()] == source[b.byte_range()])
        };
        if inner.kind() == "function_signature" && same_name(inner) {
            return Err(DefProblem::Unsupported(UnsupportedDefinition::Overload));
        }
    }
    // `x => …`: one parameter and no brackets of its own.
    if let Some(single) = function.child_by_field_name("parameter") {
        let range = single.byte_range();
        let entry = Entry::Param(Param {
            name: source[range.clone()].to_string(),
            stars: 0,
            default: None,
            origin: Origin::Old(0),
        });
        return Ok(Def {
            node: definition,
            signature: Signature::read(vec![entry], false).by_position(),
            places: vec![(range.clone(), Some(range.clone()))],
            list: List {
                inside: range.clone(),
                items: vec![range],
                parenthesize: true,
            },
            comments: false,
        });
    }
    let params = function
        .child_by_field_name("parameters")
        .ok_or(DefProblem::Unreadable)?;
    let mut entries = Vec::new();
    let mut places = Vec::new();
    let mut comments = false;
    let mut cursor = params.walk();
    for child in params.named_children(&mut cursor) {
        if child.kind() == "comment" {
            comments = true;
            continue;
        }
        let (entry, name) = read_param(child, source)?;
        entries.push(entry);
        places.push((child.byte_range(), Some(name)));
    }
    let list = List {
        inside: params.start_byte() + 1..params.end_byte().saturating_sub(1),
        items: places.iter().map(|(r, _)| r.clone()).collect(),
        parenthesize: false,
    };
    Ok(Def {
        node: definition,
        signature: Signature::read(entries, false).by_position(),
        places,
        list,
        comments,
    })
}

/// One parameter and its name's place.
fn read_param(node: Node, source: &str) -> Result<(Entry, Range<usize>), DefProblem> {
    let param = |name: Node, stars: u8, default: Option<String>| {
        let entry = Entry::Param(Param {
            name: source[name.byte_range()].to_string(),
            stars,
            default,
            origin: Origin::Old(0),
        });
        Ok((entry, name.byte_range()))
    };
    fn rest(pattern: Node) -> Result<Node, DefProblem> {
        let mut cursor = pattern.walk();
        let found = pattern
            .named_children(&mut cursor)
            .find(|c| c.kind() == "identifier");
        found.ok_or(DefProblem::Unreadable)
    }
    match node.kind() {
        "identifier" => param(node, 0, None),
        "assignment_pattern" => {
            let left = node
                .child_by_field_name("left")
                .filter(|l| l.kind() == "identifier");
            let right = node.child_by_field_name("right");
            param(
                left.ok_or(DefProblem::Unreadable)?,
                0,
                right.map(|r| source[r.byte_range()].to_string()),
            )
        }
        "rest_pattern" => param(rest(node)?, 1, None),
        "required_parameter" | "optional_parameter" => {
            let mut cursor = node.walk();
            if node.children(&mut cursor).any(|c| {
                matches!(
                    c.kind(),
                    "accessibility_modifier" | "override_modifier" | "readonly" | "decorator"
                )
            }) {
                // A parameter property declares a field too: renaming or removing it is a
                // change of the class.
                return Err(DefProblem::Unsupported(UnsupportedDefinition::Unreadable));
            }
            let pattern = node
                .child_by_field_name("pattern")
                .ok_or(DefProblem::Unreadable)?;
            // `a?` is optional: as good as a default for the order of parameters.
            let default = node
                .child_by_field_name("value")
                .map(|v| source[v.byte_range()].to_string())
                .or_else(|| (node.kind() == "optional_parameter").then(|| "undefined".into()));
            match pattern.kind() {
                "identifier" => param(pattern, 0, default),
                "rest_pattern" => param(rest(pattern)?, 1, None),
                _ => Err(DefProblem::Unreadable),
            }
        }
        _ => Err(DefProblem::Unreadable),
    }
}

/// A call's arguments, their list, and whether a comment stands among them.
pub(crate) fn read_call(call: Node) -> Option<(Vec<Arg>, List, bool)> {
    let arguments = call.child_by_field_name("arguments")?;
    if arguments.kind() != "arguments" {
        return None; // a tagged template
    }
    let mut args = Vec::new();
    let mut comments = false;
    let mut cursor = arguments.walk();
    for child in arguments.named_children(&mut cursor) {
        let range = child.byte_range();
        let kind = match child.kind() {
            "comment" => {
                comments = true;
                continue;
            }
            "spread_element" => ArgKind::Star,
            _ => ArgKind::Positional,
        };
        args.push(Arg {
            kind,
            value: range.clone(),
            range,
        });
    }
    let list = List {
        inside: arguments.start_byte() + 1..arguments.end_byte().saturating_sub(1),
        items: args.iter().map(|a| a.range.clone()).collect(),
        parenthesize: false,
    };
    Some((args, list, comments))
}

/// What the identifier `ident` is, as a use of a function.
pub(crate) fn classify<'t>(ident: Node<'t>) -> Use<'t> {
    let Some(parent) = ident.parent() else {
        return Use::Problem(SiteProblem::Value);
    };
    let is = |n: Option<Node>| n.is_some_and(|n| n.id() == ident.id());
    match parent.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature"
            if is(parent.child_by_field_name("name")) =>
        {
            Use::Definition(parent)
        }
        "method_definition" | "method_signature" | "abstract_method_signature"
            if is(parent.child_by_field_name("name")) =>
        {
            Use::Definition(parent)
        }
        "variable_declarator" if is(parent.child_by_field_name("name")) => {
            let holds_function = parent.child_by_field_name("value").is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function" | "generator_function"
                )
            });
            if holds_function {
                Use::Definition(parent)
            } else {
                Use::Problem(SiteProblem::Value)
            }
        }
        "call_expression" if is(parent.child_by_field_name("function")) => Use::Call {
            call: parent,
            receiver: None,
        },
        "member_expression" if is(parent.child_by_field_name("property")) => {
            match parent.parent().filter(|c| {
                c.kind() == "call_expression"
                    && c.child_by_field_name("function")
                        .is_some_and(|f| f.id() == parent.id())
            }) {
                Some(call) => Use::Call {
                    call,
                    receiver: parent.child_by_field_name("object"),
                },
                None => Use::Problem(SiteProblem::Value),
            }
        }
        "import_specifier" | "export_specifier" | "import_clause" | "namespace_import"
        | "type_query" => Use::Harmless,
        _ => Use::Problem(SiteProblem::Value),
    }
}

/// Identifiers spelled `name` in a function (its parameters' defaults and types, its body,
/// nested functions' too), by byte offset: a parameter may be named by the ones after it
/// (`(a, b = a)`, `b: typeof a`).
pub(crate) fn body_identifiers(definition: Node, source: &str, name: &str) -> Vec<usize> {
    let function = function_of(definition);
    let mut found = Vec::new();
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "identifier" | "shorthand_property_identifier")
            && &source[n.byte_range()] == name
        {
            found.push(n.start_byte());
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    found.sort_unstable();
    found
}

/// Where a TypeScript type predicate of the function's return type names the parameter
/// `name` (`value is Error`, `asserts value`): a name no resolver binds, but the parameter's.
pub(crate) fn predicate_names(definition: Node, source: &str, name: &str) -> Vec<usize> {
    let Some(returns) = function_of(definition).child_by_field_name("return_type") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut stack = vec![returns];
    while let Some(n) = stack.pop() {
        let in_predicate = n
            .parent()
            .is_some_and(|p| matches!(p.kind(), "type_predicate" | "asserts"));
        if n.kind() == "identifier" && in_predicate && &source[n.byte_range()] == name {
            found.push(n.start_byte());
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    found.sort_unstable();
    found
}

/// Lines where `name` stands as a name of code in a function (not a member's or a key's).
pub(crate) fn name_lines(
    definition: Node,
    source: &str,
    name: &str,
    starts: &[usize],
) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut stack = vec![function_of(definition)];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "identifier"
                | "shorthand_property_identifier"
                | "shorthand_property_identifier_pattern"
        ) && &source[n.byte_range()] == name
        {
            lines.push(lancet_core::line_of(starts, n.start_byte()));
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The new name at a use of a renamed parameter: a shorthand property (`{ total }`) keeps its
/// key (`{ total: sum }`).
pub(crate) fn renamed_use(tree: &tree_sitter::Tree, at: usize, old: &str, new: &str) -> String {
    let shorthand = tree
        .root_node()
        .descendant_for_byte_range(at, at + old.len())
        .is_some_and(|n| n.kind() == "shorthand_property_identifier");
    if shorthand {
        format!("{old}: {new}")
    } else {
        new.to_string()
    }
}

/// Whether `code` is one JavaScript (or TypeScript) expression: `f(CODE)` parses with one
/// argument that is no spread.
pub(crate) fn is_expression(code: &str, typescript: bool) -> bool {
    let name = if typescript {
        "typescript"
    } else {
        "javascript"
    };
    let Some(grammar) = lancet_syntax::languages::languages()
        .iter()
        .find(|e| e.name == name)
        .and_then(lancet_syntax::languages::grammar)
    else {
        return false;
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return false;
    }
    let wrapped = format!("f({code});\n");
    let Some(tree) = parser.parse(&wrapped, None) else {
        return false;
    };
    let root = tree.root_node();
    let args = root
        .named_child(0)
        .and_then(|s| s.named_child(0))
        .filter(|c| c.kind() == "call_expression")
        .and_then(|c| c.child_by_field_name("arguments"));
    !root.has_error()
        && args.is_some_and(|a| {
            a.named_child_count() == 1
                && a.named_child(0)
                    .is_some_and(|v| !matches!(v.kind(), "spread_element" | "comment"))
        })
}
