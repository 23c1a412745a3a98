//! `@@` header narrowing: the regions a chain of context headers opens, and what becomes of a
//! hunk whose header matches no line (an advisory anchor dropped, a stale header read).

use super::ladder::{Ladder, Search};
use super::{Haystack, Hints, LocateError, Located, Tier, closest, locate};
use crate::batch::Hunk;
use crate::notes::HunkNote;

/// Regions opened by a chain of `@@` headers: each start is the line after a possible
/// occurrence of the last header.
pub(super) struct Regions {
    /// The last header, for messages.
    pub(super) header: String,
    /// Sorted, distinct 0-based line indexes.
    pub(super) starts: Vec<usize>,
}

pub(super) fn header_regions(
    hay: &Haystack,
    headers: &[String],
) -> Result<Option<Regions>, LocateError> {
    let lines = &hay.lines[..];
    let mut starts: Option<Vec<usize>> = None;
    for header in headers {
        let floor = starts
            .as_ref()
            .and_then(|s| s.first().copied())
            .unwrap_or(0);
        let hits = [
            Tier::Exact,
            Tier::Eol,
            Tier::TrailingWs,
            Tier::Trimmed,
            Tier::Unicode,
        ]
        .iter()
        .map(|&tier| {
            (floor..lines.len())
                .filter(|&i| tier.line_eq(lines[i], header))
                .collect::<Vec<_>>()
        })
        .find(|hits| !hits.is_empty())
        .unwrap_or_default();
        let mut next: Vec<usize> = match &starts {
            None => hits.iter().map(|h| h + 1).collect(),
            Some(starts) => starts
                .iter()
                .filter_map(|&s| hits.iter().find(|&&h| h >= s).map(|h| h + 1))
                .collect(),
        };
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return Err(LocateError::ContextNotFound {
                header: header.clone(),
                closest: closest::closest_line(lines, hay.sketches(), header),
            });
        }
        starts = Some(next);
    }
    Ok(starts.map(|starts| Regions {
        header: headers.last().cloned().unwrap_or_default(),
        starts,
    }))
}

/// A stale `@@` header (the model copied an old signature, `def load(path):` for the file's
/// `def load(path: str) -> dict:`) names no line. The chunk is placed by its own lines when the
/// header's nearest line carries every word of the header (it is that line, grown), the lines
/// occur exactly once at a line tier, and they lie below that line; the report says so. A
/// header naming something else (`def stop():` where only `def start():` exists) keeps its
/// failure: the model meant another place.
/// A hunk whose lone advisory `@@` anchor matches nothing: placed by its own lines, as if it
/// had no anchor, and the report says so.
pub(super) fn locate_without_anchor(
    hay: &Haystack,
    hunk: &Hunk,
    hints: Hints,
    header: &str,
) -> Result<Located, LocateError> {
    let bare = Hunk {
        context: Vec::new(),
        context_advisory: false,
        ..hunk.clone()
    };
    let note = HunkNote::AdvisoryAnchor(header.to_string());
    match locate(hay, &bare, hints)? {
        Located::Replace(mut placements) => {
            for p in &mut placements {
                p.notes.push(note.clone());
            }
            Ok(Located::Replace(placements))
        }
        applied => Ok(applied),
    }
}

pub(super) fn locate_by_body_alone(
    hay: &Haystack,
    hunk: &Hunk,
    header: String,
    closest: Option<closest::Closest>,
) -> Result<Located, LocateError> {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| w.len() >= 2)
            .map(str::to_string)
            .collect()
    };
    let stale_of = closest.as_ref().map(|c| c.start_line - 1).filter(|&i| {
        let line_words = words(hay.lines[i]);
        words(&header).iter().all(|w| line_words.contains(w))
    });
    let Some(header_line) = stale_of else {
        return Err(LocateError::ContextNotFound { header, closest });
    };
    let search = Search::bare(hay, hunk.anchor);
    match search.ladder(&hunk.old, Tier::LINE_TIERS) {
        Ladder::Found(tier, starts, _) if starts[0] > header_line => {
            let note = HunkNote::HeaderMissed {
                header: header.to_string(),
                nearest: header_line + 1,
                nearest_text: hay.lines[header_line].trim().to_string(),
            };
            Ladder::Found(tier, starts, vec![note]).into_result(&hunk.old, &hunk.new, None)
        }
        _ => Err(LocateError::ContextNotFound { header, closest }),
    }
}
