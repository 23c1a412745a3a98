//! The person's files: the user-level configuration and the records of the repository settings
//! they trusted (`lancet trust`), both outside every root.
//!
//! A trust record names a root (its canonical path), where its settings are (`lancet.toml` or
//! `pyproject.toml [tool.lancet]`) and the SHA-256 of the parsed settings in a canonical form;
//! any change to a value makes them untrusted again, as direnv's `allow` and mise's `trust` do.
//! Records live in `$XDG_DATA_HOME/lancet/trusted/` (default `~/.local/share/lancet/trusted/`),
//! one file per root. A person file that lies inside the root being edited is not the person's
//! (a model could write it): it is ignored.

use lancet_core::Root;
use lancet_core::sha256_hex;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Whether the repository's settings may set guarded keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The person trusted exactly these settings.
    Trusted,
    /// Nobody trusted settings of this root (or the record is unusable).
    Untrusted,
    /// The person trusted this root's settings, which changed since.
    Changed,
    /// The person trusted this root's settings, which lancet no longer finds.
    Gone,
}

/// One trusted root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// The root's canonical path.
    pub root: String,
    /// Where its settings are (`lancet.toml`, `pyproject.toml [tool.lancet]`).
    pub source: String,
    /// The SHA-256 of the parsed settings (`digest`).
    pub sha256: String,
}

/// Where the person's files are, for one root (or for none).
#[derive(Debug, Clone, Default)]
pub struct PersonFiles {
    /// The user-level configuration file, when it lies outside the root.
    pub config_file: Option<PathBuf>,
    /// The directory of trust records, when it lies outside the root.
    pub trust_dir: Option<PathBuf>,
}

/// An XDG base directory: the variable when it holds an absolute path (the specification says
/// to ignore a relative one), else `~/<fallback>`.
fn base_dir(variable: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(fallback))
        })
}

/// Whether `path` is `root` or lies inside it, also through links in the part that exists.
fn inside(path: &Path, root: &Path) -> bool {
    let resolved = path
        .ancestors()
        .find_map(|a| {
            a.canonicalize()
                .ok()
                .map(|c| c.join(path.strip_prefix(a).unwrap_or(Path::new(""))))
        })
        .unwrap_or_else(|| path.to_path_buf());
    resolved.starts_with(root) || path.starts_with(root)
}

impl PersonFiles {
    /// The person's files as the environment names them, leaving out any that lies inside
    /// `root`.
    pub fn locate(root: Option<&Root>) -> PersonFiles {
        let outside = |p: PathBuf| match root {
            Some(r) if inside(&p, r.path()) => None,
            _ => Some(p),
        };
        PersonFiles {
            config_file: base_dir("XDG_CONFIG_HOME", ".config")
                .map(|d| d.join("lancet").join("config.toml"))
                .and_then(outside),
            trust_dir: base_dir("XDG_DATA_HOME", ".local/share")
                .map(|d| d.join("lancet").join("trusted"))
                .and_then(outside),
        }
    }

    /// The user-level configuration's text and its name for messages, when there is one.
    pub fn user_config(&self) -> Option<(String, String)> {
        let path = self.config_file.as_ref()?;
        let bytes = std::fs::read(path).ok()?;
        Some((
            String::from_utf8_lossy(&bytes).into_owned(),
            path.display().to_string(),
        ))
    }

    /// Where the trust record of `root` is (whether or not one was made).
    pub(crate) fn record_path(&self, root: &Root) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        let name = sha256_hex(root.path().as_os_str().as_bytes());
        Some(
            self.trust_dir
                .as_ref()?
                .join(format!("{}.json", &name[..32])),
        )
    }

    /// The trust record of a root, if the person made one.
    pub fn record_of(&self, root: &Root) -> Option<TrustRecord> {
        let bytes = std::fs::read(self.record_path(root)?).ok()?;
        let record: TrustRecord = serde_json::from_slice(&bytes).ok()?;
        (Path::new(&record.root) == root.path()).then_some(record)
    }

    /// Whether the settings at `source` with this digest are the ones the person trusted.
    pub fn trust_of(&self, root: &Root, source: &str, digest: &str) -> Trust {
        match self.record_of(root) {
            Some(r) if r.source == source && r.sha256 == digest => Trust::Trusted,
            Some(_) => Trust::Changed,
            None => Trust::Untrusted,
        }
    }

    /// Records the person's trust in a root's settings; returns where.
    pub fn record(&self, root: &Root, source: &str, digest: &str) -> std::io::Result<PathBuf> {
        let path = self.record_path(root).ok_or_else(|| {
            std::io::Error::other(
                "there is no place for trust records outside the root (set XDG_DATA_HOME or HOME to a directory outside it)",
            )
        })?;
        let record = TrustRecord {
            root: root.path().display().to_string(),
            source: source.to_string(),
            sha256: digest.to_string(),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{}.tmp", std::process::id()));
        std::fs::write(
            &tmp,
            serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }

    /// Forgets a root's trust record; returns whether there was one.
    pub fn revoke(&self, root: &Root) -> std::io::Result<bool> {
        let Some(path) = self.record_path(root) else {
            return Ok(false);
        };
        match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// The SHA-256 of parsed settings in a canonical form (keys sorted, values in one spelling):
/// what a trust record pins. Comments, layout and key order do not change it.
pub fn digest(table: &toml::Value) -> String {
    let mut out = String::new();
    canonical(table, &mut out);
    sha256_hex(out.as_bytes())
}

fn canonical(value: &toml::Value, out: &mut String) {
    use std::fmt::Write;
    match value {
        toml::Value::Table(t) => {
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort();
            out.push('{');
            for k in keys {
                let _ = write!(out, "{k:?}:");
                canonical(&t[k], out);
                out.push(',');
            }
            out.push('}');
        }
        toml::Value::Array(a) => {
            out.push('[');
            for v in a {
                canonical(v, out);
                out.push(',');
            }
            out.push(']');
        }
        toml::Value::String(s) => {
            let _ = write!(out, "s{s:?}");
        }
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_ignores_layout_and_sees_values() {
        let a: toml::Value =
            toml::from_str("[mcp]\ntest_command = \"pytest\"\n[gate]\nenabled = false\n").unwrap();
        let b: toml::Value = toml::from_str(
            "# comment\n[gate]\nenabled   = false\n\n[mcp]\ntest_command = 'pytest'\n",
        )
        .unwrap();
        let c: toml::Value =
            toml::from_str("[mcp]\ntest_command = \"pytest -x\"\n[gate]\nenabled = false\n")
                .unwrap();
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&c));
        let s: toml::Value = toml::from_str("[gate]\nmax_file_bytes = \"5\"\n").unwrap();
        let n: toml::Value = toml::from_str("[gate]\nmax_file_bytes = 5\n").unwrap();
        assert_ne!(digest(&s), digest(&n));
    }

    #[test]
    fn a_person_file_inside_the_root_is_not_the_persons() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let inner = root.path().join(".config/lancet/config.toml");
        assert!(inside(&inner, root.path()));
        let outer = tempfile::tempdir().unwrap();
        assert!(!inside(&outer.path().join("x/y"), root.path()));
        // Through a link that leads into the root.
        std::os::unix::fs::symlink(root.path(), outer.path().join("to-root")).unwrap();
        assert!(inside(&outer.path().join("to-root/x"), root.path()));
    }

    #[test]
    fn records_round_trip_and_changes_untrust() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let data = tempfile::tempdir().unwrap();
        let person = PersonFiles {
            config_file: None,
            trust_dir: Some(data.path().join("trusted")),
        };
        assert_eq!(
            person.trust_of(&root, "lancet.toml", "d1"),
            Trust::Untrusted
        );
        person.record(&root, "lancet.toml", "d1").unwrap();
        assert_eq!(person.trust_of(&root, "lancet.toml", "d1"), Trust::Trusted);
        assert_eq!(person.trust_of(&root, "lancet.toml", "d2"), Trust::Changed);
        assert_eq!(
            person.trust_of(&root, super::super::PYPROJECT_SOURCE, "d1"),
            Trust::Changed
        );
        assert!(person.revoke(&root).unwrap());
        assert_eq!(
            person.trust_of(&root, "lancet.toml", "d1"),
            Trust::Untrusted
        );
    }
}
