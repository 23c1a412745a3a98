//! One rename interface: [`Resolver`], which the resolution of each family of languages
//! implements (Python, JavaScript/TypeScript, Rust), and [`super::registry::resolve_all_then`], which hands every
//! scanned file to the resolver that takes its language.

use super::model::{Parsed, Resolution, SymbolId};
use crate::report::OutsideReach;
use std::sync::Arc;
use tree_sitter::Node;

/// What a resolver decides of one occurrence of OLD.
pub(super) struct Resolved {
    /// What it refers to (for a shorthand field, the value: a local or an item).
    pub(super) value: Resolution,
    /// A Rust shorthand field (`P { major }`, `let P { major } = p`): the field it also names.
    pub(super) field: Option<Resolution>,
}

impl From<Resolution> for Resolved {
    fn from(value: Resolution) -> Self {
        Resolved { value, field: None }
    }
}

/// What resolvers are built over: the tree's walked files, the files scanned for OLD (parsed),
/// and a reader of any file of the tree (for a module that does not hold OLD).
pub(crate) struct Sources<'a> {
    /// The walked files, relative to the root.
    pub(super) files: &'a [String],
    /// Each scanned file's language and parse.
    pub(super) scanned: Vec<(&'static str, Arc<Parsed>)>,
    /// Reads a file of the tree as text.
    pub(super) read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// The path a path of the tree leads to, its links followed, when it exists and stays in
    /// the tree (a workspace's `node_modules/<name>` link to its package).
    pub(super) real: &'a (dyn Fn(&str) -> Option<String> + Sync),
}

impl Sources<'_> {
    /// The scanned files of one language.
    pub(super) fn of_language<'s>(
        &'s self,
        language: &'s str,
    ) -> impl Iterator<Item = &'s Arc<Parsed>> {
        self.scanned
            .iter()
            .filter(move |(l, _)| *l == language)
            .map(|(_, parsed)| parsed)
    }
}

/// The name resolution of a family of languages, as a rename needs it: which files it takes,
/// and what each occurrence of OLD in one of them refers to.
pub(super) trait Resolver: Sync {
    /// The languages (names of `grammars/languages.toml`) whose files it resolves.
    fn languages(&self) -> &'static [&'static str];

    /// What each occurrence of `old` (byte offsets, in file order) in `file` refers to, in the
    /// order of `offsets`.
    fn resolve_file(&self, file: &Parsed, offsets: &[usize], old: &str) -> Vec<Resolved>;

    /// Whether two of its symbols are one to a rename though their ids differ: a method and
    /// the one it overrides. Symbols no such tie joins are unrelated (a bare name that names
    /// several is refused).
    fn related(&self, _a: &SymbolId, _b: &SymbolId) -> bool {
        false
    }

    /// What may reach member `name` of a member symbol's class where lancet cannot see (a
    /// base outside the tree: `threading.Thread` calls `run`): for the symbol's own name, a
    /// rename would silently stop the override; for NEW, it would start one. `None` where
    /// nothing outside may.
    fn reached_from_outside(&self, _id: &SymbolId, _name: &str) -> Option<OutsideReach> {
        None
    }

    /// A class of the tree up or down a member symbol's class's hierarchy, in any file, that
    /// defines member `name` (NEW): its file, line and name. The renamed member would override
    /// it or be overridden by it, which the collisions read in the changed files alone miss.
    fn in_hierarchy(&self, _id: &SymbolId, _name: &str) -> Option<(String, usize, String)> {
        None
    }
}

/// Resolves each occurrence through the syntax node that is exactly it (an occurrence that is
/// no one node is unresolved): for the resolvers that read tree-sitter's tree.
pub(super) fn by_node(
    file: &Parsed,
    offsets: &[usize],
    old: &str,
    resolve: impl Fn(Node) -> Resolved,
) -> Vec<Resolved> {
    offsets
        .iter()
        .map(|&at| {
            let range = at..at + old.len();
            let node = file
                .tree
                .root_node()
                .descendant_for_byte_range(range.start, range.end)
                .filter(|n| n.byte_range() == range);
            match node {
                Some(node) => resolve(node),
                None => Resolution::Unresolved("not one syntax node".into()).into(),
            }
        })
        .collect()
}

/// A tree of files held in memory, for the resolvers' unit tests and those of what plans on
/// them (a move).
#[cfg(test)]
pub(crate) mod testing {
    use super::{Resolver, Sources};
    use crate::rename::model::{Parsed, Resolution};
    use lancet_syntax::languages;
    use std::collections::HashMap;
    use std::sync::Arc;
    use tree_sitter::Parser;

    /// Reads a file of the fixture.
    type Reader = Box<dyn Fn(&str) -> Option<String> + Sync>;

    /// A fixture has no links: a path leads to itself when it is a file or a directory.
    type Real = Box<dyn Fn(&str) -> Option<String> + Sync>;

    /// Files by path, each parsed as its language.
    pub(crate) struct Fixture {
        files: Vec<String>,
        scanned: Vec<(&'static str, Arc<Parsed>)>,
        read: Reader,
        real: Real,
    }

    impl Fixture {
        /// The files `(path, text)`; those in `scanned` are parsed (they hold OLD), the others
        /// are only there to be read.
        pub(crate) fn new(files: &[(&str, &str)], scanned: &[&str]) -> Self {
            let texts: HashMap<String, String> = files
                .iter()
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .collect();
            let scanned = scanned
                .iter()
                .map(|path| {
                    let text = texts[*path].clone();
                    let entry = languages::language_for(path, text.as_bytes()).unwrap();
                    let mut parser = Parser::new();
                    parser
                        .set_language(&languages::grammar(entry).unwrap())
                        .unwrap();
                    let tree = parser.parse(&text, None).unwrap();
                    let path = path.to_string();
                    (
                        entry.name.as_str(),
                        Arc::new(Parsed {
                            path,
                            text,
                            tree,
                            doctest_wrappers: None,
                        }),
                    )
                })
                .collect();
            let paths: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
            let known = paths.clone();
            Fixture {
                files: paths,
                scanned,
                read: Box::new(move |path| texts.get(path).cloned()),
                real: Box::new(move |path| {
                    let dir = format!("{path}/");
                    known
                        .iter()
                        .any(|f| f == path || f.starts_with(&dir))
                        .then(|| path.to_string())
                }),
            }
        }

        /// What resolvers are built over.
        pub(crate) fn sources(&self) -> Sources<'_> {
            Sources {
                files: &self.files,
                scanned: self.scanned.clone(),
                read: &*self.read,
                real: &*self.real,
            }
        }

        /// Each whole-word occurrence of `old` in the scanned file `path`, as `resolver` sees
        /// it: `LINE = ID`, `LINE ? WHY` (unresolved) or `LINE outside: WHY`, and for a shorthand
        /// field ` + field …` of the same shape.
        pub(in crate::rename) fn resolve(
            &self,
            resolver: &dyn Resolver,
            path: &str,
            old: &str,
        ) -> Vec<String> {
            let (language, file) = self.scanned.iter().find(|(_, f)| f.path == path).unwrap();
            assert!(resolver.languages().contains(language));
            let bytes = file.text.as_bytes();
            let word = |b: u8| b == b'_' || b.is_ascii_alphanumeric();
            let offsets: Vec<usize> = file
                .text
                .match_indices(old)
                .map(|(at, _)| at)
                .filter(|&at| {
                    (at == 0 || !word(bytes[at - 1]))
                        && bytes.get(at + old.len()).is_none_or(|&b| !word(b))
                })
                .collect();
            let line = |at: usize| file.text[..at].matches('\n').count() + 1;
            let show = |r: &Resolution| match r {
                Resolution::Symbol(id) => format!("= {id}"),
                Resolution::Unresolved(why) => format!("? {why}"),
                Resolution::Outside(why) => format!("outside: {why}"),
            };
            offsets
                .iter()
                .zip(resolver.resolve_file(file, &offsets, old))
                .map(|(&at, r)| {
                    let field = r.field.as_ref().map(|f| format!(" + field {}", show(f)));
                    format!(
                        "{} {}{}",
                        line(at),
                        show(&r.value),
                        field.unwrap_or_default()
                    )
                })
                .collect()
        }
    }
}
