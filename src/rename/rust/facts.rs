//! What one Rust file declares: its items with the scope each is visible in and the namespaces
//! it names, the members of its impls, traits, structs and enums (with a field's declared type),
//! and the names its `use` lines bring in from Rust's library or another crate outside the tree.

use super::crates::CrateNames;
use super::{ITEMS, RUST_LIBRARY, bare_type, text};
use crate::rename::model::ItemSpace;
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// A type or trait of the tree and the members it declares.
pub(super) struct Holder {
    /// The type's (or trait's) bare name.
    pub(super) name: String,
    /// The trait an `impl Trait for Type` implements.
    pub(super) trait_name: Option<String>,
    /// A struct's or union's fields, rather than associated items or variants: a field and a
    /// method of one name are two symbols (`self.level`, `self.level()`).
    pub(super) fields: bool,
    /// Each member's name, and the type a field is declared with.
    pub(super) members: Vec<(String, Option<String>)>,
    /// An impl's self type as written (`Either<&L, &R>`): two inherent impls of one type may
    /// each define a method of one name, told apart by their type arguments only.
    pub(super) impl_type: Option<String>,
    /// Each function member's declared return type: a call's result is typed by it.
    pub(super) returns: Vec<(String, Returns)>,
    /// An enum: its members are variants, each a value of the enum (`Level::Info`).
    pub(super) variants: bool,
}

/// A declared type a call gives (a function's `-> T`, a tuple struct's own type), with the
/// generic parameters in scope where it is written (the function's, its impl's or trait's): a
/// type that names one is not known from the declaration alone.
#[derive(Clone)]
pub(super) struct Returns {
    /// The type as written (`&mut RecordBuilder<'a>`, `Self`, `Option<L>`).
    pub(super) written: String,
    /// The generic parameters in scope at the declaration (`L`, `R`, `T`).
    pub(super) generics: Vec<String>,
}

/// The names of the generic type (and const) parameters an item declares (`<'a, L, R: X>` →
/// `L`, `R`); lifetimes are not types.
pub(super) fn generic_names(item: Node, source: &str) -> Vec<String> {
    let Some(list) = item.child_by_field_name("type_parameters") else {
        return Vec::new();
    };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|p| matches!(p.kind(), "type_parameter" | "const_parameter"))
        .filter_map(|p| p.child_by_field_name("name"))
        .map(|n| text(n, source).to_string())
        .collect()
}

/// A function's declared return type with the generics in scope (`outer`: its impl's or
/// trait's); `None` for a function that returns `()`.
fn declared_return(function: Node, source: &str, outer: &[String]) -> Option<Returns> {
    let written = text(function.child_by_field_name("return_type")?, source);
    let mut generics = outer.to_vec();
    generics.extend(generic_names(function, source));
    Some(Returns {
        written: written.split_whitespace().collect::<Vec<_>>().join(" "),
        generics,
    })
}

/// The return types an impl or trait declares for its functions; an enum's variants, each
/// the enum (`Level::Info(..)` is a `Level`).
fn member_returns(item: Node, source: &str) -> Vec<(String, Returns)> {
    let outer = generic_names(item, source);
    let Some(body) = item.child_by_field_name("body") else {
        return Vec::new();
    };
    let enum_type = (item.kind() == "enum_item")
        .then(|| item.child_by_field_name("name"))
        .flatten()
        .map(|n| text(n, source).to_string());
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter_map(|c| {
            let name = text(c.child_by_field_name("name")?, source).to_string();
            let returns = match (&enum_type, c.kind()) {
                (Some(ty), "enum_variant") => Returns {
                    written: ty.clone(),
                    generics: outer.clone(),
                },
                (None, "function_item" | "function_signature_item") => {
                    declared_return(c, source, &outer)?
                }
                _ => return None,
            };
            Some((name, returns))
        })
        .collect()
}

/// The namespaces an item kind defines a name in (a struct's name is a type, and for a unit or
/// tuple struct a value too).
pub(super) fn item_spaces(kind: &str) -> &'static [ItemSpace] {
    match kind {
        "function_item" | "function_signature_item" | "const_item" | "static_item" => {
            &[ItemSpace::Value]
        }
        "struct_item" => &[ItemSpace::Type, ItemSpace::Value],
        "macro_definition" => &[ItemSpace::Macro],
        _ => &[ItemSpace::Type],
    }
}

/// An item of a file: its name, where that name is, the scope it is visible in (the file, a
/// `mod { }` or the block of a function), and the namespaces it defines its name in.
pub(super) struct ScopedItem {
    pub(super) name: String,
    pub(super) at: usize,
    pub(super) scope: Range<usize>,
    pub(super) spaces: &'static [ItemSpace],
    /// At the top of its file (a module's own item), not inside a function or an inline `mod`.
    pub(super) top: bool,
    /// A `const`, `static` or unit struct: a pattern that is its bare name compares against
    /// it rather than binding a new name.
    pub(super) in_patterns: bool,
    /// What a call of it gives: a function's declared return type, a tuple struct's own type.
    pub(super) called: Option<Returns>,
    /// Declared `pub` (or a macro, which `#[macro_export]` may export): another crate may name
    /// it; an item without (or `pub(crate)`) is its crate's own.
    pub(super) public: bool,
}

/// A name a `use` brings into scope (`use crate::Level::{Error, Warn as W}`): `Error` from
/// `crate::Level`, `W` for `crate::Level::Warn`.
pub(super) struct Brought {
    /// The name as the scope sees it (the alias, if any).
    pub(super) name: String,
    /// The path the `use` names it by, less its last segment (`crate::Level`).
    pub(super) module: String,
    /// The last segment of that path (the item's own name).
    pub(super) item: String,
    pub(super) scope: Range<usize>,
}

/// A name a `use` brings in from a crate of the tree (`use my_util::text::shout`).
struct TreeUse {
    name: String,
    /// The files the module it comes from can be (`crates/my-util/src/text.rs`, `…/text/mod.rs`).
    files: Vec<String>,
    /// `use my_util::shout as yell`: `yell` is another name for `shout`.
    alias: bool,
    scope: Range<usize>,
}

/// What one file declares: its items, each holder's members (`impl T`, `trait T`,
/// `struct T`), and the names its `use` lines bring in from Rust's library.
pub(super) struct FileFacts {
    pub(super) path: String,
    /// The file's doctests rather than the file: their own items are seen there only.
    pub(super) doctest: bool,
    pub(super) items: Vec<ScopedItem>,
    /// Names of the types (struct, enum, union, trait, type alias) the file defines.
    pub(super) types: Vec<String>,
    pub(super) holders: Vec<Holder>,
    pub(super) traits: Vec<String>,
    /// Names brought in by `use std::…` / `use core::…` / `use dependency::…`, with the
    /// scope of the `use`.
    outside_uses: Vec<(String, Range<usize>)>,
    /// The crates its package's manifest names: outside the tree, and the tree's own.
    crates: CrateNames,
    /// Names brought in by `use` from crates of the tree.
    tree_uses: Vec<TreeUse>,
    /// Every name a `use` (not a glob) brings in, with the path it names.
    pub(super) brought: Vec<Brought>,
    /// The scopes of glob `use`s (`use super::*`), each with whether it leaves the tree
    /// (`use std::cmp::Ordering::*`): they bring names the facts do not list.
    globs: Vec<(Range<usize>, bool)>,
    /// The enum variants the file declares, each with whether it has no fields (`Level::Off`:
    /// a bare one in a pattern, after a `use`, compares and never binds).
    pub(super) variants: Vec<(String, bool)>,
}

/// The members an impl, trait or struct declares (methods, associated items, fields; a tuple
/// struct's fields `0`, `1`, …), with the type a field is declared with.
fn members(item: Node, source: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let Some(body) = item.child_by_field_name("body") else {
        return out;
    };
    // A tuple struct's fields are named by their place (`self.0`).
    if body.kind() == "ordered_field_declaration_list" {
        let mut cursor = body.walk();
        return body
            .children_by_field_name("type", &mut cursor)
            .enumerate()
            .map(|(i, ty)| (i.to_string(), Some(text(ty, source).to_string())))
            .collect();
    }
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

/// What calling an item gives: a function's declared return type, a tuple struct's own type
/// (`Wrapper(x)` is a `Wrapper`).
fn called_type(item: Node, source: &str) -> Option<Returns> {
    match item.kind() {
        "function_item" | "function_signature_item" => declared_return(item, source, &[]),
        "struct_item"
            if item
                .child_by_field_name("body")
                .is_some_and(|b| b.kind() == "ordered_field_declaration_list") =>
        {
            Some(Returns {
                written: text(item.child_by_field_name("name")?, source).to_string(),
                generics: generic_names(item, source),
            })
        }
        _ => None,
    }
}

/// The impl or trait whose body holds a node directly: (its holder name, the trait it
/// implements if any).
pub(super) fn holder_of(node: Node, source: &str) -> Option<(String, Option<String>)> {
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

/// An impl's self type as written, its spacing made one space (`Either<&L, &R>`).
fn impl_type(item: Node, source: &str) -> Option<String> {
    let ty = text(item.child_by_field_name("type")?, source);
    Some(ty.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The self type of the impl around a node, as [`impl_type`] writes it; `None` outside an impl
/// (or inside a trait's own body).
pub(super) fn enclosing_impl_type(node: Node, source: &str) -> Option<String> {
    let mut at = node.parent();
    while let Some(n) = at {
        match n.kind() {
            "impl_item" => return impl_type(n, source),
            "trait_item" => return None,
            _ => at = n.parent(),
        }
    }
    None
}

/// The type named by the item or expression whose list (fields, variants, initialisers)
/// holds `entry`.
pub(super) fn list_owner(entry: Node, source: &str) -> Option<String> {
    let owner = entry.parent()?.parent()?.child_by_field_name("name")?;
    Some(bare_type(text(owner, source)))
}

/// The impl or trait around a node (for `self` and `Self`).
pub(super) fn enclosing_impl(node: Node, source: &str) -> Option<(String, Option<String>)> {
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

impl FileFacts {
    /// Collects the facts of one file, whose package depends on `outside_crates`.
    pub(super) fn of(path: &str, source: &str, tree: &Tree, crates: CrateNames) -> FileFacts {
        let mut facts = FileFacts {
            path: path.to_string(),
            doctest: false,
            items: Vec::new(),
            types: Vec::new(),
            holders: Vec::new(),
            traits: Vec::new(),
            outside_uses: Vec::new(),
            crates,
            tree_uses: Vec::new(),
            brought: Vec::new(),
            globs: Vec::new(),
            variants: Vec::new(),
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
                    top: n.parent().is_some_and(|p| p.kind() == "source_file"),
                    in_patterns: matches!(kind, "const_item" | "static_item")
                        || kind == "struct_item" && n.child_by_field_name("body").is_none(),
                    called: called_type(n, source),
                    public: kind == "macro_definition" || {
                        let mut cursor = n.walk();
                        n.children(&mut cursor)
                            .any(|c| c.kind() == "visibility_modifier" && text(c, source) == "pub")
                    },
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
                            impl_type: None,
                            returns: member_returns(n, source),
                            variants: false,
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
                            impl_type: (kind == "impl_item")
                                .then(|| impl_type(n, source))
                                .flatten(),
                            returns: member_returns(n, source),
                            variants: kind == "enum_item",
                        });
                    }
                }
                "use_declaration" => {
                    facts.outside_use(n, source);
                    facts.tree_use(n, source);
                    facts.brought_by(n, source);
                }
                "enum_variant" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let unit = n.child_by_field_name("body").is_none();
                        facts.variants.push((text(name, source).to_string(), unit));
                    }
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        facts
    }

    /// The facts of a file's doctests (the functions that wrap its blocks left out).
    pub(super) fn of_doctests(
        path: &str,
        source: &str,
        tree: &Tree,
        wrappers: &[usize],
        crates: CrateNames,
    ) -> Self {
        let mut facts = FileFacts::of(path, source, tree, crates);
        facts.doctest = true;
        facts.items.retain(|i| !wrappers.contains(&i.at));
        facts
    }

    /// Whether a path that starts with `first` leaves the tree: Rust's library, or a crate
    /// outside the tree that the file's package depends on.
    pub(super) fn crate_outside(&self, first: &str) -> bool {
        RUST_LIBRARY.contains(&first) || self.crates.outside.contains(first)
    }

    /// The files a path into a crate of the tree can name its module by (`my_util::text` →
    /// `crates/my-util/src/text.rs` or `…/text/mod.rs`; `my_util` → its library's root file),
    /// or `None` when `path` does not start with such a crate.
    /// `crate::…` (`$crate::…` in a `macro_rules!` body) in a file of a library of the tree
    /// starts at that library's root.
    pub(super) fn tree_module(&self, path: &str) -> Option<Vec<String>> {
        let mut segments = path.trim_start_matches("::").split("::").map(str::trim);
        let first = segments.next()?;
        let root = match first {
            "crate" => self.own_library()?,
            _ => self.crates.tree.get(first)?,
        };
        let rest: Vec<&str> = segments.collect();
        if rest.is_empty() {
            return Some(vec![root.clone()]);
        }
        let base = root.rsplit_once('/').map_or("", |(d, _)| d);
        let module = rest.join("/");
        let module = if base.is_empty() {
            module
        } else {
            format!("{base}/{module}")
        };
        Some(vec![format!("{module}.rs"), format!("{module}/mod.rs")])
    }

    /// Whether the file is in a test, bench or example target of its package (`tests/`,
    /// `benches/`, `examples/`, as Cargo finds them), or is a doctest: a crate of its own, which
    /// names only the `pub` items of the package's library and whose items no library names.
    pub(super) fn in_test_target(&self) -> bool {
        let package = &self.crates.package;
        let within = if package.is_empty() {
            Some(self.path.as_str())
        } else {
            self.path.strip_prefix(&format!("{package}/"))
        };
        self.doctest
            || within.is_some_and(|p| {
                ["tests/", "benches/", "examples/"]
                    .iter()
                    .any(|t| p.starts_with(t))
            })
    }

    /// The root file of the library this file is a module of (`src/lib.rs` for `src/kv/mod.rs`):
    /// a crate of the tree whose root's directory holds the file, not a binary's `main.rs` or
    /// `bin/`, nor a doctest (its `crate` is the doctest's own).
    fn own_library(&self) -> Option<&String> {
        if self.doctest {
            return None;
        }
        self.crates
            .tree
            .values()
            .filter(|root| {
                let base = root.rsplit_once('/').map_or("", |(d, _)| d);
                let inside = if base.is_empty() {
                    !self.path.contains('/')
                } else {
                    self.path.starts_with(&format!("{base}/"))
                };
                inside
                    && !self.path.ends_with("/main.rs")
                    && self.path != "main.rs"
                    && !self.path.starts_with(&format!("{base}/bin/"))
            })
            .max_by_key(|root| root.len())
    }

    /// For `name` used at `at` under a `use` from a crate of the tree: the files its module can
    /// be, or `None` when that `use` gives it another name (`use my_util::shout as name`).
    pub(super) fn used_from_tree(&self, name: &str, at: usize) -> Option<Option<&[String]>> {
        self.tree_uses
            .iter()
            .find(|u| u.name == name && u.scope.contains(&at))
            .map(|u| (!u.alias).then_some(u.files.as_slice()))
    }

    /// Records the names a `use` brings in from crates of the tree (a glob brings none known).
    fn tree_use(&mut self, decl: Node, source: &str) {
        let scope = decl.parent().unwrap_or(decl).byte_range();
        let Some(argument) = decl.child_by_field_name("argument") else {
            return;
        };
        let mut paths = Vec::new();
        use_paths(argument, source, "", &mut paths);
        for (path, alias, named) in paths {
            let Some((module, name)) = path.rsplit_once("::") else {
                continue;
            };
            let Some(files) = self.tree_module(module) else {
                continue;
            };
            match alias {
                Some(alias) if alias != name => {
                    // `use m::name as alias`: `alias` names the item in the `use`'s scope, and
                    // `name` there (only) is the module's item.
                    self.tree_uses.push(TreeUse {
                        name: alias,
                        files: files.clone(),
                        alias: true,
                        scope: scope.clone(),
                    });
                    self.tree_uses.push(TreeUse {
                        name: name.to_string(),
                        files,
                        alias: false,
                        scope: named,
                    });
                }
                _ => self.tree_uses.push(TreeUse {
                    name: name.to_string(),
                    files,
                    alias: false,
                    scope: scope.clone(),
                }),
            }
        }
    }

    /// Records the names a `use` brings in (each with the path it names), and its scope when it
    /// is a glob.
    fn brought_by(&mut self, decl: Node, source: &str) {
        let scope = decl.parent().unwrap_or(decl).byte_range();
        let Some(argument) = decl.child_by_field_name("argument") else {
            return;
        };
        let first = text(argument, source)
            .trim_start_matches("::")
            .split("::")
            .next()
            .unwrap_or_default()
            .trim();
        let outside = self.crate_outside(first);
        let mut stack = vec![argument];
        while let Some(n) = stack.pop() {
            if n.kind() == "use_wildcard" {
                self.globs.push((scope.clone(), outside));
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        let mut paths = Vec::new();
        use_paths(argument, source, "", &mut paths);
        for (path, alias, _) in paths {
            let Some((module, item)) = path.rsplit_once("::") else {
                continue;
            };
            self.brought.push(Brought {
                name: alias.unwrap_or_else(|| item.to_string()),
                module: module.to_string(),
                item: item.to_string(),
                scope: scope.clone(),
            });
        }
    }

    /// The `use` that brings `name` into the scope at `at`, if one does (not a glob).
    pub(super) fn brought(&self, name: &str, at: usize) -> Option<&Brought> {
        self.brought
            .iter()
            .find(|b| b.name == name && b.scope.contains(&at))
    }

    /// Whether a glob `use` reaches `at`.
    pub(super) fn glob_reaches(&self, at: usize) -> bool {
        self.globs.iter().any(|(g, _)| g.contains(&at))
    }

    /// Whether a glob `use` of a crate outside the tree reaches `at`.
    pub(super) fn outside_glob_reaches(&self, at: usize) -> bool {
        self.globs
            .iter()
            .any(|(g, outside)| *outside && g.contains(&at))
    }

    /// Whether `name`, used at `at`, is brought in from outside the tree by a `use` whose scope
    /// holds it (a `use` inside one function reaches that function only).
    pub(super) fn uses_outside(&self, name: &str, at: usize) -> bool {
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
        if !self.crate_outside(&first) {
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

/// The full paths a `use` argument names (`a::{b, c::d as e}` → `a::b`, `a::c::d` as `e`),
/// each with its alias and the bytes of its last segment.
type UsePath = (String, Option<String>, Range<usize>);

fn use_paths(node: Node, source: &str, prefix: &str, out: &mut Vec<UsePath>) {
    let join = |p: &str| {
        if prefix.is_empty() {
            p.to_string()
        } else {
            format!("{prefix}::{p}")
        }
    };
    let last = |n: Node| n.child_by_field_name("name").unwrap_or(n).byte_range();
    match node.kind() {
        "identifier" | "scoped_identifier" => {
            out.push((join(text(node, source)), None, last(node)));
        }
        "use_as_clause" => {
            if let (Some(path), Some(alias)) = (
                node.child_by_field_name("path"),
                node.child_by_field_name("alias"),
            ) {
                out.push((
                    join(text(path, source)),
                    Some(text(alias, source).to_string()),
                    last(path),
                ));
            }
        }
        "scoped_use_list" => {
            let inner = node
                .child_by_field_name("path")
                .map_or_else(|| prefix.to_string(), |p| join(text(p, source)));
            if let Some(list) = node.child_by_field_name("list") {
                use_paths(list, source, &inner, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                use_paths(c, source, prefix, out);
            }
        }
        _ => {}
    }
}
