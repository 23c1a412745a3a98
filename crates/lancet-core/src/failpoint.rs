//! Fault injection for rollback and crash tests.
//!
//! `LANCET_FAILPOINT=NAME:N` makes the N-th pass (1-based) through the failpoint `NAME` fail
//! with an injected I/O error; `LANCET_FAILPOINT=crash:NAME:N` aborts the process there instead,
//! as a power cut would (no cleanup code runs). Several plans, comma-separated, hold together
//! (`no-pid-namespace:1,no-cgroup:1`), each counting its own passes. `LANCET_PAUSE_AT=NAME` with
//! `LANCET_PAUSE_FILE=PATH` makes the first pass create PATH and wait (up to 30 s) until it is
//! deleted, so a test can act at that exact moment (change a file, start a second process).
//! Unset — always, outside tests — a check is one cached environment lookup.
//!
//! The points, in commit order: `journal` (journal written), `write` (each temp file),
//! `sync_temps` (temp files written, before their contents are synced together),
//! `backup` (each pre-image kept), `verify_again` (the targets' last check before the renames),
//! `judged` (each target judged at that check), `rename` (each swap), `exchanged` (each target
//! just exchanged, what came out not compared yet), `fsync_dir`,
//! `verify_swapped` (the swapped-out files compared again), `commit` (before the
//! journal is deleted), `no-exchange` (the file system said to refuse `RENAME_EXCHANGE`), `verify` (before the targets are re-read), `recover` (each path
//! restored by a rollback), `recovered` (a recovery's batch forgotten, its journal not yet
//! deleted).
//!
//! Seams that say a facility is missing, checked once per process: `no-landlock` (the sandbox),
//! `no-pid-namespace`, `no-cgroup` and `no-proc` (lancet-process's containment mechanisms);
//! `gate_deadline` gives the syntax gate no time for the batch (every file to parse is
//! unjudged, the batch refused).

use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Plan {
    point: String,
    pass: usize,
    crash: bool,
    /// Passes through `point` so far.
    passes: AtomicUsize,
}

static PLANS: OnceLock<Vec<Plan>> = OnceLock::new();
static PAUSED: AtomicUsize = AtomicUsize::new(0);

/// The plans `LANCET_FAILPOINT` names (none when it is unset or malformed).
fn plans() -> &'static [Plan] {
    PLANS.get_or_init(|| {
        let Ok(spec) = std::env::var("LANCET_FAILPOINT") else {
            return Vec::new();
        };
        spec.split(',')
            .filter_map(|one| {
                let (crash, one) = match one.strip_prefix("crash:") {
                    Some(rest) => (true, rest),
                    None => (false, one),
                };
                let (point, n) = one.rsplit_once(':')?;
                Some(Plan {
                    point: point.to_string(),
                    pass: n.parse().ok()?,
                    crash,
                    passes: AtomicUsize::new(0),
                })
            })
            .collect()
    })
}

/// Passes through the failpoint `name`; fails (or crashes) if the plan says this pass must.
pub fn check(name: &str) -> io::Result<()> {
    pause_if_asked(name);
    for plan in plans().iter().filter(|p| p.point == name) {
        let pass = plan.passes.fetch_add(1, Ordering::SeqCst) + 1;
        if pass == plan.pass {
            if plan.crash {
                std::process::abort();
            }
            return Err(io::Error::other(format!(
                "injected failure at {name} pass {pass} (LANCET_FAILPOINT)"
            )));
        }
    }
    Ok(())
}

fn pause_if_asked(name: &str) {
    let Ok(at) = std::env::var("LANCET_PAUSE_AT") else {
        return;
    };
    let Ok(file) = std::env::var("LANCET_PAUSE_FILE") else {
        return;
    };
    if at != name || PAUSED.fetch_add(1, Ordering::SeqCst) > 0 {
        return;
    }
    if std::fs::write(&file, b"paused").is_err() {
        return;
    }
    let started = Instant::now();
    while std::path::Path::new(&file).exists() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(10));
    }
}
