//! `lancet log`, `lancet undo` and `lancet recover`: the batches lancet recorded, listed, put
//! back, or finished after a crash.

use super::output::{emit, emit_unless_quiet};
use clap::Args;
use lancet::Root;
use lancet::Surface;
use std::io::Write;

#[derive(Debug, Args)]
pub(super) struct LogArgs {
    /// Print as JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// At most N checkpoints, the newest.
    #[arg(short = 'n', long = "limit", value_name = "N")]
    pub(super) limit: Option<usize>,
    /// Only the batches that touched PATH (relative to the root).
    #[arg(long, value_name = "PATH")]
    pub(super) path: Option<String>,
    /// Only the batches of the last DURATION (`90s`, `30m`, `2h`, `1d`, `1w`, `1h 30m`).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub(super) since: Option<std::time::Duration>,
    /// Also batches that touched paths outside this root (made from another root of the same
    /// repository).
    #[arg(long)]
    pub(super) any_root: bool,
}

#[derive(Debug, Args)]
pub(super) struct UndoArgs {
    /// The checkpoint id (or a prefix of it); default: the newest batch not yet undone.
    id: Option<String>,
    /// Restore paths even if they changed after the batch.
    #[arg(long, conflicts_with = "partial")]
    force: bool,
    /// Restore the paths that did not change after the batch and leave the others (without it,
    /// one changed path refuses the whole undo).
    #[arg(long)]
    partial: bool,
    /// Reach a batch that touched paths outside this root (made from another root of the same
    /// repository); without it, only this root's batches are undone.
    #[arg(long)]
    any_root: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Print nothing on success (the exit code says it), as apply, rename and mod take it;
    /// failures are still reported.
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Debug, Args)]
pub(super) struct RecoverArgs {
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn run_log(root: &Root, args: &LogArgs) -> u8 {
    let json = args.json;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let filter = lancet::LogFilter {
        limit: args.limit,
        path: args.path.clone(),
        since: args.since.map(|ago| now.saturating_sub(ago).as_secs()),
        any_root: args.any_root,
    };
    let entries = lancet::log(root, &filter);
    let out = if json {
        serde_json::to_string_pretty(&entries).unwrap_or_default() + "\n"
    } else {
        let filtered = args.limit.is_some() || args.path.is_some() || args.since.is_some();
        lancet::surfaces::checkpoints_in_words(&entries, filtered, Surface::Cli)
    };
    let _ = std::io::stdout().write_all(out.as_bytes());
    0
}

/// `lancet undo`: puts back a batch and prints the report.
pub(super) fn run_undo(root: &Root, args: &UndoArgs) -> u8 {
    let report = lancet::undo(
        root,
        args.id.as_deref(),
        lancet::UndoOptions {
            force: args.force,
            partial: args.partial,
            fsync: true,
            surface: Surface::Cli,
            protect_settings: false,
            any_root: args.any_root,
            // The person's own undo: force overwrites whatever is there.
            read: None,
            hard_links: lancet::ApplyOptions::configured(root.path().to_path_buf())
                .map(|(opts, _)| opts.hard_links)
                .unwrap_or_default(),
        },
    )
    .report;
    emit_unless_quiet(&report, args.json, args.quiet)
}

/// `lancet recover`: finishes an interrupted batch and prints what it did.
pub(super) fn run_recover(root: &Root, args: &RecoverArgs) -> u8 {
    emit(&lancet::recover(root, true), args.json)
}
