//! A test run's verdict in words (`--test`, MCP `test: true`): a passing run said in the
//! message every surface prints, a failing one with what was rolled back and when to stop.

use super::now_reads;
use crate::report::{Report, Status};
use lancet_core::verdicts::{Rollback, TestRun};
use std::fmt::Write as _;

impl Report {
    /// Says that the tests passed but the batch could not be kept (its journal not released):
    /// it is rolled back.
    pub(crate) fn with_unkept(self, error: &impl std::fmt::Display) -> Report {
        self.with_note(format!(
            "the tests passed, but the batch could not be kept ({error}): it is rolled back"
        ))
    }

    /// Turns an applied batch into a test failure: what failed, what was rolled back, what was
    /// left alone, and when to stop retrying.
    pub fn with_failed_test(
        mut self,
        run: &TestRun,
        rollback: &Rollback,
        stuck: &[String],
        undo_force: Option<&str>,
    ) -> Report {
        self.status = Status::TestFailed;
        let mut msg = format!(
            "The edit applied, but the test command `{}` {}; the batch was rolled back: {} file(s) restored.",
            run.command,
            why(run),
            rollback.restored.len()
        );
        if !rollback.intact() {
            // Not all of it went back: say which path holds what, and how to finish.
            self.status = Status::Error;
            msg = format!(
                "The edit applied, but the test command `{}` {}; rolling the batch back was NOT complete: {} file(s) restored, {} not.",
                run.command,
                why(run),
                rollback.restored.len(),
                rollback.conflicts.len() + rollback.failed.len() + rollback.refused.len()
            );
            for path in &rollback.conflicts {
                let _ = write!(
                    msg,
                    "\n- {path}: changed after the batch wrote it (by the test command or someone else); it holds neither the batch's content nor its earlier content, and was left as it is."
                );
                if let Some((_, kept)) = rollback.kept_pre_images.iter().find(|(p, _)| p == path) {
                    let _ = write!(msg, " Its earlier content is kept in {}.", kept.display());
                }
            }
            for path in &rollback.failed {
                let _ = write!(
                    msg,
                    "\n- {path}: could not be restored (an I/O error); the journal is kept and the next lancet command retries."
                );
            }
            for path in &rollback.refused {
                let _ = write!(
                    msg,
                    "\n- {path}: not put back, because that would have made its directory look like a git repository (another file there changed meanwhile); it keeps the batch's content."
                );
                if let Some((_, kept)) = rollback.kept_pre_images.iter().find(|(p, _)| p == path) {
                    let _ = write!(msg, " Its earlier content is kept in {}.", kept.display());
                }
            }
            if let Some(undo) = undo_force {
                let _ = write!(
                    msg,
                    "\nThe batch stays in the log: {undo} puts every file back to its content before the batch, overwriting those changes."
                );
            }
        }
        let _ = write!(msg, "\nTest output:\n{}", run.output.trim_end());
        if let Some(sandbox) = &run.sandbox {
            let _ = write!(
                msg,
                "\nThe tests ran in lancet's sandbox ({sandbox}): a failure about permissions or the network may be the sandbox's, not the edit's."
            );
        }
        if !stuck.is_empty() {
            let _ = write!(
                msg,
                "\nStop retrying: {} rolled back 3 times in the last 20 batches. Ask a person how to proceed.",
                stuck.join(", ")
            );
        } else if rollback.intact() {
            msg.push_str(
                "\nFix the edit so the tests pass and resend it; none of it is on disk now.",
            );
        }
        self.message = msg;
        self
    }

    /// Records a passing test run and says so in the message, before how the changed places
    /// now read: every surface prints the message (a model over MCP reads only its text).
    pub fn with_passed_test(mut self, run: TestRun) -> Report {
        let said = format!(
            "Tests passed in {:.1} s (`{}`){}.",
            run.duration_ms as f64 / 1000.0,
            run.command,
            if run.sandbox.is_some() {
                ", in lancet's sandbox"
            } else {
                ""
            }
        );
        let tail = now_reads(&self);
        self.message = match self.message.strip_suffix(tail.as_str()) {
            Some(head) if !tail.is_empty() => format!("{head}\n{said}{tail}"),
            _ => format!("{}\n{said}", self.message),
        };
        self.test = Some(run);
        self
    }
}

/// Why a test run did not pass, in a few words (`timed out`, `exited with 1`, …), after "the
/// test command `…`".
pub(crate) fn why(run: &TestRun) -> String {
    if run.cancelled {
        "did not decide the batch: the call was cancelled before its verdict".to_string()
    } else if let Some(signal) = &run.interrupted_by {
        format!("was stopped because lancet received {signal}")
    } else if run.timed_out {
        "timed out".to_string()
    } else {
        format!(
            "exited with {}",
            run.exit_code.map_or("a signal".into(), |c| c.to_string())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> TestRun {
        TestRun {
            command: "make test".into(),
            passed: false,
            exit_code: Some(2),
            timed_out: false,
            interrupted_by: None,
            cancelled: false,
            duration_ms: 5,
            output: String::new(),
            sandbox: None,
            bisect: None,
        }
    }

    #[test]
    fn a_failed_run_says_what_stopped_it_first() {
        assert_eq!(why(&run()), "exited with 2");
        let killed = TestRun {
            exit_code: None,
            ..run()
        };
        assert_eq!(why(&killed), "exited with a signal");
        let late = TestRun {
            timed_out: true,
            ..killed.clone()
        };
        assert_eq!(why(&late), "timed out");
        let stopped = TestRun {
            interrupted_by: Some("SIGTERM".into()),
            ..late.clone()
        };
        assert_eq!(why(&stopped), "was stopped because lancet received SIGTERM");
        let cancelled = TestRun {
            cancelled: true,
            ..stopped
        };
        assert_eq!(
            why(&cancelled),
            "did not decide the batch: the call was cancelled before its verdict"
        );
    }
}
