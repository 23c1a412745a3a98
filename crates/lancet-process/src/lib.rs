//! Processes lancet starts die with their run.
//!
//! Lancet runs programs over trees a model wrote: the person's test command (whose
//! `conftest.py` the model may have written), `mod --exec`'s command, the gate's external
//! checks, language servers. Nothing any of them starts may outlive its turn: a process left
//! running could rewrite a file after the tests passed, or plant a repository after the tree
//! was judged. Every program lancet runs is started here, as a [`Contained`], with the first
//! [`Mechanism`] this machine offers:
//!
//! 1. a user namespace (uid and gid mapped to themselves) and a PID namespace whose PID 1 is
//!    lancet's own small init (`namespace.rs`): when the command exits, so does the init, and
//!    the kernel kills the rest of the namespace; nothing can leave it, and it dies with
//!    lancet;
//! 2. a cgroup v2 of the run's own, ended with `cgroup.kill` (`cgroup.rs`);
//! 3. every descendant of lancet stopped, killed and reaped until `/proc` shows none
//!    (`sweep.rs`).
//!
//! Where none is available, [`Contained::spawn`] refuses: lancet fails closed. In every case
//! the program runs in a session of its own (no controlling terminal) and inherits no
//! descriptor above 2. [`Contained::end`] returns only once nothing the program started is
//! alive, so what lancet judges afterwards (the tests' verdict, the tree) stays as judged.

mod cgroup;
mod child;
mod mechanism;
mod namespace;
mod output;
mod sweep;

pub use mechanism::{Mechanism, available, mechanism};
pub use output::{Finished, output};

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};

/// Why a contained program could not be run, or not be made sure of.
#[derive(Debug, thiserror::Error)]
pub enum ContainError {
    /// No mechanism is available here: nothing was started.
    #[error("{0}")]
    Uncontainable(String),
    /// The program could not be started.
    #[error("{0}")]
    Spawn(#[from] io::Error),
    /// The program ran, but lancet cannot tell that everything it started has ended.
    #[error("lancet cannot tell that every process the command started has ended: {0}")]
    Unended(String),
}

/// A program lancet started, with everything it starts: [`Contained::end`] (or dropping it)
/// ends them all and returns once none is left.
///
/// The thread that spawns it must outlive it: the program dies with that thread
/// (`PR_SET_PDEATHSIG`), which is how it dies with lancet. And a thread ends one before it
/// starts the next: where runs take turns (a cgroup, stopping and killing), the next would wait
/// for this one's turn forever.
pub struct Contained {
    child: Child,
    /// The command's exit status, once reaped.
    status: Option<ExitStatus>,
    hold: Hold,
}

/// What a mechanism keeps for as long as the program lives.
enum Hold {
    /// Nothing: the program and all it started have ended.
    Ended,
    Namespace,
    Cgroup {
        group: cgroup::Group,
        _turn: sweep::Turn,
    },
    StopAndKill {
        _turn: sweep::Turn,
    },
}

impl Contained {
    /// Spawns `command` contained. `confine` adds the caller's own steps before exec (the
    /// sandbox): they run after containment's, in the process that execs. `command` must have
    /// no `pre_exec` or process group of its own: its session is made here.
    pub fn spawn(
        command: Command,
        confine: impl FnOnce(&mut Command),
    ) -> Result<Contained, ContainError> {
        let mechanism = mechanism().map_err(|why| ContainError::Uncontainable(why.to_string()))?;
        Contained::spawn_with(mechanism, command, confine)
    }

    /// [`Contained::spawn`] by the mechanism given.
    fn spawn_with(
        mechanism: &Mechanism,
        mut command: Command,
        confine: impl FnOnce(&mut Command),
    ) -> Result<Contained, ContainError> {
        adopt_orphans();
        let mut procs = None;
        let hold = match mechanism {
            Mechanism::PidNamespace => {
                namespace::prepare(&mut command, namespace::Plan::new(false));
                Hold::Namespace
            }
            Mechanism::Cgroup(base) => {
                let turn = sweep::take_turn();
                let (group, joined) = cgroup::Group::new(base)?;
                cgroup::prepare(&mut command, &joined);
                procs = Some(joined);
                Hold::Cgroup { group, _turn: turn }
            }
            Mechanism::StopAndKill => {
                let turn = sweep::take_turn();
                sweep::prepare(&mut command);
                Hold::StopAndKill { _turn: turn }
            }
        };
        confine(&mut command);
        let child = command.spawn()?;
        drop(procs);
        Ok(Contained {
            child,
            status: None,
            hold,
        })
    }

    /// The spawned process's id (the keeper's, in a namespace: it exits as the command does).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The program's stdin, when piped.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin.take()
    }

    /// The program's stdout, when piped.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// The program's stderr, when piped.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// The command's exit status if it has exited (what it started may still run until
    /// [`Contained::end`]).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if self.status.is_none() {
            let mut raw = 0;
            let pid = self.child.id() as libc::pid_t;
            // SAFETY: waitpid(2) on lancet's own child, into a local, without blocking.
            let reaped =
                child::check(unsafe { libc::waitpid(pid, &mut raw, libc::WNOHANG) }.into())?;
            if reaped == libc::c_long::from(pid) {
                self.status = Some(ExitStatus::from_raw(raw));
            }
        }
        Ok(self.status)
    }

    /// Ends the program and everything it started (SIGKILL), and returns once none of it is
    /// alive (again at once, after the first time): the command's exit status (the kill's, when it was still running). An error when
    /// lancet cannot tell that nothing is left (`/proc` unreadable): the caller must not trust
    /// what the program could still change.
    pub fn end(&mut self) -> Result<ExitStatus, ContainError> {
        let pid = self.child.id() as libc::pid_t;
        let status = &mut self.status;
        let outcome = match &mut self.hold {
            Hold::Ended => Ok(()),
            Hold::Namespace => {
                // The session's group holds the keeper and the init: the init's death ends the
                // namespace. The init, orphaned by the keeper's, is lancet's (the subreaper) to
                // reap, and ends only once the namespace is empty.
                kill_and_reap(pid, status);
                while child::wait(-pid).is_ok() {}
                Ok(())
            }
            Hold::Cgroup { group, .. } => {
                let killed = group.kill_all();
                kill_and_reap(pid, status);
                killed.map_err(|e| format!("cannot kill its cgroup: {e}"))
            }
            Hold::StopAndKill { .. } => {
                let swept = sweep::stop_and_kill_all(|reaped, raw| {
                    if reaped == pid {
                        *status = Some(ExitStatus::from_raw(raw));
                    }
                });
                kill_and_reap(pid, status);
                swept.map_err(|e| format!("cannot read /proc: {e}"))
            }
        };
        if matches!(self.hold, Hold::Cgroup { .. } | Hold::StopAndKill { .. }) {
            // What was orphaned to lancet and is dead now (the turn is held: all the run's).
            sweep::reap_children(&mut |_, _| {});
        }
        // The cgroup removed, the turn passed on.
        self.hold = Hold::Ended;
        outcome.map_err(ContainError::Unended)?;
        Ok(self
            .status
            .unwrap_or_else(|| ExitStatus::from_raw(libc::SIGKILL)))
    }
}

/// Kills lancet's child `pid` and its process group, unless it was reaped already, and reaps it.
fn kill_and_reap(pid: libc::pid_t, status: &mut Option<ExitStatus>) {
    if status.is_some() {
        return;
    }
    // SAFETY: kill(2) on lancet's own, unreaped child and the group it leads.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
    if let Ok((_, raw)) = child::wait(pid) {
        *status = Some(ExitStatus::from_raw(raw));
    }
}

impl Drop for Contained {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// Makes lancet the reaper of what its programs orphan (`setsid`, a daemon's double fork):
/// re-parented to lancet instead of the system's init, where [`Contained::end`] finds it.
fn adopt_orphans() {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER only changes who reaps orphans.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests;
