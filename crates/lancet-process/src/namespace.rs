//! The first mechanism: a user namespace (lancet's uid and gid mapped to themselves, so files
//! keep their owners) and a PID namespace, made in the spawned child since a multithreaded
//! process cannot enter a new user namespace itself. Three processes:
//!
//! - the **keeper**, lancet's child, outside the namespace: it waits for the init and exits as
//!   the command did, so lancet's `wait` on it returns when the namespace is empty;
//! - the **init**, PID 1 of the namespace: it reaps what is orphaned there, passes stop signals
//!   on to the command, and exits when the command does. When PID 1 exits the kernel kills
//!   every process left in the namespace, and no process can leave a PID namespace;
//! - the **command**, which execs.
//!
//! All three are in the session the keeper made, so killing that process group kills the
//! init, and with it the namespace. Each dies with its parent (`PR_SET_PDEATHSIG`): if lancet
//! is killed, so is everything the command started.

use crate::child;
use std::io;
use std::os::raw::c_int;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// What the child needs, prepared in the parent (nothing is formatted after the fork).
pub(crate) struct Plan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Lancet's pid: the keeper checks it still has that parent once it dies with it.
    parent: libc::pid_t,
    /// Only prove the namespace can be made: the command exits 0 instead of exec'ing.
    probe: bool,
}

impl Plan {
    pub(crate) fn new(probe: bool) -> Plan {
        // SAFETY: these calls only read the process's credentials.
        let (uid, gid, parent) = unsafe { (libc::geteuid(), libc::getegid(), libc::getpid()) };
        Plan {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            parent,
            probe,
        }
    }
}

/// Makes `command` run as the command of a new namespace; the steps run first in the child,
/// before any confinement the caller adds after them.
pub(crate) fn prepare(command: &mut Command, plan: Plan) {
    // SAFETY: `keeper` only makes system calls on the plan's prepared bytes (see `child`).
    unsafe {
        command.pre_exec(move || keeper(&plan));
    }
}

/// Whether this machine lets lancet make the namespace: a child makes one and its command
/// exits at once, before any exec.
pub(crate) fn probe() -> Result<(), String> {
    let mut command = Command::new("/bin/true");
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    prepare(&mut command, Plan::new(true));
    let mut spawned = command.spawn().map_err(|e| e.to_string())?;
    match spawned.wait() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("the namespace's first process ended with {status}")),
        Err(e) => Err(e.to_string()),
    }
}

/// The keeper's part: its session, the namespaces, then the init forked into them. Returns
/// only in the command (to exec), or with the error that stopped the namespace being made.
fn keeper(plan: &Plan) -> io::Result<()> {
    child::own_session()?;
    // SAFETY: system calls on prepared data.
    unsafe {
        child::check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL).into())?;
        if libc::getppid() != plan.parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        child::check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID).into())?;
    }
    // Before Linux 3.19 there is no setgroups file, and no need to deny it.
    match child::write_file(c"/proc/self/setgroups", b"deny") {
        Err(e) if e.raw_os_error() != Some(libc::ENOENT) => return Err(e),
        _ => {}
    }
    child::write_file(c"/proc/self/uid_map", &plan.uid_map)?;
    child::write_file(c"/proc/self/gid_map", &plan.gid_map)?;
    let mut status_pipe = [0 as c_int; 2];
    // SAFETY: pipe2(2) into a local array.
    child::check(unsafe { libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC) }.into())?;
    let [from_init, to_keeper] = status_pipe;
    let init = child::fork()?;
    if init > 0 {
        keep(init, from_init)
    }
    // SAFETY: closing this process's copy of the keeper's end.
    unsafe { libc::close(from_init) };
    init_of_namespace(to_keeper, plan.probe)
}

/// The keeper, once the init runs: waits for it, then exits as the command did (the status
/// the init sent), or as the init did when it sent none.
fn keep(init: libc::pid_t, from_init: c_int) -> ! {
    child::close_all_but(from_init);
    child::forward_stop_signals_to(init);
    let Ok((_, init_status)) = child::wait(init) else {
        child::exit_as(1 << 8)
    };
    let mut sent = [0u8; 4];
    // SAFETY: read(2) into a local buffer.
    let n = unsafe { libc::read(from_init, sent.as_mut_ptr().cast(), sent.len()) };
    child::exit_as(if n == 4 {
        c_int::from_ne_bytes(sent)
    } else {
        init_status
    })
}

/// PID 1 of the namespace: dies with the keeper, forks the command, then reaps until the
/// command ends and sends its status to the keeper. Returns only in the command.
fn init_of_namespace(to_keeper: c_int, probe: bool) -> io::Result<()> {
    // SAFETY: system calls only.
    unsafe {
        child::check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL).into())?;
        // The keeper died before that took hold: its end of the pipe is closed.
        let mut alone = libc::pollfd {
            fd: to_keeper,
            events: 0,
            revents: 0,
        };
        if libc::poll(&mut alone, 1, 0) > 0 && alone.revents & libc::POLLERR != 0 {
            libc::_exit(1);
        }
    }
    let command = child::fork()?;
    if command > 0 {
        reap_until(command, to_keeper)
    }
    // SAFETY: closing the command's copy of the keeper's pipe.
    unsafe { libc::close(to_keeper) };
    if probe {
        // SAFETY: _exit(2) ends the probe's command without an exec.
        unsafe { libc::_exit(0) }
    }
    child::close_inherited_on_exec()
}

/// The init's loop: reaps every process orphaned in the namespace until the command ends,
/// then hands its status to the keeper and exits, which ends the namespace.
fn reap_until(command: libc::pid_t, to_keeper: c_int) -> ! {
    child::close_all_but(to_keeper);
    child::forward_stop_signals_to(command);
    loop {
        match child::wait(-1) {
            Ok((pid, status)) if pid == command => {
                let _ = child::write_all(to_keeper, &status.to_ne_bytes());
                // SAFETY: _exit(2).
                unsafe { libc::_exit(0) }
            }
            Ok(_) => {}
            // SAFETY: _exit(2).
            Err(_) => unsafe { libc::_exit(1) },
        }
    }
}
