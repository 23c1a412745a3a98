//! `lancet mod`: a structural code mod (ast-grep's rules or a pattern and its rewrite) as one
//! all-or-nothing batch.

use super::languages::LanguageName;
use super::output::emit;
use super::transaction::TransactionArgs;
use clap::Args;
use lancet::{ErrorKind, ModOptions, ModSpec, Report, RuleFile, Status};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(super) struct ModArgs {
    /// A pattern to find (ast-grep's: `$A` one node, `$$$ARGS` any number), with -r and --lang.
    #[arg(short = 'p', long, value_name = "PATTERN", requires_all = ["rewrite", "lang"], conflicts_with = "rule")]
    pattern: Option<String>,
    /// What each match becomes (its metavariables substituted).
    #[arg(short = 'r', long, value_name = "REWRITE", requires = "pattern")]
    rewrite: Option<String>,
    /// The pattern's language: python (py), javascript (js), typescript (ts), tsx, rust (rs),
    /// go, java, c, cpp, c-sharp, ruby, bash, json, yaml, html, css.
    #[arg(long, value_name = "L", requires = "pattern", value_parser = LanguageName::codemod())]
    lang: Option<String>,
    /// An ast-grep rule file (YAML: id, language, rule, constraints, transform, fix, utils;
    /// several rules `---`-separated). Repeatable.
    #[arg(long, value_name = "FILE.yml", conflicts_with = "exec")]
    rule: Vec<PathBuf>,
    /// Any codemod command (`ruff check --fix`, `eslint --fix`, `sed -i ...`), run with `sh -c`
    /// in a scratch copy of the root inside lancet's sandbox (it may write only the copy and a
    /// temp directory); what it changed there is applied as one batch. --test-timeout bounds it.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["pattern", "rule"])]
    exec: Option<String>,
    /// An exit code of the --exec command that also means success (`ruff check --fix` exits 1
    /// when problems it cannot fix remain). Repeatable.
    #[arg(long, value_name = "CODE", requires = "exec")]
    accept_exit: Vec<i32>,
    /// Files and directories to walk (default: the root); .gitignore is honoured.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    #[command(flatten)]
    tx: TransactionArgs,
}

pub(super) fn run_mod(root: PathBuf, args: ModArgs) -> u8 {
    let spec = match (&args.pattern, &args.rewrite, &args.lang) {
        _ if args.exec.is_some() => ModSpec::Exec {
            command: args.exec.clone().unwrap_or_default(),
            accept_exit: args.accept_exit.clone(),
        },
        (Some(pattern), Some(rewrite), Some(lang)) => ModSpec::Pattern {
            pattern: pattern.clone(),
            rewrite: rewrite.clone(),
            lang: lang.clone(),
        },
        _ => {
            let mut files = Vec::new();
            for path in &args.rule {
                match std::fs::read_to_string(path) {
                    Ok(text) => files.push(RuleFile {
                        name: path.display().to_string(),
                        text,
                    }),
                    Err(e) => {
                        let report = Report::batch_error(
                            Status::Malformed,
                            ErrorKind::Usage,
                            format!("cannot read the rule file {}: {e}", path.display()),
                            "Pass a readable ast-grep rule file with --rule.",
                        );
                        return emit(&report, args.tx.json);
                    }
                }
            }
            ModSpec::Rules(files)
        }
    };
    match args.tx.configured(root.clone()) {
        Ok((apply, config)) => {
            let opts = ModOptions {
                spec,
                paths: args.paths,
                exclude: config.walk_excludes(),
            };
            let edit = || spec_digest_input(&opts.spec, &opts.paths);
            args.tx
                .emit(&lancet::codemod(&opts, &apply).report, &root, edit)
        }
        Err(report) => emit(&report, args.tx.json),
    }
}

/// What defines a mod, for its provenance's digest: the rules' text (not where they were read
/// from), the pattern, rewrite and language, or the command; and the paths it walks. Equal for
/// the same step in every repository.
fn spec_digest_input(spec: &ModSpec, paths: &[String]) -> Vec<u8> {
    let mut parts: Vec<String> = match spec {
        ModSpec::Rules(files) => files.iter().map(|f| f.text.clone()).collect(),
        ModSpec::Pattern {
            pattern,
            rewrite,
            lang,
        } => vec![pattern.clone(), rewrite.clone(), lang.clone()],
        ModSpec::Exec {
            command,
            accept_exit,
        } => vec![command.clone(), format!("{accept_exit:?}")],
    };
    parts.extend(paths.iter().cloned());
    parts.join("\0").into_bytes()
}
