//! The security suite: each finding of the hostile review reproduced as an attacker would try
//! it — a model with only lancet's tools (over MCP) or the edits it hands the CLI — and shown
//! to fail. See docs/security.md for the threat model these tests hold lancet to.

mod anchors;
mod bounded;
mod door;
mod escapes;
mod lookalikes;
mod lsp;
pub mod mcp;
mod mcp_hosts;
mod mcp_requests;
mod processes;
mod sandbox;
mod settings;
mod state;
mod tree_shapes;
