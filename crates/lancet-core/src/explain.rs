//! What went wrong locating a hunk, as facts: the error, and what only the file's lines can
//! tell — the first line looked for, what tells each candidate apart, the `@@` headers that
//! would single one out. Staging records them on the hunk's report; the renderer words them
//! (the facade's `report/render/locate.rs`) in the surface's vocabulary when the report is built.

use crate::batch::{Format, Hunk};
use crate::failure::{CandidatePlace, HunkFailure, LocateFailure, Remedy, Telling};
use crate::locate::LocateError;
use crate::report::MAX_LISTED;
use crate::report::{HunkReport, Outcome};
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
    /// Per candidate: the nearest line above it, below the candidate before it, that stands
    /// once in the file (trimmed, as an `@@` header matches).
    first_after: Vec<Option<(usize, &'a str)>>,
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
            first_after: first_after(lines, candidates),
        }
    }

    /// What tells the `k`-th candidate apart from the others: its innermost enclosing line
    /// (`def`, `class`, `fn` …) that no other candidate shares, else the line right
    /// before it when no other candidate has that line right before it, else the nearest line
    /// above it (below the candidate before it) that stands once in the file. Two candidates
    /// are never described by the same line.
    fn distinguishing(&self, k: usize) -> Option<(usize, &'a str, Telling)> {
        if let Some(&(i, text)) = self.chains[k]
            .iter()
            .find(|(i, _)| self.enclosing.get(i) == Some(&1))
        {
            return Some((i, text, Telling::Encloses));
        }
        if let Some((i, text)) = self.before[k]
            && self.before_count.get(text) == Some(&1)
        {
            return Some((i, text, Telling::JustBefore));
        }
        self.first_after[k].map(|(i, text)| (i, text, Telling::FirstAfter))
    }

    /// Stacked `@@` headers (outermost first) that single out the first candidate: its
    /// enclosing lines up to the first level where they differ from every other candidate's;
    /// else the line above it that stands once in the file (the first candidate after it is
    /// the one a header naming it selects).
    fn headers(&self) -> Option<Vec<&'a str>> {
        let text = |chain: &Vec<(usize, &'a str)>, d: usize| chain.get(d).map(|(_, t)| *t);
        let (first, others) = self.chains.split_first()?;
        match (0..first.len().min(MAX_HEADER_DEPTH))
            .find(|&d| others.iter().all(|o| text(o, d) != text(first, d)))
        {
            Some(depth) => Some(first[..=depth].iter().rev().map(|(_, t)| *t).collect()),
            None => self.first_after[0].map(|(_, text)| vec![text]),
        }
    }
}

/// Per candidate (1-based lines, ascending), the nearest line above it and below the candidate
/// before it that stands once in the file, trimmed, with a letter or digit: an `@@` header
/// naming it selects that candidate (the first after it). One pass over the file.
fn first_after<'a>(lines: &[&'a str], candidates: &[usize]) -> Vec<Option<(usize, &'a str)>> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for line in lines {
        *count.entry(line.trim()).or_insert(0) += 1;
    }
    candidates
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let floor = match k {
                0 => 0,
                _ => candidates[k - 1],
            };
            let from = (c - 1).max(floor);
            (floor.max(from.saturating_sub(MAX_DISTINGUISHING_SCAN))..from)
                .rev()
                .map(|i| (i, lines[i].trim()))
                .find(|(_, t)| t.chars().any(char::is_alphanumeric) && count.get(t) == Some(&1))
        })
        .collect()
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

/// How this edit says which place it means, by its format: what the advice names.
fn remedy(format: Format, hunk: &Hunk) -> Remedy {
    if hunk.text.is_some() || format == Format::Json {
        Remedy::OldString
    } else if format == Format::SearchReplace {
        Remedy::SearchBlock
    } else {
        Remedy::Headers
    }
}

/// The old text's first non-blank line, for messages.
fn first_old_line(hunk: &Hunk) -> String {
    hunk.old
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default()
}

/// Each listed candidate with the line that tells it apart, and the headers that single out
/// the first, for an ambiguity; nothing for the other failures.
fn places(lines: &[&str], e: &LocateError) -> (Vec<CandidatePlace>, Option<Vec<String>>) {
    let LocateError::Ambiguous { candidates, .. } = e else {
        return (Vec::new(), None);
    };
    let apart = Apart::new(lines, candidates);
    let places = candidates
        .iter()
        .take(MAX_LISTED)
        .enumerate()
        .map(|(k, &line)| CandidatePlace {
            line,
            apart_by: apart
                .distinguishing(k)
                .map(|(i, text, telling)| (i + 1, text.to_string(), telling)),
        })
        .collect();
    let headers = apart
        .headers()
        .map(|hs| hs.iter().map(|h| h.to_string()).collect());
    (places, headers)
}

/// Records why `hunk` could not be located on its report: the stable kind and status, the
/// candidates and closest lines the JSON carries, and the facts the renderer words.
pub(crate) fn describe_failure(
    rel: &str,
    lines: &[&str],
    hunk: &Hunk,
    format: Format,
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
    match &e {
        LocateError::CountMismatch {
            tier, candidates, ..
        }
        | LocateError::Ambiguous { tier, candidates } => {
            h.tier = Some(*tier);
            h.set_candidates(candidates.clone());
        }
        LocateError::ContextAmbiguous { candidates, .. } => h.set_candidates(candidates.clone()),
        LocateError::NotFound { closest, .. } | LocateError::ContextNotFound { closest, .. } => {
            h.closest = closest.clone();
        }
        _ => {}
    }
    let (places, headers) = places(lines, &e);
    h.failure = Some(Box::new(HunkFailure::NotLocated(LocateFailure {
        path: rel.to_string(),
        first_old: first_old_line(hunk),
        no_old_text: hunk.old.is_empty(),
        remedy: remedy(format, hunk),
        places,
        headers,
        as_sketch: None,
        error: e,
    })));
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
            Some((0, "def fetch():", Telling::Encloses))
        );
        assert_eq!(
            Apart::new(&lines, &[3, 8]).distinguishing(1),
            Some((6, "def push():", Telling::Encloses))
        );
        // The same function: never the same line for both.
        assert_eq!(
            Apart::new(&lines, &[3, 5]).distinguishing(0),
            Some((1, "attempts = 0", Telling::JustBefore))
        );
        assert_eq!(
            Apart::new(&lines, &[3, 5]).distinguishing(1),
            Some((3, "for i in range(3):", Telling::Encloses))
        );
    }

    /// Candidates in one block, each right after the same line: told apart by the nearest line
    /// above each (below the one before) that stands once in the file, which is also the `@@`
    /// header that selects the first (issue #41: no distinction, and a Python `@@ def name():`
    /// example in a Go file).
    #[test]
    fn candidates_in_one_block_are_told_apart_by_a_line_that_stands_once() {
        let lines = [
            "func main() {",
            "\tstep()",
            "\tcheck()",
            "\tother()",
            "\tstep()",
            "\tcheck()",
            "}",
        ];
        let apart = Apart::new(&lines, &[3, 6]);
        assert_eq!(
            apart.distinguishing(0),
            Some((0, "func main() {", Telling::FirstAfter))
        );
        assert_eq!(
            apart.distinguishing(1),
            Some((3, "other()", Telling::FirstAfter))
        );
        assert_eq!(apart.headers(), Some(vec!["func main() {"]));
    }
}
