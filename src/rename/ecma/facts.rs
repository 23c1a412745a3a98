//! What other files need of a module, read once per module: its exports, its classes' and
//! interfaces' members and bases, and the types its functions, methods and callable types
//! declare they return or take.

use super::ModuleFacts;
use super::Raw;
use super::bases::{class_extends, heritage, namespace_member, written_bases};
use super::context::{factory_literal, returns_by_function};
use super::holders::{declared_holder, parameter_callables};
use super::reached::{augmentations, iterator_classes};
use super::receivers::{
    Callable, declared_callable, holder_of, is_parameter_property, kept_parameter,
    parameter_holders, reference_holder, referenced_symbol, symbol_raw, type_holder,
};
use oxc_ast::AstKind;
use oxc_ast::ast::Declaration;
use oxc_ast::ast::ExportDefaultDeclarationKind;
use oxc_ast::ast::Expression;
use oxc_ast::ast::TSFunctionType;
use oxc_ast::ast::TSType;
use oxc_ast::ast::TSTypeName;
use oxc_semantic::Semantic;
use oxc_semantic::SymbolFlags;
use oxc_span::GetSpan;
use std::collections::HashMap;

/// The facts of one module, from its semantic model.
pub(super) fn facts_of(semantic: &Semantic) -> ModuleFacts {
    let scoping = semantic.scoping();
    let root = scoping.root_scope_id();
    let mut facts = ModuleFacts::default();
    // Class and interface names, each with its declarations' offsets (merged ones share one).
    let mut declared: HashMap<String, Vec<u32>> = HashMap::new();
    let local = |name: &str| -> Raw {
        match scoping.get_binding(root, name.into()) {
            Some(symbol) => symbol_raw(semantic, symbol),
            None => Raw::Unresolved(format!("`{name}` is not declared at the top of its module")),
        }
    };
    for node in semantic.nodes().iter() {
        if let Some((start, params)) = callable_facts(semantic, &node.kind()) {
            facts.callables.insert(start, params);
        }
        // An inline function type, by its own offset: a parameter declared so types the
        // callbacks passed there ([`parameter_callables`]).
        if let AstKind::TSFunctionType(f) = node.kind() {
            facts
                .callables
                .insert(f.span.start, parameter_holders(semantic, &f.params));
        }
        match node.kind() {
            AstKind::ExportDeclaration(export) => {
                // By the symbol, not the declaration: overloads and merged declarations
                // are one symbol, whose first declaration is its id.
                let names: Vec<String> = match &export.declaration {
                    Declaration::VariableDeclaration(v) => v
                        .declarations
                        .iter()
                        .flat_map(|d| d.id.get_binding_identifiers())
                        .map(|b| b.name.to_string())
                        .collect(),
                    other => other
                        .id()
                        .map(|b| vec![b.name.to_string()])
                        .unwrap_or_default(),
                };
                for name in names {
                    let raw = local(&name);
                    facts.exports.insert(name, raw);
                }
            }
            AstKind::ExportNamedDeclaration(export) => {
                for spec in &export.specifiers {
                    facts
                        .exports
                        .insert(spec.exported.name().to_string(), local(&spec.local.name()));
                }
            }
            AstKind::ExportFromDeclaration(export) => {
                for spec in &export.specifiers {
                    facts.exports.insert(
                        spec.exported.name().to_string(),
                        Raw::Imported {
                            source: export.source.value.to_string(),
                            name: spec.local.name().to_string(),
                        },
                    );
                }
            }
            AstKind::ExportAllDeclaration(export) if export.exported.is_none() => {
                facts.stars.push(export.source.value.to_string());
            }
            AstKind::ExportDefaultDeclaration(export) => {
                let raw = match export.declaration.as_expression() {
                    Some(Expression::Identifier(r)) => local(&r.name),
                    _ => default_declaration(&export.declaration),
                };
                facts.exports.insert("default".into(), raw);
            }
            AstKind::Class(_) | AstKind::TSInterfaceDeclaration(_) => {
                class_facts(semantic, &node.kind(), &mut facts, &mut declared);
            }
            // An enum's members are its own: it has no bases.
            AstKind::TSEnumDeclaration(e) => {
                facts.bases.insert(e.id.span.start, Vec::new());
                let starts = declared.entry(e.id.name.to_string()).or_default();
                starts.push(e.id.span.start);
            }
            // An object type written out has no bases.
            AstKind::TSTypeLiteral(t) => {
                facts.bases.insert(t.span.start, Vec::new());
            }
            AstKind::Function(f) => function_facts(semantic, f, &mut facts),
            kind => {
                if let (Some(name), Some(holder)) =
                    (member_key(&kind), holder_of(semantic, node.id()))
                {
                    member_facts(semantic, &kind, holder, name, &mut facts);
                }
            }
        }
    }
    factories(semantic, &mut facts);
    facts.iterators = iterator_classes(semantic);
    facts.augmentations = augmentations(semantic);
    settle(semantic, &mut facts, declared);
    facts
}

/// What a class or an interface gives its module's facts: its bases (as written and as
/// holders), its name; for a class without a name, what it extends, as written.
fn class_facts(
    semantic: &Semantic,
    kind: &AstKind,
    facts: &mut ModuleFacts,
    declared: &mut HashMap<String, Vec<u32>>,
) {
    if let AstKind::Class(c) = kind
        && c.id.is_none()
    {
        facts.nameless_bases.extend(class_extends(semantic, c));
        return;
    }
    if let Some((start, written)) = written_bases(semantic, kind) {
        facts.written_bases.insert(start, written);
    }
    if let AstKind::Class(c) = kind
        && let Some(id) = &c.id
        && !c.decorators.is_empty()
    {
        let decorators = c.decorators.iter().filter_map(|d| decorator(semantic, d));
        facts.decorators.insert(id.span.start, decorators.collect());
    }
    if let Some((name, start, bases)) = heritage(semantic, kind) {
        facts.bases.insert(start, bases);
        facts.holder_names.insert(start, name.clone());
        declared.entry(name).or_default().push(start);
    }
}

/// A decorator's binding, its leftmost name (`Component` of `@Component({…})`), and what it
/// calls as written (`Component`): a name no declaration binds is [`Raw::Outside`], a global.
fn decorator(semantic: &Semantic, decorator: &oxc_ast::ast::Decorator) -> Option<(Raw, String)> {
    let mut expression = &decorator.expression;
    // The name read off the root (`Component` of `fw.Component`).
    let mut property = None;
    loop {
        expression = match expression {
            Expression::CallExpression(call) => &call.callee,
            Expression::StaticMemberExpression(member) => {
                property = Some(member.property.name.to_string());
                &member.object
            }
            Expression::ParenthesizedExpression(inner) => &inner.expression,
            _ => break,
        };
    }
    let Expression::Identifier(named) = expression else {
        return None;
    };
    let raw = match referenced_symbol(semantic, named) {
        None => Raw::Outside(named.name.to_string()),
        // `import * as fw from "fw"`: `fw.Component` is that module's export.
        Some(symbol) => namespace_member(semantic, named, property.as_deref().unwrap_or("*"))
            .unwrap_or_else(|| symbol_raw(semantic, symbol)),
    };
    let span = match &decorator.expression {
        Expression::CallExpression(call) => call.callee.span(),
        whole => whole.span(),
    };
    let written = semantic.source_text()[span.start as usize..span.end as usize].to_string();
    Some((raw, written))
}

/// A variable's initializer as written when it may be a class: a name (`const Core = Base`:
/// `Base`), or the names a call is handed (`const Sub = mix(Base)`: `(Base)`; a call handed
/// none, `find([new Item()])`, is not one).
fn class_like_init(semantic: &Semantic, symbol: oxc_semantic::SymbolId) -> Option<String> {
    let mut declaration = semantic.scoping().symbol_declaration(symbol);
    if matches!(
        semantic.nodes().kind(declaration),
        AstKind::BindingIdentifier(_)
    ) {
        declaration = semantic.nodes().parent_id(declaration);
    }
    let AstKind::VariableDeclarator(d) = semantic.nodes().kind(declaration) else {
        return None;
    };
    match d.init.as_ref()? {
        Expression::Identifier(named) => Some(named.name.to_string()),
        Expression::CallExpression(call) => {
            let handed: Vec<&str> = call
                .arguments
                .iter()
                .filter_map(|a| match a.as_expression() {
                    Some(Expression::Identifier(named)) => Some(named.name.as_str()),
                    _ => None,
                })
                .collect();
            (!handed.is_empty()).then(|| format!("({})", handed.join(" ")))
        }
        _ => None,
    }
}

/// The types an alias is made of, as written (`Shape & { x: number }` → `Shape`): what a
/// class implementing it must implement. Type arguments are not (`Record<string, F>` is a
/// `Record`).
fn constituent_names(semantic: &Semantic, ty: &TSType, named: &mut Vec<String>) {
    match ty {
        TSType::TSIntersectionType(t) => {
            t.types
                .iter()
                .for_each(|t| constituent_names(semantic, t, named));
        }
        TSType::TSUnionType(t) => {
            t.types
                .iter()
                .for_each(|t| constituent_names(semantic, t, named));
        }
        TSType::TSParenthesizedType(t) => constituent_names(semantic, &t.type_annotation, named),
        TSType::TSTypeReference(r) => {
            let span = r.type_name.span();
            named.push(semantic.source_text()[span.start as usize..span.end as usize].to_string());
        }
        _ => {}
    }
}

/// What `export default` declares, when it is no name: a named class or function is its name
/// (as every other reference to it is), anything else itself.
fn default_declaration(declaration: &ExportDefaultDeclarationKind) -> Raw {
    let named = match declaration {
        ExportDefaultDeclarationKind::ClassDeclaration(c) => c.id.as_ref(),
        ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.id.as_ref(),
        _ => None,
    };
    Raw::Local(named.map_or(declaration.span().start, |id| id.span.start))
}

/// What a factory returns ([`factory_literal`]): its object literal, a holder of its keys with
/// no bases, as the function's return.
fn factories(semantic: &Semantic, facts: &mut ModuleFacts) {
    for (function, returns) in returns_by_function(semantic) {
        let Some(literal) = factory_literal(semantic, function, &returns) else {
            continue;
        };
        let AstKind::Function(f) = semantic.nodes().kind(function) else {
            continue;
        };
        let Some(id) = &f.id else { continue };
        let start = literal.span.start;
        let keys = literal
            .properties
            .iter()
            .filter_map(|p| match p {
                oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p) => {
                    p.key.static_name().map(|n| n.to_string())
                }
                oxc_ast::ast::ObjectPropertyKind::SpreadProperty(_) => None,
            })
            .collect();
        facts.returns.insert(id.span.start, Raw::Local(start));
        facts.members.insert(start, keys);
        facts.bases.insert(start, Vec::new());
    }
}

/// What a function declares: the callable type of each parameter, its return type (not an
/// async function's or a generator's: they return a promise or an iterator). An overloaded
/// function returns and takes what its arguments choose: neither is told.
fn function_facts(semantic: &Semantic, f: &oxc_ast::ast::Function, facts: &mut ModuleFacts) {
    let Some(id) = f.id.as_ref().filter(|id| !overloaded(semantic, id)) else {
        return;
    };
    facts
        .parameters
        .insert(id.span.start, parameter_callables(semantic, &f.params));
    let pairs = tuple_callbacks(semantic, f);
    if !pairs.is_empty() {
        facts.tuple_callbacks.insert(id.span.start, pairs);
    }
    if f.r#async || f.generator {
        return;
    }
    let Some(returned) = &f.return_type else {
        return;
    };
    if let Some(holder) = type_holder(semantic, &returned.type_annotation) {
        facts.returns.insert(id.span.start, holder);
    }
    if let Some(index) = returned_parameter(f, &returned.type_annotation) {
        facts.generic_returns.insert(id.span.start, index);
    }
}

/// The pairs of a function's parameters (the callback's position, the tuple's) where one is
/// declared `(…) => [...T]` and the other `(...args: [...T]) => …` or `(...args:
/// NoInfer<[...T]>) => …`, for one of the function's own type parameters `T`.
fn tuple_callbacks(semantic: &Semantic, f: &oxc_ast::ast::Function) -> Vec<(usize, usize)> {
    let Some(own) = f.type_parameters.as_ref() else {
        return Vec::new();
    };
    let own = |name: &str| own.params.iter().any(|p| p.name.name == name);
    // A function type of its own type parameters may shadow the function's.
    fn inline<'a>(p: &'a oxc_ast::ast::FormalParameter<'a>) -> Option<&'a TSFunctionType<'a>> {
        match &p.type_annotation.as_ref()?.type_annotation {
            TSType::TSFunctionType(t) if t.type_parameters.is_none() => Some(t),
            _ => None,
        }
    }
    let mut pairs = Vec::new();
    for (callback, takes) in f.params.items.iter().enumerate() {
        let Some(takes) = inline(takes) else { continue };
        let rest = match (&takes.params.items.is_empty(), &takes.params.rest) {
            (true, Some(rest)) => rest.type_annotation.as_ref(),
            _ => None,
        };
        let Some(spread) = rest.and_then(|a| spread_parameter(semantic, &a.type_annotation, true))
        else {
            continue;
        };
        if !own(spread) {
            continue;
        }
        for (tuple, gives) in f.params.items.iter().enumerate() {
            let returned = inline(gives)
                .and_then(|g| spread_parameter(semantic, &g.return_type.type_annotation, false));
            if tuple != callback && returned == Some(spread) {
                pairs.push((callback, tuple));
            }
        }
    }
    pairs
}

/// The type parameter `T` a type spreads as the whole of a tuple (`[...T]`; also
/// `NoInfer<[...T]>`, the global `NoInfer`, where `no_infer` allows it).
fn spread_parameter<'a>(
    semantic: &Semantic,
    ty: &'a TSType<'a>,
    no_infer: bool,
) -> Option<&'a str> {
    match ty {
        TSType::TSTupleType(t) => match t.element_types.as_slice() {
            [oxc_ast::ast::TSTupleElement::TSRestType(r)] => match &r.type_annotation {
                TSType::TSTypeReference(named) if named.type_arguments.is_none() => {
                    match &named.type_name {
                        TSTypeName::IdentifierReference(id) => Some(id.name.as_str()),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        },
        TSType::TSTypeReference(r) if no_infer => match (&r.type_name, &r.type_arguments) {
            (TSTypeName::IdentifierReference(id), Some(arguments))
                if id.name == "NoInfer" && no_infer_identity(semantic, id) =>
            {
                match arguments.params.as_slice() {
                    [inner] => spread_parameter(semantic, inner, false),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `NoInfer` names a type that is its argument: the global one, or a type alias of
/// the tree spelled as the idiom older code declares (`type NoInfer<T> = [T][T extends any ?
/// 0 : never]`).
fn no_infer_identity(semantic: &Semantic, named: &oxc_ast::ast::IdentifierReference) -> bool {
    let scoping = semantic.scoping();
    let Some(symbol) = referenced_symbol(semantic, named) else {
        return true;
    };
    let AstKind::TSTypeAliasDeclaration(alias) =
        semantic.nodes().kind(scoping.symbol_declaration(symbol))
    else {
        return false;
    };
    let parameter = match alias.type_parameters.as_ref().map(|t| t.params.as_slice()) {
        Some([p]) if p.constraint.is_none() && p.default.is_none() => p.name.name.as_str(),
        _ => return false,
    };
    let is_parameter = |ty: &TSType| {
        matches!(ty, TSType::TSTypeReference(r) if r.type_arguments.is_none()
            && matches!(&r.type_name, TSTypeName::IdentifierReference(id) if id.name == parameter))
    };
    let TSType::TSIndexedAccessType(access) = &alias.type_annotation else {
        return false;
    };
    let boxed = match &access.object_type {
        TSType::TSTupleType(t) => match t.element_types.as_slice() {
            [element] => element.as_ts_type().is_some_and(is_parameter),
            _ => false,
        },
        _ => false,
    };
    let TSType::TSConditionalType(choice) = &access.index_type else {
        return false;
    };
    let zero = matches!(&choice.true_type, TSType::TSLiteralType(l)
        if matches!(&l.literal, oxc_ast::ast::TSLiteral::NumericLiteral(n) if n.value == 0.0));
    boxed
        && is_parameter(&choice.check_type)
        && matches!(choice.extends_type, TSType::TSAnyKeyword(_))
        && zero
        && matches!(choice.false_type, TSType::TSNeverKeyword(_))
}

/// Which of a function's own type parameters a return type is (`T`, `T | undefined`).
fn returned_parameter(f: &oxc_ast::ast::Function, returned: &TSType) -> Option<usize> {
    let named = match returned {
        TSType::TSTypeReference(r) if r.type_arguments.is_none() => match &r.type_name {
            TSTypeName::IdentifierReference(id) => id,
            _ => return None,
        },
        TSType::TSUnionType(u) => {
            let mut values = u
                .types
                .iter()
                .filter(|t| !matches!(t, TSType::TSUndefinedKeyword(_) | TSType::TSNullKeyword(_)));
            return match (values.next(), values.next()) {
                (Some(one), None) => returned_parameter(f, one),
                _ => None,
            };
        }
        _ => return None,
    };
    // The function's own type parameters shadow any other of the name in its signature.
    let parameters = &f.type_parameters.as_ref()?.params;
    parameters.iter().position(|p| p.name.name == named.name)
}

/// The facts that need the whole module read: an overloaded method's types are not told
/// (its arguments choose), merged declarations are marked, top-level values and aliases typed.
fn settle(semantic: &Semantic, facts: &mut ModuleFacts, declared: HashMap<String, Vec<u32>>) {
    // An overloaded method (several declarations of one name) returns and takes what its
    // arguments choose: none of its types is told.
    let members = &facts.members;
    let single = |(holder, name): &(u32, String)| {
        members
            .get(holder)
            .is_some_and(|m| m.iter().filter(|n| *n == name).count() == 1)
    };
    facts.method_returns.retain(|key, _| single(key));
    facts.method_parameters.retain(|key, _| single(key));
    facts.member_types.retain(|key, _| single(key));
    top_level_types(semantic, facts);
    facts.merged = declared
        .into_values()
        .filter(|starts| starts.len() > 1)
        .flatten()
        .collect();
}

/// What the module's top-level variables hold and its type aliases name, where their
/// declarations say (a name that is also a type, a class or a namespace is left out: its
/// uses in types are not the value's).
fn top_level_types(semantic: &Semantic, facts: &mut ModuleFacts) {
    let scoping = semantic.scoping();
    let declarations = || scoping.iter_bindings_in(scoping.root_scope_id());
    for symbol in declarations() {
        let flags = scoping.symbol_flags(symbol);
        let start = scoping.symbol_span(symbol).start;
        let other = SymbolFlags::Class
            | SymbolFlags::Interface
            | SymbolFlags::Enum
            | SymbolFlags::Namespace
            | SymbolFlags::Function;
        if flags.is_variable()
            && !flags.intersects(other | SymbolFlags::TypeAlias)
            && let Some(holder) = declared_holder(semantic, symbol)
        {
            facts.values.insert(start, holder);
        }
        if flags.is_variable()
            && let Some(init) = class_like_init(semantic, symbol)
        {
            facts.unread_definitions.insert(start, init);
        }
        if flags.is_type_alias()
            && !flags.intersects(other | SymbolFlags::Variable)
            && let AstKind::TSTypeAliasDeclaration(a) =
                semantic.nodes().kind(scoping.symbol_declaration(symbol))
        {
            if let Some(index) = kept_parameter(semantic, a) {
                facts.parameter_aliases.insert(start, index);
            }
            if let Some(bases) = choice_facts(semantic, a) {
                facts.bases.insert(start, bases);
                facts.members.insert(start, Vec::new());
            }
        }
        if flags.is_type_alias()
            && !flags.intersects(other | SymbolFlags::Variable)
            && let AstKind::TSTypeAliasDeclaration(a) =
                semantic.nodes().kind(scoping.symbol_declaration(symbol))
            && (a.type_parameters.is_none()
                || matches!(a.type_annotation, TSType::TSTypeLiteral(_)))
        {
            match type_holder(semantic, &a.type_annotation) {
                Some(holder) => {
                    facts.aliases.insert(start, holder);
                    facts.holder_names.insert(start, a.id.name.to_string());
                }
                None if !facts.bases.contains_key(&start) => {
                    let mut named = Vec::new();
                    constituent_names(semantic, &a.type_annotation, &mut named);
                    if !named.is_empty() {
                        facts.unread_definitions.insert(start, named.join(" "));
                    }
                }
                None => {}
            }
        }
    }
}

/// What a member of a class or interface (by its holder's offset) declares: its name, its
/// return type and its parameters' callable types.
fn member_facts(
    semantic: &Semantic,
    kind: &AstKind,
    holder: u32,
    name: String,
    facts: &mut ModuleFacts,
) {
    if let Some(returned) = method_return(semantic, kind) {
        facts
            .method_returns
            .insert((holder, name.clone()), returned);
    }
    if let Some(typed) = member_type(semantic, kind) {
        facts.member_types.insert((holder, name.clone()), typed);
    }
    if let Some(params) = member_parameters(semantic, kind) {
        facts.method_parameters.insert(
            (holder, name.clone()),
            parameter_callables(semantic, params),
        );
    }
    if is_static(kind) {
        facts.statics.entry(holder).or_default().push(name.clone());
    }
    facts.members.entry(holder).or_default().push(name);
}

/// Whether a class member is static (`static create()`), a member of the class itself rather
/// than of its instances.
fn is_static(kind: &AstKind) -> bool {
    match kind {
        AstKind::MethodDefinition(m) => m.r#static,
        AstKind::PropertyDefinition(p) => p.r#static,
        AstKind::AccessorProperty(p) => p.r#static,
        _ => false,
    }
}

/// A callable type's declaration (an interface with one call signature, a type alias of a
/// function type): its name's offset and each parameter's class or interface.
pub(super) fn callable_facts(
    semantic: &Semantic,
    kind: &AstKind,
) -> Option<(u32, Vec<Option<Raw>>)> {
    match kind {
        AstKind::TSInterfaceDeclaration(i) => {
            let mut calls = i.body.body.iter().filter_map(|s| match s {
                oxc_ast::ast::TSSignature::TSCallSignatureDeclaration(c) => Some(c),
                _ => None,
            });
            match (calls.next(), calls.next()) {
                (Some(call), None) => {
                    Some((i.id.span.start, parameter_holders(semantic, &call.params)))
                }
                _ => None,
            }
        }
        AstKind::TSTypeAliasDeclaration(a) => match &a.type_annotation {
            TSType::TSFunctionType(f) => {
                Some((a.id.span.start, parameter_holders(semantic, &f.params)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The class or interface a method's return type annotation names (not an async method's or
/// a generator's: they return a promise or an iterator), or a property's declared as an inline
/// function type (`getAllColumns: () => Column[]`).
pub(super) fn method_return(semantic: &Semantic, kind: &AstKind) -> Option<Raw> {
    let annotation = match kind {
        AstKind::MethodDefinition(m) if !m.value.r#async && !m.value.generator => {
            m.value.return_type.as_ref()?
        }
        AstKind::TSMethodSignature(m) => m.return_type.as_ref()?,
        AstKind::TSPropertySignature(_) | AstKind::PropertyDefinition(_) => {
            &property_function(semantic, kind)?.return_type
        }
        _ => return None,
    };
    type_holder(semantic, &annotation.type_annotation)
}

/// The class, interface or array a property's annotation names (`column: Column<T>`,
/// `rows?: Row[]`); without one, the class or enum (or imported value) a field is
/// initialized to (`static errors = ErrorCode`).
fn member_type(semantic: &Semantic, kind: &AstKind) -> Option<Raw> {
    let annotation = match kind {
        AstKind::TSPropertySignature(p) => p.type_annotation.as_ref()?,
        AstKind::PropertyDefinition(p) => match (&p.type_annotation, &p.value) {
            (Some(a), _) => a,
            (None, Some(Expression::Identifier(named))) => {
                return reference_holder(semantic, named);
            }
            (None, _) => return None,
        },
        _ => return None,
    };
    type_holder(semantic, &annotation.type_annotation)
}

/// The parameters of a method, or of a property declared as an inline function type.
fn member_parameters<'a>(
    semantic: &Semantic,
    kind: &AstKind<'a>,
) -> Option<&'a oxc_ast::ast::FormalParameters<'a>> {
    match kind {
        AstKind::MethodDefinition(m) => Some(&m.value.params),
        AstKind::TSMethodSignature(m) => Some(&m.params),
        AstKind::TSPropertySignature(_) | AstKind::PropertyDefinition(_) => {
            Some(&property_function(semantic, kind)?.params)
        }
        _ => None,
    }
}

/// The inline function type a property is declared as (`getRow: (id: string) => Row`,
/// optional or not).
fn property_function<'a>(
    semantic: &Semantic,
    kind: &AstKind<'a>,
) -> Option<&'a TSFunctionType<'a>> {
    let annotation = match kind {
        AstKind::TSPropertySignature(p) => p.type_annotation.as_ref()?,
        AstKind::PropertyDefinition(p) => p.type_annotation.as_ref()?,
        _ => return None,
    };
    match declared_callable(semantic, &annotation.type_annotation)? {
        Callable::Inline(f) => Some(f),
        Callable::Named(_) => None,
    }
}

/// Whether a function's name is declared more than once (overloads).
fn overloaded(semantic: &Semantic, id: &oxc_ast::ast::BindingIdentifier) -> bool {
    id.symbol_id
        .get()
        .is_none_or(|symbol| !semantic.scoping().symbol_redeclarations(symbol).is_empty())
}

/// The name a class or interface member definition declares.
pub(super) fn member_key(kind: &AstKind) -> Option<String> {
    let key = match kind {
        AstKind::MethodDefinition(m) => &m.key,
        AstKind::PropertyDefinition(p) => &p.key,
        AstKind::AccessorProperty(p) => &p.key,
        AstKind::TSPropertySignature(p) => &p.key,
        AstKind::TSMethodSignature(p) => &p.key,
        // `constructor(public name: string)`: a parameter property is a member of its class.
        AstKind::FormalParameter(p) if is_parameter_property(p) => {
            return p.pattern.get_identifier_name().map(|n| n.to_string());
        }
        AstKind::TSEnumMember(m) => {
            return match &m.id {
                oxc_ast::ast::TSEnumMemberName::Identifier(i) => Some(i.name.to_string()),
                oxc_ast::ast::TSEnumMemberName::String(s) => Some(s.value.to_string()),
                _ => None,
            };
        }
        _ => return None,
    };
    key.static_name().map(|n| n.to_string())
}

/// A type alias choosing between two types (`type Fns = keyof F extends never ? { a?: X } :
/// { a: Y }`), each a class, interface or object type: a holder of no members of its own
/// whose bases are the two. A member only one declares is that one's (the code compiles only
/// where the condition chose it); one both declare is undecided, as with any two bases.
fn choice_facts(
    semantic: &Semantic,
    alias: &oxc_ast::ast::TSTypeAliasDeclaration,
) -> Option<Vec<Raw>> {
    let TSType::TSConditionalType(choice) = &alias.type_annotation else {
        return None;
    };
    let when = type_holder(semantic, &choice.true_type)?;
    let otherwise = type_holder(semantic, &choice.false_type)?;
    Some(vec![when, otherwise])
}
