//! Checkpoint cost: a 2,000-file batch applied in a 50,000-file git repository and in a
//! 5,000-file one, with and without the checkpoint. If the checkpoint's cost tracks the touched
//! files and not the repository, the added time is the same in both repositories.
//!
//! Run: `cargo bench --bench checkpoint` (needs `git`; builds the repositories in a temp dir,
//! which takes a minute). Each figure is the median of 5 applications (alternating the batch
//! and its reverse, so the tree is the same before each). fsync is off in all runs so that disk
//! flushes do not drown the difference; the syntax gate is off (the files are plain text).

mod common;

use common::median;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 5;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
        .args(args)
        .current_dir(dir)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(ok, "git {args:?} failed");
}

fn make_repo(dir: &Path, files: usize) {
    for i in 0..files {
        let sub = dir.join(format!("d{:03}", i % 500));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("f{i}.txt")),
            format!("file {i}\nvalue = 0\nend\n"),
        )
        .unwrap();
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
}

/// A patch that changes `value = from` to `value = to` in the first `size` files.
fn batch(size: usize, from: u32, to: u32) -> String {
    let mut p = String::from("*** Begin Patch\n");
    for i in 0..size {
        p.push_str(&format!(
            "*** Update File: d{:03}/f{i}.txt\n@@\n-value = {from}\n+value = {to}\n",
            i % 500
        ));
    }
    p.push_str("*** End Patch\n");
    p
}

fn apply(dir: &Path, patch: &Path, extra: &[&str]) -> Duration {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lancet"))
        .args(["apply", "-C"])
        .arg(dir)
        .arg(patch)
        .args(["--no-fsync", "--no-syntax-check"])
        .args(extra)
        .output()
        .unwrap();
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    d
}

fn measure(dir: &Path, scratch: &Path, size: usize, extra: &[&str]) -> Duration {
    let forward = scratch.join("forward.patch");
    let back = scratch.join("back.patch");
    std::fs::write(&forward, batch(size, 0, 1)).unwrap();
    std::fs::write(&back, batch(size, 1, 0)).unwrap();
    median(
        (0..RUNS)
            .flat_map(|_| [apply(dir, &forward, extra), apply(dir, &back, extra)])
            .collect(),
    )
}

fn main() {
    if Command::new("git").arg("--version").output().is_err() {
        println!("git not found: nothing to measure");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    println!(
        "{:<34} {:>12} {:>15} {:>11}",
        "repository", "checkpoint", "no checkpoint", "added"
    );
    for (files, size) in [(5_000usize, 2_000usize), (50_000, 2_000), (50_000, 200)] {
        let repo = scratch.path().join(format!("repo{files}"));
        if !repo.exists() {
            std::fs::create_dir_all(&repo).unwrap();
            make_repo(&repo, files);
        }
        let with = measure(&repo, scratch.path(), size, &[]);
        let without = measure(&repo, scratch.path(), size, &["--no-checkpoint"]);
        println!(
            "{:<34} {:>10.0}ms {:>13.0}ms {:>9.0}ms",
            format!("{files} files, {size}-file batch"),
            with.as_secs_f64() * 1e3,
            without.as_secs_f64() * 1e3,
            (with.as_secs_f64() - without.as_secs_f64()) * 1e3
        );
    }
}
