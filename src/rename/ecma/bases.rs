//! What a class or an interface extends and implements, read from its declaration: each base
//! as written with what it is (a name of the file, an import, a namespace import's export, a
//! global), for the subclass search and the outside bases; and each as a holder, for the
//! members it inherits.

use super::Raw;
use super::receivers::{namespace_export, reference_holder, referenced_symbol, symbol_raw};
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, TSTypeName};
use oxc_semantic::{Semantic, SymbolFlags};
use oxc_span::GetSpan;

/// A named class's (its name's offset) or an interface's bases as written, each with what it
/// is: what the class extends and implements, what the interface extends. A base no symbol
/// declares (`extends Error`) is [`Raw::Outside`]: a global.
pub(super) fn written_bases(
    semantic: &Semantic,
    kind: &AstKind,
) -> Option<(u32, Vec<(Raw, String)>)> {
    let source = semantic.source_text();
    let written = |span: oxc_span::Span| source[span.start as usize..span.end as usize].to_string();
    let typed = |name: &TSTypeName| match name {
        TSTypeName::IdentifierReference(r) => written_base(semantic, r),
        _ => qualified_base(semantic, name)
            .unwrap_or_else(|| Raw::Unresolved("a base lancet cannot read".into())),
    };
    let (start, bases) = match kind {
        AstKind::Class(c) => {
            let extends = class_extends(semantic, c);
            let implements = c
                .implements
                .iter()
                .map(|i| (typed(&i.expression), written(i.expression.span())));
            (
                c.id.as_ref()?.span.start,
                extends.into_iter().chain(implements).collect(),
            )
        }
        AstKind::TSInterfaceDeclaration(i) => {
            let extends = i.extends.iter();
            let bases = extends.map(|h| (typed(&h.type_name), written(h.type_name.span())));
            (i.id.span.start, bases.collect())
        }
        _ => return None,
    };
    Some((start, bases))
}

/// What a class extends, as written, with what it is (see [`written_bases`]).
pub(super) fn class_extends(
    semantic: &Semantic,
    class: &oxc_ast::ast::Class,
) -> Option<(Raw, String)> {
    let base = &class.heritage.as_ref()?.expression;
    let span = base.span();
    let written = semantic.source_text()[span.start as usize..span.end as usize].to_string();
    let raw = match base {
        Expression::Identifier(r) => written_base(semantic, r),
        _ => namespace_base(semantic, base)
            .or_else(|| imported_member_base(semantic, base, &written))
            .unwrap_or_else(|| Raw::Unresolved("a base class lancet cannot read".into())),
    };
    Some((raw, written))
}

/// A base written `ns.Base` where `ns` is a namespace import (`import * as ns from "./base"`):
/// export `Base` (or `default`) of that module, as an import of it by name is.
pub(super) fn namespace_base(semantic: &Semantic, base: &Expression) -> Option<Raw> {
    let (ns, name) = dotted(base)?;
    namespace_member(semantic, ns, name)
}

/// A base written `lib.Base` lancet does not follow, for the subclass search to weigh: member
/// `Base` of an import (`import React from "react"`), which the search places by its module
/// alone; a global's (`Phaser.Scene`), outside.
fn imported_member_base(semantic: &Semantic, base: &Expression, written: &str) -> Option<Raw> {
    let (ns, name) = dotted(base)?;
    let Some(symbol) = referenced_symbol(semantic, ns) else {
        return Some(Raw::Outside(written.to_string()));
    };
    let holder = symbol_raw(semantic, symbol);
    matches!(holder, Raw::Imported { .. }).then(|| Raw::Member {
        holder: Box::new(holder),
        name: name.to_string(),
    })
}

/// `ns.name`, a member of a name.
fn dotted<'e>(
    base: &'e Expression,
) -> Option<(&'e oxc_ast::ast::IdentifierReference<'e>, &'e str)> {
    let Expression::StaticMemberExpression(member) = base else {
        return None;
    };
    let Expression::Identifier(ns) = &member.object else {
        return None;
    };
    Some((ns, member.property.name.as_str()))
}

/// [`namespace_base`] in a type (`implements ns.Runner`, `interface I extends ns.Base`).
fn qualified_base(semantic: &Semantic, name: &TSTypeName) -> Option<Raw> {
    let TSTypeName::QualifiedName(qualified) = name else {
        return None;
    };
    let TSTypeName::IdentifierReference(ns) = &qualified.left else {
        return None;
    };
    namespace_member(semantic, ns, &qualified.right.name)
}

/// Export `name` of the module `ns` imports as a namespace; `None` when `ns` is another binding.
pub(super) fn namespace_member(
    semantic: &Semantic,
    ns: &oxc_ast::ast::IdentifierReference,
    name: &str,
) -> Option<Raw> {
    let symbol = referenced_symbol(semantic, ns)?;
    let declaration = semantic.scoping().symbol_declaration(symbol);
    matches!(
        semantic.nodes().kind(declaration),
        AstKind::ImportNamespaceSpecifier(_)
    )
    .then(|| namespace_export(semantic, ns, name))
}

/// What a base written as a name is: a global no declaration binds is [`Raw::Outside`]; a
/// class, an interface or a type alias of the file, or an import, is itself.
fn written_base(semantic: &Semantic, named: &oxc_ast::ast::IdentifierReference) -> Raw {
    match referenced_symbol(semantic, named) {
        None => Raw::Outside(named.name.to_string()),
        Some(_) => reference_holder(semantic, named)
            .or_else(|| local_alias_declaration(semantic, named))
            .unwrap_or_else(|| Raw::Unresolved(format!("`{}` is no class", named.name))),
    }
}

/// A named class's or an interface's name, its name's offset and what it extends (each a
/// holder, or why not).
pub(super) fn heritage(semantic: &Semantic, kind: &AstKind) -> Option<(String, u32, Vec<Raw>)> {
    match kind {
        AstKind::Class(c) => {
            let id = c.id.as_ref()?;
            let base = c.heritage.as_ref().map(|h| match &h.expression {
                Expression::Identifier(r) => reference_holder(semantic, r)
                    .unwrap_or_else(|| Raw::Unresolved(format!("`{}` is no class", r.name))),
                other => namespace_base(semantic, other)
                    .unwrap_or_else(|| Raw::Unresolved("a base class lancet cannot read".into())),
            });
            Some((
                id.name.to_string(),
                id.span.start,
                base.into_iter().collect(),
            ))
        }
        AstKind::TSInterfaceDeclaration(i) => {
            let bases = i
                .extends
                .iter()
                .map(|h| match &h.type_name {
                    TSTypeName::IdentifierReference(r) => reference_holder(semantic, r)
                        .or_else(|| local_alias_declaration(semantic, r))
                        .unwrap_or_else(|| {
                            Raw::Unresolved(format!("`{}` is no class or interface", r.name))
                        }),
                    other => qualified_base(semantic, other).unwrap_or_else(|| {
                        Raw::Unresolved("a base interface lancet cannot read".into())
                    }),
                })
                .collect();
            Some((i.id.name.to_string(), i.id.span.start, bases))
        }
        _ => None,
    }
}

/// A type alias of this file an interface extends, by its name's offset: what it names is
/// told where it is declared (an object type written out, a choice of two).
fn local_alias_declaration(
    semantic: &Semantic,
    named: &oxc_ast::ast::IdentifierReference,
) -> Option<Raw> {
    let scoping = semantic.scoping();
    let symbol = referenced_symbol(semantic, named)?;
    let flags = scoping.symbol_flags(symbol);
    (flags.is_type_alias() && !flags.intersects(SymbolFlags::Class | SymbolFlags::Interface))
        .then(|| Raw::Local(scoping.symbol_span(symbol).start))
}
