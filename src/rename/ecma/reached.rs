//! What a module says of the members code lancet cannot read reaches by name, read once
//! with its other facts: the classes its iterations return (`for … of` calls their `next`), and
//! the interfaces that augment a type outside the tree (code reaches their members through that
//! type). The rules that weigh them are [`super::iterators`] and [`super::outside_bases`].

use super::Raw;
use super::bases::namespace_base;
use super::receivers::reference_holder;
use crate::report::Augmented;
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, PropertyKey};
use oxc_semantic::Semantic;
use std::collections::HashMap;

/// The classes of a module whose instances `[Symbol.iterator]()` or `[Symbol.asyncIterator]()`
/// may return, as each is bound: the class declaring one that returns `this` (a generator
/// returns its own iterator), and each class of a `new` inside one, however the instance
/// reaches the `return` (`const it = new It(); return it`, `new It() as Iterator<T>`). The
/// method may be a class's method or field, or an object literal's.
pub(super) fn iterator_classes(semantic: &Semantic) -> Vec<Raw> {
    let nodes = semantic.nodes();
    let mut bodies = Vec::new();
    let mut found = Vec::new();
    for node in nodes.iter() {
        let (key, value) = match node.kind() {
            AstKind::MethodDefinition(m) => (&m.key, None),
            AstKind::PropertyDefinition(p) => (&p.key, p.value.as_ref()),
            AstKind::ObjectProperty(p) => (&p.key, Some(&p.value)),
            _ => continue,
        };
        if !is_iteration_key(key) {
            continue;
        }
        let (span, generator) = match (node.kind(), value) {
            (AstKind::MethodDefinition(m), _) => (m.value.span, m.value.generator),
            (_, Some(Expression::FunctionExpression(f))) => (f.span, f.generator),
            (_, Some(Expression::ArrowFunctionExpression(f))) => (f.span, false),
            _ => continue,
        };
        bodies.push(span);
        let returns_this = !generator
            && nodes.iter().any(|n| match n.kind() {
                AstKind::ReturnStatement(r) => {
                    span.contains_inclusive(r.span)
                        && matches!(r.argument, Some(Expression::ThisExpression(_)))
                }
                AstKind::ArrowFunctionExpression(f) => {
                    f.span == span
                        && matches!(f.get_expression(), Some(Expression::ThisExpression(_)))
                }
                _ => false,
            });
        let class = nodes.ancestors(node.id()).find_map(|a| match a.kind() {
            AstKind::Class(c) => c.id.as_ref().map(|id| id.span.start),
            _ => None,
        });
        found.extend(class.filter(|_| returns_this).map(Raw::Local));
    }
    if bodies.is_empty() {
        return found;
    }
    for node in nodes.iter() {
        let AstKind::NewExpression(new) = node.kind() else {
            continue;
        };
        if !bodies.iter().any(|b| b.contains_inclusive(new.span)) {
            continue;
        }
        let class = match &new.callee {
            Expression::Identifier(class) => reference_holder(semantic, class),
            callee => namespace_base(semantic, callee),
        };
        found.extend(class);
    }
    found
}

/// Whether a computed key is `Symbol.iterator` or `Symbol.asyncIterator`.
fn is_iteration_key(key: &PropertyKey) -> bool {
    let Some(Expression::StaticMemberExpression(member)) = key.as_expression() else {
        return false;
    };
    matches!(&member.object, Expression::Identifier(symbol) if symbol.name == "Symbol")
        && matches!(member.property.name.as_str(), "iterator" | "asyncIterator")
}

/// The interfaces of a module (by their names' offsets) that augment a type outside the tree,
/// each with its name and what it augments: one inside `declare global { … }` or `declare
/// module "pkg" { … }`, and every interface of a script (a file with no import or export),
/// whose declarations are global and merge with the library's of the same name.
pub(super) fn augmentations(semantic: &Semantic) -> HashMap<u32, (String, Augmented)> {
    let nodes = semantic.nodes();
    let script = !nodes.iter().any(|n| {
        matches!(
            n.kind(),
            AstKind::ImportDeclaration(_)
                | AstKind::ExportDeclaration(_)
                | AstKind::ExportFromDeclaration(_)
                | AstKind::ExportNamedDeclaration(_)
                | AstKind::ExportDefaultDeclaration(_)
                | AstKind::ExportAllDeclaration(_)
                | AstKind::TSExportAssignment(_)
        )
    });
    let mut found = HashMap::new();
    for node in nodes.iter() {
        let AstKind::TSInterfaceDeclaration(interface) = node.kind() else {
            continue;
        };
        let augmented = nodes.ancestors(node.id()).find_map(|a| match a.kind() {
            AstKind::TSGlobalDeclaration(_) => Some(Augmented::Global),
            AstKind::TSExternalModuleDeclaration(m) => Some(Augmented::Module(m.id.to_string())),
            _ => None,
        });
        if let Some(augmented) = augmented.or_else(|| script.then_some(Augmented::Script)) {
            let name = interface.id.name.to_string();
            found.insert(interface.id.span.start, (name, augmented));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::with_semantic;
    use super::augmentations;
    use crate::report::Augmented;

    /// The interfaces augmenting an outside type: inside `declare global` and `declare module`,
    /// and every interface of a script; a module's own interface is none.
    #[test]
    fn augmentations_are_told_from_a_module_s_own_interfaces() {
        let said = |text: &str| {
            let mut found: Vec<(String, Augmented)> =
                with_semantic("a.ts", text, |s| augmentations(s).into_values().collect());
            found.sort();
            found
        };
        let module = "export {};\ninterface Own { a: number }\ndeclare global { interface Window { b: string } }\ndeclare module \"fw\" { interface Component { c: number } }\n";
        assert_eq!(
            said(module),
            [
                ("Component".to_string(), Augmented::Module("fw".into())),
                ("Window".to_string(), Augmented::Global),
            ]
        );
        let script = "interface Window { appName: string }\n";
        assert_eq!(said(script), [("Window".to_string(), Augmented::Script)]);
        assert!(said("export interface Own { a: number }\n").is_empty());
        assert!(said("import { x } from \"./x\";\ninterface Own { a: typeof x }\n").is_empty());
    }
}
