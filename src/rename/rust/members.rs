//! Members: a field (`Type.name`) or an associated item or variant (`Type::name`) of a type or
//! trait of the tree, a field named in a struct's list or pattern, and `receiver.name` through
//! the type the syntax gives the receiver (`self`, a declared local, a field, a call's declared
//! return type ([`super::typing`]), a pointer that dereferences, a generic parameter's bounds,
//! `dyn Trait` / `impl Trait`).

use super::facts::{FileFacts, Holder, enclosing_impl, enclosing_impl_type, list_owner};
use super::{Namespace, RustProject, bare_type, text};
use crate::rename::model::{Resolution, RustSymbol, SymbolId};
use tree_sitter::Node;

/// Library types that dereference to the type they hold: a member reached through one is the
/// held type's (`Box<Config>` → `Config`).
pub(super) const POINTERS: &[&str] = &[
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

/// A type as written, less references and the library's pointers that dereference to what they
/// hold: `&mut Box<Config>` → `Config`, `&dyn Log` → `dyn Log`.
pub(super) fn deref_type(ty: &str) -> String {
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

impl RustProject<'_> {
    pub(super) fn holders(&self) -> impl Iterator<Item = &Holder> {
        self.files.iter().flat_map(|(_, f)| &f.holders)
    }

    /// The number of types of the walked files named `name`.
    pub(super) fn types_named(&self, name: &str) -> usize {
        self.files
            .iter()
            .flat_map(|(_, f)| &f.types)
            .filter(|t| *t == name)
            .count()
    }

    /// The member id of `name` on type (or trait) `holder`: its inherent impl or struct, or a
    /// trait of the tree; `Err` when it resolves outside or not at all.
    fn member_id(
        &self,
        holder: &str,
        name: &str,
        space: Namespace,
    ) -> Result<SymbolId, Resolution> {
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
                Ok(field_id(holder, name))
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
        // Two inherent impls that each define `name` (`impl Either<&L, &R>`, `impl Either<&mut
        // L, &mut R>`): which one a use reaches depends on type arguments lancet does not infer.
        let impls = self.impls_defining(holder, name);
        if impls.len() > 1 {
            return Err(Resolution::Unresolved(format!(
                "{} impls of `{holder}` define `{name}` ({}): which one this is depends on the type arguments of `{holder}` here, which lancet does not infer (a language server can: --lsp)",
                impls.len(),
                impls
                    .iter()
                    .map(|t| format!("`impl {t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        // Inherent: impl Holder { … }, enum Holder { … }, or trait Holder { … }.
        if self
            .holders()
            .any(|h| h.name == holder && h.trait_name.is_none() && defines(h))
        {
            return Ok(associated_id(holder, name));
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
            (_, [one]) if traits.len() == 1 => Ok(associated_id(one, name)),
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

    /// The self types (as written, each once) of the inherent impls of `holder` that define an
    /// associated item `name`.
    fn impls_defining(&self, holder: &str, name: &str) -> Vec<&str> {
        let mut types: Vec<&str> = self
            .holders()
            .filter(|h| h.name == holder && h.trait_name.is_none() && !h.fields)
            .filter(|h| h.members.iter().any(|(m, _)| m == name))
            .filter_map(|h| h.impl_type.as_deref())
            .collect();
        types.sort_unstable();
        types.dedup();
        types
    }

    /// `holder`'s member `name` seen from `at` inside an impl of `holder` (its definition,
    /// `self.name`, `Self::name`): when several inherent impls of the type define `name`, the
    /// one whose self type is the impl's around `at` (the same type arguments); else as
    /// [`Self::member`] says.
    pub(super) fn member_from_impl(
        &self,
        holder: &str,
        name: &str,
        space: Namespace,
        at: Node,
        source: &str,
    ) -> Resolution {
        if space == Namespace::Item
            && let Some(here) = enclosing_impl_type(at, source)
            && let impls = self.impls_defining(holder, name)
            && impls.len() > 1
            && impls.contains(&here.as_str())
        {
            return Resolution::Symbol(SymbolId::Rust(RustSymbol::Associated {
                holder: holder.to_string(),
                name: name.to_string(),
                within: Some(here),
            }));
        }
        self.member(holder, name, space)
    }

    /// Whether a trait of the tree declares a member `name`.
    fn tree_trait_defines(&self, name: &str) -> bool {
        self.holders().any(|h| {
            h.trait_name.is_none()
                && self.is_tree_trait(&h.name)
                && h.members.iter().any(|(m, _)| m == name)
        })
    }

    pub(super) fn is_tree_trait(&self, name: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.traits.iter().any(|t| t == name))
    }

    pub(super) fn member(&self, holder: &str, name: &str, space: Namespace) -> Resolution {
        match self.member_id(holder, name, space) {
            Ok(id) => Resolution::Symbol(id),
            Err(r) => r,
        }
    }

    /// A field named in a struct's declaration or literal (`name: T`, `name: value`).
    pub(super) fn field_of_list(&self, entry: Node, source: &str, name: &str) -> Resolution {
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
    pub(super) fn field_of_pattern(&self, entry: Node, source: &str, name: &str) -> Resolution {
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
    pub(super) fn shorthand_field(
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

    /// `receiver.name`: its type is known when the receiver is `self` in an impl, a local or
    /// parameter whose type the function writes down, or a field of such a receiver (the type
    /// its struct declares); a generic type, `dyn Trait` or `impl Trait` reaches the members of
    /// its bounds.
    pub(super) fn receiver_member(
        &self,
        facts: &FileFacts,
        source: &str,
        object: Option<Node>,
        name: &str,
        space: Namespace,
    ) -> Resolution {
        let Some(object) = object else {
            return Resolution::Unresolved("a member of nothing".into());
        };
        match self.type_of(facts, source, object) {
            Some(ty) if facts.doctest && facts.types.contains(&bare_type(&deref_type(&ty))) => {
                self.doctest_member(facts, &bare_type(&deref_type(&ty)), name, space)
            }
            Some(ty) => self.member_of_type(source, object, &ty, name, space),
            None => Resolution::Unresolved(format!(
                "the type of `{}` is not known",
                text(object, source).lines().next().unwrap_or_default()
            )),
        }
    }

    /// The member `name` of a value of a type `holder` a doctest declares (its `struct
    /// SimpleLogger` and `impl log::Log for SimpleLogger`): the method of the one trait of the
    /// tree its impls there give it (every doctest of the file that declares such a type
    /// implementing that one trait); its own fields and inherent methods are the doctest's.
    fn doctest_member(
        &self,
        facts: &FileFacts,
        holder: &str,
        name: &str,
        space: Namespace,
    ) -> Resolution {
        let of_holder = || facts.holders.iter().filter(|h| h.name == holder);
        let defines = |h: &&Holder| h.members.iter().any(|(m, _)| m == name);
        let own = of_holder()
            .filter(defines)
            .any(|h| h.trait_name.is_none() || h.fields);
        if space == Namespace::Field || own {
            return Resolution::Unresolved(format!(
                "`{name}` of `{holder}`, a type the doctest declares: the doctest's own member"
            ));
        }
        // A file's doctests are read as one: several may each declare the type and implement
        // the one trait for it.
        let mut traits: Vec<&String> = of_holder()
            .filter(defines)
            .filter_map(|h| h.trait_name.as_ref())
            .collect();
        traits.sort_unstable();
        traits.dedup();
        match traits.as_slice() {
            [one] if self.is_tree_trait(one) && !facts.traits.contains(one) => {
                Resolution::Symbol(associated_id(one, name))
            }
            // `impl Display for Point { fn fmt }`, or a trait the doctest declares.
            [one] if !self.tree_trait_defines(name) => Resolution::Outside(format!(
                "`{name}` of `{holder}` (a type the doctest declares) is a method of the trait `{one}`, not of a trait of the walked files"
            )),
            [] if !self.tree_trait_defines(name) => Resolution::Outside(format!(
                "`{holder}` is a type the doctest declares, and no trait of the walked files has `{name}`"
            )),
            _ => Resolution::Unresolved(format!(
                "`{name}` of `{holder}`, a type the doctest declares, through a trait lancet cannot tell"
            )),
        }
    }

    /// The member `name` of a value of type `ty` (as written) used at `at`.
    pub(super) fn member_of_type(
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
                    Some((holder, _)) => self.member_from_impl(&holder, name, space, at, source),
                    None => Resolution::Unresolved("`Self` outside an impl".into()),
                }
            } else if at.kind() == "self" {
                self.member_from_impl(&holder, name, space, at, source)
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
            [one] => Resolution::Symbol(associated_id(one, name)),
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

/// The id of `holder.name`: a struct's field.
fn field_id(holder: &str, name: &str) -> SymbolId {
    SymbolId::Rust(RustSymbol::Field {
        holder: holder.to_string(),
        name: name.to_string(),
    })
}

/// The id of `holder::name`: an associated item or variant of a type, or a trait's member.
pub(super) fn associated_id(holder: &str, name: &str) -> SymbolId {
    SymbolId::Rust(RustSymbol::Associated {
        holder: holder.to_string(),
        name: name.to_string(),
        within: None,
    })
}
