//! Python's syntax as a signature change reads it: a `def`'s parameters (each entry's place,
//! name and default, the method's receiver, its decorators), a call's arguments, and what an
//! occurrence of the function's name is (its definition, a call, an import, a use as a value).

use super::binding::{Arg, ArgKind};
use super::layout::List;
use super::params::{Entry, Origin, Param, Signature};
use super::syntax::{Def, DefProblem, Use};
use crate::rename::python::decorated_as;
use crate::report::{SiteProblem, UnsupportedDefinition};
use std::ops::Range;
use tree_sitter::Node;

/// Decorators that hand the function's own parameters to its calls: its signature is the
/// calls' (anything else may change how it is called).
const TRANSPARENT: &[&str] = &[
    "staticmethod",
    "classmethod",
    "abstractmethod",
    "abc.abstractmethod",
    "override",
    "typing.override",
    "typing_extensions.override",
    "cache",
    "functools.cache",
    "lru_cache",
    "functools.lru_cache",
    "wraps",
    "functools.wraps",
    "contextmanager",
    "contextlib.contextmanager",
    "asynccontextmanager",
    "contextlib.asynccontextmanager",
];

/// Reads a `function_definition`.
pub(crate) fn read_def<'t>(node: Node<'t>, source: &str) -> Result<Def<'t>, DefProblem> {
    for decorator in decorators(node, source) {
        if decorator == "overload" || decorator == "typing.overload" {
            return Err(DefProblem::Unsupported(UnsupportedDefinition::Overload));
        }
        let called = decorator.split('(').next().unwrap_or_default().trim();
        if !TRANSPARENT.contains(&called) {
            return Err(DefProblem::Unsupported(UnsupportedDefinition::Decorator(
                decorator,
            )));
        }
    }
    let params = node
        .child_by_field_name("parameters")
        .ok_or(DefProblem::Unreadable)?;
    let is_static = decorated_as(node, "staticmethod", source);
    let in_class = holder_class(node).is_some();
    let mut entries = Vec::new();
    let mut places = Vec::new();
    let mut comments = false;
    let mut cursor = params.walk();
    for child in params.named_children(&mut cursor) {
        if child.kind() == "comment" {
            comments = true;
            continue;
        }
        let (entry, name) = read_entry(child, source).ok_or(DefProblem::Unreadable)?;
        entries.push(entry);
        places.push((child.byte_range(), name));
    }
    let inside = params.start_byte() + 1..params.end_byte().saturating_sub(1);
    let list = List {
        inside,
        items: places.iter().map(|(r, _)| r.clone()).collect(),
        parenthesize: false,
    };
    let receiver =
        in_class && !is_static && matches!(entries.first(), Some(Entry::Param(p)) if p.stars == 0);
    Ok(Def {
        node,
        signature: Signature::read(entries, receiver),
        places,
        list,
        comments,
    })
}

/// One entry of a parameter list, and its name's place.
fn read_entry(node: Node, source: &str) -> Option<(Entry, Option<Range<usize>>)> {
    let text = |n: Node| source[n.byte_range()].to_string();
    let param = |name: Node, stars: u8, default: Option<Node>| {
        let entry = Entry::Param(Param {
            name: text(name),
            stars,
            default: default.map(text),
            origin: Origin::Old(0),
        });
        Some((entry, Some(name.byte_range())))
    };
    match node.kind() {
        "identifier" => param(node, 0, None),
        "keyword_separator" => Some((Entry::Star, None)),
        "positional_separator" => Some((Entry::Slash, None)),
        "list_splat_pattern" | "dictionary_splat_pattern" => {
            let stars = if node.kind() == "list_splat_pattern" {
                1
            } else {
                2
            };
            param(
                node.named_child(0).filter(|n| n.kind() == "identifier")?,
                stars,
                None,
            )
        }
        "typed_parameter" => {
            let inner = node.named_child(0)?;
            match inner.kind() {
                "identifier" => param(inner, 0, None),
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    let stars = if inner.kind() == "list_splat_pattern" {
                        1
                    } else {
                        2
                    };
                    param(inner.named_child(0)?, stars, None)
                }
                _ => None,
            }
        }
        "default_parameter" | "typed_default_parameter" => {
            let name = node
                .child_by_field_name("name")
                .filter(|n| n.kind() == "identifier")?;
            param(name, 0, node.child_by_field_name("value"))
        }
        _ => None,
    }
}

/// The decorators of a definition, as written (without `@`).
fn decorators(function: Node, source: &str) -> Vec<String> {
    let Some(holder) = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return Vec::new();
    };
    let mut cursor = holder.walk();
    holder
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .map(|e| {
            source[e.byte_range()]
                .split_whitespace()
                .collect::<String>()
        })
        .collect()
}

/// The class whose body holds a definition directly (through its decorators).
pub(crate) fn holder_class(function: Node) -> Option<Node> {
    let mut up = function.parent()?;
    if up.kind() == "decorated_definition" {
        up = up.parent()?;
    }
    let class = up.parent()?;
    (up.kind() == "block" && class.kind() == "class_definition").then_some(class)
}

/// A call's arguments, their list, and whether a comment stands among them. A generator
/// expression as the only argument (`f(x for x in xs)`) is one positional argument.
pub(crate) fn read_call(call: Node, source: &str) -> Option<(Vec<Arg>, List, bool)> {
    let arguments = call.child_by_field_name("arguments")?;
    if arguments.kind() == "generator_expression" {
        let range = arguments.byte_range();
        let arg = Arg {
            kind: ArgKind::Positional,
            range: range.clone(),
            value: range.clone(),
        };
        let list = List {
            inside: range.clone(),
            items: vec![range],
            parenthesize: true,
        };
        return Some((vec![arg], list, false));
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
            "list_splat" => ArgKind::Star,
            "dictionary_splat" => ArgKind::DoubleStar,
            "parenthesized_expression"
                if child
                    .named_child(0)
                    .is_some_and(|c| c.kind() == "list_splat") =>
            {
                ArgKind::Star
            }
            "keyword_argument" => {
                let name = child.child_by_field_name("name")?;
                let value = child.child_by_field_name("value")?;
                args.push(Arg {
                    kind: ArgKind::Keyword(source[name.byte_range()].to_string()),
                    range,
                    value: value.byte_range(),
                });
                continue;
            }
            _ => ArgKind::Positional,
        };
        args.push(Arg {
            kind,
            value: range.clone(),
            range,
        });
    }
    let inside = arguments.start_byte() + 1..arguments.end_byte().saturating_sub(1);
    let items = args.iter().map(|a| a.range.clone()).collect();
    let list = List {
        inside,
        items,
        parenthesize: false,
    };
    Some((args, list, comments))
}

/// What the identifier `ident` is, as a use of a function (`class_name`: as a use of a class
/// whose constructor changes, where a type's uses in annotations, bases and type tests are
/// harmless).
pub(crate) fn classify<'t>(ident: Node<'t>, source: &str, class_name: bool) -> Use<'t> {
    let Some(parent) = ident.parent() else {
        return Use::Problem(SiteProblem::Value);
    };
    let is = |n: Option<Node>| n.is_some_and(|n| n.id() == ident.id());
    match parent.kind() {
        "function_definition" if is(parent.child_by_field_name("name")) => {
            return Use::Definition(parent);
        }
        "class_definition" if is(parent.child_by_field_name("name")) => return Use::Harmless,
        "call" if is(parent.child_by_field_name("function")) => {
            return Use::Call {
                call: parent,
                receiver: None,
            };
        }
        "attribute" if is(parent.child_by_field_name("attribute")) => {
            let receiver = parent.child_by_field_name("object");
            if let Some(call) = parent.parent().filter(|c| {
                c.kind() == "call" && is_node(c.child_by_field_name("function"), parent)
            }) {
                return Use::Call { call, receiver };
            }
            return value_use(parent, source, class_name);
        }
        "attribute" if class_name => return Use::Harmless, // `Class.attribute`
        "dotted_name"
        | "aliased_import"
        | "import_from_statement"
        | "import_statement"
        | "global_statement"
        | "nonlocal_statement" => return Use::Harmless,
        "decorator" => return Use::Problem(SiteProblem::Decorator),
        _ => {}
    }
    value_use(ident, source, class_name)
}

fn is_node(n: Option<Node>, other: Node) -> bool {
    n.is_some_and(|n| n.id() == other.id())
}

/// A use of the name as a value: harmless for a class in a type's places (an annotation, a
/// base class, `isinstance`, a subscript, `except`), else a problem.
fn value_use<'t>(node: Node<'t>, source: &str, class_name: bool) -> Use<'t> {
    let mut up = node;
    while let Some(parent) = up.parent() {
        match parent.kind() {
            "call"
                if parent
                    .child_by_field_name("arguments")
                    .is_some_and(|a| a.id() == up.id()) =>
            {
                let callee = parent
                    .child_by_field_name("function")
                    .map(|f| &source[f.byte_range()])
                    .unwrap_or_default();
                if matches!(
                    callee,
                    "functools.partial" | "partial" | "partialmethod" | "functools.partialmethod"
                ) {
                    return Use::Problem(SiteProblem::Partial);
                }
                if class_name
                    && matches!(
                        callee,
                        "isinstance" | "issubclass" | "cast" | "typing.cast" | "type"
                    )
                {
                    return Use::Harmless;
                }
                return Use::Problem(SiteProblem::Value);
            }
            "type" | "except_clause" | "subscript" | "generic_type" if class_name => {
                return Use::Harmless;
            }
            "argument_list"
                if class_name
                    && parent
                        .parent()
                        .is_some_and(|c| c.kind() == "class_definition") =>
            {
                return Use::Harmless;
            }
            "comparison_operator" if class_name => return Use::Harmless,
            "expression_statement"
            | "block"
            | "module"
            | "return_statement"
            | "assignment"
            | "lambda"
            | "function_definition" => break,
            _ => up = parent,
        }
    }
    Use::Problem(SiteProblem::Value)
}

/// Identifiers spelled `name` in a definition's body (its nested functions' too), by byte
/// offset: the uses to resolve, for a parameter removed or renamed.
pub(crate) fn body_identifiers(function: Node, source: &str, name: &str) -> Vec<usize> {
    let Some(body) = function.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && &source[n.byte_range()] == name {
            found.push(n.start_byte());
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    found.sort_unstable();
    found
}

/// Lines where `name` stands as a name of code in a definition (not an attribute's or a
/// keyword argument's name): a parameter renamed to it would merge with it.
pub(crate) fn name_lines(function: Node, source: &str, name: &str, starts: &[usize]) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && &source[n.byte_range()] == name {
            let field_of = |kind: &str, field: &str| {
                n.parent()
                    .is_some_and(|p| p.kind() == kind && is_node(p.child_by_field_name(field), n))
            };
            if !field_of("attribute", "attribute") && !field_of("keyword_argument", "name") {
                lines.push(lancet_core::line_of(starts, n.start_byte()));
            }
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// Whether `code` is one Python expression (a default or a value given on the command line):
/// `1, 2` would pass two arguments where one was asked for.
pub(crate) fn is_expression(code: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    let Some(grammar) = lancet_syntax::languages::languages()
        .iter()
        .find(|e| e.name == "python")
        .and_then(lancet_syntax::languages::grammar)
    else {
        return false;
    };
    if parser.set_language(&grammar).is_err() {
        return false;
    }
    let wrapped = format!("f({code})\n");
    let Some(tree) = parser.parse(&wrapped, None) else {
        return false;
    };
    let root = tree.root_node();
    if root.has_error() {
        return false;
    }
    let args = root
        .named_child(0)
        .and_then(|s| s.named_child(0))
        .filter(|c| c.kind() == "call")
        .and_then(|c| c.child_by_field_name("arguments"));
    args.is_some_and(|a| {
        a.kind() == "argument_list"
            && a.named_child_count() == 1
            && a.named_child(0).is_some_and(|v| {
                !matches!(
                    v.kind(),
                    "keyword_argument" | "list_splat" | "dictionary_splat" | "comment"
                )
            })
    })
}

/// The classmethods' `cls(…)` calls in a class's body: constructor calls that name no class.
pub(crate) fn cls_calls<'t>(class: Node<'t>, source: &str) -> Vec<Node<'t>> {
    let mut calls = Vec::new();
    let Some(body) = class.child_by_field_name("body") else {
        return calls;
    };
    let mut cursor = body.walk();
    for child in body.named_children(&mut cursor) {
        let function = match child.kind() {
            "decorated_definition" => child.child_by_field_name("definition"),
            _ => Some(child),
        };
        let Some(function) = function.filter(|f| f.kind() == "function_definition") else {
            continue;
        };
        if !decorated_as(function, "classmethod", source) {
            continue;
        }
        let Some(first) = function
            .child_by_field_name("parameters")
            .and_then(|p| p.named_child(0))
            .map(|p| match p.kind() {
                "typed_parameter" => p.named_child(0).unwrap_or(p),
                _ => p,
            })
            .filter(|p| p.kind() == "identifier")
        else {
            continue;
        };
        let receiver = &source[first.byte_range()];
        let mut stack = vec![function.child_by_field_name("body")];
        while let Some(Some(n)) = stack.pop() {
            if n.kind() == "call"
                && n.child_by_field_name("function").is_some_and(|f| {
                    f.kind() == "identifier" && &source[f.byte_range()] == receiver
                })
            {
                calls.push(n);
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| {
                        !matches!(
                            c.kind(),
                            "function_definition" | "class_definition" | "lambda"
                        )
                    })
                    .map(Some),
            );
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(code: &str) -> tree_sitter::Tree {
        let mut parser = tree_sitter::Parser::new();
        let grammar = lancet_syntax::languages::languages()
            .iter()
            .find(|e| e.name == "python")
            .and_then(lancet_syntax::languages::grammar)
            .unwrap();
        parser.set_language(&grammar).unwrap();
        parser.parse(code, None).unwrap()
    }

    fn first_def(tree: &tree_sitter::Tree) -> Node<'_> {
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" {
                return n;
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev(),
            );
        }
        panic!("no def")
    }

    #[test]
    fn a_def_reads_every_kind_of_parameter() {
        let code = "class C:\n    def f(self, a: int, /, b=1, *args: str, c, d: int = 2, **kw):\n        pass\n";
        let tree = parse(code);
        let def = read_def(first_def(&tree), code).ok().unwrap();
        assert!(def.signature.receiver);
        let names: Vec<(String, u8, Option<String>)> = def
            .signature
            .params()
            .map(|p| (p.name.clone(), p.stars, p.default.clone()))
            .collect();
        assert_eq!(
            names,
            [
                ("self".into(), 0, None),
                ("a".into(), 0, None),
                ("b".into(), 0, Some("1".into())),
                ("args".into(), 1, None),
                ("c".into(), 0, None),
                ("d".into(), 0, Some("2".into())),
                ("kw".into(), 2, None),
            ]
        );
        assert_eq!(def.signature.entries.len(), 8);
        assert_eq!(&code[def.places[1].0.clone()], "a: int");
    }

    #[test]
    fn decorators_that_may_change_the_calls_are_refused() {
        for (code, ok) in [
            ("@staticmethod\ndef f(a): pass\n", true),
            ("@functools.lru_cache(maxsize=None)\ndef f(a): pass\n", true),
            ("@click.option('--x')\ndef f(a): pass\n", false),
            ("@overload\ndef f(a): pass\n", false),
        ] {
            let tree = parse(code);
            assert_eq!(read_def(first_def(&tree), code).is_ok(), ok, "{code}");
        }
    }

    #[test]
    fn values_are_single_expressions() {
        for (code, ok) in [
            ("1", true),
            ("{'a': 1}", true),
            ("lambda v: v", true),
            ("1, 2", false),
            ("x=1", false),
            ("*xs", false),
            ("(", false),
        ] {
            assert_eq!(is_expression(code), ok, "{code}");
        }
    }
}
