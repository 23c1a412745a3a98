//! Bad input on purpose: each gets a clear message, a tested exit code, and an untouched tree.

use super::tree::{describe, lancet, snapshot, temp_tree};
use std::fmt::Write as _;

fn apply(root: &std::path::Path, edit: &[u8]) -> std::process::Output {
    lancet(&["apply", "-C", root.to_str().unwrap(), "--json"], edit)
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(out)))
}

#[test]
fn empty_input_is_malformed() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let before = snapshot(dir.path());
    for edit in [&b""[..], b"\n\n   \n"] {
        let out = apply(dir.path(), edit);
        assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
        assert!(json(&out)["message"].as_str().unwrap().contains("empty"));
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn binary_garbage_is_malformed_with_its_offset() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let before = snapshot(dir.path());
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i * 7919 % 251) as u8 | 0x80)
        .collect();
    let out = apply(dir.path(), &garbage);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let v = json(&out);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("not UTF-8 (invalid byte at offset 0)")
    );
    assert_eq!(v["error"]["kind"], "malformed");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn text_without_a_patch_names_its_first_line() {
    let dir = temp_tree(&[]);
    let out = apply(dir.path(), b"\nPlease rename foo to bar.\n");
    assert_eq!(out.status.code(), Some(2));
    let v = json(&out);
    assert_eq!(v["error"]["line"], 2);
    assert_eq!(v["error"]["found"], "Please rename foo to bar.");
    assert!(
        v["error"]["expected"]
            .as_str()
            .unwrap()
            .contains("*** Begin Patch")
    );
}

#[test]
fn a_50_mb_patch_applies() {
    let dir = temp_tree(&[]);
    let line = "+".to_string() + &"x".repeat(99);
    let mut edit = String::from("*** Begin Patch\n*** Add File: big.txt\n");
    let lines = 50 * 1024 * 1024 / 101;
    for _ in 0..lines {
        edit.push_str(&line);
        edit.push('\n');
    }
    edit.push_str("*** End Patch\n");
    assert!(edit.len() >= 50 * 1024 * 1024);
    let out = apply(dir.path(), edit.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let meta = std::fs::metadata(dir.path().join("big.txt")).unwrap();
    assert_eq!(meta.len() as usize, lines * 100);
}

#[test]
fn a_50_mb_text_without_a_patch_is_refused() {
    let dir = temp_tree(&[]);
    let edit = "no patch here\n".repeat(50 * 1024 * 1024 / 14);
    let out = apply(dir.path(), edit.as_bytes());
    assert_eq!(out.status.code(), Some(2));
}

fn numbered_lines(n: usize) -> String {
    let mut s = String::with_capacity(n * 24);
    for i in 1..=n {
        let _ = writeln!(s, "line number {i} of the file");
    }
    s
}

#[test]
fn hundred_thousand_line_file_edit_near_the_end() {
    let big = numbered_lines(100_000);
    let dir = temp_tree(&[("big.txt", big.as_bytes())]);
    let edit = "*** Begin Patch\n*** Update File: big.txt\n@@\n line number 99998 of the file\n-line number 99999 of the file\n+line 99999 changed\n*** End Patch\n";
    let out = apply(dir.path(), edit.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["files"][0]["hunks"][0]["start_line"], 99998);
    assert_eq!(v["files"][0]["hunks"][0]["end_line"], 99999);
    let after = std::fs::read_to_string(dir.path().join("big.txt")).unwrap();
    assert_eq!(
        after,
        big.replace("line number 99999 of the file\n", "line 99999 changed\n")
    );
}

#[test]
fn hundred_thousand_line_file_miss_reports_the_closest_lines() {
    let big = numbered_lines(100_000);
    let dir = temp_tree(&[("big.txt", big.as_bytes())]);
    let before = snapshot(dir.path());
    let edit = "*** Begin Patch\n*** Update File: big.txt\n@@\n line number 50000 of the file\n-an unrelated line 50001\n+changed\n*** End Patch\n";
    let out = apply(dir.path(), edit.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    let closest = &v["files"][0]["hunks"][0]["closest"];
    assert_eq!(closest["start_line"], 50000);
    assert!(
        closest["differences"][0]
            .as_str()
            .unwrap()
            .starts_with("line 50001: expected \"an unrelated line 50001\"")
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// In a file of near-identical lines, a slightly wrong needle is close to many windows: the
/// line it removes differs from every real line, so no tier may pick one.
#[test]
fn hundred_thousand_line_file_near_identical_windows_are_not_guessed() {
    let big = numbered_lines(100_000);
    let dir = temp_tree(&[("big.txt", big.as_bytes())]);
    let before = snapshot(dir.path());
    let edit = "*** Begin Patch\n*** Update File: big.txt\n@@\n line number 50000 of the file\n-line number 50001 of the fil\n+changed\n*** End Patch\n";
    let out = apply(dir.path(), edit.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "failed");
    assert_eq!(v["files"][0]["hunks"][0]["kind"], "no_match");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn hundred_thousand_line_file_ambiguity_lists_every_candidate() {
    let mut big = numbered_lines(100_000);
    big.push_str("dup\n");
    big.insert_str(0, "dup\n");
    let dir = temp_tree(&[("big.txt", big.as_bytes())]);
    let out = apply(
        dir.path(),
        b"*** Begin Patch\n*** Update File: big.txt\n-dup\n+DUP\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous");
    assert_eq!(
        v["files"][0]["hunks"][0]["candidates"],
        serde_json::json!([1, 100_002])
    );
}

#[test]
fn nul_in_a_path_is_refused_before_any_io() {
    let dir = temp_tree(&[]);
    let out = apply(
        dir.path(),
        b"*** Begin Patch\n*** Add File: a\0b.txt\n+x\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "unsafe_path");
    assert!(v["message"].as_str().unwrap().contains("NUL"));
    assert!(snapshot(dir.path()).is_empty());
}

#[test]
fn an_unsafe_path_anywhere_refuses_the_whole_batch() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let before = snapshot(dir.path());
    let out = apply(
        dir.path(),
        b"*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Add File: ../escape.txt\n+x\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        json(&out)["message"]
            .as_str()
            .unwrap()
            .contains("outside the root")
    );
    assert_eq!(snapshot(dir.path()), before);
    assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
}
