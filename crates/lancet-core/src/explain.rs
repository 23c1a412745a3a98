//! Words for what went wrong locating a hunk: the refusal a model reads (what was not found or
//! found twice, where, the nearest real lines, what tells the candidates apart) and what to send
//! next in the caller's vocabulary ([`Surface`]). Staging calls it; nothing else words a
//! locate failure.

use crate::batch::{Format, Hunk};
use crate::locate::closest::Closest;
use crate::locate::{LocateError, Tier};
use crate::path::RelPath;
use crate::render::join_lines;
use crate::report::MAX_LISTED;
use crate::report::{HunkReport, Outcome, Surface};
use crate::text::indent_of;
use std::collections::HashMap;

/// The nearest line above `line` (0-based) that is less indented than it: the enclosing
/// function or class, which is what an `@@` header should name to disambiguate.
fn enclosing_line<'a>(lines: &[&'a str], line: usize) -> Option<(usize, &'a str)> {
    let first = (line..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    let width = indent_of(lines[first]).len();
    (first.saturating_sub(MAX_ENCLOSING_SCAN)..first)
        .rev()
        .find(|&i| !lines[i].trim().is_empty() && indent_of(lines[i]).len() < width)
        .map(|i| (i, lines[i].trim()))
}

/// Every candidate's enclosing lines and the line right before it, with how many candidates
/// share each: what tells one apart, found for every candidate in one pass (thousands of
/// candidates cost a scan each, not one per pair).
struct Apart<'a> {
    /// Per candidate: its enclosing lines (index, text), innermost first.
    chains: Vec<Vec<(usize, &'a str)>>,
    /// How many candidates each enclosing line (by index) encloses.
    enclosing: HashMap<usize, usize>,
    /// Per candidate: the nearest non-blank line before it.
    before: Vec<Option<(usize, &'a str)>>,
    /// How many candidates have each text right before them.
    before_count: HashMap<&'a str, usize>,
}

impl<'a> Apart<'a> {
    fn new(lines: &[&'a str], candidates: &[usize]) -> Apart<'a> {
        let chains: Vec<Vec<(usize, &str)>> = candidates
            .iter()
            .map(|&c| enclosing_chain(lines, c - 1, usize::MAX))
            .collect();
        let mut enclosing = HashMap::new();
        for chain in &chains {
            for (i, _) in chain {
                *enclosing.entry(*i).or_insert(0) += 1;
            }
        }
        let before: Vec<Option<(usize, &str)>> = candidates
            .iter()
            .map(|&c| {
                (c.saturating_sub(1 + MAX_DISTINGUISHING_SCAN)..c - 1)
                    .rev()
                    .map(|i| (i, lines[i].trim()))
                    .find(|(_, t)| !t.is_empty())
            })
            .collect();
        let mut before_count = HashMap::new();
        for (_, text) in before.iter().flatten() {
            *before_count.entry(*text).or_insert(0) += 1;
        }
        Apart {
            chains,
            enclosing,
            before,
            before_count,
        }
    }

    /// What tells the `k`-th candidate apart from the others: its innermost enclosing line
    /// (`def`, `class`, `fn` …) that no other candidate shares (`true`), else the line right
    /// before it when no other candidate has that line right before it (`false`). Two
    /// candidates are never described by the same line.
    fn distinguishing(&self, k: usize) -> Option<(usize, &'a str, bool)> {
        if let Some(&(i, text)) = self.chains[k]
            .iter()
            .find(|(i, _)| self.enclosing.get(i) == Some(&1))
        {
            return Some((i, text, true));
        }
        let (i, text) = self.before[k]?;
        (self.before_count.get(text) == Some(&1)).then_some((i, text, false))
    }

    /// Stacked `@@` headers (outermost first) that single out the first candidate: its
    /// enclosing lines up to the first level where they differ from every other candidate's.
    fn headers(&self) -> Option<Vec<&'a str>> {
        let text = |chain: &Vec<(usize, &'a str)>, d: usize| chain.get(d).map(|(_, t)| *t);
        let (first, others) = self.chains.split_first()?;
        let depth = (0..first.len().min(MAX_HEADER_DEPTH))
            .find(|&d| others.iter().all(|o| text(o, d) != text(first, d)))?;
        Some(first[..=depth].iter().rev().map(|(_, t)| *t).collect())
    }
}

/// How far above a candidate to look for a line that tells it apart.
const MAX_DISTINGUISHING_SCAN: usize = 40;

/// The enclosing lines of a 0-based line (index and text), innermost first, at most `depth`
/// levels up.
fn enclosing_chain<'a>(lines: &[&'a str], line: usize, depth: usize) -> Vec<(usize, &'a str)> {
    let mut chain = Vec::new();
    let mut at = line;
    while chain.len() < depth {
        let Some((i, text)) = enclosing_line(lines, at) else {
            break;
        };
        chain.push((i, text));
        at = i;
    }
    chain
}

/// How many enclosing levels a suggested `@@` header stack may climb.
const MAX_HEADER_DEPTH: usize = 4;

/// How far up to look for an enclosing line.
const MAX_ENCLOSING_SCAN: usize = 500;

/// How to make an ambiguous edit unique, in the terms of its format.
fn disambiguation_advice(format: Format, hunk: &Hunk, example: &str) -> String {
    if hunk.text.is_some() || format == Format::Json {
        return "include more of the surrounding text in old_string so it occurs once (or set replace_all to change every occurrence)".into();
    }
    match format {
        Format::SearchReplace => "add the neighbouring lines to the SEARCH block so it occurs once (or a ':start_line:N' hint)".into(),
        _ => format!(
            "add an '@@' header naming the enclosing line of the one you mean (for example {example}), or more context lines, so exactly one place matches"
        ),
    }
}

/// An `@@` header found nowhere, with the closest whole line.
fn context_not_found_message(rel: &RelPath, header: &str, closest: Option<&Closest>) -> String {
    let near = closest
        .map(|c| {
            format!(
                " The closest line is {} ({:?}); an @@ header must match a whole line.",
                c.start_line,
                c.excerpt
                    .iter()
                    .find(|l| l.line == c.start_line)
                    .map(|l| l.text.as_str())
                    .unwrap_or("")
            )
        })
        .unwrap_or_default();
    format!(
        "Failed to find context '{header}' in {rel}.{near} Next: copy the header line exactly from the file, or drop the header."
    )
}

/// A chunk found nowhere: the first line looked for, the closest real lines and how they
/// differ, and the command (in the surface's words) that shows them.
fn not_found_message(
    rel: &RelPath,
    first_old: &str,
    note: Option<&str>,
    closest: Option<&Closest>,
    surface: Surface,
) -> String {
    let mut msg = format!(
        "Failed to find expected lines in {rel} (first expected line: {first_old:?}); no tier matched (exact through fuzzy)."
    );
    if let Some(note) = note {
        msg.push_str(&format!(" Note: {note}."));
    }
    match closest {
        Some(c) => {
            msg.push_str(&format!(
                " Closest real lines {}-{} (similarity {:.2}):\n",
                c.start_line, c.end_line, c.similarity
            ));
            for l in &c.excerpt {
                msg.push_str(&format!("    {:>5} | {}\n", l.line, l.text));
            }
            for d in &c.differences {
                msg.push_str(&format!("  {d}\n"));
            }
            msg.push_str(&format!(
                "  Next: copy those lines exactly as they are now ({}) and resend this chunk.",
                surface.read_lines(rel.as_str(), c.start_line, c.end_line + 1 - c.start_line)
            ));
        }
        None => msg.push_str(&format!(
            " Nothing similar is in the file. Next: re-read it ({}) and resend this chunk with lines copied from it.",
            surface.read(rel.as_str())
        )),
    }
    msg
}

/// A chunk found in several places: each place with the line that tells it apart (the first
/// [`MAX_LISTED`]), and how this format says which one is meant.
fn ambiguous_message(
    rel: &RelPath,
    lines: &[&str],
    hunk: &Hunk,
    format: Format,
    tier: Tier,
    candidates: &[usize],
) -> String {
    let apart = Apart::new(lines, candidates);
    let mut places: Vec<String> = candidates
        .iter()
        .take(MAX_LISTED)
        .enumerate()
        .map(|(k, &c)| match apart.distinguishing(k) {
            Some((i, text, true)) => format!("line {c} (in {text:?}, line {})", i + 1),
            Some((i, text, false)) => format!("line {c} (after {text:?}, line {})", i + 1),
            None => format!("line {c}"),
        })
        .collect();
    if candidates.len() > MAX_LISTED {
        places.push(format!("and {} more", candidates.len() - MAX_LISTED));
    }
    let example = apart
        .headers()
        .map(|hs| {
            hs.iter()
                .map(|h| format!("'@@ {h}'"))
                .collect::<Vec<_>>()
                .join(" then ")
        })
        .unwrap_or_else(|| "'@@ def name():'".to_string());
    let count = if candidates.len() > MAX_LISTED {
        format!("{} places, lines", candidates.len())
    } else {
        "lines".to_string()
    };
    format!(
        "the expected lines are ambiguous in {rel}: they match at {count} {} (tier {}): {}. Next: {}.",
        join_lines(candidates),
        tier.name(),
        places.join("; "),
        disambiguation_advice(format, hunk, &example)
    )
}

/// Lines a hunk adds that already stand beside its old text, but prove nothing: both readings.
fn applied_or_copy_message(
    rel: &RelPath,
    at: usize,
    old_at: usize,
    whole: bool,
    surface: Surface,
) -> String {
    if whole {
        format!(
            "the lines this chunk adds already stand in {rel} at line {at}, right beside the text it anchors on (line {old_at}), but they are only blank lines or brackets: already applied, or a second copy? Nothing was written. Next: if it is applied, do not resend it; to add another copy, include the copy that stands there in the old text."
        )
    } else {
        format!(
            "some of the lines this chunk adds already stand in {rel} at line {at}, beside the text it anchors on (line {old_at}), and the rest do not: applied in part, or something else? Nothing was written. Next: re-read the file ({}) and send the old text as it stands now.",
            surface.read(rel.as_str())
        )
    }
}

/// New text standing (pinned by its context) elsewhere than the old text found with other
/// indentation: both readings.
fn applied_or_elsewhere_message(rel: &RelPath, applied_at: usize, found_at: usize) -> String {
    format!(
        "the new text stands verbatim in {rel} at line {applied_at}, where this chunk's context stands (as if it were applied there already), while its old text stands only with other indentation at line {found_at}: already applied, or meant for line {found_at}? Nothing was written. Next: if it is applied, do not resend it; to change line {found_at}, send the old text with the indentation it has there."
    )
}

/// A pure addition whose added line looks like a changed version of its `@@` line.
fn changed_header_message(rel: &RelPath, header: &str, line: usize, added: &str) -> String {
    format!(
        "this chunk only adds lines after the @@ context {header:?} (line {line} of {rel}), and its added line {added:?} looks like a changed version of that line: replace it, or add a second one beside it? lancet cannot tell. Nothing was written. Next: to replace it, send the line as removed and the new one as added (`-{header}` then `+{added}`) under an @@ line above it; to add beside it, include an unchanged line of context."
    )
}

/// Old text whose lines repeat too much to compare everywhere.
fn too_repetitive_message(
    rel: &RelPath,
    hunk: &Hunk,
    format: Format,
    places: usize,
    lines: usize,
) -> String {
    format!(
        "the old text ({lines} lines) repeats too much in {rel} to be located: even its rarest lines stand at {places} places, and comparing it at each would take longer than any answer is worth. Next: {}.",
        disambiguation_advice(format, hunk, "'@@ def name():'")
    )
}

/// The old text's first non-blank line, for messages.
fn first_old_line(hunk: &Hunk) -> String {
    hunk.old
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default()
}

pub(crate) fn describe_failure(
    rel: &RelPath,
    lines: &[&str],
    hunk: &Hunk,
    format: Format,
    surface: Surface,
    e: LocateError,
    h: &mut HunkReport,
) {
    h.kind = Some(e.kind());
    // Every refusal with two or more readings is ambiguous; the rest found nothing to apply.
    h.status = if e.kind() == crate::kinds::ErrorKind::Ambiguous {
        Outcome::Ambiguous
    } else {
        Outcome::Failed
    };
    match e {
        LocateError::CountMismatch {
            tier,
            expected,
            candidates,
        } => {
            h.tier = Some(tier);
            h.error = Some(format!(
                "expected {expected} occurrence(s) in {rel} but found {} (tier {}){}. Next: set expected_replacements to the real count, or make the text unique.",
                candidates.len(),
                tier.name(),
                if candidates.is_empty() {
                    String::new()
                } else {
                    format!(" at lines {}", join_lines(&candidates))
                }
            ));
            h.set_candidates(candidates);
        }
        LocateError::Placeholder { line } => {
            h.error = Some(format!(
                "the new text contains the omission placeholder {line:?}, which the old text does not have; writing it would delete the code it stands for. Next: send the complete new text, or use '...' lines in both old and new text to keep elided lines."
            ));
        }
        LocateError::ElisionMismatch { old, new } => {
            h.error = Some(format!(
                "the old text elides {old} part(s) with '...' lines but the new text elides {new}; each '...' in the old text needs a matching '...' in the new text. Next: pair them up, or spell the lines out."
            ));
        }
        LocateError::NotFound {
            closest: None,
            note: Some(note),
        } if hunk.old.is_empty() => {
            h.error = Some(format!(
                "{note} in {rel}. Next: re-read the file ({}) and name a line that exists.",
                surface.read(rel.as_str())
            ));
        }
        LocateError::NotFound { closest, note } => {
            h.error = Some(not_found_message(
                rel,
                &first_old_line(hunk),
                note.as_deref(),
                closest.as_ref(),
                surface,
            ));
            h.closest = closest;
        }
        LocateError::Ambiguous { tier, candidates } => {
            h.tier = Some(tier);
            h.error = Some(ambiguous_message(
                rel,
                lines,
                hunk,
                format,
                tier,
                &candidates,
            ));
            h.set_candidates(candidates);
        }
        LocateError::AppliedOrCopy { at, old_at, whole } => {
            h.error = Some(applied_or_copy_message(rel, at, old_at, whole, surface));
        }
        LocateError::AppliedOrElsewhere {
            applied_at,
            found_at,
        } => {
            h.error = Some(applied_or_elsewhere_message(rel, applied_at, found_at));
        }
        LocateError::ChangedHeader {
            header,
            line,
            added,
        } => {
            h.error = Some(changed_header_message(rel, &header, line, &added));
        }
        LocateError::ContextAmbiguous { header, candidates } => {
            h.error = Some(context_ambiguous_message(rel, &header, &candidates));
            h.set_candidates(candidates);
        }
        LocateError::TooRepetitive { places, lines } => {
            h.error = Some(too_repetitive_message(rel, hunk, format, places, lines));
        }
        LocateError::ContextNotFound { header, closest } => {
            h.error = Some(context_not_found_message(rel, &header, closest.as_ref()));
            h.closest = closest;
        }
    }
}

/// A pure addition's `@@` header standing at several places.
fn context_ambiguous_message(rel: &RelPath, header: &str, candidates: &[usize]) -> String {
    format!(
        "the @@ context '{header}' is ambiguous in {rel}: it occurs at lines {}. Next: stack an outer header (for example '@@ class Name') before it, or add context lines.",
        join_lines(candidates)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguity_names_what_tells_candidates_apart() {
        let lines = [
            "def fetch():",
            "    attempts = 0",
            "    delay = 1.0",
            "    for i in range(3):",
            "        delay = 1.0",
            "",
            "def push():",
            "    delay = 1.0",
        ];
        // Different functions: each candidate is named by its own enclosing line.
        assert_eq!(
            Apart::new(&lines, &[3, 8]).distinguishing(0),
            Some((0, "def fetch():", true))
        );
        assert_eq!(
            Apart::new(&lines, &[3, 8]).distinguishing(1),
            Some((6, "def push():", true))
        );
        // The same function: never the same line for both.
        assert_eq!(
            Apart::new(&lines, &[3, 5]).distinguishing(0),
            Some((1, "attempts = 0", false))
        );
        assert_eq!(
            Apart::new(&lines, &[3, 5]).distinguishing(1),
            Some((3, "for i in range(3):", true))
        );
    }
}
