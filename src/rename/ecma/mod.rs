//! JavaScript and TypeScript name resolution for `lancet rename`, from `oxc_semantic`: the
//! scopes, symbols and resolved references of each file (the semantic layer of the precise
//! parser the gate already uses), joined across the tree's modules by their imports and
//! exports.
//!
//! - A name resolves to its symbol in the file (`let`, `const`, a parameter, a function, a
//!   class, an interface, a type): the symbol's declaration is its id, so a local that shadows
//!   an import is its own symbol.
//! - An import from a relative module (`./a`, `../b/index`) follows that module's exports
//!   (`export function`, `export { x as y }`, `export { x } from`, `export *`) to the declaring
//!   file; so does one from a package whose sources are under the root ([`packages`]: a
//!   workspace's package by its name, a tsconfig `paths` entry, a `node_modules` link into the
//!   tree); an import from any other package resolves outside the tree.
//! - A member is the symbol when its holder is known: a method or field of a class or
//!   interface, `this.x` in a class that declares `x`, `C.x` for a class `C` of the tree (also
//!   imported), `x.m` for a local declared a class or interface (`x: Foo`, `x: Foo<T>`,
//!   `x: Foo | undefined`, `const x = new Foo()`, `const x = make()` where `make` declares
//!   its return type), `this.f.m` / `this.#f.m` for a field its class declares so, and `new
//!   Foo().m` / `make().m`; a member a holder does not declare is its base's (`extends`,
//!   followed through the tree) when exactly one base declares it and every base is known.
//!   Any other receiver is unresolved (its type needs a type checker: the hybrid resolver or
//!   `--lsp`).
//! - A private member (`#count`) is the one the innermost class around it declares.
//! - A property key of an object literal typed by the code (the annotated variable it
//!   initializes, the declared return type of the function returning it) is that type's
//!   member (a shorthand `{ x }` there is the local and the member at once); any other
//!   property key is unresolved. A key of an object binding pattern (`const { x } = t`,
//!   `{ x: y }`, `{ x = d }`, a parameter `({ x }: T)`) is a member of the type the pattern's
//!   value is declared (its annotation, the initializer's holder, the parameter's type or
//!   callable type); unresolved when that type is not known, as is a shorthand key of a
//!   destructuring assignment (`({ x } = t)`). An unannotated parameter of an arrow or function expression
//!   declared as a callable type (`const f: SortingFn<T> = (a, b) => …`, returned from a
//!   function whose return type is a function type) has that type's parameter's class; a
//!   local initialized `e as Foo` holds a Foo. A global the file does not declare
//!   (`Promise`, `console`) resolves outside the tree.

use super::model::{self, EcmaMember, Parsed, Resolution};
use super::resolve::{Resolved, Resolver, Sources};
use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{Declaration, Expression, TSType, TSTypeName};
use oxc_semantic::{Semantic, SemanticBuilder, SymbolFlags, SymbolId};
use oxc_span::{GetSpan, SourceType};
use packages::{Bare, Packages};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

mod packages;

/// How deep re-export chains are followed.
const MAX_DEPTH: usize = 16;

/// The extensions a module specifier may leave out, in TypeScript's order of preference.
const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

/// What one occurrence is, before modules are joined.
#[derive(Debug, Clone)]
enum Raw {
    /// A symbol declared in this file, by the declaration's offset.
    Local(u32),
    /// `name` exported by the module `source` names.
    Imported {
        source: String,
        name: String,
    },
    /// A class's private member `#name`, by the class's offset: only that class's body can
    /// name it.
    Private {
        class: u32,
        name: String,
    },
    /// What calling a function (a `Local` or `Imported` one) returns, as its return type
    /// annotation names it: a holder of members.
    Returns(Box<Raw>),
    /// What calling method `name` of a holder returns, as the method's declaration (its own,
    /// or the one the holder inherits) names it.
    MethodReturns {
        holder: Box<Raw>,
        name: String,
    },
    /// The type of parameter `index` of a callable type (an interface with one call
    /// signature, or a type alias of a function type), as its declaration names it: a
    /// holder of members (`(rowA, rowB) => …` typed `SortingFn<T>`).
    Parameter {
        callable: Box<Raw>,
        index: usize,
    },
    /// An array (`T[]`, `Array<T>`, `readonly T[]`) of what the holder inside is: its
    /// members are the array's, its elements the holder's.
    ArrayOf(Box<Raw>),
    /// An element of the array a value (a parameter's, a function's return) is declared as:
    /// the parameter of `rows.map(row => …)` (decided when modules are joined).
    ElementOf(Box<Raw>),
    /// Member `name` of a class or interface.
    Member {
        holder: Box<Raw>,
        name: String,
    },
    Outside(String),
    Unresolved(String),
}

/// What other files need of a module: its exports and its classes' members.
#[derive(Debug, Default)]
pub(crate) struct ModuleFacts {
    /// Exported name → where it is declared.
    exports: HashMap<String, Raw>,
    /// `export * from` sources.
    stars: Vec<String>,
    /// Class or interface (by its name's offset) → member names.
    members: HashMap<u32, Vec<String>>,
    /// Class or interface (by its name's offset) → what it extends (`class A extends B`,
    /// `interface I extends J, K`), each as a holder (or why not).
    bases: HashMap<u32, Vec<Raw>>,
    /// Classes and interfaces declared more than once in the module (merged declarations):
    /// their members are not all under one offset, so none is looked up in their bases.
    merged: std::collections::HashSet<u32>,
    /// Function (by its name's offset) → the class or interface its return type annotation
    /// names (`function make(): Client`), for `make().x` and `const c = make()`.
    returns: HashMap<u32, Raw>,
    /// Method (by its holder's name's offset and its name) → the class or interface its
    /// return type annotation names (`getCache(): QueryCache`).
    method_returns: HashMap<(u32, String), Raw>,
    /// Callable type (an interface with one call signature, or a type alias of a function
    /// type, by its name's offset) → each parameter's class or interface, where its
    /// annotation names one.
    callables: HashMap<u32, Vec<Option<Raw>>>,
}

/// One file's analysis: each asked occurrence's raw resolution, and the module's facts.
struct Analysis {
    /// Each occurrence's resolution and, for a shorthand property of a typed object literal
    /// (`{ getState }` typed `CoreInstance`), the member its key also names.
    raw: Vec<(Raw, Option<Raw>)>,
    facts: Arc<ModuleFacts>,
}

fn source_type(path: &str) -> SourceType {
    SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts())
}

/// Parses `text` and runs `f` over its semantic model.
fn with_semantic<R>(path: &str, text: &str, f: impl FnOnce(&Semantic) -> R) -> R {
    let allocator = Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, text, source_type(path)).parse();
    let built = SemanticBuilder::new()
        .with_build_nodes(true)
        .build(&parsed.program);
    f(&built.semantic)
}

fn relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
}

/// The facts of one module, from its semantic model.
fn facts_of(semantic: &Semantic) -> ModuleFacts {
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
                    _ => Raw::Local(export.declaration.span().start),
                };
                facts.exports.insert("default".into(), raw);
            }
            AstKind::Class(_) | AstKind::TSInterfaceDeclaration(_) => {
                if let Some((name, start, bases)) = heritage(semantic, &node.kind()) {
                    facts.bases.insert(start, bases);
                    declared.entry(name).or_default().push(start);
                }
            }
            AstKind::Function(f) if !f.r#async && !f.generator => {
                if let (Some(id), Some(returned)) = (&f.id, &f.return_type)
                    && let Some(holder) = type_holder(semantic, &returned.type_annotation)
                {
                    facts.returns.insert(id.span.start, holder);
                }
            }
            kind => {
                if let (Some(name), Some(holder)) =
                    (member_key(&kind), holder_of(semantic, node.id()))
                {
                    if let Some(returned) = method_return(semantic, &kind) {
                        facts
                            .method_returns
                            .insert((holder, name.clone()), returned);
                    }
                    facts.members.entry(holder).or_default().push(name);
                }
            }
        }
    }
    // An overloaded method (several declarations of one name) returns what its arguments
    // choose: none of its return types is told.
    let members = &facts.members;
    facts.method_returns.retain(|(holder, name), _| {
        members
            .get(holder)
            .is_some_and(|m| m.iter().filter(|n| *n == name).count() == 1)
    });
    facts.merged = declared
        .into_values()
        .filter(|starts| starts.len() > 1)
        .flatten()
        .collect();
    facts
}

/// A callable type's declaration (an interface with one call signature, a type alias of a
/// function type): its name's offset and each parameter's class or interface.
fn callable_facts(semantic: &Semantic, kind: &AstKind) -> Option<(u32, Vec<Option<Raw>>)> {
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

/// A named class's or an interface's name, its name's offset and what it extends (each a
/// holder, or why not).
fn heritage(semantic: &Semantic, kind: &AstKind) -> Option<(String, u32, Vec<Raw>)> {
    match kind {
        AstKind::Class(c) => {
            let id = c.id.as_ref()?;
            let base = c.heritage.as_ref().map(|h| match &h.expression {
                Expression::Identifier(r) => reference_holder(semantic, r)
                    .unwrap_or_else(|| Raw::Unresolved(format!("`{}` is no class", r.name))),
                _ => Raw::Unresolved("a base class lancet cannot read".into()),
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
                        .unwrap_or_else(|| {
                            Raw::Unresolved(format!("`{}` is no class or interface", r.name))
                        }),
                    _ => Raw::Unresolved("a base interface lancet cannot read".into()),
                })
                .collect();
            Some((i.id.name.to_string(), i.id.span.start, bases))
        }
        _ => None,
    }
}

/// The class or interface a method's return type annotation names (not an async method's or
/// a generator's: they return a promise or an iterator).
fn method_return(semantic: &Semantic, kind: &AstKind) -> Option<Raw> {
    let annotation = match kind {
        AstKind::MethodDefinition(m) if !m.value.r#async && !m.value.generator => {
            m.value.return_type.as_ref()?
        }
        AstKind::TSMethodSignature(m) => m.return_type.as_ref()?,
        _ => return None,
    };
    type_holder(semantic, &annotation.type_annotation)
}

/// The name a class or interface member definition declares.
fn member_key(kind: &AstKind) -> Option<String> {
    let key = match kind {
        AstKind::MethodDefinition(m) => &m.key,
        AstKind::PropertyDefinition(p) => &p.key,
        AstKind::AccessorProperty(p) => &p.key,
        AstKind::TSPropertySignature(p) => &p.key,
        AstKind::TSMethodSignature(p) => &p.key,
        _ => return None,
    };
    key.static_name().map(|n| n.to_string())
}

/// The class or interface around a member definition, by its name's offset.
fn holder_of(semantic: &Semantic, node: oxc_semantic::NodeId) -> Option<u32> {
    for ancestor in semantic.nodes().ancestors(node) {
        match ancestor.kind() {
            AstKind::Class(c) => return c.id.as_ref().map(|id| id.span.start),
            AstKind::TSInterfaceDeclaration(i) => return Some(i.id.span.start),
            AstKind::TSTypeLiteral(_) | AstKind::ObjectExpression(_) => return None,
            _ => {}
        }
    }
    None
}

/// A symbol of the file: its declaration, or the import it is.
fn symbol_raw(semantic: &Semantic, symbol: SymbolId) -> Raw {
    let scoping = semantic.scoping();
    if !scoping.symbol_flags(symbol).is_import() {
        return Raw::Local(scoping.symbol_span(symbol).start);
    }
    let declaration = scoping.symbol_declaration(symbol);
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
fn imported(semantic: &Semantic, node: oxc_semantic::NodeId, name: String) -> Raw {
    for ancestor in semantic.nodes().ancestors(node) {
        if let AstKind::ImportDeclaration(import) = ancestor.kind() {
            let source = import.source.value.to_string();
            return Raw::Imported { source, name };
        }
    }
    Raw::Unresolved("an import lancet cannot read".into())
}

/// What the object of `object.name` stands for.
enum Receiver {
    /// A class or interface whose member `name` is (a `Local` or `Imported` holder), or why
    /// there is none.
    Holder(Raw),
    /// A namespace import: `name` is an export of its module, resolved here.
    Export(Raw),
}

/// What a member access's object stands for: a class of the tree, a namespace, or why not.
fn object_holder(
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
            let symbol = r
                .reference_id
                .get()
                .and_then(|id| scoping.get_reference(id).symbol_id());
            match symbol {
                Some(symbol) => {
                    let flags = scoping.symbol_flags(symbol);
                    if flags.contains(SymbolFlags::Class) {
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

/// The class whose body `this` at `node` is in: the innermost class, unless a function that
/// is not its method rebinds `this` first (why not, then).
fn this_class<'s>(
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
fn field_holder(
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
fn reference_holder(semantic: &Semantic, named: &oxc_ast::ast::IdentifierReference) -> Option<Raw> {
    let scoping = semantic.scoping();
    let class = named
        .reference_id
        .get()
        .and_then(|id| scoping.get_reference(id).symbol_id())?;
    let flags = scoping.symbol_flags(class);
    if flags.intersects(SymbolFlags::Class | SymbolFlags::Interface) {
        return Some(Raw::Local(scoping.symbol_span(class).start));
    }
    match symbol_raw(semantic, class) {
        held @ (Raw::Imported { .. } | Raw::Outside(_)) => Some(held),
        _ => None,
    }
}

/// The class or interface a type annotation names: `Foo`, `Foo<T>`, and `Foo | undefined`
/// or `Foo | null` (a member is reached only when there is a value); an array of one
/// ([`Raw::ArrayOf`]: `Foo[]`, `Array<Foo>`, `readonly Foo[]`).
fn type_holder(semantic: &Semantic, ty: &TSType) -> Option<Raw> {
    match ty {
        TSType::TSArrayType(a) => {
            type_holder(semantic, &a.element_type).map(|e| Raw::ArrayOf(Box::new(e)))
        }
        TSType::TSTypeOperatorType(o)
            if o.operator == oxc_ast::ast::TSTypeOperatorOperator::Readonly =>
        {
            type_holder(semantic, &o.type_annotation)
        }
        // `Array<T>`, `ReadonlyArray<T>`: the global ones (no declaration in the file).
        TSType::TSTypeReference(r)
            if matches!(&r.type_name, TSTypeName::IdentifierReference(id)
                if matches!(id.name.as_str(), "Array" | "ReadonlyArray")
                    && id.reference_id.get().and_then(|rid| semantic.scoping().get_reference(rid).symbol_id()).is_none()) =>
        {
            let args = r.type_arguments.as_ref()?;
            match args.params.as_slice() {
                [element] => type_holder(semantic, element).map(|e| Raw::ArrayOf(Box::new(e))),
                _ => None,
            }
        }
        TSType::TSTypeReference(r) => match &r.type_name {
            TSTypeName::IdentifierReference(id) => reference_holder(semantic, id),
            _ => None,
        },
        TSType::TSUnionType(u) => {
            let mut values = u
                .types
                .iter()
                .filter(|t| !matches!(t, TSType::TSUndefinedKeyword(_) | TSType::TSNullKeyword(_)));
            match (values.next(), values.next()) {
                (Some(one), None) => type_holder(semantic, one),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The class or interface a local holds an instance of, when its declaration says so: `x:
/// Foo` (a parameter or a variable: its declared type, whatever is assigned later), or
/// `const x = new Foo()` when nothing assigns it again.
fn declared_holder(semantic: &Semantic, symbol: SymbolId) -> Option<Raw> {
    let scoping = semantic.scoping();
    let mut declaration = scoping.symbol_declaration(symbol);
    if matches!(
        semantic.nodes().kind(declaration),
        AstKind::BindingIdentifier(_)
    ) {
        declaration = semantic.nodes().parent_id(declaration);
    }
    let (annotation, init) = match semantic.nodes().kind(declaration) {
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
    match (annotation, init) {
        (Some(a), _) => type_holder(semantic, &a.type_annotation),
        // `let t = {…} as unknown as Table<T>`: the asserted type is the local's.
        (None, Some(Expression::TSAsExpression(a))) => type_holder(semantic, &a.type_annotation),
        (None, Some(Expression::TSTypeAssertion(a))) => type_holder(semantic, &a.type_annotation),
        (None, Some(Expression::NewExpression(n))) if !scoping.symbol_is_mutated(symbol) => {
            match &n.callee {
                Expression::Identifier(id) => reference_holder(semantic, id),
                _ => None,
            }
        }
        (None, Some(Expression::CallExpression(c))) if !scoping.symbol_is_mutated(symbol) => {
            match call_holder(semantic, c, declaration) {
                holder @ (Raw::Returns(_) | Raw::MethodReturns { .. }) => Some(holder),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The annotation naming the type an expression (by node) is checked against, where the code
/// declares it: the annotated variable it initializes (`const t: Table = {…}`), or the
/// declared return type of the function it is returned from (not an async function's or a
/// generator's).
fn contextual_type<'s>(
    semantic: &'s Semantic,
    expression: oxc_semantic::NodeId,
) -> Option<&'s TSType<'s>> {
    let nodes = semantic.nodes();
    let start = nodes.kind(expression).span();
    let mut at = expression;
    loop {
        let parent = nodes.parent_id(at);
        match nodes.kind(parent) {
            AstKind::ParenthesizedExpression(_) => at = parent,
            AstKind::VariableDeclarator(d) => {
                let init = d.init.as_ref()?;
                return (init.span().start <= start.start && init.span().end >= start.end)
                    .then_some(())
                    .and(d.type_annotation.as_deref())
                    .map(|a| &a.type_annotation);
            }
            AstKind::ReturnStatement(_) => return returned_type(semantic, parent),
            // An arrow's expression body: what the arrow returns.
            AstKind::ArrowFunctionExpression(a)
                if !a.r#async
                    && !matches!(a.body, oxc_ast::ast::ArrowFunctionBody::FunctionBody(_)) =>
            {
                return a.return_type.as_deref().map(|r| &r.type_annotation);
            }
            _ => return None,
        }
    }
}

/// The declared return type of the function a `return` (by node) returns from.
fn returned_type<'s>(
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

/// The class or interface an object literal (by node) is typed as, where the code declares
/// it: its keys are that type's members (`const t: CoreInstance = { getState: … }`).
fn literal_holder(semantic: &Semantic, literal: oxc_semantic::NodeId) -> Option<Raw> {
    if !matches!(semantic.nodes().kind(literal), AstKind::ObjectExpression(_)) {
        return None;
    }
    type_holder(semantic, contextual_type(semantic, literal)?)
}

/// The class or interface an object binding pattern (by node) destructures, where the code
/// declares it: its keys are that type's members (`const { getState } = table` for a `table:
/// Table`, `function f({ getState }: Table)`); why not otherwise (the key may be the member
/// all the same, so it is undecided, never passed over).
fn pattern_holder(semantic: &Semantic, pattern: oxc_semantic::NodeId, name: &str) -> Raw {
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
            (None, None) => unknown(),
        },
        AstKind::FormalParameter(p) => match &p.type_annotation {
            Some(a) => annotated(a),
            None => contextual_parameter(semantic, owner).unwrap_or_else(unknown),
        },
        _ => unknown(),
    }
}

/// Member `name` of what a receiver is: the holder's member, or why there is none (the
/// receiver's own `Unresolved` or `Outside`).
fn member_of(holder: Raw, name: &str) -> Raw {
    match holder {
        holder @ (Raw::Local(_)
        | Raw::Imported { .. }
        | Raw::Returns(_)
        | Raw::MethodReturns { .. }
        | Raw::Parameter { .. }
        | Raw::ArrayOf(_)
        | Raw::ElementOf(_)) => Raw::Member {
            holder: Box::new(holder),
            name: name.to_string(),
        },
        other => other,
    }
}

/// The class or interface an unannotated parameter (its `FormalParameter` node) of an arrow
/// or function expression holds, from the callable type the function is declared as: an
/// inline function type's parameter, or [`Raw::Parameter`] of a named callable type
/// (decided when modules are joined).
fn contextual_parameter(semantic: &Semantic, parameter: oxc_semantic::NodeId) -> Option<Raw> {
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
const SAME_ARRAY: &[&str] = &[
    "concat",
    "filter",
    "reverse",
    "slice",
    "sort",
    "toReversed",
    "toSorted",
];

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

/// The element a callback (by node) passed first to an array method (`rows.map(row => …)`)
/// receives, when the array is declared an array of a class or interface.
fn array_callback_element(semantic: &Semantic, function: oxc_semantic::NodeId) -> Option<Raw> {
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
fn callable_parameter(semantic: &Semantic, ty: &TSType, index: usize) -> Option<Raw> {
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
fn parameter_holders(
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

/// What a call returns, as a holder: `make()` a function's, `x.make()` a method's of `x`'s
/// holder (its declaration decides when modules are joined).
fn call_holder(
    semantic: &Semantic,
    call: &oxc_ast::ast::CallExpression,
    node: oxc_semantic::NodeId,
) -> Raw {
    match &call.callee {
        Expression::Identifier(id) => called(semantic, id),
        Expression::StaticMemberExpression(m) => {
            let name = m.property.name.to_string();
            match object_holder(semantic, &m.object, node, &name) {
                Receiver::Holder(
                    holder @ (Raw::Local(_)
                    | Raw::Imported { .. }
                    | Raw::Returns(_)
                    | Raw::MethodReturns { .. }
                    | Raw::Parameter { .. }
                    | Raw::ArrayOf(_)
                    | Raw::ElementOf(_)),
                ) => Raw::MethodReturns {
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

/// What calling the function `callee` names returns: [`Raw::Returns`] of a function of this
/// file or an imported one (its declaration's return type decides, when modules are joined).
fn called(semantic: &Semantic, callee: &oxc_ast::ast::IdentifierReference) -> Raw {
    let scoping = semantic.scoping();
    let Some(function) = callee
        .reference_id
        .get()
        .and_then(|id| scoping.get_reference(id).symbol_id())
    else {
        return Raw::Unresolved(format!("`{}` is not declared in this file", callee.name));
    };
    match symbol_raw(semantic, function) {
        f @ Raw::Imported { .. } => Raw::Returns(Box::new(f)),
        f @ Raw::Local(_) if scoping.symbol_flags(function).is_function() => {
            Raw::Returns(Box::new(f))
        }
        _ => Raw::Unresolved(format!("what `{}(…)` returns is not known", callee.name)),
    }
}

const GLOBALS: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "BigInt",
    "Boolean",
    "DataView",
    "Date",
    "Error",
    "EvalError",
    "Function",
    "Infinity",
    "Intl",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Set",
    "String",
    "Symbol",
    "SyntaxError",
    "TypeError",
    "URIError",
    "WeakMap",
    "WeakSet",
    "WeakRef",
    "globalThis",
    "console",
    "window",
    "document",
    "process",
    "require",
    "module",
    "exports",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "queueMicrotask",
    "structuredClone",
    "undefined",
    "navigator",
    "fetch",
    "URL",
    "URLSearchParams",
    "AbortController",
    "AbortSignal",
    "Buffer",
    "global",
    "__dirname",
    "__filename",
    "jest",
    "vi",
    "expect",
    "describe",
    "it",
    "test",
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
];

fn is_global(name: &str) -> bool {
    GLOBALS.contains(&name)
}

/// Classifies each occurrence (byte offset of a `len`-byte name) in one file.
fn analyze(path: &str, text: &str, offsets: &[usize], len: usize) -> Analysis {
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
        let raw = offsets
            .iter()
            .map(|&offset| {
                let candidates = at.get(&(offset as u32)).cloned().unwrap_or_default();
                (
                    classify(semantic, &candidates),
                    shorthand_member(semantic, &candidates),
                )
            })
            .collect();
        Analysis {
            raw,
            facts: Arc::new(facts_of(semantic)),
        }
    })
}

fn classify(semantic: &Semantic, candidates: &[(oxc_semantic::NodeId, AstKind)]) -> Raw {
    let scoping = semantic.scoping();
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
        let symbol = r
            .reference_id
            .get()
            .and_then(|id| scoping.get_reference(id).symbol_id());
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
    let name = name.name.to_string();
    let member = |holder: Raw| Raw::Member {
        holder: Box::new(holder),
        name: name.clone(),
    };
    match semantic.nodes().parent_kind(id) {
        AstKind::StaticMemberExpression(m) => match object_holder(semantic, &m.object, id, &name) {
            Receiver::Holder(
                holder @ (Raw::Local(_)
                | Raw::Imported { .. }
                | Raw::Returns(_)
                | Raw::MethodReturns { .. }
                | Raw::Parameter { .. }
                | Raw::ArrayOf(_)
                | Raw::ElementOf(_)),
            ) => member(holder),
            Receiver::Holder(other) | Receiver::Export(other) => other,
        },
        AstKind::MethodDefinition(_)
        | AstKind::PropertyDefinition(_)
        | AstKind::AccessorProperty(_)
        | AstKind::TSPropertySignature(_)
        | AstKind::TSMethodSignature(_) => match holder_of(semantic, id) {
            Some(holder) => member(Raw::Local(holder)),
            None => Raw::Unresolved(format!(
                "`{name}` is a property of an object type: lancet resolves the members of classes and interfaces only, by syntax"
            )),
        },
        AstKind::ObjectProperty(p) if !p.computed => {
            let property = semantic.nodes().parent_id(id);
            match literal_holder(semantic, semantic.nodes().parent_id(property)) {
                Some(holder) => member(holder),
                None => Raw::Unresolved(format!(
                    "`{name}` is a property key of an object literal (a member of an anonymous type)"
                )),
            }
        }
        AstKind::ObjectProperty(_) => Raw::Unresolved(format!(
            "`{name}` is a computed property key of an object literal"
        )),
        // `const { getState: g } = table`: the key is a member of what is destructured.
        AstKind::BindingProperty(p) if !p.computed => {
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
fn shorthand_member(
    semantic: &Semantic,
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
            holder: Box::new(literal_holder(semantic, literal)?),
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
fn private_member(semantic: &Semantic, node: oxc_semantic::NodeId, name: &str) -> Raw {
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

/// `ns.name` where `ns` is `import * as ns from 'source'`.
fn namespace_export(
    semantic: &Semantic,
    ns: &oxc_ast::ast::IdentifierReference,
    name: &str,
) -> Raw {
    let scoping = semantic.scoping();
    let Some(symbol) = ns
        .reference_id
        .get()
        .and_then(|id| scoping.get_reference(id).symbol_id())
    else {
        return Raw::Unresolved(format!("`{}` is not declared", ns.name));
    };
    imported(
        semantic,
        scoping.symbol_declaration(symbol),
        name.to_string(),
    )
}

/// The tree's JavaScript/TypeScript modules, analysed on demand.
pub(crate) struct EcmaProject<'a> {
    files: &'a [String],
    read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// The workspace's packages under the root, for bare specifiers.
    packages: Packages<'a>,
    facts: Mutex<HashMap<String, Option<Arc<ModuleFacts>>>>,
}

impl<'a> EcmaProject<'a> {
    /// A project over the walked files, which it reads (a module that does not hold OLD) when
    /// an import reaches them.
    pub(in crate::rename) fn new(sources: &Sources<'a>) -> Self {
        EcmaProject {
            files: sources.files,
            read: sources.read,
            packages: Packages::new(sources.files, sources.read, sources.real),
            facts: Mutex::new(HashMap::new()),
        }
    }

    fn facts(&self, path: &str) -> Option<Arc<ModuleFacts>> {
        if let Some(f) = self.facts.lock().ok()?.get(path) {
            return f.clone();
        }
        let facts = (self.read)(path).map(|text| Arc::new(with_semantic(path, &text, facts_of)));
        self.facts
            .lock()
            .ok()?
            .insert(path.to_string(), facts.clone());
        facts
    }

    /// The file a specifier names from `from`: a relative one by its path; a bare one through
    /// the workspace (a tsconfig `paths` entry, a package of the tree by its name or its
    /// `node_modules` link), else another package's, outside the tree. A package of the tree
    /// whose file lancet cannot find is undecided, never outside.
    pub(crate) fn module_file(&self, from: &str, specifier: &str) -> Result<String, Resolution> {
        if relative(specifier) {
            let base = packages::join(&packages::join(from, ".."), specifier);
            return self.probe(&base).ok_or_else(|| {
                Resolution::Unresolved(format!(
                    "module `{specifier}` (from {from}) is not a file of the tree"
                ))
            });
        }
        match self.packages.bare(from, specifier) {
            Bare::Candidates(paths) => paths.iter().find_map(|p| self.probe(p)).ok_or_else(|| {
                Resolution::Unresolved(format!(
                    "module `{specifier}` (from {from}) maps to {} by tsconfig `paths`, which is no file of the tree",
                    paths.join(", ")
                ))
            }),
            Bare::Package { dir, candidates } => {
                candidates.iter().find_map(|p| self.probe(p)).ok_or_else(|| {
                    Resolution::Unresolved(format!(
                        "`{specifier}` is the package in {}/ of the tree, but lancet finds no file of it that package.json's exports, types or main name",
                        if dir.is_empty() { "." } else { &dir }
                    ))
                })
            }
            Bare::Outside => Err(Resolution::Outside(format!(
                "imported from the package `{specifier}`"
            ))),
        }
    }

    /// The walked file a module path (root-relative, extension left out or not) is: itself,
    /// with an extension (a `.js` one taken for its `.ts` source), or its directory's index.
    fn probe(&self, base: &str) -> Option<String> {
        if base.split('/').next() == Some("..") {
            return None;
        }
        let stem = base
            .strip_suffix(".js")
            .or_else(|| base.strip_suffix(".jsx"))
            .or_else(|| base.strip_suffix(".mjs"))
            .unwrap_or(base);
        let mut candidates = vec![base.to_string()];
        for stemmed in [base, stem] {
            candidates.extend(EXTENSIONS.iter().map(|e| format!("{stemmed}{e}")));
        }
        candidates.extend(EXTENSIONS.iter().map(|e| format!("{base}/index{e}")));
        candidates
            .into_iter()
            .find(|c| self.files.iter().any(|f| f == c))
    }

    /// The declaration an export of a module stands for: (file, offset).
    fn export(
        &self,
        from: &str,
        source: &str,
        name: &str,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved(
                "a re-export chain too long to follow".into(),
            ));
        }
        let file = self.module_file(from, source)?;
        let Some(facts) = self.facts(&file) else {
            return Err(Resolution::Unresolved(format!("{file} cannot be read")));
        };
        match facts.exports.get(name) {
            Some(Raw::Local(start)) => Ok((file, *start)),
            Some(Raw::Imported { source, name }) => self.export(&file, source, name, depth + 1),
            Some(Raw::Outside(why)) => Err(Resolution::Outside(why.clone())),
            Some(Raw::Unresolved(why)) => Err(Resolution::Unresolved(why.clone())),
            Some(
                Raw::Member { .. }
                | Raw::Private { .. }
                | Raw::Returns(_)
                | Raw::MethodReturns { .. }
                | Raw::Parameter { .. }
                | Raw::ArrayOf(_)
                | Raw::ElementOf(_),
            ) => Err(Resolution::Unresolved("an exported member".into())),
            None => {
                for star in &facts.stars {
                    if let Ok(found) = self.export(&file, star, name, depth + 1) {
                        return Ok(found);
                    }
                }
                Err(Resolution::Unresolved(format!(
                    "{file} does not export `{name}`"
                )))
            }
        }
    }

    fn finish(&self, path: &str, raw: Raw, depth: usize) -> Resolution {
        match raw {
            Raw::Local(start) => Resolution::Symbol(declaration_id(path, start, None)),
            Raw::Imported { source, name } => match self.export(path, &source, &name, depth) {
                Ok((file, start)) => Resolution::Symbol(declaration_id(&file, start, None)),
                Err(resolution) => resolution,
            },
            Raw::Member { holder, name } => {
                let (file, start) = match self.place_of(path, &holder, depth) {
                    Ok(found) => found,
                    Err(resolution) => return resolution,
                };
                let declared = self
                    .facts(&file)
                    .is_some_and(|f| f.members.get(&start).is_some_and(|m| m.contains(&name)));
                if declared {
                    // An override of a base's member of the tree: TypeScript renames the two
                    // together, lancet keeps them apart, so renaming either alone breaks the
                    // hierarchy: undecided (a refusal), never half renamed.
                    if let Ok(Some((base, _))) = self.inherited(&file, start, &name, depth + 1) {
                        return Resolution::Unresolved(format!(
                            "`{name}` of that class in {file} overrides the one a base declares (in {base}); lancet does not rename a member and its overrides apart"
                        ));
                    }
                    return Resolution::Symbol(declaration_id(
                        &file,
                        start,
                        Some(EcmaMember::Public(name)),
                    ));
                }
                match self.inherited(&file, start, &name, depth + 1) {
                    Ok(Some((file, start))) => Resolution::Symbol(declaration_id(
                        &file,
                        start,
                        Some(EcmaMember::Public(name)),
                    )),
                    Ok(None) => Resolution::Unresolved(format!(
                        "`{name}` is not declared by that class in {file} nor by its bases"
                    )),
                    Err(why) => Resolution::Unresolved(format!(
                        "`{name}` is not declared by that class in {file} (an inherited member: {why})"
                    )),
                }
            }
            Raw::Private { class, name } => {
                Resolution::Symbol(declaration_id(path, class, Some(EcmaMember::Private(name))))
            }
            Raw::Outside(why) => Resolution::Outside(why),
            Raw::Unresolved(why) => Resolution::Unresolved(why),
            Raw::Returns(_) | Raw::MethodReturns { .. } => {
                Resolution::Unresolved("a value a function returns".into())
            }
            Raw::Parameter { .. } | Raw::ArrayOf(_) | Raw::ElementOf(_) => {
                Resolution::Unresolved("a value of a declared type".into())
            }
        }
    }
}

impl EcmaProject<'_> {
    /// Where a holder of members (a class or interface, as `path` names it) is declared: its
    /// file and its name's offset.
    fn place_of(
        &self,
        path: &str,
        holder: &Raw,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved("a chain too long to follow".into()));
        }
        match holder {
            Raw::Local(start) => Ok((path.to_string(), *start)),
            Raw::Imported { source, name } => self.export(path, source, name, depth + 1),
            Raw::Returns(_) | Raw::MethodReturns { .. } | Raw::Parameter { .. } => {
                let (file, declared) = self.declared_type(path, holder, depth + 1)?;
                self.place_of(&file, &declared, depth + 1)
            }
            Raw::ElementOf(array) => match self.declared_type(path, array, depth + 1)? {
                (file, Raw::ArrayOf(element)) => self.place_of(&file, &element, depth + 1),
                _ => Err(Resolution::Unresolved(
                    "the receiver of the callback is not declared an array".into(),
                )),
            },
            Raw::ArrayOf(_) => Err(Resolution::Unresolved("a member of an array".into())),
            Raw::Outside(why) => Err(Resolution::Outside(why.clone())),
            Raw::Unresolved(why) => Err(Resolution::Unresolved(why.clone())),
            Raw::Member { .. } | Raw::Private { .. } => {
                Err(Resolution::Unresolved("a member of a member".into()))
            }
        }
    }

    /// What a value's declaration says it is, and the file that says it: the return type a
    /// called function or method declares, a callable type's parameter type, an array type;
    /// why not for anything else.
    fn declared_type(
        &self,
        path: &str,
        value: &Raw,
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved("a chain too long to follow".into()));
        }
        match value {
            Raw::ArrayOf(_) => Ok((path.to_string(), value.clone())),
            Raw::Returns(function) => {
                let (file, start) = self.place_of(path, function, depth + 1)?;
                let returned = self
                    .facts(&file)
                    .and_then(|f| f.returns.get(&start).cloned())
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "what the function called returns is not declared (in {file})"
                        ))
                    })?;
                Ok((file, returned))
            }
            Raw::MethodReturns { holder, name } => {
                // `rows.filter(…)`, `rows.slice(…)`: the array they are called on, as declared.
                if SAME_ARRAY.contains(&name.as_str())
                    && let Ok((file, array @ Raw::ArrayOf(_))) =
                        self.declared_type(path, holder, depth + 1)
                {
                    return Ok((file, array));
                }
                let (file, start) = self.place_of(path, holder, depth + 1)?;
                let declares = |file: &str, start: u32| {
                    self.facts(file).is_some_and(|f| {
                        f.members
                            .get(&start)
                            .is_some_and(|m| m.iter().any(|n| n == name))
                    })
                };
                // The method the holder declares, else the one it inherits.
                let (file, start) = if declares(&file, start) {
                    (file, start)
                } else {
                    match self.inherited(&file, start, name, depth + 1) {
                        Ok(Some(found)) => found,
                        Ok(None) | Err(_) => {
                            return Err(Resolution::Unresolved(format!(
                                "the method `{name}` is not found on the receiver's class"
                            )));
                        }
                    }
                };
                let returned = self
                    .facts(&file)
                    .and_then(|f| f.method_returns.get(&(start, name.clone())).cloned())
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "what `{name}(…)` returns is not declared (in {file})"
                        ))
                    })?;
                Ok((file, returned))
            }
            Raw::Parameter { callable, index } => {
                let (file, start) = self.place_of(path, callable, depth + 1)?;
                // Merged declarations may hold several call signatures (overloads).
                let typed = self
                    .facts(&file)
                    .filter(|f| !f.merged.contains(&start))
                    .and_then(|f| f.callables.get(&start).and_then(|p| p.get(*index).cloned()))
                    .flatten()
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "the type of a callback's parameter is no class or interface its callable type in {file} names"
                        ))
                    })?;
                Ok((file, typed))
            }
            _ => Err(Resolution::Unresolved(
                "the type of the receiver is not declared".into(),
            )),
        }
    }

    /// The declaration of member `name` that class or interface `start` of `file` inherits:
    /// the one base (followed through its own bases) that declares it, `None` when every
    /// base is known and none does; why not when a base is outside the tree or cannot be
    /// read, when the holder's declarations are merged, or when several bases declare it.
    fn inherited(
        &self,
        file: &str,
        start: u32,
        name: &str,
        depth: usize,
    ) -> Result<Option<(String, u32)>, String> {
        if depth > MAX_DEPTH {
            return Err("a hierarchy too deep to follow".into());
        }
        let facts = self
            .facts(file)
            .ok_or_else(|| format!("{file} cannot be read"))?;
        if facts.merged.contains(&start) {
            return Err("its declarations are merged".into());
        }
        let bases = facts
            .bases
            .get(&start)
            .ok_or_else(|| "it is not a class or interface lancet reads".to_string())?;
        let mut found: Option<(String, u32)> = None;
        for base in bases {
            let (base_file, base_start) =
                self.place_of(file, base, depth + 1)
                    .map_err(|r| match (r, base) {
                        (Resolution::Outside(why), Raw::Imported { name: class, .. }) => {
                            format!("its base `{class}` is outside the tree ({why})")
                        }
                        (Resolution::Outside(why), _) => {
                            format!("a base is outside the tree ({why})")
                        }
                        (_, Raw::Imported { name: class, .. }) => {
                            format!("its base `{class}` is not resolved in the tree")
                        }
                        (Resolution::Unresolved(why), _) => why,
                        _ => "a base lancet cannot read".into(),
                    })?;
            let declares = self.facts(&base_file).is_some_and(|f| {
                f.members
                    .get(&base_start)
                    .is_some_and(|m| m.iter().any(|n| n == name))
            });
            let here = if declares {
                Some((base_file, base_start))
            } else {
                self.inherited(&base_file, base_start, name, depth + 1)?
            };
            match (&found, here) {
                (Some(a), Some(b)) if *a != b => {
                    return Err("several bases declare it".into());
                }
                (_, Some(b)) => found = Some(b),
                _ => {}
            }
        }
        Ok(found)
    }
}

/// The id of a declaration of `file` at `offset`, or of a member it declares.
fn declaration_id(file: &str, offset: u32, member: Option<EcmaMember>) -> model::SymbolId {
    model::SymbolId::Ecma {
        file: file.to_string(),
        offset,
        member,
    }
}

impl EcmaProject<'_> {
    /// What each identifier spelled `name` at `offsets` of `file` refers to, as a rename
    /// resolves it.
    pub(crate) fn resolve_names(
        &self,
        file: &Parsed,
        offsets: &[usize],
        name: &str,
    ) -> Vec<Resolution> {
        self.resolve_file(file, offsets, name)
            .into_iter()
            .map(|r| r.value)
            .collect()
    }
}

impl Resolver for EcmaProject<'_> {
    fn languages(&self) -> &'static [&'static str] {
        &["javascript", "typescript", "tsx"]
    }

    /// Resolves every occurrence (byte offsets of `old`) of one file.
    fn resolve_file(&self, file: &Parsed, offsets: &[usize], old: &str) -> Vec<Resolved> {
        let path = file.path.as_str();
        let analysis = analyze(path, &file.text, offsets, old.len());
        if let Ok(mut facts) = self.facts.lock() {
            facts.insert(path.to_string(), Some(Arc::clone(&analysis.facts)));
        }
        analysis
            .raw
            .into_iter()
            .map(|(raw, field)| Resolved {
                value: self.finish(path, raw, 0),
                field: field.map(|f| self.finish(path, f, 0)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::EcmaProject;
    use crate::rename::resolve::testing::Fixture;

    /// Each occurrence of `old` in `path`, resolved over the files of the tree.
    fn resolve(files: &[(&str, &str)], path: &str, old: &str) -> Vec<String> {
        let fixture = Fixture::new(files, &[path]);
        let sources = fixture.sources();
        fixture.resolve(&EcmaProject::new(&sources), path, old)
    }

    #[test]
    fn declarations_are_their_symbols_and_a_parameter_shadows() {
        let text = "function total() {}\ntotal();\nfunction f(total) {\n  return total;\n}\n";
        assert_eq!(
            resolve(&[("a.js", text)], "a.js", "total"),
            ["1 = a.js@9", "2 = a.js@9", "3 = a.js@40", "4 = a.js@40"]
        );
    }

    #[test]
    fn a_relative_import_is_the_exported_declaration() {
        let files = [
            ("src/a.ts", "export function total() {}\n"),
            ("src/b.ts", "import { total } from './a';\ntotal();\n"),
        ];
        assert_eq!(
            resolve(&files, "src/b.ts", "total"),
            ["1 = src/a.ts@16", "2 = src/a.ts@16"]
        );
    }

    #[test]
    fn a_workspace_package_under_the_root_is_the_tree() {
        let files = [
            ("package.json", "{\"workspaces\": [\"packages/*\"]}"),
            (
                "packages/a/package.json",
                "{\"name\": \"@demo/a\", \"main\": \"dist/index.js\"}",
            ),
            (
                "packages/a/src/index.ts",
                "export function makeThing() {}\n",
            ),
            (
                "packages/b/src/index.ts",
                "import { makeThing } from '@demo/a';\nmakeThing();\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "packages/b/src/index.ts", "makeThing"),
            [
                "1 = packages/a/src/index.ts@16",
                "2 = packages/a/src/index.ts@16"
            ]
        );
    }

    #[test]
    fn tsconfig_paths_map_a_specifier_into_the_tree() {
        let files = [
            (
                "tsconfig.json",
                "{\n  // the packages\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@demo/*\": [\"packages/*/src\"],},},\n}\n",
            ),
            (
                "packages/a/src/index.ts",
                "export function makeThing() {}\n",
            ),
            (
                "packages/b/src/index.ts",
                "import { makeThing } from '@demo/a';\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "packages/b/src/index.ts", "makeThing"),
            ["1 = packages/a/src/index.ts@16"]
        );
    }

    #[test]
    fn a_package_of_the_tree_without_a_file_to_read_is_undecided() {
        let files = [
            (
                "packages/a/package.json",
                "{\"name\": \"@demo/a\", \"main\": \"out/a.js\"}",
            ),
            ("packages/a/README.md", "a\n"),
            (
                "packages/b/index.ts",
                "import { makeThing } from '@demo/a';\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "packages/b/index.ts", "makeThing"),
            [
                "1 ? `@demo/a` is the package in packages/a/ of the tree, but lancet finds no file of it that package.json's exports, types or main name"
            ]
        );
    }

    #[test]
    fn class_members_resolve_through_this_and_declared_types() {
        let text = "class Cart {\n  total() { return 1; }\n  run() { return this.total(); }\n}\nfunction f(c: Cart) {\n  return c.total();\n}\n";
        assert_eq!(
            resolve(&[("a.ts", text)], "a.ts", "total"),
            ["2 = a.ts@6.total", "3 = a.ts@6.total", "6 = a.ts@6.total"]
        );
    }

    #[test]
    fn inherited_members_typed_fields_and_declared_locals_resolve() {
        // An interface's member through the interfaces it extends (in another file); a
        // class's through its base; `this.#cache` and `this.spare` through the field's declared
        // class; a local declared `Cache` whatever is assigned to it later.
        let base = "export interface Core {\n  find(): void\n}\n";
        let text = "import { Core } from './base';\ninterface Table<T> extends Core {}\nclass Cache implements Core {\n  find() {}\n}\nclass Sub extends Cache {}\nclass Client {\n  #cache: Cache;\n  spare = new Cache();\n  maybe: Cache | undefined;\n  run(t: Table<number>) {\n    t.find();\n    this.#cache.find();\n    this.spare.find();\n    this.maybe?.find();\n    new Sub().find();\n  }\n}\nlet c: Cache;\nc = make();\nc.find();\n";
        assert_eq!(
            resolve(&[("base.ts", base), ("a.ts", text)], "a.ts", "find"),
            [
                "4 = a.ts@72.find",
                "12 = base.ts@17.find",
                "13 = a.ts@72.find",
                "14 = a.ts@72.find",
                "15 = a.ts@72.find",
                "16 = a.ts@72.find",
                "21 = a.ts@72.find"
            ]
        );
    }

    #[test]
    fn a_functions_declared_return_type_types_its_calls() {
        // `createClient()` (imported) is declared to return a Client: `createClient().get()`
        // and `const c = createClient(); c.get()` are Client's. An undeclared return, or a
        // local assigned again, is not told.
        let utils = "import { Client } from './client';\nexport function createClient(): Client {\n  return new Client();\n}\nexport function loose() {\n  return new Client();\n}\n";
        let client = "export class Client {\n  get() {}\n}\n";
        let text = "import { createClient, loose } from './utils';\nconst c = createClient();\nc.get();\ncreateClient().get();\nloose().get();\nlet d = createClient();\nd = loose();\nd.get();\n";
        let files = [("utils.ts", utils), ("client.ts", client), ("a.ts", text)];
        let got = resolve(&files, "a.ts", "get");
        assert_eq!(
            got[..2],
            ["3 = client.ts@13.get", "4 = client.ts@13.get"],
            "{got:?}"
        );
        assert!(
            got[2].starts_with("5 ? ") && got[2].contains("returns is not declared"),
            "{got:?}"
        );
        assert!(got[3].starts_with("8 ? "), "{got:?}");
    }

    #[test]
    fn a_methods_declared_return_type_types_its_calls() {
        // `client.getCache()` is declared to return a Cache (also through a base and through
        // an interface's signature, and `T | undefined`); an overloaded method tells nothing.
        let text = "class Cache {\n  find() {}\n}\ninterface Source {\n  cache(): Cache | undefined\n}\nclass Base {\n  getCache(): Cache {\n    return new Cache();\n  }\n}\nclass Client extends Base {\n  pick(a: string): Cache;\n  pick(a: number): Cache;\n  pick(a: any): any {\n    return new Cache();\n  }\n}\nfunction f(client: Client, s: Source) {\n  client.getCache().find();\n  const c = client.getCache();\n  c.find();\n  s.cache()?.find();\n  client.pick(1).find();\n}\n";
        let got = resolve(&[("a.ts", text)], "a.ts", "find");
        assert_eq!(
            got[..4],
            [
                "2 = a.ts@6.find",
                "20 = a.ts@6.find",
                "22 = a.ts@6.find",
                "23 = a.ts@6.find"
            ],
            "{got:?}"
        );
        assert!(
            got[4].starts_with("24 ? ") && got[4].contains("returns is not declared"),
            "{got:?}"
        );
    }

    #[test]
    fn an_override_of_a_bases_member_is_undecided() {
        // Renaming `Base.subscribe` alone would leave `Sub.subscribe` (and its `super` call)
        // under the old name: the override and what resolves to it are undecided.
        let text = "class Base {\n  subscribe() {}\n}\nclass Sub extends Base {\n  subscribe() {\n    return super.subscribe();\n  }\n}\nnew Sub().subscribe();\nnew Base().subscribe();\n";
        let got = resolve(&[("a.ts", text)], "a.ts", "subscribe");
        assert_eq!(got[0], "2 = a.ts@6.subscribe", "{got:?}");
        assert!(
            got[1].starts_with("5 ? ") && got[1].contains("overrides"),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|g| g.starts_with("9 ? ") && g.contains("overrides")),
            "{got:?}"
        );
        assert_eq!(
            got.last().map(String::as_str),
            Some("10 = a.ts@6.subscribe"),
            "{got:?}"
        );
    }

    #[test]
    fn members_the_declarations_do_not_tell_stay_unresolved() {
        // A union of two classes, an interface declared twice (merged), a base outside the
        // tree, a field the class does not declare.
        let text = "import { Remote } from 'remote';\nclass A {\n  find() {}\n}\nclass B {\n  find() {}\n}\ninterface M {\n  x: number\n}\ninterface M extends A {}\nclass R extends Remote {}\nclass C extends A {\n  run(ab: A | B, m: M, r: R) {\n    ab.find();\n    m.find();\n    r.find();\n    this.other.find();\n  }\n}\n";
        let got = resolve(&[("a.ts", text)], "a.ts", "find");
        assert_eq!(
            got[..2],
            ["3 = a.ts@39.find", "6 = a.ts@63.find"],
            "{got:?}"
        );
        for (line, why) in [
            (15, "the type of `ab` is not known"),
            (16, "merged"),
            (17, "its base `Remote` is outside the tree"),
            (18, "the class of `this.other` is not declared"),
        ] {
            assert!(
                got.iter()
                    .any(|g| g.starts_with(&format!("{line} ? ")) && g.contains(why)),
                "{line} {why}: {got:?}"
            );
        }
    }

    #[test]
    fn a_private_member_is_the_one_its_class_declares() {
        let text = "class C {\n  #total = 1;\n  get() { return this.#total; }\n}\n";
        assert_eq!(
            resolve(&[("a.js", text)], "a.js", "total"),
            ["2 = a.js@0.#total", "3 = a.js@0.#total"]
        );
    }

    #[test]
    fn a_method_on_a_receiver_of_unknown_type_is_not_resolved() {
        let text = "class Cart {\n  total() {}\n}\nfunction f(x) {\n  return x.total();\n}\n";
        assert_eq!(
            resolve(&[("a.js", text)], "a.js", "total"),
            ["2 = a.js@6.total", "5 ? the type of `x` is not known"]
        );
    }

    #[test]
    fn parameters_and_literals_typed_by_their_context_resolve() {
        // A callback declared as a callable type (an interface's call signature, a function
        // type alias, an inline function type returned), a literal typed by its variable or
        // by the declared return type, a local asserted `as Row`: Row's member. An untyped
        // callback and an untyped literal are not told.
        let types = "export interface Row {\n  getValue(): number\n}\nexport interface SortingFn {\n  (rowA: Row, rowB: Row): number\n}\nexport type Agg = (rows: Row) => any\n";
        let text = "import { Row, SortingFn, Agg } from './types';\nconst sort: SortingFn = (a, b) => a.getValue() - b.getValue();\nconst agg: Agg = rows => rows.getValue();\nexport function make(): (row: Row) => number {\n  return row => row.getValue();\n}\nconst loose = (row) => row.getValue();\nconst core: Row = { getValue: () => 1 };\nfunction build(): Row {\n  return { getValue() { return 2 } };\n}\nconst anon = { getValue: 3 };\nlet t = {} as unknown as Row;\nt.getValue();\nconst getValue = () => 4;\nconst short: Row = { getValue };\n";
        let files = [("types.ts", types), ("a.ts", text)];
        let fixture = Fixture::new(&files, &["a.ts"]);
        let sources = fixture.sources();
        let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
        let member = "= types.ts@17.getValue";
        for (i, line) in [(0, 2), (1, 2), (2, 3), (3, 5), (5, 8), (6, 10), (8, 14)] {
            assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
        }
        assert!(got[4].starts_with("7 ? "), "{got:?}");
        assert!(got[7].starts_with("12 ? "), "{got:?}");
        assert!(got[9].starts_with("15 = a.ts@"), "{got:?}");
        // `{ getValue }` typed Row: the local, and Row's member as its key.
        assert!(
            got[10].starts_with("16 = a.ts@") && got[10].ends_with(&format!(" + field {member}")),
            "{got:?}"
        );
        assert_eq!(got.len(), 11, "{got:?}");
    }

    #[test]
    fn a_destructured_key_is_the_member_of_its_patterns_declared_type() {
        // `const { getValue } = row` (row: Row), a long form, a default, a parameter
        // pattern annotated Row, one from a call declared to return Row, one of a callback
        // typed by its callable type: each key is Row's member (a shorthand's value stays its
        // local). An untyped pattern's key and a destructuring assignment's are undecided.
        let types = "export interface Row {\n  getValue(): number\n}\nexport function make(): Row {\n  return make();\n}\nexport type Each = (row: Row) => number\n";
        let text = "import { Row, Each, make } from './types';\nfunction a(row: Row) {\n  const { getValue } = row;\n  const { getValue: g } = row;\n  const { getValue: h = g } = row;\n}\nfunction b({ getValue }: Row) {}\nconst c = () => {\n  const { getValue } = make();\n};\nconst d: Each = ({ getValue }) => getValue();\nfunction e(row: any, typed: Row) {\n  const { getValue } = row;\n  let x;\n  ({ getValue: x } = typed);\n}\n";
        let files = [("types.ts", types), ("a.ts", text)];
        let fixture = Fixture::new(&files, &["a.ts"]);
        let sources = fixture.sources();
        let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
        let member = "= types.ts@17.getValue";
        for (i, line) in [(0, 3), (3, 7), (4, 9), (5, 11)] {
            assert!(
                got[i].starts_with(&format!("{line} = a.ts@"))
                    && got[i].ends_with(&format!(" + field {member}")),
                "{got:?}"
            );
        }
        for (i, line) in [(1, 4), (2, 5)] {
            assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
        }
        assert!(got[6].starts_with("11 = a.ts@"), "{got:?}");
        assert!(
            got[7].starts_with("13 = a.ts@") && got[7].contains(" + field ? "),
            "{got:?}"
        );
        assert!(got[8].starts_with("15 ? "), "{got:?}");
        assert_eq!(got.len(), 9, "{got:?}");
    }

    #[test]
    fn a_callback_of_an_array_method_gets_the_arrays_element() {
        // `rows.map(r => …)` where `rows` is declared `Row[]`, `Array<Row>`, `readonly Row[]`
        // (by an annotation or by a callable type's parameter): `r` is a Row. A callback
        // whose first parameter is not the element (`reduce`) and an untyped array are not
        // told.
        let types = "export interface Row {\n  getValue(): number\n}\nexport type Agg = (id: string, rows: Row[]) => any\n";
        let text = "import { Row, Agg } from './types';\nconst sum: Agg = (id, rows) => rows.map(r => r.getValue());\nfunction local(rows: Row[], more: Array<Row>, ro: readonly Row[]) {\n  rows.filter(r => r.getValue());\n  more.some(r => r.getValue());\n  ro.forEach(r => r.getValue());\n  rows.reduce((acc, r) => r.getValue(), 0);\n}\nconst loose = (xs) => xs.map(x => x.getValue());\nfunction chained(rows: Row[], find: () => Row | undefined) {\n  rows.filter(r => r.getValue()).map(r => r.getValue());\n  const one = first(rows)!;\n  one.getValue();\n}\nfunction first(rows: Row[]): Row | undefined {\n  return rows[0];\n}\n";
        let files = [("types.ts", types), ("a.ts", text)];
        let fixture = Fixture::new(&files, &["a.ts"]);
        let sources = fixture.sources();
        let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
        let member = "= types.ts@17.getValue";
        for (i, line) in [(0, 2), (1, 4), (2, 5), (3, 6)] {
            assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
        }
        assert!(got[4].starts_with("7 ? "), "{got:?}");
        assert!(got[5].starts_with("9 ? "), "{got:?}");
        // `rows.filter(…).map(r => …)`: filter gives the same array; `first(rows)!` a Row.
        for (i, line) in [(6, 11), (7, 11), (8, 13)] {
            assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
        }
        assert_eq!(got.len(), 9, "{got:?}");
    }

    #[test]
    fn packages_and_globals_are_outside_and_object_keys_unresolved() {
        let text =
            "import { total } from 'lodash';\ntotal(console.total);\nconst o = { total: 1 };\n";
        assert_eq!(
            resolve(&[("a.js", text)], "a.js", "total"),
            [
                "1 outside: imported from the package `lodash`",
                "2 outside: imported from the package `lodash`",
                "2 outside: `console` is a JavaScript global",
                "3 ? `total` is a property key of an object literal (a member of an anonymous type)"
            ]
        );
    }
}
