//! Issue #35: processes lancet starts die with their run, and the tree is judged after the last
//! one is gone. A test command (the person's, whose scripts the model may edit) that leaves a
//! chain of sessions behind, plants a repository where the quarantine cannot set it aside,
//! hides one in a directory the walk cannot list, or writes through a descriptor lancet's own
//! caller leaked: each fails, nothing survives the run, nothing is planted after it.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet_env, person_home, temp_tree};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const PATCH: &[u8] = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
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

/// Shell lines that plant a repository at `dir` whose config runs `touch MARKER` on the next
/// `git status` there (core.fsmonitor).
fn plant(dir: &str, marker: &Path) -> String {
    format!(
        "mkdir -p {dir}/objects {dir}/refs && echo 'ref: refs/heads/main' > {dir}/HEAD && \
         printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch {marker}\\n' > {dir}/config",
        marker = marker.display()
    )
}

/// Runs `git status` in `dir`, as the person would after lancet returned.
fn git_status(dir: &Path) {
    let _ = Command::new("git")
        .arg("status")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// `lancet apply --sandbox --test COMMAND` of PATCH on `root`, as JSON.
fn apply_tested(root: &Path, command: &str, env: &[(&str, &str)]) -> (Output, serde_json::Value) {
    let out = lancet_env(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            command,
        ],
        PATCH,
        env,
    );
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    (out, v)
}

/// Critical: the test pre-empts the quarantine's name (`src/.git.lancet-quarantined/keep`) and
/// plants `src/.git`; the rename aside failed with ENOTEMPTY, was ignored, and the run passed.
#[test]
fn a_planted_repository_is_set_aside_even_when_its_quarantine_name_is_taken() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("src/main.py", b"")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    let command = format!(
        "mkdir -p src/.git.lancet-quarantined && touch src/.git.lancet-quarantined/keep && {} && exit 0",
        plant("src/.git", &marker)
    );
    let (out, v) = apply_tested(root, &command, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let output = v["test"]["output"].as_str().unwrap();
    assert!(output.contains("src/.git"), "{output}");
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
    git_status(&root.join("src"));
    assert!(!marker.exists(), "git ran the planted repository's command");

    // The same over MCP, with the person's --test-command.
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("src/main.py", b"")]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &["--test-command", &command], &[]);
    let a = mcp.call(
        "apply_patch",
        json!({"text": String::from_utf8_lossy(PATCH), "test": true}),
    );
    assert!(
        a.is_error && a.structured["status"] == "test_failed",
        "{a:?}"
    );
    drop(mcp);
    git_status(&root.join("src"));
    assert!(!marker.exists(), "git ran the planted repository's command");
}

/// A `chmod 311` directory hides a lookalike from the walk's `read_dir` but not from `cd`:
/// lancet (the directory's owner) lists it anyway, puts its mode back, and fails the run.
/// Run as root, lancet is stripped of the capabilities that read past modes (`setpriv`), as any
/// other user would be.
#[test]
fn a_repository_hidden_in_a_directory_the_walk_cannot_list_is_found() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("src/main.py", b"")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    let command = format!(
        "mkdir -p src/hide/sub && {} && chmod 311 src/hide && exit 0",
        plant("src/hide/sub/.git", &marker)
    );
    let out = as_an_ordinary_owner(&[
        "apply",
        "-C",
        r(root),
        "--json",
        "--sandbox",
        "--test",
        &command,
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(root.join("src/hide"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o311,
        "the hiding directory's mode was put back"
    );
    git_status(&root.join("src/hide/sub"));
    assert!(!marker.exists(), "git ran the planted repository's command");
    std::fs::set_permissions(
        root.join("src/hide"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

/// A directory the quarantine can neither list nor open (another user's, `-wx` for the rest) may
/// hide a repository the tests planted there: the run fails, naming it.
#[test]
fn a_directory_the_quarantine_cannot_open_fails_the_run() {
    let root_user = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    if !landlock() || !root_user {
        // (Only root can give a directory to another user.)
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("src/main.py", b"")]);
    let root = dir.path();
    let drop_box = root.join("src/drop");
    std::fs::create_dir(&drop_box).unwrap();
    std::os::unix::fs::chown(&drop_box, Some(65534), Some(65534)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&drop_box, std::fs::Permissions::from_mode(0o333)).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    let command = format!(
        "mkdir src/drop/sub && {} && exit 0",
        plant("src/drop/sub/.git", &marker)
    );
    let out = as_an_ordinary_owner(&[
        "apply",
        "-C",
        r(root),
        "--json",
        "--sandbox",
        "--test",
        &command,
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let output = v["test"]["output"].as_str().unwrap();
    assert!(
        output.contains("could not make sure no git repository was left in (src/drop:"),
        "{output}"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// `lancet ARGS` with PATCH on stdin, as a user bound by file modes: as root, without
/// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH.
fn as_an_ordinary_owner(args: &[&str]) -> Output {
    let root_user = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let mut command = if root_user {
        let mut c = Command::new("setpriv");
        c.args(["--bounding-set", "-dac_override,-dac_read_search", "--"]);
        c.arg(env!("CARGO_BIN_EXE_lancet"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_lancet"))
    };
    run_with_patch(command.args(args))
}

/// Runs a prepared lancet command line with the person's directories and PATCH on stdin.
fn run_with_patch(command: &mut Command) -> Output {
    use std::io::Write;
    let mut child = command
        .env("XDG_CONFIG_HOME", person_home().join("config"))
        .env("XDG_DATA_HOME", person_home().join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(PATCH).unwrap();
    child.wait_with_output().unwrap()
}

/// The processes whose command line names `marker`, alive.
fn alive_naming(marker: &Path) -> Vec<String> {
    let marker = marker.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let zombie = stat[stat.rfind(')')? + 1..].trim_start().starts_with('Z');
            (text.contains(&marker) && !zombie).then_some(text)
        })
        .collect()
}

/// Critical: a chain of 24 processes, each `setsid` and the parent of the next, outlived the 16
/// kill rounds; its last link waited 4 s (past the verdict and the quarantine), then planted
/// `src/.git` and rewrote a file of the batch the tests had passed. With `env` choosing the
/// mechanism: nothing the test started is alive when lancet returns, nothing is planted later.
fn nothing_outlives_the_run(env: &[(&str, &str)]) {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n"), ("src/main.py", b"")]);
    let root = dir.path();
    let chain = root.join("chain.sh");
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    std::fs::write(
        &chain,
        format!(
            "n=$1\nif [ \"$n\" -gt 0 ]; then setsid sh \"$0\" $((n-1)) </dev/null >/dev/null 2>&1 & wait\n\
             else touch src/built; sleep 4; {}; echo 'x = 666' > app.py; fi\n",
            plant("src/.git", &marker)
        ),
    )
    .unwrap();
    let command = format!(
        "sh {} 24 </dev/null >/dev/null 2>&1 & while [ ! -e src/built ]; do sleep 0.05; done; exit 0",
        chain.display()
    );
    let (out, _) = apply_tested(root, &command, env);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        alive_naming(&chain),
        Vec::<String>::new(),
        "links of the chain outlived lancet"
    );
    std::thread::sleep(Duration::from_secs(5));
    assert!(
        !root.join("src/.git").exists(),
        "a survivor planted src/.git"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 2\n");
}

#[test]
fn nothing_a_test_starts_outlives_the_run_in_a_pid_namespace() {
    nothing_outlives_the_run(&[]);
}

/// (Where lancet may make no cgroup, as when not root, this is the stop-and-kill loop again.)
#[test]
fn nothing_a_test_starts_outlives_the_run_in_a_cgroup() {
    nothing_outlives_the_run(&[("LANCET_FAILPOINT", "no-pid-namespace:1")]);
}

#[test]
fn nothing_a_test_starts_outlives_the_run_when_stopped_and_killed() {
    nothing_outlives_the_run(&[("LANCET_FAILPOINT", "no-pid-namespace:1,no-cgroup:1")]);
}

/// Without a namespace, a cgroup or a readable /proc, lancet could not say what the tests leave
/// running: they are refused before any write.
#[test]
fn without_a_way_to_end_what_tests_start_they_are_refused() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let env = [(
        "LANCET_FAILPOINT",
        "no-pid-namespace:1,no-cgroup:1,no-proc:1",
    )];
    let out = lancet_env(
        &["apply", "-C", r(root), "--json", "--test", "true"],
        PATCH,
        &env,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "sandbox", "{v:#}");
    assert!(v["message"].as_str().unwrap().contains("/proc"), "{v:#}");
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"x = 1\n");
}

/// Medium: a writable descriptor lancet inherited from its caller (a harness that opened a file
/// outside the root without O_CLOEXEC) let the sandboxed tests write outside the root through
/// `>&N`.
#[test]
fn a_descriptor_lancet_inherited_never_reaches_the_tests() {
    if !landlock() {
        return;
    }
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("outside.txt");
    std::fs::write(&target, "").unwrap();
    let mut command = Command::new("sh");
    command
        .args(["-c", "exec 7>>\"$0\"; exec \"$@\""])
        .arg(&target)
        .arg(env!("CARGO_BIN_EXE_lancet"))
        .args([
            "apply",
            "-C",
            r(root),
            "--json",
            "--sandbox",
            "--test",
            "echo leaked >&7; echo leaked > /proc/self/fd/7; exit 0",
        ]);
    let out = run_with_patch(&mut command);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "",
        "the tests wrote outside the root"
    );
}
