//! Each mechanism this machine offers, driven directly (the process-wide choice aside): what a
//! program starts ends with it, its status comes back whole, it inherits no descriptor.

use super::*;
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One test at a time: the stop-and-kill mechanism ends every descendant of the test process.
static SERIAL: Mutex<()> = Mutex::new(());

/// The mechanisms this machine offers.
fn offered() -> Vec<Mechanism> {
    let mut offered = Vec::new();
    if namespace::probe().is_ok() {
        offered.push(Mechanism::PidNamespace);
    }
    if let Ok(base) = cgroup::probe() {
        offered.push(Mechanism::Cgroup(base));
    }
    if sweep::probe().is_ok() {
        offered.push(Mechanism::StopAndKill);
    }
    offered
}

fn sh(script: &str) -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Waits (up to 20 s) until the program exits.
fn exited(program: &mut Contained) -> ExitStatus {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if let Some(status) = program.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the program did not exit");
}

/// The processes whose command line names `marker`.
fn alive_naming(marker: &Path) -> Vec<String> {
    let marker = marker.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let state = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let zombie = state[state.rfind(')')? + 1..].trim_start().starts_with('Z');
            (text.contains(&marker) && !zombie).then_some(text)
        })
        .collect()
}

#[test]
fn nothing_a_deep_chain_of_sessions_starts_outlives_the_end() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for mechanism in offered() {
        let dir = tempfile::tempdir().unwrap();
        let chain = dir.path().join("chain.sh");
        // Each link a session of its own and the parent of the next; the last one plants a file
        // later, unless it is killed.
        std::fs::write(
            &chain,
            "n=$1\nif [ \"$n\" -gt 0 ]; then setsid sh \"$0\" $((n-1)) & wait; else touch \"$0.built\"; sleep 30; touch \"$0.planted\"; fi\n",
        )
        .unwrap();
        let script = format!(
            "sh {c} 24 & while [ ! -e {c}.built ]; do sleep 0.05; done; exit 0",
            c = chain.display()
        );
        let mut program = Contained::spawn_with(&mechanism, sh(&script), |_| {}).unwrap();
        assert_eq!(exited(&mut program).code(), Some(0), "{mechanism:?}");
        // (In a namespace the chain went with the command already.)
        assert!(
            mechanism == Mechanism::PidNamespace || !alive_naming(&chain).is_empty(),
            "{mechanism:?}: the chain runs on"
        );
        program.end().unwrap();
        assert_eq!(
            alive_naming(&chain),
            Vec::<String>::new(),
            "{mechanism:?}: links of the chain outlived the end"
        );
    }
}

#[test]
fn the_commands_status_comes_back_whole() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for mechanism in offered() {
        let mut program = Contained::spawn_with(&mechanism, sh("exit 3"), |_| {}).unwrap();
        assert_eq!(exited(&mut program).code(), Some(3), "{mechanism:?}");
        assert_eq!(program.end().unwrap().code(), Some(3), "{mechanism:?}");
        let mut program = Contained::spawn_with(&mechanism, sh("kill -TERM $$"), |_| {}).unwrap();
        assert_eq!(
            exited(&mut program).signal(),
            Some(libc::SIGTERM),
            "{mechanism:?}"
        );
        // (A thread ends one program before it starts the next: where runs take turns, the
        // next waits for this one's.)
        program.end().unwrap();
        let mut program = Contained::spawn_with(&mechanism, sh("sleep 30"), |_| {}).unwrap();
        assert_eq!(
            program.end().unwrap().signal(),
            Some(libc::SIGKILL),
            "{mechanism:?}"
        );
        let missing =
            Contained::spawn_with(&mechanism, Command::new("/nonexistent/program"), |_| {});
        assert!(
            matches!(&missing, Err(ContainError::Spawn(e)) if e.kind() == io::ErrorKind::NotFound),
            "{mechanism:?}: {:?}",
            missing.err()
        );
    }
}

#[test]
fn a_program_inherits_no_descriptor_above_2() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let path = std::ffi::CString::new(outside.to_str().unwrap()).unwrap();
    // SAFETY: open(2) without O_CLOEXEC, as a careless caller of lancet would; closed below.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CREAT, 0o600) };
    assert!(fd > 2);
    for mechanism in offered() {
        let script = format!("echo leaked >&{fd} || exit 9");
        let mut program = Contained::spawn_with(&mechanism, sh(&script), |_| {}).unwrap();
        assert_eq!(exited(&mut program).code(), Some(9), "{mechanism:?}");
    }
    // SAFETY: the descriptor opened above.
    unsafe { libc::close(fd) };
    assert_eq!(std::fs::read(&outside).unwrap(), b"");
}

#[test]
fn stop_signals_reach_the_command_through_the_init() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if namespace::probe().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let script = format!(
        "trap 'exit 7' TERM; touch {}; while :; do sleep 0.05; done",
        ready.display()
    );
    let mut program = Contained::spawn_with(&Mechanism::PidNamespace, sh(&script), |_| {}).unwrap();
    while !ready.exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill(2) on the keeper this test started.
    unsafe { libc::kill(program.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(exited(&mut program).code(), Some(7));
}

#[test]
fn a_short_run_is_read_whole_within_its_budget() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut command = Command::new("/bin/sh");
    command.args(["-c", "echo out; echo err >&2; exit 2"]);
    let finished = output(command, Duration::from_secs(20)).unwrap().unwrap();
    assert_eq!(
        (
            finished.status.code(),
            &finished.stdout[..],
            &finished.stderr[..]
        ),
        (Some(2), &b"out\n"[..], &b"err\n"[..])
    );
    let mut command = Command::new("/bin/sh");
    command.args(["-c", "sleep 30"]);
    assert!(
        output(command, Duration::from_millis(100))
            .unwrap()
            .is_none()
    );
}

#[test]
fn mount_points_are_unescaped() {
    assert_eq!(cgroup::unescape("/sys/fs/a\\040b"), "/sys/fs/a b");
}
