//! The pipeline behind `apply`: stage → gate → checkpoint and commit → verify, as named phases
//! over the crates below, each ending with the report or handing the next its data.

use crate::applied::Applied;
use crate::apply_options::{ApplyOptions, WritePhase};
use crate::bisect;
use crate::progress;
use crate::report::{BatchNotes, Phase, Report};
use crate::verify;
use crate::{history, sandbox};
use lancet_core::Root;
use lancet_core::batch::{self, Batch};
use lancet_core::format;
use lancet_core::stage::{self, Base};
use lancet_core::staged;
use lancet_core::timing::lap;
use lancet_core::verdicts;
use lancet_core::{BatchFailure, Status};
use lancet_store::TestSummary;
use lancet_store::{self as store, StateDir};
use lancet_syntax as syntax;

/// Parses edit text and applies it; every outcome, including malformed input, is a report.
pub fn apply(edit: &[u8], opts: &ApplyOptions) -> Applied {
    let parsed = format::parse_bytes(edit, opts.format, &opts.parse);
    match parsed {
        Ok(batch) => apply_batch(&batch, opts),
        Err(e) => Report::malformed(&e, None).into(),
    }
}

/// Applies an already parsed batch: recover any interrupted batch, take the root's lock, stage
/// everything in memory, check syntax, record a checkpoint, write all or nothing, and run the
/// tests (rolling back on failure).
pub fn apply_batch(batch: &Batch, opts: &ApplyOptions) -> Applied {
    apply_batch_prechecked(batch, opts, &syntax::Prechecks::new())
}

/// [`apply_batch`] for a caller that already checked the syntax of some results (rename).
pub(crate) fn apply_batch_prechecked(
    batch: &Batch,
    opts: &ApplyOptions,
    prechecks: &syntax::Prechecks,
) -> Applied {
    let nothing_written = Applied::from;
    let mut clock = std::time::Instant::now();
    let root = match open_root(opts) {
        Ok(r) => r,
        Err(report) => return nothing_written(*report),
    };
    // The gate's external checks never run a program from inside the tree.
    syntax::distrust_programs_under(root.path());
    lap("root opened", &mut clock);
    let session = opts.session(&root);
    lap("state located", &mut clock);
    let _lock = if session.locks {
        match session.state.lock() {
            Ok(lock) => Some(lock),
            Err(e) => {
                return nothing_written(Report::batch_failed(&e.failure(), opts.surface));
            }
        }
    } else {
        None
    };
    lap("locked", &mut clock);
    let recovered = history::recover_if_needed(&session.state, session.fsync, !session.locks);
    lap("recovery checked", &mut clock);
    let mut applied = match cancelled(opts) {
        Some(report) => nothing_written(report),
        None => apply_locked(&root, &session.state, batch, opts, prechecks),
    };
    if let Some(recovered) = recovered {
        applied.report = applied.report.with_recovery(&recovered);
    }
    if let Some(ignored) = session.ignored {
        applied.report = applied.report.with_note(ignored.notice(opts.surface));
    }
    applied
}

/// The pipeline, one named phase after another, the root locked: stage → gate → checkpoint and
/// commit → verify. Each phase either hands the next its data or ends with the report.
fn apply_locked(
    root: &Root,
    state: &StateDir,
    batch: &Batch,
    opts: &ApplyOptions,
    prechecks: &syntax::Prechecks,
) -> Applied {
    let nothing_written = Applied::from;
    let mut clock = std::time::Instant::now();
    let progress = progress::Progress::new(&opts.progress, batch.ops.len());
    progress.phase(
        &Phase::Staging {
            operations: batch.ops.len(),
        },
        None,
    );
    let write = opts.write();
    let (staged, admitted) = match stage_and_admit(root, state, batch, opts, &write.checks) {
        Ok(both) => both,
        Err(report) => return nothing_written(*report),
    };
    lap("stage", &mut clock);
    if let Some(report) = cancelled(opts) {
        return nothing_written(report);
    }
    let format = batch.format.name();
    let notes = BatchNotes {
        parsed: &batch.notes,
        split_hard_links: admitted.split_hard_links(),
    };
    let status = match (staged.failed(), opts.partial) {
        (true, partial) if !partial || admitted.files().is_empty() => {
            return nothing_written(Report::from_ops(
                Status::Refused,
                format,
                staged.reports,
                notes,
                opts.surface,
            ));
        }
        (true, _) => Status::Partial,
        (false, _) => Status::Applied,
    };
    if admitted.files().is_empty() {
        return nothing_written(Report::from_ops(
            Status::AlreadyApplied,
            format,
            staged.reports,
            notes,
            opts.surface,
        ));
    }
    progress.phase(
        &Phase::CheckingSyntax {
            files: admitted.files().len(),
        },
        None,
    );
    let syntax = gate(admitted.files(), opts, prechecks);
    lap("syntax gate", &mut clock);
    if let Some(report) = &syntax
        && report.refuses()
    {
        return nothing_written(
            Report::from_ops(Status::Refused, format, staged.reports, notes, opts.surface)
                .with_syntax(syntax),
        );
    }
    if opts.dry_run {
        let report = Report::dry_run(
            status,
            format,
            staged.reports,
            (notes, opts.test.as_deref()),
            opts.surface,
        );
        return nothing_written(report.with_syntax(syntax));
    }
    // The last look before the writes (without tests, the commit point of a cancellation):
    // tests that cannot run as they must, or a call cancelled, write nothing.
    if let Some(report) = tests_refused(opts).or_else(|| cancelled(opts)) {
        return nothing_written(report);
    }
    let report = Report::from_ops(status, format, staged.reports, notes, opts.surface)
        .with_syntax(syntax)
        .with_changed_since_read(&overwritten_since_read(
            root,
            state,
            batch,
            admitted.files(),
            opts,
        ));
    progress.phase(
        &Phase::Writing {
            files: admitted.files().len(),
        },
        None,
    );
    write_and_verify(root, state, admitted, report, opts, &write, &progress)
}

/// The writing phases: checkpoint and commit, then, with a test command, the verdict that keeps
/// the batch or takes it back. The batch's format is the report's.
fn write_and_verify(
    root: &Root,
    state: &StateDir,
    admitted: store::Admitted<'_>,
    report: Report,
    opts: &ApplyOptions,
    write: &WritePhase,
    progress: &progress::Progress,
) -> Applied {
    let nothing_written = Applied::from;
    let format = report.format.unwrap_or_default();
    let mut clock = std::time::Instant::now();
    let committed = match checkpoint_and_commit(
        root,
        state,
        &admitted,
        report,
        format,
        write,
        opts.test.is_some(),
    ) {
        Ok(c) => c,
        Err(report) => return nothing_written(*report),
    };
    lap("commit (journal, checkpoint, writes)", &mut clock);
    let files = admitted.into_files();
    match &opts.test {
        Some(command) => {
            progress.phase(&Phase::Testing { command }, None);
            let phases = bisect::Phases {
                write,
                verify: &opts.verify(),
                progress: &opts.progress,
            };
            let max_runs = opts.bisect_runs;
            verify_and_decide(root, state, committed, files, command, &phases, max_runs)
        }
        None if committed.report.exit_code() != 0 => nothing_written(committed.report),
        None => Applied::kept(committed.report, files),
    }
}

/// The stage phase and the door: the batch staged in memory (its files handed on), then
/// admitted — every check a write into the tree must pass — before anything else is spent on
/// it.
fn stage_and_admit<'a>(
    root: &'a Root,
    state: &StateDir,
    batch: &Batch,
    opts: &ApplyOptions,
    checks: &store::Checks,
) -> Result<(stage::Staged, store::Admitted<'a>), Box<Report>> {
    let bases = with_snapshots(state, &with_anchor_bases(batch, &opts.base));
    let kept_reads = kept_reads(root, state, batch, &bases);
    let mut staged =
        stage::stage(root, batch, &opts.stage_options(&bases, &kept_reads)).map_err(|e| {
            Box::new(Report::stage_refused(
                &e,
                opts.surface,
                store::snapshots::MAX_FILES,
            ))
        })?;
    let admitted = store::admit(
        root,
        std::mem::take(&mut staged.files),
        state.off_limits(),
        checks,
    )
    .map_err(|failure| Box::new(Report::batch_failed(&failure, opts.surface)))?;
    Ok((staged, admitted))
}

/// Tests that must run sandboxed where no sandbox can be built, or tests whose processes could
/// not be ended with them: the report refusing the batch before any write.
fn tests_refused(opts: &ApplyOptions) -> Option<Report> {
    opts.test.as_ref()?;
    if opts.sandbox
        && let Err(e) = sandbox::available()
    {
        return Some(Report::no_sandbox(&e.to_string(), opts.surface));
    }
    lancet_process::available()
        .err()
        .map(|why| Report::tests_uncontained(&why, opts.surface))
}

/// The report of a batch its caller cancelled before its writes began: nothing written.
fn cancelled(opts: &ApplyOptions) -> Option<Report> {
    opts.cancel
        .is_cancelled()
        .then(|| Report::batch_failed(&BatchFailure::Cancelled, opts.surface))
}

/// The root a batch runs on, or the report that it cannot be opened.
pub(crate) fn open_root(opts: &ApplyOptions) -> Result<Root, Box<Report>> {
    Root::new(&opts.root).map_err(|e| {
        let failure = BatchFailure::RootUnopenable {
            root: opts.root.display().to_string(),
            error: e.to_string(),
        };
        Box::new(Report::batch_failed(&failure, opts.surface))
    })
}

/// Whole-file writes, with no `--expect` or `--base` naming their path, over a file that
/// changed since `lancet read` showed it: each path with the hash that read showed.
fn overwritten_since_read(
    root: &Root,
    state: &StateDir,
    batch: &Batch,
    files: &[staged::StagedFile],
    opts: &ApplyOptions,
) -> Vec<(String, String)> {
    let claimed = |path: &str| {
        opts.expect.iter().any(|e| e.path == path) || opts.base.iter().any(|b| b.path == path)
    };
    batch
        .ops
        .iter()
        .filter(|op| matches!(op.kind, batch::OpKind::Write { .. }) && !claimed(&op.path))
        .filter_map(|op| {
            let rel = root.rel(&op.path).ok()?;
            let staged = files.iter().find(|f| f.path == rel)?;
            let staged::Before::File { sha256: now, .. } = &staged.before else {
                return None;
            };
            let read = store::snapshots::kept_of(state, rel.as_str())
                .into_iter()
                .next()?;
            (read != *now).then(|| (rel.to_string(), read))
        })
        .collect()
}

/// The caller's bases, and for line-anchored edits that name their read (`sha256` in the
/// `*** Edit Lines:` header) and no base of the caller's, that read.
fn with_anchor_bases(batch: &Batch, bases: &[Base]) -> Vec<Base> {
    let mut all = bases.to_vec();
    for op in &batch.ops {
        if let batch::OpKind::Lines {
            base_sha256: Some(sha256),
            ..
        } = &op.kind
            && !all.iter().any(|b| b.path == op.path)
        {
            all.push(Base {
                path: op.path.clone(),
                sha256: sha256.clone(),
                snapshot: None,
            });
        }
    }
    all
}

/// The reads `lancet read` kept of each file edited by line anchors that name no read (no
/// `sha256`, no base), newest first, with their bytes: staging takes the newest the anchors
/// hold in as the edit's base.
fn kept_reads(root: &Root, state: &StateDir, batch: &Batch, bases: &[Base]) -> Vec<Base> {
    let mut reads = Vec::new();
    let mut looked = std::collections::HashSet::new();
    for op in &batch.ops {
        let batch::OpKind::Lines {
            base_sha256: None, ..
        } = &op.kind
        else {
            continue;
        };
        let Ok(rel) = root.rel(&op.path) else {
            continue;
        };
        if bases
            .iter()
            .any(|b| root.rel(&b.path).ok().as_ref() == Some(&rel))
            || !looked.insert(rel.clone())
        {
            continue;
        }
        for sha256 in store::snapshots::kept_of(state, rel.as_str()) {
            if let Some(bytes) = store::snapshots::load(state, &sha256) {
                reads.push(Base {
                    path: op.path.clone(),
                    sha256,
                    snapshot: Some(std::sync::Arc::new(bytes)),
                });
            }
        }
    }
    reads
}

/// The bases with their snapshot bytes: the caller's, or the one `lancet read` kept.
fn with_snapshots(state: &StateDir, bases: &[Base]) -> Vec<Base> {
    bases
        .iter()
        .map(|b| Base {
            snapshot: b
                .snapshot
                .clone()
                .or_else(|| store::snapshots::load(state, &b.sha256).map(std::sync::Arc::new)),
            ..b.clone()
        })
        .collect()
}

/// The gate phase: the syntax of every staged file (when asked for).
fn gate(
    files: &[staged::StagedFile],
    opts: &ApplyOptions,
    prechecks: &syntax::Prechecks,
) -> Option<verdicts::SyntaxReport> {
    opts.syntax_check
        .then(|| syntax::gate_prechecked(files, &opts.gate, prechecks))
}

/// A batch on disk: what the verify phase needs to keep it or take it back.
struct Committed {
    id: String,
    written: store::Written,
    meta: store::CheckpointMeta,
    touched: Vec<String>,
    report: Report,
}

/// The checkpoint-and-commit phase: the journal, then the checkpoint and its log entry (durable
/// with the journal, before any file is written: a crash on either side is rolled back and
/// forgotten together), then every file or none.
fn checkpoint_and_commit(
    root: &Root,
    state: &StateDir,
    admitted: &store::Admitted<'_>,
    mut report: Report,
    format: &str,
    write: &WritePhase,
    await_verdict: bool,
) -> Result<Committed, Box<Report>> {
    let id = history::new_batch_id();
    let files = admitted.files();
    let mut meta = history::meta_for(state, &id, format, files, &report);
    let mut clock = std::time::Instant::now();
    let prepared = match store::prepare(admitted, state, &id, write.door(await_verdict), &[]) {
        Ok(p) => p,
        Err(e) => return Err(Box::new(Report::batch_failed(&e.failure(), write.surface))),
    };
    lap("commit: targets checked, journal written", &mut clock);
    // The checkpoint and its log entry are recorded with the journal durable (its objects built
    // while it syncs) and before any file is written: a crash on either side is rolled back and
    // forgotten together.
    if write.checkpoint {
        match history::record_checkpoint(
            root,
            state,
            files,
            &report,
            &meta,
            &prepared.journal,
            &|| prepared.journal_durable(),
        ) {
            Ok(entry) => meta = entry,
            Err(e) => {
                prepared.abandon();
                return Err(Box::new(Report::batch_failed(&e.failure(), write.surface)));
            }
        }
    }
    let written = match store::write(prepared) {
        Ok(w) => w,
        Err(e) => return Err(Box::new(Report::batch_failed(&e.failure(), write.surface))),
    };
    if written.exchange_unsupported() {
        report = report.with_swap_fallback();
    }
    if write.checkpoint {
        clock = std::time::Instant::now();
        state.prune_checkpoints(write.retention);
        if let Err(e) = state.fold_packs() {
            report = report.with_packs_unfolded(&e.to_string());
        }
        lap("checkpoints pruned, packs folded", &mut clock);
        report.checkpoint = Some(id.clone());
    }
    Ok(Committed {
        touched: files.iter().map(|f| f.path.to_string()).collect(),
        id,
        written,
        meta,
        report,
    })
}

/// The verify phase: run the tests, then keep the batch (the journal goes: its commit point) or
/// take it back; a verdict that cannot be recorded takes it back too. With `--bisect`, a batch
/// taken back whole after failing tests goes on to the bisection: it needs what bisection needs
/// (how the batch was written, how the tests run) and how many runs it may take.
fn verify_and_decide(
    root: &Root,
    state: &StateDir,
    committed: Committed,
    files: Vec<staged::StagedFile>,
    command: &str,
    phases: &bisect::Phases,
    bisect_runs: Option<usize>,
) -> Applied {
    let write = phases.write;
    let Committed {
        id,
        written,
        mut meta,
        touched,
        mut report,
    } = committed;
    let mut run = verify::run_tests_as_asked(root, state, command, phases.verify);
    // The verdict is the commit point: a call cancelled before it is rolled back, whatever the
    // tests said.
    run.cancelled |= phases.verify.cancel.is_cancelled();
    let kept = run.passed
        && !run.cancelled
        && match store::release(root, state, &written, write.fsync) {
            Ok(late) => {
                report = report.with_late_writes(&verify::late_pairs(&late));
                true
            }
            Err(e) => {
                report = report.with_unkept(&e);
                false
            }
        };
    let ledger = |rolled_back| {
        store::ledger::record_in_ledger(
            state,
            &store::LedgerEntry {
                id: id.clone(),
                files: touched.clone(),
                rolled_back,
                actor: write.actor.to_string(),
            },
        )
    };
    meta.test = Some(TestSummary {
        command: command.to_string(),
        passed: run.passed,
    });
    if kept {
        ledger(false);
        if write.checkpoint {
            let _ = state.save_meta(&meta);
        }
        report = report.with_passed_test(run);
        return match report.exit_code() {
            0 => Applied::kept(report, files),
            _ => report.into(),
        };
    }
    // Marked undone while its journal stands: a crash during the rollback leaves the journal,
    // and recovery then forgets the batch; a crash after it leaves the mark true to the disk.
    meta.undone = true;
    if write.checkpoint {
        let _ = state.save_meta(&meta);
    }
    let rollback = store::roll_back_committed(root, state, &written, write.fsync);
    // A path changed during the tests keeps its new content: the batch is then only partly
    // taken back, and stays live in the log for `undo --force`.
    if !rollback.intact() && write.checkpoint {
        meta.undone = false;
        let _ = state.save_meta(&meta);
    }
    if let Some(max_runs) = bisect_runs
        && bisect::worth_trying(&run, &rollback)
    {
        let whole = bisect::Whole { id, report, run };
        return bisect::bisect(root, state, &files, whole, command, phases, max_runs);
    }
    // A cancelled call is no failed attempt: it does not count towards "stop retrying".
    let stuck = if run.cancelled {
        Vec::new()
    } else {
        ledger(true)
    };
    let undo = write.checkpoint.then(|| write.surface.undo_force(&id));
    report = report.with_failed_test(&run, &rollback, &stuck, undo.as_deref());
    report.test = Some(run);
    report.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lancet_core::format::{FormatChoice, ParseOptions};

    fn opts(dir: &std::path::Path) -> ApplyOptions {
        ApplyOptions {
            checkpoint: false,
            fsync: false,
            ..ApplyOptions::new(dir.to_path_buf())
        }
    }

    #[test]
    fn written_hands_back_exactly_what_is_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\r\ntwo\r\n").unwrap();
        let edit = b"*** Begin Patch\n*** Update File: a.txt\n-two\n+three\n*** Add File: b.txt\n+new\n*** End Patch\n";
        let batch =
            format::parse_bytes(edit, FormatChoice::Auto, &ParseOptions::default()).unwrap();
        let applied = apply_batch(&batch, &opts(dir.path()));
        assert_eq!(applied.report.status, Status::Applied);
        let mut written = applied.written.clone();
        written.sort();
        assert_eq!(
            written,
            vec![
                ("a.txt".to_string(), b"one\r\nthree\r\n".to_vec()),
                ("b.txt".to_string(), b"new\n".to_vec()),
            ]
        );
        for (path, bytes) in &written {
            assert_eq!(&std::fs::read(dir.path().join(path)).unwrap(), bytes);
        }
    }

    fn one_line_patch() -> Batch {
        let edit = b"*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\n";
        format::parse_bytes(edit, FormatChoice::Auto, &ParseOptions::default()).unwrap()
    }

    #[test]
    fn a_batch_cancelled_before_its_writes_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        let opts = opts(dir.path());
        opts.cancel.cancel();
        let applied = apply_batch(&one_line_patch(), &opts);
        let error = applied.report.error.as_ref().expect("a refusal");
        assert_eq!(error.kind, lancet_core::ErrorKind::Cancelled);
        assert_eq!(applied.report.status, Status::Refused);
        assert!(applied.written.is_empty());
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"one\n");
    }

    #[test]
    fn a_batch_cancelled_before_its_verdict_is_rolled_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        let opts = ApplyOptions {
            // The command writes its marker outside the root: the batch's files alone change.
            test: Some(format!(
                "touch {}; sleep 60",
                dir.path().with_extension("started").display()
            )),
            ..opts(dir.path())
        };
        let marker = dir.path().with_extension("started");
        let cancel = opts.cancel.clone();
        let canceller = std::thread::spawn(move || {
            while !marker.exists() {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            let _ = std::fs::remove_file(&marker);
            cancel.cancel();
        });
        let applied = apply_batch(&one_line_patch(), &opts);
        canceller.join().unwrap();
        let run = applied.report.test.as_ref().expect("a test run");
        assert!(run.cancelled && !run.passed, "{run:?}");
        assert_eq!(applied.report.status, Status::TestFailed);
        assert!(
            applied.report.message.contains("cancelled"),
            "{}",
            applied.report.message
        );
        assert!(applied.written.is_empty());
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"one\n");
    }

    #[test]
    fn nothing_is_written_by_a_refusal_or_a_dry_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        let edit = b"*** Begin Patch\n*** Update File: a.txt\n-missing\n+x\n*** End Patch\n";
        let batch =
            format::parse_bytes(edit, FormatChoice::Auto, &ParseOptions::default()).unwrap();
        let refused = apply_batch(&batch, &opts(dir.path()));
        assert_eq!(refused.report.status, Status::Refused);
        assert!(refused.written.is_empty());
        let edit = b"*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\n";
        let batch =
            format::parse_bytes(edit, FormatChoice::Auto, &ParseOptions::default()).unwrap();
        let dry = apply_batch(
            &batch,
            &ApplyOptions {
                dry_run: true,
                ..opts(dir.path())
            },
        );
        assert_eq!(dry.report.status, Status::DryRun);
        assert!(dry.written.is_empty());
    }
}
