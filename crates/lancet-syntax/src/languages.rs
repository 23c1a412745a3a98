//! The language table: which grammar parses which file, read from `grammars/languages.toml`.
//!
//! The table is data so that adding a language is an entry and a cargo feature, not code in
//! several places. The grammar crates themselves are bound here, each behind its feature; a
//! language whose grammar is compiled out is still recognised, and its files are reported as
//! unchecked rather than silently passed.

use serde::Deserialize;
use std::sync::OnceLock;

/// The table as shipped, compiled into the binary.
/// `grammars/languages.toml`, turned into JSON at build time (`build.rs`): read on every call
/// that gates a file, and JSON reads far faster than TOML.
const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/languages.json"));

/// One language of the table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageEntry {
    /// lancet's name for the language.
    pub name: String,
    /// The grammar crate (with `/tsx`-style suffixes for crates holding several grammars).
    pub grammar: String,
    /// File extensions, without the dot.
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Whole file names.
    #[serde(default)]
    pub file_names: Vec<String>,
    /// Interpreters named on a `#!` line.
    #[serde(default)]
    pub shebangs: Vec<String>,
    /// An external check command; `{file}` stands for a temp file with the content.
    #[serde(default)]
    pub check: Option<Vec<String>>,
    /// The check command checks every file it is given and names each one that fails, so a
    /// failing run over many files needs no rerun of the files it does not name.
    #[serde(default)]
    pub check_reports_all: bool,
    /// Query files under `grammars/<name>/`.
    #[serde(default)]
    pub queries: Vec<String>,
    /// Reserved words: never valid as a new name.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Why tree-sitter's errors in this language prove nothing (its grammar flags valid code
    /// the gate corpus holds): a file it flags is reported unchecked, never refused, unless
    /// the language's external check (`gate.external`) judges it.
    #[serde(default)]
    pub unconfirmed: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    language: Vec<LanguageEntry>,
}

/// Every language of the table.
pub fn languages() -> &'static [LanguageEntry] {
    static PARSED: OnceLock<Vec<LanguageEntry>> = OnceLock::new();
    PARSED.get_or_init(|| {
        serde_json::from_str::<Table>(TABLE)
            .map(|t| t.language)
            .unwrap_or_else(|e| panic!("grammars/languages.toml is invalid: {e}"))
    })
}

/// The language of a file, by its name, then by a `#!` line in its content.
pub fn language_for(path: &str, content: &[u8]) -> Option<&'static LanguageEntry> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').map(|(_, e)| e);
    let by_name = languages().iter().find(|l| {
        l.file_names.iter().any(|f| f == name)
            || extension.is_some_and(|e| l.extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
    });
    by_name.or_else(|| {
        let first = content.split(|&b| b == b'\n').next()?;
        let line = std::str::from_utf8(first).ok()?.strip_prefix("#!")?;
        let mut words = line.split_whitespace();
        let program = words.next()?.rsplit('/').next()?;
        let interpreter = if program == "env" {
            words.find(|w| !w.starts_with('-'))?
        } else {
            program
        };
        languages()
            .iter()
            .find(|l| l.shebangs.iter().any(|s| s == interpreter))
    })
}

/// The tree-sitter grammar for a table entry, or `None` when its cargo feature is off.
pub fn grammar(entry: &LanguageEntry) -> Option<tree_sitter::Language> {
    let language: tree_sitter::Language = match entry.grammar.as_str() {
        "tree-sitter-python" => tree_sitter_python::LANGUAGE.into(),
        "tree-sitter-rust" => tree_sitter_rust::LANGUAGE.into(),
        #[cfg(feature = "lang-javascript")]
        "tree-sitter-javascript" => tree_sitter_javascript::LANGUAGE.into(),
        #[cfg(feature = "lang-typescript")]
        "tree-sitter-typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        #[cfg(feature = "lang-typescript")]
        "tree-sitter-typescript/tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        #[cfg(feature = "lang-go")]
        "tree-sitter-go" => tree_sitter_go::LANGUAGE.into(),
        #[cfg(feature = "lang-java")]
        "tree-sitter-java" => tree_sitter_java::LANGUAGE.into(),
        #[cfg(feature = "lang-c")]
        "tree-sitter-c" => tree_sitter_c::LANGUAGE.into(),
        #[cfg(feature = "lang-cpp")]
        "tree-sitter-cpp" => tree_sitter_cpp::LANGUAGE.into(),
        #[cfg(feature = "lang-c-sharp")]
        "tree-sitter-c-sharp" => tree_sitter_c_sharp::LANGUAGE.into(),
        #[cfg(feature = "lang-ruby")]
        "tree-sitter-ruby" => tree_sitter_ruby::LANGUAGE.into(),
        #[cfg(feature = "lang-bash")]
        "tree-sitter-bash" => tree_sitter_bash::LANGUAGE.into(),
        #[cfg(feature = "lang-json")]
        "tree-sitter-json" => tree_sitter_json::LANGUAGE.into(),
        #[cfg(feature = "lang-toml")]
        "tree-sitter-toml-ng" => tree_sitter_toml_ng::LANGUAGE.into(),
        #[cfg(feature = "lang-yaml")]
        "tree-sitter-yaml" => tree_sitter_yaml::LANGUAGE.into(),
        #[cfg(feature = "lang-html")]
        "tree-sitter-html" => tree_sitter_html::LANGUAGE.into(),
        #[cfg(feature = "lang-css")]
        "tree-sitter-css" => tree_sitter_css::LANGUAGE.into(),
        _ => return None,
    };
    Some(language)
}

/// The rename query shipped for a language, when it has one and its grammar is built in: the
/// captures name identifiers, definitions by kind, strings and comments.
pub fn rename_query(language: &str) -> Option<&'static str> {
    match language {
        "python" => Some(include_str!("../grammars/python/rename.scm")),
        "rust" => Some(include_str!("../grammars/rust/rename.scm")),
        #[cfg(feature = "lang-javascript")]
        "javascript" => Some(include_str!("../grammars/javascript/rename.scm")),
        // TSX's grammar is TypeScript's with JSX: one query serves both.
        #[cfg(feature = "lang-typescript")]
        "typescript" | "tsx" => Some(include_str!("../grammars/typescript/rename.scm")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension_name_and_shebang() {
        assert_eq!(language_for("src/a.py", b"").unwrap().name, "python");
        assert_eq!(language_for("x/Main.RS", b"").unwrap().name, "rust");
        assert_eq!(
            language_for("tools/run", b"#!/usr/bin/env python3\nprint(1)\n")
                .unwrap()
                .name,
            "python"
        );
        assert_eq!(language_for("Cargo.lock", b"").unwrap().name, "toml");
        assert!(language_for("notes.txt", b"plain").is_none());
    }

    #[test]
    fn table_names_are_unique() {
        let mut names: Vec<&str> = languages().iter().map(|l| l.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), languages().len());
    }
}
