//! Each occurrence of a name in one file, classified: a binding or reference (its symbol), a
//! member (its holder), a key of a typed literal or pattern, an import or export specifier, a
//! private name.

use super::context::{
    DESCRIPTOR_KEYS, Returns, literal_holder, pattern_holder, property_descriptor,
};
use super::facts::facts_of;
use super::globals::is_global;
use super::holders::object_holder;
use super::receivers::{
    Receiver, holder_of, imported, member_of, referenced_symbol, symbol_raw, type_holder,
};
use super::{Analysis, Raw, with_semantic};
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, TSTypeName};
use oxc_semantic::Semantic;
use oxc_span::GetSpan;
use oxc_syntax::operator::BinaryOperator;
use std::collections::HashMap;
use std::sync::Arc;

/// Classifies each occurrence (byte offset of a `len`-byte name) in one file.
pub(super) fn analyze(path: &str, text: &str, offsets: &[usize], len: usize) -> Analysis {
    with_semantic(path, text, |semantic| {
        let mut at: HashMap<u32, Vec<(oxc_semantic::NodeId, AstKind)>> = HashMap::new();
        for node in semantic.nodes().iter() {
            let kind = node.kind();
            let span = kind.span();
            if (span.end - span.start) as usize == len
                && matches!(
                    kind,
                    AstKind::IdentifierReference(_)
                        | AstKind::BindingIdentifier(_)
                        | AstKind::IdentifierName(_)
                )
            {
                at.entry(span.start).or_default().push((node.id(), kind));
            }
            // `#name`: the occurrence is the name after the `#`.
            if (span.end - span.start) as usize == len + 1
                && matches!(kind, AstKind::PrivateIdentifier(_))
            {
                at.entry(span.start + 1)
                    .or_default()
                    .push((node.id(), kind));
            }
        }
        // `T['name']`, `{ "name": v }`, `p["name"]`: the scan passes a string naming a member
        // as code (tsc checks it, JavaScript reads the member by it).
        let keys: HashMap<u32, oxc_semantic::NodeId> = semantic
            .nodes()
            .iter()
            .filter_map(|node| match node.kind() {
                AstKind::StringLiteral(literal)
                    if (literal.span.end - literal.span.start) as usize == len + 2 =>
                {
                    Some((literal.span.start + 1, node.id()))
                }
                // `` p[`name`] ``, `` T[`name`] ``: a template without substitutions is that
                // string.
                AstKind::TemplateLiteral(template)
                    if template.expressions.is_empty()
                        && (template.span.end - template.span.start) as usize == len + 2 =>
                {
                    Some((template.span.start + 1, node.id()))
                }
                _ => None,
            })
            .collect();
        let returns = Returns::default();
        let raw = offsets
            .iter()
            .map(|&offset| {
                let candidates = at.get(&(offset as u32)).cloned().unwrap_or_default();
                if let Some(&key) = keys.get(&(offset as u32)).filter(|_| candidates.is_empty()) {
                    return (string_member(semantic, &returns, key), None);
                }
                (
                    classify(semantic, &returns, &candidates),
                    shorthand_member(semantic, &returns, &candidates),
                )
            })
            .collect();
        Analysis {
            raw,
            facts: Arc::new(facts_of(semantic)),
        }
    })
}

/// The member a string names: a key of a type (see [`indexed_member`]), or a member's name
/// quoted where an identifier could stand (`{ "name": v }`, `'name'() {}`, `p["name"]`,
/// `` p[`name`] ``), which is what the identifier would be.
fn string_member(semantic: &Semantic, returns: &Returns, key: oxc_semantic::NodeId) -> Raw {
    let nodes = semantic.nodes();
    let literal = match nodes.kind(key) {
        AstKind::StringLiteral(literal) => literal,
        // `` p[`name`] ``, and in a type `` T[`name`] `` (a literal type holding the template).
        AstKind::TemplateLiteral(template) => {
            let name = template
                .quasis
                .iter()
                .map(|q| q.value.raw.as_str())
                .collect();
            if matches!(nodes.parent_kind(key), AstKind::TSLiteralType(_)) {
                return indexed_member(semantic, key, name, template.span);
            }
            return member_named(semantic, returns, key, name);
        }
        _ => return Raw::Unresolved("not a name lancet can read".into()),
    };
    if matches!(nodes.parent_kind(key), AstKind::TSLiteralType(_)) {
        return indexed_member(semantic, key, literal.value.to_string(), literal.span);
    }
    member_named(semantic, returns, key, literal.value.to_string())
}

/// The member a string key of an indexed access type names (`Subscribable<T>['subscribe']`,
/// one key of a union among them), or of the library's `Pick`/`Omit` (`Pick<T, 'a'>`): that
/// member of the type indexed or picked from where [`type_holder`] knows it, else undecided.
fn indexed_member(
    semantic: &Semantic,
    key: oxc_semantic::NodeId,
    name: String,
    span: oxc_span::Span,
) -> Raw {
    let nodes = semantic.nodes();
    let unknown = || {
        Raw::Unresolved(format!(
            "`{name}` is a member named by a string in a type (`T['{name}']`, `Pick<T, '{name}'>`) whose type lancet cannot resolve"
        ))
    };
    for ancestor in nodes.ancestors(key) {
        match ancestor.kind() {
            AstKind::StringLiteral(_)
            | AstKind::TSLiteralType(_)
            | AstKind::TemplateLiteral(_)
            | AstKind::TSUnionType(_)
            | AstKind::TSParenthesizedType(_) => {}
            AstKind::TSIndexedAccessType(indexed)
                if indexed.index_type.span().contains_inclusive(span) =>
            {
                return match type_holder(semantic, &indexed.object_type) {
                    Some(holder) if holder.holds_members() => Raw::Member {
                        holder: Box::new(holder),
                        name,
                    },
                    _ => unknown(),
                };
            }
            // `Pick<T, 'a' | 'b'>`, `Omit<T, 'a'>` (the library's: no declaration of that name in
            // the file): keys of `T`.
            AstKind::TSTypeParameterInstantiation(arguments) => {
                let AstKind::TSTypeReference(reference) = nodes.parent_kind(ancestor.id()) else {
                    return unknown();
                };
                let library_pick = matches!(&reference.type_name,
                    TSTypeName::IdentifierReference(id)
                        if matches!(id.name.as_str(), "Pick" | "Omit")
                            && referenced_symbol(semantic, id).is_none());
                return match arguments.params.as_slice() {
                    [object, keys] if library_pick && keys.span().contains_inclusive(span) => {
                        match type_holder(semantic, object) {
                            Some(holder) if holder.holds_members() => Raw::Member {
                                holder: Box::new(holder),
                                name,
                            },
                            _ => unknown(),
                        }
                    }
                    _ => unknown(),
                };
            }
            _ => return unknown(),
        }
    }
    unknown()
}

pub(super) fn classify(
    semantic: &Semantic,
    returns: &Returns,
    candidates: &[(oxc_semantic::NodeId, AstKind)],
) -> Raw {
    if let Some(AstKind::BindingIdentifier(b)) = candidates
        .iter()
        .map(|(_, k)| *k)
        .find(|k| matches!(k, AstKind::BindingIdentifier(_)))
    {
        return match b.symbol_id.get() {
            Some(symbol) => symbol_raw(semantic, symbol),
            None => Raw::Unresolved("a binding without a symbol".into()),
        };
    }
    if let Some(AstKind::IdentifierReference(r)) = candidates
        .iter()
        .map(|(_, k)| *k)
        .find(|k| matches!(k, AstKind::IdentifierReference(_)))
    {
        let symbol = referenced_symbol(semantic, r);
        return match symbol {
            Some(symbol) => symbol_raw(semantic, symbol),
            None if is_global(&r.name) => {
                Raw::Outside(format!("`{}` is a JavaScript global", r.name))
            }
            None => Raw::Unresolved(format!("`{}` is not declared in this file", r.name)),
        };
    }
    if let Some(&(id, AstKind::PrivateIdentifier(p))) = candidates.first() {
        return private_member(semantic, id, p.name.as_str());
    }
    let Some(&(id, AstKind::IdentifierName(name))) = candidates.first() else {
        return Raw::Unresolved("not a name lancet can read".into());
    };
    member_named(semantic, returns, id, name.name.to_string())
}

/// What the member name at node `id` (an identifier, or a string quoting one: `{ "name": v }`,
/// `p["name"]`) is, by where it stands: a member of its receiver's, its class's or its typed
/// literal's holder, an import or export specifier's name, or undecided.
fn member_named(
    semantic: &Semantic,
    returns: &Returns,
    id: oxc_semantic::NodeId,
    name: String,
) -> Raw {
    let member = |holder: Raw| Raw::Member {
        holder: Box::new(holder),
        name: name.clone(),
    };
    // `p.name`, `p["name"]`, `"name" in p`: the member of what `p` holds.
    let of_object = |object: &Expression| match object_holder(semantic, object, id, &name) {
        Receiver::Holder(holder) if holder.holds_members() => member(holder),
        Receiver::Holder(other) | Receiver::Export(other) => other,
    };
    // `{ ["name"]: v }`, `const { ["name"]: n } = p`: a computed key that is the string itself
    // names the member as the quoted key does.
    let span = semantic.nodes().kind(id).span();
    match semantic.nodes().parent_kind(id) {
        AstKind::StaticMemberExpression(m) => of_object(&m.object),
        AstKind::ComputedMemberExpression(m) => of_object(&m.object),
        AstKind::BinaryExpression(b) if b.operator == BinaryOperator::In => of_object(&b.right),
        AstKind::MethodDefinition(_)
        | AstKind::PropertyDefinition(_)
        | AstKind::AccessorProperty(_)
        | AstKind::TSPropertySignature(_)
        | AstKind::TSMethodSignature(_)
        | AstKind::TSEnumMember(_) => match holder_of(semantic, id) {
            Some(holder) => member(Raw::Local(holder)),
            None => Raw::Unresolved(format!(
                "`{name}` is a property of an object type written inline, which values match by their shape alone: lancet renames the members of classes, interfaces and object types a type alias names"
            )),
        },
        AstKind::ObjectProperty(p) if !p.computed || p.key.span() == span => {
            let property = semantic.nodes().parent_id(id);
            let literal = semantic.nodes().parent_id(property);
            match literal_holder(semantic, returns, literal) {
                Some(holder) => member(holder),
                None if DESCRIPTOR_KEYS.contains(&name.as_str())
                    && property_descriptor(semantic, literal) =>
                {
                    Raw::Outside(format!(
                        "`{name}` is a key of a property descriptor (`Object.defineProperty`'s `PropertyDescriptor`, the library's)"
                    ))
                }
                None => Raw::Unresolved(format!(
                    "`{name}` is a property key of an object literal (a member of an anonymous type)"
                )),
            }
        }
        AstKind::ObjectProperty(_) => Raw::Unresolved(format!(
            "`{name}` is a computed property key of an object literal"
        )),
        // `const { getState: g } = table`: the key is a member of what is destructured.
        AstKind::BindingProperty(p) if !p.computed || p.key.span() == span => {
            let property = semantic.nodes().parent_id(id);
            member_of(
                pattern_holder(semantic, semantic.nodes().parent_id(property), &name),
                &name,
            )
        }
        AstKind::ImportSpecifier(_) => imported(semantic, id, name),
        AstKind::ExportSpecifier(_) => {
            for ancestor in semantic.nodes().ancestors(id) {
                if let AstKind::ExportFromDeclaration(export) = ancestor.kind() {
                    let source = export.source.value.to_string();
                    return Raw::Imported { source, name };
                }
            }
            Raw::Unresolved(format!("`{name}` is an export's public name"))
        }
        _ => Raw::Unresolved(format!("`{name}` is a property name lancet cannot resolve")),
    }
}

/// A shorthand property of a typed object literal (`{ getState }` where the literal is typed
/// `CoreInstance`) or of a destructuring pattern (`const { getState } = table`): the member
/// its key names besides the local its value is (why not, when the pattern's type is not
/// known).
pub(super) fn shorthand_member(
    semantic: &Semantic,
    returns: &Returns,
    candidates: &[(oxc_semantic::NodeId, AstKind)],
) -> Option<Raw> {
    // `({ getState } = table)`: the key is the assigned local's name, with no node of its own.
    if let Some((id, name)) = candidates.iter().find_map(|(id, k)| match k {
        AstKind::IdentifierReference(r) => Some((*id, r.name.as_str())),
        _ => None,
    }) && matches!(
        semantic.nodes().parent_kind(id),
        AstKind::AssignmentTargetPropertyIdentifier(_)
    ) {
        return Some(Raw::Unresolved(format!(
            "`{name}` is a key of a destructuring assignment: lancet does not read its value's type"
        )));
    }
    let (id, name) = candidates.iter().find_map(|(id, k)| match k {
        AstKind::IdentifierName(n) => Some((*id, n.name.to_string())),
        _ => None,
    })?;
    let property = semantic.nodes().parent_id(id);
    let literal = semantic.nodes().parent_id(property);
    match semantic.nodes().kind(property) {
        AstKind::ObjectProperty(p) if p.shorthand => Some(Raw::Member {
            holder: Box::new(literal_holder(semantic, returns, literal)?),
            name,
        }),
        // `const { getState } = table`, `{ getState = d }`: the key is a member of what is
        // destructured whatever its value binds; undecided where its type is not known.
        AstKind::BindingProperty(p) if p.shorthand => {
            Some(member_of(pattern_holder(semantic, literal, &name), &name))
        }
        _ => None,
    }
}

/// `#name`: the private member of the innermost class around it that declares one.
pub(super) fn private_member(semantic: &Semantic, node: oxc_semantic::NodeId, name: &str) -> Raw {
    for ancestor in semantic.nodes().ancestors(node) {
        if let AstKind::Class(c) = ancestor.kind() {
            let declares = c.body.body.iter().any(|element| {
                element
                    .property_key()
                    .and_then(|k| k.private_name())
                    .is_some_and(|n| n.as_str() == name)
            });
            if declares {
                return Raw::Private {
                    class: c.span.start,
                    name: name.to_string(),
                };
            }
        }
    }
    Raw::Unresolved(format!("no class around it declares `#{name}`"))
}
