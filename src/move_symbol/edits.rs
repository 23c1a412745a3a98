//! One file's changes in a move, as byte ranges of the text it was read as: replacements,
//! deletions and insertions gathered in any order, then laid out as the spans of a splice
//! (insertions at one place kept in the order they were made, but for one asked to go first;
//! two changes that overlap refused, never merged by guess).

use lancet_core::{Span, line_of, line_starts};

/// The changes of one file.
#[derive(Default)]
pub(super) struct Edits {
    /// `(start, end, new text, whether it goes before the other insertions there, order made)`.
    changes: Vec<(usize, usize, String, bool, usize)>,
}

impl Edits {
    /// Replaces `start..end` by `new` (an insertion when they are equal).
    pub(super) fn replace(&mut self, start: usize, end: usize, new: impl Into<String>) {
        let order = self.changes.len();
        self.changes.push((start, end, new.into(), false, order));
    }

    /// Inserts `new` at `at`.
    pub(super) fn insert(&mut self, at: usize, new: impl Into<String>) {
        self.replace(at, at, new);
    }

    /// Inserts `new` at `at` before the insertions made there in any order (a whole
    /// statement above a statement another change writes into, whichever is planned first).
    pub(super) fn insert_first(&mut self, at: usize, new: impl Into<String>) {
        let order = self.changes.len();
        self.changes.push((at, at, new.into(), true, order));
    }

    /// Takes another list's changes (of the same text) after this one's.
    pub(super) fn extend(&mut self, other: Edits) {
        for (start, end, new, first, _) in other.changes {
            let order = self.changes.len();
            self.changes.push((start, end, new, first, order));
        }
    }

    /// Whether nothing changes.
    pub(super) fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Whether a change already removes or replaces a range holding `at`.
    pub(super) fn covers(&self, at: usize) -> bool {
        self.changes
            .iter()
            .any(|(s, e, _, _, _)| *s <= at && at < *e)
    }

    /// Drops the deletions lying inside `start..end` (a caller about to delete the same
    /// text again, in larger pieces).
    pub(super) fn drop_deletions_within(&mut self, start: usize, end: usize) {
        self.changes
            .retain(|(s, e, new, _, _)| !(start <= *s && *e <= end && s < e && new.is_empty()));
    }

    /// The spans of a splice of `text`, in file order; `Err(offset)` where two overlap.
    pub(super) fn spans(mut self, text: &str) -> Result<Vec<Span>, usize> {
        // Insertions first at a place, then what replaces from it; insertions in the order made,
        // those asked first before the others.
        self.changes
            .sort_by_key(|(start, end, _, first, order)| (*start, *end != *start, !*first, *order));
        let starts = line_starts(text);
        let mut spans: Vec<Span> = Vec::new();
        for (start, end, new, _, _) in self.changes {
            if let Some(last) = spans.last_mut() {
                if start < last.end {
                    return Err(start);
                }
                // Two insertions at one place become one span.
                if start == last.start && last.start == last.end && start == end {
                    last.new.push_str(&new);
                    continue;
                }
            }
            spans.push(Span {
                start,
                end,
                new,
                line: line_of(&starts, start),
            });
        }
        Ok(spans)
    }

    /// The text with the changes made, the changes kept.
    pub(super) fn clone_applied(&self, text: &str) -> Result<String, usize> {
        let copy = Edits {
            changes: self.changes.clone(),
        };
        copy.apply(text)
    }

    /// The text with the changes made (for a file that is written whole, and for tests).
    pub(super) fn apply(self, text: &str) -> Result<String, usize> {
        let spans = self.spans(text)?;
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for span in spans {
            out.push_str(&text[at..span.start]);
            out.push_str(&span.new);
            at = span.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

/// The offset where the line holding `at` starts.
pub(super) fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The offset just past the line holding `at` (past its `\n`, or the end of the text).
pub(super) fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// Whether the line starting at `start` is blank.
pub(super) fn is_blank_line(text: &str, start: usize) -> bool {
    text[start..line_end(text, start)].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::Edits;

    #[test]
    fn insertions_at_one_place_keep_their_order_unless_asked_first_and_overlaps_are_refused() {
        let mut edits = Edits::default();
        edits.replace(4, 7, "B");
        edits.insert(0, "x\n");
        edits.insert(0, "y\n");
        edits.insert(4, "<");
        edits.insert_first(0, "w\n");
        assert_eq!(edits.apply("abc def").unwrap(), "w\nx\ny\nabc <B");
        let mut overlapping = Edits::default();
        overlapping.replace(0, 5, "");
        overlapping.replace(3, 6, "");
        assert_eq!(overlapping.apply("abcdefg"), Err(3));
    }
}
