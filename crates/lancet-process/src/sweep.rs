//! The last mechanism, where there is neither namespace nor cgroup: every descendant of lancet
//! (what left the command's group comes back to lancet, the child subreaper) is stopped, then
//! killed and reaped, round after round until `/proc` shows none alive. There is no round cap:
//! a chain of processes each the parent of the next loses one more link each round, and a stopped
//! process forks nothing more. Runs take turns ([`take_turn`]), so every descendant of lancet is
//! the running one's.

use crate::child;
use std::io;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Held while a process contained by this mechanism (or a cgroup's, whose orphans lancet reaps)
/// lives.
static TURN: Mutex<()> = Mutex::new(());

/// One run's turn.
pub(crate) type Turn = MutexGuard<'static, ()>;

/// Waits for the turn to run.
pub(crate) fn take_turn() -> Turn {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `/proc` can be read: without it no descendant can be found.
pub(crate) fn probe() -> Result<(), String> {
    processes()
        .map(drop)
        .map_err(|e| format!("cannot read /proc: {e}"))
}

/// One process as `/proc/PID/stat` shows it.
struct Process {
    pid: libc::pid_t,
    parent: libc::pid_t,
    /// Exited, waiting to be reaped (`Z`) or gone (`X`).
    dead: bool,
}

/// Every process `/proc` lists; one that ends while it is read is left out.
fn processes() -> io::Result<Vec<Process>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc")? {
        let Some(pid) = entry?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat,
            Err(e)
                if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH) =>
            {
                continue;
            }
            Err(e) => return Err(e),
        };
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let mut rest = stat[stat.rfind(')').map_or(0, |i| i + 1)..].split_whitespace();
        let state = rest.next().unwrap_or("X");
        let Some(parent) = rest.next().and_then(|p| p.parse().ok()) else {
            continue;
        };
        found.push(Process {
            pid,
            parent,
            dead: matches!(state, "Z" | "X" | "x"),
        });
    }
    Ok(found)
}

/// The living descendants of `ancestor`.
fn descendants(ancestor: libc::pid_t) -> io::Result<Vec<libc::pid_t>> {
    let all = processes()?;
    let mut found = Vec::new();
    let mut parents = vec![ancestor];
    while let Some(parent) = parents.pop() {
        for p in all.iter().filter(|p| p.parent == parent) {
            parents.push(p.pid);
            if !p.dead {
                found.push(p.pid);
            }
        }
    }
    Ok(found)
}

/// Stops, kills and reaps every descendant of lancet until none is alive; `reaped` hears each
/// child lancet reaps (pid, raw status). An error when `/proc` cannot be read: lancet then
/// cannot know that nothing is left.
pub(crate) fn stop_and_kill_all(mut reaped: impl FnMut(libc::pid_t, i32)) -> io::Result<()> {
    // SAFETY: getpid(2).
    let lancet = unsafe { libc::getpid() };
    loop {
        let alive = descendants(lancet)?;
        reap_children(&mut reaped);
        if alive.is_empty() {
            return Ok(());
        }
        // Stopped first, so that none forks again while the others are killed.
        for &pid in &alive {
            // SAFETY: kill(2) on a descendant lancet found this round.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
        }
        for &pid in &alive {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Reaps every child of lancet that has ended (with the turn held, all of them are the run's).
pub(crate) fn reap_children(reaped: &mut impl FnMut(libc::pid_t, i32)) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) into a local, without blocking.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
        reaped(pid, status);
    }
}

/// The step of the child: a session of its own, no inherited descriptor above 2.
pub(crate) fn prepare(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: system calls only.
    unsafe {
        command.pre_exec(|| {
            child::own_session()?;
            child::close_inherited_on_exec()
        });
    }
}
