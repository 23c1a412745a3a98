//! Lazy sketches in operations: new text (an Update's hunk, a whole file) whose markers stand
//! for old lines, resolved with [`crate::sketch`] before it is applied.

use crate::batch::{Hunk, split_lines};
use crate::failure::OpFailure;
use crate::notes::{FileNote, HunkNote};
use crate::path::RelPath;
use crate::report::FileReport;
use crate::sketch::Refusal;

/// A hunk whose new text elides old lines with markers, resolved against its own old text:
/// `Ok(None)` when it is no sketch, `Err` with the reason when it cannot be placed (the hunk
/// then fails as before, as a placeholder that would delete code).
pub(super) fn resolve_hunk_sketch(
    hunk: &Hunk,
    explicit_removals: bool,
) -> Result<Option<(Hunk, HunkNote)>, Refusal> {
    let hides = if explicit_removals {
        crate::locate::elision::placeholder_hiding_deletions(&hunk.old, &hunk.new).is_some()
    } else {
        crate::sketch::is_sketch(&hunk.old, &hunk.new)
    };
    if !hides || hunk.old.is_empty() {
        return Ok(None);
    }
    let resolved = crate::sketch::resolve(&hunk.old, &hunk.new, false)?;
    if resolved.lines == hunk.old {
        return Err(Refusal::ChangesNothing);
    }
    let note = HunkNote::Sketch {
        markers: resolved.markers,
        kept: resolved.kept,
    };
    let mut out = hunk.clone();
    if let Some(text) = &mut out.text {
        let mut new = resolved.lines.join("\n");
        if text.new.ends_with('\n') {
            new.push('\n');
        }
        text.new = new;
    }
    out.new = resolved.lines;
    Ok(Some((out, note)))
}

/// Whole-file content with markers, resolved against the file's text: `None` when it is no
/// sketch (or there is no old text), the resolved content otherwise. A sketch whose first and
/// last lines are concrete and each stand once in the file is a fragment: it stands for that
/// region, the lines around it kept. `declared` (`--format sketch`): the content is a sketch
/// even without markers, so a fragment, never the whole file.
pub(super) fn resolve_whole_sketch(
    rel: &RelPath,
    before: Option<&[u8]>,
    content: &str,
    declared: bool,
    report: &mut FileReport,
) -> Result<Option<String>, OpFailure> {
    let Some(old) = before.and_then(|b| std::str::from_utf8(b).ok()) else {
        return Ok(None);
    };
    let old_ends_open = !old.is_empty() && !old.ends_with('\n');
    let old = split_lines(&old.replace("\r\n", "\n"));
    let new = split_lines(content);
    let markers = crate::sketch::is_sketch(&old, &new);
    if !markers && !declared {
        return Ok(None);
    }
    let refuse = |why: Refusal| OpFailure::SketchUnplaced {
        path: rel.to_string(),
        spelling: marker_spelling(rel, &new),
        why: Box::new(why),
    };
    let lines = match crate::sketch::fragment_region(&old, &new) {
        // A fragment: only its region is the sketch's; the rest of the file stays. Without
        // markers it is aligned all the same, so what it drops is dropped visibly.
        Ok(Some(region)) if declared || region.first > 0 || region.last + 1 < old.len() => {
            let resolved = crate::sketch::resolve_region(&old, region, &new).map_err(refuse)?;
            report.noted.push(FileNote::SketchOfLines {
                first: region.first + 1,
                last: region.last + 1,
                markers: resolved.markers,
                kept: resolved.kept,
            });
            [
                &old[..region.first],
                &resolved.lines[..],
                &old[region.last + 1..],
            ]
            .concat()
        }
        Err(why) if !markers => return Err(refuse(why)),
        _ => {
            let resolved = crate::sketch::resolve(&old, &new, true).map_err(refuse)?;
            report.noted.push(FileNote::Sketch {
                markers: resolved.markers,
                kept: resolved.kept,
            });
            resolved.lines
        }
    };
    // The file's final newline stays as it is when its last line is kept; a sketch that
    // writes a new last line says for itself.
    let ends_on_old_last = !old.is_empty() && lines.last() == old.last();
    let final_newline = if ends_on_old_last {
        !old_ends_open
    } else {
        content.ends_with('\n') || content.is_empty()
    };
    let mut text = lines.join("\n");
    if final_newline && !text.is_empty() {
        text.push('\n');
    }
    Ok(Some(text))
}

/// How the sketch writes its markers (the first one), for messages in the model's own words;
/// without one, the marker in the file's comment syntax.
fn marker_spelling(rel: &RelPath, new: &[String]) -> String {
    let hash_comments = matches!(
        rel.as_str().rsplit('.').next(),
        Some("py" | "pyi" | "rb" | "sh" | "bash" | "toml" | "yaml" | "yml" | "pl" | "r")
    );
    new.iter()
        .map(|l| l.trim())
        .find(|t| crate::locate::elision::is_placeholder_line(t) || *t == "..." || *t == "\u{2026}")
        .unwrap_or(if hash_comments {
            "# ... existing code ..."
        } else {
            "// ... existing code ..."
        })
        .to_string()
}
