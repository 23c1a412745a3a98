//! Low 14: a checkpoint of a file where HEAD has a directory of that name (a valid edit, once
//! refused with exit 4), and the directory a deletion empties (removed, as git does; back with
//! undo and with a rollback).

use crate::suite::tree::{describe, lancet, temp_tree};
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

#[test]
fn a_file_where_head_has_a_directory_is_checkpointed_and_undone() {
    let dir = temp_tree(&[("x/y.txt", b"in HEAD\n"), ("a.txt", b"a\n")]);
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "x is a directory"]);
    std::fs::remove_dir_all(root.join("x")).unwrap();
    std::fs::write(root.join("x"), "now a file\n").unwrap();
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Update File: x\n-now a file\n+edited\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("x")).unwrap(), b"edited\n");
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("x")).unwrap(), b"now a file\n");
}

#[test]
fn a_directory_emptied_by_a_deletion_goes_with_it_and_comes_back() {
    let dir = temp_tree(&[
        ("pkg/sub/only.py", b"x = 1\n"),
        ("pkg/keep.py", b"k\n"),
        ("a.txt", b"a\n"),
    ]);
    let root = dir.path();
    let delete = b"*** Begin Patch\n*** Delete File: pkg/sub/only.py\n*** End Patch\n";
    let out = lancet(&["apply", "-C", r(root)], delete);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        !root.join("pkg/sub").exists(),
        "the emptied directory is removed"
    );
    assert!(
        root.join("pkg/keep.py").exists(),
        "a directory still holding files stays"
    );
    let out = lancet(&["undo", "-C", r(root)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read(root.join("pkg/sub/only.py")).unwrap(),
        b"x = 1\n"
    );
    // A rolled-back deletion (failed tests) puts the directory back too.
    let out = lancet(&["apply", "-C", r(root), "--test", "false"], delete);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert_eq!(
        std::fs::read(root.join("pkg/sub/only.py")).unwrap(),
        b"x = 1\n"
    );
    // Deleting every file of a tree removes the tree, up to (never including) the root.
    let out = lancet(
        &["apply", "-C", r(root)],
        b"*** Begin Patch\n*** Delete File: pkg/sub/only.py\n*** Delete File: pkg/keep.py\n*** End Patch\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!root.join("pkg").exists());
    assert!(root.exists());
}
