//! What a batch is applied with: [`ApplyOptions`], the person's settings and the caller's
//! choices, read by every phase of the pipeline and by the commands built on it (rename, mod,
//! bisection).

use crate::cancel::Cancellation;
use crate::config::{self, Config, ConfigError};
use crate::kept::Kept;
use crate::progress;
use crate::report::Surface;
use lancet_core::Root;
use lancet_core::format::{FormatChoice, ParseOptions};
use lancet_core::stage::{self, Base, Expectation};
use lancet_core::staged;
use lancet_store as store;
use lancet_syntax::GateOptions;
use std::path::PathBuf;

/// How to apply a batch.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// The directory every path is confined to.
    pub root: PathBuf,
    /// Which format to read edit text as.
    pub format: FormatChoice,
    /// Compute and report everything, write nothing.
    pub dry_run: bool,
    /// Refuse unless these files still have these hashes.
    pub expect: Vec<Expectation>,
    /// What the edit was written against: a file that changed since is rebased (the edit
    /// applied to the snapshot, then 3-way merged into the file now). A base without its
    /// bytes takes them from the snapshots `lancet read` keeps.
    pub base: Vec<Base>,
    /// fsync files and directories when writing.
    pub fsync: bool,
    /// Parser options (the default path for blocks naming no file).
    pub parse: ParseOptions,
    /// Write what located even when some hunks failed (reported; exit 1).
    pub partial: bool,
    /// Refuse a batch that introduces syntax errors.
    pub syntax_check: bool,
    /// How the gate checks (precise parsers' Python version, opt-in external checks, size
    /// threshold, skipped globs).
    pub gate: GateOptions,
    /// How many checkpoints to keep, when the project says.
    pub retention: store::Retention,
    /// Record a git checkpoint of the batch (for `lancet undo` and `lancet log`).
    pub checkpoint: bool,
    /// A test command to run after writing; the batch is rolled back if it fails.
    pub test: Option<String>,
    /// Run the test command in lancet's sandbox (`sandbox.rs`: no network, writes only to the
    /// root's entries other than `.git` and lancet's state, and a private temp directory);
    /// where it cannot be built the batch is refused before anything is written.
    pub sandbox: bool,
    /// How long the test command may run.
    pub test_timeout: std::time::Duration,
    /// How much of the test output the report keeps.
    pub test_output_bytes: usize,
    /// `--bisect`: when the tests fail, find the files they fail with in at most this many
    /// runs (the first included), hold those back and write the rest once the tests passed on
    /// it (status partial); `None` rolls the whole batch back.
    pub bisect_runs: Option<usize>,
    /// Who is told the progress of batches of more than 200 files (none: nobody; an observer
    /// may ask for every batch).
    pub progress: progress::Watch,
    /// The caller's cancellation: a batch cancelled before its commit point (the start of its
    /// writes, or with `test` its verdict) writes nothing, or is rolled back.
    pub cancel: Cancellation,
    /// Whose words the report's advice uses (CLI commands or MCP tools).
    pub surface: Surface,
    /// Who sends the batch, for the rollback ledger's "stop retrying" count: empty for the
    /// command line (its runs count together), an MCP session's id (each counts alone).
    pub actor: String,
    /// Refuse a batch that changes lancet's settings (`lancet.toml`, `[tool.lancet]`): the MCP
    /// server sets it, since configuration is the person's, not the model's.
    pub protect_settings: bool,
    /// What a write does to a file with other hard links (the person's `[edit] hard_links`).
    pub hard_links: staged::HardLinks,
    /// Repository settings ignored because nobody trusted them: every report says so.
    pub ignored_settings: Option<config::Ignored>,
    /// What a long-lived caller keeps between calls (the state as found), checked again on
    /// each call; `None`: found afresh.
    pub kept: Option<std::sync::Arc<Kept>>,
}

/// What the write phase needs of the options, built in one place ([`ApplyOptions::write`]): how
/// the door judges and writes, whether a checkpoint records the batch and how many are kept,
/// who the rollback ledger counts, and whose words a refusal takes. The commit, the verdict's
/// release or rollback, and bisection's trial writes read this, not the whole options.
#[derive(Debug, Clone)]
pub(crate) struct WritePhase<'a> {
    /// What the door checks besides what it always checks (lancet's settings when protected,
    /// hard links as the person chose).
    pub(crate) checks: store::Checks,
    /// fsync files and directories when writing.
    pub(crate) fsync: bool,
    /// Record a git checkpoint of the batch.
    pub(crate) checkpoint: bool,
    /// How many checkpoints to keep.
    pub(crate) retention: store::Retention,
    /// Who sends the batch, for the rollback ledger.
    pub(crate) actor: &'a str,
    /// Whose words a refusal of the write takes.
    pub(crate) surface: Surface,
}

/// What a batch's session needs of the options, built in one place ([`ApplyOptions::session`]):
/// the root's state, which the batch locks and recovers before anything else (a dry run does
/// neither: it writes nothing, so it waits for no writer and finishes nobody's batch), and the
/// ignored settings every report of the batch names.
pub(crate) struct SessionPhase<'a> {
    /// The root's state: as the caller kept it, when it still holds, else found now.
    pub(crate) state: store::StateDir,
    /// Take the lock and finish an interrupted batch first (not for a dry run).
    pub(crate) locks: bool,
    /// fsync what finishing an interrupted batch writes.
    pub(crate) fsync: bool,
    /// Repository settings ignored because nobody trusted them.
    pub(crate) ignored: Option<&'a config::Ignored>,
}

impl WritePhase<'_> {
    /// How the door writes: synced as asked, and held pending a test verdict when one comes.
    pub(crate) fn door(&self, await_verdict: bool) -> store::WriteOptions {
        store::WriteOptions {
            fsync: self.fsync,
            await_verdict,
        }
    }
}

impl ApplyOptions {
    /// What writing needs of these options: the door's checks, syncing, the checkpoint and
    /// its retention, the ledger's actor.
    pub(crate) fn write(&self) -> WritePhase<'_> {
        WritePhase {
            checks: crate::guard::door_checks(self.protect_settings, self.hard_links),
            fsync: self.fsync,
            checkpoint: self.checkpoint,
            retention: self.retention,
            actor: &self.actor,
            surface: self.surface,
        }
    }

    /// What the session of a batch at `root` needs of these options: its state, whether it
    /// locks and recovers, the settings it says were ignored.
    pub(crate) fn session(&self, root: &Root) -> SessionPhase<'_> {
        SessionPhase {
            state: self.state_of(root),
            locks: !self.dry_run,
            fsync: self.fsync,
            ignored: self.ignored_settings.as_ref(),
        }
    }

    /// What staging needs of these options, with the bases resolved to kept snapshots and the
    /// kept reads line anchors without a read may fit.
    pub(crate) fn stage_options<'a>(
        &'a self,
        bases: &'a [Base],
        kept_reads: &'a [Base],
    ) -> stage::StageOptions<'a> {
        stage::StageOptions {
            expect: &self.expect,
            bases,
            kept_reads,
            partial: self.partial,
        }
    }

    /// What running the test command needs of these options (the `--test` run, a mod's
    /// `--exec`).
    pub(crate) fn verify(&self) -> crate::verify::VerifyOptions<'_> {
        crate::verify::VerifyOptions {
            sandbox: self.sandbox,
            timeout: self.test_timeout,
            max_output: self.test_output_bytes,
            cancel: &self.cancel,
        }
    }

    /// The root's configuration (`lancet.toml`, or `[tool.lancet]` in `pyproject.toml`) over the
    /// defaults: what the CLI and the MCP server start from.
    pub fn configured(root: PathBuf) -> Result<(Self, Config), ConfigError> {
        let config = match Root::new(&root) {
            Ok(r) => Config::load(&r)?,
            Err(_) => Config::default(),
        };
        Ok((ApplyOptions::from_config(root, &config), config))
    }

    /// The root's configuration as [`ApplyOptions::configured`] reads it, through what a
    /// long-lived caller keeps: read again only when one of its files changed, and the state
    /// kept with it in the options.
    pub fn configured_kept(
        root: PathBuf,
        kept: &std::sync::Arc<Kept>,
    ) -> Result<(Self, Config), ConfigError> {
        let config = match Root::new(&root) {
            Ok(r) => kept.settings(&r)?,
            Err(_) => Config::default(),
        };
        let mut opts = ApplyOptions::from_config(root, &config);
        opts.kept = Some(std::sync::Arc::clone(kept));
        Ok((opts, config))
    }

    /// The options `config` gives over the defaults.
    fn from_config(root: PathBuf, config: &Config) -> Self {
        ApplyOptions {
            syntax_check: config.gate_enabled(),
            gate: config.gate_options(),
            retention: config.retention(),
            hard_links: config.hard_links(),
            ignored_settings: config.ignored.clone(),
            ..ApplyOptions::new(root)
        }
    }

    /// The state of `root`: as the caller kept it, when it still holds, else found now.
    fn state_of(&self, root: &Root) -> store::StateDir {
        match &self.kept {
            Some(kept) => kept.state(root),
            None => store::StateDir::locate(root),
        }
    }

    /// Defaults: auto-detected format, real run, fsync on.
    pub fn new(root: PathBuf) -> Self {
        ApplyOptions {
            root,
            format: FormatChoice::Auto,
            dry_run: false,
            expect: Vec::new(),
            base: Vec::new(),
            fsync: true,
            parse: ParseOptions::default(),
            partial: false,
            syntax_check: true,
            gate: GateOptions::default(),
            retention: store::Retention::default(),
            checkpoint: true,
            test: None,
            sandbox: false,
            test_timeout: std::time::Duration::from_secs(600),
            test_output_bytes: 8 * 1024,
            bisect_runs: None,
            progress: progress::Watch::default(),
            cancel: Cancellation::default(),
            surface: Surface::Cli,
            actor: String::new(),
            protect_settings: false,
            hard_links: staged::HardLinks::default(),
            ignored_settings: None,
            kept: None,
        }
    }
}
