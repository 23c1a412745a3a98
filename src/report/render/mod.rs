//! The report in words, for people and models, in one place: every message a report carries,
//! every failure ([`lancet_core::failure`]'s facts: `locate` for hunks, `ops` for operations, `batch`
//! for whole batches) with what to send next, the human rendering (`render_human`), the log's
//! summary line and the compact form. The data lives in [`crate::report`]; CLI and MCP both
//! print what this module writes, in their own vocabulary ([`Surface`]): a third surface is one
//! more `Surface` arm.

use crate::report::{
    BatchNotes, FileReport, HunkReport, LeftSite, MAX_LISTED, Outcome, RenameSummary, Report,
    Status, Surface,
};
use lancet_core::kinds::ErrorKind;
use lancet_core::locate::Tier;
use std::fmt::Write as _;

mod batch;
mod batch_notes;
mod bisect;
mod check;
mod codemod;
mod findings;
mod history;
mod left;
mod locate;
mod moving;
pub(crate) mod ops;
mod parsed;
mod place;
mod progress;
mod reach;
mod reads;
mod refused;
mod rename;
mod servers;
mod settings;
mod signature;
mod sketch;
mod step;
mod surface;
mod syntax;
mod verify;

pub(crate) use batch_notes::{batch_note, server_unconfined, unconfined_in_json};
pub use history::checkpoints_in_words;
use left::left_why;
pub(crate) use left::left_why_in_json;
pub(crate) use parsed::BatchInJson;
pub use parsed::parsed_edit_bytes;
pub(crate) use progress::phase_words;
use signature::site_problem;

/// The note for a file with other hard links that got its own inode: the other names keep the
/// old content.
fn hard_link_split(path: &str) -> String {
    format!(
        "{path} had other hard links: it now has its own copy and the other names keep the old content (`[edit] hard_links = \"in-place\"` in the user configuration writes through them)"
    )
}

/// Words for what a surface prints beside the report: a parsed batch (`lancet parse`), a
/// check's findings (`lancet check`). The engine's types carry no words of their own; this is
/// where they get them.
pub trait InWords {
    /// The text a person reads.
    fn render_human(&self) -> String;
    /// The JSON a program reads (`--json`), pretty-printed, with a final newline.
    fn render_json(&self) -> String;
}

/// A fact from below, in words: the engine's failures have no `Display` of their own, so the
/// renderer shows them through this (`Words(&failure).to_string()`).
pub(crate) struct Words<'a, T>(pub(crate) &'a T);

impl Report {
    /// Builds the report of a staged batch, wording every failure and the message for
    /// `surface`.
    pub fn from_ops(
        status: Status,
        format: &'static str,
        mut files: Vec<FileReport>,
        notes: BatchNotes,
        surface: Surface,
    ) -> Report {
        let notes = (notes.parsed.iter().map(batch_note))
            .chain(
                notes
                    .split_hard_links
                    .iter()
                    .map(|path| hard_link_split(path)),
            )
            .collect();
        for f in &mut files {
            if let Some(failure) = &f.failure {
                f.error = Some(ops::op_failure(failure, surface, format));
            }
            f.notes.extend(f.noted.iter().map(ops::file_note));
            for h in &mut f.hunks {
                if let Some(failure) = &h.failure {
                    h.error = Some(locate::hunk_failure(failure, surface));
                }
                h.notes.extend(h.noted.iter().map(locate::hunk_note));
            }
        }
        let mut report = Report {
            format: Some(format),
            files,
            notes,
            ..Report::note_only(status, "")
        };
        report.message = compose_message(&report);
        report
    }

    /// One line saying what the batch did, for checkpoints and the log.
    pub fn summary_line(&self) -> String {
        // Only what the batch changed: a failed or already-applied operation of a partial
        // batch wrote nothing, so the log must not list it. A file edited by several
        // operations is one entry.
        let mut ops: Vec<String> = Vec::new();
        for label in self
            .files
            .iter()
            .filter(|f| {
                f.status == Outcome::Applied || f.hunks.iter().any(|h| h.status == Outcome::Applied)
            })
            .map(op_label)
        {
            if !ops.contains(&label) {
                ops.push(label);
            }
        }
        let mut line = ops.join(", ");
        if line.len() > 200 {
            let mut cut = 200;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push('…');
        }
        line
    }

    /// Says that writes landed in place in files this batch had replaced (another program
    /// holding them open) after the swap: their bytes are not in the tree, and are kept.
    pub fn with_late_writes(self, late: &[(String, std::path::PathBuf)]) -> Report {
        late.iter().fold(self, |report, (path, kept)| {
            report.with_note(format!(
                "another program wrote {path} in place after lancet replaced it (it held the old file open): that write is not in {path} now; its bytes are kept in {} — merge them by hand",
                kept.display()
            ))
        })
    }

    /// What a dry run says: what would apply, or, with failures, that it is no success even
    /// with --partial (what failed is the answer); and that the test command (`untested`), when
    /// one was given, did not run.
    pub(crate) fn dry_run(
        status: Status,
        format: &'static str,
        reports: Vec<FileReport>,
        (notes, untested): (BatchNotes, Option<&str>),
        surface: Surface,
    ) -> Report {
        let report = match status {
            Status::Partial => Report::from_ops(Status::Refused, format, reports, notes, surface)
                .with_note(
                    "a dry run with --partial: without --dry-run, the parts that located would be written and only these reported".to_string(),
                ),
            _ => Report::from_ops(Status::DryRun, format, reports, notes, surface),
        };
        match untested {
            Some(command) => report.with_note(format!(
                "the test command was not run (`{command}`): a dry run writes nothing for it to test"
            )),
            None => report,
        }
    }

    /// Says which whole-file writes replaced a file that changed since it was read (`lancet
    /// read` showed it with the hash given), with no `--expect`/`--base` to compare with: what
    /// changed meanwhile is gone from the file, and how to merge it instead.
    pub fn with_changed_since_read(self, changed: &[(String, String)]) -> Report {
        changed.iter().fold(self, |report, (path, read)| {
            report.with_note(format!(
                "{path} changed since it was read (lancet read showed sha256 {}…): this whole-file write replaced those changes; `--base {path}={read}` would have merged them (`lancet undo` takes the write back)",
                &read[..12.min(read.len())]
            ))
        })
    }

    /// Says that the file system could not exchange files atomically, so the check against a
    /// concurrent writer was a stamp compared right before each rename.
    pub fn with_swap_fallback(self) -> Report {
        self.with_note(
            "this file system cannot exchange files atomically (renameat2 RENAME_EXCHANGE): each file's inode, size and modification time were compared right before its rename instead, which a save landing in that instant could slip past".to_string(),
        )
    }

    /// Says the batch stands but lancet's checkpoint packs could not be folded into one (the
    /// batch is unaffected; lookups stay slower until a later batch, or `git gc`, folds them).
    pub fn with_packs_unfolded(self, why: &str) -> Report {
        self.with_note(format!(
            "the batch is written and checkpointed, but lancet could not fold its checkpoint packs into one ({why}); every pack was kept as it was, and object lookups stay slower until a later batch folds them or `git gc` runs"
        ))
    }

    /// Attaches a rename's findings and puts them at the top of the message.
    pub fn with_rename(mut self, summary: RenameSummary, surface: Surface) -> Report {
        let findings = findings::findings(&summary, findings::Detail::Full, surface);
        self.message = format!("{findings}\n{}", self.message);
        self.rename = Some(summary);
        self
    }

    /// The compact form for agents (`--brief`, MCP): each change is shown once, by its
    /// numbered snippet where its hunks have one, else by its diff (a deleted file by its
    /// name alone, never its whole old content); a refused or failed batch
    /// carries no diffs at all (nothing was written, and the failure's own words say what to
    /// send next). A rename's or a mod's diffs are left out (the summary names the sites);
    /// a rename's findings name each file once with the lines of its sites, and the text lists
    /// a few chunks per file.
    pub fn brief(mut self, surface: Surface) -> Report {
        let refused = self.exit_code() != 0;
        // A rename's or a mod's sites are listed by the summary (and in full in `--json`):
        // their diffs, one per file of a tree-wide change, are what brief leaves out.
        let tree_wide = matches!(self.format, Some("rename" | "mod" | "signature" | "move"));
        for f in &mut self.files {
            // A deletion's diff is the whole old file; `D path` in the summary says it all.
            let deleted = f.action == crate::report::Action::Delete;
            if refused || tree_wide || deleted || f.hunks.iter().any(|h| !h.snippet.is_empty()) {
                f.diff = None;
            }
        }
        if let Some(summary) = &self.rename {
            let full = findings::findings(summary, findings::Detail::Full, surface);
            // A refusal for undecided sites lists them itself.
            let unresolved = self
                .error
                .as_ref()
                .is_none_or(|e| e.kind != ErrorKind::UnresolvedSites);
            let brief =
                findings::findings(summary, findings::Detail::Brief { unresolved }, surface);
            self.message = self.message.replacen(&full, &brief, 1);
        }
        self.compact = true;
        self
    }

    /// Human-readable rendering: one line per file, hunk lines, diffs, then the message.
    pub fn render_human(&self, color: bool) -> String {
        let mut out = String::new();
        let scale = at_scale(self);
        for (i, f) in self.files.iter().enumerate() {
            let failed = matches!(f.status, Outcome::Failed | Outcome::Ambiguous)
                || f.hunks.iter().any(|h| is_failure(h.status));
            if scale && !failed {
                if i < SCALE_FILES {
                    // A whole file written (`mod --exec`, a whole-file edit) has no chunks.
                    let chunks = match f.hunks.len() {
                        0 => String::new(),
                        n => format!("  ({n} chunk(s))"),
                    };
                    let _ = writeln!(
                        out,
                        "{} {}{chunks}",
                        f.action.letter(),
                        f.to.as_deref().unwrap_or(&f.path),
                    );
                } else if i == SCALE_FILES {
                    let _ = writeln!(
                        out,
                        "... and {} more file(s) (--json lists every file and chunk)",
                        self.files.len() - SCALE_FILES
                    );
                }
                continue;
            }
            let target = match &f.to {
                Some(to) => format!("{} -> {}", f.path, to),
                None => f.path.clone(),
            };
            let state = match f.status {
                Outcome::Applied => String::new(),
                Outcome::AlreadyApplied => "  (already applied)".into(),
                Outcome::Failed | Outcome::Ambiguous => "  (FAILED)".into(),
                Outcome::HeldBack => "  (held back: the tests fail with it)".into(),
            };
            if self.compact && !failed {
                // Brief: the message's summary names it; the text lists only what failed.
                continue;
            }
            let _ = writeln!(out, "{} {target}{state}", f.action.letter());
            let mut quiet = 0;
            for h in &f.hunks {
                // Brief: a few chunks that went well in a file that failed; every failure.
                if self.compact && !is_failure(h.status) && quiet >= BRIEF_CHUNKS {
                    quiet += 1;
                    continue;
                }
                quiet += usize::from(!is_failure(h.status));
                let _ = writeln!(out, "  {}", hunk_summary(h, self.format));
            }
            if self.compact && quiet > BRIEF_CHUNKS {
                let _ = writeln!(
                    out,
                    "  ... and {} more chunk(s) that located",
                    quiet - BRIEF_CHUNKS
                );
            }
        }
        let mut diffs_shown = false;
        for f in self.files.iter().filter(|_| !scale) {
            if let Some(diff) = &f.diff {
                diffs_shown = true;
                out.push_str(&colorize_diff(diff, color));
                if !diff.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        // Where every change is shown by its diff, how it now reads would show it twice.
        let snippets_in_diffs = diffs_shown
            && !scale
            && self
                .files
                .iter()
                .all(|f| f.diff.is_some() || f.hunks.iter().all(|h| h.snippet.is_empty()));
        // Notes may follow how the places now read (a batch's notes come last): the snippets
        // are taken out wherever they stand.
        let snippets = now_reads(self);
        let message = match snippets_in_diffs && !snippets.is_empty() {
            true => std::borrow::Cow::Owned(self.message.replacen(&snippets, "", 1)),
            false => std::borrow::Cow::Borrowed(self.message.as_str()),
        };
        out.push_str(&message);
        if !message.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

fn hunk_summary(h: &HunkReport, format: Option<&str>) -> String {
    let lines = match (h.start_line, h.end_line) {
        (Some(s), _) if h.insertion && h.status == Outcome::Applied => {
            format!("insert after line {s}")
        }
        (Some(s), Some(e)) if s == e => format!("line {s}"),
        (Some(s), Some(e)) => format!("lines {s}-{e}"),
        _ => String::new(),
    };
    match h.status {
        Outcome::Applied => format!("chunk {}: {} ({})", h.index, lines, tier_label(h, format)),
        Outcome::AlreadyApplied => format!("chunk {}: already applied at {}", h.index, lines),
        Outcome::Failed => format!("chunk {}: not found", h.index),
        Outcome::HeldBack => format!("chunk {}: {} (held back)", h.index, lines),
        // Refused with two readings of one place (re-sent or copy, replace or add beside).
        Outcome::Ambiguous if h.candidates.is_empty() => {
            format!("chunk {}: ambiguous (two readings)", h.index)
        }
        Outcome::Ambiguous => {
            let mut lines = join_lines(&h.candidates);
            if let Some(total) = h.candidates_total {
                lines.push_str(&format!(" … {total} in all"));
            }
            format!("chunk {}: ambiguous (lines {lines})", h.index)
        }
    }
}

/// How many sites of each kind a refactor's words list (`--json` has them all).
pub(crate) const SITES_LISTED: usize = 20;

/// Sites under a heading, each with its text and why (the first [`SITES_LISTED`]): the one
/// listing of sites a signature change or a move left.
pub(crate) fn list_left_sites(msg: &mut String, heading: &str, sites: &[LeftSite]) {
    if sites.is_empty() {
        return;
    }
    let _ = write!(msg, "\n{heading} ({}):", sites.len());
    for s in sites.iter().take(SITES_LISTED) {
        let _ = write!(
            msg,
            "\n  {}:{}: {}  ({})",
            s.path,
            s.line,
            s.text,
            left_why(&s.why)
        );
    }
    if sites.len() > SITES_LISTED {
        let _ = write!(
            msg,
            "\n  ... and {} more (--json lists all)",
            sites.len() - SITES_LISTED
        );
    }
}

/// Joins every line number as `3, 7, 12`, where each one matters (the lines binding a name).
pub(crate) fn join_all_lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Joins line numbers as `3, 7, 12` (the first [`MAX_LISTED`], then "… and N more").
pub(crate) fn join_lines(lines: &[usize]) -> String {
    let mut out = join_all_lines(&lines[..lines.len().min(MAX_LISTED)]);
    if lines.len() > MAX_LISTED {
        out.push_str(&format!(" … and {} more", lines.len() - MAX_LISTED));
    }
    out
}

fn colorize_diff(diff: &str, color: bool) -> String {
    if !color {
        return diff.to_string();
    }
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        let code = if line.starts_with("+++") || line.starts_with("---") {
            "1"
        } else if line.starts_with('+') {
            "32"
        } else if line.starts_with('-') {
            "31"
        } else if line.starts_with("@@") {
            "36"
        } else {
            ""
        };
        if code.is_empty() {
            out.push_str(line);
        } else {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let _ = write!(out, "\x1b[{code}m{body}\x1b[0m");
            if line.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

fn op_label(f: &FileReport) -> String {
    match &f.to {
        Some(to) => format!("{} {} -> {}", f.action.letter(), f.path, to),
        None => format!("{} {}", f.action.letter(), f.path),
    }
}

/// Above this many changed hunks, the message leaves the result snippets to the JSON report.
const MAX_SNIPPETS_IN_MESSAGE: usize = 8;

/// A success message's first line names operations while it stays under this many characters.
const SUMMARY_LINE_CHARS: usize = 200;

/// A success message names at most this many chunks per file that applied plainly (exactly,
/// once); `--json` has them all.
const PLAIN_CHUNKS_NAMED: usize = 4;

/// `--brief` text lists at most this many chunks that went well in a file that failed.
const BRIEF_CHUNKS: usize = 3;

/// Above this many files or hunks, reports summarise instead of listing (`--json` stays complete).
const SCALE_FILES: usize = 20;
const SCALE_HUNKS: usize = 200;

fn at_scale(report: &Report) -> bool {
    report.files.len() > SCALE_FILES
        || report.files.iter().map(|f| f.hunks.len()).sum::<usize>() > SCALE_HUNKS
}

/// The name a hunk's matcher goes by in summaries (rename sites have no tier: they come from
/// the syntax tree).
/// How a hunk was placed: its matcher tier, or for spans a tree computed, what computed them.
fn tier_label(h: &HunkReport, format: Option<&str>) -> &'static str {
    match (h.tier, format) {
        (Some(tier), _) => tier.name(),
        (None, Some("mod")) => "rule",
        (None, Some("signature")) => "signature",
        (None, Some("move")) => "move",
        (None, _) => "identifier",
    }
}

/// A large batch in one paragraph: files per action, hunks per tier, a few paths.
fn scale_summary(report: &Report) -> String {
    let mut actions: Vec<(char, usize)> = Vec::new();
    let mut tiers: Vec<(&'static str, usize)> = Vec::new();
    let mut hunks = 0;
    for f in &report.files {
        match actions.iter_mut().find(|(l, _)| *l == f.action.letter()) {
            Some((_, n)) => *n += 1,
            None => actions.push((f.action.letter(), 1)),
        }
        for h in f.hunks.iter().filter(|h| h.status == Outcome::Applied) {
            hunks += 1;
            match tiers
                .iter_mut()
                .find(|(t, _)| *t == tier_label(h, report.format))
            {
                Some((_, n)) => *n += 1,
                None => tiers.push((tier_label(h, report.format), 1)),
            }
        }
    }
    let actions: Vec<String> = actions.iter().map(|(l, n)| format!("{n} {l}")).collect();
    let tiers: Vec<String> = tiers.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let already = report
        .files
        .iter()
        .filter(|f| f.status == Outcome::AlreadyApplied)
        .count();
    let mut s = format!(
        "{} file(s) ({}), {hunks} chunk(s) by matcher: {}",
        report.files.len(),
        actions.join(", "),
        if tiers.is_empty() {
            "-".to_string()
        } else {
            tiers.join(", ")
        }
    );
    if already > 0 {
        let _ = write!(s, "; {already} file(s) already applied");
    }
    s
}

fn is_failure(status: Outcome) -> bool {
    matches!(status, Outcome::Failed | Outcome::Ambiguous)
}

fn compose_message(report: &Report) -> String {
    let mut msg = match report.status {
        Status::Refused | Status::Partial => failure_message(report),
        Status::Applied | Status::DryRun | Status::AlreadyApplied | Status::NothingMatched => {
            success_message(report)
        }
        Status::Malformed | Status::Error | Status::TestFailed => String::new(),
    };
    for note in &report.notes {
        let _ = write!(msg, "\nNote: {note}.");
    }
    msg
}

/// A refused or partial batch: how many operations failed, each failure with its edit line,
/// and what to resend.
fn failure_message(report: &Report) -> String {
    let mut msg = String::new();
    let failed_ops = report
        .files
        .iter()
        .filter(|f| is_failure(f.status) || f.hunks.iter().any(|h| is_failure(h.status)))
        .count();
    if report.status == Status::Refused {
        let _ = writeln!(
            msg,
            "Refused, nothing was written: {failed_ops} of {} operation(s) could not be applied.",
            report.files.len()
        );
    } else {
        let applied: Vec<String> = report
            .files
            .iter()
            .flat_map(|f| {
                f.hunks
                    .iter()
                    .filter(|h| h.status == Outcome::Applied)
                    .map(move |h| format!("{} chunk {}", f.path, h.index))
            })
            .collect();
        let _ = writeln!(
            msg,
            "Partially applied (--partial): {} block(s) applied ({}); {failed_ops} operation(s) had failures.",
            applied.len(),
            applied.join(", ")
        );
    }
    msg.push_str(&failures(report));
    msg.push_str(if report.status == Status::Refused {
        "Fix the failed part(s) and resend the whole edit: none of it was applied, not even the parts that matched."
    } else {
        "Resend only the failed part(s): the applied blocks are in place, don't resend them."
    });
    msg
}

/// Each operation and chunk that could not be applied, a line each, with its edit line and
/// why.
pub(super) fn failures(report: &Report) -> String {
    let mut msg = String::new();
    for f in &report.files {
        if let (Some(e), true) = (&f.error, is_failure(f.status)) {
            let _ = writeln!(msg, "- {}{}: {e}", op_label(f), edit_line(f.edit_line));
        }
        for h in f.hunks.iter().filter(|h| is_failure(h.status)) {
            let _ = writeln!(
                msg,
                "- {} chunk {}{}: {}",
                f.path,
                h.index,
                edit_line(h.edit_line),
                h.error.as_deref().unwrap_or("failed")
            );
        }
    }
    msg
}

/// ` (edit line N)`, or nothing where no edit text was sent (rename, mod, undo: line 0).
fn edit_line(line: usize) -> String {
    match line {
        0 => String::new(),
        n => format!(" (edit line {n})"),
    }
}

/// An applied (or would-apply, or already-applied) batch: one item per operation, each hunk's
/// notes, and how each changed place now reads.
fn success_message(report: &Report) -> String {
    let mut msg = String::new();
    let lead = match report.status {
        Status::Applied => "Applied",
        Status::DryRun => "Dry run, nothing was written; would apply",
        _ => "Nothing to do, every change is already in place",
    };
    let items: Vec<String> = if at_scale(report) {
        vec![scale_summary(report)]
    } else {
        report.files.iter().map(summarize_op).collect()
    };
    if items.is_empty() {
        msg.push_str("No edits found in the text; nothing to do.");
    } else {
        // The line stays short for any batch: the operations while they fit, then a count.
        let mut line = format!("{lead}: {}", items[0]);
        let mut named = 1;
        for item in &items[1..] {
            if line.len() + item.len() + 2 > SUMMARY_LINE_CHARS {
                break;
            }
            line.push_str(", ");
            line.push_str(item);
            named += 1;
        }
        if named < items.len() {
            let _ = write!(
                line,
                " and {} more operation(s) (--json lists every one)",
                items.len() - named
            );
        }
        let _ = write!(msg, "{line}.");
    }
    let hunks = || {
        report
            .files
            .iter()
            .flat_map(|f| f.hunks.iter().map(move |h| (f, h)))
    };
    for f in &report.files {
        for note in &f.notes {
            let _ = write!(msg, "\n{}: {note}.", f.to.as_deref().unwrap_or(&f.path));
        }
    }
    for (f, h) in hunks() {
        for note in &h.notes {
            let _ = write!(
                msg,
                "\n{} chunk {}: {note}.",
                f.to.as_deref().unwrap_or(&f.path),
                h.index
            );
        }
    }
    msg.push_str(&now_reads(report));
    msg
}

/// The end of a success message: how each changed place now reads, numbered (what a model
/// checks its edit against without reading the file again). Empty for many changes, or none.
fn now_reads(report: &Report) -> String {
    let mut msg = String::new();
    let changed: Vec<(&FileReport, &HunkReport)> = report
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(move |h| (f, h)))
        .filter(|(_, h)| !h.snippet.is_empty())
        .collect();
    if report.status != Status::AlreadyApplied && changed.len() <= MAX_SNIPPETS_IN_MESSAGE {
        for (f, h) in changed {
            let _ = write!(
                msg,
                "\n{} chunk {} now reads:",
                f.to.as_deref().unwrap_or(&f.path),
                h.index
            );
            for l in &h.snippet {
                let _ = write!(msg, "\n  {:>5} | {}", l.line, l.text);
            }
        }
    }
    msg
}

/// One operation in a success message: its letter and path, and what is worth knowing about
/// its hunks (positions, tiers looser than exact, already-applied ones).
fn summarize_op(f: &FileReport) -> String {
    let mut s = op_label(f);
    if f.status == Outcome::AlreadyApplied {
        s.push_str(" (already applied)");
        return s;
    }
    // Every chunk worth a word (a looser tier, already applied, several places); the plain
    // ones only up to PLAIN_CHUNKS_NAMED, then counted.
    let mut plain = 0;
    let mut parts: Vec<String> = f
        .hunks
        .iter()
        .filter(|h| {
            let worth_a_word = h.status == Outcome::AlreadyApplied
                || h.tier.is_some_and(|t| t != Tier::Exact)
                || h.matches.len() > 1;
            plain += usize::from(!worth_a_word);
            worth_a_word || plain <= PLAIN_CHUNKS_NAMED
        })
        .map(|h| {
            let place = match (h.start_line, h.end_line) {
                _ if h.insertion => format!("inserted after line {}", h.start_line.unwrap_or(0)),
                (Some(a), Some(b)) if a == b => format!("line {a}"),
                (Some(a), Some(b)) => format!("lines {a}-{b}"),
                _ => String::new(),
            };
            let how = match (h.status, h.tier) {
                (Outcome::AlreadyApplied, _) => " already applied".to_string(),
                (_, Some(t)) if t != Tier::Exact => format!(" by tier {}", t.name()),
                _ => String::new(),
            };
            let many = if h.matches.len() > 1 {
                format!(" ({} places)", h.matches.len())
            } else {
                String::new()
            };
            format!("chunk {} {place}{how}{many}", h.index)
        })
        .collect();
    if plain > PLAIN_CHUNKS_NAMED {
        parts.push(format!("and {} more chunk(s)", plain - PLAIN_CHUNKS_NAMED));
    }
    if !parts.is_empty() {
        let _ = write!(s, " [{}]", parts.join("; "));
    }
    s
}

#[cfg(test)]
mod tests {
    use crate::report::{Action, FileReport, Report, Status};

    /// Issue #41: a batch of many whole files (`mod --exec`) listed each as "(0 chunk(s))".
    #[test]
    fn whole_files_at_scale_are_listed_without_a_chunk_count() {
        let files = (0..25)
            .map(|i| FileReport::new(format!("f{i}.py"), Action::Update, 0))
            .collect();
        let text =
            Report::from_files(Status::Applied, files, "Applied.".into()).render_human(false);
        assert!(text.starts_with("M f0.py\nM f1.py\n"), "{text}");
        assert!(!text.contains("chunk(s))"), "{text}");
    }
}
