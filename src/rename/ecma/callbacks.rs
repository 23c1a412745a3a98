//! Parameters typed by the callable they are passed as: a function expression declared as a
//! callable type (an annotated variable, a declared return type), a callback of an array
//! method (the array's element).

use super::Raw;
use super::context::contextual_type;
use super::receivers::{Receiver, object_holder, symbol_raw, type_holder};
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, TSType, TSTypeName};
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
    (index == 0)
        .then(|| array_callback_element(semantic, function))
        .flatten()
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

/// The array methods whose callback's first parameter is an element of the array.
pub(super) const ELEMENT_CALLBACKS: &[&str] = &[
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

/// The element a callback (by node) passed first to an array method (`rows.map(row => …)`)
/// receives, when the array is declared an array of a class or interface.
pub(super) fn array_callback_element(
    semantic: &Semantic,
    function: oxc_semantic::NodeId,
) -> Option<Raw> {
    let nodes = semantic.nodes();
    let mut at = function;
    let call = loop {
        let parent = nodes.parent_id(at);
        match nodes.kind(parent) {
            AstKind::ParenthesizedExpression(_) => at = parent,
            AstKind::CallExpression(c) => break c,
            _ => return None,
        }
    };
    let own = nodes.kind(at).span();
    if call.arguments.first().map(|a| a.span()) != Some(own) {
        return None;
    }
    let Expression::StaticMemberExpression(m) = &call.callee else {
        return None;
    };
    if !ELEMENT_CALLBACKS.contains(&m.property.name.as_str()) {
        return None;
    }
    match object_holder(semantic, &m.object, function, &m.property.name) {
        Receiver::Holder(Raw::ArrayOf(element)) => Some(*element),
        Receiver::Holder(
            declared @ (Raw::Parameter { .. } | Raw::Returns(_) | Raw::MethodReturns { .. }),
        ) => Some(Raw::ElementOf(Box::new(declared))),
        _ => None,
    }
}

/// Parameter `index` of a callable type as a holder: an inline function type's own, or
/// [`Raw::Parameter`] of a named one (`Foo | undefined` read as `Foo`).
pub(super) fn callable_parameter(semantic: &Semantic, ty: &TSType, index: usize) -> Option<Raw> {
    match ty {
        TSType::TSFunctionType(f) => parameter_holders(semantic, &f.params)
            .into_iter()
            .nth(index)
            .flatten(),
        TSType::TSTypeReference(r) => {
            let TSTypeName::IdentifierReference(id) = &r.type_name else {
                return None;
            };
            let scoping = semantic.scoping();
            let symbol = id
                .reference_id
                .get()
                .and_then(|rid| scoping.get_reference(rid).symbol_id())?;
            let callable = if scoping
                .symbol_flags(symbol)
                .intersects(SymbolFlags::Interface | SymbolFlags::TypeAlias)
            {
                Raw::Local(scoping.symbol_span(symbol).start)
            } else {
                match symbol_raw(semantic, symbol) {
                    imported @ Raw::Imported { .. } => imported,
                    _ => return None,
                }
            };
            Some(Raw::Parameter {
                callable: Box::new(callable),
                index,
            })
        }
        TSType::TSUnionType(u) => {
            let mut values = u
                .types
                .iter()
                .filter(|t| !matches!(t, TSType::TSUndefinedKeyword(_) | TSType::TSNullKeyword(_)));
            match (values.next(), values.next()) {
                (Some(one), None) => callable_parameter(semantic, one, index),
                _ => None,
            }
        }
        TSType::TSParenthesizedType(p) => callable_parameter(semantic, &p.type_annotation, index),
        _ => None,
    }
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
