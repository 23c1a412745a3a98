//! Which syncs a file system lets lancet merge without giving up a guarantee.
//!
//! A *journaling* file system (ext3/ext4 with its journal, XFS, btrfs) commits metadata changes
//! to its log in the order they were made, each commit holding everything before it: once a
//! file's `fsync` returns, its name in its directory is durable too (it was created before), and
//! once a directory's `fsync` returns, every earlier change of metadata on that file system is
//! (a pre-image's hard link made before a target's rename, say). There lancet syncs a new
//! journal's file alone, not also its directory, and a batch's pre-images with the targets'
//! directories, not apart. Anywhere else — or where it cannot tell — every sync POSIX asks for
//! is made.

use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Mutex;

/// `statfs` magic numbers of file systems that log metadata in order.
const EXT_MAGIC: i64 = 0xEF53;
const XFS_MAGIC: i64 = 0x5846_5342;
const BTRFS_MAGIC: i64 = 0x9123_683E;

/// Whether the file system holding `fd` logs metadata in order (see the module docs).
pub(crate) fn logs_in_order(fd: &impl AsRawFd) -> bool {
    if lancet_core::failpoint::check("no-ordered-log").is_err() {
        return false;
    }
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: fstatfs(2) fills the buffer given for a descriptor we hold.
    if unsafe { libc::fstatfs(fd.as_raw_fd(), &mut stat) } != 0 {
        return false;
    }
    match stat.f_type as i64 {
        XFS_MAGIC | BTRFS_MAGIC => true,
        // ext2, ext3 and ext4 share the magic; ext2 has no journal, nor has ext4 made without.
        EXT_MAGIC => ext_with_journal(fd).unwrap_or(false),
        _ => false,
    }
}

/// Whether a sync of a directory on `tree`'s file system also makes durable what was done
/// before it under `other` (the pre-images beside the state): both on one file system that
/// logs in order.
pub(crate) fn one_log(tree: &impl AsRawFd, other: &impl AsRawFd) -> bool {
    let dev = |fd: &dyn AsRawFd| {
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat(2) fills the buffer given for a descriptor we hold.
        (unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) } == 0).then_some(stat.st_dev)
    };
    matches!((dev(tree), dev(other)), (Some(a), Some(b)) if a == b) && logs_in_order(tree)
}

/// Whether the ext file system holding `fd` keeps a journal. Its type does not say: ext4 can
/// be made without one (`mkfs.ext4 -O ^has_journal`, as some virtual machines' disks are) and is
/// mounted as `ext4` all the same, syncing nothing in order. The kernel lists a journaled one's
/// data mode (`data=ordered`, `data=journal`, `data=writeback`) among the options of
/// `/proc/fs/ext4/<device>/options`, and none without a journal; the device is named by the file
/// system's device number (`/sys/dev/block/MAJOR:MINOR`). Asked once per device and process.
fn ext_with_journal(fd: &impl AsRawFd) -> io::Result<bool> {
    static KNOWN: Mutex<Vec<(libc::dev_t, bool)>> = Mutex::new(Vec::new());
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat(2) fills the buffer given for a descriptor we hold.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let dev = stat.st_dev;
    let known = || {
        let known = KNOWN.lock().ok()?;
        known
            .iter()
            .find(|(d, _)| *d == dev)
            .map(|&(_, journal)| journal)
    };
    if let Some(journal) = known() {
        return Ok(journal);
    }
    let device = std::fs::read_link(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ))?;
    let name = device
        .file_name()
        .ok_or_else(|| io::Error::other("a block device link without a name"))?;
    let options = std::fs::read_to_string(Path::new("/proc/fs/ext4").join(name).join("options"))?;
    let journal = options.lines().any(|option| option.starts_with("data="));
    if let Ok(mut known) = KNOWN.lock() {
        known.push((dev, journal));
    }
    Ok(journal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journaling_file_system_is_told_apart() {
        // Whatever this machine's temp directory is, the answer must agree with its mount.
        let dir = tempfile::tempdir().unwrap();
        let handle = std::fs::File::open(dir.path()).unwrap();
        let fstype = std::process::Command::new("stat")
            .args(["-f", "-c", "%T"])
            .arg(dir.path())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let expected = match fstype.as_str() {
            "xfs" | "btrfs" => Some(true),
            "tmpfs" | "overlayfs" | "nfs" => Some(false),
            // ext2/ext3/ext4 (`stat` names them alike): in order only with a journal, which
            // the kernel's jbd2 lists by device name (`<device>-<journal inode>`).
            "ext2/ext3" => Some(jbd2_journals_on(dir.path())),
            _ => None,
        };
        if let Some(expected) = expected {
            assert_eq!(logs_in_order(&handle), expected, "{fstype}");
        }
        let tmpfs = Path::new("/dev/shm");
        if tmpfs.is_dir() {
            assert!(!logs_in_order(&std::fs::File::open(tmpfs).unwrap()));
        }
    }

    /// Whether jbd2 runs a journal for the device holding `path` (named as `df` names it).
    fn jbd2_journals_on(path: &Path) -> bool {
        let out = std::process::Command::new("df")
            .args(["--output=source"])
            .arg(path)
            .output()
            .unwrap();
        let source = String::from_utf8_lossy(&out.stdout);
        let device = source
            .lines()
            .last()
            .unwrap()
            .trim()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        std::fs::read_dir("/proc/fs/jbd2").is_ok_and(|entries| {
            entries.flatten().any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{device}-"))
            })
        })
    }
}
