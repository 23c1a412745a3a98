//! The command line: exit codes, human and JSON output, `read`, `--expect`, several inputs, and
//! rollback when a write fails part-way (through the `LANCET_FAILPOINT` test seam).

use super::tree::{describe, lancet, lancet_env, snapshot, temp_tree};
use std::os::unix::fs::PermissionsExt;

const TWO_FILE_PATCH: &[u8] = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** Add File: new/c.txt\n+c\n*** Delete File: d.txt\n*** End Patch\n";

fn two_file_tree() -> tempfile::TempDir {
    temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n"), ("d.txt", b"d\n")])
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn human_report_lists_files_chunks_diff_and_message() {
    let dir = two_file_tree();
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap()],
        TWO_FILE_PATCH,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stdout(&out);
    for want in [
        "M a.txt\n  chunk 1: line 1 (exact)\n",
        "M b.txt\n",
        "A new/c.txt\n",
        "D d.txt\n",
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
        "Applied: M a.txt [chunk 1 line 1], M b.txt [chunk 1 line 1], A new/c.txt, D d.txt.\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    // Each change is shown once: by its diff here, by how it now reads with --brief.
    assert!(!text.contains("now reads"), "{text}");
    assert!(!text.contains('\x1b'), "no colour when not on a terminal");
    assert_eq!(std::fs::read(dir.path().join("new/c.txt")).unwrap(), b"c\n");
    assert!(!dir.path().join("d.txt").exists());
}

#[test]
/// One stream rule: the report is the output, refusal or not (the exit code tells them apart);
/// stderr stays empty.
fn refusal_goes_to_stdout_with_exit_1_and_writes_nothing() {
    let dir = two_file_tree();
    let before = snapshot(dir.path());
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap()],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-zzz\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).is_empty(), "{}", describe(&out));
    let err = stdout(&out);
    assert!(
        err.contains("Refused, nothing was written: 1 of 2 operation(s) could not be applied.")
    );
    assert!(err.contains("- b.txt chunk 1 (edit line 6): Failed to find expected lines in b.txt"));
    assert_eq!(snapshot(dir.path()), before);
    // A dry run of the same with --partial is no success either: exit 1, the failure shown.
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap(), "--dry-run", "--partial"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-zzz\n+B\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stdout(&out).contains("a dry run with --partial"),
        "{}",
        describe(&out)
    );
    assert_eq!(snapshot(dir.path()), before);
    // A root that cannot be opened is about the invocation: stderr, exit 4.
    let out = lancet(
        &["apply", "-C", "/nonexistent/root"],
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(stdout(&out).is_empty(), "{}", describe(&out));
    assert!(
        stderr(&out).contains("cannot open the root"),
        "{}",
        describe(&out)
    );
}

#[test]
fn json_report_has_the_stable_fields() {
    let dir = two_file_tree();
    let out = lancet(
        &[
            "apply",
            "-C",
            dir.path().to_str().unwrap(),
            "--json",
            "--dry-run",
        ],
        TWO_FILE_PATCH,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "dry_run");
    assert_eq!(v["format"], "patch");
    let f = &v["files"][0];
    assert_eq!(f["path"], "a.txt");
    assert_eq!(f["action"], "update");
    assert_eq!(f["hunks"][0]["status"], "applied");
    assert_eq!(f["hunks"][0]["tier"], "exact");
    assert_eq!(f["hunks"][0]["start_line"], 1);
    assert_eq!(f["hunks"][0]["end_line"], 1);
    assert_eq!(v["files"][2]["action"], "add");
    assert_eq!(v["files"][3]["action"], "delete");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Dry run, nothing was written")
    );
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn read_prints_numbered_lines_and_the_hash_expect_takes() {
    let dir = temp_tree(&[("src/m.py", b"one\ntwo\r\nthree\nfour\n")]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(
        &[
            "read", "-C", root, "src/m.py", "--offset", "2", "--limit", "2",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let sha = "c7c7a1dfb1d4b0aa35f6e1eb39f0e1a6b2c5ad40c29aa7d83ab1c60ab0e95c1b";
    let text = stdout(&out);
    let real_sha = {
        let out = lancet(&["read", "-C", root, "src/m.py", "--json"], b"");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["total_lines"], 4);
        assert_eq!(v["lines"][1]["text"], "two");
        v["sha256"].as_str().unwrap().to_string()
    };
    assert_ne!(real_sha, sha);
    assert_eq!(
        text,
        format!("src/m.py  lines 2-3 of 4  sha256 {real_sha}\n     2\ttwo\n     3\tthree\n")
    );
    let patch = b"*** Begin Patch\n*** Update File: src/m.py\n-one\n+ONE\n*** End Patch\n";
    let stale = lancet(
        &["apply", "-C", root, "--expect", &format!("src/m.py={sha}")],
        patch,
    );
    assert_eq!(stale.status.code(), Some(1));
    assert!(stdout(&stale).contains("changed since it was read"));
    let ok = lancet(
        &[
            "apply",
            "-C",
            root,
            "--expect",
            &format!("src/m.py={real_sha}"),
        ],
        patch,
    );
    assert_eq!(ok.status.code(), Some(0), "{}", describe(&ok));
    // A stale hash says what changed and what to send next in the CLI's words.
    assert!(
        stdout(&stale).contains("lancet read src/m.py"),
        "{}",
        describe(&stale)
    );
    assert!(stdout(&stale).contains("--expect"), "{}", describe(&stale));
    // An expected hash for a path that does not exist says it is missing, not "changed".
    let missing = lancet(
        &[
            "apply",
            "-C",
            root,
            "--expect",
            &format!("gone.py={real_sha}"),
        ],
        patch,
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stdout(&missing).contains("gone.py does not exist"),
        "{}",
        describe(&missing)
    );
    // A hash that is not 64 hex digits is a malformed command line.
    // It goes to stderr, as clap's own errors do: it is about the invocation, not the edit.
    let malformed = lancet(&["apply", "-C", root, "--expect", "src/m.py=abc123"], patch);
    assert_eq!(malformed.status.code(), Some(2), "{}", describe(&malformed));
    assert!(stdout(&malformed).is_empty(), "{}", describe(&malformed));
    assert!(stderr(&malformed).contains("--expect takes PATH=SHA256"));
}

#[test]
fn base_rebases_an_edit_over_changes_made_since_the_read_and_a_bad_base_is_usage() {
    let dir = temp_tree(&[
        ("m.py", b"a = 1\nb = 2\nc = 3\nd = 4\n"),
        ("n.py", b"x = 1\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["read", "-C", root, "m.py", "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sha = v["sha256"].as_str().unwrap().to_string();
    std::fs::write(dir.path().join("m.py"), b"A = 1\nb = 2\nc = 3\nd = 4\n").unwrap();
    let base = format!("m.py={sha}");
    // Two updates of the rebased file compose on the snapshot and merge once; a failing
    // operation on another file stops the whole batch, the rebased one included.
    let batch = b"*** Begin Patch\n*** Update File: m.py\n-c = 3\n+c = 30\n*** Update File: m.py\n-d = 4\n+d = 40\n*** Update File: n.py\n-nothing here\n+y\n*** End Patch\n";
    let refused = lancet(&["apply", "-C", root, "--base", &base], batch);
    assert_eq!(refused.status.code(), Some(1), "{}", describe(&refused));
    assert_eq!(
        std::fs::read(dir.path().join("m.py")).unwrap(),
        b"A = 1\nb = 2\nc = 3\nd = 4\n"
    );
    let batch = b"*** Begin Patch\n*** Update File: m.py\n-c = 3\n+c = 30\n*** Update File: m.py\n-d = 4\n+d = 40\n*** End Patch\n";
    let ok = lancet(&["apply", "-C", root, "--base", &base, "--json"], batch);
    assert_eq!(ok.status.code(), Some(0), "{}", describe(&ok));
    assert_eq!(
        std::fs::read(dir.path().join("m.py")).unwrap(),
        b"A = 1\nb = 2\nc = 30\nd = 40\n"
    );
    assert!(
        stdout(&ok).contains("rebased over 1 changed line(s)"),
        "{}",
        describe(&ok)
    );
    // The same base again: the file changed (by the edit itself), and the edit's lines are
    // the ones that changed, so the change is already there.
    let again = lancet(&["apply", "-C", root, "--base", &base, "--json"], batch);
    assert_eq!(again.status.code(), Some(0), "{}", describe(&again));
    assert!(
        stdout(&again).contains("\"status\": \"already_applied\""),
        "{}",
        describe(&again)
    );
    let malformed = lancet(&["apply", "-C", root, "--base", "m.py"], batch);
    assert_eq!(malformed.status.code(), Some(2), "{}", describe(&malformed));
    assert!(
        stderr(&malformed).contains("--base takes PATH=SHA256"),
        "{}",
        describe(&malformed)
    );
}

#[test]
fn read_refuses_missing_binary_and_outside_paths() {
    let dir = temp_tree(&[("bin.dat", b"ok\xff\xfe")]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["read", "-C", root, "bin.dat"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not valid UTF-8 at byte 2"));
    let out = lancet(&["read", "-C", root, "nope.txt"], b"");
    assert_eq!(out.status.code(), Some(1));
    let out = lancet(&["read", "-C", root, "../etc/passwd"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("outside the root"));
}

#[test]
fn several_input_files_form_one_batch() {
    let dir = two_file_tree();
    let edits = tempfile::tempdir().unwrap();
    let e1 = edits.path().join("1.patch");
    let e2 = edits.path().join("2.patch");
    std::fs::write(
        &e1,
        "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n",
    )
    .unwrap();
    std::fs::write(
        &e2,
        "*** Begin Patch\n*** Update File: a.txt\n-A\n+AA\n*** End Patch\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let out = lancet(
        &[
            "apply",
            "-C",
            root,
            e1.to_str().unwrap(),
            e2.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"AA\n");

    std::fs::write(&e2, "*** Begin Patch\n*** Bogus\n*** End Patch\n").unwrap();
    let before = snapshot(dir.path());
    let out = lancet(
        &[
            "apply",
            "-C",
            root,
            e1.to_str().unwrap(),
            e2.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("2.patch line 2"),
        "{}",
        describe(&out)
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn new_files_get_the_umask_default_mode_and_updates_keep_theirs() {
    let dir = temp_tree(&[("run.sh", b"echo a\n")]);
    std::fs::set_permissions(
        dir.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap()],
        b"*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** Add File: new.txt\n+n\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let mode = |p: &str| {
        std::fs::metadata(dir.path().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("run.sh"), 0o750);
    let umask = std::process::Command::new("sh")
        .args(["-c", "umask"])
        .output()
        .unwrap();
    let umask = u32::from_str_radix(String::from_utf8_lossy(&umask.stdout).trim(), 8).unwrap();
    assert_eq!(mode("new.txt"), 0o666 & !umask);
}

/// An injected failure at each write step leaves every file as it was, with no temp files.
#[test]
fn failure_at_any_write_step_rolls_back_everything() {
    for point in [
        "write:1",
        "write:3",
        "rename:1",
        "rename:2",
        "rename:4",
        "fsync_dir:1",
    ] {
        let dir = two_file_tree();
        let before = snapshot(dir.path());
        let out = lancet_env(
            &["apply", "-C", dir.path().to_str().unwrap(), "--json"],
            TWO_FILE_PATCH,
            &[("LANCET_FAILPOINT", point)],
        );
        assert_eq!(out.status.code(), Some(4), "{point}: {}", describe(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "error");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("every file was restored"),
            "{point}: {}",
            describe(&out)
        );
        assert_eq!(snapshot(dir.path()), before, "{point}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = lancet(&["apply", "--format", "nonsense"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = lancet(&["apply", "--expect", "no-equals-sign"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = lancet(&["apply", "/no/such/edit.patch"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_root_is_an_environment_error() {
    let out = lancet(
        &["apply", "-C", "/no/such/root"],
        b"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
}

#[test]
fn partial_writes_what_located_and_reports_the_rest() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let edit = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-zzz\n+B\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--json", "--partial"], edit);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "partial");
    assert_eq!(v["files"][1]["hunks"][0]["kind"], "no_match");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.starts_with("Partially applied (--partial): 1 block(s) applied (a.txt chunk 1)"),
        "{message}"
    );
    assert!(message.contains("don't resend them"));
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"A\n");
    assert_eq!(std::fs::read(dir.path().join("b.txt")).unwrap(), b"b\n");
    // Without --partial the same edit writes nothing.
    let dir = two_file_tree();
    let out = lancet(&["apply", "-C", dir.path().to_str().unwrap()], edit);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn path_names_the_file_for_blocks_that_name_none() {
    let dir = temp_tree(&[("src/x.py", b"a = 1\nb = 2\n")]);
    let root = dir.path().to_str().unwrap();
    let edit = b"<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE\n";
    let out = lancet(&["apply", "-C", root, "--json"], edit);
    assert_eq!(
        out.status.code(),
        Some(2),
        "no file named: {}",
        describe(&out)
    );
    let out = lancet(&["apply", "-C", root, "--json", "--path", "src/x.py"], edit);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "search-replace");
    assert_eq!(
        std::fs::read(dir.path().join("src/x.py")).unwrap(),
        b"a = 1\nb = 3\n"
    );
}

#[test]
fn parse_prints_what_lancet_reads_and_touches_nothing() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let before = snapshot(dir.path());
    let reply = b"Here is the change:\n\na.txt\n```\n<<<<<<< SEARCH\na\n=======\nA\n>>>>>>> REPLACE\n```\n\nnew.txt\n```\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n```\n";
    let out = lancet(&["parse", "-C", root, "--json"], reply);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "search-replace");
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0]["path"], "a.txt");
    assert_eq!(ops[0]["kind"]["op"], "update");
    assert_eq!(ops[0]["kind"]["hunks"][0]["old"], serde_json::json!(["a"]));
    assert_eq!(ops[0]["kind"]["hunks"][0]["new"], serde_json::json!(["A"]));
    assert_eq!(ops[1]["path"], "new.txt");
    assert_eq!(ops[1]["kind"]["op"], "append");
    assert_eq!(ops[1]["kind"]["content"], "hello\n");
    // Issue #41: the text showed counts only; it shows what each operation holds.
    let human = lancet(&["parse", "-C", root], reply);
    assert_eq!(
        stdout(&human).lines().collect::<Vec<_>>(),
        [
            "search-replace: 2 operation(s)",
            "M a.txt (edit line 5)",
            "  chunk 1 (edit line 5)",
            "    -a",
            "    +A",
            "M new.txt, appended at the end (edit line 14)",
            "    +hello",
            "note: ignored 5 line(s) outside the SEARCH/REPLACE blocks (prose, code fences)",
        ]
    );
    // A reply that does not parse: exit 2, with the line and what to write.
    let bad = lancet(
        &["parse", "-C", root, "--json"],
        b"a.txt\n<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
    );
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
    let v: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(v["error"]["line"], 2);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn brief_reports_show_each_change_once_and_no_diffs_in_refusals() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let good = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n";
    let full = lancet(
        &[
            "apply",
            "-C",
            root,
            "--dry-run",
            "--json",
            "--no-checkpoint",
        ],
        good,
    );
    let v: serde_json::Value = serde_json::from_slice(&full.stdout).unwrap();
    assert!(v["files"][0]["diff"].is_string(), "{}", describe(&full));
    assert!(v["files"][0]["hunks"][0]["snippet"].is_array());
    let brief = lancet(
        &[
            "apply",
            "-C",
            root,
            "--dry-run",
            "--json",
            "--brief",
            "--no-checkpoint",
        ],
        good,
    );
    let v: serde_json::Value = serde_json::from_slice(&brief.stdout).unwrap();
    assert!(v["files"][0].get("diff").is_none(), "{}", describe(&brief));
    assert!(v["files"][0]["hunks"][0]["snippet"].is_array());
    // A refused batch: the part that located carries no diff either.
    let mixed = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-nope\n+x\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--brief"], mixed);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stdout(&out).contains("@@"), "{}", describe(&out));
    let out = lancet(&["apply", "-C", root], mixed);
    assert!(stdout(&out).contains("@@"), "{}", describe(&out));
    // A refused file of many chunks: brief lists three that located, counts the rest, and
    // shows every failure.
    let long = temp_tree(&[("f.txt", b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")]);
    let many = b"*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n@@\n-c\n+C\n@@\n-e\n+E\n@@\n-g\n+G\n@@\n-i\n+I\n@@\n-zz\n+Z\n*** End Patch\n";
    let out = lancet(
        &["apply", "-C", long.path().to_str().unwrap(), "--brief"],
        many,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let text = stdout(&out);
    assert!(text.contains("  chunk 3: line 5 (exact)\n"), "{text}");
    assert!(!text.contains("chunk 4: line 7"), "{text}");
    assert!(text.contains("  chunk 6: not found\n"), "{text}");
    assert!(
        text.contains("... and 2 more chunk(s) that located"),
        "{text}"
    );
    // Issue #41: a deleted file is named, never printed whole as its diff.
    let deleted = b"*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--brief", "--dry-run"], deleted);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stdout(&out);
    assert!(text.contains("would apply: D d.txt."), "{text}");
    assert!(
        !text.contains("-d\n") && !text.contains("/dev/null"),
        "{text}"
    );
}

/// `undo -q` prints nothing on success, as apply, rename and mod do with `-q` (issue #41: undo
/// had no `-q`); a refusal is still printed.
#[test]
fn undo_takes_quiet_and_still_prints_a_refusal() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let edit = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "-q"], edit);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["undo", "-C", root, "-q"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(stdout(&out), "", "{}", describe(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "a\n"
    );
    let out = lancet(&["undo", "-C", root, "-q", "no-such-id"], b"");
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        !stdout(&out).is_empty() || !stderr(&out).is_empty(),
        "{}",
        describe(&out)
    );
}

#[test]
fn log_after_a_partial_batch_lists_only_the_files_that_changed() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let edit = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-nope\n+x\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--partial"], edit);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let log = lancet(&["log", "-C", root, "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    assert_eq!(v[0]["summary"], "M a.txt", "{}", describe(&log));
    assert_eq!(v[0]["files"].as_array().unwrap().len(), 1);
}

#[test]
fn read_refuses_a_fifo_without_opening_it() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path().to_str().unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    // Opening a FIFO for reading blocks until a writer comes: this must return at once.
    let out = lancet(&["read", "-C", root, "pipe"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        describe(&out)
    );
}

/// OpenAI `apply_patch` operations come by stdin (`--format openai-patch` or detected) and as
/// JSONL entries beside other edits, one batch; a bad operation names its number and field.
#[test]
fn openai_operations_by_stdin_and_jsonl() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    let jsonl = dir.path().join("ops.jsonl");
    std::fs::write(
        &jsonl,
        "{\"type\": \"update_file\", \"path\": \"a.txt\", \"diff\": \"@@\\n-a\\n+A\\n\"}\n{\"path\": \"b.txt\", \"old_string\": \"b\", \"new_string\": \"B\"}\n{\"type\": \"create_file\", \"path\": \"c.txt\", \"diff\": \"+c\\n+\"}\n",
    )
    .unwrap();
    let out = lancet(
        &["apply", "-C", root, "--jsonl", jsonl.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(
        (read("a.txt"), read("b.txt"), read("c.txt")),
        ("A\n".into(), "B\n".into(), "c\n".into())
    );
    let out = lancet(
        &["apply", "-C", root, "--format", "openai-patch"],
        b"{\"type\": \"delete_file\", \"path\": \"d.txt\"}",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!dir.path().join("d.txt").exists());
    let before = snapshot(dir.path());
    let out = lancet(
        &["apply", "-C", root, "--json"],
        b"[{\"type\": \"update_file\", \"path\": \"a.txt\", \"diff\": \"@@\\n-A\\n+a\\n\"}, {\"type\": \"update_file\", \"path\": \"b.txt\", \"patch\": \"x\"}]",
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("operation 2: unknown field `patch`"),
        "{text}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// `lancet read --anchors` prints `LINE:HASH|text` (JSON: each line's `hash`); an edit on those
/// anchors applies where they point, among identical lines.
#[test]
fn read_anchors_and_an_edit_on_them() {
    let dir = temp_tree(&[("m.py", b"x = 1\ny = 1\nx = 1\n")]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["read", "-C", root, "--anchors", "m.py"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stdout(&out);
    let third = text.lines().nth(3).unwrap();
    let (anchor, line) = third.split_once('|').unwrap();
    assert_eq!(line, "x = 1");
    assert!(anchor.starts_with("3:") && anchor.len() == 5, "{text}");
    let out = lancet(&["read", "-C", root, "--anchors", "--json", "m.py"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["lines"][2]["hash"], anchor[2..], "{v}");
    let edit = format!("*** Edit Lines: m.py\n@@ replace {anchor}\nx = 3\n");
    let out = lancet(
        &["apply", "-C", root, "--format", "anchors"],
        edit.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m.py")).unwrap(),
        "x = 1\ny = 1\nx = 3\n"
    );
}

/// A file operation's path ending in a separator names a directory: refused, never written as
/// a file of the name without it.
#[test]
fn a_path_ending_in_a_separator_is_refused() {
    let dir = temp_tree(&[("f.txt", b"a\n")]);
    let root = dir.path().to_str().unwrap();
    let before = snapshot(dir.path());
    for edit in [
        "*** Begin Patch\n*** Add File: new/\n+x\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: f.txt/\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: f.txt\n*** Move to: sub\\\n@@\n-a\n+b\n*** End Patch\n",
    ] {
        let out = lancet(&["apply", "-C", root], edit.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{edit}: {}", describe(&out));
        assert!(
            stdout(&out).contains("ends with a path separator")
                || stderr(&out).contains("ends with a path separator"),
            "{}",
            describe(&out)
        );
        assert_eq!(snapshot(dir.path()), before);
    }
}

/// The habits of a command-line tool: completions for each shell, a manual page, a one-sentence description
/// in `--help`, `undo --help` saying it is all or nothing, and `--lang` taking the short names
/// people type.
/// `lancet schema` prints the schemas checked into schema/ (report by default), and names the
/// documents it knows when asked for another.
#[test]
fn schema_prints_the_checked_in_schemas() {
    let house = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (args, file) in [
        (vec!["schema"], "report"),
        (vec!["schema", "report"], "report"),
        (vec!["schema", "batch"], "batch"),
        (vec!["schema", "config"], "config"),
        (vec!["schema", "read"], "read"),
        (vec!["schema", "log"], "log"),
    ] {
        let out = lancet(&args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let checked_in =
            std::fs::read_to_string(house.join(format!("schema/{file}.schema.json"))).unwrap();
        assert_eq!(stdout(&out), checked_in, "lancet {}", args.join(" "));
    }
    let out = lancet(&["schema", "journal"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("report") && err.contains("config"), "{err}");
}

#[test]
fn completions_help_and_short_language_names() {
    for (shell, mark) in [
        ("bash", "_lancet()"),
        ("zsh", "#compdef lancet"),
        ("fish", "complete -c lancet"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = lancet(&["completions", shell], b"");
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let script = stdout(&out);
        assert!(script.contains(mark), "{shell}: {script}");
        assert!(
            script.contains("rename"),
            "{shell} completes the subcommands"
        );
    }
    let out = lancet(&["completions", "nushell-9"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let man = lancet(&["man"], b"");
    assert_eq!(man.status.code(), Some(0), "{}", describe(&man));
    let page = stdout(&man);
    assert!(page.contains(".TH lancet 1"), "a roff page: {page}");
    assert!(
        page.contains("all or nothing") && page.contains("rename"),
        "{page}"
    );

    let help = stdout(&lancet(&["--help"], b""));
    let first = help.lines().next().unwrap_or_default();
    assert!(first.contains("all or nothing"), "{first}");
    assert!(!first.contains("clap"), "an internal comment: {first}");
    let undo = stdout(&lancet(&["undo", "--help"], b""));
    assert!(undo.contains("all or nothing"), "{undo}");

    let dir = temp_tree(&[
        (
            "app.py",
            b"def greet():\n    return 1\n\n\nprint(greet())\n",
        ),
        ("lib.rs", b"fn greet() {}\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(
        &[
            "rename", "-C", root, "greet", "salute", "--lang", "py", "--json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let after = std::fs::read_to_string(dir.path().join("app.py")).unwrap();
    assert_eq!(after, "def salute():\n    return 1\n\n\nprint(salute())\n");
    let rust = std::fs::read_to_string(dir.path().join("lib.rs")).unwrap();
    assert_eq!(
        rust, "fn greet() {}\n",
        "--lang py leaves the Rust file alone"
    );
}

/// Issue #41: the manual cited `lancet-apply(1)` pages that do not exist, showed `-C` where it
/// means nothing and `rename OLD NEW … --at`; fish and zsh completed no `--lang` values. The
/// page holds every command itself, `-C` is left out of the commands that read no tree (and
/// still taken), the rename synopsis has its `--at` form, and every shell completes `--lang`.
#[test]
fn the_manual_and_completions_say_what_each_command_takes() {
    let page = stdout(&lancet(&["man"], b""));
    assert!(
        !page.contains("lancet\\-apply(1)") && !page.contains("(1)\n"),
        "{page}"
    );
    for command in ["apply", "rename", "mod", "undo", "parse", "schema"] {
        assert!(
            page.contains(&format!(".SS \"lancet {command}\"")),
            "{command}: {page}"
        );
    }
    assert!(
        page.contains("\\fBlancet rename\\fR [OPTIONS] \\-\\-at PATH:LINE:COL NEW [PATH]..."),
        "{page}"
    );
    assert_eq!(
        page.matches(".ie \\n(.g .ds Aq").count(),
        1,
        "one preamble: {page}"
    );
    let rename = stdout(&lancet(&["rename", "--help"], b""));
    assert!(
        rename.contains("Usage: lancet rename [OPTIONS] OLD NEW [PATH]...\n       lancet rename [OPTIONS] --at PATH:LINE:COL NEW [PATH]..."),
        "{rename}"
    );
    for rootless in ["parse", "schema", "completions", "man"] {
        let help = stdout(&lancet(&[rootless, "--help"], b""));
        assert!(!help.contains("--root"), "{rootless}: {help}");
    }
    assert!(stdout(&lancet(&["apply", "--help"], b"")).contains("--root"));
    // Each command's help opens with what that command does: the words `lancet --help` lists
    // for it, not those of a set of switches it shares.
    let listed = stdout(&lancet(&["--help"], b""));
    for command in [
        "apply",
        "rename",
        "signature",
        "move",
        "mod",
        "undo",
        "log",
        "read",
        "check",
        "parse",
        "report",
        "schema",
        "recover",
        "trust",
        "mcp",
    ] {
        let help = stdout(&lancet(&[command, "--help"], b""));
        let opening = help.lines().next().unwrap_or_default();
        let said = opening.split([',', ':', '(']).next().unwrap_or_default();
        assert!(
            !said.is_empty() && listed.contains(said),
            "{command} opens with {opening:?}, which `lancet --help` does not list: {listed}"
        );
    }
    let out = lancet(
        &["parse", "-C", "/nonexistent", "--json"],
        b"*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "-C is still taken: {}",
        describe(&out)
    );
    for (shell, rename_values, mod_values) in [
        ("fish", "\"python\\t", "css\\t"),
        (
            "zsh",
            ":L:(python rust javascript typescript tsx)",
            "yaml html css)",
        ),
        (
            "bash",
            "-W \"python rust javascript typescript tsx\"",
            "yaml html css\"",
        ),
    ] {
        let script = stdout(&lancet(&["completions", shell], b""));
        assert!(
            script.contains(rename_values) && script.contains(mod_values),
            "{shell}: {script}"
        );
    }
}

/// Issue #41: `read --json` refusals fit no schema (`{status, message}` only), `recover --json`
/// with nothing to do said `applied`, and rename, undo and mod reported `edit_line: 0`. A read
/// refusal is a report (kind and all), nothing to recover is `already_applied`, and a batch
/// built from no edit text names no edit line.
#[test]
fn json_refusals_and_no_op_reports_fit_the_report() {
    let dir = two_file_tree();
    let root = dir.path().to_str().unwrap();
    for (path, kind) in [("nope.txt", "missing"), ("../x", "unsafe_path")] {
        let out = lancet(&["read", "-C", root, "--json", path], b"");
        assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "refused", "{v:#}");
        assert_eq!(v["error"]["kind"], kind, "{v:#}");
        assert!(
            v["error"]["detail"].is_string() && v["files"].is_array(),
            "{v:#}"
        );
        assert!(
            v["message"].as_str().unwrap().starts_with("Cannot read: "),
            "{v:#}"
        );
    }
    let out = lancet(&["recover", "-C", root, "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "already_applied", "{v:#}");
    let edit = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--json"], edit);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["edit_line"], 2, "an edit's line stays: {v:#}");
    let out = lancet(&["undo", "-C", root, "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["files"][0].get("edit_line").is_none(), "{v:#}");
}

/// `read --offset` past the file's end is an error naming how many lines the file has (an empty
/// window would read as an empty file); the last line and an empty file still read.
#[test]
fn read_past_the_end_says_how_long_the_file_is() {
    let dir = temp_tree(&[("f.txt", b"a\nb\n"), ("empty.txt", b"")]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["read", "-C", root, "f.txt", "--offset", "3"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stderr(&out).contains("f.txt has 2 line(s): offset 3 is past its end"),
        "{}",
        describe(&out)
    );
    let out = lancet(&["read", "-C", root, "f.txt", "--offset", "2"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(stdout(&out).contains("\tb"), "{}", describe(&out));
    let out = lancet(&["read", "-C", root, "empty.txt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// The text report says what `--test` did: a passing run in one line (a failing one is in the
/// message, with the rollback).
#[test]
fn the_text_report_says_the_tests_passed() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path().to_str().unwrap();
    let patch = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--test", "true"], patch);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        stdout(&out).contains("Tests passed in ") && stdout(&out).contains("(`true`)"),
        "{}",
        describe(&out)
    );
    let patch = b"*** Begin Patch\n*** Update File: a.txt\n-b\n+c\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root, "--test", "false"], patch);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains("rolled back") && !all.contains("Tests passed"),
        "{all}"
    );
}

/// `log -n N` keeps the newest N batches, `log --path P` those that touched P, `log --since D`
/// those of the last D; a file a batch edited twice is one entry of its line.
#[test]
fn log_takes_a_limit_a_path_and_a_duration() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path().to_str().unwrap();
    for (file, old, new) in [
        ("a.txt", "a", "A"),
        ("b.txt", "b", "B"),
        ("a.txt", "A", "AA"),
    ] {
        let patch =
            format!("*** Begin Patch\n*** Update File: {file}\n-{old}\n+{new}\n*** End Patch\n");
        let out = lancet(&["apply", "-C", root], patch.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
    let listed = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["log", "-C", root, "--json"];
        all.extend(args);
        let out = lancet(&all, b"");
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m["summary"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(listed(&[]).len(), 3);
    let newest = listed(&["-n", "1"]);
    assert_eq!(newest.len(), 1);
    assert!(newest[0].contains("a.txt"), "{newest:?}");
    let of_b = listed(&["--path", "b.txt"]);
    assert_eq!(of_b.len(), 1, "{of_b:?}");
    assert!(of_b[0].contains("b.txt"), "{of_b:?}");
    assert_eq!(listed(&["--path", "a.txt", "-n", "5"]).len(), 2);
    // The first batch, dated back two days in its record: --since 1d leaves it out.
    let record = find_files(dir.path(), "json")
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("checkpoints")))
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"summary\": \"M a.txt\"")))
        .unwrap();
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    meta["time"] = (meta["time"].as_u64().unwrap() - 2 * 86_400).into();
    std::fs::write(&record, serde_json::to_vec(&meta).unwrap()).unwrap();
    assert_eq!(listed(&["--since", "1d"]).len(), 2);
    assert_eq!(listed(&["--since", "3d"]).len(), 3);
    assert_eq!(listed(&["--since", "1d", "--path", "a.txt"]).len(), 1);
    // A directory keeps the batches under it; an absolute path inside the root is that path.
    let sub = temp_tree(&[("d/x.txt", b"x\n")]);
    let sub_root = sub.path().to_str().unwrap();
    let out = lancet(
        &["apply", "-C", sub_root],
        b"*** Begin Patch\n*** Update File: d/x.txt\n-x\n+X\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let absolute = format!("{sub_root}/d/x.txt");
    for path in ["d", "d/x.txt", absolute.as_str()] {
        let out = lancet(&["log", "-C", sub_root, "--json", "--path", path], b"");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 1, "--path {path}");
    }
    let none = lancet(&["log", "-C", sub_root, "--path", "e"], b"");
    assert!(
        stdout(&none).contains("No checkpoint matches"),
        "{}",
        describe(&none)
    );
    let bad = lancet(&["log", "-C", root, "--since", "yesterday"], b"");
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
    // A file edited by two operations of one batch is listed once.
    let twice = b"*** Begin Patch\n*** Update File: b.txt\n-B\n+b1\n*** Update File: b.txt\n-b1\n+b2\n*** End Patch\n";
    let out = lancet(&["apply", "-C", root], twice);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(listed(&["-n", "1"]), ["M b.txt"]);
}

/// Every file under `dir` whose name ends in `.ext`, hidden directories included.
fn find_files(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(find_files(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            found.push(path);
        }
    }
    found
}
