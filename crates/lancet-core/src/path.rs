//! Paths an edit may touch: validated relative to the root before any I/O, resolved safely after.
//!
//! Models send `../x`, absolute paths, `.git/hooks/...` and paths through symlinks. A [`RelPath`]
//! can only be built from a path that stays inside the root lexically and names no `.git`
//! component in any spelling; [`Root::resolve`] then follows symlinks and refuses any that lead
//! outside the root (or into `.git`).
//!
//! Every read and write goes through [`Root::dir`], a capability handle on the root directory
//! (`cap-std`): paths are resolved relative to it at the moment of each operation, and a
//! symlink or `..` that would leave it fails there (with `openat2(RESOLVE_BENEATH)` where the
//! kernel has it). A directory swapped for a link to `/etc` between staging and writing makes
//! the write fail instead of landing outside.

use cap_std::fs::Dir;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A path relative to the root, `/`-separated, normalised, and known not to escape the root.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RelPath(String);

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsafe path {path:?}: {problem}")]
pub struct PathError {
    /// The path as the edit wrote it.
    pub path: String,
    /// What is wrong with it.
    pub problem: PathProblem,
}

/// The kinds of unsafe or unusable paths.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathProblem {
    /// Nothing but separators or dots.
    #[error("the path is empty")]
    Empty,
    /// A NUL or other control character.
    #[error("it contains a NUL or control character")]
    ControlChar,
    /// A file operation's path ending in a separator (`new/`): a directory's name, never a
    /// file's, and dropping the separator would write a file the edit did not name.
    #[error("it ends with a path separator: a file operation names a file, not a directory")]
    TrailingSeparator,
    /// `..` climbing above the root, or an absolute path elsewhere.
    #[error("it is outside the root {root}")]
    Outside {
        /// The root, for the message.
        root: String,
    },
    /// lancet's own state directory.
    #[error("it is inside a .lancet directory (any spelling), lancet's own state")]
    StateDir,
    /// A `.git` component in some spelling.
    #[error("it names a .git directory (as {component:?}); lancet never writes inside .git")]
    GitDir {
        /// The offending component.
        component: String,
    },
    /// A symlink on the way resolves outside the root.
    #[error("it goes through the symlink {link:?}, which leads outside the root")]
    SymlinkOutside {
        /// The link, relative to the root.
        link: String,
    },
    /// A symlink with an absolute target: resolved only relative to the root, never by an
    /// absolute name (which would mean something else if the tree moved).
    #[error(
        "it goes through the symlink {link:?}, whose target is absolute; lancet follows only relative links"
    )]
    AbsoluteSymlink {
        /// The link, relative to the root.
        link: String,
    },
    /// A symlink whose target does not exist.
    #[error("it is a symlink to a missing target ({link:?})")]
    DanglingSymlink {
        /// The link, relative to the root.
        link: String,
    },
    /// A parent component is a file.
    #[error("its parent {parent:?} is not a directory")]
    ParentNotDir {
        /// The parent, relative to the root.
        parent: String,
    },
}

impl RelPath {
    /// The normalised relative path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's components, in order.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// The path as a relative file-system path, for [`Root::dir`] operations.
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }

    /// The parent directory, `None` for a top-level name.
    pub fn parent(&self) -> Option<RelPath> {
        self.0.rsplit_once('/').map(|(p, _)| RelPath(p.to_string()))
    }

    /// A sibling: `name` in this path's directory.
    pub fn with_file_name(&self, name: &str) -> RelPath {
        match self.parent() {
            Some(p) => RelPath(format!("{p}/{name}")),
            None => RelPath(name.to_string()),
        }
    }

    /// Re-validates a path read back from lancet's own state (a journal, a checkpoint's
    /// metadata): only a normalised relative path with no `.git` or state component is
    /// accepted, so a forged state file cannot name anything outside the root.
    pub fn from_state(raw: &str) -> Option<RelPath> {
        let ok = !raw.is_empty()
            && raw.split('/').all(|c| {
                !matches!(c, "" | "." | "..")
                    && !c.chars().any(char::is_control)
                    && !c.contains('\\')
                    && forbidden(c).is_none()
            });
        ok.then(|| RelPath(raw.to_string()))
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The directory edits are confined to: its name (for messages, git and children's working
/// directory) and an open handle every file-system access goes through.
#[derive(Debug, Clone)]
pub struct Root {
    given: PathBuf,
    canonical: PathBuf,
    dir: Arc<Dir>,
}

/// A relative path resolved to the location to read and write, symlinks followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Where the bytes live, relative to the root: the symlink's target when the path is a link
    /// and links are followed.
    pub real: RelPath,
    /// Whether a final symlink was followed to reach `real`.
    pub via_link: bool,
}

impl Root {
    /// Opens a root directory; it must exist.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        let canonical = dir.canonicalize()?;
        if !canonical.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        if let Some(repo) = canonical.ancestors().find(|d| is_git_dir(d)) {
            // A bare repository (or a `.git` directory) holds hooks and config that git runs:
            // writing there is not editing a work tree.
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is inside the git repository directory {} (a bare repository or a .git directory), not a work tree; lancet never writes there",
                    dir.display(),
                    repo.display()
                ),
            ));
        }
        let given = if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            std::env::current_dir()?.join(dir)
        };
        let handle = Dir::open_ambient_dir(&canonical, cap_std::ambient_authority())?;
        Ok(Root {
            given,
            canonical,
            dir: Arc::new(handle),
        })
    }

    /// Opens the root a journal or checkpoint recorded, `base` relative to `home` (the work tree
    /// or directory whose state it is): opened through `home`'s handle, so a forged `base`
    /// cannot name a directory outside it.
    pub fn within(home: &Root, base: &str) -> std::io::Result<Root> {
        if base.is_empty() {
            return Ok(home.clone());
        }
        let rel = RelPath::from_state(base).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{base:?} is not a path inside {}", home.canonical.display()),
            )
        })?;
        let handle = home.dir.open_dir(rel.as_path())?;
        let canonical = home.canonical.join(home.dir.canonicalize(rel.as_path())?);
        Ok(Root {
            given: canonical.clone(),
            canonical,
            dir: Arc::new(handle),
        })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// The handle every read and write under the root goes through (see the module docs).
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// This root relative to `outer` (`""` when they are the same), if it lies inside it.
    pub fn relative_to(&self, outer: &Path) -> Option<String> {
        self.canonical
            .strip_prefix(outer)
            .ok()
            .and_then(|p| p.to_str())
            .map(str::to_string)
    }

    /// Validates the path of a file an operation creates, changes, moves or deletes: [`rel`],
    /// and no trailing separator.
    ///
    /// [`rel`]: Root::rel
    pub fn file_rel(&self, raw: &str) -> Result<RelPath, PathError> {
        if raw.ends_with(['/', '\\']) {
            return Err(PathError {
                path: raw.to_string(),
                problem: PathProblem::TrailingSeparator,
            });
        }
        self.rel(raw)
    }

    /// Validates a path a tree-wide command walks (`mod`, `rename`, `check`): as [`rel`], but a
    /// path naming the root itself (`.`, `./`, `a/..`, the root's own absolute name) is the root
    /// (`None`), as ripgrep and ast-grep take it. Only an empty string stays refused.
    ///
    /// [`rel`]: Root::rel
    pub fn walk_rel(&self, raw: &str) -> Result<Option<RelPath>, PathError> {
        match self.rel(raw) {
            Err(PathError {
                problem: PathProblem::Empty,
                ..
            }) if !raw.is_empty() => Ok(None),
            other => other.map(Some),
        }
    }

    /// Validates a path as written in an edit. No I/O happens here.
    pub fn rel(&self, raw: &str) -> Result<RelPath, PathError> {
        let err = |problem| PathError {
            path: raw.to_string(),
            problem,
        };
        if raw.chars().any(|c| c.is_control()) {
            return Err(err(PathProblem::ControlChar));
        }
        let unified = raw.replace('\\', "/");
        let outside = || {
            err(PathProblem::Outside {
                root: self.canonical.display().to_string(),
            })
        };
        let relative = if unified.starts_with('/') {
            self.strip_root(&unified).ok_or_else(outside)?
        } else if looks_like_windows_absolute(&unified) {
            return Err(outside());
        } else {
            unified
        };
        let mut parts: Vec<&str> = Vec::new();
        for component in relative.split('/') {
            match component {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(outside());
                    }
                }
                c => {
                    if let Some(problem) = forbidden(c) {
                        return Err(err(problem));
                    }
                    parts.push(c);
                }
            }
        }
        if parts.is_empty() {
            return Err(err(PathProblem::Empty));
        }
        Ok(RelPath(parts.join("/")))
    }

    /// Strips the root (as given or canonical) from an absolute path, if it lies inside.
    fn strip_root(&self, abs: &str) -> Option<String> {
        for root in [&self.canonical, &self.given] {
            if let Ok(rest) = Path::new(abs).strip_prefix(root) {
                return rest.to_str().map(str::to_string);
            }
        }
        None
    }

    /// Resolves a relative path on disk, through the root's handle. Symlinks in parent
    /// components must stay inside the root; a final symlink is followed (and must stay inside)
    /// when `follow_final` is set, and is otherwise the thing itself (a Delete removes the link,
    /// not its target). The result names no symlink: what is written later is exactly it.
    pub fn resolve(&self, rel: &RelPath, follow_final: bool) -> Result<Resolved, PathError> {
        if self.no_link_on_the_way(rel) {
            return Ok(Resolved {
                real: self.relative(rel.as_path(), rel)?,
                via_link: false,
            });
        }
        let err = |problem| PathError {
            path: rel.0.clone(),
            problem,
        };
        let parts: Vec<&str> = rel.components().collect();
        let mut current = PathBuf::new();
        let mut walked = String::new();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
            let candidate = current.join(part);
            let Ok(meta) = self.dir.symlink_metadata(&candidate) else {
                // Nothing exists from here on, so no symlink can redirect the rest.
                for rest in &parts[i..] {
                    current.push(rest);
                }
                return Ok(Resolved {
                    real: self.relative(&current, rel)?,
                    via_link: false,
                });
            };
            if meta.file_type().is_symlink() {
                if last && !follow_final {
                    return Ok(Resolved {
                        real: self.relative(&candidate, rel)?,
                        via_link: false,
                    });
                }
                let link = || walked.clone();
                if let Ok(t) = self.dir.read_link_contents(&candidate)
                    && t.is_absolute()
                {
                    // Only the message depends on where it points: the handle follows none.
                    let inside = t.starts_with(&self.canonical) || t.starts_with(&self.given);
                    return Err(err(if inside {
                        PathProblem::AbsoluteSymlink { link: link() }
                    } else {
                        PathProblem::SymlinkOutside { link: link() }
                    }));
                }
                let target = self.dir.canonicalize(&candidate).map_err(|e| {
                    err(if e.kind() == std::io::ErrorKind::NotFound {
                        PathProblem::DanglingSymlink { link: link() }
                    } else {
                        PathProblem::SymlinkOutside { link: link() }
                    })
                })?;
                if last {
                    return Ok(Resolved {
                        real: self.relative(&target, rel)?,
                        via_link: true,
                    });
                }
                current = target;
            } else {
                if !last && !meta.is_dir() {
                    return Err(err(PathProblem::ParentNotDir { parent: walked }));
                }
                current = candidate;
            }
        }
        Ok(Resolved {
            real: self.relative(&current, rel)?,
            via_link: false,
        })
    }

    /// Whether `rel` exists under the root with no link anywhere on its way, its last component
    /// included: then it resolves to itself. One `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
    /// says so where the walk of [`Root::resolve`] takes a look per component; `false` (the walk
    /// decides) for a link, a missing part, or a kernel without `openat2`.
    #[cfg(target_os = "linux")]
    fn no_link_on_the_way(&self, rel: &RelPath) -> bool {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
        rustix::fs::openat2(
            &self.dir,
            rel.as_str(),
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
        )
        .and_then(|fd| rustix::fs::fstat(&fd))
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) != FileType::Symlink)
    }

    /// Elsewhere the walk of [`Root::resolve`] decides every path.
    #[cfg(not(target_os = "linux"))]
    fn no_link_on_the_way(&self, _: &RelPath) -> bool {
        false
    }

    /// The bytes of a regular file under the root (links followed inside it), or `None` when it
    /// is missing, not a regular file (a FIFO would block), or reached through a link leading
    /// out: for the MCP server's memory of what the model has read.
    pub fn read_regular(&self, rel: &RelPath) -> Option<Vec<u8>> {
        let real = self.resolve(rel, true).ok()?.real;
        let at = real.as_path();
        self.dir
            .symlink_metadata(at)
            .is_ok_and(|m| m.is_file())
            .then(|| self.dir.read(at).ok())
            .flatten()
    }

    /// A resolved location as a [`RelPath`], refused if it is the root itself or inside `.git`
    /// or a `.lancet` state directory.
    fn relative(&self, resolved: &Path, asked: &RelPath) -> Result<RelPath, PathError> {
        let err = |problem| PathError {
            path: asked.0.clone(),
            problem,
        };
        let mut parts = Vec::new();
        for c in resolved.components() {
            let c = c
                .as_os_str()
                .to_str()
                .ok_or_else(|| err(PathProblem::ControlChar))?;
            // Reached through a link (`pkg/st -> ../.lancet`): the same rule as a path written.
            if let Some(problem) = forbidden(c) {
                return Err(err(problem));
            }
            parts.push(c);
        }
        if parts.is_empty() {
            return Err(err(PathProblem::Empty));
        }
        Ok(RelPath(parts.join("/")))
    }

    /// The relative form of a path under the root, for messages.
    pub fn display_rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.canonical)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    }
}

/// Whether a directory is a git repository's own directory (bare, or a `.git`): git's test, a
/// `HEAD` file beside `objects/` and `refs/`. A work tree whose files merely look like that (it
/// has a `.git` of its own, which git finds first) is not one.
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && dir.join("objects").is_dir()
        && dir.join("refs").is_dir()
        && std::fs::symlink_metadata(dir.join(".git")).is_err()
}

fn looks_like_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// The one confinement rule for a path component, whether written in an edit, reached through
/// a link or read back from lancet's state: never a `.git` directory in any spelling git or a
/// file system reads as one, and never a `.lancet` state directory in any case (case-folding
/// file systems; a batch that plants `sub/.lancet/journal.json` could steer a later
/// `lancet -C sub` into "recovering" paths it names).
fn forbidden(component: &str) -> Option<PathProblem> {
    if is_git_component(component) {
        Some(PathProblem::GitDir {
            component: component.to_string(),
        })
    } else if component.eq_ignore_ascii_case(".lancet") {
        Some(PathProblem::StateDir)
    } else {
        None
    }
}

/// Whether a path component would be read as `.git` by git or by some file system: any case,
/// trailing dots or spaces (Windows), an NTFS 8.3 short name `GIT~N`, an alternate data stream
/// suffix, or HFS+-ignorable code points inserted.
fn is_git_component(component: &str) -> bool {
    let visible: String = component
        .chars()
        .filter(|c| !is_hfs_ignorable(*c))
        .collect();
    let before_stream = visible.split(':').next().unwrap_or("");
    let trimmed = before_stream
        .trim_end_matches(['.', ' '])
        .to_ascii_lowercase();
    if trimmed == ".git" {
        return true;
    }
    trimmed
        .strip_prefix("git~")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn is_hfs_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x206A..=0x206F | 0xFEFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn normalises_inside_paths() {
        let (_d, r) = root();
        assert_eq!(r.rel("a/./b//c.txt").unwrap().as_str(), "a/b/c.txt");
        assert_eq!(r.rel("sub/../top.txt").unwrap().as_str(), "top.txt");
        assert_eq!(r.rel("src\\main.rs").unwrap().as_str(), "src/main.rs");
        let abs = format!("{}/x/y.txt", r.path().display());
        assert_eq!(r.rel(&abs).unwrap().as_str(), "x/y.txt");
    }

    #[test]
    fn a_walked_path_naming_the_root_is_the_root() {
        let (_d, r) = root();
        let abs = r.path().display().to_string();
        for the_root in [".", "./", "a/..", ".//.", abs.as_str()] {
            assert_eq!(r.walk_rel(the_root), Ok(None), "{the_root}");
        }
        assert_eq!(r.walk_rel("./src/").unwrap().unwrap().as_str(), "src");
        assert_eq!(r.walk_rel("").unwrap_err().problem, PathProblem::Empty);
        assert!(matches!(
            r.walk_rel("..").unwrap_err().problem,
            PathProblem::Outside { .. }
        ));
    }

    #[test]
    fn refuses_escapes_and_git_spellings() {
        let (_d, r) = root();
        for bad in ["../x", "a/../../x", "/etc/passwd", "C:\\x"] {
            assert!(
                matches!(r.rel(bad).unwrap_err().problem, PathProblem::Outside { .. }),
                "{bad}"
            );
        }
        for bad in [
            ".git/config",
            ".GIT/x",
            "a/.git./b",
            "GIT~1/config",
            ".git /x",
            ".g\u{200c}it/x",
            ".git::$INDEX_ALLOCATION/x",
        ] {
            assert!(
                matches!(r.rel(bad).unwrap_err().problem, PathProblem::GitDir { .. }),
                "{bad}"
            );
        }
        assert_eq!(r.rel("a\0b").unwrap_err().problem, PathProblem::ControlChar);
        assert_eq!(r.rel("./").unwrap_err().problem, PathProblem::Empty);
        assert!(r.rel(".gitignore").is_ok());
        assert_eq!(
            r.rel(".lancet/journal.json").unwrap_err().problem,
            PathProblem::StateDir
        );
        for bad in [
            "sub/.lancet",
            "sub/.lancet/journal.json",
            ".LANCET/x",
            "a/.Lancet",
        ] {
            assert_eq!(
                r.rel(bad).unwrap_err().problem,
                PathProblem::StateDir,
                "{bad}"
            );
        }
        assert!(r.rel("sub/.lancetrc").is_ok());
        assert!(r.rel("git~x/y").is_ok());
    }

    #[test]
    fn symlinks_resolve_inside_and_are_refused_outside() {
        let (d, r) = root();
        std::fs::write(d.path().join("target.txt"), "t").unwrap();
        std::os::unix::fs::symlink("target.txt", d.path().join("link.txt")).unwrap();
        std::os::unix::fs::symlink("/tmp", d.path().join("out")).unwrap();
        let link = r.rel("link.txt").unwrap();
        let resolved = r.resolve(&link, true).unwrap();
        assert_eq!(resolved.real.as_str(), "target.txt");
        assert!(resolved.via_link);
        assert_eq!(r.resolve(&link, false).unwrap().real.as_str(), "link.txt");
        let out = r.rel("out/x.txt").unwrap();
        assert!(matches!(
            r.resolve(&out, true).unwrap_err().problem,
            PathProblem::SymlinkOutside { .. }
        ));
        // A relative link that climbs out, a link into .git, an absolute link (even one naming a
        // place inside the root): each refused at resolution.
        std::fs::create_dir_all(d.path().join("sub/.git")).unwrap();
        std::os::unix::fs::symlink("../..", d.path().join("sub/up")).unwrap();
        std::os::unix::fs::symlink(".git", d.path().join("sub/g")).unwrap();
        let abs = d.path().join("target.txt");
        std::os::unix::fs::symlink(&abs, d.path().join("abs.txt")).unwrap();
        let problem = |p: &str| r.resolve(&r.rel(p).unwrap(), true).unwrap_err().problem;
        assert!(matches!(
            problem("sub/up/x"),
            PathProblem::SymlinkOutside { .. }
        ));
        assert!(matches!(
            problem("sub/g/config"),
            PathProblem::GitDir { .. }
        ));
        assert!(matches!(
            problem("abs.txt"),
            PathProblem::AbsoluteSymlink { .. }
        ));
        // Through an inner directory link, the result names the real place.
        std::fs::create_dir(d.path().join("real")).unwrap();
        std::os::unix::fs::symlink("real", d.path().join("alias")).unwrap();
        assert_eq!(
            r.resolve(&r.rel("alias/new.txt").unwrap(), true)
                .unwrap()
                .real
                .as_str(),
            "real/new.txt"
        );
    }

    #[test]
    fn a_path_with_no_link_on_its_way_resolves_in_one_look() {
        let (d, r) = root();
        std::fs::create_dir_all(d.path().join("a/b")).unwrap();
        std::fs::write(d.path().join("a/b/c.txt"), "c").unwrap();
        std::os::unix::fs::symlink("a", d.path().join("alias")).unwrap();
        std::os::unix::fs::symlink("c.txt", d.path().join("a/b/last")).unwrap();
        let plain = r.rel("a/b/c.txt").unwrap();
        assert_eq!(r.no_link_on_the_way(&plain), cfg!(target_os = "linux"));
        assert_eq!(r.resolve(&plain, true).unwrap().real.as_str(), "a/b/c.txt");
        // A link anywhere, a missing part: the walk decides, as before.
        for walked in [
            "alias/b/c.txt",
            "a/b/last",
            "a/b/missing.txt",
            "a/b/c.txt/x",
        ] {
            assert!(!r.no_link_on_the_way(&r.rel(walked).unwrap()), "{walked}");
        }
        assert_eq!(
            r.resolve(&r.rel("alias/b/c.txt").unwrap(), true)
                .unwrap()
                .real
                .as_str(),
            "a/b/c.txt"
        );
        assert!(matches!(
            r.resolve(&r.rel("a/b/c.txt/x").unwrap(), true)
                .unwrap_err()
                .problem,
            PathProblem::ParentNotDir { .. }
        ));
    }

    #[test]
    fn a_repository_directory_is_not_a_root() {
        let dir = tempfile::tempdir().unwrap();
        // git's own layout of a repository directory: HEAD beside objects/ and refs/.
        let git_dir = |d: &Path| {
            for sub in ["objects", "refs", "hooks"] {
                std::fs::create_dir_all(d.join(sub)).unwrap();
            }
            std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        };
        let bare = dir.path().join("bare.git");
        git_dir(&bare);
        for inside in [bare.clone(), bare.join("hooks")] {
            let err = Root::new(&inside).unwrap_err();
            assert!(err.to_string().contains("not a work tree"), "{err}");
        }
        let work = dir.path().join("work");
        git_dir(&work.join(".git"));
        assert!(Root::new(&work).is_ok());
        assert!(Root::new(&work.join(".git")).is_err());
        // A work tree whose own files look like a repository is still a work tree.
        git_dir(&work);
        assert!(Root::new(&work).is_ok());
    }

    #[test]
    fn state_paths_are_relative_and_plain() {
        for good in ["a.txt", "src/lib.rs", "a b/c"] {
            assert!(RelPath::from_state(good).is_some(), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            ".git/config",
            "x/.lancet/j",
            "a\\b",
        ] {
            assert!(RelPath::from_state(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_recorded_root_opens_only_inside_its_home() {
        let (d, r) = root();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        assert_eq!(
            Root::within(&r, "sub").unwrap().path(),
            r.path().join("sub")
        );
        assert_eq!(Root::within(&r, "").unwrap().path(), r.path());
        assert!(Root::within(&r, "..").is_err());
        assert!(Root::within(&r, "/tmp").is_err());
        std::os::unix::fs::symlink("/tmp", d.path().join("out")).unwrap();
        assert!(Root::within(&r, "out").is_err());
    }
}
