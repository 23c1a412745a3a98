//! Already-applied evidence: whether a hunk's new text standing in the file is the hunk's own
//! result (a re-sent edit, a no-op) or a copy that proves nothing.

use super::ladder::{LINE_HINT_WINDOW, Ladder, Search, StrictReading};
use super::{Haystack, LocateError, Located, Match, Tier, fuzzy};
use crate::batch::{Anchor, Hunk, HunkText, Occurrences, Pick};
use crate::line_map::{LineMap, Region};
use crate::locate::MissNote;
use crate::text::shared_ends;

/// How far from a unified hunk's `+c` its new text may stand and count as already applied.
const NEW_LINE_HINT_WINDOW: usize = 3;

/// The strict tiers' decision, unless what stands where they found the old text shows the hunk
/// was sent before (or cannot tell): a substring's or the lines' additions standing around it
/// already. A repaired reading is taken as decided.
pub(super) fn settle(
    hay: &Haystack,
    search: &Search,
    hunk: &Hunk,
    reading: StrictReading,
    decided: Result<Located, LocateError>,
) -> Result<Located, LocateError> {
    let settled = match reading {
        StrictReading::Substring(t) => resent_where_stands(hay, hunk, t, &decided),
        StrictReading::Lines(old, new) => resent_where_found(hay, search, hunk, old, new, &decided),
        StrictReading::Repaired => None,
    };
    settled.unwrap_or(decided)
}

/// The one place a substring hunk's old text was found at: whether what it adds around that
/// text stands there already (re-sent).
fn resent_where_stands(
    hay: &Haystack,
    hunk: &Hunk,
    t: &HunkText,
    decided: &Result<Located, LocateError>,
) -> Option<Result<Located, LocateError>> {
    let Ok(Located::Replace(placements)) = decided else {
        return None;
    };
    let ([one], Occurrences::One) = (&placements[..], hunk.occurrences) else {
        return None;
    };
    match resent_text(hay, one.bytes?, t) {
        Resent::No => None,
        Resent::Already(at) => Some(Ok(Located::AlreadyApplied { at })),
        Resent::Unsure { at, whole } => Some(Err(applied_or_copy(at, one.at.start, whole))),
    }
}

/// For old text found at one place: whether the hunk was sent before. The lines it adds around
/// its old text standing there already (re-sent); or, found only by ignoring indentation, its
/// new text standing verbatim at the old text's place (a re-sent re-indent). New text standing
/// elsewhere, placed there by the hunk's own context, leaves two readings: the hunk's line
/// numbers decide, else it is refused; weaker signs never outweigh the old text found.
fn resent_where_found(
    hay: &Haystack,
    search: &Search,
    hunk: &Hunk,
    old: &[String],
    new: &[String],
    decided: &Result<Located, LocateError>,
) -> Option<Result<Located, LocateError>> {
    let Ok(Located::Replace(placements)) = decided else {
        return None;
    };
    let [found] = &placements[..] else {
        return None;
    };
    let (tier, start) = (found.at.tier, found.at.start);
    if hunk.occurrences == Occurrences::One {
        match resent_lines(search.lines, start, old, new) {
            Resent::No => {}
            Resent::Already(at) => return Some(Ok(Located::AlreadyApplied { at })),
            Resent::Unsure { at, whole } => return Some(Err(applied_or_copy(at, start, whole))),
        }
    }
    if tier < Tier::Indent {
        return None;
    }
    let overlaps = |at: &Match| at.start < start + old.len() && start < at.end;
    if let Some(at) = already_applied(hay, search, hunk).filter(overlaps) {
        return Some(Ok(Located::AlreadyApplied { at }));
    }
    let at = already_applied_by(hay, search, hunk, Evidence::Pinned).filter(|at| !overlaps(at))?;
    // The hunk's line numbers decide between the two places when they point at one.
    let hinted = |line: usize| {
        [
            search.line_hint,
            hunk.new_line_hint.map(|c| c.saturating_sub(1)),
        ]
        .into_iter()
        .flatten()
        .any(|h| line.abs_diff(h) <= LINE_HINT_WINDOW)
    };
    Some(match (hinted(at.start), hinted(start)) {
        (true, false) => Ok(Located::AlreadyApplied { at }),
        (false, true) => return None,
        _ => Err(LocateError::AppliedOrElsewhere {
            applied_at: at.start + 1,
            found_at: start + 1,
        }),
    })
}

/// Whether the new text already stands where the old text would be (so a re-sent edit is a
/// no-op): found uniquely by the strict tiers, with real words in it, and *at the old text's
/// place*: the block found carries the hunk's own context lines (lines it keeps, with words),
/// or a hint (`@@` header, line number) pins it there. New text that merely occurs somewhere
/// else is no evidence: telling a model "already in place, don't resend" when it is not is the
/// worst answer an edit engine can give.
pub(super) fn already_applied(hay: &Haystack, search: &Search, hunk: &Hunk) -> Option<Match> {
    already_applied_by(hay, search, hunk, Evidence::Any)
}

/// What may show that new text standing somewhere is the hunk's result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Evidence {
    /// Any of the signs [`already_applied`] reads.
    Any,
    /// Only the hunk's own context standing exactly once there, or its line numbers: what
    /// outweighs the old text found elsewhere by a tolerant tier.
    Pinned,
}

/// [`already_applied`], with the evidence it may use.
fn already_applied_by(
    hay: &Haystack,
    search: &Search,
    hunk: &Hunk,
    evidence: Evidence,
) -> Option<Match> {
    if hunk.old == hunk.new || !has_words(&hunk.new) {
        return None;
    }
    let context = ContextEvidence::of(hunk);
    let unchanged_part = unchanged_anchor(hay, hunk);
    let weak = evidence == Evidence::Any;
    let pinned = |m: Match| {
        if context.deletion_still_there(search.lines, m.start) {
            return false;
        }
        context.pins(search, m.start)
            || (weak && context.result_without_rival(search))
            // The unchanged part of a line speaks only for a hunk without context: context
            // that does not pin the place outweighs it.
            || (weak
                && !context.has_context()
                && unchanged_part.is_some_and(|line| (m.start..m.end).contains(&line)))
            || search
                .line_hint
                .is_some_and(|h| m.start.abs_diff(h) <= LINE_HINT_WINDOW)
            // A unified hunk's `+c` says where its new text goes.
            || hunk
                .new_line_hint
                .is_some_and(|c| m.start.abs_diff(c.saturating_sub(1)) <= NEW_LINE_HINT_WINDOW)
    };
    let one = Search {
        occurrences: Occurrences::One,
        pick: Pick::Unique,
        ..search.clone()
    };
    if let Some(t) = &hunk.text {
        // Never inside a longer token: `price = 1` is not in `unit_price = 10`.
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let bounded = |(b, e): &(usize, usize)| {
            let starts_word = t.new.chars().next().is_some_and(ident);
            let ends_word = t.new.chars().next_back().is_some_and(ident);
            let glued_before = starts_word && hay.text[..*b].chars().next_back().is_some_and(ident);
            let glued_after = ends_word && hay.text[*e..].chars().next().is_some_and(ident);
            !glued_before && !glued_after
        };
        let found: Vec<(usize, usize)> = hay
            .text
            .match_indices(t.new.as_str())
            .map(|(i, m)| (i, i + m.len()))
            .filter(bounded)
            .take(2)
            .collect();
        if let [(b, e)] = found[..] {
            let start = hay.line_of(b);
            let m = Match {
                start,
                end: hay.line_of(e.saturating_sub(1).max(b)) + 1,
                tier: Tier::Exact,
            };
            return pinned(m).then_some(m);
        }
    }
    let new = trim_trailing_blank(&hunk.new);
    match one.ladder(new, &Tier::LINE_TIERS[..3]) {
        Ladder::Found(tier, starts, _) => {
            let m = Match {
                start: starts[0],
                end: starts[0] + new.len(),
                tier,
            };
            pinned(m).then_some(m)
        }
        _ => None,
    }
}

/// Where a hunk's new text stands once, verbatim (up to trailing whitespace), when it does and
/// says something: for a refusal's words only, never as evidence.
pub(super) fn new_text_note(hay: &Haystack, hunk: &Hunk) -> Option<MissNote> {
    let new = trim_trailing_blank(&hunk.new);
    if hunk.old == hunk.new || !has_words(new) {
        return None;
    }
    match Search::bare(hay, Anchor::Anywhere).ladder(new, &Tier::LINE_TIERS[..3]) {
        Ladder::Found(_, starts, _) if starts.len() == 1 => Some(MissNote::NewTextStands {
            first: starts[0] + 1,
            last: starts[0] + new.len(),
        }),
        _ => None,
    }
}

/// How a hunk that only adds lines around its old text reads where that old text was found.
enum Resent {
    /// Nothing it adds stands there: a new edit.
    No,
    /// Everything it adds stands there, with a line that is more than blanks and brackets:
    /// the edit was sent before and applied (this block is its result).
    Already(Match),
    /// What stands there cannot tell a re-sent edit from a second copy: refused.
    Unsure {
        /// The block that stands there.
        at: Match,
        /// Whether all of what it adds stands there.
        whole: bool,
    },
}

/// Whether a line is more than blanks and brackets (`}`, `);`, `]` say nothing about which
/// block they close).
fn nontrivial(text: &str) -> bool {
    text.chars()
        .any(|c| !c.is_whitespace() && !"{}()[];,".contains(c))
}

/// The lines a hunk adds before and after its old text, when its new text is exactly that
/// old text with lines added around it (nothing removed, the old text kept whole, once).
fn added_around<'h>(old: &'h [String], new: &'h [String]) -> Option<(&'h [String], &'h [String])> {
    if old.is_empty() || new.len() <= old.len() {
        return None;
    }
    let mut at = (0..=new.len() - old.len()).filter(|&i| new[i..i + old.len()] == *old);
    match (at.next(), at.next()) {
        (Some(i), None) => Some((&new[..i], &new[i + old.len()..])),
        _ => None,
    }
}

/// Reads the sides of a one-sided (or two-sided) addition: `stands` says each present side is
/// there; the verdict follows the rule of [`Resent`].
fn resent_verdict(sides: [(bool, bool, bool); 2], at: Match) -> Resent {
    // (present, stands, nontrivial) per side.
    let present: Vec<&(bool, bool, bool)> = sides.iter().filter(|s| s.0).collect();
    let all_stand = present.iter().all(|s| s.1);
    let evidence = present.iter().any(|s| s.1 && s.2);
    match (all_stand, evidence) {
        (true, true) => Resent::Already(at),
        (true, false) => Resent::Unsure { at, whole: true },
        (false, true) => Resent::Unsure { at, whole: false },
        (false, false) => Resent::No,
    }
}

/// [`Resent`] for a line hunk whose old text was found at `start`.
fn resent_lines(lines: &[&str], start: usize, old: &[String], new: &[String]) -> Resent {
    let Some((before, after)) = added_around(old, new) else {
        return Resent::No;
    };
    let same = |file: &[&str], edit: &[String]| {
        file.len() == edit.len()
            && file
                .iter()
                .zip(edit)
                .all(|(f, e)| Tier::Trimmed.line_eq(f, e))
    };
    let end = start + old.len();
    let before_stands = !before.is_empty()
        && start >= before.len()
        && same(&lines[start - before.len()..start], before);
    let after_stands = !after.is_empty()
        && end + after.len() <= lines.len()
        && same(&lines[end..end + after.len()], after);
    let at = Match {
        start: if before_stands {
            start - before.len()
        } else {
            start
        },
        end: if after_stands { end + after.len() } else { end },
        tier: Tier::Exact,
    };
    let worded = |v: &[String]| v.iter().any(|l| nontrivial(l));
    resent_verdict(
        [
            (!before.is_empty(), before_stands, worded(before)),
            (!after.is_empty(), after_stands, worded(after)),
        ],
        at,
    )
}

/// [`Resent`] for a substring hunk whose old text stands at bytes `(b, e)`.
fn resent_text(hay: &Haystack, (b, e): (usize, usize), t: &HunkText) -> Resent {
    if t.old.is_empty() || t.new.len() <= t.old.len() {
        return Resent::No;
    }
    let mut at = t.new.match_indices(t.old.as_str());
    let (Some((i, _)), None) = (at.next(), at.next()) else {
        return Resent::No;
    };
    let (before, after) = (&t.new[..i], &t.new[i + t.old.len()..]);
    let text = hay.text;
    let before_stands = !before.is_empty() && text[..b].ends_with(before);
    let after_stands = !after.is_empty() && text[e..].starts_with(after);
    let from = if before_stands { b - before.len() } else { b };
    let to = if after_stands { e + after.len() } else { e };
    let at = Match {
        start: hay.line_of(from),
        end: hay.line_of(to.saturating_sub(1).max(from)) + 1,
        tier: Tier::Exact,
    };
    resent_verdict(
        [
            (!before.is_empty(), before_stands, nontrivial(before)),
            (!after.is_empty(), after_stands, nontrivial(after)),
        ],
        at,
    )
}

/// The refusal for lines that may be a re-sent edit or a second copy.
fn applied_or_copy(at: Match, old_start: usize, whole: bool) -> LocateError {
    LocateError::AppliedOrCopy {
        at: at.start + 1,
        old_at: old_start + 1,
        whole,
    }
}

/// What a hunk's context lines can prove about where its new text stands.
struct ContextEvidence<'h> {
    /// The kept lines before the first change, and after the last (each with a word, or empty).
    prefix: &'h [String],
    suffix: &'h [String],
    /// Kept lines between changes (with a word), each with its place in the new text.
    interior: Vec<(usize, &'h [String])>,
    /// Length of the new text.
    new_len: usize,
    /// For a hunk that only deletes: where in the new text the lines were removed, and them.
    deleted: Option<(usize, &'h [String])>,
    /// The old text without the lines the hunk removes: what its place looks like when someone
    /// else deleted those lines and the new lines never came (empty when nothing is removed).
    skeleton: Vec<String>,
    /// Whether the new text adds a line with a word in it.
    adds_words: bool,
}

impl<'h> ContextEvidence<'h> {
    fn of(hunk: &'h Hunk) -> Self {
        let (old, new) = (&hunk.old[..], &hunk.new[..]);
        let map = LineMap::of(old, new);
        let regions = map.regions();
        let lead = match regions.first() {
            Some(Region::Kept { len, .. }) => *len,
            _ => 0,
        };
        let trail = match regions.last() {
            Some(Region::Kept { len, .. }) if regions.len() > 1 => *len,
            _ => 0,
        };
        // A region that only removes lines adds none in their place.
        let only_removes = |r: &Region| !r.is_kept() && r.new_lines().is_empty();
        let only_deletes = regions.iter().all(|r| r.is_kept() || only_removes(r));
        let deleted = regions
            .iter()
            .find(|r| only_deletes && only_removes(r))
            .map(|r| (r.new_lines().start, &old[r.old_lines()]));
        let worded = |v: &'h [String]| if has_words(v) { v } else { &v[..0] };
        let mut skeleton = Vec::new();
        let mut removes = false;
        let mut adds_words = false;
        for region in regions {
            if region.is_kept() {
                skeleton.extend_from_slice(&old[region.old_lines()]);
                continue;
            }
            removes |= !region.old_lines().is_empty();
            if !region.new_lines().is_empty() {
                adds_words |= has_words(&new[region.new_lines()]);
            }
        }
        // A hunk that moves lines (a removed line added back elsewhere) has no one skeleton:
        // another alignment of the same lines gives another.
        let removed: Vec<&str> = regions
            .iter()
            .filter(|r| !r.is_kept())
            .flat_map(|r| &old[r.old_lines()])
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let moves = new.iter().any(|l| removed.contains(&l.trim()));
        // Nor has a hunk with kept lines between its changes: where they pair up is the diff's
        // choice, not the author's. One change between its context is unambiguous.
        let interior_kept =
            regions.len() > 2 && regions[1..regions.len() - 1].iter().any(Region::is_kept);
        if !removes || moves || interior_kept {
            skeleton.clear();
        }
        let interior = regions
            .iter()
            .enumerate()
            .filter(|(i, r)| *i > 0 && *i + 1 < regions.len() && r.is_kept())
            .map(|(_, r)| (r.new_lines().start, &old[r.old_lines()]))
            .filter(|(_, run)| has_words(run))
            .collect();
        ContextEvidence {
            prefix: worded(&old[..lead]),
            suffix: worded(&old[old.len() - trail..]),
            interior,
            new_len: new.len(),
            deleted,
            skeleton,
            adds_words,
        }
    }

    /// For new text that stands exactly once and adds lines with words: it is the edit's
    /// result unless the old text's skeleton (its lines without the removed ones) stands
    /// somewhere, which is the old place with the removals done by someone else and the new
    /// lines never added, so the copy found is not where the edit belongs.
    fn result_without_rival(&self, search: &Search) -> bool {
        if !self.adds_words || self.skeleton.is_empty() || !has_words(&self.skeleton) {
            return false;
        }
        let bare = Search::bare(search.hay, Anchor::Anywhere);
        matches!(
            bare.ladder(&self.skeleton, Tier::LINE_TIERS),
            Ladder::Missing { .. }
        )
    }

    /// Whether the hunk has context lines (with words).
    fn has_context(&self) -> bool {
        !self.prefix.is_empty() || !self.suffix.is_empty() || !self.interior.is_empty()
    }

    /// Whether the context places new text found at `start` where the old text was: the
    /// context before the change, or after it, stands exactly once in the file, and there.
    /// Context that also stands elsewhere (the new text appended as a copy elsewhere, or two
    /// similar functions) proves nothing.
    fn pins(&self, search: &Search, start: usize) -> bool {
        // Counted over the whole file: no hint may single out one of several copies here.
        let bare = Search::bare(search.hay, Anchor::Anywhere);
        let once_at = |block: &[String], at: usize| {
            !block.is_empty()
                && matches!(
                    bare.ladder(block, &[Tier::Exact, Tier::Eol, Tier::TrailingWs]),
                    Ladder::Found(_, ref s, _) if s == &[at]
                )
        };
        once_at(self.prefix, start)
            || once_at(self.suffix, start + self.new_len - self.suffix.len())
            // Kept lines between changes speak only for a hunk with no context at its edges:
            // where they pair up is the diff's choice (a line moved within the hunk pairs with
            // its copy), and edge context, when there is some, decides alone.
            || (self.prefix.is_empty()
                && self.suffix.is_empty()
                && self
                    .interior
                    .iter()
                    .any(|(offset, run)| once_at(run, start + offset)))
    }

    /// For a pure deletion found at `start`: whether lines like the deleted ones still stand
    /// where they were deleted (the model's copy of them differs from the file's), so the
    /// deletion has not happened.
    fn deletion_still_there(&self, lines: &[&str], start: usize) -> bool {
        let Some((at, deleted)) = self.deleted else {
            return false;
        };
        let from = start + at;
        let window = &lines[from.min(lines.len())..(from + deleted.len()).min(lines.len())];
        !window.is_empty()
            && deleted
                .iter()
                .zip(window)
                .map(|(d, f)| fuzzy::line_similarity(f, d))
                .sum::<f64>()
                / deleted.len() as f64
                >= 0.5
    }
}

/// For a hunk that changes every line it names (no context to place it by): the one file line
/// holding the text its old and new versions share (`TIMEOUT = ` of `TIMEOUT = 10` →
/// `TIMEOUT = 30`), when that shared text has a word in it and stands on exactly one line. Then
/// new text found on that line is where the old text would have been.
fn unchanged_anchor(hay: &Haystack, hunk: &Hunk) -> Option<usize> {
    let (old, new) = match &hunk.text {
        Some(t) => (t.old.clone(), t.new.clone()),
        None => (hunk.old.join("\n"), hunk.new.join("\n")),
    };
    let (prefix_len, suffix_len) = shared_ends(&old, &new);
    let has_word = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w.chars().count() >= 3)
    };
    [&old[..prefix_len], &old[old.len() - suffix_len..]]
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.contains('\n') && has_word(part))
        .find_map(|part| {
            let mut lines = hay.lines_containing(part, 0..hay.lines.len()).into_iter();
            match (lines.next(), lines.next()) {
                (Some(line), None) => Some(line),
                _ => None,
            }
        })
}

pub(super) fn has_words(lines: &[String]) -> bool {
    lines.iter().any(|l| l.chars().any(|c| c.is_alphanumeric()))
}

pub(super) fn trim_trailing_blank(lines: &[String]) -> &[String] {
    let keep = lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
    &lines[..keep]
}
