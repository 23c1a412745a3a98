//! Why a command left a site, as data: what its resolver said, a site a language server does
//! not look at, a site the server's rename leaves where lancet reads the symbol, a call a
//! signature change cannot update. Their words are `render/left.rs`'s.

use super::signature::SiteProblem;

/// Why a site was not changed, for the report to word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftWhy {
    /// A reason in the words its finder gave (the resolvers' and a move's are still theirs).
    Said(String),
    /// A site the language server does not look at, and why lancet could not decide it itself.
    Unlooked {
        /// The server, as found (`rust-analyzer`).
        server: String,
        /// What holds the site.
        site: UnlookedSite,
        /// Why lancet could not decide it.
        then: Box<LeftWhy>,
    },
    /// lancet's resolver reads the site as the symbol, and the server's rename leaves it.
    ServerLeaves {
        /// The server, as found.
        server: String,
        /// OLD.
        old: String,
    },
    /// lancet cannot tell which symbol `--at` names (the server named it).
    AtUntold,
    /// A call site a signature change cannot update.
    Signature(SiteProblem),
    /// A site a move does not rewrite.
    Move(MoveLeft),
}

/// Why a move leaves a site that reaches the old module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveLeft {
    /// The new module re-exports the symbol from the old one.
    Reexported,
    /// `export * as ns from` the old module: what its users read of it is not decided.
    NamespaceExport {
        /// The symbol moved.
        name: String,
    },
    /// A string naming the old module outside a static import (`import()`, `require`,
    /// `vi.mock`): as its finder names the reader.
    ModuleString {
        /// What reads the string (`import()`, `vi.mock()`).
        reader: &'static str,
        /// The symbol moved.
        name: String,
    },
    /// `ns.name` cannot become `name`: the module binds a `name` of its own.
    NameTaken {
        /// The namespace import of the old module.
        namespace: String,
        /// The symbol moved.
        name: String,
    },
    /// The old module's namespace import used whole: whether it reads the symbol is not
    /// decided.
    NamespaceWhole {
        /// The namespace import.
        namespace: String,
        /// The symbol moved.
        name: String,
    },
    /// In a doctest, which lancet does not rewrite.
    Doctest,
    /// A string naming the symbol, which lancet does not rewrite.
    String,
    /// An import of everything of the old module with `*`.
    StarImport,
}

/// What holds a site a language server does not look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnlookedSite {
    /// A doctest's code.
    Doctest,
    /// A `macro_rules!` body.
    MacroBody,
    /// A string the program reads as code (a Rust format string's `{name}`, a string literal
    /// type).
    String,
}
