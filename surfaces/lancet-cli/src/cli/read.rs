//! `lancet read`: a file's lines, numbered (optionally with their anchors), and its sha256.

use clap::Args;
use lancet::Root;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ReadArgs {
    /// The file to read.
    path: String,
    /// First line to show (1-based).
    #[arg(long, default_value_t = 1)]
    offset: usize,
    /// Number of lines to show (default: all).
    #[arg(long)]
    limit: Option<usize>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
    /// Prefix each line with its anchor, `LINE:HASH|`, for `--format anchors` edits.
    #[arg(long)]
    anchors: bool,
}

pub(super) fn run_read(root: PathBuf, args: ReadArgs) -> u8 {
    let root = match Root::new(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lancet read: cannot open the root {}: {e}", root.display());
            return 4;
        }
    };
    match lancet::read(&root, &args.path, args.offset, args.limit) {
        Ok(view) => {
            let view = if args.anchors {
                view.with_anchors()
            } else {
                view
            };
            let out = if args.json {
                serde_json::to_string_pretty(&view).unwrap_or_default() + "\n"
            } else {
                view.render()
            };
            let _ = std::io::stdout().write_all(out.as_bytes());
            0
        }
        Err(e) => {
            if args.json {
                let report = lancet::Report::read_refused(e.kind(), e.to_string());
                let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
                let _ = std::io::stdout().write_all(text.as_bytes());
            } else {
                eprintln!("lancet read: {e}");
            }
            1
        }
    }
}
