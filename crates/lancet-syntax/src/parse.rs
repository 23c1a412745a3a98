//! One tree-sitter parse within its time budget (reusing an edited tree when there is one),
//! and the error sites the tree holds.

use crate::site::Site;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// Longest a single parse may take before the file is reported unchecked.
pub(crate) const PARSE_BUDGET: Duration = Duration::from_secs(20);
/// Most errors reported per file.
const MAX_ERRORS_PER_FILE: usize = 20;

/// Parses `text` and lists its ERROR and MISSING nodes (outermost only), or `None` when the
/// parse ran over its time budget.
pub(crate) fn parse_errors(parser: &mut Parser, text: &[u8]) -> Option<Vec<Site>> {
    let tree = parse(parser, text)?;
    Some(error_sites(&tree))
}

fn parse(parser: &mut Parser, text: &[u8]) -> Option<Tree> {
    parse_from(parser, text, None)
}

/// Parses within the time budget, reusing `old_tree` (already edited) when given.
pub(crate) fn parse_from(
    parser: &mut Parser,
    text: &[u8],
    old_tree: Option<&Tree>,
) -> Option<Tree> {
    let started = Instant::now();
    let mut over_budget = |_: &ParseState| {
        if started.elapsed() > PARSE_BUDGET {
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
