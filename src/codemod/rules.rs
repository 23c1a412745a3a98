//! What a mod runs: ast-grep rules read from YAML (`rule`, `constraints`, `transform`, `fix`,
//! `utils`; several per file, `---`-separated), or one pattern and its rewrite. Reading them is
//! ast-grep's own code; this module only turns its errors into refusals.

use super::language::ModLanguage;
use super::pattern_syntax;
use super::{ModOptions, ModSpec};
use crate::report::{ModRefusal, ModRule, PatternSyntax};
use ast_grep_config::{Fixer, GlobalRules, RuleCollection, RuleConfig, from_yaml_string};
use ast_grep_core::Pattern;
use serde_json::Value;
use std::collections::HashMap;

/// The rules of a mod, ready to match.
pub(super) enum Rules {
    /// `-p PATTERN -r REWRITE --lang L`: as `ast-grep run`.
    Pattern {
        /// Its language.
        language: ModLanguage,
        /// The pattern.
        pattern: Pattern,
        /// The rewrite.
        fixer: Box<Fixer>,
        /// A word of the pattern every match's text holds: a file without it is not parsed.
        literal: Option<String>,
    },
    /// Rule files: as `ast-grep scan --rule`.
    Collection {
        /// The rules, with their `files`/`ignores` globs.
        rules: RuleCollection<ModLanguage>,
        /// Each rule's id and language, in the order given, for the report.
        order: Vec<(String, ModLanguage)>,
        /// By rule id, words one of which every match's file holds (see [`Words`]): a file
        /// with none of them for every rule that applies to it is not parsed.
        words: HashMap<String, Words>,
    },
}

/// Words a file must hold for a rule to match in it: at least one of them (`None`: no such
/// words are known, the file is parsed).
pub(super) type Words = Option<Vec<String>>;

/// The id a pattern's sites carry.
pub(super) const PATTERN_ID: &str = "pattern";

impl Rules {
    /// Reads the rules or the pattern; a refusal names the source and ast-grep's reason.
    pub(super) fn read(opts: &ModOptions) -> Result<Rules, ModRefusal> {
        match &opts.spec {
            ModSpec::Pattern {
                pattern,
                rewrite,
                lang,
            } => {
                let language =
                    ModLanguage::named(lang).ok_or_else(|| ModRefusal::UnknownLanguage {
                        lang: lang.clone(),
                        known: ModLanguage::known().into_iter().map(String::from).collect(),
                    })?;
                let literal = literal_of(pattern);
                let text = pattern;
                let pattern =
                    Pattern::try_new(pattern, language).map_err(|e| ModRefusal::Rule {
                        source: "-p".into(),
                        detail: e.to_string(),
                    })?;
                pattern_syntax::check(language, text)
                    .map_err(|e| unparsed("-p".into(), text, language, e))?;
                let fixer = Fixer::from_str(rewrite, &language).map_err(|e| ModRefusal::Rule {
                    source: "-r".into(),
                    detail: e.to_string(),
                })?;
                Ok(Rules::Pattern {
                    language,
                    literal,
                    pattern,
                    fixer: Box::new(fixer),
                })
            }
            // Run by `exec`, which reads no rules.
            ModSpec::Exec { .. } => Err(ModRefusal::NothingToRun),
            ModSpec::Rules(files) => {
                if files.is_empty() {
                    return Err(ModRefusal::NothingToRun);
                }
                let mut configs: Vec<(&str, RuleConfig<ModLanguage>)> = Vec::new();
                for file in files {
                    let read = from_yaml_string::<ModLanguage>(&file.text, &GlobalRules::default())
                        .map_err(|e| ModRefusal::Rule {
                            source: file.name.clone(),
                            detail: error_chain(&e),
                        })?;
                    configs.extend(read.into_iter().map(|c| (file.name.as_str(), c)));
                }
                if configs.is_empty() {
                    return Err(ModRefusal::NothingToRun);
                }
                for (file, config) in &configs {
                    patterns_parse(config).map_err(|(pattern, e)| {
                        unparsed(
                            format!("{file}, rule `{}`", config.id),
                            &pattern,
                            config.language,
                            e,
                        )
                    })?;
                }
                let configs: Vec<RuleConfig<ModLanguage>> =
                    configs.into_iter().map(|(_, c)| c).collect();
                if let Some(rule) = configs.iter().find(|r| r.fixer.is_empty()) {
                    return Err(ModRefusal::NoFix {
                        id: rule.id.clone(),
                    });
                }
                let order = configs.iter().map(|r| (r.id.clone(), r.language)).collect();
                let mut words: HashMap<String, Words> = HashMap::new();
                for config in &configs {
                    let found = serde_json::to_value(&config.rule)
                        .ok()
                        .and_then(|rule| required_words(&rule));
                    // Two rules of one id: a file is parsed when either may match in it.
                    words
                        .entry(config.id.clone())
                        .and_modify(|known| *known = either(known.take(), found.clone()))
                        .or_insert(found);
                }
                let rules = RuleCollection::try_new(configs).map_err(|e| ModRefusal::Rule {
                    source: files[0].name.clone(),
                    detail: format!("a `files` or `ignores` glob: {e}"),
                })?;
                Ok(Rules::Collection {
                    rules,
                    order,
                    words,
                })
            }
        }
    }

    /// Every rule with no site yet, for the report.
    pub(super) fn listed(&self) -> Vec<ModRule> {
        match self {
            Rules::Pattern { language, .. } => vec![ModRule {
                id: PATTERN_ID.into(),
                language: language.name().into(),
                sites: 0,
            }],
            Rules::Collection { order, .. } => order
                .iter()
                .map(|(id, language)| ModRule {
                    id: id.clone(),
                    language: language.name().into(),
                    sites: 0,
                })
                .collect(),
        }
    }

    /// Whether some rule is of this language.
    pub(super) fn wants(&self, language: ModLanguage) -> bool {
        match self {
            Rules::Pattern { language: l, .. } => *l == language,
            Rules::Collection { order, .. } => order.iter().any(|(_, l)| *l == language),
        }
    }
}

/// The refusal of a pattern that does not parse in its language.
fn unparsed(
    source: String,
    pattern: &str,
    language: ModLanguage,
    e: pattern_syntax::Unparsed,
) -> ModRefusal {
    ModRefusal::PatternSyntax(Box::new(PatternSyntax {
        source,
        pattern: pattern.to_string(),
        language: language.name().into(),
        error: e.error,
        misread: e.misread,
    }))
}

/// Every pattern of a rule (its `rule`, `constraints` and `utils`, at any depth) parses in the
/// rule's language (see [`pattern_syntax`]); else the first that does not, and why.
fn patterns_parse(
    config: &RuleConfig<ModLanguage>,
) -> Result<(), (String, pattern_syntax::Unparsed)> {
    let parts = [
        serde_json::to_value(&config.rule).ok(),
        serde_json::to_value(&config.constraints).ok(),
        serde_json::to_value(&config.utils).ok(),
    ];
    parts
        .iter()
        .flatten()
        .try_for_each(|part| each_pattern(part, config.language))
}

/// Checks every `pattern` under a serialized rule: a string, or an object's `context` with its
/// `selector`.
fn each_pattern(
    value: &Value,
    language: ModLanguage,
) -> Result<(), (String, pattern_syntax::Unparsed)> {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("pattern", Value::String(p)) => {
                        pattern_syntax::check(language, p).map_err(|e| (p.clone(), e))?
                    }
                    ("pattern", Value::Object(o)) => {
                        if let (Some(Value::String(context)), Some(Value::String(selector))) =
                            (o.get("context"), o.get("selector"))
                        {
                            pattern_syntax::check_in_context(language, context, selector)
                                .map_err(|e| (context.clone(), e))?;
                        }
                    }
                    _ => each_pattern(value, language)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|v| each_pattern(v, language)),
        _ => Ok(()),
    }
}

/// Words one of which every file a rule matches in holds, from the rule as ast-grep reads it
/// (its serialized form): a `pattern` string's longest plain word (see [`literal_of`]); for
/// `all`, and for the several keys of one rule object (each must hold), the words of one of
/// them; for `any`, the words of every branch together; `inside`, `has`, `follows` and
/// `precedes` need their rule to match somewhere in the file too. A pattern object (its
/// `context` holds code outside the match; its `strictness` may skip tokens), `kind`, `regex`,
/// `not`, `nthChild`, `range` and `matches` give none.
fn required_words(rule: &Value) -> Words {
    let rule = rule.as_object()?;
    let mut known: Vec<Vec<String>> = Vec::new();
    for (key, value) in rule {
        let words = match key.as_str() {
            "pattern" => value.as_str().and_then(literal_of).map(|w| vec![w]),
            "all" => value
                .as_array()
                .and_then(|all| all.iter().filter_map(required_words).min_by_key(Vec::len)),
            // Every branch must have words, or any file may match; none of this rule's other
            // keys is given up for it.
            "any" => value
                .as_array()
                .and_then(|any| any.iter().map(required_words).collect::<Option<Vec<_>>>())
                .map(|branches| branches.concat())
                .filter(|words| !words.is_empty()),
            "inside" | "has" | "follows" | "precedes" => required_words(value),
            _ => None,
        };
        known.extend(words);
    }
    // Any conjunct's words will do; the fewest alternatives skip the most files.
    known.into_iter().min_by_key(Vec::len)
}

/// The words of two rules either of which may match: both lists, or none when one has none.
fn either(a: Words, b: Words) -> Words {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    Some(a)
}

/// The longest word of a pattern that is not a metavariable (at least 3 characters): the code
/// a pattern matches holds the pattern's words verbatim, so a file whose bytes lack it cannot
/// match and need not be parsed.
fn literal_of(pattern: &str) -> Option<String> {
    let mut best: Option<&str> = None;
    let mut rest = pattern;
    while !rest.is_empty() {
        let start = rest
            .find(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
            .unwrap_or(rest.len());
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        if !word.contains('$') && word.len() >= 3 && best.is_none_or(|b| word.len() > b.len()) {
            best = Some(word);
        }
        rest = &rest[end..];
    }
    best.map(str::to_string)
}

/// An error with its causes, as one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{literal_of, required_words};
    use serde_json::json;

    #[test]
    fn a_rules_words_come_from_what_every_match_needs() {
        let words = |rule: serde_json::Value| required_words(&rule);
        assert_eq!(
            words(json!({"pattern": "print($$$A)"})),
            Some(vec!["print".to_string()])
        );
        // Every key of a rule must hold: the pattern's word serves, whatever `not` says.
        assert_eq!(
            words(json!({"pattern": "$A.items()", "not": {"inside": {"pattern": "dict($B)"}}})),
            Some(vec!["items".to_string()])
        );
        assert_eq!(
            words(json!({"any": [{"pattern": "console.log($A)"}, {"pattern": "debugger"}]})),
            Some(vec!["console".to_string(), "debugger".to_string()])
        );
        // One branch of `any` with no word: any file may match.
        assert_eq!(
            words(json!({"any": [{"pattern": "console.log($A)"}, {"kind": "debugger_statement"}]})),
            None
        );
        // ... but the rule's other keys still need theirs.
        assert_eq!(
            words(
                json!({"pattern": "print($A)", "any": [{"kind": "call"}, {"pattern": "debugger"}]})
            ),
            Some(vec!["print".to_string()])
        );
        assert_eq!(
            words(
                json!({"all": [{"kind": "call"}, {"has": {"pattern": "await $X", "stopBy": "end"}}]})
            ),
            Some(vec!["await".to_string()])
        );
        // A pattern object's context holds code outside the match.
        assert_eq!(
            words(
                json!({"pattern": {"context": "class A { $F = 1 }", "selector": "field_definition"}})
            ),
            None
        );
        assert_eq!(words(json!({"kind": "identifier", "regex": "^foo"})), None);
        assert_eq!(words(json!({"matches": "is-call"})), None);
    }

    #[test]
    fn a_patterns_literal_is_its_longest_plain_word() {
        assert_eq!(literal_of("print($$$ARGS)").as_deref(), Some("print"));
        assert_eq!(
            literal_of("console.log($A, $$$B)").as_deref(),
            Some("console")
        );
        assert_eq!(literal_of("$A == $B"), None);
        assert_eq!(
            literal_of("$FOO.ab($X)"),
            None,
            "short words are not worth a search"
        );
        assert_eq!(literal_of("$FOO.items()").as_deref(), Some("items"));
    }
}
