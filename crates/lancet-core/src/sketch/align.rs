//! The alignment: one dynamic program over (sketch item, old line), its best path, and the
//! check that every best path has each marker keep the same old lines.

use super::Refusal;
use super::lines::{
    indent, inside_strings, is_closer, is_comment, is_definition, is_trivial, looks_changed,
    same_definition,
};
use super::markers::{Item, item_line};
use std::collections::HashMap;

/// Scores: primary (matches, insertions, deletions) first; then how much deeper markers keep
/// and how many blank or bracket lines match.
const PRIMARY: i64 = 1 << 32;
const MATCH: i64 = 2 * PRIMARY;
/// A new line costs: where the same line can be matched instead, matching wins.
const INSERT: i64 = -2 * PRIMARY;
const DELETE_LINE: i64 = -3 * PRIMARY;
const DELETE_BLANK: i64 = -PRIMARY;
/// A changed copy of an old line in its place: dearer than a match, cheaper than writing it
/// beside the old line a marker would keep, far cheaper than an insertion and a deletion.
const REPLACE: i64 = INSERT + PRIMARY / 2;
/// A matched blank or bracket line: worth less than a deeper marker keeping a line (2 per
/// column), so a new block's `}` does not steal the `}` a marker's block ends with.
const TRIVIAL_MATCH: i64 = 1;
const NONE: i64 = i64::MIN / 4;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Step {
    /// Sketch item `.0` matches old line `.1`.
    Match(usize, usize),
    /// Sketch item is new code.
    Insert(usize),
    /// Sketch item `.0` is a changed copy of old line `.1` and takes its place: the next
    /// sketch line stands right after that old line.
    Replace(usize, usize),
    /// Old line dropped.
    Delete(usize),
    /// Marker `.0` keeps old line `.1`.
    Absorb(usize, usize),
    /// Marker `.0` ends.
    Exit(usize),
}

/// A row of the alignment: a concrete sketch line, or a marker before (`Fresh`) and after
/// (`Started`) it has kept its first line (a marker's region must begin at its own depth).
#[derive(Debug, Clone, Copy)]
enum Row {
    Line(usize),
    Fresh(usize, usize, bool),
    Started(usize, usize),
}

/// At most four edges leave a node; kept inline, as the alignment visits millions of nodes.
#[derive(Default)]
struct Edges([Option<(usize, usize, i64, Step)>; 4]);

impl Edges {
    fn push(&mut self, edge: (usize, usize, i64, Step)) {
        if let Some(slot) = self.0.iter_mut().find(|e| e.is_none()) {
            *slot = Some(edge);
        }
    }
}

pub(super) struct Alignment<'a> {
    pub(super) old: &'a [String],
    /// The 0-based file line of `old[0]`, for messages.
    base: usize,
    pub(super) items: &'a [Item],
    rows: Vec<Row>,
    /// Per marker indentation k in use: whether old line j lies inside a block at depth k.
    inside: HashMap<usize, Vec<bool>>,
    forward: Vec<i64>,
    backward: Vec<i64>,
    /// Per sketch item, the old lines it may take the place of, sorted (see [`replacements`]).
    replaceable: Vec<Vec<usize>>,
}

/// Most edit-distance work (in 64-cell words, a call counting 16 more) the alignment may spend
/// finding which sketch lines are changed copies of which old lines: a sketch that would need
/// more is refused as too large instead of compared for minutes. Ordinary sketches need a
/// fraction of it; only texts that repeat one line hundreds of times in both come near.
const MAX_DISTANCE_WORK: usize = 300_000_000;

impl<'a> Alignment<'a> {
    /// The alignment of `items` with `old`, or `None` when finding the changed copies would
    /// cost more than [`MAX_DISTANCE_WORK`].
    pub(super) fn new(old: &'a [String], base: usize, items: &'a [Item]) -> Option<Self> {
        let mut inside = HashMap::new();
        let mut rows = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Line { .. } => rows.push(Row::Line(i)),
                Item::Marker {
                    indent: k, strict, ..
                } => {
                    inside.entry(*k).or_insert_with(|| inside_block(old, *k));
                    rows.push(Row::Fresh(i, *k, *strict));
                    rows.push(Row::Started(i, *k));
                }
            }
        }
        let cells = (rows.len() + 1) * (old.len() + 1);
        let mut a = Alignment {
            old,
            base,
            items,
            rows,
            inside,
            forward: vec![NONE; cells],
            backward: vec![NONE; cells],
            replaceable: replacements(old, items, MAX_DISTANCE_WORK)?,
        };
        a.fill();
        Some(a)
    }

    /// The 1-based file line number of old line `j`, as messages say it.
    pub(super) fn line_no(&self, j: usize) -> usize {
        self.base + j + 1
    }

    /// Whether marker `m` would begin on old line `j`, a closing bracket the sketch writes
    /// right before the marker (same text, same indentation): the block would close twice.
    fn repeats_closer(&self, m: usize, j: usize) -> bool {
        let line = &self.old[j];
        is_closer(line)
            && self.items[..m]
                .iter()
                .rev()
                .find(|i| !matches!(i, Item::Line { text, .. } if text.trim().is_empty()))
                .is_some_and(
                    |i| matches!(i, Item::Line { text, .. } if text.trim_end() == line.trim_end()),
                )
    }

    /// Whether sketch line `i` may take the place of old line `j` (see [`replacements`]).
    fn replaces(&self, i: usize, j: usize) -> bool {
        self.replaceable[i].binary_search(&j).is_ok()
    }

    fn at(&self, r: usize, j: usize) -> usize {
        r * (self.old.len() + 1) + j
    }

    /// The edges out of node (r, j): (next row, next j, score, step).
    fn edges(&self, r: usize, j: usize) -> impl Iterator<Item = (usize, usize, i64, Step)> {
        let n = self.old.len();
        let mut out = Edges::default();
        match self.rows.get(r) {
            Some(&Row::Line(i)) => {
                let Item::Line { text, soft, .. } = &self.items[i] else {
                    unreachable!("a line row holds a line")
                };
                let trivial = is_trivial(text);
                if j < n && !soft && self.old[j].trim_end() == text.trim_end() {
                    let w = if trivial { TRIVIAL_MATCH } else { MATCH };
                    out.push((r + 1, j + 1, w, Step::Match(i, j)));
                }
                out.push((r + 1, j, if trivial { 0 } else { INSERT }, Step::Insert(i)));
                if j < n && !trivial && self.replaces(i, j) {
                    out.push((r + 1, j + 1, REPLACE, Step::Replace(i, j)));
                }
                if j < n {
                    out.push((r, j + 1, delete_cost(&self.old[j]), Step::Delete(j)));
                }
            }
            Some(&Row::Fresh(i, k, strict)) => {
                // Blank lines keep the marker fresh: its first non-blank line must be at its
                // own depth. A `//` marker at column 0 is taken to stand anywhere (models leave
                // markers unindented in brace languages), so only uniqueness pins it.
                let keeps = 2 * k as i64;
                if j < n && self.inside[&k][j] {
                    if self.old[j].trim().is_empty() {
                        out.push((r, j + 1, keeps, Step::Absorb(i, j)));
                    } else if ((k == 0 && !strict) || indent(&self.old[j]) <= k)
                        && !self.repeats_closer(i, j)
                    {
                        out.push((r + 1, j + 1, keeps, Step::Absorb(i, j)));
                    }
                }
                out.push((r + 2, j, 0, Step::Exit(i)));
            }
            Some(&Row::Started(i, k)) => {
                if j < n && self.inside[&k][j] {
                    out.push((r, j + 1, 2 * k as i64, Step::Absorb(i, j)));
                }
                out.push((r + 1, j, 0, Step::Exit(i)));
            }
            None => {
                if j < n {
                    out.push((r, j + 1, delete_cost(&self.old[j]), Step::Delete(j)));
                }
            }
        }
        out.0.into_iter().flatten()
    }

    fn fill(&mut self) {
        let (m, n) = (self.rows.len(), self.old.len());
        let start = self.at(0, 0);
        self.forward[start] = 0;
        for r in 0..=m {
            for j in 0..=n {
                let here = self.forward[self.at(r, j)];
                if here == NONE {
                    continue;
                }
                let edges: Edges = {
                    let mut e = Edges::default();
                    self.edges(r, j).for_each(|x| e.push(x));
                    e
                };
                for (nr, nj, w, _) in edges.0.into_iter().flatten() {
                    let to = self.at(nr, nj);
                    self.forward[to] = self.forward[to].max(here + w);
                }
            }
        }
        let end = self.at(m, n);
        self.backward[end] = 0;
        for r in (0..=m).rev() {
            for j in (0..=n).rev() {
                let best = self
                    .edges(r, j)
                    .filter_map(|(nr, nj, w, _)| {
                        let b = self.backward[self.at(nr, nj)];
                        (b != NONE).then_some(b + w)
                    })
                    .max();
                if let Some(b) = best {
                    let at = self.at(r, j);
                    self.backward[at] = self.backward[at].max(b);
                }
            }
        }
    }

    fn best(&self) -> i64 {
        self.forward[self.at(self.rows.len(), self.old.len())]
    }

    fn optimal(&self, r: usize, j: usize, w: i64, nr: usize, nj: usize) -> bool {
        let f = self.forward[self.at(r, j)];
        let b = self.backward[self.at(nr, nj)];
        f != NONE && b != NONE && f + w + b == self.best()
    }

    /// Every marker keeps the same old lines on every best alignment, else the sketch is
    /// ambiguous.
    pub(super) fn check_unique(&self) -> Result<(), Refusal> {
        let n = self.old.len();
        for (f, row) in self.rows.iter().enumerate() {
            let Row::Fresh(item, _, _) = *row else {
                continue;
            };
            let mut starts = Vec::new();
            let mut ends = Vec::new();
            for j in 0..=n {
                let entered = if f == 0 {
                    j == 0
                } else {
                    (f.saturating_sub(2)..f).any(|pr| {
                        (j.saturating_sub(1)..=j).any(|pj| {
                            self.edges(pr, pj).any(|(nr, nj, w, _)| {
                                nr == f && nj == j && self.optimal(pr, pj, w, nr, nj)
                            })
                        })
                    })
                };
                if entered {
                    starts.push(j);
                }
                if self.optimal(f, j, 0, f + 2, j) || self.optimal(f + 1, j, 0, f + 2, j) {
                    ends.push(j);
                }
            }
            if starts.len() > 1 || ends.len() > 1 {
                let start = starts.len() > 1;
                let open = if start { &starts } else { &ends };
                return Err(Refusal::MarkerUnpinned {
                    line: item_line(&self.items[item]),
                    start,
                    before: open.iter().take(4).map(|j| self.line_no(*j)).collect(),
                });
            }
        }
        Ok(())
    }

    /// One best alignment, as steps from the start.
    pub(super) fn one_path(&self) -> Vec<Step> {
        let (m, n) = (self.rows.len(), self.old.len());
        let (mut r, mut j) = (0, 0);
        let mut path = Vec::new();
        while (r, j) != (m, n) {
            let Some((nr, nj, _, step)) = self
                .edges(r, j)
                .find(|&(nr, nj, w, _)| self.optimal(r, j, w, nr, nj))
            else {
                break;
            };
            path.push(step);
            (r, j) = (nr, nj);
        }
        path
    }

    /// Each sketch item's text (a marker's is empty), by item index.
    pub(super) fn texts(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|i| match i {
                Item::Line { text, .. } => text.as_str(),
                Item::Marker { .. } => "",
            })
            .collect()
    }

    /// Whether a step pins the alignment: a matched line with letters, or a marker's.
    pub(super) fn is_anchor(&self, step: &Step) -> bool {
        match step {
            Step::Match(_, j) => !is_trivial(&self.old[*j]),
            Step::Absorb(..) | Step::Exit(_) => true,
            _ => false,
        }
    }
}

/// Per sketch item, the old lines it may take the place of: it looks like a changed copy of the
/// old line, and the next sketch line (with letters) is the old line right after it. (A previous
/// line alone does not pin it: before a marker, "changed" and "added above the lines the marker
/// keeps" read alike.) Found from the pairs of equal next lines, so the edit distance is only
/// computed where it can matter; `None` past `budget` (in [`MAX_DISTANCE_WORK`]'s units).
fn replacements(old: &[String], items: &[Item], budget: usize) -> Option<Vec<Vec<usize>>> {
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    for (q, line) in old.iter().enumerate().skip(1) {
        at.entry(line.trim_end()).or_default().push(q);
    }
    let mut work = 0usize;
    let mut out = vec![Vec::new(); items.len()];
    for (i, pair) in items.windows(2).enumerate() {
        let [Item::Line { text, .. }, Item::Line { text: next, .. }] = pair else {
            continue;
        };
        if is_trivial(text) || next.trim().is_empty() {
            continue;
        }
        for &q in at.get(next.trim_end()).map_or(&[][..], Vec::as_slice) {
            let o = &old[q - 1];
            // A definition's changed copy keeps its name (`def f(a)` -> `def f(a, b)`); another
            // name is another definition, never a replacement.
            if (is_definition(text) || is_definition(o)) && !same_definition(text, o) {
                continue;
            }
            let (short, long) = (text.len().min(o.len()), text.len().max(o.len()));
            work += (short / 64 + 1) * long + 16;
            if work > budget {
                return None;
            }
            if looks_changed(text, o) {
                out[i].push(q - 1);
            }
        }
    }
    Some(out)
}

fn delete_cost(line: &str) -> i64 {
    if line.trim().is_empty() {
        DELETE_BLANK
    } else {
        DELETE_LINE
    }
}

/// Whether each old line lies inside a block at depth `k`: indented at least `k`, or blank
/// with the next non-blank line so indented (a block's trailing blank lines are not in it).
fn inside_block(old: &[String], k: usize) -> Vec<bool> {
    let mut inside = vec![false; old.len()];
    let mut next_inside = k == 0;
    let quoted = inside_strings(old);
    for j in (0..old.len()).rev() {
        // A blank line, a comment at any column (commented-out code, a section note) or a
        // line inside a string literal belongs to the block around it: it never ends one.
        if old[j].trim().is_empty() || is_comment(&old[j]) || quoted[j] {
            inside[j] = k == 0 || next_inside;
        } else {
            inside[j] = indent(&old[j]) >= k;
            next_inside = inside[j];
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::markers::items;

    fn lines(n: usize, f: impl Fn(usize) -> String) -> Vec<String> {
        (0..n).map(f).collect()
    }

    #[test]
    fn changed_copies_are_looked_for_only_where_the_next_lines_pin_them() {
        // Every line changed, a marker in the middle: no sketch line's next line is an old
        // line, so no edit distance is computed (it was, in every cell, four times over).
        let old = lines(600, |i| {
            format!("    value_{i} = compute_long({i}, name=\"item_{i}\")")
        });
        let mut sketch: Vec<String> = old.iter().map(|l| l.replace("long", "longer")).collect();
        sketch[300] = "    # ... existing code ...".to_string();
        let read = items(&old, &sketch);
        let (found, steps) = crate::work::counted(|| replacements(&old, &read, MAX_DISTANCE_WORK));
        assert!(found.unwrap().iter().all(Vec::is_empty));
        assert_eq!(steps, 0);
        // A changed line whose next line is the old one is found, at its place.
        sketch[11] = old[11].clone();
        let read = items(&old, &sketch);
        let found = replacements(&old, &read, MAX_DISTANCE_WORK).unwrap();
        assert_eq!(found[10], vec![10]);
    }

    #[test]
    fn a_sketch_repeating_lines_of_the_old_text_everywhere_stops_at_the_budget() {
        // Every other line is the same in both texts: each sketch line before it may be a
        // changed copy of each old line before it.
        let old = lines(2_000, |i| match i % 2 {
            0 => format!(
                "    \"key_{i}\": compute(argument_{i}, other_{}, flag=True),",
                i * 7
            ),
            _ => "    },".to_string(),
        });
        let sketch: Vec<String> = old.iter().map(|l| l.replace("True", "False")).collect();
        let read = items(&old, &sketch);
        let (found, steps) = crate::work::counted(|| replacements(&old, &read, 5_000_000));
        assert!(found.is_none());
        assert!(steps <= 5_000_000, "{steps}");
    }
}
