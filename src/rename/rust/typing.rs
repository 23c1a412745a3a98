//! An expression's type as the tree declares it, so a member reached through it is decided:
//! `self`, a local's annotation or initialiser, a field's declared type, and a call's result by
//! the declared return type of what it calls (`-> Self`, `-> &mut Builder`, `-> Box<T>`), step
//! by step along a chain (`Record::builder().level(l).build()`), with `?`, `.unwrap()` and
//! `.expect(..)` taking the value out of the library's `Option`/`Result`; a binding a pattern
//! takes apart (`let (pre, rest) = f()?`, `if let Some((c, rest)) = g()`, a `match` arm's
//! `Ok(found)`, `&(a, b): &(A, B)`) by the part of the whole's type it takes; a `match` or `if`
//! whose branches that give a value agree; `*x` through a reference or the library's `Box`,
//! `Rc`, `Arc`, and such a pointer's `as_ref()`; `str`'s own methods (`trim_start_matches`
//! gives a `&str`). A return type that names a generic parameter, an associated type or
//! `impl Trait` is not known, and neither is anything the tree does not declare: the member
//! reached through it stays undecided.

use super::facts::{FileFacts, Returns, enclosing_impl, enclosing_impl_type};
use super::locals::{LocalType, PatternStep, Wrapper, local_declaration, rust_local_type};
use super::macros::token_binding;
use super::members::{POINTERS, deref_type};
use super::type_text::{
    replace_word, split_at_top, strip_reference, tuple_elements, type_arguments, usable, whole_word,
};
use super::{Namespace, RustProject, ancestor, bare_type, text};
use crate::rename::model::{Resolution, RustSymbol, SymbolId};
use tree_sitter::Node;

/// How many steps (a local's initialiser, a receiver, a call) typing one expression follows:
/// a bound on recursion through initialisers, far beyond any chain written by hand.
const STEPS: u8 = 24;

/// Traits of Rust's prelude whose associated functions are called by the trait's path
/// (`Default::default()`, `From::from(x)`): the type they give is the one the context wants.
const LIBRARY_TRAITS: &[&str] = &[
    "Default",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "FromStr",
    "FromIterator",
    "Clone",
    "ToOwned",
    "ToString",
    "Iterator",
    "IntoIterator",
];

/// The library's wrappers whose value `?`, `.unwrap()` and `.expect(..)` take out: their first
/// type argument.
const WRAPPERS: &[&str] = &["Option", "Result"];

/// Inherent methods of `str` (reached from `&str`, `String` and `&String` by dereference) and
/// the type each gives: an inherent method comes before any trait's, so a receiver that is a
/// `str` gives exactly this (`text.trim_start_matches(' ')` is a `&str`).
const STR_METHODS: &[(&str, &str)] = &[
    ("trim", "&str"),
    ("trim_start", "&str"),
    ("trim_end", "&str"),
    ("trim_matches", "&str"),
    ("trim_start_matches", "&str"),
    ("trim_end_matches", "&str"),
    ("strip_prefix", "Option<&str>"),
    ("strip_suffix", "Option<&str>"),
    ("to_lowercase", "String"),
    ("to_uppercase", "String"),
];

/// Macros of Rust's library that never return: a `match` arm or branch that ends in one gives
/// the whole no type.
const DIVERGING_MACROS: &[&str] = &["panic", "unreachable", "todo", "unimplemented"];

/// The type a declaration gives, `Self` being `self_type` (the receiver's or the path's type;
/// `None`: not known) and each generic parameter unknown (`_`); `None` when it names an
/// associated type (`Self::Item`, `<T as X>::Y`) or `Self` where that is not known.
fn declared(returns: &Returns, self_type: Option<&str>) -> Option<String> {
    let written = returns.written.as_str();
    // `-> impl Trait` hides the type it gives; `Self::Item`, `<T as X>::Y` are associated
    // types, unread.
    if deref_type(written).starts_with("impl ")
        || written.contains("Self::")
        || written.contains('<') && written.contains(" as ")
    {
        return None;
    }
    let mut ty = written.to_string();
    for generic in &returns.generics {
        ty = replace_word(&ty, generic, "_");
    }
    if ty
        .match_indices("Self")
        .any(|(at, _)| whole_word(&ty, at, "Self"))
    {
        ty = replace_word(&ty, "Self", self_type?);
    }
    Some(ty)
}

/// A literal's type: a string's `&str`, a char's, a bool's, a number's by its suffix (`1u8`);
/// an unsuffixed number's is inferred, unread.
fn literal_type(literal: Node, source: &str) -> Option<String> {
    const NUMBERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ];
    match literal.kind() {
        "string_literal" | "raw_string_literal" => Some("&str".into()),
        "char_literal" => Some("char".into()),
        "boolean_literal" => Some("bool".into()),
        "integer_literal" | "float_literal" => {
            let digits = text(literal, source);
            NUMBERS
                .iter()
                .find(|n| digits.ends_with(*n) && !digits.starts_with("0x"))
                .map(|n| n.to_string())
        }
        _ => None,
    }
}

/// The type of `self` where `node` stands, as the method's receiver and the impl write it
/// (`&self` in `impl<T> Log for &'_ T` → `&&'_ T`); `None` in a trait's own body, outside a
/// method, or for a receiver written with its type (`self: Box<Self>`).
fn written_self(node: Node, source: &str) -> Option<String> {
    let function = ancestor(node, &["function_item"])?;
    let parameters = function.child_by_field_name("parameters")?;
    let mut cursor = parameters.walk();
    let receiver = parameters
        .named_children(&mut cursor)
        .find(|p| p.kind() == "self_parameter")?;
    let written = text(receiver, source);
    let impl_type = enclosing_impl_type(node, source)?;
    // `&self`, `&'a mut self`: a reference to the impl's type; `self`, `mut self`: the type.
    Some(if written.starts_with('&') {
        format!("{} {impl_type}", written.strip_suffix("self")?.trim())
    } else {
        impl_type
    })
}

/// Whether an expression never gives a value: `return`, `break`, `continue`, a `panic!`, or a
/// block that ends in one.
fn diverges(node: Node, source: &str) -> bool {
    match node.kind() {
        "return_expression" | "break_expression" | "continue_expression" => true,
        "macro_invocation" => node
            .child_by_field_name("macro")
            .is_some_and(|m| DIVERGING_MACROS.contains(&text(m, source))),
        "expression_statement" => node.named_child(0).is_some_and(|e| diverges(e, source)),
        "block" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
                .last()
                .is_some_and(|last| diverges(last, source))
        }
        _ => false,
    }
}

impl RustProject<'_> {
    /// The type an expression is declared with, as written, when the tree says so plainly.
    pub(super) fn type_of(&self, facts: &FileFacts, source: &str, object: Node) -> Option<String> {
        self.typed(facts, source, object, STEPS)
            .filter(|ty| usable(ty))
    }

    fn typed(&self, facts: &FileFacts, source: &str, object: Node, steps: u8) -> Option<String> {
        let steps = steps.checked_sub(1)?;
        if object.parent().is_some_and(|p| p.kind() == "token_tree") {
            return self.token_type(facts, source, object, steps);
        }
        match object.kind() {
            "self" => enclosing_impl(object, source).map(|(h, _)| h),
            "identifier" => self.local_type(facts, source, object, steps),
            "field_expression" => {
                let value = object.child_by_field_name("value")?;
                let field = text(object.child_by_field_name("field")?, source);
                let holder = self.typed(facts, source, value, steps)?;
                self.field_type(&holder, field)
            }
            "parenthesized_expression" => self.typed(facts, source, object.named_child(0)?, steps),
            "reference_expression" => {
                let value = object.child_by_field_name("value")?;
                Some(format!("&{}", self.typed(facts, source, value, steps)?))
            }
            "struct_expression" => object
                .child_by_field_name("name")
                .map(|t| text(t, source).to_string()),
            "try_expression" => {
                let value = self.typed(facts, source, object.named_child(0)?, steps)?;
                self.unwrapped(&value)
            }
            "call_expression" => self.call_type(facts, source, object, steps),
            // `values[0]`: an element of an array, a slice or the library's `Vec`.
            "index_expression" => {
                let value = object.named_child(0)?;
                let index = object.named_child(1)?;
                if index.kind() != "integer_literal" {
                    return None;
                }
                let ty = self.typed(facts, source, value, steps)?;
                self.element_type(&ty)
            }
            // `[Left(1), Right(2)]`: an array of its elements' one type.
            "array_expression" => self.array_type(facts, source, object, steps),
            // `*x`, `**self`: what the reference or the library's pointer holds.
            "unary_expression" if text(object, source).starts_with('*') => {
                let operand = object.named_child(0)?;
                let ty = match operand.kind() {
                    "self" => written_self(operand, source)?,
                    _ => self.typed(facts, source, operand, steps)?,
                };
                self.dereferenced(&ty)
            }
            "match_expression" | "if_expression" | "block" => {
                self.branches_type(facts, source, object, steps)
            }
            "string_literal" | "raw_string_literal" | "char_literal" | "boolean_literal"
            | "integer_literal" | "float_literal" => literal_type(object, source),
            // `Level::Info`: a variant is a value of its enum.
            "scoped_identifier" => {
                let path = object
                    .child_by_field_name("path")
                    .filter(|p| !text(*p, source).starts_with('<'))?;
                let name = object.child_by_field_name("name")?;
                let id = self.path(facts, source, name, text(path, source), text(name, source));
                self.variant_type(&id)
            }
            _ => None,
        }
    }

    /// The type of a `match`, an `if` or a block: what every branch that gives a value gives
    /// (a block's, its tail expression's).
    fn branches_type(
        &self,
        facts: &FileFacts,
        source: &str,
        object: Node,
        steps: u8,
    ) -> Option<String> {
        match object.kind() {
            "match_expression" => {
                let arms = object.child_by_field_name("body")?;
                let mut cursor = arms.walk();
                let values: Vec<Node> = arms
                    .named_children(&mut cursor)
                    .filter(|a| a.kind() == "match_arm")
                    .filter_map(|a| a.child_by_field_name("value"))
                    .collect();
                self.agreed(facts, source, &values, steps)
            }
            "if_expression" => {
                let mut branches = vec![object.child_by_field_name("consequence")?];
                let alternative = object.child_by_field_name("alternative")?;
                branches.push(alternative.named_child(0)?);
                self.agreed(facts, source, &branches, steps)
            }
            _ => {
                let mut cursor = object.walk();
                let tail = object
                    .named_children(&mut cursor)
                    .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
                    .last()?;
                let statement = tail.kind().ends_with("_statement")
                    || tail.kind().ends_with("_declaration")
                    || tail.kind().ends_with("_item");
                if statement {
                    return None;
                }
                self.typed(facts, source, tail, steps)
            }
        }
    }

    /// The type of an array expression: `[T]` for elements that all are a `T` (`[x; N]`: its
    /// `x`).
    fn array_type(
        &self,
        facts: &FileFacts,
        source: &str,
        array: Node,
        steps: u8,
    ) -> Option<String> {
        let elements: Vec<Node> = match array.child_by_field_name("length") {
            Some(_) => vec![array.child_by_field_name("value")?],
            None => {
                let mut cursor = array.walk();
                array
                    .named_children(&mut cursor)
                    .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
                    .collect()
            }
        };
        Some(format!(
            "[{}]",
            self.agreed(facts, source, &elements, steps)?
        ))
    }

    /// The type `*x` gives for an `x` of type `ty`: a reference's target, or what the
    /// library's pointer holds (`Box<T>` → `T`); `None` for any other type (a type of the tree
    /// may implement `Deref` to anything).
    fn dereferenced(&self, ty: &str) -> Option<String> {
        if let Some(target) = strip_reference(ty) {
            return Some(target.to_string());
        }
        self.pointer_held(ty)
    }

    /// The type of `x[0]` for an `x` of type `ty`: an array's or a slice's element (`[T; N]`,
    /// `&[T]`), or the library's `Vec<T>`'s; `None` for any other type (a type of the tree may
    /// implement `Index` to anything).
    fn element_type(&self, ty: &str) -> Option<String> {
        let mut ty = ty.trim();
        while let Some(target) = strip_reference(ty) {
            ty = target;
        }
        if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let element = split_at_top(inner, ';').next()?;
            return Some(element.trim().to_string());
        }
        let outer = bare_type(ty);
        if outer != "Vec" || self.types_named("Vec") > 0 {
            return None;
        }
        Some(type_arguments(ty)?.first()?.to_string())
    }

    /// What a library pointer of type `ty` holds (`Box<T>`, `Rc<T>`, `Arc<T>` → `T`), no type
    /// of the tree having the pointer's name.
    fn pointer_held(&self, ty: &str) -> Option<String> {
        let outer = bare_type(ty);
        if !matches!(outer.as_str(), "Box" | "Rc" | "Arc") || self.types_named(&outer) > 0 {
            return None;
        }
        let arguments = type_arguments(ty.trim())?;
        Some(arguments.last()?.to_string())
    }

    /// The one type of the branches of a `match` or `if` that give a value (a branch that
    /// returns, breaks or panics gives none); `None` when one is not known or two differ.
    fn agreed(
        &self,
        facts: &FileFacts,
        source: &str,
        branches: &[Node],
        steps: u8,
    ) -> Option<String> {
        let mut agreed: Option<String> = None;
        for branch in branches.iter().filter(|b| !diverges(**b, source)) {
            let ty = self.typed(facts, source, *branch, steps)?;
            if agreed.as_ref().is_some_and(|a| *a != ty) {
                return None;
            }
            agreed = Some(ty);
        }
        agreed
    }

    /// `x.as_ref()` where `x` is the library's `Box<T>`, `Rc<T>` or `Arc<T>` (through any
    /// references): `&T`, the one `AsRef` the library gives them, when no impl or trait of the
    /// walked files has an `as_ref` that could be reached instead.
    fn pointer_as_ref(
        &self,
        facts: &FileFacts,
        source: &str,
        receiver: Node,
        steps: u8,
    ) -> Option<String> {
        if self
            .holders()
            .any(|h| h.members.iter().any(|(m, _)| m == "as_ref"))
        {
            return None;
        }
        let mut ty = match receiver.kind() {
            "self" => written_self(receiver, source)?,
            _ => self.typed(facts, source, receiver, steps)?,
        };
        while let Some(target) = strip_reference(&ty) {
            ty = target.to_string();
        }
        Some(format!("&{}", self.pointer_held(&ty)?))
    }

    /// The type of the local `ident` names, by the declaration it is bound to.
    fn local_type(
        &self,
        facts: &FileFacts,
        source: &str,
        ident: Node,
        steps: u8,
    ) -> Option<String> {
        let name = text(ident, source);
        let classify = |n: Node| self.pattern_name(facts, n, name);
        let bound = local_declaration(ident, source, &classify)?.ok()?;
        let (whole, parts) = rust_local_type(ident, source, bound)?;
        let mut ty = match whole {
            LocalType::Written(ty) => ty,
            LocalType::Value(value) => self.typed(facts, source, value, steps)?,
        };
        for step in parts {
            ty = self.pattern_part(&ty, step)?;
        }
        Some(ty)
    }

    /// The type the struct `holder` (as written) declares its field `field` with.
    fn field_type(&self, holder: &str, field: &str) -> Option<String> {
        let holder = bare_type(&deref_type(holder));
        if self.types_named(&holder) == 0 {
            return self
                .fields_elsewhere(&holder)?
                .into_iter()
                .find(|(m, _)| m == field)
                .and_then(|(_, ty)| ty);
        }
        if self.types_named(&holder) != 1 {
            return None;
        }
        self.holders()
            .filter(|h| h.name == holder && h.fields)
            .flat_map(|h| &h.members)
            .find(|(m, _)| m == field)
            .and_then(|(_, ty)| ty.clone())
    }

    /// The value `?`, `.unwrap()` or `.expect(..)` takes out of `ty` when it is the library's
    /// `Option<T>` or `Result<T, E>` (no type of the tree has that name): `T`.
    fn unwrapped(&self, ty: &str) -> Option<String> {
        let held = deref_type(ty);
        let (_, arguments) = self.wrapper_arguments(&held)?;
        arguments.first().map(|t| t.to_string())
    }

    /// The name (`Option` or `Result`) and type arguments of `ty` when it is one of the
    /// library's wrappers, no type of the tree having that name.
    fn wrapper_arguments<'t>(&self, ty: &'t str) -> Option<(&'t str, Vec<&'t str>)> {
        let outer = ty.split('<').next().unwrap_or_default().trim();
        let name = outer.rsplit("::").next().unwrap_or_default();
        let library =
            !outer.contains("::") || outer.starts_with("std::") || outer.starts_with("core::");
        if !(WRAPPERS.contains(&name) && library && self.types_named(name) == 0) {
            return None;
        }
        Some((name, type_arguments(ty)?))
    }

    /// The type of the part of a value of type `ty` one pattern step takes (an element of a
    /// tuple, what `Some`/`Ok`/`Err` hold, what a reference points to). A pattern that is no
    /// reference matched against a reference binds by reference: `&(A, B)`'s element 0 is `&A`.
    fn pattern_part(&self, ty: &str, step: PatternStep) -> Option<String> {
        let (reference, whole) = match strip_reference(ty) {
            Some(inner) => ("&", inner),
            None => ("", ty.trim()),
        };
        let part = match step {
            PatternStep::Deref => return Some(whole.to_string()).filter(|_| !reference.is_empty()),
            PatternStep::Element(at) => *tuple_elements(whole)?.get(at)?,
            PatternStep::Wrapped(wrapper) => {
                let (name, arguments) = self.wrapper_arguments(whole)?;
                let at = match (wrapper, name) {
                    (Wrapper::Some, "Option") | (Wrapper::Ok, "Result") => 0,
                    (Wrapper::Err, "Result") => 1,
                    _ => return None,
                };
                *arguments.get(at)?
            }
        };
        Some(format!("{reference}{part}"))
    }

    /// The enum `id` is a variant of, when it is one.
    fn variant_type(&self, id: &Resolution) -> Option<String> {
        let Resolution::Symbol(SymbolId::Rust(RustSymbol::Associated { holder, name, .. })) = id
        else {
            return None;
        };
        self.holders()
            .any(|h| h.name == *holder && h.variants && h.members.iter().any(|(m, _)| m == name))
            .then(|| holder.clone())
    }

    /// What a call gives: a method's, an associated function's or a function's declared return
    /// type, a variant's enum, a tuple struct; a library type's associated function (`Vec::new`)
    /// a value of that type, and a pointer's `new` (`Box::new(x)`) a pointer to its argument.
    fn call_type(&self, facts: &FileFacts, source: &str, call: Node, steps: u8) -> Option<String> {
        let mut function = call.child_by_field_name("function")?;
        if function.kind() == "generic_function" {
            function = function.child_by_field_name("function")?;
        }
        match function.kind() {
            "field_expression" => {
                let receiver = function.child_by_field_name("value")?;
                let name = text(function.child_by_field_name("field")?, source);
                if name == "as_ref"
                    && let Some(held) = self.pointer_as_ref(facts, source, receiver, steps)
                {
                    return Some(held);
                }
                let ty = self.typed(facts, source, receiver, steps)?;
                self.method_result(source, receiver, &ty, name)
            }
            // `<T as Trait>::f(..)` is what the trait declares for a `T`, unread.
            "scoped_identifier" => {
                let path = text(function.child_by_field_name("path")?, source);
                if path.starts_with('<') {
                    return None;
                }
                let name = function.child_by_field_name("name")?;
                let id = self.path(facts, source, name, path, text(name, source));
                if let Resolution::Outside(_) = id {
                    let argument = call
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0));
                    return self.library_call(
                        facts,
                        source,
                        path,
                        text(name, source),
                        argument,
                        steps,
                    );
                }
                self.variant_type(&id)
                    .or_else(|| self.associated_result(&id, Some(path)))
                    .or_else(|| self.item_result(&id))
            }
            "identifier" => {
                let name = text(function, source);
                let id = self.local_or_item(facts, source, function, name);
                self.variant_type(&id).or_else(|| self.item_result(&id))
            }
            _ => None,
        }
    }

    /// `receiver.name(..)` where the receiver's type is `ty`: the method's declared return
    /// type; `unwrap`/`expect` on the library's `Option`/`Result` the value inside.
    fn method_result(&self, source: &str, receiver: Node, ty: &str, name: &str) -> Option<String> {
        if matches!(name, "unwrap" | "expect")
            && let Some(inner) = self.unwrapped(ty)
        {
            return Some(inner);
        }
        if let Some(result) = self.str_method(ty, name) {
            return Some(result);
        }
        if !usable(ty) {
            return None;
        }
        let id = self.member_of_type(source, receiver, ty, name, Namespace::Item);
        self.associated_result(&id, Some(ty))
    }

    /// What `str`'s own method `name` gives on a receiver of type `ty` that is a `str` or a
    /// `String` (through references), when no impl or trait of the walked files defines a
    /// method of that name.
    fn str_method(&self, ty: &str, name: &str) -> Option<String> {
        let held = deref_type(ty);
        let text_type = held == "str" || held == "String" && self.types_named("String") == 0;
        if !text_type
            || self
                .holders()
                .any(|h| h.members.iter().any(|(m, _)| m == name))
        {
            return None;
        }
        STR_METHODS
            .iter()
            .find(|(method, _)| *method == name)
            .map(|(_, gives)| gives.to_string())
    }

    /// The declared return type of the associated function or method `id` resolved to, `Self`
    /// being `self_type`: the one declaration of the impl (of the self type `within` names) or
    /// the trait that defines it; a trait's declaration holds for every impl.
    fn associated_result(&self, id: &Resolution, self_type: Option<&str>) -> Option<String> {
        let Resolution::Symbol(SymbolId::Rust(RustSymbol::Associated {
            holder,
            name,
            within,
        })) = id
        else {
            return None;
        };
        let mut declarations = self
            .holders()
            .filter(|h| h.name == *holder && h.trait_name.is_none() && !h.variants)
            .filter(|h| within.is_none() || h.impl_type == *within)
            .flat_map(|h| &h.returns)
            .filter(|(m, _)| m == name)
            .map(|(_, r)| r);
        let one = declarations.next()?;
        if declarations.next().is_some() {
            return None;
        }
        declared(one, self_type)
    }

    /// What calling the item `id` resolved to gives: a function's declared return type, a
    /// tuple struct's own type.
    fn item_result(&self, id: &Resolution) -> Option<String> {
        let Resolution::Symbol(id @ SymbolId::Rust(RustSymbol::Item { name, .. })) = id else {
            return None;
        };
        let item = self
            .files
            .iter()
            .flat_map(|(path, f)| f.items.iter().map(move |i| (*path, i)))
            .find(|(path, i)| i.name == *name && self.item_symbol(path, i) == *id)?
            .1;
        declared(item.called.as_ref()?, None)
    }

    /// `Type::name(..)` of a type outside the tree: a value of that type (the library's
    /// functions of a type give its values, and its members are the library's or a trait's,
    /// as before return types were read), except a pointer's `new`, which holds its argument
    /// (`Box::new(x)`: `Box<type of x>`).
    fn library_call(
        &self,
        facts: &FileFacts,
        source: &str,
        path: &str,
        name: &str,
        argument: Option<Node>,
        steps: u8,
    ) -> Option<String> {
        let ty = bare_type(path);
        // `Self::from_str(s)` through a library trait gives what that trait declares, unread;
        // `Default::default()` is whatever type the context wants.
        if !ty.starts_with(char::is_uppercase)
            || ty == "Self"
            || self.types_named(&ty) > 0
            || LIBRARY_TRAITS.contains(&ty.as_str())
        {
            return None;
        }
        if POINTERS.contains(&ty.as_str()) {
            let held = self.typed(facts, source, argument?, steps)?;
            return (name == "new").then(|| format!("{ty}<{held}>"));
        }
        Some(path.to_string())
    }

    /// The type of the expression that ends with `last` among a macro's tokens (which
    /// tree-sitter leaves unparsed): `self`, a local, `x.field`, and calls read as
    /// [`Self::call_type`] reads them (`a.b(..)`, `T::f(..)`, `f(..)`).
    pub(super) fn token_type(
        &self,
        facts: &FileFacts,
        source: &str,
        last: Node,
        steps: u8,
    ) -> Option<String> {
        let steps = steps.checked_sub(1)?;
        let before = last.prev_sibling();
        let joined_by = |kind: &str| before.is_some_and(|b| b.kind() == kind);
        match last.kind() {
            "self" if !joined_by(".") && !joined_by("::") => {
                enclosing_impl(last, source).map(|(h, _)| h)
            }
            "identifier" if joined_by(".") => {
                let value = before?.prev_sibling()?;
                let holder = self.token_type(facts, source, value, steps)?;
                self.field_type(&holder, text(last, source))
            }
            // A local bound among the tokens (`m!({ let x = …; x.f() })`): not typed.
            "identifier" if token_binding(last, source).is_some() => None,
            "identifier" if !joined_by("::") => self.local_type(facts, source, last, steps),
            // `values[0]` among a macro's tokens.
            "token_tree" if text(last, source).starts_with('[') => {
                let index = text(last, source)[1..].strip_suffix(']')?.trim();
                let value = before?;
                if index.is_empty() || !index.chars().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                let ty = self.token_type(facts, source, value, steps)?;
                self.element_type(&ty)
            }
            "token_tree" if text(last, source).starts_with('(') => {
                let callee = before.filter(|c| c.kind() == "identifier")?;
                let name = text(callee, source);
                let joint = callee.prev_sibling();
                match joint.map(|j| j.kind()) {
                    Some(".") => {
                        let receiver = joint?.prev_sibling()?;
                        let ty = self.token_type(facts, source, receiver, steps)?;
                        self.method_result(source, receiver, &ty, name)
                    }
                    Some("::") => {
                        let segment = joint?.prev_sibling()?;
                        let single = segment
                            .prev_sibling()
                            .is_none_or(|p| !matches!(p.kind(), "::" | "$"));
                        if !single || !matches!(segment.kind(), "identifier" | "self") {
                            return None;
                        }
                        let path = text(segment, source);
                        let id = self.path(facts, source, callee, path, name);
                        match id {
                            Resolution::Outside(_) => None,
                            _ => self
                                .variant_type(&id)
                                .or_else(|| self.associated_result(&id, Some(path))),
                        }
                    }
                    _ => {
                        let id = self.local_or_item(facts, source, callee, name);
                        self.variant_type(&id).or_else(|| self.item_result(&id))
                    }
                }
            }
            _ => literal_type(last, source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::RustProject;
    use crate::rename::resolve::testing::Fixture;

    /// Each occurrence of `old` in `a.rs`, resolved.
    fn resolve(text: &str, old: &str) -> Vec<String> {
        let fixture = Fixture::new(&[("a.rs", text)], &["a.rs"]);
        let sources = fixture.sources();
        fixture.resolve(&RustProject::new(&sources), "a.rs", old)
    }

    /// log's `Record::builder()`: a `RecordBuilder`, whose own `level` the builder's calls
    /// reach; taking `T::f()` for a `T` renamed `RecordBuilder`'s calls with `Record::level`.
    const BUILDER: &str = "struct Record;\nstruct RecordBuilder;\nimpl Record {\n    fn builder() -> RecordBuilder { RecordBuilder }\n    fn level(&self) -> u8 { 0 }\n}\nimpl RecordBuilder {\n    fn new() -> Self { RecordBuilder }\n    fn level(&mut self, l: u8) -> &mut RecordBuilder { self }\n    fn build(&self) -> Record { Record }\n}\nfn f() {\n    let mut b = Record::builder();\n    b.level(1);\n    let r = Record::builder().level(2).build();\n    r.level();\n    RecordBuilder::new().level(3).build().level();\n}\n";

    #[test]
    fn an_associated_calls_result_is_its_declared_return_type_not_the_path() {
        assert_eq!(
            resolve(BUILDER, "level"),
            [
                "5 = rust:Record::level",
                "9 = rust:RecordBuilder::level",
                "14 = rust:RecordBuilder::level",
                "15 = rust:RecordBuilder::level",
                "16 = rust:Record::level",
                "17 = rust:RecordBuilder::level",
                "17 = rust:Record::level",
            ]
        );
        assert_eq!(
            resolve(BUILDER, "build"),
            [
                "10 = rust:RecordBuilder::build",
                "15 = rust:RecordBuilder::build",
                "17 = rust:RecordBuilder::build",
            ]
        );
    }

    #[test]
    fn self_references_pointers_free_functions_and_traits_type_a_chain() {
        let text = "struct C;\ntrait Make {\n    fn again(&self) -> Self;\n}\nimpl Make for C {\n    fn again(&self) -> Self { C }\n}\nimpl C {\n    fn me(&mut self) -> &mut Self { self }\n    fn boxed(&self) -> Box<C> { Box::new(C) }\n    fn go(&self) {}\n}\nfn make() -> C { C }\nfn f(c: C) {\n    c.me().boxed().go();\n    let m = make();\n    m.again().go();\n    make().go();\n    std::rc::Rc::new(make()).go();\n    let r = std::rc::Rc::new(make());\n    r.go();\n}\n";
        assert_eq!(
            resolve(text, "go"),
            [
                "11 = rust:C::go",
                "15 = rust:C::go",
                "17 = rust:C::go",
                "18 = rust:C::go",
                "19 = rust:C::go",
                "21 = rust:C::go",
            ]
        );
    }

    #[test]
    fn option_and_result_are_opened_by_question_mark_unwrap_and_expect() {
        let text = "struct C;\nimpl C {\n    fn go(&self) {}\n    fn find(&self) -> Option<C> { None }\n    fn load() -> Result<Self, String> { Ok(C) }\n}\nfn f(c: C) -> Result<(), String> {\n    c.find().unwrap().go();\n    C::load()?.go();\n    let d = C::load().expect(\"loaded\");\n    d.go();\n    c.find().go();\n    Ok(())\n}\n";
        assert_eq!(
            resolve(text, "go"),
            [
                "3 = rust:C::go",
                "8 = rust:C::go",
                "9 = rust:C::go",
                "11 = rust:C::go",
                "12 outside: `Option` is not a type of the walked files: its `go` is outside the tree",
            ]
        );
    }

    #[test]
    fn generic_associated_and_impl_trait_returns_stay_undecided() {
        let text = "struct C;\ntrait T {\n    type Out;\n    fn out(&self) -> Self::Out;\n}\nimpl C {\n    fn go(&self) {}\n    fn any<U>(&self, u: U) -> U { u }\n    fn opaque(&self) -> impl Sized { C }\n    fn maybe<U>(&self) -> Option<U> { None }\n}\nfn f<X: T>(c: C, x: X) {\n    c.any(C).go();\n    c.opaque().go();\n    x.out().go();\n    c.maybe::<C>().unwrap().go();\n}\n";
        let unknown = |line: u32, what: &str| format!("{line} ? the type of `{what}` is not known");
        assert_eq!(
            resolve(text, "go"),
            [
                "7 = rust:C::go".to_string(),
                unknown(13, "c.any(C)"),
                unknown(14, "c.opaque()"),
                unknown(15, "x.out()"),
                unknown(16, "c.maybe::<C>().unwrap()"),
            ]
        );
    }

    #[test]
    fn a_shadowing_pattern_and_a_let_that_reads_its_own_name_are_not_the_typed_local() {
        // `let (c, _) = …` shadows the typed `c` (with a `u8`, whose `go` is the library's);
        // `let c = c.other()` reads the outer `c`.
        let text = "struct C;\nstruct D;\nimpl C {\n    fn go(&self) {}\n    fn other(&self) -> D { D }\n}\nimpl D {\n    fn go(&self) {}\n}\nfn f(c: C, p: (u8, u8)) {\n    let c = c.other();\n    c.go();\n    let (c, _) = p;\n    c.go();\n}\n";
        assert_eq!(
            resolve(text, "go"),
            [
                "4 = rust:C::go",
                "8 = rust:D::go",
                "12 = rust:D::go",
                "14 outside: `u8` is not a type of the walked files: its `go` is outside the tree",
            ]
        );
    }

    #[test]
    fn a_chain_among_a_macros_tokens_and_a_turbofish_call_are_typed() {
        // log's `assert_eq!(Level::Trace, level.up().up())`; either's `left.into::<u64>()`.
        let text = "#[derive(PartialEq, Debug)]\nenum Level {\n    Info,\n    Trace,\n}\nimpl Level {\n    fn up(&self) -> Level { Level::Trace }\n    fn cast<U>(&self) -> u8 { 0 }\n}\nfn f() {\n    let level = Level::Info;\n    assert_eq!(Level::Trace, level.up().up());\n    assert_eq!(level.cast::<u64>(), 0);\n    level.cast::<u64>();\n}\n";
        assert_eq!(
            resolve(text, "up"),
            [
                "7 = rust:Level::up",
                "12 = rust:Level::up",
                "12 = rust:Level::up"
            ]
        );
        assert_eq!(
            resolve(text, "cast"),
            [
                "8 = rust:Level::cast",
                "13 = rust:Level::cast",
                "14 = rust:Level::cast"
            ]
        );
    }

    #[test]
    fn a_library_traits_function_gives_no_known_type() {
        // `Default::default()` is whatever the context wants; `Self::from_str(s)` is what
        // `FromStr` declares (a `Result`), not a `C`.
        let text = "struct C;\nimpl C {\n    fn go(&self) {}\n}\nimpl std::str::FromStr for C {\n    type Err = ();\n    fn from_str(s: &str) -> Result<Self, ()> {\n        Self::from_str(s).go();\n        Ok(C)\n    }\n}\nfn f() {\n    let d = Default::default();\n    d.go();\n    let v = Vec::new();\n    v.go();\n}\n";
        assert_eq!(
            resolve(text, "go"),
            [
                "3 = rust:C::go",
                "8 ? the type of `Self::from_str(s)` is not known",
                "14 ? the type of `d` is not known",
                "16 outside: `Vec` is not a type of the walked files: its `go` is outside the tree",
            ]
        );
    }

    #[test]
    fn a_literals_member_is_its_library_types() {
        // semver's `"1.0.0".parse().unwrap()` beside `Version::parse`: `str::parse`.
        let text = "struct V;\nimpl V {\n    fn parse(s: &str) -> V { V }\n}\nfn f() {\n    let v: V = \"1.0\".parse().unwrap();\n    let w = vec![\"1.0\".parse::<V>()];\n    V::parse(\"1\");\n}\n";
        let outside =
            "outside: `str` is not a type of the walked files: its `parse` is outside the tree";
        assert_eq!(
            resolve(text, "parse"),
            [
                "3 = rust:V::parse".to_string(),
                format!("6 {outside}"),
                format!("7 {outside}"),
                "8 = rust:V::parse".to_string(),
            ]
        );
    }

    #[test]
    fn a_tuple_structs_field_is_typed_by_its_place() {
        // log's `struct Logger(Arc<State>)` and `self.0.last_log_level`.
        let text = "use std::sync::Arc;\nstruct State {\n    last: u8,\n}\nstruct Logger(u8, Arc<State>);\nimpl Logger {\n    fn f(&self) -> u8 {\n        self.1.last\n    }\n}\n";
        assert_eq!(
            resolve(text, "last"),
            ["3 = rust:State.last", "8 = rust:State.last"]
        );
    }

    #[test]
    fn an_impl_trait_parameter_reaches_its_bounds_methods() {
        let text =
            "trait Log {\n    fn write(&self);\n}\nfn g(l: &impl Log) {\n    l.write();\n}\n";
        assert_eq!(
            resolve(text, "write"),
            ["2 = rust:Log::write", "5 = rust:Log::write"]
        );
    }

    #[test]
    fn a_binding_in_a_tuple_or_some_ok_pattern_is_typed_by_its_part() {
        // semver's parser: `let (pre, text) = prerelease_identifier(text)?;`, `if let
        // Some((ch, mut rest)) = wildcard(input)`, `&(target, module_path, loc): &(…)`, and a
        // `match` whose other arm returns.
        let text = "struct Pre;\nimpl Pre {\n    fn is_empty(&self) -> bool { true }\n}\nfn pre(input: &str) -> Result<(Pre, &str), ()> { Ok((Pre, input)) }\nfn wild(input: &str) -> Option<(char, &str)> { None }\nfn f(input: &str, &(p, s): &(Pre, &str)) -> Result<(), ()> {\n    let (head, text) = pre(input)?;\n    head.is_empty();\n    text.is_empty();\n    if let Some((ch, mut rest)) = wild(input) {\n        rest = rest.trim_start_matches(' ');\n        rest.is_empty();\n    }\n    p.is_empty();\n    s.is_empty();\n    let (q, t) = match pre(input) {\n        Ok(found) => found,\n        Err(e) => {\n            return Err(e);\n        }\n    };\n    q.is_empty();\n    t.is_empty();\n    Ok(())\n}\n";
        let outside =
            "outside: `str` is not a type of the walked files: its `is_empty` is outside the tree";
        assert_eq!(
            resolve(text, "is_empty"),
            [
                "3 = rust:Pre::is_empty".to_string(),
                "9 = rust:Pre::is_empty".to_string(),
                format!("10 {outside}"),
                format!("13 {outside}"),
                "15 = rust:Pre::is_empty".to_string(),
                format!("16 {outside}"),
                "23 = rust:Pre::is_empty".to_string(),
                format!("24 {outside}"),
            ]
        );
    }

    #[test]
    fn a_pattern_of_another_shape_or_a_branch_of_another_type_stays_undecided() {
        // A closure's untyped parameter, a struct pattern, `..` in a tuple, `if` branches of
        // two types, and `str`'s method when a type of the tree defines one of that name.
        let text = "struct Pre;\nstruct P { pre: Pre }\nimpl Pre {\n    fn is_empty(&self) -> bool { true }\n    fn trim(&self) -> Pre { Pre }\n}\nfn f(x: (Pre, u8, &str), p: P, s: &str, c: bool) {\n    let g = |y| y.is_empty();\n    let P { pre } = p;\n    pre.is_empty();\n    let (.., z) = x;\n    z.is_empty();\n    let w = if c { s } else { \"\" };\n    w.is_empty();\n    let v = if c { Pre } else { p.pre };\n    v.is_empty();\n    s.trim().is_empty();\n}\n";
        let unknown = |line: u32, what: &str| format!("{line} ? the type of `{what}` is not known");
        assert_eq!(
            resolve(text, "is_empty"),
            [
                "4 = rust:Pre::is_empty".to_string(),
                unknown(8, "y"),
                unknown(10, "pre"),
                unknown(12, "z"),
                "14 outside: `str` is not a type of the walked files: its `is_empty` is outside the tree".to_string(),
                unknown(16, "v"),
                unknown(17, "s.trim()"),
            ]
        );
    }

    #[test]
    fn a_dereferenced_self_and_a_pointers_as_ref_reach_the_held_types_bounds() {
        // log's `impl<T> Log for &'_ T` (`(**self).flush()`) and `impl<T> Log for Box<T>`
        // (`self.as_ref().flush()`); a type of the tree may deref to anything: `*w` stays open.
        let text = "trait Log {\n    fn flush(&self);\n}\nstruct W;\nimpl<T> Log for &'_ T\nwhere\n    T: ?Sized + Log,\n{\n    fn flush(&self) {\n        (**self).flush();\n    }\n}\nimpl<T> Log for Box<T>\nwhere\n    T: ?Sized + Log,\n{\n    fn flush(&self) {\n        self.as_ref().flush();\n    }\n}\nfn f(w: W, b: &Box<dyn Log>) {\n    (*w).flush();\n    b.as_ref().flush();\n    (**b).flush();\n}\n";
        assert_eq!(
            resolve(text, "flush"),
            [
                "2 = rust:Log::flush",
                "9 = rust:Log::flush",
                "10 = rust:Log::flush",
                "17 = rust:Log::flush",
                "18 = rust:Log::flush",
                "22 ? the type of `(*w)` is not known",
                "23 = rust:Log::flush",
                "24 = rust:Log::flush",
            ]
        );
    }

    #[test]
    fn a_field_of_a_type_declared_in_a_file_without_old_is_typed_from_that_file() {
        // semver's `self.identifier.ptr_eq(..)` in impls.rs, `Prerelease` declared in lib.rs;
        // a name two files declare, or an enum, gives no field type.
        let ids = "pub struct Identifier;\nimpl Identifier {\n    pub fn ptr_eq(&self) -> bool { true }\n}\n";
        let impls = "impl Prerelease {\n    fn f(&self) -> bool {\n        self.identifier.ptr_eq()\n    }\n}\nimpl Build {\n    fn f(&self) -> bool {\n        self.identifier.ptr_eq()\n    }\n}\n";
        let lib = "pub struct Prerelease {\n    identifier: Identifier,\n}\npub struct Build {\n    identifier: Identifier,\n}\n";
        let other = "pub enum Build {\n    A,\n}\n";
        let fixture = Fixture::new(
            &[
                ("ids.rs", ids),
                ("impls.rs", impls),
                ("lib.rs", lib),
                ("other.rs", other),
            ],
            &["ids.rs", "impls.rs"],
        );
        let sources = fixture.sources();
        assert_eq!(
            fixture.resolve(&RustProject::new(&sources), "impls.rs", "ptr_eq"),
            [
                "3 = rust:Identifier::ptr_eq",
                "8 ? the type of `self.identifier` is not known"
            ]
        );
    }

    #[test]
    fn an_element_of_an_array_a_slice_or_a_vec_is_typed_and_a_tree_types_index_is_not() {
        // either's doctest: `let values = [Left(1), Right(2)]; assert_eq!(values[0].is_left(),
        // true)`; a type of the tree may implement `Index` to anything.
        let text = "enum E {\n    L(u8),\n    R(u8),\n}\nimpl E {\n    fn is_l(&self) -> bool { true }\n}\nstruct Table;\nfn f(v: Vec<E>, s: &[E], t: Table, i: usize) {\n    let values = [E::L(1), E::R(2)];\n    assert_eq!(values[0].is_l(), true);\n    values[1].is_l();\n    v[0].is_l();\n    s[0].is_l();\n    t[0].is_l();\n    values[i].is_l();\n    let mixed = [E::L(1), Table];\n    mixed[0].is_l();\n}\n";
        let unknown = |line: u32, what: &str| format!("{line} ? the type of `{what}` is not known");
        assert_eq!(
            resolve(text, "is_l"),
            [
                "6 = rust:E::is_l".to_string(),
                "11 = rust:E::is_l".to_string(),
                "12 = rust:E::is_l".to_string(),
                "13 = rust:E::is_l".to_string(),
                "14 = rust:E::is_l".to_string(),
                unknown(15, "t[0]"),
                unknown(16, "values[i]"),
                unknown(18, "mixed[0]"),
            ]
        );
    }
}
