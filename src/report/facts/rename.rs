//! What a rename found and why one refuses, as data: the sites, definitions and mentions a
//! rename reports, the decisions its language servers made, and its refusals — the name, the
//! place (`--at`, shared by move and signature), the sites found, the server asked. Their words
//! are `render/rename.rs`'s and `render/findings.rs`'s.

use schemars::JsonSchema;
use serde::Serialize;

/// The kinds of definition `--kind` can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// Whatever OLD names.
    Any,
    /// A free function.
    Function,
    /// A class, struct, enum, trait or type alias.
    Class,
    /// A function defined in a class, impl or trait.
    Method,
    /// A variable, parameter, constant or static.
    Variable,
    /// A field or property a struct, class or interface declares (`self.x = …` in Python).
    Field,
    /// An enum's variant or member.
    Variant,
}

impl SymbolKind {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Any => "any",
            SymbolKind::Function => "function",
            SymbolKind::Class => "class",
            SymbolKind::Method => "method",
            SymbolKind::Variable => "variable",
            SymbolKind::Field => "field",
            SymbolKind::Variant => "variant",
        }
    }
}

/// A whole-word mention of OLD inside a string or a comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Mention {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// `string` or `comment`.
    pub context: &'static str,
    /// Whether it was renamed (`--include-strings` / `--include-comments`).
    pub renamed: bool,
    /// The whole line, trimmed, for a person or model to judge.
    pub text: String,
    /// Its byte offset in the file: where a language server's edit may have renamed it.
    #[serde(skip)]
    pub at: usize,
}

/// A place where OLD is defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Definition {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// What kind of symbol it defines.
    pub kind: SymbolKind,
}

/// A code site a rename renames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Site {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// In a doctest: code inside a comment that the language's test runner compiles (a Rust
    /// doc comment's code block, a Python docstring's `>>>` line), renamed as code.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub doctest: bool,
}

/// A code site spelled OLD that a rename leaves alone, and why: it does not resolve to the
/// symbol lancet can prove (`unresolved`), or it resolves outside the tree (`outside`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LeftSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// The whole line, trimmed.
    pub text: String,
    /// Why it was not renamed.
    pub why: String,
}

/// What a rename found, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RenameSummary {
    /// The old name.
    pub old: String,
    /// The new name.
    pub new: String,
    /// Files of a renameable language that were walked.
    pub files_scanned: usize,
    /// Files that contained OLD's bytes and were parsed.
    pub files_parsed: usize,
    /// Files with at least one renamed place.
    pub files_changed: usize,
    /// Identifier occurrences renamed in code.
    pub sites: usize,
    /// Where OLD is defined.
    pub definitions: Vec<Definition>,
    /// Mentions in strings and comments (renamed only when asked).
    pub mentions: Vec<Mention>,
    /// How sites were resolved: `binding` (lancet's scopes and imports) or `lsp:<server>`.
    pub engine: String,
    /// Every code site renamed, in file order.
    pub renamed: Vec<Site>,
    /// Code sites spelled OLD that could not be resolved (renamed only with
    /// `--include-unresolved`, and then also listed in `renamed`).
    pub unresolved: Vec<LeftSite>,
    /// Code sites spelled OLD that resolve to something outside the tree: never renamed.
    pub outside: Vec<LeftSite>,
    /// Files that were skipped, with the reason (not UTF-8, unreadable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<String>,
    /// The language servers asked about the sites lancet could not decide (the hybrid
    /// resolver), each with the sites it decided.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decided_by: Vec<ServerDecisions>,
}

/// What one language server decided of a rename's undecided sites: lancet asked it, per site,
/// where the identifier there is defined, and renamed the site when that is the symbol's
/// definition (a model or person can see which sites rest on the server's word).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ServerDecisions {
    /// The server, as found on PATH (`basedpyright-langserver`).
    pub server: String,
    /// Its version as it reported it (`None`: it did not say).
    pub version: Option<String>,
    /// The sites it decided.
    pub sites: Vec<DecidedSite>,
    /// Sites it was asked about and could not decide (still listed as unresolved).
    pub undecided: usize,
    // The reason as the sandbox gave it; the JSON says it in full.
    /// Why it ran outside lancet's sandbox, when it did (the kernel has none; the CLI only).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::report::render::unconfined_in_json"
    )]
    pub unconfined: Option<String>,
}

/// A site a language server decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DecidedSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// Whether it is the symbol (renamed) or another one (left).
    pub renamed: bool,
    /// Where the server says it is defined: `path:line` in the tree, or a path outside it.
    pub definition: String,
}

/// What may reach a member by its name where lancet cannot see, so that a renamed member would
/// stop overriding it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutsideReach {
    /// A base outside the tree (or one lancet does not resolve) up the member's class's
    /// hierarchy, or up a subclass's, as written.
    Base(String),
    /// The subclasses of this class of the tree, which lancet cannot tell: a base it does not
    /// resolve may be the class.
    UntoldSubclasses(String),
    /// A TypeScript declaration file (`.d.ts`) of the tree declares the member: it describes
    /// code elsewhere, which calls it by that name.
    DeclarationFile(String),
    /// A decorator from outside the tree on a class of the member's hierarchy, as written
    /// (`Component({…})`): the framework may call the member by name (Angular's `ngOnInit`).
    Decorator(String),
    /// A class of the member's hierarchy is an iterator (its name): `for … of` and spreads
    /// call its `next` (`return`, `throw`) by name.
    Iterator(String),
    /// The member's interface (its name) augments a type outside the tree: code reaches the
    /// member through that type (`window.appName`).
    Augmentation {
        /// The interface's name.
        interface: String,
        /// What it augments.
        augmented: Augmented,
    },
}

/// What an interface of the tree augments, for a member code reaches through that type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Augmented {
    /// The global of its name: `declare global { interface Window { … } }`.
    Global,
    /// The type of its name of a module, as written: `declare module "express" { … }`.
    Module(String),
    /// The global of its name, declared by a file without imports or exports (a script), whose
    /// declarations are global and merge with the library's.
    Script,
}

/// What reads a Python string as an attribute's name, for the refusal to show it as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeReader {
    /// A builtin taking it as its second argument: `getattr`, `setattr`, `hasattr`, `delattr`.
    Builtin(&'static str),
    /// `attrgetter`, taking it as any argument.
    Attrgetter,
    /// A class list holding it: `__slots__`, `__match_args__`.
    ClassList(&'static str),
    /// `obj.__dict__`, indexed by it.
    Dict,
    /// `vars(obj)`, indexed by it.
    Vars,
    /// The dictionary of a dataclass's or named tuple's fields (`asdict(obj)`,
    /// `obj._asdict()`), indexed by it.
    AsDict,
    /// A dictionary unpacked into a call's keyword arguments (`P(**{"x": 1})`), keyed by it.
    Keyword,
}

/// Where a rename would leave OLD in doc code rustdoc compiles and lancet does not rename.
#[derive(Debug, Clone, PartialEq)]
pub struct DocCodeLeft {
    /// OLD.
    pub old: String,
    /// Each line of a file included as documentation (`#![doc =
    /// include_str!("../README.md")]`) in a compiled block naming OLD: its path and line, and
    /// the including file's path and line; the first `MAX_LISTED`.
    pub places: Vec<(String, usize, (String, usize))>,
    /// Each inclusion whose file lancet cannot tell (`concat!(env!("OUT_DIR"), …)`): the
    /// including file's path and line; the first `MAX_LISTED`.
    pub unread: Vec<(String, usize)>,
    /// Each line of a Rust file where OLD stands in doc code lancet does not read as a doctest
    /// (an indented block, a `#[doc = "…"]` string's block): path and line; the first
    /// `MAX_LISTED`.
    pub in_blocks: Vec<(String, usize)>,
}

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
    /// OLD or NEW is one of a language's special names, which the language itself calls or
    /// reads at places no text names (Python's `__eq__` for `==`, `__all__` for `import *`):
    /// renaming it would change what the code does where no site shows.
    SpecialName {
        /// `OLD` or `NEW`.
        which: &'static str,
        /// The name given.
        name: String,
        /// The language.
        language: String,
    },
    /// OLD or NEW is a private name Python mangles in a class body (`__x` in class `C` reads
    /// `_C__x`), and renaming would change what a site reaches: its sites stand in different
    /// classes, or in one and outside any, while only one of OLD and NEW is private; or OLD is
    /// used spelled mangled, which the rename would leave.
    Mangled {
        /// `OLD` or `NEW`: the private one (OLD when both are).
        which: &'static str,
        /// The private name.
        name: String,
        /// The sites, each with its path, line and class (`None`: outside any class), where
        /// they stand in different places of it; the first `MAX_LISTED`.
        sites: Vec<(String, usize, Option<String>)>,
        /// Uses of OLD spelled mangled: path, line and spelling; the first `MAX_LISTED`.
        spelled: Vec<(String, usize, String)>,
    },
    /// OLD is named by a string Python reaches an attribute through (`getattr(obj, "old")`,
    /// `attrgetter("old")`, `__slots__`), which the rename would leave reaching nothing.
    NamedByString {
        /// OLD.
        old: String,
        /// Each such string: path, line and what reads it; the first `MAX_LISTED`.
        places: Vec<(String, usize, AttributeReader)>,
        /// `--include-strings` was given, and these strings stand outside the symbol's scope,
        /// where it renames nothing.
        outside_scope: bool,
    },
    /// OLD stands in doc code rustdoc compiles and lancet does not rename: a file a Rust file
    /// includes as documentation, or a block of a doc comment or attribute it does not read.
    IncludedDoctests(DocCodeLeft),
    /// OLD is a Python parameter, and a call of its function unpacks a mapping lancet cannot
    /// read (`area(**kw)`), which may pass it by name.
    UnreadKeywords {
        /// OLD.
        old: String,
        /// Each such call: path, line and the call's text; the first `MAX_LISTED`.
        places: Vec<(String, usize, String)>,
    },
    /// OLD is a member whose class has a base outside the tree that may define it (`run` of a
    /// `threading.Thread`): the code calling it by its name is outside the tree, and the
    /// renamed member would stop overriding it.
    OverridesOutside {
        /// OLD.
        old: String,
        /// Each definition: path, line and what may reach it; the first `MAX_LISTED`.
        places: Vec<(String, usize, OutsideReach)>,
    },
    /// NEW is a name a base outside the tree of a renamed member's class may define (`set` for
    /// a member of a `Map` subclass): the renamed member would start overriding it.
    WouldOverrideOutside {
        /// NEW.
        new: String,
        /// Each definition: path, line and what may reach it; the first `MAX_LISTED`.
        places: Vec<(String, usize, OutsideReach)>,
    },
    /// NEW is a member a class of the tree in the renamed member's class's hierarchy defines
    /// (a base's, a subclass's, in any file): one would override the other.
    NewInHierarchy {
        /// OLD.
        old: String,
        /// NEW.
        new: String,
        /// Each such class: path, line and name; the first `MAX_LISTED`.
        places: Vec<(String, usize, String)>,
    },
    /// OLD stands in a Python doctest's expected output, which doctest compares as text.
    DoctestOutput {
        /// OLD.
        old: String,
        /// Each such line: path and line; the first `MAX_LISTED`.
        places: Vec<(String, usize)>,
    },
    /// OLD stands in an example of a text file pytest runs as doctests (`test*.txt`, a
    /// configuration's `--doctest-glob`), which lancet does not rename.
    DoctestFiles {
        /// OLD.
        old: String,
        /// Each such line: path and line; the first `MAX_LISTED`.
        places: Vec<(String, usize)>,
    },
    /// OLD stands in a single-file component (`.vue`, `.svelte`, `.astro`), whose script and
    /// template lancet does not read or rename.
    ComponentFiles {
        /// OLD.
        old: String,
        /// Each such line: path and line; the first `MAX_LISTED`.
        places: Vec<(String, usize)>,
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
        /// The server that renames it (`gopls`) and why it cannot run here (`None`: asking
        /// servers is off), for a language lancet renames through one.
        server: Option<(String, Option<ServerMissing>)>,
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

/// What went wrong with a language server, as facts (`server`: the name it was found by).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTrouble {
    /// It could not be started.
    CannotStart {
        /// The program.
        program: String,
        /// The system's error.
        error: String,
    },
    /// It stopped reading what lancet sent (the system's error).
    StoppedReading(String),
    /// It answered a request with an error.
    Refused {
        /// The server.
        server: String,
        /// The request.
        method: String,
        /// Its error message.
        message: String,
        /// Its error says the project is still loading (LSP's ContentModified).
        loading: bool,
    },
    /// It did not answer in time.
    Silent {
        /// The server.
        server: String,
        /// What lancet waited for.
        during: String,
        /// The time allowed, in seconds.
        seconds: u64,
    },
    /// It exited while lancet waited.
    Exited {
        /// The server.
        server: String,
        /// What lancet waited for.
        during: String,
    },
    /// It sent a message lancet cannot read.
    Unreadable {
        /// The server.
        server: String,
        /// What is wrong with the message.
        message: BadMessage,
    },
    /// The file the rename starts in cannot be named under the root (why).
    StartUnnamed(String),
    /// The file the rename starts in cannot be read.
    StartUnreadable(String),
    /// Its rename creates, renames or deletes a file (`kind`), which is no identifier rename.
    ChangesFiles {
        /// What it does to the file (`create`, `rename`, `delete`).
        kind: String,
        /// The file.
        uri: String,
    },
    /// Its rename edits a URI that is not a file.
    EditsNonFile(String),
    /// Its rename edits a file outside the root.
    EditsOutside(String),
    /// Its rename edits a path lancet cannot name under the root.
    EditsUnnamed {
        /// The path.
        path: String,
        /// Why.
        error: String,
    },
    /// A file its rename edits cannot be read.
    EditedUnreadable(String),
    /// A file its rename edits is not UTF-8.
    EditedNotUtf8(String),
    /// One of its edits lies outside the file.
    EditOutsideFile(String),
    /// One of its edits is not part of renaming OLD to NEW.
    NotARename {
        /// The file.
        path: String,
        /// The text it puts in.
        put: String,
        /// The text it replaces.
        replaced: String,
        /// OLD.
        old: String,
        /// NEW.
        new: String,
    },
}

/// Why no language server can run for a language here, as facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerMissing {
    /// None of these programs is on `PATH` outside the project.
    NotOnPath(Vec<String>),
    /// The server (by name) runs a Python interpreter, and none is on `PATH` outside the
    /// project.
    NoPython(String),
    /// The server has no TypeScript installed beside it.
    NoTypeScript {
        /// The server's name.
        server: String,
        /// Its program.
        program: String,
    },
    /// The server (by name) runs `go`, and none is on `PATH` outside the project.
    NoGo(String),
    /// rustup cannot be run (the system's error).
    RustupUnrunnable(String),
    /// rustup did not answer within this many seconds.
    RustupSilent(u64),
    /// rustup has no default toolchain.
    RustupNoToolchain,
    /// The server (by name) on `PATH` is rustup's proxy, and rustup has no default toolchain.
    ProxyWithoutToolchain(String),
    /// The server on `PATH` is rustup's proxy, and this toolchain has no rust-analyzer.
    NoRustAnalyzer(String),
    /// Its real path cannot be found (the system's error).
    Unresolvable(String),
    /// It resolves to a program under the project.
    UnderProject,
}

/// What is wrong with a message a language server sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadMessage {
    /// No `Content-Length` header.
    Unframed,
    /// Over lancet's cap.
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The cap, in MiB.
        cap_mib: usize,
    },
    /// Not JSON (the parser's error).
    NotJson(String),
}

/// What went wrong with the language server a rename asked (`--lsp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRefusal {
    /// The language server must run sandboxed where no sandbox can be built.
    NoSandbox {
        /// Why no sandbox can be built.
        why: String,
    },
    /// No language server for the file is installed outside the project.
    NoServer {
        /// The file.
        path: String,
        /// Why the server for its language cannot run (`None`: lancet knows none for it).
        missing: Option<ServerMissing>,
    },
    /// The language server failed (to start, to answer in time, to answer sense).
    Failed {
        /// What went wrong.
        trouble: ServerTrouble,
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
    /// It cannot run here: why (`None`: lancet knows no server for the language).
    Missing(Option<ServerMissing>),
    /// Asking it failed: no server for the file, no sandbox to run it in, or the server
    /// itself.
    CannotAsk(ServerRefusal),
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
    /// Its rename leaves these sites, which lancet's own resolver reads as the symbol: the two
    /// disagree, and lancet does not pick one.
    LeftThem,
}
