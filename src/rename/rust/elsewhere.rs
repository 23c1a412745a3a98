//! Types the scanned files use but do not declare (`self.identifier` in impls.rs, whose
//! `Prerelease` is declared in lib.rs, which holds no OLD and was not parsed): their fields,
//! read on demand from the tree's other Rust files, when exactly one type of the tree has
//! that name.

use super::RustProject;
use super::facts::FileFacts;
use crate::rename::memo::remembered;
use lancet_syntax::languages;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use tree_sitter::{Language, Parser};

/// A struct's fields: each name, and the type it is declared with.
pub(super) type Fields = Vec<(String, Option<String>)>;

/// The tree's Rust files beyond the scanned ones, read when a type is looked up there.
pub(super) struct Elsewhere<'a> {
    /// The walked files, relative to the root.
    walked: &'a [String],
    /// Reads a file of the tree as text.
    read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// Rust's grammar, to parse them.
    grammar: Option<Language>,
    /// Memo of [`RustProject::fields_elsewhere`] by type name.
    fields: Mutex<HashMap<String, Option<Fields>>>,
}

impl<'a> Elsewhere<'a> {
    pub(super) fn new(
        walked: &'a [String],
        read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    ) -> Self {
        Elsewhere {
            walked,
            read,
            grammar: languages::languages()
                .iter()
                .find(|e| e.name == "rust")
                .and_then(languages::grammar),
            fields: Mutex::new(HashMap::new()),
        }
    }
}

impl RustProject<'_> {
    /// The fields of the struct `holder` when the scanned files declare no type of that name
    /// and the tree's other Rust files declare exactly one, a struct; `None` otherwise (two
    /// types of the name, an enum, a file that does not read or parse).
    pub(super) fn fields_elsewhere(&self, holder: &str) -> Option<Fields> {
        remembered(&self.elsewhere.fields, holder.to_string(), || {
            self.read_fields_elsewhere(holder)
        })
    }

    fn read_fields_elsewhere(&self, holder: &str) -> Option<Fields> {
        let grammar = self.elsewhere.grammar.as_ref()?;
        let scanned = |path: &str| self.files.iter().any(|(p, _)| *p == path);
        let word = |text: &str| {
            text.match_indices(holder)
                .any(|(at, _)| super::type_text::whole_word(text, at, holder))
        };
        // Each other file that names the type: how many types of the name it declares, and
        // the fields of its structs of the name.
        let declared: Vec<Option<(usize, Vec<Fields>)>> = self
            .elsewhere
            .walked
            .par_iter()
            .filter(|p| p.ends_with(".rs") && !scanned(p))
            .filter_map(|path| {
                let text = (self.elsewhere.read)(path)?;
                if !word(&text) {
                    return None;
                }
                let mut parser = Parser::new();
                let parsed = parser
                    .set_language(grammar)
                    .ok()
                    .and_then(|()| parser.parse(&text, None));
                let Some(tree) = parsed else {
                    // A file lancet cannot read as Rust may declare the type: nothing is known.
                    return Some(None);
                };
                let facts = FileFacts::of(path, &text, &tree, self.crates.of(path));
                let types = facts.types.iter().filter(|t| *t == holder).count();
                let fields = facts
                    .holders
                    .into_iter()
                    .filter(|h| h.name == holder && h.fields)
                    .map(|h| h.members)
                    .collect();
                Some(Some((types, fields)))
            })
            .collect();
        let mut types = 0;
        let mut structs = Vec::new();
        for file in declared {
            let (count, fields) = file?;
            types += count;
            structs.extend(fields);
        }
        match (types, structs.as_slice()) {
            (1, [one]) => Some(one.clone()),
            _ => None,
        }
    }
}
