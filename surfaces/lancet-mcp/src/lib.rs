//! `lancet mcp`: lancet as Model Context Protocol tools over stdio, with the official Rust SDK.
//!
//! Every tool is one transaction through the same library path as the CLI, and answers with the
//! report's `message` as text (what a model reads) and the whole report as structured content.
//! Refusals are tool errors (`isError: true`), never protocol errors. The server remembers the
//! content of each file a model read or wrote in this session: an edit of a file that changed
//! since is applied to what the model read and rebased over the change (refused, shown three
//! ways, where the two touch), and one that does not fit even what it read gets a diff of what
//! changed; overwriting a file the model never read is refused. Writing tools run one at a
//! time; reads and the log run alongside, and no call's work runs on the runtime, so `ping`,
//! `tools/list` and cancellations are answered at once. A cancelled call stops before its
//! commit point; progress goes to a client that asks for it. A model never chooses a command:
//! the test command and language servers are the person's (`--test-command`, `--allow-lsp`).

#![deny(missing_docs)]

mod args;
mod arguments;
mod call;
mod cancelled;
mod edits;
mod limit;
mod options;
mod output;
mod progress;
mod reads;
mod result;
mod schemas;
mod session;
mod tools;
mod turn;

use cancelled::LateCancels;
use lancet::{ErrorKind, Root};
use result::{refusal, with_notes, wrong_arguments};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResponse, CallToolResult, CancelledNotificationParam, Implementation,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::NotificationContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt, tool_handler};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

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
    /// The writing call in flight, for a read that comes meanwhile.
    in_flight: Arc<Mutex<Option<turn::InFlight>>>,
    /// Writing calls cancelled after their commit point, for the next answer to tell.
    late: Arc<LateCancels>,
    /// Cancelled to stop serving: a stop signal came during a test run, and the call is
    /// answered.
    quit: CancellationToken,
    /// The stop signal that ended the session, if one did.
    stopped_by: Arc<Mutex<Option<String>>>,
    log: Option<Arc<Mutex<std::fs::File>>>,
    /// What the person chose when starting the server (the test command, the sandbox, `--lsp`):
    /// a model only says whether to use them.
    choices: Arc<ServerOptions>,
    /// Each edited file's last syntax tree, so the next edit of it reparses incrementally.
    trees: Arc<lancet::TreeCache>,
    /// The root's state and settings as found, kept between calls while the files their
    /// finding read stay as they were.
    kept: Arc<lancet::Kept>,
    /// This session's name in the rollback ledger: its "stop retrying" count is its own.
    actor: String,
    tool_router: ToolRouter<Self>,
}

impl LancetServer {
    /// The root, or the answer that it cannot be opened.
    fn root(&self) -> Result<Root, CallToolResult> {
        Root::new(&self.root).map_err(|e| {
            refusal(
                ErrorKind::Io,
                format!("cannot open the root {}: {e}", self.root.display()),
                "Nothing was read or written. Ask the user whether the project directory still exists.",
            )
        })
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

    /// Why a call's arguments do not fit its tool's input schema, worded; `None` when they fit
    /// (or the tool is unknown: the router answers that).
    fn misfit(&self, request: &rmcp::model::CallToolRequestParams) -> Option<String> {
        let schema = self.tool_router.get(&request.name)?.input_schema.clone();
        let empty = serde_json::Map::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        arguments::misfit(&request.name, &schema, args)
    }

    /// Ends the session once the call in hand is answered: `signal` came during its tests.
    fn stop(&self, signal: String) {
        if let Ok(mut stopped) = self.stopped_by.lock() {
            *stopped = Some(signal);
        }
        self.quit.cancel();
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LancetServer {
    /// The tools, the answer to a request too large to read (`limit.rs`), and the notes an
    /// answer carries for earlier calls (a cancelled call whose batch stands).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let ct = context.ct.clone();
        let response = if request.name == limit::OVERSIZED_TOOL {
            let bytes = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("bytes"))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or_default();
            let result = refusal(
                ErrorKind::Usage,
                limit::too_large(bytes as usize),
                limit::SPLIT,
            );
            self.log_call("(too large)", &bytes, &result);
            result.into()
        } else if let Some(words) = self.misfit(&request) {
            // Arguments the tool cannot take, worded against the schema the model was shown.
            let result = wrong_arguments(words);
            self.log_call(&request.name, &request.arguments, &result);
            result.into()
        } else {
            let tool = request.name.to_string();
            let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
            let mut response = self.tool_router.call(call).await?;
            if let CallToolResponse::Complete(result) = &mut response
                && result.is_error == Some(true)
                && let Some(words) = result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .and_then(|t| arguments::reword_sdk_error(&tool, &t.text))
            {
                *result = wrong_arguments(words);
            }
            response
        };
        // An answer its client dropped (cancelled) tells nobody: the notes wait for the next.
        Ok(match response {
            CallToolResponse::Complete(result) if !ct.is_cancelled() => {
                with_notes(result, &self.late.take_notes()).into()
            }
            other => other,
        })
    }

    /// A cancellation: the call's batch stops before its commit point (`turn.rs`); one whose
    /// answer already left with its batch standing is told in the next answer.
    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        if let Some(id) = &notification.request_id {
            self.late.cancelled(id);
        }
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

/// Why the server stopped serving.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The client closed stdin: the session is over.
    Closed,
    /// A stop signal (`SIGTERM`, `SIGINT`, `SIGHUP`) came during a test run: the batch was
    /// rolled back and the call answered, then the server stopped, as the signal asked.
    Signal(String),
}

impl Ended {
    /// The exit status `lancet mcp` ends with: 0, or 128 plus the signal's number, as a
    /// process the signal ended.
    pub fn exit_code(&self) -> u8 {
        match self {
            Ended::Closed => 0,
            Ended::Signal(name) => match name.as_str() {
                "SIGHUP" => 129,
                "SIGINT" => 130,
                _ => 143,
            },
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin, or a stop signal during a test
/// run ends the session.
pub fn serve(root: &Path, options: ServerOptions) -> std::io::Result<Ended> {
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
    let quit = server.quit.clone();
    let stopped_by = Arc::clone(&server.stopped_by);
    // Every call's work runs on the runtime's blocking threads: started with the parsers'
    // stack (virtual memory, touched only as used), they parse an edited file themselves
    // rather than starting a thread for it on each call.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_stack_size(lancet::surfaces::PARSER_STACK)
        .on_thread_start(lancet::surfaces::thread_has_parser_stack)
        .build()?;
    let served = runtime.block_on(async move {
        // stdout has one writer: the SDK's messages and the answers to lines it never sees.
        let (sdk_out, answers, lines) = output::lines();
        let stdout = tokio::spawn(lines.forward(tokio::io::stdout()));
        let input = limit::Bounded::new(tokio::io::stdin(), answers);
        let service = server
            .serve_with_ct((input, sdk_out), quit)
            .await
            .map_err(std::io::Error::other)?;
        service.waiting().await.map_err(std::io::Error::other)?;
        stdout.await.map_err(std::io::Error::other)??;
        Ok::<(), std::io::Error>(())
    });
    let signal = stopped_by.lock().ok().and_then(|s| s.clone());
    if signal.is_some() {
        // The call is answered and nothing else runs, but stdin's reading thread waits for a
        // line the client may never send: the runtime is not waited for. (At the end of input
        // the runtime is waited for: a batch still running there is cancelled and ends first.)
        runtime.shutdown_background();
    }
    served?;
    Ok(signal.map_or(Ended::Closed, Ended::Signal))
}
