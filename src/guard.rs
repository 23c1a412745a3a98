//! What no batch may write, whatever its edit says: files that make other programs run code.
//!
//! - **Git repository lookalikes.** git takes any directory holding `HEAD` beside `config`,
//!   `commondir`, `objects/` or `refs/` for a repository, and reads its `config` (whose
//!   `core.fsmonitor`, `core.hooksPath` and hooks run commands) when run there or below. A batch
//!   that would make a directory look like that, or that writes `config`, `commondir` or
//!   `hooks/` into one that already does, is refused. Undo and recovery put back what was, so
//!   they never pass here.
//! - **Lancet's settings, when the caller protects them** (the MCP server does): `lancet.toml`
//!   anywhere, and the `[tool.lancet]` table of a `pyproject.toml` (its other tables stay
//!   editable). Configuration is the person's, not the model's.
//!
//! The check runs on the staged files, before the gate: nothing is written when it refuses.

use lancet_core::Root;
use lancet_core::{BatchFailure, Report, Surface};
use lancet_core::{Before, StagedFile};
use std::collections::BTreeSet;

/// The entries that, beside `HEAD`, make git take a directory for a repository.
const REPOSITORY_MARKS: [&str; 4] = ["config", "commondir", "objects", "refs"];

/// The refusal of a batch that writes what it may not, if it does.
pub(crate) fn refusal(
    root: &Root,
    files: &[StagedFile],
    protect_settings: bool,
    surface: Surface,
) -> Option<Report> {
    if protect_settings && let Some(report) = settings_refusal(files, surface) {
        return Some(report);
    }
    let (dir, into) = repository_lookalike(root, files)?;
    Some(Report::batch_failed(
        &BatchFailure::RepositoryLookalike { dir, into },
        surface,
    ))
}

/// The refusal of a batch (an undo too) that changes lancet's settings, where they are the
/// person's (over MCP).
pub(crate) fn settings_refusal(files: &[StagedFile], surface: Surface) -> Option<Report> {
    let path = changed_settings(files)?;
    Some(Report::batch_failed(
        &BatchFailure::SettingsProtected { path },
        surface,
    ))
}

/// The first path whose change would change lancet's settings.
fn changed_settings(files: &[StagedFile]) -> Option<String> {
    files.iter().find_map(|f| {
        let name = f.path.as_str().rsplit('/').next().unwrap_or_default();
        let before = match &f.before {
            Before::File { bytes, .. } => Some(bytes.as_slice()),
            _ => None,
        };
        let changed = if name.eq_ignore_ascii_case(crate::config::CONFIG_FILE) {
            true
        } else if name.eq_ignore_ascii_case("pyproject.toml") {
            lancet_table(before) != lancet_table(f.after.as_deref())
        } else {
            false
        };
        changed.then(|| f.path.to_string())
    })
}

/// The `[tool.lancet]` table of a `pyproject.toml`'s bytes, if it has one.
fn lancet_table(bytes: Option<&[u8]>) -> Option<toml::Value> {
    // Decoded as the settings are read (a stray Latin-1 byte must not hide the table here).
    let text = String::from_utf8_lossy(bytes?);
    let value: toml::Value = toml::from_str(&text).ok()?;
    value.get("tool")?.get("lancet").cloned()
}

/// A directory the batch would turn into a repository lookalike, or write a repository's
/// command-running files into, with what it would do.
fn repository_lookalike(root: &Root, files: &[StagedFile]) -> Option<(String, bool)> {
    // Only a path named HEAD/config/commondir, or one under objects/, refs/ or hooks/, can
    // change what a directory looks like: those directories are the candidates.
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for f in files.iter().filter(|f| f.puts_something()) {
        let parts: Vec<&str> = f.path.components().collect();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let names_mark = if last {
                is_one_of(part, &["HEAD", "config", "commondir"])
            } else {
                is_one_of(part, &["objects", "refs", "hooks"])
            };
            if names_mark {
                candidates.insert(parts[..i].join("/"));
            }
        }
    }
    for dir in candidates {
        let written = |name: &str| {
            files.iter().filter(|f| f.puts_something()).any(|f| {
                let inside = child_of(&dir, f.path.as_str());
                inside.is_some_and(|rest| {
                    rest.split('/')
                        .next()
                        .is_some_and(|first| first.eq_ignore_ascii_case(name))
                })
            })
        };
        let removed = |name: &str| {
            files.iter().any(|f| {
                !f.puts_something()
                    && child_of(&dir, f.path.as_str()).is_some_and(|r| r.eq_ignore_ascii_case(name))
            })
        };
        let on_disk = |name: &str| {
            let path = if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            };
            root.dir().symlink_metadata(&path).is_ok()
        };
        let before = on_disk("HEAD") && REPOSITORY_MARKS.iter().any(|m| on_disk(m));
        let present_after = |name: &str| written(name) || (on_disk(name) && !removed(name));
        let after = present_after("HEAD") && REPOSITORY_MARKS.iter().any(|m| present_after(m));
        if after && !before {
            return Some((dir, false));
        }
        if before && ["config", "commondir", "hooks"].iter().any(|n| written(n)) {
            return Some((dir, true));
        }
    }
    None
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
    use lancet_core::{ErrorKind, sha256_hex};

    fn new_file(root: &Root, path: &str, bytes: &[u8]) -> StagedFile {
        StagedFile {
            path: root.rel(path).unwrap(),
            before: Before::Missing,
            after: Some(bytes.to_vec()),
            after_link: None,
            mode: None,
            in_place: false,
        }
    }

    fn changed_file(root: &Root, path: &str, before: &[u8], after: &[u8]) -> StagedFile {
        StagedFile {
            before: Before::File {
                bytes: before.to_vec(),
                sha256: sha256_hex(before),
                mode: 0o644,
            },
            ..new_file(root, path, after)
        }
    }

    fn kind(report: Option<Report>) -> Option<ErrorKind> {
        report.and_then(|r| r.error).map(|e| e.kind)
    }

    #[test]
    fn lookalikes_are_refused_and_ordinary_names_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let check = |files: &[StagedFile]| kind(refusal(&root, files, false, Surface::Cli));
        // HEAD beside config, in one batch.
        let head = new_file(&root, "docs/HEAD", b"ref: refs/heads/main\n");
        let config = new_file(
            &root,
            "docs/config",
            b"[core]\n\tfsmonitor = touch /tmp/x\n",
        );
        assert_eq!(
            check(&[head.clone(), config.clone()]),
            Some(ErrorKind::Protected)
        );
        // One of the pair already on disk.
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/config"), "x").unwrap();
        assert_eq!(
            check(std::slice::from_ref(&head)),
            Some(ErrorKind::Protected)
        );
        // HEAD beside refs/ or objects/, under any case.
        let refs = new_file(&root, "a/b/refs/heads/main", b"0\n");
        let upper = new_file(&root, "a/b/head", b"x\n");
        assert_eq!(check(&[refs.clone(), upper]), Some(ErrorKind::Protected));
        // Ordinary files named config or HEAD alone, or refs/ without HEAD, are fine.
        assert_eq!(check(&[new_file(&root, "app/config", b"x")]), None);
        assert_eq!(check(&[new_file(&root, "notes/HEAD", b"x")]), None);
        assert_eq!(check(&[refs]), None);
        // Writing hooks or config into an existing lookalike is refused; other files are not.
        for d in ["fixture/objects", "fixture/refs"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join("fixture/HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(
            check(&[new_file(
                &root,
                "fixture/hooks/post-checkout",
                b"#!/bin/sh\n"
            )]),
            Some(ErrorKind::Protected)
        );
        assert_eq!(
            check(&[new_file(&root, "fixture/config", b"[core]\n")]),
            Some(ErrorKind::Protected)
        );
        assert_eq!(
            check(&[new_file(&root, "fixture/description", b"x\n")]),
            None
        );
    }

    #[test]
    fn settings_are_the_users_when_protected() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let check =
            |files: &[StagedFile], protect| kind(refusal(&root, files, protect, Surface::Mcp));
        let toml = new_file(
            &root,
            "lancet.toml",
            b"[mcp]\ntest_command = \"sh -c evil\"\n",
        );
        assert_eq!(
            check(std::slice::from_ref(&toml), true),
            Some(ErrorKind::Protected)
        );
        assert_eq!(check(&[toml], false), None);
        let nested = new_file(&root, "sub/lancet.toml", b"");
        assert_eq!(check(&[nested], true), Some(ErrorKind::Protected));
        let py = "[project]\nname = \"a\"\n[tool.lancet.gate]\npython = \"3.11\"\n";
        let other_table = changed_file(
            &root,
            "pyproject.toml",
            py.as_bytes(),
            format!("{py}[tool.black]\nline-length = 100\n").as_bytes(),
        );
        assert_eq!(check(&[other_table], true), None);
        let lancet_table = changed_file(
            &root,
            "pyproject.toml",
            py.as_bytes(),
            py.replace("3.11", "3.12").as_bytes(),
        );
        assert_eq!(check(&[lancet_table], true), Some(ErrorKind::Protected));
        let added = new_file(
            &root,
            "pyproject.toml",
            b"[tool.lancet.mcp]\ntest_command = \"x\"\n",
        );
        assert_eq!(check(&[added], true), Some(ErrorKind::Protected));
    }
}
