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
        // ext2, ext3 and ext4 share the magic; ext2 has no journal.
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

/// Whether the ext file system holding `fd` is mounted as ext3 or ext4 (which journal), from
/// the mount table: the mount whose id `statx` gives.
fn ext_with_journal(fd: &impl AsRawFd) -> io::Result<bool> {
    let mut statx: libc::statx = unsafe { std::mem::zeroed() };
    let empty = c"";
    // SAFETY: statx(2) on a descriptor we hold, into a buffer of the right type.
    let rc = unsafe {
        libc::statx(
            fd.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_MNT_ID,
            &mut statx,
        )
    };
    if rc != 0 || statx.stx_mask & libc::STATX_MNT_ID == 0 {
        return Ok(false);
    }
    let mount_id = statx.stx_mnt_id.to_string();
    let table = std::fs::read_to_string("/proc/self/mountinfo")?;
    Ok(table.lines().any(|line| {
        let mut fields = line.split(' ');
        fields.next() == Some(mount_id.as_str())
            && line
                .split(" - ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .is_some_and(|fstype| fstype == "ext4" || fstype == "ext3")
    }))
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
            _ => None,
        };
        if let Some(expected) = expected {
            assert_eq!(logs_in_order(&handle), expected, "{fstype}");
        }
        let tmpfs = std::path::Path::new("/dev/shm");
        if tmpfs.is_dir() {
            assert!(!logs_in_order(&std::fs::File::open(tmpfs).unwrap()));
        }
    }
}
