//! The type an expression takes from where it stands: the annotated variable an object
//! literal initializes, the declared return type it is returned from, and the declared type a
//! destructuring pattern takes apart.

use super::Raw;
use super::holders::{contextual_parameter, iterated_element, object_holder};
use super::outside_parentheses;
use super::receivers::{Receiver, contextual_type, referenced_symbol, type_holder};
use oxc_ast::AstKind;
use oxc_ast::ast::Expression;
use oxc_semantic::Semantic;
use oxc_span::GetSpan;
use std::collections::HashMap;

/// The class or interface an object literal (by node) is typed as, where the code declares
/// it: its keys are that type's members (`const t: CoreInstance = { getState: … }`); the
/// literal itself where it is a factory's one returned value ([`factory_literal`]).
pub(super) fn literal_holder(
    semantic: &Semantic,
    returns: &Returns,
    literal: oxc_semantic::NodeId,
) -> Option<Raw> {
    let AstKind::ObjectExpression(object) = semantic.nodes().kind(literal) else {
        return None;
    };
    if let Some(ty) = contextual_type(semantic, literal) {
        return type_holder(semantic, ty);
    }
    let function = returned_by(semantic, literal)?;
    let made = factory_literal(semantic, function, returns.of(semantic, function))?;
    (made.span == object.span).then_some(Raw::Local(made.span.start))
}

/// Each function's `return` statements in one file, read once when first asked (a file's
/// every literal key asks, so they are not read again for each).
#[derive(Default)]
pub(super) struct Returns {
    by_function: std::cell::OnceCell<HashMap<oxc_semantic::NodeId, Vec<oxc_semantic::NodeId>>>,
}

impl Returns {
    /// The `return` statements of one function (by node) of `semantic`'s file.
    fn of(&self, semantic: &Semantic, function: oxc_semantic::NodeId) -> &[oxc_semantic::NodeId] {
        self.by_function
            .get_or_init(|| returns_by_function(semantic))
            .get(&function)
            .map_or(&[], Vec::as_slice)
    }
}

/// The function a value (by node) is returned from: `return value`, through parentheses and
/// `as const`.
fn returned_by(semantic: &Semantic, value: oxc_semantic::NodeId) -> Option<oxc_semantic::NodeId> {
    let nodes = semantic.nodes();
    let mut at = value;
    loop {
        let parent = nodes.parent_id(at);
        match nodes.kind(parent) {
            AstKind::ParenthesizedExpression(_) => at = parent,
            AstKind::TSAsExpression(a) if a.type_annotation.is_const_type_reference() => {
                at = parent
            }
            AstKind::ReturnStatement(_) => return enclosing_function(semantic, parent),
            _ => return None,
        }
    }
}

/// The function (or arrow) whose body a node is in.
fn enclosing_function(
    semantic: &Semantic,
    node: oxc_semantic::NodeId,
) -> Option<oxc_semantic::NodeId> {
    semantic
        .nodes()
        .ancestors(node)
        .skip(1)
        .find(|a| {
            matches!(
                a.kind(),
                AstKind::Function(_) | AstKind::ArrowFunctionExpression(_)
            )
        })
        .map(|a| a.id())
}

/// Each function's (by node) `return` statements, by node.
pub(super) fn returns_by_function(
    semantic: &Semantic,
) -> HashMap<oxc_semantic::NodeId, Vec<oxc_semantic::NodeId>> {
    let mut returns: HashMap<_, Vec<_>> = HashMap::new();
    for node in semantic.nodes().iter() {
        if matches!(node.kind(), AstKind::ReturnStatement(_))
            && let Some(function) = enclosing_function(semantic, node.id())
        {
            returns.entry(function).or_default().push(node.id());
        }
    }
    returns
}

/// The object literal a factory returns (`function createNotifyManager() { …; return {
/// batch, schedule } }`): a function declaration (nothing gives it a contextual type) that
/// declares no return type, is neither async, a generator nor overloaded, and whose one
/// `return` (of `returns`, its own) is an object literal of plain keys (no spread, no
/// computed key). TypeScript types its calls by that literal, so the literal holds the
/// members its calls' values have.
pub(super) fn factory_literal<'s>(
    semantic: &'s Semantic,
    function: oxc_semantic::NodeId,
    returns: &[oxc_semantic::NodeId],
) -> Option<&'s oxc_ast::ast::ObjectExpression<'s>> {
    let AstKind::Function(f) = semantic.nodes().kind(function) else {
        return None;
    };
    let id = f.id.as_ref()?;
    let single = id
        .symbol_id
        .get()
        .is_some_and(|symbol| semantic.scoping().symbol_redeclarations(symbol).is_empty());
    if !f.is_declaration() || f.return_type.is_some() || f.r#async || f.generator || !single {
        return None;
    }
    let [only] = returns else {
        return None;
    };
    let AstKind::ReturnStatement(r) = semantic.nodes().kind(*only) else {
        return None;
    };
    let mut value = r.argument.as_ref()?;
    loop {
        value = match value {
            Expression::ParenthesizedExpression(p) => &p.expression,
            Expression::TSAsExpression(a) if a.type_annotation.is_const_type_reference() => {
                &a.expression
            }
            _ => break,
        };
    }
    let Expression::ObjectExpression(object) = value else {
        return None;
    };
    let plain = object.properties.iter().all(|p| {
        matches!(p, oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p) if !p.computed && p.key.static_name().is_some())
    });
    plain.then_some(object)
}

/// The class or interface an object binding pattern (by node) destructures, where the code
/// declares it: its keys are that type's members (`const { getState } = table` for a `table:
/// Table`, `function f({ getState }: Table)`); why not otherwise (the key may be the member
/// all the same, so it is undecided, never passed over).
pub(super) fn pattern_holder(
    semantic: &Semantic,
    pattern: oxc_semantic::NodeId,
    name: &str,
) -> Raw {
    let nodes = semantic.nodes();
    let unknown = || {
        Raw::Unresolved(format!(
            "`{name}` is a key of a destructuring pattern whose value's type lancet does not know"
        ))
    };
    let owner = nodes.parent_id(pattern);
    let annotated = |annotation: &oxc_ast::ast::TSTypeAnnotation| {
        type_holder(semantic, &annotation.type_annotation).unwrap_or_else(unknown)
    };
    match nodes.kind(owner) {
        AstKind::VariableDeclarator(d) => match (&d.type_annotation, &d.init) {
            (Some(a), _) => annotated(a),
            (None, Some(init)) => match object_holder(semantic, init, pattern, name) {
                Receiver::Holder(Raw::Unresolved(_)) | Receiver::Export(_) => unknown(),
                Receiver::Holder(holder) => holder,
            },
            (None, None) => iterated_element(semantic, owner).unwrap_or_else(unknown),
        },
        AstKind::FormalParameter(p) => match &p.type_annotation {
            Some(a) => annotated(a),
            None => contextual_parameter(semantic, owner).unwrap_or_else(unknown),
        },
        _ => unknown(),
    }
}

/// The members of the library's `PropertyDescriptor`.
pub(super) const DESCRIPTOR_KEYS: &[&str] = &[
    "configurable",
    "enumerable",
    "get",
    "set",
    "value",
    "writable",
];

/// Whether an object literal (by node) is the descriptor `Object.defineProperty(o, key, {…})`
/// or `Reflect.defineProperty` takes (the global ones): its keys are the library's
/// `PropertyDescriptor`'s members, never the tree's.
pub(super) fn property_descriptor(semantic: &Semantic, literal: oxc_semantic::NodeId) -> bool {
    let nodes = semantic.nodes();
    let (at, holder) = outside_parentheses(semantic, literal);
    let AstKind::CallExpression(call) = nodes.kind(holder) else {
        return false;
    };
    let Expression::StaticMemberExpression(m) = &call.callee else {
        return false;
    };
    let Expression::Identifier(global) = &m.object else {
        return false;
    };
    let undeclared = referenced_symbol(semantic, global).is_none();
    undeclared
        && matches!(global.name.as_str(), "Object" | "Reflect")
        && m.property.name == "defineProperty"
        && call.arguments.len() == 3
        && call.arguments[2].span() == nodes.kind(at).span()
}
