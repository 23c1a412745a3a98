//! The command line: argument parsing and rendering only; the work happens in the library.

use clap::{Args, Parser, Subcommand, ValueEnum};
use lancet::RenameOptions;
use lancet::batch::{Batch, Format};
use lancet::format::{self, FormatChoice, ParseOptions};
use lancet::report::ErrorKind;
use lancet::report::SymbolKind;
use lancet::report::{Report, Status, Surface};
use lancet::stage::{Base, Expectation};
use lancet::{ApplyOptions, apply_batch, path::Root};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// Transactional multi-file edits for AI coding agents and code mods.
#[derive(Debug, Parser)]
#[command(name = "lancet", version, about, long_about = None)]
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

#[derive(Debug, Subcommand)]
enum Command {
    /// Apply edit text from files (or stdin) as one all-or-nothing batch.
    Apply(ApplyArgs),
    /// Rename an identifier across the tree by syntax (strings and comments are listed, not
    /// renamed), as one all-or-nothing batch.
    Rename(RenameArgs),
    /// Parse edit text and print the operations lancet reads in it, touching no file (to see
    /// what a reply says before applying it; exit 2 when it does not parse).
    Parse(ParseArgs),
    /// Print a file's lines, numbered, with its sha256 (for --expect).
    Read(ReadArgs),
    /// Run the syntax gate on files as they are (exit 1 on errors).
    Check(CheckArgs),
    /// List checkpoints, newest first.
    Log(LogArgs),
    /// Put back a batch (the newest not yet undone, or ID): paths changed since are left alone.
    Undo(UndoArgs),
    /// Finish a batch interrupted by a crash (every command does this first) and say what it did.
    Recover(RecoverArgs),
    /// Serve lancet's tools over MCP on stdin/stdout (for agents).
    Mcp(McpArgs),
    /// Trust the root's lancet settings (lancet.toml or [tool.lancet]) as they are now: their
    /// keys that run commands or weaken safety apply only once trusted, until they change.
    Trust(TrustArgs),
}

#[derive(Debug, Args)]
struct TrustArgs {
    /// Forget the trust instead: the settings' guarded keys are ignored again.
    #[arg(long)]
    revoke: bool,
}

#[derive(Debug, Args)]
struct McpArgs {
    /// Record each call and its result here (JSON lines).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The test command a model may ask to run after an edit (`test: true` on apply_patch and
    /// rename_symbol). Without it, models cannot run tests through the server; they can never
    /// supply a command of their own.
    #[arg(long, value_name = "CMD")]
    test_command: Option<String>,
    /// Run the test command unconfined. By default it runs in lancet's sandbox (Landlock and
    /// seccomp: no network, writes only to the root's entries other than .git and lancet's
    /// state, and a private temp directory), since it runs code the model wrote; where the
    /// kernel cannot sandbox, `test` is refused.
    #[arg(long)]
    no_sandbox: bool,
    /// Let models ask for `rename_symbol {lsp: true}`: the language servers found on PATH now
    /// (outside the root; rustup's proxy resolved, TypeScript pinned to the one beside
    /// typescript-language-server) run sandboxed. Without it, lsp is refused.
    #[arg(long)]
    allow_lsp: bool,
}

#[derive(Debug, Args)]
struct LogArgs {
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct UndoArgs {
    /// The checkpoint id (or a prefix of it); default: the newest batch not yet undone.
    id: Option<String>,
    /// Restore paths even if they changed after the batch.
    #[arg(long, conflicts_with = "partial")]
    force: bool,
    /// Restore the paths that did not change after the batch and leave the others (without it,
    /// one changed path refuses the whole undo).
    #[arg(long)]
    partial: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RecoverArgs {
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// Files or directories (default: the root). Directories are walked, skipping hidden ones.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Leave out files matching this glob (root-relative; repeatable; added to
    /// `[check] exclude` of lancet.toml).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Skip languages' external check commands (tree-sitter still runs).
    #[arg(long)]
    no_compile_check: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

/// The switches every writing command shares: how the batch is checked, recorded and reported.
#[derive(Debug, Args)]
struct TransactionArgs {
    /// Compute, check and report everything, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Print nothing on success (the exit code says it); failures are still reported.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Compact reports for agents: each change shown once (its numbered snippet, or its diff
    /// when it has none) and no diffs in refusals.
    #[arg(long)]
    brief: bool,
    /// Skip the syntax gate entirely.
    #[arg(long)]
    no_syntax_check: bool,
    /// Skip languages' external check commands (tree-sitter still runs).
    #[arg(long)]
    no_compile_check: bool,
    /// Do not record a git checkpoint (no undo, no log entry).
    #[arg(long)]
    no_checkpoint: bool,
    /// Skip fsync (for throwaway trees: a crash may then lose the batch, never mix it).
    #[arg(long)]
    no_fsync: bool,
    /// Run this command (sh -c, in the root) after writing; roll the batch back if it fails.
    #[arg(long, value_name = "CMD")]
    test: Option<String>,
    /// Run the --test command in lancet's sandbox (Landlock and seccomp: no network, writes
    /// only to the root's entries other than .git and lancet's state, and a private temp
    /// directory); refused where the kernel cannot sandbox.
    #[arg(long, requires = "test")]
    sandbox: bool,
    /// Seconds the test command may run before it is killed (and the batch rolled back).
    #[arg(long, value_name = "S", default_value_t = 600)]
    test_timeout: u64,
    /// Bytes of test output kept in the report (the first failure and the summary).
    #[arg(long, value_name = "N", default_value_t = 8 * 1024)]
    test_output_bytes: usize,
}

impl TransactionArgs {
    /// The project's configuration with this call's switches over it.
    fn options(&self, root: PathBuf) -> Result<ApplyOptions, Box<Report>> {
        let (mut configured, _) = ApplyOptions::configured(root).map_err(config_refusal)?;
        if self.no_compile_check {
            configured.gate.external.clear();
        }
        Ok(ApplyOptions {
            dry_run: self.dry_run,
            fsync: !self.no_fsync,
            syntax_check: configured.syntax_check && !self.no_syntax_check,
            checkpoint: !self.no_checkpoint,
            test: self.test.clone(),
            sandbox: self.sandbox,
            test_timeout: std::time::Duration::from_secs(self.test_timeout),
            test_output_bytes: self.test_output_bytes,
            progress: lancet::Watch(
                (!self.quiet && !self.json && std::io::stderr().is_terminal())
                    .then(|| std::sync::Arc::new(Bar::new()) as _),
            ),
            ..configured
        })
    }

    fn emit(&self, report: &Report) -> u8 {
        if self.quiet && report.exit_code() == 0 && !self.json {
            return 0;
        }
        if self.brief {
            return emit(&report.clone().brief(), self.json);
        }
        emit(report, self.json)
    }
}

#[derive(Debug, Args)]
struct RenameArgs {
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
    /// Ask the project's language server what to rename (basedpyright or pyright for Python,
    /// typescript-language-server for JavaScript/TypeScript, found on PATH; needs --at); its
    /// answer is applied as one transaction.
    #[arg(long)]
    lsp: bool,
    /// Only files of this language (python, rust, javascript).
    #[arg(long, value_name = "L")]
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
}

#[derive(Debug, Args)]
struct ApplyArgs {
    /// Edit files, or directories of edit files (read in name order); none or `-` reads stdin.
    /// All of them form one batch.
    #[arg(value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The edit format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Refuse unless PATH still has this sha256 (from `lancet read`). Repeatable.
    #[arg(long, value_name = "PATH=SHA256")]
    expect: Vec<String>,
    /// The edit was written against PATH as `lancet read` showed it with this sha256: if the
    /// file changed since, the edit is applied to that content and merged into the file now
    /// (refused, nothing written, when the changes touch). Repeatable.
    #[arg(long, value_name = "PATH=SHA256")]
    base: Vec<String>,
    /// Apply the hunks that locate even if others fail (the failures are reported; exit 1).
    #[arg(long)]
    partial: bool,
    /// Read the inputs as JSON lines: each line one edit, a tool-call object or a JSON string
    /// holding edit text in any format (for generated code mods).
    #[arg(long)]
    jsonl: bool,
    #[command(flatten)]
    tx: TransactionArgs,
    /// The file that edit blocks naming no file apply to (SEARCH/REPLACE blocks, JSON edits).
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
    /// Refuse a SEARCH/REPLACE block that matches several places, instead of taking the first
    /// as Aider's format promises its models.
    #[arg(long)]
    unique: bool,
}

#[derive(Debug, Args)]
struct ParseArgs {
    /// Edit files, or directories of edit files (read in name order); none or `-` reads stdin.
    #[arg(value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The edit format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Read the inputs as JSON lines (as `apply --jsonl`).
    #[arg(long)]
    jsonl: bool,
    /// The file that edit blocks naming no file apply to.
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
    /// Print the operations as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ReadArgs {
    /// The file to read.
    path: String,
    /// First line to show (1-based).
    #[arg(long, default_value_t = 1)]
    offset: usize,
    /// Number of lines to show (default: all).
    #[arg(long)]
    limit: Option<usize>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
    /// Prefix each line with its anchor, `LINE:HASH|`, for `--format anchors` edits.
    #[arg(long)]
    anchors: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    /// Detect the format.
    Auto,
    /// The Codex `*** Begin Patch` format.
    Patch,
    /// Line-anchored edits on the `LINE:HASH` anchors of `lancet read --anchors`:
    /// `*** Edit Lines: PATH [sha256 HEX]`, then `@@ replace 12:a3k..15:k9z` + new lines,
    /// `@@ insert after 20:b7q`, `@@ insert before …`, `@@ delete …`.
    Anchors,
    /// OpenAI's `apply_patch` operations as JSON: `{"type": "update_file", "path", "diff"}`
    /// (also `create_file`, `delete_file`, `move_to`, a list or `{"operations": [...]}`).
    OpenaiPatch,
    /// `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks.
    SearchReplace,
    /// Unified or git diffs.
    Unified,
    /// Tool-call JSON (`old_string`/`new_string`, text-editor commands).
    Json,
    /// A filename line and a fenced block with the whole file.
    Whole,
    /// The whole new text of the file `--path` names, unchanged parts elided by markers
    /// (`// ... existing code ...`): a lazy sketch, placed deterministically or refused.
    Sketch,
}

/// Runs the CLI and returns the process exit code.
pub fn run() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    if matches!(
        cli.command,
        Command::Read(_) | Command::Check(_) | Command::Log(_) | Command::Mcp(_)
    ) {
        recover_first(&cli.root);
    }
    match cli.command {
        Command::Apply(args) => run_apply(cli.root, args),
        Command::Rename(args) => run_rename(cli.root, args),
        Command::Parse(args) => run_parse(args),
        Command::Read(args) => run_read(cli.root, args),
        Command::Check(args) => run_check(cli.root, args),
        Command::Log(args) => with_root(cli.root, |root| run_log(root, args.json)),
        Command::Undo(args) => with_root(cli.root, |root| {
            emit(
                &lancet::undo(
                    root,
                    args.id.as_deref(),
                    lancet::UndoOptions {
                        force: args.force,
                        partial: args.partial,
                        fsync: true,
                        surface: Surface::Cli,
                        protect_settings: false,
                    },
                ),
                args.json,
            )
        }),
        Command::Recover(args) => with_root(cli.root, |root| {
            emit(&lancet::recover(root, true), args.json)
        }),
        Command::Trust(args) => with_root(cli.root, |root| run_trust(root, args.revoke)),
        Command::Mcp(args) => with_root(cli.root, |root| {
            // A configuration lancet cannot use stops the server at once; the server reads it
            // again on every call (an edited lancet.toml counts without a restart).
            match lancet::Config::load(root) {
                Err(e) => {
                    eprintln!("lancet mcp: {e}");
                    return 2;
                }
                Ok(config) => {
                    if let Some(notice) = config.notice(Surface::Cli) {
                        eprintln!("lancet mcp: {notice}");
                    }
                }
            }
            let options = lancet_mcp::ServerOptions {
                log: args.log.clone(),
                test_command: args.test_command.clone(),
                sandbox: !args.no_sandbox,
                lsp: args
                    .allow_lsp
                    .then(|| std::sync::Arc::new(lancet::LanguageServers::resolve(root.path()))),
            };
            match lancet_mcp::serve(root.path(), options) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("lancet mcp: {e}");
                    4
                }
            }
        }),
    }
}

impl FormatArg {
    fn choice(self) -> FormatChoice {
        match self {
            FormatArg::Auto => FormatChoice::Auto,
            FormatArg::Patch => FormatChoice::Only(Format::Patch),
            FormatArg::OpenaiPatch => FormatChoice::Only(Format::OpenaiPatch),
            FormatArg::Anchors => FormatChoice::Only(Format::Anchors),
            FormatArg::SearchReplace => FormatChoice::Only(Format::SearchReplace),
            FormatArg::Unified => FormatChoice::Only(Format::Unified),
            FormatArg::Json => FormatChoice::Only(Format::Json),
            FormatArg::Whole => FormatChoice::Only(Format::Whole),
            FormatArg::Sketch => FormatChoice::Only(Format::Sketch),
        }
    }
}

fn run_parse(args: ParseArgs) -> u8 {
    let parse = ParseOptions {
        default_path: args.path.clone(),
        ..ParseOptions::default()
    };
    let batch = match read_batch(&args.inputs, args.format.choice(), &parse, args.jsonl) {
        Ok(b) => b,
        Err(report) => return emit(&report, args.json),
    };
    let text = if args.json {
        serde_json::to_string_pretty(&batch).unwrap_or_default() + "\n"
    } else {
        describe_batch(&batch)
    };
    let _ = std::io::stdout().write_all(text.as_bytes());
    0
}

/// A parsed batch for people: the format, then one line per operation and per hunk.
fn describe_batch(batch: &Batch) -> String {
    use lancet::batch::OpKind;
    let mut out = format!(
        "{}: {} operation(s)\n",
        batch.format.name(),
        batch.ops.len()
    );
    for op in &batch.ops {
        let what = match &op.kind {
            OpKind::Create { content, .. } => format!("add ({} bytes)", content.len()),
            OpKind::Write { content } => format!("write ({} bytes)", content.len()),
            OpKind::Append { content } => format!("append ({} bytes)", content.len()),
            OpKind::Delete => "delete".to_string(),
            OpKind::Splice { spans, .. } => format!("splice ({} spans)", spans.len()),
            OpKind::Lines { edits, .. } => format!("edit lines ({} edits)", edits.len()),
            OpKind::Update { hunks, move_to } => {
                let to = move_to
                    .as_ref()
                    .map(|t| format!(", move to {t}"))
                    .unwrap_or_default();
                format!("update ({} hunks{to})", hunks.len())
            }
        };
        out.push_str(&format!("  {} {what}, edit line {}\n", op.path, op.line));
        if let OpKind::Update { hunks, .. } = &op.kind {
            for h in hunks {
                out.push_str(&format!(
                    "    hunk at edit line {}: -{} +{} lines\n",
                    h.line,
                    h.old.len(),
                    h.new.len()
                ));
            }
        }
    }
    for note in &batch.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// Whether `s` is a SHA-256 in hex: 64 hexadecimal digits.
fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `PATH=SHA256` values of a flag, or the usage refusal naming the bad one.
fn path_hashes(flag: &str, values: &[String]) -> Result<Vec<(String, String)>, Box<Report>> {
    values
        .iter()
        .map(|v| match v.split_once('=') {
            Some((path, sha)) if !path.is_empty() && is_sha256_hex(sha.trim()) => {
                Ok((path.to_string(), sha.trim().to_string()))
            }
            _ => Err(Box::new(Report::batch_error(
                Status::Malformed,
                ErrorKind::Usage,
                format!("{flag} takes PATH=SHA256 (64 hexadecimal digits), got {v:?}"),
                "Pass the sha256 printed by `lancet read PATH`.",
            ))),
        })
        .collect()
}

fn run_apply(root: PathBuf, args: ApplyArgs) -> u8 {
    let format = args.format.choice();
    let parse = ParseOptions {
        default_path: args.path.clone(),
        unique: args.unique,
    };
    let expect = match path_hashes("--expect", &args.expect) {
        Ok(pairs) => pairs
            .into_iter()
            .map(|(path, sha256)| Expectation { path, sha256 })
            .collect(),
        Err(report) => return emit(&report, args.tx.json),
    };
    let base = match path_hashes("--base", &args.base) {
        Ok(pairs) => pairs
            .into_iter()
            .map(|(path, sha256)| Base {
                path,
                sha256,
                snapshot: None,
            })
            .collect(),
        Err(report) => return emit(&report, args.tx.json),
    };
    let batch = match read_batch(&args.inputs, format, &parse, args.jsonl) {
        Ok(b) => b,
        Err(report) => return emit(&report, args.tx.json),
    };
    let configured = match args.tx.options(root) {
        Ok(o) => o,
        Err(report) => return emit(&report, args.tx.json),
    };
    let opts = ApplyOptions {
        format,
        expect,
        base,
        parse,
        partial: args.partial,
        ..configured
    };
    args.tx.emit(&apply_batch(&batch, &opts))
}

fn run_rename(root: PathBuf, args: RenameArgs) -> u8 {
    let kind = match args.kind {
        KindArg::Any => SymbolKind::Any,
        KindArg::Function => SymbolKind::Function,
        KindArg::Class => SymbolKind::Class,
        KindArg::Method => SymbolKind::Method,
        KindArg::Variable => SymbolKind::Variable,
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
    let lsp = args.lsp.then(|| {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
        lancet::Lsp::for_person(&canonical)
    });
    let opts = RenameOptions {
        old,
        new,
        paths,
        at: args.at,
        include_unresolved: args.include_unresolved,
        leave_unresolved: args.leave_unresolved,
        lsp,
        lang: args.lang,
        kind,
        include_strings: args.include_strings,
        include_comments: args.include_comments,
    };
    match args.tx.options(root) {
        Ok(apply) => args.tx.emit(&lancet::rename(&opts, &apply)),
        Err(report) => emit(&report, args.tx.json),
    }
}

/// The refusal of a configuration lancet cannot use.
fn config_refusal(e: lancet::ConfigError) -> Box<Report> {
    Box::new(Report::batch_error(
        Status::Malformed,
        ErrorKind::Config,
        e.to_string(),
        "Fix the configuration (README, Configuration, lists every key) and run the command again.",
    ))
}

/// Expands directories into the edit files directly inside them, in name order (hidden files
/// skipped), so a directory of generated edits is one batch in a predictable order.
fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Box<Report>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.as_os_str() != "-" && input.is_dir() {
            let listing = std::fs::read_dir(input)
                .map_err(|e| Box::new(usage(format!("cannot list {}: {e}", input.display()))))?;
            let mut inside: Vec<PathBuf> = listing
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(input.clone());
        }
    }
    if files.is_empty() {
        files.push(PathBuf::from("-"));
    }
    Ok(files)
}

fn usage(detail: String) -> Report {
    Report::batch_error(
        Status::Malformed,
        ErrorKind::Usage,
        detail,
        "Pass readable edit files or directories, or the edit on stdin.",
    )
}

/// Reads and parses every input into one batch (operations in input order). With `jsonl`, each
/// line of each input is one edit: a tool-call object, an OpenAI `apply_patch` operation, or a
/// JSON string of edit text.
fn read_batch(
    inputs: &[PathBuf],
    format: FormatChoice,
    opts: &ParseOptions,
    jsonl: bool,
) -> Result<Batch, Box<Report>> {
    let mut batch: Option<Batch> = None;
    let mut add = |parsed: Result<Batch, format::ParseError>, name: &str| match parsed {
        Err(e) => Err(Box::new(Report::malformed(&e, Some(name)))),
        Ok(b) => {
            match &mut batch {
                None => batch = Some(b),
                Some(acc) => {
                    acc.ops.extend(b.ops);
                    acc.notes.extend(b.notes);
                }
            }
            Ok(())
        }
    };
    for input in expand_inputs(inputs)? {
        let is_stdin = input.as_os_str() == "-";
        let mut bytes = Vec::new();
        let read = if is_stdin {
            std::io::stdin().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::File::open(&input).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
        };
        let name = if is_stdin {
            "stdin".to_string()
        } else {
            input.display().to_string()
        };
        if let Err(e) = read {
            return Err(Box::new(usage(format!("cannot read {name}: {e}"))));
        }
        if !jsonl {
            let parsed = format::parse_bytes(&bytes, format, opts);
            add(parsed, &name)?;
            continue;
        }
        let text = match format::decode(&bytes) {
            Ok(t) => t,
            Err(e) => return Err(Box::new(Report::malformed(&e, Some(&name)))),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let place = format!("{name} entry {}", i + 1);
            let parsed = match serde_json::from_str::<serde_json::Value>(line) {
                Ok(serde_json::Value::String(edit)) => format::parse(&edit, format, opts),
                // An object: a tool call, or an OpenAI apply_patch operation.
                Ok(_) => {
                    let as_format = if format::openai::looks_like(line) {
                        Format::OpenaiPatch
                    } else {
                        Format::Json
                    };
                    format::parse(line, FormatChoice::Only(as_format), opts)
                }
                Err(e) => Err(format::ParseError::new(
                    1,
                    line.chars().take(80).collect::<String>(),
                    "one JSON value per line: a tool-call object or a string of edit text",
                    format!("not JSON: {e}"),
                )),
            };
            add(parsed, &place)?;
        }
    }
    batch.ok_or_else(|| Box::new(usage("the inputs hold no edit".into())))
}

fn run_read(root: PathBuf, args: ReadArgs) -> u8 {
    let root = match Root::new(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lancet read: cannot open the root {}: {e}", root.display());
            return 4;
        }
    };
    match lancet::read(&root, &args.path, args.offset, args.limit) {
        Ok(view) => {
            let view = if args.anchors {
                view.with_anchors()
            } else {
                view
            };
            let out = if args.json {
                serde_json::to_string_pretty(&view).unwrap_or_default() + "\n"
            } else {
                view.render()
            };
            let _ = std::io::stdout().write_all(out.as_bytes());
            0
        }
        Err(e) => {
            if args.json {
                let v = serde_json::json!({"status": "refused", "message": e.to_string()});
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                eprintln!("lancet read: {e}");
            }
            1
        }
    }
}

/// Finishes a batch a crash interrupted before a read-only command looks at the files (the
/// writing commands do it themselves and report it). The note goes to stderr.
fn recover_first(root: &std::path::Path) {
    if let Ok(root) = Root::new(root) {
        let state = lancet::store::StateDir::locate(&root);
        if let Some(note) = lancet::recover_if_needed(&state, true, true) {
            eprintln!("lancet: {note}");
        }
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

/// `lancet trust`: shows the person the settings' guarded keys and records their trust (or
/// forgets it).
fn run_trust(root: &Root, revoke: bool) -> u8 {
    let person = lancet::PersonFiles::locate(Some(root));
    if revoke {
        return match person.revoke(root) {
            Ok(true) => {
                println!(
                    "Trust in the settings of {} revoked: their guarded keys are ignored again.",
                    root.path().display()
                );
                0
            }
            Ok(false) => {
                println!("{} had no trusted settings.", root.path().display());
                0
            }
            Err(e) => {
                eprintln!("lancet trust: {e}");
                4
            }
        };
    }
    let settings = match lancet::RepositorySettings::read(root) {
        Ok((Some(settings), _)) => settings,
        Ok((None, _)) => {
            println!(
                "{} has no lancet settings (lancet.toml, or [tool.lancet] in pyproject.toml): nothing to trust.",
                root.path().display()
            );
            return 0;
        }
        Err(e) => {
            eprintln!("lancet trust: {e}");
            return 2;
        }
    };
    match person.record(root, settings.source, &settings.digest) {
        Ok(at) => {
            let guarded = settings.config.guarded_values();
            let mut out = format!(
                "Trusted {} of {} as it is now (sha256 {}).
",
                settings.source,
                root.path().display(),
                &settings.digest[..16]
            );
            if guarded.is_empty() {
                out.push_str(
                    "It sets none of the keys that run commands or weaken safety.
",
                );
            } else {
                out.push_str(
                    "These keys, which run commands or weaken safety, now apply:
",
                );
                for (key, value) in guarded {
                    out.push_str(&format!(
                        "  {key} = {value}
"
                    ));
                }
            }
            out.push_str(&format!(
                "Recorded in {}. Any change to the settings makes them untrusted again.
",
                at.display()
            ));
            let _ = std::io::stdout().write_all(out.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("lancet trust: {e}");
            4
        }
    }
}

fn run_log(root: &Root, json: bool) -> u8 {
    let entries = lancet::log(root);
    let out = if json {
        serde_json::to_string_pretty(&entries).unwrap_or_default() + "\n"
    } else if entries.is_empty() {
        "No checkpoints yet.\n".to_string()
    } else {
        let mut out = String::new();
        for m in &entries {
            let test = match &m.test {
                Some(t) if t.passed => " tests passed",
                Some(_) => " tests FAILED",
                None => "",
            };
            let undone = if m.undone { " (undone)" } else { "" };
            let commit = m.commit.as_deref().map_or(String::new(), |c| {
                format!("  commit {}", &c[..c.len().min(12)])
            });
            out.push_str(&format!(
                "{}  {}  {:<14} {} file(s){test}{undone}{commit}\n    {}\n",
                m.id,
                lancet::format_time(m.time),
                m.format,
                m.files.len(),
                m.summary
            ));
        }
        out
    };
    let _ = std::io::stdout().write_all(out.as_bytes());
    0
}

fn run_check(root: PathBuf, args: CheckArgs) -> u8 {
    let root = match Root::new(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lancet check: cannot open the root {}: {e}", root.display());
            return 4;
        }
    };
    let paths = if args.paths.is_empty() {
        vec![".".to_string()]
    } else {
        args.paths
    };
    let config = match lancet::Config::load(&root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lancet check: {e}");
            return 2;
        }
    };
    if let Some(notice) = config.notice(Surface::Cli) {
        eprintln!("lancet check: {notice}");
    }
    let mut exclude = config.check_excludes();
    exclude.extend(args.exclude.iter().cloned());
    let files = match lancet::check(&root, &paths, &exclude) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("lancet check: {e}");
            return 1;
        }
    };
    let mut gate = config.gate_options();
    if args.no_compile_check {
        gate.external.clear();
    }
    let report = lancet::syntax::check_contents(&files, &gate);
    let failed = !report.errors.is_empty();
    if args.json {
        let out = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(out.as_bytes());
    } else {
        let mut out = String::new();
        for e in &report.errors {
            out.push_str(&format!(
                "{}:{}:{}: {} ({})\n{}",
                e.path, e.line, e.column, e.kind, e.checker, e.excerpt
            ));
        }
        for note in &report.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        out.push_str(&format!(
            "{} file(s) checked, {} unchecked, {} with syntax errors ({} error(s)).\n",
            report.checked.len(),
            report.unchecked.len(),
            {
                let mut paths: Vec<&str> = report.errors.iter().map(|e| e.path.as_str()).collect();
                paths.dedup();
                paths.len()
            },
            report.errors.len()
        ));
        let _ = std::io::stdout().write_all(out.as_bytes());
    }
    u8::from(failed)
}

/// Prints a report (JSON to stdout; text to stdout on success, stderr otherwise) and returns
/// its exit code. A closed pipe is not an error.
fn emit(report: &Report, json: bool) -> u8 {
    let code = report.exit_code();
    if json {
        let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(text.as_bytes());
    } else if code == 0 {
        let stdout = std::io::stdout();
        let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = stdout
            .lock()
            .write_all(report.render_human(color).as_bytes());
    } else {
        let stderr = std::io::stderr();
        let color = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = stderr
            .lock()
            .write_all(report.render_human(color).as_bytes());
    }
    code
}

/// The CLI's observer: a progress bar on stderr (indicatif), for a person at a terminal.
struct Bar(indicatif::ProgressBar);

impl Bar {
    fn new() -> Bar {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Bar(bar)
    }
}

impl lancet::Observer for Bar {
    fn phase(&self, message: &str, len: Option<usize>) {
        let style = match len {
            Some(_) => {
                indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}")
            }
            None => indicatif::ProgressStyle::with_template("{spinner} {msg}"),
        };
        if let Ok(style) = style {
            self.0.set_style(style.progress_chars("=> "));
        }
        self.0.set_length(len.unwrap_or(0) as u64);
        self.0.set_position(0);
        self.0.set_message(message.to_string());
    }

    fn inc(&self) {
        self.0.inc(1);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
