//! Each command's outcomes and refusals as data, one file per command beside its words in
//! `render/` (`rename.rs` here, `render/rename.rs` there): what a rename, a signature change, a
//! move and a mod found, and why each refuses; how an undo and a crash recovery ended; what an
//! MCP session's reads stop. No sentence is
//! composed here.

mod batch;
mod codemod;
mod history;
mod left;
mod moving;
mod progress;
mod reach;
mod reads;
mod rename;
mod servers;
mod signature;

pub use batch::BatchNotes;
pub use codemod::{Misread, ModRefusal, ModRule, ModSite, ModSummary, PatternSyntax};
pub use history::Recovery;
pub(crate) use history::UndoEnd;
pub use left::{LeftWhy, MoveLeft, UnlookedSite};
pub use moving::{DestinationProblem, MoveRefusal, MoveSummary, Unmovable};
pub use progress::Phase;
pub use reach::{Augmented, OutsideReach};
pub use reads::UnreadChange;
pub use rename::{
    AtProblem, AttributeReader, Definition, DocCodeLeft, LeftSite, Mention, PlaceRefusal,
    RenameRefusal, RenameSummary, Site, SymbolKind,
};
pub use servers::{
    BadMessage, DecidedSite, NotDecided, ServerDecisions, ServerMissing, ServerRefusal,
    ServerTrouble, UndecidedBy,
};
pub use signature::{
    ParamProblem, SignatureRefusal, SignatureSummary, SiteProblem, UnsupportedDefinition,
};
