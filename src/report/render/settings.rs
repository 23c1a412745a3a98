//! The settings in words: what is wrong in a configuration lancet cannot use, and the notice
//! every report carries while repository settings are ignored (in the surface's words: the
//! person runs `lancet trust`; a model can only ask them to).

use crate::config::trust::Trust;
use crate::config::{Config, ConfigError, ConfigProblem, Ignored};
use crate::report::Surface;
use std::fmt;

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        match &self.problem {
            ConfigProblem::Toml(message) => write!(f, "{message}"),
            ConfigProblem::PythonVersion(v) => {
                write!(
                    f,
                    "gate.python = {v:?} is not a Python version like \"3.12\""
                )
            }
            ConfigProblem::NoExternalCheck { language, with } => write!(
                f,
                "gate.external names {language:?}, which has no external check (languages with one: {})",
                with.join(", ")
            ),
            ConfigProblem::Globs { key, error } => write!(f, "{key}: {error}"),
            ConfigProblem::HardLinks(v) => {
                write!(f, "edit.hard_links = {v:?}: use \"split\" or \"in-place\"")
            }
        }
    }
}

impl Config {
    /// The one-line notice for ignored repository settings, if any.
    pub fn notice(&self, surface: Surface) -> Option<String> {
        Some(self.ignored.as_ref()?.notice(surface))
    }
}

impl Ignored {
    /// The one-line notice, in the surface's words: the person runs `lancet trust`; a model can
    /// only ask them to.
    pub fn notice(&self, surface: Surface) -> String {
        let source = &self.source;
        if self.keys.is_empty() {
            let what = match self.trust {
                Trust::Gone => format!(
                    "the settings the user trusted in {source} are gone (removed, or no longer readable)"
                ),
                _ => format!(
                    "{source} changed since the user trusted it and sets none of what they trusted"
                ),
            };
            return match surface {
                Surface::Cli => format!(
                    "{what}: the guarded keys they set (test command, external checks, skips, ...) no longer apply; restore them, or run `lancet trust` to accept the settings as they are"
                ),
                Surface::Mcp => format!(
                    "{what}: the guarded keys they set (test command, external checks, skips, ...) no longer apply; only the user can restore or trust them (`lancet trust` in the project)"
                ),
            };
        }
        let why = match self.trust {
            Trust::Changed => "they changed since they were trusted",
            _ => "nobody has trusted them",
        };
        let keys = self.keys.join(", ");
        match surface {
            Surface::Cli => format!(
                "{source} sets {keys}, which run commands or weaken safety; they are ignored because {why}: review them and run `lancet trust` to use them"
            ),
            Surface::Mcp => format!(
                "{source} sets {keys}, which run commands or weaken safety; they are ignored because {why}: only the user can trust them (`lancet trust` in the project)"
            ),
        }
    }
}
