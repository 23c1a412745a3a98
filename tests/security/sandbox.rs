//! Tests run model code (`conftest.py`, `package.json` scripts) even when the person chose the
//! command: over MCP they run sandboxed by default (`--sandbox` on the CLI), unable to write
//! `.git`, lancet's state or anything outside the root, or to reach the network; where the
//! kernel has no Landlock the tests are refused, nothing written.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, lancet_env, temp_tree};
use serde_json::json;
use std::path::Path;
use std::process::Command;

const PATCH: &[u8] = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Whether this kernel can sandbox (Landlock); the confinement tests need it, the fail-closed
/// ones use the `no-landlock` failpoint.
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
    if out.status.code() != Some(0) {
        eprintln!("no Landlock here: the confinement tests only check the refusal");
    }
    out.status.code() == Some(0)
}

fn repo() -> tempfile::TempDir {
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("pkg/__init__.py", b"")]);
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(&out));
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "initial"]);
    dir
}

/// Each attempt prints `name=OK` when the write (or connection) worked, `name=DENIED` when not.
fn attempts(outside: &Path) -> String {
    format!(
        "t() {{ if sh -c \"$2\" 2>/dev/null; then echo \"$1=OK\"; else echo \"$1=DENIED\"; fi; }}; \
         t hook 'echo x > .git/hooks/pre-commit'; \
         t gitconfig 'echo x >> .git/config'; \
         t outside 'echo x > {outside}/planted'; \
         t root-entry 'echo x > pkg/written'; \
         t new-top 'echo x > newtop'; \
         t tmp 'echo x > \"$TMPDIR/t\"'; \
         t network 'python3 -c \"import socket; socket.socket(socket.AF_INET).close()\"'; \
         t x32 'python3 -c \"import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); r = l.syscall(0x40000027); sys.exit(1 if r == -1 and ctypes.get_errno() == 13 else 0)\"'; \
         exit 1",
        outside = outside.display()
    )
}

#[test]
fn sandboxed_tests_write_only_the_roots_entries_and_reach_no_network() {
    if !landlock() {
        return;
    }
    let dir = repo();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            &attempts(outside.path()),
        ],
        PATCH,
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let output = v["test"]["output"].as_str().unwrap();
    for expected in [
        "hook=DENIED",
        "gitconfig=DENIED",
        "outside=DENIED",
        "root-entry=OK",
        "new-top=DENIED",
        "tmp=OK",
        "network=DENIED",
        "x32=DENIED",
    ] {
        assert!(output.contains(expected), "{expected}: {output}");
    }
    assert!(
        v["test"]["sandbox"]
            .as_str()
            .unwrap()
            .contains("no network"),
        "{v:#}"
    );
    assert!(
        v["message"].as_str().unwrap().contains("lancet's sandbox"),
        "{v:#}"
    );
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!outside.path().join("planted").exists());
    // The batch was rolled back as for any failed test.
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// Outside git, lancet's state (`.lancet/`) is out of the test's reach too.
#[test]
fn sandboxed_tests_cannot_touch_lancets_state() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let out = lancet(&["apply", "-C", r(root)], PATCH);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let undo_patch = b"*** Begin Patch\n*** Update File: app.py\n-x = 2\n+x = 3\n*** End Patch\n";
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            "rm -rf .lancet/checkpoints; echo forged > .lancet/journal.json; ls .lancet/checkpoints >/dev/null",
        ],
        undo_patch,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!root.join(".lancet/journal.json").exists());
    let out = lancet(&["log", "-C", r(root), "--json"], b"");
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log.as_array().unwrap().len(), 2, "{log:#}");
}

/// Over MCP the sandbox is the default: the model's conftest.py cannot plant a hook; the person
/// can opt out with --no-sandbox.
#[test]
fn mcp_tests_run_sandboxed_unless_the_person_opts_out() {
    let dir = repo();
    let root = dir.path();
    let command = "echo x > .git/hooks/post-checkout || exit 1";
    let mut mcp = Mcp::start(root, &["--test-command", command], &[]);
    let a = mcp.call(
        "apply_patch",
        json!({"text": String::from_utf8_lossy(PATCH), "test": true}),
    );
    assert!(a.is_error, "{a:?}");
    if landlock() {
        assert_eq!(a.structured["status"], "test_failed", "{a:?}");
        assert!(a.text.contains("lancet's sandbox"), "{a:?}");
    } else {
        assert_eq!(a.structured["error"]["kind"], "sandbox", "{a:?}");
    }
    assert!(!root.join(".git/hooks/post-checkout").exists());
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    drop(mcp);
    let mut mcp = Mcp::start(root, &["--test-command", command, "--no-sandbox"], &[]);
    let a = mcp.call(
        "apply_patch",
        json!({"text": String::from_utf8_lossy(PATCH), "test": true}),
    );
    assert!(!a.is_error, "{a:?}");
    assert!(
        root.join(".git/hooks/post-checkout").exists(),
        "the person opted out"
    );
}

/// Fail closed: where the kernel has no Landlock, tests that must be sandboxed are refused and
/// nothing is written (MCP by default, the CLI with --sandbox).
#[test]
fn without_landlock_sandboxed_tests_are_refused_and_nothing_is_written() {
    let dir = repo();
    let root = dir.path();
    let env = [("LANCET_FAILPOINT", "no-landlock:1")];
    let mut mcp = Mcp::start(root, &["--test-command", "true"], &env);
    let a = mcp.call(
        "apply_patch",
        json!({"text": String::from_utf8_lossy(PATCH), "test": true}),
    );
    assert!(
        a.is_error && a.structured["error"]["kind"] == "sandbox",
        "{a:?}"
    );
    assert!(a.text.contains("Resend without test"), "{a:?}");
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    let out = lancet_env(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            "true",
        ],
        PATCH,
        &env,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "sandbox", "{v:#}");
    assert!(
        v["message"].as_str().unwrap().contains("--sandbox"),
        "{v:#}"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// A git directory `GIT_DIR` puts in the root (a bare dotfiles repository, `GIT_WORK_TREE=~`),
/// and lancet's state in it, are out of a sandboxed test's reach as `.git` is, though it
/// stands among the root's top-level entries.
#[test]
fn sandboxed_tests_cannot_write_a_git_directory_git_dir_puts_in_the_root() {
    if !landlock() {
        return;
    }
    let (home, vars) = super::state::dotfiles_in_the_root();
    let root = home.path().canonicalize().unwrap();
    let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let attempts = "t() { if sh -c \"$2\" 2>/dev/null; then echo \"$1=OK\"; else echo \"$1=DENIED\"; fi; }; \
         t config 'echo x >> .dotfiles/config'; \
         t state 'echo x > .dotfiles/lancet/planted'; \
         t hook 'echo x > .dotfiles/hooks/pre-commit'; \
         t notes 'echo x >> notes/n.txt'; \
         exit 1";
    let out = lancet_env(
        &[
            "apply",
            "-C",
            r(&root),
            "--json",
            "--sandbox",
            "--test",
            attempts,
        ],
        PATCH,
        &env,
    );
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let output = v["test"]["output"].as_str().unwrap();
    for expected in ["config=DENIED", "state=DENIED", "hook=DENIED", "notes=OK"] {
        assert!(output.contains(expected), "{expected}: {output}");
    }
    assert!(!root.join(".dotfiles/lancet/planted").exists());
    assert!(!root.join(".dotfiles/hooks/pre-commit").exists());
}
