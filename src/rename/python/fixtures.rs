//! pytest fixtures: a parameter of a test function (or of a fixture) that pytest fills with
//! the fixture of its name, so that `app.route(…)` in `def test_x(app)` resolves through what
//! the fixture `app` returns (or yields) instead of staying undecided: a test suite's
//! receivers are mostly fixtures, and a type checker does not type them either.
//!
//! The fixture is the one pytest picks: the nearest definition of that name, looked for in
//! the test's class, its module, then each `conftest.py` from the module's directory up to
//! the root (a fixture that requests its own name gets the next one out). Anything pytest
//! may decide otherwise leaves the parameter unknown: a `parametrize` naming it (on the
//! function, a class around it, or a module's `pytestmark`), a `pytest_generate_tests` hook
//! on the way, a level that defines the name twice or names a fixture by an expression, a
//! parameter with a default, a function pytest does not call.

use super::members::find_function;
use super::scopes::scope_of;
use super::types::{Value, one_class};
use super::{MAX_DEPTH, PyModule, PyProject, Target, text};
use std::sync::Arc;
use tree_sitter::Node;

/// The nodes whose `return` and `yield` are not the enclosing function's own.
const NESTED: &[&str] = &["function_definition", "lambda", "class_definition"];

/// pytest's own fixtures, which give its objects or the standard library's.
const PYTEST_FIXTURES: &[&str] = &[
    "cache",
    "capfd",
    "capfdbinary",
    "caplog",
    "capsys",
    "capsysbinary",
    "doctest_namespace",
    "monkeypatch",
    "pytestconfig",
    "record_property",
    "record_testsuite_property",
    "record_xml_attribute",
    "recwarn",
    "request",
    "tmp_path",
    "tmp_path_factory",
    "tmpdir",
    "tmpdir_factory",
];

/// One place pytest looks for fixtures: a class body (its node's start) or a whole module.
struct Level {
    module: Arc<PyModule>,
    /// The class whose body is the level (its start byte), or `None` for the module.
    class: Option<usize>,
}

impl PyProject<'_> {
    /// What pytest passes as parameter `name` of `function` (a function definition of
    /// `module`), when it passes a fixture there: the fixture's value, or unknown with why;
    /// `None` when pytest does not fill that parameter (not a test or fixture, a default).
    pub(super) fn fixture_argument(
        &self,
        module: &PyModule,
        function: Node,
        name: &str,
        depth: usize,
    ) -> Option<Target> {
        if depth > MAX_DEPTH || !plain_parameter(function, module, name) {
            return None;
        }
        let fixture = is_fixture(function, module);
        if !fixture && !is_test(module, function) {
            return None;
        }
        let unknown = |why: String| Some(Target::Unknown(why));
        if parametrized(function, module, name) {
            return unknown(format!(
                "`{name}` may be parametrized: pytest passes each value given, not a fixture"
            ));
        }
        let levels = self.levels(module, function);
        // A fixture that requests its own name gets the definition of the next level out
        // (its own level is the nearest one).
        let own = fixture && fixture_name(function, module).as_deref() == Some(name);
        for level in levels.iter().skip(usize::from(own)) {
            let m = &level.module;
            if level.class.is_none() && defines(m, "pytest_generate_tests") {
                return unknown(format!(
                    "{} has a `pytest_generate_tests` hook, which may parametrize `{name}`",
                    m.path
                ));
            }
            let found = match fixtures_at(level, name) {
                Ok(found) => found,
                Err(why) => return unknown(why),
            };
            match found.as_slice() {
                [] => {}
                [start] => {
                    let definition = function_at(m, *start);
                    return match definition {
                        Some(d) => Some(self.fixture_value(m, d, depth + 1)),
                        None => unknown(format!("the fixture `{name}` is not found")),
                    };
                }
                _ => {
                    return unknown(format!(
                        "{} defines the fixture `{name}` more than once",
                        m.path
                    ));
                }
            }
        }
        // pytest's own fixtures give its objects or the standard library's, never the
        // tree's, unless a plugin of the tree may define one of that name.
        let plugins = levels
            .iter()
            .any(|l| l.class.is_none() && binds_at_top(&l.module, "pytest_plugins"));
        if PYTEST_FIXTURES.contains(&name) && !plugins {
            return Some(Target::Outside(format!("pytest's fixture `{name}`")));
        }
        unknown(format!(
            "the fixture `{name}` is not defined in the tree (a plugin's, or none)"
        ))
    }

    /// Where pytest looks for a fixture requested by `function`, nearest first: the class
    /// around it, its module, each `conftest.py` from its directory up to the root.
    fn levels(&self, module: &PyModule, function: Node) -> Vec<Level> {
        let mut levels = Vec::new();
        let Some(this) = self.module(&module.path) else {
            return levels;
        };
        if let Some(class) = scope_of(function, module).filter(|c| c.kind() == "class_definition") {
            levels.push(Level {
                module: Arc::clone(&this),
                class: Some(class.start_byte()),
            });
        }
        levels.push(Level {
            module: this,
            class: None,
        });
        let mut dir = module.path.rsplit_once('/').map(|(d, _)| d);
        loop {
            let conftest = match dir {
                Some(d) => format!("{d}/conftest.py"),
                None => "conftest.py".to_string(),
            };
            if conftest != module.path
                && self.files.contains(&conftest)
                && let Some(m) = self.module(&conftest)
            {
                levels.push(Level {
                    module: m,
                    class: None,
                });
            }
            match dir {
                Some(d) => dir = d.rsplit_once('/').map(|(p, _)| p),
                None => break,
            }
        }
        levels
    }

    /// What a fixture function gives a test: what it yields (a generator fixture, one value)
    /// or returns, as the types rules tell it (its return annotation when it returns).
    fn fixture_value(&self, m: &PyModule, function: Node, depth: usize) -> Target {
        let fname = function
            .child_by_field_name("name")
            .map_or("a fixture", |n| text(n, m));
        let unknown = |why: &str| {
            Target::Unknown(format!(
                "what the fixture {fname} gives is not known: {why}"
            ))
        };
        if function.child(0).is_some_and(|c| c.kind() == "async") {
            return unknown("it is a coroutine");
        }
        let Some(body) = function.child_by_field_name("body") else {
            return unknown("it has no body");
        };
        let mut returns = Vec::new();
        let mut yields = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "return_statement" => returns.push(n.named_child(0)),
                "yield" => {
                    if n.child(1).is_some_and(|c| c.kind() == "from") {
                        return unknown("it yields from another iterator");
                    }
                    yields.push(n.named_child(0));
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| !NESTED.contains(&c.kind())),
            );
        }
        if yields.is_empty()
            && let Some(annotation) = function.child_by_field_name("return_type")
        {
            return match self.annotated(m, annotation, depth + 1) {
                instance @ Target::Instance(..) => instance,
                _ => unknown(&format!(
                    "its annotation `{}` is no class of the tree",
                    text(annotation, m)
                )),
            };
        }
        let values = if yields.is_empty() { returns } else { yields };
        let values = values
            .into_iter()
            .map(|v| self.value(m, v, &None, depth + 1));
        match one_class(values) {
            Ok(Value::Instance(file, qual)) => Target::Instance(file, qual, None),
            Ok(Value::Builtin(builtin)) => Target::Outside(format!("a builtin {builtin}")),
            Ok(Value::None) => unknown("no value tells its class"),
            Err(why) => unknown(&why),
        }
    }
}

/// Whether `name` is a parameter of `function` pytest fills: a plain or annotated one,
/// without a default, not `*args` / `**kwargs`, not the receiver of a method.
fn plain_parameter(function: Node, module: &PyModule, name: &str) -> bool {
    let Some(params) = function.child_by_field_name("parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    params.named_children(&mut cursor).any(|p| {
        let ident = match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|i| i.kind() == "identifier"),
            _ => None,
        };
        ident.is_some_and(|i| text(i, module) == name)
    })
}

/// Whether a function definition is decorated as a pytest fixture (`@pytest.fixture`,
/// `@fixture`, either called with arguments).
fn is_fixture(function: Node, module: &PyModule) -> bool {
    fixture_decorator(function, module).is_some()
}

/// The `@pytest.fixture…` decorator's expression of a function definition.
fn fixture_decorator<'t>(function: Node<'t>, module: &PyModule) -> Option<Node<'t>> {
    let holder = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut cursor = holder.walk();
    holder
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .find(|e| {
            let callee = match e.kind() {
                "call" => e.child_by_field_name("function"),
                _ => Some(*e),
            };
            callee.is_some_and(|c| {
                matches!(
                    text(c, module),
                    "pytest.fixture" | "fixture" | "pytest.yield_fixture"
                )
            })
        })
}

/// The name a fixture is requested by: its `name="…"` argument, else its function's name;
/// `None` when `name=` is not a plain string.
fn fixture_name(function: Node, module: &PyModule) -> Option<String> {
    let decorator = fixture_decorator(function, module)?;
    if decorator.kind() == "call"
        && let Some(args) = decorator.child_by_field_name("arguments")
    {
        let mut cursor = args.walk();
        for arg in args.named_children(&mut cursor) {
            if arg.kind() == "keyword_argument"
                && arg
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, module) == "name")
            {
                let value = arg.child_by_field_name("value")?;
                let quoted = text(value, module);
                let plain = value.kind() == "string"
                    && !quoted.starts_with(['f', 'F', 'b', 'B', 'r', 'R'])
                    && quoted.len() >= 2;
                return plain.then(|| quoted[1..quoted.len() - 1].to_string());
            }
        }
    }
    function
        .child_by_field_name("name")
        .map(|n| text(n, module).to_string())
}

/// Whether a `parametrize` may give parameter `name` its values: one on the function or a
/// class around it naming it, or a module `pytestmark` that parametrizes.
fn parametrized(function: Node, module: &PyModule, name: &str) -> bool {
    // A `parametrize` naming it, or whose names lancet cannot read (not strings).
    let names_it = |decorator: Node| {
        if !text(decorator, module).contains("parametrize") {
            return false;
        }
        let first = decorator
            .named_child(0)
            .filter(|c| c.kind() == "call")
            .and_then(|c| c.child_by_field_name("arguments"))
            .and_then(|a| a.named_child(0));
        match first.map(|f| parametrized_names(f, module)) {
            Some(Some(names)) => names.iter().any(|n| n == name),
            _ => true,
        }
    };
    let mut at = Some(function);
    while let Some(n) = at {
        if let Some(holder) = n.parent().filter(|p| p.kind() == "decorated_definition") {
            let mut cursor = holder.walk();
            if holder
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "decorator")
                .any(names_it)
            {
                return true;
            }
        }
        at = scope_of(n, module);
    }
    let root = module.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|s| {
        let t = text(s, module);
        t.starts_with("pytestmark") && t.contains("parametrize")
    })
}

/// The argument names a `parametrize` gives values to: `"a, b"`, `("a", "b")`, `["a", "b"]`;
/// `None` when they are not plain strings.
fn parametrized_names(first: Node, module: &PyModule) -> Option<Vec<String>> {
    let plain = |s: Node| {
        let quoted = text(s, module);
        (s.kind() == "string"
            && quoted.len() >= 2
            && !quoted.starts_with(['f', 'F', 'b', 'B', 'r', 'R']))
        .then(|| quoted[1..quoted.len() - 1].to_string())
    };
    match first.kind() {
        "string" => Some(
            plain(first)?
                .split(',')
                .map(|n| n.trim().to_string())
                .collect(),
        ),
        "tuple" | "list" => {
            let mut cursor = first.walk();
            first.named_children(&mut cursor).map(plain).collect()
        }
        _ => None,
    }
}

/// Whether a module defines function `name` at its top (a hook).
fn defines(m: &PyModule, name: &str) -> bool {
    let root = m.tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|s| {
        let def = match s.kind() {
            "decorated_definition" => s.child_by_field_name("definition"),
            _ => Some(s),
        };
        def.is_some_and(|d| {
            d.kind() == "function_definition"
                && d.child_by_field_name("name")
                    .is_some_and(|n| text(n, m) == name)
        })
    })
}

/// Whether a module's top binds `name` (`pytest_plugins = […]`).
fn binds_at_top(m: &PyModule, name: &str) -> bool {
    super::binds(m, None, name)
}

/// Whether pytest collects `function` as a test: `test*` at the top of a test module
/// (`test_*.py`, `*_test.py`) or in a top-level `Test*` class there without `__init__`.
fn is_test(module: &PyModule, function: Node) -> bool {
    let file = module.path.rsplit('/').next().unwrap_or(&module.path);
    let test_file =
        file.ends_with(".py") && (file.starts_with("test_") || file.ends_with("_test.py"));
    let named = function
        .child_by_field_name("name")
        .is_some_and(|n| text(n, module).starts_with("test"));
    if !test_file || !named {
        return false;
    }
    match scope_of(function, module) {
        None => true,
        Some(class) if class.kind() == "class_definition" && scope_of(class, module).is_none() => {
            let name = class
                .child_by_field_name("name")
                .map_or("", |n| text(n, module));
            name.starts_with("Test") && find_function(module, &format!("{name}.__init__")).is_none()
        }
        Some(_) => false,
    }
}

/// The function definition that starts at `start` in a module.
fn function_at(m: &PyModule, start: usize) -> Option<Node<'_>> {
    let mut at = m.tree.root_node().descendant_for_byte_range(start, start);
    while let Some(n) = at {
        if n.kind() == "function_definition" && n.start_byte() == start {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

/// The body a level's fixtures are defined in: its class's, or the module.
fn level_body(level: &Level) -> Option<Node<'_>> {
    let root = level.module.tree.root_node();
    let Some(start) = level.class else {
        return Some(root);
    };
    let mut at = root.descendant_for_byte_range(start, start);
    while let Some(n) = at {
        if n.kind() == "class_definition" && n.start_byte() == start {
            return n.child_by_field_name("body");
        }
        at = n.parent();
    }
    None
}

/// The starts of the fixture functions named `name` a level defines, or why the level
/// cannot be read for it.
fn fixtures_at(level: &Level, name: &str) -> Result<Vec<usize>, String> {
    let m = &level.module;
    let Some(body) = level_body(level) else {
        return Err(format!("a class of {} cannot be read", m.path));
    };
    let mut found = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "decorated_definition" => {
                    let Some(d) = child
                        .child_by_field_name("definition")
                        .filter(|d| d.kind() == "function_definition" && is_fixture(*d, m))
                    else {
                        continue;
                    };
                    match fixture_name(d, m) {
                        Some(n) if n == name => found.push(d.start_byte()),
                        Some(_) => {}
                        None => {
                            return Err(format!(
                                "a fixture of {} is named by an expression lancet cannot read",
                                m.path
                            ));
                        }
                    }
                }
                "if_statement" | "try_statement" | "else_clause" | "elif_clause"
                | "except_clause" | "finally_clause" | "block" | "with_statement" => {
                    stack.push(child)
                }
                _ => {}
            }
        }
    }
    Ok(found)
}
