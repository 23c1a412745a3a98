//! Git as the person set it up (#36 item 5): lancet finds the repository holding a root as git
//! does (a bare "dotfiles" repository named by `GIT_DIR` with `GIT_WORK_TREE` or
//! `core.worktree`), keeps its state and checkpoints there, never shows its state in
//! `git status`, and refuses a read-only `.git` with advice that fits.

use super::transactions::Unwritable;
use super::tree::{describe, lancet_env, temp_tree};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn r(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(out)))
}

/// Runs git in `dir` with `env` (and nothing of the test process's own git variables), a fixed
/// identity and no optional locks; panics unless it succeeds. Returns stdout.
fn git(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args([
            "-c",
            "user.name=lancet tests",
            "-c",
            "user.email=tests@lancet.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_CEILING_DIRECTORIES")
        .env_remove("GIT_INDEX_FILE")
        .envs(env.iter().copied())
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        describe(&out)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A person's home with a bare dotfiles repository in `.dotfiles` that tracks `a.txt`,
/// `sub/b.txt` and a `.gitignore` naming `.dotfiles` (the usual setup); returns the home and
/// the variables that name the repository and its work tree.
fn dotfiles_home() -> (tempfile::TempDir, [(&'static str, String); 2]) {
    let home = temp_tree(&[
        ("a.txt", b"a\n"),
        ("sub/b.txt", b"b\n"),
        (".gitignore", b".dotfiles\n"),
    ]);
    let path = home.path().canonicalize().unwrap();
    git(&path, &[], &["init", "-q", "--bare", ".dotfiles"]);
    let vars = [
        ("GIT_DIR", path.join(".dotfiles").display().to_string()),
        ("GIT_WORK_TREE", path.display().to_string()),
    ];
    let env = borrowed(&vars);
    git(&path, &env, &["add", "a.txt", "sub/b.txt", ".gitignore"]);
    git(&path, &env, &["commit", "-q", "-m", "dotfiles"]);
    (home, vars)
}

fn borrowed<'a>(vars: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn patch(path: &str, old: &str, new: &str) -> Vec<u8> {
    format!("*** Begin Patch\n*** Update File: {path}\n-{old}\n+{new}\n*** End Patch\n")
        .into_bytes()
}

/// Every ref but lancet's own, with what it points at, and the index's bytes: what lancet must
/// never touch.
fn untouchable(dir: &Path, env: &[(&str, &str)], git_dir: &Path) -> (String, Vec<u8>) {
    let refs = git(
        dir,
        env,
        &["for-each-ref", "--format=%(objectname) %(refname)"],
    )
    .lines()
    .filter(|l| !l.contains(" refs/lancet/"))
    .collect::<Vec<_>>()
    .join("\n");
    let head = git(dir, env, &["rev-parse", "HEAD"]);
    (
        format!("{refs}\nHEAD {head}"),
        std::fs::read(git_dir.join("index")).unwrap_or_default(),
    )
}

/// The bare dotfiles setup, named by `GIT_DIR` with `GIT_WORK_TREE`, and by `GIT_DIR` alone
/// with `core.worktree` in a repository that is not bare: lancet's state goes in
/// `$GIT_DIR/lancet/`, its checkpoints in that repository under `refs/lancet/` (paths from the
/// work tree, whichever root below it ran), HEAD, the index and every other ref untouched, and
/// no `.lancet` anywhere. Before, lancet did not find the repository and made `.lancet/` with a
/// whole private repository in it.
#[test]
fn a_dotfiles_repository_named_by_git_dir_holds_lancets_state_and_checkpoints() {
    for setup in ["GIT_WORK_TREE", "core.worktree"] {
        let (home, vars) = dotfiles_home();
        let home = home.path().canonicalize().unwrap();
        let git_dir = home.join(".dotfiles");
        let vars: Vec<(&str, &str)> = match setup {
            "GIT_WORK_TREE" => borrowed(&vars),
            _ => {
                let env = borrowed(&vars);
                git(&home, &env, &["config", "core.bare", "false"]);
                git(&home, &env, &["config", "core.worktree", r(&home)]);
                vec![("GIT_DIR", r(&git_dir))]
            }
        };
        let before = untouchable(&home, &vars, &git_dir);
        let out = lancet_env(
            &["apply", "-C", r(&home), "--json"],
            &patch("a.txt", "a", "A"),
            &vars,
        );
        assert_eq!(out.status.code(), Some(0), "{setup}: {}", describe(&out));
        // A root below the work tree: its paths are the work tree's in the checkpoint.
        let sub = home.join("sub");
        let out = lancet_env(
            &["apply", "-C", r(&sub), "--json"],
            &patch("b.txt", "b", "B"),
            &vars,
        );
        assert_eq!(out.status.code(), Some(0), "{setup}: {}", describe(&out));
        assert!(!home.join(".lancet").exists(), "{setup}: a .lancet at home");
        assert!(!sub.join(".lancet").exists(), "{setup}: a .lancet in sub");
        let state = git_dir.join("lancet");
        let mut logged: Vec<String> = std::fs::read_dir(state.join("checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        logged.sort();
        assert_eq!(logged.len(), 2, "{setup}: {logged:?}");
        let refs = git(
            &home,
            &vars,
            &["for-each-ref", "--format=%(refname)", "refs/lancet/"],
        );
        let checkpoints: Vec<&str> = refs.lines().collect();
        assert_eq!(checkpoints.len(), 2, "{setup}: {refs}");
        for (checkpoint, touched) in checkpoints.iter().zip(["a.txt", "sub/b.txt"]) {
            let names = git(
                &home,
                &vars,
                &["diff", "--name-only", &format!("{checkpoint}^"), checkpoint],
            );
            assert_eq!(names.trim(), touched, "{setup}: {checkpoint}");
        }
        assert_eq!(
            untouchable(&home, &vars, &git_dir),
            before,
            "{setup}: HEAD, the index or a ref moved"
        );
        // Undone from the root below, as the person's git sees it.
        let out = lancet_env(&["undo", "-C", r(&sub)], b"", &vars);
        assert_eq!(out.status.code(), Some(0), "{setup}: {}", describe(&out));
        assert_eq!(std::fs::read(sub.join("b.txt")).unwrap(), b"b\n", "{setup}");
        assert_eq!(
            git(&home, &vars, &["status", "--porcelain", "-uall"]),
            " M a.txt\n",
            "{setup}"
        );
    }
}

/// A repository whose git directory is a reftable one (libgit2 cannot open it) in `dir`, or
/// `None` where this git cannot make one.
fn reftable_repository(dir: &Path) -> Option<()> {
    let made = Command::new("git")
        .args(["init", "-q", "--ref-format=reftable"])
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .ok()?;
    made.status.success().then_some(())
}

/// Wherever lancet keeps its state inside a work tree, `git status` shows none of it, after
/// `apply` and after `undo`: the dotfiles setup with the variables (state in `$GIT_DIR/lancet/`)
/// and without them (lancet finds no repository from the root and falls back to `.lancet/`,
/// which lies in the work tree), and a plain repository lancet does not use: one above a
/// `GIT_CEILING_DIRECTORIES` it was given, one in a format libgit2 cannot open (reftable).
#[test]
fn lancets_state_never_shows_in_git_status() {
    struct Setup {
        name: &'static str,
        /// The directory git status runs in and the variables it runs with.
        top: PathBuf,
        git_env: Vec<(&'static str, String)>,
        /// The root lancet runs on, the variables it gets, and the file edited (from the root).
        root: PathBuf,
        lancet_env: Vec<(&'static str, String)>,
        file: &'static str,
        /// The path `git status` names for it.
        shown: &'static str,
        _dir: tempfile::TempDir,
    }
    let mut setups = Vec::new();
    for with_variables in [true, false] {
        let (home, vars) = dotfiles_home();
        let top = home.path().canonicalize().unwrap();
        setups.push(Setup {
            name: if with_variables {
                "dotfiles, variables exported"
            } else {
                "dotfiles, no variables for lancet"
            },
            top: top.clone(),
            git_env: vars.to_vec(),
            root: top,
            lancet_env: if with_variables {
                vars.to_vec()
            } else {
                Vec::new()
            },
            file: "a.txt",
            shown: "a.txt",
            _dir: home,
        });
    }
    let plain = temp_tree(&[("sub/a.txt", b"a\n")]);
    let top = plain.path().canonicalize().unwrap();
    git(&top, &[], &["init", "-q"]);
    git(&top, &[], &["add", "-A"]);
    git(&top, &[], &["commit", "-q", "-m", "plain"]);
    setups.push(Setup {
        name: "a plain repository above the ceiling",
        top: top.clone(),
        git_env: Vec::new(),
        root: top.join("sub"),
        lancet_env: vec![("GIT_CEILING_DIRECTORIES", top.display().to_string())],
        file: "a.txt",
        shown: "sub/a.txt",
        _dir: plain,
    });
    let reftable = temp_tree(&[("a.txt", b"a\n")]);
    let top = reftable.path().canonicalize().unwrap();
    if reftable_repository(&top).is_some() {
        git(&top, &[], &["add", "-A"]);
        git(&top, &[], &["commit", "-q", "-m", "reftable"]);
        setups.push(Setup {
            name: "a reftable repository",
            top: top.clone(),
            git_env: Vec::new(),
            root: top,
            lancet_env: Vec::new(),
            file: "a.txt",
            shown: "a.txt",
            _dir: reftable,
        });
    } else {
        eprintln!("this git makes no reftable repository: that case is skipped");
    }
    for s in &setups {
        let git_env = borrowed(&s.git_env);
        let status = || git(&s.top, &git_env, &["status", "--porcelain", "-uall"]);
        assert_eq!(status(), "", "{}: the work tree starts clean", s.name);
        let out = lancet_env(
            &["apply", "-C", r(&s.root)],
            &patch(s.file, "a", "A"),
            &borrowed(&s.lancet_env),
        );
        assert_eq!(out.status.code(), Some(0), "{}: {}", s.name, describe(&out));
        assert_eq!(
            status(),
            format!(" M {}\n", s.shown),
            "{}: after apply",
            s.name
        );
        let out = lancet_env(&["undo", "-C", r(&s.root)], b"", &borrowed(&s.lancet_env));
        assert_eq!(out.status.code(), Some(0), "{}: {}", s.name, describe(&out));
        assert_eq!(status(), "", "{}: after undo", s.name);
    }
}

/// A `.git` lancet cannot write is refused (`state_dir`, exit 4) with where the state lives,
/// that it must be writable there and what to do; `--no-checkpoint` is no way around it (the
/// journal lives there too), and the advice says so. Before, the advice said to make the root
/// writable, which it was.
#[test]
fn a_read_only_git_directory_is_refused_with_advice_that_fits() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let root = dir.path().canonicalize().unwrap();
    git(&root, &[], &["init", "-q"]);
    git(&root, &[], &["add", "-A"]);
    git(&root, &[], &["commit", "-q", "-m", "init"]);
    let git_dir = root.join(".git");
    let guard = match Unwritable::directory(&git_dir) {
        Ok(guard) => guard,
        Err(why) => {
            eprintln!("skipped: cannot make .git unwritable here: {why}");
            return;
        }
    };
    for extra in [None, Some("--no-checkpoint")] {
        let mut args = vec!["apply", "-C", r(&root), "--json"];
        args.extend(extra);
        let out = lancet_env(&args, &patch("a.txt", "a", "A"), &[]);
        assert_eq!(out.status.code(), Some(4), "{extra:?}: {}", describe(&out));
        let v = json(&out);
        assert_eq!(v["error"]["kind"], "state_dir", "{v}");
        let message = v["message"].as_str().unwrap();
        for said in [
            format!("state in {}/lancet/", git_dir.display()),
            "must be writable there".to_string(),
            format!("Make {} writable", git_dir.display()),
            "--no-checkpoint does not help".to_string(),
        ] {
            assert!(
                message.contains(&said),
                "{extra:?}: {said:?} not in {message}"
            );
        }
        assert!(!message.contains("Make the root writable"), "{message}");
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    }
    drop(guard);
    assert!(!root.join(".lancet").exists(), "no state made elsewhere");
    let out = lancet_env(&["apply", "-C", r(&root)], &patch("a.txt", "a", "A"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}
