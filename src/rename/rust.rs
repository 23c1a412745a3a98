//! Rust name resolution for `lancet rename`: what the syntax trees of the walked files prove,
//! and nothing more (a type checker's answer is `--lsp`).
//!
//! - A member is `Type::name` (an associated item, a variant) or `Type.name` (a field: a field
//!   and a method of one name are two symbols): defined in an `impl Type` (or a trait of the
//!   tree and its impls: `Trait::name`), a struct's field list, and reached through `self` in
//!   such an impl, `Type::name` / `Self::name` paths, `Type { name: … }`, a local whose type the
//!   function writes down (`x: &Type`, `let x = Type { … }`, `let x = Type::new(…)`), a field
//!   of such a receiver (`self.config.x`: the type its struct declares), through `Box`/`Rc`/
//!   `Arc`, and a generic parameter's bounds, `dyn Trait` or `impl Trait` (a trait method).
//!   Any other receiver is unresolved; a method of a trait outside the tree (`fmt` in
//!   `impl Display for T`) or of a library type (`str::len`) resolves outside.
//! - A local (`let`, a parameter, a closure's or a pattern's binding) is its own symbol, by its
//!   declaration; a closure sees the locals of the function around it.
//! - An item (fn, struct, enum, trait, const, static, type, mod, macro) is the symbol when
//!   exactly one item of the walked files has the name in the namespace its place says (a
//!   path's leading segment is a module or type, a macro call's name a macro, an expression's
//!   name a value); with several, the innermost one of the file whose scope holds the use;
//!   else its uses are unresolved.
//! - A path or `use` that starts in `std`, `core` or `alloc` resolves outside the tree, within
//!   the scope of the `use` (a `use` inside one function reaches that function only); so does
//!   every word of an attribute (`#[test]`, derives, cfgs, lints).
//! - A shorthand field (`Type { name }`) is a value and a field at once: both are resolved.
//! - Inside a macro's tokens, `x.name` and `Type::name` are read as they would be outside it.

use super::model::Resolution;
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// The crates of Rust's own library: a path that starts there leaves the tree.
const RUST_LIBRARY: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// Item kinds whose `name` field names an item.
const ITEMS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "const_item",
    "static_item",
    "type_item",
    "mod_item",
    "macro_definition",
];

fn text<'t>(node: Node, source: &'t str) -> &'t str {
    &source[node.byte_range()]
}

/// A type's bare name: `&mut a::B<C>` → `B`.
fn bare_type(ty: &str) -> String {
    let ty = ty.trim().trim_start_matches('&').trim();
    let ty = ty.strip_prefix("mut ").unwrap_or(ty).trim();
    let ty = ty.split('<').next().unwrap_or_default();
    ty.rsplit("::")
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// A type or trait of the tree and the members it declares.
struct Holder {
    /// The type's (or trait's) bare name.
    name: String,
    /// The trait an `impl Trait for Type` implements.
    trait_name: Option<String>,
    /// A struct's or union's fields, rather than associated items or variants: a field and a
    /// method of one name are two symbols (`self.level`, `self.level()`).
    fields: bool,
    /// Each member's name, and the type a field is declared with.
    members: Vec<(String, Option<String>)>,
}

/// Rust's namespaces: a module and a function of one name are two items (`mod identifier`,
/// `fn identifier`), and so are a macro and a function (`log!`, `log`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ItemSpace {
    Type,
    Value,
    Macro,
}

/// The namespaces an item kind defines a name in (a struct's name is a type, and for a unit or
/// tuple struct a value too).
fn item_spaces(kind: &str) -> &'static [ItemSpace] {
    match kind {
        "function_item" | "function_signature_item" | "const_item" | "static_item" => {
            &[ItemSpace::Value]
        }
        "struct_item" => &[ItemSpace::Type, ItemSpace::Value],
        "macro_definition" => &[ItemSpace::Macro],
        _ => &[ItemSpace::Type],
    }
}

/// The namespace a name is used in, when its place says: a path's leading segment
/// (`identifier::Identifier`) is a module or a type, a macro call's name a macro, a name in an
/// expression a value; a `use` line's last segment may be any.
fn use_space(node: Node) -> Option<ItemSpace> {
    if node.kind() == "type_identifier" {
        return Some(ItemSpace::Type);
    }
    let parent = node.parent()?;
    let is = |p: Node, field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == node.id())
    };
    if parent.kind() == "macro_invocation" && is(parent, "macro") {
        return Some(ItemSpace::Macro);
    }
    // `a::name` used as the path of a longer path, or of `use a::name::{…}`.
    let segment = if parent.kind() == "scoped_identifier" && is(parent, "name") {
        parent
    } else {
        node
    };
    if let Some(outer) = segment.parent()
        && matches!(
            outer.kind(),
            "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list" | "use_wildcard"
        )
        && outer
            .child_by_field_name("path")
            .is_some_and(|p| p.id() == segment.id())
    {
        return Some(ItemSpace::Type);
    }
    if ancestor(node, &["use_declaration"]).is_some() {
        return None;
    }
    // In an expression (a call, a value): values only. A definition's own name: its item's.
    match parent.kind() {
        kind if ITEMS.contains(&kind) && is(parent, "name") => item_spaces(kind).first().copied(),
        "call_expression"
        | "arguments"
        | "let_declaration"
        | "binary_expression"
        | "return_expression"
        | "reference_expression"
        | "assignment_expression"
        | "field_expression"
        | "expression_statement"
        | "block" => Some(ItemSpace::Value),
        _ => None,
    }
}

/// An item of a file: its name, where that name is, the scope it is visible in (the file, a
/// `mod { }` or the block of a function), and the namespaces it defines its name in.
struct ScopedItem {
    name: String,
    at: usize,
    scope: Range<usize>,
    spaces: &'static [ItemSpace],
}

/// What one file declares: its items, each holder's members (`impl T`, `trait T`,
/// `struct T`), and the names its `use` lines bring in from Rust's library.
pub(crate) struct FileFacts {
    path: String,
    items: Vec<ScopedItem>,
    /// Names of the types (struct, enum, union, trait, type alias) the file defines.
    types: Vec<String>,
    holders: Vec<Holder>,
    traits: Vec<String>,
    /// Names brought in by `use std::…` / `use core::…`, with the scope of the `use`.
    outside_uses: Vec<(String, Range<usize>)>,
}

impl FileFacts {
    /// Collects the facts of one file.
    pub(crate) fn of(path: &str, source: &str, tree: &Tree) -> FileFacts {
        let mut facts = FileFacts {
            path: path.to_string(),
            items: Vec::new(),
            types: Vec::new(),
            holders: Vec::new(),
            traits: Vec::new(),
            outside_uses: Vec::new(),
        };
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            let kind = n.kind();
            if ITEMS.contains(&kind)
                && holder_of(n, source).is_none()
                && let Some(name) = n.child_by_field_name("name")
            {
                facts.items.push(ScopedItem {
                    name: text(name, source).to_string(),
                    at: name.start_byte(),
                    scope: n.parent().unwrap_or(n).byte_range(),
                    spaces: item_spaces(kind),
                });
                if matches!(
                    kind,
                    "struct_item" | "enum_item" | "union_item" | "trait_item" | "type_item"
                ) {
                    facts.types.push(text(name, source).to_string());
                }
            }
            match kind {
                "trait_item" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        facts.traits.push(text(name, source).to_string());
                        facts.holders.push(Holder {
                            name: text(name, source).to_string(),
                            trait_name: None,
                            fields: false,
                            members: members(n, source),
                        });
                    }
                }
                "impl_item" | "struct_item" | "union_item" | "enum_item" => {
                    if let Some(ty) = n
                        .child_by_field_name("type")
                        .or_else(|| n.child_by_field_name("name"))
                    {
                        facts.holders.push(Holder {
                            name: bare_type(text(ty, source)),
                            trait_name: n
                                .child_by_field_name("trait")
                                .map(|t| bare_type(text(t, source))),
                            fields: matches!(kind, "struct_item" | "union_item"),
                            members: members(n, source),
                        });
                    }
                }
                "use_declaration" => facts.outside_use(n, source),
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        facts
    }

    /// Whether `name`, used at `at`, is brought in from Rust's library by a `use` whose scope
    /// holds it (a `use` inside one function reaches that function only).
    fn uses_outside(&self, name: &str, at: usize) -> bool {
        self.outside_uses
            .iter()
            .any(|(u, scope)| u == name && scope.contains(&at))
    }

    fn outside_use(&mut self, decl: Node, source: &str) {
        let scope = decl.parent().unwrap_or(decl).byte_range();
        let Some(argument) = decl.child_by_field_name("argument") else {
            return;
        };
        let first = text(argument, source)
            .trim_start_matches("::")
            .split("::")
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        if !RUST_LIBRARY.contains(&first.as_str()) {
            return;
        }
        let mut stack = vec![argument];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "use_as_clause" => {
                    if let Some(alias) = n.child_by_field_name("alias") {
                        self.outside_uses
                            .push((text(alias, source).to_string(), scope.clone()));
                    }
                }
                "scoped_identifier" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.outside_uses
                            .push((text(name, source).to_string(), scope.clone()));
                    }
                }
                "identifier" => self
                    .outside_uses
                    .push((text(n, source).to_string(), scope.clone())),
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
    }
}

/// The members an impl, trait or struct declares (methods, associated items, fields), with
/// the type a field is declared with.
fn members(item: Node, source: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let Some(body) = item.child_by_field_name("body") else {
        return out;
    };
    let mut cursor = body.walk();
    for c in body.named_children(&mut cursor) {
        if let Some(name) = c.child_by_field_name("name") {
            let ty = (c.kind() == "field_declaration")
                .then(|| c.child_by_field_name("type"))
                .flatten()
                .map(|t| text(t, source).to_string());
            out.push((text(name, source).to_string(), ty));
        }
    }
    out
}

/// The impl or trait whose body holds a node directly: (its holder name, the trait it
/// implements if any).
fn holder_of(node: Node, source: &str) -> Option<(String, Option<String>)> {
    let list = node.parent().filter(|p| p.kind() == "declaration_list")?;
    let item = list.parent()?;
    match item.kind() {
        "impl_item" => Some((
            bare_type(text(item.child_by_field_name("type")?, source)),
            item.child_by_field_name("trait")
                .map(|t| bare_type(text(t, source))),
        )),
        "trait_item" => Some((
            text(item.child_by_field_name("name")?, source).to_string(),
            None,
        )),
        _ => None,
    }
}

/// The type named by the item or expression whose list (fields, variants, initialisers)
/// holds `entry`.
fn list_owner(entry: Node, source: &str) -> Option<String> {
    let owner = entry.parent()?.parent()?.child_by_field_name("name")?;
    Some(bare_type(text(owner, source)))
}

/// The impl or trait around a node (for `self` and `Self`).
fn enclosing_impl(node: Node, source: &str) -> Option<(String, Option<String>)> {
    let mut at = node.parent();
    while let Some(n) = at {
        match n.kind() {
            "impl_item" => {
                return Some((
                    bare_type(text(n.child_by_field_name("type")?, source)),
                    n.child_by_field_name("trait")
                        .map(|t| bare_type(text(t, source))),
                ));
            }
            "trait_item" => {
                return Some((
                    text(n.child_by_field_name("name")?, source).to_string(),
                    None,
                ));
            }
            _ => {}
        }
        at = n.parent();
    }
    None
}

/// Every walked Rust file's facts.
pub(crate) struct RustProject<'a> {
    /// Each file's facts, by path.
    pub files: Vec<(&'a str, FileFacts)>,
}

/// Which members a name can be: a struct's fields (`x.level`, `P { level }`), or the
/// associated items and variants of impls, traits and enums (`x.level()`, `T::level`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Namespace {
    Field,
    Item,
}

/// Library types that dereference to the type they hold: a member reached through one is the
/// held type's (`Box<Config>` → `Config`).
const POINTERS: &[&str] = &[
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "Ref",
    "RefMut",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "ManuallyDrop",
    "Pin",
];

impl RustProject<'_> {
    fn holders(&self) -> impl Iterator<Item = &Holder> {
        self.files.iter().flat_map(|(_, f)| &f.holders)
    }

    /// The number of types of the walked files named `name`.
    fn types_named(&self, name: &str) -> usize {
        self.files
            .iter()
            .flat_map(|(_, f)| &f.types)
            .filter(|t| *t == name)
            .count()
    }

    /// The member id of `name` on type (or trait) `holder`: its inherent impl or struct, or a
    /// trait of the tree; `Err` when it resolves outside or not at all.
    fn member_id(&self, holder: &str, name: &str, space: Namespace) -> Result<String, Resolution> {
        // Two types of one name (a test's wrapper of the library's type): their members cannot
        // be told apart by name.
        let types = self.types_named(holder);
        if types > 1 {
            return Err(Resolution::Unresolved(format!(
                "{types} types of the walked files are named `{holder}`; which one this is needs module resolution (--lsp)"
            )));
        }
        let fields = space == Namespace::Field;
        let defines = |h: &Holder| h.fields == fields && h.members.iter().any(|(m, _)| m == name);
        if fields {
            return if self.holders().any(|h| h.name == holder && defines(h)) {
                Ok(format!("rust:{holder}.{name}"))
            } else if types == 0 {
                Err(Resolution::Outside(format!(
                    "`{holder}` is not a type of the walked files: its field `{name}` is outside the tree"
                )))
            } else {
                Err(Resolution::Unresolved(format!(
                    "`{holder}` declares no field `{name}` in the walked files"
                )))
            };
        }
        // Inherent: impl Holder { … }, enum Holder { … }, or trait Holder { … }.
        if self
            .holders()
            .any(|h| h.name == holder && h.trait_name.is_none() && defines(h))
        {
            return Ok(format!("rust:{holder}::{name}"));
        }
        // Through a trait the type implements.
        let traits: Vec<&String> = self
            .holders()
            .filter(|h| h.name == holder && defines(h))
            .filter_map(|h| h.trait_name.as_ref())
            .collect();
        let in_tree: Vec<&&String> = traits.iter().filter(|t| self.is_tree_trait(t)).collect();
        // A type the tree does not define (`Vec`, `String`): its `name` is the library's,
        // unless a trait of the tree has a method of that name (a blanket impl may give it).
        match (traits.as_slice(), in_tree.as_slice()) {
            ([], _) if types == 0 && !self.tree_trait_defines(name) => {
                Err(Resolution::Outside(format!(
                    "`{holder}` is not a type of the walked files: its `{name}` is outside the tree"
                )))
            }
            ([], _) => Err(Resolution::Unresolved(format!(
                "`{holder}` defines no `{name}` in the walked files"
            ))),
            (_, [one]) if traits.len() == 1 => Ok(format!("rust:{one}::{name}")),
            (_, []) => Err(Resolution::Outside(format!(
                "`{name}` is a method of {}, outside the tree",
                traits
                    .iter()
                    .map(|t| format!("the trait `{t}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
            _ => Err(Resolution::Unresolved(format!(
                "`{holder}` has `{name}` from several traits"
            ))),
        }
    }

    /// Whether a trait of the tree declares a member `name`.
    fn tree_trait_defines(&self, name: &str) -> bool {
        self.holders().any(|h| {
            h.trait_name.is_none()
                && self.is_tree_trait(&h.name)
                && h.members.iter().any(|(m, _)| m == name)
        })
    }

    fn is_tree_trait(&self, name: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.traits.iter().any(|t| t == name))
    }

    /// The id of an item used by name, in the namespace its place says (`space`; `None`: any).
    /// One item of the tree fits: that item. Several: the innermost one of this file whose
    /// scope holds the use (`at`; Rust lets a module's own item shadow a glob import), else
    /// unresolved.
    fn item_id(
        &self,
        facts: &FileFacts,
        name: &str,
        at: Option<usize>,
        space: Option<ItemSpace>,
    ) -> Resolution {
        if let Some(at) = at
            && facts.uses_outside(name, at)
        {
            return Resolution::Outside(format!("`{name}` is imported from Rust's library"));
        }
        let fits = |i: &ScopedItem| i.name == name && space.is_none_or(|s| i.spaces.contains(&s));
        let all: Vec<(&str, &ScopedItem)> = self
            .files
            .iter()
            .flat_map(|(_, f)| f.items.iter().map(|i| (f.path.as_str(), i)))
            .filter(|(_, i)| fits(i))
            .collect();
        let here = at.and_then(|at| {
            facts
                .items
                .iter()
                .filter(|i| fits(i) && i.scope.contains(&at))
                .min_by_key(|i| i.scope.len())
        });
        match (all.as_slice(), here) {
            ([(path, one)], _) => Resolution::Symbol(self.item_symbol(path, one)),
            ([], _) => Resolution::Unresolved(format!(
                "no item of the walked files is named `{name}` (a glob import, a macro, or another crate)"
            )),
            (_, Some(item)) => Resolution::Symbol(self.item_symbol(&facts.path, item)),
            (many, None) => Resolution::Unresolved(format!(
                "{} items of the walked files are named `{name}`; which one this is needs module resolution (--lsp)",
                many.len()
            )),
        }
    }

    /// An item's id, the same by whatever route it is reached: `rust:item:NAME` when no other
    /// item has the name, `…#type` / `…#value` / `…#macro` when none other has it in its
    /// namespace, else `…@PATH:OFFSET`.
    fn item_symbol(&self, path: &str, item: &ScopedItem) -> String {
        let others = |shares: &dyn Fn(&ScopedItem) -> bool| {
            self.files
                .iter()
                .flat_map(|(_, f)| &f.items)
                .filter(|i| i.name == item.name && !std::ptr::eq(*i, item) && shares(i))
                .count()
        };
        let name = &item.name;
        if others(&|_| true) == 0 {
            format!("rust:item:{name}")
        } else if others(&|i| i.spaces.iter().any(|s| item.spaces.contains(s))) == 0 {
            let space = format!("{:?}", item.spaces[0]).to_lowercase();
            format!("rust:item:{name}#{space}")
        } else {
            format!("rust:item:{name}@{path}:{}", item.at)
        }
    }

    /// Classifies one occurrence of `name` (an identifier node) in a file.
    pub(crate) fn resolve(
        &self,
        facts: &FileFacts,
        source: &str,
        node: Node,
        name: &str,
    ) -> Resolution {
        let Some(parent) = node.parent() else {
            return Resolution::Unresolved("no syntax around it".into());
        };
        if matches!(parent.kind(), "lifetime" | "label") {
            return Resolution::Outside(
                "a lifetime or a loop label (`'name`), never an item or a value".into(),
            );
        }
        if ancestor(node, &["attribute_item", "inner_attribute_item"]).is_some() {
            return Resolution::Outside(
                "a word of an attribute (`#[test]`, a derive, a cfg, a lint): never an item of the tree"
                    .into(),
            );
        }
        let field_is = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|f| f.id() == node.id())
        };
        match parent.kind() {
            kind if ITEMS.contains(&kind) && field_is("name") => match holder_of(parent, source) {
                // `impl Log for File { fn write }`: the trait's method, never `File`'s own
                // `write` of the same name; a trait outside the tree owns it outside.
                Some((_, Some(tr))) if self.is_tree_trait(&tr) => {
                    Resolution::Symbol(format!("rust:{tr}::{name}"))
                }
                Some((_, Some(tr))) => Resolution::Outside(format!(
                    "`{name}` is a method of the trait `{tr}`, outside the tree"
                )),
                Some((holder, None)) => self.member(&holder, name, Namespace::Item),
                None => self.item_id(facts, name, Some(node.start_byte()), use_space(node)),
            },
            "enum_variant" if field_is("name") => match list_owner(parent, source) {
                Some(owner) => self.member(&owner, name, Namespace::Item),
                None => Resolution::Unresolved("a variant of an unknown enum".into()),
            },
            // A field declared or given a value: a field of the struct whose list holds it.
            "field_declaration" | "field_initializer" if field_is("name") || field_is("field") => {
                self.field_of_list(parent, source, name)
            }
            // `Type { name: x }` (the shorthand `Type { name }` binds a local: below).
            "field_pattern" if field_is("name") && node.kind() != "shorthand_field_identifier" => {
                self.field_of_pattern(parent, source, name)
            }
            "field_expression" if field_is("field") => {
                let called = parent
                    .parent()
                    .filter(|c| c.kind() == "call_expression")
                    .and_then(|c| c.child_by_field_name("function"))
                    .is_some_and(|f| f.id() == parent.id());
                let space = if called {
                    Namespace::Item
                } else {
                    Namespace::Field
                };
                self.receiver_member(source, parent.child_by_field_name("value"), name, space)
            }
            // A shorthand field is a value and a field at once: here, the value; the field is
            // `shorthand_field`'s.
            "shorthand_field_initializer" => self.local_or_item(facts, source, node, name),
            // A `macro_rules!` matcher's words are the macro's own syntax.
            _ if ancestor(node, &["token_tree_pattern"]).is_some() => {
                Resolution::Outside("a literal word of a `macro_rules!` matcher".into())
            }
            // Inside a macro's tokens: `x.name`, `Type::name`, or a plain name.
            "token_tree" => self.in_tokens(facts, source, node, name),
            "scoped_identifier" | "scoped_type_identifier" if field_is("name") => {
                let path = parent
                    .child_by_field_name("path")
                    .map(|p| text(p, source))
                    .unwrap_or("");
                self.path(facts, source, node, path, name)
            }
            _ => self.local_or_item(facts, source, node, name),
        }
    }

    /// A plain name: the local it is bound to (by the function around it, or by a `let` among
    /// a macro's tokens), else an item of the tree.
    fn local_or_item(&self, facts: &FileFacts, source: &str, node: Node, name: &str) -> Resolution {
        match local_declaration(node, source).or_else(|| token_binding(node, source)) {
            Some(at) => Resolution::Symbol(format!("rust:local@{}@{at}", facts.path)),
            None => self.item_id(facts, name, Some(node.start_byte()), use_space(node)),
        }
    }

    /// A name among a macro's tokens (a call's arguments, a `macro_rules!` body): after `.` a
    /// member of the receiver before it (a method when `(` follows), after `::` a path's last
    /// segment, else a local or an item.
    fn in_tokens(&self, facts: &FileFacts, source: &str, node: Node, name: &str) -> Resolution {
        // `name:` among a macro's tokens: in `( )` or `[ ]` a word of the macro's own syntax
        // (`error!(logger: l, …)`, `(target: $t:expr)` in `macro_rules!`); in `{ }` maybe a
        // struct's field given a value.
        if node.next_sibling().is_some_and(|n| n.kind() == ":") {
            let braces = node
                .parent()
                .is_some_and(|tokens| text(tokens, source).starts_with('{'));
            return if braces {
                Resolution::Unresolved(
                    "`name:` inside a macro's braces (a field given a value, or the macro's own word)"
                        .into(),
                )
            } else {
                Resolution::Outside(
                    "a word of a macro's own syntax (`name:` among its arguments)".into(),
                )
            };
        }
        let before = node.prev_sibling();
        match before.map(|b| b.kind()) {
            Some(".") => {
                let called = node
                    .next_sibling()
                    .is_some_and(|n| n.kind() == "token_tree" && text(n, source).starts_with('('));
                let space = if called {
                    Namespace::Item
                } else {
                    Namespace::Field
                };
                match before.and_then(|dot| dot.prev_sibling()) {
                    Some(o) if matches!(o.kind(), "self" | "identifier") => {
                        self.receiver_member(source, Some(o), name, space)
                    }
                    _ => Resolution::Unresolved(
                        "a member of an expression inside a macro's tokens".to_string(),
                    ),
                }
            }
            Some("::") => match before.and_then(|c| c.prev_sibling()) {
                Some(segment)
                    if matches!(segment.kind(), "identifier" | "self" | "super" | "crate") =>
                {
                    self.path(facts, source, node, text(segment, source), name)
                }
                // `$crate::name` in a `macro_rules!` body: the defining crate's item.
                Some(segment) if text(segment, source) == "$crate" => {
                    self.path(facts, source, node, "crate", name)
                }
                _ => Resolution::Unresolved("a path inside a macro's tokens".to_string()),
            },
            _ => self.local_or_item(facts, source, node, name),
        }
    }

    /// A field named in a struct's declaration or literal (`name: T`, `name: value`).
    fn field_of_list(&self, entry: Node, source: &str, name: &str) -> Resolution {
        let owner = entry.parent().and_then(|list| list.parent());
        if let Some(variant) = owner.filter(|o| o.kind() == "enum_variant") {
            return Resolution::Unresolved(format!(
                "a field of the enum variant `{}`: lancet renames the fields of structs only, by syntax",
                variant
                    .child_by_field_name("name")
                    .map_or("", |n| text(n, source))
            ));
        }
        match list_owner(entry, source) {
            Some(owner) => self.member(&owner, name, Namespace::Field),
            None => Resolution::Unresolved("a field of an unknown struct".into()),
        }
    }

    /// A field named in a struct pattern (`Type { name: x }`).
    fn field_of_pattern(&self, entry: Node, source: &str, name: &str) -> Resolution {
        match entry
            .parent()
            .and_then(|p| p.child_by_field_name("type"))
            .map(|t| bare_type(text(t, source)))
        {
            Some(owner) => self.member(&owner, name, Namespace::Field),
            None => Resolution::Unresolved("a field of an unknown struct".into()),
        }
    }

    /// For a shorthand field (`P { major }` in an expression, `P { major }` in a pattern),
    /// the field it names beside its value: a member of the struct the braces belong to.
    pub(crate) fn shorthand_field(
        &self,
        source: &str,
        node: Node,
        name: &str,
    ) -> Option<Resolution> {
        let parent = node.parent()?;
        match (parent.kind(), node.kind()) {
            ("shorthand_field_initializer", _) => Some(self.field_of_list(parent, source, name)),
            // `Type { field, .. }`: the pattern names its type.
            ("field_pattern", "shorthand_field_identifier") => {
                Some(self.field_of_pattern(parent, source, name))
            }
            _ => None,
        }
    }

    fn member(&self, holder: &str, name: &str, space: Namespace) -> Resolution {
        match self.member_id(holder, name, space) {
            Ok(id) => Resolution::Symbol(id),
            Err(r) => r,
        }
    }

    /// `a::b::name`, `Type::name`, `Self::name`.
    fn path(
        &self,
        facts: &FileFacts,
        source: &str,
        node: Node,
        path: &str,
        name: &str,
    ) -> Resolution {
        let first = path
            .trim_start_matches("::")
            .split("::")
            .next()
            .unwrap_or_default()
            .trim();
        let first = first.split('<').next().unwrap_or_default();
        if RUST_LIBRARY.contains(&first) || facts.uses_outside(first, node.start_byte()) {
            return Resolution::Outside(format!("`{path}::{name}` is outside the tree"));
        }
        let last = bare_type(path.rsplit("::").next().unwrap_or(path));
        if last == "Self" {
            return match enclosing_impl(node, source) {
                Some((holder, _)) => self.member(&holder, name, Namespace::Item),
                None => Resolution::Unresolved("`Self` outside an impl".into()),
            };
        }
        if last.chars().next().is_some_and(char::is_uppercase) {
            return self.member(&last, name, Namespace::Item);
        }
        // A module path (`crate::a::name`, `super::name`, `a::name`): the item.
        self.item_id(facts, name, None, use_space(node))
    }

    /// `receiver.name`: its type is known when the receiver is `self` in an impl, a local or
    /// parameter whose type the function writes down, or a field of such a receiver (the type
    /// its struct declares); a generic type, `dyn Trait` or `impl Trait` reaches the members of
    /// its bounds.
    fn receiver_member(
        &self,
        source: &str,
        object: Option<Node>,
        name: &str,
        space: Namespace,
    ) -> Resolution {
        let Some(object) = object else {
            return Resolution::Unresolved("a member of nothing".into());
        };
        match self.type_of(source, object) {
            Some(ty) => self.member_of_type(source, object, &ty, name, space),
            None => Resolution::Unresolved(format!(
                "the type of `{}` is not known",
                text(object, source).lines().next().unwrap_or_default()
            )),
        }
    }

    /// The type an expression is declared with, as written, when the syntax says so.
    fn type_of(&self, source: &str, object: Node) -> Option<String> {
        match object.kind() {
            "self" => enclosing_impl(object, source).map(|(h, _)| h),
            "identifier" => rust_local_type(object, source),
            "field_expression" => {
                let value = object.child_by_field_name("value")?;
                let field = text(object.child_by_field_name("field")?, source);
                let holder = deref_type(&self.type_of(source, value)?);
                let holder = bare_type(&holder);
                if self.types_named(&holder) != 1 {
                    return None;
                }
                self.holders()
                    .filter(|h| h.name == holder && h.fields)
                    .flat_map(|h| &h.members)
                    .find(|(m, _)| m == field)
                    .and_then(|(_, ty)| ty.clone())
            }
            _ => None,
        }
    }

    /// The member `name` of a value of type `ty` (as written) used at `at`.
    fn member_of_type(
        &self,
        source: &str,
        at: Node,
        ty: &str,
        name: &str,
        space: Namespace,
    ) -> Resolution {
        let ty = deref_type(ty);
        let bounds =
            if let Some(traits) = ty.strip_prefix("dyn ").or_else(|| ty.strip_prefix("impl ")) {
                Some(traits.split('+').map(bare_type).collect())
            } else {
                generic_bounds(at, source, &bare_type(&ty))
            };
        let Some(bounds) = bounds else {
            let holder = bare_type(&ty);
            return if holder == "Self" {
                match enclosing_impl(at, source) {
                    Some((holder, _)) => self.member(&holder, name, space),
                    None => Resolution::Unresolved("`Self` outside an impl".into()),
                }
            } else {
                self.member(&holder, name, space)
            };
        };
        if space == Namespace::Field {
            return Resolution::Unresolved(format!(
                "a field of a value of the generic type `{ty}`"
            ));
        }
        let defining: Vec<&String> = bounds
            .iter()
            .filter(|t| {
                self.holders().any(|h| {
                    h.name == **t
                        && h.trait_name.is_none()
                        && self.is_tree_trait(t)
                        && h.members.iter().any(|(m, _)| m == name)
                })
            })
            .collect();
        match defining.as_slice() {
            [one] => Resolution::Symbol(format!("rust:{one}::{name}")),
            [] if !bounds.iter().any(|t| self.is_tree_trait(t))
                && !self.tree_trait_defines(name) =>
            {
                Resolution::Outside(format!(
                    "`{name}` of `{ty}` comes from bounds outside the tree"
                ))
            }
            [] => Resolution::Unresolved(format!(
                "the bounds of `{ty}` declare no `{name}` in the walked files"
            )),
            _ => Resolution::Unresolved(format!("several bounds of `{ty}` declare `{name}`")),
        }
    }
}

/// A type as written, less references and the library's pointers that dereference to what they
/// hold: `&mut Box<Config>` → `Config`, `&dyn Log` → `dyn Log`.
fn deref_type(ty: &str) -> String {
    let mut ty = ty.trim();
    loop {
        let before = ty;
        ty = ty.trim_start_matches('&').trim_start();
        if let Some(rest) = ty.strip_prefix('\'') {
            ty = rest.split_once(' ').map_or("", |(_, t)| t).trim_start();
        }
        ty = ty.strip_prefix("mut ").unwrap_or(ty).trim_start();
        let outer = ty.split('<').next().unwrap_or_default();
        let outer = outer.rsplit("::").next().unwrap_or_default().trim();
        if POINTERS.contains(&outer)
            && let (Some(open), Some(close)) = (ty.find('<'), ty.rfind('>'))
            && open < close
        {
            let inner = &ty[open + 1..close];
            // `Cow<'a, T>`: the held type is the last argument.
            ty = inner.rsplit(',').next().unwrap_or(inner).trim();
        }
        if ty == before {
            return ty.to_string();
        }
    }
}

/// The trait bounds of a generic parameter named `param` declared by the function, impl or
/// trait around `at` (`<L: Log>`, `where L: Log + ?Sized`); `None` when `param` is not one.
fn generic_bounds(at: Node, source: &str, param: &str) -> Option<Vec<String>> {
    let mut up = at.parent();
    while let Some(n) = up {
        if matches!(
            n.kind(),
            "function_item" | "impl_item" | "trait_item" | "function_signature_item"
        ) {
            let mut declared = false;
            let mut bounds = Vec::new();
            let mut cursor = n.walk();
            for c in n.named_children(&mut cursor) {
                let entries: Vec<Node> = match c.kind() {
                    "type_parameters" | "where_clause" => {
                        let mut inner = c.walk();
                        c.named_children(&mut inner).collect()
                    }
                    _ => continue,
                };
                for e in entries {
                    let named = e
                        .child_by_field_name("name")
                        .or_else(|| e.child_by_field_name("left"))
                        .map_or_else(|| text(e, source), |x| text(x, source));
                    if named.trim() != param {
                        continue;
                    }
                    declared = true;
                    if let Some(list) = e.child_by_field_name("bounds") {
                        let mut inner = list.walk();
                        for b in list.named_children(&mut inner) {
                            match b.kind() {
                                "lifetime" | "removed_trait_bound" => {}
                                "higher_ranked_trait_bound" => {
                                    if let Some(t) = b.child_by_field_name("type") {
                                        bounds.push(bare_type(text(t, source)));
                                    }
                                }
                                _ => bounds.push(bare_type(text(b, source))),
                            }
                        }
                    }
                }
            }
            if declared {
                return Some(bounds);
            }
        }
        up = n.parent();
    }
    None
}

/// Where the local a name refers to is declared (its byte offset), when the function around
/// it binds it: a parameter, a `let`, a closure parameter, a `for`/`match`/`if let` pattern
/// declared before the use. The name's own declaration counts too.
fn local_declaration(ident: Node, source: &str) -> Option<usize> {
    // A shorthand field in a pattern (`let P { major } = p`) binds a local of its name.
    if !matches!(ident.kind(), "identifier" | "shorthand_field_identifier") {
        return None;
    }
    let name = text(ident, source);
    let function = enclosing_function(ident)?;
    let mut best: Option<usize> = None;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.start_byte() > ident.start_byte() {
            continue;
        }
        let pattern = match n.kind() {
            "parameter" | "let_declaration" | "for_expression" | "let_condition" => {
                n.child_by_field_name("pattern")
            }
            "closure_parameters" | "match_pattern" => Some(n),
            _ => None,
        };
        // A binding is in scope after its declaration: `let x = f(x)` reads the outer `x`.
        let after = |end: usize| ident.start_byte() >= end;
        if let Some(p) = pattern
            && let Some(bound) = binding_in_pattern(p, source, name)
            && (bound == ident.start_byte()
                || match n.kind() {
                    "let_declaration" | "let_condition" | "match_pattern" => after(n.end_byte()),
                    "for_expression" => n
                        .child_by_field_name("body")
                        .is_some_and(|b| b.start_byte() <= ident.start_byte()),
                    _ => bound < ident.start_byte(),
                })
            && encloses_use(n, ident)
        {
            best = Some(best.map_or(bound, |b| b.max(bound)));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    best
}

/// A local bound among a macro's tokens (`m!({ let x = 1; x })`: tokens, not a parsed `let`):
/// the offset of the nearest `let x` / `let mut x` before the name in the token trees around
/// it, the name's own when it is that binding.
fn token_binding(ident: Node, source: &str) -> Option<usize> {
    let name = text(ident, source);
    let mut tokens = ident.parent().filter(|p| p.kind() == "token_tree");
    while let Some(tree) = tokens {
        let mut best = None;
        let mut cursor = tree.walk();
        let children: Vec<Node> = tree.children(&mut cursor).collect();
        for (i, c) in children.iter().enumerate() {
            if c.start_byte() > ident.start_byte() {
                break;
            }
            if c.kind() != "identifier" || text(*c, source) != name {
                continue;
            }
            let word = |k: usize| children.get(k).map(|n| text(*n, source));
            let bound = i >= 1 && word(i - 1) == Some("let")
                || i >= 2 && word(i - 1) == Some("mut") && word(i - 2) == Some("let");
            if bound {
                best = Some(c.start_byte());
            }
        }
        if best.is_some() {
            return best;
        }
        tokens = tree.parent().filter(|p| p.kind() == "token_tree");
    }
    None
}

/// Whether a declaration's scope reaches the use: a `let`'s block, a parameter's function, a
/// pattern's arm or loop.
fn encloses_use(declaration: Node, ident: Node) -> bool {
    let scope = match declaration.kind() {
        "let_declaration" => declaration.parent(),
        "parameter" => declaration.parent().and_then(|p| p.parent()),
        "match_pattern" | "closure_parameters" => declaration.parent(),
        "let_condition" => ancestor(declaration, &["if_expression", "while_expression"]),
        _ => Some(declaration),
    };
    scope.is_some_and(|s| s.start_byte() <= ident.start_byte() && ident.end_byte() <= s.end_byte())
}

/// The offset of `name` bound by a pattern (an identifier not in a path, a struct's name or a
/// type).
fn binding_in_pattern(pattern: Node, source: &str, name: &str) -> Option<usize> {
    let mut stack = vec![pattern];
    while let Some(n) = stack.pop() {
        match n.kind() {
            // `P { major }` in a pattern binds `major`.
            "shorthand_field_identifier" if text(n, source) == name => return Some(n.start_byte()),
            "identifier" if text(n, source) == name => {
                let in_path = n.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "scoped_identifier" | "tuple_struct_pattern" | "struct_pattern"
                    ) && p
                        .child_by_field_name("type")
                        .is_some_and(|t| t.id() == n.id())
                        || p.kind() == "scoped_identifier"
                });
                if !in_path {
                    return Some(n.start_byte());
                }
            }
            "type_identifier" | "scoped_type_identifier" | "type_arguments" => {}
            _ => {
                let mut cursor = n.walk();
                for c in n.named_children(&mut cursor) {
                    if !matches!(
                        c.kind(),
                        "type_identifier" | "primitive_type" | "reference_type" | "generic_type"
                    ) {
                        stack.push(c);
                    }
                }
            }
        }
    }
    None
}

/// The type a Rust local is declared with, as written, when the function around it says so
/// plainly: a parameter `x: &T`, or `let x: T`, `let x = T { … }`, `let x = T::f(…)`.
fn rust_local_type(ident: Node, source: &str) -> Option<String> {
    let name = text(ident, source);
    let function = enclosing_function(ident)?;
    let mut found: Option<(usize, String)> = None;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.start_byte() > ident.start_byte() {
            continue;
        }
        let declared = match n.kind() {
            "parameter" | "let_declaration" if encloses_use(n, ident) => n
                .child_by_field_name("pattern")
                .filter(|p| text(*p, source) == name || text(*p, source) == format!("mut {name}"))
                .and_then(|_| {
                    n.child_by_field_name("type")
                        .map(|t| text(t, source).to_string())
                        .or_else(|| {
                            let value = n.child_by_field_name("value")?;
                            match value.kind() {
                                "struct_expression" => value
                                    .child_by_field_name("name")
                                    .map(|t| text(t, source).to_string()),
                                "call_expression" => {
                                    let f = value.child_by_field_name("function")?;
                                    (f.kind() == "scoped_identifier")
                                        .then(|| f.child_by_field_name("path"))
                                        .flatten()
                                        .map(|p| text(p, source).to_string())
                                        .filter(|p| {
                                            bare_type(p)
                                                .chars()
                                                .next()
                                                .is_some_and(char::is_uppercase)
                                        })
                                }
                                _ => None,
                            }
                        })
                }),
            _ => None,
        };
        // The last declaration before the use wins (shadowing).
        if let Some(ty) = declared
            && found.as_ref().is_none_or(|(at, _)| *at < n.start_byte())
        {
            found = Some((n.start_byte(), ty));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    found.map(|(_, ty)| ty)
}

/// The function whose locals a name may be: the nearest `fn` (a closure sees the locals of
/// the function around it; an inner `fn` item sees none of its outer function's), else the
/// closure a name outside any `fn` stands in.
fn enclosing_function(ident: Node) -> Option<Node> {
    ancestor(ident, &["function_item", "function_signature_item"])
        .or_else(|| ancestor(ident, &["closure_expression"]))
}

fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut at = node.parent();
    while let Some(n) = at {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        at = n.parent();
    }
    None
}
