//! Writing a staged batch to disk, all or nothing.
//!
//! Each new content goes to a temp file beside its target (same directory, so the rename is
//! atomic and never crosses a file system), with the target's mode, fsynced; then every temp
//! file is renamed over its target and the parent directories are fsynced. A deletion renames
//! the target aside first and unlinks it only when every rename has succeeded. An error part-way
//! puts back everything already replaced, from the pre-images held in memory.

use crate::failpoint;
use crate::stage::{Before, StagedFile};
use sha2::{Digest, Sha256};
use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The hex SHA-256 of some bytes: the identity of a file version in reports and `--expect`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Options for writing.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// fsync files and directories (off only for throwaway trees).
    pub fsync: bool,
}

/// Why a commit did not happen or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// A target changed between staging and writing; nothing was written.
    #[error("{path} changed on disk while the edit was being prepared; nothing was written")]
    Stale {
        /// The path, relative to the root.
        path: String,
    },
    /// An I/O error; `intact` says whether every file was restored.
    #[error("writing {path} failed: {source}; {}", if *intact { "every file was restored to its state before the batch" } else { "ROLLBACK INCOMPLETE: some files could not be restored" })]
    Io {
        /// The path being written.
        path: String,
        /// The error.
        source: io::Error,
        /// Whether the rollback restored every file.
        intact: bool,
    },
}

/// What was done to one target, so it can be undone.
enum Done {
    /// The target was replaced or created by a rename.
    Renamed(usize),
    /// The target was renamed aside to the backup path.
    MovedAside(usize, PathBuf),
}

/// Writes every staged file or none. `files` are written in order.
pub fn commit(files: &[StagedFile], opts: WriteOptions) -> Result<(), CommitError> {
    for f in files {
        if !still_matches(f) {
            return Err(CommitError::Stale {
                path: f.path.to_string(),
            });
        }
    }
    let mut created_dirs = Vec::new();
    let mut temps: Vec<Option<tempfile::NamedTempFile>> = Vec::with_capacity(files.len());
    for f in files {
        match f.after.as_deref() {
            Some(bytes) => match write_temp(&f.real, bytes, f.mode, opts, &mut created_dirs) {
                Ok(t) => temps.push(Some(t)),
                Err(source) => {
                    drop(temps);
                    let intact = remove_dirs(&created_dirs);
                    return Err(CommitError::Io {
                        path: f.path.to_string(),
                        source,
                        intact,
                    });
                }
            },
            None => temps.push(None),
        }
    }
    let mut done = Vec::with_capacity(files.len());
    let mut failure = None;
    for (i, (f, temp)) in files.iter().zip(temps).enumerate() {
        let step = match temp {
            Some(temp) => failpoint::check("rename")
                .and_then(|()| temp.persist(&f.real).map_err(|e| e.error))
                .map(|_| Done::Renamed(i)),
            None => {
                let aside = aside_path(&f.real, i);
                failpoint::check("rename")
                    .and_then(|()| fs::rename(&f.real, &aside))
                    .map(|()| Done::MovedAside(i, aside))
            }
        };
        match step {
            Ok(d) => done.push(d),
            Err(source) => {
                failure = Some((f.path.to_string(), source));
                break;
            }
        }
    }
    // The loop has dropped (and so deleted) every temp file it did not rename.
    if let Some((path, source)) = failure {
        let intact = rollback(files, &done, &created_dirs);
        return Err(CommitError::Io {
            path,
            source,
            intact,
        });
    }
    if opts.fsync {
        let mut dirs: Vec<&Path> = files.iter().filter_map(|f| f.real.parent()).collect();
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            if let Err(source) = fsync_dir(dir) {
                let intact = rollback(files, &done, &created_dirs);
                return Err(CommitError::Io {
                    path: dir.display().to_string(),
                    source,
                    intact,
                });
            }
        }
    }
    for d in done {
        if let Done::MovedAside(_, aside) = d {
            // The batch is committed; a leftover backup only costs space.
            let _ = fs::remove_file(aside);
        }
    }
    Ok(())
}

/// Whether the target still holds what was staged as its pre-image.
fn still_matches(f: &StagedFile) -> bool {
    match &f.before {
        Before::Missing => fs::symlink_metadata(&f.real).is_err(),
        Before::File { sha256, .. } => {
            fs::symlink_metadata(&f.real).is_ok_and(|m| m.is_file())
                && fs::read(&f.real).is_ok_and(|b| sha256_hex(&b) == *sha256)
        }
        Before::Link { target } => fs::read_link(&f.real).is_ok_and(|t| t == *target),
    }
}

fn write_temp(
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    opts: WriteOptions,
    created_dirs: &mut Vec<PathBuf>,
) -> io::Result<tempfile::NamedTempFile> {
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::other("target has no parent directory"))?;
    create_parents(dir, created_dirs)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".lancet.tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    failpoint::check("write")?;
    temp.write_all(bytes)?;
    if let Some(mode) = mode {
        temp.as_file()
            .set_permissions(Permissions::from_mode(mode))?;
    }
    if opts.fsync {
        temp.as_file().sync_all()?;
    }
    Ok(temp)
}

/// Creates missing ancestors of `dir`, recording each one created (outermost first).
fn create_parents(dir: &Path, created: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut cur = dir;
    while fs::symlink_metadata(cur).is_err() {
        missing.push(cur.to_path_buf());
        match cur.parent() {
            Some(p) => cur = p,
            None => break,
        }
    }
    for d in missing.into_iter().rev() {
        fs::create_dir(&d)?;
        created.push(d);
    }
    Ok(())
}

fn aside_path(target: &Path, i: usize) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.lancet-{}-{i}.del", std::process::id()))
}

fn fsync_dir(dir: &Path) -> io::Result<()> {
    failpoint::check("fsync_dir")?;
    File::open(dir)?.sync_all()
}

/// Undoes `done` in reverse order from the in-memory pre-images; returns whether all of it
/// succeeded.
fn rollback(files: &[StagedFile], done: &[Done], created_dirs: &[PathBuf]) -> bool {
    let mut intact = true;
    for d in done.iter().rev() {
        let ok = match d {
            Done::MovedAside(i, aside) => fs::rename(aside, &files[*i].real).is_ok(),
            Done::Renamed(i) => {
                let f = &files[*i];
                match &f.before {
                    Before::Missing => fs::remove_file(&f.real).is_ok(),
                    Before::File { bytes, mode, .. } => restore_file(&f.real, bytes, *mode).is_ok(),
                    Before::Link { target } => {
                        fs::remove_file(&f.real).is_ok()
                            && std::os::unix::fs::symlink(target, &f.real).is_ok()
                    }
                }
            }
        };
        intact &= ok;
    }
    intact & remove_dirs(created_dirs)
}

fn restore_file(target: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::other("target has no parent directory"))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".lancet-restore.")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file()
        .set_permissions(Permissions::from_mode(mode))?;
    temp.as_file().sync_all()?;
    temp.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// Removes directories the batch created (innermost first); true if all are gone.
fn remove_dirs(created: &[PathBuf]) -> bool {
    // Try every directory even after a failure.
    let failures = created
        .iter()
        .rev()
        .filter(|d| fs::remove_dir(d).is_err())
        .count();
    failures == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::Root;

    fn staged(root: &Root, rel: &str, before: Before, after: Option<&[u8]>) -> StagedFile {
        StagedFile {
            path: root.rel(rel).unwrap(),
            real: root.path().join(rel),
            before,
            after: after.map(<[u8]>::to_vec),
            mode: None,
        }
    }

    fn file(bytes: &[u8]) -> Before {
        Before::File {
            bytes: bytes.to_vec(),
            sha256: sha256_hex(bytes),
            mode: 0o644,
        }
    }

    #[test]
    fn a_target_changed_since_staging_refuses_the_whole_batch() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "changed by someone else\n").unwrap();
        let files = [
            staged(&root, "a.txt", file(b"a\n"), Some(b"A\n")),
            staged(&root, "b.txt", file(b"b\n"), Some(b"B\n")),
        ];
        let err = commit(&files, WriteOptions { fsync: false }).unwrap_err();
        assert!(matches!(err, CommitError::Stale { ref path } if path == "b.txt"));
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
        let created = [staged(&root, "c.txt", Before::Missing, Some(b"c\n"))];
        std::fs::write(dir.path().join("c.txt"), "appeared meanwhile\n").unwrap();
        assert!(matches!(
            commit(&created, WriteOptions { fsync: false }),
            Err(CommitError::Stale { .. })
        ));
    }

    #[test]
    fn writes_creates_and_deletes_leaving_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("gone.txt"), "g\n").unwrap();
        let files = [
            staged(&root, "a.txt", file(b"a\n"), Some(b"A\n")),
            staged(&root, "sub/dir/new.txt", Before::Missing, Some(b"n\n")),
            staged(&root, "gone.txt", file(b"g\n"), None),
        ];
        commit(&files, WriteOptions { fsync: true }).unwrap();
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"A\n");
        assert_eq!(
            std::fs::read(dir.path().join("sub/dir/new.txt")).unwrap(),
            b"n\n"
        );
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "sub"]);
    }
}
