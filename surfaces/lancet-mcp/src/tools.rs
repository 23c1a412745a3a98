//! The tools a model calls: each declared with the description it reads, the reading ones run
//! at once, the writing ones on a writer's turn.

use crate::args::{
    ApplyPatchArgs, ChangeArg, ChangeSignatureArgs, CheckpointsArgs, EditArgs, EditLinesArgs,
    MoveSymbolArgs, ReadFileArgs, RenameSymbolArgs, UndoArgs, WriteFileArgs,
};
use crate::result::{bad_argument, refusal};
use crate::schemas;
use crate::schemas::CheckpointList;
use crate::session::session_name;
use crate::turn::Turn;
use crate::{LancetServer, ServerOptions};
use lancet::FormatChoice;
use lancet::apply_batch;
use lancet::{ErrorKind, Format};
use lancet::{Report, Surface};
use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

#[tool_router(router = tool_router)]
impl LancetServer {
    /// A server for `root`, logging calls to `log` when given, with the person's `choices`.
    pub fn new(root: PathBuf, log: Option<std::fs::File>, choices: ServerOptions) -> Self {
        LancetServer {
            root,
            seen: Arc::default(),
            writer: Arc::default(),
            in_flight: Arc::default(),
            late: Arc::default(),
            quit: CancellationToken::new(),
            stopped_by: Arc::default(),
            log: log.map(|f| Arc::new(Mutex::new(f))),
            choices: Arc::new(choices),
            trees: Arc::default(),
            kept: Arc::default(),
            actor: session_name(),
            tool_router: Self::tool_router(),
        }
    }

    /// Read a file: numbered lines (line<TAB>text) and its sha256, a page at a time.
    #[tool(
        name = "read_file",
        input_schema = schemas::input::<ReadFileArgs>(),
        output_schema = schemas::read_result(),
        annotations(
            title = "Read a file",
            read_only_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Read a file of the project: numbered lines (`N<TAB>text`) and the file's sha256. Read a file before editing it; copy old_string from these lines without the numbers. One read shows at most 2000 lines (fewer when they are long); a longer file ends with where to read on (offset). Pass offset/limit for another window."
    )]
    async fn read_file(&self, Parameters(args): Parameters<ReadFileArgs>) -> CallToolResult {
        self.reader_turn("read_file", args, Self::read_blocking)
            .await
    }

    /// Edit lines named by the anchors read_file hands out.
    #[tool(
        name = "edit_lines",
        input_schema = schemas::input::<EditLinesArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Edit lines by anchor",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Edit lines of one file by their anchors, without copying old text: read the file with read_file anchors: true (each line shows as LINE:HASH|text), then send edits [{op: replace|insert_after|insert_before|delete, start: \"12:a3k\", end: \"15:k9z\" (ranges), lines: [new lines]}], all applied or none. An anchor whose line changed since your read is mapped through the change (your edit is applied to what you read and merged into the file now), or refused with what the line reads now; read again for fresh anchors. Anchors of a file you have not read in this session are refused."
    )]
    async fn edit_lines(
        &self,
        Parameters(args): Parameters<EditLinesArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn::writing("edit_lines", args.test);
        self.writer_turn(turn, args, context, Self::edit_lines_blocking)
            .await
    }

    /// Replace one exact piece of text in a file.
    #[tool(
        name = "edit",
        input_schema = schemas::input::<EditArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Replace text in a file",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Replace old_string by new_string in one file. old_string must match exactly one place (copy it from read_file, with enough surrounding lines to be unique) unless replace_all or expected_replacements says otherwise; small whitespace and indentation drift and typographic quotes (curly for straight) are tolerated, ambiguity never is. If the file changed since you read it, the edit is applied to what you read and merged into the file as it is now (the result says so); where your change touches lines that changed, it is refused with the region shown three ways. A result with status already_applied means the change is already in the file."
    )]
    async fn edit(
        &self,
        Parameters(args): Parameters<EditArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn::writing("edit", None);
        self.writer_turn(turn, args, context, Self::edit_blocking)
            .await
    }

    /// Apply a multi-file edit in any format lancet reads.
    #[tool(
        name = "apply_patch",
        input_schema = schemas::input::<ApplyPatchArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Apply a multi-file edit",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Apply an edit to one or many files as one transaction: text holding a `*** Begin Patch` patch, SEARCH/REPLACE blocks (file name on the line before each), a unified diff, JSON edits, or a file name plus a fenced whole file; or operations, OpenAI apply_patch operations ({type: create_file|update_file|delete_file, path, diff, move_to}). Everything applies or nothing does; syntax errors introduced by the edit are refused. Pass test: true to run the project's test command afterwards and roll back if it fails (available when the server was started with one)."
    )]
    async fn apply_patch(
        &self,
        Parameters(args): Parameters<ApplyPatchArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn::writing("apply_patch", args.test);
        self.writer_turn(turn, args, context, |this, args, call| {
            let mut opts = match this.options_testing(args.test, call) {
                Ok(o) => o,
                Err(refusal) => return refusal,
            };
            opts.format = match args.format.as_deref() {
                None | Some("auto") => FormatChoice::Auto,
                Some(name) => match Format::STRICTEST_FIRST.into_iter().find(|f| f.name() == name) {
                    Some(f) => FormatChoice::Only(f),
                    None => {
                        return bad_argument(format!(
                            "unknown format {name:?}: use {}",
                            crate::args::forced_formats()
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
                    return bad_argument(
                        "send either text (an edit in any format) or operations (OpenAI apply_patch operations), not both or neither".to_string(),
                    );
                }
            };
            let parsed = lancet::parse(text.as_bytes(), opts.format, &opts.parse);
            let batch = match parsed {
                Ok(batch) => batch,
                Err(e) => return this.answer(Report::malformed(&e, None).into(), call),
            };
            // A whole file in a patch overwrites as write_file does: only what the model read.
            if let Some(refusal) = this.unread_overwrite(&batch) {
                return refusal;
            }
            opts.base = this.bases(&batch);
            this.answer(apply_batch(&batch, &opts), call)
        })
        .await
    }

    /// Write a whole file.
    #[tool(
        name = "write_file",
        input_schema = schemas::input::<WriteFileArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Write a whole file",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Write a whole file. For a new file, just pass path and content. Overwriting an existing file needs its current sha256 (expected_sha256, from read_file) or a read_file of it in this session (if the file changed since, your content is merged into it: only the lines you changed count, and a change touching lines someone else changed is refused). Prefer edit or apply_patch for changes to existing files."
    )]
    async fn write_file(
        &self,
        Parameters(args): Parameters<WriteFileArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn::writing("write_file", None);
        self.writer_turn(turn, args, context, Self::write_blocking)
            .await
    }

    /// Put a batch back.
    #[tool(
        name = "undo",
        input_schema = schemas::input::<UndoArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Undo a batch",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Undo a batch of this project: every file it changed goes back to its earlier content, if it still holds what the batch wrote. All or nothing: if any file changed since, nothing is undone unless force (overwrite them: only files you have read in this session, as they are now) or partial (restore the rest). Without id, undoes the newest batch not yet undone; call it again to undo the one before. An undo is itself a batch: undo with its id redoes what it undid. A batch already undone is refused."
    )]
    async fn undo(
        &self,
        Parameters(args): Parameters<UndoArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn::writing("undo", None);
        self.writer_turn(turn, args, context, |this, args, call| {
            let root = match this.root() {
                Ok(r) => r,
                Err(refused) => return refused,
            };
            let opts = match this.options(call) {
                Ok(o) => o,
                Err(refusal) => return refusal,
            };
            // An undo writes in milliseconds once it starts: its commit point is its start.
            if call.cancel.is_cancelled() {
                return refusal(
                    ErrorKind::Cancelled,
                    "the call was cancelled before the undo began".to_string(),
                    "Nothing was written.",
                );
            }
            this.answer(
                lancet::undo(
                    &root,
                    args.id.as_deref(),
                    lancet::UndoOptions {
                        force: args.force.unwrap_or(false),
                        partial: args.partial.unwrap_or(false),
                        fsync: true,
                        surface: Surface::Mcp,
                        protect_settings: true,
                        // This root's batches only, and force only over what the model has read.
                        any_root: false,
                        read: Some(this.read_hashes()),
                        hard_links: opts.hard_links,
                    },
                ),
                call,
            )
        })
        .await
    }

    /// Rename an identifier across the project.
    #[tool(
        name = "rename_symbol",
        input_schema = schemas::input::<RenameSymbolArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Rename a symbol",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Rename a symbol everywhere it is used in code (Python, Rust, JavaScript/TypeScript): its definitions and the uses that resolve to them (scopes, imports, self/cls/this members, keyword arguments). Name it by `old`, by a qualified name, or by position with `at` (PATH:LINE:COL from read_file). Uses lancet cannot resolve without types (`x.close()` on an unknown `x`) stop the rename (nothing written, kind unresolved_sites, each listed): pass include_unresolved to rename them too or leave_unresolved to rename only the decided ones; uses that resolve outside the project (`os.close`, another package's function) are never renamed. Mentions inside strings and comments are listed with path and line for you to judge (include_strings / include_comments rename them). One transaction: syntax-checked, undoable, all files or none. Refused when the new name is a keyword or already used in a file it would touch. Prefer this over many edit calls for a rename."
    )]
    async fn rename_symbol(
        &self,
        Parameters(args): Parameters<RenameSymbolArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn {
            tool: "rename_symbol",
            tests: args.test.unwrap_or(false),
            long: true,
        };
        self.writer_turn(turn, args, context, |this, args, call| {
            let (opts, config) = match this.configured_testing(args.test, call) {
                Ok(configured) => configured,
                Err(refusal) => return refusal,
            };
            // A language server reads the tree the model wrote: only when the person allowed
            // it, with the servers they resolved at start, always sandboxed.
            let sandboxed = |servers: &Arc<_>| lancet::Lsp {
                servers: Arc::clone(servers),
                confinement: lancet::Confinement::Required,
            };
            let lsp = match (args.lsp.unwrap_or(false), &this.choices.lsp) {
                (false, _) => None,
                (true, Some(servers)) => Some(sandboxed(servers)),
                (true, None) => {
                    return refusal(
                        ErrorKind::Usage,
                        "lsp cannot be used: the user started this server without --allow-lsp (a language server runs programs the project names)".to_string(),
                        "Nothing was written. Rename without lsp (lancet resolves the symbol itself), or ask the user to restart the server with --allow-lsp.",
                    );
                }
            };
            let rename = lancet::RenameOptions {
                old: args.old.clone(),
                new: args.new.clone(),
                paths: args.paths.clone().unwrap_or_default(),
                lang: None,
                kind: lancet::SymbolKind::Any,
                include_strings: args.include_strings.unwrap_or(false),
                include_comments: args.include_comments.unwrap_or(false),
                at: args.at.clone(),
                include_unresolved: args.include_unresolved.unwrap_or(false),
                leave_unresolved: args.leave_unresolved.unwrap_or(false),
                all_definitions: args.all_definitions.unwrap_or(false),
                lsp,
                // The servers the person allowed (`--allow-lsp`), unless the settings say no.
                servers: this
                    .choices
                    .lsp
                    .as_ref()
                    .filter(|_| config.rename_servers())
                    .map(sandboxed),
                exclude: config.walk_excludes(),
            };
            this.answer(lancet::rename(&rename, &opts), call)
        })
        .await
    }

    /// Change a function's parameters with every call of it.
    #[tool(
        name = "change_signature",
        input_schema = schemas::input::<ChangeSignatureArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Change a function's signature",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Change a function's parameters (a Python function or method, a JavaScript/TypeScript function) and update every call of it in the project, as one transaction (syntax-checked, undoable, all files or none). Name it by `function` (a name or `pkg.module.Class.method`; a class names its __init__) or by position with `at` (PATH:LINE:COL from read_file). `changes`, applied in order: {op: add, name, default, value, position} (default: what the definition gets; value: what existing calls pass; one of them required), {op: remove, name}, {op: rename, name, new_name} (in the body and keyword arguments too), {op: reorder, order: [names]}. Definitions keep their annotations and layout; overrides in subclasses change with their base; calls through `self`, instances, the class and super() are updated, arguments keeping their positional or keyword style. Uses that cannot be updated safely (the function passed as a value, functools.partial, *args/**kwargs forwarding) and calls on values of unknown type stop the change (nothing written, kind unresolved_sites, each listed): pass leave_unresolved to change the rest and leave them, include_unresolved to update the undecided calls too."
    )]
    async fn change_signature(
        &self,
        Parameters(args): Parameters<ChangeSignatureArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn {
            tool: "change_signature",
            tests: args.test.unwrap_or(false),
            long: true,
        };
        self.writer_turn(turn, args, context, |this, args, call| {
            let (opts, config) = match this.configured_testing(args.test, call) {
                Ok(configured) => configured,
                Err(refusal) => return refusal,
            };
            let changes = args
                .changes
                .iter()
                .map(|change| match change {
                    ChangeArg::Add {
                        name,
                        default,
                        position,
                        value,
                    } => lancet::ParamChange::Add {
                        name: name.clone(),
                        default: default.clone(),
                        position: *position,
                        value: value.clone(),
                    },
                    ChangeArg::Remove { name } => {
                        lancet::ParamChange::Remove { name: name.clone() }
                    }
                    ChangeArg::Rename { name, new_name } => lancet::ParamChange::Rename {
                        old: name.clone(),
                        new: new_name.clone(),
                    },
                    ChangeArg::Reorder { order } => lancet::ParamChange::Reorder {
                        names: order.clone(),
                    },
                })
                .collect();
            let signature = lancet::SignatureOptions {
                function: args.function.clone(),
                at: args.at.clone(),
                paths: args.paths.clone().unwrap_or_default(),
                changes,
                include_unresolved: args.include_unresolved.unwrap_or(false),
                leave_unresolved: args.leave_unresolved.unwrap_or(false),
                exclude: config.walk_excludes(),
            };
            this.answer(lancet::change_signature(&signature, &opts), call)
        })
        .await
    }

    /// Move a module-level symbol to another module with every import and use of it.
    #[tool(
        name = "move_symbol",
        input_schema = schemas::input::<MoveSymbolArgs>(),
        output_schema = schemas::report(),
        annotations(
            title = "Move a symbol to another module",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Move a module-level Python or JavaScript/TypeScript function, class, constant or type to another module (`to`: an existing file, or a new one: for Python in a package directory) and update every import and qualified use of it in the project, as one transaction (syntax-checked, undoable, all files or none). Name it by `symbol` (a name or `pkg.module.name`) or by position with `at` (PATH:LINE:COL from read_file). Its code moves byte for byte with its decorators and the comments directly above it; the imports it needs are copied into the new module (names the old module defines are imported from it), the old module loses the imports only it used and gets `from new import symbol` when it still uses it; `from old import symbol [as alias]` becomes `from new import …` (split when it imports more), `old.symbol` becomes `new.symbol` with the import added; `__all__` is updated on both sides. Refused, nothing written: an import cycle the move would make (kind import_cycle), a name the new module already defines (name_in_use), a destination nothing imports (unsafe_path), a `from old import *` elsewhere (unresolved_sites; pass keep_reexport to keep the old module re-exporting it), and sites lancet cannot decide (a string naming it, an attribute of a value of unknown type; unresolved_sites, each listed: pass leave_unresolved to move it and leave them). JavaScript/TypeScript: an exported or module-level function, class, const/let, type alias, interface or enum moves with its JSDoc and decorators (exported in the new module when something imports it); `import { symbol [as alias] } from './old'` and `export { symbol } from './old'` follow (split when they name more; `import type` and inline `type` kept; `.js`-suffixed or extensionless as the file writes them), `ns.symbol` through `import * as ns` becomes `symbol` imported from the new module, a module with `export * from './old'` gets `export { symbol } from './new'`; keep_reexport leaves `export { symbol } from './new'` in the old module. Refused there too: `export default` (kind_mismatch), CommonJS modules, and `require`/`import()`/strings naming the old module (unresolved_sites)."
    )]
    async fn move_symbol(
        &self,
        Parameters(args): Parameters<MoveSymbolArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let turn = Turn {
            tool: "move_symbol",
            tests: args.test.unwrap_or(false),
            long: true,
        };
        self.writer_turn(turn, args, context, |this, args, call| {
            let (opts, config) = match this.configured_testing(args.test, call) {
                Ok(configured) => configured,
                Err(refusal) => return refusal,
            };
            let moving = lancet::MoveOptions {
                symbol: args.symbol.clone(),
                at: args.at.clone(),
                to: args.to.clone(),
                keep_reexport: args.keep_reexport.unwrap_or(false),
                leave_unresolved: args.leave_unresolved.unwrap_or(false),
                exclude: config.walk_excludes(),
            };
            this.answer(lancet::move_symbol(&moving, &opts), call)
        })
        .await
    }

    /// List checkpoints.
    #[tool(
        name = "checkpoints",
        input_schema = schemas::input::<CheckpointsArgs>(),
        output_schema = schemas::checkpoints_result(),
        annotations(
            title = "List checkpoints",
            read_only_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "List the batches lancet has applied, newest first (the last 20 unless limit says otherwise; path keeps those that touched it): id, time, format, files, summary, test result, and whether undone. Pass an id to undo."
    )]
    async fn checkpoints(&self, Parameters(args): Parameters<CheckpointsArgs>) -> CallToolResult {
        self.reader_turn("checkpoints", args, Self::checkpoints_blocking)
            .await
    }
}

impl LancetServer {
    fn checkpoints_blocking(&self, args: &CheckpointsArgs) -> CallToolResult {
        let root = match self.root() {
            Ok(root) => root,
            Err(refused) => return refused,
        };
        let filter = lancet::LogFilter {
            limit: Some(args.limit.unwrap_or(20)),
            path: args.path.clone(),
            since: None,
            any_root: false,
        };
        let list = lancet::log(&root, &filter);
        let filtered = args.path.is_some() || args.limit == Some(0);
        let text = lancet::surfaces::checkpoints_in_words(&list, filtered, lancet::Surface::Mcp);
        let list = CheckpointList {
            checkpoints: list,
            notes: Vec::new(),
        };
        let mut result = CallToolResult::structured(serde_json::to_value(list).unwrap_or_default());
        result.content = vec![ContentBlock::text(text)];
        result
    }
}

#[cfg(test)]
mod tests {
    /// Every `format` a schema names, wherever it stands.
    fn formats(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(f)) = map.get("format") {
                    found.push(f.clone());
                }
                map.values().for_each(|v| formats(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
            _ => {}
        }
    }

    /// A strict client (Ajv's strict mode, the TypeScript SDK) rejects formats JSON Schema does
    /// not define: schemars' `uint`, `uint64`, `int32`, `double` are none of the tools'.
    #[test]
    fn every_schema_of_every_tool_keeps_to_standard_formats() {
        for tool in crate::LancetServer::tool_router().list_all() {
            let mut found = Vec::new();
            let input = serde_json::Value::Object((*tool.input_schema).clone());
            formats(&input, &mut found);
            let output = tool.output_schema.as_ref().expect("an output schema");
            formats(&serde_json::Value::Object((**output).clone()), &mut found);
            assert!(found.is_empty(), "{}: {found:?}", tool.name);
            assert_eq!(input["type"], "object", "{}", tool.name);
            assert_eq!(input["additionalProperties"], false, "{}", tool.name);
        }
    }

    /// Every tool says what it returns and whether it writes: a client that plans calls (or
    /// asks the person before a destructive one) reads these, and validates results.
    #[test]
    fn every_tool_declares_its_output_and_its_hints() {
        let tools = crate::LancetServer::tool_router().list_all();
        assert_eq!(tools.len(), 10);
        for tool in tools {
            let output = tool.output_schema.as_ref().expect("an output schema");
            assert_eq!(output.get("type"), Some(&"object".into()), "{}", tool.name);
            let hints = tool.annotations.as_ref().expect("annotations");
            let reads = matches!(tool.name.as_ref(), "read_file" | "checkpoints");
            assert_eq!(hints.read_only_hint, Some(reads), "{}", tool.name);
            assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
            assert!(hints.idempotent_hint.is_some(), "{}", tool.name);
            if !reads {
                assert_eq!(hints.destructive_hint, Some(true), "{}", tool.name);
            }
        }
    }
}
