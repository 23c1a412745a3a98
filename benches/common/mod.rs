//! Timing helpers shared by the benchmarks (each bench is its own binary and includes this).

#![allow(dead_code)] // each bench uses the part it needs

use std::time::{Duration, Instant};

/// The middle value: robust to the odd slow run on a shared machine.
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The median wall time of `runs` calls of `f`.
pub fn time<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}
