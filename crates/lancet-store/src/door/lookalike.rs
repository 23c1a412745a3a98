//! Git repository lookalikes, judged against the tree as it will be after a change.
//!
//! git takes any directory holding `HEAD` beside `config`, `commondir`, `objects/` or `refs/`
//! for a repository, and reads its `config` (whose `core.fsmonitor`, `core.hooksPath` and hooks
//! run commands) when anyone runs it there or below. A change that would make a directory look
//! like that, or that writes `config`, `commondir` or `hooks/` into one that already does, may
//! not pass the door — whether it is a model's edit, an undo, a bisection's trial or a rollback.

use lancet_core::Root;
use std::collections::BTreeSet;

/// The entries that, beside `HEAD`, make git take a directory for a repository.
pub const REPOSITORY_MARKS: [&str; 4] = ["config", "commondir", "objects", "refs"];

/// The entries of an existing lookalike that decide what git runs there.
const COMMAND_FILES: [&str; 3] = ["config", "commondir", "hooks"];

/// One path a change touches: whether something (a file, a link) stands there afterwards.
#[derive(Debug, Clone, Copy)]
pub struct Touch<'a> {
    /// The path, relative to the root.
    pub path: &'a str,
    /// Whether the path holds something after the change (else it is removed).
    pub puts: bool,
}

/// What a change would do to a directory that git would then run commands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookalike {
    /// The directory, relative to the root (`""`: the root).
    pub dir: String,
    /// Whether the directory looks like a repository already (the change writes into it).
    pub into: bool,
}

/// Whether a directory's entry names make git take it for a repository.
pub fn names_a_repository(has: impl Fn(&str) -> bool) -> bool {
    has("HEAD") && REPOSITORY_MARKS.iter().any(|m| has(m))
}

/// The first directory the change would turn into a repository lookalike, or write a
/// repository's command-running files into. Paths compare without case (a case-insensitive
/// file system reads `head` as `HEAD`).
pub fn judge(root: &Root, touches: &[Touch<'_>]) -> Option<Lookalike> {
    // Only a path named HEAD/config/commondir, or one under objects/, refs/ or hooks/, can
    // change what a directory looks like: those directories are the candidates.
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for t in touches.iter().filter(|t| t.puts) {
        let parts: Vec<&str> = t.path.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            let names_mark = if i + 1 == parts.len() {
                is_one_of(part, &["HEAD", "config", "commondir"])
            } else {
                is_one_of(part, &["objects", "refs", "hooks"])
            };
            if names_mark {
                candidates.insert(parts[..i].join("/"));
            }
        }
    }
    candidates
        .into_iter()
        .find_map(|dir| judge_dir(root, touches, dir))
}

/// [`judge`] for one candidate directory.
fn judge_dir(root: &Root, touches: &[Touch<'_>], dir: String) -> Option<Lookalike> {
    let written = |name: &str| {
        touches.iter().filter(|t| t.puts).any(|t| {
            child_of(&dir, t.path).is_some_and(|rest| {
                rest.split('/')
                    .next()
                    .is_some_and(|first| first.eq_ignore_ascii_case(name))
            })
        })
    };
    let removed = |name: &str| {
        touches.iter().any(|t| {
            !t.puts && child_of(&dir, t.path).is_some_and(|r| r.eq_ignore_ascii_case(name))
        })
    };
    let on_disk = |name: &str| {
        let path = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        present_any_case(root, &path)
    };
    let before = names_a_repository(on_disk);
    let after = names_a_repository(|name| written(name) || (on_disk(name) && !removed(name)));
    if after && !before {
        return Some(Lookalike { dir, into: false });
    }
    if before && COMMAND_FILES.iter().any(|n| written(n)) {
        return Some(Lookalike { dir, into: true });
    }
    None
}

/// Whether `path` exists under the root, its last component compared without case.
fn present_any_case(root: &Root, path: &str) -> bool {
    if root.dir().symlink_metadata(path).is_ok() {
        return true;
    }
    let (parent, name) = path.rsplit_once('/').unwrap_or((".", path));
    root.dir().read_dir(parent).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
    })
}

/// `path` relative to `dir` (`""` is the root), if it lies inside it.
fn child_of<'a>(dir: &str, path: &'a str) -> Option<&'a str> {
    if dir.is_empty() {
        return Some(path);
    }
    path.strip_prefix(dir)?.strip_prefix('/')
}

fn is_one_of(name: &str, names: &[&str]) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(path: &str) -> Touch<'_> {
        Touch { path, puts: true }
    }

    #[test]
    fn lookalikes_are_judged_against_the_tree_after_the_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let check = |touches: &[Touch<'_>]| judge(&root, touches).map(|l| (l.dir, l.into));
        // HEAD beside config, in one change.
        assert_eq!(
            check(&[put("docs/HEAD"), put("docs/config")]),
            Some(("docs".into(), false))
        );
        // One of the pair already on disk, under another case.
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/CONFIG"), "x").unwrap();
        assert_eq!(check(&[put("docs/HEAD")]), Some(("docs".into(), false)));
        // ... unless the same change removes it.
        assert_eq!(
            check(&[
                put("docs/HEAD"),
                Touch {
                    path: "docs/CONFIG",
                    puts: false
                }
            ]),
            None
        );
        // HEAD beside refs/ or objects/.
        assert_eq!(
            check(&[put("a/b/refs/heads/main"), put("a/b/head")]),
            Some(("a/b".into(), false))
        );
        // Ordinary files named config or HEAD alone, or refs/ without HEAD, are fine.
        assert_eq!(check(&[put("app/config")]), None);
        assert_eq!(check(&[put("notes/HEAD")]), None);
        assert_eq!(check(&[put("a/b/refs/heads/main")]), None);
        // Writing hooks or config into an existing lookalike is refused; other files are not.
        for d in ["fixture/objects", "fixture/refs"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join("fixture/HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(
            check(&[put("fixture/hooks/post-checkout")]),
            Some(("fixture".into(), true))
        );
        assert_eq!(
            check(&[put("fixture/config")]),
            Some(("fixture".into(), true))
        );
        assert_eq!(check(&[put("fixture/description")]), None);
    }
}
