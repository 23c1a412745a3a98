//! A Python doctest's expected output is text doctest compares with what the example prints:
//! `P(x=1)`, `'area'`, `{'x': 2}`. A rename that leaves OLD there fails the doctest wherever
//! the renamed program prints NEW, so it is refused unless those lines are renamed
//! (`--include-strings`, in the symbol's scope) or the person leaves them (`--leave-unresolved`).

use super::doctests::{docstrings, python_outputs};
use super::model::{Chosen, FileScan, RenameOptions};
use crate::report::RenameRefusal;
use lancet_core::MAX_LISTED;

/// The refusal of a rename that would leave OLD in a doctest's expected output, if it would:
/// not of locals only (an example prints no function's local by name), and not where a string
/// of a `__repr__`, `__str__` or `__format__` the rename leaves also spells OLD
/// (`f"<Request [{m}]>"`: the output may come from it, unchanged). A printed OLD no such string
/// spells comes from the program's names (a dataclass's repr, `__name__`), which the rename
/// changes.
pub(super) fn doctest_output_refusal(
    scanned: &[FileScan],
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved || chosen.only_locals() {
        return None;
    }
    let mut in_outputs: Vec<(String, usize)> = Vec::new();
    let mut in_code_strings = false;
    for scan in scanned.iter().filter(|s| s.language == "python") {
        let left: Vec<usize> = scan
            .mentions
            .iter()
            .filter(|m| m.context == "string")
            .filter(|m| !scan.mention_spans.iter().any(|s| s.start == m.at))
            .map(|m| m.at)
            .collect();
        if left.is_empty() {
            continue;
        }
        let (text, tree) = (&scan.parsed.text, &scan.parsed.tree);
        let docstrings = docstrings(text, tree);
        let outputs = python_outputs(text, &docstrings);
        for at in left {
            if outputs.iter().any(|o| o.contains(&at)) {
                let line = lancet_core::line_of(&scan.starts, at);
                if !in_outputs.contains(&(scan.path.clone(), line)) {
                    in_outputs.push((scan.path.clone(), line));
                }
            } else if !docstrings.iter().any(|d| d.contains(&at)) && in_repr(text, tree, at) {
                in_code_strings = true;
            }
        }
    }
    in_outputs.truncate(MAX_LISTED);
    (!in_outputs.is_empty() && !in_code_strings).then(|| RenameRefusal::DoctestOutput {
        old: opts.old.clone(),
        places: in_outputs,
    })
}

/// Whether byte `at` stands in the body of a method that words an object (`__repr__`,
/// `__str__`, `__format__`), whose strings an example's output may print.
fn in_repr(text: &str, tree: &tree_sitter::Tree, at: usize) -> bool {
    let Some(node) = tree.root_node().descendant_for_byte_range(at, at + 1) else {
        return false;
    };
    std::iter::successors(Some(node), |n| n.parent())
        .filter(|n| n.kind() == "function_definition")
        .filter_map(|f| f.child_by_field_name("name"))
        .any(|name| {
            matches!(
                &text[name.byte_range()],
                "__repr__" | "__str__" | "__format__"
            )
        })
}
