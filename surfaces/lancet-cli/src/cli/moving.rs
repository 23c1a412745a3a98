//! `lancet move`: a module-level symbol moved to another module with every import and
//! qualified use of it, as one all-or-nothing batch.

use super::output::emit;
use super::transaction::TransactionArgs;
use clap::Args;
use lancet::MoveOptions;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct MoveArgs {
    /// The symbol: its name, or a qualified name (`pkg.mod.name`). With --at, leave it out:
    /// `move --at P:L:C --to PATH`.
    #[arg(value_name = "SYMBOL")]
    symbol: Option<String>,
    /// The module it moves to: an existing file, or a new one (in a package directory, the
    /// root, a source root or the old module's own directory).
    #[arg(long, value_name = "PATH")]
    to: String,
    /// The symbol by position: PATH:LINE:COL of its definition or of a use (1-based, as
    /// `lancet read` numbers lines).
    #[arg(long, value_name = "PATH:LINE:COL")]
    at: Option<String>,
    /// Leave `from <new> import <symbol>` in the old module, for its users outside the tree
    /// (the tree's own imports are updated either way).
    #[arg(long)]
    keep_reexport: bool,
    /// Move it and leave as they are, listed, the sites lancet cannot decide or update (a
    /// string naming it, an attribute of a value of unknown type, a doctest). Without it such
    /// sites write nothing (exit 1, kind unresolved_sites).
    #[arg(long)]
    leave_unresolved: bool,
    #[command(flatten)]
    tx: TransactionArgs,
}

pub(super) fn run_move(root: PathBuf, args: MoveArgs) -> u8 {
    let symbol = args.symbol.unwrap_or_default();
    let edit = [
        "move",
        &symbol,
        args.at.as_deref().unwrap_or(""),
        &args.to,
        if args.keep_reexport { "keep" } else { "" },
    ]
    .join("\0")
    .into_bytes();
    let opts = |config: &lancet::Config| MoveOptions {
        symbol,
        at: args.at,
        to: args.to,
        keep_reexport: args.keep_reexport,
        leave_unresolved: args.leave_unresolved,
        exclude: config.walk_excludes(),
    };
    match args.tx.configured(root.clone()) {
        Ok((apply, config)) => args.tx.emit(
            &lancet::move_symbol(&opts(&config), &apply).report,
            &root,
            move || edit,
        ),
        Err(report) => emit(&report, args.tx.json),
    }
}
