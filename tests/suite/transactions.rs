//! Transactions (the journal, the checkpoints, undo and recovery): all or nothing across injected errors and simulated crashes
//! (`LANCET_FAILPOINT=[crash:]NAME:N`), recovery, the per-root lock (`LANCET_PAUSE_AT`), full
//! disks and unwritable targets, modes, symlinks and hard links, git checkpoints that never touch
//! HEAD, the index or the stash, `log` / `undo`, and `--test` with its rollback and ledger.

use super::tree::{
    Node, describe, lancet, lancet_env, lancet_in_background, snapshot, temp_tree, wait_paused,
};
use std::collections::BTreeMap;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

type Tree = BTreeMap<String, Node>;

/// SIGABRT: what `crash:` failpoints die of (`std::process::abort`).
const SIGABRT: i32 = 6;

/// Every failpoint, in commit order.
const POINTS: [&str; 9] = [
    "verify",
    "journal",
    "write",
    "sync_temps",
    "backup",
    "rename",
    "fsync_dir",
    "commit",
    "recover",
];

/// The batch of the crash tests: update two files, create one in a new directory, delete one,
/// move one (with a change) into an existing directory.
const BATCH: &[u8] = b"*** Begin Patch
*** Update File: a.txt
-a
+A
*** Update File: b.txt
-b
+B
*** Add File: new/sub/c.txt
+c
*** Delete File: d.txt
*** Update File: m.txt
*** Move to: lib/m.txt
-m2
+M2
*** End Patch
";

/// A path of a batch, with its content before and after (`None`: absent).
type PathChange = (&'static str, Option<&'static [u8]>, Option<&'static [u8]>);

/// Each path [`BATCH`] touches.
const BATCH_PATHS: [PathChange; 6] = [
    ("a.txt", Some(b"a\n"), Some(b"A\n")),
    ("b.txt", Some(b"b\n"), Some(b"B\n")),
    ("new/sub/c.txt", None, Some(b"c\n")),
    ("d.txt", Some(b"d\n"), None),
    ("m.txt", Some(b"m1\nm2\n"), None),
    ("lib/m.txt", None, Some(b"m1\nM2\n")),
];

// ---------------------------------------------------------------------------------------------
// Helpers

fn r(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(out)))
}

fn message(out: &Output) -> String {
    json(out)["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The work tree: every file, link and directory under `root`, except lancet's own state
/// (`.lancet`, skipped by `snapshot`) and the git directory.
fn work(root: &Path) -> Tree {
    snapshot(root)
        .into_iter()
        .filter(|(k, _)| k != ".git" && !k.starts_with(".git/"))
        .collect()
}

/// `<state>`: `.git/lancet` in a repository, `.lancet` outside one.
fn state_dir(root: &Path, in_git: bool) -> PathBuf {
    if in_git {
        root.join(".git/lancet")
    } else {
        root.join(".lancet")
    }
}

/// The names left in `<state>/pre` (none when it does not exist).
fn pre_images(root: &Path, in_git: bool) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(state_dir(root, in_git).join("pre")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn journal(root: &Path, in_git: bool) -> PathBuf {
    state_dir(root, in_git).join("journal.json")
}

/// Runs git in `dir` without optional locks (so it never rewrites the index), with a fixed
/// identity; panics unless it succeeds. Returns stdout without the final newline.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_output(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        describe(&out)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim_end_matches('\n')
        .to_string()
}

fn git_output(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .arg("--no-optional-locks")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=lancet tests",
            "-c",
            "user.email=tests@lancet.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git")
}

/// Turns `dir` into a repository with one commit holding everything in it.
fn commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "init"]);
}

/// Every ref lancet must not touch (all but its own `refs/lancet/...`), with what it points at.
fn foreign_refs(dir: &Path) -> String {
    git(dir, &["for-each-ref", "--format=%(objectname) %(refname)"])
        .lines()
        .filter(|l| !l.contains(" refs/lancet/"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ref of checkpoint `id`: `refs/lancet/checkpoints/<id>`.
fn rev(id: &str) -> String {
    format!("refs/lancet/checkpoints/{id}")
}

/// lancet's checkpoint refs in the repository at `dir` (a work tree or a bare repository).
fn checkpoint_refs(dir: &Path) -> Vec<String> {
    if !dir.exists() {
        return Vec::new();
    }
    let out = git(
        dir,
        &["for-each-ref", "--format=%(refname)", "refs/lancet/"],
    );
    out.lines().map(str::to_string).collect()
}

/// `lancet log --json`, without the undos (each a batch of its own, listed with format `undo`).
fn log(root: &Path) -> Vec<serde_json::Value> {
    let out = lancet(&["log", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    json(&out)
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e["format"] != "undo")
        .collect()
}

/// The tree the crash tests start from.
fn batch_tree(in_git: bool) -> tempfile::TempDir {
    let dir = temp_tree(&[
        ("a.txt", b"a\n"),
        ("b.txt", b"b\n"),
        ("d.txt", b"d\n"),
        ("m.txt", b"m1\nm2\n"),
        ("keep.txt", b"untouched\n"),
        ("lib/other.txt", b"o\n"),
    ]);
    if in_git {
        commit_all(dir.path());
    }
    dir
}

/// For each path of [`BATCH`]: "old", "new" or "neither".
fn batch_states(root: &Path) -> Vec<(&'static str, &'static str)> {
    BATCH_PATHS
        .iter()
        .map(|(path, old, new)| {
            let now = std::fs::read(root.join(path)).ok();
            let state = if now.as_deref() == *old {
                "old"
            } else if now.as_deref() == *new {
                "new"
            } else {
                "neither"
            };
            (*path, state)
        })
        .collect()
}

fn all_batch_paths(state: &'static str) -> Vec<(&'static str, &'static str)> {
    BATCH_PATHS.iter().map(|(p, _, _)| (*p, state)).collect()
}

fn apply_batch(root: &Path, fsync: bool, env: &[(&str, &str)]) -> Output {
    let mut args = vec!["apply", "-C", r(root), "--json"];
    if !fsync {
        args.push("--no-fsync");
    }
    lancet_env(&args, BATCH, env)
}

/// The work tree before and after [`BATCH`], from two fresh trees.
fn old_and_new(in_git: bool) -> (Tree, Tree) {
    let old = work(batch_tree(in_git).path());
    let dir = batch_tree(in_git);
    let out = apply_batch(dir.path(), true, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(batch_states(dir.path()), all_batch_paths("new"));
    (old, work(dir.path()))
}

/// `lancet recover` on a clean root: exit 0, "Nothing to recover", nothing changes.
fn assert_nothing_to_recover(root: &Path, ctx: &str) {
    let before = work(root);
    let out = lancet(&["recover", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{ctx}: {}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Nothing to recover"),
        "{ctx}: {}",
        describe(&out)
    );
    assert_eq!(
        work(root),
        before,
        "{ctx}: a clean recover changed the tree"
    );
}

/// Runs lancet in the background with `stdin` written and closed (for the pause tests).
fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

// ---------------------------------------------------------------------------------------------
// 1. Crash loop and injected errors at every failpoint

/// For every failpoint and every pass of it the batch reaches, crash there, recover, and check
/// invariant I1: every file of the batch is entirely old or entirely new, all the same way; a
/// crash before the commit point (the journal still there) recovers to all old, with no temp
/// file, no created directory, no pre-image and no journal left; recovering again does nothing.
fn crash_loop(in_git: bool, fsync: bool) {
    let (old, new) = old_and_new(in_git);
    let mut reached: BTreeMap<&str, usize> = BTreeMap::new();
    for point in POINTS {
        for n in 1.. {
            assert!(n < 50, "{point}: runaway pass count");
            let ctx = format!("git={in_git} fsync={fsync} crash:{point}:{n}");
            let dir = batch_tree(in_git);
            let root = dir.path();
            let index = in_git.then(|| std::fs::read(root.join(".git/index")).unwrap());
            let head = in_git.then(|| git(root, &["rev-parse", "HEAD"]));
            let spec = format!("crash:{point}:{n}");
            let out = apply_batch(root, fsync, &[("LANCET_FAILPOINT", &spec)]);
            if out.status.code() == Some(0) {
                // Pass n never came: the batch ran through.
                assert_eq!(work(root), new, "{ctx}: ran through but did not apply");
                break;
            }
            assert_eq!(
                (out.status.code(), out.status.signal()),
                (None, Some(SIGABRT)),
                "{ctx}: expected a simulated crash\n{}",
                describe(&out)
            );
            reached.insert(point, n);
            let journal_left = journal(root, in_git).exists();
            let rec = lancet(&["recover", "-C", r(root), "--json"], b"");
            assert_eq!(rec.status.code(), Some(0), "{ctx}: {}", describe(&rec));
            let note = message(&rec);
            let now = work(root);
            if journal_left {
                assert!(
                    note.starts_with("Recovery: recovered batch "),
                    "{ctx}: {note}"
                );
                assert!(!note.contains("left alone"), "{ctx}: {note}");
                assert_eq!(batch_states(root), all_batch_paths("old"), "{ctx}");
                assert_eq!(now, old, "{ctx}: recovery left something behind");
            } else {
                // No journal: the crash came before it was written (all old) or after the
                // commit point, where the batch stands (all new). Never a mix.
                assert!(note.starts_with("Nothing to recover"), "{ctx}: {note}");
                assert!(now == old || now == new, "{ctx}: mixed tree {now:#?}");
                if now == new {
                    assert_eq!(point, "fsync_dir", "{ctx}: applied before the commit point");
                }
            }
            if now == old {
                assert_eq!(pre_images(root, in_git), Vec::<String>::new(), "{ctx}");
                assert_eq!(log(root), Vec::<serde_json::Value>::new(), "{ctx}");
            }
            assert!(!journal(root, in_git).exists(), "{ctx}: journal left");
            assert_nothing_to_recover(root, &ctx);
            if in_git {
                assert_eq!(
                    Some(std::fs::read(root.join(".git/index")).unwrap()),
                    index,
                    "{ctx}: index changed"
                );
                assert_eq!(Some(git(root, &["rev-parse", "HEAD"])), head, "{ctx}");
            }
        }
    }
    // The loop really went through every step: four temp files (a, b, c, lib/m), two kept
    // pre-images (the updates; deletions move the original aside), six renames.
    let at_least = |p: &str, min: usize| {
        let got = reached.get(p).copied().unwrap_or(0);
        assert!(
            got >= min,
            "git={in_git} fsync={fsync}: {p} reached {got} < {min} times"
        );
    };
    for (p, min) in [
        ("verify", 1),
        ("journal", 1),
        ("write", 4),
        ("sync_temps", 1),
        ("backup", 2),
        ("rename", 6),
        ("commit", 1),
    ] {
        at_least(p, min);
    }
    if fsync {
        at_least("fsync_dir", 3);
    } else {
        assert_eq!(reached.get("fsync_dir"), None, "--no-fsync still fsynced");
    }
}

#[test]
fn crash_at_every_pass_recovers_to_all_old_in_a_git_repo() {
    crash_loop(true, true);
}

#[test]
fn crash_at_every_pass_recovers_to_all_old_in_a_plain_directory() {
    crash_loop(false, true);
}

#[test]
fn crash_at_every_pass_recovers_to_all_old_without_fsync() {
    crash_loop(false, false);
}

/// An injected I/O error at every pass of every write step: exit 4, "every file was restored",
/// the tree byte-identical (no temp file, no created directory), no pre-image, no checkpoint.
fn error_loop(in_git: bool) {
    let (old, new) = old_and_new(in_git);
    for point in [
        "journal",
        "write",
        "backup",
        "rename",
        "fsync_dir",
        "commit",
    ] {
        let mut failed = 0;
        for n in 1.. {
            assert!(n < 50, "{point}: runaway pass count");
            let ctx = format!("git={in_git} {point}:{n}");
            let dir = batch_tree(in_git);
            let root = dir.path();
            let spec = format!("{point}:{n}");
            let out = apply_batch(root, true, &[("LANCET_FAILPOINT", &spec)]);
            if out.status.code() == Some(0) {
                assert_eq!(work(root), new, "{ctx}");
                break;
            }
            failed += 1;
            assert_eq!(out.status.code(), Some(4), "{ctx}: {}", describe(&out));
            let v = json(&out);
            assert_eq!(v["status"], "error", "{ctx}");
            let msg = v["message"].as_str().unwrap();
            assert!(
                msg.contains("injected failure") && msg.contains("every file was restored"),
                "{ctx}: {msg}"
            );
            assert!(v.get("checkpoint").is_none_or(|c| c.is_null()), "{ctx}");
            assert_eq!(work(root), old, "{ctx}: tree changed");
            assert_eq!(pre_images(root, in_git), Vec::<String>::new(), "{ctx}");
            assert_eq!(log(root), Vec::<serde_json::Value>::new(), "{ctx}");
            if in_git {
                assert_eq!(checkpoint_refs(root), Vec::<String>::new(), "{ctx}");
            }
        }
        assert!(failed >= 1, "{point} was never reached");
    }
}

#[test]
fn an_injected_error_at_every_pass_leaves_the_tree_intact_in_a_git_repo() {
    error_loop(true);
}

#[test]
fn an_injected_error_at_every_pass_leaves_the_tree_intact_in_a_plain_directory() {
    error_loop(false);
}

/// `verify` is a failpoint like the others: an injected error there refuses the batch.
#[test]

fn an_injected_error_at_verify_writes_nothing() {
    let dir = batch_tree(false);
    let old = work(dir.path());
    let out = apply_batch(dir.path(), true, &[("LANCET_FAILPOINT", "verify:1")]);
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert_eq!(work(dir.path()), old);
}

/// A batch that failed cleanly (exit 4, "every file was restored") leaves no journal, so the
/// next command has nothing to recover and does not report a crash that never happened.
#[test]

fn a_failed_apply_leaves_no_journal_behind() {
    for spec in ["journal:1", "fsync_dir:1"] {
        let dir = batch_tree(false);
        let out = apply_batch(dir.path(), true, &[("LANCET_FAILPOINT", spec)]);
        assert_eq!(out.status.code(), Some(4), "{spec}: {}", describe(&out));
        assert!(
            !journal(dir.path(), false).exists(),
            "{spec}: journal left behind"
        );
        assert_nothing_to_recover(dir.path(), spec);
    }
}

/// Finds the crash that comes after the commit point (the journal is deleted, then the state
/// directory is fsynced) and returns the crashed tree.
fn crash_after_the_commit_point() -> tempfile::TempDir {
    let (_, new) = old_and_new(false);
    for n in 1..50 {
        let dir = batch_tree(false);
        let spec = format!("crash:fsync_dir:{n}");
        let out = apply_batch(dir.path(), true, &[("LANCET_FAILPOINT", &spec)]);
        assert_ne!(
            out.status.code(),
            Some(0),
            "no crash after the commit point"
        );
        if !journal(dir.path(), false).exists() && work(dir.path()) == new {
            return dir;
        }
    }
    panic!("no crash after the commit point");
}

/// A crash after the commit point: the batch stands, and the next command cleans up the
/// pre-images the batch kept (they are no use to anyone once the journal is gone).
#[test]

fn a_crash_after_the_commit_point_leaves_no_pre_images() {
    let dir = crash_after_the_commit_point();
    let _ = lancet(&["recover", "-C", r(dir.path())], b"");
    assert_eq!(pre_images(dir.path(), false), Vec::<String>::new());
}

/// A crash after the commit point: the batch stands, so it is in the log and undo puts it back.
#[test]

fn a_crash_after_the_commit_point_keeps_the_batch_undoable() {
    let dir = crash_after_the_commit_point();
    let root = dir.path();
    let old = work(batch_tree(false).path());
    assert_eq!(log(root).len(), 1, "the applied batch is in the log");
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(work(root), old);
}

/// A batch that crashed before writing anything leaves no checkpoint of itself.
#[test]

fn a_crash_before_the_journal_leaves_no_checkpoint() {
    let dir = batch_tree(true);
    let out = apply_batch(dir.path(), true, &[("LANCET_FAILPOINT", "crash:verify:1")]);
    assert_eq!(out.status.signal(), Some(SIGABRT), "{}", describe(&out));
    let _ = lancet(&["recover", "-C", r(dir.path())], b"");
    assert_eq!(checkpoint_refs(dir.path()), Vec::<String>::new());
}

/// Every command first recovers a leftover journal, so no command sees a torn batch: `read` never shows a
/// half-applied batch, `log` and `check` repair too.
#[test]

fn every_command_recovers_a_crashed_batch_first() {
    for command in ["read", "log", "check"] {
        let dir = batch_tree(false);
        let root = dir.path();
        let old = work(root);
        let out = apply_batch(root, true, &[("LANCET_FAILPOINT", "crash:rename:3")]);
        assert_eq!(out.status.signal(), Some(SIGABRT), "{}", describe(&out));
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
        let out = match command {
            "read" => lancet(&["read", "-C", r(root), "a.txt", "--json"], b""),
            "log" => lancet(&["log", "-C", r(root)], b""),
            _ => lancet(&["check", "-C", r(root)], b""),
        };
        if command == "read" {
            assert_eq!(json(&out)["lines"][0]["text"], "a", "{}", describe(&out));
        }
        assert!(!journal(root, false).exists(), "{command} left the journal");
        assert_eq!(work(root), old, "{command} did not recover");
    }
}

/// The next apply recovers the crashed batch first, says so, then applies its own batch
/// (here the same one again) in full.
#[test]
fn the_next_apply_recovers_a_crashed_batch_first() {
    for in_git in [true, false] {
        let (_, new) = old_and_new(in_git);
        let dir = batch_tree(in_git);
        let root = dir.path();
        let out = apply_batch(root, true, &[("LANCET_FAILPOINT", "crash:rename:4")]);
        assert_eq!(out.status.signal(), Some(SIGABRT), "{}", describe(&out));
        let out = apply_batch(root, true, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "git={in_git}: {}",
            describe(&out)
        );
        let v = json(&out);
        assert_eq!(v["status"], "applied");
        let notes = v["notes"].to_string();
        assert!(
            notes.contains("recovered batch") && notes.contains("interrupted by a crash"),
            "git={in_git}: {notes}"
        );
        assert_eq!(work(root), new, "git={in_git}");
        assert_eq!(pre_images(root, in_git), Vec::<String>::new());
        assert_eq!(
            log(root).len(),
            1,
            "git={in_git}: only the batch that applied"
        );
        assert_nothing_to_recover(root, "after the second apply");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Compound failures: a crash during recovery

/// A crash at every pass of the recovery of a crashed batch: recovering again converges to all
/// old, and a further recover has nothing to do.
#[test]
fn a_crash_during_recovery_is_finished_by_the_next_recovery() {
    let old = work(batch_tree(false).path());
    for apply_crash in ["rename:2", "rename:5", "rename:6", "commit:1"] {
        let mut crashed = 0;
        for n in 1..50 {
            let ctx = format!("crash:{apply_crash} then crash:recover:{n}");
            let dir = batch_tree(false);
            let root = dir.path();
            let spec = format!("crash:{apply_crash}");
            let out = apply_batch(root, true, &[("LANCET_FAILPOINT", &spec)]);
            assert_eq!(
                out.status.signal(),
                Some(SIGABRT),
                "{ctx}: {}",
                describe(&out)
            );
            let spec = format!("crash:recover:{n}");
            let rec = lancet_env(
                &["recover", "-C", r(root)],
                b"",
                &[("LANCET_FAILPOINT", &spec)],
            );
            if rec.status.code() == Some(0) {
                assert_eq!(work(root), old, "{ctx}");
                break;
            }
            crashed += 1;
            assert_eq!(
                rec.status.signal(),
                Some(SIGABRT),
                "{ctx}: {}",
                describe(&rec)
            );
            assert!(
                journal(root, false).exists(),
                "{ctx}: journal gone mid-recovery"
            );
            let rec = lancet(&["recover", "-C", r(root), "--json"], b"");
            assert_eq!(rec.status.code(), Some(0), "{ctx}: {}", describe(&rec));
            assert!(
                message(&rec).starts_with("Recovery: recovered batch "),
                "{ctx}: {}",
                message(&rec)
            );
            assert_eq!(batch_states(root), all_batch_paths("old"), "{ctx}");
            assert_eq!(work(root), old, "{ctx}");
            assert_eq!(pre_images(root, false), Vec::<String>::new(), "{ctx}");
            assert_nothing_to_recover(root, &ctx);
        }
        assert!(crashed >= 1, "{apply_crash}: recovery restored nothing");
    }
}

/// An I/O error while recovery restores a path keeps what recovery still needs (the journal
/// and the pre-image), so the next recover finishes: never a mixed tree with its pre-image gone.
#[test]

fn an_error_during_recovery_keeps_the_journal_and_the_pre_image() {
    let dir = batch_tree(false);
    let root = dir.path();
    let old = work(root);
    let out = apply_batch(root, true, &[("LANCET_FAILPOINT", "crash:rename:3")]);
    assert_eq!(out.status.signal(), Some(SIGABRT), "{}", describe(&out));
    let rec = lancet_env(
        &["recover", "-C", r(root), "--json"],
        b"",
        &[("LANCET_FAILPOINT", "recover:1")],
    );
    assert_ne!(rec.status.code(), Some(0), "{}", describe(&rec));
    let first = message(&rec);
    assert!(journal(root, false).exists(), "journal deleted: {first}");
    let rec = lancet(&["recover", "-C", r(root)], b"");
    assert_eq!(rec.status.code(), Some(0), "{}", describe(&rec));
    assert_eq!(batch_states(root), all_batch_paths("old"), "{first}");
    assert_eq!(work(root), old);
    assert_eq!(pre_images(root, false), Vec::<String>::new());
    assert_nothing_to_recover(root, "after the second recover");
    assert!(
        !first.contains("changed by someone else"),
        "an I/O error is not someone else's change: {first}"
    );
}

// ---------------------------------------------------------------------------------------------
// 3. A crash during undo

/// Undo is journaled: a crash at any pass of its commit, then recover, leaves the batch either
/// entirely in place or entirely undone, and a further undo finishes the job.
#[test]
fn a_crash_during_undo_leaves_the_batch_whole_or_undone() {
    let (old, new) = old_and_new(false);
    let mut crashed = 0;
    for point in POINTS {
        for n in 1..50 {
            let ctx = format!("undo with crash:{point}:{n}");
            let dir = batch_tree(false);
            let root = dir.path();
            let out = apply_batch(root, true, &[]);
            assert_eq!(out.status.code(), Some(0), "{ctx}: {}", describe(&out));
            let spec = format!("crash:{point}:{n}");
            let undo = lancet_env(
                &["undo", "-C", r(root), "--json"],
                b"",
                &[("LANCET_FAILPOINT", &spec)],
            );
            if undo.status.code() == Some(0) {
                assert_eq!(work(root), old, "{ctx}");
                break;
            }
            crashed += 1;
            assert_eq!(
                undo.status.signal(),
                Some(SIGABRT),
                "{ctx}: {}",
                describe(&undo)
            );
            let rec = lancet(&["recover", "-C", r(root)], b"");
            assert_eq!(rec.status.code(), Some(0), "{ctx}: {}", describe(&rec));
            let now = work(root);
            let states = batch_states(root);
            assert!(
                states == all_batch_paths("new") || states == all_batch_paths("old"),
                "{ctx}: half undone: {states:?}"
            );
            assert!(!journal(root, false).exists(), "{ctx}");
            assert_nothing_to_recover(root, &ctx);
            // The log agrees with the files, and no directory the batch created is left over.
            if states == all_batch_paths("new") {
                assert_eq!(now, new, "{ctx}");
                assert_eq!(log(root)[0]["undone"], false, "{ctx}");
                let undo = lancet(&["undo", "-C", r(root), "--json"], b"");
                assert_eq!(undo.status.code(), Some(0), "{ctx}: {}", describe(&undo));
                assert_eq!(work(root), old, "{ctx}");
            } else {
                assert_eq!(now, old, "{ctx}");
                assert_eq!(log(root)[0]["undone"], true, "{ctx}");
            }
        }
    }
    assert!(crashed >= 10, "undo crashed only {crashed} times");
}

// ---------------------------------------------------------------------------------------------
// 4. A full disk, 5. an unwritable target

/// A tmpfs mounted for the test; unmounted when dropped.
struct Mounted(PathBuf);

impl Mounted {
    fn tmpfs(dir: &Path, size: &str) -> Result<Mounted, String> {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if out.status.success() {
            Ok(Mounted(dir.to_path_buf()))
        } else {
            Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A batch that writes more than the disk holds: exit 4, every file as it was.
fn no_space(size: &str, big_lines: usize, extra: &[&str]) {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("disk");
    let _disk = match Mounted::tmpfs(&root, size) {
        Ok(m) => m,
        Err(why) => {
            eprintln!("skipped: the ENOSPC test needs a small tmpfs: {why}");
            return;
        }
    };
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    std::fs::write(root.join("b.txt"), "b\n").unwrap();
    let mut edit =
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: big.txt\n".to_vec();
    for _ in 0..big_lines {
        edit.extend_from_slice(b"+a line of the file that does not fit\n");
    }
    edit.extend_from_slice(b"*** Update File: b.txt\n-b\n+B\n*** End Patch\n");
    let before = work(&root);
    let mut args = vec!["apply", "-C", r(&root), "--json"];
    args.extend_from_slice(extra);
    let out = lancet(&args, &edit);
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    let msg = message(&out);
    assert!(msg.contains("No space left on device"), "{msg}");
    assert!(msg.contains("every file was restored"), "{msg}");
    assert_eq!(work(&root), before);
    assert_eq!(pre_images(&root, false), Vec::<String>::new());
    assert!(!journal(&root, false).exists());
    assert_eq!(log(&root), Vec::<serde_json::Value>::new());
}

#[test]
fn a_full_disk_fails_the_batch_with_every_file_intact() {
    // 64 KiB: no room for the private checkpoint repository either, so without checkpoints.
    no_space("64k", 4_000, &["--no-checkpoint"]);
}

#[test]
fn a_full_disk_with_a_checkpoint_fails_the_batch_with_every_file_intact() {
    // The checkpoint's blob compresses well and fits; the 2.5 MB temp file does not.
    no_space("1m", 65_000, &[]);
}

/// Makes a file unwritable for root: the immutable attribute, or else a read-only bind mount.
/// Undone when dropped.
pub(super) enum Unwritable {
    Immutable(PathBuf),
    ReadOnlyBind(PathBuf),
    /// A directory's mode taken down to read and search (what stops anyone but root), with the
    /// mode to put back.
    Mode(PathBuf, u32),
}

impl Unwritable {
    /// Makes a directory unwritable for whoever runs the tests: its mode, and where that does
    /// not stop the writer (root ignores modes), as [`Unwritable::make`] does.
    pub(super) fn directory(path: &Path) -> Result<Unwritable, String> {
        let mode = std::fs::metadata(path).map_err(|e| e.to_string())?.mode() & 0o7777;
        std::fs::set_permissions(path, PermissionsExt::from_mode(0o555))
            .map_err(|e| e.to_string())?;
        let guard = Unwritable::Mode(path.into(), mode);
        let probe = path.join("lancet-tests-probe");
        if std::fs::create_dir(&probe).is_err() {
            return Ok(guard);
        }
        let _ = std::fs::remove_dir(&probe);
        drop(guard);
        Unwritable::make(path)
    }

    fn make(path: &Path) -> Result<Unwritable, String> {
        let chattr = Command::new("chattr").arg("+i").arg(path).output();
        match chattr {
            Ok(out) if out.status.success() => return Ok(Unwritable::Immutable(path.into())),
            Ok(out) => eprintln!(
                "chattr +i failed ({}); trying a read-only bind mount",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => eprintln!("chattr unavailable ({e}); trying a read-only bind mount"),
        }
        let bind = Command::new("mount")
            .arg("--bind")
            .arg(path)
            .arg(path)
            .output();
        match bind {
            Ok(out) if out.status.success() => {
                let guard = Unwritable::ReadOnlyBind(path.into());
                let ro = Command::new("mount")
                    .args(["-o", "remount,ro,bind"])
                    .arg(path)
                    .output()
                    .map_err(|e| e.to_string())?;
                if ro.status.success() {
                    Ok(guard)
                } else {
                    Err(format!(
                        "remount,ro failed: {}",
                        String::from_utf8_lossy(&ro.stderr).trim()
                    ))
                }
            }
            Ok(out) => Err(format!(
                "mount --bind failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(e) => Err(format!("cannot run mount: {e}")),
        }
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        match self {
            Unwritable::Immutable(p) => {
                let _ = Command::new("chattr").arg("-i").arg(&*p).status();
            }
            Unwritable::ReadOnlyBind(p) => {
                let _ = Command::new("umount").arg(&*p).status();
            }
            Unwritable::Mode(p, mode) => {
                let _ = std::fs::set_permissions(&*p, PermissionsExt::from_mode(*mode));
            }
        }
    }
}

#[test]
fn an_unwritable_target_fails_the_batch_with_every_file_intact() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n"), ("c.txt", b"c\n")]);
    let root = dir.path();
    let before = work(root);
    let guard = match Unwritable::make(&root.join("b.txt")) {
        Ok(g) => g,
        Err(why) => {
            eprintln!("skipped: cannot make a file unwritable for root: {why}");
            return;
        }
    };
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** Update File: c.txt\n-c\n+C\n*** End Patch\n",
    );
    let code = out.status.code();
    assert!(code == Some(4) || code == Some(1), "{}", describe(&out));
    if code == Some(4) {
        let msg = message(&out);
        assert!(
            msg.contains("b.txt") && msg.contains("every file was restored"),
            "{msg}"
        );
    }
    assert_eq!(work(root), before);
    assert_eq!(pre_images(root, false), Vec::<String>::new());
    assert!(!journal(root, false).exists());
    drop(guard);
    // Writable again: the same batch applies.
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

// ---------------------------------------------------------------------------------------------
// 6. A file changed between staging and rename, 7. two processes on one root

#[test]
fn a_file_changed_while_the_batch_is_prepared_refuses_it() {
    let dir = batch_tree(false);
    let root = dir.path();
    let pause = tempfile::tempdir().unwrap();
    let pause_file = pause.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        BATCH,
        &[
            ("LANCET_PAUSE_AT", "verify"),
            ("LANCET_PAUSE_FILE", pause_file.to_str().unwrap()),
        ],
    );
    wait_paused(&mut child, &pause_file);
    std::fs::write(root.join("b.txt"), "someone else wrote this\n").unwrap();
    let expected = work(root);
    std::fs::remove_file(&pause_file).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "refused");
    let msg = v["message"].as_str().unwrap();
    assert!(msg.contains("b.txt changed on disk"), "{msg}");
    assert!(msg.contains("nothing was written"), "{msg}");
    assert_eq!(work(root), expected, "nothing written, no temp file");
    assert_eq!(pre_images(root, false), Vec::<String>::new());
    assert!(!journal(root, false).exists());
    assert_eq!(log(root), Vec::<serde_json::Value>::new());
    assert_eq!(
        checkpoint_refs(&root.join(".lancet/git")),
        Vec::<String>::new()
    );
}

/// Every temp file of a batch is written before any is synced: their fsyncs then go out
/// together and share the file system's log commits, instead of one commit per file.
#[test]
fn every_temp_file_is_written_before_their_contents_are_synced() {
    let dir = batch_tree(false);
    let root = dir.path();
    let (_, new) = old_and_new(false);
    let pause = tempfile::tempdir().unwrap();
    let pause_file = pause.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        BATCH,
        &[
            ("LANCET_PAUSE_AT", "sync_temps"),
            ("LANCET_PAUSE_FILE", pause_file.to_str().unwrap()),
        ],
    );
    wait_paused(&mut child, &pause_file);
    let temps: Vec<String> = work(root)
        .into_keys()
        .filter(|k| k.rsplit('/').next().unwrap().starts_with(".lancet-"))
        .collect();
    // a, b, new/sub/c and lib/m: the four files the batch puts in place.
    assert_eq!(temps.len(), 4, "temp files at the first sync: {temps:?}");
    std::fs::remove_file(&pause_file).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(work(root), new);
}

#[test]
fn a_second_process_waits_for_the_lock_then_gives_up() {
    let dir = batch_tree(false);
    let root = dir.path();
    let (_, new) = old_and_new(false);
    let pause = tempfile::tempdir().unwrap();
    let pause_file = pause.path().join("paused");
    let mut a = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        BATCH,
        &[
            ("LANCET_PAUSE_AT", "rename"),
            ("LANCET_PAUSE_FILE", pause_file.to_str().unwrap()),
        ],
    );
    wait_paused(&mut a, &pause_file);
    let in_flight = work(root);
    let started = Instant::now();
    let b = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: keep.txt\n-untouched\n+touched\n*** End Patch\n",
    );
    let waited = started.elapsed();
    assert_eq!(b.status.code(), Some(4), "{}", describe(&b));
    let msg = message(&b);
    assert!(
        msg.contains("another lancet process is working on this root"),
        "{msg}"
    );
    assert!(
        waited >= Duration::from_millis(2_500) && waited < Duration::from_secs(15),
        "B waited {waited:?}"
    );
    // An explicit recover must not roll back the batch in flight either.
    let rec = lancet(&["recover", "-C", r(root), "--json"], b"");
    assert_eq!(rec.status.code(), Some(4), "{}", describe(&rec));
    assert!(
        message(&rec).contains("another lancet process"),
        "{}",
        describe(&rec)
    );
    assert_eq!(work(root), in_flight, "B or recover touched the tree");
    assert!(journal(root, false).exists(), "A's journal is still there");
    std::fs::remove_file(&pause_file).unwrap();
    let out = a.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(json(&out)["status"], "applied");
    assert_eq!(work(root), new);
    assert_eq!(
        std::fs::read(root.join("keep.txt")).unwrap(),
        b"untouched\n"
    );
    assert_nothing_to_recover(root, "after A");
}

// ---------------------------------------------------------------------------------------------
// 8. Modes, symlinks, hard links

#[test]
fn modes_symlinks_and_hard_links_survive() {
    let dir = temp_tree(&[
        ("run.sh", b"#!/bin/sh\necho a\n"),
        ("real/target.txt", b"t\n"),
        ("h1.txt", b"x\n"),
    ]);
    let root = dir.path();
    std::fs::set_permissions(root.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("real/target.txt", root.join("link.txt")).unwrap();
    std::fs::hard_link(root.join("h1.txt"), root.join("h2.txt")).unwrap();

    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** Update File: link.txt\n-t\n+T\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(mode(&root.join("run.sh")), 0o755);
    assert_eq!(
        std::fs::read(root.join("run.sh")).unwrap(),
        b"#!/bin/sh\necho b\n"
    );
    let link = std::fs::symlink_metadata(root.join("link.txt")).unwrap();
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert_eq!(
        std::fs::read_link(root.join("link.txt")).unwrap(),
        PathBuf::from("real/target.txt")
    );
    assert_eq!(std::fs::read(root.join("real/target.txt")).unwrap(), b"T\n");

    // The mode also survives a rollback (the pre-image is the original inode).
    let before = work(root);
    let out = lancet(
        &["apply", "-C", r(root), "--json", "--test", "false"],
        b"*** Begin Patch\n*** Update File: run.sh\n-echo b\n+echo c\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert_eq!(mode(&root.join("run.sh")), 0o755);
    assert_eq!(work(root), before);
}

/// By default a file with two names gets its own inode when edited: the other name keeps the
/// old content (an edit never reaches through a link, maybe to a file outside the root), and
/// the report says so.
#[test]
fn a_hard_linked_file_gets_its_own_copy_by_default() {
    let dir = temp_tree(&[("h1.txt", b"x\n")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    std::fs::hard_link(root.join("h1.txt"), outside.path().join("elsewhere.txt")).unwrap();
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: h1.txt\n-x\n+X\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["notes"]
            .to_string()
            .contains("h1.txt had other hard links"),
        "{v:#}"
    );
    assert_eq!(std::fs::read(root.join("h1.txt")).unwrap(), b"X\n");
    assert_eq!(
        std::fs::read(outside.path().join("elsewhere.txt")).unwrap(),
        b"x\n",
        "the name outside the root is not written through"
    );
    assert_eq!(std::fs::metadata(root.join("h1.txt")).unwrap().nlink(), 1);
    // Undone: the content comes back (in the file's own inode).
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("h1.txt")).unwrap(), b"x\n");
}

/// With the person's `[edit] hard_links = "in-place"`, a file with two names is edited in
/// place: both names see the edit, still one inode; rolled back, undone and recovered in place
/// too.
#[test]
fn a_hard_linked_file_is_edited_in_place_when_the_person_chose_it() {
    let dir = temp_tree(&[("h1.txt", b"x\n"), ("run.sh", b"#!/bin/sh\necho b\n")]);
    let root = dir.path();
    let person = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(person.path().join("lancet")).unwrap();
    std::fs::write(
        person.path().join("lancet/config.toml"),
        "[edit]\nhard_links = \"in-place\"\n",
    )
    .unwrap();
    let config_home = person.path().to_str().unwrap();
    let run = |args: &[&str], stdin: &[u8], extra: &[(&str, &str)]| {
        let mut env = vec![("XDG_CONFIG_HOME", config_home)];
        env.extend_from_slice(extra);
        lancet_env(args, stdin, &env)
    };
    std::fs::hard_link(root.join("h1.txt"), root.join("h2.txt")).unwrap();
    let inode = std::fs::metadata(root.join("h1.txt")).unwrap().ino();
    let out = run(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: h1.txt\n-x\n+X\n*** End Patch\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let one_file = |content: &[u8]| {
        let (m1, m2) = (
            std::fs::metadata(root.join("h1.txt")).unwrap(),
            std::fs::metadata(root.join("h2.txt")).unwrap(),
        );
        assert_eq!(
            (m1.ino(), m2.ino(), m1.nlink()),
            (inode, inode, 2),
            "one file, two names"
        );
        assert_eq!(std::fs::read(root.join("h2.txt")).unwrap(), content);
    };
    one_file(b"X\n");
    // Rolled back in place too (a failing test), and undone in place.
    let out = run(
        &["apply", "-C", r(root), "--json", "--test", "false"],
        b"*** Begin Patch\n*** Update File: h2.txt\n-X\n+Y\n*** End Patch\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    one_file(b"X\n");
    let out = run(&["undo", "-C", r(root)], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    one_file(b"x\n");
    // A crash after the in-place write (before the commit point): recovery writes the old
    // content back into the same inode.
    let out = run(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: h1.txt\n-x\n+Z\n*** Update File: run.sh\n-echo b\n+echo z\n*** End Patch\n",
        &[("LANCET_FAILPOINT", "crash:commit:1")],
    );
    assert_eq!(out.status.signal(), Some(SIGABRT), "{}", describe(&out));
    one_file(b"Z\n");
    let out = run(&["recover", "-C", r(root)], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    one_file(b"x\n");
}

// ---------------------------------------------------------------------------------------------
// 9. A real repository: HEAD, index, stash, untracked and ignored files are never touched

/// `git diff <id>^ <id>` shows exactly the three files of the batch.
fn assert_checkpoint_diff_is_the_batch(root: &Path, id: &str) {
    let range = [format!("{}^", rev(id)), rev(id)];
    let diff = |extra: &[&str]| {
        let mut args = vec!["diff"];
        args.extend_from_slice(extra);
        args.extend(range.iter().map(String::as_str));
        git(root, &args)
    };
    assert_eq!(diff(&["--name-only"]), "a.txt\nb.txt\nnew.txt");
    let stat = diff(&["--stat"]);
    for want in ["a.txt", "b.txt", "new.txt", "3 files changed"] {
        assert!(stat.contains(want), "{want} missing from\n{stat}");
    }
    assert_eq!(diff(&[]).matches("diff --git").count(), 3);
}

#[test]
fn a_failed_test_run_leaves_the_repository_exactly_as_it_was() {
    let dir = temp_tree(&[
        ("a.txt", b"a\n"),
        ("b.txt", b"b\n"),
        ("dirty.txt", b"d\n"),
        ("staged.txt", b"s\n"),
        ("stashed.txt", b"z\n"),
        (".gitignore", b"*.log\n"),
    ]);
    let root = dir.path();
    commit_all(root);
    std::fs::write(root.join("stashed.txt"), "z, changed then stashed\n").unwrap();
    git(root, &["stash", "push", "-q", "-m", "work in progress"]);
    std::fs::write(root.join("staged.txt"), "s, staged\n").unwrap();
    git(root, &["add", "staged.txt"]);
    std::fs::write(root.join("dirty.txt"), "d, not staged\n").unwrap();
    std::fs::write(root.join("untracked.txt"), "u\n").unwrap();
    std::fs::write(root.join("build.log"), "ignored\n").unwrap();
    assert_eq!(
        git(root, &["status", "--porcelain", "--ignored"]),
        " M dirty.txt\nM  staged.txt\n?? untracked.txt\n!! build.log"
    );

    let head = git(root, &["rev-parse", "HEAD"]);
    let stash = git(root, &["rev-parse", "refs/stash"]);
    let stash_list = git(root, &["stash", "list"]);
    let refs = foreign_refs(root);
    let index = std::fs::read(root.join(".git/index")).unwrap();
    let tree = work(root);
    let unchanged = |when: &str| {
        assert_eq!(git(root, &["rev-parse", "HEAD"]), head, "{when}: HEAD");
        assert_eq!(
            git(root, &["rev-parse", "refs/stash"]),
            stash,
            "{when}: stash"
        );
        assert_eq!(
            git(root, &["stash", "list"]),
            stash_list,
            "{when}: stash list"
        );
        assert_eq!(foreign_refs(root), refs, "{when}: refs");
        assert_eq!(
            std::fs::read(root.join(".git/index")).unwrap(),
            index,
            "{when}: index bytes"
        );
        assert_eq!(
            git(root, &["symbolic-ref", "HEAD"]),
            "refs/heads/main",
            "{when}: branch"
        );
    };
    let edit = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** Add File: new.txt\n+n\n*** End Patch\n";

    let out = lancet(&["apply", "-C", r(root), "--json", "--test", "false"], edit);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "test_failed");
    assert_eq!(v["test"]["passed"], false);
    assert_eq!(v["test"]["exit_code"], 1);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("the batch was rolled back: 3 file(s) restored"),
        "{}",
        describe(&out)
    );
    assert_eq!(work(root), tree, "every file byte-identical");
    unchanged("after the failed test");
    assert_eq!(pre_images(root, true), Vec::<String>::new());
    assert!(!journal(root, true).exists());

    let out = lancet(&["apply", "-C", r(root), "--json", "--test", "true"], edit);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "applied");
    assert_eq!(v["test"]["passed"], true);
    let id = v["checkpoint"]
        .as_str()
        .expect("a checkpoint id")
        .to_string();
    assert_checkpoint_diff_is_the_batch(root, &id);
    unchanged("after the applied batch");
    let mut expected = tree.clone();
    for (path, bytes) in [("a.txt", "A\n"), ("b.txt", "B\n"), ("new.txt", "n\n")] {
        expected.insert(
            path.to_string(),
            Node::File {
                bytes: bytes.as_bytes().to_vec(),
                executable: false,
            },
        );
    }
    assert_eq!(work(root), expected);
    assert_eq!(pre_images(root, true), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------------
// 10. Checkpoints without commits, outside git, and --no-checkpoint

const SMALL_EDIT: &[u8] =
    b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: n.txt\n+n\n*** End Patch\n";

/// The checkpoint `id` in the repository at `repo` is exactly [`SMALL_EDIT`].
fn assert_checkpoint_is_the_batch(repo: &Path, id: &str) {
    let id = &rev(id);
    assert_eq!(checkpoint_refs(repo), vec![id.clone()]);
    assert_eq!(
        git(repo, &["diff", "--name-only", &format!("{id}^"), id]),
        "a.txt\nn.txt"
    );
    assert_eq!(git(repo, &["show", &format!("{id}^:a.txt")]), "a");
    assert_eq!(git(repo, &["show", &format!("{id}:a.txt")]), "A");
    assert_eq!(git(repo, &["show", &format!("{id}:n.txt")]), "n");
    assert_eq!(
        git(repo, &["rev-list", "--count", id]),
        "2",
        "before and after"
    );
    // Every object the checkpoint names is in the repository, whole (lancet writes them itself).
    let fsck = git_output(repo, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        fsck.status.success() && fsck.stdout.is_empty(),
        "{}",
        describe(&fsck)
    );
}

#[test]
fn checkpoints_work_in_a_repository_without_commits() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    git(root, &["init", "-q"]);
    let out = lancet(&["apply", "-C", r(root), "--json"], SMALL_EDIT);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = json(&out)["checkpoint"].as_str().unwrap().to_string();
    assert_checkpoint_is_the_batch(root, &id);
    assert!(
        !git_output(root, &["rev-parse", "--verify", "-q", "HEAD"])
            .status
            .success(),
        "HEAD is still unborn"
    );
    assert!(!root.join(".git/index").exists(), "no index was created");
    assert!(!root.join(".lancet").exists(), "state lives in .git/lancet");
    let entries = log(root);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["id"], id.as_str());
}

#[test]
fn checkpoints_outside_git_live_in_a_private_repository() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    assert!(
        !git_output(root, &["rev-parse", "--git-dir"])
            .status
            .success(),
        "the temp dir must not be inside a repository"
    );
    let out = lancet(&["apply", "-C", r(root), "--json"], SMALL_EDIT);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = json(&out)["checkpoint"].as_str().unwrap().to_string();
    let private = root.join(".lancet/git");
    assert!(private.is_dir());
    assert_eq!(
        git(&private, &["rev-parse", "--is-bare-repository"]),
        "true"
    );
    assert_checkpoint_is_the_batch(&private, &id);
    assert!(!root.join(".git").exists());
    assert_eq!(log(root).len(), 1);
}

/// A checkpoint is the batch: `git diff <id>^ <id>` shows exactly what it changed, with the
/// id the report gives.
#[test]

fn the_checkpoint_id_names_a_revision() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    commit_all(root);
    let out = lancet(&["apply", "-C", r(root), "--json"], SMALL_EDIT);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = json(&out)["checkpoint"].as_str().unwrap().to_string();
    assert_eq!(
        git(
            root,
            &[
                "diff",
                "--name-only",
                &format!("lancet/checkpoints/{id}^"),
                &format!("lancet/checkpoints/{id}")
            ]
        ),
        "a.txt\nn.txt"
    );
    // The log names the after commit too, which any git command takes.
    let commit = log(root)[0]["commit"].as_str().unwrap().to_string();
    assert_eq!(
        git(
            root,
            &["diff", "--name-only", &format!("{commit}^"), &commit]
        ),
        "a.txt\nn.txt"
    );
}

/// A batch over paths as HEAD has them takes HEAD itself as its before commit (one object
/// fewer to write per call); over paths changed since HEAD, a before commit of its own records
/// the disk. Either way `git diff <id>^ <id>` is exactly the batch.
#[test]
fn a_clean_tree_checkpoints_onto_head_itself() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    commit_all(root);
    let head = git(root, &["rev-parse", "HEAD"]);
    let out = lancet(&["apply", "-C", r(root), "--json"], SMALL_EDIT);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = rev(json(&out)["checkpoint"].as_str().unwrap());
    assert_eq!(git(root, &["rev-parse", &format!("{id}^")]), head);
    assert_eq!(
        git(root, &["diff", "--name-only", &format!("{id}^"), &id]),
        "a.txt\nn.txt"
    );
    // a.txt now differs from HEAD: the next batch records the disk in a before commit.
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: a.txt\n-A\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = rev(json(&out)["checkpoint"].as_str().unwrap());
    let before = git(root, &["rev-parse", &format!("{id}^")]);
    assert_ne!(before, head);
    assert_eq!(git(root, &["rev-parse", &format!("{before}^")]), head);
    assert_eq!(git(root, &["show", &format!("{id}^:a.txt")]), "A");
    assert_eq!(git(root, &["show", &format!("{id}:a.txt")]), "B");
    assert_eq!(git(root, &["rev-parse", "HEAD"]), head, "HEAD never moves");
}

#[test]
fn no_checkpoint_records_no_ref_and_no_log_entry() {
    for in_git in [true, false] {
        let dir = temp_tree(&[("a.txt", b"a\n")]);
        let root = dir.path();
        if in_git {
            commit_all(root);
        }
        let out = lancet(
            &["apply", "-C", r(root), "--json", "--no-checkpoint"],
            SMALL_EDIT,
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let v = json(&out);
        assert!(
            v.get("checkpoint").is_none_or(|c| c.is_null()),
            "git={in_git}: {v}"
        );
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
        assert_eq!(log(root), Vec::<serde_json::Value>::new(), "git={in_git}");
        let repo = if in_git {
            root.to_path_buf()
        } else {
            root.join(".lancet/git")
        };
        if repo.exists() {
            assert_eq!(checkpoint_refs(&repo), Vec::<String>::new(), "git={in_git}");
        }
        let undo = lancet(&["undo", "-C", r(root), "--json"], b"");
        assert_eq!(undo.status.code(), Some(1), "{}", describe(&undo));
        assert!(message(&undo).contains("no batch left to undo"));
    }
}

// ---------------------------------------------------------------------------------------------
// 11. log and undo

#[test]
fn three_undos_restore_the_original_tree_exactly() {
    let dir = temp_tree(&[
        ("a.txt", b"a\n"),
        ("b.txt", b"b\n"),
        ("m.txt", b"m\n"),
        ("lib/x.txt", b"x\n"),
    ]);
    let root = dir.path();
    let batches: [&[u8]; 3] = [
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A1\n*** Add File: lib/n1.txt\n+n1\n*** End Patch\n",
        b"*** Begin Patch\n*** Update File: a.txt\n-A1\n+A2\n*** Delete File: b.txt\n*** End Patch\n",
        b"*** Begin Patch\n*** Update File: m.txt\n*** Move to: lib/m.txt\n-m\n+M\n*** Update File: lib/n1.txt\n-n1\n+N1\n*** End Patch\n",
    ];
    let mut trees = vec![snapshot(root)];
    let mut ids = Vec::new();
    for (i, edit) in batches.iter().enumerate() {
        let out = lancet(&["apply", "-C", r(root), "--json"], edit);
        assert_eq!(out.status.code(), Some(0), "batch {i}: {}", describe(&out));
        ids.push(json(&out)["checkpoint"].as_str().unwrap().to_string());
        trees.push(snapshot(root));
    }
    let entries = log(root);
    let listed: Vec<&str> = entries.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [&ids[2], &ids[1], &ids[0]], "newest first");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for e in &entries {
        assert_eq!(e["format"], "patch");
        assert_eq!(e["undone"], false);
        assert!(e["test"].is_null());
        assert!(!e["summary"].as_str().unwrap().is_empty());
        assert!(now.abs_diff(e["time"].as_u64().unwrap()) < 3600);
    }
    let mode = |path: &str| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(root.join(path))
            .map(|m| m.permissions().mode() & 0o7777)
            .ok()
    };
    assert_eq!(
        entries[1]["files"],
        serde_json::json!([
            {"path": "a.txt", "action": "update", "mode": mode("a.txt")},
            {"path": "b.txt", "action": "delete", "mode": mode("a.txt")}
        ])
    );
    let text = lancet(&["log", "-C", r(root)], b"");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with(&ids[2]), "{text}");

    for step in (0..3).rev() {
        let out = lancet(&["undo", "-C", r(root), "--json"], b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "undo {step}: {}",
            describe(&out)
        );
        assert!(message(&out).starts_with(&format!("Undid batch {}", ids[step])));
        assert_eq!(snapshot(root), trees[step], "after undoing batch {step}");
    }
    assert!(log(root).iter().all(|e| e["undone"] == true));
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(message(&out).contains("no batch left to undo"));
    assert_eq!(snapshot(root), trees[0]);
    assert_nothing_to_recover(root, "after the undos");
}

/// A batch put back by hand: undo says so (exit 0, status already_applied), writes nothing and
/// marks it undone; one of two files put back is named beside the one undo restores.
#[test]
fn undo_of_a_batch_reverted_by_hand_says_already_restored() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let patch = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n";
    let out = lancet(&["apply", "-C", r(root)], patch);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    std::fs::write(root.join("b.txt"), "b\n").unwrap();
    let before = snapshot(root);
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("is already restored"), "{said}");
    assert!(said.contains("Nothing was written"), "{said}");
    assert_eq!(snapshot(root), before);
    assert_eq!(log(root)[0]["undone"], true);

    // Half put back: the undo restores the other half and says what it found.
    let out = lancet(&["apply", "-C", r(root)], patch);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let msg = message(&out);
    assert!(msg.contains("1 file(s) restored"), "{msg}");
    assert!(
        msg.contains("1 file(s) already held their content from before it"),
        "{msg}"
    );
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
}

#[test]
fn undo_leaves_a_path_changed_since_alone_unless_forced() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let original = snapshot(root);
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let id = json(&out)["checkpoint"].as_str().unwrap().to_string();
    std::fs::write(root.join("a.txt"), "edited by hand\n").unwrap();

    // All or nothing, like apply: one changed file refuses the whole undo.
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "refused");
    let a = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "a.txt")
        .expect("a.txt reported");
    assert_eq!(a["kind"], "changed_since");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Nothing was undone: a.txt changed since batch"),
        "{msg}"
    );
    assert!(msg.contains(&format!("lancet undo {id} --force")), "{msg}");
    assert!(
        msg.contains(&format!("lancet undo {id} --partial")),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"edited by hand\n"
    );
    assert_eq!(
        std::fs::read(root.join("b.txt")).unwrap(),
        b"B\n",
        "nothing written"
    );
    assert_eq!(log(root)[0]["undone"], false);

    let out = lancet(&["undo", "-C", r(root), "--json", "--force"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(snapshot(root), original);
    assert_eq!(log(root)[0]["undone"], true);
}

/// `undo --partial` restores what did not change, leaves the rest, and says it is partial; the
/// batch stays live in the log (it is not wholly undone).
#[test]
fn a_partial_undo_is_asked_for_and_reported_as_partial() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::write(root.join("a.txt"), "edited by hand\n").unwrap();
    let out = lancet(&["undo", "-C", r(root), "--json", "--partial"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "partial");
    let msg = v["message"].as_str().unwrap();
    assert!(msg.contains("1 file(s) restored"), "{msg}");
    assert!(
        msg.contains("Left alone (changed since the batch): a.txt."),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"edited by hand\n"
    );
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
    assert_eq!(log(root)[0]["undone"], false);
    let out = lancet(&["undo", "-C", r(root), "--force", "--partial"], b"");
    assert_eq!(out.status.code(), Some(2), "--force and --partial conflict");
}

/// An undo that can restore nothing says so (and why), exits 1, and keeps the batch live.
#[test]
fn an_undo_that_restores_nothing_says_why() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::write(root.join("a.txt"), "edited by hand\n").unwrap();
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let msg = json(&out)["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("Nothing was undone: a.txt changed since batch"),
        "{msg}"
    );
    assert!(!msg.contains("Undid"), "{msg}");
    assert_eq!(log(root)[0]["undone"], false);
}

/// Undoing a batch that created a directory removes it again: the tree is the original.
#[test]

fn undo_removes_the_directories_the_batch_created() {
    let dir = batch_tree(false);
    let root = dir.path();
    let old = work(root);
    let out = apply_batch(root, true, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(work(root), old);
}

// ---------------------------------------------------------------------------------------------
// 12. --test: timeout, output cut, the ledger

const A_EDIT: &[u8] = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n";

#[test]
fn a_test_that_times_out_rolls_the_batch_back() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let before = snapshot(root);
    let started = Instant::now();
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--test",
            "sleep 5",
            "--test-timeout",
            "1",
        ],
        A_EDIT,
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert!(took < Duration::from_millis(4_500), "took {took:?}");
    let v = json(&out);
    assert_eq!(v["status"], "test_failed");
    assert_eq!(v["test"]["timed_out"], true);
    assert_eq!(v["test"]["passed"], false);
    assert!(v["message"].as_str().unwrap().contains("timed out"));
    assert_eq!(snapshot(root), before);
    assert_eq!(log(root)[0]["undone"], true);
    assert_eq!(log(root)[0]["test"]["passed"], false);
}

#[test]
fn a_test_runs_in_the_root_after_the_commit() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--test",
            "grep -q A a.txt",
        ],
        A_EDIT,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
    assert_eq!(log(root)[0]["test"]["passed"], true);
}

#[test]
fn long_test_output_is_cut_to_the_limit() {
    let noisy =
        "seq 1 20000; echo 'FAILED test_thing: 1 != 2'; seq 1 20000; echo '1 failed'; exit 1";
    for (limit, args) in [(1000, vec!["--test-output-bytes", "1000"]), (8192, vec![])] {
        let dir = temp_tree(&[("a.txt", b"a\n")]);
        let root = dir.path();
        let before = snapshot(root);
        let mut all = vec!["apply", "-C", r(root), "--json", "--test", noisy];
        all.extend(args);
        let out = lancet(&all, A_EDIT);
        assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
        let v = json(&out);
        let output = v["test"]["output"].as_str().unwrap();
        assert!(output.len() <= limit, "{} > {limit}", output.len());
        assert!(
            output.starts_with("FAILED test_thing: 1 != 2\n"),
            "{output}"
        );
        assert!(output.ends_with("1 failed\n"), "{output}");
        assert!(output.contains("line(s) omitted"));
        assert!(v["message"].as_str().unwrap().contains("FAILED test_thing"));
        assert_eq!(snapshot(root), before);
    }
}

/// Any limit is honoured, however small, and the batch is still rolled back.
#[test]

fn a_tiny_test_output_limit_is_honoured() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let before = snapshot(root);
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--test",
            "seq 1 1000; exit 1",
            "--test-output-bytes",
            "50",
        ],
        A_EDIT,
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert!(json(&out)["test"]["output"].as_str().unwrap().len() <= 50);
    assert_eq!(snapshot(root), before);
}

#[test]
fn the_third_rollback_of_a_file_says_stop_retrying() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let before = snapshot(root);
    for attempt in 1..=3 {
        let out = lancet(
            &["apply", "-C", r(root), "--json", "--test", "false"],
            A_EDIT,
        );
        assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
        let msg = message(&out);
        if attempt < 3 {
            assert!(!msg.contains("Stop retrying"), "attempt {attempt}: {msg}");
            assert!(msg.contains("resend it"), "attempt {attempt}: {msg}");
        } else {
            assert!(
                msg.contains("Stop retrying: a.txt rolled back 3 times"),
                "attempt {attempt}: {msg}"
            );
        }
        assert_eq!(snapshot(root), before);
        // A passing batch on another file in between does not reset a.txt's count.
        let edit =
            format!("*** Begin Patch\n*** Update File: b.txt\n-b\n+b{attempt}\n*** End Patch\n");
        let out = lancet(
            &[
                "apply",
                "-C",
                r(root),
                "--json",
                "--test",
                "true",
                "--no-checkpoint",
            ],
            edit.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
    }
}

#[test]
fn rollbacks_older_than_twenty_batches_do_not_count() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b0\n")]);
    let root = dir.path();
    let fail = |root: &Path| {
        let out = lancet(
            &[
                "apply",
                "-C",
                r(root),
                "--json",
                "--no-checkpoint",
                "--test",
                "false",
            ],
            A_EDIT,
        );
        assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
        message(&out)
    };
    fail(root);
    fail(root);
    // 19 passing batches: the first two rollbacks fall out of the last 20.
    for i in 1..=19 {
        let edit = format!(
            "*** Begin Patch\n*** Update File: b.txt\n-b{}\n+b{i}\n*** End Patch\n",
            i - 1
        );
        let out = lancet(
            &[
                "apply",
                "-C",
                r(root),
                "--json",
                "--no-checkpoint",
                "--test",
                "true",
            ],
            edit.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let msg = fail(root);
    assert!(!msg.contains("Stop retrying"), "{msg}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
}

/// A checkpoint writes the batch's objects, not the repository's. In a packed repository of
/// 300 files, one changed file adds a few loose objects (blob, trees, two commits) and no pack,
/// so a long run of small calls does not pile up packs; a 30-file batch adds one pack holding
/// its own objects, never the 300 blobs.
#[test]
fn a_checkpoint_holds_only_the_batch_loose_when_small_one_pack_when_large() {
    let files: Vec<(String, Vec<u8>)> = (0..300)
        .map(|i| {
            let body: String = (0..200).map(|l| format!("file {i} line {l}\n")).collect();
            (format!("d{}/f{i}.txt", i % 3), body.into_bytes())
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let dir = temp_tree(&refs);
    commit_all(dir.path());
    git(dir.path(), &["gc", "-q"]);
    let packs = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join(".git/objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "idx"))
            .collect();
        v.sort();
        v
    };
    let loose = |dir: &Path| -> usize {
        let counted = git(dir, &["count-objects"]);
        counted.split_whitespace().next().unwrap().parse().unwrap()
    };
    let before = packs(dir.path());
    assert_eq!(loose(dir.path()), 0);
    let edit = b"*** Begin Patch\n*** Update File: d1/f1.txt\n-file 1 line 7\n+file 1 line seven\n*** End Patch\n";
    let out = lancet(&["apply", "-C", r(dir.path())], edit);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(packs(dir.path()), before);
    // The new blob, the new root and d1 trees of *after*, the two commits; *before* equals
    // HEAD's tree here. Never the 300 blobs.
    let small = loose(dir.path());
    assert!((4..=8).contains(&small), "{small} loose objects");

    let mut edit = String::from("*** Begin Patch\n");
    for i in 0..30 {
        edit.push_str(&format!(
            "*** Update File: d{}/f{i}.txt\n-file {i} line 9\n+file {i} line nine\n",
            i % 3
        ));
    }
    edit.push_str("*** End Patch\n");
    let out = lancet(&["apply", "-C", r(dir.path())], edit.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(loose(dir.path()), small);
    let new: Vec<PathBuf> = packs(dir.path())
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    let objects = git(dir.path(), &["verify-pack", "-v", new[0].to_str().unwrap()])
        .lines()
        .filter(|l| l.len() > 40 && l.as_bytes()[40] == b' ')
        .count();
    // 30 new blobs (f1's pre-image is the small batch's blob, already stored), the trees of
    // both commits (root and three directories each), two commits.
    assert!(
        (30..=42).contains(&objects),
        "{objects} objects in the pack"
    );
    git(dir.path(), &["fsck", "--no-progress"]);
}

/// Large batches' packs do not pile up: once `FOLD_AT` of lancet's packs stand, the batch that
/// made them so folds them into one after its commit point (every object lookup opened every
/// pack's index: a hundred packs made a one-line edit's checkpoint lookups ten times slower).
/// The repository's own pack is never touched, and every checkpoint stays whole: each still
/// diffs to exactly its batch, `git fsck` is clean, and the newest is undone.
#[test]
fn lancets_checkpoint_packs_are_folded_into_one_once_they_pile_up() {
    let fold_at = lancet::internals::store::FOLD_AT;
    let files: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i % 2),
                format!("file {i}\n").into_bytes(),
            )
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let dir = temp_tree(&refs);
    let root = dir.path();
    commit_all(root);
    git(root, &["gc", "-q"]);
    let packs = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join(".git/objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pack"))
            .collect();
        v.sort();
        v
    };
    let own = packs(root);
    assert_eq!(own.len(), 1, "{own:?}");
    let batches = fold_at + 1;
    for round in 0..batches {
        let mut edit = String::from("*** Begin Patch\n");
        for (i, (path, _)) in files.iter().enumerate() {
            let old = if round == 0 {
                format!("file {i}")
            } else {
                format!("file {i} round {}", round - 1)
            };
            edit.push_str(&format!(
                "*** Update File: {path}\n-{old}\n+file {i} round {round}\n"
            ));
        }
        edit.push_str("*** End Patch\n");
        let out = lancet(&["apply", "-C", r(root)], edit.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let now = packs(root);
    assert!(
        now.contains(&own[0]),
        "the repository's own pack was removed: {now:?}"
    );
    // The first FOLD_AT folded into one, then the last batch's own: two of lancet's.
    assert_eq!(now.len(), 1 + 2, "{now:?}");
    git(root, &["fsck", "--no-progress", "--strict"]);
    let checkpoints = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/lancet/checkpoints/",
        ],
    );
    let checkpoints: Vec<&str> = checkpoints.lines().collect();
    assert_eq!(checkpoints.len(), batches);
    for checkpoint in &checkpoints {
        let changed = git(
            root,
            &["diff", "--name-only", &format!("{checkpoint}^"), checkpoint],
        );
        assert_eq!(
            changed.lines().count(),
            files.len(),
            "{checkpoint}: {changed}"
        );
    }
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let last = batches - 1;
    let expected = if last == 0 {
        "file 0\n".to_string()
    } else {
        format!("file 0 round {}\n", last - 1)
    };
    assert_eq!(
        std::fs::read_to_string(root.join("d0/f0.txt")).unwrap(),
        expected
    );
}

/// An id prefix that names several batches is refused like git refuses one, listing them, and
/// undoes nothing.
#[test]
fn undo_by_an_ambiguous_id_prefix_is_refused() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    for (from, to) in [("a", "b"), ("b", "c")] {
        let patch =
            format!("*** Begin Patch\n*** Update File: a.txt\n-{from}\n+{to}\n*** End Patch\n");
        let out = lancet(&["apply", "-C", r(root)], patch.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let ids: Vec<String> = log(root)
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    let common: String = ids[0]
        .chars()
        .zip(ids[1].chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a)
        .collect();
    let out = lancet(&["undo", "-C", r(root), "--json", &common], b"");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "ambiguous_id", "{v}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"c\n");
}

/// A batch that writes both `x` and `x/y` is refused at staging (exit 1, nothing written), not
/// half-written and reported as an I/O failure.
#[test]
fn a_batch_writing_a_file_and_a_path_inside_it_is_refused_before_writing() {
    let dir = temp_tree(&[("keep.txt", b"k\n")]);
    let root = dir.path();
    let before = snapshot(root);
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Add File: x\n+a\n*** Add File: x/y\n+b\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "path_conflict", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("x/y would be inside x")
    );
    assert_eq!(snapshot(root), before);
}

/// A file whose name is as long as the file system allows is edited: the temp file beside it
/// has a short name of its own.
#[test]
fn a_file_with_a_name_at_name_max_can_be_edited() {
    let name = format!("{}.txt", "n".repeat(251));
    let dir = temp_tree(&[(name.as_str(), b"a\n")]);
    let root = dir.path();
    let patch = format!("*** Begin Patch\n*** Update File: {name}\n-a\n+b\n*** End Patch\n");
    let out = lancet(&["apply", "-C", r(root)], patch.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join(&name)).unwrap(), b"b\n");
}

/// A root whose state directory cannot be created (read-only) is an environment failure named
/// as such, not "another lancet process holds the lock".
#[test]
fn an_unwritable_state_dir_is_named_as_such_not_as_a_busy_lock() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    // A file where the state directory would go: creating it fails at once, as on a read-only
    // mount, whoever runs the test (root ignores permission bits).
    std::fs::write(root.join(".lancet"), b"not a directory").unwrap();
    let out = lancet(
        &["apply", "-C", r(root), "--json", "--no-checkpoint"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "state_dir", "{v}");
    assert!(
        !v["message"]
            .as_str()
            .unwrap()
            .contains("another lancet process")
    );
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
}

/// A batch may not plant a state directory anywhere under the root, in any spelling: a forged
/// `sub/.lancet/journal.json` would steer a later `lancet -C sub` (#12 item 1, first half).
#[test]
fn a_batch_cannot_write_a_state_directory_anywhere() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let before = snapshot(root);
    for path in ["sub/.lancet/journal.json", ".LANCET/x", "a/.Lancet/y"] {
        let patch = format!("*** Begin Patch\n*** Add File: {path}\n+{{}}\n*** End Patch\n");
        let out = lancet(&["apply", "-C", r(root), "--json"], patch.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{path}: {}", describe(&out));
        assert_eq!(json(&out)["error"]["kind"], "unsafe_path", "{path}");
    }
    assert_eq!(snapshot(root), before);
}
