//! Re-sending an edit is harmless (issue "Trust in every edit", item 1): a hunk whose added
//! lines already stand where they would go is `already_applied` in every format; lines that
//! prove nothing (blanks, brackets) or only part of it are refused, naming both readings; new
//! text never counts from inside a longer token, nor outweighs, unpinned, the old text found
//! elsewhere; a retried batch of 80 files writes nothing the second time.

use super::tree::{describe, lancet, snapshot, temp_tree};
use std::path::Path;

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Applies `edit` to `root`; the exit code and the JSON report.
fn apply(root: &Path, edit: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["apply", "-C", r(root), "--json", "--no-checkpoint"];
    args.extend_from_slice(extra);
    let out = lancet(&args, edit.as_bytes());
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    (out.status.code(), v)
}

/// Applies once (must apply), then again: the second run is `already_applied`, exit 0, and
/// writes nothing.
fn twice(files: &[(&str, &[u8])], edit: &str, extra: &[&str]) -> tempfile::TempDir {
    let dir = temp_tree(files);
    let (code, v) = apply(dir.path(), edit, extra);
    assert_eq!(code, Some(0), "first run: {v:#}");
    assert_eq!(v["status"], "applied", "first run: {v:#}");
    let after_first = snapshot(dir.path());
    let (code, v) = apply(dir.path(), edit, extra);
    assert_eq!(code, Some(0), "second run: {v:#}");
    assert_eq!(v["status"], "already_applied", "second run: {v:#}");
    assert_eq!(snapshot(dir.path()), after_first, "the second run wrote");
    dir
}

#[test]
fn a_guard_inserted_above_a_line_is_not_written_twice() {
    let edit = r#"{"file_path":"m.py","old_string":"    bits = 1 << mask\n","new_string":"    assert 0 <= mask <= 32\n    bits = 1 << mask\n"}"#;
    let dir = twice(
        &[(
            "m.py",
            b"def f(mask):\n    bits = 1 << mask\n    return bits\n",
        )],
        edit,
        &[],
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m.py")).unwrap(),
        "def f(mask):\n    assert 0 <= mask <= 32\n    bits = 1 << mask\n    return bits\n"
    );
}

#[test]
fn one_sided_hunks_in_every_format_are_already_applied_when_resent() {
    let file: &[u8] = b"import os\n\n\ndef main():\n    run()\n";
    // A licence header with trailing context (Codex, unified, SEARCH/REPLACE).
    twice(
        &[("a.py", file)],
        "*** Begin Patch\n*** Update File: a.py\n@@\n+# Copyright 2026 Example\n+# SPDX-License-Identifier: MIT\n import os\n*** End Patch\n",
        &[],
    );
    twice(
        &[("a.py", file)],
        "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,3 @@\n+# Copyright 2026 Example\n+# SPDX-License-Identifier: MIT\n import os\n",
        &[],
    );
    twice(
        &[("a.py", file)],
        "a.py\n<<<<<<< SEARCH\nimport os\n=======\n# Copyright 2026 Example\n# SPDX-License-Identifier: MIT\nimport os\n>>>>>>> REPLACE\n",
        &[],
    );
    // A chunk whose only context line sits between two changed lines.
    twice(
        &[("a.py", file)],
        "*** Begin Patch\n*** Update File: a.py\n@@\n+import sys\n import os\n+import re\n*** End Patch\n",
        &[],
    );
}

#[test]
fn a_unified_hunks_new_side_line_is_evidence() {
    let mut text = String::new();
    for i in 1..=30 {
        text.push_str(&format!("line_{i} = {i}\n"));
    }
    let dir = temp_tree(&[(
        "n.py",
        text.replace("line_20 = 20", "total = compute(20)")
            .as_bytes(),
    )]);
    // Its `-1` says line 1 (stale), its `+20` says where the new text goes: there it stands.
    let (code, v) = apply(
        dir.path(),
        "--- a/n.py\n+++ b/n.py\n@@ -1,1 +20,1 @@\n-result = 20\n+total = compute(20)\n",
        &[],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "already_applied", "{v:#}");
}

#[test]
fn blank_lines_beside_the_anchor_prove_nothing_and_are_refused_with_both_readings() {
    let dir = temp_tree(&[("b.py", b"a = 0\n\n\nx = 1\n")]);
    let before = snapshot(dir.path());
    let (code, v) = apply(
        dir.path(),
        r#"{"file_path":"b.py","old_string":"x = 1\n","new_string":"\n\nx = 1\n"}"#,
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    let h = &v["files"][0]["hunks"][0];
    assert_eq!(h["kind"], "ambiguous", "{v:#}");
    assert!(
        h["error"]
            .as_str()
            .unwrap()
            .contains("already applied, or a second copy?"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn new_text_inside_a_longer_token_is_no_evidence() {
    let dir = temp_tree(&[("p.py", b"unit_price = 10\n")]);
    let (code, v) = apply(
        dir.path(),
        r#"{"file_path":"p.py","old_string":"price = 0","new_string":"price = 1"}"#,
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_ne!(v["status"], "already_applied", "{v:#}");
}

/// The old text found with other indentation is applied there when nothing but the new text's
/// existence speaks for "already applied" elsewhere; with the hunk's own context placing the
/// new text elsewhere, the two readings are refused, never guessed.
#[test]
fn old_text_found_by_a_tolerant_tier_is_not_outweighed_by_a_guess() {
    let mut text = String::from("def f(x):\n");
    text.push_str("    if x:\n        y()\n");
    for i in 0..30 {
        text.push_str(&format!("    v{i} = {i}\n"));
    }
    text.push_str("\n\ndef g():\n    return z()\n");
    let dir = temp_tree(&[("t.py", text.as_bytes())]);
    // No context: its new text `return z()` stands in g, but only the old text decides.
    let (code, v) = apply(
        dir.path(),
        "t.py\n<<<<<<< SEARCH\ny()\n=======\nz()\n>>>>>>> REPLACE\n",
        &[],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "applied", "{v:#}");
    assert!(
        std::fs::read_to_string(dir.path().join("t.py"))
            .unwrap()
            .contains("    if x:\n        z()\n")
    );
    // With context that places the new text verbatim elsewhere: refused, both readings named.
    let dir = temp_tree(&[(
        "u.py",
        b"class A:\n    def run(self):\n        if ready:\n            go()\n\n\nif ready:\n    stop()\n",
    )]);
    let before = snapshot(dir.path());
    let (code, v) = apply(
        dir.path(),
        "u.py\n<<<<<<< SEARCH\nif ready:\n    go()\n=======\nif ready:\n    stop()\n>>>>>>> REPLACE\n",
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("already applied, or meant for line 3?"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// A CI re-run of an 80-file batch: the second run is all `already_applied`, exit 0, nothing
/// written.
#[test]
fn a_retried_80_file_batch_writes_nothing() {
    let files: Vec<(String, String)> = (0..80)
        .map(|i| {
            (
                format!("pkg/m{i}.py"),
                format!("import os\n\n\ndef f{i}(x):\n    return x + {i}\n"),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    let mut edit = String::from("*** Begin Patch\n");
    for i in 0..80 {
        edit.push_str(&format!("*** Update File: pkg/m{i}.py\n"));
        match i % 4 {
            0 => edit.push_str(&format!("@@\n-    return x + {i}\n+    return x * {i}\n")),
            1 => edit.push_str("@@\n+import sys\n import os\n"),
            2 => edit.push_str(&format!(
                "@@ def f{i}(x):\n+    assert x is not None\n     return x + {i}\n"
            )),
            _ => edit.push_str(&format!("@@\n-def f{i}(x):\n+def f{i}(x, y=0):\n")),
        }
    }
    edit.push_str("*** Add File: pkg/new.py\n+VALUE = 1\n*** End Patch\n");
    let dir = twice(&borrowed, &edit, &[]);
    let (_, v) = apply(dir.path(), &edit, &[]);
    assert!(
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "already_applied"),
        "{v:#}"
    );
}

/// The README quick start's edit, sent a second time: every chunk already applied, exit 0.
#[test]
fn the_readme_demo_run_twice_is_already_applied() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    let dir = tempfile::tempdir().unwrap();
    super::tree::copy_tree(&demo.join("before"), dir.path());
    let edit = std::fs::read_to_string(demo.join("edit.patch")).unwrap();
    let (code, v) = apply(dir.path(), &edit, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    let first = snapshot(dir.path());
    let (code, v) = apply(dir.path(), &edit, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "already_applied", "{v:#}");
    assert_eq!(snapshot(dir.path()), first);
}
