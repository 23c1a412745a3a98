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
    if !by_new.is_empty() {
        return Some(RenameRefusal::WouldOverrideOutside {
            new: opts.new.clone(),
            places: by_new,
        });
    }
    in_hierarchy_refusal(&outside.new_in_tree, scanned, opts, chosen)
}

/// The refusal of a rename of a member to a NEW a class of the tree in its class's hierarchy
/// defines, in any file (`B.k` renamed `m` where base `A` defines `m` and calls `self.m()`):
/// the two would override each other.
fn in_hierarchy_refusal(
    found: &HashMap<SymbolId, (String, usize, String)>,
    scanned: &[FileScan],
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    let mut places: Vec<(String, usize, String)> = scanned
        .iter()
        .flat_map(|scan| &scan.occurrences)
        .filter(|o| chosen.renames(o.resolution.as_ref(), opts))
        .filter_map(|o| match &o.resolution {
            Some(Resolution::Symbol(id)) => found.get(id).cloned(),
            _ => None,
        })
        // A file the rename changes is read for NEW by the collisions, in its own words.
        .filter(|(path, ..)| {
            !scanned
                .iter()
                .any(|s| &s.path == path && !s.spans.is_empty())
        })
        .collect();
    places.sort();
    places.dedup();
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::NewInHierarchy {
        old: opts.old.clone(),
        new: opts.new.clone(),
        places,
    })
}
