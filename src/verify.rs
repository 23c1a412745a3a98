//! Verify: run the user's test command after a batch, and keep the output a model needs.
//!
//! The command runs with `sh -c` in the root, stdout and stderr merged, contained
//! ([`lancet_process`]): when it exits, times out or is interrupted, everything it started is
//! ended, and only then is the run judged. Its output is cut to the first failure block and the
//! closing summary. A ledger counts rollbacks per file, so a retry loop that keeps
//! breaking the same file is told to stop and ask a person.

use crate::cancel::Cancellation;
use crate::quarantine::quarantine_planted_repositories;
use crate::sandbox::{self, Sandbox};
use lancet_core::Root;
pub use lancet_core::TestRun;
use lancet_process::Contained;
use lancet_store::StateDir;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

/// Signals that mean "stop": while a test runs they stop the test instead of lancet, so the
/// batch can be rolled back before lancet exits.
const STOP_SIGNALS: [(i32, &str); 3] = [
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGINT, "SIGINT"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
];

/// The stop signals' handlers, installed once per process and never removed: signal-hook gives
/// a signal it handled no default action back, so a handler must stand in for it. While a test
/// runs, a stop signal only raises its flag (the test is stopped, the batch rolled back, and the
/// caller exits); at any other time it does what the signal's default does: end the process.
struct Handlers {
    /// Per stop signal, whether it arrived during the current runs (`None`: no handler could be
    /// installed, and the signal keeps its default action).
    received: Vec<(Option<Arc<AtomicBool>>, &'static str)>,
    /// True when no test runs: a stop signal then acts as its default.
    idle: Arc<AtomicBool>,
    /// How many test runs of this process catch the signals now.
    runs: Mutex<usize>,
}

static HANDLERS: OnceLock<Handlers> = OnceLock::new();

impl Handlers {
    fn install() -> Handlers {
        let idle = Arc::new(AtomicBool::new(true));
        let received = STOP_SIGNALS
            .iter()
            .map(|&(signal, name)| {
                // The default first: a signal whose default cannot be stood in for is never
                // caught, so it can never be ignored for good.
                let flag = signal_hook::flag::register_conditional_default(signal, idle.clone())
                    .ok()
                    .and_then(|_| {
                        let flag = Arc::new(AtomicBool::new(false));
                        signal_hook::flag::register(signal, flag.clone())
                            .ok()
                            .map(|_| flag)
                    });
                (flag, name)
            })
            .collect();
        Handlers {
            received,
            idle,
            runs: Mutex::new(0),
        }
    }
}

/// The stop signals caught for as long as it lives; when the last one goes, they act as their
/// defaults again.
struct StopSignals {
    handlers: &'static Handlers,
}

impl StopSignals {
    fn catch() -> StopSignals {
        let handlers = HANDLERS.get_or_init(Handlers::install);
        let mut runs = handlers.runs.lock().unwrap_or_else(|e| e.into_inner());
        if *runs == 0 {
            for (flag, _) in &handlers.received {
                if let Some(flag) = flag {
                    flag.store(false, Ordering::SeqCst);
                }
            }
        }
        *runs += 1;
        handlers.idle.store(false, Ordering::SeqCst);
        StopSignals { handlers }
    }

    fn received(&self) -> Option<&'static str> {
        self.handlers
            .received
            .iter()
            .find(|(flag, _)| flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst)))
            .map(|&(_, name)| name)
    }
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        let mut runs = self.handlers.runs.lock().unwrap_or_else(|e| e.into_inner());
        *runs = runs.saturating_sub(1);
        if *runs == 0 {
            self.handlers.idle.store(true, Ordering::SeqCst);
        }
    }
}

/// Output as it is read: the first and last [`MAX_CAPTURE`] bytes (`yes` must not exhaust
/// memory), shared with the thread reading it so a read that never ends can be abandoned.
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    skipped: usize,
}

impl Capture {
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.head.len() < MAX_CAPTURE {
                self.head.push(b);
            } else {
                self.tail.push_back(b);
                if self.tail.len() > MAX_CAPTURE {
                    self.tail.pop_front();
                    self.skipped += 1;
                }
            }
        }
    }

    fn take(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.head);
        if self.skipped > 0 {
            out.extend_from_slice(
                format!("\n[... {} bytes not kept ...]\n", self.skipped).as_bytes(),
            );
        }
        out.extend(self.tail.drain(..));
        out
    }
}

/// How long the output is still read after the command and all it started are gone: what
/// could still hold it open is abandoned after that.
const READ_GRACE: Duration = Duration::from_secs(2);

/// `sh -c COMMAND` in `root`, stderr into stdout. The shell by its absolute path: `PATH` may
/// name a directory a model wrote.
fn test_shell(root: &Path, command: &str) -> Command {
    let mut shell = Command::new("/bin/sh");
    shell
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    shell
}

/// Runs `command` in `root`, contained and bounded in time: at the timeout, at a stop signal to
/// lancet, when the caller cancels (`cancel`) and when the command exits, everything it started
/// is ended (a background child it left would hold the output, and the root's lock, forever, or
/// change the tree after the verdict); reading the output is bounded too. With a `sandbox`, the
/// command runs confined by it ([`crate::sandbox`]), described by `confinement` in the result.
pub fn run_tests(
    root: &Path,
    command: &str,
    timeout: Duration,
    max_output: usize,
    sandbox: Option<(&mut Sandbox, String)>,
    cancel: &Cancellation,
) -> TestRun {
    let started = Instant::now();
    let signals = StopSignals::catch();
    let (sandbox, confinement) = match sandbox {
        Some((sandbox, described)) => (Some(sandbox), Some(described)),
        None => (None, None),
    };
    let spawned = Contained::spawn(test_shell(root, command), |shell| {
        if let Some(sandbox) = sandbox {
            sandbox.confine(shell);
        }
    });
    let mut tests = match spawned {
        Ok(tests) => tests,
        Err(e) => {
            let why = match &confinement {
                Some(_) => format!("cannot run sh in lancet's sandbox: {e}"),
                None => format!("cannot run sh: {e}"),
            };
            return not_run(command, why, confinement);
        }
    };
    let capture = Arc::new(Mutex::new(Capture::default()));
    let (done, finished) = mpsc::channel::<()>();
    let mut stdout = tests.take_stdout();
    let sink = capture.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 64 * 1024];
        if let Some(out) = stdout.as_mut() {
            while let Ok(n) = out.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut c) = sink.lock() {
                    c.push(&chunk[..n]);
                }
            }
        }
        let _ = done.send(());
    });
    let mut timed_out = false;
    let mut interrupted_by = None;
    let mut cancelled = false;
    while let Ok(None) = tests.try_wait() {
        if started.elapsed() >= timeout {
            timed_out = true;
            break;
        }
        if let Some(signal) = signals.received() {
            interrupted_by = Some(signal.to_string());
            break;
        }
        if cancel.is_cancelled() {
            cancelled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Whatever the command left running ends with it, wherever it went; only then is the run,
    // and the tree, judged.
    let ended = tests.end();
    let read_cut = finished.recv_timeout(READ_GRACE).is_err();
    let mut raw = capture.lock().map(|mut c| c.take()).unwrap_or_default();
    if read_cut {
        raw.extend_from_slice(
            format!(
                "\n[lancet: stopped reading the output {}s after the command ended: something outside lancet's reach still holds it open]\n",
                READ_GRACE.as_secs()
            )
            .as_bytes(),
        );
    }
    let exit_code = tests.try_wait().ok().flatten().and_then(|s| s.code());
    let mut output = trim_output(&String::from_utf8_lossy(&raw), max_output);
    if let Err(e) = &ended {
        output.push_str(&format!("\n[lancet: {e}; the run fails]\n"));
    }
    TestRun {
        command: command.to_string(),
        passed: ended.is_ok()
            && !timed_out
            && interrupted_by.is_none()
            && !cancelled
            && exit_code == Some(0),
        exit_code,
        timed_out,
        interrupted_by,
        cancelled,
        duration_ms: started.elapsed().as_millis(),
        output,
        sandbox: confinement,
        bisect: None,
    }
}

/// A run that never started (`why`): failed, so the batch is rolled back.
fn not_run(command: &str, why: String, sandbox: Option<String>) -> TestRun {
    TestRun {
        command: command.to_string(),
        passed: false,
        exit_code: None,
        timed_out: false,
        interrupted_by: None,
        cancelled: false,
        duration_ms: 0,
        output: why,
        sandbox,
        bisect: None,
    }
}

/// How much of a test command's output is read into memory, at each end.
const MAX_CAPTURE: usize = 1024 * 1024;

/// Words that start a failure block in the output of common test runners.
const FAILURE_MARKERS: [&str; 9] = [
    "FAIL",
    "Error",
    "error:",
    "panicked",
    "Traceback",
    "assert",
    "failed",
    "Failed",
    "FAILED",
];

/// Keeps the first failure block and the closing summary within `max` bytes.
pub fn trim_output(output: &str, max: usize) -> String {
    if output.len() <= max {
        return output.to_string();
    }
    let lines: Vec<&str> = output.lines().collect();
    let first_failure = lines
        .iter()
        .position(|l| FAILURE_MARKERS.iter().any(|m| l.contains(m)))
        .unwrap_or(0);
    if max < 200 {
        // Too small to split: the start of the failure, cut at a character boundary.
        let from = lines[..first_failure]
            .iter()
            .map(|l| l.len() + 1)
            .sum::<usize>();
        let mut end = (from + max).min(output.len());
        while !output.is_char_boundary(end) {
            end -= 1;
        }
        return output[from.min(end)..end].to_string();
    }
    let half = max / 2;
    let mut head = String::new();
    let mut head_end = first_failure;
    for l in &lines[first_failure..] {
        if head.len() + l.len() + 1 > half {
            break;
        }
        head.push_str(l);
        head.push('\n');
        head_end += 1;
    }
    let mut tail: Vec<&str> = Vec::new();
    let mut tail_len = 0;
    for l in lines[head_end..].iter().rev() {
        if tail_len + l.len() + 1 > max.saturating_sub(head.len() + 80) {
            break;
        }
        tail_len += l.len() + 1;
        tail.push(l);
    }
    tail.reverse();
    let omitted = lines.len() - (head_end - first_failure) - tail.len();
    format!(
        "{head}[... {omitted} line(s) omitted ...]\n{}{}",
        tail.join("\n"),
        if tail.is_empty() { "" } else { "\n" }
    )
}

/// What a test run takes of the caller's options, and nothing else: whether it is sandboxed,
/// its bounds and the caller's cancellation (built by `ApplyOptions::verify`).
pub(crate) struct VerifyOptions<'a> {
    /// Run the command confined by the sandbox (the person's choice, default on).
    pub(crate) sandbox: bool,
    /// How long the command may run.
    pub(crate) timeout: Duration,
    /// How much of its output is kept.
    pub(crate) max_output: usize,
    /// The caller's cancellation, polled while the command runs.
    pub(crate) cancel: &'a Cancellation,
}

/// Runs the test command, in the sandbox when asked; a sandbox that cannot be built fails the
/// run (and so rolls the batch back).
pub(crate) fn run_tests_as_asked(
    root: &Root,
    state: &StateDir,
    command: &str,
    opts: &VerifyOptions,
) -> TestRun {
    if !opts.sandbox {
        return run_tests(
            root.path(),
            command,
            opts.timeout,
            opts.max_output,
            None,
            opts.cancel,
        );
    }
    let built = sandbox::Policy::for_tests(root.path(), state.off_limits())
        .map_err(|e| sandbox::SandboxError(format!("cannot list the root: {e}")))
        .and_then(|policy| sandbox::Sandbox::new(&policy));
    match built {
        Ok(mut sandbox) => {
            let started = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
            let mut run = run_tests(
                root.path(),
                command,
                opts.timeout,
                opts.max_output,
                Some((&mut sandbox, sandbox::TESTS_CONFINEMENT.to_string())),
                opts.cancel,
            );
            // Judged once everything the tests started has ended: a repository they left in
            // the tree would run what its config names on the next `git` there.
            let found = quarantine_planted_repositories(root.path(), state.off_limits(), started);
            if !found.set_aside.is_empty() {
                run.passed = false;
                let planted: Vec<String> = found
                    .set_aside
                    .iter()
                    .map(|(path, aside)| format!("{path}, set aside as {aside}"))
                    .collect();
                run.output.push_str(&format!(
                    "\n[lancet: the tests created git repositories ({}), and the batch is rolled back]\n",
                    planted.join("; ")
                ));
            }
            if !found.failed.is_empty() {
                run.passed = false;
                let unchecked: Vec<String> = found
                    .failed
                    .iter()
                    .map(|(path, why)| format!("{path}: {why}"))
                    .collect();
                run.output.push_str(&format!(
                    "\n[lancet: after the tests, lancet could not make sure no git repository was left in ({}); the batch is rolled back. A repository there runs what its config names on the next git command: look before running git there]\n",
                    unchecked.join("; ")
                ));
            }
            run
        }
        Err(e) => not_run(
            command,
            e.to_string(),
            Some(sandbox::TESTS_CONFINEMENT.to_string()),
        ),
    }
}

/// Late writes (files another writer changed while a batch taken back stood) as the report
/// names them: kept aside, by path.
pub(crate) fn late_pairs(late: &[lancet_store::LateWrite]) -> Vec<(String, std::path::PathBuf)> {
    late.iter()
        .map(|l| (l.path.clone(), l.kept.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole_and_long_output_keeps_failure_and_summary() {
        assert_eq!(trim_output("ok\n", 100), "ok\n");
        let mut long = String::new();
        for i in 0..500 {
            long.push_str(&format!("test case_{i} ... ok\n"));
        }
        long.push_str("FAILED tests/test_x.py::test_y - AssertionError: 1 != 2\n");
        for i in 0..500 {
            long.push_str(&format!("noise {i}\n"));
        }
        long.push_str("=== 1 failed, 500 passed in 0.5s ===\n");
        let cut = trim_output(&long, 2000);
        assert!(cut.len() <= 2000, "{}", cut.len());
        assert!(cut.starts_with("FAILED tests/test_x.py::test_y"));
        assert!(cut.ends_with("=== 1 failed, 500 passed in 0.5s ===\n"));
        assert!(cut.contains("line(s) omitted"));
        let tiny = trim_output(&long, 50);
        assert!(tiny.len() <= 50 && tiny.starts_with("FAILED"), "{tiny:?}");
    }

    #[test]
    fn runs_in_the_root_and_reports_exit_and_timeout() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("marker"), "x").unwrap();
        let ok = run_tests(
            dir.path(),
            "test -f marker && echo found",
            Duration::from_secs(5),
            1000,
            None,
            &Cancellation::default(),
        );
        assert!(ok.passed);
        assert_eq!(ok.output, "found\n");
        let bad = run_tests(
            dir.path(),
            "echo broke >&2; exit 3",
            Duration::from_secs(5),
            1000,
            None,
            &Cancellation::default(),
        );
        assert_eq!((bad.passed, bad.exit_code), (false, Some(3)));
        assert_eq!(bad.output, "broke\n");
        let slow = run_tests(
            dir.path(),
            "sleep 5",
            Duration::from_millis(200),
            1000,
            None,
            &Cancellation::default(),
        );
        assert!(slow.timed_out && !slow.passed);
        assert!(slow.duration_ms < 4000);
    }

    #[test]
    fn a_cancelled_call_stops_its_test_run_and_fails_it() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = Cancellation::default();
        let raised = cancel.clone();
        let marker = dir.path().join("started");
        let canceller = std::thread::spawn(move || {
            // Cancelled once the command runs (its marker stands), as a client would.
            while !marker.exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
            raised.cancel();
        });
        let run = run_tests(
            dir.path(),
            "touch started; sleep 60; echo finished",
            Duration::from_secs(120),
            1000,
            None,
            &cancel,
        );
        canceller.join().unwrap();
        assert!(run.cancelled && !run.passed, "{run:?}");
        assert!(run.stopped() && run.interrupted_by.is_none(), "{run:?}");
        assert!(!run.output.contains("finished"), "{run:?}");
    }

    #[test]
    fn nothing_the_test_started_outlives_it() {
        let dir = tempfile::tempdir().unwrap();
        // In its group or out of it (setsid): ended with the command, holding no output open.
        let run = run_tests(
            dir.path(),
            "echo started; sleep 30 & echo done",
            Duration::from_secs(20),
            1000,
            None,
            &Cancellation::default(),
        );
        assert!(run.passed, "{run:?}");
        assert!(run.duration_ms < 10_000, "{run:?}");
        assert!(run.output.starts_with("started\ndone\n"), "{run:?}");
        let run = run_tests(
            dir.path(),
            // (The pause lets the child leave the group before the command ends.)
            "setsid sleep 30 & sleep 0.5; echo out",
            Duration::from_secs(20),
            1000,
            None,
            &Cancellation::default(),
        );
        assert!(run.passed, "{run:?}");
        assert!(run.duration_ms < 10_000, "{run:?}");
        // The child in a session of its own ended with the rest: nothing holds the output.
        assert_eq!(run.output, "out\n", "{run:?}");
        let marker = dir.path().join("survived");
        let run = run_tests(
            dir.path(),
            &format!(
                "setsid sh -c 'sleep 1; touch {}' & sleep 0.2",
                marker.display()
            ),
            Duration::from_secs(20),
            1000,
            None,
            &Cancellation::default(),
        );
        assert!(run.passed, "{run:?}");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !marker.exists(),
            "a process the test started outside its group survived it"
        );
    }
}
