//! The tree judged after sandboxed tests: a git repository they left (a `.git`, or a directory
//! holding `HEAD` beside `config`, `commondir`, `objects/` or `refs/`) would run what its config
//! names on the next `git` there. Each that appeared since the run started is set aside under a
//! fresh name; one that cannot be, or a directory that cannot be searched, is reported so the
//! run fails. The scan runs once every process the tests started has ended
//! ([`lancet_process`]): nothing plants one behind it.
//!
//! Every change the quarantine makes to the tree goes through [`Tree::change`], which hands it
//! to the door ([`lancet_store::door::quarantine`]), and nowhere else.

use lancet_core::Root;
use lancet_store::door::quarantine as door;
use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What the quarantine found, as paths relative to the root.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Quarantined {
    /// Each planted repository and the name it was set aside as.
    pub set_aside: Vec<(String, String)>,
    /// What could not be checked or set aside, with why: a repository may remain there.
    pub failed: Vec<(String, String)>,
}

/// Sets aside every git repository that appeared under `root` since `since`, what lancet's state
/// puts off limits (`off_limits`: `.lancet`, or the repository's git directory) and the root's
/// own `.git` left alone. Directories the tests made unsearchable are opened for the walk
/// (lancet owns them) and closed again.
pub(crate) fn quarantine_planted_repositories(
    root: &Path,
    off_limits: &Path,
    since: SystemTime,
) -> Quarantined {
    let since = since
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default();
    let new = |p: &Path| {
        std::fs::symlink_metadata(p).is_ok_and(|m| m.ctime() >= since || m.mtime() >= since)
    };
    let relative = |p: &Path| {
        p.strip_prefix(root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let mut found = Quarantined::default();
    let handle = match Root::new(root) {
        Ok(h) => h,
        Err(e) => {
            found
                .failed
                .push((String::new(), format!("the root cannot be opened: {e}")));
            return found;
        }
    };
    let tree = Tree {
        root: &handle,
        path: root,
    };
    let mut steps = vec![Step::Visit(root.to_path_buf())];
    while let Some(step) = steps.pop() {
        let dir = match step {
            Step::Visit(dir) => dir,
            Step::Close { dir, mode } => {
                if let Err(e) = tree.change(TreeChange::Mode { path: &dir, mode }) {
                    found.failed.push((
                        relative(&dir),
                        format!("its mode could not be put back: {e}"),
                    ));
                }
                continue;
            }
        };
        match open_for_the_walk(&tree, &dir) {
            Ok(Some(mode)) => steps.push(Step::Close {
                dir: dir.clone(),
                mode,
            }),
            Ok(None) => {}
            Err(why) => {
                found.failed.push((relative(&dir), why));
                continue;
            }
        }
        let names: Vec<OsString> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.flatten().map(|e| e.file_name()).collect(),
            Err(e) => {
                found
                    .failed
                    .push((relative(&dir), format!("cannot list it: {e}")));
                continue;
            }
        };
        let named = |n: &str| names.iter().find(|x| x.eq_ignore_ascii_case(n));
        // The door's rule for a lookalike, the one every write of lancet's is judged by.
        if let Some(head) = named("HEAD")
            && lancet_store::door::lookalike::names_a_repository(|m| named(m).is_some())
            && dir != root.join(".git")
            && ["HEAD", "config", "commondir"]
                .iter()
                .filter_map(|m| named(m))
                .any(|m| new(&dir.join(m)))
        {
            // Without its HEAD, a directory is no repository to git.
            let head = dir.join(head);
            match set_aside(&tree, &head) {
                Ok(aside) => found.set_aside.push((relative(&dir), relative(&aside))),
                Err(why) => found.failed.push((relative(&dir), why)),
            }
        }
        for name in &names {
            let path = dir.join(name);
            if name.eq_ignore_ascii_case(".git") {
                if dir != root && new(&path) {
                    match set_aside(&tree, &path) {
                        Ok(aside) => found.set_aside.push((relative(&path), relative(&aside))),
                        Err(why) => found.failed.push((relative(&path), why)),
                    }
                }
            } else if path != off_limits
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
            {
                steps.push(Step::Visit(path));
            }
        }
    }
    found
}

/// The walk's next step: a directory to look into, or one to close again once everything under
/// it was looked at.
enum Step {
    Visit(PathBuf),
    Close { dir: PathBuf, mode: u32 },
}

/// Makes `dir` listable and searchable for the walk when it is not (a `chmod 311` hides its
/// entries from a listing, not from `cd`): its old mode, to put back, when it was changed. An
/// error when lancet cannot open it (it is not lancet's).
fn open_for_the_walk(tree: &Tree<'_>, dir: &Path) -> Result<Option<u32>, String> {
    if allowed(dir, libc::R_OK | libc::X_OK) {
        return Ok(None);
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("cannot look at it: {e}"))?;
    // SAFETY: geteuid(2) only reads the process's credentials.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Err("it cannot be listed, and it is not lancet's user's to open".into());
    }
    let mode = meta.mode() & 0o7777;
    tree.change(TreeChange::Mode {
        path: dir,
        mode: mode | 0o500,
    })
    .map_err(|e| format!("it cannot be listed, nor opened for that: {e}"))?;
    Ok(Some(mode))
}

/// Whether lancet may access `path` as `how` (R_OK, W_OK, X_OK), by its effective ids.
fn allowed(path: &Path, how: libc::c_int) -> bool {
    let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: faccessat(2) on a NUL-terminated path.
    unsafe { libc::faccessat(libc::AT_FDCWD, path.as_ptr(), how, libc::AT_EACCESS) == 0 }
}

/// How many fresh names a setting aside tries before it gives up.
const FRESH_NAMES: usize = 16;

/// Renames `path` to `<name>.lancet-quarantined-<random>` beside it, never over an entry (a
/// name the tests took beforehand is skipped for another); a parent lancet may not write is
/// opened for the rename and closed again. The new path, or why it stayed.
fn set_aside(tree: &Tree<'_>, path: &Path) -> Result<PathBuf, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let parent = path.parent().unwrap_or(Path::new("/"));
    let mut opened = None;
    let mut outcome = Err(format!("every one of {FRESH_NAMES} fresh names was taken"));
    for _ in 0..FRESH_NAMES {
        let aside = path.with_file_name(format!("{name}.lancet-quarantined-{:08x}", fresh()));
        match tree.change(TreeChange::SetAside {
            from: path,
            to: &aside,
        }) {
            Ok(()) => {
                outcome = Ok(aside);
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied && opened.is_none() => {
                match open_for_renames(tree, parent) {
                    Ok(mode) => opened = Some(mode),
                    Err(why) => {
                        outcome = Err(format!("it could not be renamed ({e}), and {why}"));
                        break;
                    }
                }
            }
            Err(e) => {
                outcome = Err(format!("it could not be renamed: {e}"));
                break;
            }
        }
    }
    if let Some(mode) = opened
        && let Err(e) = tree.change(TreeChange::Mode { path: parent, mode })
    {
        outcome = outcome.and(Err(format!(
            "its directory's mode could not be put back: {e}"
        )));
    }
    outcome
}

/// Makes `dir` writable for a rename (lancet owns it): its old mode, to put back.
fn open_for_renames(tree: &Tree<'_>, dir: &Path) -> Result<u32, String> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("its directory cannot be looked at: {e}"))?;
    // SAFETY: geteuid(2) only reads the process's credentials.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Err("its directory is not lancet's user's to open".into());
    }
    let mode = meta.mode() & 0o7777;
    tree.change(TreeChange::Mode {
        path: dir,
        mode: mode | 0o300,
    })
    .map_err(|e| format!("its directory could not be opened for that: {e}"))?;
    Ok(mode)
}

/// A random number for a fresh name (the clock's, where the kernel gives none).
fn fresh() -> u32 {
    let mut bytes = [0u8; 4];
    // SAFETY: getrandom(2) into a local buffer.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got == 4 {
        return u32::from_ne_bytes(bytes);
    }
    SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default()
}

/// A change the quarantine makes to the tree, by absolute paths under the root.
enum TreeChange<'a> {
    /// A directory's permission bits (opened for the walk or a rename, then put back).
    Mode { path: &'a Path, mode: u32 },
    /// A rename that never replaces an entry (`RENAME_NOREPLACE`).
    SetAside { from: &'a Path, to: &'a Path },
}

/// The root the walk runs in: its handle, through which the door makes every change, and its
/// path, which the walk's paths lie under.
struct Tree<'a> {
    root: &'a Root,
    path: &'a Path,
}

impl Tree<'_> {
    /// Every change the quarantine makes to the tree, in one place: through the door.
    fn change(&self, change: TreeChange<'_>) -> io::Result<()> {
        let rel = |p: &Path| -> io::Result<String> {
            p.strip_prefix(self.path)
                .map(|r| r.to_string_lossy().into_owned())
                .map_err(|_| io::Error::other("a path outside the root"))
        };
        match change {
            TreeChange::Mode { path, mode } => door::change_tree(
                self.root,
                door::TreeChange::Mode {
                    path: &rel(path)?,
                    mode,
                },
            ),
            TreeChange::SetAside { from, to } => door::change_tree(
                self.root,
                door::TreeChange::SetAside {
                    from: &rel(from)?,
                    to: &rel(to)?,
                },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plant(dir: &Path) {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::create_dir_all(dir.join("refs")).unwrap();
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(dir.join("config"), "[core]\n\tfsmonitor = touch pwned\n").unwrap();
    }

    #[test]
    fn planted_repositories_are_set_aside_under_fresh_names() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let since = SystemTime::now() - std::time::Duration::from_secs(1);
        // The old name taken beforehand, a `.git` and a bare lookalike.
        std::fs::create_dir_all(root.join("src/.git.lancet-quarantined")).unwrap();
        std::fs::write(root.join("src/.git.lancet-quarantined/keep"), "").unwrap();
        plant(&root.join("src/.git"));
        plant(&root.join("pkg/evil"));
        let found = quarantine_planted_repositories(root, &root.join(".lancet"), since);
        assert_eq!(found.failed, Vec::new());
        let mut planted: Vec<&str> = found.set_aside.iter().map(|(p, _)| p.as_str()).collect();
        planted.sort();
        assert_eq!(planted, ["pkg/evil", "src/.git"]);
        assert!(!root.join("src/.git").exists());
        assert!(!root.join("pkg/evil/HEAD").exists());
        for (_, aside) in &found.set_aside {
            assert!(aside.contains(".lancet-quarantined-"), "{aside}");
            assert!(root.join(aside).exists(), "{aside}");
        }
    }

    #[test]
    fn nothing_old_is_touched() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        plant(&root.join("vendor/lib/.git"));
        let since = SystemTime::now() + std::time::Duration::from_secs(60);
        let found = quarantine_planted_repositories(root, &root.join(".lancet"), since);
        assert_eq!(found, Quarantined::default());
        assert!(root.join("vendor/lib/.git/HEAD").exists());
    }
}
