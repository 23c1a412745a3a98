//! The project's configuration: `lancet.toml` at the root, or `[tool.lancet]` in the root's
//! `pyproject.toml` (the first found). The CLI and the MCP server read the same file; every key
//! is optional, and an unknown key is an error that names it (a typo must not silently turn a
//! setting off).
//!
//! ```toml
//! [gate]
//! enabled = true                  # the syntax gate (--no-syntax-check turns it off per call)
//! python = "3.12"                 # the Python the precise parser checks against
//! max_file_bytes = 5_000_000      # larger files: precise parser only, else unchecked
//! external = ["python", "ruby"]   # opt-in: run these languages' own check commands too
//! skip = ["vendor/**", "*.min.js"] # not checked (reported unchecked)
//! [check]
//! exclude = ["templates/**"]      # `lancet check` leaves these out
//! [mcp]
//! test_command = "pytest -q"      # what `test: true` runs over MCP
//! [checkpoints]
//! keep = 500                      # most checkpoints kept (0: no limit)
//! keep_days = 30                  # oldest kept, in days (0: no limit)
//! ```

use crate::path::Root;
use crate::store::checkpoint::Retention;
use crate::syntax::precise::{NEWEST_PYTHON, Version};
use crate::syntax::{GateOptions, MAX_FILE_BYTES, languages};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// The configuration file lancet reads at the root.
pub const CONFIG_FILE: &str = "lancet.toml";

/// The project's settings, as read (defaults where the file says nothing).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The syntax gate.
    #[serde(default)]
    pub gate: GateSection,
    /// `lancet check`.
    #[serde(default)]
    pub check: CheckSection,
    /// The MCP server.
    #[serde(default)]
    pub mcp: McpSection,
    /// Checkpoint retention.
    #[serde(default)]
    pub checkpoints: CheckpointsSection,
    /// Where it was read from (`lancet.toml`, `pyproject.toml [tool.lancet]`), for messages.
    #[serde(skip)]
    pub source: Option<String>,
    /// The lower bound of `requires-python` in `pyproject.toml`, when there is one.
    #[serde(skip)]
    pub requires_python: Option<Version>,
}

/// `[gate]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSection {
    /// Whether the syntax gate runs (default true).
    pub enabled: Option<bool>,
    /// The Python version to check against, `"3.12"` (default: `requires-python`, else the
    /// newest the parser knows).
    pub python: Option<String>,
    /// Size above which only a precise parser checks a file (default 5 MB).
    pub max_file_bytes: Option<usize>,
    /// Languages whose external check command also runs (default none).
    #[serde(default)]
    pub external: Vec<String>,
    /// Globs of files the gate does not check.
    #[serde(default)]
    pub skip: Vec<String>,
}

/// `[check]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSection {
    /// Globs `lancet check` leaves out (added to `--exclude`).
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `[mcp]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// The command `test: true` runs (`lancet mcp --test-command` wins over it).
    pub test_command: Option<String>,
}

/// `[checkpoints]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsSection {
    /// Most checkpoints kept (0: no limit).
    pub keep: Option<i64>,
    /// Oldest checkpoint kept, in days (0: no limit).
    pub keep_days: Option<i64>,
}

/// `pyproject.toml`, for the parts lancet reads.
#[derive(Debug, Default, Deserialize)]
struct PyProject {
    #[serde(default)]
    project: Option<PyProjectProject>,
    #[serde(default)]
    tool: Option<PyProjectTool>,
}

#[derive(Debug, Default, Deserialize)]
struct PyProjectProject {
    #[serde(rename = "requires-python")]
    requires_python: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PyProjectTool {
    lancet: Option<toml::Value>,
}

/// A configuration lancet cannot use: which file, and what is wrong in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {why}")]
pub struct ConfigError {
    /// The file (`lancet.toml`, `pyproject.toml [tool.lancet]`).
    pub file: String,
    /// What is wrong, naming the key.
    pub why: String,
}

impl Config {
    /// Reads the root's configuration through its handle: `lancet.toml`, else
    /// `[tool.lancet]` in `pyproject.toml`, else the defaults.
    pub fn load(root: &Root) -> Result<Config, ConfigError> {
        let read = |name: &str| {
            root.rel(name)
                .ok()
                .and_then(|rel| root.read_regular(&rel))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let pyproject = match read("pyproject.toml") {
            Some(text) => toml::from_str::<PyProject>(&text).unwrap_or_default(),
            None => PyProject::default(),
        };
        let requires_python = pyproject
            .project
            .and_then(|p| p.requires_python)
            .and_then(|r| lower_bound(&r));
        let mut config = if let Some(text) = read(CONFIG_FILE) {
            let mut c = Config::parse(&text, CONFIG_FILE)?;
            c.source = Some(CONFIG_FILE.into());
            c
        } else if let Some(table) = pyproject.tool.and_then(|t| t.lancet) {
            let file = "pyproject.toml [tool.lancet]";
            let mut c: Config = table.try_into().map_err(|e: toml::de::Error| ConfigError {
                file: file.into(),
                why: e.message().to_string(),
            })?;
            c.check_values(file)?;
            c.source = Some(file.into());
            c
        } else {
            Config::default()
        };
        config.requires_python = requires_python;
        Ok(config)
    }

    /// Parses a configuration's text (`file` names it in errors) and checks its values.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError {
            file: file.into(),
            why: e.message().to_string(),
        })?;
        config.check_values(file)?;
        Ok(config)
    }

    /// Values the types cannot check: versions, languages, globs.
    fn check_values(&self, file: &str) -> Result<(), ConfigError> {
        let err = |why: String| ConfigError {
            file: file.into(),
            why,
        };
        if let Some(v) = &self.gate.python
            && parse_version(v).is_none()
        {
            return Err(err(format!(
                "gate.python = {v:?} is not a Python version like \"3.12\""
            )));
        }
        for language in &self.gate.external {
            let known = languages::languages().iter().find(|l| &l.name == language);
            if known.is_none_or(|l| l.check.is_none()) {
                let with: Vec<&str> = languages::languages()
                    .iter()
                    .filter(|l| l.check.is_some())
                    .map(|l| l.name.as_str())
                    .collect();
                return Err(err(format!(
                    "gate.external names {language:?}, which has no external check (languages with one: {})",
                    with.join(", ")
                )));
            }
        }
        globs(&self.gate.skip).map_err(|e| err(format!("gate.skip: {e}")))?;
        globs(&self.check.exclude).map_err(|e| err(format!("check.exclude: {e}")))?;
        Ok(())
    }

    /// The gate's settings: the configured ones over the defaults.
    pub fn gate_options(&self) -> GateOptions {
        GateOptions {
            external: self.gate.external.clone(),
            python: self
                .gate
                .python
                .as_deref()
                .and_then(parse_version)
                .or(self.requires_python)
                .unwrap_or(NEWEST_PYTHON),
            max_file_bytes: self.gate.max_file_bytes.unwrap_or(MAX_FILE_BYTES),
            skip: globs(&self.gate.skip).unwrap_or_else(|_| GlobSet::empty()),
            ..GateOptions::default()
        }
    }

    /// Whether the syntax gate runs.
    pub fn gate_enabled(&self) -> bool {
        self.gate.enabled.unwrap_or(true)
    }

    /// The checkpoint retention the project asks for.
    pub fn retention(&self) -> Retention {
        Retention {
            keep: self.checkpoints.keep,
            keep_days: self.checkpoints.keep_days,
        }
    }
}

/// Compiles globs on root-relative paths (`*` also crosses `/`, as in `*.min.js`).
pub fn globs(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        set.add(Glob::new(p).map_err(|e| format!("{p:?}: {e}"))?);
    }
    set.build().map_err(|e| e.to_string())
}

/// `"3.12"` as `(3, 12)`.
fn parse_version(v: &str) -> Option<Version> {
    let mut parts = v.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    (major == 3).then_some((major, minor))
}

/// The lowest Python a `requires-python` specifier admits (`>=3.9`, `~=3.10`, `==3.11.*`):
/// the oldest syntax the project must keep.
fn lower_bound(spec: &str) -> Option<Version> {
    spec.split(',')
        .filter_map(|clause| {
            let clause = clause.trim();
            let v = ["~=", ">=", "=="]
                .iter()
                .find_map(|op| clause.strip_prefix(op))?;
            let v = v.trim().trim_end_matches(".*");
            let mut parts = v.split('.');
            let major: u8 = parts.next()?.parse().ok()?;
            let minor: u8 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
            (major == 3).then_some((major, minor))
        })
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_read() {
        let c = Config::parse(
            r#"
[gate]
enabled = false
python = "3.11"
max_file_bytes = 1000
external = ["python"]
skip = ["vendor/**"]
[check]
exclude = ["templates/**"]
[mcp]
test_command = "pytest -q"
[checkpoints]
keep = 7
keep_days = 2
"#,
            CONFIG_FILE,
        )
        .unwrap();
        assert!(!c.gate_enabled());
        let g = c.gate_options();
        assert_eq!(g.python, (3, 11));
        assert_eq!(g.max_file_bytes, 1000);
        assert_eq!(g.external, vec!["python".to_string()]);
        assert!(g.skip.is_match("vendor/a/b.py"));
        assert!(!g.skip.is_match("src/a.py"));
        assert_eq!(c.check.exclude, vec!["templates/**".to_string()]);
        assert_eq!(c.mcp.test_command.as_deref(), Some("pytest -q"));
        assert_eq!(
            c.retention(),
            Retention {
                keep: Some(7),
                keep_days: Some(2)
            }
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors_naming_them() {
        let e = Config::parse("[gate]\nenable = true\n", CONFIG_FILE).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("lancet.toml: unknown field `enable`"),
            "{e}"
        );
        let e = Config::parse("[gaet]\n", CONFIG_FILE).unwrap_err();
        assert!(e.to_string().contains("unknown field `gaet`"), "{e}");
        let e = Config::parse("[gate]\npython = \"three\"\n", CONFIG_FILE).unwrap_err();
        assert!(e.to_string().contains("gate.python"), "{e}");
        let e = Config::parse("[gate]\nexternal = [\"cobol\"]\n", CONFIG_FILE).unwrap_err();
        assert!(e.to_string().contains("\"cobol\""), "{e}");
        let e = Config::parse("[check]\nexclude = [\"a[\"]\n", CONFIG_FILE).unwrap_err();
        assert!(e.to_string().contains("check.exclude"), "{e}");
    }

    #[test]
    fn defaults_without_a_file() {
        let c = Config::default();
        assert!(c.gate_enabled());
        let g = c.gate_options();
        assert_eq!(g.python, NEWEST_PYTHON);
        assert!(g.external.is_empty());
        assert_eq!(g.max_file_bytes, MAX_FILE_BYTES);
    }

    #[test]
    fn requires_python_sets_the_target_unless_gate_python_does() {
        assert_eq!(lower_bound(">=3.9"), Some((3, 9)));
        assert_eq!(lower_bound(">=3.8, <4"), Some((3, 8)));
        assert_eq!(lower_bound("~=3.10"), Some((3, 10)));
        assert_eq!(lower_bound("==3.11.*"), Some((3, 11)));
        assert_eq!(lower_bound("<3.13"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[project]\nrequires-python = \">=3.9\"\n[tool.lancet.gate]\nskip = [\"gen/**\"]\n",
        )
        .unwrap();
        let root = Root::new(dir.path()).unwrap();
        let c = Config::load(&root).unwrap();
        assert_eq!(c.source.as_deref(), Some("pyproject.toml [tool.lancet]"));
        assert_eq!(c.gate_options().python, (3, 9));
        assert!(c.gate_options().skip.is_match("gen/x.py"));
        std::fs::write(dir.path().join(CONFIG_FILE), "[gate]\npython = \"3.13\"\n").unwrap();
        let c = Config::load(&root).unwrap();
        assert_eq!(c.source.as_deref(), Some(CONFIG_FILE));
        assert_eq!(c.gate_options().python, (3, 13));
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.lancet]\nmcp = { test_cmd = \"x\" }\n",
        )
        .unwrap();
        std::fs::remove_file(dir.path().join(CONFIG_FILE)).unwrap();
        let e = Config::load(&root).unwrap_err();
        assert!(e.to_string().contains("unknown field `test_cmd`"), "{e}");
    }
}
