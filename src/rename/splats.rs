//! A Python call that unpacks a mapping lancet cannot read (`area(**kw)`, `kw` built
//! elsewhere) may pass any keyword: a rename of one of the function's parameters would leave a
//! key of it naming nothing, a TypeError where it runs. Such a call refuses the rename, listed,
//! unless the person leaves it (`--leave-unresolved`). A dictionary written in the call
//! (`area(**{"w": 1})`) is read by [`super::named_by_string`] instead.

use super::model::{Chosen, FileScan, RenameOptions};
use super::scan::renamers;
use crate::report::RenameRefusal;
use lancet_core::{MAX_LISTED, Root};
use rayon::prelude::*;
use tree_sitter::{Node, Parser};

/// The refusal of a rename of a Python parameter some call passes unread keywords to.
pub(super) fn splat_refusal(
    root: &Root,
    files: &[String],
    scanned: &[FileScan],
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved {
        return None;
    }
    let callees: Vec<String> = scanned
        .iter()
        .filter(|s| s.language == "python")
        .flat_map(|s| renamed_parameters_of(s, opts, chosen))
        .collect();
    if callees.is_empty() {
        return None;
    }
    let python = renamers().iter().find(|r| r.entry.name == "python")?;
    let mut places: Vec<(String, usize, String)> = files
        .par_iter()
        .filter(|f| f.ends_with(".py") || f.ends_with(".pyi"))
        .flat_map_iter(|path| {
            let found = root.dir().read(path).ok().and_then(|bytes| {
                let text = String::from_utf8(bytes).ok()?;
                let named = callees.iter().any(|c| text.contains(c.as_str()));
                named.then(|| unread_splats(&text, &python.grammar, &callees, &opts.old))
            });
            found
                .unwrap_or_default()
                .into_iter()
                .map(move |(line, call)| (path.clone(), line, call))
        })
        .collect();
    places.sort();
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::UnreadKeywords {
        old: opts.old.clone(),
        places,
    })
}

/// The names a call of each function whose parameter OLD the rename renames is spelled with:
/// the function's name, or its class's for an `__init__`.
fn renamed_parameters_of(scan: &FileScan, opts: &RenameOptions, chosen: &Chosen) -> Vec<String> {
    let root = scan.parsed.tree.root_node();
    let text = scan.parsed.text.as_str();
    scan.occurrences
        .iter()
        .filter(|o| {
            !o.kinds.is_empty() && !o.doctest && chosen.renames(o.resolution.as_ref(), opts)
        })
        .filter_map(|o| {
            let node = root.descendant_for_byte_range(o.at, o.at + opts.old.len())?;
            let function = parameter_of(node)?;
            let name = &text[function.child_by_field_name("name")?.byte_range()];
            if name != "__init__" {
                return Some(name.to_string());
            }
            let class = std::iter::successors(function.parent(), |n| n.parent())
                .find(|n| n.kind() == "class_definition")?;
            Some(text[class.child_by_field_name("name")?.byte_range()].to_string())
        })
        .collect()
}

/// The function `node` is a parameter's name of, if it is one (plain, typed, with a default).
fn parameter_of(node: Node) -> Option<Node> {
    let mut at = node.parent()?;
    if matches!(
        at.kind(),
        "typed_parameter" | "default_parameter" | "typed_default_parameter"
    ) {
        at = at.parent()?;
    }
    // A parameter before `/` is passed by position only: no keyword reaches it.
    let param = if at.kind() == "parameters" {
        node
    } else {
        node.parent()?
    };
    let positional_only = std::iter::successors(param.next_sibling(), |n| n.next_sibling())
        .any(|n| n.kind() == "positional_separator");
    (at.kind() == "parameters" && !positional_only)
        .then(|| at.parent())
        .flatten()
        .filter(|f| f.kind() == "function_definition")
}

/// Each call in `text` of one of `callees` (by the last part of its callee, or the function
/// `partial` binds) that unpacks a mapping other than a dictionary written in place, or that
/// `partial` binds a keyword `old` for: its line and the call's text.
fn unread_splats(
    text: &str,
    grammar: &tree_sitter::Language,
    callees: &[String],
    old: &str,
) -> Vec<(usize, String)> {
    let mut parser = Parser::new();
    if parser.set_language(grammar).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    // The docstrings' doctests too, on their shadow (the file's offsets, so its lines).
    let shadow = super::doctests::python(text, &tree)
        .and_then(|shadow| Some((parser.parse(&shadow.text, None)?, shadow.text)));
    let mut found = calls_unpacking(text, tree.root_node(), callees, old);
    if let Some((tree, text)) = &shadow {
        found.extend(calls_unpacking(text, tree.root_node(), callees, old));
    }
    found
}

/// Whether the mapping a `**` unpacks is a dictionary written in place whose keys are all
/// strings (no `**` of its own, no key computed): one [`super::named_by_string`] reads.
fn read_in_place(splat: Node) -> bool {
    splat
        .named_child(0)
        .filter(|m| m.kind() == "dictionary")
        .is_some_and(|dictionary| {
            let mut cursor = dictionary.walk();
            dictionary.named_children(&mut cursor).all(|pair| {
                pair.kind() == "pair"
                    && pair
                        .child_by_field_name("key")
                        .is_some_and(|k| k.kind() == "string")
            })
        })
}

/// [`unread_splats`] in one parse.
fn calls_unpacking(text: &str, root: Node, callees: &[String], old: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() != "call" {
            continue;
        }
        let Some(callee) = node.child_by_field_name("function") else {
            continue;
        };
        let Some(arguments) = node.child_by_field_name("arguments") else {
            continue;
        };
        let last = |n: Node| {
            text[n.byte_range()]
                .rsplit('.')
                .next()
                .unwrap_or("")
                .to_string()
        };
        // `partial(area, **kw)`: the function bound first, its keywords after it.
        let bound = (last(callee) == "partial")
            .then(|| arguments.named_child(0))
            .flatten();
        let called = bound.map_or_else(|| last(callee), last);
        if !callees.contains(&called) {
            continue;
        }
        let mut cursor = arguments.walk();
        // A keyword `partial` binds (`partial(area, w=1)`): the resolver reads it as
        // `partial`'s, so the rename would leave it.
        let unread = arguments.named_children(&mut cursor).any(|a| {
            (a.kind() == "dictionary_splat" && !read_in_place(a))
                || (bound.is_some()
                    && a.kind() == "keyword_argument"
                    && a.child_by_field_name("name")
                        .is_some_and(|n| &text[n.byte_range()] == old))
        });
        if unread {
            let call = text[node.byte_range()].lines().next().unwrap_or("").trim();
            found.push((node.start_position().row + 1, call.to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::unread_splats;
    use crate::rename::scan::renamers;

    #[test]
    fn calls_unpacking_a_mapping_lancet_cannot_read_are_found() {
        let text = "\
area(**kw)
shapes.area(1, **options)
area(**{'w': 1})
other(**kw)
area(w=1)
Box(**dict(w=1))
area(**{**kw, 'h': 1}) + area(**{K: 1}) + functools.partial(area, **kw)() + partial(area, w=2)()

def f():
    \"\"\"
    >>> area(**options)
    \"\"\"
";
        let python = renamers()
            .iter()
            .find(|r| r.entry.name == "python")
            .unwrap();
        let callees = ["area".to_string(), "Box".to_string()];
        let mut found = unread_splats(text, &python.grammar, &callees, "w");
        found.sort();
        assert_eq!(
            found,
            [
                (1, "area(**kw)".to_string()),
                (2, "shapes.area(1, **options)".to_string()),
                (6, "Box(**dict(w=1))".to_string()),
                (7, "area(**{**kw, 'h': 1})".to_string()),
                (7, "area(**{K: 1})".to_string()),
                (7, "functools.partial(area, **kw)".to_string()),
                (7, "partial(area, w=2)".to_string()),
                (11, "area(**options)".to_string()),
            ]
        );
    }
}
