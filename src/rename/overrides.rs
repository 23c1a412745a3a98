//! A member the rename renames that may override a member of a base outside the tree
//! (`class Worker(threading.Thread): def run`): the code that calls it by its name is outside
//! the tree, where no rename reaches, so the renamed member would silently stop overriding it.
//! Such a rename refuses, listed, unless the person leaves it (`--leave-unresolved`: the base
//! has no member of that name). So does one to a NEW such a base may define (`record` renamed
//! `set` in a `Map` subclass: the `Map` constructor would call it).

use super::model::{Chosen, FileScan, RenameOptions, Resolution, SymbolId};
use super::registry::OutsideReaches;
use crate::report::{OutsideReach, RenameRefusal};
use lancet_core::MAX_LISTED;
use std::collections::HashMap;

/// The refusal of a rename of a member that may override one of a base outside the tree (by
/// OLD: the rename would stop it), or that would start to (by NEW): each of its definitions,
/// with what may reach it.
pub(crate) fn outside_override_refusal(
    (outside, scanned): (&OutsideReaches, &[FileScan]),
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved {
        return None;
    }
    let places = |by: &HashMap<SymbolId, OutsideReach>| -> Vec<(String, usize, OutsideReach)> {
        let mut places = Vec::new();
        for scan in scanned {
            for o in scan.occurrences.iter().filter(|o| !o.kinds.is_empty()) {
                let Some(Resolution::Symbol(id)) = &o.resolution else {
                    continue;
                };
                if let Some(reach) = by.get(id)
                    && chosen.renames(o.resolution.as_ref(), opts)
                {
                    places.push((scan.path.clone(), o.line, reach.clone()));
                }
            }
        }
        places.sort();
        places.dedup();
        places.truncate(MAX_LISTED);
        places
    };
    let (by_old, by_new) = (places(&outside.old), places(&outside.new));
    if !by_old.is_empty() {
        return Some(RenameRefusal::OverridesOutside {
            old: opts.old.clone(),
            places: by_old,
        });
    }
    (!by_new.is_empty()).then(|| RenameRefusal::WouldOverrideOutside {
        new: opts.new.clone(),
        places: by_new,
    })
}
