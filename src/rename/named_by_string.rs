//! Python reaches an attribute by a string too: `getattr(obj, "x")`, and `setattr`, `hasattr`,
//! `delattr` alike, use `x` where no identifier stands. A rename that leaves such a string
//! leaves code reaching nothing, so it is refused unless the strings are renamed too
//! (`--include-strings`) or the person leaves what lancet cannot decide (`--leave-unresolved`).

use super::model::{FileScan, RenameOptions};
use super::scan::whole_word_offsets;
use crate::report::RenameRefusal;
use lancet_core::MAX_LISTED;

/// The builtins whose second argument names an attribute.
const BY_NAME: [&str; 4] = ["getattr", "setattr", "hasattr", "delattr"];

/// The refusal of a rename that would leave OLD named by a string a builtin reaches an
/// attribute through, if there is one in `scanned` (every file that holds OLD).
pub(super) fn named_by_string_refusal(
    opts: &RenameOptions,
    scanned: &[FileScan],
) -> Option<RenameRefusal> {
    if opts.include_strings || opts.leave_unresolved {
        return None;
    }
    let places: Vec<(String, usize, String)> = scanned
        .iter()
        .filter(|s| s.language == "python")
        .flat_map(|s| named_in(s, &opts.old))
        .take(MAX_LISTED)
        .collect();
    (!places.is_empty()).then(|| RenameRefusal::NamedByString {
        old: opts.old.clone(),
        places,
    })
}

/// Each string in `scan` that is exactly `old` and a builtin's attribute name: its path, line
/// and the builtin.
fn named_in(scan: &FileScan, old: &str) -> Vec<(String, usize, String)> {
    let text = scan.parsed.text.as_str();
    let root = scan.parsed.tree.root_node();
    whole_word_offsets(text.as_bytes(), old)
        .into_iter()
        .filter_map(|at| {
            let content = root.descendant_for_byte_range(at, at + old.len())?;
            let string = content.parent().filter(|s| s.kind() == "string")?;
            if content.kind() != "string_content" || content.byte_range() != (at..at + old.len()) {
                return None;
            }
            let arguments = string.parent().filter(|a| a.kind() == "argument_list")?;
            let call = arguments.parent().filter(|c| c.kind() == "call")?;
            let function = call.child_by_field_name("function")?;
            let builtin = text.get(function.byte_range())?;
            let second = arguments.named_child(1)?;
            (BY_NAME.contains(&builtin) && second.id() == string.id()).then(|| {
                (
                    scan.path.clone(),
                    lancet_core::line_of(&scan.starts, at),
                    builtin.to_string(),
                )
            })
        })
        .collect()
}
