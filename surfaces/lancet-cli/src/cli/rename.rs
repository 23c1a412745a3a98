//! `lancet rename`: an identifier renamed across the tree by syntax (or by a language
//! server), as one all-or-nothing batch.

use super::languages::LanguageName;
use super::output::emit;
use super::transaction::TransactionArgs;
use clap::{Args, ValueEnum};
use lancet::RenameOptions;
use lancet::{ErrorKind, Report, Status, SymbolKind};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct RenameArgs {
    /// The identifier to rename, or a qualified name (`pkg.mod.Class.method`,
    /// `crate::m::Type::f`) naming one symbol; with --at, leave it out: `rename --at P:L:C NEW`.
    #[arg(value_name = "OLD")]
    old: String,
    /// Its new name.
    #[arg(value_name = "NEW")]
    new: Option<String>,
    /// Files and directories to walk (default: the root); .gitignore is honoured.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// The symbol by position: PATH:LINE:COL (1-based, as `lancet read` numbers lines; any
    /// character of the identifier). Only the uses that resolve to that definition are renamed.
    #[arg(long, value_name = "PATH:LINE:COL")]
    at: Option<String>,
    /// Also rename the uses lancet cannot resolve without types (listed otherwise); uses that
    /// resolve outside the tree are never renamed.
    #[arg(long, conflicts_with = "leave_unresolved")]
    include_unresolved: bool,
    /// Rename only the uses lancet resolved and leave the undecided ones as they are (listed).
    /// Without this or --include-unresolved, a rename with undecided uses writes nothing
    /// (exit 1, kind unresolved_sites).
    #[arg(long)]
    leave_unresolved: bool,
    /// Rename every symbol a bare OLD names, when it names several unrelated ones (two
    /// functions of one name in two modules, a function and a local); without it such a
    /// rename is refused, naming each definition (pick one with --at).
    #[arg(long)]
    all_definitions: bool,
    /// Ask the project's language server what to rename (basedpyright or pyright for Python,
    /// typescript-language-server for JavaScript/TypeScript, found on PATH; needs --at); its
    /// answer is applied as one transaction.
    #[arg(long, conflicts_with = "no_lsp")]
    lsp: bool,
    /// Never ask a language server: by default the project's server, when one is installed
    /// outside it, decides the sites lancet cannot (each asked alone) and renames Go (gopls).
    /// `[rename] lsp = false` in the settings says the same.
    #[arg(long)]
    no_lsp: bool,
    /// Only files of this language: python (or py), javascript (js), typescript (ts), tsx,
    /// rust (rs).
    #[arg(long, value_name = "L", value_parser = LanguageName::rename())]
    lang: Option<String>,
    /// Only when OLD is defined as this kind of symbol (refused when it names another kind too).
    #[arg(long, value_enum, default_value_t = KindArg::Any, value_name = "K")]
    kind: KindArg,
    /// Also rename whole-word mentions in string literals (listed otherwise).
    #[arg(long)]
    include_strings: bool,
    /// Also rename whole-word mentions in comments (listed otherwise).
    #[arg(long)]
    include_comments: bool,
    #[command(flatten)]
    tx: TransactionArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum KindArg {
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
    /// A field or property of a struct, class or interface.
    Field,
    /// An enum's variant or member.
    Variant,
}

pub(super) fn run_rename(root: PathBuf, args: RenameArgs) -> u8 {
    let kind = match args.kind {
        KindArg::Any => SymbolKind::Any,
        KindArg::Function => SymbolKind::Function,
        KindArg::Class => SymbolKind::Class,
        KindArg::Method => SymbolKind::Method,
        KindArg::Variable => SymbolKind::Variable,
        KindArg::Field => SymbolKind::Field,
        KindArg::Variant => SymbolKind::Variant,
    };
    // With --at, OLD is the identifier there: the positionals are NEW [PATH]...
    let (old, new, paths) = match (args.at.is_some(), args.new) {
        (true, new) => {
            let mut rest: Vec<String> = new.into_iter().chain(args.paths).collect();
            rest.insert(0, args.old);
            let new = rest.remove(0);
            (String::new(), new, rest)
        }
        (false, Some(new)) => (args.old, new, args.paths),
        (false, None) => {
            return emit(
                &Report::batch_error(
                    Status::Malformed,
                    ErrorKind::Usage,
                    "rename takes OLD NEW [PATH]..., or --at PATH:LINE:COL NEW [PATH]...".into(),
                    "Pass the new name.",
                ),
                args.tx.json,
            );
        }
    };
    let edit = [
        "rename",
        &old,
        &new,
        args.at.as_deref().unwrap_or(""),
        &paths.join("\0"),
    ]
    .join("\0")
    .into_bytes();
    let lsp = args.lsp.then(|| {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
        lancet::Lsp::for_person(&canonical)
    });
    let opts = |config: &lancet::Config| RenameOptions {
        old,
        new,
        paths,
        at: args.at,
        include_unresolved: args.include_unresolved,
        leave_unresolved: args.leave_unresolved,
        all_definitions: args.all_definitions,
        lsp: lsp.clone(),
        servers: (config.rename_servers() && !args.no_lsp).then(|| {
            let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
            lancet::Lsp::for_person(&canonical)
        }),
        lang: args.lang,
        kind,
        include_strings: args.include_strings,
        include_comments: args.include_comments,
        exclude: config.walk_excludes(),
    };
    match args.tx.configured(root.clone()) {
        Ok((apply, config)) => args.tx.emit(
            &lancet::rename(&opts(&config), &apply).report,
            &root,
            move || edit,
        ),
        Err(report) => emit(&report, args.tx.json),
    }
}
