//! One file of a mod: parse it with its language's grammar, let ast-grep find the sites of
//! every rule of that language, and keep the edits as ast-grep's `--update-all` keeps them: in
//! the order found, each starting at or after the end of the one kept before it.

use super::language::ModLanguage;
use super::rules::{PATTERN_ID, Rules};
use crate::report::ModSite;
use ast_grep_config::{CombinedScan, RuleConfig};
use ast_grep_core::tree_sitter::LanguageExt;
use lancet_core::{Span, sha256_hex};
use std::path::Path;

/// What a file gave: nothing, its edits, or why it could not be looked at.
pub(super) enum FileMod {
    /// Not a language of any rule.
    Skipped,
    /// Of a rule's language, but without the pattern's word: not parsed.
    Unmatched,
    /// Parsed; these are its edits (maybe none).
    Parsed(Box<Edits>),
    /// Unreadable, not UTF-8.
    Unreadable(String),
}

/// A file's edits: byte spans of the file as read, and the sites they make.
pub(super) struct Edits {
    /// The path, relative to the root.
    pub(super) path: String,
    /// The SHA-256 of the bytes the spans were found in (empty when there are none).
    pub(super) sha256: String,
    /// The replacements, in file order, not overlapping.
    pub(super) spans: Vec<Span>,
    /// The same, as the report lists them.
    pub(super) sites: Vec<ModSite>,
}

/// The edits of one file read as `bytes`.
pub(super) fn scan_file(rules: &Rules, path: &str, bytes: &[u8]) -> FileMod {
    let Some(entry) = lancet_syntax::languages::language_for(path, bytes) else {
        return FileMod::Skipped;
    };
    let language = ModLanguage::of(entry);
    if !rules.wants(language) {
        return FileMod::Skipped;
    }
    let matching = match applicable(rules, path, language, bytes) {
        Ok(matching) => matching,
        Err(skipped) => return skipped,
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return FileMod::Unreadable(format!("{path}: not UTF-8"));
    };
    let grep = language.ast_grep(text);
    // (start, end, replacement, rule id), in the order ast-grep finds them.
    let mut found: Vec<(usize, usize, String, String)> = Vec::new();
    match rules {
        Rules::Pattern { pattern, fixer, .. } => {
            for m in grep.root().find_all(pattern) {
                let edit = m.make_edit(pattern, fixer.as_ref());
                found.push(edit_of(edit, PATTERN_ID));
            }
        }
        Rules::Collection { .. } => {
            let combined = CombinedScan::new(matching);
            let scan = combined.scan(&grep, true);
            for (rule, m) in scan.diffs {
                let Some(fixer) = rule.fixer.first() else {
                    continue;
                };
                let edit = m.make_edit(&rule.matcher, fixer);
                found.push(edit_of(edit, &rule.id));
            }
        }
    }
    if found.is_empty() {
        return FileMod::Parsed(Box::new(Edits {
            path: path.to_string(),
            sha256: String::new(),
            spans: Vec::new(),
            sites: Vec::new(),
        }));
    }
    let starts = lancet_core::line_starts(text);
    let mut spans = Vec::new();
    let mut sites = Vec::new();
    let mut end = 0;
    for (start, stop, replacement, rule) in found {
        if start < end {
            continue; // overlaps an edit kept before it, as ast-grep skips it
        }
        end = stop;
        if text[start..stop] == replacement {
            continue;
        }
        let line = lancet_core::line_of(&starts, start);
        let column = text[starts[line - 1]..start].chars().count() + 1;
        sites.push(ModSite {
            path: path.to_string(),
            line,
            column,
            rule,
            before: text[start..stop].to_string(),
            after: replacement.clone(),
        });
        spans.push(Span {
            start,
            end: stop,
            new: replacement,
            line,
        });
    }
    FileMod::Parsed(Box::new(Edits {
        path: path.to_string(),
        sha256: sha256_hex(bytes),
        spans,
        sites,
    }))
}

/// The rules of a collection that apply to the file (none for a pattern), or why the file is
/// not parsed: no rule takes it, or it lacks every word the rules that take it need (a
/// pattern's too).
fn applicable<'r>(
    rules: &'r Rules,
    path: &str,
    language: ModLanguage,
    bytes: &[u8],
) -> Result<Vec<&'r RuleConfig<ModLanguage>>, FileMod> {
    let holds = |word: &str| memchr::memmem::find(bytes, word.as_bytes()).is_some();
    match rules {
        Rules::Pattern { literal, .. } => match literal {
            Some(word) if !holds(word) => Err(FileMod::Unmatched),
            _ => Ok(Vec::new()),
        },
        Rules::Collection { rules, words, .. } => {
            let matching = rules.get_rule_from_lang(Path::new(path), language);
            if matching.is_empty() {
                return Err(FileMod::Skipped);
            }
            let may_match = |rule: &&RuleConfig<ModLanguage>| match words.get(&rule.id) {
                Some(Some(words)) => words.iter().any(|w| holds(w)),
                _ => true,
            };
            if matching.iter().any(may_match) {
                Ok(matching)
            } else {
                Err(FileMod::Unmatched)
            }
        }
    }
}

/// An ast-grep edit as (start, end, replacement, rule id).
fn edit_of(
    edit: ast_grep_core::source::Edit<String>,
    rule: &str,
) -> (usize, usize, String, String) {
    let start = edit.position;
    let end = start + edit.deleted_length;
    let text = String::from_utf8_lossy(&edit.inserted_text).into_owned();
    (start, end, text, rule.to_string())
}
