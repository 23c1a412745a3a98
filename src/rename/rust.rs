//! Rust name resolution for `lancet rename`: what the syntax trees of the walked files prove,
//! and nothing more (a type checker's answer is `--lsp`).
//!
//! - A member (method, associated item, field) is `Type::name`: defined in an `impl Type` (or
//!   a trait of the tree and its impls: `Trait::name`), a struct's field list, and reached
//!   through `self` in such an impl, `Type::name` / `Self::name` paths, `Type { name: … }`, and
//!   a local whose type the function writes down (`x: &Type`, `let x = Type { … }`,
//!   `let x = Type::new(…)`, `let x: Type`). Any other receiver is unresolved; a method of a
//!   trait outside the tree (`fmt` in `impl Display for T`) resolves outside.
//! - A local (`let`, a parameter, a closure's or a pattern's binding) is its own symbol, by its
//!   declaration.
//! - An item (fn, struct, enum, trait, const, static, type, mod) is the symbol when exactly one
//!   item of the walked files has the name; with several, or none, its uses are unresolved.
//! - A path or `use` that starts in `std`, `core` or `alloc` resolves outside the tree.
//! - `Type { name }` (a shorthand field) is unresolved: renaming it needs `name: value`.

use super::Resolution;
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

/// What one file declares: its item names, and each holder's members (`impl T`, `trait T`,
/// `struct T`), with the trait an impl is for.
pub(crate) struct FileFacts {
    items: Vec<String>,
    /// Names of the types (struct, enum, union, trait, type alias) the file defines.
    types: Vec<String>,
    /// (holder, trait implemented if any, members)
    holders: Vec<(String, Option<String>, Vec<String>)>,
    traits: Vec<String>,
    /// Names brought in by `use std::…` / `use core::…`.
    outside_uses: Vec<String>,
}

impl FileFacts {
    /// Collects the facts of one file.
    pub(crate) fn of(source: &str, tree: &Tree) -> FileFacts {
        let mut facts = FileFacts {
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
                facts.items.push(text(name, source).to_string());
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
                        facts.holders.push((
                            text(name, source).to_string(),
                            None,
                            members(n, source),
                        ));
                    }
                }
                "impl_item" | "struct_item" | "union_item" | "enum_item" => {
                    if let Some(ty) = n
                        .child_by_field_name("type")
                        .or_else(|| n.child_by_field_name("name"))
                    {
                        let trait_name = n
                            .child_by_field_name("trait")
                            .map(|t| bare_type(text(t, source)));
                        facts.holders.push((
                            bare_type(text(ty, source)),
                            trait_name,
                            members(n, source),
                        ));
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

    fn outside_use(&mut self, decl: Node, source: &str) {
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
                        self.outside_uses.push(text(alias, source).to_string());
                    }
                }
                "scoped_identifier" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.outside_uses.push(text(name, source).to_string());
                    }
                }
                "identifier" => self.outside_uses.push(text(n, source).to_string()),
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
    }
}

/// The members an impl, trait or struct declares (methods, associated items, fields).
fn members(item: Node, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(body) = item.child_by_field_name("body") else {
        return out;
    };
    let mut cursor = body.walk();
    for c in body.named_children(&mut cursor) {
        if let Some(name) = c.child_by_field_name("name") {
            out.push(text(name, source).to_string());
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

impl RustProject<'_> {
    /// The member id of `name` on type (or trait) `holder`: its inherent impl or struct, or a
    /// trait of the tree; `Err` when it resolves outside or not at all.
    fn member_id(&self, holder: &str, name: &str) -> Result<String, Resolution> {
        // Two types of one name (a test's wrapper of the library's type): their members cannot
        // be told apart by name.
        let types = self
            .files
            .iter()
            .flat_map(|(_, f)| &f.types)
            .filter(|t| *t == holder)
            .count();
        if types > 1 {
            return Err(Resolution::Unresolved(format!(
                "{types} types of the walked files are named `{holder}`; which one this is needs module resolution (--lsp)"
            )));
        }
        let defines = |h: &(String, Option<String>, Vec<String>)| h.2.iter().any(|m| m == name);
        // Inherent: impl Holder { … } or struct Holder { name: … }, or trait Holder { … }.
        if self
            .files
            .iter()
            .flat_map(|(_, f)| &f.holders)
            .any(|h| h.0 == holder && h.1.is_none() && defines(h))
        {
            return Ok(format!("rust:{holder}::{name}"));
        }
        // Through a trait the type implements.
        let traits: Vec<&String> = self
            .files
            .iter()
            .flat_map(|(_, f)| &f.holders)
            .filter(|h| h.0 == holder && defines(h))
            .filter_map(|h| h.1.as_ref())
            .collect();
        let in_tree: Vec<&&String> = traits.iter().filter(|t| self.is_tree_trait(t)).collect();
        // A type the tree does not define (`Vec`, `String`): its `name` is the library's,
        // unless a trait of the tree has a method of that name (a blanket impl may give it).
        let tree_trait_has_it = self
            .files
            .iter()
            .flat_map(|(_, f)| &f.holders)
            .any(|h| h.1.is_none() && self.is_tree_trait(&h.0) && defines(h));
        match (traits.as_slice(), in_tree.as_slice()) {
            ([], _) if types == 0 && !tree_trait_has_it => Err(Resolution::Outside(format!(
                "`{holder}` is not a type of the walked files: its `{name}` is outside the tree"
            ))),
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

    fn is_tree_trait(&self, name: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.traits.iter().any(|t| t == name))
    }

    /// The id of an item used by name (one item of the tree has it).
    fn item_id(&self, facts: &FileFacts, name: &str) -> Resolution {
        if facts.outside_uses.iter().any(|u| u == name) {
            return Resolution::Outside(format!("`{name}` is imported from Rust's library"));
        }
        let count: usize = self
            .files
            .iter()
            .map(|(_, f)| f.items.iter().filter(|i| *i == name).count())
            .sum();
        match count {
            1 => Resolution::Symbol(format!("rust:item:{name}")),
            0 => Resolution::Unresolved(format!(
                "no item of the walked files is named `{name}` (a glob import, a macro, or another crate)"
            )),
            n => Resolution::Unresolved(format!(
                "{n} items of the walked files are named `{name}`; which one this is needs module resolution (--lsp)"
            )),
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
        let field_is = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|f| f.id() == node.id())
        };
        match parent.kind() {
            kind if ITEMS.contains(&kind) && field_is("name") => match holder_of(parent, source) {
                Some((holder, _)) => self.member(&holder, name),
                None => self.item_id(facts, name),
            },
            // A variant, a field declared, a field given a value: a member of the type whose
            // list holds it.
            "enum_variant" | "field_declaration" if field_is("name") => {
                match list_owner(parent, source) {
                    Some(owner) => self.member(&owner, name),
                    None => Resolution::Unresolved("a member of an anonymous type".into()),
                }
            }
            "field_expression" if field_is("field") => {
                self.receiver_member(source, parent.child_by_field_name("value"), name)
            }
            "field_initializer" if field_is("field") => match list_owner(parent, source) {
                Some(owner) => self.member(&owner, name),
                None => Resolution::Unresolved("a field of an unknown struct".into()),
            },
            // A shorthand field is a value and a field at once: here, the value; the field is
            // `shorthand_field`'s.
            "shorthand_field_initializer" => match local_declaration(node, source) {
                Some(at) => Resolution::Symbol(format!("rust:local@{at}")),
                None => self.item_id(facts, name),
            },
            "token_tree" if node.prev_sibling().is_some_and(|p| p.kind() == ".") => {
                let object = node.prev_sibling().and_then(|dot| dot.prev_sibling());
                match object {
                    Some(o) if matches!(o.kind(), "self" | "identifier") => {
                        self.receiver_member(source, Some(o), name)
                    }
                    _ => Resolution::Unresolved(
                        "a member of an expression inside a macro call".to_string(),
                    ),
                }
            }
            "scoped_identifier" | "scoped_type_identifier" if field_is("name") => {
                let path = parent
                    .child_by_field_name("path")
                    .map(|p| text(p, source))
                    .unwrap_or("");
                self.path(facts, source, node, path, name)
            }
            _ => match local_declaration(node, source) {
                Some(at) => Resolution::Symbol(format!("rust:local@{at}")),
                None => self.item_id(facts, name),
            },
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
        let owner = match (parent.kind(), node.kind()) {
            ("shorthand_field_initializer", _) => list_owner(parent, source),
            // `Type { field, .. }`: the pattern names its type.
            ("field_pattern", "shorthand_field_identifier") => parent
                .parent()
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| bare_type(text(t, source))),
            _ => return None,
        };
        Some(match owner {
            Some(owner) => self.member(&owner, name),
            None => Resolution::Unresolved("a field of an unknown struct".into()),
        })
    }

    fn member(&self, holder: &str, name: &str) -> Resolution {
        match self.member_id(holder, name) {
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
        if RUST_LIBRARY.contains(&first) || facts.outside_uses.iter().any(|u| u == first) {
            return Resolution::Outside(format!("`{path}::{name}` is outside the tree"));
        }
        let last = bare_type(path.rsplit("::").next().unwrap_or(path));
        if last == "Self" {
            return match enclosing_impl(node, source) {
                Some((holder, _)) => self.member(&holder, name),
                None => Resolution::Unresolved("`Self` outside an impl".into()),
            };
        }
        if last.chars().next().is_some_and(char::is_uppercase) {
            return self.member(&last, name);
        }
        // A module path (`crate::a::name`, `super::name`, `a::name`): the item.
        self.item_id(facts, name)
    }

    /// `receiver.name`: `self` in an impl, or a local whose type the function writes down.
    fn receiver_member(&self, source: &str, object: Option<Node>, name: &str) -> Resolution {
        let Some(object) = object else {
            return Resolution::Unresolved("a member of nothing".into());
        };
        let receiver = text(object, source);
        let holder = match object.kind() {
            "self" => enclosing_impl(object, source).map(|(h, _)| h),
            "identifier" => rust_local_type(object, source),
            _ => None,
        };
        match holder {
            Some(holder) => self.member(&holder, name),
            None => Resolution::Unresolved(format!(
                "the type of `{}` is not known",
                receiver.lines().next().unwrap_or_default()
            )),
        }
    }
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
    let function = ancestor(ident, &["function_item", "closure_expression"])?;
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

/// Whether a declaration's scope reaches the use: a `let`'s block, a parameter's function, a
/// pattern's arm or loop.
fn encloses_use(declaration: Node, ident: Node) -> bool {
    let scope = match declaration.kind() {
        "let_declaration" => declaration.parent(),
        "parameter" => declaration.parent().and_then(|p| p.parent()),
        "match_pattern" => declaration.parent(),
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

/// The type a Rust local is declared with, when the function around it says so plainly: a
/// parameter `x: &T`, or `let x: T`, `let x = T { … }`, `let x = T::f(…)`.
fn rust_local_type(ident: Node, source: &str) -> Option<String> {
    let name = text(ident, source);
    let function = ancestor(ident, &["function_item", "closure_expression"])?;
    let mut found: Option<(usize, String)> = None;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.start_byte() > ident.start_byte() {
            continue;
        }
        let declared = match n.kind() {
            "parameter" | "let_declaration" => n
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
    let ty = bare_type(&found?.1);
    (ty.chars().next()?.is_uppercase() && ty != "Self").then_some(ty)
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
