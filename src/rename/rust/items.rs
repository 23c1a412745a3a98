//! Items and paths: the namespace a name's place says it is used in, the one item of the walked
//! files it names (or the innermost of several in this file), an item's id, and `a::b::name`,
//! `Type::name`, `Self::name`.

use super::facts::{FileFacts, ScopedItem, enclosing_impl, item_spaces};
use super::{ITEMS, Namespace, RustProject, ancestor, bare_type};
use crate::rename::model::{ItemSpace, ItemTell, Resolution, RustSymbol, SymbolId};
use tree_sitter::Node;

/// The namespace a name is used in, when its place says: a path's leading segment
/// (`identifier::Identifier`) is a module or a type, a macro call's name a macro, a name in an
/// expression a value; a `use` line's last segment may be any.
pub(super) fn use_space(node: Node) -> Option<ItemSpace> {
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
    // Among a macro's tokens (which tree-sitter leaves unparsed), `name!` is a macro's call.
    if parent.kind() == "token_tree" && node.next_sibling().is_some_and(|n| n.kind() == "!") {
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

impl RustProject<'_> {
    /// The id of an item used by name, in the namespace its place says (`space`; `None`: any).
    /// One item of the tree fits: that item. Several: the innermost one of this file whose
    /// scope holds the use (`at`; Rust lets a module's own item shadow a glob import), or the
    /// one a `use` from a crate of the tree names (`use my_util::helper`), else unresolved.
    pub(super) fn item_id(
        &self,
        facts: &FileFacts,
        name: &str,
        at: Option<usize>,
        space: Option<ItemSpace>,
    ) -> Resolution {
        if let Some(at) = at
            && facts.uses_outside(name, at)
        {
            return Resolution::Outside(format!(
                "`{name}` is imported from Rust's library or a crate outside the tree"
            ));
        }
        match at.and_then(|at| facts.used_from_tree(name, at)) {
            Some(None) => Resolution::Unresolved(format!(
                "`{name}` is the name a `use` gives another item of a crate of the tree (`as {name}`)"
            )),
            Some(Some(module)) => self.item_in(facts, name, at, space, Some(module)),
            None => self.item_in(facts, name, at, space, None),
        }
    }

    /// [`Self::item_id`] for a name that, when several items have it, is the one at the top
    /// of `module` (the files a path into a crate of the tree names).
    fn item_in(
        &self,
        facts: &FileFacts,
        name: &str,
        at: Option<usize>,
        space: Option<ItemSpace>,
        module: Option<&[String]>,
    ) -> Resolution {
        let fits = |i: &ScopedItem| i.name == name && space.is_none_or(|s| i.spaces.contains(&s));
        // What the site's crate can name: a package's own code names no item of its tests,
        // benches or examples, and those (and doctests) name only the `pub` items of the rest.
        let test = facts.in_test_target();
        let all: Vec<(&str, &ScopedItem)> = self
            .files
            .iter()
            .filter(|(_, f)| test || !f.in_test_target())
            .flat_map(|(_, f)| {
                let private_too = !test || f.in_test_target();
                f.items
                    .iter()
                    .filter(move |i| fits(i) && (i.public || private_too))
                    .map(|i| (f.path.as_str(), i))
            })
            .collect();
        let here = at.and_then(|at| {
            facts
                .items
                .iter()
                .filter(|i| fits(i) && i.scope.contains(&at))
                .min_by_key(|i| i.scope.len())
        });
        // Of several, the one at the top of the module a path or `use` names.
        let in_module: Vec<&(&str, &ScopedItem)> = module
            .map(|files| {
                all.iter()
                    .filter(|(p, i)| i.top && files.iter().any(|f| f == p))
                    .collect()
            })
            .unwrap_or_default();
        match (all.as_slice(), here) {
            // A doctest's own item: the doctest sees it before the crate's.
            (_, Some(item)) if facts.doctest => {
                Resolution::Symbol(SymbolId::Rust(RustSymbol::Item {
                    name: item.name.clone(),
                    tell: ItemTell::At {
                        path: facts.path.clone(),
                        offset: item.at,
                    },
                }))
            }
            ([(path, one)], _) => Resolution::Symbol(self.item_symbol(path, one)),
            // No item: a variant the tree re-exports (`pub use crate::Either::{Left, Right}`,
            // reached by a `use`, a path or a glob of the tree), unless a glob from outside
            // the tree may bring another of the name.
            // A macro's call where no item of the walked files has the name (a `macro_rules!`
            // or a proc-macro function of the tree would be one): the library's or another
            // crate's macro, never the tree's item.
            ([], _) if space == Some(ItemSpace::Macro) && !self.is_item(name) => {
                Resolution::Outside(format!(
                    "`{name}!` calls a macro, and no macro or function of the walked files is named `{name}`: a macro of Rust's library or of another crate"
                ))
            }
            ([], _) => match self.reexported_variant(name) {
                Some(holder) if at.is_none_or(|at| !facts.outside_glob_reaches(at)) => {
                    self.member(&holder, name, Namespace::Item)
                }
                _ => Resolution::Unresolved(format!(
                    "no item of the walked files is named `{name}` (a glob import, a macro, or another crate)"
                )),
            },
            (_, Some(item)) => Resolution::Symbol(self.item_symbol(&facts.path, item)),
            (_, None) if in_module.len() == 1 => {
                let (path, one) = in_module[0];
                Resolution::Symbol(self.item_symbol(path, one))
            }
            (many, None) => Resolution::Unresolved(format!(
                "{} items of the walked files are named `{name}`; which one this is needs module resolution (--lsp)",
                many.len()
            )),
        }
    }

    /// An item's id, the same by whatever route it is reached: its name alone when no other
    /// item has the name (shown `rust:item:NAME`), with its namespace when none other has it
    /// there (`…#type` / `…#value` / `…#macro`), else with its place (`…@PATH:OFFSET`).
    pub(super) fn item_symbol(&self, path: &str, item: &ScopedItem) -> SymbolId {
        let others = |shares: &dyn Fn(&ScopedItem) -> bool| {
            self.files
                .iter()
                .flat_map(|(_, f)| &f.items)
                .filter(|i| i.name == item.name && !std::ptr::eq(*i, item) && shares(i))
                .count()
        };
        let tell = if others(&|_| true) == 0 {
            ItemTell::Alone
        } else if others(&|i| i.spaces.iter().any(|s| item.spaces.contains(s))) == 0 {
            ItemTell::Space(item.spaces[0])
        } else {
            ItemTell::At {
                path: path.to_string(),
                offset: item.at,
            }
        };
        SymbolId::Rust(RustSymbol::Item {
            name: item.name.clone(),
            tell,
        })
    }

    /// `a::b::name`, `Type::name`, `Self::name`.
    pub(super) fn path(
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
        if facts.crate_outside(first) || facts.uses_outside(first, node.start_byte()) {
            return Resolution::Outside(format!("`{path}::{name}` is outside the tree"));
        }
        let last = bare_type(path.rsplit("::").next().unwrap_or(path));
        if last == "Self" {
            return match enclosing_impl(node, source) {
                Some((holder, _)) => {
                    self.member_from_impl(&holder, name, Namespace::Item, node, source)
                }
                None => Resolution::Unresolved("`Self` outside an impl".into()),
            };
        }
        if last.chars().next().is_some_and(char::is_uppercase) {
            return self.member(&last, name, Namespace::Item);
        }
        // A path into a crate of the tree (`my_util::text::name`): the item of that module
        // when several have the name.
        if let Some(module) = facts.tree_module(path) {
            return self.item_in(facts, name, None, use_space(node), Some(&module));
        }
        // A module path (`crate::a::name`, `super::name`, `a::name`): the item.
        self.item_id(facts, name, None, use_space(node))
    }
}
