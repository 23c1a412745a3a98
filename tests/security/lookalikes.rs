//! High 5: no batch plants a git repository lookalike (`HEAD` beside `config`, `commondir`,
//! `objects/` or `refs/`, under any name), whose `config` would run a command on the next
//! `git status` there; undo and recovery keep working on a tree whose files merely look like
//! one.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, lancet_env, snapshot, temp_tree};
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", describe(&out));
}

fn fsmonitor(marker: &Path) -> String {
    format!(
        "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch {}\n",
        marker.display()
    )
}

#[test]
fn a_batch_cannot_plant_a_repository_lookalike() {
    let dir = temp_tree(&[("docs/index.md", b"# docs\n")]);
    let root = dir.path();
    let marker = root.join("pwned");
    let before = snapshot(root);
    let mut patch = String::from(
        "*** Begin Patch\n*** Add File: docs/HEAD\n+ref: refs/heads/main\n*** Add File: docs/config\n",
    );
    for line in fsmonitor(&marker).lines() {
        patch.push_str(&format!("+{line}\n"));
    }
    patch.push_str("*** Add File: docs/refs/heads/.keep\n+\n*** End Patch\n");
    let out = lancet(&["apply", "-C", r(root), "--json"], patch.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "protected", "{v:#}");
    assert!(v["message"].as_str().unwrap().contains("docs/"), "{v:#}");
    assert_eq!(snapshot(root), before, "nothing written");
    // Over MCP, one file at a time: HEAD alone is a file like any other; config beside it is not.
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "write_file",
        json!({"path": "docs/HEAD", "content": "ref: refs/heads/main\n"}),
    );
    assert!(!a.is_error, "{a:?}");
    let a = mcp.call(
        "write_file",
        json!({"path": "docs/config", "content": fsmonitor(&marker)}),
    );
    assert!(
        a.is_error && a.structured["error"]["kind"] == "protected",
        "{a:?}"
    );
    let a = mcp.call(
        "write_file",
        json!({"path": "docs/objects/info/packs", "content": "\n"}),
    );
    assert!(a.is_error, "{a:?}");
    assert!(!root.join("docs/config").exists() && !root.join("docs/objects").exists());
    // And git, run there, runs nothing.
    let _ = Command::new("git")
        .args(["status"])
        .current_dir(root.join("docs"))
        .output();
    assert!(!marker.exists());
}

#[test]
fn hooks_and_config_are_never_written_into_an_existing_lookalike() {
    let dir = temp_tree(&[
        ("fixture/HEAD", b"ref: refs/heads/main\n"),
        ("fixture/refs/heads/main", b"0\n"),
    ]);
    let root = dir.path();
    std::fs::create_dir_all(root.join("fixture/objects")).unwrap();
    for (path, content) in [
        ("fixture/hooks/post-checkout", "#!/bin/sh\ntouch pwned\n"),
        ("fixture/config", "[core]\n\thooksPath = /tmp\n"),
        ("fixture/commondir", "..\n"),
    ] {
        let patch = format!(
            "*** Begin Patch\n*** Add File: {path}\n+{}\n*** End Patch\n",
            content.lines().next().unwrap()
        );
        let out = lancet(&["apply", "-C", r(root), "--json"], patch.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{path}: {}", describe(&out));
        assert!(!root.join(path).exists());
    }
    // Its other files are ordinary files.
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Add File: fixture/description\n+a fixture\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// A work tree whose own files look like a repository (a tool's test fixtures at the top, or a
/// lookalike a person made by hand): edits, undo and recovery work as anywhere — but an undo
/// passes the door like every write, so one that would make a directory look like a repository
/// again (the batch deleted `sub/HEAD` beside `sub/config`) is refused, and the person puts it
/// back themselves.
#[test]
fn undo_and_recover_work_on_a_tree_that_merely_looks_like_a_repository() {
    let dir = temp_tree(&[
        ("HEAD", b"ref: refs/heads/main\n"),
        ("refs/heads/main", b"0\n"),
        ("objects/info/packs", b"\n"),
        ("sub/HEAD", b"ref: refs/heads/main\n"),
        ("sub/config", b"[core]\n"),
        ("app.py", b"x = 1\n"),
    ]);
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "fixtures"]);
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Delete File: sub/HEAD\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("lookalike of sub/"),
        "{}",
        describe(&out)
    );
    assert!(!root.join("sub/HEAD").exists(), "nothing written");
    let out = lancet_env(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 3\n*** End Patch\n",
        &[("LANCET_FAILPOINT", "crash:commit:1")],
    );
    assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(&["recover", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}
