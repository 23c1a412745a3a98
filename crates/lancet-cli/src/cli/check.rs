//! `lancet check`: the syntax gate on files as they are.

use clap::Args;
use lancet::path::Root;
use lancet::report::Surface;
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
    let config = match lancet::Config::load(&root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lancet check: {e}");
            return 2;
        }
    };
    if let Some(notice) = config.notice(Surface::Cli) {
        eprintln!("lancet check: {notice}");
    }
    let mut exclude = config.check_excludes();
    exclude.extend(args.exclude.iter().cloned());
    let files = match lancet::check(&root, &paths, &exclude) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("lancet check: {e}");
            return 1;
        }
    };
    let mut gate = config.gate_options();
    if args.no_compile_check {
        gate.external.clear();
    }
    let report = lancet::syntax::check_contents(&files, &gate);
    let failed = !report.errors.is_empty();
    if args.json {
        let out = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(out.as_bytes());
    } else {
        let mut out = String::new();
        for e in &report.errors {
            out.push_str(&format!(
                "{}:{}:{}: {} ({})\n{}",
                e.path, e.line, e.column, e.kind, e.checker, e.excerpt
            ));
        }
        for note in &report.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        out.push_str(&format!(
            "{} file(s) checked, {} unchecked, {} with syntax errors ({} error(s)).\n",
            report.checked.len(),
            report.unchecked.len(),
            {
                let mut paths: Vec<&str> = report.errors.iter().map(|e| e.path.as_str()).collect();
                paths.dedup();
                paths.len()
            },
            report.errors.len()
        ));
        let _ = std::io::stdout().write_all(out.as_bytes());
    }
    u8::from(failed)
}
