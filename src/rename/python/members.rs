//! Members: `object.name` looked up in a class of the tree (its methods, class attributes and
//! `self.x = …` in its methods), then its bases; `super().name`. A keyword argument's parameter
//! is `keywords.rs`'s.

use super::scopes::{binding_id, bindings_in, qual_of, scope_of};
use super::{
    MAX_DEPTH, PyModule, PyProject, Target, python_id, remembered, target_symbol, text,
    unknown_type,
};
use crate::rename::model::{Resolution, SymbolId};
use crate::rename::words::whole_word_offsets;
use tree_sitter::Node;

/// When `ident` is the first parameter of the method around it (not a staticmethod), the
/// class it stands for.
pub(super) fn method_receiver<'t>(ident: Node<'t>, module: &'t PyModule) -> Option<Node<'t>> {
    let name = text(ident, module);
    let mut at = ident;
    let function = loop {
        let scope = scope_of(at, module)?;
        if scope.kind() == "function_definition" {
            break scope;
        }
        if scope.kind() == "class_definition" {
            return None;
        }
        at = scope;
    };
    let holder = function.parent()?;
    let (block, decorated) = if holder.kind() == "decorated_definition" {
        (holder.parent()?, Some(holder))
    } else {
        (holder, None)
    };
    let class = block.parent()?;
    if class.kind() != "class_definition" {
        return None;
    }
    if let Some(d) = decorated {
        let t = text(d, module);
        if t.contains("@staticmethod") {
            return None;
        }
    }
    let params = function.child_by_field_name("parameters")?;
    let first = params.named_child(0)?;
    let first = match first.kind() {
        "identifier" => first,
        "typed_parameter" => first.named_child(0)?,
        _ => return None,
    };
    // The method's own scope, not a lambda's or comprehension's inside it: `at` is still
    // `ident` when the first scope around it was the method.
    (text(first, module) == name && at.id() == ident.id()).then_some(class)
}

/// Whether a method's receiver (see [`method_receiver`]) is the class itself: the first
/// parameter of a `@classmethod` (or of `__new__`, `__init_subclass__` and
/// `__class_getitem__`, which Python makes class methods).
pub(super) fn receives_class(ident: Node, module: &PyModule) -> bool {
    let mut at = ident;
    let function = loop {
        match scope_of(at, module) {
            Some(scope) if scope.kind() == "function_definition" => break scope,
            Some(scope) => at = scope,
            None => return false,
        }
    };
    decorated_as(function, "classmethod", &module.text)
        || function.child_by_field_name("name").is_some_and(|n| {
            matches!(
                text(n, module),
                "__new__" | "__init_subclass__" | "__class_getitem__"
            )
        })
}

/// Whether `object` is a method's receiver (`self`, `cls`) or an instance made by calling it
/// (`cls()`): its class or any subclass of it, so a member its class lacks may be a subclass's.
pub(super) fn open_receiver(object: Node, module: &PyModule) -> bool {
    let callee = match object.kind() {
        "call" => object.child_by_field_name("function"),
        _ => Some(object),
    };
    callee.is_some_and(|c| c.kind() == "identifier" && method_receiver(c, module).is_some())
}

/// What a class hierarchy of the tree makes of a member none of its classes defines.
#[derive(Clone)]
pub(super) enum Lacks {
    /// No class of it defines the member, and no base outside the tree may.
    Everywhere,
    /// No class of the tree defines it; this base outside the tree (its text) may.
    Outside(String),
    /// Not certain: a base not resolved, a dynamic `__getattr__`, a class not found.
    NotCertain,
}

/// Whether a function definition of `source` carries the decorator `@name` or `@x.name`.
pub(crate) fn decorated_as(function: Node, name: &str, source: &str) -> bool {
    let Some(holder) = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return false;
    };
    let mut cursor = holder.walk();
    holder
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .any(|e| {
            let last = match e.kind() {
                "attribute" => e.child_by_field_name("attribute"),
                "identifier" => Some(e),
                _ => None,
            };
            last.is_some_and(|l| &source[l.byte_range()] == name)
        })
}

pub(super) fn enclosing_class(node: Node) -> Option<Node> {
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "class_definition" {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

/// The class definition with this qualified name (`Outer.Inner`, `f::Local`) in a module.
pub(super) fn find_class<'t>(m: &'t PyModule, qual: &str) -> Option<Node<'t>> {
    // A class local to a function (`test_x::CustomFlask`) is looked for in its body.
    find_def(m, &qual.replace("::", "."), "class_definition")
}

/// How many bases deep a class's generated `__init__` is looked for.
const MAX_BASES: usize = 8;

/// The decorators and bases that give a class an `__init__` taking its fields by name.
const FIELDS_INIT: [&str; 14] = [
    "dataclass",
    "dataclasses.dataclass",
    "attr.s",
    "attrs.define",
    "attrs.frozen",
    "define",
    "frozen",
    "NamedTuple",
    "typing.NamedTuple",
    "TypedDict",
    "typing.TypedDict",
    "typing_extensions.TypedDict",
    "BaseModel",
    "pydantic.BaseModel",
];

/// Whether the class definition `class` gets its `__init__` from its fields: decorated as a
/// dataclass or an attrs class, or a `NamedTuple`, a `TypedDict` or a pydantic model.
pub(super) fn fields_make_init(class: Node, m: &PyModule) -> bool {
    let named = |n: Node| {
        let spelled = text(n, m);
        let head = spelled.split('(').next().unwrap_or(spelled).trim();
        FIELDS_INIT.contains(&head.trim_start_matches('@').trim())
    };
    let decorated = class.parent().is_some_and(|d| {
        d.kind() == "decorated_definition"
            && d.named_children(&mut d.walk())
                .filter(|c| c.kind() == "decorator")
                .any(named)
    });
    let based = class
        .child_by_field_name("superclasses")
        .is_some_and(|bases| bases.named_children(&mut bases.walk()).any(named));
    decorated || based
}

/// The function definition with this qualified name (`Class.method`, `f::inner`) in a module.
pub(super) fn find_function<'t>(m: &'t PyModule, qual: &str) -> Option<Node<'t>> {
    let qual = qual.replace("::", ".");
    find_def(m, &qual, "function_definition")
}

fn find_def<'t>(m: &'t PyModule, qual: &str, kind: &str) -> Option<Node<'t>> {
    let mut scope = m.tree.root_node();
    let parts: Vec<&str> = qual.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let body = if i == 0 {
            scope
        } else {
            scope.child_by_field_name("body")?
        };
        let mut found = None;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            let mut cursor = n.walk();
            for child in n.named_children(&mut cursor) {
                let def = if child.kind() == "decorated_definition" {
                    child.child_by_field_name("definition")
                } else {
                    Some(child)
                };
                match def {
                    Some(d)
                        if matches!(d.kind(), "class_definition" | "function_definition")
                            && d.child_by_field_name("name")
                                .is_some_and(|nm| text(nm, m) == *part)
                            && (!last || d.kind() == kind) =>
                    {
                        found = Some(d);
                    }
                    // Definitions under if/try/with at this level still belong to it.
                    Some(d)
                        if matches!(
                            d.kind(),
                            "if_statement"
                                | "try_statement"
                                | "with_statement"
                                | "else_clause"
                                | "elif_clause"
                                | "except_clause"
                                | "finally_clause"
                                | "block"
                        ) =>
                    {
                        stack.push(d)
                    }
                    _ => {}
                }
            }
        }
        scope = found?;
    }
    Some(scope)
}

/// Whether class `class` defines member `name`: a method, a class attribute, or `self.name = …`
/// in one of its methods.
fn defines_member(m: &PyModule, class: Node, name: &str) -> bool {
    if !bindings_in(m, Some(class), name).is_empty() {
        return true;
    }
    let Some(body) = class.child_by_field_name("body") else {
        return false;
    };
    if !may_assign_attribute(text(body, m), name) {
        return false;
    }
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "class_definition" => {}
                "assignment" | "augmented_assignment" => {
                    if let Some(left) = child.child_by_field_name("left")
                        && self_attribute_binds(left, m, name)
                    {
                        return true;
                    }
                    stack.push(child);
                }
                _ => stack.push(child),
            }
        }
    }
    false
}

/// Whether some whole-word `name` in `code` is followed by what can follow an assignment's
/// target (`=` but not `==`, an augmented operator, `,` `)` `]` of a tuple or list of targets,
/// `:` of an annotation, `\` or `#` before the rest on a later line): without one, no
/// `self.name = …` needs looking for. A class body of a test suite calls
/// `self.assertEqual(…)` thousands of times and assigns it nowhere.
fn may_assign_attribute(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    whole_word_offsets(bytes, name).into_iter().any(|at| {
        let end = at + name.len();
        let rest = &bytes[end..];
        let Some(next) = rest.iter().position(|b| !matches!(b, b' ' | b'\t')) else {
            return false;
        };
        match rest[next] {
            b'=' => rest.get(next + 1) != Some(&b'='),
            b',' | b')' | b']' | b':' | b'\\' | b'#' => true,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'@' => true,
            _ => false,
        }
    })
}

/// Whether a target is `<first parameter>.name` (or a tuple of targets holding one): an
/// attribute a method binds, for the member scan and for attribute types.
pub(super) fn self_attribute_binds(target: Node, m: &PyModule, name: &str) -> bool {
    match target.kind() {
        "attribute" => {
            target
                .child_by_field_name("attribute")
                .is_some_and(|a| text(a, m) == name)
                && target
                    .child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "identifier" && method_receiver(o, m).is_some())
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
            let mut cursor = target.walk();
            target
                .named_children(&mut cursor)
                .any(|c| self_attribute_binds(c, m, name))
        }
        _ => false,
    }
}

/// What a method is called through, as a signature change needs it: the class itself
/// (`Class.method(obj, …)`: the receiver is the first argument), an instance or `super()`
/// (`obj.method(…)`: the call supplies it), a module (`module.function(…)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// The class object.
    Class,
    /// An instance, `self`, or `super()`.
    Instance,
    /// A module of the tree.
    Module,
    /// Something lancet cannot tell.
    Unknown,
}

impl PyProject<'_> {
    /// What `object` in `object.name(…)` stands for.
    pub(crate) fn receiver(&self, module: &PyModule, object: Node) -> Receiver {
        match self.expression(module, object, 0) {
            Target::Class(..) => Receiver::Class,
            Target::Instance(..) | Target::Super(_) => Receiver::Instance,
            Target::Module(_) => Receiver::Module,
            _ => Receiver::Unknown,
        }
    }

    /// `object.name`.
    pub(super) fn member(&self, module: &PyModule, object: Node, name: &str) -> Resolution {
        let receiver = self.expression(module, object, 0);
        match receiver {
            Target::Class(file, qual) => self.class_member(&file, &qual, name, 0),
            Target::Instance(file, qual, _) => {
                let found = self.instance_member(&file, &qual, name);
                match found {
                    // `self.name` its class lacks: a subclass's.
                    Resolution::Unresolved(_)
                        if open_receiver(object, module)
                            && matches!(
                                self.hierarchy_lacks(&file, &qual, name, 0),
                                Lacks::Everywhere
                            ) =>
                    {
                        self.subclasses_member(&file, &qual, name)
                            .map_or(found, Resolution::Symbol)
                    }
                    found => found,
                }
            }
            Target::Classes(_, variable, classes) => self.member_of_each(&variable, &classes, name),
            Target::Module(file) => match self.module(&file) {
                Some(m) => {
                    let bound = self.bindings(&m, None, name);
                    if bound.is_empty() {
                        Resolution::Unresolved(format!("{file} does not bind `{name}`"))
                    } else {
                        match self.bound_target(&m, None, name, &bound, false, 1) {
                            Target::Outside(why) => Resolution::Outside(why),
                            Target::Unknown(_) | Target::Module(_) | Target::Variable(..) => {
                                Resolution::Symbol(binding_id(&m, None, name))
                            }
                            t => target_symbol(t),
                        }
                    }
                }
                None => Resolution::Unresolved(format!("{file} cannot be read")),
            },
            Target::Outside(why) => Resolution::Outside(why),
            Target::Super(qual) => self.super_member(&module.path, &qual, name),
            Target::Unknown(why) => Resolution::Unresolved(why),
            Target::Variable(_, variable) => Resolution::Unresolved(unknown_type(&variable)),
            Target::Builtin(_, builtin) => {
                Resolution::Outside(format!("`{name}` of a builtin {builtin}"))
            }
            Target::Binding(_) | Target::Function(..) => Resolution::Unresolved(format!(
                "the type of `{}` is not known",
                text(object, module)
            )),
        }
    }

    /// Whether class `qual` of `file` (or a base of the tree) has an `__enter__` whose every
    /// `return` is `return self`.
    pub(super) fn enters_itself(&self, file: &str, qual: &str) -> bool {
        let Resolution::Symbol(SymbolId::Python { module: file, qual }) =
            self.class_member(file, qual, "__enter__", 0)
        else {
            return false;
        };
        let Some(m) = self.module(&file) else {
            return false;
        };
        let Some(function) = find_function(&m, &qual) else {
            return false;
        };
        let mut returns = Vec::new();
        let mut stack = vec![function];
        while let Some(n) = stack.pop() {
            if n.kind() == "return_statement" {
                returns.push(n);
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor).filter(|c| {
                !matches!(
                    c.kind(),
                    "function_definition" | "lambda" | "class_definition"
                )
            }));
        }
        !returns.is_empty()
            && returns
                .iter()
                .all(|r| r.named_child(0).is_some_and(|v| text(v, &m) == "self"))
    }

    /// Whether one member overrides the other: a class of one is a subclass of the other's
    /// and its bases' `name` is the other (each a member `Class.name` of the tree); or their
    /// classes have a subclass in common, whose lookup finds one of them.
    pub(super) fn overrides(&self, a: &SymbolId, b: &SymbolId) -> bool {
        let member = |id: &SymbolId| match id {
            SymbolId::Python { module, qual } if !qual.contains("::") => qual
                .rsplit_once('.')
                .map(|(class, name)| (module.clone(), class.to_string(), name.to_string())),
            _ => None,
        };
        let (Some((file_a, class_a, name_a)), Some((file_b, class_b, name_b))) =
            (member(a), member(b))
        else {
            return false;
        };
        if name_a != name_b {
            return false;
        }
        let inherits = |file: &str, class: &str, other: &SymbolId| {
            self.module(file).is_some_and(|m| {
                find_class(&m, class)
                    .is_some_and(|node| self.overridden(&m, node, &name_a).contains(other))
            })
        };
        inherits(&file_b, &class_b, a)
            || inherits(&file_a, &class_a, b)
            || self.share_a_subclass(&(file_a, class_a), &(file_b, class_b))
    }

    /// The members `name` of the tree that class `class` overrides: each base's (its own, or
    /// the first up its hierarchy), not only the first base's, which Python's lookup finds.
    /// With several bases (`class C(A, B)`) `C.name` overrides `B.name` too: code holding a
    /// `B` calls it, and a rename of `C.name` and `A.name` alone would stop that.
    fn overridden(&self, m: &PyModule, class: Node, name: &str) -> Vec<SymbolId> {
        let Some(bases) = class.child_by_field_name("superclasses") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut cursor = bases.walk();
        for base in bases.named_children(&mut cursor) {
            if base.kind() == "keyword_argument" {
                continue;
            }
            if let Target::Class(file, qual) = self.base_target(m, base, 1)
                && let Resolution::Symbol(id) = self.class_member(&file, &qual, name, 1)
            {
                found.push(id);
            }
        }
        found
    }

    /// `super().name` in class `qual` of `file`: the bases' member.
    fn super_member(&self, file: &str, qual: &str, name: &str) -> Resolution {
        let Some(m) = self.module(file) else {
            return Resolution::Unresolved(format!("{file} cannot be read"));
        };
        let Some(class) = find_class(&m, qual) else {
            return Resolution::Unresolved("the class is not found".into());
        };
        self.in_bases(&m, class, name, 0)
    }

    /// Member `name` of class `qual` in `file`: its own definition, else its bases'.
    /// Whether the class `qual` of `file` gets its `__init__` from its fields
    /// ([`fields_make_init`]), itself or through a base of the tree.
    pub(super) fn generates_init(&self, file: &str, qual: &str, depth: usize) -> bool {
        let Some(m) = self.module(file) else {
            return false;
        };
        let Some(class) = find_class(&m, qual) else {
            return false;
        };
        if fields_make_init(class, &m) {
            return true;
        }
        let Some(bases) = class.child_by_field_name("superclasses") else {
            return false;
        };
        depth < MAX_BASES
            && bases
                .named_children(&mut bases.walk())
                .filter(|b| b.kind() != "keyword_argument")
                .any(|base| match self.base_target(&m, base, depth + 1) {
                    Target::Class(file, qual) => self.generates_init(&file, &qual, depth + 1),
                    _ => false,
                })
    }

    /// A class of the tree up or down class `qual`'s hierarchy (its bases, its subclasses)
    /// that defines member `name`, with the line of its definition: renaming a member of
    /// `qual` to `name` would make one override the other, and the calls of either reach the
    /// other.
    pub(super) fn hierarchy_member(
        &self,
        file: &str,
        qual: &str,
        name: &str,
    ) -> Option<(String, usize, String)> {
        let up = match self.class_member(file, qual, name, 0) {
            Resolution::Symbol(SymbolId::Python { module, qual }) => qual
                .rsplit_once('.')
                .map(|(class, _)| (module, class.to_string())),
            _ => None,
        };
        let (class_file, class) = up.or_else(|| {
            let subclasses = self.subclasses(file, qual)?;
            subclasses.iter().find_map(|(sub_file, sub_qual)| {
                let m = self.module(sub_file)?;
                let node = find_class(&m, sub_qual)?;
                defines_member(&m, node, name).then(|| (sub_file.clone(), sub_qual.clone()))
            })
        })?;
        let m = self.module(&class_file)?;
        let line = find_class(&m, &class)?.start_position().row + 1;
        Some((class_file, line, class))
    }

    pub(super) fn class_member(
        &self,
        file: &str,
        qual: &str,
        name: &str,
        depth: usize,
    ) -> Resolution {
        let key = (file.to_string(), qual.to_string(), name.to_string());
        remembered(&self.members, key, || {
            self.class_member_uncached(file, qual, name, depth)
        })
    }

    fn class_member_uncached(
        &self,
        file: &str,
        qual: &str,
        name: &str,
        depth: usize,
    ) -> Resolution {
        if depth > MAX_DEPTH {
            return Resolution::Unresolved("a class hierarchy too deep to follow".into());
        }
        let Some(m) = self.module(file) else {
            return Resolution::Unresolved(format!("{file} cannot be read"));
        };
        let Some(class) = find_class(&m, qual) else {
            return Resolution::Unresolved(format!("class {qual} is not found in {file}"));
        };
        if defines_member(&m, class, name) {
            return Resolution::Symbol(python_id(file, format!("{qual}.{name}")));
        }
        self.in_bases(&m, class, name, depth)
    }

    fn in_bases(&self, m: &PyModule, class: Node, name: &str, depth: usize) -> Resolution {
        let qual = qual_of(class, m);
        let mut outside = None;
        if let Some(bases) = class.child_by_field_name("superclasses") {
            let mut cursor = bases.walk();
            for base in bases.named_children(&mut cursor) {
                if base.kind() == "keyword_argument" {
                    continue;
                }
                match self.base_target(m, base, depth + 1) {
                    Target::Class(file, base_qual) | Target::Instance(file, base_qual, _) => {
                        match self.class_member(&file, &base_qual, name, depth + 1) {
                            Resolution::Unresolved(why) if why.starts_with("not a member") => {}
                            Resolution::Unresolved(why) => {
                                outside.get_or_insert(why);
                            }
                            // A base before it that may define `name` comes first in
                            // Python's lookup.
                            found if outside.is_none() => return found,
                            _ => break,
                        }
                    }
                    // `object` defines nothing a rename could mean.
                    Target::Outside(_) if text(base, m) == "object" => {}
                    Target::Outside(_) => {
                        outside.get_or_insert(format!(
                            "`{name}` is not defined in class {qual} of the tree; its base `{}` (outside the tree) may define it",
                            text(base, m)
                        ));
                    }
                    _ => {
                        outside.get_or_insert(format!(
                            "`{name}` is not defined in class {qual}; its base `{}` is not resolved",
                            text(base, m)
                        ));
                    }
                }
            }
        }
        Resolution::Unresolved(
            outside.unwrap_or_else(|| {
                format!("not a member of class {qual} or its bases in the tree")
            }),
        )
    }

    /// Where member `name` of an instance of class `qual` of `file` (or of a subclass: `self`,
    /// `self.again()`) comes from when no class of the tree in its hierarchy defines it, nor
    /// any subclass of the tree: a base outside the tree (why, naming it), the only place
    /// Python's lookup can find it. `None` when that is not certain: a base lancet does not
    /// resolve, a class of the tree with `__getattr__` or `__getattribute__` (which answers
    /// for what the bases lack), a subclass that defines it or may, or no base outside the
    /// tree at all.
    pub(super) fn outside_base_member(&self, file: &str, qual: &str, name: &str) -> Option<String> {
        let Lacks::Outside(base) = self.hierarchy_lacks(file, qual, name, 0) else {
            return None;
        };
        let subclasses = self.subclasses(file, qual)?;
        let all_lack = subclasses.iter().all(|(sub_file, sub_qual)| {
            !matches!(
                self.hierarchy_lacks(sub_file, sub_qual, name, 0),
                Lacks::NotCertain
            )
        });
        all_lack.then(|| format!(
            "`{name}` of {qual} comes from its base `{base}`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)"
        ))
    }

    /// Whether class `qual` of `file` and its bases of the tree all lack `name` (see
    /// [`PyProject::outside_base_member`]).
    pub(super) fn hierarchy_lacks(
        &self,
        file: &str,
        qual: &str,
        name: &str,
        depth: usize,
    ) -> Lacks {
        let key = (file.to_string(), qual.to_string(), name.to_string());
        remembered(&self.lacks, key, || {
            self.hierarchy_lacks_uncached(file, qual, name, depth)
        })
    }

    fn hierarchy_lacks_uncached(&self, file: &str, qual: &str, name: &str, depth: usize) -> Lacks {
        if depth > MAX_DEPTH {
            return Lacks::NotCertain;
        }
        let Some(m) = self.module(file) else {
            return Lacks::NotCertain;
        };
        let Some(class) = find_class(&m, qual) else {
            return Lacks::NotCertain;
        };
        if ["__getattr__", "__getattribute__", name]
            .iter()
            .any(|member| defines_member(&m, class, member))
        {
            return Lacks::NotCertain;
        }
        let mut lacks = Lacks::Everywhere;
        let Some(bases) = class.child_by_field_name("superclasses") else {
            return lacks;
        };
        let mut cursor = bases.walk();
        for base in bases.named_children(&mut cursor) {
            // `metaclass=…` types the class object, not its instances.
            if base.kind() == "keyword_argument" {
                continue;
            }
            let found = match self.base_target(&m, base, depth + 1) {
                Target::Class(base_file, base_qual) => {
                    self.hierarchy_lacks(&base_file, &base_qual, name, depth + 1)
                }
                Target::Outside(_) if text(base, &m) == "object" => Lacks::Everywhere,
                Target::Outside(_) => Lacks::Outside(text(base, &m).to_string()),
                _ => Lacks::NotCertain,
            };
            lacks = match (lacks, found) {
                (Lacks::NotCertain, _) | (_, Lacks::NotCertain) => return Lacks::NotCertain,
                (Lacks::Outside(first), _) => Lacks::Outside(first),
                (Lacks::Everywhere, found) => found,
            };
        }
        lacks
    }

    /// Member `name` of an instance of class `qual` of `file`: its class's lookup, else the
    /// base outside the tree that alone can answer ([`PyProject::outside_base_member`]).
    fn instance_member(&self, file: &str, qual: &str, name: &str) -> Resolution {
        match self.class_member(file, qual, name, 0) {
            Resolution::Unresolved(why) => self
                .outside_base_member(file, qual, name)
                .map_or(Resolution::Unresolved(why), Resolution::Outside),
            found => found,
        }
    }

    /// Member `name` of a local that holds an instance of one of several classes (bound more
    /// than once): the one symbol, or the outside, every class's lookup gives; else undecided.
    fn member_of_each(
        &self,
        variable: &str,
        classes: &[(String, String)],
        name: &str,
    ) -> Resolution {
        let mut found: Option<Resolution> = None;
        for (file, qual) in classes {
            let one = match self.instance_member(file, qual, name) {
                undecided @ Resolution::Unresolved(_) => return undecided,
                one => one,
            };
            found = match found {
                None => Some(one),
                Some(Resolution::Outside(_)) if matches!(one, Resolution::Outside(_)) => Some(one),
                Some(first) if first == one => Some(first),
                Some(_) => {
                    let names: Vec<&str> = classes.iter().map(|(_, q)| q.as_str()).collect();
                    return Resolution::Unresolved(format!(
                        "`{variable}` holds an instance of {} as it is bound, and their `{name}` differ",
                        names.join(" or ")
                    ));
                }
            };
        }
        found.unwrap_or_else(|| Resolution::Unresolved(unknown_type(variable)))
    }
}

#[cfg(test)]
mod tests {
    use super::may_assign_attribute;

    #[test]
    fn only_what_may_follow_an_assignment_target_counts() {
        for code in [
            "self.x = 1",
            "self.x += 1",
            "self.x: int = 1",
            "self.x, y = f()",
            "(y, self.x) = f()",
            "[self.x] = f()",
            "self.x \\\n    = 1",
            "self.x >>= 1",
            "(self.x  # why\n) = 1",
        ] {
            assert!(may_assign_attribute(code, "x"), "{code}");
        }
        for code in [
            "self.x(1)",
            "if self.x == 1: pass",
            "self.xy = 1",
            "self.assertEqual(a, b)",
            "",
        ] {
            assert!(!may_assign_attribute(code, "x"), "{code}");
        }
    }
}
