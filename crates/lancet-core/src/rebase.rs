//! Stale-edit rebase: an edit written against what the model read is applied to that snapshot,
//! then merged into the file as it is now with a line-level 3-way merge.
//!
//! The merge is diffy's (the ancestor is what the model read, "ours" the file now, "theirs" the
//! snapshot with the edit applied) with git's rules: changes of the two sides that touch, or
//! that have no unchanged line between them, conflict; the same change on both sides merges
//! once. Lancet adds no heuristic of its own: a region diffy cannot merge is a refusal, shown
//! three ways so the model can rebuild its edit.

use crate::line_map::LineMap;
use diffy::{ConflictStyle, IncompleteHunkStyle, MergeOptions};

/// A clean merge: the file's new bytes and how much of the file had changed under the edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The file now with the edit's changes merged in.
    pub bytes: Vec<u8>,
    /// How the lines read became the file's now: what the report's line numbers are carried
    /// by, and its [`LineMap::changed_lines`] what "rebased over N changed lines" reports.
    pub read_to_now: LineMap,
}

/// One region both sides changed, as text: what the model read, what the file holds now and
/// what the edit would make of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConflictRegion {
    /// 1-based line in the file now where the region starts (the line after it, when the file
    /// now holds nothing there).
    pub line: usize,
    /// The lines as the model read them.
    pub read: String,
    /// The lines in the file now.
    pub now: String,
    /// The lines as the edit makes them.
    pub edited: String,
}

/// Merges the edit (`read` → `edited`) into the file as it is now (`read` → `now`); the
/// regions that conflict when the two sides' changes touch.
pub fn merge(read: &[u8], now: &[u8], edited: &[u8]) -> Result<Merged, Vec<ConflictRegion>> {
    let marker = marker_length(&[read, now, edited]);
    let mut options = MergeOptions::new();
    options
        .set_conflict_style(ConflictStyle::Diff3)
        .set_conflict_marker_length(marker)
        .set_incomplete_hunk_style(IncompleteHunkStyle::Git);
    match options.merge_bytes(read, now, edited) {
        Ok(bytes) => Ok(Merged {
            bytes,
            read_to_now: LineMap::between(read, now),
        }),
        Err(marked) => Err(conflict_regions(&marked, marker, now)),
    }
}

/// A conflict-marker length longer than any run of marker characters that starts a line of
/// the inputs, so the merge's own markers are the only lines read as markers.
fn marker_length(texts: &[&[u8]]) -> usize {
    let longest = texts
        .iter()
        .flat_map(|t| t.split(|&b| b == b'\n'))
        .map(|line| {
            let first = line.first().copied().unwrap_or(b' ');
            if matches!(first, b'<' | b'|' | b'=' | b'>') {
                line.iter().take_while(|&&b| b == first).count()
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    (longest + 1).max(7)
}

/// Which part of a conflict block the walk is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Clean,
    Now,
    Read,
    Edited,
}

/// Reads diffy's diff3-style output back into regions. The line in the file now is estimated
/// by counting the clean and "ours" lines before the region, then pinned to the nearest place
/// the file now holds the region's lines (the clean lines before it may include the edit's own
/// merged changes, which shift the count).
fn conflict_regions(marked: &[u8], marker: usize, now: &[u8]) -> Vec<ConflictRegion> {
    let is_marker = |line: &[u8], c: u8| {
        line.len() >= marker
            && line[..marker].iter().all(|&b| b == c)
            && line.get(marker).is_none_or(|&b| b == b' ' || b == b'\n')
    };
    let now_lines: Vec<&[u8]> = now.split_inclusive(|&b| b == b'\n').collect();
    let mut regions = Vec::new();
    let mut part = Part::Clean;
    let mut counted = 0usize;
    let mut current = ConflictRegion::default();
    let mut now_block: Vec<&[u8]> = Vec::new();
    for line in marked.split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        match part {
            Part::Clean if is_marker(line, b'<') => {
                part = Part::Now;
                current.line = counted;
                now_block.clear();
            }
            Part::Clean => counted += 1,
            Part::Now if is_marker(line, b'|') => part = Part::Read,
            Part::Now => {
                current.now.push_str(&text);
                now_block.push(line);
                counted += 1;
            }
            Part::Read if is_marker(line, b'=') => part = Part::Edited,
            Part::Read => current.read.push_str(&text),
            Part::Edited if is_marker(line, b'>') => {
                part = Part::Clean;
                let mut region = std::mem::take(&mut current);
                region.line = nearest(&now_lines, &now_block, region.line) + 1;
                regions.push(region);
            }
            Part::Edited => current.edited.push_str(&text),
        }
    }
    regions
}

/// The 0-based start of the occurrence of `block` in `lines` nearest to `estimate` (the
/// estimate itself when the block is empty or absent).
fn nearest(lines: &[&[u8]], block: &[&[u8]], estimate: usize) -> usize {
    if block.is_empty() || block.len() > lines.len() {
        return estimate.min(lines.len());
    }
    (0..=lines.len() - block.len())
        .filter(|&i| lines[i..i + block.len()] == *block)
        .min_by_key(|&i| i.abs_diff(estimate))
        .unwrap_or(estimate.min(lines.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: &str = "a\nb\nc\nd\ne\nf\ng\n";

    #[test]
    fn changes_with_an_unchanged_line_between_merge() {
        let now = "A\nb\nc\nd\ne\nf\ng\n";
        let edited = "a\nb\nc\nD\ne\nf\ng\n";
        let merged = merge(READ.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(merged.bytes).unwrap(),
            "A\nb\nc\nD\ne\nf\ng\n"
        );
        assert_eq!(merged.read_to_now.changed_lines(), 1);
    }

    #[test]
    fn adjacent_changes_conflict_as_in_git() {
        let now = "a\nb\nC\nd\ne\nf\ng\n";
        let edited = "a\nb\nc\nD\ne\nf\ng\n";
        let regions = merge(READ.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap_err();
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].line, 3);
        assert_eq!(regions[0].read, "c\nd\n");
        assert_eq!(regions[0].now, "C\nd\n");
        assert_eq!(regions[0].edited, "c\nD\n");
    }

    #[test]
    fn the_same_change_on_both_sides_merges_once() {
        let both = "a\nb\nX\nd\ne\nf\ng\n";
        let merged = merge(READ.as_bytes(), both.as_bytes(), both.as_bytes()).unwrap();
        assert_eq!(merged.bytes, both.as_bytes());
    }

    #[test]
    fn the_region_line_is_in_the_file_now_even_after_merged_changes_of_the_edit() {
        // The edit inserts two lines at the top (merged) and changes `f`, which the file now
        // also changed: the region is at line 6 of the file now, not of the merged text.
        let now = "a\nb\nc\nd\ne\nF1\ng\n";
        let edited = "x\ny\na\nb\nc\nd\ne\nF2\ng\n";
        let regions = merge(READ.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap_err();
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].line, 6);
        assert_eq!(
            (regions[0].now.as_str(), regions[0].edited.as_str()),
            ("F1\n", "F2\n")
        );
    }

    #[test]
    fn lines_that_look_like_conflict_markers_are_content() {
        let read = "<<<<<<< x\n=======\n>>>>>>> y\nz\n";
        let now = "<<<<<<< x\n=======\n>>>>>>> y\nZ\n";
        let edited = "<<<<<<< x\n=======\n>>>>>>> y\nQ\n";
        let regions = merge(read.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap_err();
        assert_eq!(regions.len(), 1);
        assert_eq!((regions[0].read.as_str(), regions[0].line), ("z\n", 4));
        let edited = "<<<<<<< x\n=========\n>>>>>>> y\nz\n";
        let merged = merge(read.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap();
        assert_eq!(merged.bytes, b"<<<<<<< x\n=========\n>>>>>>> y\nZ\n");
    }

    #[test]
    fn crlf_and_a_missing_final_newline_survive() {
        let read = "a\r\nb\r\nc\r\nd";
        let now = "A\r\nb\r\nc\r\nd";
        let edited = "a\r\nb\r\nc\r\nD";
        let merged = merge(read.as_bytes(), now.as_bytes(), edited.as_bytes()).unwrap();
        assert_eq!(merged.bytes, b"A\r\nb\r\nc\r\nD");
    }
}
