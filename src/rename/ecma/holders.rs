//! What a value holds where the code does not declare it, followed through the code: the
//! object of a member access ([`object_holder`]), a declared name's value, a call's result, an
//! iterated element, and an unannotated parameter typed by the callable it is passed as (a
//! function expression declared as a callable type, a callback of an array method). These
//! call one another, so they share this room; what declarations alone say is below them, in
//! `receivers`.

use super::Raw;
use super::globals::is_global;
use super::outside_parentheses;
use super::receivers::{
    Callable, ELEMENT_CALLBACKS, FOLD_CALLBACKS, PAIR_CALLBACKS, Receiver, callable_parameter,
    called, called_function, contextual_type, declared_callable, element_of, field_holder,
    global_map, namespace_export, numeric_index, reference_holder, referenced_symbol, symbol_raw,
    this_class, type_holder,
};
use oxc_ast::AstKind;
use oxc_ast::ast::Expression;
use oxc_ast::ast::TSType;
use oxc_semantic::Semantic;
use oxc_semantic::SymbolFlags;
use oxc_semantic::SymbolId;
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

/// The callable type an annotation declares, as a fact other modules read: an inline
/// function type by its own offset (its parameters are in the module's `callables`), a named
/// one by its declaration or import.
pub(super) fn callable_type(semantic: &Semantic, ty: &TSType) -> Option<Raw> {
    match declared_callable(semantic, ty)? {
        Callable::Inline(f) => Some(Raw::Local(f.span.start)),
        Callable::Named(callable) => Some(callable),
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

/// What a member access's object stands for: a class of the tree, a namespace, or why not.
pub(super) fn object_holder(
    semantic: &Semantic,
    object: &Expression,
    node: oxc_semantic::NodeId,
    name: &str,
) -> Receiver {
    Receiver::Holder(match object {
        Expression::ThisExpression(_) => match this_class(semantic, node) {
            Ok(c) => match &c.id {
                Some(id) => Raw::Local(id.span.start),
                None => Raw::Unresolved("`this` in an anonymous class".into()),
            },
            Err(why) => Raw::Unresolved(why),
        },
        // `this.x.name`, `this.#x.name`: the class of field `x`, as the class declares it.
        Expression::StaticMemberExpression(m)
            if matches!(m.object, Expression::ThisExpression(_)) =>
        {
            field_holder(semantic, node, &m.property.name, false)
        }
        Expression::PrivateFieldExpression(p)
            if matches!(p.object, Expression::ThisExpression(_)) =>
        {
            field_holder(semantic, node, &p.field.name, true)
        }
        // `header.column.name`: what member `column` of the receiver's type is declared as.
        Expression::StaticMemberExpression(m) => {
            match object_holder(semantic, &m.object, node, &m.property.name) {
                Receiver::Holder(holder) if holder.holds_members() => Raw::FieldOf {
                    holder: Box::new(holder),
                    name: m.property.name.to_string(),
                },
                // `ns.value.name`: the export, typed by its declaration.
                Receiver::Export(export @ Raw::Imported { .. }) => export,
                // A global's or a package's property may hold anything, the tree's too.
                Receiver::Holder(Raw::Outside(why)) | Receiver::Export(Raw::Outside(why)) => {
                    Raw::Unresolved(format!("a property of a value outside the tree ({why})"))
                }
                Receiver::Holder(other) | Receiver::Export(other) => other,
            }
        }
        // `rows[0].name`, `rows[i].name`: an element of an array its declaration says.
        Expression::ComputedMemberExpression(m) if numeric_index(semantic, &m.expression) => {
            match element_of(object_holder(semantic, &m.object, node, name)) {
                Some(element) => element,
                None => Raw::Unresolved("the type of the receiver is not known".into()),
            }
        }
        // `make()!.name`, `(x).name`: the value itself.
        Expression::TSNonNullExpression(n) => {
            return object_holder(semantic, &n.expression, node, name);
        }
        Expression::ParenthesizedExpression(p) => {
            return object_holder(semantic, &p.expression, node, name);
        }
        // `make().name`, `x.make().name`: what `make` returns, when its declaration says.
        Expression::CallExpression(c) => call_holder(semantic, c, node),
        // `new Foo().name`: an instance of Foo.
        Expression::NewExpression(n) => match &n.callee {
            Expression::Identifier(id) => reference_holder(semantic, id).unwrap_or_else(|| {
                Raw::Unresolved(format!("`{}` is no class lancet can name", id.name))
            }),
            _ => Raw::Unresolved("the type of the receiver is not known".into()),
        },
        Expression::Identifier(r) => {
            let scoping = semantic.scoping();
            let symbol = referenced_symbol(semantic, r);
            match symbol {
                Some(symbol) => {
                    let flags = scoping.symbol_flags(symbol);
                    if flags.intersects(SymbolFlags::Class | SymbolFlags::Enum) {
                        return Receiver::Holder(Raw::Local(scoping.symbol_span(symbol).start));
                    }
                    if let Some(holder) = declared_holder(semantic, symbol) {
                        return Receiver::Holder(holder);
                    }
                    match symbol_raw(semantic, symbol) {
                        imported @ (Raw::Imported { .. } | Raw::Outside(_)) => imported,
                        _ if flags.is_import() => {
                            // `import * as ns from './m'`: `ns.x` is m's export `x`.
                            return Receiver::Export(namespace_export(semantic, r, name));
                        }
                        _ => Raw::Unresolved(format!("the type of `{}` is not known", r.name)),
                    }
                }
                None if is_global(&r.name) => {
                    Raw::Outside(format!("`{}` is a JavaScript global", r.name))
                }
                None => Raw::Unresolved(format!("`{}` is not declared in this file", r.name)),
            }
        }
        _ => Raw::Unresolved("the type of the receiver is not known".into()),
    })
}

/// The class or interface a local holds an instance of, when its declaration says so: `x:
/// Foo` (a parameter or a variable: its declared type, whatever is assigned later), or
/// `const x = new Foo()` when nothing assigns it again.
pub(super) fn declared_holder(semantic: &Semantic, symbol: SymbolId) -> Option<Raw> {
    let scoping = semantic.scoping();
    let mut declaration = scoping.symbol_declaration(symbol);
    if matches!(
        semantic.nodes().kind(declaration),
        AstKind::BindingIdentifier(_)
    ) {
        declaration = semantic.nodes().parent_id(declaration);
    }
    let (annotation, init) = match semantic.nodes().kind(declaration) {
        // `for (const row of rows)`: an element of what is iterated.
        AstKind::VariableDeclarator(d)
            if d.id.get_binding_identifier().is_some()
                && d.type_annotation.is_none()
                && d.init.is_none()
                && !scoping.symbol_is_mutated(symbol) =>
        {
            return iterated_element(semantic, declaration);
        }
        AstKind::VariableDeclarator(d) if d.id.get_binding_identifier().is_some() => {
            (d.type_annotation.as_deref(), d.init.as_ref())
        }
        AstKind::FormalParameter(p) if p.pattern.get_binding_identifier().is_some() => {
            if p.type_annotation.is_none() {
                return contextual_parameter(semantic, declaration);
            }
            (p.type_annotation.as_deref(), None)
        }
        _ => return None,
    };
    // `make()!`: the value of `make()` (a non-null assertion types nothing else).
    let init = match init {
        Some(Expression::TSNonNullExpression(n)) => Some(&n.expression),
        other => other,
    };
    // TypeScript types a variable without an annotation by its initializer, once: whatever is
    // assigned later must be assignable to that type, and narrowing an assignment makes only
    // one of its members of a union. JavaScript declares nothing, so a variable assigned again
    // there may hold anything.
    let settled = semantic.source_type().is_typescript() || !scoping.symbol_is_mutated(symbol);
    match (annotation, init) {
        (Some(a), _) => type_holder(semantic, &a.type_annotation),
        // `let t = {…} as unknown as Table<T>`: the asserted type is the local's.
        (None, Some(Expression::TSAsExpression(a))) => type_holder(semantic, &a.type_annotation),
        (None, Some(Expression::TSTypeAssertion(a))) => type_holder(semantic, &a.type_annotation),
        (None, Some(Expression::NewExpression(n))) if settled => match &n.callee {
            Expression::Identifier(id) => reference_holder(semantic, id)
                .or_else(|| global_map(semantic, id, n.type_arguments.as_deref())),
            _ => None,
        },
        (None, Some(Expression::CallExpression(c))) if settled => {
            Some(call_holder(semantic, c, declaration)).filter(Raw::holds_members)
        }
        // `const feature = table._features[i]`, `const cols = column.columns`: what the
        // member is declared as.
        (
            None,
            Some(
                read @ (Expression::StaticMemberExpression(_)
                | Expression::ComputedMemberExpression(_)),
            ),
        ) if settled => match object_holder(semantic, read, declaration, "") {
            Receiver::Holder(holder) if holder.holds_members() => Some(holder),
            _ => None,
        },
        _ => None,
    }
}

/// The element a `for … of` loop's variable (its declarator, by node) holds, when what the
/// loop iterates is declared an array of a class or interface (not `for await`: it awaits
/// each element).
pub(super) fn iterated_element(
    semantic: &Semantic,
    declarator: oxc_semantic::NodeId,
) -> Option<Raw> {
    let nodes = semantic.nodes();
    let declaration = nodes.parent_id(declarator);
    let AstKind::ForOfStatement(f) = nodes.parent_kind(declaration) else {
        return None;
    };
    if f.r#await || f.left.span() != nodes.kind(declaration).span() {
        return None;
    }
    element_of(object_holder(semantic, &f.right, declarator, ""))
}

/// What a call returns, as a holder: `make()` a function's, `x.make()` a method's of `x`'s
/// holder (its declaration decides when modules are joined).
pub(super) fn call_holder(
    semantic: &Semantic,
    call: &oxc_ast::ast::CallExpression,
    node: oxc_semantic::NodeId,
) -> Raw {
    match &call.callee {
        // `useThing<Item>()`: the type arguments may be what it returns.
        Expression::Identifier(id) => match (called(semantic, id), &call.type_arguments) {
            (Raw::Returns(function), Some(arguments)) => Raw::GenericReturns {
                function,
                arguments: arguments
                    .params
                    .iter()
                    .map(|t| type_holder(semantic, t))
                    .collect(),
            },
            (returns, _) => returns,
        },
        Expression::StaticMemberExpression(m) => {
            let name = m.property.name.to_string();
            match object_holder(semantic, &m.object, node, &name) {
                Receiver::Holder(holder) if holder.holds_members() => Raw::MethodReturns {
                    holder: Box::new(holder),
                    name,
                },
                Receiver::Holder(other) => other,
                // `ns.make()`: the function `make` that module exports.
                Receiver::Export(f @ Raw::Imported { .. }) => Raw::Returns(Box::new(f)),
                Receiver::Export(other) => other,
            }
        }
        _ => Raw::Unresolved("the type of the receiver is not known".into()),
    }
}
