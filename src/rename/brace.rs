//! Name resolution for `lancet rename` in JavaScript, TypeScript and Rust: what a syntax tree
//! alone can prove, and nothing more.
//!
//! - A member (`x.name`, `x.name()`) is the symbol when its receiver is `this` / `self` inside
//!   a class or impl of the walked files that defines that member, or a class of the same file
//!   that defines it (`Class.name`); a receiver bound by an import from a package (a module
//!   specifier that is not relative, a path that starts in `std`, `core`, `alloc` or an
//!   external crate) resolves outside the tree; any other receiver is unresolved (its type is
//!   not known without a type checker: `--lsp`).
//! - An import (`import {name} from "pkg"`, `use pkg::name`) from outside the tree resolves
//!   outside, and so does every plain use of the name in that file; from a relative module
//!   (`./a`, `crate::`, `self::`, `super::`) it is the symbol.
//! - A property key of an object literal is unresolved (it is a member of an anonymous type).
//! - Every other identifier spelled OLD is the symbol: JavaScript and Rust have no `global`
//!   tricks, and a local that shadows OLD is renamed with it, consistently.
//!
//! The symbol is one per name here (`ecmascript:<name>`, `rust:<name>`): `--at` in these languages
//! renames every resolved site of the name, which `--lsp` narrows to one binding.

use super::Resolution;
use tree_sitter::{Node, Tree};

/// The crates of Rust's own library: a path that starts there leaves the tree.
const RUST_LIBRARY: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// What a file says about names, once: the names it imports from outside the tree, and its
/// classes/impls with the members they define.
pub(crate) struct FileFacts {
    outside_imports: Vec<(String, String)>,
    member_holders: Vec<(String, Vec<String>)>,
}

fn text<'t>(node: Node, source: &'t str) -> &'t str {
    &source[node.byte_range()]
}

impl FileFacts {
    /// Collects the facts of one file.
    pub(crate) fn of(language: &str, source: &str, tree: &Tree) -> FileFacts {
        let mut facts = FileFacts {
            outside_imports: Vec::new(),
            member_holders: Vec::new(),
        };
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            match (language, n.kind()) {
                (_, "import_statement") => facts.js_import(n, source),
                ("rust", "use_declaration") => facts.rust_use(n, source),
                (
                    _,
                    "class_declaration"
                    | "class"
                    | "abstract_class_declaration"
                    | "interface_declaration",
                ) => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let members = js_members(n, source);
                        facts
                            .member_holders
                            .push((text(name, source).to_string(), members));
                    }
                }
                ("rust", "impl_item" | "trait_item" | "struct_item") => {
                    let holder = n
                        .child_by_field_name("type")
                        .or_else(|| n.child_by_field_name("name"))
                        .map(|t| text(t, source).to_string())
                        .unwrap_or_default();
                    let holder = holder
                        .split('<')
                        .next()
                        .unwrap_or_default()
                        .trim()
                        .to_string();
                    facts.member_holders.push((holder, rust_members(n, source)));
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        facts
    }

    fn js_import(&mut self, stmt: Node, source: &str) {
        let Some(from) = stmt.child_by_field_name("source") else {
            return;
        };
        let spec = text(from, source).trim_matches(|c| c == '"' || c == '\'' || c == '`');
        if spec.starts_with('.') || spec.starts_with('/') {
            return;
        }
        let mut stack = vec![stmt];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "import_specifier" => {
                    let local = n
                        .child_by_field_name("alias")
                        .or_else(|| n.child_by_field_name("name"));
                    if let Some(local) = local {
                        self.outside_imports
                            .push((text(local, source).to_string(), spec.to_string()));
                    }
                }
                "namespace_import" | "import_clause" => {
                    let mut c = n.walk();
                    for child in n.named_children(&mut c) {
                        if child.kind() == "identifier" {
                            self.outside_imports
                                .push((text(child, source).to_string(), spec.to_string()));
                        } else {
                            stack.push(child);
                        }
                    }
                }
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
    }

    fn rust_use(&mut self, decl: Node, source: &str) {
        let Some(argument) = decl.child_by_field_name("argument") else {
            return;
        };
        let whole = text(argument, source);
        let first = whole
            .trim_start_matches("::")
            .split("::")
            .next()
            .unwrap_or_default()
            .trim();
        if !RUST_LIBRARY.contains(&first) {
            return;
        }
        // Every name the declaration brings in: identifiers that end a path or an alias.
        let mut stack = vec![argument];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "use_as_clause" => {
                    if let Some(alias) = n.child_by_field_name("alias") {
                        self.outside_imports
                            .push((text(alias, source).to_string(), first.to_string()));
                    }
                }
                "scoped_identifier" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.outside_imports
                            .push((text(name, source).to_string(), first.to_string()));
                    }
                }
                "identifier" => self
                    .outside_imports
                    .push((text(n, source).to_string(), first.to_string())),
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
    }

    fn imported_from_outside(&self, name: &str) -> Option<&str> {
        self.outside_imports
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, from)| from.as_str())
    }

    fn holder_defines(&self, holder: &str, member: &str) -> bool {
        self.member_holders
            .iter()
            .any(|(h, members)| h == holder && members.iter().any(|m| m == member))
    }
}

/// The members a JS/TS class body declares (methods, fields, `this.x = …` in its methods).
fn js_members(class: Node, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![class];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "method_definition"
            | "public_field_definition"
            | "field_definition"
            | "method_signature"
            | "property_signature"
            | "abstract_method_signature" => {
                if let Some(name) = n
                    .child_by_field_name("name")
                    .or_else(|| n.child_by_field_name("property"))
                {
                    out.push(text(name, source).to_string());
                }
            }
            "assignment_expression" => {
                if let Some(left) = n.child_by_field_name("left")
                    && left.kind() == "member_expression"
                    && left
                        .child_by_field_name("object")
                        .is_some_and(|o| o.kind() == "this")
                    && let Some(p) = left.child_by_field_name("property")
                {
                    out.push(text(p, source).to_string());
                }
            }
            _ => {}
        }
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            if !matches!(c.kind(), "class_declaration" | "class") {
                stack.push(c);
            }
        }
    }
    out
}

/// The members a Rust impl, trait or struct declares (methods, associated items, fields).
fn rust_members(item: Node, source: &str) -> Vec<String> {
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

/// The facts of every parsed file of one language, for members defined in other files.
pub(crate) struct BraceProject<'a> {
    /// Each file's facts.
    pub files: Vec<(&'a str, FileFacts)>,
}

impl BraceProject<'_> {
    fn any_holder_defines(&self, holder: &str, member: &str) -> bool {
        self.files
            .iter()
            .any(|(_, f)| f.holder_defines(holder, member))
    }

    /// Classifies one occurrence of `name` (an identifier node) in a file.
    pub(crate) fn resolve(
        &self,
        language: &str,
        facts: &FileFacts,
        source: &str,
        node: Node,
        name: &str,
    ) -> Resolution {
        let symbol = || Resolution::Symbol(format!("{}:{name}", family(language)));
        let Some(parent) = node.parent() else {
            return symbol();
        };
        let field_is = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|f| f.id() == node.id())
        };
        match parent.kind() {
            "member_expression" if field_is("property") => {
                let object = parent.child_by_field_name("object");
                self.member(language, facts, source, node, object, name)
            }
            "field_expression" if field_is("field") => {
                let object = parent.child_by_field_name("value");
                self.member(language, facts, source, node, object, name)
            }
            "token_tree" if node.prev_sibling().is_some_and(|p| p.kind() == ".") => {
                // `x.name` inside a macro call: tokens, the same rules when `x` is one token.
                let object = node.prev_sibling().and_then(|dot| dot.prev_sibling());
                match object {
                    Some(o) if matches!(o.kind(), "self" | "identifier") => {
                        self.member(language, facts, source, node, Some(o), name)
                    }
                    _ => Resolution::Unresolved(
                        "a member of an expression inside a macro call".to_string(),
                    ),
                }
            }
            "pair" if field_is("key") => Resolution::Unresolved(format!(
                "`{name}` is a property key of an object literal (a member of an anonymous type)"
            )),
            "import_specifier" | "export_specifier" => {
                let stmt = ancestor(parent, &["import_statement", "export_statement"]);
                match stmt
                    .and_then(|s| s.child_by_field_name("source"))
                    .map(|s| text(s, source).trim_matches(|c| c == '"' || c == '\'' || c == '`'))
                {
                    Some(spec) if !spec.starts_with('.') && !spec.starts_with('/') => {
                        Resolution::Outside(format!("imported from the package `{spec}`"))
                    }
                    _ => symbol(),
                }
            }
            "scoped_identifier" | "scoped_type_identifier" if field_is("name") => {
                let path = parent
                    .child_by_field_name("path")
                    .map(|p| text(p, source))
                    .unwrap_or("");
                self.rust_path(facts, path, name)
            }
            _ => match facts.imported_from_outside(name) {
                Some(from) => {
                    Resolution::Outside(format!("`{name}` is imported from `{from}` in this file"))
                }
                None => symbol(),
            },
        }
    }

    fn rust_path(&self, facts: &FileFacts, path: &str, name: &str) -> Resolution {
        let first = path
            .trim_start_matches("::")
            .split("::")
            .next()
            .unwrap_or_default()
            .trim();
        let first = first.split('<').next().unwrap_or_default();
        if RUST_LIBRARY.contains(&first) || facts.imported_from_outside(first).is_some() {
            return Resolution::Outside(format!("`{path}::{name}` is outside the tree"));
        }
        let last = path.rsplit("::").next().unwrap_or(path).trim();
        let last = last.split('<').next().unwrap_or_default();
        let is_type = last.chars().next().is_some_and(char::is_uppercase);
        if is_type && last != "Self" && !self.any_holder_defines(last, name) {
            return Resolution::Unresolved(format!(
                "`{last}` defines no `{name}` in the walked files (a trait method, or a type from outside the tree)"
            ));
        }
        Resolution::Symbol(format!("rust:{name}"))
    }

    fn member(
        &self,
        language: &str,
        facts: &FileFacts,
        source: &str,
        node: Node,
        object: Option<Node>,
        name: &str,
    ) -> Resolution {
        let Some(object) = object else {
            return Resolution::Unresolved("a member of nothing".into());
        };
        let receiver = text(object, source);
        match object.kind() {
            "this" | "self" => {
                let holder = enclosing_holder(node, source);
                match holder {
                    Some(h) if self.any_holder_defines(&h, name) => {
                        Resolution::Symbol(format!("{}:{name}", family(language)))
                    }
                    Some(h) => Resolution::Unresolved(format!(
                        "`{receiver}.{name}`: {h} in the walked files does not define `{name}` (an inherited or trait member)"
                    )),
                    None => Resolution::Unresolved(format!("`{receiver}` outside a class or impl")),
                }
            }
            "identifier" => {
                if let Some(from) = facts.imported_from_outside(receiver) {
                    return Resolution::Outside(format!("`{receiver}` is imported from `{from}`"));
                }
                if facts.holder_defines(receiver, name) {
                    return Resolution::Symbol(format!("{}:{name}", family(language)));
                }
                if language == "rust"
                    && let Some(ty) = rust_local_type(object, source)
                {
                    return if self.any_holder_defines(&ty, name) {
                        Resolution::Symbol(format!("rust:{name}"))
                    } else {
                        Resolution::Unresolved(format!(
                            "`{receiver}` is a `{ty}`, which defines no `{name}` in the walked files (a trait method, or a type from outside the tree)"
                        ))
                    };
                }
                Resolution::Unresolved(format!("the type of `{receiver}` is not known"))
            }
            _ => Resolution::Unresolved(format!("the type of `{}` is not known", short(receiver))),
        }
    }
}

/// The type a Rust local is declared with, when the function around it says so plainly: a
/// parameter `x: &T`, or `let x: T`, `let x = T { … }`, `let x = T::f(…)`.
fn rust_local_type(ident: Node, source: &str) -> Option<String> {
    let name = text(ident, source);
    let function = ancestor(ident, &["function_item", "closure_expression"])?;
    let mut found = None;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.start_byte() > ident.start_byte() {
            continue;
        }
        let declared = match n.kind() {
            "parameter" => n
                .child_by_field_name("pattern")
                .filter(|p| text(*p, source) == name || text(*p, source) == format!("mut {name}"))
                .and_then(|_| n.child_by_field_name("type"))
                .map(|t| text(t, source).to_string()),
            "let_declaration" => n
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
        if declared.is_some() {
            // The last declaration before the use wins (shadowing).
            found = declared;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    let ty = found?;
    let ty = ty.trim_start_matches('&').trim_start_matches("mut ").trim();
    let ty = ty.split('<').next()?.rsplit("::").next()?.trim();
    (ty.chars().next()?.is_uppercase() && ty != "Self").then(|| ty.to_string())
}

/// The languages whose files import each other share one symbol per name: JavaScript,
/// TypeScript and TSX are `ecmascript`.
fn family(language: &str) -> &str {
    match language {
        "javascript" | "typescript" | "tsx" => "ecmascript",
        other => other,
    }
}

/// The class or impl type around a node (`this` / `self`'s type).
fn enclosing_holder(node: Node, source: &str) -> Option<String> {
    let holder = ancestor(
        node,
        &[
            "class_declaration",
            "class",
            "abstract_class_declaration",
            "impl_item",
            "trait_item",
        ],
    )?;
    let name = holder
        .child_by_field_name("type")
        .or_else(|| holder.child_by_field_name("name"))?;
    Some(
        text(name, source)
            .split('<')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string(),
    )
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

/// An expression shortened for a message.
fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 40 {
        format!("{}…", line.chars().take(40).collect::<String>())
    } else {
        line.to_string()
    }
}
