//! `--bisect` in words: a batch written but for the files the tests fail with, or a bisection
//! that wrote nothing; each with the runs it took and what to send next.

use crate::report::{Outcome, Report, Status};
use lancet_core::verdicts::{BisectOutcome, TestRun};
use std::fmt::Write as _;

impl Report {
    /// The report of a batch `--bisect` wrote but for its culprits: their operations marked
    /// held back (without diff or snippet: nothing of them was written), status partial, and
    /// the message naming each culprit with the output of the run that showed it. `run` is the
    /// passing run on what was written, its `bisect` set.
    pub fn with_bisection(mut self, run: TestRun, stuck: &[String]) -> Report {
        self.status = Status::Partial;
        let Some(bisection) = &run.bisect else {
            self.test = Some(run);
            return self;
        };
        self.hold_back(&bisection.held_back);
        let held = bisection.culprits.len();
        let mut msg = format!(
            "Partially applied (--bisect): the test command `{}` failed on the whole batch; {} test run(s) (at most {}) found {held} file(s) it fails with, held back and not written: {}. The other {} file(s) are written, and the tests passed on them.",
            run.command,
            bisection.runs,
            bisection.max_runs,
            bisection.held_back.join(", "),
            bisection.files - held,
        );
        for c in &bisection.culprits {
            let _ = write!(
                msg,
                "\n- {}: the tests failed with it {}, and passed without it. Test output:\n{}",
                c.paths.join(" -> "),
                alongside(c.alongside),
                c.output.trim_end()
            );
        }
        let failed = super::failures(&self);
        if !failed.is_empty() {
            let _ = write!(
                msg,
                "\nNot applied either (--partial):\n{}",
                failed.trim_end()
            );
        }
        sandbox_caveat(&mut msg, &run);
        if stuck.is_empty() {
            msg.push_str(match failed.is_empty() {
                true => "\nFix the held-back file(s) and send only their edits again: the rest is in place, don't resend it.",
                false => "\nFix the held-back file(s) and the failed part(s), and send only those edits again: the rest is in place, don't resend it.",
            });
        } else {
            stop_retrying(&mut msg, stuck);
        }
        self.message = msg;
        self.test = Some(run);
        self
    }

    /// The report of a bisection that wrote nothing (any outcome but held back): why it
    /// stopped, the culprits it had found, the output of `run` (the whole batch's run, or the
    /// one a signal stopped), whose `bisect` is set.
    pub fn with_failed_bisection(mut self, run: TestRun, stuck: &[String]) -> Report {
        self.status = Status::TestFailed;
        let Some(bisection) = &run.bisect else {
            self.test = Some(run);
            return self;
        };
        let mut msg = format!(
            "The edit applied, but the test command `{}` {}",
            run.command,
            super::verify::why(&run)
        );
        let _ = match bisection.outcome {
            BisectOutcome::OutOfRuns => write!(
                msg,
                ", and bisection reached its bound of {} test runs (--bisect-max-runs) before it found which of the {} file(s) the tests fail with.",
                bisection.max_runs, bisection.files
            ),
            BisectOutcome::NothingPasses => write!(
                msg,
                "; bisection held back every one of its {} file(s) in {} test runs: no part of the batch passes the tests (if they fail without the batch as well, that comes first).",
                bisection.files, bisection.runs
            ),
            BisectOutcome::Inconsistent => write!(
                msg,
                "; bisection stopped after {} test runs: the tests passed on a set of the batch's files, then failed on the same files, so their result varies from run to run.",
                bisection.runs
            ),
            BisectOutcome::Interrupted | BisectOutcome::HeldBack => {
                write!(msg, " while bisecting, after {} test runs.", bisection.runs)
            }
        };
        msg.push_str(" The whole batch was rolled back: nothing of it is written.");
        if !bisection.culprits.is_empty() {
            msg.push_str("\nFound before it stopped:");
            for c in &bisection.culprits {
                let _ = write!(
                    msg,
                    "\n- {}: the tests failed with it {}, and passed without it.",
                    c.paths.join(" -> "),
                    alongside(c.alongside)
                );
            }
        }
        let _ = write!(msg, "\nTest output:\n{}", run.output.trim_end());
        sandbox_caveat(&mut msg, &run);
        if !stuck.is_empty() {
            stop_retrying(&mut msg, stuck);
        } else if bisection.outcome == BisectOutcome::OutOfRuns {
            msg.push_str("\nFix the edit so the tests pass and resend it, or allow more runs with --bisect-max-runs; none of it is on disk now.");
        } else {
            msg.push_str(
                "\nFix the edit so the tests pass and resend it; none of it is on disk now.",
            );
        }
        self.message = msg;
        self.test = Some(run);
        self
    }

    /// Marks the operations on `paths` (by their path or a move's destination) held back:
    /// not written, so without the diff and snippets of a change on disk.
    fn hold_back(&mut self, paths: &[String]) {
        for f in &mut self.files {
            let held =
                paths.contains(&f.path) || f.to.as_ref().is_some_and(|to| paths.contains(to));
            if !held {
                continue;
            }
            if f.status == Outcome::Applied {
                f.status = Outcome::HeldBack;
            }
            f.diff = None;
            for h in f.hunks.iter_mut().filter(|h| h.status == Outcome::Applied) {
                h.status = Outcome::HeldBack;
                h.snippet.clear();
            }
        }
    }
}

/// The files a culprit's failing run wrote beside it, in words.
fn alongside(others: usize) -> String {
    match others {
        0 => "alone written".to_string(),
        n => format!("and the {n} file(s) before it written"),
    }
}

/// A failure in lancet's sandbox may be the sandbox's.
fn sandbox_caveat(msg: &mut String, run: &TestRun) {
    if let Some(sandbox) = &run.sandbox {
        let _ = write!(
            msg,
            "\nThe tests ran in lancet's sandbox ({sandbox}): a failure about permissions or the network may be the sandbox's, not the edit's."
        );
    }
}

/// Files rolled back too often: the loop must stop.
fn stop_retrying(msg: &mut String, stuck: &[String]) {
    let _ = write!(
        msg,
        "\nStop retrying: {} rolled back 3 times in the last 20 batches. Ask a person how to proceed.",
        stuck.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Action, BatchNotes, FileReport, HunkReport, Surface};
    use lancet_core::verdicts::{Bisection, Culprit};

    fn run(passed: bool, bisect: Bisection) -> TestRun {
        TestRun {
            command: "sh check.sh".into(),
            passed,
            exit_code: Some(if passed { 0 } else { 1 }),
            timed_out: false,
            interrupted_by: None,
            cancelled: false,
            duration_ms: 5,
            output: "boom in b.txt\n".into(),
            sandbox: None,
            bisect: Some(bisect),
        }
    }

    fn report() -> Report {
        let ops = ["a.txt", "b.txt"]
            .iter()
            .map(|p| {
                let mut f = FileReport::new(p.to_string(), Action::Update, 1);
                f.diff = Some(format!("--- a/{p}\n+++ b/{p}\n"));
                f.hunks.push(HunkReport::new(1, 2));
                f
            })
            .collect();
        Report::from_ops(
            Status::Applied,
            "patch",
            ops,
            BatchNotes::default(),
            Surface::Cli,
        )
    }

    fn bisection(outcome: BisectOutcome) -> Bisection {
        Bisection {
            outcome,
            runs: 3,
            max_runs: 32,
            files: 2,
            culprits: vec![Culprit {
                paths: vec!["b.txt".into()],
                alongside: 1,
                exit_code: Some(1),
                timed_out: false,
                output: "boom in b.txt\n".into(),
            }],
            held_back: vec!["b.txt".into()],
        }
    }

    #[test]
    fn a_held_back_file_is_marked_and_named_with_its_output() {
        let r = report().with_bisection(run(true, bisection(BisectOutcome::HeldBack)), &[]);
        assert_eq!(r.status, Status::Partial);
        assert_eq!(r.files[0].status, Outcome::Applied);
        assert!(r.files[0].diff.is_some());
        assert_eq!(r.files[1].status, Outcome::HeldBack);
        assert_eq!(r.files[1].hunks[0].status, Outcome::HeldBack);
        assert!(r.files[1].diff.is_none());
        assert!(
            r.message.contains("held back and not written: b.txt"),
            "{}",
            r.message
        );
        assert!(
            r.message
                .contains("- b.txt: the tests failed with it and the 1 file(s) before it written")
        );
        assert!(r.message.contains("boom in b.txt"));
        assert_eq!(
            r.summary_line(),
            "M a.txt",
            "the log names only what was written"
        );
    }

    #[test]
    fn a_bisection_out_of_runs_says_the_bound_was_hit() {
        let r =
            report().with_failed_bisection(run(false, bisection(BisectOutcome::OutOfRuns)), &[]);
        assert_eq!(r.status, Status::TestFailed);
        assert_eq!(r.exit_code(), 3);
        assert!(
            r.message
                .contains("reached its bound of 32 test runs (--bisect-max-runs)"),
            "{}",
            r.message
        );
        assert!(r.message.contains("nothing of it is written"));
        assert_eq!(
            r.files[1].status,
            Outcome::Applied,
            "nothing is marked held back"
        );
    }
}
