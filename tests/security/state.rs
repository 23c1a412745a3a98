//! Medium 6, Low 10 and 11: lancet's own state. A `.lancet/snapshots` shipped as a link is
//! never written or pruned through; a `.lancet` swapped for a link during a batch does not send
//! the batch's state writes elsewhere (one handle, opened under the lock), its checkpoint
//! included, and a `.git` swapped before the checkpoint refuses the batch; the per-path lock
//! directory must be the user's own, and a link planted in it is not followed.

use crate::suite::tree::{
    describe, lancet, lancet_env, lancet_in_background, temp_tree, wait_paused,
};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn read_never_writes_or_prunes_through_a_shipped_snapshots_link() {
    let victim = tempfile::tempdir().unwrap();
    for i in 0..300 {
        let name = format!("{:064x}", i);
        std::fs::write(victim.path().join(name), "the user's file").unwrap();
    }
    let before = names(victim.path());
    let dir = temp_tree(&[("app.py", b"x = 1\n"), (".lancet/checkpoints/.keep", b"")]);
    let root = dir.path();
    std::os::unix::fs::symlink(victim.path(), root.join(".lancet/snapshots")).unwrap();
    for _ in 0..2 {
        let out = lancet(&["read", "-C", r(root), "app.py"], b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "the read itself works: {}",
            describe(&out)
        );
    }
    assert_eq!(
        names(victim.path()),
        before,
        "written or pruned through the link"
    );
    // And a batch refuses the linked state (state_dir), nothing written.
    let out = lancet(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("state_dir"),
        "{}",
        describe(&out)
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

#[test]
fn a_state_directory_swapped_mid_batch_keeps_the_batchs_state_writes() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    // A first batch makes .lancet; the second pauses after its journal is written.
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let pause_dir = tempfile::tempdir().unwrap();
    let pause = pause_dir.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 2\n+x = 3\n*** End Patch\n",
        &[
            ("LANCET_PAUSE_AT", "rename"),
            ("LANCET_PAUSE_FILE", r(&pause)),
        ],
    );
    wait_paused(&mut child, &pause);
    std::fs::rename(root.join(".lancet"), root.join("moved-state")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".lancet")).unwrap();
    std::fs::remove_file(&pause).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        names(outside.path()).is_empty(),
        "state written through the swapped link: {:?}",
        names(outside.path())
    );
    assert!(
        !root.join("moved-state/journal.json").exists(),
        "the journal went, in the directory opened"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 3\n");
}

/// Runs `apply -C root` of `patch` paused after its journal is written (before its checkpoint
/// is recorded), lets `swap` act on the tree there, and returns what the batch did.
fn apply_swapped_before_the_checkpoint(
    root: &Path,
    patch: &[u8],
    swap: impl FnOnce(),
) -> std::process::Output {
    let pause_dir = tempfile::tempdir().unwrap();
    let pause = pause_dir.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        patch,
        &[
            ("LANCET_PAUSE_AT", "journal"),
            ("LANCET_PAUSE_FILE", r(&pause)),
        ],
    );
    wait_paused(&mut child, &pause);
    swap();
    std::fs::remove_file(&pause).unwrap();
    child.wait_with_output().unwrap()
}

/// Issue #35: `.lancet` swapped for a link before the checkpoint is recorded: libgit2 opened the
/// private repository by name and made it through the link. It is opened through the state's
/// handle now: the checkpoint lands in the directory the batch opened.
#[test]
fn a_state_directory_swapped_before_the_checkpoint_keeps_the_checkpoint_in_the_directory_opened() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::remove_dir_all(root.join(".lancet/git")).unwrap();
    let out = apply_swapped_before_the_checkpoint(
        root,
        b"*** Begin Patch\n*** Update File: app.py\n-x = 2\n+x = 3\n*** End Patch\n",
        || {
            std::fs::rename(root.join(".lancet"), root.join("moved-state")).unwrap();
            std::os::unix::fs::symlink(outside.path(), root.join(".lancet")).unwrap();
        },
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        names(outside.path()).is_empty(),
        "the checkpoint repository was made through the swapped link: {:?}",
        names(outside.path())
    );
    assert!(root.join("moved-state/git/HEAD").exists());
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 3\n");
}

/// Issue #35: a repository's `.git` swapped for a link to another repository before the
/// checkpoint is recorded: the checkpoint went into the other repository. Refused now
/// (`state_dir`), nothing written, nothing recorded there.
#[test]
fn a_git_directory_swapped_before_the_checkpoint_is_refused() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let other = tempfile::tempdir().unwrap();
    for repo in [root, other.path()] {
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(repo)
            .output()
            .unwrap();
        assert!(init.status.success());
    }
    let out = apply_swapped_before_the_checkpoint(
        root,
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
        || {
            std::fs::rename(root.join(".git"), root.join("moved.git")).unwrap();
            std::os::unix::fs::symlink(other.path().join(".git"), root.join(".git")).unwrap();
        },
    );
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("\"state_dir\"") && report.contains("not the git directory found"),
        "{}",
        describe(&out)
    );
    assert!(
        !other.path().join(".git/refs/lancet").exists(),
        "a checkpoint was recorded in the other repository"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    assert!(
        !root.join("moved.git/lancet/journal.json").exists(),
        "the journal of the refused batch went"
    );
}

#[test]
fn the_lock_directory_must_be_the_users_own() {
    let runtime = tempfile::tempdir().unwrap();
    let locks = runtime.path().join("lancet/locks");
    std::fs::create_dir_all(&locks).unwrap();
    std::fs::set_permissions(&locks, std::fs::Permissions::from_mode(0o777)).unwrap();
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let patch = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";
    let env = [("XDG_RUNTIME_DIR", r(runtime.path()))];
    let out = lancet_env(&["apply", "-C", r(dir.path()), "--json"], patch, &env);
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("writable by others"),
        "{}",
        describe(&out)
    );
    std::fs::set_permissions(&locks, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A link where the root's lock file goes: refused, the file it names never made.
    let target = runtime.path().join("made-elsewhere");
    let out = lancet_env(&["apply", "-C", r(dir.path()), "--dry-run"], patch, &env);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    for entry in std::fs::read_dir(&locks).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let root_lock = {
        use sha2::Digest;
        let canonical = dir.path().canonicalize().unwrap();
        let hex: String = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        locks.join(&hex[..32])
    };
    std::os::unix::fs::symlink(&target, &root_lock).unwrap();
    let out = lancet_env(&["apply", "-C", r(dir.path()), "--json"], patch, &env);
    assert_eq!(out.status.code(), Some(4), "{}", describe(&out));
    assert!(!target.exists());
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        b"x = 1\n"
    );
}

/// A bare "dotfiles" repository in `~/.dotfiles` with `GIT_DIR` and `GIT_WORK_TREE=~` exported:
/// its git directory, and lancet's state in it, lie inside the root. Returns the home and the
/// variables.
pub(crate) fn dotfiles_in_the_root() -> (tempfile::TempDir, Vec<(&'static str, String)>) {
    let home = temp_tree(&[("app.py", b"x = 1\n"), ("notes/n.txt", b"n\n")]);
    let path = home.path().canonicalize().unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q", "--bare", ".dotfiles"])
        .current_dir(&path)
        .env_remove("GIT_DIR")
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", describe(&init));
    let vars = vec![
        ("GIT_DIR", path.join(".dotfiles").display().to_string()),
        ("GIT_WORK_TREE", path.display().to_string()),
    ];
    (home, vars)
}

/// With `GIT_DIR` naming a git directory inside the root, no batch writes into it: neither
/// lancet's state there (a forged journal) nor the repository's own files (refs, info/), as no
/// batch writes into `.git`.
#[test]
fn a_git_directory_git_dir_puts_in_the_root_is_out_of_a_batchs_reach() {
    let (home, vars) = dotfiles_in_the_root();
    let root = home.path().canonicalize().unwrap();
    let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // The state exists (a first batch made it), as a forged journal would need.
    let out = lancet_env(
        &["apply", "-C", r(&root)],
        b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n",
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(root.join(".dotfiles/lancet").is_dir());
    for path in [
        ".dotfiles/lancet/journal.json",
        ".dotfiles/refs/heads/planted",
        ".dotfiles/info/attributes",
    ] {
        let patch = format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n");
        let out = lancet_env(&["apply", "-C", r(&root), "--json"], patch.as_bytes(), &env);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", describe(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"]["kind"], "unsafe_path", "{path}: {v}");
        assert!(
            v["message"].as_str().unwrap().contains("git directory"),
            "{path}: {v}"
        );
        assert!(!root.join(path).exists(), "{path} written");
    }
}
