//! Which mechanism ends what a contained program starts, chosen once per process: the first this
//! machine offers, in the order of how much each guarantees.

use crate::{cgroup, namespace, sweep};
use std::path::PathBuf;
use std::sync::OnceLock;

/// How a contained program, and everything it starts, is ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mechanism {
    /// A user and PID namespace with lancet's init as PID 1: the kernel kills the namespace when
    /// the command exits, and nothing can leave it. Needs unprivileged user namespaces (or root).
    PidNamespace,
    /// A cgroup v2 of the run's own under lancet's (this directory), ended with `cgroup.kill`.
    /// Needs a cgroup lancet may write (usually root, or a delegated systemd scope).
    Cgroup(PathBuf),
    /// Every descendant of lancet stopped and killed until `/proc` shows none; runs take turns.
    StopAndKill,
}

static CHOSEN: OnceLock<Result<Mechanism, String>> = OnceLock::new();

/// The mechanism this machine offers (probed once per process): a PID namespace, else a
/// cgroup, else stopping and killing every descendant; or why there is none (then lancet
/// refuses to start programs: it could not say what they leave running).
///
/// The failpoints `no-pid-namespace`, `no-cgroup` and `no-proc` (`LANCET_FAILPOINT`, pass 1,
/// comma-separated to combine) take each away, so tests force each mechanism.
pub fn mechanism() -> Result<&'static Mechanism, &'static str> {
    CHOSEN.get_or_init(choose).as_ref().map_err(String::as_str)
}

/// Whether programs can be contained here, and why not: what a caller checks before it writes
/// anything a contained program would then run on.
pub fn available() -> Result<(), String> {
    mechanism().map(drop).map_err(|why| {
        format!("lancet cannot make sure the processes a command starts end with it: {why}")
    })
}

fn choose() -> Result<Mechanism, String> {
    let mut missing = Vec::new();
    match offered("no-pid-namespace", namespace::probe) {
        Ok(()) => return Ok(Mechanism::PidNamespace),
        Err(e) => missing.push(format!("no user and PID namespace ({e})")),
    }
    match offered("no-cgroup", cgroup::probe) {
        Ok(base) => return Ok(Mechanism::Cgroup(base)),
        Err(e) => missing.push(format!("no cgroup v2 lancet may write ({e})")),
    }
    match offered("no-proc", sweep::probe) {
        Ok(()) => return Ok(Mechanism::StopAndKill),
        Err(e) => missing.push(format!("/proc cannot be read ({e})")),
    }
    Err(missing.join("; "))
}

/// `probe`'s answer, unless the failpoint `name` takes the mechanism away.
fn offered<T>(name: &str, probe: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    lancet_core::failpoint::check(name).map_err(|e| e.to_string())?;
    probe()
}
