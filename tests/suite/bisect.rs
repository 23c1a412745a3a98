//! `--test CMD --bisect`: a batch of twelve files whose test script fails when certain files
//! hold a marker. The culprits, and only they, are held back; the rest is written, within the
//! bound on runs, recorded as exactly that and undone as exactly that; a bound too small, a
//! crash at any step and `--bisect` without `--test` leave nothing written.

use super::tree::{describe, lancet, lancet_env, snapshot, temp_tree};
use std::path::Path;
use std::process::{Command, Output};

/// The batch: the marker added to each of twelve files `f01.txt` … `f12.txt`.
fn batch() -> Vec<u8> {
    let mut edit = String::from("*** Begin Patch\n");
    for i in 1..=12 {
        edit.push_str(&format!(
            "*** Update File: f{i:02}.txt\n-line {i}\n+line {i} BROKEN\n"
        ));
    }
    edit.push_str("*** End Patch\n");
    edit.into_bytes()
}

/// Twelve files, and `check.sh`, which fails when any of `culprits` holds the marker (with
/// `together`, only when all of them do).
fn tree(culprits: &[&str], together: bool) -> tempfile::TempDir {
    let files: Vec<(String, Vec<u8>)> = (1..=12)
        .map(|i| (format!("f{i:02}.txt"), format!("line {i}\n").into_bytes()))
        .collect();
    let names = culprits.join(" ");
    let script = if together {
        format!(
            "for f in {names}; do grep -q BROKEN \"$f\" || exit 0; done\necho \"FAILED: {names} together\"; exit 1\n"
        )
    } else {
        format!(
            "for f in {names}; do if grep -q BROKEN \"$f\"; then echo \"FAILED: $f is broken\"; exit 1; fi; done\n"
        )
    };
    let mut all: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    all.push(("check.sh", script.as_bytes()));
    temp_tree(&all)
}

fn r(root: &Path) -> &str {
    root.to_str().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(out)))
}

fn bisect(root: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "apply",
        "-C",
        r(root),
        "--json",
        "--test",
        "sh check.sh",
        "--bisect",
    ];
    args.extend(extra);
    lancet(&args, &batch())
}

/// The files holding the marker.
fn marked(root: &Path) -> Vec<String> {
    (1..=12)
        .map(|i| format!("f{i:02}.txt"))
        .filter(|f| {
            std::fs::read_to_string(root.join(f))
                .unwrap()
                .contains("BROKEN")
        })
        .collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// `⌈log2 12⌉`.
const LOG2_N: u64 = 4;

/// Applies the batch with `--bisect` and checks the outcome: exit 1, status partial, exactly
/// `held` held back (named in the report and marked in its files), every other file written,
/// within `max_runs` runs; the log holds one live batch of exactly the written files, and its
/// undo gives back the tree before. Returns the report.
fn assert_held_back(root: &Path, held: &[&str], max_runs: u64) -> serde_json::Value {
    let before = snapshot(root);
    let out = bisect(root, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "partial");
    let b = &v["test"]["bisect"];
    assert_eq!(b["outcome"], "held_back", "{b:#}");
    assert_eq!(strings(&b["held_back"]), held);
    assert_eq!(b["files"], 12);
    let runs = b["runs"].as_u64().unwrap();
    assert!(runs <= max_runs, "{runs} runs, over {max_runs}");
    assert_eq!(
        v["test"]["passed"], true,
        "the tests passed on what was written"
    );
    for c in b["culprits"].as_array().unwrap() {
        assert_eq!(c["exit_code"], 1);
        assert!(c["output"].as_str().unwrap().contains("FAILED"), "{c:#}");
    }
    let written: Vec<String> = (1..=12)
        .map(|i| format!("f{i:02}.txt"))
        .filter(|f| !held.contains(&f.as_str()))
        .collect();
    assert_eq!(marked(root), written);
    for f in v["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        let want = if held.contains(&path) {
            "held_back"
        } else {
            "applied"
        };
        assert_eq!(f["status"], want, "{path}");
    }
    let message = v["message"].as_str().unwrap();
    for h in held {
        assert!(
            message.contains(&format!("- {h}: the tests failed with it")),
            "{message}"
        );
    }
    // The log holds the written files alone, as one batch that passed its tests.
    let log = json(&lancet(&["log", "-C", r(root), "--json"], b""));
    let live: Vec<&serde_json::Value> = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["undone"] == false)
        .collect();
    assert_eq!(live.len(), 1, "{log:#}");
    assert_eq!(live[0]["id"], v["checkpoint"]);
    assert_eq!(live[0]["test"]["passed"], true);
    let logged: Vec<String> = live[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(logged, written);
    assert!(!root.join(".lancet/journal.json").exists());
    assert_eq!(
        std::fs::read_dir(root.join(".lancet/pre")).unwrap().count(),
        0
    );
    // Its undo restores exactly what was written, and so the tree before.
    let undo = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(undo.status.code(), Some(0), "{}", describe(&undo));
    assert_eq!(snapshot(root), before);
    v
}

#[test]
fn one_culprit_is_held_back_and_the_rest_written() {
    let dir = tree(&["f05.txt"], false);
    assert_held_back(dir.path(), &["f05.txt"], LOG2_N + 2);
}

#[test]
fn two_culprits_are_held_back_and_the_rest_written() {
    let dir = tree(&["f03.txt", "f10.txt"], false);
    let v = assert_held_back(dir.path(), &["f03.txt", "f10.txt"], 2 * LOG2_N + 2);
    // Each with the run that showed it: the files before it written, it failed.
    let culprits = v["test"]["bisect"]["culprits"].as_array().unwrap();
    assert_eq!(culprits[0]["alongside"], 2);
    assert_eq!(culprits[1]["alongside"], 8);
}

/// Two files that fail the tests only together: the later one is held back, and the earlier
/// one, which passes without it, is written.
#[test]
fn a_pair_failing_only_together_holds_back_one_of_them() {
    let dir = tree(&["f04.txt", "f09.txt"], true);
    let v = assert_held_back(dir.path(), &["f09.txt"], LOG2_N + 2);
    let culprit = &v["test"]["bisect"]["culprits"][0];
    assert!(culprit["output"].as_str().unwrap().contains("together"));
    assert!(
        culprit["alongside"].as_u64().unwrap() >= 4,
        "f04 was written beside it"
    );
}

/// A move's source and destination are one file to bisection: held back together, the
/// source stays where it was and the destination is never written.
#[test]
fn a_move_is_held_back_whole() {
    let dir = tree(&["moved/m.txt"], false);
    let root = dir.path();
    std::fs::write(root.join("m.txt"), "m\n").unwrap();
    let mut edit = batch();
    edit.truncate(edit.len() - b"*** End Patch\n".len());
    edit.extend_from_slice(
        b"*** Update File: m.txt\n*** Move to: moved/m.txt\n-m\n+m BROKEN\n*** End Patch\n",
    );
    let args = [
        "apply",
        "-C",
        r(root),
        "--json",
        "--test",
        "sh check.sh",
        "--bisect",
    ];
    let out = lancet(&args, &edit);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(
        strings(&v["test"]["bisect"]["held_back"]),
        ["m.txt", "moved/m.txt"]
    );
    assert_eq!(v["test"]["bisect"]["files"], 13);
    assert_eq!(std::fs::read_to_string(root.join("m.txt")).unwrap(), "m\n");
    assert!(!root.join("moved").exists());
    assert_eq!(marked(root).len(), 12);
}

/// The checkpoint of a bisected batch in a repository is exactly what was written.
#[test]
fn the_checkpoint_in_a_repository_is_what_was_written() {
    let dir = tree(&["f07.txt"], false);
    let root = dir.path();
    let git = |args: &[&str]| -> String {
        let out = Command::new("git")
            .args(["--no-optional-locks", "-C", r(root)])
            .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", describe(&out));
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "init"]);
    let out = bisect(root, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let id = json(&out)["checkpoint"].as_str().unwrap().to_string();
    let at = format!("refs/lancet/checkpoints/{id}");
    let names = git(&["diff", "--name-only", &format!("{at}^"), &at]);
    let want: Vec<String> = (1..=12)
        .filter(|&i| i != 7)
        .map(|i| format!("f{i:02}.txt"))
        .collect();
    assert_eq!(names, want.join("\n"));
    // Only the kept batch has a checkpoint: the whole batch's was dropped with its log entry.
    let refs = git(&["for-each-ref", "--format=%(refname)", "refs/lancet/"]);
    assert_eq!(refs, at);
}

/// A bound too small: the runs stop there, everything is rolled back, and the report says the
/// bound was hit (exit 3, tests failed).
#[test]
fn a_bound_too_small_rolls_everything_back() {
    let dir = tree(&["f03.txt", "f10.txt"], false);
    let root = dir.path();
    let before = snapshot(root);
    let out = bisect(root, &["--bisect-max-runs", "4"]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "test_failed");
    assert_eq!(v["test"]["passed"], false);
    let b = &v["test"]["bisect"];
    assert_eq!(b["outcome"], "out_of_runs");
    assert_eq!(b["runs"], 4);
    assert_eq!(strings(&b["held_back"]).len(), 12, "nothing written");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("reached its bound of 4 test runs (--bisect-max-runs)"),
        "{message}"
    );
    assert!(message.contains("nothing of it is written"), "{message}");
    assert_eq!(snapshot(root), before);
    assert!(!root.join(".lancet/journal.json").exists());
    let log = json(&lancet(&["log", "-C", r(root), "--json"], b""));
    assert!(
        log.as_array().unwrap().iter().all(|e| e["undone"] == true),
        "{log:#}"
    );
}

/// Tests that fail whatever is written hold back every file: nothing written (exit 3).
#[test]
fn tests_that_always_fail_write_nothing() {
    let dir = tree(&["f01.txt"], false);
    let root = dir.path();
    std::fs::write(root.join("check.sh"), "echo FAILED always; exit 1\n").unwrap();
    let before = snapshot(root);
    let out = bisect(root, &["--bisect-max-runs", "100"]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["test"]["bisect"]["outcome"], "nothing_passes");
    assert_eq!(snapshot(root), before);
}

#[test]
fn bisect_without_test_is_a_usage_error() {
    let dir = tree(&["f01.txt"], false);
    let root = dir.path();
    let before = snapshot(root);
    for args in [
        vec!["apply", "-C", r(root), "--bisect"],
        vec![
            "apply",
            "-C",
            r(root),
            "--test",
            "true",
            "--bisect-max-runs",
            "5",
        ],
    ] {
        let out = lancet(&args, &batch());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", describe(&out));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--bisect"));
    }
    assert_eq!(snapshot(root), before);
}

/// `lancet rename` takes `--bisect` too: the file whose rename the tests fail with keeps the
/// old name, the others are renamed.
#[test]
fn a_rename_is_bisected_like_any_batch() {
    let dir = temp_tree(&[
        ("lib.py", b"def total(xs):\n    return sum(xs)\n"),
        ("a.py", b"from lib import total\n\nA = total([1])\n"),
        ("b.py", b"from lib import total\n\nB = total([2])\n"),
        (
            "check.sh",
            b"if grep -q grand_total b.py; then echo 'FAILED: b.py renamed'; exit 1; fi\n",
        ),
    ]);
    let root = dir.path();
    let out = lancet(
        &[
            "rename",
            "-C",
            r(root),
            "--json",
            "total",
            "grand_total",
            "--test",
            "sh check.sh",
            "--bisect",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "partial");
    assert_eq!(strings(&v["test"]["bisect"]["held_back"]), ["b.py"]);
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    assert!(read("lib.py").contains("def grand_total"));
    assert!(read("a.py").contains("grand_total([1])"));
    assert!(read("b.py").contains("total([2])") && !read("b.py").contains("grand_total"));
}

/// A crash at any step of a bisection (while writing a run's files, while rolling them back,
/// at the commit point of the files finally kept) leaves, once recovered, the tree before the
/// batch and no live log entry: only a finished bisection writes anything.
#[test]
fn a_crash_anywhere_in_a_bisection_recovers_to_the_tree_before() {
    let mut crashes = 0;
    for (point, passes) in [
        ("journal", vec![1, 3, 6]),
        ("rename", vec![1, 13, 20, 40, 60]),
        ("recover", vec![1, 5, 25, 50]),
        ("commit", vec![1]),
    ] {
        for pass in passes {
            let dir = tree(&["f03.txt", "f10.txt"], false);
            let root = dir.path();
            let before = snapshot(root);
            let spec = format!("crash:{point}:{pass}");
            let out = lancet_env(
                &[
                    "apply",
                    "-C",
                    r(root),
                    "--json",
                    "--no-fsync",
                    "--test",
                    "sh check.sh",
                    "--bisect",
                ],
                &batch(),
                &[("LANCET_FAILPOINT", &spec)],
            );
            if out.status.code() == Some(1) {
                // The bisection ended before that pass: nothing to check here.
                continue;
            }
            assert_eq!(out.status.code(), None, "{spec}: {}", describe(&out));
            crashes += 1;
            let rec = lancet(&["recover", "-C", r(root)], b"");
            assert_eq!(rec.status.code(), Some(0), "{spec}: {}", describe(&rec));
            assert_eq!(snapshot(root), before, "{spec}");
            let log = json(&lancet(&["log", "-C", r(root), "--json"], b""));
            assert!(
                log.as_array().unwrap().iter().all(|e| e["undone"] == true),
                "{spec}: {log:#}"
            );
            assert_eq!(
                std::fs::read_dir(root.join(".lancet/pre")).unwrap().count(),
                0,
                "{spec}"
            );
        }
    }
    assert!(crashes >= 10, "only {crashes} crashes happened");
}

/// A dry run with `--test` runs no test (it writes nothing to test) and says so.
#[test]
fn a_dry_run_says_its_test_command_did_not_run() {
    let dir = tree(&["f03.txt"], false);
    let before = snapshot(dir.path());
    let out = lancet(
        &[
            "apply",
            "-C",
            r(dir.path()),
            "--dry-run",
            "--test",
            "sh check.sh",
            "--json",
        ],
        &batch(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v = json(&out);
    assert!(
        v["notes"]
            .to_string()
            .contains("the test command was not run (`sh check.sh`)"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}
