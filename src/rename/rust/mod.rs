//! Rust name resolution for `lancet rename`: what the syntax trees of the walked files prove,
//! and nothing more (a type checker's answer is `--lsp`).
//!
//! - A member is `Type::name` (an associated item, a variant) or `Type.name` (a field: a field
//!   and a method of one name are two symbols): defined in an `impl Type` (or a trait of the
//!   tree and its impls: `Trait::name`), a struct's field list, and reached through `self` in
//!   such an impl, `Type::name` / `Self::name` paths, `Type { name: … }`, a local whose type the
//!   function writes down (`x: &Type`, `let x = Type { … }`) or whose value is typed, a field
//!   of such a receiver (`self.config.x`: the type its struct declares), a call's result by the
//!   declared return type of what it calls ([`typing`]: `Record::builder().level(l)` is a
//!   `RecordBuilder`'s), a binding a pattern takes apart (`let (pre, rest) = f()?`), through
//!   `Box`/`Rc`/`Arc` (`(**self)`, `self.as_ref()`), and a generic parameter's bounds,
//!   `dyn Trait` or `impl Trait` (a trait method). A field's type is read from the tree's other
//!   files when the scanned ones do not declare its struct ([`elsewhere`]). A doctest's own type
//!   reaches the one trait of the tree its impls there implement. Any other receiver is
//!   unresolved (a generic, associated or `impl Trait` return type too); a method of a trait
//!   outside the tree (`fmt` in `impl Display for T`) or of a library type (`str::len`)
//!   resolves outside.
//! - A local (`let`, a parameter, a closure's or a pattern's binding) is its own symbol, by its
//!   declaration; a closure sees the locals of the function around it.
//! - An item (fn, struct, enum, trait, const, static, type, mod, macro) is the symbol when
//!   exactly one item of the walked files has the name in the namespace its place says (a
//!   path's leading segment is a module or type, a macro call's name a macro, an expression's
//!   name a value) among those the use's crate can name (a package's code names no item of its
//!   tests, benches or examples; those and doctests name only `pub` ones); with several, the
//!   innermost one of the file whose scope holds the use, or the one at the top of the module a
//!   path names (`crate::m::name`, `$crate::m::name`: from the file's library root); else its
//!   uses are unresolved. A macro's call where no item of the walked files has the name is a
//!   macro of Rust's library or of another crate (`module_path!()`).
//! - A path or `use` that starts in `std`, `core` or `alloc`, or in a crate outside the tree that
//!   the file's package depends on ([`crates`]: a registry or git dependency of its
//!   `Cargo.toml`), resolves outside the tree, within the scope of the `use` (a `use` inside one
//!   function reaches that function only); so does every word of an attribute (`#[test]`,
//!   derives, cfgs, lints). A workspace member reached by its crate name is the tree's.
//! - A shorthand field (`Type { name }`) is a value and a field at once: both are resolved.
//! - Inside a macro's tokens, `x.name` and `Type::name` are read as they would be outside it.
//!
//! By grammar area: [`facts`] (what each file declares), [`elsewhere`] (the fields of a type
//! declared in a file without OLD), [`items`] (items and paths),
//! [`members`] (fields, associated items and receivers' types), [`typing`] (an expression's
//! type by what the tree declares), [`locals`] (a function's bindings) and [`macros`] (names
//! among a macro's tokens).

use super::model::{Parsed, Resolution};
use super::resolve::{Resolved, Resolver, Sources, by_node};
use crates::Crates;
use elsewhere::Elsewhere;
use facts::{FileFacts, holder_of, list_owner};
use items::use_space;
use members::associated_id;
use rayon::prelude::*;
use std::sync::Arc;
use tree_sitter::{Node, Tree};

mod crates;
mod elsewhere;
mod facts;
mod items;
mod locals;
mod macros;
mod members;
mod type_text;
mod typing;

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

/// Whether OLD at `at..end` of a Rust string is an inline argument of a format string
/// (`println!("{total}")`, `format!("{total:>8}")`) or a width or precision its spec names
/// (`format!("{:>width$}")`): a string among a macro call's tokens, OLD just inside an
/// unescaped `{` and before `}` or `:`, or in a placeholder's spec before `$`. Rust reads it as
/// the name in scope.
pub(crate) fn inline_format_argument(tree: &Tree, text: &str, at: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let braces = bytes[..at].iter().rev().take_while(|&&b| b == b'{').count();
    let argument = braces % 2 == 1 && matches!(bytes.get(end), Some(b'}' | b':'));
    let named_in_spec = bytes.get(end) == Some(&b'$') && format_spec_at(bytes, at);
    if !argument && !named_in_spec {
        return false;
    }
    let Some(node) = tree.root_node().descendant_for_byte_range(at, end) else {
        return false;
    };
    let Some(string) = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| matches!(n.kind(), "string_literal" | "raw_string_literal"))
    else {
        return false;
    };
    string.parent().is_some_and(|p| p.kind() == "token_tree")
}

/// Whether `at` stands in the spec of a format string's placeholder, after its `:` (`{:>width$}`,
/// `{:x}`): the bytes back to the nearest brace hold a `:` and that brace opens a placeholder
/// (an odd run of `{`, `{{` being a literal brace).
pub(crate) fn format_spec_at(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    match before.iter().rposition(|&b| b == b'{' || b == b'}') {
        Some(i) if before[i] == b'{' => {
            let run = before[..=i]
                .iter()
                .rev()
                .take_while(|&&b| b == b'{')
                .count();
            run % 2 == 1 && before[i..].contains(&b':')
        }
        _ => false,
    }
}

/// Every walked Rust file's facts.
pub(crate) struct RustProject<'a> {
    /// Each file's facts, by path.
    files: Vec<(&'a str, FileFacts)>,
    /// The crates outside the tree each package depends on.
    crates: Crates,
    /// The tree's other Rust files, read when a type they declare is needed.
    elsewhere: Elsewhere<'a>,
}

/// Which members a name can be: a struct's fields (`x.level`, `P { level }`), or the
/// associated items and variants of impls, traits and enums (`x.level()`, `T::level`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Namespace {
    Field,
    Item,
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

impl<'a> RustProject<'a> {
    /// The facts of every scanned Rust file, collected in parallel.
    pub(crate) fn new(sources: &'a Sources<'a>) -> Self {
        let rust: Vec<&'a Arc<Parsed>> = sources.of_language("rust").collect();
        let crates = Crates::new(sources.files, sources.read);
        RustProject {
            files: rust
                .par_iter()
                .map(|p| {
                    let names = crates.of(&p.path);
                    (
                        p.path.as_str(),
                        FileFacts::of(&p.path, &p.text, &p.tree, names),
                    )
                })
                .collect(),
            crates,
            elsewhere: Elsewhere::new(sources.files, sources.read),
        }
    }
}

impl RustProject<'_> {
    /// Classifies one occurrence of `name` (an identifier node) in a file.
    fn resolve(&self, facts: &FileFacts, source: &str, node: Node, name: &str) -> Resolution {
        let Some(parent) = node.parent() else {
            return Resolution::Unresolved("no syntax around it".into());
        };
        // `Self` is no name but the keyword for the type of the impl or trait around it.
        if name == "Self" {
            return Resolution::Unresolved(match facts::enclosing_impl(node, source) {
                Some((holder, _)) => format!(
                    "`Self` is the keyword for the type of the impl or trait around it (`{holder}`): rename `{holder}` by its name"
                ),
                None => "`Self` is a keyword (the type of an impl or trait), not a name".into(),
            });
        }
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
                    Resolution::Symbol(associated_id(&tr, name))
                }
                Some((_, Some(tr))) => Resolution::Outside(format!(
                    "`{name}` is a method of the trait `{tr}`, outside the tree"
                )),
                Some((holder, None)) => {
                    self.member_from_impl(&holder, name, Namespace::Item, node, source)
                }
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
                // `x.name(..)`, or `x.name::<T>(..)` (the call's function a generic one).
                let callee = parent
                    .parent()
                    .filter(|g| g.kind() == "generic_function")
                    .unwrap_or(parent);
                let called = callee
                    .parent()
                    .filter(|c| c.kind() == "call_expression")
                    .and_then(|c| c.child_by_field_name("function"))
                    .is_some_and(|f| f.id() == callee.id());
                let space = if called {
                    Namespace::Item
                } else {
                    Namespace::Field
                };
                self.receiver_member(
                    facts,
                    source,
                    parent.child_by_field_name("value"),
                    name,
                    space,
                )
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
}

impl Resolver for RustProject<'_> {
    fn languages(&self) -> &'static [&'static str] {
        &["rust"]
    }

    /// Each occurrence, and for a shorthand field the field it also names.
    /// A file's doctests are resolved on their own facts: their items are theirs, the crate's
    /// are reached as from another crate.
    fn resolve_file(&self, file: &Parsed, offsets: &[usize], old: &str) -> Vec<Resolved> {
        let doctests = file.doctest_wrappers.as_ref().map(|w| {
            let names = self.crates.of(&file.path);
            FileFacts::of_doctests(&file.path, &file.text, &file.tree, w, names)
        });
        let found = self.files.iter().find(|(p, _)| *p == file.path);
        let Some(facts) = doctests.as_ref().or(found.map(|(_, f)| f)) else {
            return offsets
                .iter()
                .map(|_| Resolution::Unresolved("not a scanned Rust file".into()).into())
                .collect();
        };
        let mut resolved = by_node(file, offsets, old, |node| Resolved {
            value: self.resolve(facts, &file.text, node, old),
            field: self.shorthand_field(&file.text, node, old),
        });
        // An inline format argument stands inside a string: the name in scope there.
        for (r, &at) in resolved.iter_mut().zip(offsets) {
            if inline_format_argument(&file.tree, &file.text, at, at + old.len())
                && let Some(string) = file
                    .tree
                    .root_node()
                    .descendant_for_byte_range(at, at + old.len())
            {
                r.value = self.format_argument(facts, &file.text, string, old);
            }
        }
        resolved
    }
}

#[cfg(test)]
mod tests {
    use super::RustProject;
    use crate::rename::resolve::testing::Fixture;

    /// Each occurrence of `old` in `path`, resolved over the files (all scanned).
    fn resolve(files: &[(&str, &str)], path: &str, old: &str) -> Vec<String> {
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let fixture = Fixture::new(files, &paths);
        let sources = fixture.sources();
        fixture.resolve(&RustProject::new(&sources), path, old)
    }

    #[test]
    fn an_item_and_its_uses_are_one_symbol_and_a_let_shadows_it() {
        let text = "fn total() {}\nfn main() {\n    total();\n    let total = 1;\n    total;\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "total"),
            [
                "1 = rust:item:total",
                "3 = rust:item:total",
                "4 = rust:local@a.rs@47",
                "5 = rust:local@a.rs@47"
            ]
        );
    }

    #[test]
    fn items_of_one_name_are_told_apart_by_namespace_and_file() {
        let files = [
            (
                "a.rs",
                "mod frob {}\nfn frob() {}\nfn main() {\n    frob();\n}\n",
            ),
            ("b.rs", "fn frob() {}\n"),
        ];
        // Two `fn frob` in two files: in a.rs, its own; the module is alone in its namespace.
        assert_eq!(
            resolve(&files, "a.rs", "frob"),
            [
                "1 = rust:item:frob#type",
                "2 = rust:item:frob@a.rs:15",
                "4 = rust:item:frob@a.rs:15"
            ]
        );
    }

    #[test]
    fn a_field_and_a_method_of_one_name_are_two_members() {
        let text = "struct P {\n    level: u8,\n}\nimpl P {\n    fn level(&self) -> u8 {\n        self.level\n    }\n}\nfn f(p: &P) -> u8 {\n    p.level()\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "level"),
            [
                "2 = rust:P.level",
                "5 = rust:P::level",
                "6 = rust:P.level",
                "10 = rust:P::level"
            ]
        );
    }

    #[test]
    fn a_trait_method_is_the_traits_in_impls_and_through_bounds() {
        let text = "trait Log {\n    fn write(&self);\n}\nstruct F;\nimpl Log for F {\n    fn write(&self) {}\n}\nfn g<L: Log>(l: &L) {\n    l.write();\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "write"),
            [
                "2 = rust:Log::write",
                "6 = rust:Log::write",
                "9 = rust:Log::write"
            ]
        );
    }

    #[test]
    fn a_shorthand_field_is_a_value_and_a_field() {
        let text = "struct P {\n    major: u8,\n}\nfn f(major: u8) -> P {\n    P { major }\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "major"),
            [
                "2 = rust:P.major",
                "4 = rust:local@a.rs@33",
                "5 = rust:local@a.rs@33 + field = rust:P.major"
            ]
        );
    }

    #[test]
    fn a_method_on_a_receiver_of_unknown_type_is_not_resolved() {
        let text = "struct T;\nimpl T {\n    fn total(&self) {}\n}\nfn main() {\n    let w = make();\n    w.total();\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "total"),
            ["3 = rust:T::total", "7 ? the type of `w` is not known"]
        );
    }

    #[test]
    fn rusts_library_attributes_and_lifetimes_are_outside() {
        let text = "#[derive(take)]\nfn f<'take>(x: &'take mut u8) {\n    std::mem::take(x);\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "take"),
            [
                "1 outside: a word of an attribute (`#[test]`, a derive, a cfg, a lint): never an item of the tree",
                "2 outside: a lifetime or a loop label (`'name`), never an item or a value",
                "2 outside: a lifetime or a loop label (`'name`), never an item or a value",
                "3 outside: `std::mem::take` is outside the tree"
            ]
        );
    }

    #[test]
    fn same_named_methods_of_two_impls_of_one_type_are_two_symbols() {
        // Either's `cloned`: one in `impl W<&T>`, one in `impl W<&mut T>`. Inside each impl,
        // `self`/`Self` is that impl's type; elsewhere the type arguments decide, unread.
        let text = "struct W<T>(T);\nimpl<T> W<&T> {\n    fn cloned(self) {}\n    fn a(self) { self.cloned() }\n}\nimpl<T> W<&mut T> {\n    fn cloned(self) {}\n    fn b(self) { Self::cloned(self) }\n}\nfn f(w: W<&u8>) {\n    w.cloned();\n    W::cloned(w);\n}\n";
        let two = "2 impls of `W` define `cloned` (`impl W<&T>`, `impl W<&mut T>`): which one this is depends on the type arguments of `W` here, which lancet does not infer (a language server can: --lsp)";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "cloned"),
            [
                "3 = rust:W<&T>::cloned".to_string(),
                "4 = rust:W<&T>::cloned".to_string(),
                "7 = rust:W<&mut T>::cloned".to_string(),
                "8 = rust:W<&mut T>::cloned".to_string(),
                format!("11 ? {two}"),
                format!("12 ? {two}"),
            ]
        );
    }

    #[test]
    fn a_constant_in_a_pattern_is_the_constant_and_a_new_name_binds() {
        // log's `UNINITIALIZED`: `Ok(UNINITIALIZED) =>` and `UNINITIALIZED =>` compare against
        // the constant; renaming the constant alone would make them catch-all bindings.
        let text = "const UNINIT: usize = 0;\nfn f(x: Result<usize, usize>, y: usize) {\n    match x {\n        Ok(UNINIT) => {}\n        _ => {}\n    }\n    match y {\n        UNINIT => {}\n        other => {}\n    }\n    match y {\n        mut UNINIT => {}\n    }\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "UNINIT"),
            [
                "1 = rust:item:UNINIT",
                "4 = rust:item:UNINIT",
                "8 = rust:item:UNINIT",
                "12 = rust:local@a.rs@215"
            ]
        );
    }

    #[test]
    fn a_unit_variant_brought_in_by_use_is_the_variant_in_patterns_and_values() {
        let text = "enum Level {\n    Off,\n    On,\n}\nuse self::Level::Off;\nfn f(l: Level) -> Level {\n    match l {\n        Off => Off,\n        _ => Level::On,\n    }\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "Off"),
            [
                "2 = rust:Level::Off",
                "5 = rust:Level::Off",
                "8 = rust:Level::Off",
                "8 = rust:Level::Off"
            ]
        );
    }

    #[test]
    fn a_pattern_name_a_glob_may_bring_as_a_constant_is_undecided() {
        let files = [
            ("a.rs", "pub const IDLE: u8 = 0;\n"),
            (
                "b.rs",
                "use crate::a::*;\nfn f(s: u8) -> u8 {\n    match s {\n        IDLE => 1,\n        _ => 2,\n    }\n}\n",
            ),
        ];
        let why = "`IDLE` in a pattern is a new binding, or the constant, unit struct or unit variant `IDLE` of the walked files if a glob `use` here brings it, which lancet does not follow";
        assert_eq!(resolve(&files, "b.rs", "IDLE"), [format!("4 ? {why}")]);
    }

    #[test]
    fn a_parameter_named_like_a_function_a_use_brings_binds() {
        // log's `use crate::logger;` and `fn log_impl(logger: L)`: a function never turns a
        // pattern into a comparison, so the parameter is a local.
        let files = [
            ("lib.rs", "pub fn logger() {}\n"),
            (
                "api.rs",
                "use crate::logger;\nfn f(logger: u8) -> u8 {\n    logger\n}\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "api.rs", "logger"),
            [
                "1 = rust:item:logger",
                "2 = rust:local@api.rs@24",
                "3 = rust:local@api.rs@24"
            ]
        );
    }

    #[test]
    fn a_variant_brought_in_through_the_trees_one_re_export_is_the_variant() {
        // either's `pub use crate::Either::{Left, Right};` in lib.rs, and
        // `use super::{Either, Left};` in a module: its `Left` is the variant.
        let files = [
            (
                "lib.rs",
                "pub enum Either {\n    Left(u8),\n    Right(u8),\n}\npub use crate::Either::{Left, Right};\nmod m;\n",
            ),
            (
                "m.rs",
                "use super::{Either, Left};\nfn f(x: u8) -> Either {\n    Left(x)\n}\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "m.rs", "Left"),
            ["1 = rust:Either::Left", "3 = rust:Either::Left"]
        );
        // Through a glob of the tree, or a path; not where a glob from outside the tree may
        // bring another `Left`.
        let files = [
            files[0],
            (
                "g.rs",
                "use crate::*;\nfn g() -> Either {\n    Left(1)\n}\nfn h() -> Either {\n    crate::Left(2)\n}\n",
            ),
            (
                "o.rs",
                "use crate::*;\nuse std::cmp::Ordering::*;\nfn o() {\n    Left(1);\n}\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "g.rs", "Left"),
            ["3 = rust:Either::Left", "6 = rust:Either::Left"]
        );
        assert_eq!(
            resolve(&files, "o.rs", "Left"),
            [
                "4 ? no item of the walked files is named `Left` (a glob import, a macro, or another crate)"
            ]
        );
    }

    #[test]
    fn a_plain_name_no_item_variant_or_use_of_the_tree_has_is_outside() {
        // either's `inner` in a `macro_rules!` body: a binding among the macro's tokens (the
        // field `inner` is reached as `x.inner` or a shorthand, never a plain name).
        let text = "struct I {\n    inner: u8,\n}\nmacro_rules! m {\n    ($x:expr) => {\n        match $x {\n            Some(inner) => inner,\n            None => I { inner },\n        }\n    };\n}\n";
        let outside = "outside: no item, variant or local of the walked files is named `inner` (a name from outside the tree, a glob import of one, or a binding among a macro's tokens)";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "inner"),
            [
                "2 = rust:I.inner".to_string(),
                format!("7 {outside}"),
                format!("7 {outside}"),
                "8 ? no item of the walked files is named `inner` (a glob import, a macro, or another crate)".to_string(),
            ]
        );
    }

    #[test]
    fn an_inline_format_argument_is_the_name_in_scope() {
        // log's `let world = "world"; log!(lvl, "hello {world}")`: renaming the local alone
        // left `{world}` naming nothing (E0425). `{{world}}` is text; `world = …` is the
        // macro's own named argument.
        let text = "fn f() {\n    let world = 1;\n    println!(\"{world} {world:>4} {{world}}\");\n}\nfn g() {\n    println!(\"{world}\", world = 2);\n}\n";
        let outside = "outside: no item, variant or local of the walked files is named `world` (a name from outside the tree, a glob import of one, or a binding among a macro's tokens)";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "world"),
            [
                "2 = rust:local@a.rs@17".to_string(),
                "3 = rust:local@a.rs@17".to_string(),
                "3 = rust:local@a.rs@17".to_string(),
                "3 ? not one syntax node".to_string(),
                "6 outside: a named argument of the format macro (`world = …`), not a name in scope".to_string(),
                format!("6 {outside}"),
            ]
        );
    }

    #[test]
    fn a_name_in_a_match_guard_is_a_use_not_a_binding() {
        // semver's `false if rhs.is_empty() =>`: the guard's `rhs` is the parameter.
        let text = "fn f(rhs: u8, b: bool) -> u8 {\n    match b {\n        false if rhs > 1 => rhs,\n        _ => 0,\n    }\n}\n";
        assert_eq!(
            resolve(&[("a.rs", text)], "a.rs", "rhs"),
            [
                "1 = rust:local@a.rs@5",
                "3 = rust:local@a.rs@5",
                "3 = rust:local@a.rs@5"
            ]
        );
    }

    #[test]
    fn a_macros_call_is_no_method_or_function_of_the_tree() {
        // log's `target: $crate::__private_api::module_path!()` beside `Record::module_path`;
        // a macro of the tree of that name is still the tree's.
        let text = "struct R;\nimpl R {\n    fn module_path(&self) {}\n}\nmacro_rules! t {\n    () => {\n        f($crate::m::module_path!(), module_path!())\n    };\n}\nfn g() {\n    let s = module_path!();\n    std::module_path!();\n    frob!(a);\n}\nmacro_rules! frob {\n    ($x:ident) => {};\n}\nfn h() {\n    t!(frob!(b));\n}\n";
        let outside = "outside: `module_path!` calls a macro, and no macro or function of the walked files is named `module_path`: a macro of Rust's library or of another crate";
        let unnamed = "outside: no item, variant or local of the walked files is named `module_path` (a name from outside the tree, a glob import of one, or a binding among a macro's tokens)";
        let files = [("a.rs", text)];
        assert_eq!(
            resolve(&files, "a.rs", "module_path"),
            [
                "3 = rust:R::module_path".to_string(),
                format!("7 {outside}"),
                format!("7 {unnamed}"),
                format!("11 {unnamed}"),
                "12 outside: `std::module_path` is outside the tree".to_string(),
            ]
        );
        assert_eq!(
            resolve(&files, "a.rs", "frob"),
            [
                "13 = rust:item:frob",
                "15 = rust:item:frob",
                "19 = rust:item:frob"
            ]
        );
    }

    #[test]
    fn a_crate_path_among_a_macros_tokens_names_the_librarys_module() {
        // log's `$crate::__private_api::enabled(..)` beside a test's own `fn enabled`.
        let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n";
        let lib = "pub mod private;\nmacro_rules! on {\n    () => {\n        $crate::private::enabled()\n    };\n}\n";
        let files = [
            ("Cargo.toml", manifest),
            ("src/lib.rs", lib),
            ("src/private.rs", "pub fn enabled() {}\n"),
            ("tests/t.rs", "fn enabled() {}\n"),
        ];
        let rust: Vec<&str> = files[1..].iter().map(|(p, _)| *p).collect();
        let fixture = Fixture::new(&files, &rust);
        let sources = fixture.sources();
        assert_eq!(
            fixture.resolve(&RustProject::new(&sources), "src/lib.rs", "enabled"),
            ["4 = rust:item:enabled@src/private.rs:7"]
        );
    }

    #[test]
    fn a_test_crate_reaches_no_private_item_of_the_package_and_the_package_no_tests() {
        // semver's private `parse::comparator` and its tests' own `util::comparator` helper.
        let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n";
        let parse = "fn comparator() {}\npub fn f() {\n    comparator();\n}\n";
        let util = "pub(super) fn comparator() {}\n";
        let test = "mod util;\nuse crate::util::*;\nfn g() {\n    comparator();\n}\n";
        let files = [
            ("Cargo.toml", manifest),
            ("src/lib.rs", "mod parse;\n"),
            ("src/parse.rs", parse),
            ("tests/util/mod.rs", util),
            ("tests/t.rs", test),
        ];
        let rust: Vec<&str> = files[2..].iter().map(|(p, _)| *p).collect();
        let fixture = Fixture::new(&files, &rust);
        let sources = fixture.sources();
        let project = RustProject::new(&sources);
        let of_parse = "= rust:item:comparator@src/parse.rs:3";
        let of_util = "= rust:item:comparator@tests/util/mod.rs:14";
        assert_eq!(
            fixture.resolve(&project, "src/parse.rs", "comparator"),
            [format!("1 {of_parse}"), format!("3 {of_parse}")]
        );
        assert_eq!(
            fixture.resolve(&project, "tests/t.rs", "comparator"),
            [format!("4 {of_util}")]
        );
        // A binary's `main.rs` names its module's `pub(crate)` item, never a test's.
        let files = [
            ("Cargo.toml", manifest),
            (
                "src/main.rs",
                "mod foo;\nfn main() {\n    foo::helper();\n}\n",
            ),
            ("src/foo.rs", "pub(crate) fn helper() {}\n"),
            ("tests/t.rs", "fn helper() {}\n"),
        ];
        let rust: Vec<&str> = files[1..].iter().map(|(p, _)| *p).collect();
        let fixture = Fixture::new(&files, &rust);
        let sources = fixture.sources();
        assert_eq!(
            fixture.resolve(&RustProject::new(&sources), "src/main.rs", "helper"),
            ["3 = rust:item:helper@src/foo.rs:14"]
        );
    }
}
