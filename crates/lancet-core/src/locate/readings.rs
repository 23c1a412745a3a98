//! The alternative readings of a hunk: its needle without the blank lines models add or drop at
//! its edges, and the repaired readings of a garbled needle (over-escaped text, read-view line
//! numbers).

use super::ladder::{Ladder, Search};
use super::{Tier, normalize};
use crate::batch::{Hunk, split_lines};

/// A repaired reading of a hunk: the tier it reports, old and new lines, and a line hint.
type Reading = (Tier, Vec<String>, Vec<String>, Option<usize>);

/// Of the repaired readings of a hunk (read-view prefixes, diff markers) that find something,
/// the one found by the strictest line tier (`12: x` may be `x` or ` x`: the reading that
/// matches exactly is the right one).
pub(super) fn best_repaired_reading(search: &Search, hunk: &Hunk) -> Option<(Ladder, Reading)> {
    let mut best: Option<(Tier, Ladder, Reading)> = None;
    for (reported, old, new, hint) in repaired_readings(hunk) {
        let mut s = search.clone();
        if let Some(h) = hint {
            s.line_hint = Some(h);
        }
        let found = s.ladder(&old, &Tier::LINE_TIERS);
        let tier = match &found {
            Ladder::Found(t, _, _) | Ladder::Ambiguous(t, _) | Ladder::CountMismatch(t, _, _) => *t,
            Ladder::Missing { .. } | Ladder::TooRepetitive(..) => continue,
        };
        if best.as_ref().is_none_or(|b| tier < b.0) {
            best = Some((tier, found, (reported, old, new, hint)));
        }
    }
    best.map(|(_, found, reading)| (found, reading))
}

/// The needle as given, then without the blank lines models add or drop at its edges: trailing
/// blank lines common to old and new text (a blank line before the next marker), then leading
/// blank lines of the old text (and as many of the new text's, when it has them too).
pub(super) fn blank_trimmed<'h>(
    old: &'h [String],
    new: &'h [String],
) -> Vec<(&'h [String], &'h [String])> {
    let blank_run = |v: &[String], from_end: bool| {
        let it: Box<dyn Iterator<Item = &String>> = if from_end {
            Box::new(v.iter().rev())
        } else {
            Box::new(v.iter())
        };
        it.take_while(|l| l.trim().is_empty()).count()
    };
    let tail = blank_run(old, true).min(blank_run(new, true));
    let tail = if tail < old.len() { tail } else { 0 };
    let mut out = vec![(old, new)];
    let (o, n) = (&old[..old.len() - tail], &new[..new.len() - tail]);
    if tail > 0 {
        out.push((o, n));
    }
    let head = blank_run(o, false);
    if head > 0 && head < o.len() {
        let cut = head.min(blank_run(n, false));
        out.push((&o[head..], &n[cut..]));
    }
    out
}

/// The garbled-needle readings, in ladder order: over-escaped text, then read-view line numbers
/// (whose first number becomes a line hint).
fn repaired_readings(hunk: &Hunk) -> Vec<Reading> {
    let mut out = Vec::new();
    let joined_old = match &hunk.text {
        Some(t) => t.old.clone(),
        None => hunk.old.join("\n"),
    };
    if let Some(old) = normalize::unescape(&joined_old) {
        let joined_new = match &hunk.text {
            Some(t) => t.new.clone(),
            None => hunk.new.join("\n"),
        };
        let new = normalize::unescape(&joined_new).unwrap_or(joined_new);
        out.push((Tier::Escapes, split_lines(&old), split_lines(&new), None));
    }
    for (old, first, eat_space) in normalize::strip_line_numbers(&hunk.old) {
        let new = normalize::strip_line_numbers_where_present(&hunk.new, eat_space);
        out.push((Tier::LineNumbers, old, new, Some(first.saturating_sub(1))));
    }
    out
}
