//! `lancet mod`: a structural code mod as one transaction. ast-grep's engine finds and rewrites
//! ([`rules`]: its YAML rules or a pattern; [`language`]: lancet's grammars as its languages);
//! lancet walks the tree (`.gitignore` honoured, also outside git), scans the files in parallel
//! ([`scan`]) and turns the rewrites into [`OpKind::Splice`] operations of one batch, which runs
//! the pipeline of every edit: refused if a file changed since it was read, the syntax gate,
//! the checkpoint, the journaled commit, `--test` and undo. The report lists every site.

mod exec;
mod language;
mod pattern_syntax;
mod rules;
mod scan;

use crate::applied::Applied;
use crate::apply_options::ApplyOptions;
use crate::pipeline::{apply_batch, open_root};
use crate::report::Report;
use crate::report::{ModRefusal, ModSummary, Phase};
use crate::walk::{WalkRefusal, walk};
use lancet_core::{Batch, FileOp, Format, OpKind, Root};
use rayon::prelude::*;
use rules::Rules;
use scan::{FileMod, scan_file};

/// What a mod runs.
#[derive(Debug, Clone)]
pub enum ModSpec {
    /// ast-grep rule files, each read whole (several rules per file, `---`-separated).
    Rules(Vec<RuleFile>),
    /// One pattern and its rewrite, in one language (`ast-grep run -p -r -l`).
    Pattern {
        /// The pattern (`$A`, `$$$ARGS` metavariables).
        pattern: String,
        /// The rewrite (metavariables substituted).
        rewrite: String,
        /// The language, by lancet's or ast-grep's name.
        lang: String,
    },
    /// Any codemod command, run in a sandboxed scratch copy of the root; what it changed there
    /// is the batch. Never offered over MCP: the command is the person's.
    Exec {
        /// The command (`sh -c`).
        command: String,
        /// Exit codes besides 0 that mean it succeeded (`ruff check --fix` exits 1 when
        /// problems it cannot fix remain).
        accept_exit: Vec<i32>,
    },
}

/// A rule file's name (for messages) and text.
#[derive(Debug, Clone)]
pub struct RuleFile {
    /// Where it was read from, as the person named it.
    pub name: String,
    /// Its YAML.
    pub text: String,
}

/// A mod: the rules and the paths they run on (the whole root when empty).
#[derive(Debug, Clone)]
pub struct ModOptions {
    /// What to run.
    pub spec: ModSpec,
    /// Files and directories under the root.
    pub paths: Vec<String>,
    /// Files the walk leaves out: the person's `[walk] exclude`
    /// ([`Config::walk_excludes`](crate::Config::walk_excludes)), never a model's.
    pub exclude: globset::GlobSet,
}

/// The languages `lancet mod` takes (`--lang`, a rule's `language`) by lancet's names: those of
/// the language table whose grammar is compiled in; ast-grep's aliases (`py`, `golang`, ...) are
/// taken too.
pub fn mod_languages() -> Vec<&'static str> {
    language::ModLanguage::known()
}

/// Runs a mod as one batch through the same pipeline as every edit (`apply.dry_run`,
/// `apply.test` and the other options apply): read the rules, walk, scan every file of a
/// rule's language in parallel, then apply the rewrites.
pub fn codemod(opts: &ModOptions, apply: &ApplyOptions) -> Applied {
    let refused =
        |refusal: ModRefusal| -> Applied { Report::mod_refused(&refusal, apply.surface).into() };
    let root = match open_root(apply) {
        Ok(r) => r,
        Err(report) => return (*report).into(),
    };
    if let ModSpec::Exec {
        command,
        accept_exit,
    } = &opts.spec
    {
        return run_exec(&root, command, accept_exit, apply);
    }
    let mut clock = std::time::Instant::now();
    let rules = match Rules::read(opts) {
        Ok(rules) => rules,
        Err(refusal) => return refused(refusal),
    };
    let (files, unwalkable) = match walk(&root, &opts.paths, &opts.exclude) {
        Ok(walked) => walked,
        Err(WalkRefusal::Outside(e)) => {
            return refused(ModRefusal::PathOutside {
                error: e.to_string(),
            });
        }
        Err(WalkRefusal::Missing(path)) => return refused(ModRefusal::PathMissing { path }),
    };
    lancet_core::timing::lap("mod: rules read, files walked", &mut clock);
    let progress = crate::progress::Progress::new(&apply.progress, files.len());
    progress.phase(
        &Phase::ScanningForMod { files: files.len() },
        Some(files.len()),
    );
    let scanned: Vec<FileMod> = files
        .par_iter()
        .inspect(|_| progress.inc())
        .map(|rel| match root.dir().read(rel) {
            // Through the root's handle: a directory swapped for a link since the walk cannot
            // make this read someone else's file.
            Ok(bytes) => scan_file(&rules, rel, &bytes),
            Err(e) => FileMod::Unreadable(format!("{rel}: {e}")),
        })
        .collect();
    lancet_core::timing::lap("mod: read, parse and match", &mut clock);

    let mut summary = ModSummary {
        rules: rules.listed(),
        files_scanned: files.len(),
        files_parsed: 0,
        files_changed: 0,
        sites: Vec::new(),
        skipped_files: unwalkable,
        exec: None,
    };
    let mut ops = Vec::new();
    for file in scanned {
        match file {
            FileMod::Skipped | FileMod::Unmatched => {}
            FileMod::Unreadable(why) => summary.skipped_files.push(why),
            FileMod::Parsed(edits) => {
                summary.files_parsed += 1;
                if edits.spans.is_empty() {
                    continue;
                }
                summary.files_changed += 1;
                for site in &edits.sites {
                    if let Some(rule) = summary.rules.iter_mut().find(|r| r.id == site.rule) {
                        rule.sites += 1;
                    }
                }
                summary.sites.extend(edits.sites);
                ops.push(FileOp {
                    path: edits.path,
                    kind: OpKind::Splice {
                        base_sha256: edits.sha256,
                        spans: edits.spans,
                    },
                    line: 0,
                });
            }
        }
    }
    if ops.is_empty() {
        return Report::mod_matched_nothing().with_mod(summary).into();
    }
    let batch = Batch {
        format: Format::Mod,
        ops,
        notes: Vec::new(),
    };
    let mut applied = apply_batch(&batch, apply);
    applied.report = applied.report.with_mod(summary);
    applied
}

/// `--exec`: the command's changes in its scratch copy, applied as one batch that expects each
/// file it changes to be as it was copied.
fn run_exec(root: &Root, command: &str, accept_exit: &[i32], apply: &ApplyOptions) -> Applied {
    let executed = match exec::execute(root, command, accept_exit, apply) {
        Ok(executed) => executed,
        Err(refusal) => return Report::mod_refused(&refusal, apply.surface).into(),
    };
    let summary = ModSummary {
        rules: Vec::new(),
        files_scanned: 0,
        files_parsed: 0,
        files_changed: executed.batch.ops.len(),
        sites: Vec::new(),
        skipped_files: Vec::new(),
        exec: Some(executed.run),
    };
    if executed.batch.ops.is_empty() {
        return Report::exec_changed_nothing().with_mod(summary).into();
    }
    let mut apply = apply.clone();
    apply.expect.extend(executed.expect);
    let mut applied = apply_batch(&executed.batch, &apply);
    applied.report = applied.report.with_mod(summary);
    applied
}
