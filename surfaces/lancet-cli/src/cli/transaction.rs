//! The switches every writing command shares (`apply`, `rename`), and the options they make.

use super::output::{Bar, emit_unless_quiet};
use clap::Args;
use lancet::{ApplyOptions, Config};
use lancet::{ErrorKind, Report, Status};
use std::borrow::Cow;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

// The switches every writing command shares: how the batch is checked, recorded and reported.
// (A plain comment: clap would take a doc comment for the about of every command it joins.)
#[derive(Debug, Args)]
pub(super) struct TransactionArgs {
    /// Compute, check and report everything, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// Print nothing on success (the exit code says it); failures are still reported.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Compact reports for agents: each change shown once (its numbered snippet, or its diff
    /// when it has none) and no diffs in refusals.
    #[arg(long)]
    brief: bool,
    /// Skip the syntax gate entirely.
    #[arg(long)]
    no_syntax_check: bool,
    /// Skip languages' external check commands (tree-sitter still runs).
    #[arg(long)]
    no_compile_check: bool,
    /// Do not record a git checkpoint (no undo, no log entry).
    #[arg(long)]
    no_checkpoint: bool,
    /// Skip fsync (for throwaway trees: a crash may then lose the batch, never mix it).
    #[arg(long)]
    no_fsync: bool,
    /// Run this command (sh -c, in the root) after writing; roll the batch back if it fails.
    #[arg(long, value_name = "CMD")]
    test: Option<String>,
    /// Run the --test command in lancet's sandbox (Landlock and seccomp: no network, writes
    /// only to the root's entries other than .git and lancet's state, and a private temp
    /// directory); refused where the kernel cannot sandbox.
    #[arg(long, requires = "test")]
    sandbox: bool,
    /// Seconds the test command may run before it is killed (and the batch rolled back).
    #[arg(long, value_name = "S", default_value_t = 600)]
    test_timeout: u64,
    /// Bytes of test output kept in the report (the first failure and the summary).
    #[arg(long, value_name = "N", default_value_t = 8 * 1024)]
    test_output_bytes: usize,
    /// When the --test command fails, find the files it fails with (bisecting over the batch's
    /// files, each written and rolled back through the journal), hold those back and write the
    /// rest once the tests passed on it (exit 1, status partial); nothing is written when
    /// --bisect-max-runs is reached first (exit 3).
    #[arg(long, requires = "test")]
    bisect: bool,
    /// The most test runs --bisect may take, the first (the whole batch) included.
    #[arg(long, value_name = "N", default_value_t = 32, requires = "bisect")]
    bisect_max_runs: usize,
    /// Add where the report came from (lancet's version, the repository and the commit HEAD
    /// names, the edit's sha256, the duration): the per-repository report a fleet engine keeps
    /// and `lancet report` reads back.
    #[arg(long)]
    provenance: bool,
    /// When the command started, for the provenance's duration.
    #[arg(skip = Instant::now())]
    started: Instant,
}

impl TransactionArgs {
    /// The project's configuration with this call's switches over it.
    pub(super) fn options(&self, root: PathBuf) -> Result<ApplyOptions, Box<Report>> {
        self.configured(root).map(|(opts, _)| opts)
    }

    /// [`Self::options`] with the configuration it was read from, for a refactor or a mod
    /// that also takes what the person's settings say of its walk and its language servers.
    pub(super) fn configured(&self, root: PathBuf) -> Result<(ApplyOptions, Config), Box<Report>> {
        let (mut configured, config) = ApplyOptions::configured(root).map_err(config_refusal)?;
        if self.no_compile_check {
            configured.gate.external.clear();
        }
        let opts = ApplyOptions {
            dry_run: self.dry_run,
            fsync: !self.no_fsync,
            syntax_check: configured.syntax_check && !self.no_syntax_check,
            checkpoint: !self.no_checkpoint,
            test: self.test.clone(),
            sandbox: self.sandbox,
            test_timeout: std::time::Duration::from_secs(self.test_timeout),
            test_output_bytes: self.test_output_bytes,
            bisect_runs: self.bisect.then_some(self.bisect_max_runs),
            progress: lancet::Watch(
                (!self.quiet && !self.json && std::io::stderr().is_terminal())
                    .then(|| std::sync::Arc::new(Bar::new()) as _),
            ),
            ..configured
        };
        Ok((opts, config))
    }

    /// Prints the report of a step run at `root`; `edit` gives what defines the step (the edit
    /// text, rule or command), digested into the provenance only when that is asked for.
    pub(super) fn emit(&self, report: &Report, root: &Path, edit: impl FnOnce() -> Vec<u8>) -> u8 {
        let mut report = if self.brief {
            Cow::Owned(report.clone().brief(lancet::Surface::Cli))
        } else {
            Cow::Borrowed(report)
        };
        if self.provenance {
            report.to_mut().provenance = Some(lancet::surfaces::provenance(
                root,
                lancet::sha256_hex(&edit()),
                self.started.elapsed(),
            ));
        }
        emit_unless_quiet(&report, self.json, self.quiet)
    }
}

/// The refusal of a configuration lancet cannot use.
fn config_refusal(e: lancet::ConfigError) -> Box<Report> {
    Box::new(Report::batch_error(
        Status::Malformed,
        ErrorKind::Config,
        e.to_string(),
        "Fix the configuration (docs/configuration.md lists every key) and run the command again.",
    ))
}
