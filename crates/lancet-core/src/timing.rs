//! Phase timings for profiling a call without a profiler: `LANCET_TIMINGS` prints each phase's
//! wall time and the time since `main` began (set-up included; what the process spent before
//! `main` is its whole wall time, measured outside, minus the last figure).

use std::sync::OnceLock;
use std::time::Instant;

/// Whether timings are asked for (read once).
fn on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LANCET_TIMINGS").is_some())
}

/// When `main` began (the first call to [`since_start`]).
fn started() -> Instant {
    static STARTED: OnceLock<Instant> = OnceLock::new();
    *STARTED.get_or_init(Instant::now)
}

/// With `LANCET_TIMINGS` set, prints the wall time since `since` for `phase`, and the time
/// since `main` began, to stderr, and restarts the clock.
pub fn lap(phase: &str, since: &mut Instant) {
    if on() {
        eprintln!(
            "lancet timing: {phase} {:.2} ms (at {:.2} ms)",
            since.elapsed().as_secs_f64() * 1e3,
            started().elapsed().as_secs_f64() * 1e3
        );
    }
    *since = Instant::now();
}

/// The clock `main` starts first: a phase timed from it shows the set-up before it.
pub fn since_start() -> Instant {
    started()
}
