//! Confinement (issue #12): every file-system access goes through a handle on the root, so a
//! forged state file, a directory swapped for a link mid-batch, a link out of the root given to
//! a walker, or a FIFO cannot make lancet read or write outside the root, or hang.

use super::tree::{
    describe, lancet, lancet_env, lancet_in_background, snapshot, temp_tree, wait_paused,
};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::time::Duration;

fn r(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(out)))
}

/// A root and, beside it, a directory standing for "the rest of the machine".
fn root_and_outside() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("root");
    let outside = top.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    (top, root, outside)
}

/// lancet started with `args` and `stdin`, paused at the commit step `point`: the test acts,
/// then resumes it.
fn paused_at(point: &str, args: &[&str], stdin: &[u8]) -> (std::process::Child, Pause) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("paused");
    let mut child = lancet_in_background(
        args,
        stdin,
        &[
            ("LANCET_PAUSE_AT", point),
            ("LANCET_PAUSE_FILE", file.to_str().unwrap()),
        ],
    );
    wait_paused(&mut child, &file);
    (child, Pause { _dir: dir, file })
}

/// A paused lancet's pause file.
struct Pause {
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
}

impl Pause {
    /// Lets the paused lancet go on.
    fn resume(&self) {
        std::fs::remove_file(&self.file).unwrap();
    }
}

/// A journal planted under a sub-root, naming paths outside it (absolute, `..`), is set
/// aside untouched by the next command there, even `lancet log`; and no batch can plant one.
#[test]
fn a_forged_journal_is_rejected_and_touches_nothing() {
    let (_top, root, outside) = root_and_outside();
    let sub = root.join("sub");
    std::fs::create_dir_all(sub.join(".lancet/pre")).unwrap();
    let victim = outside.join("secret.txt");
    for (n, path) in [
        victim.to_str().unwrap().to_string(),
        "../../outside/secret.txt".to_string(),
    ]
    .iter()
    .enumerate()
    {
        // Well-formed and checksummed, as lancet writes them: only its paths are hostile.
        let body = serde_json::json!({
            "id": format!("forged{n}"),
            "root": "",
            "entries": [{
                "path": path,
                "pre": {"kind": "missing"},
                "post": {"kind": "file", "sha256": "00"},
                "temp": null,
                "backup": null
            }],
            "created_dirs": []
        })
        .to_string();
        let sum = lancet_sha256(body.as_bytes());
        std::fs::write(sub.join(".lancet/journal.json"), format!("{sum}\n{body}\n")).unwrap();
        // The post-image hash is what the victim has, so a naive recovery would delete it.
        let out = lancet(&["log", "-C", r(&sub)], b"");
        assert_eq!(
            std::fs::read(&victim).unwrap(),
            b"secret\n",
            "{path}: {}",
            describe(&out)
        );
        assert!(!sub.join(".lancet/journal.json").exists(), "set aside");
        assert!(sub.join(".lancet/journal.rejected").exists());
        let rec = lancet(&["recover", "-C", r(&sub)], b"");
        assert_eq!(rec.status.code(), Some(0), "{}", describe(&rec));
    }
    let out = lancet(
        &["apply", "-C", r(&root), "--json"],
        b"*** Begin Patch\n*** Add File: sub2/.lancet/journal.json\n+{}\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(!root.join("sub2").exists());
}

fn lancet_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A directory swapped for a link out of the root after staging, before the renames:
/// the write fails inside the root, every file is as it was, nothing appears outside.
#[test]
fn a_directory_swapped_for_a_link_mid_batch_cannot_redirect_the_write() {
    for point in ["write", "verify_again", "rename"] {
        let (_top, root, outside) = root_and_outside();
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::write(root.join("d/f.txt"), "one\n").unwrap();
        std::fs::write(root.join("top.txt"), "top\n").unwrap();
        std::fs::write(outside.join("f.txt"), "one\n").unwrap();
        let (child, pause) = paused_at(point, &["apply", "-C", r(&root), "--json"], b"*** Begin Patch\n*** Update File: top.txt\n-top\n+TOP\n*** Update File: d/f.txt\n-one\n+ONE\n*** End Patch\n");
        let outside_before = snapshot(&outside);
        std::fs::rename(root.join("d"), root.join("d.moved")).unwrap();
        symlink(&outside, root.join("d")).unwrap();
        pause.resume();
        let out = child.wait_with_output().unwrap();
        assert_ne!(out.status.code(), Some(0), "{point}: {}", describe(&out));
        assert_eq!(
            snapshot(&outside),
            outside_before,
            "{point}: nothing outside changed"
        );
        assert_eq!(
            std::fs::read(root.join("top.txt")).unwrap(),
            b"top\n",
            "{point}"
        );
        assert_eq!(
            std::fs::read(root.join("d.moved/f.txt")).unwrap(),
            b"one\n",
            "{point}"
        );
    }
}

/// After a batch, its directory becomes a link out of the root; undo refuses to follow
/// it (the path reads as changed), and writes nothing outside.
#[test]
fn undo_does_not_follow_a_directory_that_became_a_link() {
    let (_top, root, outside) = root_and_outside();
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(root.join("d/f.txt"), "one\n").unwrap();
    let out = lancet(
        &["apply", "-C", r(&root)],
        b"*** Begin Patch\n*** Update File: d/f.txt\n-one\n+ONE\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::rename(root.join("d"), root.join("d.moved")).unwrap();
    std::fs::write(outside.join("f.txt"), "ONE\n").unwrap();
    symlink(&outside, root.join("d")).unwrap();
    let before = snapshot(&outside);
    for force in [false, true] {
        let mut args = vec!["undo", "-C", r(&root), "--json"];
        if force {
            args.push("--force");
        }
        let out = lancet(&args, b"");
        assert_eq!(
            snapshot(&outside),
            before,
            "force={force}: {}",
            describe(&out)
        );
    }
}

/// `Update File: link.txt` + `Move to:` moves what the link shows and removes the link,
/// never its target; undo brings the link back as a link.
#[test]
fn moving_a_symlink_removes_the_link_not_its_target() {
    let dir = temp_tree(&[("target.txt", b"t1\nt2\n")]);
    let root = dir.path();
    symlink("target.txt", root.join("link.txt")).unwrap();
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: link.txt\n*** Move to: c.txt\n-t2\n+T2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("target.txt")).unwrap(), b"t1\nt2\n");
    assert_eq!(std::fs::read(root.join("c.txt")).unwrap(), b"t1\nT2\n");
    assert!(std::fs::symlink_metadata(root.join("link.txt")).is_err());
    let out = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let link = std::fs::symlink_metadata(root.join("link.txt")).unwrap();
    assert!(link.file_type().is_symlink(), "restored as a link");
    assert_eq!(
        std::fs::read_link(root.join("link.txt")).unwrap(),
        Path::new("target.txt")
    );
    assert!(!root.join("c.txt").exists());
    assert_eq!(std::fs::read(root.join("target.txt")).unwrap(), b"t1\nt2\n");
    // A deleted link comes back as a link too.
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(std::fs::symlink_metadata(root.join("link.txt")).is_err());
    assert!(root.join("target.txt").exists(), "the target stays");
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read_link(root.join("link.txt")).unwrap(),
        Path::new("target.txt")
    );
}

/// `rename` and `check` given a path through a link leading out are refused, and print
/// nothing of what is outside.
#[test]
fn walkers_refuse_a_link_out_of_the_root() {
    let (_top, root, outside) = root_and_outside();
    std::fs::write(outside.join("code.py"), "def old_name():\n    return 1\n").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    std::fs::write(root.join("in.py"), "x = 1\n").unwrap();
    let out = lancet(
        &[
            "rename",
            "old_name",
            "new_name",
            "out",
            "-C",
            r(&root),
            "--json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(json(&out)["error"]["kind"], "unsafe_path");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("return 1"), "{text}");
    let out = lancet(&["check", "-C", r(&root), "out/code.py"], b"");
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read(outside.join("code.py")).unwrap(),
        b"def old_name():\n    return 1\n"
    );
}

/// A FIFO is refused by read, check and edits without being opened (which would block).
#[test]
fn a_fifo_is_refused_without_being_opened() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    let fifo = root.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let runs: [(&[&str], &[u8]); 3] = [
        (&["read", "-C", r(root), "pipe"], b""),
        (&["check", "-C", r(root), "pipe"], b""),
        (
            &["apply", "-C", r(root)],
            b"*** Begin Patch\n*** Update File: pipe\n-a\n+b\n*** End Patch\n",
        ),
    ];
    for (args, stdin) in runs {
        let started = std::time::Instant::now();
        let out = lancet(args, stdin);
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?} hung");
        assert_ne!(out.status.code(), Some(0), "{args:?}: {}", describe(&out));
    }
}

/// Undo of a delete and of a move brings a 0600 file back as 0600, not 0644.
#[test]
fn undo_restores_the_exact_mode_of_a_deleted_or_moved_file() {
    let dir = temp_tree(&[("secret.txt", b"s\n"), ("key.txt", b"k\n")]);
    let root = dir.path();
    for name in ["secret.txt", "key.txt"] {
        std::fs::set_permissions(root.join(name), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Delete File: secret.txt\n*** Update File: key.txt\n*** Move to: moved/key.txt\n-k\n+K\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        mode(&root.join("moved/key.txt")),
        0o600,
        "a move keeps the mode"
    );
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(mode(&root.join("secret.txt")), 0o600);
    assert_eq!(mode(&root.join("key.txt")), 0o600);
    assert!(
        !root.join("moved").exists(),
        "the directory the batch made is gone"
    );
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// A file written by someone else after the temp files and the checkpoint, just before
/// the renames, refuses the batch: their content stands, nothing of the batch is written.
#[test]
fn a_write_just_before_the_renames_refuses_the_batch() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let (child, pause) = paused_at("verify_again", &["apply", "-C", r(root), "--json"], b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n");
    std::fs::write(root.join("b.txt"), "someone else\n").unwrap();
    pause.resume();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["status"], "refused");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("b.txt changed on disk")
    );
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(
        std::fs::read(root.join("b.txt")).unwrap(),
        b"someone else\n"
    );
    let names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(names.is_empty(), "no temp file left: {names:?}");
    let log = lancet(&["log", "-C", r(root), "--json"], b"");
    assert_eq!(
        json(&log),
        serde_json::json!([]),
        "the refused batch left no log entry"
    );
}

/// An id prefix naming several batches is refused like git refuses it.
#[test]
fn an_ambiguous_undo_id_is_refused() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    for (from, to) in [("a", "b"), ("b", "c")] {
        let patch =
            format!("*** Begin Patch\n*** Update File: a.txt\n-{from}\n+{to}\n*** End Patch\n");
        let out = lancet(&["apply", "-C", r(root)], patch.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let out = lancet_env(&["undo", "-C", r(root), "--json", "0"], b"", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(json(&out)["error"]["kind"], "ambiguous_id");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"c\n");
}

// ---------------------------------------------------------------------------------------------
// Faults that must end in the truth: `--test` interrupted, unbounded, or racing the rollback.

const TWO_FILES: &[u8] =
    b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n";

/// Waits for a child up to `limit`; kills it and panics if it is still running then.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("lancet still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Waits until the test command has started (it creates `started` in the root).
fn wait_for_file(path: &Path) {
    let started = std::time::Instant::now();
    while !path.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the test command never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// SIGTERM or SIGINT to lancet while the tests run stops the test command's group and
/// rolls the batch back before lancet exits; the report says so.
#[test]
fn a_signal_during_the_tests_rolls_the_batch_back() {
    for signal in ["TERM", "INT"] {
        let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let root = dir.path();
        let child = lancet_in_background(
            &[
                "apply",
                "-C",
                r(root),
                "--json",
                "--test",
                "touch started; sleep 30",
            ],
            TWO_FILES,
            &[],
        );
        wait_for_file(&root.join("started"));
        assert_eq!(
            std::fs::read(root.join("a.txt")).unwrap(),
            b"A\n",
            "written, pending"
        );
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = wait_bounded(child, Duration::from_secs(20));
        assert_eq!(
            out.status.code(),
            Some(3),
            "SIG{signal}: {}",
            describe(&out)
        );
        let v = json(&out);
        assert_eq!(v["test"]["interrupted_by"], format!("SIG{signal}"));
        let msg = v["message"].as_str().unwrap();
        assert!(msg.contains(&format!("received SIG{signal}")), "{msg}");
        assert!(msg.contains("rolled back: 2 file(s) restored"), "{msg}");
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
        assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
        assert!(!root.join(".lancet/journal.json").exists());
    }
}

/// Lancet killed outright while the tests run: the batch is still pending in the
/// journal, so the next lancet command rolls it back (the tests never passed).
#[test]
fn a_kill_during_the_tests_is_rolled_back_by_the_next_command() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let mut child = lancet_in_background(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--test",
            "touch started; sleep 30",
        ],
        TWO_FILES,
        &[],
    );
    wait_for_file(&root.join("started"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
    assert!(
        root.join(".lancet/journal.json").exists(),
        "pending until the verdict"
    );
    let out = lancet(&["recover", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
    let log = lancet(&["log", "-C", r(root), "--json"], b"");
    assert_eq!(
        json(&log),
        serde_json::json!([]),
        "a batch that never passed is not in the log"
    );
}

/// A test command that leaves a background child holding its output (in its group,
/// or escaped with setsid) does not keep lancet, and the root's lock, alive.
#[test]
fn a_background_child_of_the_tests_does_not_hold_lancet() {
    for command in ["sleep 60 & exit 0", "setsid sleep 60 & sleep 0.5; exit 0"] {
        let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let root = dir.path();
        let child = lancet_in_background(
            &[
                "apply",
                "-C",
                r(root),
                "--json",
                "--test",
                command,
                "--test-timeout",
                "30",
            ],
            TWO_FILES,
            &[],
        );
        let out = wait_bounded(child, Duration::from_secs(25));
        assert_eq!(out.status.code(), Some(0), "{command}: {}", describe(&out));
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
        // The lock is free: a second batch goes through at once.
        let out = lancet(
            &["apply", "-C", r(root)],
            b"*** Begin Patch\n*** Update File: a.txt\n-A\n+AA\n*** End Patch\n",
        );
        assert_eq!(out.status.code(), Some(0), "{command}: {}", describe(&out));
    }
}

/// A failing test command that itself rewrote a file of the batch: the rollback
/// cannot restore that file, and the report says so path by path (exit 4), the batch stays in
/// the log, and `undo --force` puts the earlier content back.
#[test]
fn a_rollback_that_cannot_finish_says_which_file_and_how_to_finish() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--test",
            "echo generated > a.txt; exit 1",
        ],
        TWO_FILES,
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    let v = json(&out);
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains("NOT complete: 1 file(s) restored, 1 not"),
        "{msg}"
    );
    assert!(
        msg.contains("- a.txt: changed after the batch wrote it"),
        "{msg}"
    );
    let id = v["checkpoint"].as_str().unwrap().to_string();
    assert!(msg.contains(&format!("lancet undo {id} --force")), "{msg}");
    assert!(!msg.contains("none of it is on disk"), "{msg}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"generated\n");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
    let log = json(&lancet(&["log", "-C", r(root), "--json"], b""));
    assert_eq!(log[0]["undone"], false, "partly in place: still undoable");
    // A later command's sweep does not lose the earlier content: undo --force restores it.
    let out = lancet(&["undo", "-C", r(root), &id, "--force"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
}

// ---------------------------------------------------------------------------------------------
// Checkpoints in real repositories.

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", describe(&out));
}

fn repo_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = temp_tree(files);
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "initial"]);
    dir
}

/// A work tree that disagrees with HEAD (a file there, a directory here) and a path inside a
/// submodule: the batch applies, is checkpointed as the disk has it, and undoes.
#[test]
fn a_checkpoint_records_the_disk_whatever_head_says() {
    let dir = repo_with(&[("x", b"file in HEAD\n"), ("top.txt", b"t\n")]);
    let root = dir.path();
    std::fs::remove_file(root.join("x")).unwrap();
    std::fs::create_dir(root.join("x")).unwrap();
    std::fs::write(root.join("x/y"), "y\n").unwrap();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: x/y\n-y\n+Y\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("x/y")).unwrap(), b"Y\n");
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("x/y")).unwrap(), b"y\n");

    let sub = repo_with(&[("f", b"s\n")]);
    let outer = repo_with(&[("top.txt", b"t\n")]);
    let root = outer.path();
    git(
        root,
        &[
            "submodule",
            "add",
            "-q",
            sub.path().to_str().unwrap(),
            "sub",
        ],
    );
    git(root, &["commit", "-q", "-m", "submodule"]);
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: sub/f\n-s\n+S\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("sub/f")).unwrap(), b"S\n");
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("sub/f")).unwrap(), b"s\n");
}

/// Checkpoints are pruned by the retention rule (here `git config lancet.keepCheckpoints 2`):
/// the log and the refs keep only the newest.
#[test]
fn old_checkpoints_are_pruned_by_the_retention_rule() {
    let dir = repo_with(&[("a.txt", b"0\n")]);
    let root = dir.path();
    git(root, &["config", "lancet.keepCheckpoints", "2"]);
    for i in 0..4 {
        let patch = format!(
            "*** Begin Patch\n*** Update File: a.txt\n-{i}\n+{}\n*** End Patch\n",
            i + 1
        );
        let out = lancet(&["apply", "-C", r(root)], patch.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let log = json(&lancet(&["log", "-C", r(root), "--json"], b""));
    assert_eq!(log.as_array().unwrap().len(), 2, "{log}");
    let refs = std::process::Command::new("git")
        .args(["for-each-ref", "refs/lancet/"])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&refs.stdout).lines().count(), 2);
    // Age: a log entry from 31 days ago goes at the next batch (the default keeps 30 days).
    git(root, &["config", "lancet.keepCheckpoints", "0"]);
    let old_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        - 31 * 86_400_000;
    let old_id = format!("{old_ms:012x}0000");
    let checkpoints = root.join(".git/lancet/checkpoints");
    let kept = std::fs::read_dir(&checkpoints)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::copy(&kept, checkpoints.join(format!("{old_id}.json"))).unwrap();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: a.txt\n-4\n+5\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!checkpoints.join(format!("{old_id}.json")).exists());
    assert_eq!(std::fs::read_dir(&checkpoints).unwrap().count(), 3);
}

/// Nested roots outside git exclude each other (a batch on `X/sub` waits for one on `X`
/// and gives up), while sibling roots do not.
#[test]
fn nested_roots_share_one_lock_and_siblings_do_not() {
    let dir = temp_tree(&[
        ("top.txt", b"t\n"),
        ("sub/s.txt", b"s\n"),
        ("other/o.txt", b"o\n"),
    ]);
    let root = dir.path();
    let (outer, pause) = paused_at(
        "rename",
        &["apply", "-C", r(&root.join("sub")), "--json"],
        b"*** Begin Patch\n*** Update File: s.txt\n-s\n+S\n*** End Patch\n",
    );
    let sibling = lancet(
        &["apply", "-C", r(&root.join("other"))],
        b"*** Begin Patch\n*** Update File: o.txt\n-o\n+O\n*** End Patch\n",
    );
    assert_eq!(sibling.status.code(), Some(0), "{}", describe(&sibling));
    let parent = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: sub/s.txt\n-s\n+P\n*** End Patch\n",
    );
    assert_eq!(parent.status.code(), Some(4), "{}", describe(&parent));
    assert_eq!(json(&parent)["error"]["kind"], "busy");
    pause.resume();
    let out = outer.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("sub/s.txt")).unwrap(), b"S\n");
}

/// A batch applied with `-C repo/sub` is undone from `-C repo` (one log per repository): its
/// paths are taken relative to its own root, not the caller's.
#[test]
fn a_batch_is_undone_relative_to_its_own_root() {
    let dir = repo_with(&[("sub/a.txt", b"a\n"), ("a.txt", b"top\n")]);
    let root = dir.path();
    let out = lancet(
        &["apply", "-C", r(&root.join("sub"))],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 file(s) restored"),
        "{}",
        describe(&out)
    );
    assert_eq!(std::fs::read(root.join("sub/a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"top\n");
}

/// As a plain race: while batches write into `d/`, another thread keeps swapping `d`
/// between the real directory and a link out of the root. Whatever interleaving happens, the
/// outside is never written, and every batch ends whole or not at all.
#[test]
fn a_racing_directory_swap_never_lets_a_write_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_top, root, outside) = root_and_outside();
    std::fs::create_dir_all(root.join("real")).unwrap();
    std::fs::write(root.join("real/f.txt"), "0\n").unwrap();
    std::fs::write(outside.join("f.txt"), "0\n").unwrap();
    symlink("real", root.join("d")).unwrap();
    let outside_before = snapshot(&outside);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, outside, stop) = (root.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut flips = 0u32;
            while !stop.load(Ordering::SeqCst) {
                let target: &Path = if flips.is_multiple_of(2) {
                    &outside
                } else {
                    Path::new("real")
                };
                let tmp = root.join("d.new");
                let _ = std::fs::remove_file(&tmp);
                symlink(target, &tmp).unwrap();
                std::fs::rename(&tmp, root.join("d")).unwrap();
                flips += 1;
                std::thread::sleep(Duration::from_micros(300));
            }
            flips
        })
    };
    let mut applied = 0;
    for i in 0..40 {
        let patch = format!(
            "*** Begin Patch\n*** Update File: d/f.txt\n-{i}\n+{}\n*** End Patch\n",
            i + 1
        );
        let out = lancet(&["apply", "-C", r(&root), "--no-fsync"], patch.as_bytes());
        if out.status.code() == Some(0) {
            applied += 1;
        } else {
            // Refused or failed: then the file must still hold the old number.
            let now = std::fs::read_to_string(root.join("real/f.txt")).unwrap();
            assert_eq!(now, format!("{i}\n"), "{}", describe(&out));
            std::fs::write(root.join("real/f.txt"), format!("{}\n", i + 1)).unwrap();
        }
        assert_eq!(snapshot(&outside), outside_before, "iteration {i}");
    }
    stop.store(true, Ordering::SeqCst);
    let flips = swapper.join().unwrap();
    assert!(flips > 10, "the swapper ran ({flips} flips)");
    assert!(applied > 0, "some batches got through");
    assert_eq!(std::fs::read(root.join("real/f.txt")).unwrap(), b"40\n");
}

/// The narrowest window: a target written while the renames are under way (after the
/// first rename, before its own) is caught right before its rename; the renamed ones go back.
#[test]
fn a_write_during_the_renames_is_caught_before_its_own_rename() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let (child, pause) = paused_at("rename", &["apply", "-C", r(root), "--json"], TWO_FILES);
    std::fs::write(root.join("b.txt"), "someone else, longer\n").unwrap();
    pause.resume();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        json(&out)["message"]
            .as_str()
            .unwrap()
            .contains("b.txt changed on disk")
    );
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"a\n",
        "rolled back"
    );
    assert_eq!(
        std::fs::read(root.join("b.txt")).unwrap(),
        b"someone else, longer\n"
    );
    let stray: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    assert_eq!(
        std::fs::read_dir(root.join(".lancet/pre")).unwrap().count(),
        0
    );
    assert!(
        !root.join(".lancet/kept").exists(),
        "nothing of theirs was kept as ours"
    );
}

/// lancet's own state reached by name cannot be turned into a way out: a state directory (or a
/// part of it) that is a symlink is refused before anything is written there.
#[test]
fn a_state_directory_swapped_for_a_link_is_refused() {
    for part in [".lancet", ".lancet/pre", ".lancet/checkpoints"] {
        let (_top, root, outside) = root_and_outside();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        // A first batch makes the state directory.
        let out = lancet(
            &["apply", "-C", r(&root)],
            b"*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch\n",
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let target = root.join(part);
        if target.exists() {
            std::fs::rename(&target, root.join("moved-aside")).unwrap();
        }
        symlink(&outside, &target).unwrap();
        let before = snapshot(&outside);
        let out = lancet(
            &["apply", "-C", r(&root), "--json"],
            b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n",
        );
        assert_eq!(out.status.code(), Some(4), "{part}: {}", describe(&out));
        assert_eq!(json(&out)["error"]["kind"], "state_dir", "{part}");
        assert_eq!(
            snapshot(&outside),
            before,
            "{part}: nothing written outside"
        );
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    }
}

/// A recovery stopped after it forgot the batch and before it deleted the journal: the next
/// command finishes it, and the log never lists a batch that is not on disk (found by the kill
/// -9 trials: recovery used to delete the journal first and forget the batch after).
#[test]
fn a_recovery_cut_short_never_leaves_a_log_entry_for_a_batch_not_on_disk() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let out = lancet_env(
        &["apply", "-C", r(root)],
        TWO_FILES,
        &[("LANCET_FAILPOINT", "crash:rename:2")],
    );
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet_env(
        &["recover", "-C", r(root)],
        b"",
        &[("LANCET_FAILPOINT", "crash:recovered:1")],
    );
    assert_ne!(
        out.status.code(),
        Some(0),
        "the recovery was cut short: {}",
        describe(&out)
    );
    let log = lancet(&["log", "-C", r(root), "--json"], b"");
    assert_eq!(json(&log), serde_json::json!([]), "{}", describe(&log));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
    assert!(!root.join(".lancet/journal.json").exists());
}

/// A journal cut short while it was being armed (lancet killed before it wrote it whole: the
/// batch had touched nothing) is removed by the next command, which exits 0 and leaves no
/// `journal.damaged` behind (kill9.py's trial 95 found it set aside and exit 4); a complete
/// journal whose checksum fails is still set aside as damaged.
#[test]
fn a_journal_cut_short_while_armed_is_removed_not_set_aside() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    std::fs::create_dir_all(root.join(".lancet")).unwrap();
    for torn in ["", "5f0e", "5f0e9a\n", "5f0e9a\n{\"id\":\"01a2\",\"entr"] {
        std::fs::write(root.join(".lancet/journal.json"), torn).unwrap();
        let out = lancet(&["recover", "-C", r(root)], b"");
        assert_eq!(out.status.code(), Some(0), "{torn:?}: {}", describe(&out));
        assert!(!root.join(".lancet/journal.json").exists(), "{torn:?}");
        assert!(!root.join(".lancet/journal.damaged").exists(), "{torn:?}");
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    }
    std::fs::write(
        root.join(".lancet/journal.json"),
        "5f0e9a\n{\"id\":\"01a2\"}\n",
    )
    .unwrap();
    let out = lancet(&["recover", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(root.join(".lancet/journal.damaged").exists());
}

/// A journal half written when lancet was killed (`journal.json.tmp`: it only counts once
/// renamed) is swept by the next command, and per-path lock files do not pile up: one per
/// directory on the way to the roots used, kept for the next call.
#[test]
fn a_half_written_journal_and_released_locks_leave_nothing_behind() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path();
    std::fs::create_dir_all(root.join(".lancet/pre")).unwrap();
    std::fs::write(root.join(".lancet/journal.json.tmp"), "{\"id\":").unwrap();
    let locks = tempfile::tempdir().unwrap();
    let runtime = [("XDG_RUNTIME_DIR", locks.path().to_str().unwrap())];
    let out = lancet_env(&["recover", "-C", r(root)], b"", &runtime);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!root.join(".lancet/journal.json.tmp").exists());
    for _ in 0..3 {
        let out = lancet_env(
            &["apply", "-C", r(root)],
            b"*** Begin Patch\n*** Add File: n.txt\n+n\n*** Delete File: n.txt\n*** End Patch\n",
            &runtime,
        );
        assert_ne!(out.status.code(), Some(4), "{}", describe(&out));
    }
    let left: Vec<_> = std::fs::read_dir(locks.path().join("lancet/locks"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    let depth = root.canonicalize().unwrap().ancestors().count();
    assert!(left.len() <= depth, "lock files left: {left:?}");
}
