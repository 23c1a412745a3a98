//! Locate benchmark: how long finding one hunk takes in a 10 MB, 200,000-line file, at every
//! tier of the ladder and for a miss (which runs every tier and the closest-lines search).
//!
//! Run: `cargo bench --bench locate`. Target: every row under 50 ms. Each row times a cold
//! start: splitting the text into lines, indexing it and locating the hunk, with nothing
//! cached from earlier runs. The baseline row is a SIMD substring search of the same file for
//! the hunk's first line (`memchr::memmem`), the floor any matcher pays; the ratio column is
//! each tier's time over that floor. Medians of 7 runs.

mod common;

use common::time;
use lancet::internals::batch::{Anchor, Hunk};
use lancet::internals::locate::{Haystack, Hints, Located, locate};
use lancet::internals::text::TextFile;
use std::hint::black_box;
use std::time::Duration;

const LINES: usize = 200_000;
const RUNS: usize = 7;

fn line(i: usize) -> String {
    // ~50 bytes, varied enough to look like code, indented in 4-space levels.
    let indent = "    ".repeat(1 + i % 3);
    format!(
        "{indent}let value_{i} = compute({i}, \"{:x}\");",
        i * 2654435761 % 99991
    )
}

fn file_text(eol: &str) -> String {
    let mut s = String::with_capacity(LINES * 52);
    for i in 0..LINES {
        s.push_str(&line(i));
        s.push_str(eol);
    }
    s
}

fn hunk(old: Vec<String>, new: Vec<String>) -> Hunk {
    Hunk::lines(old, new, 1)
}

/// One hunk per tier (and a miss), aimed at the four lines `real` at line `target`.
fn cases(
    real: &[String],
    new: &[String],
    target: usize,
) -> Vec<(&'static str, &'static str, Hunk)> {
    let (real, new) = (real.to_vec(), new.to_vec());
    let shifted = |s: &String| format!("  {}", s.trim_start());
    let mut cases: Vec<(&str, &str, Hunk)> = vec![
        ("exact", "lf", hunk(real.clone(), new.clone())),
        ("eol", "crlf", hunk(real.clone(), new.clone())),
        (
            "trailing_ws",
            "lf",
            hunk(real.iter().map(|l| format!("{l}  ")).collect(), new.clone()),
        ),
        (
            "indent",
            "lf",
            hunk(
                real.iter().map(|l| l[4..].to_string()).collect(),
                new.clone(),
            ),
        ),
        (
            "trimmed",
            "lf",
            hunk(real.iter().map(shifted).collect(), new.clone()),
        ),
        (
            "unicode",
            "lf",
            hunk(
                real.iter().map(|l| l.replace('"', "\u{201c}")).collect(),
                new.clone(),
            ),
        ),
        (
            "line_numbers",
            "lf",
            hunk(
                real.iter()
                    .enumerate()
                    .map(|(j, l)| format!("{}\u{2192}{l}", target + j + 1))
                    .collect(),
                new.clone(),
            ),
        ),
        (
            "elision",
            "lf",
            hunk(
                vec![real[0].clone(), "    ...".into(), real[3].clone()],
                vec![real[0].clone(), "    ...".into(), "    done();".into()],
            ),
        ),
        // The approximate tiers forgive drift only in kept context lines: one drifted kept
        // line, the removed line exact.
        ("anchor", "lf", {
            let mut o = real.clone();
            o[1] = o[1].replace("compute", "calculate");
            let n = vec![
                o[0].clone(),
                o[1].clone(),
                "    changed();".into(),
                o[3].clone(),
            ];
            hunk(o, n)
        }),
        ("fuzzy", "lf", {
            let mut o = real.clone();
            o[0] = o[0].replacen("value", "valu", 1);
            let n = vec![
                o[0].clone(),
                o[1].clone(),
                "    changed();".into(),
                o[3].clone(),
            ];
            hunk(o, n)
        }),
        (
            "miss (every tier + closest lines)",
            "lf",
            hunk(
                vec![
                    "no such line anywhere in this file at all".into(),
                    "nor this one".into(),
                    "nor this".into(),
                ],
                new.clone(),
            ),
        ),
    ];
    let mut escaped = Hunk::substring(real[..2].join("\\n"), "x".into(), 1);
    escaped.old = vec![real[..2].join("\\n")];
    cases.insert(6, ("escapes", "lf", escaped));
    let mut eof = hunk(vec![line(LINES - 1)], new.clone());
    eof.anchor = Anchor::EndOfFile;
    cases.push(("exact, *** End of File", "lf", eof));

    cases
}

fn main() {
    let lf = file_text("\n");
    let crlf = file_text("\r\n");
    let target = LINES - 1000;
    let real: Vec<String> = (target..target + 4).map(line).collect();
    let new = vec!["    changed();".to_string()];

    let baseline = time(RUNS, || {
        black_box(memchr::memmem::find(lf.as_bytes(), real[0].as_bytes()));
    });
    println!(
        "file: {} lines, {:.1} MB; baseline memmem::find of one line: {:.2} ms",
        LINES,
        lf.len() as f64 / 1e6,
        baseline.as_secs_f64() * 1e3
    );

    let cases = cases(&real, &new, target);
    println!(
        "{:<36} {:>10} {:>12}  outcome",
        "tier", "median ms", "x baseline"
    );
    let mut worst = Duration::ZERO;
    for (name, which, h) in &cases {
        let text = if *which == "crlf" { &crlf } else { &lf };
        let (d, outcome) = timed_locate(text, h);
        worst = worst.max(d);
        println!(
            "{:<36} {:>10.2} {:>12.1}  {}",
            name,
            d.as_secs_f64() * 1e3,
            d.as_secs_f64() / baseline.as_secs_f64().max(1e-9),
            outcome
        );
    }
    near_identical_long_lines(&mut worst);
    println!(
        "worst: {:.2} ms (target < 50 ms): {}",
        worst.as_secs_f64() * 1e3,
        if worst < Duration::from_millis(50) {
            "met"
        } else {
            "NOT MET"
        }
    );
    refusals();
}

/// Refusals end to end (parse, stage, locate, explain, report), on inputs that once took
/// minutes: a one-line hunk with 3,000 candidates, and 12,000-line hunks of one repeated line
/// against a file of 200,000 copies of it. Target: each within 1 s, each report a few KB.
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let many: String = (0..3000)
        .map(|i| format!("def f{i}():\n    x = 1\n"))
        .collect();
    std::fs::write(root.join("many.py"), many).unwrap();
    std::fs::write(root.join("same.py"), "x = 1\n".repeat(200_000)).unwrap();
    let missing = format!(
        "*** Begin Patch\n*** Update File: same.py\n{}-y\n+z\n*** End Patch\n",
        " x = 1\n".repeat(12_000)
    );
    let repetitive = format!(
        "*** Begin Patch\n*** Update File: same.py\n{}-x = 1\n+z\n*** End Patch\n",
        " x = 1\n".repeat(12_000)
    );
    let cases = [
        (
            "refusal: 3,000 candidates",
            "*** Begin Patch\n*** Update File: many.py\n-    x = 1\n+    x = 2\n*** End Patch\n"
                .to_string(),
        ),
        ("refusal: 12,000 repeated lines, miss", missing),
        ("refusal: 12,000 repeated lines, all", repetitive),
    ];
    let opts = lancet::ApplyOptions {
        dry_run: true,
        checkpoint: false,
        fsync: false,
        ..lancet::ApplyOptions::new(root.to_path_buf())
    };
    println!(
        "{:<36} {:>10} {:>12}  outcome",
        "refusal", "median ms", "report KB"
    );
    let mut worst = Duration::ZERO;
    for (name, edit) in &cases {
        let mut size = 0;
        let mut kind = String::new();
        let d = time(3, || {
            let report = lancet::apply(edit.as_bytes(), &opts).report;
            size = serde_json::to_string(&report).unwrap_or_default().len();
            kind = report
                .files
                .first()
                .and_then(|f| f.hunks.first())
                .and_then(|h| h.kind)
                .map(|k| k.to_string())
                .unwrap_or_default();
        });
        worst = worst.max(d);
        println!(
            "{:<36} {:>10.1} {:>12.1}  refused: {kind}",
            name,
            d.as_secs_f64() * 1e3,
            size as f64 / 1024.0
        );
    }
    println!(
        "worst refusal: {:.0} ms (target < 1 s): {}",
        worst.as_secs_f64() * 1e3,
        if worst < Duration::from_secs(1) {
            "met"
        } else {
            "NOT MET"
        }
    );
}

/// The locating budget: a hunk whose kept line drifted, against a few MB of long lines that
/// are all nearly identical (every window scores close to every other), so the approximate
/// tiers must score many candidates. The per-line scorer is linear in line length (bigram
/// sketches, edit distance only on short lines), so this stays bounded.
fn near_identical_long_lines(worst: &mut Duration) {
    const LONG_LINES: usize = 20_000;
    let long = |i: usize| {
        let cells: Vec<String> = (0..120)
            .map(|c| format!("{}", (c * 7 + i % 3) % 10))
            .collect();
        format!("    row_{} = [{}]", i % 5, cells.join(", "))
    };
    let text: String = (0..LONG_LINES).map(|i| long(i) + "\n").collect();
    let target = LONG_LINES / 2;
    let mut old: Vec<String> = (target..target + 8).map(long).collect();
    old[0] = old[0].replacen("row_", "rows_", 1);
    let mut new = old.clone();
    new[4] = "    changed = True".into();
    let h = hunk(old, new);
    let (d, outcome) = timed_locate(&text, &h);
    *worst = (*worst).max(d);
    println!(
        "{:<36} {:>10.2} {:>12}  {} ({:.1} MB of {}-byte near-identical lines)",
        "budget: near-identical long lines",
        d.as_secs_f64() * 1e3,
        "-",
        outcome,
        text.len() as f64 / 1e6,
        long(0).len()
    );
}

/// The median cold-start time of locating `h` in `text` (split, index, locate), and what it
/// decided.
fn timed_locate(text: &str, h: &Hunk) -> (Duration, String) {
    let mut outcome = String::new();
    let d = time(RUNS, || {
        let file = TextFile::new(text);
        let hay = Haystack::new(&file);
        let r = locate(&hay, h, Hints::default());
        outcome = match &r {
            Ok(Located::Replace(p)) => {
                format!("{} at line {}", p[0].at.tier.name(), p[0].at.start + 1)
            }
            Ok(Located::AlreadyApplied { .. }) => "already applied".into(),
            Err(e) => format!("refused: {}", e.kind()),
        };
        black_box(r).ok();
    });
    (d, outcome)
}
