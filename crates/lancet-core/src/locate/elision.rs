//! Elided context: old text whose `...` lines split it into pieces matched in order, the lines
//! between them kept.

use super::ladder::{Ladder, Search};
use super::{LocateError, Located, Match, Placement, Tier, closest, normalize};
use crate::batch::{Hunk, Occurrences, Pick};
use crate::locate::MissNote;

/// Elision: the old text's `...` lines split it into pieces that must match, in order, each
/// uniquely after the previous one; each is replaced by the new text's matching piece, and the
/// elided lines between them are kept.
pub(super) fn locate_elided(search: &Search, hunk: &Hunk) -> Result<Located, LocateError> {
    let old_pieces = split_at_elisions(&hunk.old);
    let new_pieces = split_at_elisions(&hunk.new);
    if old_pieces.len() != new_pieces.len() {
        return Err(LocateError::ElisionMismatch {
            old: old_pieces.len() - 1,
            new: new_pieces.len() - 1,
        });
    }
    let mut placements = Vec::new();
    let mut floor = 0;
    for (old, new) in old_pieces.iter().zip(&new_pieces) {
        if old.iter().all(|l| l.trim().is_empty()) {
            if new.iter().all(|l| l.trim().is_empty()) {
                continue;
            }
            return Err(LocateError::ElisionMismatch {
                old: old_pieces.len() - 1,
                new: new_pieces.len() - 1,
            });
        }
        let piece_search = Search {
            floor,
            cursor: floor,
            regions: None,
            occurrences: Occurrences::One,
            pick: Pick::Unique,
            ..search.clone()
        };
        match piece_search.ladder(old, &Tier::LINE_TIERS) {
            Ladder::Found(tier, starts, _) => {
                let start = starts[0];
                floor = start + old.len();
                placements.push(Placement {
                    at: Match {
                        start,
                        end: start + old.len(),
                        tier: Tier::Elision,
                    },
                    bytes: None,
                    old: old.clone(),
                    new: new.clone(),
                    new_text: None,
                    reindent: tier.ignores_indent(),
                    notes: Vec::new(),
                });
            }
            Ladder::Missing { .. } => {
                return Err(LocateError::NotFound {
                    closest: closest::closest_block(search.lines, search.hay.sketches(), old),
                    note: Some(Box::new(MissNote::ElidedPieceMissing {
                        piece: old
                            .iter()
                            .find(|l| !l.trim().is_empty())
                            .cloned()
                            .unwrap_or_default(),
                        after: floor,
                    })),
                });
            }
            other => return other.into_result(old, new, Some(Tier::Elision)),
        }
    }
    Ok(Located::Replace(placements))
}

fn split_at_elisions(lines: &[String]) -> Vec<Vec<String>> {
    let mut pieces = vec![Vec::new()];
    for line in lines {
        if normalize::is_elision_line(line) {
            pieces.push(Vec::new());
        } else if let Some(last) = pieces.last_mut() {
            last.push(line.clone());
        }
    }
    pieces
}
