//! One door for every write (the fourth hostile review): an undo, a rollback and every other
//! writer pass the same checks as an edit, history is scoped to the root it was asked from, a
//! forced undo never destroys work the model has not read, and no file of lancet mutates the
//! tree but the door.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, temp_tree};
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
    assert!(out.status.success(), "{}", describe(&out));
}

const FSMONITOR: &str = "[core]\n\tfsmonitor = touch /tmp/lancet-door-pwned\n";

/// Critical: a model writes `docs/HEAD`, deletes it, writes `docs/config` (with
/// `core.fsmonitor`), `docs/objects/` and `docs/refs/`, then undoes the deletion. The undo
/// passes the door like any write: it would make `docs/` a repository, so it is refused.
#[test]
fn undo_never_completes_a_repository_lookalike() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "write_file",
        json!({"path": "docs/HEAD", "content": "ref: refs/heads/main\n"}),
    );
    assert!(!a.is_error, "{a:?}");
    let a = mcp.call(
        "apply_patch",
        json!({"operations": [{"type": "delete_file", "path": "docs/HEAD"}]}),
    );
    assert!(!a.is_error, "{a:?}");
    let deletion = a.structured["checkpoint"].as_str().unwrap().to_string();
    for (path, content) in [
        ("docs/config", FSMONITOR),
        ("docs/objects/info/packs", "\n"),
        ("docs/refs/heads/main", "0\n"),
    ] {
        let a = mcp.call("write_file", json!({"path": path, "content": content}));
        assert!(!a.is_error, "{path}: {a:?}");
    }
    let a = mcp.call("undo", json!({"id": deletion}));
    assert!(a.is_error, "{a:?}");
    assert_eq!(a.structured["error"]["kind"], "protected", "{a:?}");
    assert!(a.text.contains("docs/"), "{}", a.text);
    assert!(
        !root.join("docs/HEAD").exists(),
        "docs/ became a repository"
    );
    // The CLI's undo passes the same door.
    let out = lancet(&["undo", "-C", r(root), &deletion], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(!root.join("docs/HEAD").exists());
}

/// Critical: `lancet mcp -C repo/sub` saw (and undid) the person's batches made at `repo/`,
/// deleting and rewriting files in `repo/other`. A root's history is the batches whose every
/// path lies inside it: others are unknown ids over MCP, and reached on the CLI only with
/// `--any-root`.
#[test]
fn history_is_scoped_to_the_root_it_is_asked_from() {
    let dir = temp_tree(&[("sub/a.py", b"a = 1\n"), ("other/b.py", b"b = 1\n")]);
    let repo = dir.path();
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "initial"]);
    let out = lancet(
        &["apply", "-C", r(repo), "--json"],
        b"*** Begin Patch\n*** Update File: other/b.py\n-b = 1\n+b = 2\n*** Add File: other/new.py\n+n = 1\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let outer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outer_id = outer["checkpoint"].as_str().unwrap().to_string();
    let sub = repo.join("sub");
    let mut mcp = Mcp::start(&sub, &[], &[]);
    let a = mcp.call("checkpoints", json!({}));
    assert_eq!(a.structured["checkpoints"], json!([]), "{a:?}");
    let a = mcp.call("undo", json!({"id": outer_id}));
    assert!(a.is_error, "{a:?}");
    assert_eq!(a.structured["error"]["kind"], "no_checkpoint", "{a:?}");
    let a = mcp.call("undo", json!({}));
    assert_eq!(a.structured["error"]["kind"], "no_checkpoint", "{a:?}");
    assert_eq!(std::fs::read(repo.join("other/b.py")).unwrap(), b"b = 2\n");
    assert!(repo.join("other/new.py").exists());
    // A batch of the sub-root is its own.
    let a = mcp.call(
        "edit",
        json!({"path": "a.py", "old_string": "a = 1", "new_string": "a = 2"}),
    );
    assert!(!a.is_error, "{a:?}");
    let a = mcp.call("checkpoints", json!({}));
    assert_eq!(a.structured["checkpoints"].as_array().unwrap().len(), 1);
    // The CLI from the sub-root: the same, unless the person reaches further.
    let out = lancet(&["log", "-C", r(&sub), "--json"], b"");
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed:#}");
    let out = lancet(&["undo", "-C", r(&sub), &outer_id], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let out = lancet(&["undo", "-C", r(&sub), "--any-root", &outer_id], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(repo.join("other/b.py")).unwrap(), b"b = 1\n");
    assert!(!repo.join("other/new.py").exists());
}

/// High: `undo {force: true}` overwrote the person's later edit of a file the model never read,
/// and recorded nothing to bring it back. Over MCP, force covers only files the model has read
/// as they are now; and every undo is a checkpointed batch, so undoing it redoes.
#[test]
fn a_forced_undo_never_destroys_work_the_model_has_not_read() {
    let dir = temp_tree(&[("a.py", b"a = 1\n"), ("b.py", b"b = 1\n")]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "apply_patch",
        json!({"text": "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** Update File: b.py\n-b = 1\n+b = 2\n*** End Patch\n"}),
    );
    assert!(!a.is_error, "{a:?}");
    let batch = a.structured["checkpoint"].as_str().unwrap().to_string();
    // The person edits b.py by hand; the model has not seen that.
    std::fs::write(root.join("b.py"), "b = 2  # the person's work\n").unwrap();
    let a = mcp.call("undo", json!({"force": true}));
    assert!(a.is_error, "{a:?}");
    assert_eq!(a.structured["error"]["kind"], "unread", "{a:?}");
    assert!(a.text.contains("b.py"), "{}", a.text);
    assert_eq!(
        std::fs::read(root.join("b.py")).unwrap(),
        b"b = 2  # the person's work\n"
    );
    // Once the model has read it as it is, force is its call.
    let a = mcp.call("read_file", json!({"path": "b.py"}));
    assert!(!a.is_error, "{a:?}");
    let a = mcp.call("undo", json!({"force": true}));
    assert!(!a.is_error, "{a:?}");
    assert_eq!(std::fs::read(root.join("b.py")).unwrap(), b"b = 1\n");
    let undo = a.structured["checkpoint"].as_str().unwrap().to_string();
    assert_ne!(undo, batch);
    // The undo is a batch of its own, in the log: undoing it brings the overwritten work back.
    let a = mcp.call("checkpoints", json!({}));
    let list = a.structured["checkpoints"].as_array().unwrap().clone();
    assert_eq!(list[0]["id"], undo.as_str(), "{list:#?}");
    assert_eq!(list[0]["undoes"], batch.as_str(), "{list:#?}");
    let a = mcp.call("undo", json!({"id": undo}));
    assert!(!a.is_error, "{a:?}");
    assert_eq!(
        std::fs::read(root.join("b.py")).unwrap(),
        b"b = 2  # the person's work\n"
    );
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 2\n");
}

/// An undone batch is never undone again: when the same edit was re-applied as a newer batch,
/// `undo ID` of the old one used to revert the new one, exit 0, and leave the log saying the
/// newer batch is live.
#[test]
fn an_undo_never_runs_twice() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let root = dir.path();
    let patch = b"*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** End Patch\n";
    let id = |out: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checkpoint"].as_str().unwrap().to_string()
    };
    let first = lancet(&["apply", "-C", r(root), "--json"], patch);
    assert_eq!(first.status.code(), Some(0), "{}", describe(&first));
    let undo = lancet(&["undo", "-C", r(root), "--json"], b"");
    assert_eq!(undo.status.code(), Some(0), "{}", describe(&undo));
    let again = lancet(&["apply", "-C", r(root), "--json"], patch);
    assert_eq!(again.status.code(), Some(0), "{}", describe(&again));
    let out = lancet(&["undo", "-C", r(root), "--json", &id(&first)], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "already_undone", "{v:#}");
    assert!(
        v["message"].as_str().unwrap().contains(&id(&undo)),
        "names the undo: {v:#}"
    );
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 2\n");
    // Undoing the undo redoes; the first batch is live again and the second stays live.
    let log = lancet(&["log", "-C", r(root), "--json"], b"");
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let live = |id: &str| {
        log.as_array()
            .unwrap()
            .iter()
            .find(|e| e["id"] == id)
            .map(|e| e["undone"] == false)
    };
    assert_eq!(live(&id(&again)), Some(true), "{log:#}");
    assert_eq!(live(&id(&first)), Some(false), "{log:#}");
}

/// A test run that changes a directory while the batch awaits its verdict: rolling the batch
/// back would complete a repository lookalike (the batch deleted `docs/HEAD`, the tests wrote
/// `docs/config`). The rollback passes the door too: that path is left as the batch wrote it,
/// and the report says the rollback is not intact.
#[test]
fn a_rollback_never_completes_a_repository_lookalike() {
    let dir = temp_tree(&[
        ("docs/HEAD", b"ref: refs/heads/main\n"),
        ("docs/readme", b"docs\n"),
        ("app.py", b"x = 1\n"),
    ]);
    let root = dir.path();
    let test = format!(
        "printf '{}' > docs/config; exit 1",
        FSMONITOR.replace('\n', "\\n").replace('\t', "\\t")
    );
    let out = lancet(
        &["apply", "-C", r(root), "--json", "--test", &test],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** Delete File: docs/HEAD\n*** End Patch\n",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("would have made its directory look like a git repository"),
        "{v:#}"
    );
    assert!(
        !root.join("docs/HEAD").exists(),
        "docs/ became a repository"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// The design rule behind every finding above: the only files of lancet that mutate the file
/// system are the door (the tree) and the state module (lancet's own state, through its
/// handle), and a few named writers of places outside every root. A new writer anywhere else
/// fails here.
#[test]
fn only_the_door_writes_into_the_tree() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let writers = crate::suite::source_scan::mutating_files(&workspace);
    let allowed = crate::suite::source_scan::ALLOWED_WRITERS;
    let unexpected: Vec<&String> = writers
        .keys()
        .filter(|f| !allowed.iter().any(|(a, _)| f.starts_with(a)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "these files mutate the file system outside the door and the state module: {:#?}",
        unexpected
            .iter()
            .map(|f| (f, &writers[*f]))
            .collect::<Vec<_>>()
    );
    // Every allowance is still needed (a stale one would hide a new writer).
    for (prefix, why) in allowed {
        assert!(
            writers.keys().any(|f| f.starts_with(prefix)),
            "{prefix} ({why}) writes nothing any more: drop it from the list"
        );
    }
    // (The commit itself takes `Admitted`, which only `lancet_store::admit` makes: the compiler
    // holds every caller of the commit to the door.)
}
