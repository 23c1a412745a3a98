//! Where text goes and goes away in a move: the block cut (and the blank lines around it),
//! where imports and the moved block are put, items removed from an import or `__all__`.

use super::super::edits::{Edits, is_blank_line, line_end, line_start};
use super::statements::{
    all_items, all_list, import_items, in_all, statement_of, text, top_statements,
};
use super::{Planned, Request};
use crate::rename::model::{Parsed, Resolution};
use crate::report::MoveRefusal;
use tree_sitter::Node;

/// A module's changes as one replacement when they leave blank lines at its top, or more
/// than two in a row, where it had none (an import gone from the old or the new module): the
/// text with those dropped.
pub(super) fn tidy_blank_lines(planned: &mut Planned, text: &str, path: &str) {
    let Some(edits) = planned.edits.remove(path) else {
        return;
    };
    let Ok(after) = edits.clone_applied(text) else {
        planned.edits.insert(path.to_string(), edits);
        return;
    };
    let leading = |t: &str| t.starts_with('\n');
    let runs = |t: &str| t.contains("\n\n\n\n");
    let new_leading = leading(&after) && !leading(text);
    let new_runs = runs(&after) && !runs(text);
    if !new_leading && !new_runs {
        planned.edits.insert(path.to_string(), edits);
        return;
    }
    let mut tidy = after.clone();
    if !leading(text) {
        tidy = tidy.trim_start_matches('\n').to_string();
    }
    if !runs(text) {
        while tidy.contains("\n\n\n\n") {
            tidy = tidy.replace("\n\n\n\n", "\n\n\n");
        }
    }
    let mut whole = Edits::default();
    whole.replace(0, text.len(), tidy);
    planned.edits.insert(path.to_string(), whole);
}

/// The bytes that move: the statement's lines, with the comments directly above it (not a
/// shebang or an encoding line).
pub(super) fn block_range(m: &Parsed, stmt: Node) -> (usize, usize) {
    let mut start = line_start(&m.text, stmt.start_byte());
    let mut row = stmt.start_position().row;
    let mut prev = stmt.prev_sibling();
    while let Some(p) = prev {
        let is_header = p.start_position().row < 2 && {
            let t = text(p, m);
            t.starts_with("#!") || t.contains("coding")
        };
        if p.kind() != "comment"
            || p.end_position().row + 1 != row
            || p.start_position().column != 0
            || is_header
        {
            break;
        }
        start = line_start(&m.text, p.start_byte());
        row = p.start_position().row;
        prev = p.prev_sibling();
    }
    let end = line_end(
        &m.text,
        stmt.end_byte().saturating_sub(1).max(stmt.start_byte()),
    );
    (start, end)
}

/// The range cut from the old module: the block, and the blank lines after it when blank
/// lines stood before it too (or all of them at the end of the file), so the separation
/// between what stays is as it was.
pub(super) fn tidy_cut(text: &str, start: usize, end: usize) -> (usize, usize) {
    let mut after = end;
    while after < text.len() && is_blank_line(text, after) {
        after = line_end(text, after);
    }
    if after >= text.len() {
        let mut before = start;
        while before > 0 {
            let prev = line_start(text, before - 1);
            if !is_blank_line(text, prev) {
                break;
            }
            before = prev;
        }
        return (before, text.len());
    }
    let blank_before = start == 0 || is_blank_line(text, line_start(text, start - 1));
    (start, if blank_before { after } else { end })
}

/// Inserts import statements (`lines`, without the last newline) where a module's imports go
/// (`import_point`). In a module with neither imports nor a docstring: past a shebang and an
/// encoding line, which must stay on the first two lines, and past a heading set apart by a
/// blank line (a licence), with the two blank lines PEP 8 asks before a `def` or `class` that
/// follows (none before other code, as rope writes it); above the comments directly over the
/// first statement.
pub(super) fn insert_import(edits: &mut Edits, m: &Parsed, lines: &str) {
    let at = import_point(m);
    if at > 0 {
        edits.insert(at, format!("{lines}\n"));
        return;
    }
    let text = &m.text;
    let mut top = 0;
    if text.starts_with("#!") {
        top = line_end(text, 0);
    }
    if text[top..line_end(text, top)].trim_start().starts_with('#')
        && text[top..line_end(text, top)].contains("coding")
    {
        top = line_end(text, top);
    }
    let mut after_comments = top;
    while after_comments < text.len()
        && text[after_comments..]
            .trim_start_matches([' ', '\t'])
            .starts_with('#')
    {
        after_comments = line_end(text, after_comments);
    }
    if after_comments > top && after_comments < text.len() && is_blank_line(text, after_comments) {
        // Under the heading, past the blank line that sets it apart, which stays above.
        edits.insert(after_comments, format!("\n{lines}\n"));
        return;
    }
    let mut next = top;
    while next < text.len() && edits.covers(next) {
        next = line_end(text, next);
    }
    let mut code = next;
    while code < text.len() && (edits.covers(code) || text[code..].starts_with('#')) {
        code = line_end(text, code);
    }
    let definition = ["def ", "class ", "async def ", "@"]
        .iter()
        .any(|k| text[code..].starts_with(k));
    let separation = if next < text.len() && !is_blank_line(text, next) && definition {
        "\n\n"
    } else {
        ""
    };
    edits.insert(top, format!("{lines}\n{separation}"));
}

/// Where imports are added to a module: after its first run of imports (past its docstring
/// and `__future__` imports), else after its docstring, else at the top.
fn import_point(m: &Parsed) -> usize {
    let mut last = None;
    let mut docstring = None;
    for (i, s) in top_statements(m).into_iter().enumerate() {
        match s.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                last = Some(s)
            }
            "expression_statement"
                if i == 0 && s.named_child(0).is_some_and(|c| c.kind() == "string") =>
            {
                docstring = Some(s)
            }
            _ => break,
        }
    }
    match last.or(docstring) {
        Some(s) => line_end(&m.text, s.end_byte().saturating_sub(1).max(s.start_byte())),
        None => 0,
    }
}

/// Whether `name` is still used in the old module outside the moved block (an identifier,
/// or a string of its `__all__`).
pub(super) fn still_used(m: &Parsed, name: &str, (start, end): (usize, usize)) -> bool {
    let mut stack = vec![m.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.start_byte() >= start && n.end_byte() <= end && n.start_byte() < end {
            continue;
        }
        if matches!(n.kind(), "import_statement" | "import_from_statement") {
            continue;
        }
        if n.kind() == "identifier" && text(n, m) == name {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    in_all(m, name)
}

/// Removes one item of an import statement (or `__all__`'s list), or the whole statement
/// (its lines, when it stands alone on them) when it is the only one.
pub(super) fn remove_item(edits: &mut Edits, m: &Parsed, stmt: Node, item: Node) {
    let items = import_items(stmt);
    remove_among(edits, m, stmt, &items, item);
}

/// Removes `item` among `items` (the named parts of `holder`), with the items a change
/// already removes: each run of removed items with the comma after it (before it at the end),
/// or `holder`'s statement when none stays. One edit per run, so two items of one statement
/// never give two overlapping deletions.
pub(super) fn remove_among(
    edits: &mut Edits,
    m: &Parsed,
    holder: Node,
    items: &[Node],
    item: Node,
) {
    if !items.iter().any(|x| x.id() == item.id()) {
        return;
    }
    let removed: Vec<bool> = items
        .iter()
        .map(|x| x.id() == item.id() || edits.covers(x.start_byte()))
        .collect();
    let (first, last) = (items[0], items[items.len() - 1]);
    if removed.iter().all(|r| *r) {
        let stmt = statement_of(holder);
        let (start, end) = (stmt.start_byte(), stmt.end_byte());
        edits.drop_deletions_within(start, end);
        let line_from = line_start(&m.text, start);
        let line_to = line_end(&m.text, end.saturating_sub(1).max(start));
        let alone =
            m.text[line_from..start].trim().is_empty() && m.text[end..line_to].trim().is_empty();
        // The only statement of a block (`if TYPE_CHECKING:`) leaves `pass`, not an empty body.
        let only_in_block = stmt.parent().is_some_and(|p| {
            let mut cursor = p.walk();
            p.kind() == "block"
                && p.named_children(&mut cursor)
                    .all(|c| c.id() == stmt.id() || c.kind() == "comment")
        });
        if alone && !only_in_block {
            edits.replace(line_from, line_to, "");
        } else {
            edits.replace(start, end, "pass");
        }
        return;
    }
    edits.drop_deletions_within(first.start_byte(), last.end_byte());
    let mut i = 0;
    while i < items.len() {
        if !removed[i] {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < items.len() && removed[i] {
            i += 1;
        }
        // Some item stays: a run either has one after it, or one before it.
        match items.get(i) {
            Some(next) => edits.replace(items[run_start].start_byte(), next.start_byte(), ""),
            None => edits.replace(items[run_start - 1].end_byte(), items[i - 1].end_byte(), ""),
        }
    }
}

/// Drops `name` from the module's `__all__`.
pub(super) fn remove_from_all(edits: &mut Edits, m: &Parsed, name: &str) {
    let Some(list) = all_list(m) else { return };
    let items = all_items(list, m);
    let nodes: Vec<Node> = items.iter().map(|(n, _)| *n).collect();
    if let Some((node, _)) = items.iter().find(|(_, s)| *s == name) {
        if nodes.len() == 1 {
            edits.replace(node.start_byte(), node.end_byte(), "");
        } else {
            remove_among(edits, m, list, &nodes, *node);
        }
    }
}

/// Adds `name` to the module's `__all__`, when it has a literal one without it.
pub(super) fn add_to_all(edits: &mut Edits, m: &Parsed, name: &str) {
    let Some(list) = all_list(m) else { return };
    let items = all_items(list, m);
    if items.iter().any(|(_, s)| *s == name) {
        return;
    }
    let quote = items
        .first()
        .and_then(|(n, _)| text(*n, m).chars().next())
        .filter(|c| *c == '\'' || *c == '"')
        .unwrap_or('"');
    match items.last() {
        Some((last, _)) => edits.insert(last.end_byte(), format!(", {quote}{name}{quote}")),
        None => edits.insert(list.start_byte() + 1, format!("{quote}{name}{quote}")),
    }
}

/// Where the moved block goes in an existing new module that uses the name at its top
/// level (run on import): before the first statement that does.
pub(super) fn first_top_level_use(req: &Request, b: &Parsed) -> Option<usize> {
    let scan = req.scans.iter().find(|s| s.path == req.to)?;
    for o in &scan.occurrences {
        if o.doctest || !matches!(&o.resolution, Some(Resolution::Symbol(id)) if id == req.primary)
        {
            continue;
        }
        let node = b
            .tree
            .root_node()
            .descendant_for_byte_range(o.at, o.at + req.name.len())?;
        let mut at = node;
        let mut runs_on_import = true;
        let mut in_import = false;
        while let Some(p) = at.parent() {
            match p.kind() {
                "function_definition" | "lambda"
                    if p.child_by_field_name("body")
                        .is_some_and(|b| b.id() == at.id()) =>
                {
                    runs_on_import = false;
                }
                "import_from_statement" | "import_statement" => in_import = true,
                _ => {}
            }
            if p.kind() == "module" {
                break;
            }
            at = p;
        }
        if runs_on_import && !in_import {
            return Some(line_start(&b.text, at.start_byte()));
        }
    }
    None
}

/// Drops the `b.` of `b.x` in the moved block (the new module's own names).
pub(super) fn rewrite_block(
    block: &str,
    ranges: &[(usize, usize)],
    block_start: usize,
) -> Result<String, MoveRefusal> {
    if ranges.is_empty() {
        return Ok(block.to_string());
    }
    let mut edits = Edits::default();
    for (start, end) in ranges {
        edits.replace(start - block_start, end - block_start, "");
    }
    edits.apply(block).map_err(|at| MoveRefusal::Overlap {
        path: String::new(),
        line: at,
    })
}

#[cfg(test)]
mod tests {
    use super::tidy_cut;

    #[test]
    fn the_cut_keeps_the_separation_of_what_stays() {
        let text = "a = 1\n\n\ndef f():\n    pass\n\n\nb = 2\n";
        let start = text.find("def").unwrap();
        let end = text.find("\n\n\nb").unwrap() + 1;
        let (s, e) = tidy_cut(text, start, end);
        assert_eq!(
            format!("{}{}", &text[..s], &text[e..]),
            "a = 1\n\n\nb = 2\n"
        );
        let last = "a = 1\n\n\ndef f():\n    pass\n";
        let (s, e) = tidy_cut(last, last.find("def").unwrap(), last.len());
        assert_eq!(format!("{}{}", &last[..s], &last[e..]), "a = 1\n");
    }
}
