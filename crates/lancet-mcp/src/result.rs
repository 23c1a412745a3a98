//! Turning what a tool did into its result: a report's message as text and the report as
//! structured content, a refusal as a tool error, the diffs a write made.

use lancet::Report;
use rmcp::model::{CallToolResult, ContentBlock};

/// A report as a tool result: the message as text, the report as structured content.
pub(crate) fn report_result(report: &Report) -> CallToolResult {
    // Models read every token: the compact form, each change shown once.
    let brief = report.clone().brief(lancet::Surface::Mcp);
    let structured = serde_json::to_value(&brief).unwrap_or_default();
    let mut result = if report.exit_code() == 0 {
        CallToolResult::structured(structured)
    } else {
        CallToolResult::structured_error(structured)
    };
    result.content = vec![ContentBlock::text(brief.message)];
    result
}

pub(crate) fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The diffs of the files an applied report updated, for a reply's text.
pub(crate) fn written_diffs(report: &Report) -> String {
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
