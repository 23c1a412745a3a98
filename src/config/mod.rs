//! Lancet's settings, from two kinds of place that are trusted differently:
//!
//! - **the person's**: the user-level file `$XDG_CONFIG_HOME/lancet/config.toml` (default
//!   `~/.config/lancet/config.toml`), outside every root, and the command line's flags;
//! - **the repository's**: `lancet.toml` at the root, or `[tool.lancet]` in the root's
//!   `pyproject.toml` (the first found), which anyone who can write the tree can write — a
//!   model among them.
//!
//! Settings that run commands or weaken safety ([`Config::guarded_values`]) are taken from the
//! repository only once the person trusted its settings with `lancet trust` ([`trust`]), and
//! again after every change to them; until then they are ignored with a notice naming `lancet
//! trust`. The other keys (`gate.python`, `check.exclude`) always apply. The repository's keys
//! win over the user's; flags win over both. Every key is optional, and an unknown key is an
//! error that names it (a typo must not silently turn a setting off).
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
//! [walk]
//! exclude = ["vendor/**"]         # guarded: files the refactors and `mod` never look at
//! [rename]
//! lsp = false                     # guarded: never ask the project's language servers
//! [edit]
//! hard_links = "split"            # or "in-place": write through a file's other hard links
//! ```

pub mod trust;

use globset::{Glob, GlobSet, GlobSetBuilder};
use lancet_core::HardLinks;
use lancet_core::Root;
use lancet_store::Retention;
use lancet_syntax::{GateOptions, MAX_FILE_BYTES, languages};
use lancet_syntax::{NEWEST_PYTHON, Version};
use serde::Deserialize;
use trust::{PersonFiles, Trust};

/// The configuration file lancet reads at the root.
pub const CONFIG_FILE: &str = "lancet.toml";

/// Where `[tool.lancet]` is read from, as messages name it.
pub const PYPROJECT_SOURCE: &str = "pyproject.toml [tool.lancet]";

/// Lancet's settings, as read (defaults where nothing says otherwise).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
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
    /// How files are written.
    #[serde(default)]
    pub edit: EditSection,
    /// What `rename` and `mod` walk.
    #[serde(default)]
    pub walk: WalkSection,
    /// How `rename` decides what it cannot by itself.
    #[serde(default)]
    pub rename: RenameSection,
    /// Where the repository's settings were read from (`lancet.toml`, `pyproject.toml
    /// [tool.lancet]`), for messages.
    #[serde(skip)]
    pub source: Option<String>,
    /// The lower bound of `requires-python` in `pyproject.toml`, when there is one.
    #[serde(skip)]
    pub requires_python: Option<Version>,
    /// Guarded keys the repository set that are ignored because the person has not trusted
    /// them (or they changed since), and why: said once per call, naming `lancet trust`.
    #[serde(skip)]
    pub ignored: Option<Ignored>,
}

/// Repository settings left out because nobody trusted them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The file they are in.
    pub source: String,
    /// The guarded keys it sets.
    pub keys: Vec<&'static str>,
    /// Never trusted, or changed since it was.
    pub trust: Trust,
}

/// `[gate]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
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
    pub external: Option<Vec<String>>,
    /// Globs of files the gate does not check.
    pub skip: Option<Vec<String>>,
}

/// `[check]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckSection {
    /// Globs `lancet check` leaves out (added to `--exclude`).
    pub exclude: Option<Vec<String>>,
}

/// `[mcp]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// The command `test: true` runs (`lancet mcp --test-command` wins over it).
    pub test_command: Option<String>,
}

/// `[checkpoints]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsSection {
    /// Most checkpoints kept (0: no limit).
    pub keep: Option<i64>,
    /// Oldest checkpoint kept, in days (0: no limit).
    pub keep_days: Option<i64>,
}

/// `[edit]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSection {
    /// What a write does to a file with other hard links: `"split"` (default: it gets its own
    /// inode, the other names keep the old content) or `"in-place"` (every name sees the edit,
    /// also names outside the root).
    pub hard_links: Option<String>,
}

/// `[walk]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WalkSection {
    /// Globs (root-relative; `*` crosses `/`) of files `rename` and `mod` never look at, as if
    /// `.gitignore`d: vendored or generated code. Guarded: a rename that skips files could
    /// leave uses under the old name, so only the person sets it.
    pub exclude: Option<Vec<String>>,
}

/// `[rename]`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameSection {
    /// Whether a rename may ask the project's language server about the sites lancet cannot
    /// decide (and rename Go through gopls), when one is installed outside the project
    /// (default true on the command line; over MCP only with `--allow-lsp`). Guarded: the
    /// server is a program that reads the project.
    pub lsp: Option<bool>,
}

/// A configuration lancet cannot use: which file, and what is wrong in it (worded by the
/// report's renderer, `report/render/settings.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file (`lancet.toml`, `pyproject.toml [tool.lancet]`).
    pub(crate) file: String,
    /// What is wrong.
    pub(crate) problem: ConfigProblem,
}

impl std::error::Error for ConfigError {}

/// What is wrong in a configuration, as facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfigProblem {
    /// It does not parse as TOML, or names a key lancet does not know or a value of the
    /// wrong type: the TOML reader's message.
    Toml(String),
    /// `gate.python` is not a Python version.
    PythonVersion(String),
    /// `gate.external` names a language with no external check.
    NoExternalCheck {
        /// The language named.
        language: String,
        /// The languages with one.
        with: Vec<String>,
    },
    /// A key's globs do not compile.
    Globs {
        /// The key.
        key: &'static str,
        /// The glob's error.
        error: String,
    },
    /// `edit.hard_links` is neither `split` nor `in-place`.
    HardLinks(String),
}

/// The repository's settings as found: parsed, and the digest `lancet trust` records.
#[derive(Debug, Clone)]
pub struct RepositorySettings {
    /// The settings.
    pub config: Config,
    /// Where they are (`lancet.toml`, `pyproject.toml [tool.lancet]`).
    pub source: &'static str,
    /// The SHA-256 of the parsed table in a canonical form: reformatting or a comment does not
    /// change it, a changed value does.
    pub digest: String,
}

impl RepositorySettings {
    /// Reads the root's settings through its handle: `lancet.toml`, else `[tool.lancet]` in
    /// `pyproject.toml`; `None` when neither exists. `requires-python` is kept either way.
    pub fn read(root: &Root) -> Result<(Option<RepositorySettings>, Option<Version>), ConfigError> {
        let read = |name: &str| root.rel(name).ok().and_then(|rel| root.read_regular(&rel));
        RepositorySettings::from_bytes(
            read(CONFIG_FILE).as_deref(),
            read("pyproject.toml").as_deref(),
        )
    }

    /// The settings as lancet reads them from the bytes of `lancet.toml` and `pyproject.toml`
    /// (either absent): the one reader, used on the disk and on a batch's staged bytes alike
    /// (the door compares what a change would make lancet read). `[tool.lancet]` is read apart
    /// from the other tables: a value lancet does not read (`requires-python = 39`) or a
    /// broken table elsewhere never drops it.
    pub fn from_bytes(
        lancet_toml: Option<&[u8]>,
        pyproject: Option<&[u8]>,
    ) -> Result<(Option<RepositorySettings>, Option<Version>), ConfigError> {
        let pyproject = pyproject.map(|b| PyProject::read(&String::from_utf8_lossy(b)));
        let requires_python = pyproject.as_ref().and_then(|p| p.requires_python);
        let (table, source) = if let Some(bytes) = lancet_toml {
            let table: toml::Value =
                toml::from_str(&String::from_utf8_lossy(bytes)).map_err(|e| ConfigError {
                    file: CONFIG_FILE.into(),
                    problem: ConfigProblem::Toml(e.message().to_string()),
                })?;
            (table, CONFIG_FILE)
        } else if let Some(table) = pyproject.and_then(|p| p.lancet) {
            (
                table.map_err(|why| ConfigError {
                    file: PYPROJECT_SOURCE.into(),
                    problem: ConfigProblem::Toml(why),
                })?,
                PYPROJECT_SOURCE,
            )
        } else {
            return Ok((None, requires_python));
        };
        let mut config = Config::from_table(table.clone(), source)?;
        config.source = Some(source.into());
        Ok((
            Some(RepositorySettings {
                config,
                source,
                digest: trust::digest(&table),
            }),
            requires_python,
        ))
    }
}

/// What lancet reads of a `pyproject.toml`: its `[tool.lancet]` table and the lower bound of
/// `requires-python`, each on its own.
struct PyProject {
    /// `[tool.lancet]` when the file has one: the table, or why it cannot be read.
    lancet: Option<Result<toml::Value, String>>,
    requires_python: Option<Version>,
}

impl PyProject {
    fn read(text: &str) -> PyProject {
        match toml::from_str::<toml::Value>(text) {
            Ok(whole) => PyProject {
                lancet: whole
                    .get("tool")
                    .and_then(|t| t.get("lancet"))
                    .cloned()
                    .map(Ok),
                requires_python: whole
                    .get("project")
                    .and_then(|p| p.get("requires-python"))
                    .and_then(toml::Value::as_str)
                    .and_then(lower_bound),
            },
            // Broken elsewhere: the [tool.lancet] sections alone still say what they say.
            Err(_) => PyProject {
                lancet: lancet_sections(text).map(|sections| {
                    toml::from_str::<toml::Value>(&sections)
                        .map_err(|e| e.message().to_string())
                        .and_then(|v| {
                            v.get("tool")
                                .and_then(|t| t.get("lancet"))
                                .cloned()
                                .ok_or_else(|| "no [tool.lancet] table".to_string())
                        })
                }),
                requires_python: None,
            },
        }
    }
}

/// The `[tool.lancet]` and `[tool.lancet.*]` sections of a TOML text, as text of their own.
fn lancet_sections(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            let header = trimmed
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or_default()
                .replace([' ', '\t', '"', '\''], "");
            inside = header == "tool.lancet" || header.starts_with("tool.lancet.");
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    (!out.is_empty()).then_some(out)
}

impl Config {
    /// The settings that hold for a root: the user's file, with the repository's on top (its
    /// guarded keys only when the person trusted them), else the defaults.
    pub fn load(root: &Root) -> Result<Config, ConfigError> {
        let person = PersonFiles::locate(Some(root));
        let mut config = match person.user_config() {
            Some((text, file)) => Config::parse(&text, &file)?,
            None => Config::default(),
        };
        let (repository, requires_python) = RepositorySettings::read(root)?;
        if let Some(repository) = repository {
            let trust = person.trust_of(root, repository.source, &repository.digest);
            let mut settings = repository.config;
            if trust != Trust::Trusted {
                let keys = settings.drop_guarded();
                // Trusted settings that changed say so even when they set no guarded key any
                // more: what the person trusted silently stopped applying.
                if !keys.is_empty() || trust == Trust::Changed {
                    settings.ignored = Some(Ignored {
                        source: repository.source.to_string(),
                        keys,
                        trust,
                    });
                }
            }
            config = config.overlaid_by(settings);
        } else if let Some(record) = person.record_of(root) {
            // The person trusted settings here that lancet no longer finds: every report says
            // so, rather than running without them unnoticed.
            config.ignored = Some(Ignored {
                source: record.source,
                keys: Vec::new(),
                trust: Trust::Gone,
            });
        }
        config.requires_python = requires_python;
        Ok(config)
    }

    /// Parses a configuration's text (`file` names it in errors) and checks its values.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let table: toml::Value = toml::from_str(text).map_err(|e| ConfigError {
            file: file.into(),
            problem: ConfigProblem::Toml(e.message().to_string()),
        })?;
        Config::from_table(table, file)
    }

    fn from_table(table: toml::Value, file: &str) -> Result<Config, ConfigError> {
        let config: Config = table.try_into().map_err(|e: toml::de::Error| ConfigError {
            file: file.into(),
            problem: ConfigProblem::Toml(e.message().to_string()),
        })?;
        config.check_values(file)?;
        Ok(config)
    }

    /// Clears every guarded key; returns the ones that were set.
    fn drop_guarded(&mut self) -> Vec<&'static str> {
        let mut dropped = Vec::new();
        let mut note = |set: bool, key: &'static str| {
            if set {
                dropped.push(key);
            }
        };
        note(self.mcp.test_command.take().is_some(), "mcp.test_command");
        note(self.gate.enabled.take().is_some(), "gate.enabled");
        note(self.gate.external.take().is_some(), "gate.external");
        note(self.gate.skip.take().is_some(), "gate.skip");
        note(
            self.gate.max_file_bytes.take().is_some(),
            "gate.max_file_bytes",
        );
        note(self.checkpoints.keep.take().is_some(), "checkpoints.keep");
        note(
            self.checkpoints.keep_days.take().is_some(),
            "checkpoints.keep_days",
        );
        note(self.edit.hard_links.take().is_some(), "edit.hard_links");
        note(self.walk.exclude.take().is_some(), "walk.exclude");
        note(self.rename.lsp.take().is_some(), "rename.lsp");
        dropped
    }

    /// The guarded keys these settings set, with their values as written: what `lancet trust`
    /// shows the person before recording their trust.
    pub fn guarded_values(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let mut show = |key: &'static str, value: Option<String>| {
            if let Some(v) = value {
                out.push((key, v));
            }
        };
        show(
            "mcp.test_command",
            self.mcp.test_command.as_ref().map(|c| format!("{c:?}")),
        );
        show("gate.enabled", self.gate.enabled.map(|b| b.to_string()));
        show(
            "gate.external",
            self.gate.external.as_ref().map(|v| format!("{v:?}")),
        );
        show(
            "gate.skip",
            self.gate.skip.as_ref().map(|v| format!("{v:?}")),
        );
        show(
            "gate.max_file_bytes",
            self.gate.max_file_bytes.map(|n| n.to_string()),
        );
        show(
            "checkpoints.keep",
            self.checkpoints.keep.map(|n| n.to_string()),
        );
        show(
            "checkpoints.keep_days",
            self.checkpoints.keep_days.map(|n| n.to_string()),
        );
        show(
            "edit.hard_links",
            self.edit.hard_links.as_ref().map(|v| format!("{v:?}")),
        );
        show(
            "walk.exclude",
            self.walk.exclude.as_ref().map(|v| format!("{v:?}")),
        );
        show("rename.lsp", self.rename.lsp.map(|b| b.to_string()));
        out
    }

    /// These settings with every key `over` sets taken from it.
    fn overlaid_by(self, over: Config) -> Config {
        Config {
            gate: GateSection {
                enabled: over.gate.enabled.or(self.gate.enabled),
                python: over.gate.python.or(self.gate.python),
                max_file_bytes: over.gate.max_file_bytes.or(self.gate.max_file_bytes),
                external: over.gate.external.or(self.gate.external),
                skip: over.gate.skip.or(self.gate.skip),
            },
            check: CheckSection {
                exclude: over.check.exclude.or(self.check.exclude),
            },
            mcp: McpSection {
                test_command: over.mcp.test_command.or(self.mcp.test_command),
            },
            checkpoints: CheckpointsSection {
                keep: over.checkpoints.keep.or(self.checkpoints.keep),
                keep_days: over.checkpoints.keep_days.or(self.checkpoints.keep_days),
            },
            edit: EditSection {
                hard_links: over.edit.hard_links.or(self.edit.hard_links),
            },
            walk: WalkSection {
                exclude: over.walk.exclude.or(self.walk.exclude),
            },
            rename: RenameSection {
                lsp: over.rename.lsp.or(self.rename.lsp),
            },
            source: over.source.or(self.source),
            requires_python: over.requires_python.or(self.requires_python),
            ignored: over.ignored.or(self.ignored),
        }
    }

    /// Values the types cannot check: versions, languages, globs, choices.
    fn check_values(&self, file: &str) -> Result<(), ConfigError> {
        let err = |problem: ConfigProblem| ConfigError {
            file: file.into(),
            problem,
        };
        if let Some(v) = &self.gate.python
            && parse_version(v).is_none()
        {
            return Err(err(ConfigProblem::PythonVersion(v.clone())));
        }
        for language in self.gate.external.iter().flatten() {
            let known = languages::languages().iter().find(|l| &l.name == language);
            if known.is_none_or(|l| l.check.is_none()) {
                let with = languages::languages()
                    .iter()
                    .filter(|l| l.check.is_some())
                    .map(|l| l.name.clone())
                    .collect();
                return Err(err(ConfigProblem::NoExternalCheck {
                    language: language.clone(),
                    with,
                }));
            }
        }
        let keyed = [
            ("gate.skip", &self.gate.skip),
            ("check.exclude", &self.check.exclude),
            ("walk.exclude", &self.walk.exclude),
        ];
        for (key, patterns) in keyed {
            globs(patterns.as_deref().unwrap_or_default())
                .map_err(|error| err(ConfigProblem::Globs { key, error }))?;
        }
        if let Some(v) = &self.edit.hard_links
            && HardLinks::parse(v).is_none()
        {
            return Err(err(ConfigProblem::HardLinks(v.clone())));
        }
        Ok(())
    }

    /// The gate's settings: the configured ones over the defaults.
    pub fn gate_options(&self) -> GateOptions {
        GateOptions {
            external: self.gate.external.clone().unwrap_or_default(),
            python: self
                .gate
                .python
                .as_deref()
                .and_then(parse_version)
                .or(self.requires_python)
                .unwrap_or(NEWEST_PYTHON),
            max_file_bytes: self.gate.max_file_bytes.unwrap_or(MAX_FILE_BYTES),
            skip: globs(self.gate.skip.as_deref().unwrap_or_default())
                .unwrap_or_else(|_| GlobSet::empty()),
            ..GateOptions::default()
        }
    }

    /// Whether the syntax gate runs.
    pub fn gate_enabled(&self) -> bool {
        self.gate.enabled.unwrap_or(true)
    }

    /// The checkpoint retention the settings ask for.
    pub fn retention(&self) -> Retention {
        Retention {
            keep: self.checkpoints.keep,
            keep_days: self.checkpoints.keep_days,
        }
    }

    /// What a write does to a file with other hard links.
    pub fn hard_links(&self) -> HardLinks {
        self.edit
            .hard_links
            .as_deref()
            .and_then(HardLinks::parse)
            .unwrap_or_default()
    }

    /// The globs `lancet check` leaves out.
    pub fn check_excludes(&self) -> Vec<String> {
        self.check.exclude.clone().unwrap_or_default()
    }

    /// Whether a rename may ask the project's language servers (`[rename] lsp`, default on).
    pub fn rename_servers(&self) -> bool {
        self.rename.lsp != Some(false)
    }

    /// What `rename`, `mod`, `move` and `signature` leave out of their walk (`[walk] exclude`),
    /// compiled (the globs were checked when the settings were read).
    pub fn walk_excludes(&self) -> GlobSet {
        globs(self.walk.exclude.as_deref().unwrap_or_default()).unwrap_or_else(|_| GlobSet::empty())
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

    /// The keys that run commands or weaken safety: set only by the person (flags, the user-level
    /// file, or repository settings they trusted).
    const GUARDED_KEYS: [&str; 10] = [
        "mcp.test_command",
        "gate.enabled",
        "gate.external",
        "gate.skip",
        "gate.max_file_bytes",
        "checkpoints.keep",
        "checkpoints.keep_days",
        "edit.hard_links",
        "walk.exclude",
        "rename.lsp",
    ];

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
[edit]
hard_links = "in-place"
[walk]
exclude = ["vendor/**"]
[rename]
lsp = false
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
        assert_eq!(c.check_excludes(), vec!["templates/**".to_string()]);
        assert_eq!(c.mcp.test_command.as_deref(), Some("pytest -q"));
        assert_eq!(
            c.retention(),
            Retention {
                keep: Some(7),
                keep_days: Some(2)
            }
        );
        assert_eq!(c.hard_links(), HardLinks::InPlace);
        assert!(c.walk_excludes().is_match("vendor/a/b.py"));
        assert!(!c.walk_excludes().is_match("src/a.py"));
        assert!(!c.rename_servers());
        let guarded: Vec<&str> = c.guarded_values().iter().map(|(key, _)| *key).collect();
        assert_eq!(guarded, GUARDED_KEYS);
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
        let e = Config::parse("[edit]\nhard_links = \"keep\"\n", CONFIG_FILE).unwrap_err();
        assert!(e.to_string().contains("edit.hard_links"), "{e}");
    }

    #[test]
    fn defaults_without_a_file() {
        let c = Config::default();
        assert!(c.gate_enabled());
        let g = c.gate_options();
        assert_eq!(g.python, NEWEST_PYTHON);
        assert!(g.external.is_empty());
        assert_eq!(g.max_file_bytes, MAX_FILE_BYTES);
        assert_eq!(c.hard_links(), HardLinks::Split);
    }

    #[test]
    fn guarded_keys_are_dropped_and_named_harmless_ones_stay() {
        let mut c = Config::parse(
            "[gate]\nenabled = false\npython = \"3.10\"\n[mcp]\ntest_command = \"sh evil\"\n[check]\nexclude = [\"x/**\"]\n",
            CONFIG_FILE,
        )
        .unwrap();
        assert_eq!(c.drop_guarded(), vec!["mcp.test_command", "gate.enabled"]);
        assert!(c.gate_enabled());
        assert_eq!(c.mcp.test_command, None);
        assert_eq!(c.gate_options().python, (3, 10));
        assert_eq!(c.check_excludes(), vec!["x/**".to_string()]);
    }

    #[test]
    fn the_repository_overlays_the_user() {
        let user = Config::parse(
            "[gate]\npython = \"3.9\"\nexternal = [\"python\"]\n[mcp]\ntest_command = \"make test\"\n",
            "config.toml",
        )
        .unwrap();
        let repo = Config::parse("[gate]\npython = \"3.12\"\n", CONFIG_FILE).unwrap();
        let c = user.overlaid_by(repo);
        assert_eq!(c.gate_options().python, (3, 12));
        assert_eq!(c.gate_options().external, vec!["python".to_string()]);
        assert_eq!(c.mcp.test_command.as_deref(), Some("make test"));
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
            "[project]\nrequires-python = \">=3.9\"\n[tool.lancet.check]\nexclude = [\"gen/**\"]\n",
        )
        .unwrap();
        let root = Root::new(dir.path()).unwrap();
        let c = Config::load(&root).unwrap();
        assert_eq!(c.source.as_deref(), Some(PYPROJECT_SOURCE));
        assert_eq!(c.gate_options().python, (3, 9));
        assert_eq!(c.check_excludes(), vec!["gen/**".to_string()]);
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
