//! The second mechanism: a cgroup v2 of the run's own, made under lancet's own cgroup. The
//! child joins it before it execs, so everything it starts is in it (a process can leave only
//! by writing to a `cgroup.procs` it can reach: a sandboxed one cannot), and `cgroup.kill`
//! ends it all at once, forks racing the kill included (Linux 5.14+).

use crate::child;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The directory of lancet's own cgroup in the cgroup2 hierarchy, if this machine mounts one
/// and lancet may make a cgroup there that has `cgroup.kill`.
pub(crate) fn probe() -> Result<PathBuf, String> {
    let base = own_cgroup()?;
    let trial = base.join(format!("lancet-probe-{}", std::process::id()));
    std::fs::create_dir(&trial)
        .map_err(|e| format!("cannot make a cgroup in {}: {e}", base.display()))?;
    let killable = trial.join("cgroup.kill").exists();
    let _ = std::fs::remove_dir(&trial);
    if !killable {
        return Err("this kernel's cgroups have no cgroup.kill (Linux 5.14 or newer)".into());
    }
    Ok(base)
}

/// Where lancet's cgroup is: the cgroup2 mount (from `/proc/self/mountinfo`) joined with
/// lancet's path in that hierarchy (the `0::` line of `/proc/self/cgroup`).
fn own_cgroup() -> Result<PathBuf, String> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    let (mount_root, mount_point) = mounts
        .lines()
        .find_map(|line| {
            let (mount, fs) = line.split_once(" - ")?;
            if fs.split(' ').next()? != "cgroup2" {
                return None;
            }
            let fields: Vec<&str> = mount.split(' ').collect();
            Some((unescape(fields.get(3)?), unescape(fields.get(4)?)))
        })
        .ok_or("no cgroup2 file system is mounted")?;
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    let path = own
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or("lancet is in no cgroup v2")?;
    let relative = Path::new(path)
        .strip_prefix(&mount_root)
        .unwrap_or(Path::new(path));
    Ok(Path::new(&mount_point).join(relative.strip_prefix("/").unwrap_or(relative)))
}

/// A mountinfo field as written: `\040` and the like are octal escapes.
pub(crate) fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 8).ok());
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Numbers the cgroups this process makes.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// One run's cgroup: removed when dropped, once empty.
pub(crate) struct Group {
    dir: PathBuf,
    kill: File,
    events: File,
}

impl Group {
    /// Makes a new cgroup under `base`; with it, its `cgroup.procs` open for the child to join.
    pub(crate) fn new(base: &Path) -> io::Result<(Group, OwnedFd)> {
        let dir = base.join(format!(
            "lancet-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)?;
        let open = |name: &str, write: bool| {
            std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open(dir.join(name))
        };
        let opened = (|| {
            Ok((
                open("cgroup.procs", true)?,
                open("cgroup.kill", true)?,
                open("cgroup.events", false)?,
            ))
        })();
        match opened {
            Ok((procs, kill, events)) => Ok((Group { dir, kill, events }, procs.into())),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// Kills every process in the cgroup and returns once none is left.
    pub(crate) fn kill_all(&mut self) -> io::Result<()> {
        self.kill.write_all(b"1")?;
        while self.populated()? {
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Whether a process is still in the cgroup (`populated 1` in `cgroup.events`).
    fn populated(&mut self) -> io::Result<bool> {
        let mut events = String::new();
        self.events.rewind()?;
        self.events.read_to_string(&mut events)?;
        Ok(events.lines().any(|l| l == "populated 1"))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Makes `command` join the cgroup whose `cgroup.procs` is `procs` (open until it is spawned),
/// in a session of its own, inheriting no descriptor above 2.
pub(crate) fn prepare(command: &mut Command, procs: &OwnedFd) {
    let procs = procs.as_raw_fd();
    // SAFETY: system calls only: setsid, write ("0" moves the writer), close_range.
    unsafe {
        command.pre_exec(move || {
            child::own_session()?;
            child::write_all(procs, b"0")?;
            child::close_inherited_on_exec()
        });
    }
}
