//! `lancet check`: the syntax gate on files as they are.

use clap::Args;
use lancet::Root;
use lancet::Surface;
use lancet::surfaces::InWords;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    /// Files or directories (default: the root). Directories are walked, skipping hidden ones.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Leave out files matching this glob (root-relative; repeatable; added to
    /// `[check] exclude` of lancet.toml).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Skip languages' external check commands (tree-sitter still runs).
    #[arg(long)]
    no_compile_check: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn run_check(root: PathBuf, args: CheckArgs) -> u8 {
    let root = match Root::new(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lancet check: cannot open the root {}: {e}", root.display());
            return 4;
        }
    };
    let paths = if args.paths.is_empty() {
        vec![".".to_string()]
    } else {
        args.paths
    };
    let opts = lancet::CheckOptions {
        exclude: args.exclude,
        no_compile_check: args.no_compile_check,
    };
    let checked = match lancet::check(&root, &paths, &opts) {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("lancet check: {e}");
            return match e {
                lancet::CheckError::Settings(_) => 2,
                lancet::CheckError::Files(_) => 1,
            };
        }
    };
    if let Some(ignored) = &checked.ignored {
        eprintln!("lancet check: {}", ignored.notice(Surface::Cli));
    }
    let report = checked.report;
    let failed = !report.errors.is_empty();
    let out = if args.json {
        report.render_json()
    } else {
        report.render_human()
    };
    let _ = std::io::stdout().write_all(out.as_bytes());
    u8::from(failed)
}
