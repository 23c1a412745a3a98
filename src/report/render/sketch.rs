//! A lazy sketch's refusals in words (`// ... existing code ...` that lancet could not place):
//! what it found, the lines it names, and what to send instead.

use super::join_all_lines;
use lancet_core::sketch::{Broken, Refusal, Unmarked, Unplaced};

/// Why a sketch was not placed, with what to send instead.
pub(crate) fn sketch_refusal(refusal: &Refusal) -> String {
    match refusal {
        Refusal::TooLarge { sketch, old } => format!(
            "the sketch ({sketch} lines) is too large to align with {old} lines; send the change as SEARCH/REPLACE blocks or old_string/new_string edits of the parts that change"
        ),
        Refusal::TooRepetitive { sketch, old } => format!(
            "the sketch ({sketch} lines) repeats too many of the {old} old lines to align them; send the change as SEARCH/REPLACE blocks or old_string/new_string edits of the parts that change"
        ),
        Refusal::MarkerUnpinned {
            line,
            start,
            before,
        } => marker_unpinned(*line, *start, before),
        Refusal::NothingPlaces(why) => nothing_places(*why),
        Refusal::DeletedUnmarked { line, text, lies } => deleted_unmarked(*line, text, *lies),
        Refusal::DroppedAtEnd { first, last, head } => dropped_at_end(first, last.as_ref(), *head),
        Refusal::PulledUp {
            deleted,
            new_line,
            at,
            marker,
        } => format!(
            "old line {} ({:?}) would be deleted: line {new_line} of the new text ({:?}) stands right after it as old line {}, just above the marker on line {marker}. Was that line moved up (the marker keeping old line {}), or is old line {} deleted? Include the lines around it, or send the lines in full",
            deleted.0, deleted.1, at.1, at.0, deleted.0, deleted.0,
        ),
        Refusal::ReplacementUnpinned { new, old } => format!(
            "line {} of the new text ({:?}) looks like a changed version of old line {} ({:?}), but no unchanged line beside it pins it there: lancet cannot tell whether it replaces that line or is added. Include the old line's neighbours, or send the lines in full",
            new.0, new.1, old.0, old.1
        ),
        Refusal::EmptyMarkerBeforeChange { marker, old } => format!(
            "the marker on line {marker} keeps no line, and right after it the new text changes old line {} ({:?}): is that code changed, or is the new text a second one beside it, after what the marker was meant to keep? Include the old lines in full there, or drop the marker",
            old.0, old.1
        ),
        Refusal::EmptyMarkerTooDeep { marker, depth, old } => format!(
            "the marker on line {marker} keeps no line, and old line {} ({:?}) beside it would be deleted: indented {depth} columns, the marker stands only for code at least that deep. Indent the marker like the code it stands for, or include the line",
            old.0, old.1
        ),
        Refusal::BlockHeadChanged { old, marker } => format!(
            "old line {} ({:?}) would give way to new text while other lines of its block stay, right after the marker on line {marker}: is that block changed, or is the new text a second block beside it (the marker keeping the old one)? Include the old block's first line, or put the new block after a line that stands once",
            old.0, old.1
        ),
        Refusal::WrittenTwiceBesideMarker { new, marker, old } => format!(
            "line {} of the new text ({:?}) is written as new code next to the marker on line {marker}, while the marker keeps the same line (old line {old}): it would be there twice. Include the lines around it instead of the marker",
            new.0, new.1
        ),
        Refusal::ChangedBesideMarker { new, marker, old } => format!(
            "line {} of the new text ({:?}) is new, next to the marker on line {marker}, and looks like a changed version of old line {} ({:?}), which the marker would keep: lancet cannot tell whether it replaces that line or is added beside it. Include the old line's neighbours instead of the marker there, or send the lines in full",
            new.0, new.1, old.0, old.1
        ),
        Refusal::NewDefinitionMatchesOld {
            new,
            definition,
            old,
        } => format!(
            "line {} of the new text ({:?}) belongs to the new definition {definition:?}, yet it matches old line {old} inside other code: lancet cannot tell which old lines the new definition replaces. Include a line that pins its place, or send it as a separate insertion",
            new.0, new.1
        ),
        Refusal::DefinitionTwice { new, text, old } => format!(
            "line {new} of the new text writes {text:?} as new code, while a marker keeps the same definition at old line {old}: it would be written twice. If it moves, include the lines around its old place (without it) instead of a marker"
        ),
        Refusal::Broken(broken) => format!(
            "its placement fails lancet's check ({}), so it is not what the sketch says. Include more unchanged lines around each marker, or send the lines in full",
            broken_check(broken)
        ),
        Refusal::StringLeftOpen { written_and_kept } => string_left_open(written_and_kept.as_ref()),
        Refusal::FragmentLineNowhere { text } => format!(
            "its line {text:?} stands nowhere in the file, so it does not say which part of the file it is the new version of"
        ),
        Refusal::FragmentLineRepeated { text, at, count } => format!(
            "its line {text:?} stands {count} times in the file (lines {}), so it does not say which part of the file it is the new version of; start and end it with lines that occur once",
            join_all_lines(at)
        ),
        Refusal::ChangesNothing => {
            "read as a sketch it changes nothing (its markers keep every line the hunk removes)"
                .to_string()
        }
    }
}

/// A marker that could stand for more than one run of old lines.
fn marker_unpinned(line: usize, start: bool, before: &[usize]) -> String {
    let place = join_all_lines(before);
    let which = match start {
        true => format!("start before old line {place}"),
        false => format!("end before old line {place}"),
    };
    format!(
        "the marker on line {line} of the new text could {which}: the lines around it do not pin down which old lines it stands for (two similar places, or new lines between two markers). Include a line that occurs only once next to the marker, or send the lines in full"
    )
}

/// Why no line of a sketch places it.
fn nothing_places(why: Unplaced) -> String {
    let why = match why {
        Unplaced::MarkerWouldLeaveBlock => {
            "the lines of the new text that are also in the old text cannot be placed around its markers (a marker would leave its block)"
        }
        Unplaced::OtherIndentation => {
            "the lines of the new text occur in the old text only with other indentation, and a sketch is placed by its lines as they stand"
        }
        Unplaced::NoSharedLine => {
            "no line of the new text other than its markers occurs in the old text"
        }
    };
    format!(
        "{why}, so lancet cannot tell where the elided lines are. Include unchanged lines around each marker, exactly as they are, or send the whole text"
    )
}

/// An old line the sketch would delete where nothing says so.
fn deleted_unmarked(line: usize, text: &str, lies: Unmarked) -> String {
    let why = match lies {
        Unmarked::OpenTail => {
            "after the new text's last line, in the block its first line opens: nothing there says the lines are to go (a marker keeps them, an unchanged line after the change pins the end)"
        }
        Unmarked::BesideMarker => {
            "beside a marker, outside the block the marker's indentation covers"
        }
        Unmarked::AtAnEnd => {
            "before the new text's first line or after its last, where it has no marker"
        }
    };
    format!(
        "old line {line} ({text:?}) would be deleted: it lies {why}. Put a marker there to keep it (indented like the code it stands for), or include the line"
    )
}

/// Old lines before the sketch's first line or after its last, where it has no marker.
fn dropped_at_end(first: &(usize, String), last: Option<&(usize, String)>, head: bool) -> String {
    let lines = match last {
        None => format!("old line {} ({:?})", first.0, first.1),
        Some(last) => format!(
            "old lines {}–{} ({:?} … {:?})",
            first.0, last.0, first.1, last.1
        ),
    };
    let (where_, fix, part) = match head {
        true => (
            "before the sketch's first line",
            "Start the sketch with a marker",
            "file's head",
        ),
        false => (
            "after the sketch's last line",
            "End the sketch with a marker",
            "rest of the file",
        ),
    };
    format!(
        "{lines} {where_} would be dropped: the sketch has no marker there, and lancet does not take a missing marker as deleting the {part}. {fix} (a line like the sketch's other markers) to keep them, or include them"
    )
}

/// A placement that would leave a string open.
fn string_left_open(written_and_kept: Option<&(String, usize)>) -> String {
    let what = match written_and_kept {
        Some((line, old)) => format!(
            "the new text writes the string's closing line {line:?} while a marker keeps the same line (old line {old}): it would stand twice and leave the string open"
        ),
        None => "the result would leave a string open (a triple-quoted string, template literal or raw string), though the old text closes each one it opens".to_string(),
    };
    format!(
        "its placement fails lancet's check: {what}, swallowing the code after it. Include the unchanged line that follows the string's closing line, so the sketch pins where the string ends, or send the lines in full"
    )
}

/// What lancet's check of a placement found.
fn broken_check(broken: &Broken) -> String {
    match broken {
        Broken::Misplaced { text } => {
            format!("the new text's line {text:?} is not where the sketch puts it")
        }
        Broken::KeptTwice { old } => {
            format!("old line {old} would be kept twice or out of order")
        }
        Broken::MarkerDeeper {
            marker,
            indent,
            old,
        } => format!(
            "the marker on line {marker} is indented {indent} columns but would keep old line {} ({:?}), which is indented less",
            old.0, old.1
        ),
        Broken::Unbalanced { open } => format!(
            "the result's brackets would not balance ({open:+} open), though the old text's do"
        ),
        Broken::DroppedUnseen { old } => format!(
            "old line {} ({:?}) would be dropped, though no two adjacent lines of the sketch stand around it and no new line takes its place",
            old.0, old.1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::sketch_refusal;
    use lancet_core::sketch::{Broken, Refusal, Unplaced, resolve};

    fn refused(old: &str, sketch: &str) -> String {
        let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
        sketch_refusal(&resolve(&lines(old), &lines(sketch), true).unwrap_err())
    }

    #[test]
    fn a_dropped_tail_names_its_lines_and_the_marker_that_keeps_them() {
        let old =
            "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        let e = refused(old, "# ... existing code ...\ndef b():\n    return 22\n");
        assert_eq!(
            e,
            "old lines 9–10 (\"def c():\" … \"return 3\") after the sketch's last line would be dropped: the sketch has no marker there, and lancet does not take a missing marker as deleting the rest of the file. End the sketch with a marker (a line like the sketch's other markers) to keep them, or include them"
        );
    }

    #[test]
    fn a_marker_that_could_stand_for_two_runs_names_where_they_start() {
        let e = sketch_refusal(&Refusal::MarkerUnpinned {
            line: 4,
            start: true,
            before: vec![9, 12],
        });
        assert!(
            e.starts_with("the marker on line 4 of the new text could start before old line 9, 12: the lines around it do not pin down"),
            "{e}"
        );
    }

    #[test]
    fn a_sketch_sharing_no_line_says_so_and_what_to_send() {
        let e = refused("a = 1\n", "# ...\nb = 2\n");
        assert_eq!(
            e,
            "no line of the new text other than its markers occurs in the old text, so lancet cannot tell where the elided lines are. Include unchanged lines around each marker, exactly as they are, or send the whole text"
        );
        assert!(
            sketch_refusal(&Refusal::NothingPlaces(Unplaced::OtherIndentation))
                .contains("only with other indentation")
        );
    }

    #[test]
    fn a_failed_check_says_what_it_found() {
        let e = sketch_refusal(&Refusal::Broken(Broken::Unbalanced { open: 1 }));
        assert_eq!(
            e,
            "its placement fails lancet's check (the result's brackets would not balance (+1 open), though the old text's do), so it is not what the sketch says. Include more unchanged lines around each marker, or send the lines in full"
        );
        let e = sketch_refusal(&Refusal::StringLeftOpen {
            written_and_kept: Some(("\"\"\"".into(), 3)),
        });
        assert!(
            e.contains(
                "closing line \"\\\"\\\"\\\"\" while a marker keeps the same line (old line 3)"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_line_pulled_up_over_dropped_lines_asks_whether_it_moved() {
        let e = sketch_refusal(&Refusal::PulledUp {
            deleted: (3, ".route(\"/health\")".into()),
            new_line: 3,
            at: (4, ".route(\"/items\")".into()),
            marker: 4,
        });
        assert_eq!(
            e,
            "old line 3 (\".route(\\\"/health\\\")\") would be deleted: line 3 of the new text (\".route(\\\"/items\\\")\") stands right after it as old line 4, just above the marker on line 4. Was that line moved up (the marker keeping old line 3), or is old line 3 deleted? Include the lines around it, or send the lines in full"
        );
    }
}
