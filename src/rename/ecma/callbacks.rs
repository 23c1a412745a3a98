//! Parameters typed by the callable they are passed as: a function expression declared as a
//! callable type (an annotated variable, a declared return type), a callback of an array
//! method (the array's element).

use super::context::contextual_type;
use super::receivers::{
    Receiver, called_function, element_of, object_holder, reference_holder, referenced_symbol,
    symbol_raw, type_holder,
};
use super::{Raw, outside_parentheses};
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, TSFunctionType, TSType, TSTypeName};
use oxc_semantic::{Semantic, SymbolFlags};
use oxc_span::GetSpan;

/// The class or interface an unannotated parameter (its `FormalParameter` node) of an arrow
/// or function expression holds, from the callable type the function is declared as: an
/// inline function type's parameter, or [`Raw::Parameter`] of a named callable type
/// (decided when modules are joined).
pub(super) fn contextual_parameter(
    semantic: &Semantic,
    parameter: oxc_semantic::NodeId,
) -> Option<Raw> {
    let nodes = semantic.nodes();
    let list = nodes.parent_id(parameter);
    let AstKind::FormalParameters(params) = nodes.kind(list) else {
        return None;
    };
    let own = nodes.kind(parameter).span();
    let index = params.items.iter().position(|p| p.span == own)?;
    let function = nodes.parent_id(list);
    if !matches!(
        nodes.kind(function),
        AstKind::ArrowFunctionExpression(_) | AstKind::Function(_)
    ) {
        return None;
    }
    if let AstKind::Function(f) = nodes.kind(function)
        && f.id.is_some()
    {
        return None;
    }
    if let Some(ty) = contextual_type(semantic, function) {
        return callable_parameter(semantic, ty, index);
    }
    if let Some(element) = array_callback_element(semantic, function, index) {
        return Some(element);
    }
    passed_callback_parameter(semantic, function, index)
}

/// Parameter `index` of a callback (by node) passed to a function, method or constructor
/// (`each(items, i => …)`, `list.each(i => …)`, `new Walker(n => …)`): [`Raw::Parameter`] of
/// the callable type the callee declares for that argument (decided when modules are joined:
/// a callee outside the tree, overloaded, or whose parameter is no callable type leaves it
/// undecided). An argument after a spread has no known position.
fn passed_callback_parameter(
    semantic: &Semantic,
    function: oxc_semantic::NodeId,
    index: usize,
) -> Option<Raw> {
    let nodes = semantic.nodes();
    let (at, holder) = outside_parentheses(semantic, function);
    let parent = nodes.kind(holder);
    let own = nodes.kind(at).span();
    let (callee, arguments) = match parent {
        AstKind::CallExpression(c) => (&c.callee, &c.arguments),
        AstKind::NewExpression(n) => (&n.callee, &n.arguments),
        _ => return None,
    };
    let position = arguments.iter().position(|a| a.span() == own)?;
    if arguments[..position].iter().any(|a| a.is_spread()) {
        return None;
    }
    let callable = match (parent, callee) {
        (AstKind::NewExpression(_), Expression::Identifier(class)) => Raw::MethodParameterOf {
            holder: Box::new(reference_holder(semantic, class)?),
            name: "constructor".into(),
            position,
        },
        (AstKind::CallExpression(_), Expression::Identifier(f)) => {
            return Some(Raw::TupleElement {
                function: Box::new(called_function(semantic, f)?),
                position,
                index,
                elements: returned_elements(semantic, arguments, function, index),
            });
        }
        (AstKind::CallExpression(_), Expression::StaticMemberExpression(m)) => {
            match object_holder(semantic, &m.object, function, &m.property.name) {
                Receiver::Holder(holder) if holder.holds_members() => Raw::MethodParameterOf {
                    holder: Box::new(holder),
                    name: m.property.name.to_string(),
                    position,
                },
                // `ns.each(…)`: the function `each` that module exports.
                Receiver::Export(f @ Raw::Imported { .. }) => Raw::ParameterOf {
                    function: Box::new(f),
                    position,
                },
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(Raw::Parameter {
        callable: Box::new(callable),
        index,
    })
}

/// Element `index` of the array literal each argument returns that is a callback returning
/// one (`() => [rows, columns]`, or a body of one `return [...]`), by the argument's
/// position: what the element is declared as, or why not. An element at or after a spread
/// has no known position.
fn returned_elements(
    semantic: &Semantic,
    arguments: &[oxc_ast::ast::Argument<'_>],
    node: oxc_semantic::NodeId,
    index: usize,
) -> Vec<(usize, Raw)> {
    fn returned<'a>(argument: &'a oxc_ast::ast::Argument<'a>) -> Option<&'a Expression<'a>> {
        let mut expression = argument.as_expression()?;
        while let Expression::ParenthesizedExpression(p) = expression {
            expression = &p.expression;
        }
        let Expression::ArrowFunctionExpression(arrow) = expression else {
            return None;
        };
        if arrow.r#async {
            return None;
        }
        match &arrow.body {
            oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => {
                match body.statements.as_slice() {
                    [oxc_ast::ast::Statement::ReturnStatement(r)] => r.argument.as_ref(),
                    _ => None,
                }
            }
            body => body.as_expression(),
        }
    }
    arguments
        .iter()
        .enumerate()
        .filter_map(|(at, argument)| {
            let Expression::ArrayExpression(array) = returned(argument)? else {
                return None;
            };
            let before = array.elements.iter().take(index + 1);
            if before.clone().any(|e| !e.is_expression()) || array.elements.len() <= index {
                return Some((
                    at,
                    Raw::Unresolved(
                        "an element of an array literal after a spread or a hole".into(),
                    ),
                ));
            }
            let element = array.elements[index].as_expression()?;
            let holder = match object_holder(semantic, element, node, "") {
                Receiver::Holder(holder) => holder,
                Receiver::Export(imported @ Raw::Imported { .. }) => imported,
                Receiver::Export(other) => other,
            };
            Some((at, holder))
        })
        .collect()
}

/// The array methods that return an array of the same elements.
pub(super) const SAME_ARRAY: &[&str] = &[
    "concat",
    "filter",
    "reverse",
    "slice",
    "sort",
    "toReversed",
    "toSorted",
];

/// The array methods whose callback's two first parameters are elements of the array.
const PAIR_CALLBACKS: &[&str] = &["sort", "toSorted"];

/// The array methods whose callback's second parameter is an element of the array (the
/// first is the accumulator).
const FOLD_CALLBACKS: &[&str] = &["reduce", "reduceRight"];

/// The array methods whose callback's first parameter is an element of the array.
const ELEMENT_CALLBACKS: &[&str] = &[
    "every",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flatMap",
    "forEach",
    "map",
    "some",
];

/// The element parameter `index` of a callback (by node) passed first to an array method
/// receives (`rows.map(row => …)`, `rows.sort((a, b) => …)`, `rows.reduce((acc, row) => …)`),
/// when the array is declared an array of a class or interface.
pub(super) fn array_callback_element(
    semantic: &Semantic,
    function: oxc_semantic::NodeId,
    index: usize,
) -> Option<Raw> {
    let nodes = semantic.nodes();
    let (at, holder) = outside_parentheses(semantic, function);
    let AstKind::CallExpression(call) = nodes.kind(holder) else {
        return None;
    };
    let own = nodes.kind(at).span();
    if call.arguments.first().map(|a| a.span()) != Some(own) {
        return None;
    }
    let Expression::StaticMemberExpression(m) = &call.callee else {
        return None;
    };
    let method = m.property.name.as_str();
    let receiver = object_holder(semantic, &m.object, function, method);
    // `m.forEach((value, key) => …)` of a `Map<K, V>`: a V.
    if let Receiver::Holder(Raw::MapOf(value)) = receiver {
        return (method == "forEach" && index == 0).then_some(*value);
    }
    let element = match index {
        0 => ELEMENT_CALLBACKS.contains(&method) || PAIR_CALLBACKS.contains(&method),
        1 => PAIR_CALLBACKS.contains(&method) || FOLD_CALLBACKS.contains(&method),
        _ => false,
    };
    if !element {
        return None;
    }
    element_of(receiver)
}

/// Parameter `index` of a callable type as a holder: an inline function type's own, or
/// [`Raw::Parameter`] of a named one (`Foo | undefined` read as `Foo`).
pub(super) fn callable_parameter(semantic: &Semantic, ty: &TSType, index: usize) -> Option<Raw> {
    match declared_callable(semantic, ty)? {
        Callable::Inline(f) => parameter_holders(semantic, &f.params)
            .into_iter()
            .nth(index)
            .flatten(),
        Callable::Named(callable) => Some(Raw::Parameter {
            callable: Box::new(callable),
            index,
        }),
    }
}

/// The callable type an annotation declares, as a fact other modules read: an inline
/// function type by its own offset (its parameters are in the module's `callables`), a named
/// one by its declaration or import.
pub(super) fn callable_type(semantic: &Semantic, ty: &TSType) -> Option<Raw> {
    match declared_callable(semantic, ty)? {
        Callable::Inline(f) => Some(Raw::Local(f.span.start)),
        Callable::Named(callable) => Some(callable),
    }
}

/// A callable type as an annotation declares it.
pub(super) enum Callable<'a> {
    /// `(row: Row) => void`, written where it is used.
    Inline(&'a TSFunctionType<'a>),
    /// An interface or type alias of this file (`Local`) or an imported one: its parameters
    /// are known when modules are joined.
    Named(Raw),
}

/// The one callable type an annotation names (`Foo | undefined` and `(Foo)` read as `Foo`);
/// `None` for anything else (a union of two, a type parameter, a class).
pub(super) fn declared_callable<'a>(
    semantic: &Semantic,
    ty: &'a TSType<'a>,
) -> Option<Callable<'a>> {
    match ty {
        TSType::TSFunctionType(f) => Some(Callable::Inline(f)),
        TSType::TSTypeReference(r) => {
            let TSTypeName::IdentifierReference(id) = &r.type_name else {
                return None;
            };
            let scoping = semantic.scoping();
            let symbol = referenced_symbol(semantic, id)?;
            if scoping
                .symbol_flags(symbol)
                .intersects(SymbolFlags::Interface | SymbolFlags::TypeAlias)
            {
                return Some(Callable::Named(Raw::Local(
                    scoping.symbol_span(symbol).start,
                )));
            }
            match symbol_raw(semantic, symbol) {
                imported @ Raw::Imported { .. } => Some(Callable::Named(imported)),
                _ => None,
            }
        }
        TSType::TSUnionType(u) => {
            let mut values = u
                .types
                .iter()
                .filter(|t| !matches!(t, TSType::TSUndefinedKeyword(_) | TSType::TSNullKeyword(_)));
            match (values.next(), values.next()) {
                (Some(one), None) => declared_callable(semantic, one),
                _ => None,
            }
        }
        TSType::TSParenthesizedType(p) => declared_callable(semantic, &p.type_annotation),
        _ => None,
    }
}

/// The callable type each parameter is declared as (`None` where it is not one), for the
/// callbacks passed to a function, method or constructor.
pub(super) fn parameter_callables(
    semantic: &Semantic,
    params: &oxc_ast::ast::FormalParameters,
) -> Vec<Option<Raw>> {
    params
        .items
        .iter()
        .map(|p| {
            p.type_annotation
                .as_ref()
                .and_then(|a| callable_type(semantic, &a.type_annotation))
        })
        .collect()
}

/// Each parameter's class or interface, where a plain parameter's annotation names one
/// (none past a rest parameter).
pub(super) fn parameter_holders(
    semantic: &Semantic,
    params: &oxc_ast::ast::FormalParameters,
) -> Vec<Option<Raw>> {
    params
        .items
        .iter()
        .map(|p| {
            p.type_annotation
                .as_ref()
                .filter(|_| p.pattern.get_binding_identifier().is_some())
                .and_then(|a| type_holder(semantic, &a.type_annotation))
        })
        .collect()
}
