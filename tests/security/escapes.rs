//! The second round: what an attack pass on the first fixes found. A test's background process
//! racing lancet's writes (it is killed with the test now, whatever its session), a `kill` a
//! model put on `PATH`, typing into the person's terminal from a test, lancet's state reached
//! through a link a test made, settings hidden behind an undecodable byte or restored by an
//! undo, and tests writing settings, nested repositories or through a link to the root.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, lancet_env, temp_tree, trust};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

const PATCH: &str = "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";

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

fn landlock() -> bool {
    let out = lancet_env(
        &[
            "apply",
            "-C",
            r(temp_tree(&[]).path()),
            "--dry-run",
            "--sandbox",
            "--test",
            "true",
        ],
        b"*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n",
        &[],
    );
    out.status.code() == Some(0)
}

/// A test's `setsid` child is killed with the test: nothing of the model's runs on while
/// lancet writes (the race that once swapped a directory for a link to `.git`).
#[test]
fn nothing_a_test_starts_outlives_it() {
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("out/.keep", b"")]);
    let root = dir.path();
    let marker = root.join("out/survived");
    let command = format!(
        "setsid sh -c 'sleep 1; touch {}' </dev/null >/dev/null 2>&1 & exit 0",
        marker.display()
    );
    let out = lancet(
        &["apply", "-C", r(root), "--test", &command],
        PATCH.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::thread::sleep(std::time::Duration::from_millis(1600));
    assert!(
        !marker.exists(),
        "the test's background process outlived it"
    );
}

/// lancet never runs a program looked up on `PATH` after a test: a model's `kill` in an
/// activated `.venv/bin` stays unrun.
#[test]
fn a_kill_on_path_inside_the_root_never_runs() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let marker = root.join("ran-kill");
    let fake = root.join(".venv/bin/kill");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(&fake, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.parent().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    let out = lancet_env(
        &["apply", "-C", r(root), "--test", "true"],
        PATCH.as_bytes(),
        &[("PATH", &path)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!marker.exists(), "lancet ran the model's kill");
}

/// A sandboxed test has no terminal to type into (its own session, no terminal device granted).
#[test]
fn a_sandboxed_test_reaches_no_terminal() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let out = lancet(
        &[
            "apply",
            "-C",
            r(dir.path()),
            "--json",
            "--sandbox",
            "--test",
            "if echo x > /dev/tty; then echo TTY=OK; else echo TTY=DENIED; fi; ls /dev/pts >/dev/null; exit 1",
        ],
        PATCH.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["test"]["output"].as_str().unwrap().contains("TTY=DENIED"),
        "{v:#}"
    );
}

/// lancet's state reached through a link (one a test made: `pkg/st -> ../.lancet`) is still
/// lancet's state: refused.
#[test]
fn the_state_directory_through_a_link_is_refused() {
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("pkg/__init__.py", b"")]);
    let root = dir.path();
    let out = lancet(&["apply", "-C", r(root)], PATCH.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::os::unix::fs::symlink("../.lancet", root.join("pkg/st")).unwrap();
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call(
        "write_file",
        json!({"path": "pkg/st/x.txt", "content": "x"}),
    );
    assert!(a.is_error && a.text.contains(".lancet"), "{a:?}");
    assert!(!root.join(".lancet/x.txt").exists());
    let a = mcp.call("read_file", json!({"path": "pkg/st/ledger.jsonl"}));
    assert!(a.is_error, "{a:?}");
}

/// `[tool.lancet]` added to a `pyproject.toml` holding a byte that is not UTF-8 is still a
/// change of lancet's settings.
#[test]
fn settings_hidden_behind_an_undecodable_byte_are_still_the_users() {
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        (
            "pyproject.toml",
            b"# Maintainer: Jos\xe9\n[project]\nname = \"a\"\n",
        ),
    ]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let a = mcp.call(
        "edit",
        json!({"path": "pyproject.toml", "old_string": "name = \"a\"\n",
               "new_string": "name = \"a\"\n[tool.lancet.gate]\npython = \"3.11\"\n"}),
    );
    assert!(
        a.is_error && a.structured["error"]["kind"] == "protected",
        "{a:?}"
    );
}

/// An undo a model asks for never rewrites the person's settings (the person's own batch that
/// changed lancet.toml is theirs to undo, with `lancet undo`).
#[test]
fn an_undo_over_mcp_never_changes_the_settings() {
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        ("lancet.toml", b"[gate]\npython = \"3.12\"\n"),
    ]);
    let root = dir.path();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: lancet.toml\n-python = \"3.12\"\n+python = \"3.11\"\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let mut mcp = Mcp::start(root, &[], &[]);
    let a = mcp.call("undo", json!({}));
    assert!(
        a.is_error && a.structured["error"]["kind"] == "protected",
        "{a:?}"
    );
    assert!(
        std::fs::read_to_string(root.join("lancet.toml"))
            .unwrap()
            .contains("3.11")
    );
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "the person may: {}",
        describe(&out)
    );
}

/// A sandboxed test may not write lancet's settings at the top of the root, nor anything
/// through a link to the root, nor into a nested repository; a repository it creates is made
/// inert and fails the run.
#[test]
fn sandboxed_tests_write_no_settings_no_nested_git_and_plant_no_repository() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        ("lancet.toml", b"[gate]\npython = \"3.12\"\n"),
        ("pyproject.toml", b"[project]\nname = \"a\"\n"),
        ("vendor/lib/README", b"vendored\n"),
        ("pkg/__init__.py", b""),
    ]);
    let root = dir.path();
    git(&root.join("vendor/lib"), &["init", "-q"]);
    std::os::unix::fs::symlink(".", root.join("self")).unwrap();
    trust(root);
    let attempts = "t() { if sh -c \"$2\" 2>/dev/null; then echo \"$1=OK\"; else echo \"$1=DENIED\"; fi; }; \
                    t settings 'echo x >> lancet.toml'; t pyproject 'echo x >> pyproject.toml'; \
                    t via-link 'echo x > self/.git-like'; t nested-hook 'echo x > vendor/lib/.git/hooks/pre-commit'; \
                    t vendored 'echo x >> vendor/lib/README'; exit 1";
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            attempts,
        ],
        PATCH.as_bytes(),
    );
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    let output = v["test"]["output"].as_str().unwrap();
    for expected in [
        "settings=DENIED",
        "pyproject=DENIED",
        "via-link=DENIED",
        "nested-hook=DENIED",
        "vendored=OK",
    ] {
        assert!(output.contains(expected), "{expected}: {output}");
    }
    // A repository planted by the test: set aside, the run failed, the batch rolled back.
    let marker = root.join("pkg/pwned");
    let plant = format!(
        "git init -q pkg/evil && git -C pkg/evil config core.fsmonitor 'touch {}' && exit 0",
        marker.display()
    );
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            &plant,
        ],
        PATCH.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("created git repositories"),
        "{}",
        describe(&out)
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    let _ = Command::new("git")
        .args(["status"])
        .current_dir(root.join("pkg/evil"))
        .output();
    assert!(!marker.exists(), "git ran the planted repository's command");
}

/// The gate's external checks (the person's `gate.external`) never run a program from inside
/// the tree, whatever `PATH` says.
#[test]
fn external_checks_never_run_a_program_from_the_tree() {
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        ("lancet.toml", b"[gate]\nexternal = [\"python\"]\n"),
    ]);
    let root = dir.path();
    trust(root);
    let marker = root.join("ran-python");
    let fake = root.join(".venv/bin/python3");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(&fake, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.parent().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    let broken = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+return 1\n*** End Patch\n";
    let _ = lancet_env(
        &["apply", "-C", r(root), "--dry-run"],
        broken,
        &[("PATH", &path)],
    );
    let _ = lancet_env(&["check", "-C", r(root)], b"", &[("PATH", &path)]);
    assert!(
        !marker.exists(),
        "lancet ran the model's python3 as a check"
    );
}
