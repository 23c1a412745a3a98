//! Lancet's settings as the person's: the judge the door asks ([`lancet_store::door`]) when the
//! caller protects them (the MCP server does: configuration is the person's, not the model's).
//!
//! A change is refused when it creates, changes, moves or deletes a `lancet.toml` anywhere, or
//! when the settings lancet would read from a `pyproject.toml` afterwards differ from those it
//! reads now — judged by running the settings reader itself on the staged bytes, so a change
//! that makes the reader drop `[tool.lancet]` (a value of another table it cannot read, a
//! broken table) counts as the change it is. Its other tables stay editable.

use crate::config::{CONFIG_FILE, RepositorySettings};
use lancet_core::Root;
use lancet_core::{Before, StagedFile};
use lancet_store::{Checks, SettingsJudge};
use std::sync::Arc;

/// The settings judge: which change alters lancet's settings as lancet reads them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SettingsGuard;

impl SettingsJudge for SettingsGuard {
    fn changed_settings(&self, _root: &Root, files: &[StagedFile]) -> Option<String> {
        files.iter().find_map(|f| {
            let name = f.path.as_str().rsplit('/').next().unwrap_or_default();
            let before = match &f.before {
                Before::File { bytes, .. } => Some(bytes.as_slice()),
                _ => None,
            };
            let changed = if name.eq_ignore_ascii_case(CONFIG_FILE) {
                true
            } else if name.eq_ignore_ascii_case("pyproject.toml") {
                as_read(before) != as_read(f.after.as_deref())
            } else {
                false
            };
            changed.then(|| f.path.to_string())
        })
    }
}

/// What lancet reads from a `pyproject.toml`'s bytes: where its settings are and their digest,
/// or why they cannot be read (absent: none).
fn as_read(pyproject: Option<&[u8]>) -> Option<Result<(&'static str, String), String>> {
    match RepositorySettings::from_bytes(None, pyproject) {
        Ok((settings, _)) => settings.map(|s| Ok((s.source, s.digest))),
        Err(e) => Some(Err(e.to_string())),
    }
}

/// The door's checks for a caller: lancet's settings judged when `protect_settings` (MCP),
/// hard links as the person chose.
pub(crate) fn door_checks(protect_settings: bool, hard_links: lancet_core::HardLinks) -> Checks {
    Checks {
        settings: protect_settings.then(|| Arc::new(SettingsGuard) as Arc<dyn SettingsJudge>),
        hard_links,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lancet_core::sha256_hex;

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

    #[test]
    fn settings_are_compared_as_lancet_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let check = |file: StagedFile| SettingsGuard.changed_settings(&root, &[file]);
        let toml = new_file(
            &root,
            "lancet.toml",
            b"[mcp]\ntest_command = \"sh -c evil\"\n",
        );
        assert_eq!(check(toml), Some("lancet.toml".into()));
        assert_eq!(
            check(new_file(&root, "sub/Lancet.toml", b"")),
            Some("sub/Lancet.toml".into())
        );
        let py = "[project]\nname = \"a\"\n[tool.lancet.gate]\npython = \"3.11\"\n";
        let other_table = changed_file(
            &root,
            "pyproject.toml",
            py.as_bytes(),
            format!("{py}[tool.black]\nline-length = 100\n").as_bytes(),
        );
        assert_eq!(check(other_table), None);
        let reformatted = changed_file(
            &root,
            "pyproject.toml",
            py.as_bytes(),
            py.replace("python = \"3.11\"", "python   =   \"3.11\"  # same")
                .as_bytes(),
        );
        assert_eq!(check(reformatted), None);
        let lancet_table = changed_file(
            &root,
            "pyproject.toml",
            py.as_bytes(),
            py.replace("3.11", "3.12").as_bytes(),
        );
        assert_eq!(check(lancet_table), Some("pyproject.toml".into()));
        let added = new_file(
            &root,
            "pyproject.toml",
            b"[tool.lancet.mcp]\ntest_command = \"x\"\n",
        );
        assert_eq!(check(added), Some("pyproject.toml".into()));
    }

    /// `requires-python = 39` once made the typed reader drop the whole file, and with it a
    /// trusted `[tool.lancet]`: the table is read on its own now, so such a change is no change
    /// of lancet's settings — and a change that does drop the table is one.
    #[test]
    fn a_value_of_another_table_never_drops_the_settings() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let py =
            "[project]\nrequires-python = \">=3.9\"\n[tool.lancet.gate]\nexternal = [\"python\"]\n";
        let odd = py.replace("\">=3.9\"", "39");
        let (read, _) = RepositorySettings::from_bytes(None, Some(odd.as_bytes())).unwrap();
        assert!(
            read.is_some(),
            "[tool.lancet] read despite requires-python = 39"
        );
        assert_eq!(
            SettingsGuard.changed_settings(
                &root,
                &[changed_file(
                    &root,
                    "pyproject.toml",
                    py.as_bytes(),
                    odd.as_bytes()
                )]
            ),
            None
        );
        let broken_elsewhere = format!("{py}[tool.black\nline-length = 1\n");
        let (read, _) =
            RepositorySettings::from_bytes(None, Some(broken_elsewhere.as_bytes())).unwrap();
        assert!(
            read.is_some(),
            "a broken table elsewhere leaves [tool.lancet] readable"
        );
        let dropped = "[project]\nrequires-python = \">=3.9\"\n";
        assert_eq!(
            SettingsGuard.changed_settings(
                &root,
                &[changed_file(
                    &root,
                    "pyproject.toml",
                    py.as_bytes(),
                    dropped.as_bytes()
                )]
            ),
            Some("pyproject.toml".into())
        );
    }
}
