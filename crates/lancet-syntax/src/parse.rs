//! One tree-sitter parse that stops at a deadline (reusing an edited tree when there is one),
//! and the error sites the tree holds.

use crate::site::Site;
use std::ops::ControlFlow;
use std::time::Instant;
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// Most errors reported per file.
const MAX_ERRORS_PER_FILE: usize = 20;

/// Parses `text` and lists its ERROR and MISSING nodes (outermost only), or `None` when the
/// deadline came first.
pub(crate) fn parse_errors(
    parser: &mut Parser,
    text: &[u8],
    deadline: Instant,
) -> Option<Vec<Site>> {
    let tree = parse_from(parser, text, None, deadline)?;
    Some(error_sites(&tree))
}

/// Parses until `deadline`, reusing `old_tree` (already edited) when given.
pub(crate) fn parse_from(
    parser: &mut Parser,
    text: &[u8],
    old_tree: Option<&Tree>,
    deadline: Instant,
) -> Option<Tree> {
    let mut over_budget = |_: &ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut over_budget);
    let len = text.len();
    parser.parse_with_options(
        &mut |offset, _| if offset < len { &text[offset..] } else { &[] },
        old_tree,
        Some(options),
    )
}

/// Walks the tree with a cursor (no recursion: deeply nested input must not overflow the
/// stack), descending only into subtrees that contain an error.
pub(crate) fn error_sites(tree: &Tree) -> Vec<Site> {
    let mut sites = Vec::new();
    if !tree.root_node().has_error() {
        return sites;
    }
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let is_site = node.is_error() || node.is_missing();
        if is_site {
            let start = node.start_position();
            let kind = if node.is_missing() {
                format!("MISSING {}", node.kind())
            } else {
                "ERROR".to_string()
            };
            sites.push(Site {
                line: start.row,
                column: start.column,
                end: (node.end_position().row, node.end_position().column),
                kind,
            });
            if sites.len() == MAX_ERRORS_PER_FILE {
                break;
            }
        }
        if !is_site && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    sites
}
