//! "Did you mean": the real lines closest to a needle that matched nowhere, and how they differ.
//!
//! A model that gets "not found" retries blindly; one that gets the nearest real lines with
//! their numbers and the kind of difference (indentation, line ending, quotes, content) can fix
//! its edit in one step. The search is linear in the file: windows are proposed by lines that
//! match a needle line once trimmed, and only scored when proposed.

use super::fuzzy::{Sketch, sketch, sketch_similarity};
use super::tier::LineDifference;
use crate::line_map::{LineMap, Region};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashMap;

/// The closest real text to a needle.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Closest {
    /// First line of the window (1-based).
    pub start_line: usize,
    /// Last line of the window (1-based, inclusive).
    pub end_line: usize,
    /// Mean per-line similarity, 0 to 1.
    pub similarity: f64,
    /// The window's lines with their numbers.
    pub excerpt: Vec<NumberedLine>,
    /// How the window differs from the needle, first differences first.
    pub differences: Vec<String>,
}

/// A line of a file with its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NumberedLine {
    /// 1-based line number.
    pub line: usize,
    /// The line's text (without its line ending).
    pub text: String,
    /// Its anchor hash, when the reader asked for anchors (`LINE:HASH`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// Longest excerpt shown, in lines.
const MAX_EXCERPT: usize = 10;
/// Most differences listed.
const MAX_DIFFERENCES: usize = 3;
/// Below this similarity nothing is worth showing.
const MIN_SIMILARITY: f64 = 0.3;

/// Finds the window of the file most like `needle` (`sketches` are the lines' sketches).
pub(crate) fn closest_block(
    lines: &[&str],
    sketches: &[Sketch],
    needle: &[String],
) -> Option<Closest> {
    if lines.is_empty() || needle.is_empty() {
        return None;
    }
    let start = best_start_by_votes(lines, needle).or_else(|| {
        let (first_idx, first) = needle
            .iter()
            .enumerate()
            .find(|(_, l)| !l.trim().is_empty())?;
        let (line, _) = most_similar_line(lines, sketches, first)?;
        Some(line.saturating_sub(first_idx))
    })?;
    let Aligned {
        start,
        end,
        mut differences,
        similarity,
    } = aligned_differences(lines, start, needle);
    if similarity < MIN_SIMILARITY {
        return None;
    }
    if differences.len() > MAX_DIFFERENCES {
        let more = differences.len() - MAX_DIFFERENCES;
        differences.truncate(MAX_DIFFERENCES);
        differences.push(format!("… and {more} more differing line(s)"));
    }
    Some(Closest {
        start_line: start + 1,
        end_line: end.max(start + 1),
        similarity: (similarity * 100.0).round() / 100.0,
        excerpt: excerpt(lines, start, end),
        differences,
    })
}

/// How far past the needle's length the file window may run, for lines the file has and the
/// edit does not show.
const ALIGN_SLACK: usize = 8;

/// The window from `start` the fewest differences explain, and its diff against the needle
/// (read loosely): as long as the needle, or a few lines longer when the file has lines the
/// edit does not show (the tightest wins a tie).
fn best_window(lines: &[&str], start: usize, needle: &[String]) -> (usize, LineMap) {
    let key = |s: &str| -> String { super::tier::loose_chars(s).collect() };
    let nk: Vec<String> = needle.iter().map(|l| key(l)).collect();
    (0..=ALIGN_SLACK)
        .map(|extra| (start + needle.len() + extra).min(lines.len()))
        .map(|end| {
            let fk: Vec<String> = lines[start..end].iter().map(|l| key(l)).collect();
            (end, LineMap::of(&nk, &fk))
        })
        .min_by_key(|(end, map)| (unexplained(map.regions()), *end))
        .expect("at least one window")
}

/// The file window a needle is compared with, how it differs, and how alike they are.
struct Aligned {
    start: usize,
    end: usize,
    differences: Vec<String>,
    /// The needle lines' likeness with the file lines they are paired with (unpaired: 0),
    /// averaged over the needle.
    similarity: f64,
}

/// The differences between the needle and the file from `start`, with the needle aligned to
/// the file by a diff (read loosely, as the unicode tier does) rather than line by line, so
/// one extra or missing line shifts nothing: each needle line is compared with the file line it
/// corresponds to, extra file lines and missing needle lines are named as such. Returns the
/// window (from the first to past the last file line a needle line corresponds to) and the
/// differences.
fn aligned_differences(lines: &[&str], start: usize, needle: &[String]) -> Aligned {
    let (win_end, map) = best_window(lines, start, needle);
    // File lines before the first one the needle reaches are what precedes it: start after.
    if let Some(Region::Changed { old, new }) = map.regions().first()
        && old == &(0..0)
        && new.start == 0
        && start + new.len() < win_end
    {
        return aligned_differences(lines, start + new.len(), needle);
    }
    // (file line, whether it is a file line the edit does not show, the words); only extras
    // are filtered by their line below.
    let mut out: Vec<(usize, bool, String)> = Vec::new();
    let mut used = 0; // one past the last file line a needle line corresponds to
    let mut similarity = 0.0; // summed over the needle lines paired with a file line
    let strip = |l: &str| l.strip_suffix('\r').unwrap_or(l).to_string();
    let extra = |f: usize| {
        let text = format!(
            "line {}: the file has {:?} here, which the edit does not show",
            f + 1,
            strip(lines[f])
        );
        (f, true, text)
    };
    let missing = |n: &String, after: usize| {
        let text = match after {
            0 => format!("line {}: the file has no line {n:?} here", start + 1),
            _ => format!("after line {after}: the file has no line {n:?}"),
        };
        (after, false, text)
    };
    let changed =
        |f: usize, n: &String| (f, false, describe_difference(f + 1, &strip(lines[f]), n));
    let mut last_file = start; // one past the last file line reached
    for pair in pairs(map.regions(), needle, lines, start) {
        match pair {
            (Some(n), Some(f)) => {
                if strip(lines[f]) != needle[n] {
                    out.push(changed(f, &needle[n]));
                }
                similarity += line_similarity(lines[f], &needle[n]);
                last_file = f + 1;
                used = f + 1 - start;
            }
            (Some(n), None) => {
                let after = if last_file == start { 0 } else { last_file };
                out.push(missing(&needle[n], after));
            }
            (None, Some(f)) => {
                out.push(extra(f));
                last_file = f + 1;
            }
            (None, None) => {}
        }
    }
    // File lines after the last one the needle reaches are simply what follows, not extras.
    let end = start + used.max(1).min(win_end - start);
    let differences = out
        .into_iter()
        .filter(|&(line, is_extra, _)| line < end || !is_extra)
        .map(|(_, _, text)| text)
        .collect();
    Aligned {
        start,
        end,
        differences,
        similarity: similarity / needle.len() as f64,
    }
}

/// A diff of the needle and the file from `start` as pairs in order (needle line, file line,
/// both 0-based and absolute; `None` on the side that has no line there): equal lines paired,
/// a run of changed lines paired by likeness (see [`pair_by_likeness`]).
fn pairs(
    regions: &[Region],
    needle: &[String],
    lines: &[&str],
    start: usize,
) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::new();
    for region in regions {
        match region {
            Region::Kept { old, new, len } => {
                out.extend((0..*len).map(|k| (Some(old + k), Some(start + new + k))))
            }
            Region::Changed { old, new } if new.is_empty() => {
                out.extend(old.clone().map(|n| (Some(n), None)))
            }
            Region::Changed { old, new } if old.is_empty() => {
                out.extend(new.clone().map(|k| (None, Some(start + k))))
            }
            Region::Changed { old, new } => {
                let file = start + new.start;
                let run = pair_by_likeness(&needle[old.clone()], &lines[file..file + new.len()]);
                out.extend(
                    run.into_iter()
                        .map(|(n, f)| (n.map(|n| old.start + n), f.map(|f| file + f))),
                );
            }
        }
    }
    out
}

/// How alike two lines must be for pairing them to count (Sørensen–Dice over bigrams).
const ALIKE: f64 = 0.5;

/// Most line pairs compared to pair a run of changed lines by likeness; beyond it, by position.
const MAX_PAIRING_CELLS: usize = 4096;

/// A run of needle lines and the file lines a diff put in their place, paired so that the sum
/// of the pairs' likeness is greatest (each pair in order; a line left unpaired is missing, or
/// extra): `(needle index, file index)`, either side `None` when unpaired.
fn pair_by_likeness(needle: &[String], file: &[&str]) -> Vec<(Option<usize>, Option<usize>)> {
    let (n, m) = (needle.len(), file.len());
    if n * m > MAX_PAIRING_CELLS {
        return (0..n.max(m))
            .map(|k| ((k < n).then_some(k), (k < m).then_some(k)))
            .collect();
    }
    // Only lines clearly alike gain from being paired; unlike ones stay paired by position
    // (the walk below pairs first on a tie).
    let like: Vec<Vec<f64>> = needle
        .iter()
        .map(|l| {
            file.iter()
                .map(|f| line_similarity(f, l))
                .map(|s| if s >= ALIKE { s } else { 0.0 })
                .collect()
        })
        .collect();
    // best[i][j]: the greatest likeness pairing needle[i..] with file[j..].
    let mut best = vec![vec![0.0f64; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            best[i][j] = (like[i][j] + best[i + 1][j + 1])
                .max(best[i + 1][j])
                .max(best[i][j + 1]);
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut pairs = Vec::with_capacity(n.max(m));
    while i < n || j < m {
        if i < n && j < m && best[i][j] == like[i][j] + best[i + 1][j + 1] {
            pairs.push((Some(i), Some(j)));
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || best[i][j] == best[i + 1][j]) {
            pairs.push((Some(i), None));
            i += 1;
        } else {
            pairs.push((None, Some(j)));
            j += 1;
        }
    }
    pairs
}

/// How many needle lines a diff leaves without an equal file line (changed or missing).
fn unexplained(regions: &[Region]) -> usize {
    regions
        .iter()
        .map(|region| match region {
            Region::Changed { old, new } if !old.is_empty() => old.len().max(new.len()),
            _ => 0,
        })
        .sum()
}

/// Finds the single line most like `needle` (for `@@` headers).
pub(crate) fn closest_line(lines: &[&str], sketches: &[Sketch], needle: &str) -> Option<Closest> {
    let (i, score) = most_similar_line(lines, sketches, needle)?;
    if score < MIN_SIMILARITY {
        return None;
    }
    Some(Closest {
        start_line: i + 1,
        end_line: i + 1,
        similarity: (score * 100.0).round() / 100.0,
        excerpt: excerpt(lines, i, i + 1),
        differences: vec![describe_difference(i + 1, lines[i], needle)],
    })
}

/// How often a line may stand in the needle and still vote: a line it repeats more tells
/// little about where it starts, and would cost a vote per repetition at each of its places.
const MAX_REPEATS_VOTING: usize = 4;

/// Each file line equal (trimmed) to needle line `j` votes for a window starting `j` earlier.
fn best_start_by_votes(lines: &[&str], needle: &[String]) -> Option<usize> {
    let mut wanted: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, l) in needle.iter().enumerate() {
        let t = l.trim();
        if t.chars().any(char::is_alphanumeric) {
            wanted.entry(t).or_default().push(j);
        }
    }
    wanted.retain(|_, js| js.len() <= MAX_REPEATS_VOTING);
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(js) = wanted.get(line.trim()) {
            for &j in js {
                if let Some(start) = i.checked_sub(j) {
                    *votes.entry(start).or_default() += 1;
                }
            }
        }
    }
    votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(start, _)| start)
}

/// Lines scored exactly after the sketch pass.
const SHORTLIST: usize = 16;

/// The line most like `needle`: every line is ranked by its sketch (a few popcounts), and only
/// the best few are scored exactly, so a miss in a huge file stays cheap.
fn most_similar_line(lines: &[&str], sketches: &[Sketch], needle: &str) -> Option<(usize, f64)> {
    let probe = sketch(needle);
    let mut ranked: Vec<(usize, f64)> = sketches
        .iter()
        .enumerate()
        .map(|(i, s)| (i, sketch_similarity(s, &probe)))
        .collect();
    let by_score = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if ranked.len() > SHORTLIST {
        ranked.select_nth_unstable_by(SHORTLIST, by_score);
        ranked.truncate(SHORTLIST);
    }
    ranked
        .into_iter()
        .map(|(i, _)| (i, line_similarity(lines[i], needle)))
        .fold(None, |best: Option<(usize, f64)>, (i, s)| match best {
            Some((bi, b)) if b > s || (b == s && bi < i) => best,
            _ => Some((i, s)),
        })
}

/// Similarity of two lines ignoring surrounding whitespace (Sørensen–Dice over bigrams, which
/// is linear in the line length).
fn line_similarity(file: &str, needle: &str) -> f64 {
    let (f, n) = (file.trim(), needle.trim());
    if f == n {
        1.0
    } else {
        strsim::sorensen_dice(f, n)
    }
}

/// How a file line differs from the needle's, in words.
fn describe_difference(line: usize, file: &str, needle: &str) -> String {
    let kind = match LineDifference::of(file, needle) {
        LineDifference::LineEnding => {
            "line ending (CRLF in the file, LF in the edit, or the reverse)"
        }
        LineDifference::TrailingWhitespace => "trailing whitespace",
        LineDifference::Indentation => "indentation",
        LineDifference::Typography => "typographic quotes, dashes or special spaces",
        LineDifference::QuotesSwapped => {
            return format!(
                "line {line}: the quotes differ (' and \" are not interchangeable: only typographic quotes are tolerated): expected {needle:?}, file has {file:?}"
            );
        }
        LineDifference::Content => {
            return format!("line {line}: expected {needle:?}, file has {file:?}");
        }
    };
    format!("line {line}: {kind} differs: expected {needle:?}, file has {file:?}")
}

/// The window's lines plus one line of surroundings on each side, at most `MAX_EXCERPT`.
fn excerpt(lines: &[&str], start: usize, end: usize) -> Vec<NumberedLine> {
    let from = start.saturating_sub(1);
    let to = (end + 1).min(lines.len()).min(from + MAX_EXCERPT);
    (from..to)
        .map(|i| NumberedLine {
            line: i + 1,
            text: lines[i].strip_suffix('\r').unwrap_or(lines[i]).to_string(),
            hash: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fuzzy::sketch_all;
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn finds_the_window_and_names_the_content_difference() {
        let lines = vec![
            "def f():",
            "    a = 1",
            "    b = 2",
            "    return a + b",
            "x = 3",
        ];
        let c = closest_block(
            &lines,
            &sketch_all(&lines),
            &s(&["    a = 1", "    b = 3", "    return a + b"]),
        )
        .unwrap();
        assert_eq!((c.start_line, c.end_line), (2, 4));
        assert_eq!(
            c.differences,
            vec!["line 3: expected \"    b = 3\", file has \"    b = 2\"".to_string()]
        );
        assert_eq!(
            c.excerpt[0],
            NumberedLine {
                line: 1,
                text: "def f():".into(),
                hash: None,
            }
        );
        assert_eq!(c.excerpt.len(), 5);
    }

    #[test]
    fn classifies_whitespace_and_quotes() {
        let lines = vec!["\tx = 1", "say \u{201c}hi\u{201d}"];
        let c =
            closest_block(&lines, &sketch_all(&lines), &s(&["  x = 1", "say \"hi!\""])).unwrap();
        assert!(
            c.differences[0].contains("indentation"),
            "{:?}",
            c.differences
        );
        assert!(c.differences[1].starts_with("line 2: expected"));
    }

    #[test]
    fn swapped_ascii_quotes_are_named_and_not_tolerated() {
        let lines = vec!["x = {'a': 1}", "y = 2"];
        let c = closest_block(
            &lines,
            &sketch_all(&lines),
            &s(&["x = {\"a\": 1}", "y = 2"]),
        )
        .unwrap();
        assert!(
            c.differences[0].contains("' and \" are not interchangeable"),
            "{:?}",
            c.differences
        );
    }

    #[test]
    fn one_extra_file_line_shifts_nothing() {
        let lines = vec![
            "def f():",
            "    a = 1",
            "    log(a)",
            "    b = 2",
            "    c = 3",
            "    return a + b + c",
        ];
        let c = closest_block(
            &lines,
            &sketch_all(&lines),
            &s(&[
                "def f():",
                "    a = 1",
                "    b = 2",
                "    c = 4",
                "    return a + b + c",
            ]),
        )
        .unwrap();
        assert_eq!((c.start_line, c.end_line), (1, 6));
        assert_eq!(
            c.differences,
            vec![
                "line 3: the file has \"    log(a)\" here, which the edit does not show"
                    .to_string(),
                "line 5: expected \"    c = 4\", file has \"    c = 3\"".to_string(),
            ]
        );
        // A line the edit shows and the file lacks is named as missing, not as a shift.
        let c = closest_block(
            &lines,
            &sketch_all(&lines),
            &s(&[
                "    a = 1",
                "    log(a)",
                "    flush()",
                "    b = 2",
                "    c = 3",
            ]),
        )
        .unwrap();
        assert_eq!(
            c.differences,
            vec!["after line 3: the file has no line \"    flush()\"".to_string()]
        );
    }

    /// Issue #41: in a run of changed lines, one line the edit adds paired every later line
    /// with its neighbour's ("expected the comment, file has line 2; expected line 2, file has
    /// line 3; ..."): each is paired with the line it is like, the added one named missing,
    /// and the similarity is the pairs'.
    #[test]
    fn changed_lines_pair_by_likeness_around_an_added_one() {
        let lines = vec![
            "def handler(request):",
            "    user = request.user",
            "    if not user.is_active:",
            "        raise Forbidden()",
            "    data = parse(request.body)",
            "    result = process(user, data)",
        ];
        let c = closest_block(
            &lines,
            &sketch_all(&lines),
            &s(&[
                "def handler(request):",
                "    # check the user first",
                "    user = request.usr",
                "    if not user.active:",
                "        raise Forbid()",
                "    data = parse(request.data)",
            ]),
        )
        .unwrap();
        assert_eq!((c.start_line, c.end_line), (1, 5));
        assert_eq!(
            c.differences[..3],
            [
                "after line 1: the file has no line \"    # check the user first\"".to_string(),
                "line 2: expected \"    user = request.usr\", file has \"    user = request.user\""
                    .to_string(),
                "line 3: expected \"    if not user.active:\", file has \"    if not user.is_active:\""
                    .to_string(),
            ]
        );
        assert!(c.similarity > 0.7, "{}", c.similarity);
    }

    #[test]
    fn nothing_similar_gives_none() {
        assert_eq!(
            closest_block(&["aaaa"], &sketch_all(&["aaaa"]), &s(&["zzzz qqqq"])),
            None
        );
    }
}
