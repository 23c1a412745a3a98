//! `lancet mcp`: lancet's tools served over MCP on stdin/stdout.

use clap::Args;
use lancet::Root;
use lancet::Surface;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct McpArgs {
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

/// Checks the configuration, then serves lancet's tools on stdin/stdout.
pub(super) fn run_mcp(root: &Root, args: &McpArgs) -> u8 {
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
        lsp: args.allow_lsp.then(|| {
            let servers = lancet::LanguageServers::resolve(root.path());
            servers.resolve_now();
            std::sync::Arc::new(servers)
        }),
    };
    match lancet_mcp::serve(root.path(), options) {
        Ok(ended) => {
            if let lancet_mcp::Ended::Signal(signal) = &ended {
                eprintln!(
                    "lancet mcp: stopped by {signal} during a test run; that batch was rolled back and its call answered"
                );
            }
            ended.exit_code()
        }
        Err(e) => {
            eprintln!("lancet mcp: {e}");
            4
        }
    }
}
