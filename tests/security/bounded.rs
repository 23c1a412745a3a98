//! Medium 9: refusing is bounded. A one-line hunk with 3,000 candidates once took 47 s and a
//! 209 KB report; a 12,000-line hunk of one repeated line was still being located after 40 s.
//! The report lists at most 20 candidates ("and 2,980 more") in a few KB, and a needle too
//! repetitive to compare everywhere is refused as such. (Times are in `cargo bench --bench
//! locate`, never asserted here.)

use crate::suite::tree::{describe, lancet, lancet_env, temp_tree};

#[test]
fn an_ambiguity_with_thousands_of_candidates_lists_twenty() {
    let many: String = (0..3000)
        .map(|i| format!("def f{i}():\n    x = 1\n"))
        .collect();
    let dir = temp_tree(&[("many.py", many.as_bytes())]);
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap(), "--json"],
        b"*** Begin Patch\n*** Update File: many.py\n-    x = 1\n+    x = 2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        out.stdout.len() <= 4096,
        "a {}-byte report",
        out.stdout.len()
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let h = &v["files"][0]["hunks"][0];
    assert_eq!(h["kind"], "ambiguous");
    assert_eq!(h["candidates"].as_array().unwrap().len(), 20, "{h:#}");
    assert_eq!(h["candidates_total"], 3000, "{h:#}");
    let error = h["error"].as_str().unwrap();
    assert!(
        error.contains("3000 places") && error.contains("and 2980 more"),
        "{error}"
    );
    // The text report is as short.
    let out = lancet(
        &["apply", "-C", dir.path().to_str().unwrap()],
        b"*** Begin Patch\n*** Update File: many.py\n-    x = 1\n+    x = 2\n*** End Patch\n",
    );
    assert!(
        out.stdout.len() + out.stderr.len() <= 4096,
        "{}",
        describe(&out)
    );
}

#[test]
fn a_needle_too_repetitive_to_compare_everywhere_is_refused_as_such() {
    let dir = temp_tree(&[("same.py", "x = 1\n".repeat(200_000).as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let all_same = format!(
        "*** Begin Patch\n*** Update File: same.py\n{}-x = 1\n+z\n*** End Patch\n",
        " x = 1\n".repeat(12_000)
    );
    let out = lancet(&["apply", "-C", root, "--json"], all_same.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let h = &v["files"][0]["hunks"][0];
    assert_eq!(h["kind"], "ambiguous", "{h:#}");
    assert!(
        h["error"].as_str().unwrap().contains("repeats too much"),
        "{h:#}"
    );
    // One line that is nowhere: found missing by it, not compared 200,000 times.
    let missing = format!(
        "*** Begin Patch\n*** Update File: same.py\n{}-y\n+z\n*** End Patch\n",
        " x = 1\n".repeat(12_000)
    );
    let out = lancet(&["apply", "-C", root, "--json"], missing.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        out.stdout.len() <= 8192,
        "a {}-byte report",
        out.stdout.len()
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["hunks"][0]["kind"], "no_match");
}

/// Issue #35: the gate's time is one deadline for the whole batch, not 20 s per file (8 deeply
/// nested HTML files took 80 s). A file it has not judged when the time is up refuses the
/// batch, named, and nothing is written; `gate_deadline` makes the time none at all.
#[test]
fn a_file_the_gate_has_not_judged_in_time_refuses_the_batch_naming_it() {
    let dir = temp_tree(&[("page.html", b"<p>old</p>\n"), ("notes.txt", b"a\n")]);
    let root = dir.path().to_str().unwrap();
    let edit = br#"[{"file_path": "page.html", "old_string": "old", "new_string": "new"},
        {"file_path": "notes.txt", "old_string": "a", "new_string": "b"}]"#;
    let out = lancet_env(
        &["apply", "-C", root, "--json"],
        edit,
        &[("LANCET_FAILPOINT", "gate_deadline:1")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "refused");
    assert_eq!(v["error"]["kind"], "gate_timeout", "{v:#}");
    // The file needing a parse is named; one of no known language needs none.
    assert_eq!(v["syntax"]["unjudged"], serde_json::json!(["page.html"]));
    assert_eq!(v["syntax"]["unchecked"][0], "notes.txt (no known language)");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("ran out of time before it judged page.html"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("page.html")).unwrap(),
        b"<p>old</p>\n"
    );
    assert_eq!(std::fs::read(dir.path().join("notes.txt")).unwrap(), b"a\n");
    // With the time the gate has, the same batch applies.
    let out = lancet(&["apply", "-C", root, "--json"], edit);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}
