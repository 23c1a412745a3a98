//! Names among a macro's tokens, which tree-sitter leaves unparsed: `x.name`, `Type::name`,
//! `name:` and a `let` read as they would be outside the macro.

use super::facts::FileFacts;
use super::{Namespace, RustProject, text};
use crate::rename::model::Resolution;
use tree_sitter::Node;

/// A local bound among a macro's tokens (`m!({ let x = 1; x })`: tokens, not a parsed `let`):
/// the offset of the nearest `let x` / `let mut x` before the name in the token trees around
/// it, the name's own when it is that binding.
pub(super) fn token_binding(ident: Node, source: &str) -> Option<usize> {
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

/// The path among a macro's tokens that ends with the segment `last` (`$crate :: a :: b` →
/// `crate::a::b`), when it starts at the crate's root (`crate` or `$crate`).
fn token_path(last: Node, source: &str) -> Option<String> {
    let mut segments = vec![text(last, source)];
    let mut at = last;
    while let Some(joint) = at.prev_sibling().filter(|j| j.kind() == "::") {
        at = joint.prev_sibling()?;
        segments.push(text(at, source));
    }
    segments.reverse();
    let first = segments.first_mut()?;
    if !matches!(*first, "crate" | "$crate") {
        return None;
    }
    *first = "crate";
    Some(segments.join("::"))
}

impl RustProject<'_> {
    /// A name among a macro's tokens (a call's arguments, a `macro_rules!` body): after `.` a
    /// member of the receiver before it (a method when `(` follows), after `::` a path's last
    /// segment, else a local or an item.
    pub(super) fn in_tokens(
        &self,
        facts: &FileFacts,
        source: &str,
        node: Node,
        name: &str,
    ) -> Resolution {
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
                // `x.name(..)`, or `x.name::<T>(..)`.
                let called = node.next_sibling().is_some_and(|n| {
                    n.kind() == "token_tree" && text(n, source).starts_with('(') || n.kind() == "::"
                });
                let space = if called {
                    Namespace::Item
                } else {
                    Namespace::Field
                };
                match before.and_then(|dot| dot.prev_sibling()) {
                    // `x.name`, `self.name`: the receiver's type says, as outside a macro.
                    Some(o)
                        if matches!(o.kind(), "self" | "identifier")
                            && o.prev_sibling()
                                .is_none_or(|p| !matches!(p.kind(), "." | "::")) =>
                    {
                        self.receiver_member(facts, source, Some(o), name, space)
                    }
                    // `a.b(..).name`, `x.field.name`: typed along the tokens.
                    Some(o) if self.type_of(facts, source, o).is_some() => {
                        self.receiver_member(facts, source, Some(o), name, space)
                    }
                    _ => Resolution::Unresolved(
                        "a member of an expression inside a macro's tokens".to_string(),
                    ),
                }
            }
            Some("::") => match before.and_then(|c| c.prev_sibling()) {
                // `$crate::module::name` in a `macro_rules!` body: the defining crate's module.
                Some(segment)
                    if segment.kind() == "identifier"
                        && token_path(segment, source)
                            .is_some_and(|p| p.starts_with("crate::")) =>
                {
                    let path = token_path(segment, source).unwrap_or_default();
                    self.path(facts, source, node, &path, name)
                }
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
}
