//! Python name resolution for `lancet rename`: which binding an identifier spelled OLD refers
//! to, from Python's own rules, over the syntax trees of the walked files.
//!
//! - Scopes: module, class (visible only in its own body), function and lambda (parameters and
//!   every name bound in the body, unless declared `global` / `nonlocal`), comprehensions.
//! - Imports between modules of the tree: `import a.b [as m]`, `from a.b import c [as d]`,
//!   relative imports; a module is a file of the tree whose path ends in `a/b.py` or
//!   `a/b/__init__.py` (one such file, or the import does not resolve).
//! - Members: `self.x` / `cls.x` in a method of class C, `C.x`, `C().x`, `super().x`, `m.x` for
//!   a module m: looked up in C (methods, class attributes, `self.x = …` in its methods), then
//!   its bases in the tree, in order.
//! - Keyword arguments of a call that resolves to a function of the tree (or a class's
//!   `__init__`).
//!
//! What resolves to something outside the tree (a builtin, `os.close`, a name imported from a
//! package that is not in the tree) is [`Resolution::Outside`]: never renamed. What cannot be
//! resolved without types (`fp.close()` on a parameter) is [`Resolution::Unresolved`].

use super::model::{Parsed as PyModule, Resolution};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tree_sitter::Node;

/// The tree's Python modules: the walked file list, the files already parsed, and the others
/// parsed on demand (a package `__init__.py` that re-exports, a base class's module).
pub(crate) struct PyProject<'a> {
    files: &'a [String],
    parsed: Mutex<HashMap<String, Option<Arc<PyModule>>>>,
    load: &'a (dyn Fn(&str) -> Option<PyModule> + Sync),
    modules: Mutex<HashMap<String, Option<Vec<String>>>>,
    /// Memo of [`bindings_in`] by file, scope (its start byte; module: none) and name: a
    /// rename of a method used 40,000 times asks the same scopes again and again.
    bindings: Mutex<HashMap<BindingKey, Arc<Vec<Bound>>>>,
    /// Memo of class members by file, class and name.
    members: Mutex<HashMap<(String, String, String), Resolution>>,
}

/// A scope's bindings of one name, by file, scope start (module: none) and name.
type BindingKey = (String, Option<usize>, String);

/// What a name (or an expression) stands for.
#[derive(Debug, Clone)]
enum Target {
    /// A variable, function or attribute binding of the tree, by id.
    Binding(String),
    /// A function of the tree: its file and qualified name (for keyword arguments).
    Function(String, String),
    /// A class of the tree: its file and qualified name.
    Class(String, String),
    /// A module of the tree (its file).
    Module(String),
    /// A variable of the tree whose type lancet does not know: its binding id and name.
    Variable(String, String),
    /// `super()` in the class with this qualified name (of the module being read).
    Super(String),
    /// Something outside the tree.
    Outside(String),
    /// Something lancet cannot tell.
    Unknown(String),
}

/// Why a variable cannot stand for a class, module or function.
fn unknown_type(name: &str) -> String {
    format!("`{name}` is a variable of unknown type")
}

/// One way a scope binds a name.
#[derive(Debug, Clone)]
enum Bound {
    Function,
    Class,
    Param,
    Assign,
    /// `name = value` or `with value as name`: the value's byte range, for the type of a local
    /// assigned once from a class call.
    Value(usize, usize),
    /// `with value as name`: the value's byte range (`name` is what its `__enter__` returns).
    Entered(usize, usize),
    ImportFrom {
        module: String,
        name: String,
        alias: bool,
    },
    Import {
        module: String,
    },
    Global,
    Nonlocal,
}

const BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "__import__",
    "__name__",
    "__file__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__builtins__",
    "__debug__",
    "NotImplemented",
    "Ellipsis",
    "BaseException",
    "Exception",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "EOFError",
    "EnvironmentError",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "RuntimeError",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "ValueError",
    "ZeroDivisionError",
    "Warning",
    "UserWarning",
    "DeprecationWarning",
    "PendingDeprecationWarning",
    "RuntimeWarning",
    "SyntaxWarning",
    "FutureWarning",
    "ImportWarning",
    "UnicodeWarning",
    "BytesWarning",
    "ResourceWarning",
    "EncodingWarning",
    "ExceptionGroup",
    "BaseExceptionGroup",
];

/// How deep import chains and base classes are followed.
const MAX_DEPTH: usize = 12;

fn text<'t>(node: Node, module: &'t PyModule) -> &'t str {
    &module.text[node.byte_range()]
}

fn is_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "class_definition"
            | "lambda"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

/// The scope a node's names are looked up in first: the innermost function or lambda whose
/// body or parameter list holds it (defaults, annotations and decorators belong outside), the
/// class whose body holds it, the comprehension, or the module (`None`).
fn scope_of(node: Node) -> Option<Node> {
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "function_definition" | "lambda" => {
                let in_body = parent
                    .child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id());
                let in_params = parent
                    .child_by_field_name("parameters")
                    .is_some_and(|p| p.id() == child.id())
                    && is_parameter_name(node);
                if in_body || in_params {
                    return Some(parent);
                }
            }
            "class_definition"
                if parent
                    .child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id()) =>
            {
                return Some(parent);
            }
            "class_definition" => {}
            kind if is_scope(kind) => return Some(parent),
            _ => {}
        }
        child = parent;
    }
    None
}

/// Whether an identifier is a parameter's own name (not a default value or annotation).
fn is_parameter_name(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    match parent.kind() {
        "parameters" | "lambda_parameters" => true,
        "default_parameter" | "typed_default_parameter" => parent
            .child_by_field_name("name")
            .is_some_and(|n| n.id() == node.id()),
        "typed_parameter" => parent.named_child(0).is_some_and(|n| n.id() == node.id()),
        "list_splat_pattern" | "dictionary_splat_pattern" => parent.parent().is_some_and(|g| {
            matches!(
                g.kind(),
                "parameters" | "lambda_parameters" | "typed_parameter"
            )
        }),
        _ => false,
    }
}

/// The qualified name of a scope: the names of the classes and functions around it, outermost
/// first, joined by `.` (a lambda or comprehension is `<lambda>` / `<comp>`).
fn qual_of(scope: Node, module: &PyModule) -> String {
    let mut parts = Vec::new();
    let mut at = Some(scope);
    while let Some(node) = at {
        match node.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    parts.push(text(name, module).to_string());
                }
            }
            "lambda" => parts.push(format!("<lambda@{}>", node.start_byte())),
            kind if is_scope(kind) => parts.push(format!("<comp@{}>", node.start_byte())),
            _ => {}
        }
        at = node.parent();
    }
    parts.reverse();
    parts.join(".")
}

/// The id of name `name` bound in `scope` (None: the module).
fn binding_id(module: &PyModule, scope: Option<Node>, name: &str) -> String {
    match scope {
        None => format!("{}::{name}", module.path),
        Some(s) if s.kind() == "class_definition" => {
            format!("{}::{}.{name}", module.path, qual_of(s, module))
        }
        Some(s) => format!("{}::{}::{name}", module.path, qual_of(s, module)),
    }
}

/// Every way `scope` (None: the module) binds `name`, in source order.
fn bindings_in(module: &PyModule, scope: Option<Node>, name: &str) -> Vec<Bound> {
    let mut out = Vec::new();
    let root = module.tree.root_node();
    match scope {
        None => collect(root, module, name, &mut out),
        Some(s) => {
            if let Some(params) = s.child_by_field_name("parameters") {
                params_binding(params, module, name, &mut out);
            }
            match s.kind() {
                "function_definition" | "class_definition" | "lambda" => {
                    if let Some(body) = s.child_by_field_name("body") {
                        collect(body, module, name, &mut out);
                    }
                }
                _ => {
                    // A comprehension: its `for` targets.
                    let mut cursor = s.walk();
                    for clause in s.named_children(&mut cursor) {
                        if clause.kind() == "for_in_clause"
                            && let Some(left) = clause.child_by_field_name("left")
                            && target_binds(left, module, name)
                        {
                            out.push(Bound::Assign);
                        }
                    }
                }
            }
        }
    }
    out
}

fn params_binding(params: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut stack = vec![params];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && text(n, module) == name && is_parameter_name(n) {
            out.push(Bound::Param);
        }
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            if !matches!(c.kind(), "lambda") {
                stack.push(c);
            }
        }
    }
}

/// Whether an assignment target binds `name` (a name, or a name inside a tuple/list pattern).
fn target_binds(target: Node, module: &PyModule, name: &str) -> bool {
    match target.kind() {
        "identifier" => text(target, module) == name,
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "list_splat_pattern"
        | "tuple"
        | "list"
        | "parenthesized_expression"
        | "expression_list"
        | "as_pattern_target" => {
            let mut cursor = target.walk();
            target
                .named_children(&mut cursor)
                .any(|c| target_binds(c, module, name))
        }
        _ => false,
    }
}

/// Walks a scope's body for bindings of `name`, not entering nested scopes (whose own names
/// bind here).
fn collect(node: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" | "class_definition" => {
                if child
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, module) == name)
                {
                    out.push(if child.kind() == "class_definition" {
                        Bound::Class
                    } else {
                        Bound::Function
                    });
                }
                // Decorators and defaults are evaluated here, but bind nothing.
            }
            "decorated_definition" => collect(child, module, name, out),
            "lambda" => {}
            kind if is_scope(kind) => {}
            "assignment" | "augmented_assignment" => {
                let left = child.child_by_field_name("left");
                if left.is_some_and(|l| target_binds(l, module, name)) {
                    let value = child.child_by_field_name("right").filter(|_| {
                        child.kind() == "assignment"
                            && left.is_some_and(|l| l.kind() == "identifier")
                    });
                    out.push(match value {
                        Some(v) => Bound::Value(v.start_byte(), v.end_byte()),
                        None => Bound::Assign,
                    });
                }
                collect(child, module, name, out);
            }
            "for_statement" | "for_in_clause" => {
                if child
                    .child_by_field_name("left")
                    .is_some_and(|l| target_binds(l, module, name))
                {
                    out.push(Bound::Assign);
                }
                collect(child, module, name, out);
            }
            "named_expression" => {
                if child
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, module) == name)
                {
                    out.push(Bound::Assign);
                }
                collect(child, module, name, out);
            }
            "as_pattern" => {
                let alias = child.child_by_field_name("alias");
                if alias.is_some_and(|a| target_binds(a, module, name)) {
                    // `with Session() as s`: `s` is what `__enter__` returns, the instance
                    // itself for the classes that return self; only a plain name counts.
                    let value = child
                        .named_child(0)
                        .filter(|_| alias.is_some_and(|a| a.named_child_count() <= 1))
                        .filter(|v| v.kind() == "call");
                    out.push(match value {
                        Some(v) if child.parent().is_some_and(|p| p.kind() == "with_item") => {
                            Bound::Entered(v.start_byte(), v.end_byte())
                        }
                        _ => Bound::Assign,
                    });
                }
                collect(child, module, name, out);
            }
            "except_clause" => {
                // `except E as name`: the identifier after `as`.
                let mut c = child.walk();
                let mut after_as = false;
                for part in child.children(&mut c) {
                    if part.kind() == "as" {
                        after_as = true;
                    } else if after_as && part.kind() == "identifier" {
                        if text(part, module) == name {
                            out.push(Bound::Assign);
                        }
                        after_as = false;
                    }
                }
                collect(child, module, name, out);
            }
            "global_statement" | "nonlocal_statement" => {
                let mut c = child.walk();
                if child
                    .named_children(&mut c)
                    .any(|n| n.kind() == "identifier" && text(n, module) == name)
                {
                    out.push(if child.kind() == "global_statement" {
                        Bound::Global
                    } else {
                        Bound::Nonlocal
                    });
                }
            }
            "import_statement" => import_binding(child, module, name, out),
            "import_from_statement" => import_from_binding(child, module, name, out),
            _ => collect(child, module, name, out),
        }
    }
}

fn import_binding(stmt: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let mut cursor = stmt.walk();
    for item in stmt.children_by_field_name("name", &mut cursor) {
        match item.kind() {
            "aliased_import" => {
                if item
                    .child_by_field_name("alias")
                    .is_some_and(|a| text(a, module) == name)
                    && let Some(dotted) = item.child_by_field_name("name")
                {
                    out.push(Bound::Import {
                        module: text(dotted, module).to_string(),
                    });
                }
            }
            _ => {
                let dotted = text(item, module);
                if dotted.split('.').next() == Some(name) {
                    out.push(Bound::Import {
                        module: name.to_string(),
                    });
                }
            }
        }
    }
}

fn import_from_binding(stmt: Node, module: &PyModule, name: &str, out: &mut Vec<Bound>) {
    let Some(from) = stmt.child_by_field_name("module_name") else {
        return;
    };
    let from = text(from, module).to_string();
    let mut cursor = stmt.walk();
    for item in stmt.children_by_field_name("name", &mut cursor) {
        let (original, local, alias) = match item.kind() {
            "aliased_import" => {
                let Some(original) = item.child_by_field_name("name") else {
                    continue;
                };
                let Some(alias) = item.child_by_field_name("alias") else {
                    continue;
                };
                (text(original, module), text(alias, module), true)
            }
            _ => (text(item, module), text(item, module), false),
        };
        if local == name {
            out.push(Bound::ImportFrom {
                module: from.clone(),
                name: original.to_string(),
                alias,
            });
        }
    }
}

/// Whether the module has a `from x import *` (a name it does not bind may come from it).
fn has_wildcard(module: &PyModule) -> bool {
    let root = module.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|stmt| {
        stmt.kind() == "import_from_statement" && {
            let mut c = stmt.walk();
            stmt.named_children(&mut c)
                .any(|n| n.kind() == "wildcard_import")
        }
    })
}

impl<'a> PyProject<'a> {
    /// A project over the walked files; `load` reads and parses a file of the tree that was
    /// not parsed yet.
    pub(crate) fn new(
        files: &'a [String],
        parsed: Vec<Arc<PyModule>>,
        load: &'a (dyn Fn(&str) -> Option<PyModule> + Sync),
    ) -> Self {
        PyProject {
            files,
            parsed: Mutex::new(
                parsed
                    .into_iter()
                    .map(|m| (m.path.clone(), Some(m)))
                    .collect(),
            ),
            load,
            modules: Mutex::new(HashMap::new()),
            bindings: Mutex::new(HashMap::new()),
            members: Mutex::new(HashMap::new()),
        }
    }

    /// [`bindings_in`], remembered.
    fn bindings(&self, module: &PyModule, scope: Option<Node>, name: &str) -> Arc<Vec<Bound>> {
        let key = (
            module.path.clone(),
            scope.map(|s| s.start_byte()),
            name.to_string(),
        );
        if let Some(hit) = self.bindings.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return hit;
        }
        let found = Arc::new(bindings_in(module, scope, name));
        if let Ok(mut memo) = self.bindings.lock() {
            memo.insert(key, Arc::clone(&found));
        }
        found
    }

    fn module(&self, path: &str) -> Option<Arc<PyModule>> {
        if let Some(m) = self.parsed.lock().ok()?.get(path) {
            return m.clone();
        }
        let loaded = (self.load)(path).map(Arc::new);
        self.parsed
            .lock()
            .ok()?
            .insert(path.to_string(), loaded.clone());
        loaded
    }

    /// The file of module `dotted` (absolute) imported from `from`: the one file of the tree
    /// that is it; among several, the one beside the importing file (a script's directory is
    /// first on its path), else the one under a source root (the tree's top, `src/`, `lib/`).
    fn module_file(&self, dotted: &str, from: &str) -> Option<String> {
        let candidates = self.module_candidates(dotted)?;
        let rel = dotted.replace('.', "/");
        // An absolute import finds a module only under a directory on the path: a source root
        // (the tree's top, `src/`, `lib/`) or the importing script's own directory; `json`
        // is not `flask/json/`.
        let prefix = |c: &String| {
            c.strip_suffix(&format!("{rel}.py"))
                .or_else(|| c.strip_suffix(&format!("{rel}/__init__.py")))
                .unwrap_or_default()
                .trim_end_matches('/')
                .to_string()
        };
        let own_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let beside: Vec<&String> = candidates.iter().filter(|c| prefix(c) == own_dir).collect();
        if let [one] = beside.as_slice() {
            return Some((*one).clone());
        }
        let rooted: Vec<&String> = candidates
            .iter()
            .filter(|c| matches!(prefix(c).as_str(), "" | "src" | "lib"))
            .collect();
        match rooted.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// The submodule `name` of the package whose `__init__.py` is `file` (`pkg.sub`, bound as
    /// an attribute of `pkg` once anything imports it).
    fn submodule(&self, file: &str, name: &str) -> Option<String> {
        let dir = file.strip_suffix("/__init__.py")?;
        [
            format!("{dir}/{name}.py"),
            format!("{dir}/{name}/__init__.py"),
        ]
        .into_iter()
        .find(|c| self.files.iter().any(|f| f == c))
    }

    /// Whether the package `init` (an `__init__.py`) imports from its submodule `name` (`from
    /// .name import x`, `from . import name`): importing it binds the submodule as the package's
    /// attribute, for every importer of the package (as type checkers have it).
    fn package_imports_from(&self, init: &str, name: &str) -> bool {
        let Some(m) = self.module(init) else {
            return false;
        };
        let root = m.tree.root_node();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "import_from_statement" {
                let from = n
                    .child_by_field_name("module_name")
                    .map(|x| text(x, &m).to_string())
                    .unwrap_or_default();
                let first = from
                    .strip_prefix('.')
                    .map(|r| r.split('.').next().unwrap_or(""));
                if first == Some(name) {
                    return true;
                }
                if from == "." {
                    let mut cursor = n.walk();
                    if n.children_by_field_name("name", &mut cursor)
                        .any(|item| text(item, &m) == name)
                    {
                        return true;
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        false
    }

    /// Whether `module` imports the module file `target` by a dotted `import a.b` of its own:
    /// `a.b` is then an attribute there. (Without it the submodule is an attribute only if
    /// something else imported it first, which a type checker does not assume either.)
    fn imports_module(&self, module: &PyModule, target: &str) -> bool {
        let root = module.tree.root_node();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "import_statement" {
                let mut cursor = n.walk();
                for item in n.children_by_field_name("name", &mut cursor) {
                    let dotted = if item.kind() == "aliased_import" {
                        item.child_by_field_name("name")
                    } else {
                        Some(item)
                    };
                    if dotted
                        .map(|d| text(d, module))
                        .and_then(|d| self.resolve_module(module, d).ok())
                        .is_some_and(|f| f == target)
                    {
                        return true;
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| !matches!(c.kind(), "string" | "comment")),
            );
        }
        false
    }

    /// Whether an absolute module could be in the tree: some file under a source root or the
    /// importing file's directory starts its path, or a module of its name is anywhere in it.
    fn package_in_tree(&self, top: &str, from: &str) -> bool {
        let own_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        ["", "src", "lib", own_dir].iter().any(|root| {
            let base = if root.is_empty() {
                top.to_string()
            } else {
                format!("{root}/{top}")
            };
            self.files
                .iter()
                .any(|f| f == &format!("{base}.py") || f.starts_with(&format!("{base}/")))
        }) || self.files.iter().any(|f| {
            // Anywhere else (`tools/helpers.py` after `sys.path.insert(0, "tools")`): maybe
            // the tree's own, never known to be another package's.
            let (dir, file) = f.rsplit_once('/').unwrap_or(("", f));
            file == format!("{top}.py")
                || file == "__init__.py" && dir.rsplit('/').next() == Some(top)
        })
    }

    /// Every file of the tree that could be module `dotted`.
    fn module_candidates(&self, dotted: &str) -> Option<Vec<String>> {
        if let Some(hit) = self.modules.lock().ok()?.get(dotted) {
            return hit.clone();
        }
        let rel = dotted.replace('.', "/");
        let endings = [format!("{rel}.py"), format!("{rel}/__init__.py")];
        let hits: Vec<&String> = self
            .files
            .iter()
            .filter(|f| {
                endings.iter().any(|e| {
                    *f == e || (f.ends_with(e.as_str()) && f[..f.len() - e.len()].ends_with('/'))
                })
            })
            .collect();
        let found = (!hits.is_empty()).then(|| hits.into_iter().cloned().collect::<Vec<_>>());
        self.modules
            .lock()
            .ok()?
            .insert(dotted.to_string(), found.clone());
        found
    }

    /// The module an import in `from` names: relative (`.`, `..x`) to `from`'s package, or
    /// absolute. `Err` says whether it is outside the tree (true) or unknown (false).
    fn resolve_module(&self, from: &PyModule, dotted: &str) -> Result<String, (bool, String)> {
        if let Some(rest) = dotted.strip_prefix('.') {
            let ups = rest.chars().take_while(|&c| c == '.').count();
            let rest = &rest[ups..];
            let mut dir: Vec<&str> = from.path.split('/').collect();
            dir.pop();
            for _ in 0..ups {
                if dir.pop().is_none() {
                    return Err((false, format!("relative import `{dotted}` leaves the tree")));
                }
            }
            let mut base = dir.join("/");
            if !rest.is_empty() {
                if !base.is_empty() {
                    base.push('/');
                }
                base.push_str(&rest.replace('.', "/"));
            }
            let candidates = [format!("{base}.py"), format!("{base}/__init__.py")];
            let candidates = candidates.map(|c| c.trim_start_matches('/').to_string());
            return candidates
                .into_iter()
                .find(|c| self.files.iter().any(|f| f == c))
                .ok_or((
                    false,
                    format!("module `{dotted}` is not a file of the tree"),
                ));
        }
        if let Some(file) = self.module_file(dotted, &from.path) {
            return Ok(file);
        }
        let top = dotted.split('.').next().unwrap_or(dotted);
        if self.package_in_tree(top, &from.path) {
            Err((
                false,
                format!(
                    "module `{dotted}` is not one file of the tree (a module of that name is in the tree: a sys.path entry or a package root may reach it)"
                ),
            ))
        } else {
            Err((true, format!("`{dotted}` is outside the tree")))
        }
    }

    /// Classifies one occurrence of `name` (an identifier node of `module`).
    pub(crate) fn resolve(&self, module: &PyModule, node: Node, name: &str) -> Resolution {
        let Some(parent) = node.parent() else {
            return Resolution::Unresolved("no syntax around it".into());
        };
        match parent.kind() {
            "attribute"
                if parent
                    .child_by_field_name("attribute")
                    .is_some_and(|a| a.id() == node.id()) =>
            {
                let Some(object) = parent.child_by_field_name("object") else {
                    return Resolution::Unresolved("an attribute of nothing".into());
                };
                self.member(module, object, name)
            }
            "keyword_argument"
                if parent
                    .child_by_field_name("name")
                    .is_some_and(|n| n.id() == node.id()) =>
            {
                self.keyword(module, parent, name)
            }
            "dotted_name" => self.in_import(module, parent, name),
            "aliased_import" => {
                // `... as name`: a local binding of this module (or scope).
                if parent
                    .child_by_field_name("alias")
                    .is_some_and(|a| a.id() == node.id())
                {
                    Resolution::Symbol(binding_id(module, scope_of(node), name))
                } else {
                    Resolution::Unresolved("part of an import".into())
                }
            }
            "global_statement" => Resolution::Symbol(binding_id(module, None, name)),
            _ => self.name(module, node, name),
        }
    }

    /// An identifier inside a dotted name: an imported name (`from m import name`), or part of
    /// a module path (modules are files; renaming one is not a rename of an identifier).
    fn in_import(&self, module: &PyModule, dotted: Node, name: &str) -> Resolution {
        let Some(stmt) = dotted.parent() else {
            return Resolution::Unresolved("part of a dotted name".into());
        };
        let holder = if stmt.kind() == "aliased_import" {
            stmt.parent()
        } else {
            Some(stmt)
        };
        let Some(holder) = holder else {
            return Resolution::Unresolved("part of a dotted name".into());
        };
        let is_module_name = holder
            .child_by_field_name("module_name")
            .is_some_and(|m| m.id() == dotted.id());
        if holder.kind() == "import_from_statement" && !is_module_name {
            let from = holder
                .child_by_field_name("module_name")
                .map(|m| text(m, module).to_string())
                .unwrap_or_default();
            if dotted.named_child_count() == 1 {
                return match self.imported(module, &from, name, 0) {
                    Target::Module(_) => Resolution::Unresolved(format!(
                        "`{name}` is a module of the tree (a file, not renamed)"
                    )),
                    t => target_symbol(t),
                };
            }
        }
        Resolution::Unresolved("part of a module path (a file, not renamed)".into())
    }

    /// A plain name: the binding its scope rules find.
    fn name(&self, module: &PyModule, node: Node, name: &str) -> Resolution {
        match self.lookup(module, node, name, true, 0) {
            Target::Outside(why) => Resolution::Outside(why),
            Target::Unknown(why) => Resolution::Unresolved(why),
            Target::Module(_) => Resolution::Unresolved(format!(
                "`{name}` names a module of the tree (a file, not renamed)"
            )),
            t => target_symbol(t),
        }
    }

    /// Looks `name` up from `node`'s scope outward. With `for_rename`, a local alias
    /// (`import x as name`) is its own binding; otherwise it is followed to what it names.
    fn lookup(
        &self,
        module: &PyModule,
        node: Node,
        name: &str,
        for_rename: bool,
        depth: usize,
    ) -> Target {
        let mut scope = scope_of(node);
        let mut first = true;
        loop {
            let skip_class = !first && scope.is_some_and(|s| s.kind() == "class_definition");
            first = false;
            if !skip_class {
                let bound = self.bindings(module, scope, name);
                if bound.iter().any(|b| matches!(b, Bound::Global)) {
                    let bound = self.bindings(module, None, name);
                    return self.bound_target(module, None, name, &bound, for_rename, depth);
                }
                let nonlocal = bound.iter().any(|b| matches!(b, Bound::Nonlocal));
                if !bound.is_empty() && !nonlocal {
                    return self.bound_target(module, scope, name, &bound, for_rename, depth);
                }
            }
            match scope {
                None => break,
                Some(s) => scope = scope_of(s),
            }
        }
        if BUILTINS.contains(&name) {
            Target::Outside(format!("`{name}` is a Python builtin"))
        } else if has_wildcard(module) {
            Target::Unknown(format!(
                "`{name}` is not bound in {}; it may come from a `from … import *`",
                module.path
            ))
        } else {
            Target::Unknown(format!("`{name}` is not bound in {}", module.path))
        }
    }

    /// What the bindings of `name` in one scope make of it.
    fn bound_target(
        &self,
        module: &PyModule,
        scope: Option<Node>,
        name: &str,
        bound: &[Bound],
        for_rename: bool,
        depth: usize,
    ) -> Target {
        let imports: Vec<&Bound> = bound
            .iter()
            .filter(|b| {
                matches!(b, Bound::Import { .. })
                    || matches!(b, Bound::ImportFrom { alias, .. } if !for_rename || !alias)
            })
            .collect();
        if imports.is_empty() {
            let local_defs: Vec<&Bound> = bound
                .iter()
                .filter(|b| matches!(b, Bound::Function | Bound::Class))
                .collect();
            let id = binding_id(module, scope, name);
            return match (local_defs.as_slice(), bound.len()) {
                ([Bound::Class], 1) => {
                    let qual = id_qual(&id);
                    Target::Class(module.path.clone(), qual)
                }
                ([Bound::Function], 1) => Target::Function(module.path.clone(), id_qual(&id)),
                _ if for_rename => Target::Binding(id),
                _ => match bound {
                    // Assigned once, from a call of a class: an instance of it; bound by
                    // `with C() as name`, when C's `__enter__` returns `self`.
                    [Bound::Value(start, end) | Bound::Entered(start, end)]
                        if depth < MAX_DEPTH =>
                    {
                        let value = module
                            .tree
                            .root_node()
                            .descendant_for_byte_range(*start, *end)
                            .filter(|v| v.byte_range() == (*start..*end) && v.kind() == "call");
                        match value.map(|v| self.expression(module, v, depth + 1)) {
                            Some(Target::Class(file, qual))
                                if matches!(bound, [Bound::Value(..)])
                                    || self.enters_itself(&file, &qual) =>
                            {
                                Target::Class(file, qual)
                            }
                            _ => Target::Variable(id, name.to_string()),
                        }
                    }
                    _ => Target::Variable(id, name.to_string()),
                },
            };
        }
        let targets: Vec<Target> = imports
            .iter()
            .map(|b| match b {
                Bound::Import { module: dotted } => match self.resolve_module(module, dotted) {
                    Ok(file) => Target::Module(file),
                    Err((true, why)) => Target::Outside(why),
                    Err((false, why)) => Target::Unknown(why),
                },
                Bound::ImportFrom {
                    module: from,
                    name: original,
                    ..
                } => self.imported(module, from, original, depth + 1),
                _ => Target::Unknown(String::new()),
            })
            .collect();
        if let Some(Target::Outside(why)) = targets.iter().find(|t| matches!(t, Target::Outside(_)))
        {
            return Target::Outside(why.clone());
        }
        if imports.len() != bound.len() {
            return Target::Unknown(format!(
                "`{name}` is both imported and bound otherwise in {}",
                module.path
            ));
        }
        let first = &targets[0];
        if targets.len() == 1 || targets.iter().all(|t| same_target(t, first)) {
            first.clone()
        } else {
            Target::Unknown(format!("`{name}` is imported from several places"))
        }
    }

    /// What `from <from> import <name>` in `module` brings.
    fn imported(&self, module: &PyModule, from: &str, name: &str, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("an import chain too long to follow".into());
        }
        let file = match self.resolve_module(module, from) {
            Ok(f) => f,
            Err((true, why)) => return Target::Outside(format!("imported from {why}")),
            Err((false, why)) => return Target::Unknown(why),
        };
        let Some(target) = self.module(&file) else {
            return Target::Unknown(format!("{file} cannot be read"));
        };
        // `from . import sub` in a package's `__init__.py` names its submodule, not itself.
        let bound = if target.path == module.path {
            Arc::new(Vec::new())
        } else {
            self.bindings(&target, None, name)
        };
        if bound.is_empty() {
            // `from pkg import sub`: a submodule.
            let sub = if from.ends_with('.') {
                format!("{from}{name}")
            } else {
                format!("{from}.{name}")
            };
            if let Ok(file) = self.resolve_module(module, &sub) {
                return Target::Module(file);
            }
            return if has_wildcard(&target) {
                Target::Unknown(format!(
                    "`{name}` may come from a `from … import *` in {file}"
                ))
            } else {
                Target::Unknown(format!("{file} does not bind `{name}`"))
            };
        }
        // A variable the module binds is the binding itself.
        match self.bound_target(&target, None, name, &bound, false, depth) {
            Target::Variable(id, _) => Target::Binding(id),
            t => t,
        }
    }

    /// What an expression stands for, when it is a class, a module or an outside thing.
    fn expression(&self, module: &PyModule, expr: Node, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("too deep".into());
        }
        match expr.kind() {
            "identifier" => {
                let name = text(expr, module);
                if let Some(class) = method_receiver(expr, module) {
                    return Target::Class(module.path.clone(), qual_of(class, module));
                }
                self.lookup(module, expr, name, false, depth)
            }
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    expr.child_by_field_name("object"),
                    expr.child_by_field_name("attribute"),
                ) else {
                    return Target::Unknown("an attribute".into());
                };
                let attr = text(attr, module);
                match self.expression(module, object, depth + 1) {
                    Target::Module(file) => match self.module(&file) {
                        Some(m) => {
                            let bound = self.bindings(&m, None, attr);
                            if bound.is_empty() {
                                match self.submodule(&file, attr).filter(|sub| {
                                    self.imports_module(module, sub)
                                        || self.package_imports_from(&file, attr)
                                }) {
                                    Some(sub) => Target::Module(sub),
                                    None => {
                                        Target::Unknown(format!("{file} does not bind `{attr}`"))
                                    }
                                }
                            } else {
                                self.bound_target(&m, None, attr, &bound, false, depth + 1)
                            }
                        }
                        None => Target::Unknown(format!("{file} cannot be read")),
                    },
                    Target::Outside(why) => Target::Outside(why),
                    Target::Class(file, qual) => match self.class_node(&file, &qual) {
                        Some((m, _)) => {
                            let inner = format!("{qual}.{attr}");
                            if find_class(&m, &inner).is_some() {
                                Target::Class(file, inner)
                            } else {
                                Target::Unknown(format!("`{}` is a value", text(expr, module)))
                            }
                        }
                        None => Target::Unknown(String::new()),
                    },
                    _ => Target::Unknown(format!(
                        "the type of `{}` is not known",
                        text(expr, module)
                    )),
                }
            }
            "call" => {
                let Some(function) = expr.child_by_field_name("function") else {
                    return Target::Unknown("a call".into());
                };
                if function.kind() == "identifier" && text(function, module) == "super" {
                    return match enclosing_class(expr) {
                        Some(class) => Target::Super(qual_of(class, module)),
                        None => Target::Unknown("`super()` outside a class".into()),
                    };
                }
                match self.expression(module, function, depth + 1) {
                    // An instance of a class of the tree.
                    class @ Target::Class(..) => class,
                    Target::Outside(why) => Target::Outside(why),
                    _ => Target::Unknown(format!(
                        "the type of `{}` is not known",
                        text(expr, module)
                    )),
                }
            }
            _ => Target::Unknown(format!("the type of `{}` is not known", text(expr, module))),
        }
    }

    fn class_node(&self, file: &str, qual: &str) -> Option<(Arc<PyModule>, usize)> {
        let m = self.module(file)?;
        let id = find_class(&m, qual)?.id();
        Some((m, id))
    }

    /// `object.name`.
    fn member(&self, module: &PyModule, object: Node, name: &str) -> Resolution {
        let receiver = self.expression(module, object, 0);
        match receiver {
            Target::Class(file, qual) => self.class_member(&file, &qual, name, 0),
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
            Target::Binding(_) | Target::Function(..) => Resolution::Unresolved(format!(
                "the type of `{}` is not known",
                text(object, module)
            )),
        }
    }

    /// Whether class `qual` of `file` (or a base of the tree) has an `__enter__` whose every
    /// `return` is `return self`.
    fn enters_itself(&self, file: &str, qual: &str) -> bool {
        let Resolution::Symbol(id) = self.class_member(file, qual, "__enter__", 0) else {
            return false;
        };
        let Some((file, qual)) = id.split_once("::") else {
            return false;
        };
        let Some(m) = self.module(file) else {
            return false;
        };
        let Some(function) = find_function(&m, qual) else {
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
    fn class_member(&self, file: &str, qual: &str, name: &str, depth: usize) -> Resolution {
        let key = (file.to_string(), qual.to_string(), name.to_string());
        if let Some(hit) = self.members.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return hit;
        }
        let found = self.class_member_uncached(file, qual, name, depth);
        if let Ok(mut memo) = self.members.lock() {
            memo.insert(key, found.clone());
        }
        found
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
            return Resolution::Symbol(format!("{file}::{qual}.{name}"));
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
                match self.expression(m, base, depth + 1) {
                    Target::Class(file, base_qual) => {
                        match self.class_member(&file, &base_qual, name, depth + 1) {
                            Resolution::Unresolved(why) if why.starts_with("not a member") => {}
                            Resolution::Unresolved(why) => {
                                outside.get_or_insert(why);
                            }
                            found => return found,
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

    /// `call(name=…)`: the parameter of the function the call resolves to.
    fn keyword(&self, module: &PyModule, argument: Node, name: &str) -> Resolution {
        let call = argument.parent().and_then(|list| list.parent());
        let Some(function) = call
            .filter(|c| c.kind() == "call")
            .and_then(|c| c.child_by_field_name("function"))
        else {
            return Resolution::Unresolved("a keyword argument outside a call".into());
        };
        let target = match function.kind() {
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    function.child_by_field_name("object"),
                    function.child_by_field_name("attribute"),
                ) else {
                    return Resolution::Unresolved("a call".into());
                };
                match self.member(module, object, text(attr, module)) {
                    Resolution::Symbol(id) => {
                        let (file, qual) = id.split_once("::").unwrap_or_default();
                        Target::Function(file.to_string(), qual.to_string())
                    }
                    Resolution::Outside(why) => Target::Outside(why),
                    Resolution::Unresolved(why) => Target::Unknown(why),
                }
            }
            _ => self.expression(module, function, 0),
        };
        let (file, qual) = match target {
            Target::Function(file, qual) => (file, qual),
            Target::Class(file, qual) => match self.class_member(&file, &qual, "__init__", 0) {
                Resolution::Symbol(id) => {
                    let (file, qual) = id.split_once("::").unwrap_or_default();
                    (file.to_string(), qual.to_string())
                }
                _ => {
                    return Resolution::Unresolved(format!(
                        "the keyword argument `{name}` of a class call whose __init__ is not in the tree"
                    ));
                }
            },
            Target::Outside(why) => return Resolution::Outside(why),
            Target::Unknown(why) => return Resolution::Unresolved(why),
            Target::Variable(_, variable) => {
                return Resolution::Unresolved(unknown_type(&variable));
            }
            _ => {
                return Resolution::Unresolved(format!(
                    "the keyword argument `{name}` of a call lancet cannot resolve"
                ));
            }
        };
        let Some(m) = self.module(&file) else {
            return Resolution::Unresolved(format!("{file} cannot be read"));
        };
        match find_function(&m, &qual) {
            Some(f) => {
                let mut params = Vec::new();
                if let Some(p) = f.child_by_field_name("parameters") {
                    params_binding(p, &m, name, &mut params);
                }
                if params.is_empty() {
                    Resolution::Unresolved(format!("{qual} has no parameter `{name}`"))
                } else {
                    Resolution::Symbol(format!("{file}::{qual}::{name}"))
                }
            }
            None => Resolution::Unresolved(format!("{qual} is not a function of {file}")),
        }
    }
}

fn same_target(a: &Target, b: &Target) -> bool {
    match (a, b) {
        (Target::Binding(x), Target::Binding(y)) | (Target::Module(x), Target::Module(y)) => x == y,
        (Target::Class(f, q), Target::Class(g, r))
        | (Target::Function(f, q), Target::Function(g, r)) => f == g && q == r,
        _ => false,
    }
}

/// The id a definition target is renamed under.
fn target_symbol(target: Target) -> Resolution {
    match target {
        Target::Binding(id) => Resolution::Symbol(id),
        Target::Class(file, qual) | Target::Function(file, qual) => {
            Resolution::Symbol(qual_id(&file, &qual))
        }
        Target::Module(file) => Resolution::Unresolved(format!("the module {file}")),
        Target::Outside(why) => Resolution::Outside(why),
        Target::Unknown(why) => Resolution::Unresolved(why),
        Target::Variable(_, name) => Resolution::Unresolved(unknown_type(&name)),
        Target::Super(_) => Resolution::Unresolved("`super()`".into()),
    }
}

/// The id of a definition by qualified name: the binding of its last part in its parent's
/// scope (a class member `C.m`, a local `f::g`, a module name `f`).
fn qual_id(file: &str, qual: &str) -> String {
    format!("{file}::{qual}")
}

/// The qualified part of a binding id (`file::a.b` → `a.b`, `file::f::g` → `f::g`).
fn id_qual(id: &str) -> String {
    id.split_once("::")
        .map(|(_, q)| q.to_string())
        .unwrap_or_default()
}

/// When `ident` is the first parameter of the method around it (not a staticmethod), the
/// class it stands for.
fn method_receiver<'t>(ident: Node<'t>, module: &PyModule) -> Option<Node<'t>> {
    let name = text(ident, module);
    let mut at = ident;
    let function = loop {
        let scope = scope_of(at)?;
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
    (text(first, module) == name && scope_of(ident).is_some_and(|s| s.id() == function.id()))
        .then_some(class)
}

fn enclosing_class(node: Node) -> Option<Node> {
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "class_definition" {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

/// The class definition with this qualified name (`Outer.Inner`) in a module.
fn find_class<'t>(m: &'t PyModule, qual: &str) -> Option<Node<'t>> {
    find_def(m, qual, "class_definition")
}

fn find_function<'t>(m: &'t PyModule, qual: &str) -> Option<Node<'t>> {
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

/// Whether a target is `<first parameter>.name` (or a tuple of targets holding one).
fn self_attribute_binds(target: Node, m: &PyModule, name: &str) -> bool {
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
