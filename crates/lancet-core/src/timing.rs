//! Phase timings for profiling big batches without a profiler.

/// With `LANCET_TIMINGS` set, prints the wall time since `since` for `phase` to stderr and
/// restarts the clock: how big batches are profiled without a profiler.
pub fn lap(phase: &str, since: &mut std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("LANCET_TIMINGS").is_some()) {
        eprintln!(
            "lancet timing: {phase} {:.1} ms",
            since.elapsed().as_secs_f64() * 1e3
        );
    }
    *since = std::time::Instant::now();
}
