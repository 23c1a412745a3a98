//! Where a chosen symbol can be mentioned: the strings and comments `--include-strings` and
//! `--include-comments` may rename, and the mentions a report lists. A local (a loop variable,
//! a parameter, a function's binding) is named only inside the block that holds its sites; a
//! module-private declaration (JavaScript/TypeScript, not exported) only in its file. A word in
//! another file's string (`Pick<Op, 'path' | 'id'>`) is another thing of the same spelling.

use super::model::{Chosen, FileScan, Resolution};
use super::scan::keyword_argument_named_by;
use crate::report::RenameSummary;
use std::ops::Range;
use tree_sitter::Node;

/// The nodes a local's scope can be: blocks, functions, classes and loops of the languages
/// lancet renames in.
const SCOPES: &[&str] = &[
    // JavaScript / TypeScript
    "statement_block",
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "arrow_function",
    "method_definition",
    "for_statement",
    "for_in_statement",
    "catch_clause",
    "class_body",
    // Python
    "function_definition",
    "lambda",
    "class_definition",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    // Rust
    "function_item",
    "closure_expression",
    "for_expression",
    "block",
];

/// Where the chosen symbol may be mentioned: a file and a byte range of it, or anywhere
/// (`None`: a symbol other files can name, or more than one symbol's places).
fn mention_scope(scans: &[FileScan], chosen: &Chosen) -> Option<(usize, Range<usize>)> {
    let Chosen::Ids(ids) = chosen else {
        return None;
    };
    if !ids.iter().all(|id| id.is_local() && !id.is_member()) {
        return None;
    }
    let mut holder = None;
    let mut sites = Vec::new();
    for (i, scan) in scans.iter().enumerate() {
        let root = scan.parsed.tree.root_node();
        for o in &scan.occurrences {
            if let Some(Resolution::Symbol(id)) = &o.resolution
                && ids.contains(id)
                && !names_a_keyword(root, o.at)
            {
                if holder.is_some_and(|h| h != i) {
                    return None;
                }
                holder = Some(i);
                sites.push(o.at);
            }
        }
    }
    let scan = &scans[holder?];
    let root = scan.parsed.tree.root_node();
    let nodes: Vec<Node> = sites
        .iter()
        .filter_map(|&at| root.descendant_for_byte_range(at, at + 1))
        .collect();
    // An exported declaration is seen by other modules: anywhere.
    if nodes.iter().any(|n| exported(*n)) || nodes.len() != sites.len() {
        return None;
    }
    let mut common = *nodes.first()?;
    for n in &nodes[1..] {
        while !(common.start_byte() <= n.start_byte() && n.end_byte() <= common.end_byte()) {
            common = common.parent()?;
        }
    }
    let mut scope = Some(common);
    while let Some(n) = scope {
        if SCOPES.contains(&n.kind()) && !names(n, common) {
            return Some((holder?, n.byte_range()));
        }
        scope = n.parent();
    }
    Some((holder?, root.byte_range()))
}

/// Whether the identifier at `at` is a call's keyword (`scale(value=4)`): it names a parameter
/// where the call stands, not a place the parameter is seen, so it widens no scope.
fn names_a_keyword(root: Node, at: usize) -> bool {
    root.descendant_for_byte_range(at, at + 1)
        .and_then(keyword_argument_named_by)
        .is_some()
}

/// Whether a node stands in an `export` statement (JavaScript/TypeScript) of its module, not
/// inside a function or block of one (a local of an exported function is still a local).
fn exported(node: Node) -> bool {
    let mut at = Some(node);
    while let Some(n) = at {
        match n.kind() {
            "export_statement" | "export_specifier" => return true,
            kind if SCOPES.contains(&kind) && !names(n, node) => return false,
            _ => at = n.parent(),
        }
    }
    false
}

/// Whether `name` is the name a function or class declares (its scope is around it, not it).
fn names(declaration: Node, name: Node) -> bool {
    declaration
        .child_by_field_name("name")
        .is_some_and(|n| n.id() == name.id())
}

/// Keeps only the mentions in the chosen symbol's scope (see the module's doc): the spans
/// `--include-strings` / `--include-comments` rename and the mentions the report lists.
pub(super) fn keep_mentions_in_scope(
    scans: &mut [FileScan],
    summary: &mut RenameSummary,
    chosen: &Chosen,
) {
    let Some((holder, range)) = mention_scope(scans, chosen) else {
        return;
    };
    let path = scans[holder].path.clone();
    for (i, scan) in scans.iter_mut().enumerate() {
        if i == holder {
            scan.mention_spans
                .retain(|s| range.contains(&s.start) && s.end <= range.end);
        } else {
            scan.mention_spans.clear();
        }
    }
    let starts = &scans[holder].starts;
    let lines = lancet_core::line_of(starts, range.start)
        ..=lancet_core::line_of(starts, range.end.saturating_sub(1).max(range.start));
    summary
        .mentions
        .retain(|m| m.path == path && lines.contains(&m.line));
}
