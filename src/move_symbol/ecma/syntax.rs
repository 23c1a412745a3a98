//! A JavaScript/TypeScript module as a move reads it, parsed once by `oxc` into plain facts
//! (offsets into its text): its import and export statements, its top-level declarations, the
//! references to each top-level binding, the uses of its namespace imports, and the strings
//! that name modules outside static imports (`require`, `import()`, `vi.mock`).

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{
    Declaration, ExportDefaultDeclarationKind, Expression, ImportDeclarationSpecifier,
    ImportOrExportKind, ModuleExportName, Statement, TSModuleReference, TSTypeName,
};
use oxc_semantic::{Semantic, SemanticBuilder};
use oxc_span::{GetSpan, SourceType};
use std::collections::HashMap;

/// A byte range of the module's text.
pub(super) type Range = (usize, usize);

/// One name of an import or export list: `imported as local` (for an export, `local as
/// exported` is kept as `imported` = the local or source name, `local` = the exported name).
#[derive(Debug, Clone)]
pub(super) struct Spec {
    pub(super) span: Range,
    pub(super) imported: String,
    pub(super) local: String,
    /// `type` written before it.
    pub(super) type_only: bool,
}

/// `import … from 'source'`, `export … from 'source'` or `export * from 'source'`.
#[derive(Debug, Clone)]
pub(super) struct ModuleStatement {
    pub(super) span: Range,
    pub(super) source: String,
    /// The string literal, quotes included.
    pub(super) source_span: Range,
    /// `import type` / `export type`.
    pub(super) type_only: bool,
    pub(super) what: Brings,
}

/// What a module statement brings or hands on.
#[derive(Debug, Clone)]
pub(super) enum Brings {
    /// `import d, * as ns, { named } from`; `import 'x'` has none of them.
    Import {
        default: Option<String>,
        namespace: Option<String>,
        named: Vec<Spec>,
        /// Whether it has braces (`import {} from` included).
        braces: bool,
    },
    /// `export { named } from`.
    ExportFrom { named: Vec<Spec> },
    /// `export * from` (`named`: `export * as ns from`).
    Star { named: bool },
}

/// A top-level declaration.
#[derive(Debug, Clone)]
pub(super) struct Decl {
    /// The names it binds.
    pub(super) names: Vec<String>,
    /// The whole statement (`export` and decorators included).
    pub(super) span: Range,
    /// Where `export ` would go.
    pub(super) keyword_at: usize,
    pub(super) exported: bool,
    pub(super) kind: DeclKind,
}

/// What a top-level statement declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeclKind {
    Function,
    Class,
    /// `const`/`let`/`var` with one plain name.
    Variable,
    /// `const a = 1, b = 2`, `const { a } = o`.
    Variables,
    TypeAlias,
    Interface,
    Enum,
    /// `namespace`/`module`/`global`, `import x = …`.
    Namespace,
    /// `export default …`.
    Default,
}

impl DeclKind {
    /// Whether it declares a type alone (no value at run time).
    pub(super) fn is_type(self) -> bool {
        matches!(self, DeclKind::TypeAlias | DeclKind::Interface)
    }
}

/// A reference to a top-level binding.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ref {
    pub(super) at: usize,
    /// Read as a value (not in a type alone).
    pub(super) value: bool,
    /// Assigned.
    pub(super) write: bool,
}

/// A use of a namespace import `ns`.
#[derive(Debug, Clone)]
pub(super) enum NsUse {
    /// `ns.name` (a member expression or a qualified type name): the whole expression's range.
    Member { span: Range, name: String },
    /// `ns` used whole.
    Whole { at: usize },
}

/// A top-level binding and its references.
#[derive(Debug, Clone)]
pub(super) struct Binding {
    pub(super) at: usize,
    pub(super) refs: Vec<Ref>,
    /// From an import statement (its index in `statements`).
    pub(super) import: Option<usize>,
}

/// The facts of one module.
#[derive(Debug, Default)]
pub(super) struct Module {
    pub(super) statements: Vec<ModuleStatement>,
    /// `export { a, b as c }` (no source): (span, type-only, names).
    pub(super) local_exports: Vec<(Range, bool, Vec<Spec>)>,
    pub(super) decls: Vec<Decl>,
    /// Top-level bindings by name.
    pub(super) bindings: HashMap<String, Binding>,
    /// Every name bound anywhere in the module (a rewrite to a bare name must not be
    /// shadowed).
    pub(super) all_names: Vec<String>,
    /// Namespace import local name → its uses.
    pub(super) namespace_uses: HashMap<String, Vec<NsUse>>,
    /// Strings naming a module outside static imports: (offset, value, what).
    pub(super) module_strings: Vec<(usize, String, &'static str)>,
    /// `module.exports`, `exports.x` or `require(…)`: a CommonJS module.
    pub(super) commonjs: bool,
    /// Comments: ranges.
    pub(super) comments: Vec<Range>,
    /// Where a new import goes: past the last import statement, else past the directives
    /// (`'use client'`), else the start.
    pub(super) import_point: usize,
    /// The module does not parse.
    pub(super) broken: bool,
}

fn range(span: oxc_span::Span) -> Range {
    (span.start as usize, span.end as usize)
}

fn export_name(name: &ModuleExportName) -> String {
    name.name().to_string()
}

fn is_type(kind: ImportOrExportKind) -> bool {
    kind.is_type()
}

/// Whether a path is TypeScript (where `import type` may be written).
pub(in crate::move_symbol) fn is_typescript(path: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// Reads a module's facts.
pub(super) fn read(path: &str, text: &str) -> Module {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts());
    let parsed = oxc_parser::Parser::new(&allocator, text, source_type).parse();
    if parsed.panicked || !parsed.diagnostics.is_empty() {
        return Module {
            broken: true,
            ..Module::default()
        };
    }
    let program = &parsed.program;
    let built = SemanticBuilder::new().with_build_nodes(true).build(program);
    let semantic = &built.semantic;
    let mut module = Module {
        comments: program.comments.iter().map(|c| range(c.span)).collect(),
        ..Module::default()
    };
    for stmt in &program.body {
        statement(stmt, &mut module);
    }
    // `export ` goes on the keyword, past the blanks after a class's decorators.
    for decl in &mut module.decls {
        let rest = &text[decl.keyword_at..];
        decl.keyword_at += rest.len() - rest.trim_start().len();
    }
    module.import_point = module
        .statements
        .iter()
        .filter(|s| matches!(s.what, Brings::Import { .. }))
        .map(|s| s.span.1)
        .max()
        .or_else(|| program.directives.last().map(|d| d.span.end as usize))
        .unwrap_or(0);
    bindings(semantic, &mut module);
    uses(semantic, &mut module);
    module
}

fn statement(stmt: &Statement, m: &mut Module) {
    match stmt {
        Statement::ImportDeclaration(d) => m.statements.push(import(d)),
        Statement::ExportFromDeclaration(d) => {
            let named = d
                .specifiers
                .iter()
                .map(|s| Spec {
                    span: range(s.span),
                    imported: export_name(&s.local),
                    local: export_name(&s.exported),
                    type_only: is_type(s.export_kind),
                })
                .collect();
            m.statements.push(ModuleStatement {
                span: range(d.span),
                source: d.source.value.to_string(),
                source_span: range(d.source.span),
                type_only: is_type(d.export_kind),
                what: Brings::ExportFrom { named },
            });
        }
        Statement::ExportAllDeclaration(d) => m.statements.push(ModuleStatement {
            span: range(d.span),
            source: d.source.value.to_string(),
            source_span: range(d.source.span),
            type_only: is_type(d.export_kind),
            what: Brings::Star {
                named: d.exported.is_some(),
            },
        }),
        Statement::ExportNamedDeclaration(d) => {
            let specs = d
                .specifiers
                .iter()
                .map(|s| Spec {
                    span: range(s.span),
                    imported: export_name(&s.local),
                    local: export_name(&s.exported),
                    type_only: is_type(s.export_kind),
                })
                .collect();
            m.local_exports
                .push((range(d.span), is_type(d.export_kind), specs));
        }
        Statement::ExportDeclaration(d) => {
            if let Some(decl) = declaration(&d.declaration, range(d.span), true) {
                m.decls.push(decl);
            }
        }
        Statement::ExportDefaultDeclaration(d) => {
            let id = match &d.declaration {
                ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.id.as_ref(),
                ExportDefaultDeclarationKind::ClassDeclaration(c) => c.id.as_ref(),
                ExportDefaultDeclarationKind::TSInterfaceDeclaration(i) => Some(&i.id),
                _ => None,
            };
            m.decls.push(Decl {
                names: id.map(|b| vec![b.name.to_string()]).unwrap_or_default(),
                span: range(d.span),
                keyword_at: d.span.start as usize,
                exported: true,
                kind: DeclKind::Default,
            });
        }
        other => {
            if let Some(decl) = other.as_declaration()
                && let Some(decl) = declaration(decl, range(other.span()), false)
            {
                m.decls.push(decl);
            }
        }
    }
}

/// An import statement's facts.
fn import(d: &oxc_ast::ast::ImportDeclaration) -> ModuleStatement {
    let (mut default, mut namespace, mut named) = (None, None, Vec::new());
    for s in d.specifiers.iter().flatten() {
        match s {
            ImportDeclarationSpecifier::ImportSpecifier(s) => named.push(Spec {
                span: range(s.span),
                imported: export_name(&s.imported),
                local: s.local.name.to_string(),
                type_only: is_type(s.import_kind),
            }),
            ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                default = Some(s.local.name.to_string());
            }
            ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                namespace = Some(s.local.name.to_string());
            }
        }
    }
    ModuleStatement {
        span: range(d.span),
        source: d.source.value.to_string(),
        source_span: range(d.source.span),
        type_only: is_type(d.import_kind),
        what: Brings::Import {
            default,
            namespace,
            braces: !named.is_empty(),
            named,
        },
    }
}

/// A declaration's facts.
fn declaration(decl: &Declaration, span: Range, exported: bool) -> Option<Decl> {
    let (kind, ids): (DeclKind, Vec<(String, u32)>) = match decl {
        Declaration::VariableDeclaration(v) => {
            let ids: Vec<(String, u32)> = v
                .declarations
                .iter()
                .flat_map(|d| d.id.get_binding_identifiers())
                .map(|b| (b.name.to_string(), b.span.start))
                .collect();
            let single = v.declarations.len() == 1
                && v.declarations[0].id.get_binding_identifier().is_some();
            let kind = if single {
                DeclKind::Variable
            } else {
                DeclKind::Variables
            };
            (kind, ids)
        }
        Declaration::FunctionDeclaration(f) => (
            DeclKind::Function,
            f.id.iter()
                .map(|b| (b.name.to_string(), b.span.start))
                .collect(),
        ),
        Declaration::ClassDeclaration(c) => (
            DeclKind::Class,
            c.id.iter()
                .map(|b| (b.name.to_string(), b.span.start))
                .collect(),
        ),
        Declaration::TSTypeAliasDeclaration(t) => (
            DeclKind::TypeAlias,
            vec![(t.id.name.to_string(), t.id.span.start)],
        ),
        Declaration::TSInterfaceDeclaration(t) => (
            DeclKind::Interface,
            vec![(t.id.name.to_string(), t.id.span.start)],
        ),
        Declaration::TSEnumDeclaration(t) => (
            DeclKind::Enum,
            vec![(t.id.name.to_string(), t.id.span.start)],
        ),
        Declaration::TSImportEqualsDeclaration(t) => (
            DeclKind::Namespace,
            vec![(t.id.name.to_string(), t.id.span.start)],
        ),
        Declaration::TSNamespaceDeclaration(t) => (
            DeclKind::Namespace,
            vec![(t.id.name.to_string(), t.id.span.start)],
        ),
        Declaration::TSExternalModuleDeclaration(_) | Declaration::TSGlobalDeclaration(_) => {
            (DeclKind::Namespace, Vec::new())
        }
    };
    // `export` goes before the keyword, after a class's decorators.
    let keyword_at = match decl {
        Declaration::ClassDeclaration(c) if !exported => c
            .decorators
            .iter()
            .map(|d| d.span.end as usize)
            .max()
            .unwrap_or(span.0),
        _ => span.0,
    };
    // A class's decorators written before `export` belong to the statement.
    let start = match decl {
        Declaration::ClassDeclaration(c) => c
            .decorators
            .iter()
            .map(|d| d.span.start as usize)
            .min()
            .unwrap_or(span.0)
            .min(span.0),
        _ => span.0,
    };
    Some(Decl {
        names: ids.iter().map(|(n, _)| n.clone()).collect(),
        span: (start, span.1),
        keyword_at,
        exported,
        kind,
    })
}

/// The top-level bindings and their references.
fn bindings(semantic: &Semantic, m: &mut Module) {
    let scoping = semantic.scoping();
    let root = scoping.root_scope_id();
    for symbol in scoping.iter_bindings_in(root) {
        let name = scoping.symbol_name(symbol).to_string();
        let at = scoping.symbol_span(symbol).start as usize;
        let refs = scoping
            .get_resolved_references(symbol)
            .map(|r| Ref {
                at: semantic.nodes().get_node(r.node_id()).kind().span().start as usize,
                value: r.is_value(),
                write: r.is_write(),
            })
            .collect();
        let import = m.statements.iter().position(|s| {
            matches!(s.what, Brings::Import { .. }) && s.span.0 <= at && at < s.span.1
        });
        m.bindings.insert(name, Binding { at, refs, import });
    }
    let mut names: Vec<String> = scoping.symbol_names().map(str::to_string).collect();
    names.sort();
    names.dedup();
    m.all_names = names;
}

/// Namespace imports' uses, module strings, CommonJS.
fn uses(semantic: &Semantic, m: &mut Module) {
    let scoping = semantic.scoping();
    let root = scoping.root_scope_id();
    let namespaces: Vec<String> = m
        .statements
        .iter()
        .filter_map(|s| match &s.what {
            Brings::Import {
                namespace: Some(ns),
                ..
            } => Some(ns.clone()),
            _ => None,
        })
        .collect();
    for ns in namespaces {
        let Some(symbol) = scoping.get_binding(root, ns.as_str().into()) else {
            continue;
        };
        let mut found = Vec::new();
        for r in scoping.get_resolved_references(symbol) {
            let node = r.node_id();
            let at = semantic.nodes().get_node(node).kind().span().start as usize;
            let parent = semantic.nodes().parent_kind(node);
            let member = match parent {
                AstKind::StaticMemberExpression(e) => Some((range(e.span), e.property.name)),
                AstKind::TSQualifiedName(q) => Some((range(q.span), q.right.name)),
                _ => None,
            };
            found.push(match member {
                Some((span, name)) if span.0 == at => NsUse::Member {
                    span,
                    name: name.to_string(),
                },
                _ => NsUse::Whole { at },
            });
        }
        // A type name `ns.T` may reach the semantic model as an unresolved reference: read
        // the qualified names too.
        for node in semantic.nodes().iter() {
            if let AstKind::TSQualifiedName(q) = node.kind()
                && let TSTypeName::IdentifierReference(left) = &q.left
                && left.name == ns.as_str()
                && !found.iter().any(
                    |u| matches!(u, NsUse::Member { span, .. } if span.0 == q.span.start as usize),
                )
                && scoping
                    .get_binding(root, ns.as_str().into())
                    .is_some_and(|_| {
                        left.reference_id
                            .get()
                            .and_then(|id| scoping.get_reference(id).symbol_id())
                            .is_none_or(|s| s == symbol)
                    })
            {
                found.push(NsUse::Member {
                    span: range(q.span),
                    name: q.right.name.to_string(),
                });
            }
        }
        m.namespace_uses.insert(ns, found);
    }
    module_strings(semantic, m);
}

/// Strings naming modules outside static imports, and the marks of CommonJS.
fn module_strings(semantic: &Semantic, m: &mut Module) {
    let scoping = semantic.scoping();
    for node in semantic.nodes().iter() {
        match node.kind() {
            AstKind::ImportExpression(e) => {
                if let Expression::StringLiteral(s) = &e.source {
                    m.module_strings
                        .push((s.span.start as usize, s.value.to_string(), "import()"));
                } else {
                    m.module_strings.push((
                        e.span.start as usize,
                        String::new(),
                        "import() of a computed module",
                    ));
                }
            }
            AstKind::CallExpression(c) => {
                let callee = c.callee_name();
                if callee == Some("require") && c.callee.is_identifier_reference() {
                    m.commonjs = true;
                }
                for arg in &c.arguments {
                    if let Some(Expression::StringLiteral(s)) = arg.as_expression() {
                        let what = if callee == Some("require") {
                            "require()"
                        } else {
                            "a string naming a module"
                        };
                        m.module_strings
                            .push((s.span.start as usize, s.value.to_string(), what));
                    }
                }
            }
            AstKind::TSImportType(t) => {
                m.module_strings.push((
                    t.source.span.start as usize,
                    t.source.value.to_string(),
                    "import() type",
                ));
            }
            AstKind::TSImportEqualsDeclaration(d) => {
                if let TSModuleReference::ExternalModuleReference(r) = &d.module_reference {
                    m.module_strings.push((
                        r.expression.span.start as usize,
                        r.expression.value.to_string(),
                        "import = require()",
                    ));
                }
            }
            AstKind::StaticMemberExpression(e) => {
                if let Expression::Identifier(obj) = &e.object {
                    let unbound = obj
                        .reference_id
                        .get()
                        .and_then(|id| scoping.get_reference(id).symbol_id())
                        .is_none();
                    if unbound
                        && ((obj.name == "module" && e.property.name == "exports")
                            || obj.name == "exports")
                    {
                        m.commonjs = true;
                    }
                }
            }
            _ => {}
        }
    }
}
