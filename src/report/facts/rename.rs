//! What a rename found and why one refuses, as data: the sites, definitions and mentions a
//! rename reports, and its refusals — the name, the place (`--at`, shared by move and
//! signature), the sites found. What its language servers did is `servers.rs`'s, what may reach
//! a member from outside the tree `reach.rs`'s. Their words are `render/rename.rs`'s and
//! `render/findings.rs`'s.

use crate::report::{
    LeftWhy, OutsideReach, ServerDecisions, ServerMissing, ServerRefusal, UndecidedBy,
};
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
    #[serde(serialize_with = "crate::report::render::left_why_in_json")]
    #[schemars(with = "String")]
    pub why: LeftWhy,
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
