//! lancet's grammars as ast-grep languages: each is a language of lancet's table (so `mod`
//! parses with the same grammars the gate and `rename` use), with the metavariable spelling
//! ast-grep gives it, so a rule written for ast-grep matches here the same sites.

use ast_grep_core::matcher::PatternBuilder;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc, TSLanguage};
use ast_grep_core::{Language, Pattern, PatternError};
use lancet_syntax::languages::{self, LanguageEntry};
use std::borrow::Cow;

/// A language of lancet's table, as ast-grep's engine sees it.
#[derive(Clone, Copy)]
pub(crate) struct ModLanguage {
    entry: &'static LanguageEntry,
    /// The character that stands for `$` in patterns where `$` is not an identifier character
    /// (ast-grep's choice per language; `$` where it is one).
    expando: char,
}

impl ModLanguage {
    /// The language a rule names: ast-grep's names and aliases (`Python`, `py`, `TypeScript`,
    /// `ts`, `tsx`, `rs`, `golang`, ...), any case, or lancet's own; `None` when lancet has no
    /// grammar for it (or it was compiled out).
    pub(crate) fn named(name: &str) -> Option<ModLanguage> {
        let lower = name.to_ascii_lowercase();
        let lancet_name = match lower.as_str() {
            "py" | "python" => "python",
            "rs" | "rust" => "rust",
            "js" | "jsx" | "javascript" => "javascript",
            "ts" | "typescript" => "typescript",
            "tsx" => "tsx",
            "go" | "golang" => "go",
            "java" => "java",
            "c" => "c",
            "cc" | "c++" | "cpp" | "cxx" => "cpp",
            "cs" | "csharp" | "c-sharp" => "c-sharp",
            "rb" | "ruby" => "ruby",
            "bash" | "sh" => "bash",
            "json" => "json",
            "yml" | "yaml" => "yaml",
            "html" => "html",
            "css" => "css",
            _ => return None,
        };
        let entry = languages::languages()
            .iter()
            .find(|e| e.name == lancet_name)?;
        languages::grammar(entry)?;
        Some(ModLanguage::of(entry))
    }

    /// The language of a file, by lancet's table.
    pub(crate) fn of(entry: &'static LanguageEntry) -> ModLanguage {
        // ast-grep's expando characters, per language.
        let expando = match entry.name.as_str() {
            "python" | "rust" | "go" | "c-sharp" | "ruby" => 'µ',
            "c" | "cpp" => '𐀀',
            "css" => '_',
            _ => '$',
        };
        ModLanguage { entry, expando }
    }

    /// lancet's name for it.
    pub(crate) fn name(&self) -> &'static str {
        &self.entry.name
    }

    /// The names `--lang` and a rule's `language` take.
    pub(crate) fn known() -> Vec<&'static str> {
        languages::languages()
            .iter()
            .filter(|e| languages::grammar(e).is_some())
            .filter(|e| ModLanguage::named(&e.name).is_some())
            .map(|e| e.name.as_str())
            .collect()
    }
}

impl PartialEq for ModLanguage {
    fn eq(&self, other: &Self) -> bool {
        self.entry.name == other.entry.name
    }
}

impl Eq for ModLanguage {}

impl std::fmt::Display for ModLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Debug for ModLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule's `language:`: the names [`ModLanguage::named`] takes.
impl<'de> serde::Deserialize<'de> for ModLanguage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ModLanguage::named(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "no grammar for the language `{name}` (lancet has: {})",
                ModLanguage::known().join(", ")
            ))
        })
    }
}

/// Rules are serialisable in ast-grep; lancet never writes one back, but the bound asks.
impl serde::Serialize for ModLanguage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl schemars::JsonSchema for ModLanguage {
    fn schema_name() -> Cow<'static, str> {
        "ModLanguage".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl Language for ModLanguage {
    fn kind_to_id(&self, kind: &str) -> u16 {
        self.get_ts_language().id_for_node_kind(kind, true)
    }

    fn field_to_id(&self, field: &str) -> Option<u16> {
        self.get_ts_language()
            .field_id_for_name(field)
            .map(|f| f.get())
    }

    fn expando_char(&self) -> char {
        self.expando
    }

    fn pre_process_pattern<'q>(&self, query: &'q str) -> Cow<'q, str> {
        if self.expando == '$' {
            return Cow::Borrowed(query);
        }
        Cow::Owned(with_expando(self.expando, query))
    }

    fn build_pattern(&self, builder: &PatternBuilder) -> Result<Pattern, PatternError> {
        builder.build(|src| StrDoc::try_new(src, *self))
    }
}

impl LanguageExt for ModLanguage {
    fn get_ts_language(&self) -> TSLanguage {
        languages::grammar(self.entry).expect("a language is made only with its grammar")
    }
}

/// A pattern with `$` spelled as `expando` where it starts a metavariable (`$A`, `$$B`, `$_`,
/// `$$$`), as ast-grep rewrites patterns for languages whose identifiers cannot hold `$`.
fn with_expando(expando: char, query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    let mut dollars = 0;
    for c in query.chars() {
        if c == '$' {
            dollars += 1;
            continue;
        }
        let metavariable = c.is_ascii_uppercase() || c == '_' || dollars == 3;
        let sigil = if metavariable { expando } else { '$' };
        out.extend(std::iter::repeat_n(sigil, dollars));
        dollars = 0;
        out.push(c);
    }
    let sigil = if dollars == 3 { expando } else { '$' };
    out.extend(std::iter::repeat_n(sigil, dollars));
    out
}

#[cfg(test)]
mod tests {
    use super::{ModLanguage, with_expando};

    #[test]
    fn metavariables_take_the_expando_and_other_dollars_stay() {
        assert_eq!(
            with_expando('µ', "f($A, $$B, $$$, $_, $1, $x)"),
            "f(µA, µµB, µµµ, µ_, $1, $x)"
        );
        assert_eq!(with_expando('µ', "g($$$)"), "g(µµµ)");
    }

    #[test]
    fn ast_grep_names_and_aliases_name_lancet_languages() {
        for (name, lancet) in [
            ("Python", "python"),
            ("py", "python"),
            ("TypeScript", "typescript"),
            ("Tsx", "tsx"),
            ("rs", "rust"),
            ("golang", "go"),
            ("JavaScript", "javascript"),
        ] {
            assert_eq!(
                ModLanguage::named(name).map(|l| l.name()),
                Some(lancet),
                "{name}"
            );
        }
        assert!(ModLanguage::named("cobol").is_none());
    }
}
