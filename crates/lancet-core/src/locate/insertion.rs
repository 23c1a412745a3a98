//! Placing a pure insertion: after its `@@` context line, after an explicit line, or at the end,
//! unless what it adds stands there already.

use super::evidence::{has_words, trim_trailing_blank};
use super::fuzzy::definition_name;
use super::headers::Regions;
use super::ladder::Search;
use super::{LocateError, Located, Match, Placement, Tier};
use crate::batch::{Anchor, Hunk};
use crate::locate::MissNote;

/// A pure addition goes after its `@@` context line, after an explicit line, or at the end.
pub(super) fn locate_insertion(
    search: &Search,
    hunk: &Hunk,
    regions: Option<&Regions>,
) -> Result<Located, LocateError> {
    let n = search.lines.len();
    let at = match (hunk.anchor, regions) {
        (Anchor::AfterLine(line), _) if line > n => {
            return Err(LocateError::NotFound {
                closest: None,
                note: Some(Box::new(MissNote::PastTheEnd { line, lines: n })),
            });
        }
        (Anchor::AfterLine(line), _) => line,
        (Anchor::EndOfFile, _) | (Anchor::Anywhere, None) => n,
        (Anchor::Anywhere, Some(r)) => match search.narrow(r.starts.clone()).as_slice() {
            [one] => *one,
            many => {
                return Err(LocateError::ContextAmbiguous {
                    header: r.header.clone(),
                    // Region starts are the lines after each header: its 1-based numbers.
                    candidates: many.to_vec(),
                });
            }
        },
    };
    let new = trim_trailing_blank(&hunk.new);
    let explicit = matches!(hunk.anchor, Anchor::AfterLine(_));
    if regions.is_some()
        && let Some(header) = at.checked_sub(1).map(|h| search.lines[h])
        && let Some(added) = new.iter().find(|l| !l.trim().is_empty())
        && added.trim() != header.trim()
        && definition_name(header).is_some()
        && definition_name(header) == definition_name(added)
    {
        return Err(LocateError::ChangedHeader {
            header: header.trim().to_string(),
            line: at,
            added: added.trim().to_string(),
        });
    }
    let present = if explicit {
        None
    } else if at == n && regions.is_none() {
        n.checked_sub(new.len())
            .filter(|&s| Tier::TrailingWs.block_eq(search.lines, s, new))
    } else {
        Some(at).filter(|&s| Tier::TrailingWs.block_eq(search.lines, s, new))
    };
    if let Some(start) = present
        && has_words(new)
    {
        return Ok(Located::AlreadyApplied {
            at: Match {
                start,
                end: start + new.len(),
                tier: Tier::TrailingWs,
            },
        });
    }
    Ok(Located::Replace(vec![Placement {
        at: Match {
            start: at,
            end: at,
            tier: Tier::Exact,
        },
        bytes: None,
        old: Vec::new(),
        new: hunk.new.clone(),
        new_text: None,
        reindent: false,
        notes: Vec::new(),
    }]))
}
