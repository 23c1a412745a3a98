//! Counting only the errors an edit introduced: an error of the new text is pre-existing when
//! the old text had it at the same place, or the changed region holds no more of its kind.

use crate::site::Site;
use lancet_core::SyntaxError;
use similar::{Algorithm, DiffOp};

/// Splits the new text's error sites into errors the edit introduced and errors that were
/// already there; `before_errors` is only called when there are errors to classify.
pub(crate) fn classify(
    path: &str,
    before: Option<&[u8]>,
    after: &[u8],
    after_errors: &[Site],
    before_errors: impl FnOnce() -> Vec<Site>,
) -> (Vec<SyntaxError>, Vec<SyntaxError>) {
    classify_by(
        "tree-sitter",
        path,
        before,
        after,
        after_errors,
        before_errors,
    )
}

/// [`classify`], naming who found the errors.
pub(crate) fn classify_by(
    checker: &str,
    path: &str,
    before: Option<&[u8]>,
    after: &[u8],
    after_errors: &[Site],
    before_errors: impl FnOnce() -> Vec<Site>,
) -> (Vec<SyntaxError>, Vec<SyntaxError>) {
    let mut new = Vec::new();
    let mut old = Vec::new();
    if after_errors.is_empty() {
        return (new, old);
    }
    let before_errors = before_errors();
    let map = before.map(|b| line_map(b, after));
    for site in after_errors {
        let preexisting = map
            .as_ref()
            .is_some_and(|m| m.was_there(site, after_errors, &before_errors));
        let error = site.clone().into_error(path, after, checker);
        if preexisting {
            old.push(error)
        } else {
            new.push(error)
        }
    }
    (new, old)
}

/// How the new text's lines relate to the old text's: unchanged (with their old line), or part
/// of a changed region (with the old lines it replaced).
struct LineMap {
    lines: Vec<Origin>,
}

#[derive(Clone, Copy)]
enum Origin {
    Same(usize),
    /// New lines `new` replaced old lines `old` (either may be empty).
    Changed {
        old: (usize, usize),
        new: (usize, usize),
    },
}

impl LineMap {
    /// Whether an error of the new text was already in the old text. On an unchanged line: the
    /// old text had the same error at the same place. In a changed region: the region holds no
    /// more errors of that kind than the old lines it replaced (an edit inside an already broken
    /// statement keeps it broken; it does not break it).
    fn was_there(&self, site: &Site, after: &[Site], before: &[Site]) -> bool {
        match self.lines.get(site.line) {
            // The same error at the same place, or inside an error span of the old text (error
            // recovery may split one large error into several, or merge them).
            Some(Origin::Same(old_line)) => before.iter().any(|b| {
                (b.line == *old_line && b.column == site.column && b.kind == site.kind)
                    || b.covers(*old_line, site.column)
            }),
            Some(Origin::Changed { old, new }) => {
                let count = |sites: &[Site], (from, to): (usize, usize)| {
                    sites
                        .iter()
                        .filter(|s| {
                            s.kind == site.kind && s.line >= from && s.line < to.max(from + 1)
                        })
                        .count()
                };
                count(after, *new) <= count(before, *old)
            }
            None => false,
        }
    }
}

fn line_map(before: &[u8], after: &[u8]) -> LineMap {
    let old: Vec<&[u8]> = before.split(|&b| b == b'\n').collect();
    let new: Vec<&[u8]> = after.split(|&b| b == b'\n').collect();
    let mut lines = vec![
        Origin::Changed {
            old: (0, 0),
            new: (0, 0)
        };
        new.len()
    ];
    for op in similar::capture_diff_slices(Algorithm::Myers, &old, &new) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    lines[new_index + k] = Origin::Same(old_index + k);
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                for line in &mut lines[new_index..new_index + new_len] {
                    *line = Origin::Changed {
                        old: (old_index, old_index),
                        new: (new_index, new_index + new_len),
                    };
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for line in &mut lines[new_index..new_index + new_len] {
                    *line = Origin::Changed {
                        old: (old_index, old_index + old_len),
                        new: (new_index, new_index + new_len),
                    };
                }
            }
        }
    }
    LineMap { lines }
}
