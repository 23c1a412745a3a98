//! JavaScript and TypeScript name resolution for `lancet rename`, from `oxc_semantic`: the
//! scopes, symbols and resolved references of each file (the semantic layer of the precise
//! parser the gate already uses), joined across the tree's modules by their imports and
//! exports.
//!
//! - A name resolves to its symbol in the file (`let`, `const`, a parameter, a function, a
//!   class, an interface, a type): the symbol's declaration is its id, so a local that shadows
//!   an import is its own symbol.
//! - An import from a relative module (`./a`, `../b/index`) follows that module's exports
//!   (`export function`, `export { x as y }`, `export { x } from`, `export *`) to the declaring
//!   file; so does one from a package whose sources are under the root ([`packages`]: a
//!   workspace's package by its name, a tsconfig `paths` entry, a `node_modules` link into the
//!   tree); an import from any other package resolves outside the tree.
//! - A member is the symbol when its holder is known: a method or field of a class or
//!   interface (a constructor's parameter property, `public x`, among them: its uses in the
//!   constructor are the member's), `this.x` in a class that declares `x`, `C.x` for a class
//!   `C` of the tree (also imported), `x.m` for a local declared a class or interface (`x: Foo`, `x: Foo<T>`,
//!   `x: Foo | undefined`, `const x = new Foo()`, `const x = make()` where `make` declares
//!   its return type), `this.f.m` / `this.#f.m` for a field its class declares so, and `new
//!   Foo().m` / `make().m`; `h.f.m` for a property `f` its holder's declaration annotates (or
//!   initializes to a class or enum), `rows[0].m`, `x!.m`, a `for … of` variable over a
//!   declared array, an imported const its module types (`new Foo()`, an annotation), a type
//!   alias of a class or array, `useThing<Foo>()` where `useThing<T>(): T`, `m.get(k)` of a
//!   `Map<K, Foo>`, `rows[i]` for a number `i`, a local read from a member (`const cols =
//!   column.columns`), a TS variable by its initializer even when assigned again (TypeScript
//!   types it once), a call of a local declared a function type; a member a holder does not
//!   declare is its base's (`extends`, followed through the tree, a type alias too) when
//!   exactly one base declares it and every base is known. A member and its overrides are one
//!   symbol, the hierarchy's root's (tsserver renames them together). An enum's members are
//!   its own; so are those of an object type a type alias names (`type D = { consumed }`, or
//!   either of two it chooses between); `Partial`, `Required`, `Readonly`, `Pick`, `Omit` and a
//!   generic alias built of them (`RequiredKeys<T, K>`) keep their argument's members. A
//!   factory's one returned object literal (a function declaration declaring no return type)
//!   holds its calls' members. Members of the global `Array` and `Map` and the keys of
//!   `Object.defineProperty`'s descriptor are outside. Any other receiver is unresolved (its
//!   type needs a type checker: the hybrid resolver or `--lsp`), and so is a value a package
//!   or a global declares (what a package's function returns may be the tree's own class), and
//!   a member of an object type written inline (values reach it by shape alone): never
//!   outside.
//! - A private member (`#count`) is the one the innermost class around it declares.
//! - A property key of an object literal typed by the code (the annotated variable it
//!   initializes, the declared return type of the function returning it) is that type's
//!   member (a shorthand `{ x }` there is the local and the member at once); any other
//!   property key is unresolved. A key of an object binding pattern (`const { x } = t`,
//!   `{ x: y }`, `{ x = d }`, a parameter `({ x }: T)`) is a member of the type the pattern's
//!   value is declared (its annotation, the initializer's holder, the parameter's type or
//!   callable type); unresolved when that type is not known, as is a shorthand key of a
//!   destructuring assignment (`({ x } = t)`). An unannotated parameter of an arrow or function expression
//!   declared as a callable type (`const f: SortingFn<T> = (a, b) => …`, returned from a
//!   function whose return type is a function type, or passed to a function, method or
//!   constructor of the tree whose parameter is declared a callable type — not an overloaded
//!   one) has that type's parameter's class; an array method's callback has the array's
//!   element (`sort`'s two parameters, `reduce`'s second); a callback passed where the
//!   function declares `(...args: NoInfer<[...T]>) => …` beside `(…) => [...T]` has the
//!   elements of the array literal the other returns (`memo(() => [rows], rows => …)`); a
//!   local initialized `e as Foo` holds a Foo. A global the file does not declare
//!   (`Promise`, `console`) resolves outside the tree.

//!
//! By job: [`facts`] (what other files need of a module), [`sites`] (each occurrence
//! classified), [`receivers`] (what a member access's object is), [`context`] (the type a
//! literal or a destructuring pattern takes from where it stands), [`callbacks`] (parameters
//! typed by the callable they are passed as), [`project`] (the modules joined), [`globals`].

use oxc_allocator::Allocator;
use oxc_semantic::{Semantic, SemanticBuilder};
use oxc_span::SourceType;
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) use project::EcmaProject;

/// Whether a rename language (a grammar's name) is JavaScript or TypeScript, which this
/// resolver reads.
pub(crate) fn is_ecma_language(language: &str) -> bool {
    matches!(language, "javascript" | "typescript" | "tsx")
}

mod bases;
mod context;
mod facts;
mod globals;
mod holders;
mod implements;
mod iterators;
mod modules;
mod outside_bases;
mod packages;
mod project;
mod reached;
mod receivers;
mod sites;
mod subclasses;
#[cfg(test)]
mod tests;

/// What one occurrence is, before modules are joined.
#[derive(Debug, Clone)]
enum Raw {
    /// A symbol declared in this file, by the declaration's offset.
    Local(u32),
    /// `name` exported by the module `source` names.
    Imported {
        source: String,
        name: String,
    },
    /// A class's private member `#name`, by the class's offset: only that class's body can
    /// name it.
    Private {
        class: u32,
        name: String,
    },
    /// What calling a function (a `Local` or `Imported` one) returns, as its return type
    /// annotation names it: a holder of members.
    Returns(Box<Raw>),
    /// What calling a function with explicit type arguments returns (`useThing<Item>()`):
    /// the argument for the type parameter its declaration returns (`function useThing<T>():
    /// T`), else what it declares it returns.
    GenericReturns {
        function: Box<Raw>,
        arguments: Vec<Option<Raw>>,
    },
    /// An imported generic type with its arguments (`RequiredKeys<Options, 'state'>`): the
    /// argument for the parameter it keeps the members of, when its module declares it an
    /// alias that does ([`ModuleFacts::parameter_aliases`]), else the type itself.
    AliasOf {
        alias: Box<Raw>,
        arguments: Vec<Option<Raw>>,
    },
    /// A `Map<K, V>` (the global one) of values of what the holder inside is: its `get`
    /// returns one, its `forEach` callback receives one.
    MapOf(Box<Raw>),
    /// What calling method `name` of a holder returns, as the method's declaration (its own,
    /// or the one the holder inherits) names it.
    MethodReturns {
        holder: Box<Raw>,
        name: String,
    },
    /// The type of parameter `index` of a callable type (an interface with one call
    /// signature, or a type alias of a function type), as its declaration names it: a
    /// holder of members (`(rowA, rowB) => …` typed `SortingFn<T>`).
    Parameter {
        callable: Box<Raw>,
        index: usize,
    },
    /// The callable type parameter `position` of a function of the tree (a `Local` or
    /// `Imported` one) is declared as: a callback passed there (`each(items, i => …)`) has
    /// that type's parameters.
    ParameterOf {
        function: Box<Raw>,
        position: usize,
    },
    /// Parameter `index` of a callback passed at `position` to a function of the tree that
    /// declares it takes the tuple another of its callbacks returns (`memo(() => [rows,
    /// columns], (rows, columns) => …)` where `memo<T>(deps: () => [...T], fn: (...args:
    /// NoInfer<[...T]>) => R)`): TypeScript infers that tuple from the array the other
    /// callback returns. `elements` holds, for each argument that returns an array literal,
    /// its position and its element `index`; when the function declares no such pair, this
    /// is [`Raw::Parameter`] of the callback's declared type.
    TupleElement {
        function: Box<Raw>,
        position: usize,
        index: usize,
        elements: Vec<(usize, Raw)>,
    },
    /// The callable type parameter `position` of method `name` of a holder is declared as
    /// (`constructor` for `new C(…)`).
    MethodParameterOf {
        holder: Box<Raw>,
        name: String,
        position: usize,
    },
    /// The value of member `name` of a holder, as the member's declaration types it
    /// (`header.column` for `column: Column` declared by `Header`).
    FieldOf {
        holder: Box<Raw>,
        name: String,
    },
    /// An array (`T[]`, `Array<T>`, `readonly T[]`) of what the holder inside is: its
    /// members are the array's, its elements the holder's.
    ArrayOf(Box<Raw>),
    /// An element of the array a value (a parameter's, a function's return) is declared as:
    /// the parameter of `rows.map(row => …)` (decided when modules are joined).
    ElementOf(Box<Raw>),
    /// Member `name` of a class or interface.
    Member {
        holder: Box<Raw>,
        name: String,
    },
    Outside(String),
    Unresolved(String),
}

impl Raw {
    /// Whether this stands for a value of a type the code declares (a class, an interface, an
    /// array, what a declaration says a call returns or a parameter takes): one whose members
    /// can be looked up when modules are joined.
    fn holds_members(&self) -> bool {
        matches!(
            self,
            Raw::Local(_)
                | Raw::Imported { .. }
                | Raw::Returns(_)
                | Raw::GenericReturns { .. }
                | Raw::MethodReturns { .. }
                | Raw::Parameter { .. }
                | Raw::TupleElement { .. }
                | Raw::AliasOf { .. }
                | Raw::FieldOf { .. }
                | Raw::MapOf(_)
                | Raw::ArrayOf(_)
                | Raw::ElementOf(_)
        )
    }
}

/// What other files need of a module: its exports and its classes' members.
#[derive(Debug, Default)]
pub(crate) struct ModuleFacts {
    /// Exported name → where it is declared.
    exports: HashMap<String, Raw>,
    /// `export * from` sources.
    stars: Vec<String>,
    /// Class or interface (by its name's offset) → member names.
    members: HashMap<u32, Vec<String>>,
    /// Class (by its name's offset) → the names of its static members, also in `members`:
    /// lancet keeps one member per name, so a name both static and not is undecided.
    statics: HashMap<u32, Vec<String>>,
    /// Class or interface (by its name's offset) → what it extends (`class A extends B`,
    /// `interface I extends J, K`), each as a holder (or why not).
    bases: HashMap<u32, Vec<Raw>>,
    /// Class or interface (by its name's offset) → its bases as written, each with what it is:
    /// what a class extends and implements, what an interface extends (see
    /// [`EcmaProject::outside_base_of`]).
    written_bases: HashMap<u32, Vec<(Raw, String)>>,
    /// Named class, interface or type alias of a holder (by its name's offset) → its name,
    /// for the subclass search.
    holder_names: HashMap<u32, String>,
    /// Named class (by its name's offset) → each decorator's binding (its leftmost name:
    /// `Component` of `@Component({…})`, `ng` of `@ng.Component`) and text as written: one
    /// from outside the tree may call the class's members by name (Angular's `ngOnInit`).
    decorators: HashMap<u32, Vec<(Raw, String)>>,
    /// Top-level variable or type alias (by its name's offset) whose value lancet does not
    /// follow → the names it is made of: a variable's value (`export const Core = Base`:
    /// `Base`) or the names a call it holds was handed (`mix(Base)`: `(Base)`), an alias's
    /// types (`type L = Shape & {…}`: `Shape`): for the subclass search, to which one that
    /// spells a known name may be that one.
    unread_definitions: HashMap<u32, String>,
    /// What each class without a name extends, with what it is, as [`ModuleFacts::written_bases`]
    /// (`export default class extends Base {}`): the subclass search cannot follow one, so one
    /// that may extend a known class leaves the subclasses untold.
    nameless_bases: Vec<(Raw, String)>,
    /// The classes whose instances the module's `[Symbol.iterator]()` methods return (see
    /// [`reached::iterator_classes`]): an iteration calls their `next` by name.
    iterators: Vec<Raw>,
    /// Interface (by its name's offset) → its name and the type outside the tree it augments (see
    /// [`reached::augmentations`]).
    augmentations: HashMap<u32, (String, crate::report::Augmented)>,
    /// Classes and interfaces declared more than once in the module (merged declarations):
    /// their members are not all under one offset, so none is looked up in their bases.
    merged: std::collections::HashSet<u32>,
    /// Function (by its name's offset) → the class or interface its return type annotation
    /// names (`function make(): Client`), for `make().x` and `const c = make()`.
    returns: HashMap<u32, Raw>,
    /// Method (by its holder's name's offset and its name) → the class or interface its
    /// return type annotation names (`getCache(): QueryCache`).
    method_returns: HashMap<(u32, String), Raw>,
    /// Function (by its name's offset; not an overloaded one) → which of its type parameters
    /// its return type is (`function useThing<T>(): T | undefined`).
    generic_returns: HashMap<u32, usize>,
    /// Callable type (an interface with one call signature, or a type alias of a function
    /// type, by its name's offset) → each parameter's class or interface, where its
    /// annotation names one.
    callables: HashMap<u32, Vec<Option<Raw>>>,
    /// Function (by its name's offset; not an overloaded one) → the callable type each
    /// parameter is declared as, where it is one (an inline function type, by its own
    /// offset in `callables`, or a named callable type): for callbacks passed to it.
    parameters: HashMap<u32, Vec<Option<Raw>>>,
    /// Function (by its name's offset; not an overloaded one) → each pair of parameters (the
    /// callback's position, the position of the one whose returned tuple it takes) where one
    /// is declared `(…) => [...T]` and the other `(...args: [...T]) => …` (or
    /// `NoInfer<[...T]>`) for a type parameter `T` of the function's own.
    tuple_callbacks: HashMap<u32, Vec<(usize, usize)>>,
    /// Method (by its holder's name's offset and its name; `constructor` too) → the callable
    /// type each parameter is declared as, likewise.
    method_parameters: HashMap<(u32, String), Vec<Option<Raw>>>,
    /// Property (by its holder's name's offset and its name) → the class, interface or array
    /// its annotation names (`column: Column<T>`), for `header.column.x`.
    member_types: HashMap<(u32, String), Raw>,
    /// Top-level variable (by its name's offset) → what its declaration says it holds
    /// (`export const focusManager = new FocusManager()`), for its importers.
    values: HashMap<u32, Raw>,
    /// Generic type alias (by its name's offset) → which of its type parameters it keeps the
    /// members of (`type RequiredKeys<T, K> = Omit<T, K> & Required<Pick<T, K>>`: 0).
    parameter_aliases: HashMap<u32, usize>,
    /// Top-level type alias (by its name's offset) → the class, interface or array it names
    /// (`type SortingState = ColumnSort[]`).
    aliases: HashMap<u32, Raw>,
}

impl ModuleFacts {
    /// Whether the class at `start` declares member `name` both static and not (`static
    /// create()` beside `create()`): two members lancet cannot tell apart.
    fn static_and_instance(&self, start: u32, name: &str) -> bool {
        let count = |names: Option<&Vec<String>>| {
            names.map_or(0, |n| n.iter().filter(|m| *m == name).count())
        };
        let statics = count(self.statics.get(&start));
        statics > 0 && count(self.members.get(&start)) > statics
    }
}

/// One file's analysis: each asked occurrence's raw resolution, and the module's facts.
struct Analysis {
    /// Each occurrence's resolution and, for a shorthand property of a typed object literal
    /// (`{ getState }` typed `CoreInstance`), the member its key also names.
    raw: Vec<(Raw, Option<Raw>)>,
    facts: Arc<ModuleFacts>,
}

/// The node `id` stands for with the parentheses around it seen through (`(x => …)` passed as
/// an argument is the argument), and the node holding it.
fn outside_parentheses(
    semantic: &Semantic,
    id: oxc_semantic::NodeId,
) -> (oxc_semantic::NodeId, oxc_semantic::NodeId) {
    let nodes = semantic.nodes();
    let mut at = id;
    loop {
        let parent = nodes.parent_id(at);
        if !matches!(
            nodes.kind(parent),
            oxc_ast::AstKind::ParenthesizedExpression(_)
        ) {
            return (at, parent);
        }
        at = parent;
    }
}

fn source_type(path: &str) -> SourceType {
    SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts())
}

/// Parses `text` and runs `f` over its semantic model.
fn with_semantic<R>(path: &str, text: &str, f: impl FnOnce(&Semantic) -> R) -> R {
    let allocator = Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, text, source_type(path)).parse();
    let built = SemanticBuilder::new()
        .with_build_nodes(true)
        .build(&parsed.program);
    f(&built.semantic)
}

/// Whether a specifier names a module by its path from the importer (`./`, `../`, `.`, `..`),
/// not through a package or a tsconfig `paths` entry.
pub(crate) fn relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
}
