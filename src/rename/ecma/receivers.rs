//! What declarations and annotations say a value holds, without following values through the
//! code: a symbol's declaration or import, the class or interface a type names (through
//! aliases and member-keeping wrappers), `this`, a field's or a called function's declared
//! type, the callable type a function is declared as, the type an expression is checked
//! against, the class around a member. `holders` follows values on these facts.

use super::Raw;
use super::outside_parentheses;
use oxc_ast::AstKind;
use oxc_ast::ast::Expression;
use oxc_ast::ast::TSFunctionType;
use oxc_ast::ast::TSType;
use oxc_ast::ast::TSTypeName;
use oxc_semantic::Semantic;
use oxc_semantic::SymbolFlags;
use oxc_semantic::SymbolId;
use oxc_span::GetSpan;

/// A symbol of the file: its declaration, or the import it is.
/// Whether a constructor's parameter declares a member of its class too (`public name`,
/// `private readonly id`, `override x`).
pub(super) fn is_parameter_property(p: &oxc_ast::ast::FormalParameter) -> bool {
    p.accessibility.is_some() || p.readonly || p.r#override
}

pub(super) fn symbol_raw(semantic: &Semantic, symbol: SymbolId) -> Raw {
    let scoping = semantic.scoping();
    let declaration = scoping.symbol_declaration(symbol);
    // `B = A << 1` inside an enum: its member `A`, as `E.A` names it.
    if scoping
        .symbol_flags(symbol)
        .contains(SymbolFlags::EnumMember)
    {
        return match holder_of(semantic, declaration) {
            Some(enumeration) => Raw::Member {
                holder: Box::new(Raw::Local(enumeration)),
                name: scoping.symbol_name(symbol).to_string(),
            },
            None => Raw::Unresolved("an enum member lancet cannot place".into()),
        };
    }
    // A parameter property (`constructor(public name: string)`) is its class's member `name`:
    // its uses in the constructor and `this.name` are one symbol, renamed together.
    if let AstKind::FormalParameter(p) = semantic.nodes().kind(declaration)
        && is_parameter_property(p)
    {
        return match holder_of(semantic, declaration) {
            Some(class) => Raw::Member {
                holder: Box::new(Raw::Local(class)),
                name: scoping.symbol_name(symbol).to_string(),
            },
            // A class expression's (`const C = class { … }`): its members are not told.
            None => Raw::Unresolved("a parameter property of a class without a name".into()),
        };
    }
    if !scoping.symbol_flags(symbol).is_import() {
        return Raw::Local(scoping.symbol_span(symbol).start);
    }
    let name = match semantic.nodes().kind(declaration) {
        AstKind::ImportSpecifier(s) => s.imported.name().to_string(),
        AstKind::ImportDefaultSpecifier(_) => "default".to_string(),
        // `import * as ns`: the namespace object is this file's own binding.
        AstKind::ImportNamespaceSpecifier(_) => {
            return Raw::Local(scoping.symbol_span(symbol).start);
        }
        _ => return Raw::Unresolved("an import lancet cannot read".into()),
    };
    imported(semantic, declaration, name)
}

/// Export `name` of the module the import declaration around `node` names (a file of the tree,
/// a workspace package under the root or another package: told apart when modules are joined).
pub(super) fn imported(semantic: &Semantic, node: oxc_semantic::NodeId, name: String) -> Raw {
    for ancestor in semantic.nodes().ancestors(node) {
        if let AstKind::ImportDeclaration(import) = ancestor.kind() {
            let source = import.source.value.to_string();
            return Raw::Imported { source, name };
        }
    }
    Raw::Unresolved("an import lancet cannot read".into())
}

/// What the object of `object.name` stands for.
pub(super) enum Receiver {
    /// A class or interface whose member `name` is (a `Local` or `Imported` holder), or why
    /// there is none.
    Holder(Raw),
    /// A namespace import: `name` is an export of its module, resolved here.
    Export(Raw),
}

/// The class whose body `this` at `node` is in: the innermost class, unless a function that
/// is not its method rebinds `this` first (why not, then).
pub(super) fn this_class<'s>(
    semantic: &'s Semantic,
    node: oxc_semantic::NodeId,
) -> Result<&'s oxc_ast::ast::Class<'s>, String> {
    for ancestor in semantic.nodes().ancestors(node) {
        match ancestor.kind() {
            AstKind::Function(_) => {
                // A method's own function; any other function rebinds `this`.
                let parent = semantic.nodes().parent_kind(ancestor.id());
                if !matches!(parent, AstKind::MethodDefinition(_)) {
                    return Err("`this` inside a function that is not a method".into());
                }
            }
            AstKind::Class(c) => return Ok(c),
            _ => {}
        }
    }
    Err("`this` outside a class".into())
}

/// The class or interface field `field` of `this`'s class holds, as the class declares it:
/// its annotation (`#cache: QueryCache`, `x: Foo | undefined`) or, without one, its
/// initializer `new Foo()`. A field the class does not declare itself is not looked for.
pub(super) fn field_holder(
    semantic: &Semantic,
    node: oxc_semantic::NodeId,
    field: &str,
    private: bool,
) -> Raw {
    let class = match this_class(semantic, node) {
        Ok(c) => c,
        Err(why) => return Raw::Unresolved(why),
    };
    let shown = if private {
        format!("#{field}")
    } else {
        field.to_string()
    };
    let declared = class.body.body.iter().find_map(|element| match element {
        oxc_ast::ast::ClassElement::PropertyDefinition(p) if !p.r#static => {
            let name = if private {
                p.key.private_name().map(|n| n.to_string())
            } else if p.key.is_private_identifier() {
                None
            } else {
                p.key.static_name().map(|n| n.to_string())
            };
            (name.as_deref() == Some(field)).then_some(p)
        }
        _ => None,
    });
    let Some(declared) = declared else {
        return Raw::Unresolved(format!(
            "the class of `this.{shown}` is not declared by its class"
        ));
    };
    let holder = match (&declared.type_annotation, &declared.value) {
        (Some(a), _) => type_holder(semantic, &a.type_annotation),
        (None, Some(Expression::NewExpression(n))) => match &n.callee {
            Expression::Identifier(id) => reference_holder(semantic, id),
            _ => None,
        },
        _ => None,
    };
    holder.unwrap_or_else(|| {
        Raw::Unresolved(format!(
            "the type of `this.{shown}` is not a class or interface lancet can name"
        ))
    })
}

/// The class or interface a name in a type or a `new` refers to: one of this file (by its
/// declaration's offset), an import, or outside the tree; `None` for anything else (a type
/// alias, a type parameter).
pub(super) fn reference_holder(
    semantic: &Semantic,
    named: &oxc_ast::ast::IdentifierReference,
) -> Option<Raw> {
    let scoping = semantic.scoping();
    let class = referenced_symbol(semantic, named)?;
    let flags = scoping.symbol_flags(class);
    if flags.intersects(SymbolFlags::Class | SymbolFlags::Interface | SymbolFlags::Enum) {
        return Some(Raw::Local(scoping.symbol_span(class).start));
    }
    match symbol_raw(semantic, class) {
        held @ (Raw::Imported { .. } | Raw::Outside(_)) => Some(held),
        _ => None,
    }
}

/// The class or interface a type annotation names: `Foo`, `Foo<T>`, and `Foo | undefined`
/// or `Foo | null` (a member is reached only when there is a value); an array of one
/// ([`Raw::ArrayOf`]: `Foo[]`, `Array<Foo>`, `readonly Foo[]`); what a type alias of this file
/// names (an imported one is followed when modules are joined).
pub(super) fn type_holder(semantic: &Semantic, ty: &TSType) -> Option<Raw> {
    aliased_type_holder(semantic, ty, 0)
}

/// [`type_holder`], `depth` type aliases deep.
fn aliased_type_holder(semantic: &Semantic, ty: &TSType, depth: usize) -> Option<Raw> {
    const MAX_ALIASES: usize = 8;
    match ty {
        TSType::TSArrayType(a) => {
            aliased_type_holder(semantic, &a.element_type, depth).map(|e| Raw::ArrayOf(Box::new(e)))
        }
        TSType::TSTypeOperatorType(o)
            if o.operator == oxc_ast::ast::TSTypeOperatorOperator::Readonly =>
        {
            aliased_type_holder(semantic, &o.type_annotation, depth)
        }
        // `Array<T>`, `ReadonlyArray<T>`: the global ones (no declaration in the file).
        TSType::TSTypeReference(r)
            if matches!(&r.type_name, TSTypeName::IdentifierReference(id)
                if matches!(id.name.as_str(), "Array" | "ReadonlyArray")
                    && referenced_symbol(semantic, id).is_none()) =>
        {
            let args = r.type_arguments.as_ref()?;
            match args.params.as_slice() {
                [element] => {
                    aliased_type_holder(semantic, element, depth).map(|e| Raw::ArrayOf(Box::new(e)))
                }
                _ => None,
            }
        }
        TSType::TSTypeReference(r) => {
            let TSTypeName::IdentifierReference(id) = &r.type_name else {
                return None;
            };
            let arguments = r.type_arguments.as_ref().map(|a| a.params.as_slice());
            if depth >= MAX_ALIASES {
                return None;
            }
            // `Partial<Foo>`, `Pick<Foo, 'a'>`: the library's mapped types keep Foo's members
            // (TypeScript links each to Foo's declaration).
            if let Some([first, ..]) = arguments
                && MEMBER_KEEPING.contains(&id.name.as_str())
                && referenced_symbol(semantic, id).is_none()
            {
                return aliased_type_holder(semantic, first, depth + 1);
            }
            if let Some(named) = local_alias(semantic, id) {
                return aliased_type_holder(semantic, &named.type_annotation, depth + 1);
            }
            // `RequiredKeys<Foo, 'a'>` where the alias keeps its parameter's members.
            if let Some(index) = referenced_symbol(semantic, id)
                .and_then(|symbol| alias_of_parameter(semantic, symbol))
            {
                return aliased_type_holder(semantic, arguments?.get(index)?, depth + 1);
            }
            match (reference_holder(semantic, id), arguments) {
                // An imported generic type: an alias of one of its parameters (decided when
                // modules are joined) or the type itself.
                (Some(imported @ Raw::Imported { .. }), Some(arguments)) => Some(Raw::AliasOf {
                    alias: Box::new(imported),
                    arguments: arguments
                        .iter()
                        .map(|a| aliased_type_holder(semantic, a, depth + 1))
                        .collect(),
                }),
                (Some(holder), _) => Some(holder),
                (None, _) => global_map(semantic, id, r.type_arguments.as_deref()),
            }
        }
        TSType::TSUnionType(u) => {
            let mut values = u
                .types
                .iter()
                .filter(|t| !matches!(t, TSType::TSUndefinedKeyword(_) | TSType::TSNullKeyword(_)));
            match (values.next(), values.next()) {
                (Some(one), None) => aliased_type_holder(semantic, one, depth),
                _ => None,
            }
        }
        // `type Decoded = { consumed: number }`: an object type a type alias names holds its
        // own members.
        TSType::TSTypeLiteral(t) if named_object_type(semantic, t) => {
            Some(Raw::Local(t.span.start))
        }
        TSType::TSParenthesizedType(p) => aliased_type_holder(semantic, &p.type_annotation, depth),
        _ => None,
    }
}

/// Whether an object type written out is what a type alias names (`type Decoded = { … }`),
/// or one of the two a type alias chooses between (`type F = C extends X ? { … } : { … }`).
/// An object type written inline elsewhere (`(): { consumed: number }`) has no name: values
/// reach it by their shape alone (a `Decoded` returned where it is declared), so renaming a
/// member of either would break the other; its members are not told.
pub(super) fn named_object_type(semantic: &Semantic, object: &oxc_ast::ast::TSTypeLiteral) -> bool {
    let nodes = semantic.nodes();
    let parent = nodes.parent_id(object.node_id.get());
    match nodes.kind(parent) {
        AstKind::TSTypeAliasDeclaration(_) => true,
        AstKind::TSConditionalType(c) => {
            let branch = object.span;
            (c.true_type.span() == branch || c.false_type.span() == branch)
                && matches!(
                    nodes.parent_kind(parent),
                    AstKind::TSTypeAliasDeclaration(_)
                )
        }
        _ => false,
    }
}

/// The library's mapped types whose members are their first argument's, each linked to its
/// declaration.
const MEMBER_KEEPING: &[&str] = &["Partial", "Required", "Readonly", "Pick", "Omit"];

/// The symbol of the tree a name refers to (`None` for a global).
pub(super) fn referenced_symbol(
    semantic: &Semantic,
    named: &oxc_ast::ast::IdentifierReference,
) -> Option<SymbolId> {
    named
        .reference_id
        .get()
        .and_then(|id| semantic.scoping().get_reference(id).symbol_id())
}

/// Which of its type parameters a generic type alias of this file (by symbol) keeps the
/// members of ([`kept_parameter`]).
fn alias_of_parameter(semantic: &Semantic, symbol: SymbolId) -> Option<usize> {
    let scoping = semantic.scoping();
    let flags = scoping.symbol_flags(symbol);
    if !flags.is_type_alias() || flags.intersects(SymbolFlags::Class | SymbolFlags::Interface) {
        return None;
    }
    match semantic.nodes().kind(scoping.symbol_declaration(symbol)) {
        AstKind::TSTypeAliasDeclaration(a) => kept_parameter(semantic, a),
        _ => None,
    }
}

/// Which of its type parameters a generic type alias keeps the members of: its body is that
/// parameter, the library's member-keeping mapped types of it, or an intersection of those
/// (`type RequiredKeys<T, K extends keyof T> = Omit<T, K> & Required<Pick<T, K>>`).
pub(super) fn kept_parameter(
    semantic: &Semantic,
    alias: &oxc_ast::ast::TSTypeAliasDeclaration,
) -> Option<usize> {
    fn kept<'a>(semantic: &Semantic, ty: &'a TSType<'a>) -> Option<&'a str> {
        match ty {
            TSType::TSTypeReference(r) => {
                let TSTypeName::IdentifierReference(id) = &r.type_name else {
                    return None;
                };
                match r.type_arguments.as_ref().map(|a| a.params.as_slice()) {
                    None => Some(id.name.as_str()),
                    Some([first, ..])
                        if MEMBER_KEEPING.contains(&id.name.as_str())
                            && referenced_symbol(semantic, id).is_none() =>
                    {
                        kept(semantic, first)
                    }
                    _ => None,
                }
            }
            TSType::TSIntersectionType(i) => {
                let mut names = i.types.iter().map(|t| kept(semantic, t));
                let first = names.next()??;
                names.all(|n| n == Some(first)).then_some(first)
            }
            TSType::TSParenthesizedType(p) => kept(semantic, &p.type_annotation),
            _ => None,
        }
    }
    let name = kept(semantic, &alias.type_annotation)?;
    alias
        .type_parameters
        .as_ref()?
        .params
        .iter()
        .position(|p| p.name.name == name)
}

/// A global `Map`/`ReadonlyMap` (no declaration of the tree names it) of the values its type
/// arguments say (`Map<string, Item>`; undecided values when they name no class, interface or
/// array, or are left to inference): [`Raw::MapOf`]; `None` for any other name.
pub(super) fn global_map(
    semantic: &Semantic,
    named: &oxc_ast::ast::IdentifierReference,
    arguments: Option<&oxc_ast::ast::TSTypeParameterInstantiation>,
) -> Option<Raw> {
    let global = matches!(named.name.as_str(), "Map" | "ReadonlyMap")
        && referenced_symbol(semantic, named).is_none();
    if !global {
        return None;
    }
    // A Map whose values' type lancet cannot name is still the global Map: its own members
    // are the library's, what it holds is undecided.
    let unnamed =
        || Raw::Unresolved("a value of a Map whose values' type lancet cannot name".into());
    match arguments.map(|a| a.params.as_slice()) {
        Some([_, value]) => Some(Raw::MapOf(Box::new(
            aliased_type_holder(semantic, value, 0).unwrap_or_else(unnamed),
        ))),
        None => Some(Raw::MapOf(Box::new(unnamed()))),
        _ => None,
    }
}

/// The declaration of the type alias of this file a name refers to (not a generic one: what
/// it names depends on its arguments; but a generic object type written out holds the same
/// members whatever its arguments).
fn local_alias<'s>(
    semantic: &'s Semantic,
    named: &oxc_ast::ast::IdentifierReference,
) -> Option<&'s oxc_ast::ast::TSTypeAliasDeclaration<'s>> {
    let scoping = semantic.scoping();
    let symbol = referenced_symbol(semantic, named)?;
    let flags = scoping.symbol_flags(symbol);
    if !flags.is_type_alias() || flags.intersects(SymbolFlags::Class | SymbolFlags::Interface) {
        return None;
    }
    match semantic.nodes().kind(scoping.symbol_declaration(symbol)) {
        AstKind::TSTypeAliasDeclaration(a)
            if a.type_parameters.is_none()
                || matches!(a.type_annotation, TSType::TSTypeLiteral(_)) =>
        {
            Some(a)
        }
        _ => None,
    }
}

/// Whether an index expression is a number by its declaration: a numeric literal, or a local
/// declared `number` or initialized with a numeric literal and no annotation (`for (let i =
/// 0; …; i++)`): `rows[i]` is then an element of an array.
pub(super) fn numeric_index(semantic: &Semantic, index: &Expression) -> bool {
    let reference = match index {
        Expression::NumericLiteral(_) => return true,
        Expression::Identifier(r) => r,
        _ => return false,
    };
    let scoping = semantic.scoping();
    let Some(symbol) = referenced_symbol(semantic, reference) else {
        return false;
    };
    let declaration = semantic
        .nodes()
        .parent_id(scoping.symbol_declaration(symbol));
    let declarator = match semantic.nodes().kind(scoping.symbol_declaration(symbol)) {
        AstKind::VariableDeclarator(d) => d,
        _ => match semantic.nodes().kind(declaration) {
            AstKind::VariableDeclarator(d) => d,
            _ => return false,
        },
    };
    if declarator.id.get_binding_identifier().is_none() {
        return false;
    }
    match (&declarator.type_annotation, &declarator.init) {
        (Some(a), _) => matches!(a.type_annotation, TSType::TSNumberKeyword(_)),
        (None, Some(Expression::NumericLiteral(_))) => semantic.source_type().is_typescript(),
        _ => false,
    }
}

/// An element of what a receiver is, where it is declared an array: the element's holder, or
/// [`Raw::ElementOf`] a declared value (decided when modules are joined).
pub(super) fn element_of(receiver: Receiver) -> Option<Raw> {
    match receiver {
        Receiver::Holder(Raw::ArrayOf(element)) => Some(*element),
        // An imported name may be a type alias of an array (`cols: Columns`): decided when
        // modules are joined (an imported class is no array: undecided).
        Receiver::Holder(
            declared @ (Raw::Parameter { .. }
            | Raw::TupleElement { .. }
            | Raw::AliasOf { .. }
            | Raw::Returns(_)
            | Raw::GenericReturns { .. }
            | Raw::MethodReturns { .. }
            | Raw::FieldOf { .. }
            | Raw::Imported { .. }),
        ) => Some(Raw::ElementOf(Box::new(declared))),
        _ => None,
    }
}

/// Member `name` of what a receiver is: the holder's member, or why there is none (the
/// receiver's own `Unresolved` or `Outside`).
pub(super) fn member_of(holder: Raw, name: &str) -> Raw {
    match holder {
        holder if holder.holds_members() => Raw::Member {
            holder: Box::new(holder),
            name: name.to_string(),
        },
        other => other,
    }
}

/// What calling the function `callee` names returns: [`Raw::Returns`] of a function of this
/// file or an imported one (its declaration's return type decides, when modules are joined).
pub(super) fn called(semantic: &Semantic, callee: &oxc_ast::ast::IdentifierReference) -> Raw {
    let declared = referenced_symbol(semantic, callee).is_some();
    match called_function(semantic, callee) {
        Some(f) => Raw::Returns(Box::new(f)),
        None if let Some(returned) = annotated_call(semantic, callee) => returned,
        None if !declared => {
            Raw::Unresolved(format!("`{}` is not declared in this file", callee.name))
        }
        None => Raw::Unresolved(format!("what `{}(…)` returns is not known", callee.name)),
    }
}

/// What calling a local declared as a function type returns, where its annotation names a
/// class, interface or array (`getColumns: () => Column[]`, a parameter or a variable).
fn annotated_call(semantic: &Semantic, callee: &oxc_ast::ast::IdentifierReference) -> Option<Raw> {
    let scoping = semantic.scoping();
    let symbol = referenced_symbol(semantic, callee)?;
    let nodes = semantic.nodes();
    let declaration = scoping.symbol_declaration(symbol);
    let owner = match nodes.kind(declaration) {
        AstKind::BindingIdentifier(_) => nodes.parent_id(declaration),
        _ => declaration,
    };
    let annotation = match nodes.kind(owner) {
        AstKind::FormalParameter(p) if p.pattern.get_binding_identifier().is_some() => {
            p.type_annotation.as_deref()?
        }
        AstKind::VariableDeclarator(d) if d.id.get_binding_identifier().is_some() => {
            d.type_annotation.as_deref()?
        }
        _ => return None,
    };
    match declared_callable(semantic, &annotation.type_annotation)? {
        Callable::Inline(f) => type_holder(semantic, &f.return_type.type_annotation),
        Callable::Named(_) => None,
    }
}

/// The function a called name is: one this file declares, or an import (`None` for a
/// local holding some value, or an undeclared name).
pub(super) fn called_function(
    semantic: &Semantic,
    callee: &oxc_ast::ast::IdentifierReference,
) -> Option<Raw> {
    let scoping = semantic.scoping();
    let function = referenced_symbol(semantic, callee)?;
    match symbol_raw(semantic, function) {
        f @ Raw::Imported { .. } => Some(f),
        f @ Raw::Local(_) if scoping.symbol_flags(function).is_function() => Some(f),
        _ => None,
    }
}

/// `ns.name` where `ns` is `import * as ns from 'source'`.
pub(super) fn namespace_export(
    semantic: &Semantic,
    ns: &oxc_ast::ast::IdentifierReference,
    name: &str,
) -> Raw {
    let scoping = semantic.scoping();
    let Some(symbol) = referenced_symbol(semantic, ns) else {
        return Raw::Unresolved(format!("`{}` is not declared", ns.name));
    };
    imported(
        semantic,
        scoping.symbol_declaration(symbol),
        name.to_string(),
    )
}

/// The array methods whose callback's two first parameters are elements of the array.
pub(super) const PAIR_CALLBACKS: &[&str] = &["sort", "toSorted"];

/// The array methods whose callback's second parameter is an element of the array (the
/// first is the accumulator).
pub(super) const FOLD_CALLBACKS: &[&str] = &["reduce", "reduceRight"];

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

/// The annotation naming the type an expression (by node) is checked against, where the code
/// declares it: the annotated variable it initializes (`const t: Table = {…}`), or the
/// declared return type of the function it is returned from (not an async function's or a
/// generator's).
pub(super) fn contextual_type<'s>(
    semantic: &'s Semantic,
    expression: oxc_semantic::NodeId,
) -> Option<&'s TSType<'s>> {
    let nodes = semantic.nodes();
    let start = nodes.kind(expression).span();
    let (_, parent) = outside_parentheses(semantic, expression);
    match nodes.kind(parent) {
        AstKind::VariableDeclarator(d) => {
            let init = d.init.as_ref()?;
            (init.span().start <= start.start && init.span().end >= start.end)
                .then_some(())
                .and(d.type_annotation.as_deref())
                .map(|a| &a.type_annotation)
        }
        AstKind::ReturnStatement(_) => returned_type(semantic, parent),
        // An arrow's expression body: what the arrow returns.
        AstKind::ArrowFunctionExpression(a)
            if !a.r#async
                && !matches!(a.body, oxc_ast::ast::ArrowFunctionBody::FunctionBody(_)) =>
        {
            a.return_type.as_deref().map(|r| &r.type_annotation)
        }
        _ => None,
    }
}

/// The declared return type of the function a `return` (by node) returns from.
pub(super) fn returned_type<'s>(
    semantic: &'s Semantic,
    statement: oxc_semantic::NodeId,
) -> Option<&'s TSType<'s>> {
    for ancestor in semantic.nodes().ancestors(statement) {
        match ancestor.kind() {
            AstKind::Function(f) => {
                return (!f.r#async && !f.generator)
                    .then_some(f.return_type.as_deref())
                    .flatten()
                    .map(|r| &r.type_annotation);
            }
            AstKind::ArrowFunctionExpression(a) => {
                return (!a.r#async)
                    .then_some(a.return_type.as_deref())
                    .flatten()
                    .map(|r| &r.type_annotation);
            }
            _ => {}
        }
    }
    None
}

/// The class, interface or enum around a member definition, by its name's offset.
pub(super) fn holder_of(semantic: &Semantic, node: oxc_semantic::NodeId) -> Option<u32> {
    for ancestor in semantic.nodes().ancestors(node) {
        match ancestor.kind() {
            AstKind::Class(c) => return c.id.as_ref().map(|id| id.span.start),
            AstKind::TSInterfaceDeclaration(i) => return Some(i.id.span.start),
            AstKind::TSEnumDeclaration(e) => return Some(e.id.span.start),
            // An object type a type alias names (`type Decoded = { consumed: number }`): its
            // members are its own, by the literal's offset. One written inline, nameless, is
            // matched by its shape alone: its members are not told.
            AstKind::TSTypeLiteral(t) => {
                return named_object_type(semantic, t).then_some(t.span.start);
            }
            AstKind::ObjectExpression(_) => return None,
            _ => {}
        }
    }
    None
}
