//! The ladder itself: a needle tried tier by tier, strict first, where it may stand, and the
//! occurrence rule and hints applied to the deciding tier's candidates. A hunk meets it twice:
//! [`Search::strict`] walks every reading of its old text (read beforehand, in `readings.rs`)
//! down the strict tiers; [`Search::approximate`] takes the anchor and then the fuzzy tier's
//! candidates (`fuzzy.rs`'s `Approximations`, each tier computed only when asked for) and decides
//! on the first that stands where the hunk may.

use super::readings::{Reading, Readings};
use super::tier::loose_chars;
use super::{Haystack, LocateError, Located, Match, MissNote, Placement, Tier, fuzzy};
use crate::batch::{Anchor, Hunk, HunkText, Occurrences, Pick};
use crate::line_map::LineMap;
use crate::notes::HunkNote;
use std::collections::HashMap;

/// Everything a ladder run needs besides the needle.
#[derive(Clone)]
pub(super) struct Search<'l, 's> {
    pub(super) hay: &'l Haystack<'s>,
    pub(super) lines: &'l [&'s str],
    pub(super) anchor: Anchor,
    pub(super) regions: Option<&'l [usize]>,
    pub(super) cursor: usize,
    /// Candidates must start at or after this line (elided pieces follow each other).
    pub(super) floor: usize,
    pub(super) line_hint: Option<usize>,
    pub(super) occurrences: Occurrences,
    /// What several candidates mean (the format's contract).
    pub(super) pick: Pick,
}

/// What one ladder run decided.
pub(super) enum Ladder {
    /// The tier, the start lines to replace (one, or all for `All`/`Exactly`), and what the
    /// report must say about the choice.
    Found(Tier, Vec<usize>, Vec<HunkNote>),
    Ambiguous(Tier, Vec<usize>),
    CountMismatch(Tier, usize, Vec<usize>),
    /// Too many places to compare the needle at, within [`WORK_BUDGET`] (places, lines).
    TooRepetitive(usize, usize),
    /// Nothing found; `outside_regions` is a candidate that the headers excluded.
    Missing {
        outside_regions: Option<usize>,
    },
}

/// What the strict tiers decided over a hunk's readings, and which reading decided: the
/// evidence a re-sent edit leaves is read differently for each.
pub(super) enum Strict<'r> {
    /// A reading stands; `decided` is the occurrence rule's verdict on its places.
    Found {
        /// The reading that found places.
        reading: StrictReading<'r>,
        /// Its places as placements, or why they cannot be chosen among.
        decided: Result<Located, LocateError>,
    },
    /// No reading stands; `outside_regions` is the first place of the old lines that the `@@`
    /// headers excluded.
    Missing { outside_regions: Option<usize> },
}

/// Which of a hunk's readings found places.
pub(super) enum StrictReading<'r> {
    /// The old text as sent, byte for byte.
    Substring(&'r HunkText),
    /// The old lines, as sent or without blank edges: these old and new lines.
    Lines(&'r [String], &'r [String]),
    /// A repaired reading (escapes undone, line numbers stripped).
    Repaired,
}

/// What the approximate tiers decided.
pub(super) enum Approximate {
    /// A window stands; the occurrence rule's verdict on it.
    Decided(Result<Located, LocateError>),
    /// None stands; why the nearest window was refused, when one was.
    Missing(Option<MissNote>),
}

impl Ladder {
    /// Turns a decision into placements of `old` → `new`; `reported` overrides the tier name
    /// (for repaired readings), while re-indenting follows the tier that really matched.
    pub(super) fn into_result(
        self,
        old: &[String],
        new: &[String],
        reported: Option<Tier>,
    ) -> Result<Located, LocateError> {
        let one_based = |v: Vec<usize>| v.into_iter().map(|c| c + 1).collect();
        match self {
            Ladder::Found(tier, starts, notes) => Ok(Located::Replace(
                starts
                    .into_iter()
                    .map(|start| Placement {
                        at: Match {
                            start,
                            end: start + old.len(),
                            tier: reported.unwrap_or(tier),
                        },
                        bytes: None,
                        old: old.to_vec(),
                        new: new.to_vec(),
                        new_text: None,
                        reindent: tier.ignores_indent(),
                        notes: notes.clone(),
                    })
                    .collect(),
            )),
            Ladder::Ambiguous(tier, c) => Err(LocateError::Ambiguous {
                tier: reported.unwrap_or(tier),
                candidates: one_based(c),
            }),
            Ladder::CountMismatch(tier, expected, c) => Err(LocateError::CountMismatch {
                tier: reported.unwrap_or(tier),
                expected,
                candidates: one_based(c),
            }),
            Ladder::TooRepetitive(places, lines) => {
                Err(LocateError::TooRepetitive { places, lines })
            }
            Ladder::Missing { .. } => Err(LocateError::NotFound {
                closest: None,
                note: None,
            }),
        }
    }
}

/// How many line comparisons one ladder may spend on a needle (places it could start × its
/// lines): past it, lancet refuses instead of comparing for minutes. Ordinary hunks need a few
/// thousand; only old text whose every line repeats thousands of times in the file reaches it.
const WORK_BUDGET: usize = 40_000_000;

/// Past this many comparisons, the places a needle could start are first narrowed by the
/// rarest of a few of its lines (each must match there too), instead of its first line.
const NARROW_AT: usize = 1_000_000;

/// How far from a line hint a candidate may be and still be singled out by it.
pub(super) const LINE_HINT_WINDOW: usize = 10;

impl<'l, 's> Search<'l, 's> {
    /// A search of the whole file for exactly one place: no headers, hints or cursor that
    /// could single out one of several copies.
    pub(super) fn bare(hay: &'l Haystack<'s>, anchor: Anchor) -> Self {
        Search {
            hay,
            lines: &hay.lines,
            anchor,
            regions: None,
            cursor: 0,
            floor: 0,
            line_hint: None,
            occurrences: Occurrences::One,
            pick: Pick::Unique,
        }
    }

    /// The strict tiers over every reading of a hunk, in ladder order: the text as sent byte for
    /// byte, its lines (as sent, then without blank edges) at each line tier, its over-escapes
    /// undone byte for byte, then the repaired readings. The first reading that stands decides.
    pub(super) fn strict<'r>(&self, readings: &'r Readings) -> Strict<'r> {
        if let Some(t) = readings.substring {
            let found = byte_matches(self.hay, &t.old);
            if !found.is_empty() {
                return Strict::Found {
                    reading: StrictReading::Substring(t),
                    decided: self.decide_bytes(found, t, Tier::Exact),
                };
            }
        }
        let mut outside_regions = None;
        for &(old, new) in &readings.lines {
            match self.ladder(old, Tier::LINE_TIERS) {
                Ladder::Missing { outside_regions: o } => {
                    outside_regions = outside_regions.or(o);
                }
                found => {
                    return Strict::Found {
                        reading: StrictReading::Lines(old, new),
                        decided: found.into_result(old, new, None),
                    };
                }
            }
        }
        if let Some(t) = &readings.unescaped {
            let found = byte_matches(self.hay, &t.old);
            if !found.is_empty() {
                return Strict::Found {
                    reading: StrictReading::Repaired,
                    decided: self.decide_bytes(found, t, Tier::Escapes),
                };
            }
        }
        if let Some((found, r)) = self.best_repaired(&readings.repaired) {
            return Strict::Found {
                reading: StrictReading::Repaired,
                decided: found.into_result(&r.old, &r.new, Some(r.reported)),
            };
        }
        Strict::Missing { outside_regions }
    }

    /// Of the repaired readings that find something, the one found by the strictest line tier
    /// (`12: x` may be `x` or ` x`: the reading that matches exactly is the right one).
    fn best_repaired<'r>(&self, readings: &'r [Reading]) -> Option<(Ladder, &'r Reading)> {
        let mut best: Option<(Tier, Ladder, &Reading)> = None;
        for reading in readings {
            let mut s = self.clone();
            if let Some(h) = reading.hint {
                s.line_hint = Some(h);
            }
            let found = s.ladder(&reading.old, Tier::LINE_TIERS);
            let tier = match &found {
                Ladder::Found(t, _, _)
                | Ladder::Ambiguous(t, _)
                | Ladder::CountMismatch(t, _, _) => *t,
                Ladder::Missing { .. } | Ladder::TooRepetitive(..) => continue,
            };
            if best.as_ref().is_none_or(|b| tier < b.0) {
                best = Some((tier, found, reading));
            }
        }
        best.map(|(_, found, reading)| (found, reading))
    }

    /// Runs `tiers` in order; the first with candidates decides.
    pub(super) fn ladder(&self, needle: &[String], tiers: &[Tier]) -> Ladder {
        let mut outside_regions = None;
        let starts = self.candidate_starts(needle);
        if starts.len().saturating_mul(needle.len()) > WORK_BUDGET {
            return Ladder::TooRepetitive(starts.len(), needle.len());
        }
        for &tier in tiers {
            let all: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|&s| tier.block_eq(self.lines, s, needle))
                .collect();
            if all.is_empty() {
                continue;
            }
            let scoped = self.scope(&all);
            if scoped.is_empty() {
                outside_regions.get_or_insert(all[0]);
                continue;
            }
            return self.decide(tier, scoped, needle.len());
        }
        Ladder::Missing { outside_regions }
    }

    /// The anchor tier, then the fuzzy tier (both only for substantial needles), over a hunk's
    /// old lines. Only the lines the hunk keeps (context) may differ from the file beyond
    /// presentation, and each such difference is noted for the report; when no window stands,
    /// why the nearest was refused, if it was.
    pub(super) fn approximate(&self, hunk: &Hunk) -> Approximate {
        let needle = &hunk.old;
        let starts = self.first_line_positions(needle);
        // Past the work either budget allows, no approximate place is looked for, as above.
        if starts.len().saturating_mul(needle.len()) > WORK_BUDGET {
            return Approximate::Missing(None);
        }
        let kept = kept_lines(needle, &hunk.new);
        match self.approximate_window(needle, &starts, &kept) {
            found @ (Ladder::Found(..)
            | Ladder::Ambiguous(..)
            | Ladder::CountMismatch(..)
            | Ladder::TooRepetitive(..)) => {
                Approximate::Decided(found.into_result(needle, &hunk.new, None))
            }
            Ladder::Missing { .. } => {
                Approximate::Missing(self.removed_line_mismatch(needle, &starts, &kept))
            }
        }
    }

    /// [`Self::approximate`]'s window, from `starts` (where the needle's first line stands):
    /// `kept` marks the needle lines the hunk keeps.
    fn approximate_window(&self, needle: &[String], starts: &[usize], kept: &[bool]) -> Ladder {
        // A kept line the model wrote as it stands elsewhere in the file is no misremembered
        // drift: it names that other place (a sync/async twin, a sibling test). Such a line
        // must match here up to presentation, like a line the hunk removes.
        let mut stands_elsewhere: HashMap<&str, bool> = HashMap::new();
        let kept: Vec<bool> = kept
            .iter()
            .zip(needle)
            .map(|(&k, line)| {
                k && (line.trim().is_empty()
                    || !*stands_elsewhere.entry(line.as_str()).or_insert_with(|| {
                        !self
                            .first_line_positions(std::slice::from_ref(line))
                            .is_empty()
                    }))
            })
            .collect();
        let found = self.approximate_starts(needle, starts, &kept);
        match found {
            Ladder::Found(tier, starts, mut notes) => {
                for &s in &starts {
                    notes.extend(forgiven_context(self.lines, s, needle));
                }
                Ladder::Found(tier, starts, notes)
            }
            other => other,
        }
    }

    fn approximate_starts(&self, needle: &[String], starts: &[usize], kept: &[bool]) -> Ladder {
        let k = needle.len();
        let fuzzy_too = self.occurrences == Occurrences::One;
        for found in fuzzy::Approximations::new(self.hay, starts, needle, kept, fuzzy_too) {
            match found {
                fuzzy::Candidates::Anchored(anchored) => {
                    let anchored = self.scope(&self.constrained(anchored, k));
                    if !anchored.is_empty() {
                        return self.decide(Tier::Anchor, anchored, k);
                    }
                }
                fuzzy::Candidates::Fuzzy(fuzzy::Approx::One(start, _)) => {
                    let ok = self.within_regions(&self.constrained(vec![start], k));
                    if ok.is_empty() {
                        return Ladder::Missing {
                            outside_regions: Some(start),
                        };
                    }
                    return Ladder::Found(Tier::Fuzzy, ok, Vec::new());
                }
                fuzzy::Candidates::Fuzzy(fuzzy::Approx::Several(starts)) => {
                    let mut starts = self.constrained(starts, k);
                    starts.sort_unstable();
                    if !starts.is_empty() {
                        return Ladder::Ambiguous(Tier::Fuzzy, starts);
                    }
                }
                fuzzy::Candidates::Fuzzy(fuzzy::Approx::None) => {}
            }
        }
        Ladder::Missing {
            outside_regions: None,
        }
    }

    /// Why an approximate match was refused, when it was: a line the hunk removes differs from
    /// the file's in content. Shown both ways, so the model can see what it got wrong.
    fn removed_line_mismatch(
        &self,
        needle: &[String],
        starts: &[usize],
        kept: &[bool],
    ) -> Option<MissNote> {
        let (start, j) = fuzzy::near_miss(self.lines, self.hay.sketches(), starts, needle, kept)?;
        let line = start + j;
        Some(MissNote::RemovedLineDiffers {
            first: start + 1,
            last: start + needle.len(),
            line: line + 1,
            sent: needle[j].trim().to_string(),
            file: self.lines[line].trim_end_matches('\r').trim().to_string(),
        })
    }

    /// Drops candidates the anchor or floor forbids.
    fn constrained(&self, starts: Vec<usize>, k: usize) -> Vec<usize> {
        let n = self.lines.len();
        starts
            .into_iter()
            .filter(|&s| s >= self.floor)
            .filter(|&s| self.anchor != Anchor::EndOfFile || s + k == n)
            .collect()
    }

    /// Keeps every candidate inside some `@@` region (all without headers). For approximate
    /// tiers: a header narrows where to look, but taking the first look-alike after it would be
    /// a guess, so several stay several.
    fn within_regions(&self, all: &[usize]) -> Vec<usize> {
        match self.regions {
            None => all.to_vec(),
            Some(starts) => all
                .iter()
                .copied()
                .filter(|&c| starts.iter().any(|&s| c >= s))
                .collect(),
        }
    }

    /// Keeps, for each `@@` region, the first candidate in it (all candidates without headers).
    pub(super) fn scope(&self, all: &[usize]) -> Vec<usize> {
        match self.regions {
            None => all.to_vec(),
            Some(starts) => {
                let mut firsts: Vec<usize> = starts
                    .iter()
                    .filter_map(|&s| all.iter().find(|&&c| c >= s).copied())
                    .collect();
                firsts.dedup();
                firsts
            }
        }
    }

    /// Applies the occurrence rule to a tier's candidates.
    fn decide(&self, tier: Tier, candidates: Vec<usize>, k: usize) -> Ladder {
        match self.occurrences {
            Occurrences::One => match self.narrow(candidates.clone()).as_slice() {
                // Several stood and the edit's line number chose: say so, as a pick among
                // matches does (the one after the previous chunk is the edit's order, no news).
                [one]
                    if candidates.len() > 1
                        && candidates.iter().filter(|&&c| c >= self.cursor).count() != 1 =>
                {
                    Ladder::Found(
                        tier,
                        vec![*one],
                        vec![HunkNote::NearestToLineNumber {
                            line: one + 1,
                            candidates: candidates.iter().map(|c| c + 1).collect(),
                        }],
                    )
                }
                [one] => Ladder::Found(tier, vec![*one], Vec::new()),
                many => self.pick_among(tier, many),
            },
            Occurrences::All => Ladder::Found(tier, non_overlapping(candidates, k), Vec::new()),
            Occurrences::Exactly(n) => {
                let found = non_overlapping(candidates, k);
                if found.len() == n {
                    Ladder::Found(tier, found, Vec::new())
                } else {
                    Ladder::CountMismatch(tier, n, found)
                }
            }
        }
    }

    /// Several candidates the hints could not tell apart: the format's contract decides.
    fn pick_among(&self, tier: Tier, many: &[usize]) -> Ladder {
        let lines = || many.iter().map(|c| c + 1).collect();
        if tier >= Tier::Anchor {
            // An approximate tier's candidates are guesses: no contract picks among them.
            return Ladder::Ambiguous(tier, many.to_vec());
        }
        match (self.pick, self.line_hint) {
            (Pick::First, _) => {
                Ladder::Found(tier, vec![many[0]], vec![HunkNote::FirstOfMatches(lines())])
            }
            (Pick::Nearest, Some(hint)) => {
                let mut by_distance: Vec<usize> = many.to_vec();
                by_distance.sort_by_key(|&c| (c.abs_diff(hint), c));
                let (best, runner_up) = (by_distance[0], by_distance[1]);
                if best.abs_diff(hint) == runner_up.abs_diff(hint) {
                    return Ladder::Ambiguous(tier, many.to_vec());
                }
                Ladder::Found(
                    tier,
                    vec![best],
                    vec![HunkNote::NearestToHunkLine {
                        hint: hint + 1,
                        candidates: lines(),
                    }],
                )
            }
            _ => Ladder::Ambiguous(tier, many.to_vec()),
        }
    }

    /// Decides among byte-exact substring matches.
    fn decide_bytes(
        &self,
        found: Vec<(usize, usize)>,
        text: &HunkText,
        tier: Tier,
    ) -> Result<Located, LocateError> {
        let hay = self.hay;
        let placement = |(b, e): (usize, usize)| Placement {
            at: Match {
                start: hay.line_of(b),
                end: hay.line_of(e.saturating_sub(1).max(b)) + 1,
                tier,
            },
            bytes: Some((b, e)),
            old: Vec::new(),
            new: Vec::new(),
            new_text: Some(text.new.clone()),
            reindent: false,
            notes: Vec::new(),
        };
        let lines_of = |f: &[(usize, usize)]| f.iter().map(|&(b, _)| hay.line_of(b) + 1).collect();
        match self.occurrences {
            Occurrences::One if found.len() == 1 => Ok(Located::Replace(vec![placement(found[0])])),
            Occurrences::One => Err(LocateError::Ambiguous {
                tier,
                candidates: lines_of(&found),
            }),
            Occurrences::All => Ok(Located::Replace(found.into_iter().map(placement).collect())),
            Occurrences::Exactly(n) if found.len() == n => {
                Ok(Located::Replace(found.into_iter().map(placement).collect()))
            }
            Occurrences::Exactly(n) => Err(LocateError::CountMismatch {
                tier,
                expected: n,
                candidates: lines_of(&found),
            }),
        }
    }

    /// Narrows several candidates by the previous hunk's position, then by the line hint.
    /// Returns the input unchanged when no hint singles one out.
    pub(super) fn narrow(&self, candidates: Vec<usize>) -> Vec<usize> {
        if candidates.len() < 2 {
            return candidates;
        }
        let after_cursor: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&c| c >= self.cursor)
            .collect();
        if after_cursor.len() == 1 {
            return after_cursor;
        }
        if let Some(hint) = self.line_hint {
            if candidates.contains(&hint) {
                return vec![hint];
            }
            let near: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&c| c.abs_diff(hint) <= LINE_HINT_WINDOW)
                .collect();
            if near.len() == 1 {
                return near;
            }
        }
        candidates
    }

    /// Where a block could start: positions (allowed by the anchor and floor) whose line equals
    /// the needle's first line at the loosest line tier. Every line tier's candidates are among
    /// these, so the file is scanned once per needle, not once per tier.
    fn first_line_positions(&self, needle: &[String]) -> Vec<usize> {
        self.line_positions(needle, 0)
    }

    /// [`Self::first_line_positions`], narrowed, when there are many, by the rarest of a few
    /// lines of the needle (a block starts at `s` only where its line `j` stands at `s + j`):
    /// the same candidates, found without comparing the needle at thousands of places.
    fn candidate_starts(&self, needle: &[String]) -> Vec<usize> {
        let starts = self.first_line_positions(needle);
        let k = needle.len();
        if starts.len().saturating_mul(k) <= NARROW_AT {
            return starts;
        }
        let step = k.div_ceil(8).max(1);
        (0..k)
            .step_by(step)
            .chain([k - 1])
            // A line the escapes tier reads differently could miss its loose match.
            .filter(|&j| !needle[j].trim().is_empty() && !needle[j].contains('\\'))
            .map(|j| self.line_positions(needle, j))
            .fold(starts, |best, other| {
                if other.len() < best.len() {
                    other
                } else {
                    best
                }
            })
    }

    /// The starts `s` (allowed by the anchor and floor) where the file's line `s + j` equals
    /// the needle's line `j` at the loosest line tier.
    fn line_positions(&self, needle: &[String], j: usize) -> Vec<usize> {
        let n = self.lines.len();
        let k = needle.len();
        if k == 0 || k > n || j >= k {
            return Vec::new();
        }
        let range = match self.anchor {
            Anchor::EndOfFile => n - k..n - k + 1,
            Anchor::Anywhere | Anchor::AfterLine(_) => self.floor.min(n - k + 1)..n - k + 1,
        };
        let wanted = needle[j].trim();
        let loose: String = loose_chars(wanted).collect();
        let matches = |s: usize| {
            let f = self.lines[s + j].trim();
            f == wanted || loose_chars(f).eq(loose.chars())
        };
        match longest_word(&loose) {
            Some(word) if range.len() > 1 => self
                .hay
                .lines_containing(word, range.start + j..range.end + j)
                .into_iter()
                .map(|line| line - j)
                .filter(|&s| matches(s))
                .collect(),
            _ => range.filter(|&s| matches(s)).collect(),
        }
    }
}

/// Every byte range where `needle` stands in the file, verbatim.
fn byte_matches(hay: &Haystack, needle: &str) -> Vec<(usize, usize)> {
    hay.text
        .match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

/// Which old lines the hunk keeps (context, equal in old and new text).
fn kept_lines(old: &[String], new: &[String]) -> Vec<bool> {
    let mut kept = vec![false; old.len()];
    for region in LineMap::of(old, new).regions() {
        if region.is_kept() {
            kept[region.old_lines()].fill(true);
        }
    }
    kept
}

/// Each needle line that differs from the file's line beyond presentation in a window an
/// approximate tier accepted (only kept context lines can), for the report.
fn forgiven_context(lines: &[&str], start: usize, needle: &[String]) -> Vec<HunkNote> {
    needle
        .iter()
        .enumerate()
        .filter(|&(j, n)| !fuzzy::same_but_presentation(lines[start + j], n))
        .map(|(j, n)| HunkNote::ContextKept {
            line: start + j + 1,
            sent: n.trim().to_string(),
            file: lines[start + j].trim_end_matches('\r').trim().to_string(),
        })
        .collect()
}

/// The longest run of ASCII word characters (`[A-Za-z0-9_]`) in a loose reading. Every line
/// whose loose reading equals it holds this run verbatim: loosening only folds non-ASCII
/// punctuation and drops whitespace, and whitespace between two word characters survives as a
/// space, so a word run never spans dropped characters. That makes it a safe byte prefilter.
pub(super) fn longest_word(loose: &str) -> Option<&str> {
    loose
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .max_by_key(|w| w.len())
        .filter(|w| !w.is_empty())
}

/// Keeps the leftmost of overlapping candidates (as a plain replace-all would).
fn non_overlapping(candidates: Vec<usize>, k: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(candidates.len());
    for c in candidates {
        if out.last().is_none_or(|&l| c >= l + k.max(1)) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextFile;
    use proptest::prelude::*;

    proptest! {
        /// The word prefilter finds exactly the start lines a line-by-line loose comparison
        /// finds, whatever whitespace, typographic punctuation and CRs the lines carry.
        #[test]
        fn word_prefilter_finds_what_a_full_scan_finds(
            lines in prop::collection::vec(
                "[ \t]{0,2}(ab|x|é)[ \t\u{a0}]{0,2}(\\(|\u{201c}|\"|\u{2014}|-|)(ab|b_1|)[ \t]?\r?", 1..20),
            needle in "[ \t]{0,2}(ab|x|é)[ \t\u{a0}]{0,2}(\\(|\u{201c}|\"|\u{2014}|-|)(ab|b_1|)[ \t]?",
            floor in 0usize..10,
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let file = TextFile::new(&text);
            let hay = Haystack::new(&file);
            let search = Search {
                hay: &hay,
                lines: &hay.lines,
                anchor: Anchor::Anywhere,
                regions: None,
                cursor: 0,
                floor,
                line_hint: None,
                occurrences: Occurrences::One,
                pick: Pick::Unique,
            };
            let first = needle.trim();
            let loose: String = loose_chars(first).collect();
            let n = hay.lines.len();
            let expected: Vec<usize> = (floor.min(n)..n)
                .filter(|&s| {
                    let f = hay.lines[s].trim();
                    f == first || loose_chars(f).eq(loose.chars())
                })
                .collect();
            prop_assert_eq!(search.first_line_positions(std::slice::from_ref(&needle)), expected);
        }
    }
}
