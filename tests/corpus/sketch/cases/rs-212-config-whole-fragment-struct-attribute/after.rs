use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug)]
pub enum ConfigError {
    Io(std::io::Error),
    Parse(toml::de::Error),
    Missing(&'static str),
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Io(e) => write!(f, "cannot read config: {}", e),
            ConfigError::Parse(e) => write!(f, "invalid config: {}", e),
            ConfigError::Missing(key) => write!(f, "missing key `{}`", key),
        }
    }
}

impl std::error::Error for ConfigError {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub name: String,
    pub listen: String,
    #[serde(default = "default_workers")]
    pub workers: usize,
    #[serde(default)]
    pub env: HashMap<String, String>,
}

fn default_workers() -> usize {
    4
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = fs::read_to_string(path).map_err(ConfigError::Io)?;
        let config: Config = toml::from_str(&text).map_err(ConfigError::Parse)?;
        if config.name.is_empty() {
            return Err(ConfigError::Missing("name"));
        }
        Ok(config)
    }

    pub fn find(start: &Path) -> Option<PathBuf> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            let candidate = d.join("service.toml");
            if candidate.is_file() {
                return Some(candidate);
            }
            dir = d.parent();
        }
        None
    }

    pub fn env_var(&self, key: &str) -> Option<&str> {
        self.env.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_workers_is_four() {
        assert_eq!(default_workers(), 4);
    }

    #[test]
    fn find_returns_none_at_root() {
        assert!(Config::find(Path::new("/")).is_none());
    }
}
