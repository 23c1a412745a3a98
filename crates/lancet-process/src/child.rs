//! The steps a forked child takes before it execs, shared by the mechanisms. Everything here is
//! async-signal-safe: lancet is multithreaded, so between fork and exec only system calls run,
//! on data prepared in the parent, and nothing allocates.

use std::ffi::CStr;
use std::io;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

/// The stop signals the keeper and the init pass on to the process below them.
const FORWARDED: [c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The process a forwarded signal goes to (each process that forwards has its own copy).
static FORWARD_TO: AtomicI32 = AtomicI32::new(0);

/// `Err` with the last OS error when `result` is negative.
pub(crate) fn check(result: libc::c_long) -> io::Result<libc::c_long> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// A session of its own: no controlling terminal to type into, and one process group lancet
/// can signal whole.
pub(crate) fn own_session() -> io::Result<()> {
    // SAFETY: setsid(2) is a system call.
    check(unsafe { libc::setsid() }.into()).map(drop)
}

/// Marks every descriptor above 2 close-on-exec: the program inherits only its stdio, never a
/// descriptor lancet's caller leaked (a file outside the root opened for writing). Marked, not
/// closed: Rust's `spawn` reports an exec failure through a close-on-exec pipe that must stay
/// open until the exec.
pub(crate) fn close_inherited_on_exec() -> io::Result<()> {
    // SAFETY: close_range(2) is a system call.
    check(unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    })
    .map(drop)
}

/// Closes every descriptor but `keep` (stdio too): what a process that never execs holds open
/// otherwise keeps `spawn` waiting for its exec report, and the command's output open.
pub(crate) fn close_all_but(keep: c_int) {
    // SAFETY: close_range(2) is a system call.
    unsafe {
        if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, (keep - 1) as u32, 0u32);
        }
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
    }
}

/// fork(2) as the bare system call: no `atfork` handler of any library runs in a child of a
/// multithreaded process. The child's pid in the parent, 0 in the child.
pub(crate) fn fork() -> io::Result<libc::pid_t> {
    // SAFETY: clone(2) with only SIGCHLD and no new stack is fork; the arguments after the flags
    // are unused.
    check(unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0) })
        .map(|pid| pid as libc::pid_t)
}

/// Writes `bytes` to `fd`, whole.
pub(crate) fn write_all(fd: c_int, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: write(2) from a live slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match check(n as libc::c_long) {
            Ok(n) => bytes = &bytes[n as usize..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes `bytes` into the file at `path` (a `/proc` control file).
pub(crate) fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open(2) on a NUL-terminated path; the descriptor is closed below.
    let fd = check(unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) }.into())?
        as c_int;
    let written = write_all(fd, bytes);
    // SAFETY: the descriptor opened above.
    unsafe { libc::close(fd) };
    written
}

/// Waits for `pid` (or any child, with -1); the pid that ended and its raw status.
pub(crate) fn wait(pid: libc::pid_t) -> io::Result<(libc::pid_t, c_int)> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) into a local.
        match check(unsafe { libc::waitpid(pid, &mut status, 0) }.into()) {
            Ok(ended) => return Ok((ended as libc::pid_t, status)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

extern "C" fn forward(signal: c_int) {
    let pid = FORWARD_TO.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe { libc::kill(pid, signal) };
    }
}

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to this process go on to `pid` instead.
pub(crate) fn forward_stop_signals_to(pid: libc::pid_t) {
    FORWARD_TO.store(pid, Ordering::Relaxed);
    // SAFETY: a zeroed sigaction is a valid one (empty mask, no flags); sigaction(2) installs a
    // handler that only calls kill(2).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = forward as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        for signal in FORWARDED {
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Ends this process as a process with the raw wait `status` ended: with its exit code, or
/// killed by its signal (no core dump).
pub(crate) fn exit_as(status: c_int) -> ! {
    // SAFETY: system calls only; _exit(2) never returns.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &action, std::ptr::null_mut());
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal)
        }
        libc::_exit(if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            1
        })
    }
}
