//! `lancet parse`: the operations lancet reads in edit text, printed without touching a file.

use super::input::{FormatArg, read_batch};
use super::output::emit;
use clap::Args;
use lancet::Batch;
use lancet::ParseOptions;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ParseArgs {
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

pub(super) fn run_parse(args: ParseArgs) -> u8 {
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
    use lancet::OpKind;
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
