//! Fault injection for rollback and crash tests.
//!
//! `LANCET_FAILPOINT=NAME:N` makes the N-th pass (1-based) through the failpoint `NAME` fail
//! with an injected I/O error, so tests can prove that an error at any step of a commit leaves
//! every file as it was. Unset (always, outside tests), a check is one environment lookup
//! cached for the process.

use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static PLAN: OnceLock<Option<(String, usize)>> = OnceLock::new();
static PASSES: AtomicUsize = AtomicUsize::new(0);

/// Passes through the failpoint `name`; fails if the plan says this pass must.
pub fn check(name: &str) -> io::Result<()> {
    let plan = PLAN.get_or_init(|| {
        let spec = std::env::var("LANCET_FAILPOINT").ok()?;
        let (point, n) = spec.split_once(':')?;
        Some((point.to_string(), n.parse().ok()?))
    });
    match plan {
        Some((point, n)) if point == name => {
            let pass = PASSES.fetch_add(1, Ordering::SeqCst) + 1;
            if pass == *n {
                return Err(io::Error::other(format!(
                    "injected failure at {name} pass {pass} (LANCET_FAILPOINT)"
                )));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
