//! What a move did and why one refuses, as data: the symbol, from where to where, every
//! import and use rewritten, and its refusals — the symbol, the destination, sites it cannot
//! update. Their words are `render/moving.rs`'s.

use super::rename::{Definition, LeftSite, PlaceRefusal, Site};
use schemars::JsonSchema;
use serde::Serialize;

/// What `lancet move` did: the symbol, the file it left and the one it went to, each import
/// and use rewritten, the imports the moved code brought and the ones the old module lost, so
/// a person or model can check the move without reading every diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MoveSummary {
    /// The symbol, as its old file and name (`shop/cart.py::total`).
    pub symbol: String,
    /// The file it left.
    pub from: String,
    /// The file it went to.
    pub to: String,
    /// Whether the destination was created.
    pub created: bool,
    /// The lines moved, in the old file (its comments and decorators with it).
    pub lines: [usize; 2],
    /// Files of the symbol's language that were walked.
    pub files_scanned: usize,
    /// Files written (the destination counted).
    pub files_changed: usize,
    /// Every import and qualified use rewritten to the new module, in file order.
    pub sites: Vec<Site>,
    /// The imports the moved code needs, added to the destination.
    pub imports_added: Vec<String>,
    /// The imports of the old module that only the moved code used, removed from it.
    pub imports_removed: Vec<String>,
    /// Sites lancet could not decide are the symbol (a string naming it, an attribute of a
    /// value of unknown type): each stops the move unless left (`--leave-unresolved`).
    pub unresolved: Vec<LeftSite>,
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
