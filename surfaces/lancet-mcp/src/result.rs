//! Turning what a tool did into its result: a report's message as text and the report as
//! structured content, a refusal as a tool error carrying a report too, the diffs a write made,
//! and the notes a result carries besides.

use lancet::{ErrorKind, Report, Status};
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

/// A refusal of the server's own (an argument, a read the model has not made, a choice the
/// person did not make), as a tool error carrying a report with its `kind`: a client that
/// validates structured content, and a model that matches on `error.kind`, meet it like any
/// other refusal. `detail` says what was wrong, `next` what to send instead.
pub(crate) fn refusal(kind: ErrorKind, detail: String, next: &str) -> CallToolResult {
    let status = match kind {
        ErrorKind::Malformed | ErrorKind::Usage | ErrorKind::Config => Status::Malformed,
        ErrorKind::Io => Status::Error,
        _ => Status::Refused,
    };
    report_result(&Report::batch_error(status, kind, detail, next))
}

/// An argument the model sent that the tool cannot take (`usage`): nothing was read or written.
pub(crate) fn bad_argument(detail: String) -> CallToolResult {
    refusal(
        ErrorKind::Usage,
        detail,
        "Nothing was written. Fix that argument and resend.",
    )
}

/// Arguments a tool cannot take, worded by `arguments.rs` (which argument, what it must be,
/// what the tool takes, what to resend): that text is the whole message, the report's kind is
/// `usage`.
pub(crate) fn wrong_arguments(words: String) -> CallToolResult {
    let mut report = Report::batch_error(Status::Malformed, ErrorKind::Usage, words.clone(), "");
    report.message = words;
    report_result(&report)
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

/// `result` with `notes` the model must read before the rest: first in its text, and in its
/// structured content's `notes` (every output schema of the server has one).
pub(crate) fn with_notes(mut result: CallToolResult, notes: &[String]) -> CallToolResult {
    if notes.is_empty() {
        return result;
    }
    result.content.insert(
        0,
        ContentBlock::text(format!("Note: {}", notes.join("\nNote: "))),
    );
    if let Some(serde_json::Value::Object(structured)) = result.structured_content.as_mut() {
        let listed = structured
            .entry("notes")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let serde_json::Value::Array(listed) = listed {
            listed.extend(notes.iter().cloned().map(serde_json::Value::String));
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_carries_its_kind_as_structured_content() {
        let result = refusal(
            ErrorKind::Unread,
            "a.txt exists and you have not read it".to_string(),
            "Read it first.",
        );
        assert_eq!(result.is_error, Some(true));
        let structured = result.structured_content.as_ref().unwrap();
        assert_eq!(structured["status"], "refused");
        assert_eq!(structured["error"]["kind"], "unread");
        let text = result.content[0].as_text().unwrap().text.clone();
        assert!(text.contains("you have not read it") && text.contains("Read it first."));
        let usage = bad_argument("edits is empty".to_string());
        assert_eq!(usage.structured_content.unwrap()["error"]["kind"], "usage");
    }

    #[test]
    fn notes_come_first_in_the_text_and_join_the_structured_notes() {
        let result = refusal(ErrorKind::Unread, "x".to_string(), "");
        let noted = with_notes(result, &["a batch stands".to_string()]);
        assert_eq!(
            noted.content[0].as_text().unwrap().text,
            "Note: a batch stands"
        );
        assert_eq!(
            noted.structured_content.unwrap()["notes"],
            serde_json::json!(["a batch stands"])
        );
    }
}
