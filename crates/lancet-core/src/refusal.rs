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
