//! What the report shows of a change: a numbered snippet of the result around each applied
//! hunk, and unified diffs.

use crate::locate::closest::NumberedLine;
use crate::report::HunkReport;
use crate::text::{Splice, TextFile};

/// Lines of context shown around each applied change.
const SNIPPET_CONTEXT: usize = 3;
/// Most lines in one snippet.
const SNIPPET_MAX: usize = 12;

/// Gives each applied hunk a numbered excerpt of the result around its change, so a model need
/// not re-read the file.
pub(super) fn attach_snippets(
    file: &TextFile,
    after: &[u8],
    splices: &[(usize, Splice)],
    hunks: &mut [HunkReport],
) {
    let Ok(new_text) = std::str::from_utf8(after) else {
        return;
    };
    let new_file = TextFile::new(new_text);
    let old_starts: Vec<usize> = file.lines().iter().map(|l| l.start).collect();
    let old_line_of = |b: usize| old_starts.partition_point(|&s| s <= b).saturating_sub(1);
    let mut order: Vec<&(usize, Splice)> = splices.iter().collect();
    order.sort_by_key(|(_, s)| (s.start, s.end));
    let mut delta: isize = 0;
    let text = file.text();
    for (hunk, s) in order {
        let removed = text[s.start..s.end].matches('\n').count() as isize;
        let added = s.text.matches('\n').count() as isize;
        let first_old = if s.start >= text.len() {
            file.len()
        } else {
            old_line_of(s.start)
        };
        let first_new = (first_old as isize + delta).max(0) as usize;
        let span = (added.max(1)) as usize;
        delta += added - removed;
        let h = &mut hunks[*hunk];
        if !h.snippet.is_empty() {
            continue;
        }
        let from = first_new.saturating_sub(SNIPPET_CONTEXT);
        let to = (first_new + span + SNIPPET_CONTEXT)
            .min(new_file.len())
            .min(from + SNIPPET_MAX);
        h.snippet = (from..to).map(|i| numbered(&new_file, i)).collect();
    }
}

/// Line `i` (0-based) of a file, numbered from 1 and without its line ending.
pub(super) fn numbered(file: &TextFile, i: usize) -> NumberedLine {
    let l = file.line(i);
    NumberedLine {
        line: i + 1,
        text: l.strip_suffix('\r').unwrap_or(l).to_string(),
        hash: None,
    }
}

pub(super) fn unified_diff(path: &str, before: Option<&str>, after: Option<&str>) -> String {
    unified_diff_between(path, path, before, after)
}

pub(super) fn unified_diff_between(
    from: &str,
    to: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let old_name = if before.is_some() {
        format!("a/{from}")
    } else {
        "/dev/null".into()
    };
    let new_name = if after.is_some() {
        format!("b/{to}")
    } else {
        "/dev/null".into()
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string()
}
