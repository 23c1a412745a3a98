//! `lancet apply`: edit text from files or stdin, with its hash expectations and bases, as one
//! all-or-nothing batch.

use super::input::{FormatArg, read_batch};
use super::output::emit;
use super::transaction::TransactionArgs;
use clap::Args;
use lancet::ParseOptions;
use lancet::{ApplyOptions, apply_batch};
use lancet::{Base, Expectation};
use lancet::{ErrorKind, Report, Status};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ApplyArgs {
    /// Edit files, or directories of edit files (read in name order); none or `-` reads stdin.
    /// All of them form one batch.
    #[arg(value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The edit format.
    #[arg(long, value_enum, default_value_t = FormatArg::AUTO)]
    format: FormatArg,
    /// Refuse unless PATH still has this sha256 (from `lancet read`). Repeatable.
    #[arg(long, value_name = "PATH=SHA256")]
    expect: Vec<String>,
    /// The edit was written against PATH as `lancet read` showed it with this sha256: if the
    /// file changed since, the edit is applied to that content and merged into the file now
    /// (refused, nothing written, when the changes touch). Repeatable.
    #[arg(long, value_name = "PATH=SHA256")]
    base: Vec<String>,
    /// Apply the hunks that locate even if others fail (the failures are reported; exit 1).
    #[arg(long)]
    partial: bool,
    /// Read the inputs as JSON lines: each line one edit, a tool-call object or a JSON string
    /// holding edit text in any format (for generated code mods).
    #[arg(long)]
    jsonl: bool,
    #[command(flatten)]
    tx: TransactionArgs,
    /// The file that edit blocks naming no file apply to (SEARCH/REPLACE blocks, JSON edits).
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
    /// Refuse a SEARCH/REPLACE block that matches several places, instead of taking the first
    /// as Aider's format promises its models.
    #[arg(long)]
    unique: bool,
}

/// Whether `s` is a SHA-256 in hex: 64 hexadecimal digits.
fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `PATH=SHA256` values of a flag, or the usage refusal naming the bad one.
fn path_hashes(flag: &str, values: &[String]) -> Result<Vec<(String, String)>, Box<Report>> {
    values
        .iter()
        .map(|v| match v.split_once('=') {
            Some((path, sha)) if !path.is_empty() && is_sha256_hex(sha.trim()) => {
                Ok((path.to_string(), sha.trim().to_string()))
            }
            _ => Err(Box::new(Report::batch_error(
                Status::Malformed,
                ErrorKind::Usage,
                format!("{flag} takes PATH=SHA256 (64 hexadecimal digits), got {v:?}"),
                "Pass the sha256 printed by `lancet read PATH`.",
            ))),
        })
        .collect()
}

pub(super) fn run_apply(root: PathBuf, args: ApplyArgs) -> u8 {
    let format = args.format.choice();
    let parse = ParseOptions {
        default_path: args.path.clone(),
        unique: args.unique,
    };
    let expect = match path_hashes("--expect", &args.expect) {
        Ok(pairs) => pairs
            .into_iter()
            .map(|(path, sha256)| Expectation { path, sha256 })
            .collect(),
        Err(report) => return emit(&report, args.tx.json),
    };
    let base = match path_hashes("--base", &args.base) {
        Ok(pairs) => pairs
            .into_iter()
            .map(|(path, sha256)| Base {
                path,
                sha256,
                snapshot: None,
            })
            .collect(),
        Err(report) => return emit(&report, args.tx.json),
    };
    let batch = match read_batch(&args.inputs, format, &parse, args.jsonl) {
        Ok(b) => b,
        Err(report) => return emit(&report, args.tx.json),
    };
    let mut clock = std::time::Instant::now();
    let configured = match args.tx.options(root.clone()) {
        Ok(o) => o,
        Err(report) => return emit(&report, args.tx.json),
    };
    lancet::internals::timing::lap("settings read", &mut clock);
    let opts = ApplyOptions {
        format,
        expect,
        base,
        parse,
        partial: args.partial,
        ..configured
    };
    let applied = apply_batch(&batch, &opts);
    let mut clock = std::time::Instant::now();
    let edit = || lancet::surfaces::parsed_edit_bytes(&batch);
    let code = args.tx.emit(&applied.report, &root, edit);
    lancet::internals::timing::lap("report printed", &mut clock);
    code
}
