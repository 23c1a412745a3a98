//! Helpers: snapshot a directory tree byte for byte, copy fixture trees, run the binary.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One entry of a tree snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File { bytes: Vec<u8>, executable: bool },
    Link(PathBuf),
    Dir,
}

/// Every path under `root` (relative), with what it is; `.lancet` is the engine's own state.
pub fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Node>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel == ".lancet" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            out.insert(rel, Node::Link(std::fs::read_link(&path).unwrap()));
        } else if meta.is_dir() {
            out.insert(rel, Node::Dir);
            walk(root, &path, out);
        } else {
            out.insert(
                rel,
                Node::File {
                    bytes: std::fs::read(&path).unwrap(),
                    executable: meta.permissions().mode() & 0o111 != 0,
                },
            );
        }
    }
}

/// Copies a fixture tree, keeping symlinks as links and mode bits.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries.flatten() {
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(&src).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if meta.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs `lancet ARGS` with `stdin`.
pub fn lancet(args: &[&str], stdin: &[u8]) -> Output {
    lancet_env(args, stdin, &[])
}

/// The person's directories every test run of lancet sees (`XDG_CONFIG_HOME`,
/// `XDG_DATA_HOME`): one temp directory per test process, never the real home, so trust records
/// and user settings of one test stay out of everyone else's.
pub fn person_home() -> &'static Path {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// The variables by which git (and so lancet) finds a repository: a test that wants them
/// passes them, none leaks in from where the tests run (a git hook sets `GIT_DIR`).
pub const GIT_VARIABLES: [&str; 4] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/// Starts `lancet ARGS` with extra environment variables and piped stdin, stdout and stderr.
pub fn spawn_lancet(args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lancet"));
    for name in GIT_VARIABLES {
        command.env_remove(name);
    }
    command
        .args(args)
        .env("XDG_CONFIG_HOME", person_home().join("config"))
        .env("XDG_DATA_HOME", person_home().join("data"))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn lancet")
}

/// Runs `lancet ARGS` with `stdin` and extra environment variables.
pub fn lancet_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = spawn_lancet(args, env);
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Starts `lancet ARGS` and writes `stdin` to it, for a test that acts while it runs.
pub fn lancet_in_background(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Child {
    let mut child = spawn_lancet(args, env);
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child
}

/// Waits until `lancet` created its pause file; kills it and panics if it never does.
pub fn wait_paused(child: &mut Child, pause: &Path) {
    let started = Instant::now();
    while !pause.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("lancet exited ({status}) before pausing");
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("lancet never paused at {}", pause.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `lancet trust` on a root, as its person would after reviewing its settings.
pub fn trust(root: &Path) {
    let out = lancet(&["trust", "-C", root.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

/// A temp directory holding the given files.
pub fn temp_tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    dir
}

/// The exit code, stdout and stderr of a run, as a string for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A file of the tree as text, for a test's expectation.
pub fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// `lancet -C ROOT COMMAND --json ARGS…`: its exit code and its JSON report (the whole output
/// shown when it is none).
pub fn run_json(root: &Path, command: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["-C", root.to_str().unwrap(), command, "--json"];
    all.extend(args);
    let out = lancet(&all, b"");
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

/// `cargo ARGS…`'s verdict on a crate (its stderr when it fails), with a target directory of
/// its own in a temp directory; `Ok` when cargo is not on PATH.
pub fn cargo_verdict(dir: &Path, args: &[&str]) -> Result<(), String> {
    let target = tempfile::tempdir().unwrap();
    verdict(
        std::process::Command::new("cargo")
            .args(args)
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", target.path()),
    )
}

/// A compiler's verdict: `Ok` when it succeeds or is not installed, else its stderr.
pub fn verdict(command: &mut std::process::Command) -> Result<(), String> {
    let Ok(out) = command.output() else {
        return Ok(());
    };
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
