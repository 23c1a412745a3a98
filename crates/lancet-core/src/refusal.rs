//! A rename's refusals as facts: what was wrong with the names, the places, the sites found,
//! or the language server; the renderer words them for the surface asking.

use crate::report::{Definition, LeftSite, SymbolKind};

/// Why a rename must not go ahead.
#[derive(Debug, Clone, PartialEq)]
pub enum RenameRefusal {
    /// OLD or NEW is no identifier.
    NotIdentifier {
        /// `OLD` or `NEW`.
        which: &'static str,
        /// The name given.
        name: String,
    },
    /// OLD and NEW are the same name.
    SameNames {
        /// The name.
        name: String,
    },
    /// `--lang` names a language lancet cannot rename in.
    UnknownLanguage {
        /// The language given.
        lang: String,
        /// The languages lancet renames in.
        known: Vec<String>,
    },
    /// NEW is a keyword of a language the rename touches.
    Reserved {
        /// NEW.
        new: String,
        /// The language.
        language: String,
    },
    /// NEW already names something where OLD would become it.
    NameInUse {
        /// OLD.
        old: String,
        /// NEW.
        new: String,
        /// Where NEW stands: path and line.
        places: Vec<(String, usize)>,
    },
    /// No identifier OLD in the files walked.
    NoMatch {
        /// OLD.
        old: String,
        /// How many files were scanned.
        files_scanned: usize,
        /// How many mentions in strings or comments there are.
        mentions: usize,
    },
    /// Sites lancet could not decide, any of which may be the symbol.
    Unresolved {
        /// OLD.
        old: String,
        /// How many sites were decided.
        decided: usize,
        /// The undecided sites, the first `MAX_LISTED`.
        listed: Vec<LeftSite>,
        /// How many there are in all.
        total: usize,
        /// The symbol was named by position already (no hint to name it so).
        at: bool,
        /// The language servers that would decide the sites, each with why it did not.
        servers: Vec<UndecidedBy>,
    },
    /// A bare OLD defined in several languages.
    Languages {
        /// OLD.
        old: String,
        /// The languages.
        languages: Vec<String>,
        /// The definitions with their language, the first `MAX_LISTED`.
        listed: Vec<(Definition, String)>,
    },
    /// A bare OLD naming several unrelated symbols: no override, re-export or import joins
    /// them, and renaming all would merge what the code keeps apart.
    Definitions {
        /// OLD.
        old: String,
        /// One definition of each symbol (the first `MAX_LISTED`).
        listed: Vec<Definition>,
        /// How many symbols there are.
        symbols: usize,
        /// Whether `--all-definitions` can rename them all (not through a server, which
        /// renames one symbol).
        all: bool,
    },
    /// OLD stands in files of a language lancet resolves no names in, and no server of it
    /// may rename it here.
    Unsupported {
        /// OLD.
        old: String,
        /// The language (a name of the language table).
        language: String,
        /// The server that renames it (`gopls`) and why it cannot here, for a language lancet
        /// renames through one.
        server: Option<(String, String)>,
        /// Files of that language holding OLD (the first few).
        files: Vec<String>,
        /// The languages lancet renames in itself.
        supported: Vec<String>,
    },
    /// OLD stands in files of a language renamed through its server, but none of them
    /// defines it: the server needs a place to rename from.
    ForeignNoDefinition {
        /// OLD.
        old: String,
        /// The language.
        language: String,
        /// Files holding OLD (the first few).
        files: Vec<String>,
    },
    /// `--kind K` where OLD is defined as no K.
    KindNotDefined {
        /// OLD.
        old: String,
        /// The kind asked for.
        kind: SymbolKind,
        /// What OLD is defined as.
        others: Vec<Definition>,
    },
    /// `--kind K` where OLD is defined as K and as something else.
    KindMixed {
        /// OLD.
        old: String,
        /// The kind asked for.
        kind: SymbolKind,
        /// The other definitions.
        others: Vec<Definition>,
    },
    /// What was wrong with a place: `--at`, a path, a qualified name.
    Place(PlaceRefusal),
    /// What went wrong with the language server (`--lsp`).
    Server(ServerRefusal),
}

/// What was wrong with a place a rename was given.
#[derive(Debug, Clone, PartialEq)]
pub enum PlaceRefusal {
    /// `--at` names an identifier other than OLD.
    AtNamesOther {
        /// The place as given.
        place: String,
        /// The identifier there.
        name: String,
        /// OLD.
        old: String,
    },
    /// `--at` names a definition lancet cannot rename by syntax (an object type's property,
    /// an enum variant's field): the language server can.
    AtUnsupported {
        /// The identifier there.
        name: String,
        /// The place as given.
        place: String,
        /// What the resolver found.
        why: String,
    },
    /// `--at` names an identifier whose binding lancet cannot tell.
    AtUnresolved {
        /// The identifier there.
        name: String,
        /// The place as given.
        place: String,
        /// What the resolver found.
        why: String,
    },
    /// `--at` names an identifier defined outside the tree.
    AtOutside {
        /// The identifier there.
        name: String,
        /// The place as given.
        place: String,
        /// What the resolver found.
        why: String,
    },
    /// `--at` names no identifier in code lancet walked.
    AtNotCode {
        /// The identifier there.
        name: String,
        /// The place as given.
        place: String,
    },
    /// `--at` is no `PATH:LINE:COL`, or names no identifier.
    AtMalformed {
        /// What is wrong with it.
        problem: AtProblem,
    },
    /// A path (of `--at`, or to walk) leaves the root.
    PathOutside {
        /// Why the path is refused.
        error: String,
        /// Whether it came with `--at` (else it is a path to walk).
        at: bool,
    },
    /// `--at`'s file is not a readable file under the root.
    AtFileMissing {
        /// The path.
        path: String,
    },
    /// A path to walk does not exist under the root.
    PathMissing {
        /// The path as given.
        path: String,
    },
    /// With `--at`, the first path is no path but a name: OLD was typed too (`--at P:L:C OLD
    /// NEW`), so OLD was taken for NEW and NEW for a path.
    OldTypedWithAt {
        /// What was taken for NEW.
        taken: String,
        /// The name that was taken for a path.
        name: String,
    },
    /// A qualified OLD names no symbol of the tree.
    QualifiedUnknown {
        /// The qualified name.
        qualified: String,
    },
    /// `--lsp` without `--at`.
    LspWithoutAt,
}

/// What went wrong with the language server a rename asked (`--lsp`).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerRefusal {
    /// The language server must run sandboxed where no sandbox can be built.
    NoSandbox {
        /// Why no sandbox can be built.
        why: String,
    },
    /// No language server for the file is installed outside the project.
    NoServer {
        /// Which server is missing, and for what.
        detail: String,
    },
    /// The language server failed (to start, to answer in time, to answer sense).
    Failed {
        /// What went wrong.
        detail: String,
    },
    /// The language server says the identifier cannot be renamed.
    Refuses {
        /// The server.
        server: String,
        /// The identifier.
        name: String,
        /// Its place as given.
        place: String,
    },
}

/// What is wrong with a `--at` place.
#[derive(Debug, Clone, PartialEq)]
pub enum AtProblem {
    /// Not `PATH:LINE:COL`.
    NotAPlace {
        /// The place as given.
        place: String,
    },
    /// The file has no such line.
    NoLine {
        /// The file.
        path: String,
        /// The line asked for.
        line: usize,
    },
    /// The line has no such column.
    NoColumn {
        /// The file.
        path: String,
        /// The line.
        line: usize,
        /// The column asked for.
        column: usize,
    },
    /// The place is not on an identifier.
    NotOnIdentifier {
        /// The place as given.
        place: String,
        /// What the line reads.
        line_text: String,
    },
}

/// Why a code mod must not run: its rules, its pattern or its paths. Nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum ModRefusal {
    /// A rule file (or `-p`/`-r`) that ast-grep's rule format rejects.
    Rule {
        /// The rule file, or `-p` for a pattern.
        source: String,
        /// ast-grep's own explanation.
        detail: String,
    },
    /// A pattern that is not code of its language as the grammar reads it: ast-grep would
    /// match it against nothing, silently, and a mod in CI would report success having done
    /// nothing.
    PatternSyntax(Box<PatternSyntax>),
    /// A rule names a language lancet has no grammar for.
    UnknownLanguage {
        /// The name given.
        lang: String,
        /// The names lancet knows.
        known: Vec<String>,
    },
    /// A rule without `fix`: it would find but not rewrite.
    NoFix {
        /// The rule's id.
        id: String,
    },
    /// Neither `--rule` nor `-p` with `-r` was given.
    NothingToRun,
    /// A path leads outside the root.
    PathOutside {
        /// Why.
        error: String,
    },
    /// A path does not exist under the root.
    PathMissing {
        /// The path as given.
        path: String,
    },
    /// `--exec`: the command failed (an exit code not accepted, a timeout, a signal), so what
    /// it left is not trusted.
    ExecFailed {
        /// Its run.
        run: Box<crate::verdicts::TestRun>,
    },
    /// `--exec`: the command changed something a batch cannot carry (a binary file, a link,
    /// only a mode).
    ExecUnsupported {
        /// The path, relative to the root.
        path: String,
        /// What it did.
        what: String,
    },
    /// `--exec`: lancet's sandbox cannot be built here, and the command never runs outside it.
    ExecNoSandbox {
        /// Why.
        why: String,
    },
    /// `--exec`: the scratch copy could not be made.
    ExecScratch {
        /// Why.
        error: String,
    },
}

/// A pattern the grammar does not read as code of its language (see
/// [`ModRefusal::PatternSyntax`]): the facts its refusal quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternSyntax {
    /// Where it was given: `-p`, or the rule file and the rule's id.
    pub source: String,
    /// The pattern as written.
    pub pattern: String,
    /// Its language.
    pub language: String,
    /// The grammar's error: what is wrong, where in the pattern (`an error at column 5:
    /// `...``, `a missing `;` at column 9`).
    pub error: String,
    /// When the pattern parses on its own but as another node than the code holds (Go's
    /// `strconv.Itoa($X)`, a type conversion at the top level, a call in a function): the
    /// reading, and the context in which it is the node the code holds.
    pub misread: Option<Misread>,
}

/// A pattern read as another node on its own than where such code stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Misread {
    /// The node kind the pattern is on its own (`type_conversion_expression`).
    pub alone: String,
    /// The node kind it is in `context` (`call_expression`).
    pub in_context: String,
    /// The pattern inside a snippet where it reads as the code holds it, as written (its `$`).
    pub context: String,
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
    /// A language lancet changes no signatures in (yet).
    Language(String),
    /// An override that is no `def` (an attribute assigned a function).
    NotDefined,
    /// Comments among its parameters: lancet does not guess where they go.
    Comments,
    /// A constructor whose class (named) also defines `__new__`, which takes the calls'
    /// arguments too.
    New(String),
    /// A method a base class outside the tree may define (and call with its own
    /// parameters): why, as the resolver says it.
    OutsideBase(String),
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
#[derive(Debug, Clone, PartialEq)]
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

/// A language server that would decide a rename's undecided sites, and why it did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndecidedBy {
    /// The server (`basedpyright-langserver or pyright-langserver`).
    pub server: String,
    /// Why it did not decide them.
    pub why: NotDecided,
}

/// Why a language server did not decide a rename's undecided sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotDecided {
    /// Asking servers is off (`--no-lsp`, `[rename] lsp = false`, MCP without `--allow-lsp`).
    Off,
    /// It is not installed where lancet may run it (why).
    Missing(String),
    /// It was asked and failed (why).
    Failed(String),
    /// It was asked and could not tell for these sites.
    CouldNotTell,
    /// It was not asked: the site at this `path:line`, of another language, stays undecided
    /// and stops the rename already.
    NotAsked(String),
    /// It could not tell for the site at `at` (`path:line`): one site left undecided stops a
    /// rename, so the `not_asked` sites after it were not asked.
    Stopped {
        /// The first site it could not decide.
        at: String,
        /// The sites not asked after it.
        not_asked: usize,
    },
    /// Its rename does not reach these sites (what they are: rust-analyzer and a doctest or a
    /// `macro_rules!` body), so lancet's own resolver must decide them, and could not.
    NotItsSites(String),
}

/// Why a move must not go ahead: the request, the symbol named, the destination, or sites
/// the move cannot update. Nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum MoveRefusal {
    /// `--bisect`: a move is one change (a definition written without its imports breaks
    /// them), with nothing to bisect over.
    Bisect,
    /// The symbol's name is not an identifier.
    NotIdentifier {
        /// The name given.
        name: String,
    },
    /// No module-level definition of the symbol in the files walked.
    NoMatch {
        /// The name.
        symbol: String,
        /// How many files were scanned.
        files_scanned: usize,
    },
    /// A bare name naming several unrelated symbols.
    Ambiguous {
        /// The name.
        symbol: String,
        /// One definition of each (the first `MAX_LISTED`).
        listed: Vec<Definition>,
        /// How many there are.
        symbols: usize,
    },
    /// The symbol is not one lancet moves: what it is instead, and where.
    NotMovable {
        /// The name.
        symbol: String,
        /// Where it is defined (`path:line`), or the `--at` place.
        place: String,
        /// Why it cannot move.
        why: Unmovable,
    },
    /// The destination is not a module the symbol can move to.
    Destination {
        /// The destination, as given.
        to: String,
        /// What is wrong with it.
        problem: DestinationProblem,
    },
    /// A name the moved code brings (the symbol, or a name it uses) already means something
    /// else in a file it would land in.
    NameTaken {
        /// The name.
        name: String,
        /// The file.
        path: String,
        /// Where the other binding is.
        line: usize,
    },
    /// The old and the new module would import each other at module level.
    Cycle {
        /// The old module's file.
        from: String,
        /// The new module's file.
        to: String,
        /// What the new module would import from the old one (names the moved code uses).
        needs: Vec<String>,
        /// Why the old module imports the new one (`uses of f left in it`, an import at a line).
        back: String,
    },
    /// Files that import everything of the old module (`from a import *`): whether they use
    /// the symbol is not decided by their text.
    StarImports {
        /// The symbol.
        symbol: String,
        /// The star imports (the first `MAX_LISTED`).
        sites: Vec<LeftSite>,
        /// How many there are.
        total: usize,
    },
    /// Sites lancet cannot decide are the symbol, or cannot update (a string naming it, a
    /// doctest, an attribute of a value of unknown type).
    Sites {
        /// The symbol.
        symbol: String,
        /// How many sites could be updated.
        updated: usize,
        /// The sites (the first `MAX_LISTED`).
        unresolved: Vec<LeftSite>,
        /// How many there are.
        total: usize,
    },
    /// Two changes of one file overlap (lancet's own fault).
    Overlap {
        /// The file.
        path: String,
        /// Where.
        line: usize,
    },
    /// A file changed while lancet read it.
    Changed {
        /// The file.
        path: String,
    },
    /// What was wrong with a place: `--at`, a qualified name (as a rename words it).
    Place(PlaceRefusal),
}

/// Why a symbol does not move.
#[derive(Debug, Clone, PartialEq)]
pub enum Unmovable {
    /// Not bound at the module's top level (a method, a local, a class attribute).
    NotGlobal,
    /// Bound more than once at the module's top level (reassigned, defined under `if`/`try`).
    Redefined {
        /// The lines binding it.
        lines: Vec<usize>,
    },
    /// Bound by a statement that binds more (`a = b = 1`, `a, b = …`) or shares its line with
    /// another statement (`x = 1; y = 2`).
    Shared,
    /// Bound by an import, a loop or another statement that is no definition.
    NotDefinition(String),
    /// Its code declares `global NAME`: moved, it would write the new module's global.
    Global(String),
    /// It uses a name the old module imports under a condition (`if`, `try`): which import to
    /// copy is not decided.
    ConditionalImport {
        /// The name.
        name: String,
        /// The import's line.
        line: usize,
    },
    /// It uses a name the old module may take from a `from … import *`.
    StarName(String),
    /// A language lancet moves no symbols in (yet): Rust.
    Language(String),
    /// `export default`: the importers name it as they like (`import anything from`), so
    /// which names are it is not in their text.
    DefaultExport,
    /// Its module is CommonJS (`require`, `module.exports`): what its importers read of it
    /// is not in import statements.
    CommonJs,
    /// Its code assigns a binding of its module, or its module assigns it: across modules the
    /// binding would be an import, which cannot be assigned.
    Assigns(String),
}

/// What is wrong with a move's destination.
#[derive(Debug, Clone, PartialEq)]
pub enum DestinationProblem {
    /// It is the symbol's own file.
    SameFile,
    /// A directory, not a file.
    Directory,
    /// Not a file of the symbol's language (`.py` for Python).
    Extension(String),
    /// Its directory does not exist.
    NoDirectory(String),
    /// Its directory is no package and no source root: nothing imports it by a module name.
    NotImportable(String),
    /// A path part that is no identifier, so no module name reaches it.
    NotModuleName(String),
    /// The path leaves the root, or cannot be read.
    Path(String),
}
