//! A function's locals: where the local a name refers to is declared (a parameter, a `let`, a
//! closure's or a pattern's binding in scope before the use), and the type a local is declared
//! with when the function writes it down.

use super::facts::FileFacts;
use super::items::use_space;
use super::macros::token_binding;
use super::{RustProject, ancestor, bare_type, text};
use crate::rename::model::{ItemSpace, Resolution, RustSymbol, SymbolId};
use tree_sitter::Node;

/// What an identifier in a pattern is: Rust reads `UNINITIALIZED =>` as the constant when a
/// constant, unit struct or unit variant of that name is in scope, and as a new binding
/// (a catch-all) only when none is.
pub(super) enum PatternName {
    /// A new binding of the name.
    Binds,
    /// An item the pattern compares against (a `const`, a `static`, a unit struct or variant).
    Names,
    /// Either, by what the walked files say (a glob `use` may bring such an item): why.
    Unknown(String),
}

/// Where the local a name refers to is declared (its byte offset), when the function around
/// it binds it: a parameter, a `let`, a closure parameter, a `for`/`match`/`if let` pattern
/// declared before the use. The name's own declaration counts too. `Some(Err(why))` when the
/// pattern that would bind it may name an item instead (`classify`).
pub(super) fn local_declaration(
    ident: Node,
    source: &str,
    classify: &dyn Fn(Node) -> PatternName,
) -> Option<Result<usize, String>> {
    // A shorthand field in a pattern (`let P { major } = p`) binds a local of its name.
    if !matches!(ident.kind(), "identifier" | "shorthand_field_identifier") {
        return None;
    }
    local_named(ident, text(ident, source), source, classify)
}

/// [`local_declaration`] of `name` used at `ident` (an identifier, or the string that holds
/// an inline format argument).
fn local_named(
    ident: Node,
    name: &str,
    source: &str,
    classify: &dyn Fn(Node) -> PatternName,
) -> Option<Result<usize, String>> {
    let function = enclosing_function(ident)?;
    let mut best: Option<(usize, Result<usize, String>)> = None;
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
            && let Some((bound, binds)) = binding_in_pattern(p, source, name, classify)
            && (bound == ident.start_byte()
                || match n.kind() {
                    "let_declaration" | "let_condition" | "match_pattern" => after(n.end_byte()),
                    "for_expression" => n
                        .child_by_field_name("body")
                        .is_some_and(|b| b.start_byte() <= ident.start_byte()),
                    _ => bound < ident.start_byte(),
                })
            && encloses_use(n, ident)
            && best.as_ref().is_none_or(|(b, _)| *b < bound)
        {
            best = Some((bound, binds));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    best.map(|(_, binds)| binds)
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
/// type), and whether it binds (`Err(why)` when it may name an item instead); an identifier
/// that names an item (`classify`) binds nothing.
fn binding_in_pattern(
    pattern: Node,
    source: &str,
    name: &str,
    classify: &dyn Fn(Node) -> PatternName,
) -> Option<(usize, Result<usize, String>)> {
    let mut stack = vec![pattern];
    while let Some(n) = stack.pop() {
        match n.kind() {
            // `P { major }` in a pattern binds `major`.
            "shorthand_field_identifier" if text(n, source) == name => {
                return Some((n.start_byte(), Ok(n.start_byte())));
            }
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
                if in_path {
                    continue;
                }
                // `mut x`, `ref x` and `x @ …` always bind.
                let binds_always = n.parent().is_some_and(|p| {
                    matches!(p.kind(), "mut_pattern" | "ref_pattern" | "captured_pattern")
                });
                match if binds_always {
                    PatternName::Binds
                } else {
                    classify(n)
                } {
                    PatternName::Binds => return Some((n.start_byte(), Ok(n.start_byte()))),
                    PatternName::Names => {}
                    PatternName::Unknown(why) => return Some((n.start_byte(), Err(why))),
                }
            }
            "type_identifier" | "scoped_type_identifier" | "type_arguments" => {}
            _ => {
                // A match arm's guard (`x if rhs.is_empty()`) binds nothing: its names are uses.
                let guard = n.child_by_field_name("condition").map(|g| g.id());
                let mut cursor = n.walk();
                for c in n.named_children(&mut cursor) {
                    if Some(c.id()) != guard
                        && !matches!(
                            c.kind(),
                            "type_identifier"
                                | "primitive_type"
                                | "reference_type"
                                | "generic_type"
                        )
                    {
                        stack.push(c);
                    }
                }
            }
        }
    }
    None
}

/// What a local's declaration says of its type: written down (`x: &T`, `let x: T`), or the
/// value a `let` gives it, typed by what that value is ([`RustProject::type_of`]).
pub(super) enum LocalType<'t> {
    Written(String),
    Value(Node<'t>),
}

/// One step from a pattern's whole value to a binding inside it: Rust gives the binding the
/// part of the whole's type the pattern takes apart, exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum PatternStep {
    /// The element at this place of a tuple (`let (a, b) = …`).
    Element(usize),
    /// The value inside the library's `Some(x)` (of an `Option`), `Ok(x)` or `Err(x)` (of a
    /// `Result`).
    Wrapped(Wrapper),
    /// Through a reference pattern (`&(a, b): &(A, B)`).
    Deref,
}

/// The library's variants a pattern opens (`Some(x)`, `Ok(x)`, `Err(x)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Wrapper {
    Some,
    Ok,
    Err,
}

/// What the declaration of a Rust local says of its type, the local being the binding at
/// `bound` that `ident` refers to ([`local_declaration`]): the type of the whole its pattern
/// takes apart (a parameter's `x: &T`, `let x: T`, the value of a `let`, an `if let`/`while
/// let` or a `match`) and the steps from that whole to the binding (`let (a, b) = f()?`:
/// element 1 of what `f()?` is; `if let Some((c, rest)) = g()`). A binding of a closure's
/// untyped parameter, of a `for` loop, or in a pattern of another shape (a struct's, a slice's,
/// an `|`, a tuple with `..`) says nothing.
pub(super) fn rust_local_type<'t>(
    ident: Node<'t>,
    source: &str,
    bound: usize,
) -> Option<(LocalType<'t>, Vec<PatternStep>)> {
    let name = text(ident, source);
    let function = enclosing_function(ident)?;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.start_byte() > bound {
            continue;
        }
        let pattern = match n.kind() {
            "parameter" | "let_declaration" | "let_condition" => n.child_by_field_name("pattern"),
            "match_pattern" => Some(n),
            _ => None,
        };
        if let Some(pattern) = pattern
            && pattern.start_byte() <= bound
            && bound + name.len() <= pattern.end_byte()
        {
            let whole = match n.kind() {
                "match_pattern" => LocalType::Value(
                    ancestor(n, &["match_expression"])?.child_by_field_name("value")?,
                ),
                _ => match n.child_by_field_name("type") {
                    Some(t) => LocalType::Written(text(t, source).to_string()),
                    None => LocalType::Value(n.child_by_field_name("value")?),
                },
            };
            let binding = pattern
                .descendant_for_byte_range(bound, bound + name.len())
                .filter(|b| b.kind() == "identifier" && text(*b, source) == name)?;
            return Some((whole, steps_to(binding, pattern, source)?));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    None
}

/// The steps from the whole value `pattern` matches down to `binding` inside it, outermost
/// first; `None` through a pattern whose parts lancet does not type.
fn steps_to(binding: Node, pattern: Node, source: &str) -> Option<Vec<PatternStep>> {
    let mut steps = Vec::new();
    let mut at = binding;
    while at.id() != pattern.id() {
        let parent = at.parent()?;
        let mut cursor = parent.walk();
        let parts: Vec<Node> = parent
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "line_comment" && c.kind() != "block_comment")
            .collect();
        match parent.kind() {
            // `(a, .., b)`: the places after `..` count from the end, unread.
            "tuple_pattern" if parts.iter().all(|p| p.kind() != "remaining_field_pattern") => {
                steps.push(PatternStep::Element(
                    parts.iter().position(|p| p.id() == at.id())?,
                ));
            }
            "tuple_struct_pattern" => {
                let variant = parent.child_by_field_name("type")?;
                let wrapper = match text(variant, source) {
                    "Some" => Wrapper::Some,
                    "Ok" => Wrapper::Ok,
                    "Err" => Wrapper::Err,
                    _ => return None,
                };
                // `Some(x)`: the variant's one field.
                if parts.len() != 2 || parts[1].id() != at.id() {
                    return None;
                }
                steps.push(PatternStep::Wrapped(wrapper));
            }
            "reference_pattern" => steps.push(PatternStep::Deref),
            // `mut x`, `ref x`, `x @ P` bind the value itself (`ref`: by reference, which a
            // member's receiver sees through); a match arm's pattern is its whole.
            "mut_pattern" | "ref_pattern" | "captured_pattern" | "match_pattern" => {}
            _ => return None,
        }
        at = parent;
    }
    steps.reverse();
    Some(steps)
}

/// Whether a plain name among a macro's tokens may be a shorthand field (`Type { name }`,
/// `Type { a, name, .. }`): a name between `{`/`,` and `,`/`}` in braces that follow a word.
fn maybe_shorthand(node: Node, source: &str) -> bool {
    let Some(tokens) = node.parent().filter(|p| p.kind() == "token_tree") else {
        return false;
    };
    let braces = text(tokens, source).starts_with('{')
        && tokens
            .prev_sibling()
            .is_some_and(|p| matches!(p.kind(), "identifier" | ">") || text(p, source) == "Self");
    let before = node.prev_sibling().map(|n| text(n, source));
    let after = node.next_sibling().map(|n| text(n, source));
    braces && matches!(before, Some("{" | ",")) && matches!(after, Some("," | "}"))
}

/// The function whose locals a name may be: the nearest `fn` (a closure sees the locals of
/// the function around it; an inner `fn` item sees none of its outer function's), else the
/// closure a name outside any `fn` stands in.
fn enclosing_function(ident: Node) -> Option<Node> {
    ancestor(ident, &["function_item", "function_signature_item"])
        .or_else(|| ancestor(ident, &["closure_expression"]))
}

impl RustProject<'_> {
    /// What an identifier in a pattern is, by the items in scope where it stands: one a `use`
    /// brings, a `const`/`static`/unit struct of the file whose scope holds it, or (when a glob
    /// `use` reaches it) maybe one of another file's; else a new binding.
    pub(super) fn pattern_name(&self, facts: &FileFacts, node: Node, name: &str) -> PatternName {
        let at = node.start_byte();
        if let Some(b) = facts.brought(name, at) {
            return self.brought_in_pattern(&b.item);
        }
        if facts
            .items
            .iter()
            .any(|i| i.name == name && i.in_patterns && i.scope.contains(&at))
        {
            return PatternName::Names;
        }
        let elsewhere = self.files.iter().any(|(_, f)| {
            f.variants.iter().any(|(v, unit)| *unit && v == name)
                || f.items.iter().any(|i| i.name == name && i.in_patterns)
        });
        if elsewhere && facts.glob_reaches(at) {
            return PatternName::Unknown(format!(
                "`{name}` in a pattern is a new binding, or the constant, unit struct or unit variant `{name}` of the walked files if a glob `use` here brings it, which lancet does not follow"
            ));
        }
        PatternName::Binds
    }

    /// Whether an item of the walked files (in any namespace) has the name.
    pub(super) fn is_item(&self, name: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.items.iter().any(|i| i.name == name))
    }

    /// Whether an enum of the walked files has a variant of the name.
    fn is_variant(&self, name: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.variants.iter().any(|(v, _)| v == name))
    }

    /// The enum whose variant `name` the tree's `use` lines bring in by its type's path
    /// (`pub use crate::Either::{Left, Right}`), when they all name one enum of the tree that
    /// has such a variant.
    pub(super) fn reexported_variant(&self, name: &str) -> Option<String> {
        let mut enums: Vec<String> = self
            .files
            .iter()
            .flat_map(|(_, f)| &f.brought)
            .filter(|b| b.item == name)
            .map(|b| bare_type(&b.module))
            .filter(|m| m.starts_with(char::is_uppercase))
            .collect();
        enums.sort_unstable();
        enums.dedup();
        match enums.as_slice() {
            [one]
                if self.types_named(one) == 1
                    && self.holders().any(|h| {
                        h.name == *one && !h.fields && h.members.iter().any(|(m, _)| m == name)
                    }) =>
            {
                Some(one.clone())
            }
            _ => None,
        }
    }

    /// What a name a `use` brings is in a pattern, by the item it names (`item`): the tree's
    /// items of that name (a `const`, `static` or unit struct compares; a function, module or
    /// type binds), else a unit variant of the tree; of an item outside the tree lancet knows
    /// only the name, and Rust's naming says (`PI`, `Less`: constants and variants are
    /// capitalised; `max`, `swap`: functions are not).
    fn brought_in_pattern(&self, item: &str) -> PatternName {
        let items: Vec<bool> = self
            .files
            .iter()
            .flat_map(|(_, f)| &f.items)
            .filter(|i| i.name == item)
            .map(|i| i.in_patterns)
            .collect();
        let compares = if items.is_empty() {
            self.files
                .iter()
                .any(|(_, f)| f.variants.iter().any(|(v, unit)| *unit && v == item))
                || item.starts_with(char::is_uppercase)
        } else {
            items.contains(&true)
        };
        if compares {
            PatternName::Names
        } else {
            PatternName::Binds
        }
    }

    /// An inline format argument (`"{total}"`, in the string `at`): the local of that name in
    /// scope there, else a value item.
    pub(super) fn format_argument(
        &self,
        facts: &FileFacts,
        source: &str,
        at: Node,
        name: &str,
    ) -> Resolution {
        // `format!("{name}", name = …)`: the macro's own named argument.
        let tokens =
            std::iter::successors(Some(at), |n| n.parent()).find(|n| n.kind() == "token_tree");
        let named = tokens.is_some_and(|tokens| {
            let mut cursor = tokens.walk();
            let words: Vec<Node> = tokens.children(&mut cursor).collect();
            words.windows(2).any(|w| {
                w[0].kind() == "identifier"
                    && text(w[0], source) == name
                    && text(w[1], source) == "="
            })
        });
        if named {
            return Resolution::Outside(format!(
                "a named argument of the format macro (`{name} = …`), not a name in scope"
            ));
        }
        let classify = |n: Node| self.pattern_name(facts, n, name);
        match local_named(at, name, source, &classify) {
            Some(Ok(offset)) => Resolution::Symbol(SymbolId::Rust(RustSymbol::Local {
                path: facts.path.clone(),
                offset,
            })),
            Some(Err(why)) => Resolution::Unresolved(why),
            None => self.item_id(facts, name, Some(at.start_byte()), Some(ItemSpace::Value)),
        }
    }

    /// A plain name: the local it is bound to (by the function around it, or by a `let` among
    /// a macro's tokens), else an item of the tree.
    pub(super) fn local_or_item(
        &self,
        facts: &FileFacts,
        source: &str,
        node: Node,
        name: &str,
    ) -> Resolution {
        let classify = |n: Node| self.pattern_name(facts, n, name);
        let local = local_declaration(node, source, &classify)
            .or_else(|| token_binding(node, source).map(Ok));
        match local {
            Some(Ok(at)) => Resolution::Symbol(SymbolId::Rust(RustSymbol::Local {
                path: facts.path.clone(),
                offset: at,
            })),
            Some(Err(why)) => Resolution::Unresolved(why),
            None => match facts.brought(name, node.start_byte()) {
                // `use crate::Level::Error;` … `Error`: the member the `use` names (a variant,
                // an associated const), as the `use` line itself is resolved.
                Some(b)
                    if b.item == name && bare_type(&b.module).starts_with(char::is_uppercase) =>
                {
                    let module = b.module.clone();
                    self.path(facts, source, node, &module, name)
                }
                Some(_) => self.item_id(facts, name, Some(node.start_byte()), use_space(node)),
                // No item, variant or `use` of the tree has the name: not the tree's.
                None if !self.is_item(name)
                    && !self.is_variant(name)
                    && !maybe_shorthand(node, source) =>
                {
                    Resolution::Outside(format!(
                        "no item, variant or local of the walked files is named `{name}` (a name from outside the tree, a glob import of one, or a binding among a macro's tokens)"
                    ))
                }
                None => self.item_id(facts, name, Some(node.start_byte()), use_space(node)),
            },
        }
    }
}
