//! What a signature change did and why one refuses, as data: the definitions and calls it
//! changed, the sites it left, and its refusals — the request, a definition it does not change
//! by its text, a change that does not fit, a site that cannot be updated safely. Their words
//! are `render/signature.rs`'s.

use super::reach::OutsideReach;
use super::rename::{Definition, LeftSite, PlaceRefusal, Site};
use schemars::JsonSchema;
use serde::Serialize;

/// What `lancet signature` did: the function and its parameters before and after, each
/// definition rewritten (the function and its overrides), each call updated, and the sites it
/// could not update, so a person or model can check the change without reading every diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SignatureSummary {
    /// The function, as its file and qualified name (`shop/cart.py::Cart.total`).
    pub function: String,
    /// The changes, in the order they were applied (`add timeout=None@2:30`, `remove verbose`,
    /// `rename n=count`, `reorder b,a`).
    pub changes: Vec<String>,
    /// The parameter list before (`(self, a, b=1)`).
    pub before: String,
    /// The parameter list after.
    pub after: String,
    /// Files of the function's language that were walked.
    pub files_scanned: usize,
    /// Files written.
    pub files_changed: usize,
    /// Every definition rewritten: the function's and its overrides'.
    pub definitions: Vec<Definition>,
    /// Every call updated, in file order.
    pub calls: Vec<Site>,
    /// Calls that needed no change (their arguments bind as before).
    pub calls_unchanged: usize,
    /// Uses and calls that cannot be updated safely (a use as a value, `functools.partial`,
    /// `*args` forwarding): each stops the change unless left (`--leave-unresolved`), and is
    /// then left as it is.
    pub unsafe_sites: Vec<LeftSite>,
    /// Calls through a receiver lancet cannot decide: each stops the change unless updated
    /// (`--include-unresolved`, then also listed in `calls`) or left (`--leave-unresolved`).
    pub unresolved: Vec<LeftSite>,
}

/// Why a signature change must not go ahead: the request, the function named, a change that
/// does not fit a definition, or sites that cannot be updated safely. Nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum SignatureRefusal {
    /// No `--add`, `--remove`, `--rename` or `--reorder` was given.
    NothingToChange,
    /// `--bisect`: one signature change is one change, with nothing to bisect over (a
    /// definition written without its calls breaks them).
    Bisect,
    /// A change as spelled cannot be read.
    Malformed {
        /// The switch (`--add`, `--rename`, …).
        flag: &'static str,
        /// What was given.
        spec: String,
        /// The spelling it takes.
        expected: &'static str,
    },
    /// A parameter name that is not an identifier.
    NotIdentifier {
        /// The name given.
        name: String,
    },
    /// `--add NAME` with neither a default nor a value: every existing call would lack it.
    AddWithoutValue {
        /// The parameter.
        name: String,
    },
    /// The name or place given is not a function lancet can change.
    NotAFunction {
        /// The name.
        name: String,
        /// Where it is defined, or the `--at` place.
        place: String,
        /// What it is instead (`a variable`, `a class without an __init__ of its own`).
        what: String,
    },
    /// No definition of the function in the files walked.
    NoMatch {
        /// The name.
        function: String,
        /// How many files were scanned.
        files_scanned: usize,
    },
    /// A bare name naming several unrelated functions.
    Ambiguous {
        /// The name.
        function: String,
        /// One definition of each (the first `MAX_LISTED`).
        listed: Vec<Definition>,
        /// How many there are.
        symbols: usize,
    },
    /// A definition whose calls lancet cannot tell from its text.
    Unsupported {
        /// The function's qualified name.
        function: String,
        /// The file of the definition.
        path: String,
        /// Its line.
        line: usize,
        /// Why.
        why: UnsupportedDefinition,
    },
    /// A change that does not fit a definition (the function's or an override's).
    Parameters {
        /// The definition's qualified name.
        function: String,
        /// Its file.
        path: String,
        /// Its line.
        line: usize,
        /// What does not fit.
        problem: ParamProblem,
    },
    /// A removed parameter that the function's body still uses.
    StillUsed {
        /// The parameter.
        name: String,
        /// The definition's qualified name.
        function: String,
        /// The file.
        path: String,
        /// The lines of the uses.
        lines: Vec<usize>,
    },
    /// A parameter's new name already names something its function's body uses.
    NameTaken {
        /// The new name.
        new: String,
        /// The definition's qualified name.
        function: String,
        /// The file.
        path: String,
        /// The lines where the new name stands.
        lines: Vec<usize>,
    },
    /// Sites that cannot be updated safely, or that lancet cannot decide are calls of the
    /// function: updating the rest and leaving these could break the program.
    Sites {
        /// The function's qualified name.
        function: String,
        /// How many calls could be updated.
        updated: usize,
        /// Uses and calls that cannot be updated (the first `MAX_LISTED`).
        unsafe_sites: Vec<LeftSite>,
        /// How many of those there are.
        unsafe_total: usize,
        /// Calls through receivers lancet cannot decide (the first `MAX_LISTED`).
        unresolved: Vec<LeftSite>,
        /// How many of those there are.
        unresolved_total: usize,
    },
    /// Two changes of one file overlap without one holding the other (lancet's own fault).
    Overlap {
        /// The file.
        path: String,
        /// Where.
        line: usize,
    },
    /// A file read twice (for the function's name and a class's) changed in between.
    Changed {
        /// The file.
        path: String,
    },
    /// What was wrong with a place: `--at`, a path, a qualified name (as a rename words it).
    Place(PlaceRefusal),
}

/// Why lancet does not change a definition's signature by its text.
#[derive(Debug, Clone, PartialEq)]
pub enum UnsupportedDefinition {
    /// A decorator that may change how the function is called (the calls call what it
    /// returns).
    Decorator(String),
    /// One of several `@overload` signatures.
    Overload,
    /// A language lancet changes no signatures in (yet), by lancet's name for it.
    Language(String),
    /// An override that is no `def` (an attribute assigned a function).
    NotDefined,
    /// Comments among its parameters: lancet does not guess where they go.
    Comments,
    /// A constructor whose class (named) also defines `__new__`, which takes the calls'
    /// arguments too.
    New(String),
    /// A method a base class outside the tree may define (and call with its own
    /// parameters): what may reach it.
    OutsideBase(OutsideReach),
    /// A name defined more than once (under `if`, `try`) with different parameters.
    Redefined,
    /// A JavaScript/TypeScript method: lancet changes functions there, not methods (their
    /// overrides and interfaces are not tied yet).
    Method,
    /// A method Python calls itself (`__set__`, `__call__`, `__eq__`, …): its calls are not in
    /// the text, and its parameters are the protocol's.
    Protocol,
    /// A parameter lancet does not read (a Python 2 tuple parameter).
    Unreadable,
}

/// What does not fit when a change is applied to a definition's parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamProblem {
    /// No parameter of that name.
    Unknown {
        /// The name.
        name: String,
        /// The parameters it has.
        known: Vec<String>,
    },
    /// A parameter of that name exists already.
    Duplicate {
        /// The name.
        name: String,
    },
    /// The method's first parameter (`self`, `cls`) cannot be removed, moved or preceded:
    /// the call supplies it.
    Receiver {
        /// Its name.
        name: String,
    },
    /// `@POS` past the end of the parameter list.
    Position {
        /// The position asked for (0-based, the receiver counted).
        position: usize,
        /// How many parameters there are.
        count: usize,
    },
    /// A positional parameter without a default after one with a default: Python rejects it.
    AfterDefault {
        /// The parameter.
        name: String,
    },
    /// A reorder that would change what kind a parameter is (positional-only, ordinary,
    /// `*args`, keyword-only, `**kwargs`).
    KindChange {
        /// The parameter.
        name: String,
    },
    /// A parameter placed after `**kwargs`: Python rejects it.
    AfterVarKeyword {
        /// The parameter.
        name: String,
    },
    /// A name given twice in one `--reorder`.
    Repeated {
        /// The name.
        name: String,
    },
    /// A TypeScript parameter added without a default: it would have no type.
    Untyped {
        /// The parameter.
        name: String,
    },
    /// A default or value that is not one expression of the language (`1, 2` would pass two
    /// arguments).
    NotExpression {
        /// The parameter.
        name: String,
        /// The code given.
        code: String,
    },
}

/// Why one call or use of the function cannot be updated safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteProblem {
    /// The function is used as a value (passed, stored, returned): the calls made through it
    /// elsewhere cannot be found.
    Value,
    /// `functools.partial(f, …)`: arguments bound ahead of the calls.
    Partial,
    /// `@f`: a decorator, called with the function it decorates.
    Decorator,
    /// `f(*args)`: which parameters the unpacked arguments fill is not known, and the change
    /// moves or removes positional parameters.
    StarArgs,
    /// `f(**kwargs)`: which keywords the unpacked mapping holds is not known, and the change
    /// renames or removes a parameter it may hold.
    DoubleStarArgs,
    /// More positional arguments than the definition takes.
    TooMany {
        /// Given.
        given: usize,
        /// Taken.
        takes: usize,
    },
    /// A keyword argument that names no parameter.
    UnknownKeyword {
        /// The keyword.
        name: String,
    },
    /// A parameter given both positionally and by keyword (or twice).
    Twice {
        /// The parameter.
        name: String,
    },
    /// A positional-only parameter that could no longer be passed in its place.
    PositionalOnly {
        /// The parameter.
        name: String,
    },
    /// Extra positional arguments (to `*args`) after a parameter that must now be passed by
    /// keyword.
    ExtraAfterGap,
    /// Comments between the arguments: lancet does not guess where they go.
    Comments,
    /// A call lancet cannot decide is of this function (its receiver's type is not known).
    Undecided(String),
    /// In a doctest: code inside a docstring, which lancet does not rewrite.
    Doctest,
}
