//! Setting aside what must not stay in the tree: a git repository lookalike that a program
//! lancet ran (tests, a mod's command) left behind, made inert by renaming its `.git` or
//! `config` to a fresh name no one else holds.

use cap_std::fs::Dir;
use std::io;

/// How many fresh names are tried before the quarantine gives up (and the run fails).
const TRIES: usize = 16;

/// Renames `name` in `dir` (a directory under the root, through its handle) to
/// `<name>.lancet-quarantined-<random>`, never over an existing entry (`RENAME_NOREPLACE`),
/// trying fresh names; returns the name it now has. An error means the entry is still there:
/// the caller fails the run and says so.
pub fn set_aside(dir: &Dir, name: &str) -> io::Result<String> {
    let mut last = io::Error::other("no name was tried");
    for _ in 0..TRIES {
        let aside = format!("{name}.lancet-quarantined-{:08x}", random_u32());
        match rename_noreplace(dir, name, &aside) {
            Ok(()) => return Ok(aside),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// `renameat2(dir, from, dir, to, RENAME_NOREPLACE)` through the directory's descriptor.
fn rename_noreplace(dir: &Dir, from: &str, to: &str) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let from = std::ffi::CString::new(from).map_err(io::Error::other)?;
    let to = std::ffi::CString::new(to).map_err(io::Error::other)?;
    let fd = dir.as_raw_fd();
    // SAFETY: renameat2(2) with NUL-terminated names relative to a descriptor we hold.
    let rc = unsafe { libc::renameat2(fd, from.as_ptr(), fd, to.as_ptr(), libc::RENAME_NOREPLACE) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A random number from the kernel (no seed a program in the tree could predict).
fn random_u32() -> u32 {
    let mut bytes = [0u8; 4];
    // SAFETY: getrandom(2) into a buffer of the length given.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != 4 {
        // No entropy source: the time's nanoseconds still differ from try to try.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        return nanos ^ std::process::id();
    }
    u32::from_ne_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_name_never_stops_the_quarantine() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("src/.git/objects")).unwrap();
        // What an attacker plants where the quarantine used to rename to.
        std::fs::create_dir_all(tmp.path().join("src/.git.lancet-quarantined/keep")).unwrap();
        let dir =
            Dir::open_ambient_dir(tmp.path().join("src"), cap_std::ambient_authority()).unwrap();
        let aside = set_aside(&dir, ".git").unwrap();
        assert!(aside.starts_with(".git.lancet-quarantined-"));
        assert!(!tmp.path().join("src/.git").exists());
        assert!(tmp.path().join("src").join(&aside).join("objects").is_dir());
        assert!(
            set_aside(&dir, ".git").is_err(),
            "nothing left to set aside"
        );
    }
}
