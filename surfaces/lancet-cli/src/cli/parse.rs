//! `lancet parse`: the operations lancet reads in edit text, printed without touching a file.

use super::input::{FormatArg, read_batch};
use super::output::emit;
use clap::Args;
use lancet::ParseOptions;
use lancet::surfaces::InWords;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ParseArgs {
    /// Edit files, or directories of edit files (read in name order); none or `-` reads stdin.
    #[arg(value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The edit format.
    #[arg(long, value_enum, default_value_t = FormatArg::AUTO)]
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
        batch.render_json()
    } else {
        batch.render_human()
    };
    let _ = std::io::stdout().write_all(text.as_bytes());
    0
}
