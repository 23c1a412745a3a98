//! What models read, kept by content: `lancet read` stores each file it shows under its
//! SHA-256, so a later `apply --base PATH=SHA256` can apply an edit to exactly what the model
//! saw and rebase it over whatever changed since.
//!
//! The store is `<state dir>/snapshots/<sha256>`, one file per content (a second read of the
//! same content costs nothing), written through the state's handle by temp file and rename so a
//! reader never sees half a snapshot, and pruned, oldest first, to [`MAX_FILES`] files and
//! [`MAX_BYTES`] bytes. Pruning removes only snapshots lancet recorded writing
//! (`snapshots.index`), never a file it finds there: a `.lancet` shipped in a tree holds nothing
//! lancet will delete. A snapshot is only ever a convenience: a missing one makes a stale
//! `--base` a plain refusal.

use crate::state::StateDir;
use cap_std::fs::Dir;
use lancet_core::sha256_hex;
use std::io::{self, Write};

/// How many snapshots are kept at most.
pub const MAX_FILES: usize = 256;
/// How many bytes of snapshots are kept at most.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// A file larger than this is not kept (an edit of it is not rebased).
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// The record of the snapshots lancet wrote, one hash a line, in the state directory.
const INDEX: &str = "snapshots.index";

/// The record of what `lancet read` showed, one `<sha256> <path>` a line, newest last: so a
/// whole-file write without `--base` over a file changed since its read can say so.
const READS: &str = "reads.index";

/// How many reads the record keeps (the oldest go first).
const MAX_READS: usize = 1024;

/// Records that `lancet read` showed `path` (relative to the root) with this SHA-256. The
/// caller holds the root's lock.
pub fn record_read(state: &StateDir, path: &str, sha256: &str) {
    if !is_hash(sha256) || path.contains('\n') {
        return;
    }
    let Ok(handle) = state.handle() else {
        return;
    };
    let mut lines: Vec<String> = handle
        .read_to_string(READS)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            l.split_once(' ')
                .is_some_and(|(h, p)| is_hash(h) && p != path)
        })
        .map(str::to_string)
        .collect();
    lines.push(format!("{sha256} {path}"));
    let from = lines.len().saturating_sub(MAX_READS);
    let _ = handle.write(READS, lines[from..].join("\n") + "\n");
}

/// The SHA-256 `lancet read` last showed for `path`, if it recorded one.
pub fn last_read(state: &StateDir, path: &str) -> Option<String> {
    let text = state.handle().ok()?.read_to_string(READS).ok()?;
    text.lines()
        .rev()
        .filter_map(|l| l.split_once(' '))
        .find(|(h, p)| *p == path && is_hash(h))
        .map(|(h, _)| h.to_string())
}

/// Keeps `bytes` (whose SHA-256 is `sha256`) as a snapshot; returns whether it is kept. The
/// caller holds the root's lock.
pub fn keep(state: &StateDir, sha256: &str, bytes: &[u8]) -> bool {
    if bytes.len() > MAX_FILE_BYTES || !is_hash(sha256) {
        return false;
    }
    let written = (|| -> io::Result<()> {
        let handle = state.handle()?;
        let dir = state.subdir("snapshots")?;
        if dir.symlink_metadata(sha256).is_ok_and(|m| m.is_file()) {
            // Touched, so pruning counts this read as recent.
            let f = dir.open_with(sha256, cap_std::fs::OpenOptions::new().append(true))?;
            return f.into_std().set_modified(std::time::SystemTime::now());
        }
        let tmp = format!(".{sha256}.{}", std::process::id());
        dir.write(&tmp, bytes)?;
        dir.rename(&tmp, &dir, sha256)?;
        let mut index = handle.open_with(
            INDEX,
            cap_std::fs::OpenOptions::new().create(true).append(true),
        )?;
        writeln!(index, "{sha256}")?;
        prune(&handle, &dir);
        Ok(())
    })();
    written.is_ok()
}

/// The snapshot with this SHA-256, when it is kept and intact.
pub fn load(state: &StateDir, sha256: &str) -> Option<Vec<u8>> {
    let sha256 = sha256.trim().to_ascii_lowercase();
    if !is_hash(&sha256) {
        return None;
    }
    let bytes = state.subdir("snapshots").ok()?.read(&sha256).ok()?;
    (sha256_hex(&bytes) == sha256).then_some(bytes)
}

/// Drops the oldest recorded snapshots beyond [`MAX_FILES`] files or [`MAX_BYTES`] bytes, and
/// rewrites the record with those that stay.
fn prune(state: &Dir, dir: &Dir) {
    let Ok(index) = state.read_to_string(INDEX) else {
        return;
    };
    let mut recorded: Vec<&str> = index.lines().filter(|l| is_hash(l)).collect();
    recorded.sort_unstable();
    recorded.dedup();
    let mut kept: Vec<(std::time::SystemTime, u64, &str)> = recorded
        .into_iter()
        .filter_map(|name| {
            let meta = dir.symlink_metadata(name).ok().filter(|m| m.is_file())?;
            Some((meta.modified().ok()?.into_std(), meta.len(), name))
        })
        .collect();
    kept.sort_by_key(|k| std::cmp::Reverse(k.0));
    let mut total = 0u64;
    let mut stay = String::new();
    for (i, (_, len, name)) in kept.iter().enumerate() {
        total += len;
        if i >= MAX_FILES || total > MAX_BYTES {
            let _ = dir.remove_file(name);
        } else {
            stay.push_str(name);
            stay.push('\n');
        }
    }
    let _ = state.write(INDEX, stay);
}

fn is_hash(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;

    fn state(dir: &std::path::Path) -> StateDir {
        StateDir::new(dir.join("state"), false, dir.to_path_buf(), String::new())
    }

    fn dir(state: &StateDir) -> std::path::PathBuf {
        state.dir.join("snapshots")
    }

    #[test]
    fn a_kept_snapshot_loads_by_its_hash_and_a_corrupt_one_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let state = state(tmp.path());
        let sha = sha256_hex(b"hello\n");
        assert!(keep(&state, &sha, b"hello\n"));
        assert_eq!(load(&state, &sha).as_deref(), Some(&b"hello\n"[..]));
        assert_eq!(
            load(&state, &sha.to_uppercase()).as_deref(),
            Some(&b"hello\n"[..])
        );
        fs::write(dir(&state).join(&sha), b"changed\n").unwrap();
        assert_eq!(load(&state, &sha), None);
        assert_eq!(load(&state, "../../etc/passwd"), None);
    }

    #[test]
    fn a_wrong_name_is_never_written() {
        let tmp = tempfile::tempdir().unwrap();
        let state = state(tmp.path());
        assert!(!keep(&state, "../escape", b"x"));
        assert!(!dir(&state).exists());
    }

    #[test]
    fn pruning_keeps_the_newest() {
        let tmp = tempfile::tempdir().unwrap();
        let state = state(tmp.path());
        let contents: Vec<Vec<u8>> = (0..MAX_FILES + 3)
            .map(|i| format!("{i}\n").into_bytes())
            .collect();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, c) in contents.iter().enumerate() {
            let sha = sha256_hex(c);
            assert!(keep(&state, &sha, c));
            if i < 3 {
                fs::File::options()
                    .append(true)
                    .open(dir(&state).join(&sha))
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
            }
        }
        assert_eq!(fs::read_dir(dir(&state)).unwrap().count(), MAX_FILES);
        assert_eq!(load(&state, &sha256_hex(&contents[0])), None);
        assert!(load(&state, &sha256_hex(&contents[MAX_FILES + 2])).is_some());
    }

    /// Medium 6: a `.lancet/snapshots` shipped as a link to elsewhere is never written through,
    /// and pruning deletes only snapshots lancet recorded writing, never a file it finds there.
    #[test]
    fn a_shipped_snapshots_link_is_refused_and_only_recorded_snapshots_are_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("state")).unwrap();
        let names: Vec<String> = (0..MAX_FILES + 10)
            .map(|i| sha256_hex(format!("victim {i}").as_bytes()))
            .collect();
        for n in &names {
            fs::write(victim.path().join(n), "the user's file").unwrap();
        }
        std::os::unix::fs::symlink(victim.path(), dir(&state(tmp.path()))).unwrap();
        let linked = state(tmp.path());
        assert!(
            !keep(&linked, &sha256_hex(b"x"), b"x"),
            "written through the link"
        );
        assert_eq!(fs::read_dir(victim.path()).unwrap().count(), names.len());
        // A real snapshots directory holding files lancet never wrote: they stay.
        fs::remove_file(dir(&linked)).unwrap();
        fs::create_dir(dir(&linked)).unwrap();
        for n in &names {
            fs::write(dir(&linked).join(n), "shipped").unwrap();
        }
        let state = state(tmp.path());
        for i in 0..5 {
            let c = format!("read {i}");
            assert!(keep(&state, &sha256_hex(c.as_bytes()), c.as_bytes()));
        }
        for n in &names {
            assert!(
                dir(&state).join(n).exists(),
                "pruned a file lancet never wrote"
            );
        }
    }
}
