//! `lancet mcp`: lancet as Model Context Protocol tools over stdio, with the official Rust SDK.
//!
//! Every tool is one transaction through the same library path as the CLI, and answers with the
//! report's `message` as text (what a model reads) and the whole report as structured content.
//! Refusals are tool errors (`isError: true`), never protocol errors. The server remembers the
//! content of each file a model read or wrote in this session: an edit of a file that changed
//! since is applied to what the model read and rebased over the change (refused, shown three
//! ways, where the two touch), and one that does not fit even what it read gets a diff of what
//! changed; overwriting a file the model never read is refused. Writing tools run one at a
//! time; reads and the log run alongside. A model never chooses a command: the test command
//! and language servers are the person's (`--test-command`, `--allow-lsp`).

#![deny(missing_docs)]

mod args;
mod arguments;
mod edits;
mod limit;
mod options;
mod output;
mod result;
mod schemas;
mod session;
mod tools;

use lancet::Root;
use result::error_result;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
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
    trees: Arc<lancet::TreeCache>,
    /// This session's name in the rollback ledger: its "stop retrying" count is its own.
    actor: String,
    tool_router: ToolRouter<Self>,
}

impl LancetServer {
    fn root(&self) -> Result<Root, String> {
        Root::new(&self.root).map_err(|e| format!("cannot open the root: {e}"))
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

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LancetServer {
    /// The tools, and the answer to a request too large to read (`limit.rs`).
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
        let tool = request.name.to_string();
        let schema = self.tool_router.get(&tool).map(|t| t.input_schema.clone());
        let empty = serde_json::Map::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        if let Some(words) = schema.and_then(|s| arguments::misfit(&tool, &s, args)) {
            let result = error_result(words);
            self.log_call(&tool, args, &result);
            return Ok(result.into());
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let mut response = self.tool_router.call(call).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &mut response
            && result.is_error == Some(true)
            && let Some(words) = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .and_then(|t| arguments::reword_sdk_error(&tool, &t.text))
        {
            result.content = vec![rmcp::model::ContentBlock::text(words)];
        }
        Ok(response)
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
        // stdout has one writer: the SDK's messages and the answers to lines it never sees.
        let (sdk_out, answers, lines) = output::lines();
        let stdout = tokio::spawn(lines.forward(tokio::io::stdout()));
        let input = limit::Bounded::new(tokio::io::stdin(), answers);
        let service = server
            .serve((input, sdk_out))
            .await
            .map_err(std::io::Error::other)?;
        service.waiting().await.map_err(std::io::Error::other)?;
        stdout.await.map_err(std::io::Error::other)?
    })
}
