//! Settings that run commands or weaken safety come only from the person: a model cannot write
//! lancet's settings over MCP, a repository's settings count only once trusted (and until they
//! change), and a change of settings never prunes checkpoints that existed before it.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, lancet_env, temp_tree, trust};
use serde_json::json;
use std::path::Path;

const PATCH: &str = "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Critical 1: `write_file lancet.toml` with its own `[mcp] test_command`, then `test: true`.
/// Every way to create or move the file is refused, and no test command exists.
#[test]
fn a_model_cannot_write_its_own_test_command() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let marker = root.join("pwned");
    let settings = format!("[mcp]\ntest_command = \"touch {}\"\n", marker.display());
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "write_file",
        json!({"path": "lancet.toml", "content": settings}),
    );
    assert!(
        a.is_error && a.text.contains("configuration is the user's"),
        "{a:?}"
    );
    assert_eq!(a.structured["error"]["kind"], "protected", "{a:?}");
    let a = mcp.call(
        "edit",
        json!({"path": "sub/lancet.toml", "old_string": "", "new_string": settings}),
    );
    assert!(a.is_error, "{a:?}");
    let add = format!(
        "*** Begin Patch\n*** Add File: lancet.toml\n+[mcp]\n+test_command = \"touch {}\"\n*** End Patch\n",
        marker.display()
    );
    let a = mcp.call("apply_patch", json!({"text": add}));
    assert!(a.is_error, "{a:?}");
    let moved = "*** Begin Patch\n*** Update File: app.py\n*** Move to: lancet.toml\n@@\n x = 1\n*** End Patch\n";
    let a = mcp.call("read_file", json!({"path": "app.py"}));
    assert!(!a.is_error);
    let a = mcp.call("apply_patch", json!({"text": moved}));
    assert!(a.is_error, "{a:?}");
    assert!(!root.join("lancet.toml").exists() && !root.join("sub").exists());
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(a.is_error && a.text.contains("no test command"), "{a:?}");
    assert!(!marker.exists(), "the model's command ran");
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// The same through `pyproject.toml`'s `[tool.lancet]`: that table is the user's, the rest of
/// the file stays editable.
#[test]
fn the_tool_lancet_table_is_the_users_and_the_rest_of_pyproject_is_not() {
    let pyproject = "[project]\nname = \"app\"\nversion = \"1.0\"\n";
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        ("pyproject.toml", pyproject.as_bytes()),
    ]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "edit",
        json!({"path": "pyproject.toml", "old_string": "version = \"1.0\"\n",
               "new_string": "version = \"1.0\"\n\n[tool.lancet.mcp]\ntest_command = \"touch pwned\"\n"}),
    );
    assert!(
        a.is_error && a.structured["error"]["kind"] == "protected",
        "{a:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("pyproject.toml")).unwrap(),
        pyproject
    );
    let a = mcp.call(
        "edit",
        json!({"path": "pyproject.toml", "old_string": "version = \"1.0\"", "new_string": "version = \"1.1\""}),
    );
    assert!(!a.is_error, "{a:?}");
    assert!(
        std::fs::read_to_string(root.join("pyproject.toml"))
            .unwrap()
            .contains("1.1")
    );
}

/// High 3: a `lancet.toml` shipped in the repository (written by anyone) does not run its test
/// command or switch the gate off until the person trusts it; a change untrusts it again. The
/// harmless keys apply all along.
#[test]
fn repository_settings_count_only_once_trusted_and_until_they_change() {
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("out/.keep", b"")]);
    let root = dir.path();
    // (Inside an existing directory: over MCP the tests run sandboxed, and a sandboxed test
    // cannot create a new top-level entry.)
    let marker = root.join("out/ran");
    std::fs::write(
        root.join("lancet.toml"),
        format!(
            "[mcp]\ntest_command = \"touch {}\"\n[gate]\nenabled = false\npython = \"3.11\"\n",
            marker.display()
        ),
    )
    .unwrap();
    // Over MCP: the planted command is not there; the notice says why and who can trust it.
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(a.is_error && a.text.contains("no test command"), "{a:?}");
    let broken = "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = (\n*** End Patch\n";
    let a = mcp.call("apply_patch", json!({"text": broken}));
    assert!(a.is_error, "the gate is still on: {a:?}");
    assert!(
        a.text.contains("gate.enabled") && a.text.contains("only the user can trust them"),
        "{a:?}"
    );
    assert!(!marker.exists());
    // On the CLI, the same, in the CLI's words; gate.python (harmless) applies.
    let generic =
        "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+type P = int\n*** End Patch\n";
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--dry-run",
            "--json",
            "--no-syntax-check",
        ],
        generic.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = lancet(
        &["apply", "-C", r(root), "--dry-run", "--json"],
        generic.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "python 3.11 refuses `type`: {}",
        describe(&out)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["notes"]
            .to_string()
            .contains("run `lancet trust` to use them"),
        "{v:#}"
    );
    // Trusted: the person's choices hold, over MCP too.
    trust(root);
    let out = lancet(
        &["apply", "-C", r(root), "--dry-run", "--json"],
        broken.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    drop(mcp);
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(!a.is_error, "{a:?}");
    assert!(marker.exists(), "the trusted test command ran");
    // Changed by anyone (a reformat alone would not count): untrusted again.
    let text = std::fs::read_to_string(root.join("lancet.toml")).unwrap();
    std::fs::write(root.join("lancet.toml"), text.replace("3.11", "3.12")).unwrap();
    let out = lancet(
        &["apply", "-C", r(root), "--dry-run", "--json"],
        broken.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("changed since they were trusted"));
    let out = lancet(&["trust", "-C", r(root), "--revoke"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// The person's own file (`$XDG_CONFIG_HOME/lancet/config.toml`) sets the test command; a
/// user-level file that lies inside the root is not the person's (a model could write it).
#[test]
fn the_user_configuration_counts_only_outside_the_root() {
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("out/.keep", b"")]);
    let root = dir.path();
    let marker = root.join("out/ran");
    let person = tempfile::tempdir().unwrap();
    let settings = format!("[mcp]\ntest_command = \"touch {}\"\n", marker.display());
    for home in [person.path(), &root.join(".config")] {
        std::fs::create_dir_all(home.join("lancet")).unwrap();
        std::fs::write(home.join("lancet/config.toml"), &settings).unwrap();
    }
    let inside = root.join(".config");
    let mut mcp = Mcp::start(root, &[], &[("XDG_CONFIG_HOME", r(&inside))]);
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(a.is_error && a.text.contains("no test command"), "{a:?}");
    drop(mcp);
    let mut mcp = Mcp::start(root, &[], &[("XDG_CONFIG_HOME", r(person.path()))]);
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(!a.is_error, "{a:?}");
    assert!(marker.exists());
}

/// High 4: a change of the retention rule never prunes checkpoints made before it (a model
/// cannot wipe the undo history by lowering `checkpoints.keep`, and neither can the person by
/// accident); checkpoints made under the new rule follow it.
#[test]
fn a_retention_change_never_prunes_what_came_before_it() {
    let dir = temp_tree(&[("app.py", b"x = 0\n")]);
    let root = dir.path();
    let bump = |i: usize| {
        let patch = format!(
            "*** Begin Patch\n*** Update File: app.py\n-x = {i}\n+x = {}\n*** End Patch\n",
            i + 1
        );
        let out = lancet(&["apply", "-C", r(root)], patch.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    };
    let logged = || {
        let out = lancet(&["log", "-C", r(root), "--json"], b"");
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .len()
    };
    for i in 0..3 {
        bump(i);
    }
    std::fs::write(root.join("lancet.toml"), "[checkpoints]\nkeep = 1\n").unwrap();
    // Untrusted: ignored.
    bump(3);
    assert_eq!(logged(), 4);
    trust(root);
    bump(4);
    bump(5);
    // The four from before the change stay; of the ones after it, only the newest.
    assert_eq!(logged(), 5);
    let out = lancet_env(&["undo", "-C", r(root)], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// Medium (fourth review): `requires-python = 39` made the typed reader drop the whole
/// `pyproject.toml`, so a trusted `gate.external`/`gate.enabled` silently stopped applying.
/// `[tool.lancet]` is read on its own now; and when trusted settings do vanish, every report
/// says so.
#[test]
fn trusted_settings_never_vanish_silently() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let settings = "[project]\nname = \"a\"\nrequires-python = \">=3.9\"\n[tool.lancet.gate]\nenabled = false\n";
    std::fs::write(root.join("pyproject.toml"), settings).unwrap();
    trust(root);
    let broken = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = (\n*** End Patch\n";
    let applies = |root: &Path| {
        let out = lancet(&["apply", "-C", r(root), "--dry-run", "--json"], broken);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v["notes"].to_string())
    };
    assert_eq!(applies(root).0, Some(0), "trusted: the gate is off");
    std::fs::write(
        root.join("pyproject.toml"),
        settings.replace("\">=3.9\"", "39"),
    )
    .unwrap();
    assert_eq!(
        applies(root).0,
        Some(0),
        "a value lancet does not read leaves [tool.lancet] in force"
    );
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"a\"\n").unwrap();
    let (code, notes) = applies(root);
    assert_eq!(code, Some(1), "the gate is on again");
    assert!(
        notes.contains("the settings the user trusted in pyproject.toml [tool.lancet] are gone"),
        "{notes}"
    );
    let out = lancet(&["trust", "-C", r(root), "--revoke"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// Issue #37/#42: the MCP server keeps the root's settings and state between calls, and a
/// change to any file they were read from counts at the very next call of the same session:
/// a trust made, settings rewritten to the same size, a repository made at the root.
#[test]
fn a_long_lived_server_honours_a_changed_setting_or_repository_at_the_next_call() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    std::fs::write(
        root.join("lancet.toml"),
        "[gate]\nenabled = false\npython = \"3.11\"\n",
    )
    .unwrap();
    let broken = "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = (\n*** End Patch\n";
    let mended = "*** Begin Patch\n*** Update File: app.py\n-x = (\n+x = 1\n*** End Patch\n";
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call("apply_patch", json!({"text": broken}));
    assert!(a.is_error, "untrusted: the gate is on: {a:?}");
    trust(root);
    let a = mcp.call("apply_patch", json!({"text": broken}));
    assert!(
        !a.is_error,
        "trusted at the next call: the gate is off: {a:?}"
    );
    let a = mcp.call("apply_patch", json!({"text": mended}));
    assert!(!a.is_error, "{a:?}");
    // Rewritten to the same size: untrusted again at the next call.
    let text = std::fs::read_to_string(root.join("lancet.toml")).unwrap();
    std::fs::write(root.join("lancet.toml"), text.replace("3.11", "3.12")).unwrap();
    let a = mcp.call("apply_patch", json!({"text": broken}));
    assert!(
        a.is_error && a.text.contains("changed since they were trusted"),
        "{a:?}"
    );
    // Outside a repository the checkpoints are in `.lancet`; removed between two calls, the
    // next call's state is a new `.lancet` (never the removed directory's kept handle).
    assert!(root.join(".lancet/checkpoints").is_dir());
    std::fs::remove_dir_all(root.join(".lancet")).unwrap();
    let a = mcp.call("apply_patch", json!({"text": PATCH}));
    assert!(!a.is_error, "{a:?}");
    assert_eq!(
        std::fs::read_dir(root.join(".lancet/checkpoints"))
            .map(|d| d.count())
            .ok(),
        Some(1),
        "the checkpoint went to the state as it is now"
    );
    let back = "*** Begin Patch\n*** Update File: app.py\n-x = 2\n+x = 1\n*** End Patch\n";
    let a = mcp.call("apply_patch", json!({"text": back}));
    assert!(!a.is_error, "{a:?}");
    // A repository made at the root takes the next one.
    for args in [
        &["init", "-q"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "start",
        ],
    ] {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let a = mcp.call("apply_patch", json!({"text": PATCH}));
    assert!(!a.is_error, "{a:?}");
    let in_git = std::fs::read_dir(root.join(".git/lancet/checkpoints"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(in_git, 1, "the checkpoint went where git is now");
}
