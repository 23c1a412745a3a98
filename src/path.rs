//! Paths an edit may touch: validated relative to the root before any I/O, resolved safely after.
//!
//! Models send `../x`, absolute paths, `.git/hooks/...` and paths through symlinks. A [`RelPath`]
//! can only be built from a path that stays inside the root lexically and names no `.git`
//! component in any spelling; [`Root::resolve`] then follows symlinks and refuses any that lead
//! outside the root (or into `.git`).

use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

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
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The directory edits are confined to.
#[derive(Debug, Clone)]
pub struct Root {
    given: PathBuf,
    canonical: PathBuf,
}

/// A relative path resolved to the file system location to read and write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Where the bytes live: the symlink's target when the path is a link and links are followed.
    pub real: PathBuf,
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
        let given = if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            std::env::current_dir()?.join(dir)
        };
        Ok(Root { given, canonical })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.canonical
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
                    if is_git_component(c) {
                        return Err(err(PathProblem::GitDir {
                            component: c.to_string(),
                        }));
                    }
                    // A state directory anywhere (any spelling, for case-folding file systems):
                    // a batch that plants `sub/.lancet/journal.json` could steer a later
                    // `lancet -C sub` into "recovering" paths it names.
                    if c.eq_ignore_ascii_case(".lancet") {
                        return Err(err(PathProblem::StateDir));
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

    /// Resolves a relative path on disk. Symlinks in parent components must stay inside the root;
    /// a final symlink is followed (and must stay inside) when `follow_final` is set, and is
    /// otherwise the thing itself (a Delete removes the link, not its target).
    pub fn resolve(&self, rel: &RelPath, follow_final: bool) -> Result<Resolved, PathError> {
        let err = |problem| PathError {
            path: rel.0.clone(),
            problem,
        };
        let parts: Vec<&str> = rel.components().collect();
        let mut current = self.canonical.clone();
        let mut walked = String::new();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
            let candidate = current.join(part);
            let meta = match std::fs::symlink_metadata(&candidate) {
                Ok(m) => m,
                Err(_) => {
                    // Nothing exists from here on, so no symlink can redirect the rest.
                    let mut real = candidate;
                    for rest in &parts[i + 1..] {
                        real.push(rest);
                    }
                    return Ok(Resolved {
                        real,
                        via_link: false,
                    });
                }
            };
            if meta.file_type().is_symlink() {
                if last && !follow_final {
                    return Ok(Resolved {
                        real: candidate,
                        via_link: false,
                    });
                }
                let target = candidate.canonicalize().map_err(|_| {
                    err(PathProblem::DanglingSymlink {
                        link: walked.clone(),
                    })
                })?;
                self.check_inside(&target).map_err(|p| match p {
                    PathProblem::Outside { .. } => err(PathProblem::SymlinkOutside {
                        link: walked.clone(),
                    }),
                    other => err(other),
                })?;
                if last {
                    return Ok(Resolved {
                        real: target,
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
            real: current,
            via_link: false,
        })
    }

    /// Checks that a canonical path lies inside the root and not inside a `.git` directory.
    fn check_inside(&self, canonical: &Path) -> Result<(), PathProblem> {
        let rest = canonical
            .strip_prefix(&self.canonical)
            .map_err(|_| PathProblem::Outside {
                root: self.canonical.display().to_string(),
            })?;
        for c in rest.components() {
            let c = c.as_os_str().to_string_lossy();
            if is_git_component(&c) {
                return Err(PathProblem::GitDir {
                    component: c.into_owned(),
                });
            }
        }
        Ok(())
    }

    /// The relative form of a path under the root, for messages.
    pub fn display_rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.canonical)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    }
}

fn looks_like_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
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
        assert_eq!(resolved.real, r.path().join("target.txt"));
        assert!(resolved.via_link);
        assert_eq!(
            r.resolve(&link, false).unwrap().real,
            r.path().join("link.txt")
        );
        let out = r.rel("out/x.txt").unwrap();
        assert!(matches!(
            r.resolve(&out, true).unwrap_err().problem,
            PathProblem::SymlinkOutside { .. }
        ));
    }
}
