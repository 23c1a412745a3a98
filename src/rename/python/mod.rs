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
//!
//! By grammar area: [`scopes`] (what each scope binds), [`names`] (a name looked up, an
//! expression's value), [`imports`] (modules of the tree), [`members`] (attributes, bases and
//! keyword arguments), [`subclasses`] (a class's subclasses of the tree, for `self.x` its class
//! lacks), [`fixtures`] (a test's parameters pytest fills).

use super::memo::remembered;
use super::model::{Parsed as PyModule, Resolution, SymbolId};
use super::resolve::{Resolved, Resolver, Sources, by_node};
use lancet_syntax::languages;
use scopes::{Bound, bindings_in};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tree_sitter::{Node, Parser};

mod fixtures;
mod imports;
mod keywords;
mod members;
pub(crate) use members::{Receiver, decorated_as};
pub(crate) use scopes::{binding_id, qual_of, scope_of};
mod names;
mod outside_bases;
pub(crate) use names::is_builtin;
mod scopes;
mod subclasses;
mod tree_files;
mod types;

/// The tree's Python modules: the walked file list, the files already parsed, and the others
/// parsed on demand (a package `__init__.py` that re-exports, a base class's module).
pub(crate) struct PyProject<'a> {
    /// The walked `.py` files, indexed.
    files: tree_files::TreeFiles,
    /// The directories an absolute import starts from: the tree's top, `src/`, `lib/`, and each
    /// distribution's directory (one holding `pyproject.toml`, `setup.py` or `setup.cfg`: a
    /// package of a monorepo) with its `src/`.
    source_roots: Vec<String>,
    parsed: Mutex<HashMap<String, Option<Arc<PyModule>>>>,
    /// Reads a file of the tree, for the modules parsed on demand.
    read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// Python's grammar, to parse them.
    grammar: Option<tree_sitter::Language>,
    modules: Mutex<HashMap<String, Option<Vec<String>>>>,
    /// Memo of [`PyProject::resolve_module_at`] by the importer's directory, the dotted name
    /// and whether as Python runs it: a move's import cycle search resolves `import os` of
    /// hundreds of modules of one directory.
    resolved: Mutex<HashMap<ResolvedKey, ModuleResolution>>,
    /// Memo of [`bindings_in`] by file, scope (its start byte; module: none) and name: a
    /// rename of a method used 40,000 times asks the same scopes again and again.
    bindings: Mutex<HashMap<BindingKey, Arc<Vec<Bound>>>>,
    /// Memo of class members by file, class and name.
    members: Mutex<HashMap<(String, String, String), Resolution>>,
    /// Memo of [`PyProject::subclasses`] by file and class (a search that cannot answer
    /// included: it cannot later).
    subclass_memo: Mutex<HashMap<subclasses::Class, Option<Arc<Vec<subclasses::Class>>>>>,
    /// Memo of [`PyProject::hierarchy_lacks`] by file, class and name.
    lacks: Mutex<HashMap<(String, String, String), members::Lacks>>,
    /// Memo of each file's classes and what their bases are, for the subclass searches.
    file_classes: Mutex<HashMap<String, subclasses::FileClasses>>,
    /// The files by the words they spell, for the subclass searches.
    words: OnceLock<crate::rename::word_index::WordIndex>,
}

/// An import resolved: the importer's directory, the dotted name, whether as Python runs it.
type ResolvedKey = (String, String, bool);

/// A module's file, or whether it is outside the tree (true) or unknown (false) and why.
type ModuleResolution = Result<String, (bool, String)>;

/// A scope's bindings of one name, by file, whether in its doctests, scope start (module:
/// none) and name.
type BindingKey = (String, bool, Option<usize>, String);

/// What a name (or an expression) stands for.
#[derive(Debug, Clone)]
enum Target {
    /// A variable, function or attribute binding of the tree, by id.
    Binding(SymbolId),
    /// A function of the tree: its file and qualified name (for keyword arguments).
    Function(String, String),
    /// A class of the tree (the class object itself): its file and qualified name.
    Class(String, String),
    /// An instance of a class of the tree (`C()`, `self`, a variable assigned once from a call
    /// of C): the class's file and qualified name, and the variable's binding when it is one.
    /// Its members are the class's; calling a method through it binds `self`.
    Instance(String, String, Option<SymbolId>),
    /// A module of the tree (its file).
    Module(String),
    /// A variable of the tree whose type lancet does not know: its binding id and name.
    Variable(SymbolId, String),
    /// A variable of the tree bound more than once, each binding an instance of a class of
    /// the tree, not all one (a fixture's `Flask`, then `StaticFileApp(…)`): its binding id,
    /// name and the classes. A member is told when every class's lookup gives the same one.
    Classes(SymbolId, String, Vec<(String, String)>),
    /// A variable of the tree bound once to a literal (`d = {}`): its binding id and the
    /// builtin it holds (its members are outside the tree; the name itself is the tree's).
    Builtin(SymbolId, &'static str),
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

/// How deep import chains and base classes are followed.
const MAX_DEPTH: usize = 12;

fn text<'t>(node: Node, module: &'t PyModule) -> &'t str {
    &module.text[node.byte_range()]
}

fn same_target(a: &Target, b: &Target) -> bool {
    match (a, b) {
        (Target::Binding(x), Target::Binding(y)) => x == y,
        (Target::Module(x), Target::Module(y)) => x == y,
        (Target::Instance(f, q, x), Target::Instance(g, r, y)) => f == g && q == r && x == y,
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
            Resolution::Symbol(python_id(&file, qual))
        }
        Target::Module(file) => Resolution::Unresolved(format!("the module {file}")),
        Target::Instance(_, _, Some(binding)) | Target::Builtin(binding, _) => {
            Resolution::Symbol(binding)
        }
        Target::Instance(_, qual, None) => Resolution::Unresolved(format!("an instance of {qual}")),
        Target::Outside(why) => Resolution::Outside(why),
        Target::Unknown(why) => Resolution::Unresolved(why),
        Target::Classes(binding, ..) => Resolution::Symbol(binding),
        Target::Variable(_, name) => Resolution::Unresolved(unknown_type(&name)),
        Target::Super(_) => Resolution::Unresolved("`super()`".into()),
    }
}

/// The id of a definition by qualified name: the binding of its last part in its parent's
/// scope (a class member `C.m`, a local `f::g`, a module name `f`).
fn python_id(file: &str, qual: String) -> SymbolId {
    SymbolId::Python {
        module: file.to_string(),
        qual,
    }
}

/// The directories an absolute import starts from (see [`PyProject::source_roots`]).
fn source_roots(files: &[String]) -> Vec<String> {
    let mut roots: Vec<String> = ["", "src", "lib"].map(String::from).to_vec();
    for f in files {
        let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
        if !dir.is_empty() && matches!(name, "pyproject.toml" | "setup.py" | "setup.cfg") {
            for root in [dir.to_string(), format!("{dir}/src")] {
                if !roots.contains(&root) {
                    roots.push(root);
                }
            }
        }
    }
    roots
}

impl<'a> PyProject<'a> {
    /// A project over the walked files: the scanned Python files as parsed, the other `.py`
    /// files read and parsed when an import or a base class reaches them.
    pub(in crate::rename) fn new(sources: &'a Sources<'a>) -> Self {
        PyProject {
            files: tree_files::TreeFiles::new(sources.files),
            parsed: Mutex::new(
                sources
                    .of_language("python")
                    .map(|m| (m.path.clone(), Some(Arc::clone(m))))
                    .collect(),
            ),
            source_roots: source_roots(sources.files),
            read: sources.read,
            grammar: languages::languages()
                .iter()
                .find(|e| e.name == "python")
                .and_then(languages::grammar),
            modules: Mutex::new(HashMap::new()),
            resolved: Mutex::new(HashMap::new()),
            bindings: Mutex::new(HashMap::new()),
            members: Mutex::new(HashMap::new()),
            subclass_memo: Mutex::new(HashMap::new()),
            lacks: Mutex::new(HashMap::new()),
            file_classes: Mutex::new(HashMap::new()),
            words: OnceLock::new(),
        }
    }

    /// [`bindings_in`], remembered.
    fn bindings(&self, module: &PyModule, scope: Option<Node>, name: &str) -> Arc<Vec<Bound>> {
        let key = (
            module.path.clone(),
            module.doctest_wrappers.is_some(),
            scope.map(|s| s.start_byte()),
            name.to_string(),
        );
        remembered(&self.bindings, key, || {
            Arc::new(bindings_in(module, scope, name))
        })
    }

    fn module(&self, path: &str) -> Option<Arc<PyModule>> {
        if let Some(m) = self.parsed.lock().ok()?.get(path) {
            return m.clone();
        }
        let loaded = self.load(path).map(Arc::new);
        self.parsed
            .lock()
            .ok()?
            .insert(path.to_string(), loaded.clone());
        loaded
    }

    /// Reads and parses a file of the tree that was not parsed yet.
    fn load(&self, path: &str) -> Option<PyModule> {
        let text = (self.read)(path)?;
        let mut parser = Parser::new();
        parser.set_language(self.grammar.as_ref()?).ok()?;
        let tree = parser.parse(&text, None)?;
        Some(PyModule {
            path: path.to_string(),
            text,
            tree,
            doctest_wrappers: None,
        })
    }

    /// Classifies one occurrence of `name` (an identifier node of `module`).
    fn resolve(&self, module: &PyModule, node: Node, name: &str) -> Resolution {
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
                let is_alias = parent
                    .child_by_field_name("alias")
                    .is_some_and(|a| a.id() == node.id());
                match parent.child_by_field_name("name") {
                    // `from m import name as name`: the imported name itself (a re-export),
                    // renamed with it as its other half is.
                    Some(original)
                        if is_alias
                            && original.kind() == "dotted_name"
                            && text(original, module) == name
                            && parent
                                .parent()
                                .is_some_and(|p| p.kind() == "import_from_statement") =>
                    {
                        match original.named_child(0) {
                            Some(first) => self.in_import(module, original, text(first, module)),
                            None => Resolution::Unresolved("part of an import".into()),
                        }
                    }
                    // `... as name`: a local binding of this module (or scope).
                    _ if is_alias => {
                        Resolution::Symbol(binding_id(module, scope_of(node, module), name))
                    }
                    _ => Resolution::Unresolved("part of an import".into()),
                }
            }
            "global_statement" => Resolution::Symbol(binding_id(module, None, name)),
            _ => self.name(module, node, name),
        }
    }
}

impl PyProject<'_> {
    /// What each identifier spelled `name` at `offsets` of `file` refers to, as a rename
    /// resolves it.
    pub(crate) fn resolve_names(
        &self,
        file: &PyModule,
        offsets: &[usize],
        name: &str,
    ) -> Vec<Resolution> {
        self.resolve_file(file, offsets, name)
            .into_iter()
            .map(|r| r.value)
            .collect()
    }
}

impl PyProject<'_> {
    /// The file of the module an import in `module` names (`a.b`, `.b`, `..`), when it is
    /// one file of the tree: what a move asks of each import it may rewrite.
    pub(crate) fn import_file(&self, module: &PyModule, dotted: &str) -> Option<String> {
        self.resolve_module(module, dotted).ok()
    }

    /// [`Self::import_file`] as Python runs the import (no sibling of a package's module for
    /// an absolute name): what an import cycle is made of.
    pub(crate) fn import_file_on_load(&self, module: &PyModule, dotted: &str) -> Option<String> {
        self.resolve_module_at(&module.path, dotted, true).ok()
    }

    /// The module of the tree an expression stands for (`a`, `pkg.a`, an alias of one).
    pub(crate) fn module_of(&self, module: &PyModule, expr: Node) -> Option<String> {
        match self.expression(module, expr, 0) {
            Target::Module(file) => Some(file),
            _ => None,
        }
    }
}

/// Whether `scope` (None: the module) binds `name` itself: not through `global` or
/// `nonlocal`, which bind it in another scope.
pub(crate) fn binds(module: &PyModule, scope: Option<Node>, name: &str) -> bool {
    bindings_in(module, scope, name)
        .iter()
        .any(|b| !matches!(b, Bound::Global | Bound::Nonlocal))
}

/// Whether the module has a `from x import *` at its top (a name it does not bind may come
/// from it).
pub(crate) fn imports_star(module: &PyModule) -> bool {
    scopes::has_wildcard(module)
}

impl Resolver for PyProject<'_> {
    fn languages(&self) -> &'static [&'static str] {
        &["python"]
    }

    fn resolve_file(&self, file: &PyModule, offsets: &[usize], old: &str) -> Vec<Resolved> {
        by_node(file, offsets, old, |node| {
            self.resolve(file, node, old).into()
        })
    }

    /// A method and the one it overrides (through the tree's classes); a definition and a
    /// module's re-export of it.
    fn related(&self, a: &SymbolId, b: &SymbolId) -> bool {
        self.overrides(a, b) || self.reexports(a, b) || self.reexports(b, a)
    }

    /// A member `Class.own` (a method, a class attribute, an attribute `self` sets): a base
    /// outside the tree that may define `name`, up its class's hierarchy or a subclass's.
    fn reached_from_outside(
        &self,
        id: &SymbolId,
        name: &str,
    ) -> Option<crate::report::OutsideReach> {
        let (module, class) = id.python_member()?;
        self.outside_reach(module, class, name)
    }

    /// A member `Class.own`: a class of the tree in `Class`'s hierarchy defining `name`.
    fn in_hierarchy(&self, id: &SymbolId, name: &str) -> Option<(String, usize, String)> {
        let (module, class) = id.python_member()?;
        self.hierarchy_member(module, class, name)
    }
}

#[cfg(test)]
mod tests {
    use super::PyProject;
    use crate::rename::resolve::testing::Fixture;

    /// Each occurrence of `old` in `path`, resolved over the files of the tree.
    fn resolve(files: &[(&str, &str)], path: &str, old: &str) -> Vec<String> {
        let fixture = Fixture::new(files, &[path]);
        let sources = fixture.sources();
        fixture.resolve(&PyProject::new(&sources), path, old)
    }

    /// The subclass search walks only what may hold a class (blocks, compound statements,
    /// definitions): a subclass defined in a function inside an `except` clause is still found.
    #[test]
    fn a_subclass_nested_in_clauses_and_functions_is_found() {
        let text = "class Mixin:\n    def t(self):\n        self.check()\n\ntry:\n    import x\nexcept ImportError:\n    def make():\n        class Impl(Mixin):\n            def check(self):\n                pass\n        return Impl\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "check"),
            ["3 = a.py::make.Impl.check", "10 = a.py::make.Impl.check"]
        );
    }

    #[test]
    fn a_module_function_and_its_calls_are_one_symbol() {
        let text = "def total(n):\n    return n\n\nprint(total(1))\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "total"),
            ["1 = a.py::total", "4 = a.py::total"]
        );
    }

    #[test]
    fn a_parameter_shadows_the_module_binding() {
        let text = "total = 1\n\ndef f(total):\n    return total\n\nprint(total)\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "total"),
            [
                "1 = a.py::total",
                "3 = a.py::f::total",
                "4 = a.py::f::total",
                "6 = a.py::total"
            ]
        );
    }

    #[test]
    fn an_import_of_the_tree_is_the_imported_definition() {
        let files = [
            ("shop/cart.py", "def total():\n    return 0\n"),
            ("main.py", "from shop.cart import total\n\ntotal()\n"),
        ];
        assert_eq!(
            resolve(&files, "main.py", "total"),
            ["1 = shop/cart.py::total", "3 = shop/cart.py::total"]
        );
    }

    #[test]
    fn methods_resolve_through_self_instances_and_bases() {
        let text = "class Base:\n    def total(self):\n        return 0\n\nclass Cart(Base):\n    def run(self):\n        return self.total()\n\nc = Cart()\nc.total()\nCart().total()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "total"),
            [
                "2 = a.py::Base.total",
                "7 = a.py::Base.total",
                "10 = a.py::Base.total",
                "11 = a.py::Base.total"
            ]
        );
    }

    #[test]
    fn a_keyword_argument_is_the_parameter_of_the_function_called() {
        let text = "def f(total=0):\n    return total\n\nf(total=1)\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "total"),
            [
                "1 = a.py::f::total",
                "2 = a.py::f::total",
                "4 = a.py::f::total"
            ]
        );
    }

    #[test]
    fn returns_properties_and_attributes_type_their_receivers() {
        let text = "class Conn:\n    def close(self):\n        pass\n\n    def again(self) -> \"Conn\":\n        return self\n\n\nclass Pool:\n    conn: Conn\n\n    def __init__(self):\n        self.spare = None\n        self.spare = Conn()\n\n    @property\n    def first(self) -> Conn:\n        return self.conn\n\n\ndef connect():\n    return Conn()\n\n\ndef maybe() -> Optional[Conn]:\n    return None\n\n\ndef either() -> Conn | None:\n    return None\n\n\ndef run(p: Pool):\n    c = connect()\n    c.close()\n    connect().again().close()\n    p.conn.close()\n    p.first.close()\n    Pool().spare.close()\n    maybe().close()\n    either().close()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "close"),
            [
                "2 = a.py::Conn.close",
                "35 = a.py::Conn.close",
                "36 = a.py::Conn.close",
                "37 = a.py::Conn.close",
                "38 = a.py::Conn.close",
                "39 = a.py::Conn.close",
                "40 = a.py::Conn.close",
                "41 = a.py::Conn.close"
            ]
        );
    }

    #[test]
    fn a_variable_annotated_with_a_class_holds_one_whatever_its_value() {
        // `current: Conn = proxy()` (flask's `current_app: Flask = LocalProxy(…)`): the
        // declared class decides, as a type checker takes it; without an annotation the
        // unknown value leaves it undecided.
        let text = "class Conn:\n    def close(self):\n        pass\n\n\ncurrent: Conn = proxy()\nother = proxy()\ncurrent.close()\nother.close()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "close"),
            [
                "2 = a.py::Conn.close",
                "8 = a.py::Conn.close",
                "9 ? `other` is a variable of unknown type"
            ]
        );
    }

    #[test]
    fn a_test_parameter_is_the_fixture_pytest_passes() {
        // conftest's `app` returns an App, `ctx` yields a Ctx; a module's own fixture wins
        // over conftest's, a class's over the module's, a fixture requesting its own name
        // gets the next one out; a parametrized name, a parameter with a default and a
        // function pytest does not call stay undecided; pytest's own fixtures are outside.
        let files = [
            (
                "pkg/app.py",
                "class App:\n    def run(self):\n        pass\n\n\nclass Ctx:\n    def run(self):\n        pass\n",
            ),
            (
                "tests/conftest.py",
                "import pytest\nfrom pkg.app import App, Ctx\n\n\n@pytest.fixture\ndef app():\n    app = App()\n    return app\n\n\n@pytest.fixture(name=\"ctx\")\ndef make_ctx(app):\n    yield Ctx()\n",
            ),
            (
                "tests/test_app.py",
                "import pytest\nfrom pkg.app import Ctx\n\n\ndef test_run(app, ctx, monkeypatch):\n    app.run()\n    ctx.run()\n    monkeypatch.run()\n\n\nclass TestIt:\n    @pytest.fixture\n    def app(self, app):\n        app.run()\n        return Ctx()\n\n    def test_run(self, app):\n        app.run()\n\n\n@pytest.mark.parametrize(\"app\", [1])\ndef test_param(app):\n    app.run()\n\n\n@pytest.mark.parametrize((\"x\", \"y\"), [(1, 2)])\ndef test_tuple(app, x, y):\n    app.run()\n\n\ndef test_default(app=None):\n    app.run()\n\n\ndef helper(app):\n    app.run()\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "tests/test_app.py", "run"),
            [
                "6 = pkg/app.py::App.run",
                "7 = pkg/app.py::Ctx.run",
                "8 outside: `run` of a builtin pytest fixture",
                "14 = pkg/app.py::App.run",
                "18 = pkg/app.py::Ctx.run",
                "23 ? `app` may be parametrized: pytest passes each value given, not a fixture",
                "28 = pkg/app.py::App.run",
                "32 ? `app` is a variable of unknown type",
                "36 ? `app` is a variable of unknown type"
            ]
        );
    }

    #[test]
    fn a_function_local_class_and_a_name_assigned_one_class_twice_type_their_receivers() {
        // `class Custom(App)` inside a test, `app = Custom()`: Custom's inherited `run`;
        // `app = App()` twice is an App; `App()` then `Other()` is not told.
        let text = "class App:\n    def run(self):\n        pass\n\n\nclass Other:\n    def run(self):\n        pass\n\n\ndef test_local():\n    class Custom(App):\n        pass\n\n    app = Custom()\n    app.run()\n\n\ndef test_twice():\n    app = App()\n    app.run()\n    app = App()\n    app.run()\n\n\ndef test_two_classes():\n    app = App()\n    app = Other()\n    app.run()\n";
        assert_eq!(
            resolve(&[("test_a.py", text)], "test_a.py", "run"),
            [
                "2 = test_a.py::App.run",
                "7 = test_a.py::Other.run",
                "16 = test_a.py::App.run",
                "21 = test_a.py::App.run",
                "23 = test_a.py::App.run",
                "29 ? `app` holds an instance of App or Other as it is bound, and their `run` differ"
            ]
        );
    }

    #[test]
    fn self_returned_through_a_subclass_is_the_subclass() {
        // `Sub().again()` is a Sub: its `run` is Sub's own, not Base's.
        let text = "class Base:\n    def again(self):\n        return self\n\n    def run(self):\n        pass\n\n\nclass Sub(Base):\n    def run(self):\n        pass\n\n    @classmethod\n    def make(cls):\n        return cls()\n\n\nSub().again().run()\nSub.make().run()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "run"),
            [
                "5 = a.py::Base.run",
                "10 = a.py::Sub.run",
                "18 = a.py::Sub.run",
                "19 = a.py::Sub.run"
            ]
        );
    }

    #[test]
    fn an_explicit_reexport_is_the_imported_name_under_both_halves() {
        // `from .helpers import make as make` (a typed package's re-export): both names, the
        // package's own use and `pkg.make` are helpers' `make`, renamed together (a rename
        // of one half left `pkg.make` callers broken).
        let files = [
            (
                "pkg/__init__.py",
                "from .helpers import make as make\n\nmake(0)\n",
            ),
            ("pkg/helpers.py", "def make(x):\n    return x\n"),
            ("t.py", "import pkg\n\npkg.make(1)\n"),
        ];
        assert_eq!(
            resolve(&files, "pkg/__init__.py", "make"),
            [
                "1 = pkg/helpers.py::make",
                "1 = pkg/helpers.py::make",
                "3 = pkg/helpers.py::make"
            ]
        );
        assert_eq!(
            resolve(&files, "t.py", "make"),
            ["3 = pkg/helpers.py::make"]
        );
    }

    #[test]
    fn a_variable_holding_a_literal_is_still_the_trees_name() {
        // `LIMIT = 30`: its members are the builtin's, but the name, imported or read through
        // its module, is the tree's own binding.
        let files = [
            ("pkg/__init__.py", ""),
            ("pkg/compat.py", "LIMIT = 30\nLIMIT.bit_length()\n"),
            (
                "pkg/use.py",
                "from . import compat\nfrom .compat import LIMIT\n\nprint(LIMIT, compat.LIMIT)\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "pkg/use.py", "LIMIT"),
            [
                "2 = pkg/compat.py::LIMIT",
                "4 = pkg/compat.py::LIMIT",
                "4 = pkg/compat.py::LIMIT"
            ]
        );
    }

    #[test]
    fn returns_the_code_does_not_tell_stay_undecided() {
        // A decorator may wrap the factory, a generator and a coroutine return something
        // else, two classes are not one, a parameter without annotation is anything; a
        // literal is a builtin (outside).
        let text = "class A:\n    def close(self):\n        pass\n\n\nclass B:\n    def close(self):\n        pass\n\n\n@cache\ndef wrapped():\n    return A()\n\n\ndef gen():\n    yield A()\n\n\nasync def coro():\n    return A()\n\n\ndef two(x):\n    if x:\n        return A()\n    return B()\n\n\ndef passed(x):\n    return x\n\n\nwrapped().close()\ngen().close()\ncoro().close()\ntwo(1).close()\npassed(A()).close()\nd = {}\nd.close()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "close"),
            [
                "2 = a.py::A.close",
                "7 = a.py::B.close",
                "34 ? what wrapped returns is not known: its decorator `@cache` may change it",
                "35 ? what gen returns is not known: it is a generator",
                "36 ? what coro returns is not known: it is a coroutine",
                "37 ? what two returns is not known: values of several classes",
                "38 ? what passed returns is not known: `x` is of no known class",
                "40 outside: `close` of a builtin dict"
            ]
        );
    }

    #[test]
    fn a_member_no_class_of_the_tree_defines_comes_from_the_base_outside() {
        // `Client(werkzeug.Client)` defines no `get`, nor does a subclass: on `self`, an
        // instance made or declared as one (`c`, `p`, `Client().cookies`) only werkzeug's
        // base can answer, outside. Undecided: `Session`'s, which its subclass `Custom`
        // defines, a class whose `__getattr__` answers for what the bases lack, a base lancet
        // does not resolve, and a base of the tree that defines it behind a base outside the
        // tree (which Python's lookup reaches first).
        let text = "import werkzeug\n\n\nclass Client(werkzeug.Client):\n    def run(self):\n        return self.get()\n\n\nclass Session(werkzeug.Client):\n    def run(self):\n        return self.get()\n\n\nclass Custom(Session):\n    def get(self):\n        pass\n\n\nclass Proxy(werkzeug.Client):\n    def __getattr__(self, name):\n        return getattr(self.inner, name)\n\n\nclass Mixin:\n    def get(self):\n        pass\n\n\nclass Behind(werkzeug.Client, Mixin):\n    pass\n\n\nclass Odd(Undefined):\n    pass\n\n\ndef use(p: Client):\n    c = Client()\n    c.get()\n    p.get()\n    Client().cookies.get()\n    Session().get()\n    Proxy().get()\n    Behind().get()\n    Odd().get()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "get"),
            [
                "6 outside: `get` of Client comes from its base `werkzeug.Client`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)",
                "11 ? `get` is not defined in class Session of the tree; its base `werkzeug.Client` (outside the tree) may define it",
                "15 = a.py::Custom.get",
                "25 = a.py::Mixin.get",
                "39 outside: `get` of Client comes from its base `werkzeug.Client`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)",
                "40 outside: `get` of Client comes from its base `werkzeug.Client`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)",
                "41 outside: `cookies` of Client comes from its base `werkzeug.Client`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)",
                "42 ? `get` is not defined in class Session of the tree; its base `werkzeug.Client` (outside the tree) may define it",
                "43 ? `get` is not defined in class Proxy of the tree; its base `werkzeug.Client` (outside the tree) may define it",
                "44 ? `get` is not defined in class Behind of the tree; its base `werkzeug.Client` (outside the tree) may define it",
                "45 ? `get` is not defined in class Odd; its base `Undefined` is not resolved"
            ]
        );
    }

    #[test]
    fn a_base_that_reads_a_member_from_outside_does_not_search_again() {
        // flask's debughelpers: `oldcls = request.files.__class__`, `class newcls(oldcls)`.
        // Deciding `request.files` looks for Request's subclasses, which reads newcls's base,
        // which reads `request.files` again: bases are resolved without a subclass search
        // (that recursion overflowed the stack), and newcls is no subclass of Request.
        let files = [
            (
                "pkg/wrappers.py",
                "import werkzeug\n\n\nclass Request(werkzeug.Request):\n    pass\n",
            ),
            (
                "pkg/debug.py",
                "from pkg.wrappers import Request\n\nrequest: Request = proxy()\noldcls = request.files.__class__\n\n\nclass newcls(oldcls):\n    pass\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "pkg/debug.py", "files"),
            [
                "4 outside: `files` of Request comes from its base `werkzeug.Request`, outside the tree (no class of the tree in its hierarchy or among its subclasses defines it)"
            ]
        );
    }

    #[test]
    fn a_local_bound_to_several_classes_is_decided_where_their_members_agree() {
        // `app` is the fixture's App, then a `Custom(App)`: `run`, which Custom inherits, is
        // App's whichever binding reached the use; `stop`, which Custom overrides, is not told.
        let files = [
            (
                "tests/conftest.py",
                "import pytest


class App:
    def run(self):
        pass

    def stop(self):
        pass


@pytest.fixture
def app():
    return App()
",
            ),
            (
                "tests/test_app.py",
                "from conftest import App


def test_it(app):
    app.run()

    class Custom(App):
        def stop(self):
            pass

    app = Custom()
    app.run()
    app.stop()
",
            ),
        ];
        assert_eq!(
            resolve(&files, "tests/test_app.py", "run"),
            [
                "5 = tests/conftest.py::App.run",
                "12 = tests/conftest.py::App.run"
            ]
        );
        assert_eq!(
            resolve(&files, "tests/test_app.py", "stop"),
            [
                "8 = tests/test_app.py::test_it.Custom.stop",
                "13 ? `app` holds an instance of App or test_it::Custom as it is bound, and their `stop` differ"
            ]
        );
    }

    #[test]
    fn self_member_its_class_lacks_is_the_one_a_subclass_of_the_tree_defines() {
        // `Base.run` passes `self.serve`, which only `Leaf(Mid(Base))` defines (flask's
        // `sansio.Blueprint` and `self.send_static_file`): Leaf's. `self.stop` is defined by
        // two unrelated subclasses, `self.gone` by none; a base lancet does not resolve that spells
        // `Base` (`mixed(Base)`) or is a variable holding it (`B = Base`) may be a subclass:
        // each stays undecided. A base that names no subclass (`make().__class__`) does not.
        let files = [
            (
                "pkg/base.py",
                "class Base:\n    def run(self):\n        self.serve()\n        self.stop()\n        self.gone()\n",
            ),
            (
                "pkg/leaf.py",
                "from pkg.base import Base\n\n\nclass Mid(Base):\n    def stop(self):\n        pass\n\n\nclass Leaf(Mid):\n    def serve(self):\n        pass\n\n\nclass Other(Base):\n    def stop(self):\n        pass\n",
            ),
        ];
        assert_eq!(
            resolve(&files, "pkg/base.py", "serve"),
            ["3 = pkg/leaf.py::Leaf.serve"]
        );
        assert_eq!(
            resolve(&files, "pkg/base.py", "stop"),
            ["4 ? not a member of class Base or its bases in the tree"]
        );
        assert_eq!(
            resolve(&files, "pkg/base.py", "gone"),
            ["5 ? not a member of class Base or its bases in the tree"]
        );
        let odd = [
            files[0],
            files[1],
            (
                "pkg/odd.py",
                "from pkg.base import Base\n\n\nclass Odd(mixed(Base)):\n    pass\n",
            ),
        ];
        assert_eq!(
            resolve(&odd, "pkg/base.py", "serve"),
            ["3 ? not a member of class Base or its bases in the tree"]
        );
        let alias = [
            files[0],
            files[1],
            (
                "pkg/alias.py",
                "from pkg.base import Base\n\nB = Base\n\n\nclass Far(B):\n    pass\n",
            ),
        ];
        assert_eq!(
            resolve(&alias, "pkg/base.py", "serve"),
            ["3 ? not a member of class Base or its bases in the tree"]
        );
        let dynamic = [
            files[0],
            files[1],
            (
                "pkg/dynamic.py",
                "from pkg.base import Base\n\nother = make().__class__\n\n\nclass Far(other):\n    pass\n",
            ),
        ];
        assert_eq!(
            resolve(&dynamic, "pkg/base.py", "serve"),
            ["3 = pkg/leaf.py::Leaf.serve"]
        );
    }

    #[test]
    fn star_parameters_are_a_tuple_and_a_dict() {
        // `*args` and `**kwargs` hold a tuple and a dict whatever the caller passes (annotated
        // or not: an annotation types their items); rebound, they are not told.
        let text = "class Jar:\n    def pop(self):\n        pass\n\n\ndef f(*args: Jar, **kwargs):\n    args.pop()\n    kwargs.pop(\"x\")\n\n\ndef g(**options):\n    options = make()\n    options.pop()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "pop"),
            [
                "2 = a.py::Jar.pop",
                "7 outside: `pop` of a builtin tuple",
                "8 outside: `pop` of a builtin dict",
                "13 ? `options` is a variable of unknown type"
            ]
        );
    }

    #[test]
    fn a_method_on_a_receiver_of_unknown_type_is_not_resolved() {
        let text = "class Cart:\n    def total(self):\n        return 0\n\ndef f(fp):\n    return fp.total()\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "total"),
            [
                "2 = a.py::Cart.total",
                "6 ? `fp` is a variable of unknown type"
            ]
        );
    }

    #[test]
    fn builtins_and_other_packages_are_outside_and_unbound_names_unresolved() {
        let text = "import os\n\nos.sum(1)\nsum([1])\n\ndef f():\n    return missing.sum\n";
        assert_eq!(
            resolve(&[("a.py", text)], "a.py", "sum"),
            [
                "3 outside: `os` is outside the tree",
                "4 outside: `sum` is a Python builtin",
                "7 ? `missing` is not bound in a.py"
            ]
        );
    }
}
