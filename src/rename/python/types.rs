//! The classes values have where the code says so without a type checker, so that
//! `make().close()`, `self.session.close()` and `p.conn.close()` resolve where they were
//! undecided: what a function of the tree returns (its annotation, `Optional[C]` and `C | None`
//! included; else every `return` giving one class: `return C(…)`, `return self`, a call of
//! another such function), a `@property`'s value, an attribute's class (annotated in the class
//! body or on `self`, or every assignment of it in the class giving one class), and the
//! builtin a literal is (`{}`, `[]`, `""`: outside the tree).
//!
//! Each rule is all or nothing: one value it cannot tell (an unannotated parameter, a
//! decorator that may wrap the function, a generator, a coroutine, two classes) leaves the
//! whole value unknown, and the site stays undecided rather than guessed.

use super::members::{
    decorated_as, find_class, find_function, method_receiver, receives_class, self_attribute_binds,
};
use super::{MAX_DEPTH, PyModule, PyProject, Target, text};
use crate::rename::model::{Resolution, SymbolId};
use tree_sitter::Node;

/// The nodes whose `return` and `yield` are not the enclosing function's own.
const NESTED: &[&str] = &["function_definition", "lambda", "class_definition"];

/// Decorators that leave what calling a method returns as its body says.
const TRANSPARENT: &[&str] = &["staticmethod", "classmethod"];

/// The class a call's receiver has (`obj` in `obj.make()`): what `return self` and
/// `return cls(…)` give back (a subclass's instance calls the inherited method).
pub(super) type Receiver = Option<(String, String)>;

/// What one `return` value or assignment gives.
pub(super) enum Value {
    /// An instance of a class of the tree (its file and qualified name).
    Instance(String, String),
    /// A builtin value (a literal): outside the tree.
    Builtin(&'static str),
    /// `None`, or a bare `return`.
    None,
}

impl PyProject<'_> {
    /// What calling function (or method) `qual` of `file` returns, when the code says so:
    /// an instance of a class of the tree, else unknown. `receiver` is the class of the
    /// object a method is called through (for `return self`).
    pub(super) fn returns(
        &self,
        file: &str,
        qual: &str,
        receiver: Receiver,
        depth: usize,
    ) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("too deep".into());
        }
        let Some(m) = self.module(file) else {
            return Target::Unknown(format!("{file} cannot be read"));
        };
        let Some(function) = find_function(&m, qual) else {
            return Target::Unknown(format!("function {qual} is not found in {file}"));
        };
        let unknown =
            |why: &str| Target::Unknown(format!("what {qual} returns is not known: {why}"));
        if function.child(0).is_some_and(|c| c.kind() == "async") {
            return unknown("it is a coroutine");
        }
        if let Some(decorator) = wrapping_decorator(function, &m) {
            return unknown(&format!("its decorator `{decorator}` may change it"));
        }
        let receiver = receiver.or_else(|| {
            enclosing_class_of(function).map(|c| (file.to_string(), super::qual_of(c, &m)))
        });
        if let Some(annotation) = function.child_by_field_name("return_type") {
            if matches!(text(annotation, &m).trim_matches(['"', '\'']), "Self")
                && let Some((file, qual)) = receiver
            {
                return Target::Instance(file, qual, None);
            }
            return match self.annotated(&m, annotation, depth + 1) {
                instance @ Target::Instance(..) => instance,
                _ => unknown(&format!(
                    "its annotation `{}` is no class of the tree",
                    text(annotation, &m)
                )),
            };
        }
        let Some(body) = function.child_by_field_name("body") else {
            return unknown("it has no body");
        };
        let mut values = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "return_statement" => values.push(n.named_child(0)),
                "yield" => return unknown("it is a generator"),
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| !NESTED.contains(&c.kind())),
            );
        }
        let values = values
            .into_iter()
            .map(|v| self.value(&m, v, &receiver, depth + 1));
        as_target(one_class(values), unknown)
    }

    /// What one value gives: `None`, a literal's builtin, `self` / `cls(…)` of a method (an
    /// instance of the receiver's class), or an instance the expression rules find.
    pub(super) fn value(
        &self,
        m: &PyModule,
        value: Option<Node>,
        receiver: &Receiver,
        depth: usize,
    ) -> Result<Value, String> {
        let Some(value) = value else {
            return Ok(Value::None);
        };
        if value.kind() == "none" {
            return Ok(Value::None);
        }
        if let Some(builtin) = literal(value) {
            return Ok(Value::Builtin(builtin));
        }
        let own = |ident: Node| ident.kind() == "identifier" && method_receiver(ident, m).is_some();
        // `return self` (not `cls`), `return cls(…)`: the receiver's class.
        let receiver_instance = (own(value) && !receives_class(value, m))
            || (value.kind() == "call"
                && value
                    .child_by_field_name("function")
                    .is_some_and(|f| own(f) && receives_class(f, m)));
        if receiver_instance && let Some((file, qual)) = receiver {
            return Ok(Value::Instance(file.clone(), qual.clone()));
        }
        match self.expression(m, value, depth) {
            Target::Instance(file, qual, _) => Ok(Value::Instance(file, qual)),
            _ => Err(format!("`{}` is of no known class", text(value, m))),
        }
    }

    /// The class an annotation names, as an instance: `C`, `mod.C`, `"C"`, `Optional[C]`,
    /// `C | None`; unknown for anything else (a builtin, a generic, a union of classes).
    pub(super) fn annotated(&self, m: &PyModule, annotation: Node, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("too deep".into());
        }
        let unknown = || {
            Target::Unknown(format!(
                "the annotation `{}` is no class of the tree",
                text(annotation, m)
            ))
        };
        match annotation.kind() {
            "type" => match annotation.named_child(0) {
                Some(inner) if annotation.named_child_count() == 1 => {
                    self.annotated(m, inner, depth + 1)
                }
                _ => unknown(),
            },
            "identifier" | "attribute" => match self.expression(m, annotation, depth + 1) {
                Target::Class(file, qual) => Target::Instance(file, qual, None),
                _ => unknown(),
            },
            // `"C"`: a forward reference, looked up where the annotation is.
            "string" => {
                let content = text(annotation, m).trim_matches(['"', '\'']);
                let plain =
                    !content.is_empty() && content.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !plain {
                    return unknown();
                }
                match self.lookup(m, annotation, content, false, depth + 1) {
                    Target::Class(file, qual) => Target::Instance(file, qual, None),
                    _ => unknown(),
                }
            }
            // `Optional[C]`: C, when there is a value.
            "generic_type" | "subscript" => {
                let head = annotation.named_child(0);
                let optional = head.is_some_and(|h| {
                    matches!(text(h, m), "Optional" | "typing.Optional" | "t.Optional")
                });
                let argument = annotation.named_child(1).map(|a| {
                    if a.kind() == "type_parameter" && a.named_child_count() == 1 {
                        a.named_child(0).unwrap_or(a)
                    } else {
                        a
                    }
                });
                match argument {
                    Some(a) if optional && annotation.named_child_count() == 2 => {
                        self.annotated(m, a, depth + 1)
                    }
                    _ => unknown(),
                }
            }
            // `C | None` (either order): C, when there is a value.
            "binary_operator" => {
                let (Some(left), Some(right)) = (
                    annotation.child_by_field_name("left"),
                    annotation.child_by_field_name("right"),
                ) else {
                    return unknown();
                };
                let is_none = |n: Node| n.kind() == "none" || text(n, m) == "None";
                if !text(annotation, m).contains('|') {
                    return unknown();
                }
                match (is_none(left), is_none(right)) {
                    (false, true) => self.annotated(m, left, depth + 1),
                    (true, false) => self.annotated(m, right, depth + 1),
                    _ => unknown(),
                }
            }
            _ => unknown(),
        }
    }

    /// What `attr` of a value of class `qual` of `file` is: a method (its own or a base's) as
    /// the function it is, a property's value or an attribute's class as an instance; unknown
    /// when the code does not say.
    pub(super) fn member_value(&self, file: &str, qual: &str, attr: &str, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("too deep".into());
        }
        let unknown = || Target::Unknown(format!("the value of `{attr}` of {qual} is not known"));
        let Resolution::Symbol(SymbolId::Python {
            module: owner,
            qual: member,
        }) = self.class_member(file, qual, attr, depth + 1)
        else {
            return unknown();
        };
        let Some((class, _)) = member.rsplit_once('.') else {
            return unknown();
        };
        let Some(m) = self.module(&owner) else {
            return unknown();
        };
        let Some(class_node) = find_class(&m, class) else {
            return unknown();
        };
        let functions = class_functions(&m, class_node, attr);
        let getters: Vec<Node> = functions
            .iter()
            .copied()
            .filter(|f| is_property(*f, &m))
            .collect();
        match (functions.as_slice(), getters.as_slice()) {
            ([], _) => self.attribute(&m, class_node, attr, depth + 1),
            (_, [getter]) => {
                // A property: its getter's value, looked up as the function it is.
                if find_function(&m, &member).is_some_and(|f| f.id() == getter.id()) {
                    self.returns(&owner, &member, Some((file.into(), qual.into())), depth + 1)
                } else {
                    unknown()
                }
            }
            ([_], []) => Target::Function(owner, member),
            _ => unknown(),
        }
    }

    /// The class of data attribute `attr` of `class` (a class of `m`): its annotation in the
    /// class body (`attr: C`) or on `self` (`self.attr: C = …`), else every assignment of it
    /// (in the class body, and to `self.attr` in its methods) giving one class (`None` aside).
    fn attribute(&self, m: &PyModule, class: Node, attr: &str, depth: usize) -> Target {
        let qual = super::qual_of(class, m);
        let unknown = || Target::Unknown(format!("the class of `{attr}` of {qual} is not known"));
        let Some(body) = class.child_by_field_name("body") else {
            return unknown();
        };
        let mut assignments = Vec::new();
        let mut cursor = body.walk();
        for item in body.named_children(&mut cursor) {
            let item = match item.kind() {
                "decorated_definition" => match item.child_by_field_name("definition") {
                    Some(d) => d,
                    None => continue,
                },
                _ => item,
            };
            match item.kind() {
                "function_definition" => self_assignments(m, item, attr, &mut assignments),
                "expression_statement" => {
                    let mut c = item.walk();
                    for a in item.named_children(&mut c) {
                        if a.kind() == "assignment"
                            && a.child_by_field_name("left")
                                .is_some_and(|l| l.kind() == "identifier" && text(l, m) == attr)
                        {
                            assignments.push(a);
                        }
                    }
                }
                _ => {}
            }
        }
        let annotations: Vec<Node> = assignments
            .iter()
            .filter_map(|a| a.child_by_field_name("type"))
            .collect();
        if let [annotation, rest @ ..] = annotations.as_slice() {
            let same = rest.iter().all(|r| text(*r, m) == text(*annotation, m));
            return match self.annotated(m, *annotation, depth + 1) {
                instance @ Target::Instance(..) if same => instance,
                _ => unknown(),
            };
        }
        // `self.x += …`, `self.x, self.y = …`: no one value of its own.
        let plain = |a: &Node| {
            a.kind() == "assignment"
                && a.child_by_field_name("left")
                    .is_some_and(|l| matches!(l.kind(), "attribute" | "identifier"))
        };
        if !assignments.iter().all(plain) {
            return unknown();
        }
        let receiver = Some((m.path.clone(), qual.clone()));
        let values = assignments
            .iter()
            .map(|a| self.value(m, a.child_by_field_name("right"), &receiver, depth + 1));
        as_target(one_class(values), |_| unknown())
    }
}

/// The one class every value gives, `None` values aside: an instance of a class of the tree,
/// one builtin (every value a literal of it), or nothing to tell; an error for two classes or
/// a class and a builtin.
pub(super) fn one_class(
    values: impl Iterator<Item = Result<Value, String>>,
) -> Result<Value, String> {
    let mut found = Value::None;
    for value in values {
        found = match (found, value?) {
            (found, Value::None) => found,
            (Value::None, value) => value,
            (Value::Instance(f, q), Value::Instance(g, r)) if (&f, &q) == (&g, &r) => {
                Value::Instance(f, q)
            }
            (Value::Builtin(a), Value::Builtin(b)) if a == b => Value::Builtin(a),
            _ => return Err("values of several classes".into()),
        };
    }
    Ok(found)
}

/// A value's class as a target: an instance, a builtin (outside the tree), or unknown.
fn as_target(value: Result<Value, String>, unknown: impl FnOnce(&str) -> Target) -> Target {
    match value {
        Ok(Value::Instance(file, qual)) => Target::Instance(file, qual, None),
        Ok(Value::Builtin(builtin)) => Target::Outside(format!("a builtin {builtin}")),
        Ok(Value::None) => unknown("no value tells its class"),
        Err(why) => unknown(&why),
    }
}

/// The builtin a literal is (`{}` a dict, `"x"` a str…), else `None`.
pub(super) fn literal(value: Node) -> Option<&'static str> {
    Some(match value.kind() {
        "dictionary" | "dictionary_comprehension" => "dict",
        "list" | "list_comprehension" => "list",
        "set" | "set_comprehension" => "set",
        "tuple" => "tuple",
        "string" | "concatenated_string" => "str",
        "integer" => "int",
        "float" => "float",
        "true" | "false" => "bool",
        _ => return None,
    })
}

/// A decorator of `function` that may wrap it (anything but `staticmethod`, `classmethod`,
/// `property` and `cached_property`): its text.
fn wrapping_decorator<'t>(function: Node, m: &'t PyModule) -> Option<&'t str> {
    let holder = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut cursor = holder.walk();
    let found = holder
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .find(|d| {
            let name = text(*d, m).trim_start_matches('@').trim();
            !TRANSPARENT.contains(&name)
                && !matches!(
                    name,
                    "property" | "functools.cached_property" | "cached_property"
                )
        });
    found.map(|d| text(d, m))
}

/// Whether a method is a property's getter (`@property`, `@cached_property`).
fn is_property(function: Node, m: &PyModule) -> bool {
    decorated_as(function, "property", &m.text)
        || decorated_as(function, "cached_property", &m.text)
}

/// The class around a function defined in a class body (a method), if it is one.
fn enclosing_class_of(function: Node) -> Option<Node> {
    let mut holder = function.parent()?;
    if holder.kind() == "decorated_definition" {
        holder = holder.parent()?;
    }
    holder.parent().filter(|c| c.kind() == "class_definition")
}

/// The functions named `name` defined in a class body (getter and setter of a property,
/// overloads, definitions under `if`): each.
fn class_functions<'t>(m: &PyModule, class: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let Some(body) = class.child_by_field_name("body") else {
        return out;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            let def = match child.kind() {
                "decorated_definition" => child.child_by_field_name("definition"),
                _ => Some(child),
            };
            match def {
                Some(d)
                    if d.kind() == "function_definition"
                        && d.child_by_field_name("name")
                            .is_some_and(|n| text(n, m) == name) =>
                {
                    out.push(d);
                }
                Some(d)
                    if matches!(
                        d.kind(),
                        "if_statement"
                            | "try_statement"
                            | "else_clause"
                            | "elif_clause"
                            | "except_clause"
                            | "finally_clause"
                            | "block"
                            | "with_statement"
                    ) =>
                {
                    stack.push(d)
                }
                _ => {}
            }
        }
    }
    out
}

/// `self.attr = value` and `self.attr: C = value` in a method (not in a function nested in
/// it), and `self.attr += …` (which makes the class unknown): each assignment.
fn self_assignments<'t>(m: &PyModule, method: Node<'t>, attr: &str, out: &mut Vec<Node<'t>>) {
    let Some(body) = method.child_by_field_name("body") else {
        return;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "assignment" | "augmented_assignment")
            && let Some(left) = n.child_by_field_name("left")
            && self_attribute_binds(left, m, attr)
        {
            out.push(n);
        }
        let mut cursor = n.walk();
        stack.extend(
            n.named_children(&mut cursor)
                .filter(|c| !NESTED.contains(&c.kind())),
        );
    }
}
