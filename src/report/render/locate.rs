//! Locate failures in words: what was not found or found twice, where, the nearest real lines,
//! what tells the candidates apart, and what to send next in the surface's vocabulary.

use super::sketch::sketch_refusal;
use super::{join_all_lines, join_lines};
use crate::report::{MAX_LISTED, Surface};
use lancet_core::failure::{HunkFailure, LocateFailure, Remedy, Telling};
use lancet_core::locate::closest::Closest;
use lancet_core::locate::{LocateError, MissNote};
use lancet_core::notes::HunkNote;

/// A hunk's failure in words.
pub(crate) fn hunk_failure(failure: &HunkFailure, surface: Surface) -> String {
    match failure {
        HunkFailure::NotLocated(f) => not_located(f, surface),
        HunkFailure::Overlaps {
            path,
            index,
            start_line,
            end_line,
            other,
        } => format!(
            "chunk {index} (lines {start_line}-{end_line}) overlaps chunk {other} in {path}; merge them into one chunk"
        ),
    }
}

fn not_located(f: &LocateFailure, surface: Surface) -> String {
    let rel = f.path.as_str();
    let words = match &f.error {
        LocateError::CountMismatch {
            tier,
            expected,
            candidates,
        } => format!(
            "expected {expected} occurrence(s) in {rel} but found {} (tier {}){}. Next: set expected_replacements to the real count, or make the text unique.",
            candidates.len(),
            tier.name(),
            if candidates.is_empty() {
                String::new()
            } else {
                format!(" at lines {}", join_lines(candidates))
            }
        ),
        LocateError::Placeholder { line } => format!(
            "the new text contains the omission placeholder {line:?}, which the old text does not have; writing it would delete the code it stands for. Next: send the complete new text, or use '...' lines in both old and new text to keep elided lines."
        ),
        LocateError::ElisionMismatch { old, new } => format!(
            "the old text elides {old} part(s) with '...' lines but the new text elides {new}; each '...' in the old text needs a matching '...' in the new text. Next: pair them up, or spell the lines out."
        ),
        LocateError::NotFound {
            closest: None,
            note: Some(note),
        } if f.no_old_text => format!(
            "{} in {rel}. Next: re-read the file ({}) and name a line that exists.",
            miss_note(note),
            surface.read(rel)
        ),
        LocateError::NotFound { closest, note } => not_found_message(
            rel,
            &f.first_old,
            note.as_deref().map(miss_note).as_deref(),
            closest.as_ref(),
            surface,
        ),
        LocateError::Ambiguous { tier, candidates } => format!(
            "the expected lines are ambiguous in {rel}: they match at {} {} (tier {}): {}. Next: {}.",
            if candidates.len() > MAX_LISTED {
                format!("{} places, lines", candidates.len())
            } else {
                "lines".to_string()
            },
            join_lines(candidates),
            tier.name(),
            places(f, candidates.len()),
            remedy(f.remedy, &example(f.headers.as_deref()))
        ),
        LocateError::AppliedOrCopy { at, old_at, whole } => {
            applied_or_copy_message(rel, *at, *old_at, *whole, surface)
        }
        LocateError::AppliedOrElsewhere {
            applied_at,
            found_at,
        } => applied_or_elsewhere_message(rel, *applied_at, *found_at),
        LocateError::ChangedHeader {
            header,
            line,
            added,
        } => changed_header_message(rel, header, *line, added),
        LocateError::ContextAmbiguous { header, candidates } => {
            context_ambiguous_message(rel, header, candidates)
        }
        LocateError::TooRepetitive { places, lines } => format!(
            "the old text ({lines} lines) repeats too much in {rel} to be located: even its rarest lines stand at {places} places, and comparing it at each would take longer than any answer is worth. Next: {}.",
            remedy(f.remedy, ANY_HEADER)
        ),
        LocateError::ContextNotFound { header, closest } => {
            context_not_found_message(rel, header, closest.as_ref())
        }
    };
    match &f.as_sketch {
        Some(why) => format!(
            "{words} Read as a lazy sketch, it could not be placed: {}.",
            sketch_refusal(why)
        ),
        None => words,
    }
}

/// Each listed candidate with the line that tells it apart, and how many more there are.
fn places(f: &LocateFailure, total: usize) -> String {
    let mut places: Vec<String> = f
        .places
        .iter()
        .map(|p| match &p.apart_by {
            Some((i, text, Telling::Encloses)) => {
                format!("line {} (in {text:?}, line {i})", p.line)
            }
            Some((i, text, Telling::JustBefore)) => {
                format!("line {} (after {text:?}, line {i})", p.line)
            }
            Some((i, text, Telling::FirstAfter)) => {
                format!("line {} (the first after {text:?}, line {i})", p.line)
            }
            None => format!("line {}", p.line),
        })
        .collect();
    if total > MAX_LISTED {
        places.push(format!("and {} more", total - MAX_LISTED));
    }
    places.join("; ")
}

/// The `@@` headers that would single out the first candidate, as an example; without them,
/// what such a header names (never a line of another language than the file's).
fn example(headers: Option<&[String]>) -> String {
    headers
        .map(|hs| {
            hs.iter()
                .map(|h| format!("'@@ {h}'"))
                .collect::<Vec<_>>()
                .join(" then ")
        })
        .unwrap_or_else(|| ANY_HEADER.to_string())
}

/// An `@@` header in general: a line copied from the file, standing once above the place.
const ANY_HEADER: &str =
    "'@@ ' followed by a line copied from the file that stands once, above the place you mean";

/// How to make an ambiguous edit unique, in the terms of its format.
fn remedy(remedy: Remedy, example: &str) -> String {
    match remedy {
        Remedy::OldString => "include more of the surrounding text in old_string so it occurs once (or set replace_all to change every occurrence)".into(),
        Remedy::SearchBlock => "add the neighbouring lines to the SEARCH block so it occurs once (or a ':start_line:N' hint)".into(),
        Remedy::Headers => format!(
            "add an '@@' header that singles out the one you mean (for example {example}: the chunk then matches the first place after that line), or more context lines, so exactly one place matches"
        ),
    }
}

/// An `@@` header found nowhere, with the closest whole line.
fn context_not_found_message(rel: &str, header: &str, closest: Option<&Closest>) -> String {
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
    rel: &str,
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
                surface.read_lines(rel, c.start_line, c.end_line + 1 - c.start_line)
            ));
        }
        None => msg.push_str(&format!(
            " Nothing similar is in the file. Next: re-read it ({}) and resend this chunk with lines copied from it.",
            surface.read(rel)
        )),
    }
    msg
}

/// Lines a hunk adds that already stand beside its old text, but prove nothing: both readings.
fn applied_or_copy_message(
    rel: &str,
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
            surface.read(rel)
        )
    }
}

/// New text standing (pinned by its context) elsewhere than the old text found with other
/// indentation: both readings.
fn applied_or_elsewhere_message(rel: &str, applied_at: usize, found_at: usize) -> String {
    format!(
        "the new text stands verbatim in {rel} at line {applied_at}, where this chunk's context stands (as if it were applied there already), while its old text stands only with other indentation at line {found_at}: already applied, or meant for line {found_at}? Nothing was written. Next: if it is applied, do not resend it; to change line {found_at}, send the old text with the indentation it has there."
    )
}

/// A pure addition whose added line looks like a changed version of its `@@` line.
fn changed_header_message(rel: &str, header: &str, line: usize, added: &str) -> String {
    format!(
        "this chunk only adds lines after the @@ context {header:?} (line {line} of {rel}), and its added line {added:?} looks like a changed version of that line: replace it, or add a second one beside it? lancet cannot tell. Nothing was written. Next: to replace it, send the line as removed and the new one as added (`-{header}` then `+{added}`) under an @@ line above it; to add beside it, include an unchanged line of context."
    )
}

/// A pure addition's `@@` header standing at several places.
fn context_ambiguous_message(rel: &str, header: &str, candidates: &[usize]) -> String {
    format!(
        "the @@ context '{header}' is ambiguous in {rel}: it occurs at lines {}. Next: stack an outer header (for example '@@ class Name') before it, or add context lines.",
        join_lines(candidates)
    )
}

/// What lancet saw of a hunk it could not place, in words (after "Note: ").
fn miss_note(note: &MissNote) -> String {
    match note {
        MissNote::RemovedLineDiffers {
            first,
            last,
            line,
            sent,
            file,
        } => format!(
            "lines {first}-{last} look like the text you meant, but line {line} differs in content from a line the edit removes: you sent `{sent}`, the file has `{file}`. A removed or replaced line must match the file (only whitespace, indentation and quote styles may differ), so nothing was changed; copy the line from the file"
        ),
        MissNote::BlankLinesLeftOut { first, last } => format!(
            "its text stands at lines {first}-{last} once the blank lines the file has there are left out; send the old text with those blank lines, as the file has it"
        ),
        MissNote::OutsideHeader {
            line,
            header,
            header_line,
        } => format!(
            "these lines occur at line {line}, but not after the @@ context {header:?} (line {header_line})"
        ),
        MissNote::PastTheEnd { line, lines } => {
            format!("cannot insert after line {line}: the file has {lines} line(s)")
        }
        MissNote::ElidedPieceMissing { piece, after } => format!(
            "the old text elides lines with '...'; its piece starting {piece:?} was not found after line {after}"
        ),
        MissNote::NewTextStands { first, last } => format!(
            "its new text stands at lines {first}-{last}, though nothing shows it is where the old text was: if that is this edit's result, do not resend it"
        ),
    }
}

/// How a hunk's place was chosen, in words.
pub(crate) fn hunk_note(note: &HunkNote) -> String {
    match note {
        HunkNote::NearestToLineNumber { line, candidates } => format!(
            "line {line} of {} matches (lines {}): the one nearest the line number the edit gives",
            candidates.len(),
            join_all_lines(candidates)
        ),
        HunkNote::FirstOfMatches(candidates) => format!(
            "first of {} matches: lines {}; send more context to pick another",
            candidates.len(),
            join_all_lines(candidates)
        ),
        HunkNote::NearestToHunkLine { hint, candidates } => format!(
            "nearest to the hunk's line {hint} of {} matches: lines {}",
            candidates.len(),
            join_all_lines(candidates)
        ),
        HunkNote::ContextKept { line, sent, file } => {
            format!("line {line}: you sent `{sent}`, the file has `{file}`, kept as is")
        }
        HunkNote::AdvisoryAnchor(header) => format!(
            "the @@ anchor `{header}` matches no line; a single anchor is advisory in this format, so the chunk's own lines placed it"
        ),
        HunkNote::HeaderMissed {
            header,
            nearest,
            nearest_text,
        } => format!(
            "the @@ header `{header}` matches no line (nearest: line {nearest} `{nearest_text}`); the chunk's own lines occur once below it and placed it"
        ),
        HunkNote::Transcoded { path, read_as } => format!(
            "{path} was read as {read_as} and is written back in it; untouched bytes are kept"
        ),
        HunkNote::Sketch { markers, kept } => super::ops::read_as_sketch(*markers, *kept),
    }
}
