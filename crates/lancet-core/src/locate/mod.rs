//! Locating hunks: the matcher ladder.
//!
//! A hunk's old text is searched tier by tier from strict to loose ([`Tier::LADDER`]). The first
//! tier that finds any candidate decides: exactly one candidate (or exactly the requested count)
//! is a match; several are narrowed by hints (the `@@` context headers, the previous hunk's
//! position, a line-number hint) and, if still several, refused as ambiguous with every
//! candidate listed. A looser tier never runs to choose among a stricter tier's candidates.
//!
//! The tiers: byte-exact substring (tool-call edits) and `exact` lines; `eol`; `trailing_ws`;
//! `indent` (relative indentation kept, absolute ignored); `trimmed`; `unicode`; then readings
//! of garbled needles — `escapes` (over-escaped text), `line_numbers` (read-view prefixes),
//! `elision` (`...` pieces in order) — each tried with the line tiers; then `anchor` (first and
//! last lines, similar middle) and `fuzzy` (most similar window, clear margin), both only for
//! substantial needles and at bounded cost (see [`fuzzy`]).

pub mod anchored;
pub mod closest;
mod fuzzy;
pub mod normalize;

use crate::batch::{Anchor, Hunk, HunkText, Occurrences, Pick, split_lines};
use crate::text::{TextFile, common_indent, shared_ends};
use closest::Closest;
use normalize::loose_chars;
use serde::Serialize;
use std::collections::HashMap;

/// Matcher tiers, ordered from strict to loose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Byte-identical.
    Exact,
    /// Identical once CRLF is read as LF.
    Eol,
    /// Identical ignoring trailing whitespace.
    TrailingWs,
    /// Identical once each side's common indentation is removed (relative indentation kept).
    Indent,
    /// Identical ignoring leading and trailing whitespace.
    Trimmed,
    /// As `Trimmed`, with typographic quotes, dashes, ellipses and special spaces read as ASCII,
    /// and whitespace significant only between two words (`f( a, b )` reads as `f(a,b)`).
    Unicode,
    /// Matched once literal `\n`, `\t`, `\"` in the edit were read as what they stand for.
    Escapes,
    /// Matched once read-view line-number prefixes (`12→`, `12:`, `12 | `) were stripped.
    LineNumbers,
    /// `...` lines split the old text into pieces matched in order; the elided lines are kept.
    Elision,
    /// Identical once all whitespace, line breaks included, is read loosely: the edit broke one
    /// file line across several, joined several, or (SEARCH/REPLACE, `old_string`) named part of
    /// one line. Only the differing middle is spliced; the file keeps its own line structure.
    Reflow,
    /// First and last lines match, the middle is similar.
    Anchor,
    /// The most similar window, above a threshold and clearly ahead of any other.
    Fuzzy,
}

impl Tier {
    /// Every tier, in the order they are tried.
    pub const LADDER: [Tier; 12] = [
        Tier::Exact,
        Tier::Eol,
        Tier::TrailingWs,
        Tier::Indent,
        Tier::Trimmed,
        Tier::Unicode,
        Tier::Escapes,
        Tier::LineNumbers,
        Tier::Elision,
        Tier::Reflow,
        Tier::Anchor,
        Tier::Fuzzy,
    ];

    /// The tiers that compare lines; the garbled-needle readings run these on the repaired text.
    const LINE_TIERS: [Tier; 6] = [
        Tier::Exact,
        Tier::Eol,
        Tier::TrailingWs,
        Tier::Indent,
        Tier::Trimmed,
        Tier::Unicode,
    ];

    /// The tier's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Eol => "eol",
            Tier::TrailingWs => "trailing_ws",
            Tier::Indent => "indent",
            Tier::Trimmed => "trimmed",
            Tier::Unicode => "unicode",
            Tier::Escapes => "escapes",
            Tier::LineNumbers => "line_numbers",
            Tier::Elision => "elision",
            Tier::Reflow => "reflow",
            Tier::Anchor => "anchor",
            Tier::Fuzzy => "fuzzy",
        }
    }

    /// Whether a file line equals a needle line at this tier (for `Indent`, the per-line part of
    /// the test; the block test also compares relative indentation).
    pub fn line_eq(self, file: &str, needle: &str) -> bool {
        match self {
            Tier::Exact => file == needle,
            Tier::Eol => strip_cr(file) == strip_cr(needle),
            Tier::TrailingWs => file.trim_end() == needle.trim_end(),
            Tier::Indent | Tier::Trimmed => file.trim() == needle.trim(),
            _ => loose_chars(file).eq(loose_chars(needle)),
        }
    }

    /// Whether a match at this tier may differ in indentation, so inserted lines must be
    /// re-indented to the file's.
    pub fn ignores_indent(self) -> bool {
        self >= Tier::Indent
    }
}

fn strip_cr(s: &str) -> &str {
    s.strip_suffix('\r').unwrap_or(s)
}

/// A file prepared for searching: its text, line contents and line start offsets.
#[derive(Debug)]
pub struct Haystack<'a> {
    /// The whole text.
    pub text: &'a str,
    /// Each line's content (CRLF's `\r` included).
    pub lines: Vec<&'a str>,
    starts: Vec<usize>,
    /// Line sketches for the approximate tiers, built on first use.
    sketches: std::cell::OnceCell<Vec<fuzzy::Sketch>>,
}

impl<'a> Haystack<'a> {
    /// Indexes a decoded file.
    pub fn new(file: &TextFile<'a>) -> Self {
        Haystack {
            text: file.text(),
            lines: file.line_strs(),
            starts: file.lines().iter().map(|l| l.start).collect(),
            sketches: std::cell::OnceCell::new(),
        }
    }

    fn sketches(&self) -> &[fuzzy::Sketch] {
        self.sketches.get_or_init(|| fuzzy::sketch_all(&self.lines))
    }

    /// The lines in `range` that contain `word`, found with one SIMD substring scan of the
    /// text instead of a per-line comparison (a 10 MB file is scanned in about a millisecond).
    fn lines_containing(&self, word: &str, range: std::ops::Range<usize>) -> Vec<usize> {
        if range.is_empty() {
            return Vec::new();
        }
        let from = self.starts[range.start];
        let mut out: Vec<usize> = Vec::new();
        for hit in memchr::memmem::find_iter(&self.text.as_bytes()[from..], word.as_bytes()) {
            let line = self.line_of(from + hit);
            if line >= range.end {
                break;
            }
            if out.last() != Some(&line) {
                out.push(line);
            }
        }
        out
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

/// Where a hunk's old text was found: lines `start..end` (0-based, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// First matched line (0-based); for an insertion, the line it goes before.
    pub start: usize,
    /// One past the last matched line.
    pub end: usize,
    /// The tier that found it.
    pub tier: Tier,
}

/// One place to change and what to put there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The lines involved (for line edits, exactly the replaced lines).
    pub at: Match,
    /// For a byte-exact substring match: the byte range to replace with `new_text`.
    pub bytes: Option<(usize, usize)>,
    /// The needle lines used to find it (after any repair).
    pub old: Vec<String>,
    /// The lines to put in place of `old`.
    pub new: Vec<String>,
    /// For a substring match: the replacement text.
    pub new_text: Option<String>,
    /// Whether inserted lines must be re-indented to the file's indentation.
    pub reindent: bool,
    /// What the report must say about how this place was chosen: the other candidates a format's
    /// contract let it pass over, each context line whose drift was forgiven.
    pub notes: Vec<String>,
}

/// A successful location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Replace each placement (several for `All`/`Exactly(n)` and for elided pieces).
    Replace(Vec<Placement>),
    /// The old text is absent but the new text stands where it would be: nothing to do.
    AlreadyApplied {
        /// Where the new text is.
        at: Match,
    },
}

/// Why a hunk could not be located.
#[derive(Debug, Clone, PartialEq)]
pub enum LocateError {
    /// No tier found the old text.
    NotFound {
        /// The most similar real lines, for the model's next try.
        closest: Option<Closest>,
        /// Extra explanation (e.g. found, but not after the `@@` header).
        note: Option<String>,
    },
    /// The deciding tier found several candidates and no hint singled one out.
    Ambiguous {
        /// The deciding tier.
        tier: Tier,
        /// 1-based start lines of every candidate.
        candidates: Vec<usize>,
    },
    /// `expected_replacements` differs from the number of occurrences.
    CountMismatch {
        /// The deciding tier.
        tier: Tier,
        /// How many the edit expected.
        expected: usize,
        /// 1-based start lines of the occurrences found.
        candidates: Vec<usize>,
    },
    /// An `@@` context header matches no line.
    ContextNotFound {
        /// The header text.
        header: String,
        /// The most similar real line.
        closest: Option<Closest>,
    },
    /// A pure addition's `@@` header occurs several times.
    ContextAmbiguous {
        /// The header text.
        header: String,
        /// 1-based lines where it occurs.
        candidates: Vec<usize>,
    },
    /// The new text introduces an omission placeholder that would delete code.
    Placeholder {
        /// The placeholder line.
        line: String,
    },
    /// The lines the hunk adds stand right beside its old text already, but what stands there
    /// cannot tell a re-sent edit from a deliberate second copy (only blank lines or brackets,
    /// or only some of them): lancet cannot decide.
    AppliedOrCopy {
        /// 1-based first line of what already stands there.
        at: usize,
        /// 1-based line where the old text is.
        old_at: usize,
        /// Whether every line the hunk adds stands there (else only some do).
        whole: bool,
    },
    /// The old text stands only with other indentation (at `found_at`) while the new text
    /// stands verbatim elsewhere (at `applied_at`), placed there by the hunk's own context:
    /// already applied there, or meant for the place found? lancet cannot decide.
    AppliedOrElsewhere {
        /// 1-based first line of the new text standing.
        applied_at: usize,
        /// 1-based first line of the old text found with other indentation.
        found_at: usize,
    },
    /// A pure addition under an `@@` header that opens a definition, whose first added line
    /// defines the same name otherwise (a parameter added): the model likely meant to replace
    /// that line, yet the chunk adds beside it, inside the definition. lancet cannot decide.
    ChangedHeader {
        /// The file's header line, trimmed.
        header: String,
        /// 1-based line of the header.
        line: usize,
        /// The added line that looks like its changed version, trimmed.
        added: String,
    },
    /// The old text's lines repeat so much in the file that comparing it at every place its
    /// lines stand would take longer than any answer is worth: lancet cannot decide.
    TooRepetitive {
        /// Places its rarest sampled line stands at.
        places: usize,
        /// Lines of the old text.
        lines: usize,
    },
    /// The old and new texts elide different numbers of pieces.
    ElisionMismatch {
        /// Elided pieces in the old text.
        old: usize,
        /// Elided pieces in the new text.
        new: usize,
    },
}

impl LocateError {
    /// A stable machine-readable kind for reports.
    pub fn kind(&self) -> crate::kinds::ErrorKind {
        use crate::kinds::ErrorKind;
        match self {
            LocateError::NotFound { .. } => ErrorKind::NoMatch,
            LocateError::Ambiguous { .. } => ErrorKind::Ambiguous,
            LocateError::CountMismatch { .. } => ErrorKind::CountMismatch,
            LocateError::ContextNotFound { .. } => ErrorKind::ContextNotFound,
            LocateError::ContextAmbiguous { .. } => ErrorKind::Ambiguous,
            LocateError::Placeholder { .. } => ErrorKind::Placeholder,
            LocateError::ElisionMismatch { .. } => ErrorKind::ElisionMismatch,
            LocateError::TooRepetitive { .. } => ErrorKind::Ambiguous,
            LocateError::AppliedOrCopy { .. } => ErrorKind::Ambiguous,
            LocateError::AppliedOrElsewhere { .. } => ErrorKind::Ambiguous,
            LocateError::ChangedHeader { .. } => ErrorKind::Ambiguous,
        }
    }
}

/// Hints that narrow a choice among candidates; they never add candidates.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    /// The line after the previous hunk of the same file (0-based).
    pub cursor: usize,
    /// The format may name part of a line (SEARCH/REPLACE, `old_string`), so a one-line old
    /// text found inside a longer line replaces just that part. Codex and unified hunks write
    /// whole lines: a match must cover whole lines.
    pub fragments: bool,
    /// The format writes every removed line out (Codex, unified): an omission placeholder
    /// hides code only where its diff run deletes lines it does not add back.
    pub explicit_removals: bool,
}

/// Every byte range where `needle` stands in the file, verbatim.
fn byte_matches(hay: &Haystack, needle: &str) -> Vec<(usize, usize)> {
    hay.text
        .match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

/// Of the repaired readings of a hunk (read-view prefixes, diff markers) that find something,
/// the one found by the strictest line tier (`12: x` may be `x` or ` x`: the reading that
/// matches exactly is the right one).
fn best_repaired_reading(search: &Search, hunk: &Hunk) -> Option<(Ladder, Reading)> {
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

/// Locates one hunk in a file.
pub fn locate(hay: &Haystack, hunk: &Hunk, hints: Hints) -> Result<Located, LocateError> {
    let placeholder = if hints.explicit_removals {
        normalize::placeholder_hiding_deletions(&hunk.old, &hunk.new)
    } else {
        normalize::introduced_placeholder(&hunk.old, &hunk.new)
    };
    if let Some(line) = placeholder {
        return Err(LocateError::Placeholder {
            line: line.to_string(),
        });
    }
    let lines = &hay.lines[..];
    let regions = match header_regions(hay, &hunk.context) {
        Err(LocateError::ContextNotFound { header, .. })
            if hunk.context_advisory && hunk.context.len() == 1 && !hunk.old.is_empty() =>
        {
            return locate_without_anchor(hay, hunk, hints, &header);
        }
        Err(LocateError::ContextNotFound { header, closest }) if !hunk.old.is_empty() => {
            return locate_by_body_alone(hay, hunk, header, closest);
        }
        other => other?,
    };
    let search = Search {
        hay,
        lines,
        anchor: hunk.anchor,
        regions: regions.as_ref().map(|r| r.starts.as_slice()),
        cursor: hints.cursor,
        floor: 0,
        line_hint: hunk.line_hint.map(|h| h.saturating_sub(1)),
        occurrences: hunk.occurrences,
        pick: hunk.pick,
    };
    let substring = hunk.text.as_ref().filter(|t| !t.old.is_empty());
    if hunk.old.is_empty() && substring.is_none() {
        return locate_insertion(&search, hunk, regions.as_ref());
    }
    if let Some(t) = substring
        && let Some(located) = locate_substring(hay, &search, hunk, t)
    {
        return located;
    }
    let mut note = None;
    for (old, new) in blank_trimmed(&hunk.old, &hunk.new) {
        match search.ladder(old, &Tier::LINE_TIERS) {
            Ladder::Missing { outside_regions } => {
                if let (None, Some(line), Some(r)) = (&note, outside_regions, &regions) {
                    note = Some(format!(
                        "these lines occur at line {}, but not after the @@ context {:?} (line {})",
                        line + 1,
                        r.header,
                        r.starts[0],
                    ));
                }
            }
            found => {
                if let Some(settled) = resent_where_found(hay, &search, hunk, old, new, &found) {
                    return settled;
                }
                return found.into_result(old, new, None);
            }
        }
    }
    if let Some(t) = substring
        && let Some(old) = normalize::unescape(&t.old)
    {
        let found = byte_matches(hay, &old);
        if !found.is_empty() {
            let new = normalize::unescape(&t.new).unwrap_or_else(|| t.new.clone());
            let repaired = HunkText { old, new };
            return search.decide_bytes(hay, found, &repaired, Tier::Escapes);
        }
    }
    if let Some((found, (reported, old, new, _))) = best_repaired_reading(&search, hunk) {
        return found.into_result(&old, &new, Some(reported));
    }
    // Before any approximate reading: if the new text already stands there, a re-sent edit
    // must not be applied a second time.
    if let Some(at) = already_applied(hay, &search, hunk) {
        return Ok(Located::AlreadyApplied { at });
    }
    if hunk.old.iter().any(|l| normalize::is_elision_line(l)) {
        return locate_elided(&search, hunk);
    }
    if let Some(found) = locate_reflowed(&search, hunk, hints.fragments) {
        return found;
    }
    let kept = kept_lines(&hunk.old, &hunk.new);
    match search.approximate(&hunk.old, &kept) {
        Ladder::Missing { .. } => {}
        found => return found.into_result(&hunk.old, &hunk.new, None),
    }
    if let Some(why) = search.removed_line_mismatch(&hunk.old, &kept) {
        note = Some(why);
    }
    let note = note.or_else(|| new_text_note(hay, hunk));
    Err(LocateError::NotFound {
        closest: closest::closest_block(lines, hay.sketches(), &hunk.old),
        note,
    })
}

/// A substring hunk whose old text stands byte for byte: decided among its places, unless what
/// it adds around the old text stands there already (re-sent). `None` when it stands nowhere.
fn locate_substring(
    hay: &Haystack,
    search: &Search,
    hunk: &Hunk,
    t: &HunkText,
) -> Option<Result<Located, LocateError>> {
    let found = byte_matches(hay, &t.old);
    if let ([one], Occurrences::One) = (&found[..], hunk.occurrences) {
        match resent_text(hay, *one, t) {
            Resent::No => {}
            Resent::Already(at) => return Some(Ok(Located::AlreadyApplied { at })),
            Resent::Unsure { at, whole } => {
                return Some(Err(applied_or_copy(at, hay.line_of(one.0), whole)));
            }
        }
    }
    (!found.is_empty()).then(|| search.decide_bytes(hay, found, t, Tier::Exact))
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
    found: &Ladder,
) -> Option<Result<Located, LocateError>> {
    let Ladder::Found(tier, starts, _) = found else {
        return None;
    };
    let [start] = starts[..] else {
        return None;
    };
    if hunk.occurrences == Occurrences::One {
        match resent_lines(search.lines, start, old, new) {
            Resent::No => {}
            Resent::Already(at) => return Some(Ok(Located::AlreadyApplied { at })),
            Resent::Unsure { at, whole } => return Some(Err(applied_or_copy(at, start, whole))),
        }
    }
    if *tier < Tier::Indent {
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

/// A repaired reading of a hunk: the tier it reports, old and new lines, and a line hint.
type Reading = (Tier, Vec<String>, Vec<String>, Option<usize>);

/// The needle as given, then without the blank lines models add or drop at its edges: trailing
/// blank lines common to old and new text (a blank line before the next marker), then leading
/// blank lines of the old text (and as many of the new text's, when it has them too).
fn blank_trimmed<'h>(old: &'h [String], new: &'h [String]) -> Vec<(&'h [String], &'h [String])> {
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

/// Which old lines the hunk keeps (context, equal in old and new text).
fn kept_lines(old: &[String], new: &[String]) -> Vec<bool> {
    let mut kept = vec![false; old.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, old, new) {
        if let similar::DiffOp::Equal { old_index, len, .. } = op {
            kept[old_index..old_index + len].fill(true);
        }
    }
    kept
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

/// A stale `@@` header (the model copied an old signature, `def load(path):` for the file's
/// `def load(path: str) -> dict:`) names no line. The chunk is placed by its own lines when the
/// header's nearest line carries every word of the header (it is that line, grown), the lines
/// occur exactly once at a line tier, and they lie below that line; the report says so. A
/// header naming something else (`def stop():` where only `def start():` exists) keeps its
/// failure: the model meant another place.
/// A hunk whose lone advisory `@@` anchor matches nothing: placed by its own lines, as if it
/// had no anchor, and the report says so.
fn locate_without_anchor(
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
    let note = format!(
        "the @@ anchor `{header}` matches no line; a single anchor is advisory in this format, so the chunk's own lines placed it"
    );
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

fn locate_by_body_alone(
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
    match search.ladder(&hunk.old, &Tier::LINE_TIERS) {
        Ladder::Found(tier, starts, _) if starts[0] > header_line => {
            let note = format!(
                "the @@ header `{header}` matches no line (nearest: line {} `{}`); the chunk's own lines occur once below it and placed it",
                header_line + 1,
                hay.lines[header_line].trim()
            );
            Ladder::Found(tier, starts, vec![note]).into_result(&hunk.old, &hunk.new, None)
        }
        _ => Err(LocateError::ContextNotFound { header, closest }),
    }
}

/// A fragment of a line must carry at least this many characters (loosely read): shorter ones
/// (`x`, `i += 1`) occur inside too many unrelated lines to mean one place.
const MIN_FRAGMENT: usize = 8;

/// The reflow tier: the old text read loosely as one string (line breaks are whitespace), found
/// exactly once in the file read the same way. The match must cover whole lines, except that a
/// one-line old text may be part of a line where the format allows fragments. Returns `None`
/// when nothing matches; several matches are refused.
fn locate_reflowed(
    search: &Search,
    hunk: &Hunk,
    fragments: bool,
) -> Option<Result<Located, LocateError>> {
    let hay = search.hay;
    let (old, new) = match &hunk.text {
        Some(t) => (t.old.clone(), t.new.clone()),
        None => (hunk.old.join("\n"), hunk.new.join("\n")),
    };
    let (needle, _) = normalize::loose_indexed(&old);
    // An edit that only re-wraps lines reads the same loosely before and after: this tier
    // cannot tell where it stands, so it proves nothing either way.
    if normalize::loose_indexed(&new).0 == needle {
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
        let (loose, origin) = normalize::loose_indexed(&hay.text[base..end]);
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
            note: Some(format!(
                "its text stands at lines {first}-{last} once the blank lines the file has there are left out; send the old text with those blank lines, as the file has it"
            )),
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
    let (lo, _) = normalize::loose_indexed(old);
    let (ln, new_origin) = normalize::loose_indexed(new);
    let (prefix, suffix) = shared_ends(&lo, &ln);
    // The file side: offsets of the same loose characters within the match.
    let (lf, file_origin) = normalize::loose_indexed(&hay.text[start..stop]);
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

/// Elision: the old text's `...` lines split it into pieces that must match, in order, each
/// uniquely after the previous one; each is replaced by the new text's matching piece, and the
/// elided lines between them are kept.
fn locate_elided(search: &Search, hunk: &Hunk) -> Result<Located, LocateError> {
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
                    note: Some(format!(
                        "the old text elides lines with '...'; its piece starting {:?} was not found after line {floor}",
                        old.iter()
                            .find(|l| !l.trim().is_empty())
                            .cloned()
                            .unwrap_or_default()
                    )),
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

/// Whether the new text already stands where the old text would be (so a re-sent edit is a
/// no-op): found uniquely by the strict tiers, with real words in it, and *at the old text's
/// place*: the block found carries the hunk's own context lines (lines it keeps, with words),
/// or a hint (`@@` header, line number) pins it there. New text that merely occurs somewhere
/// else is no evidence: telling a model "already in place, don't resend" when it is not is the
/// worst answer an edit engine can give.
fn already_applied(hay: &Haystack, search: &Search, hunk: &Hunk) -> Option<Match> {
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
    match one.ladder(trim_trailing_blank(&hunk.new), &Tier::LINE_TIERS[..3]) {
        Ladder::Found(tier, starts, _) => {
            let m = Match {
                start: starts[0],
                end: starts[0] + trim_trailing_blank(&hunk.new).len(),
                tier,
            };
            pinned(m).then_some(m)
        }
        _ => None,
    }
}

/// Where a hunk's new text stands once, verbatim (up to trailing whitespace), when it does and
/// says something: for a refusal's words only, never as evidence.
fn new_text_note(hay: &Haystack, hunk: &Hunk) -> Option<String> {
    let new = trim_trailing_blank(&hunk.new);
    if hunk.old == hunk.new || !has_words(new) {
        return None;
    }
    match Search::bare(hay, Anchor::Anywhere).ladder(new, &Tier::LINE_TIERS[..3]) {
        Ladder::Found(_, starts, _) if starts.len() == 1 => Some(format!(
            "its new text stands at lines {}-{}, though nothing shows it is where the old text was: if that is this edit's result, do not resend it",
            starts[0] + 1,
            starts[0] + new.len()
        )),
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
        let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
        let lead = match ops.first() {
            Some(similar::DiffOp::Equal { len, .. }) => *len,
            _ => 0,
        };
        let trail = match ops.last() {
            Some(similar::DiffOp::Equal { len, .. }) if ops.len() > 1 => *len,
            _ => 0,
        };
        let only_deletes = ops.iter().all(|op| {
            matches!(
                op,
                similar::DiffOp::Equal { .. } | similar::DiffOp::Delete { .. }
            )
        });
        let deleted = ops.iter().find_map(|op| match op {
            similar::DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } if only_deletes => Some((*new_index, &old[*old_index..old_index + old_len])),
            _ => None,
        });
        let worded = |v: &'h [String]| if has_words(v) { v } else { &v[..0] };
        let mut skeleton = Vec::new();
        let mut removes = false;
        let mut adds_words = false;
        for op in &ops {
            match *op {
                similar::DiffOp::Equal { old_index, len, .. } => {
                    skeleton.extend_from_slice(&old[old_index..old_index + len]);
                }
                similar::DiffOp::Delete { .. } => removes = true,
                similar::DiffOp::Insert {
                    new_index, new_len, ..
                } => adds_words |= has_words(&new[new_index..new_index + new_len]),
                similar::DiffOp::Replace {
                    new_index, new_len, ..
                } => {
                    removes = true;
                    adds_words |= has_words(&new[new_index..new_index + new_len]);
                }
            }
        }
        // A hunk that moves lines (a removed line added back elsewhere) has no one skeleton:
        // another alignment of the same lines gives another.
        let removed: Vec<&str> = ops
            .iter()
            .flat_map(|op| match *op {
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                }
                | similar::DiffOp::Replace {
                    old_index, old_len, ..
                } => &old[old_index..old_index + old_len],
                _ => &old[..0],
            })
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let moves = new.iter().any(|l| removed.contains(&l.trim()));
        // Nor has a hunk with kept lines between its changes: where they pair up is the diff's
        // choice, not the author's. One change between its context is unambiguous.
        let interior_kept = ops.len() > 2
            && ops[1..ops.len() - 1]
                .iter()
                .any(|op| matches!(op, similar::DiffOp::Equal { .. }));
        if !removes || moves || interior_kept {
            skeleton.clear();
        }
        let interior = ops
            .iter()
            .enumerate()
            .filter(|(i, _)| *i > 0 && *i + 1 < ops.len())
            .filter_map(|(_, op)| match *op {
                similar::DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => Some((new_index, &old[old_index..old_index + len])),
                _ => None,
            })
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
            bare.ladder(&self.skeleton, &Tier::LINE_TIERS),
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

/// A pure addition goes after its `@@` context line, after an explicit line, or at the end.
fn locate_insertion(
    search: &Search,
    hunk: &Hunk,
    regions: Option<&Regions>,
) -> Result<Located, LocateError> {
    let n = search.lines.len();
    let at = match (hunk.anchor, regions) {
        (Anchor::AfterLine(line), _) if line > n => {
            return Err(LocateError::NotFound {
                closest: None,
                note: Some(format!(
                    "cannot insert after line {line}: the file has {n} line(s)"
                )),
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
        && normalize::definition_name(header).is_some()
        && normalize::definition_name(header) == normalize::definition_name(added)
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
            .filter(|&s| block_eq(search.lines, s, new, Tier::TrailingWs))
    } else {
        Some(at).filter(|&s| block_eq(search.lines, s, new, Tier::TrailingWs))
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

fn has_words(lines: &[String]) -> bool {
    lines.iter().any(|l| l.chars().any(|c| c.is_alphanumeric()))
}

fn trim_trailing_blank(lines: &[String]) -> &[String] {
    let keep = lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
    &lines[..keep]
}

/// Whether `needle` matches the lines starting at `start` at `tier`.
fn block_eq(lines: &[&str], start: usize, needle: &[String], tier: Tier) -> bool {
    if start + needle.len() > lines.len() {
        return false;
    }
    let window = &lines[start..start + needle.len()];
    if !needle.iter().zip(window).all(|(n, f)| tier.line_eq(f, n)) {
        return false;
    }
    if tier != Tier::Indent {
        return true;
    }
    // Relative indentation must agree: strip each side's common indentation and compare.
    let file_base = common_indent(window.iter().copied());
    let needle_base = common_indent(needle.iter().map(String::as_str));
    needle.iter().zip(window).all(|(n, f)| {
        n.trim().is_empty()
            || f.strip_prefix(file_base).map(str::trim_end)
                == n.strip_prefix(needle_base).map(str::trim_end)
    })
}

/// Regions opened by a chain of `@@` headers: each start is the line after a possible
/// occurrence of the last header.
struct Regions {
    /// The last header, for messages.
    header: String,
    /// Sorted, distinct 0-based line indexes.
    starts: Vec<usize>,
}

fn header_regions(hay: &Haystack, headers: &[String]) -> Result<Option<Regions>, LocateError> {
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

/// Everything a ladder run needs besides the needle.
#[derive(Clone)]
struct Search<'l, 's> {
    hay: &'l Haystack<'s>,
    lines: &'l [&'s str],
    anchor: Anchor,
    regions: Option<&'l [usize]>,
    cursor: usize,
    /// Candidates must start at or after this line (elided pieces follow each other).
    floor: usize,
    line_hint: Option<usize>,
    occurrences: Occurrences,
    /// What several candidates mean (the format's contract).
    pick: Pick,
}

/// What one ladder run decided.
enum Ladder {
    /// The tier, the start lines to replace (one, or all for `All`/`Exactly`), and what the
    /// report must say about the choice.
    Found(Tier, Vec<usize>, Vec<String>),
    Ambiguous(Tier, Vec<usize>),
    CountMismatch(Tier, usize, Vec<usize>),
    /// Too many places to compare the needle at, within [`WORK_BUDGET`] (places, lines).
    TooRepetitive(usize, usize),
    /// Nothing found; `outside_regions` is a candidate that the headers excluded.
    Missing {
        outside_regions: Option<usize>,
    },
}

impl Ladder {
    /// Turns a decision into placements of `old` → `new`; `reported` overrides the tier name
    /// (for repaired readings), while re-indenting follows the tier that really matched.
    fn into_result(
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
const LINE_HINT_WINDOW: usize = 10;

/// How far from a unified hunk's `+c` its new text may stand and count as already applied.
const NEW_LINE_HINT_WINDOW: usize = 3;

impl<'l, 's> Search<'l, 's> {
    /// A search of the whole file for exactly one place: no headers, hints or cursor that
    /// could single out one of several copies.
    fn bare(hay: &'l Haystack<'s>, anchor: Anchor) -> Self {
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

    /// Runs `tiers` in order; the first with candidates decides.
    fn ladder(&self, needle: &[String], tiers: &[Tier]) -> Ladder {
        let mut outside_regions = None;
        let starts = self.candidate_starts(needle);
        if starts.len().saturating_mul(needle.len()) > WORK_BUDGET {
            return Ladder::TooRepetitive(starts.len(), needle.len());
        }
        for &tier in tiers {
            let all: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|&s| block_eq(self.lines, s, needle, tier))
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

    /// The anchor tier, then the fuzzy tier (both only for substantial needles). `kept` marks
    /// the needle lines the hunk keeps (context): only those may differ from the file beyond
    /// presentation, and each such difference is noted for the report.
    fn approximate(&self, needle: &[String], kept: &[bool]) -> Ladder {
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
        let found = self.approximate_starts(needle, &kept);
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

    fn approximate_starts(&self, needle: &[String], kept: &[bool]) -> Ladder {
        let starts = self.first_line_positions(needle);
        if starts.len().saturating_mul(needle.len()) > WORK_BUDGET {
            return Ladder::Missing {
                outside_regions: None,
            };
        }
        let anchored = self.scope(&self.constrained(
            fuzzy::anchor(self.lines, &starts, needle, kept),
            needle.len(),
        ));
        if !anchored.is_empty() {
            return self.decide(Tier::Anchor, anchored, needle.len());
        }
        if self.occurrences != Occurrences::One {
            return Ladder::Missing {
                outside_regions: None,
            };
        }
        match fuzzy::fuzzy(self.lines, self.hay.sketches(), needle, kept) {
            fuzzy::Approx::One(start, _) => {
                let ok = self.within_regions(&self.constrained(vec![start], needle.len()));
                if ok.is_empty() {
                    Ladder::Missing {
                        outside_regions: Some(start),
                    }
                } else {
                    Ladder::Found(Tier::Fuzzy, ok, Vec::new())
                }
            }
            fuzzy::Approx::Several(starts) => {
                let mut starts = self.constrained(starts, needle.len());
                starts.sort_unstable();
                match starts.len() {
                    0 => Ladder::Missing {
                        outside_regions: None,
                    },
                    _ => Ladder::Ambiguous(Tier::Fuzzy, starts),
                }
            }
            fuzzy::Approx::None => Ladder::Missing {
                outside_regions: None,
            },
        }
    }

    /// Why an approximate match was refused, when it was: a line the hunk removes differs from
    /// the file's in content. Shown both ways, so the model can see what it got wrong.
    fn removed_line_mismatch(&self, needle: &[String], kept: &[bool]) -> Option<String> {
        let starts = self.first_line_positions(needle);
        if starts.len().saturating_mul(needle.len()) > WORK_BUDGET {
            return None;
        }
        let (start, j) = fuzzy::near_miss(self.lines, self.hay.sketches(), &starts, needle, kept)?;
        let line = start + j;
        Some(format!(
            "lines {}-{} look like the text you meant, but line {} differs in content from a line the edit removes: you sent `{}`, the file has `{}`. A removed or replaced line must match the file (only whitespace, indentation and quote styles may differ), so nothing was changed; copy the line from the file",
            start + 1,
            start + needle.len(),
            line + 1,
            needle[j].trim(),
            self.lines[line].trim_end_matches('\r').trim(),
        ))
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
    fn scope(&self, all: &[usize]) -> Vec<usize> {
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
                        vec![format!(
                            "line {} of {} matches (lines {}): the one nearest the line number the edit gives",
                            one + 1,
                            candidates.len(),
                            candidates
                                .iter()
                                .map(|c| (c + 1).to_string())
                                .collect::<Vec<_>>()
                                .join(", "),
                        )],
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
        let list = |v: &[usize]| {
            v.iter()
                .map(|c| (c + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if tier >= Tier::Anchor {
            // An approximate tier's candidates are guesses: no contract picks among them.
            return Ladder::Ambiguous(tier, many.to_vec());
        }
        match (self.pick, self.line_hint) {
            (Pick::First, _) => Ladder::Found(
                tier,
                vec![many[0]],
                vec![format!(
                    "first of {} matches: lines {}; send more context to pick another",
                    many.len(),
                    list(many)
                )],
            ),
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
                    vec![format!(
                        "nearest to the hunk's line {} of {} matches: lines {}",
                        hint + 1,
                        many.len(),
                        list(many)
                    )],
                )
            }
            _ => Ladder::Ambiguous(tier, many.to_vec()),
        }
    }

    /// Decides among byte-exact substring matches.
    fn decide_bytes(
        &self,
        hay: &Haystack,
        found: Vec<(usize, usize)>,
        text: &HunkText,
        tier: Tier,
    ) -> Result<Located, LocateError> {
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
    fn narrow(&self, candidates: Vec<usize>) -> Vec<usize> {
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

/// The report's words for each needle line that differs from the file's line beyond
/// presentation in a window an approximate tier accepted (only kept context lines can).
fn forgiven_context(lines: &[&str], start: usize, needle: &[String]) -> Vec<String> {
    needle
        .iter()
        .enumerate()
        .filter(|&(j, n)| !fuzzy::same_but_presentation(lines[start + j], n))
        .map(|(j, n)| {
            format!(
                "line {}: you sent `{}`, the file has `{}`, kept as is",
                start + j + 1,
                n.trim(),
                lines[start + j].trim_end_matches('\r').trim()
            )
        })
        .collect()
}

/// The longest run of ASCII word characters (`[A-Za-z0-9_]`) in a loose reading. Every line
/// whose loose reading equals it holds this run verbatim: loosening only folds non-ASCII
/// punctuation and drops whitespace, and whitespace between two word characters survives as a
/// space, so a word run never spans dropped characters. That makes it a safe byte prefilter.
fn longest_word(loose: &str) -> Option<&str> {
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

    fn hunk(old: &[&str], new: &[&str], context: &[&str]) -> Hunk {
        Hunk {
            context: context.iter().map(|s| s.to_string()).collect(),
            ..Hunk::lines(
                old.iter().map(|s| s.to_string()).collect(),
                new.iter().map(|s| s.to_string()).collect(),
                1,
            )
        }
    }

    fn run(text: &str, h: &Hunk, hints: Hints) -> Result<Located, LocateError> {
        let file = TextFile::new(text);
        locate(&Haystack::new(&file), h, hints)
    }

    fn at(r: Result<Located, LocateError>) -> (usize, usize, Tier) {
        match r.unwrap() {
            Located::Replace(p) if p.len() == 1 => (p[0].at.start, p[0].at.end, p[0].at.tier),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_blank_context_line_the_file_lacks_is_never_reflowed_into_it() {
        // Context `a` and a blank line, then `+c`: the file has no blank line after `a`.
        let h = hunk(&["a", ""], &["a", "", "c"], &[]);
        assert!(run("a\nb\n", &h, Hints::default()).is_err());
        // Where the file has it, the edit applies.
        assert!(run("a\n\nb\n", &h, Hints::default()).is_ok());
    }

    #[test]
    fn each_line_tier_matches_what_it_should() {
        let cases: [(&str, &str, Tier); 6] = [
            ("foo()", "foo()", Tier::Exact),
            ("foo()\r", "foo()", Tier::Eol),
            ("foo()  \t", "foo()", Tier::TrailingWs),
            ("    foo()", "foo()", Tier::Indent),
            (
                "say \u{201c}hi\u{201d}\u{a0}\u{2014} ok\u{2026}",
                "say \"hi\" - ok...",
                Tier::Unicode,
            ),
            ("x = 'a\tb'", "x = 'a\\tb'", Tier::Escapes),
        ];
        for (file, needle, tier) in cases {
            let text = format!("x\n{file}\ny\n");
            assert_eq!(
                at(run(&text, &hunk(&[needle], &["z"], &[]), Hints::default())),
                (1, 2, tier),
                "{file:?}"
            );
        }
    }

    #[test]
    fn indent_keeps_relative_depth_and_trimmed_does_not() {
        let text = "def f():\n    if x:\n        y()\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["if x:", "    y()"], &["if x:", "    z()"], &[]),
                Hints::default()
            )),
            (1, 3, Tier::Indent)
        );
        assert_eq!(
            at(run(
                text,
                &hunk(&["if x:", "y()"], &["if x:", "z()"], &[]),
                Hints::default()
            )),
            (1, 3, Tier::Trimmed)
        );
    }

    #[test]
    fn ambiguity_at_a_strict_tier_is_never_resolved_by_a_looser_one() {
        let err = run(
            "a\nb\na\nb\n  a\n",
            &hunk(&["a"], &["A"], &[]),
            Hints::default(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            LocateError::Ambiguous {
                tier: Tier::Exact,
                candidates: vec![1, 3]
            }
        );
    }

    #[test]
    fn headers_and_cursor_narrow() {
        let text = "fn a\nx=10\nfn b\nx=10\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["x=10"], &["x=11"], &["fn b"]),
                Hints::default()
            )),
            (3, 4, Tier::Exact)
        );
        assert_eq!(
            at(run(
                text,
                &hunk(&["x=10"], &["x=11"], &[]),
                Hints {
                    cursor: 2,
                    ..Hints::default()
                }
            )),
            (3, 4, Tier::Exact)
        );
        let text = "class A\n  def m():\n    x\nclass B\n  def m():\n    x\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&["    x"], &["    y"], &["class B", "def m():"]),
                Hints::default()
            )),
            (5, 6, Tier::Exact)
        );
        assert!(matches!(
            run(
                text,
                &hunk(&["    x"], &["    y"], &["def m():"]),
                Hints::default()
            ),
            Err(LocateError::Ambiguous { .. })
        ));
        assert!(matches!(
            run(
                text,
                &hunk(&["    x"], &["    y"], &["def q():"]),
                Hints::default()
            ),
            Err(LocateError::ContextNotFound { .. })
        ));
    }

    #[test]
    fn out_of_order_unique_hunks_are_found() {
        assert_eq!(
            at(run(
                "1\n2\n3\n4\n",
                &hunk(&["1"], &["one"], &[]),
                Hints {
                    cursor: 3,
                    ..Hints::default()
                }
            )),
            (0, 1, Tier::Exact)
        );
    }

    #[test]
    fn end_of_file_anchor_only_matches_at_the_end() {
        let mut h = hunk(&["x", "y"], &["X", "y"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert_eq!(
            at(run("x\ny\nx\ny\n", &h, Hints::default())),
            (2, 4, Tier::Exact)
        );
        let mut h = hunk(&["x"], &["X"], &[]);
        h.anchor = Anchor::EndOfFile;
        assert!(run("x\ny\nx\ny\n", &h, Hints::default()).is_err());
    }

    #[test]
    fn pure_addition_goes_after_header_explicit_line_or_at_end() {
        let text = "def a():\n    pass\ndef b():\n";
        assert_eq!(
            at(run(
                text,
                &hunk(&[], &["    # c"], &["def a():"]),
                Hints::default()
            )),
            (1, 1, Tier::Exact)
        );
        assert_eq!(
            at(run(text, &hunk(&[], &["x"], &[]), Hints::default())),
            (3, 3, Tier::Exact)
        );
        let mut h = hunk(&[], &["x"], &[]);
        h.anchor = Anchor::AfterLine(0);
        assert_eq!(at(run(text, &h, Hints::default())), (0, 0, Tier::Exact));
        h.anchor = Anchor::AfterLine(4);
        assert!(run(text, &h, Hints::default()).is_err());
    }

    #[test]
    fn trailing_blank_context_is_dropped_when_it_prevents_a_match() {
        let r = run(
            "foo\nbar\nbaz\n",
            &hunk(&["foo", "bar", ""], &["FOO", "bar", ""], &[]),
            Hints::default(),
        );
        let Ok(Located::Replace(p)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            (p[0].at.start, p[0].at.end, p[0].old.len(), p[0].new.len()),
            (0, 2, 2, 2)
        );
    }

    #[test]
    fn already_applied_when_new_lines_stand_in_place() {
        let r = run(
            "a\nnew line\nc\n",
            &hunk(&["a", "old line", "c"], &["a", "new line", "c"], &[]),
            Hints::default(),
        );
        assert!(matches!(r, Ok(Located::AlreadyApplied { .. })));
        let r = run("a\n}\nc\n", &hunk(&["x"], &["}"], &[]), Hints::default());
        assert!(matches!(r, Err(LocateError::NotFound { .. })));
    }

    #[test]
    fn line_hint_singles_out_a_nearby_candidate() {
        let mut lines = vec!["pad"; 40];
        lines[5] = "dup";
        lines[30] = "dup";
        let text = lines.join("\n") + "\n";
        let mut h = hunk(&["dup"], &["DUP"], &[]);
        h.line_hint = Some(29);
        assert_eq!(at(run(&text, &h, Hints::default())), (30, 31, Tier::Exact));
        h.line_hint = None;
        assert!(run(&text, &h, Hints::default()).is_err());
    }

    #[test]
    fn substring_edits_match_bytes_and_count_occurrences() {
        let mut h = Hunk::substring("foo(1)".into(), "foo(2)".into(), 1);
        let r = run("x = foo(1)\ny = 3\n", &h, Hints::default()).unwrap();
        let Located::Replace(p) = r else { panic!() };
        assert_eq!(p[0].bytes, Some((4, 10)));
        h.occurrences = Occurrences::All;
        let Located::Replace(p) = run("foo(1) foo(1)\nfoo(1)\n", &h, Hints::default()).unwrap()
        else {
            panic!()
        };
        assert_eq!(p.len(), 3);
        h.occurrences = Occurrences::Exactly(2);
        assert!(matches!(
            run("foo(1) foo(1)\nfoo(1)\n", &h, Hints::default()),
            Err(LocateError::CountMismatch { expected: 2, .. })
        ));
        h.occurrences = Occurrences::One;
        assert_eq!(
            run("foo(1)\nfoo(1)\n", &h, Hints::default()).unwrap_err(),
            LocateError::Ambiguous {
                tier: Tier::Exact,
                candidates: vec![1, 2]
            }
        );
    }

    #[test]
    fn line_numbers_are_stripped_and_become_a_hint() {
        let text = "a\nb\nc\nb\n";
        let h = hunk(&["4\u{2192}b"], &["4\u{2192}B"], &[]);
        assert_eq!(
            at(run(text, &h, Hints::default())),
            (3, 4, Tier::LineNumbers)
        );
        // An anchored read's `LINE:HASH|` prefix, copied into another format.
        let b = crate::anchors::line_hash("b");
        let h = hunk(&[&format!("4:{b}|b")], &[&format!("4:{b}|B")], &[]);
        let Located::Replace(p) = run(text, &h, Hints::default()).unwrap() else {
            panic!()
        };
        assert_eq!(
            (p[0].at.start, p[0].new.clone()),
            (3, vec!["B".to_string()])
        );
    }

    #[test]
    fn elision_matches_pieces_in_order_and_keeps_the_middle() {
        let text = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n";
        let h = hunk(
            &["def f():", "    ...", "    return a"],
            &["def f(x):", "    ...", "    return x"],
            &[],
        );
        let Located::Replace(p) = run(text, &h, Hints::default()).unwrap() else {
            panic!()
        };
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].at.start, p[1].at.start, p[1].at.tier),
            (0, 4, Tier::Elision)
        );
        let bad = hunk(
            &["def f():", "    ...", "    return a"],
            &["def f(x):", "    return x"],
            &[],
        );
        assert!(matches!(
            run(text, &bad, Hints::default()),
            Err(LocateError::ElisionMismatch { .. })
        ));
    }

    #[test]
    fn placeholders_in_new_text_are_refused() {
        let h = hunk(&["a", "b"], &["a", "// ... existing code ..."], &[]);
        assert!(matches!(
            run("a\nb\n", &h, Hints::default()),
            Err(LocateError::Placeholder { .. })
        ));
    }

    #[test]
    fn approximate_tiers_forgive_kept_context_only() {
        let text = "def load(path):\n    with open(path) as f:\n        data = json.load(f)\n    return data\n";
        // The drifted lines are removed: the model never saw the file's versions. Refused,
        // with the differing line shown both ways.
        let removed = hunk(
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(fh)",
                "    return data",
            ],
            &[
                "def load(path):",
                "    return json.loads(open(path).read())",
            ],
            &[],
        );
        match run(text, &removed, Hints::default()) {
            Err(LocateError::NotFound { note: Some(n), .. }) => assert!(
                n.contains("line 2")
                    && n.contains("`with open(path) as fh:`")
                    && n.contains("`with open(path) as f:`"),
                "{n}"
            ),
            other => panic!("{other:?}"),
        }
        // The same drift in lines the hunk keeps: anchored, each difference noted, and the
        // file's own lines kept.
        let kept = hunk(
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(f)",
                "    return data",
            ],
            &[
                "def load(path):",
                "    with open(path) as fh:",
                "        data = json.load(f)",
                "    return data or {}",
            ],
            &[],
        );
        let Ok(Located::Replace(p)) = run(text, &kept, Hints::default()) else {
            panic!()
        };
        assert_eq!(
            (p[0].at.start, p[0].at.end, p[0].at.tier),
            (0, 4, Tier::Anchor)
        );
        assert_eq!(
            p[0].notes,
            vec![
                "line 2: you sent `with open(path) as fh:`, the file has `with open(path) as f:`, kept as is",
            ]
        );
        let fuzzy = hunk(
            &[
                "def load(path):",
                "    with open(path) as f:",
                "        data = json.load(f)",
                "    return dat",
            ],
            &[
                "def load(path):",
                "    with open(path) as f:",
                "        data = json.load(f)",
                "    return dat",
                "x",
            ],
            &[],
        );
        assert_eq!(at(run(text, &fuzzy, Hints::default())), (0, 4, Tier::Fuzzy));
        assert!(run(text, &hunk(&["retrun data"], &["x"], &[]), Hints::default()).is_err());
    }
}
