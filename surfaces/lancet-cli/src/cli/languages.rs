//! `--lang` values: the names the shells complete and the help lists (lancet's names for the
//! languages a command works in), and the short names people type taken too (`py`, `ts`).
//! Any other name reaches the command, which refuses it with the list (rename:
//! `unknown_language`; mod: no grammar), as a report.

use clap::builder::{PossibleValue, TypedValueParser};
use std::ffi::OsStr;

/// A `--lang` value: completed and listed from `names`; taken as given, the short names of
/// `rename` mapped to lancet's (`py` → `python`).
#[derive(Clone)]
pub(super) struct LanguageName {
    names: fn() -> Vec<&'static str>,
}

impl LanguageName {
    /// The languages `lancet rename` works in.
    pub(super) fn rename() -> LanguageName {
        LanguageName {
            names: lancet::surfaces::renameable_languages,
        }
    }

    /// The languages `lancet mod` takes.
    pub(super) fn codemod() -> LanguageName {
        LanguageName {
            names: lancet::surfaces::mod_languages,
        }
    }
}

impl TypedValueParser for LanguageName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        let given = clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)?;
        Ok(match given.as_str() {
            "py" => "python",
            "js" | "jsx" => "javascript",
            "ts" => "typescript",
            "rs" => "rust",
            other => other,
        }
        .to_string())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(PossibleValue::new)))
    }
}
