//! Trees kept between calls: a long-lived caller (the MCP server) hands the gate a
//! [`TreeCache`], and the next edit of a file it has checked reparses incrementally from the
//! file's last tree (`Tree::edit`) instead of from nothing — milliseconds for a large file
//! where a fresh parse takes a large part of a second.

use crate::parse::{error_sites, parse_from};
use crate::site::Site;
use lancet_core::sha256_hex;
use std::collections::HashMap;
use std::sync::Mutex;
use tree_sitter::{InputEdit, Parser, Point, Tree};

/// How many files' trees are kept: an agent works on a handful of files at a time, and a tree
/// costs several times its text in memory.
const KEPT_TREES: usize = 16;

/// The last tree of each file the gate parsed, keyed by path and the content's sha256.
#[derive(Default)]
pub struct TreeCache {
    trees: Mutex<HashMap<String, Kept>>,
}

impl std::fmt::Debug for TreeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.trees.lock().map_or(0, |t| t.len());
        write!(f, "TreeCache({kept} trees)")
    }
}

struct Kept {
    sha256: String,
    language: &'static str,
    tree: Tree,
    errors: Vec<Site>,
    /// When it was stored (a counter), to drop the oldest first.
    stamp: u64,
}

/// What a parse through the cache found.
pub(crate) struct Parsed {
    /// The errors of the new content.
    pub(crate) after: Vec<Site>,
    /// The errors of the old content, when its kept tree was the one the parse started from.
    pub(crate) before: Option<Vec<Site>>,
}

impl TreeCache {
    /// Parses `after` (the file `path` in `language`), from the kept tree of `before` when
    /// there is one, and keeps the new tree. `None` when the deadline came first.
    pub(crate) fn parse(
        &self,
        path: &str,
        language: &'static str,
        parser: &mut Parser,
        (before, after): (Option<&[u8]>, &[u8]),
        deadline: std::time::Instant,
    ) -> Option<Parsed> {
        let reusable = before.and_then(|before| {
            let mut trees = self.trees.lock().ok()?;
            let kept = trees.remove(path)?;
            (kept.language == language && kept.sha256 == sha256_hex(before))
                .then_some((kept, before))
        });
        let (tree, before_errors) = match reusable {
            Some((kept, before)) => {
                let mut old = kept.tree;
                old.edit(&input_edit(before, after));
                (
                    parse_from(parser, after, Some(&old), deadline)?,
                    Some(kept.errors),
                )
            }
            None => (parse_from(parser, after, None, deadline)?, None),
        };
        let errors = error_sites(&tree);
        let parsed = Parsed {
            after: errors.clone(),
            before: before_errors,
        };
        self.keep(path, language, tree, errors, after);
        Some(parsed)
    }

    fn keep(&self, path: &str, language: &'static str, tree: Tree, errors: Vec<Site>, text: &[u8]) {
        let Ok(mut trees) = self.trees.lock() else {
            return;
        };
        let stamp = trees.values().map(|k| k.stamp + 1).max().unwrap_or(0);
        if trees.len() >= KEPT_TREES
            && !trees.contains_key(path)
            && let Some(oldest) = trees
                .iter()
                .min_by_key(|(_, k)| k.stamp)
                .map(|(p, _)| p.clone())
        {
            trees.remove(&oldest);
        }
        trees.insert(
            path.to_string(),
            Kept {
                sha256: sha256_hex(text),
                language,
                tree,
                errors,
                stamp,
            },
        );
    }

    /// How many trees are kept.
    pub fn len(&self) -> usize {
        self.trees.lock().map_or(0, |t| t.len())
    }

    /// Whether no tree is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The edit that turns `before` into `after`, as one changed range between their common
/// prefix and common suffix.
fn input_edit(before: &[u8], after: &[u8]) -> InputEdit {
    let prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let room = before.len().min(after.len()) - prefix;
    let suffix = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let old_end = before.len() - suffix;
    let new_end = after.len() - suffix;
    InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point(before, prefix),
        old_end_position: point(before, old_end),
        new_end_position: point(after, new_end),
    }
}

/// The row and byte column of `offset` in `text`.
fn point(text: &[u8], offset: usize) -> Point {
    let head = &text[..offset];
    let row = count_newlines(head);
    let column = offset - head.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
    Point::new(row, column)
}

fn count_newlines(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages::language_for;

    fn rust_parser() -> Parser {
        let language = language_for("m.rs", b"").unwrap();
        let mut parser = Parser::new();
        parser
            .set_language(&crate::languages::grammar(language).unwrap())
            .unwrap();
        parser
    }

    #[test]
    fn the_edit_spans_what_changed_between_the_common_prefix_and_suffix() {
        let edit = input_edit(b"fn a() {}\nfn b() {}\n", b"fn a() {}\nfn bc() {}\n");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (14, 14, 15)
        );
        assert_eq!(edit.start_position, Point::new(1, 4));
        let same = input_edit(b"x\n", b"x\n");
        assert_eq!(
            (same.start_byte, same.old_end_byte, same.new_end_byte),
            (2, 2, 2)
        );
        // A repeated run is not counted twice by prefix and suffix.
        let grown = input_edit(b"aa", b"aaa");
        assert_eq!(
            (grown.start_byte, grown.old_end_byte, grown.new_end_byte),
            (2, 2, 3)
        );
    }

    /// A deadline no parse here reaches.
    fn later() -> std::time::Instant {
        std::time::Instant::now() + std::time::Duration::from_secs(600)
    }

    #[test]
    fn a_kept_tree_is_reused_for_the_next_edit_and_finds_what_a_fresh_parse_finds() {
        let cache = TreeCache::default();
        let mut parser = rust_parser();
        let v1: String = (0..500)
            .map(|i| format!("fn f{i}() -> u32 {{ {i} }}\n"))
            .collect();
        let first = cache
            .parse("m.rs", "rust", &mut parser, (None, v1.as_bytes()), later())
            .unwrap();
        assert!(first.before.is_none() && first.after.is_empty());
        let v2 = v1.replace("fn f250() -> u32 { 250 }", "fn f250() -> u32 { 250 ");
        let second = cache
            .parse(
                "m.rs",
                "rust",
                &mut parser,
                (Some(v1.as_bytes()), v2.as_bytes()),
                later(),
            )
            .unwrap();
        assert_eq!(second.before.as_deref().map(<[Site]>::len), Some(0));
        let fresh = crate::parse::parse_errors(&mut parser, v2.as_bytes(), later()).unwrap();
        let lines = |s: &[Site]| s.iter().map(|e| (e.line, e.column)).collect::<Vec<_>>();
        assert!(!second.after.is_empty());
        assert_eq!(lines(&second.after), lines(&fresh));
        // Content the cache has not seen (another writer changed the file) parses afresh.
        let third = cache
            .parse(
                "m.rs",
                "rust",
                &mut parser,
                (Some(v1.as_bytes()), v1.as_bytes()),
                later(),
            )
            .unwrap();
        assert!(third.before.is_none());
    }

    #[test]
    fn at_most_the_newest_trees_are_kept() {
        let cache = TreeCache::default();
        let mut parser = rust_parser();
        for i in 0..KEPT_TREES + 3 {
            cache.parse(
                &format!("f{i}.rs"),
                "rust",
                &mut parser,
                (None, b"fn a() {}\n"),
                later(),
            );
        }
        assert_eq!(cache.len(), KEPT_TREES);
        let trees = cache.trees.lock().unwrap();
        assert!(
            !trees.contains_key("f0.rs") && trees.contains_key(&format!("f{}.rs", KEPT_TREES + 2))
        );
    }
}
