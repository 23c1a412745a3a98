//! The reflow tier: old text found once the edit's and the file's line breaks are read as
//! whitespace, and spliced so the file keeps its own layout wherever the edit changes nothing.

use super::ladder::{Search, longest_word};
use super::tier::loose_indexed;
use super::{Haystack, LocateError, Located, Match, Placement, Tier};
use crate::batch::{Anchor, Hunk};
use crate::locate::MissNote;
use crate::text::shared_ends;

/// A fragment of a line must carry at least this many characters (loosely read): shorter ones
/// (`x`, `i += 1`) occur inside too many unrelated lines to mean one place.
const MIN_FRAGMENT: usize = 8;

/// The reflow tier: the old text read loosely as one string (line breaks are whitespace), found
/// exactly once in the file read the same way. The match must cover whole lines, except that a
/// one-line old text may be part of a line where the format allows fragments. Returns `None`
/// when nothing matches; several matches are refused.
pub(super) fn locate_reflowed(
    search: &Search,
    hunk: &Hunk,
    fragments: bool,
) -> Option<Result<Located, LocateError>> {
    let hay = search.hay;
    let (old, new) = match &hunk.text {
        Some(t) => (t.old.clone(), t.new.clone()),
        None => (hunk.old.join("\n"), hunk.new.join("\n")),
    };
    let (needle, _) = loose_indexed(&old);
    // An edit that only re-wraps lines reads the same loosely before and after: this tier
    // cannot tell where it stands, so it proves nothing either way.
    if loose_indexed(&new).0 == needle {
        return None;
    }
    let word = longest_word(&needle)?;
    if !needle.chars().any(char::is_alphanumeric) {
        return None;
    }
    let one_line = !old.trim().contains('\n');
    // Candidate regions: around each line holding the needle's longest word, wide enough for
    // the needle's text laid out over many more (or fewer) lines than the edit used.
    let span = hunk.old.len().max(1) * 2 + 16;
    let n = hay.lines.len();
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut searched_to = 0;
    for line in hay.lines_containing(word, 0..n) {
        let from = line.saturating_sub(span).max(searched_to);
        let to = (line + span + 1).min(n);
        if from >= to {
            continue;
        }
        let base = hay.starts[from];
        let end = if to < n {
            hay.starts[to]
        } else {
            hay.text.len()
        };
        let (loose, origin) = loose_indexed(&hay.text[base..end]);
        for (at, _) in loose.match_indices(needle.as_str()) {
            let start = base + origin[at].0;
            let stop = base + origin[at + needle.len() - 1].1;
            if !found.contains(&(start, stop)) {
                found.push((start, stop));
            }
        }
        searched_to = line.saturating_sub(span / 2).max(from);
        if found.len() > 8 {
            break;
        }
    }
    found.retain(|&(start, stop)| {
        let whole = covers_whole_lines(hay.text, start, stop);
        let bounded = word_bounded(hay.text, start, stop);
        whole || (fragments && one_line && bounded && needle.chars().count() >= MIN_FRAGMENT)
    });
    // Blank lines the old text starts or ends with are no layout to reflow: the file must have
    // them beside the match, or the new text would write blank lines the file never had.
    if hunk.text.is_none() {
        let blank = |l: &&String| l.trim().is_empty();
        let leading = hunk.old.iter().take_while(blank).count();
        let trailing = hunk.old.iter().rev().take_while(blank).count();
        if leading < hunk.old.len() && (leading > 0 || trailing > 0) {
            found.retain(|&(start, stop)| {
                let first = hay.line_of(start);
                let last = hay.line_of(stop.saturating_sub(1).max(start));
                let blank_at = |i: usize| hay.lines.get(i).is_some_and(|l| l.trim().is_empty());
                (1..=leading).all(|k| first >= k && blank_at(first - k))
                    && (1..=trailing).all(|k| blank_at(last + k))
            });
        }
    }
    // The hunk's own constraints hold here as at every tier: `*** End of File`, `@@` headers.
    if hunk.anchor == Anchor::EndOfFile {
        found.retain(|&(_, stop)| hay.text[stop..].trim().is_empty());
    }
    if search.regions.is_some() {
        let starts: Vec<usize> = found.iter().map(|&(s, _)| hay.line_of(s)).collect();
        let kept = search.scope(&starts);
        found.retain(|&(s, _)| kept.contains(&hay.line_of(s)));
    }
    // Blank lines the file has inside the place and the old text leaves out: that is no line
    // reflowed but blank lines dropped, and the new text, written without them, would drop the
    // file's. Refused, naming them, rather than guessed.
    let blank_lines = |text: &str| {
        text.split('\n')
            .skip(1)
            .filter(|l| l.trim().is_empty())
            .count()
    };
    if let [(start, stop)] = found.as_slice()
        && blank_lines(hay.text[*start..*stop].trim()) > blank_lines(old.trim())
    {
        let (first, last) = (hay.line_of(*start) + 1, hay.line_of(*stop) + 1);
        return Some(Err(LocateError::NotFound {
            closest: None,
            note: Some(Box::new(MissNote::BlankLinesLeftOut { first, last })),
        }));
    }
    match found.as_slice() {
        [] => None,
        [(start, stop)] => Some(Ok(Located::Replace(vec![reflow_placement(
            hay, &old, &new, *start, *stop,
        )]))),
        many => Some(Err(LocateError::Ambiguous {
            tier: Tier::Reflow,
            candidates: many.iter().map(|&(s, _)| hay.line_of(s) + 1).collect(),
        })),
    }
}

/// Whether `start..stop` runs from a line's first non-blank character to a line's last.
fn covers_whole_lines(text: &str, start: usize, stop: usize) -> bool {
    let before = &text[..start];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let after = &text[stop..];
    let line_end = after.find('\n').map_or(text.len(), |i| stop + i);
    text[line_start..start].trim().is_empty() && text[stop..line_end].trim().is_empty()
}

/// Whether a match neither starts nor ends inside a word.
fn word_bounded(text: &str, start: usize, stop: usize) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let first = text[start..].chars().next();
    let last = text[..stop].chars().next_back();
    let splits_start = is_word(text[..start].chars().next_back()) && is_word(first);
    let splits_end = is_word(text[stop..].chars().next()) && is_word(last);
    !splits_start && !splits_end
}

/// The splice for a reflowed match: the old and new texts share a loose prefix and suffix;
/// only the file bytes between them are replaced, by the new text's bytes between them, so
/// the file keeps its own layout wherever the edit changes nothing.
fn reflow_placement(hay: &Haystack, old: &str, new: &str, start: usize, stop: usize) -> Placement {
    let (lo, _) = loose_indexed(old);
    let (ln, new_origin) = loose_indexed(new);
    let (prefix, suffix) = shared_ends(&lo, &ln);
    // The file side: offsets of the same loose characters within the match.
    let (lf, file_origin) = loose_indexed(&hay.text[start..stop]);
    debug_assert_eq!(lf, lo);
    let file_from = if prefix == 0 {
        start
    } else {
        start + file_origin[prefix - 1].1
    };
    let file_to = if suffix == 0 {
        stop
    } else {
        start + file_origin[lf.len() - suffix].0
    };
    let (new_from, new_to) = if ln.is_empty() {
        (0, 0)
    } else {
        let from = match prefix {
            0 => new_origin[0].0,
            p => new_origin[p - 1].1,
        };
        let to = match suffix {
            0 => new_origin[ln.len() - 1].1,
            s => new_origin[ln.len() - s].0,
        };
        (from, to.max(from))
    };
    let (mut from, mut to) = (file_from, file_to.max(file_from));
    let mut text = new[new_from..new_to].to_string();
    if ln.is_empty() && covers_whole_lines(hay.text, start, stop) {
        // Deleting whole lines: take their indentation and line endings with them.
        from = hay.text[..start].rfind('\n').map_or(0, |i| i + 1);
        to = hay.text[stop..]
            .find('\n')
            .map_or(hay.text.len(), |i| stop + i + 1);
        text.clear();
    }
    Placement {
        at: Match {
            start: hay.line_of(start),
            end: hay.line_of(stop.saturating_sub(1).max(start)) + 1,
            tier: Tier::Reflow,
        },
        bytes: Some((from, to)),
        old: Vec::new(),
        new: Vec::new(),
        new_text: Some(text),
        reindent: false,
        notes: Vec::new(),
    }
}
