//! A member the rename renames that may override a member of a base outside the tree
//! (`class Worker(threading.Thread): def run`): the code that calls it by its name is outside
//! the tree, where no rename reaches, so the renamed member would silently stop overriding it.
//! Such a rename refuses, listed, unless the person leaves it (`--leave-unresolved`: the base
//! has no member of that name).

use super::model::{Chosen, FileScan, RenameOptions, Resolution};
use super::registry::OutsideBases;
use crate::report::{OutsideReach, RenameRefusal};
use lancet_core::MAX_LISTED;

/// The refusal of a rename of a member that may override one of a base outside the tree: each
/// of its definitions, with the base.
pub(crate) fn outside_override_refusal(
    (outside, scanned): (&OutsideBases, &[FileScan]),
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved || outside.is_empty() {
        return None;
    }
    let mut places: Vec<(String, usize, OutsideReach)> = Vec::new();
    for scan in scanned {
        for o in scan.occurrences.iter().filter(|o| !o.kinds.is_empty()) {
            let Some(Resolution::Symbol(id)) = &o.resolution else {
                continue;
            };
            if let Some(base) = outside.get(id)
                && chosen.renames(o.resolution.as_ref(), opts)
            {
                places.push((scan.path.clone(), o.line, base.clone()));
            }
        }
    }
    places.sort();
    places.dedup();
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::OverridesOutside {
        old: opts.old.clone(),
        places,
    })
}
