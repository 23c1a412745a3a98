//! The command line: argument parsing and rendering only; the work happens in the library.
//! This module holds the top level (the root option and the subcommands) and dispatches each
//! command to its file.

mod apply;
mod check;
mod codemod;
mod history;
mod input;
mod languages;
mod man;
mod mcp;
mod moving;
mod output;
mod parse;
mod read;
mod rename;
mod report;
mod signature;
mod transaction;
mod trust;

use apply::ApplyArgs;
use check::CheckArgs;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use codemod::ModArgs;
use history::{LogArgs, RecoverArgs, UndoArgs};
use lancet::Root;
use mcp::McpArgs;
use moving::MoveArgs;
use parse::ParseArgs;
use read::ReadArgs;
use rename::RenameArgs;
use report::ReportArgs;
use signature::SignatureArgs;
use std::path::PathBuf;
use trust::TrustArgs;

/// Transactional multi-file edits for AI coding agents and code mods.
#[derive(Debug, Parser)]
#[command(
    name = "lancet",
    version,
    about = "Apply the edits AI models write (patches, SEARCH/REPLACE, diffs, JSON, whole files) to many files at once, all or nothing: every hunk located or the batch refused, syntax checked, undoable.",
    long_about = None
)]
struct Cli {
    /// The root directory: every path is relative to it and confined to it.
    #[arg(
        short = 'C',
        long = "root",
        global = true,
        default_value = ".",
        value_name = "DIR"
    )]
    root: PathBuf,
    #[command(subcommand)]
    command: Command,
}

/// Each subcommand's arguments are built only when it is the one used (`defer`): building all
/// sixteen commands' arguments took a quarter of a millisecond of every call.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Apply edit text from files (or stdin) as one all-or-nothing batch.
    Apply(ApplyArgs),
    /// Rename an identifier across the tree by syntax (strings and comments are listed, not
    /// renamed), as one all-or-nothing batch.
    #[command(
        override_usage = "lancet rename [OPTIONS] OLD NEW [PATH]...\n       lancet rename [OPTIONS] --at PATH:LINE:COL NEW [PATH]..."
    )]
    Rename(RenameArgs),
    /// Change a function's parameters (add, remove, rename, reorder) and update every call of
    /// it, by syntax, as one transaction (Python functions and methods, JavaScript/TypeScript
    /// functions).
    Signature(SignatureArgs),
    /// Move a module-level function, class, constant or type alias to another module and
    /// update every import and qualified use of it, by syntax, as one transaction (Python,
    /// JavaScript/TypeScript).
    Move(MoveArgs),
    /// Rewrite code by structure (ast-grep's rules, or -p PATTERN -r REWRITE --lang L), or by
    /// any codemod command (--exec CMD, run in a sandboxed scratch copy), as one all-or-nothing
    /// batch: syntax checked, checkpointed, --test, undo.
    Mod(ModArgs),
    /// Parse edit text and print the operations lancet reads in it, touching no file (to see
    /// what a reply says before applying it; exit 2 when it does not parse).
    Parse(ParseArgs),
    /// Print a file's lines, numbered, with its sha256 (for --expect).
    Read(ReadArgs),
    /// Run the syntax gate on files as they are (exit 1 on errors).
    Check(CheckArgs),
    /// List checkpoints, newest first.
    Log(LogArgs),
    /// Put back a batch (the newest not yet undone, or ID), all or nothing: a path changed since
    /// the batch refuses the whole undo (--partial restores the others, --force overwrites).
    Undo(UndoArgs),
    /// Finish a batch interrupted by a crash (every command does this first) and say what it did.
    Recover(RecoverArgs),
    /// Serve lancet's tools over MCP on stdin/stdout (for agents).
    Mcp(McpArgs),
    /// Trust the root's lancet settings (lancet.toml or [tool.lancet]) as they are now: their
    /// keys that run commands or weaken safety apply only once trusted, until they change.
    Trust(TrustArgs),
    /// Read the JSON reports of a fleet run (one per repository, from `--json --provenance`):
    /// one prints a pull-request description in Markdown, many a summary table.
    Report(ReportArgs),
    /// Print a completion script for a shell (bash, zsh, fish, powershell, elvish), e.g.
    /// `lancet completions bash > ~/.local/share/bash-completion/completions/lancet`.
    Completions(CompletionsArgs),
    /// Print lancet's manual page (roff), e.g. `lancet man > ~/.local/share/man/man1/lancet.1`.
    Man,
    /// Print the JSON Schema of what lancet prints with --json (the report, a parsed batch, a
    /// read, the checkpoint log) or of lancet.toml.
    Schema(SchemaArgs),
}

#[derive(Debug, clap::Args)]
struct SchemaArgs {
    /// Which document.
    #[arg(value_enum, default_value = "report")]
    document: SchemaName,
}

/// The documents `lancet schema` describes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SchemaName {
    /// The report (`--json`, MCP structured content).
    Report,
    /// A parsed batch (`lancet parse --json`).
    Batch,
    /// The settings file (lancet.toml, [tool.lancet]).
    Config,
    /// A read window (`lancet read --json`).
    Read,
    /// The checkpoint list (`lancet log --json`).
    Log,
}

#[derive(Debug, clap::Args)]
struct CompletionsArgs {
    /// The shell.
    shell: clap_complete::Shell,
}

/// The commands that read no tree: `-C` means nothing to them, so their help, the manual
/// and the completions leave it out (it is still accepted, and ignored).
const ROOTLESS: [&str; 5] = ["parse", "report", "schema", "completions", "man"];

/// The command line as clap reads, completes and documents it: the derived one, with `-C`
/// hidden where it means nothing (a hidden `root` of their own, which clap then does not
/// replace by the global one).
fn command() -> clap::Command {
    ROOTLESS.iter().fold(Cli::command(), |cmd, name| {
        cmd.mut_subcommand(*name, |sub| {
            sub.arg(
                clap::Arg::new("root")
                    .short('C')
                    .long("root")
                    .value_name("DIR")
                    .value_parser(clap::value_parser!(PathBuf))
                    .default_value(".")
                    .hide(true),
            )
        })
    })
}

/// Runs the CLI and returns the process exit code.
pub fn run() -> u8 {
    let mut clock = lancet::internals::timing::since_start();
    let mut order = Vec::new();
    let parsed = command().try_get_matches().and_then(|mut matches| {
        if let Some(("signature", sub)) = matches.subcommand() {
            order = signature::change_order(sub);
        }
        Cli::from_arg_matches_mut(&mut matches)
    });
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    lancet::internals::timing::lap("arguments", &mut clock);
    if matches!(
        cli.command,
        Command::Read(_) | Command::Check(_) | Command::Log(_) | Command::Mcp(_)
    ) {
        recover_first(&cli.root);
    }
    match cli.command {
        Command::Apply(args) => apply::run_apply(cli.root, args),
        Command::Rename(args) => rename::run_rename(cli.root, args),
        Command::Signature(args) => signature::run_signature(cli.root, args, &order),
        Command::Move(args) => moving::run_move(cli.root, args),
        Command::Mod(args) => codemod::run_mod(cli.root, args),
        Command::Parse(args) => parse::run_parse(args),
        Command::Read(args) => read::run_read(cli.root, args),
        Command::Check(args) => check::run_check(cli.root, args),
        Command::Log(args) => with_root(cli.root, |root| history::run_log(root, &args)),
        Command::Undo(args) => with_root(cli.root, |root| history::run_undo(root, &args)),
        Command::Recover(args) => with_root(cli.root, |root| history::run_recover(root, &args)),
        Command::Trust(args) => with_root(cli.root, |root| trust::run_trust(root, args.revoke)),
        Command::Mcp(args) => with_root(cli.root, |root| mcp::run_mcp(root, &args)),
        Command::Report(args) => report::run_report(&args),
        Command::Completions(args) => {
            let mut out = std::io::stdout();
            clap_complete::generate(args.shell, &mut command(), "lancet", &mut out);
            0
        }
        Command::Schema(args) => {
            let schema = match args.document {
                SchemaName::Report => lancet::surfaces::Schema::Report,
                SchemaName::Batch => lancet::surfaces::Schema::Batch,
                SchemaName::Config => lancet::surfaces::Schema::Config,
                SchemaName::Read => lancet::surfaces::Schema::Read,
                SchemaName::Log => lancet::surfaces::Schema::Log,
            };
            let _ = std::io::Write::write_all(&mut std::io::stdout(), schema.text().as_bytes());
            0
        }
        Command::Man => match man::render(command(), &mut std::io::stdout()) {
            Ok(()) => 0,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                eprintln!("lancet man: {e}");
                4
            }
        },
    }
}

/// Finishes a batch a crash interrupted before a read-only command looks at the files (the
/// writing commands do it themselves and report it). The note goes to stderr.
fn recover_first(root: &std::path::Path) {
    if let Ok(root) = Root::new(root)
        && let Some(note) = lancet::finish_interrupted(&root)
    {
        eprintln!("lancet: {note}");
    }
}

/// Opens the root, then runs a command (exit 4 when the root cannot be opened).
fn with_root(root: PathBuf, run: impl FnOnce(&Root) -> u8) -> u8 {
    match Root::new(&root) {
        Ok(r) => run(&r),
        Err(e) => {
            eprintln!("lancet: cannot open the root {}: {e}", root.display());
            4
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call builds only its own subcommand's arguments; the others stay unbuilt until clap
    /// parses into them (or the manual and completions build the whole tree).
    #[test]
    fn only_the_subcommand_used_is_built() {
        let unbuilt = command();
        let rename = unbuilt.find_subcommand("rename").unwrap();
        assert_eq!(rename.get_arguments().count(), 0);
        let mut built = command();
        built.build();
        let rename = built.find_subcommand("rename").unwrap();
        assert!(
            rename
                .get_arguments()
                .any(|a| a.get_id() == "include_unresolved")
        );
        built.debug_assert();
        let matches = command()
            .try_get_matches_from([
                "lancet",
                "-C",
                "/x",
                "rename",
                "--include-unresolved",
                "a",
                "b",
            ])
            .unwrap();
        let cli = Cli::from_arg_matches(&matches).unwrap();
        assert!(matches!(cli.command, Command::Rename(_)));
        assert_eq!(cli.root, PathBuf::from("/x"));
    }
}
