//! `lancet signature`: a function's parameters changed with every call of it, as one
//! all-or-nothing batch. The changes apply in the order they stand on the command line.

use super::output::emit;
use super::transaction::TransactionArgs;
use clap::{ArgMatches, Args};
use lancet::{ParamChange, Report, SignatureOptions, SignatureRefusal};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct SignatureArgs {
    /// The function: its name, or a qualified name (`pkg.mod.Class.method`); a class names its
    /// `__init__`. With --at, leave it out: `signature --at P:L:C --add …`.
    #[arg(value_name = "FUNC")]
    function: Option<String>,
    /// Files and directories to walk (default: the root); .gitignore is honoured. Calls in
    /// files not walked are not updated.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// The function by position: PATH:LINE:COL of its definition or of a use (1-based, as
    /// `lancet read` numbers lines).
    #[arg(long, value_name = "PATH:LINE:COL")]
    at: Option<String>,
    /// Add a parameter: its default (the definition gets NAME=DEFAULT), its position (0-based
    /// among the parameters as written, self counted; default: after the ordinary ones), and
    /// the VALUE existing calls pass for it. A parameter with neither DEFAULT nor VALUE is
    /// refused. A DEFAULT or VALUE holding a `:` or `@N` of its own goes in parentheses.
    #[arg(long, value_name = "NAME[=DEFAULT][@POS][:VALUE]")]
    add: Vec<String>,
    /// Remove a parameter, and the argument every call passes for it (refused while the
    /// function's body still uses it).
    #[arg(long, value_name = "NAME")]
    remove: Vec<String>,
    /// Rename a parameter: in the definition, its body and the calls' keyword arguments.
    #[arg(long, value_name = "OLD=NEW")]
    rename: Vec<String>,
    /// Put parameters in a new order: the ones named take, in this order, the places they
    /// held (`--reorder c,a` swaps a and c).
    #[arg(long, value_name = "A,B,C")]
    reorder: Vec<String>,
    /// Also update the calls lancet cannot decide are of this function (a method called on a
    /// value of unknown type), as calls of it.
    #[arg(long)]
    include_unresolved: bool,
    /// Write the rest and leave as they are, listed, the sites that cannot be updated safely
    /// (a use as a value, `functools.partial`, `*args` forwarding) and the undecided calls
    /// (unless --include-unresolved). Without it such sites write nothing (exit 1, kind
    /// unresolved_sites).
    #[arg(long)]
    leave_unresolved: bool,
    #[command(flatten)]
    tx: TransactionArgs,
}

/// The changes' switches in the order they stand on the command line: each switch's name and
/// the index of its value among that switch's.
pub(super) fn change_order(matches: &ArgMatches) -> Vec<(&'static str, usize)> {
    let mut all = Vec::new();
    for flag in ["add", "remove", "rename", "reorder"] {
        if let Some(indices) = matches.indices_of(flag) {
            all.extend(indices.enumerate().map(|(i, at)| (at, flag, i)));
        }
    }
    all.sort_unstable();
    all.into_iter().map(|(_, flag, i)| (flag, i)).collect()
}

pub(super) fn run_signature(root: PathBuf, args: SignatureArgs, order: &[(&str, usize)]) -> u8 {
    let mut changes = Vec::new();
    for (flag, i) in order {
        let change = match *flag {
            "add" => ParamChange::parse_add(&args.add[*i]),
            "remove" => Ok(ParamChange::Remove {
                name: args.remove[*i].trim().to_string(),
            }),
            "rename" => ParamChange::parse_rename(&args.rename[*i]),
            _ => ParamChange::parse_reorder(&args.reorder[*i]),
        };
        match change {
            Ok(c) => changes.push(c),
            Err(refusal) => {
                return emit(
                    &Report::signature_refused(&refusal, lancet::Surface::Cli),
                    args.tx.json,
                );
            }
        }
    }
    if changes.is_empty() {
        return emit(
            &Report::signature_refused(&SignatureRefusal::NothingToChange, lancet::Surface::Cli),
            args.tx.json,
        );
    }
    // With --at, FUNC may be left out: a first positional that is a file or directory under
    // the root is a path.
    let (function, paths) = match (args.at.is_some(), args.function) {
        (true, Some(first)) if root.join(&first).symlink_metadata().is_ok() => {
            let mut paths = vec![first];
            paths.extend(args.paths);
            (String::new(), paths)
        }
        (_, function) => (function.unwrap_or_default(), args.paths),
    };
    let spelled: Vec<String> = changes.iter().map(|c| format!("{c:?}")).collect();
    let edit = [
        "signature",
        &function,
        args.at.as_deref().unwrap_or(""),
        &paths.join("\0"),
        &spelled.join("\0"),
    ]
    .join("\0")
    .into_bytes();
    let opts = |config: &lancet::Config| SignatureOptions {
        function,
        at: args.at,
        paths,
        changes,
        include_unresolved: args.include_unresolved,
        leave_unresolved: args.leave_unresolved,
        exclude: config.walk_excludes(),
    };
    match args.tx.configured(root.clone()) {
        Ok((apply, config)) => args.tx.emit(
            &lancet::change_signature(&opts(&config), &apply).report,
            &root,
            move || edit,
        ),
        Err(report) => emit(&report, args.tx.json),
    }
}
