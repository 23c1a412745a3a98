//! `--test CMD --bisect`: when the tests fail on a batch, find the files they fail with
//! ([`search`]), write the rest, and hold those back.
//!
//! Each run is a batch of its own through the journal: its files written to await a verdict,
//! the tests run, the files rolled back. Only the files the latest run passed on are kept:
//! their checkpoint recorded while their journal still stands, then the journal released (the
//! commit point). A crash or a `kill -9` at any moment therefore leaves, once the next lancet
//! command has recovered, either the tree before the batch or the files whose run passed, with
//! their checkpoint; never the files of a run in flight or of one that failed.

mod search;

use crate::applied::Applied;
use crate::apply_options::WritePhase;
use crate::history::record_checkpoint;
use crate::report::{Phase, Report};
use crate::verify::{VerifyOptions, run_tests_as_asked};
use crate::{history, progress};
use lancet_core::{BatchFailure, FileReport, Rollback, Root, StagedFile};
use lancet_core::{BisectOutcome, Bisection, Culprit, TestRun};
use lancet_store::{self as store, LedgerEntry, StateDir, TestSummary, Written};
use search::{Found, Search, Step};

/// The whole batch, written, tested, failed and rolled back: where bisection starts.
pub(crate) struct Whole {
    /// Its batch id (its log entry says tests failed, undone; it goes once part of it stands).
    pub id: String,
    /// Its report.
    pub report: Report,
    /// The run that failed.
    pub run: TestRun,
}

/// Whether a failed whole-batch run is worth bisecting: it failed on its own (not stopped by a
/// signal) and the batch went back whole.
pub(crate) fn worth_trying(run: &TestRun, rollback: &Rollback) -> bool {
    !run.passed && !run.stopped() && rollback.intact()
}

/// One run's files on disk, awaiting their verdict.
struct Trial {
    id: String,
    written: Written,
    files: Vec<StagedFile>,
}

/// What bisection, and the verdict that hands a failing batch to it, need of the options: how
/// each run's files are written and kept or taken back, how the tests run, and who is told the
/// progress.
pub(crate) struct Phases<'a> {
    /// How a run's files are written, kept or taken back.
    pub(crate) write: &'a WritePhase<'a>,
    /// How the tests run.
    pub(crate) verify: &'a VerifyOptions<'a>,
    /// Who is told the progress of the runs.
    pub(crate) progress: &'a progress::Watch,
}

/// What bisection works with: where, what, and how.
struct Bisect<'a> {
    root: &'a Root,
    state: &'a StateDir,
    phases: &'a Phases<'a>,
    command: &'a str,
    files: &'a [StagedFile],
    units: Vec<Vec<usize>>,
    max_runs: usize,
    /// The whole batch's report, which every report of the bisection starts from.
    base: &'a Report,
}

/// Bisects a batch whose tests failed (`whole`), within `max_runs` runs in all: writes the
/// files outside the culprits once a run passed on exactly them (status partial), or nothing.
pub(crate) fn bisect(
    root: &Root,
    state: &StateDir,
    files: &[StagedFile],
    whole: Whole,
    command: &str,
    phases: &Phases,
    max_runs: usize,
) -> Applied {
    let b = Bisect {
        root,
        state,
        phases,
        command,
        files,
        units: units(files, &whole.report.files),
        max_runs,
        base: &whole.report,
    };
    b.conclude(&whole.id, whole.run)
}

/// How the search loop ended: the outcome, the run the report shows (the passing one, the
/// one that failed where it had passed, the one a signal stopped, else the whole batch's),
/// and the files of the latest run, still on disk.
struct Ended {
    outcome: BisectOutcome,
    shown: usize,
    on_disk: Option<Trial>,
}

impl Bisect<'_> {
    /// Searches, then keeps what the last run passed on, or takes everything back.
    fn conclude(&self, whole_id: &str, whole_run: TestRun) -> Applied {
        let mut runs = vec![whole_run];
        let mut search = Search::new(self.units.len(), 0);
        let ended = match self.runs(&mut search, &mut runs) {
            Ok(ended) => ended,
            Err(report) => return (*report).into(),
        };
        let bisection = |outcome, held_back| Bisection {
            outcome,
            runs: runs.len(),
            max_runs: self.max_runs,
            files: self.units.len(),
            culprits: search
                .found()
                .iter()
                .map(|f| self.culprit(f, &runs))
                .collect(),
            held_back,
        };
        match ended {
            Ended {
                outcome: BisectOutcome::HeldBack,
                shown,
                on_disk: Some(trial),
            } => {
                let mut held: Vec<String> = search
                    .found()
                    .iter()
                    .flat_map(|f| self.paths(f.unit))
                    .collect();
                held.sort();
                let passed = TestRun {
                    bisect: Some(bisection(BisectOutcome::HeldBack, held.clone())),
                    ..runs[shown].clone()
                };
                self.keep(trial, whole_id, passed, &held)
            }
            Ended {
                outcome,
                shown,
                on_disk,
            } => {
                if let Some(trial) = on_disk
                    && let Err(report) = self.drop_trial(trial, &runs[runs.len() - 1])
                {
                    return (*report).into();
                }
                let every: Vec<String> = self.files.iter().map(|f| f.path.to_string()).collect();
                let stuck = self.ledger(whole_id, &every);
                let shown = TestRun {
                    bisect: Some(bisection(outcome, every)),
                    ..runs[shown].clone()
                };
                self.base
                    .clone()
                    .with_failed_bisection(shown, &stuck)
                    .into()
            }
        }
    }

    /// The search, one run after another within the bound; the latest run's files stay on
    /// disk until the next run replaces them or the search ends.
    fn runs(&self, search: &mut Search, runs: &mut Vec<TestRun>) -> Result<Ended, Box<Report>> {
        let progress = progress::Progress::new(self.phases.progress, self.files.len());
        let mut on_disk: Option<Trial> = None;
        let (outcome, shown) = loop {
            match search.next() {
                Step::Run(units) => {
                    if let Some(trial) = on_disk.take() {
                        self.drop_trial(trial, &runs[runs.len() - 1])?;
                    }
                    if runs.len() >= self.max_runs {
                        break (BisectOutcome::OutOfRuns, 0);
                    }
                    progress.phase(
                        &Phase::Bisecting {
                            run: runs.len() + 1,
                            max_runs: self.max_runs,
                            written: units.len(),
                            files: self.units.len(),
                        },
                        None,
                    );
                    let trial = self.write_trial(&units)?;
                    let run =
                        run_tests_as_asked(self.root, self.state, self.command, self.phases.verify);
                    let stopped = run.stopped();
                    search.record(runs.len(), run.passed);
                    runs.push(run);
                    on_disk = Some(trial);
                    if stopped {
                        break (BisectOutcome::Interrupted, runs.len() - 1);
                    }
                }
                Step::Passed { run } => break (BisectOutcome::HeldBack, run),
                Step::NothingPasses => break (BisectOutcome::NothingPasses, 0),
                Step::Inconsistent { run } => break (BisectOutcome::Inconsistent, run),
            }
        };
        Ok(Ended {
            outcome,
            shown,
            on_disk,
        })
    }

    /// Writes these units' files as a batch of their own, awaiting the verdict of their run:
    /// through the door like any batch (a part of an admitted batch is judged again: holding a
    /// file back can leave a directory looking like a repository the whole batch did not).
    fn write_trial(&self, units: &[usize]) -> Result<Trial, Box<Report>> {
        let mut chosen: Vec<usize> = units
            .iter()
            .flat_map(|&u| self.units[u].iter().copied())
            .collect();
        chosen.sort_unstable();
        let files: Vec<StagedFile> = chosen.iter().map(|&i| self.files[i].clone()).collect();
        let id = history::new_batch_id();
        let write = self.phases.write.door(true);
        let refused = |failure: BatchFailure| {
            Box::new(Report::batch_failed(&failure, self.phases.write.surface))
        };
        let admitted = store::admit(
            self.root,
            files,
            self.state.off_limits(),
            &self.phases.write.checks,
        )
        .map_err(refused)?;
        let written = store::prepare(&admitted, self.state, &id, write, &[])
            .and_then(store::write)
            .map_err(|e| refused(e.failure()))?;
        Ok(Trial {
            id,
            written,
            files: admitted.into_files(),
        })
    }

    /// Rolls a run's files back; one that does not go back whole (the tests rewrote it, or an
    /// I/O error) ends the bisection with the paths named.
    fn drop_trial(&self, trial: Trial, run: &TestRun) -> Result<(), Box<Report>> {
        let rollback = store::roll_back_committed(
            self.root,
            self.state,
            &trial.written,
            self.phases.write.fsync,
        );
        if rollback.intact() {
            return Ok(());
        }
        let touched: Vec<String> = trial.files.iter().map(|f| f.path.to_string()).collect();
        let stuck = self.ledger(&trial.id, &touched);
        let mut report = self
            .base
            .clone()
            .with_failed_test(run, &rollback, &stuck, None);
        report.test = Some(run.clone());
        Err(Box::new(report))
    }

    /// Keeps the latest run's files, which passed: their checkpoint (recorded while their
    /// journal stands, so a crash before the commit point forgets it with them), the commit
    /// point, and the whole batch's log entry replaced by theirs.
    fn keep(&self, trial: Trial, whole_id: &str, passed: TestRun, held: &[String]) -> Applied {
        let stuck = self.ledger(&trial.id, held);
        let mut report = self.base.clone().with_bisection(passed, &stuck);
        let mut meta = history::meta_for(
            self.state,
            &trial.id,
            report.format.unwrap_or_default(),
            &trial.files,
            &report,
        );
        meta.test = Some(TestSummary {
            command: self.command.to_string(),
            passed: true,
        });
        let kept = match self.phases.write.checkpoint {
            true => record_checkpoint(
                self.root,
                self.state,
                &trial.files,
                &report,
                &meta,
                trial.written.journal(),
                // Written: its journal has been durable since before its files.
                &|| Ok(()),
            )
            .map(drop)
            .map_err(|e| e.failure()),
            false => Ok(()),
        }
        .and_then(|()| {
            store::release(
                self.root,
                self.state,
                &trial.written,
                self.phases.write.fsync,
            )
            .map_err(|e| BatchFailure::WriteFailed {
                path: "the journal".into(),
                error: e.to_string(),
                intact: true,
            })
        });
        let late = match kept {
            Ok(late) => late,
            Err(failure) => {
                return self.not_kept(&trial, failure);
            }
        };
        report = report.with_late_writes(&crate::verify::late_pairs(&late));
        report.checkpoint = None;
        if self.phases.write.checkpoint {
            self.state.prune_checkpoints(self.phases.write.retention);
            if let Err(e) = self.state.fold_packs() {
                report = report.with_packs_unfolded(&e.to_string());
            }
            self.state.forget_batch(whole_id);
            report.checkpoint = Some(trial.id);
        }
        Applied::kept(report, trial.files)
    }

    /// The last passing run's files could not be kept (their checkpoint or commit point
    /// failed): taken back, and the batch forgotten once they are.
    fn not_kept(&self, trial: &Trial, failure: BatchFailure) -> Applied {
        let rollback = store::roll_back_committed(
            self.root,
            self.state,
            &trial.written,
            self.phases.write.fsync,
        );
        let failure = match failure {
            BatchFailure::WriteFailed { path, error, .. } => BatchFailure::WriteFailed {
                path,
                error,
                intact: rollback.intact(),
            },
            other => other,
        };
        if rollback.finished() {
            self.state.forget_batch(&trial.id);
        }
        Report::batch_failed(&failure, self.phases.write.surface).into()
    }

    /// Records the files a bisection did not write as rolled back, for the "stop retrying"
    /// count; returns those rolled back too often.
    fn ledger(&self, id: &str, files: &[String]) -> Vec<String> {
        store::ledger::record_in_ledger(
            self.state,
            &LedgerEntry {
                id: id.to_string(),
                files: files.to_vec(),
                rolled_back: true,
                actor: self.phases.write.actor.to_string(),
            },
        )
    }

    /// A culprit as the report tells it: its paths, and the run that showed it.
    fn culprit(&self, found: &Found, runs: &[TestRun]) -> Culprit {
        let run = runs.get(found.run);
        Culprit {
            paths: self.paths(found.unit),
            alongside: found.alongside,
            exit_code: run.and_then(|r| r.exit_code),
            timed_out: run.is_some_and(|r| r.timed_out),
            output: run.map(|r| r.output.clone()).unwrap_or_default(),
        }
    }

    /// A unit's paths, as the report names them.
    fn paths(&self, unit: usize) -> Vec<String> {
        self.units[unit]
            .iter()
            .map(|&i| self.files[i].path.to_string())
            .collect()
    }
}

/// The batch's files as bisection moves them, in batch order: each path alone, but the paths
/// one operation names (a move's source and destination) together. Indices into `files`.
fn units(files: &[StagedFile], ops: &[FileReport]) -> Vec<Vec<usize>> {
    let at = |path: &str| files.iter().position(|f| f.path.as_str() == path);
    let mut unit: Vec<usize> = (0..files.len()).collect();
    for op in ops {
        if let Some(to) = &op.to
            && let (Some(a), Some(b)) = (at(&op.path), at(to))
        {
            let (keep, gone) = (unit[a].min(unit[b]), unit[a].max(unit[b]));
            unit.iter_mut()
                .filter(|u| **u == gone)
                .for_each(|u| *u = keep);
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; files.len()];
    for (i, &u) in unit.iter().enumerate() {
        match slot[u] {
            Some(s) => out[s].push(i),
            None => {
                slot[u] = Some(out.len());
                out.push(vec![i]);
            }
        }
    }
    out
}
