//! Plain names and expressions: a name looked up from its scope outward (a builtin at last),
//! what one scope's bindings of it make of it (a class, a function, an import, a variable), and
//! what an expression stands for (a class or an instance of one, a module, `super()`).

use super::members::{enclosing_class, find_class, method_receiver, receives_class};
use super::scopes::{Bound, binding_qual, has_wildcard, qual_of, scope_of};
use super::types::literal;
use super::{MAX_DEPTH, PyModule, PyProject, Target, python_id, same_target, target_symbol, text};
use crate::rename::model::{Resolution, SymbolId};
use std::sync::Arc;
use tree_sitter::Node;

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

/// Whether a name is one of Python's builtins (`len`, `isinstance`, `ValueError`).
pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

impl PyProject<'_> {
    /// A plain name: the binding its scope rules find.
    pub(super) fn name(&self, module: &PyModule, node: Node, name: &str) -> Resolution {
        match self.lookup(module, node, name, true, 0) {
            Target::Outside(why) => Resolution::Outside(why),
            Target::Unknown(why) => Resolution::Unresolved(why),
            Target::Module(_) => Resolution::Unresolved(format!(
                "`{name}` names a module of the tree (a file, not renamed)"
            )),
            t => target_symbol(t),
        }
    }

    /// Whether module-level `b` is an import alias of `a` (`from .helpers import x as x`, a
    /// package's re-export): one symbol under two bindings.
    pub(super) fn reexports(&self, a: &SymbolId, b: &SymbolId) -> bool {
        let SymbolId::Python { module: file, qual } = b else {
            return false;
        };
        if qual.contains(['.', ':']) {
            return false;
        }
        let Some(module) = self.module(file) else {
            return false;
        };
        let bound = self.bindings(&module, None, qual);
        let target = self.bound_target(&module, None, qual, &bound, false, 0);
        target_symbol(target) == Resolution::Symbol(a.clone())
    }

    /// Looks `name` up from `node`'s scope outward. With `for_rename`, a local alias
    /// (`import x as name`) is its own binding; otherwise it is followed to what it names.
    pub(super) fn lookup(
        &self,
        module: &PyModule,
        node: Node,
        name: &str,
        for_rename: bool,
        depth: usize,
    ) -> Target {
        let mut scope = scope_of(node, module);
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
                Some(s) => scope = scope_of(s, module),
            }
        }
        // A doctest runs with its module's globals: a name it does not bind is the module's.
        if module.doctest_wrappers.is_some()
            && let Some(real) = self.module(&module.path)
        {
            return self.lookup(&real, real.tree.root_node(), name, for_rename, depth + 1);
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
    pub(super) fn bound_target(
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
            let qual = binding_qual(module, scope, name);
            let id = python_id(&module.path, qual.clone());
            return match (local_defs.as_slice(), bound.len()) {
                ([Bound::Class], 1) => Target::Class(module.path.clone(), qual),
                ([Bound::Function], 1) => Target::Function(module.path.clone(), qual),
                _ if for_rename => Target::Binding(id),
                _ => self.typed_local(module, scope, name, bound, id, depth),
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

    /// What a local of the tree (not a class, function or import) holds, where its bindings
    /// say: an instance of a class (a call of it, an annotation, a fixture pytest passes), a
    /// builtin literal; else a variable of unknown type.
    fn typed_local(
        &self,
        module: &PyModule,
        scope: Option<Node>,
        name: &str,
        bound: &[Bound],
        id: SymbolId,
        depth: usize,
    ) -> Target {
        match bound {
            // Assigned once, from a call of a class: an instance of it; bound by
            // `with C() as name`, when C's `__enter__` returns `self`.
            [Bound::Value(start, end) | Bound::Entered(start, end)] if depth < MAX_DEPTH => {
                let value = module
                    .tree
                    .root_node()
                    .descendant_for_byte_range(*start, *end)
                    .filter(|v| v.byte_range() == (*start..*end));
                let entered = matches!(bound, [Bound::Entered(..)]);
                match value {
                    // `d = {}`: a builtin.
                    Some(v) if !entered && let Some(builtin) = literal(v) => {
                        Target::Builtin(id, builtin)
                    }
                    Some(v) if v.kind() == "call" || (!entered && v.kind() == "attribute") => {
                        match self.expression(module, v, depth + 1) {
                            Target::Instance(file, qual, _)
                                if !entered || self.enters_itself(&file, &qual) =>
                            {
                                Target::Instance(file, qual, Some(id))
                            }
                            _ => Target::Variable(id, name.to_string()),
                        }
                    }
                    _ => Target::Variable(id, name.to_string()),
                }
            }
            // Bound several times, each binding an instance of a class of the tree: an
            // instance of it when they are one class, whichever binding reached the use; else
            // the classes, whose members agree or not.
            bindings if depth < MAX_DEPTH && bindings.len() > 1 => {
                let mut classes: Vec<(String, String)> = Vec::new();
                for b in bindings {
                    let Some(class) = self.bound_class(module, scope, name, b, depth + 1) else {
                        return Target::Variable(id, name.to_string());
                    };
                    if !classes.contains(&class) {
                        classes.push(class);
                    }
                }
                match classes.as_slice() {
                    [(file, qual)] => Target::Instance(file.clone(), qual.clone(), Some(id)),
                    _ => Target::Classes(id, name.to_string(), classes),
                }
            }
            // A parameter or a variable annotated with a class of the tree (`p: Pool`,
            // `current_app: Flask = LocalProxy(…)`).
            [Bound::Annotated(start, end)] if depth < MAX_DEPTH => {
                let annotation = module
                    .tree
                    .root_node()
                    .descendant_for_byte_range(*start, *end)
                    .filter(|a| a.byte_range() == (*start..*end));
                match annotation.map(|a| self.annotated(module, a, depth + 1)) {
                    Some(Target::Instance(file, qual, _)) => Target::Instance(file, qual, Some(id)),
                    _ => Target::Variable(id, name.to_string()),
                }
            }
            // `*args` is a tuple, `**kwargs` a dict, whatever the call passes.
            [Bound::Param]
                if let Some(builtin) = scope
                    .filter(|s| s.kind() == "function_definition")
                    .and_then(|function| splat_builtin(function, module, name)) =>
            {
                Target::Builtin(id, builtin)
            }
            // A parameter pytest fills with a fixture: what the fixture gives.
            [Bound::Param]
                if let Some(function) = scope.filter(|s| s.kind() == "function_definition")
                    && let Some(given) =
                        self.fixture_argument(module, function, name, depth + 1) =>
            {
                match given {
                    Target::Instance(file, qual, _) => Target::Instance(file, qual, Some(id)),
                    Target::Outside(_) => Target::Builtin(id, "pytest fixture"),
                    other => other,
                }
            }
            _ => Target::Variable(id, name.to_string()),
        }
    }

    /// The class of the instance one of several bindings of a local gives: an assignment
    /// from a call of a class (or of a function whose return is told), an annotation, a
    /// fixture pytest passes; `None` for any other binding.
    fn bound_class(
        &self,
        module: &PyModule,
        scope: Option<Node>,
        name: &str,
        bound: &Bound,
        depth: usize,
    ) -> Option<(String, String)> {
        let node = |start: usize, end: usize| {
            module
                .tree
                .root_node()
                .descendant_for_byte_range(start, end)
                .filter(|v| v.byte_range() == (start..end))
        };
        let target = match bound {
            Bound::Value(start, end) => {
                let value = node(*start, *end).filter(|v| v.kind() == "call")?;
                self.expression(module, value, depth)
            }
            Bound::Annotated(start, end) => self.annotated(module, node(*start, *end)?, depth),
            Bound::Param => {
                let function = scope.filter(|s| s.kind() == "function_definition")?;
                self.fixture_argument(module, function, name, depth)?
            }
            _ => return None,
        };
        match target {
            Target::Instance(file, qual, _) => Some((file, qual)),
            _ => None,
        }
    }

    /// What an expression stands for, when it is a class, a module or an outside thing.
    pub(super) fn expression(&self, module: &PyModule, expr: Node, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown("too deep".into());
        }
        match expr.kind() {
            "identifier" => {
                let name = text(expr, module);
                if let Some(class) = method_receiver(expr, module) {
                    let qual = qual_of(class, module);
                    // `cls` in a classmethod is the class; `self` an instance of it.
                    return if receives_class(expr, module) {
                        Target::Class(module.path.clone(), qual)
                    } else {
                        Target::Instance(module.path.clone(), qual, None)
                    };
                }
                self.lookup(module, expr, name, false, depth)
            }
            "attribute" => self.attribute_target(module, expr, depth),
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
                if function.kind() == "attribute"
                    && let Some(returned) = self.method_call(module, function, depth + 1)
                {
                    return returned;
                }
                match self.expression(module, function, depth + 1) {
                    // An instance of a class of the tree.
                    Target::Class(file, qual) => Target::Instance(file, qual, None),
                    // What a function of the tree returns, when the code says.
                    Target::Function(file, qual) => self.returns(&file, &qual, None, depth + 1),
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

    /// What `object.attr` stands for: a module's binding or submodule, a nested class, a
    /// member's value (see [`PyProject::member_value`]), or what is outside the tree.
    fn attribute_target(&self, module: &PyModule, expr: Node, depth: usize) -> Target {
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
                            None => Target::Unknown(format!("{file} does not bind `{attr}`")),
                        }
                    } else {
                        self.bound_target(&m, None, attr, &bound, false, depth + 1)
                    }
                }
                None => Target::Unknown(format!("{file} cannot be read")),
            },
            Target::Outside(why) => Target::Outside(why),
            Target::Builtin(_, builtin) => {
                Target::Outside(format!("an attribute of a builtin {builtin}"))
            }
            target @ (Target::Class(..) | Target::Instance(..)) => {
                let instance = matches!(target, Target::Instance(..));
                let (Target::Class(file, qual) | Target::Instance(file, qual, _)) = target else {
                    return Target::Unknown(String::new());
                };
                match self.class_node(&file, &qual) {
                    Some((m, _)) => {
                        let inner = format!("{qual}.{attr}");
                        if find_class(&m, &inner).is_some() {
                            Target::Class(file, inner)
                        } else if instance {
                            match self.member_value(&file, &qual, attr, depth + 1) {
                                Target::Unknown(why) => self
                                    .outside_base_member(&file, &qual, attr)
                                    .map_or(Target::Unknown(why), Target::Outside),
                                value => value,
                            }
                        } else {
                            // Through the class object only a method is told.
                            match self.member_value(&file, &qual, attr, depth + 1) {
                                function @ Target::Function(..) => function,
                                _ => {
                                    Target::Unknown(format!("`{}` is a value", text(expr, module)))
                                }
                            }
                        }
                    }
                    None => Target::Unknown(String::new()),
                }
            }
            _ => Target::Unknown(format!("the type of `{}` is not known", text(expr, module))),
        }
    }

    /// `object.method(…)` for an object of a class of the tree (or the class itself): what
    /// the method returns, `self` being the object's class; `None` when `object.method` is no
    /// method of such a class.
    fn method_call(&self, module: &PyModule, function: Node, depth: usize) -> Option<Target> {
        let object = function.child_by_field_name("object")?;
        let attr = text(function.child_by_field_name("attribute")?, module);
        let (Target::Class(file, qual) | Target::Instance(file, qual, _)) =
            self.expression(module, object, depth + 1)
        else {
            return None;
        };
        match self.member_value(&file, &qual, attr, depth + 1) {
            Target::Function(owner, member) => {
                Some(self.returns(&owner, &member, Some((file, qual)), depth + 1))
            }
            _ => None,
        }
    }

    fn class_node(&self, file: &str, qual: &str) -> Option<(Arc<PyModule>, usize)> {
        let m = self.module(file)?;
        let id = find_class(&m, qual)?.id();
        Some((m, id))
    }
}

/// What a function's `*name` (a tuple) or `**name` (a dict) parameter holds; `None` for any
/// other parameter.
fn splat_builtin(function: Node, module: &PyModule, name: &str) -> Option<&'static str> {
    let params = function.child_by_field_name("parameters")?;
    let mut cursor = params.walk();
    params.named_children(&mut cursor).find_map(|p| {
        let splat = match p.kind() {
            "typed_parameter" => p.named_child(0)?,
            _ => p,
        };
        let builtin = match splat.kind() {
            "list_splat_pattern" => "tuple",
            "dictionary_splat_pattern" => "dict",
            _ => return None,
        };
        let ident = splat.named_child(0).filter(|i| i.kind() == "identifier")?;
        (text(ident, module) == name).then_some(builtin)
    })
}
