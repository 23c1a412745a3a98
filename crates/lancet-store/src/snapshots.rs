//! What models read, kept by content: `lancet read` stores each file it shows under its
//! SHA-256, so a later `apply --base PATH=SHA256` can apply an edit to exactly what the model
//! saw and rebase it over whatever changed since.
//!
//! The store is `<state dir>/snapshots/<sha256>`, one file per content (a second read of the
//! same content costs nothing), written through the state's handle by temp file and rename so a
//! reader never sees half a snapshot, and pruned, oldest first, to [`MAX_FILES`] files and
//! [`MAX_BYTES`] bytes. Pruning removes only snapshots lancet recorded writing
//! (`snapshots.index`), never a file it finds there: a `.lancet` shipped in a tree holds nothing
//! lancet will delete. The record also names the file each read was of (relative to the
//! state's home), so line anchors sent without the read's sha256 find the reads of their file
//! ([`kept_of`]). A snapshot is only ever a convenience: a missing one makes a stale `--base` a
//! plain refusal.

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

/// The record of the snapshots lancet wrote, in the state directory: a line per read file,
/// the hash and the file's path as a JSON string (a bare hash in records before paths were).
const INDEX: &str = "snapshots.index";

/// Keeps `bytes` (whose SHA-256 is `sha256`), read of `rel` (relative to the root), as a
/// snapshot; returns whether it is kept. The caller holds the root's lock.
pub fn keep(state: &StateDir, sha256: &str, bytes: &[u8], rel: &str) -> bool {
    if bytes.len() > MAX_FILE_BYTES || !is_hash(sha256) {
        return false;
    }
    let record = format!(
        "{sha256} {}",
        serde_json::Value::from(home_path(state, rel))
    );
    let written = (|| -> io::Result<()> {
        let handle = state.handle()?;
        let dir = state.subdir("snapshots")?;
        let append = |line: &str| -> io::Result<()> {
            let mut index = handle.open_with(
                INDEX,
                cap_std::fs::OpenOptions::new().create(true).append(true),
            )?;
            writeln!(index, "{line}")
        };
        if dir.symlink_metadata(sha256).is_ok_and(|m| m.is_file()) {
            // Touched, so pruning counts this read as recent; recorded for this path too.
            let f = dir.open_with(sha256, cap_std::fs::OpenOptions::new().append(true))?;
            f.into_std().set_modified(std::time::SystemTime::now())?;
            let index = handle.read_to_string(INDEX).unwrap_or_default();
            if !index.lines().any(|l| l == record) {
                append(&record)?;
            }
            return Ok(());
        }
        let tmp = format!(".{sha256}.{}", std::process::id());
        dir.write(&tmp, bytes)?;
        dir.rename(&tmp, &dir, sha256)?;
        append(&record)?;
        prune(&handle, &dir);
        Ok(())
    })();
    written.is_ok()
}

/// The hashes of the reads kept of `rel` (relative to the root), newest read first.
pub fn kept_of(state: &StateDir, rel: &str) -> Vec<String> {
    let Ok(handle) = state.handle() else {
        return Vec::new();
    };
    let (Ok(index), Ok(dir)) = (handle.read_to_string(INDEX), state.subdir("snapshots")) else {
        return Vec::new();
    };
    let path = home_path(state, rel);
    let mut reads: Vec<(std::time::SystemTime, &str)> = index
        .lines()
        .filter_map(|l| {
            let (sha256, of) = l.split_once(' ')?;
            (is_hash(sha256) && serde_json::from_str::<String>(of).ok()? == path).then_some(sha256)
        })
        .filter_map(|sha256| {
            let meta = dir.symlink_metadata(sha256).ok().filter(|m| m.is_file())?;
            Some((meta.modified().ok()?.into_std(), sha256))
        })
        .collect();
    reads.sort_by(|a, b| b.cmp(a));
    reads.dedup_by_key(|r| r.1);
    reads.into_iter().map(|(_, h)| h.to_string()).collect()
}

/// A path relative to the root as the record names it: relative to the state's home, so the
/// roots sharing a state (a repository's) name a file alike.
fn home_path(state: &StateDir, rel: &str) -> String {
    match state.root_in_home.as_str() {
        "" => rel.to_string(),
        root => format!("{root}/{rel}"),
    }
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
    let hash_of = |l: &'_ str| l.split(' ').next().unwrap_or_default().to_string();
    let mut recorded: Vec<String> = index.lines().map(hash_of).filter(|h| is_hash(h)).collect();
    recorded.sort_unstable();
    recorded.dedup();
    let mut kept: Vec<(std::time::SystemTime, u64, String)> = recorded
        .into_iter()
        .filter_map(|name| {
            let meta = dir.symlink_metadata(&name).ok().filter(|m| m.is_file())?;
            Some((meta.modified().ok()?.into_std(), meta.len(), name))
        })
        .collect();
    kept.sort_by_key(|k| std::cmp::Reverse(k.0));
    let mut total = 0u64;
    let mut stay = std::collections::HashSet::new();
    for (i, (_, len, name)) in kept.iter().enumerate() {
        total += len;
        if i >= MAX_FILES || total > MAX_BYTES {
            let _ = dir.remove_file(name);
        } else {
            stay.insert(name.as_str());
        }
    }
    let mut lines: Vec<&str> = index
        .lines()
        .filter(|l| stay.contains(hash_of(l).as_str()))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let _ = state.write(
        INDEX,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
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
        assert!(keep(&state, &sha, b"hello\n", "hello.txt"));
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
    fn the_reads_of_a_path_are_found_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let state = state(tmp.path());
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let (first, second) = (b"v1\n", b"v2\n");
        for (bytes, path) in [(first, "m.py"), (second, "m.py"), (first, "other.py")] {
            assert!(keep(&state, &sha256_hex(bytes), bytes, path));
        }
        let age = |bytes: &[u8]| {
            fs::File::options()
                .append(true)
                .open(dir(&state).join(sha256_hex(bytes)))
                .unwrap()
                .set_modified(old)
                .unwrap()
        };
        age(first);
        assert_eq!(
            kept_of(&state, "m.py"),
            [sha256_hex(second), sha256_hex(first)]
        );
        assert_eq!(kept_of(&state, "other.py"), [sha256_hex(first)]);
        assert!(kept_of(&state, "none.py").is_empty());
        // Read again: the newest read of m.py.
        age(second);
        assert!(keep(&state, &sha256_hex(first), first, "m.py"));
        assert_eq!(kept_of(&state, "m.py")[0], sha256_hex(first));
        // Under a root inside the home, the same file by its path from there.
        let sub = StateDir::new(
            tmp.path().join("state"),
            false,
            tmp.path().to_path_buf(),
            "sub".into(),
        );
        assert!(keep(&sub, &sha256_hex(second), second, "m.py"));
        assert_eq!(kept_of(&state, "sub/m.py"), [sha256_hex(second)]);
    }

    #[test]
    fn a_wrong_name_is_never_written() {
        let tmp = tempfile::tempdir().unwrap();
        let state = state(tmp.path());
        assert!(!keep(&state, "../escape", b"x", "x"));
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
            assert!(keep(&state, &sha, c, "c.txt"));
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
            !keep(&linked, &sha256_hex(b"x"), b"x", "x"),
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
            assert!(keep(
                &state,
                &sha256_hex(c.as_bytes()),
                c.as_bytes(),
                "r.txt"
            ));
        }
        for n in &names {
            assert!(
                dir(&state).join(n).exists(),
                "pruned a file lancet never wrote"
            );
        }
    }
}
