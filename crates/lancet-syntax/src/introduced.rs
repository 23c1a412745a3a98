//! Counting only the errors an edit introduced: an error of the new text is pre-existing when
//! the old text had it at the same place, or the changed region holds no more of its kind.

use crate::site::{Lines, Site};
use lancet_core::line_map::{LineMap, Origin};
use lancet_core::{SyntaxError, work};
use std::collections::{HashMap, HashSet};

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
        TREE_SITTER,
        path,
        before,
        after,
        after_errors,
        before_errors,
    )
}

/// Who the report says found an error tree-sitter flagged.
pub(crate) const TREE_SITTER: &str = "tree-sitter";

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
    let origins = before.map(|b| line_origins(b, after));
    let after_index = Errors::new(after_errors);
    let before_index = Errors::new(&before_errors);
    let text = Lines::new(after);
    for site in after_errors {
        let preexisting = origins
            .as_ref()
            .is_some_and(|o| was_there(o, site, &after_index, &before_index));
        let error = site.clone().into_error(path, &text, checker);
        if preexisting {
            old.push(error)
        } else {
            new.push(error)
        }
    }
    (new, old)
}

/// One text's error sites, indexed for the questions [`was_there`] asks of them, so
/// classifying n errors against m costs O((n + m) log m), not O(n × m): a file with 20,000
/// pre-existing errors is classified in milliseconds.
struct Errors<'s> {
    /// Where each error starts, and its kind.
    at: HashSet<(usize, usize, &'s str)>,
    /// The error spans' starts, sorted, each with the furthest end among it and those before.
    spans: Vec<((usize, usize), (usize, usize))>,
    /// Each kind's error lines, sorted.
    lines: HashMap<&'s str, Vec<usize>>,
}

impl<'s> Errors<'s> {
    fn new(sites: &'s [Site]) -> Self {
        work::tick(sites.len());
        let mut spans: Vec<((usize, usize), (usize, usize))> =
            sites.iter().map(|s| ((s.line, s.column), s.end)).collect();
        spans.sort_unstable();
        let mut furthest = (0, 0);
        for span in &mut spans {
            furthest = furthest.max(span.1);
            span.1 = furthest;
        }
        let mut lines: HashMap<&str, Vec<usize>> = HashMap::new();
        for s in sites {
            lines.entry(s.kind.as_str()).or_default().push(s.line);
        }
        for l in lines.values_mut() {
            l.sort_unstable();
        }
        Errors {
            at: sites
                .iter()
                .map(|s| (s.line, s.column, s.kind.as_str()))
                .collect(),
            spans,
            lines,
        }
    }

    /// Whether an error of `kind` starts at this place.
    fn starts_at(&self, line: usize, column: usize, kind: &str) -> bool {
        self.at.contains(&(line, column, kind))
    }

    /// Whether an error's span covers this place.
    fn covers(&self, line: usize, column: usize) -> bool {
        let k = self
            .spans
            .partition_point(|(start, _)| *start <= (line, column));
        k > 0 && self.spans[k - 1].1 > (line, column)
    }

    /// How many errors of `kind` start on lines `from..to`.
    fn count(&self, kind: &str, from: usize, to: usize) -> usize {
        self.lines.get(kind).map_or(0, |lines| {
            lines.partition_point(|&l| l < to) - lines.partition_point(|&l| l < from)
        })
    }
}

/// Whether an error of the new text was already in the old text, by where its line came from
/// ([`Origin`], from lancet-core's one line map). On an unchanged line: the old text had the
/// same error at the same place. In a changed region: the region holds no more errors of that
/// kind than the old lines it replaced (an edit inside an already broken statement keeps it
/// broken; it does not break it).
fn was_there(origins: &[Origin], site: &Site, after: &Errors, before: &Errors) -> bool {
    work::tick(1);
    match origins.get(site.line) {
        // The same error at the same place, or inside an error span of the old text (error
        // recovery may split one large error into several, or merge them).
        Some(Origin::Same(old_line)) => {
            before.starts_at(*old_line, site.column, &site.kind)
                || before.covers(*old_line, site.column)
        }
        Some(Origin::Changed { old, new }) => {
            let count = |errors: &Errors, (from, to): (usize, usize)| {
                errors.count(&site.kind, from, to.max(from + 1))
            };
            count(after, *new) <= count(before, *old)
        }
        None => false,
    }
}

/// Where each line of `after` came from in `before`, lines split at `\n`.
fn line_origins(before: &[u8], after: &[u8]) -> Vec<Origin> {
    let old: Vec<&[u8]> = before.split(|&b| b == b'\n').collect();
    let new: Vec<&[u8]> = after.split(|&b| b == b'\n').collect();
    LineMap::of(&old, &new).origins()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: usize, column: usize, end: (usize, usize)) -> Site {
        Site {
            line,
            column,
            end,
            kind: "ERROR".to_string(),
        }
    }

    #[test]
    fn classifying_many_errors_costs_steps_linear_in_them_and_the_lines() {
        // 20,000 broken lines between 20,000 sound ones; the edit changes one sound line.
        let text = |changed: &str| {
            (0..40_000)
                .map(|i| match i {
                    1 => format!("{changed}\n"),
                    i if i % 2 == 0 => format!("broken_{i} = = {i}\n"),
                    i => format!("fine_{i} = {i}\n"),
                })
                .collect::<String>()
        };
        let (before, after) = (text("fine_1 = 1"), text("fine_1 = 2"));
        let sites: Vec<Site> = (0..40_000)
            .step_by(2)
            .map(|l| site(l, 11, (l, 12)))
            .collect();
        let ((new, old), steps) = work::counted(|| {
            classify(
                "m.py",
                Some(before.as_bytes()),
                after.as_bytes(),
                &sites,
                || sites.clone(),
            )
        });
        assert!(new.is_empty());
        assert_eq!(old.len(), 20_000);
        assert!(
            old[7].excerpt.contains("15 | broken_14 = = 14"),
            "{}",
            old[7].excerpt
        );
        let bound = 10 * (2 * sites.len() + 2 * 40_000);
        assert!(steps <= bound, "{steps} steps, bound {bound}");
    }

    #[test]
    fn an_error_is_there_before_at_its_place_inside_an_old_span_or_no_more_often() {
        let before = "a\nb\nc\nd\ne\n";
        let after = "a\nb\nC\nd\ne\n";
        let classify = |after_errors: &[Site], before_errors: Vec<Site>| {
            let (new, old) = classify(
                "f.x",
                Some(before.as_bytes()),
                after.as_bytes(),
                after_errors,
                || before_errors,
            );
            (new.len(), old.len())
        };
        // The same place, or inside an old error spanning lines 0-1.
        assert_eq!(
            classify(&[site(0, 0, (0, 1))], vec![site(0, 0, (0, 1))]),
            (0, 1)
        );
        assert_eq!(
            classify(&[site(1, 0, (1, 1))], vec![site(0, 0, (1, 1))]),
            (0, 1)
        );
        // Past the old span's end, or another kind at the place: introduced.
        assert_eq!(
            classify(&[site(1, 0, (1, 1))], vec![site(0, 0, (0, 1))]),
            (1, 0)
        );
        let mut missing = site(0, 0, (0, 0));
        missing.kind = "MISSING )".to_string();
        assert_eq!(classify(&[site(0, 0, (0, 1))], vec![missing]), (1, 0));
        // On the changed line: no more errors of its kind than the old line had.
        assert_eq!(
            classify(&[site(2, 0, (2, 1))], vec![site(2, 0, (2, 1))]),
            (0, 1)
        );
        assert_eq!(
            classify(&[site(2, 0, (2, 1))], vec![site(3, 0, (3, 1))]),
            (1, 0)
        );
    }
}
