//! `lancet mcp`: lancet as Model Context Protocol tools over stdio, with the official Rust SDK.
//!
//! Every tool is one transaction through the same library path as the CLI, and answers with the
//! report's `message` as text (what a model reads) and the whole report as structured content.
//! Refusals are tool errors (`isError: true`), never protocol errors. The server remembers the
//! SHA-256 of each file a model read or wrote in this session: an `edit` to a file that changed
//! since then is refused with a diff of what changed, unless its target text is still there and
//! unique (then it applies, and says the file had changed). Writing tools run one at a time;
//! reads and the log run alongside.

#![deny(missing_docs)]

pub mod limit;

use lancet::batch::{Batch, FileOp, Format, Hunk, Occurrences, OpKind};
use lancet::digest::sha256_hex;
use lancet::format::FormatChoice;
use lancet::path::Root;
use lancet::report::{ErrorKind, Report, Surface};
use lancet::stage::{Base, Expectation};
use lancet::{Applied, ApplyOptions, apply_batch_written};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the server tells a model about itself at initialisation (kept as text, to be read
/// and edited as text).
const INSTRUCTIONS: &str = include_str!("mcp_instructions.txt");

/// The server: a root, what the model has read, and the writers' turn-taking.
#[derive(Clone)]
pub struct LancetServer {
    root: PathBuf,
    /// Per path: the content the model last read or wrote in this session.
    seen: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    /// Writing tools take turns (the root lock is per process).
    writer: Arc<tokio::sync::Mutex<()>>,
    log: Option<Arc<Mutex<std::fs::File>>>,
    /// What the person chose when starting the server (the test command, the sandbox, `--lsp`):
    /// a model only says whether to use them.
    choices: Arc<ServerOptions>,
    /// Each edited file's last syntax tree, so the next edit of it reparses incrementally.
    trees: Arc<lancet::syntax::trees::TreeCache>,
    /// This session's name in the rollback ledger: its "stop retrying" count is its own.
    actor: String,
    tool_router: ToolRouter<Self>,
}

/// `read_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// File path, relative to the project root (absolute paths inside the root also work).
    pub path: String,
    /// First line to return, 1-based (default 1).
    pub offset: Option<usize>,
    /// How many lines to return (default: all).
    pub limit: Option<usize>,
    /// Prefix each line with its anchor `LINE:HASH|` (for edit_lines) instead of `N<TAB>`.
    pub anchors: Option<bool>,
}

/// `edit_lines` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditLinesArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The edits, each on lines of the file as read_file (anchors: true) showed it.
    pub edits: Vec<LineEditArg>,
    /// Run the project's test command (set when the server was started) after writing; if it
    /// fails the edit is rolled back.
    pub test: Option<bool>,
}

/// One line-anchored edit.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LineEditArg {
    /// `replace`, `insert_after`, `insert_before` or `delete`.
    pub op: String,
    /// The anchor `LINE:HASH` of the first line (for an insert, the line it goes after or before).
    pub start: String,
    /// The anchor of the last line of a replace or delete range (default: `start`).
    pub end: Option<String>,
    /// The new lines, without line endings (none for delete).
    #[serde(default)]
    pub lines: Vec<String>,
}

/// `edit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The exact text to replace, copied from read_file without the line numbers. It must occur
    /// exactly once unless replace_all or expected_replacements is set; include neighbouring
    /// lines to make it unique. Empty creates a new file (refused if the file has content).
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence of old_string.
    pub replace_all: Option<bool>,
    /// Replace exactly this many occurrences (refused if the count differs).
    pub expected_replacements: Option<usize>,
    /// The sha256 read_file returned: the edit is refused if the file changed since.
    pub expected_sha256: Option<String>,
}

/// `apply_patch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The edit: a `*** Begin Patch` … `*** End Patch` patch, SEARCH/REPLACE blocks with file
    /// names, a unified diff, JSON edits, or a file name line plus a fenced whole file. All of it
    /// applies or none of it does. Send this or `operations`.
    pub text: Option<String>,
    /// OpenAI `apply_patch` operations, applied as one transaction (instead of `text`).
    pub operations: Option<Vec<PatchOperation>>,
    /// Force a format: patch, openai-patch, search-replace, unified, json or whole (default:
    /// detected).
    pub format: Option<String>,
    /// Run the project's test command (set when the server was started) after writing; if it
    /// fails the whole edit is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// One OpenAI `apply_patch` operation: what the Responses API's hosted tool emits.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
pub struct PatchOperation {
    /// `create_file`, `update_file` or `delete_file`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file, relative to the project root.
    pub path: String,
    /// The V4A body: `@@` anchors and ` `/`-`/`+` lines for update_file, `+` lines for
    /// create_file (a last bare `+` gives the file a final newline); none for delete_file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// update_file only: write the result here and remove `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_to: Option<String>,
}

/// `write_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// For an existing file: the sha256 read_file returned (or read it first in this session).
    pub expected_sha256: Option<String>,
}

/// `undo` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UndoArgs {
    /// A checkpoint id (or prefix) from checkpoints; default: the newest batch not yet undone.
    pub id: Option<String>,
    /// Restore files even if they changed after the batch.
    pub force: Option<bool>,
    /// Restore the files that did not change after the batch and leave the others; without
    /// it, one changed file refuses the whole undo.
    pub partial: Option<bool>,
}

/// `rename_symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RenameSymbolArgs {
    /// The identifier to rename, exactly as written in code, or qualified
    /// (`pkg.module.Class.method`, `crate::module::Type::method`) to name one symbol. May be
    /// empty when `at` is given.
    #[serde(default)]
    pub old: String,
    /// The new name: an identifier, not a keyword, not already used in the files touched.
    pub new: String,
    /// Files or directories to search, relative to the project root (default: the whole
    /// project; files ignored by .gitignore are skipped).
    pub paths: Option<Vec<String>>,
    /// The symbol by position, "PATH:LINE:COL" (1-based line and column as read_file numbers
    /// lines, on any character of the identifier): only the uses that resolve to that
    /// definition are renamed.
    pub at: Option<String>,
    /// Also rename the uses lancet cannot resolve without types (`x.close()` on a value of
    /// unknown type); they are listed otherwise. Uses that resolve outside the project
    /// (`os.close`) are never renamed.
    pub include_unresolved: Option<bool>,
    /// Rename only the uses lancet resolved and leave the undecided ones as they are (listed).
    /// Without it or include_unresolved, a rename with undecided uses writes nothing.
    pub leave_unresolved: Option<bool>,
    /// Also rename whole-word mentions inside string literals (listed otherwise).
    pub include_strings: Option<bool>,
    /// Also rename whole-word mentions inside comments (listed otherwise).
    pub include_comments: Option<bool>,
    /// Ask the project's language server (basedpyright for Python, typescript-language-server
    /// for JavaScript/TypeScript, rust-analyzer for Rust) what the symbol at `at` is used as;
    /// needs `at`, and the user's permission (the server started with --allow-lsp). Its answer
    /// is applied as one transaction, like any rename.
    pub lsp: Option<bool>,
    /// Run the project's test command (set when the server was started) after renaming; if it
    /// fails the rename is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// `checkpoints` arguments (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckpointsArgs {}

impl LancetServer {
    /// The test command to run when a call asks for tests: only the person's (`--test-command`,
    /// else `[mcp] test_command` of the user's configuration or of repository settings they
    /// trusted, as it is now), never one the model supplies or writes (that would make the
    /// server a shell).
    fn tests_asked(
        &self,
        asked: Option<bool>,
        configured: Option<String>,
    ) -> Result<Option<String>, CallToolResult> {
        match (
            asked.unwrap_or(false),
            self.choices.test_command.clone().or(configured),
        ) {
            (false, _) => Ok(None),
            (true, Some(command)) => Ok(Some(command)),
            (true, None) => Err(error_result(
                "This server has no test command: the user started it without --test-command and set no [mcp] test_command in their configuration (a repository's lancet.toml counts only once they trusted it with `lancet trust`), so test cannot be used. Nothing was written. Resend without test, or ask the user to set one (`lancet mcp --test-command '<their test command>'`).".to_string(),
            )),
        }
    }

    /// The refusal for a batch that overwrites, deletes or moves an existing file the model
    /// has not read in this session: the rule of write_file, for every way to send one (a file
    /// read and changed since is rebased instead).
    fn unread_overwrite(&self, batch: &Batch) -> Option<CallToolResult> {
        let root = self.root().ok()?;
        batch.ops.iter().find_map(|op| {
            let what = match &op.kind {
                OpKind::Write { .. } => "overwritten",
                OpKind::Delete => "deleted",
                OpKind::Update {
                    move_to: Some(_), ..
                } => "moved",
                _ => return None,
            };
            let rel = root.rel(&op.path).ok()?;
            let existing = root.read_regular(&rel)?;
            // Read, then changed by someone else: the whole file is rebased over the change.
            let known = self.seen(rel.as_str()).is_some();
            (!known).then(|| {
                error_result(format!(
                    "{rel} exists and you have not read it in this session: read it first (read_file), then resend, so nothing you have not seen is {what} (sha256 now {}). Nothing was written.",
                    sha256_hex(&existing)
                ))
            })
        })
    }

    /// The root's configuration (read on every call, so an edited `lancet.toml` counts at
    /// once) in MCP's vocabulary; a configuration lancet cannot use is the call's error.
    fn options(&self) -> Result<ApplyOptions, CallToolResult> {
        self.configured().map(|(opts, _)| opts)
    }

    /// [`Self::options`] with the tests a call asks for (`test: true`), from the same read of
    /// the configuration.
    fn options_testing(&self, asked: Option<bool>) -> Result<ApplyOptions, CallToolResult> {
        let (mut opts, config) = self.configured()?;
        opts.test = self.tests_asked(asked, config.mcp.test_command)?;
        // The model's code runs in the tests: sandboxed unless the person said otherwise.
        opts.sandbox = self.choices.sandbox;
        Ok(opts)
    }

    fn configured(&self) -> Result<(ApplyOptions, lancet::Config), CallToolResult> {
        match ApplyOptions::configured(self.root.clone()) {
            Ok((mut opts, config)) => {
                opts.gate.trees = Some(Arc::clone(&self.trees));
                // A model here is not Aider: a SEARCH block standing at several places is
                // refused, never applied at the first.
                opts.parse.unique = true;
                Ok((
                    ApplyOptions {
                        surface: Surface::Mcp,
                        actor: self.actor.clone(),
                        // Configuration is the person's: no batch of the model's changes it.
                        protect_settings: true,
                        ..opts
                    },
                    config,
                ))
            }
            Err(e) => Err(error_result(format!(
                "{e}. Nothing was written. Ask the user to fix the configuration (the README's Configuration section lists every key)."
            ))),
        }
    }

    fn root(&self) -> Result<Root, String> {
        Root::new(&self.root).map_err(|e| format!("cannot open the root: {e}"))
    }

    fn remember(&self, path: &str, bytes: Vec<u8>) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_string(), bytes);
        }
    }

    fn seen(&self, path: &str) -> Option<Vec<u8>> {
        self.seen.lock().ok()?.get(path).cloned()
    }

    /// What the model read of a file that changed since (another agent, a formatter, the user
    /// wrote it): the base its edit is applied to and rebased from.
    fn stale_base(&self, root: &Root, path: &str) -> Option<Base> {
        let rel = root.rel(path).ok()?;
        self.stale_base_of(rel.as_str(), &root.read_regular(&rel)?)
    }

    /// [`Self::stale_base`] of a file (by its relative path) whose bytes are read already.
    fn stale_base_of(&self, rel: &str, now: &[u8]) -> Option<Base> {
        let seen = self.seen(rel)?;
        (seen != now).then(|| Base {
            path: rel.to_string(),
            sha256: sha256_hex(&seen),
            snapshot: Some(Arc::new(seen)),
        })
    }

    /// [`Self::stale_base`] of every file a batch edits or overwrites, once each.
    fn stale_bases(&self, batch: &Batch) -> Vec<Base> {
        let Ok(root) = self.root() else {
            return Vec::new();
        };
        let mut bases: Vec<Base> = Vec::new();
        for op in &batch.ops {
            if let Some(base) = self.stale_base(&root, &op.path)
                && !bases.iter().any(|b| b.path == base.path)
            {
                bases.push(base);
            }
        }
        bases
    }

    /// Records what the model now knows of the files a batch wrote (a refused batch wrote
    /// nothing, and its message shows only excerpts): the bytes the batch handed back, and,
    /// for a path it reached through a symlink (reported under the link's name), what the link
    /// now reads as.
    fn remember_written(&self, applied: &Applied) {
        if applied.report.exit_code() != 0 {
            return;
        }
        for (path, bytes) in &applied.written {
            self.remember(path, bytes.clone());
        }
        let Ok(root) = self.root() else {
            return;
        };
        for f in &applied.report.files {
            let path = f.to.as_deref().unwrap_or(&f.path);
            if applied.written.iter().any(|(p, _)| p == path) {
                continue;
            }
            if let Ok(rel) = root.rel(path)
                && let Some(bytes) = root.read_regular(&rel)
            {
                self.remember(path, bytes);
            }
        }
    }

    /// A writing call's result, remembering what the model now knows of the files it wrote.
    fn answer(&self, applied: Applied) -> CallToolResult {
        self.remember_written(&applied);
        report_result(&applied.report)
    }

    /// Runs a writing tool's `work`: one writer at a time (a batch may touch several files),
    /// off the async runtime, with the call and its result logged.
    async fn writer_turn<A>(
        &self,
        tool: &'static str,
        args: A,
        work: impl FnOnce(&LancetServer, &A) -> CallToolResult + Send + 'static,
    ) -> CallToolResult
    where
        A: std::fmt::Debug + Send + 'static,
    {
        let _turn = self.writer.lock().await;
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let result = work(&this, &args);
            this.log_call(tool, &args, &result);
            result
        })
        .await
        .unwrap_or_else(|e| error_result(format!("internal error: {e}")))
    }

    fn log_call(&self, tool: &str, args: &impl std::fmt::Debug, result: &CallToolResult) {
        if let Some(log) = &self.log
            && let Ok(mut f) = log.lock()
        {
            let entry = serde_json::json!({
                "tool": tool,
                "args": format!("{args:?}"),
                "is_error": result.is_error,
                "result": result.structured_content,
            });
            let _ = writeln!(f, "{entry}");
        }
    }
}

/// A report as a tool result: the message as text, the report as structured content.
fn report_result(report: &Report) -> CallToolResult {
    // Models read every token: the compact form, each change shown once.
    let structured = serde_json::to_value(report.clone().brief()).unwrap_or_default();
    let mut result = if report.exit_code() == 0 {
        CallToolResult::structured(structured)
    } else {
        CallToolResult::structured_error(structured)
    };
    result.content = vec![ContentBlock::text(report.message.clone())];
    result
}

fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

#[tool_router(router = tool_router)]
impl LancetServer {
    /// A server for `root`, logging calls to `log` when given, with the person's `choices`.
    pub fn new(root: PathBuf, log: Option<std::fs::File>, choices: ServerOptions) -> Self {
        LancetServer {
            root,
            seen: Arc::default(),
            writer: Arc::default(),
            log: log.map(|f| Arc::new(Mutex::new(f))),
            choices: Arc::new(choices),
            trees: Arc::default(),
            actor: session_name(),
            tool_router: Self::tool_router(),
        }
    }

    /// Read a file: numbered lines (line<TAB>text) and its sha256. Read before you edit.
    #[tool(
        name = "read_file",
        description = "Read a file of the project: numbered lines (`N<TAB>text`) and the file's sha256. Read a file before editing it; copy old_string from these lines without the numbers. Pass offset/limit for a window of a long file."
    )]
    async fn read_file(&self, Parameters(args): Parameters<ReadFileArgs>) -> CallToolResult {
        if let Ok(root) = self.root() {
            let state = lancet::store::StateDir::locate(&root);
            let _ = lancet::recover_if_needed(&state, true, true);
        }
        let result = match self.root() {
            Err(e) => error_result(e),
            Ok(root) => {
                match lancet::read_only(&root, &args.path, args.offset.unwrap_or(1), args.limit) {
                    Err(e) => error_result(e.to_string()),
                    Ok(view) => {
                        if let Ok(rel) = root.rel(&args.path)
                            && let Some(bytes) = root.read_regular(&rel)
                        {
                            self.remember(rel.as_str(), bytes);
                        }
                        let view = if args.anchors == Some(true) {
                            view.with_anchors()
                        } else {
                            view
                        };
                        let mut result = CallToolResult::structured(
                            serde_json::to_value(&view).unwrap_or_default(),
                        );
                        result.content = vec![ContentBlock::text(view.render())];
                        result
                    }
                }
            }
        };
        self.log_call("read_file", &args, &result);
        result
    }

    /// Edit lines named by the anchors read_file hands out.
    #[tool(
        name = "edit_lines",
        description = "Edit lines of one file by their anchors, without copying old text: read the file with read_file anchors: true (each line shows as LINE:HASH|text), then send edits [{op: replace|insert_after|insert_before|delete, start: \"12:a3k\", end: \"15:k9z\" (ranges), lines: [new lines]}], all applied or none. An anchor whose line changed since your read is mapped through the change (your edit is applied to what you read and merged into the file now), or refused with what the line reads now; read again for fresh anchors."
    )]
    async fn edit_lines(&self, Parameters(args): Parameters<EditLinesArgs>) -> CallToolResult {
        self.writer_turn("edit_lines", args, Self::edit_lines_blocking)
            .await
    }

    /// Replace one exact piece of text in a file.
    #[tool(
        name = "edit",
        description = "Replace old_string by new_string in one file. old_string must match exactly one place (copy it from read_file, with enough surrounding lines to be unique) unless replace_all or expected_replacements says otherwise; small whitespace and indentation drift and typographic quotes (curly for straight) are tolerated, ambiguity never is. If the file changed since you read it, the edit is applied to what you read and merged into the file as it is now (the result says so); where your change touches lines that changed, it is refused with the region shown three ways. A result with status already_applied means the change is already in the file."
    )]
    async fn edit(&self, Parameters(args): Parameters<EditArgs>) -> CallToolResult {
        self.writer_turn("edit", args, Self::edit_blocking).await
    }

    /// Apply a multi-file edit in any format lancet reads.
    #[tool(
        name = "apply_patch",
        description = "Apply an edit to one or many files as one transaction: text holding a `*** Begin Patch` patch, SEARCH/REPLACE blocks (file name on the line before each), a unified diff, JSON edits, or a file name plus a fenced whole file; or operations, OpenAI apply_patch operations ({type: create_file|update_file|delete_file, path, diff, move_to}). Everything applies or nothing does; syntax errors introduced by the edit are refused. Pass test: true to run the project's test command afterwards and roll back if it fails (available when the server was started with one)."
    )]
    async fn apply_patch(&self, Parameters(args): Parameters<ApplyPatchArgs>) -> CallToolResult {
        self.writer_turn("apply_patch", args, |this, args| {
            let mut opts = match this.options_testing(args.test) {
                Ok(o) => o,
                Err(refusal) => return refusal,
            };
            opts.format = match args.format.as_deref() {
                None | Some("auto") => FormatChoice::Auto,
                Some(name) => match Format::STRICTEST_FIRST.into_iter().find(|f| f.name() == name) {
                    Some(f) => FormatChoice::Only(f),
                    None => {
                        return error_result(format!(
                            "unknown format {name:?}: use patch, openai-patch, search-replace, unified, json or whole"
                        ));
                    }
                },
            };
            let text = match (&args.text, &args.operations) {
                (Some(text), None) => text.clone(),
                (None, Some(operations)) => {
                    opts.format = FormatChoice::Only(Format::OpenaiPatch);
                    serde_json::json!({ "operations": operations }).to_string()
                }
                _ => {
                    return error_result(
                        "send either text (an edit in any format) or operations (OpenAI apply_patch operations), not both or neither".to_string(),
                    );
                }
            };
            let parsed = lancet::format::parse_bytes(text.as_bytes(), opts.format, &opts.parse);
            let batch = match parsed {
                Ok(batch) => batch,
                Err(e) => return this.answer(Report::malformed(&e, None).into()),
            };
            // A whole file in a patch overwrites as write_file does: only what the model read.
            if let Some(refusal) = this.unread_overwrite(&batch) {
                return refusal;
            }
            opts.base = this.stale_bases(&batch);
            this.answer(apply_batch_written(&batch, &opts))
        })
        .await
    }

    /// Write a whole file.
    #[tool(
        name = "write_file",
        description = "Write a whole file. For a new file, just pass path and content. Overwriting an existing file needs its current sha256 (expected_sha256, from read_file) or a read_file of it in this session (if the file changed since, your content is merged into it: only the lines you changed count, and a change touching lines someone else changed is refused). Prefer edit or apply_patch for changes to existing files."
    )]
    async fn write_file(&self, Parameters(args): Parameters<WriteFileArgs>) -> CallToolResult {
        self.writer_turn("write_file", args, Self::write_blocking)
            .await
    }

    /// Put a batch back.
    #[tool(
        name = "undo",
        description = "Undo a batch: every file it changed goes back to its earlier content, if it still holds what the batch wrote. All or nothing: if any file changed since, nothing is undone unless force (overwrite them) or partial (restore the rest). Without id, undoes the newest batch not yet undone; call it again to undo the one before."
    )]
    async fn undo(&self, Parameters(args): Parameters<UndoArgs>) -> CallToolResult {
        self.writer_turn("undo", args, |this, args| match this.root() {
            Err(e) => error_result(e),
            Ok(root) => this.answer(lancet::undo_written(
                &root,
                args.id.as_deref(),
                lancet::UndoOptions {
                    force: args.force.unwrap_or(false),
                    partial: args.partial.unwrap_or(false),
                    fsync: true,
                    surface: Surface::Mcp,
                    protect_settings: true,
                },
            )),
        })
        .await
    }

    /// Rename an identifier across the project.
    #[tool(
        name = "rename_symbol",
        description = "Rename a symbol everywhere it is used in code (Python, Rust, JavaScript/TypeScript): its definitions and the uses that resolve to them (scopes, imports, self/cls/this members, keyword arguments). Name it by `old`, by a qualified name, or by position with `at` (PATH:LINE:COL from read_file). Uses lancet cannot resolve without types (`x.close()` on an unknown `x`) stop the rename (nothing written, kind unresolved_sites, each listed): pass include_unresolved to rename them too or leave_unresolved to rename only the decided ones; uses that resolve outside the project (`os.close`, another package's function) are never renamed. Mentions inside strings and comments are listed with path and line for you to judge (include_strings / include_comments rename them). One transaction: syntax-checked, undoable, all files or none. Refused when the new name is a keyword or already used in a file it would touch. Prefer this over many edit calls for a rename."
    )]
    async fn rename_symbol(
        &self,
        Parameters(args): Parameters<RenameSymbolArgs>,
    ) -> CallToolResult {
        self.writer_turn("rename_symbol", args, |this, args| {
            let opts = match this.options_testing(args.test) {
                Ok(o) => o,
                Err(refusal) => return refusal,
            };
            // A language server reads the tree the model wrote: only when the person allowed
            // it, with the servers they resolved at start, always sandboxed.
            let lsp = match (args.lsp.unwrap_or(false), &this.choices.lsp) {
                (false, _) => None,
                (true, Some(servers)) => Some(lancet::Lsp {
                    servers: Arc::clone(servers),
                    confinement: lancet::Confinement::Required,
                }),
                (true, None) => {
                    return error_result(
                        "lsp cannot be used: the user started this server without --allow-lsp (a language server runs programs the project names). Nothing was written. Rename without lsp (lancet resolves the symbol itself), or ask the user to restart the server with --allow-lsp.".to_string(),
                    );
                }
            };
            let rename = lancet::RenameOptions {
                old: args.old.clone(),
                new: args.new.clone(),
                paths: args.paths.clone().unwrap_or_default(),
                lang: None,
                kind: lancet::report::SymbolKind::Any,
                include_strings: args.include_strings.unwrap_or(false),
                include_comments: args.include_comments.unwrap_or(false),
                at: args.at.clone(),
                include_unresolved: args.include_unresolved.unwrap_or(false),
                leave_unresolved: args.leave_unresolved.unwrap_or(false),
                lsp,
            };
            this.answer(lancet::rename_written(&rename, &opts))
        })
        .await
    }

    /// List checkpoints.
    #[tool(
        name = "checkpoints",
        description = "List the batches lancet has applied, newest first: id, time, format, files, summary, test result, and whether undone. Pass an id to undo."
    )]
    async fn checkpoints(&self, Parameters(args): Parameters<CheckpointsArgs>) -> CallToolResult {
        let result = match self.root() {
            Err(e) => error_result(e),
            Ok(root) => {
                let list = lancet::log(&root);
                let text = if list.is_empty() {
                    "No checkpoints yet.".to_string()
                } else {
                    list.iter()
                        .map(|m| {
                            format!(
                                "{}  {}  {}{}{}",
                                m.id,
                                lancet::format_time(m.time),
                                m.summary,
                                m.test.as_ref().map_or("", |t| if t.passed {
                                    "  [tests passed]"
                                } else {
                                    "  [tests failed]"
                                }),
                                if m.undone { "  (undone)" } else { "" }
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let mut result = CallToolResult::structured(
                    serde_json::json!({ "checkpoints": serde_json::to_value(&list).unwrap_or_default() }),
                );
                result.content = vec![ContentBlock::text(text)];
                result
            }
        };
        self.log_call("checkpoints", &args, &result);
        result
    }
}

impl LancetServer {
    fn edit_lines_blocking(&self, args: &EditLinesArgs) -> CallToolResult {
        use lancet::anchors::LineAnchor;
        use lancet::batch::{LineAction, LineEdit};
        let root = match self.root() {
            Ok(r) => r,
            Err(e) => return error_result(e),
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return error_result(e.to_string()),
        };
        let mut edits = Vec::new();
        for (i, e) in args.edits.iter().enumerate() {
            let n = i + 1;
            let action = match e.op.as_str() {
                "replace" => LineAction::Replace,
                "insert_after" => LineAction::InsertAfter,
                "insert_before" => LineAction::InsertBefore,
                "delete" => LineAction::Delete,
                other => {
                    return error_result(format!(
                        "edits[{n}].op is {other:?}: use replace, insert_after, insert_before or delete"
                    ));
                }
            };
            let anchor = |field: &str, text: &str| {
                LineAnchor::parse(text).ok_or_else(|| {
                    format!(
                        "edits[{n}].{field} is {text:?}: an anchor is LINE:HASH as read_file (anchors: true) shows it, e.g. \"12:a3k\""
                    )
                })
            };
            let first = match anchor("start", &e.start) {
                Ok(a) => a,
                Err(m) => return error_result(m),
            };
            let last = match e.end.as_deref() {
                None => first.clone(),
                Some(_) if matches!(action, LineAction::InsertAfter | LineAction::InsertBefore) => {
                    return error_result(format!("edits[{n}].end: an insert takes start only"));
                }
                Some(end) => match anchor("end", end) {
                    Ok(a) => a,
                    Err(m) => return error_result(m),
                },
            };
            match action {
                LineAction::Delete if !e.lines.is_empty() => {
                    return error_result(format!("edits[{n}].lines: a delete takes no lines"));
                }
                LineAction::InsertAfter | LineAction::InsertBefore if e.lines.is_empty() => {
                    return error_result(format!("edits[{n}].lines: an insert needs lines"));
                }
                _ => {}
            }
            edits.push(LineEdit {
                action,
                first,
                last,
                lines: e.lines.clone(),
                line: n,
            });
        }
        if edits.is_empty() {
            return error_result("edits is empty: send at least one edit".to_string());
        }
        let batch = Batch {
            format: Format::Anchors,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind: OpKind::Lines {
                    base_sha256: None,
                    edits,
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let mut opts = match self.options_testing(args.test) {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        // The anchors are the read's: a file changed since is edited as read, then rebased.
        opts.base = self.stale_bases(&batch);
        self.answer(apply_batch_written(&batch, &opts))
    }

    fn edit_blocking(&self, args: &EditArgs) -> CallToolResult {
        let root = match self.root() {
            Ok(r) => r,
            Err(e) => return error_result(e),
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return error_result(e.to_string()),
        };
        let occurrences = match (args.replace_all, args.expected_replacements) {
            (Some(true), _) => Occurrences::All,
            (_, Some(n)) if n != 1 => Occurrences::Exactly(n),
            _ => Occurrences::One,
        };
        let kind = if args.old_string.is_empty() {
            OpKind::Create {
                content: args.new_string.clone(),
                executable: false,
            }
        } else {
            OpKind::Update {
                hunks: vec![Hunk {
                    occurrences,
                    ..Hunk::substring(args.old_string.clone(), args.new_string.clone(), 1)
                }],
                move_to: None,
            }
        };
        let batch = Batch {
            format: Format::Json,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind,
                line: 1,
            }],
            notes: Vec::new(),
        };
        let mut opts = match self.options() {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        if let Some(sha) = &args.expected_sha256 {
            opts.expect.push(Expectation {
                path: rel.to_string(),
                sha256: sha.clone(),
            });
        }
        // Read-before-edit: the edit of a file that changed since the model's read is applied
        // to what it read and rebased over the change (refused, shown three ways, where the
        // two touch); an edit that does not fit even what it read gets what changed.
        let now = root.read_regular(&rel);
        let base = now
            .as_deref()
            .and_then(|now| self.stale_base_of(rel.as_str(), now));
        opts.base.extend(base.clone());
        let applied = apply_batch_written(&batch, &opts);
        let conflict = applied
            .report
            .files
            .iter()
            .any(|f| f.kind == Some(ErrorKind::RebaseConflict));
        if let Some(Base {
            snapshot: Some(seen),
            ..
        }) = &base
            && !conflict
            && applied.report.exit_code() != 0
        {
            let diff = similar::TextDiff::from_lines(
                String::from_utf8_lossy(seen).into_owned(),
                String::from_utf8_lossy(now.as_deref().unwrap_or_default()).into_owned(),
            )
            .unified_diff()
            .context_radius(2)
            .header("as you read it", "as it is now")
            .to_string();
            return error_result(format!(
                "{rel} changed since you last read it, and the text to replace is not there as you sent it. What changed:\n{diff}\nRead it again (read_file) and resend the edit against the current text."
            ));
        }
        self.answer(applied)
    }

    fn write_blocking(&self, args: &WriteFileArgs) -> CallToolResult {
        let root = match self.root() {
            Ok(r) => r,
            Err(e) => return error_result(e),
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return error_result(e.to_string()),
        };
        let existing = root.read_regular(&rel);
        let mut opts = match self.options() {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        if let Some(bytes) = &existing {
            let current = sha256_hex(bytes);
            let known = self.seen(rel.as_str()).is_some_and(|seen| seen == *bytes);
            let stale = self.stale_base_of(rel.as_str(), bytes);
            match (&args.expected_sha256, stale) {
                (Some(sha), _) => opts.expect.push(Expectation {
                    path: rel.to_string(),
                    sha256: sha.clone(),
                }),
                (None, _) if known => {}
                // Read, then changed: the content is rebased over what changed since.
                (None, Some(base)) => opts.base.push(base),
                (None, None) => {
                    return error_result(format!(
                        "{rel} exists and you have not read it in this session: read it first (read_file) or pass its sha256 ({current} now) as expected_sha256, so nothing you have not seen is overwritten"
                    ));
                }
            }
        }
        let batch = Batch {
            format: Format::Whole,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind: OpKind::Write {
                    content: args.content.clone(),
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let applied = apply_batch_written(&batch, &opts);
        let diffs = written_diffs(&applied.report);
        let mut result = self.answer(applied);
        // The text a model reads shows what the write changed (a sketch resolved, a rebase):
        // the diff, not only "applied".
        if !diffs.is_empty() {
            result.content.push(ContentBlock::text(diffs));
        }
        result
    }
}

/// A name no other session of this machine has: the process and the moment it started.
fn session_name() -> String {
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("mcp:{}:{started}", std::process::id())
}

/// The diffs of the files an applied report updated, for a reply's text.
fn written_diffs(report: &Report) -> String {
    if report.exit_code() != 0 {
        return String::new();
    }
    report
        .files
        .iter()
        .filter_map(|f| f.diff.as_deref())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LancetServer {
    /// The tools, and the answer to a request too large to read ([`limit`]).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if request.name == limit::OVERSIZED_TOOL {
            let bytes = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("bytes"))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or_default();
            let result = error_result(limit::refusal(bytes as usize));
            self.log_call("(too large)", &bytes, &result);
            return Ok(result.into());
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("lancet", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.trim_end())
    }
}

/// What the person chooses when starting the server; the model can use these, never change
/// them.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Record each call and its result here (JSON lines).
    pub log: Option<PathBuf>,
    /// The one test command a model may ask to run (`--test-command`; else the user's or a
    /// trusted repository's `[mcp] test_command`).
    pub test_command: Option<String>,
    /// Run tests in lancet's sandbox (default; `--no-sandbox` turns it off).
    pub sandbox: bool,
    /// The language servers `rename_symbol {lsp: true}` may start (`--allow-lsp`), resolved
    /// once at start to programs outside the root; `None`: lsp is refused.
    pub lsp: Option<Arc<lancet::LanguageServers>>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            log: None,
            test_command: None,
            sandbox: true,
            lsp: None,
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve(root: &Path, options: ServerOptions) -> std::io::Result<()> {
    let log = match &options.log {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)?,
        ),
        None => None,
    };
    let server = LancetServer::new(root.to_path_buf(), log, options);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let service = server
            .serve((limit::Bounded::new(tokio::io::stdin()), tokio::io::stdout()))
            .await
            .map_err(std::io::Error::other)?;
        service.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    })
}
