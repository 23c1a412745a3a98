//! What models read, kept by content: `lancet read` stores each file it shows under its
//! SHA-256, so a later `apply --base PATH=SHA256` can apply an edit to exactly what the model
//! saw and rebase it over whatever changed since.
//!
//! The store is `<state dir>/snapshots/<sha256>`, one file per content (a second read of the
//! same content costs nothing), written by temp file and rename so a reader never sees half a
//! snapshot, and pruned, oldest first, to [`MAX_FILES`] files and [`MAX_BYTES`] bytes. A
//! snapshot is only ever a convenience: a missing one makes a stale `--base` a plain refusal.

use crate::StateDir;
use lancet_core::digest::sha256_hex;
use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

/// How many snapshots are kept at most.
pub const MAX_FILES: usize = 256;
/// How many bytes of snapshots are kept at most.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// A file larger than this is not kept (an edit of it is not rebased).
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

fn dir(state: &StateDir) -> PathBuf {
    state.dir.join("snapshots")
}

/// Keeps `bytes` (whose SHA-256 is `sha256`) as a snapshot; returns whether it is kept.
pub fn keep(state: &StateDir, sha256: &str, bytes: &[u8]) -> bool {
    if bytes.len() > MAX_FILE_BYTES || !is_hash(sha256) {
        return false;
    }
    let dir = dir(state);
    let path = dir.join(sha256);
    if path.is_file() {
        // Touched, so pruning counts this read as recent.
        let _ = fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        return true;
    }
    let written = (|| -> io::Result<()> {
        fs::create_dir_all(&dir)?;
        let tmp = dir.join(format!(".{sha256}.{}", std::process::id()));
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        fs::rename(&tmp, &path)
    })();
    if written.is_ok() {
        prune(state);
    }
    written.is_ok()
}

/// The snapshot with this SHA-256, when it is kept and intact.
pub fn load(state: &StateDir, sha256: &str) -> Option<Vec<u8>> {
    let sha256 = sha256.trim().to_ascii_lowercase();
    if !is_hash(&sha256) {
        return None;
    }
    let bytes = fs::read(dir(state).join(&sha256)).ok()?;
    (sha256_hex(&bytes) == sha256).then_some(bytes)
}

/// Drops the oldest snapshots beyond [`MAX_FILES`] files or [`MAX_BYTES`] bytes.
fn prune(state: &StateDir) {
    let Ok(listing) = fs::read_dir(dir(state)) else {
        return;
    };
    let mut kept: Vec<(std::time::SystemTime, u64, PathBuf)> = listing
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_hash))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    kept.sort_by_key(|k| std::cmp::Reverse(k.0));
    let mut total = 0u64;
    for (i, (_, len, path)) in kept.iter().enumerate() {
        total += len;
        if i >= MAX_FILES || total > MAX_BYTES {
            let _ = fs::remove_file(path);
        }
    }
}

fn is_hash(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(dir: &std::path::Path) -> StateDir {
        StateDir {
            dir: dir.join("state"),
            in_git: false,
            home: dir.to_path_buf(),
            root_in_home: String::new(),
        }
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
}
