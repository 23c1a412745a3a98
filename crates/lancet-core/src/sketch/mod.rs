//! Lazy sketches, applied deterministically: new text in which markers (`# ... existing code
//! ...`, `// ... rest unchanged ...`, a bare `...`) stand for old lines the model did not
//! repeat. The sketch's concrete lines are aligned with the old lines; each marker keeps
//! exactly the old lines between its aligned neighbours; sketch lines that align nowhere are new
//! code; old lines between two aligned sketch lines with no marker between them are replaced.
//!
//! The alignment is one dynamic program over (sketch item, old line) that maximises matched
//! lines and penalises deleting old lines outside markers; a marker indented by k columns keeps
//! only lines inside a block at that depth. Whenever the best alignment is not unique in what it
//! keeps, or leaves a doubt a reader would have, the sketch is refused with the reason: never
//! apply what the model did not mean.

mod check;

use crate::locate::normalize::{definition_name, is_placeholder_line};
use check::{MarkerInfo, Placement, Source};

/// A sketch resolved against the old lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The new lines, markers replaced by the old lines they stand for.
    pub lines: Vec<String>,
    /// How many markers the sketch had.
    pub markers: usize,
    /// How many old lines the markers kept.
    pub kept: usize,
}

/// Why a sketch was not applied: what a model needs to send something lancet can place.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// Whether the new text holds a marker the old text lacks (then it is a sketch).
pub fn is_sketch(old: &[String], new: &[String]) -> bool {
    let items = items(old, new);
    items.iter().any(|i| matches!(i, Item::Marker { .. }))
}

/// The old lines a fragment stands for (0-based, inclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// The old line the sketch's first line stands for.
    pub first: usize,
    /// The last old line the sketch stands for.
    pub last: usize,
    /// The end was read from the block structure (the block the first line opens), not from
    /// an anchored last line: nothing after the sketch's last line may be dropped.
    pub end_inferred: bool,
}

/// The region of `old` a fragment stands for. A sketch whose first line is concrete and stands
/// exactly once in the file (verbatim up to trailing whitespace, else up to indentation) is
/// anchored there. It ends at its last line when that is concrete and stands once after the
/// first; else, when every later line is indented deeper than the first (or is the block's
/// closing bracket), at the end of the block the first line opens. `Ok(None)` when the sketch
/// begins with a marker, or ends in a marker outside the first line's block (it then stands for
/// the whole file); the reason when an end line matches no old line or several.
pub fn fragment_region(old: &[String], sketch: &[String]) -> Result<Option<Region>, Refusal> {
    let items = items(old, sketch);
    let solid: Vec<&Item> = items
        .iter()
        .filter(|i| !matches!(i, Item::Line { text, .. } if text.trim().is_empty()))
        .collect();
    let (Some(Item::Line { text: head, .. }), Some(&tail)) = (solid.first(), solid.last()) else {
        return Ok(None);
    };
    let a = place_line(old, head, 0)?;
    let depth = indent(head);
    let item_depth = |i: &Item| match i {
        Item::Line { text, .. } => indent(text),
        Item::Marker { indent, .. } => *indent,
    };
    let closes =
        |i: &Item| matches!(i, Item::Line { text, .. } if is_closer(text) && indent(text) == depth);
    let body = &solid[1..];
    let inside = !body.is_empty()
        && body
            .iter()
            .enumerate()
            .all(|(n, i)| item_depth(i) > depth || (n + 1 == body.len() && closes(i)));
    if inside {
        let old_depth = indent(&old[a]);
        let quoted = inside_strings(old);
        let next = (a + 1..old.len())
            .find(|&j| {
                !old[j].trim().is_empty()
                    && !is_comment(&old[j])
                    && !quoted[j]
                    && indent(&old[j]) <= old_depth
            })
            .unwrap_or(old.len());
        let closer = (next < old.len() && is_closer(&old[next]) && indent(&old[next]) == old_depth)
            .then_some(next);
        let last = match closer {
            Some(c) if closes(tail) => c,
            _ => (a..next)
                .rev()
                .find(|&j| !old[j].trim().is_empty())
                .unwrap_or(a),
        };
        // An anchored last line inside the block is as good as the block's end, and firmer.
        if let Item::Line { text, .. } = tail
            && !is_trivial(text)
            && let Ok(b) = place_line(old, text, a)
            && b <= last
        {
            return Ok(Some(Region {
                first: a,
                last: b,
                end_inferred: false,
            }));
        }
        return Ok(Some(Region {
            first: a,
            last,
            end_inferred: true,
        }));
    }
    let Item::Line { text: tail, .. } = tail else {
        return Ok(None);
    };
    let b = place_line(old, tail, a)?;
    Ok(Some(Region {
        first: a,
        last: b,
        end_inferred: false,
    }))
}

/// A line that closes a bracketed block (`}`, `});`, `]`, `)`) or an `end`.
fn is_closer(line: &str) -> bool {
    let t = line.trim();
    t.starts_with(['}', ')', ']']) && is_trivial(t) || t == "end"
}

/// The one old line (from `from` on) a fragment's end line stands for: verbatim up to trailing
/// whitespace, else up to indentation; the reason when none or several.
fn place_line(old: &[String], line: &str, from: usize) -> Result<usize, Refusal> {
    let find = |same: &dyn Fn(&str) -> bool| -> Vec<usize> {
        (from..old.len()).filter(|&j| same(&old[j])).collect()
    };
    let mut at = find(&|o: &str| o.trim_end() == line.trim_end());
    if at.is_empty() {
        at = find(&|o: &str| o.trim() == line.trim());
    }
    match at[..] {
        [one] => Ok(one),
        [] => Err(Refusal(format!(
            "its line {:?} stands nowhere in the file, so it does not say which part of the file it is the new version of",
            line.trim()
        ))),
        _ => Err(Refusal(format!(
            "its line {:?} stands {} times in the file (lines {}), so it does not say which part of the file it is the new version of; start and end it with lines that occur once",
            line.trim(),
            at.len(),
            at.iter()
                .take(5)
                .map(|j| (j + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Most DP cells (sketch items × old lines) lancet aligns: beyond it a sketch is refused.
const MAX_CELLS: usize = 6_000_000;

/// Resolves `sketch` against `old`. `whole_file`: the sketch is the whole new file, so old
/// lines it would drop at its head or tail without a marker there are refused rather than
/// deleted (models leave out headers and trailers they did not mean to delete).
pub fn resolve(old: &[String], sketch: &[String], whole_file: bool) -> Result<Resolved, Refusal> {
    let ends = if whole_file {
        Ends::Anchored
    } else {
        Ends::Open
    };
    resolve_lines(old, 0, sketch, ends)
}

/// Resolves a fragment against the region of the file `old` it stands for: refusals number
/// old lines as the file does.
pub fn resolve_region(
    old: &[String],
    region: Region,
    sketch: &[String],
) -> Result<Resolved, Refusal> {
    let ends = if region.end_inferred {
        Ends::OpenTail
    } else {
        Ends::Anchored
    };
    resolve_lines(&old[region.first..=region.last], region.first, sketch, ends)
}

/// What the old lines beyond the sketch's first and last lines are.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ends {
    /// Lines the sketch may drop (a SEARCH block's ends).
    Open,
    /// The file's, or an anchored region's, ends: dropping lines there needs new lines in
    /// their place.
    Anchored,
    /// A region whose end lancet inferred: nothing after the sketch's last line is dropped.
    OpenTail,
}

fn resolve_lines(
    old: &[String],
    base: usize,
    sketch: &[String],
    ends: Ends,
) -> Result<Resolved, Refusal> {
    let items = items(old, sketch);
    let markers = items
        .iter()
        .filter(|i| matches!(i, Item::Marker { .. }))
        .count();
    if (items.len() + 1) * (old.len() + 1) > MAX_CELLS {
        return Err(Refusal(format!(
            "the sketch ({} lines) is too large to align with {} lines; send the change as SEARCH/REPLACE blocks or old_string/new_string edits of the parts that change",
            sketch.len(),
            old.len()
        )));
    }
    let dp = Alignment::new(old, base, &items);
    dp.check_unique()?;
    let path = dp.one_path();
    dp.check_path(&path, ends)?;
    let mut out: Vec<(&str, Source)> = Vec::new();
    for step in &path {
        match *step {
            Step::Match(i, _) | Step::Insert(i) | Step::Replace(i, _) => {
                if let Item::Line { text, soft, .. } = &items[i] {
                    out.push((
                        text,
                        Source::Sketch {
                            item: i,
                            soft: *soft,
                        },
                    ));
                }
            }
            Step::Absorb(m, j) => out.push((&old[j], Source::Kept { marker: m, old: j })),
            Step::Delete(_) | Step::Exit(_) => {}
        }
    }
    let result = merge_blank_runs(&out);
    let placement = Placement {
        old,
        base,
        concrete: items
            .iter()
            .enumerate()
            .filter_map(|(n, i)| match i {
                Item::Line { text, .. } => Some((n, text.as_str())),
                Item::Marker { .. } => None,
            })
            .collect(),
        markers: items
            .iter()
            .enumerate()
            .filter_map(|(n, i)| match *i {
                Item::Marker { indent, line, .. } => Some(MarkerInfo {
                    item: n,
                    line,
                    indent,
                }),
                Item::Line { .. } => None,
            })
            .collect(),
        result,
        open_ends: ends == Ends::Open,
    };
    placement.check()?;
    let kept = placement
        .result
        .iter()
        .filter(|(_, s)| matches!(s, Source::Kept { .. }))
        .count();
    Ok(Resolved {
        lines: placement.result.into_iter().map(|(t, _)| t).collect(),
        markers,
        kept,
    })
}

/// In a run of blank lines where the sketch's blanks beside a marker meet blanks the marker
/// keeps, the longer of the two stands: the layout is not doubled.
fn merge_blank_runs(out: &[(&str, Source)]) -> Vec<(String, Source)> {
    let soft = |s: &Source| matches!(s, Source::Sketch { soft: true, .. });
    let mut lines = Vec::with_capacity(out.len());
    let mut k = 0;
    while k < out.len() {
        if !out[k].0.trim().is_empty() {
            lines.push((out[k].0.to_string(), out[k].1));
            k += 1;
            continue;
        }
        let end = (k..out.len())
            .find(|&e| !out[e].0.trim().is_empty())
            .unwrap_or(out.len());
        let run = &out[k..end];
        let softs = run.iter().filter(|(_, s)| soft(s)).count();
        let kept = run
            .iter()
            .filter(|(_, s)| matches!(s, Source::Kept { .. }))
            .count();
        let mut drop_soft = softs.min(kept);
        for (text, source) in run {
            if soft(source) && drop_soft > 0 {
                drop_soft -= 1;
                continue;
            }
            lines.push(((*text).to_string(), *source));
        }
        k = end;
    }
    lines
}

/// A sketch line: concrete text, or a marker (consecutive markers are one).
#[derive(Debug, Clone)]
enum Item {
    /// `soft`: a blank line touching a marker, layout around the elided code: it is never
    /// matched, and merges with the blank lines the marker keeps.
    Line {
        text: String,
        line: usize,
        soft: bool,
    },
    Marker {
        indent: usize,
        line: usize,
        /// At column 0, the marker keeps only lines of its own depth too: it follows a deeper
        /// marker (with nothing but blank lines between), which stands for the rest of that
        /// deeper block already. Otherwise a column-0 marker stands anywhere (models leave
        /// markers unindented, in brace languages and for "the rest of the file").
        strict: bool,
    },
}

fn items(old: &[String], sketch: &[String]) -> Vec<Item> {
    let old_has = |t: &str| old.iter().any(|o| o.trim() == t);
    let mut out: Vec<Item> = Vec::new();
    for (n, text) in sketch.iter().enumerate() {
        let t = text.trim();
        let marker = !old_has(t)
            && (is_placeholder_line(text) || (is_bare_ellipsis(t) && !is_stub(sketch, n)));
        if marker {
            if !matches!(out.last(), Some(Item::Marker { .. })) {
                let after_deeper = out
                    .iter()
                    .rev()
                    .find(|i| !matches!(i, Item::Line { text, .. } if text.trim().is_empty()))
                    .is_some_and(
                        |i| matches!(i, Item::Marker { indent: k, .. } if *k > indent(text)),
                    );
                out.push(Item::Marker {
                    indent: indent(text),
                    line: n + 1,
                    strict: after_deeper,
                });
            }
        } else {
            out.push(Item::Line {
                text: text.clone(),
                line: n + 1,
                soft: false,
            });
        }
    }
    // Blank runs touching a marker are soft.
    let is_marker = |i: usize| matches!(out.get(i), Some(Item::Marker { .. }));
    let blank = |item: &Item| matches!(item, Item::Line { text, .. } if text.trim().is_empty());
    let mut soft = vec![false; out.len()];
    for i in 0..out.len() {
        if !blank(&out[i]) {
            continue;
        }
        let mut a = i;
        while a > 0 && blank(&out[a - 1]) {
            a -= 1;
        }
        let mut b = i;
        while b + 1 < out.len() && blank(&out[b + 1]) {
            b += 1;
        }
        soft[i] = (a > 0 && is_marker(a - 1)) || is_marker(b + 1);
    }
    for (item, s) in out.iter_mut().zip(soft) {
        if let Item::Line { soft, .. } = item {
            *soft = s;
        }
    }
    out
}

fn is_bare_ellipsis(t: &str) -> bool {
    t == "..." || t == "\u{2026}"
}

/// A bare `...` that is a stub body (`def f():` / `    ...` / dedent), not a marker.
fn is_stub(sketch: &[String], n: usize) -> bool {
    let prev = sketch[..n].iter().rev().find(|l| !l.trim().is_empty());
    let next = sketch[n + 1..].iter().find(|l| !l.trim().is_empty());
    let opens = prev.is_some_and(|p| {
        let p = p.trim_end();
        p.ends_with(':') || p.ends_with('{')
    });
    let closes = next.is_none_or(|l| indent(l) < indent(&sketch[n]));
    opens && closes
}

/// Leading whitespace width, a tab counting 4.
fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// A line with no letter or digit (`}`, `)`, `]);`, blank): matching it pins nothing.
fn is_trivial(line: &str) -> bool {
    !line.chars().any(char::is_alphanumeric)
}

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
enum Step {
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

struct Alignment<'a> {
    old: &'a [String],
    /// The 0-based file line of `old[0]`, for messages.
    base: usize,
    items: &'a [Item],
    rows: Vec<Row>,
    /// Per marker indentation k in use: whether old line j lies inside a block at depth k.
    inside: std::collections::HashMap<usize, Vec<bool>>,
    forward: Vec<i64>,
    backward: Vec<i64>,
}

impl<'a> Alignment<'a> {
    fn new(old: &'a [String], base: usize, items: &'a [Item]) -> Self {
        let mut inside = std::collections::HashMap::new();
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
        };
        a.fill();
        a
    }

    /// The 1-based file line number of old line `j`, as messages say it.
    fn line_no(&self, j: usize) -> usize {
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

    /// Whether sketch line `i` may take the place of old line `j`: it looks like a changed
    /// copy of it, and the next sketch line (with letters) is the old line right after it. (A
    /// previous line alone does not pin it: before a marker, "changed" and "added above the
    /// lines the marker keeps" read alike.)
    fn replaces(&self, i: usize, j: usize) -> bool {
        let Item::Line { text, .. } = &self.items[i] else {
            return false;
        };
        let same = |item: Option<&Item>, old: Option<&String>| match (item, old) {
            (Some(Item::Line { text, .. }), Some(o)) => {
                !text.trim().is_empty() && o.trim_end() == text.trim_end()
            }
            _ => false,
        };
        // A definition's changed copy keeps its name (`def f(a)` -> `def f(a, b)`); another name
        // is another definition, never a replacement.
        let one_definition = !(is_definition(text) || is_definition(&self.old[j]))
            || same_definition(text, &self.old[j]);
        looks_changed(text, &self.old[j])
            && one_definition
            && same(self.items.get(i + 1), self.old.get(j + 1))
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
    fn check_unique(&self) -> Result<(), Refusal> {
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
                let place = |v: &[usize]| {
                    v.iter()
                        .take(4)
                        .map(|j| self.line_no(*j).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let which = if starts.len() > 1 {
                    format!("start before old line {}", place(&starts))
                } else {
                    format!("end before old line {}", place(&ends))
                };
                return Err(Refusal(format!(
                    "the marker on line {} of the new text could {which}: the lines around it do not pin down which old lines it stands for (two similar places, or new lines between two markers). Include a line that occurs only once next to the marker, or send the lines in full",
                    item_line(&self.items[item])
                )));
            }
        }
        Ok(())
    }

    /// One best alignment, as steps from the start.
    fn one_path(&self) -> Vec<Step> {
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
    fn texts(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|i| match i {
                Item::Line { text, .. } => text.as_str(),
                Item::Marker { .. } => "",
            })
            .collect()
    }

    /// Whether a step pins the alignment: a matched line with letters, or a marker's.
    fn is_anchor(&self, step: &Step) -> bool {
        match step {
            Step::Match(_, j) => !is_trivial(&self.old[*j]),
            Step::Absorb(..) | Step::Exit(_) => true,
            _ => false,
        }
    }

    /// The doubts a reader would have about the one alignment.
    fn check_path(&self, path: &[Step], ends: Ends) -> Result<(), Refusal> {
        let old = self.old;
        if !path
            .iter()
            .any(|s| matches!(s, Step::Match(..)) && self.is_anchor(s))
        {
            // Say which: no line is in the old text at all, or the ones that are could not be
            // placed (out of order, or with a marker outside its block).
            let shared = |same: &dyn Fn(&str, &str) -> bool| {
                self.items.iter().any(|i| match i {
                    Item::Line { text, .. } => {
                        !is_trivial(text) && old.iter().any(|o| same(o, text))
                    }
                    Item::Marker { .. } => false,
                })
            };
            let why = if shared(&|o, t| o.trim_end() == t.trim_end()) {
                "the lines of the new text that are also in the old text cannot be placed around its markers (a marker would leave its block)"
            } else if shared(&|o, t| o.trim() == t.trim()) {
                "the lines of the new text occur in the old text only with other indentation, and a sketch is placed by its lines as they stand"
            } else {
                "no line of the new text other than its markers occurs in the old text"
            };
            return Err(Refusal(format!(
                "{why}, so lancet cannot tell where the elided lines are. Include unchanged lines around each marker, exactly as they are, or send the whole text"
            )));
        }
        // Gaps between anchors that only drop old lines: beside a marker (which stops there,
        // its indentation keeping it inside a block) or at a whole file's head or tail, the
        // lines were surely meant to stay.
        let mut k = 0;
        while k < path.len() {
            if self.is_anchor(&path[k]) {
                k += 1;
                continue;
            }
            let end = (k..path.len())
                .find(|&e| self.is_anchor(&path[e]))
                .unwrap_or(path.len());
            let gap = &path[k..end];
            let dropped = gap.iter().find_map(|s| match s {
                Step::Delete(j) | Step::Replace(_, j) if !old[*j].trim().is_empty() => Some(*j),
                _ => None,
            });
            let added = gap.iter().any(|s| match s {
                Step::Insert(i) | Step::Replace(i, _) => {
                    matches!(&self.items[*i], Item::Line { text, .. } if !is_trivial(text))
                }
                _ => false,
            });
            let marker = |s: Option<&Step>| matches!(s, Some(Step::Absorb(..) | Step::Exit(_)));
            let beside_marker = marker(k.checked_sub(1).map(|p| &path[p])) || marker(path.get(end));
            let at_edge = ends != Ends::Open && (k == 0 || end == path.len());
            // At an inferred end, only the body of the last matched line may be rewritten: all
            // the lines dropped deeper than it, none of them a definition.
            let open_tail = ends == Ends::OpenTail
                && end == path.len()
                && !self.rewrites_body(k.checked_sub(1).map(|p| &path[p]), gap);
            if let (Some(j), false, true) = (dropped, added && !open_tail, beside_marker || at_edge)
            {
                let why = if open_tail {
                    "after the new text's last line, in the block its first line opens: nothing there says the lines are to go (a marker keeps them, an unchanged line after the change pins the end)"
                } else if beside_marker {
                    "beside a marker, outside the block the marker's indentation covers"
                } else {
                    "before the new text's first line or after its last, where it has no marker"
                };
                return Err(Refusal(format!(
                    "old line {} ({:?}) would be deleted: it lies {why}. Put a marker there to keep it (indented like the code it stands for), or include the line",
                    self.line_no(j),
                    old[j].trim()
                )));
            }
            if let (Some(j), false) = (dropped, added) {
                self.check_pulled_up(path, gap, end, j)?;
            }
            k = end;
        }
        self.check_replacements(path)?;
        self.check_empty_markers(path)?;
        self.check_changed_heads(path)?;
        self.check_edges(path)?;
        self.check_new_definitions(path)?;
        self.check_duplicates(path)
    }

    /// A gap that only drops old lines, right before a matched line the sketch writes just
    /// above a marker: had the line stayed in the marker's range (a move up), the dropped lines
    /// would be the marker's. Deleting them or keeping them? A reader cannot tell.
    fn check_pulled_up(
        &self,
        path: &[Step],
        gap: &[Step],
        end: usize,
        j: usize,
    ) -> Result<(), Refusal> {
        let Some(&Step::Match(i, at)) = path.get(end) else {
            return Ok(());
        };
        let next = path[end + 1..].iter().find(|s| {
            !matches!(s, Step::Insert(n) if matches!(&self.items[*n], Item::Line { text, .. } if text.trim().is_empty()))
        });
        let (Some(&Step::Absorb(m, _)) | Some(&Step::Exit(m))) = next else {
            return Ok(());
        };
        let Item::Marker {
            indent: k, line, ..
        } = self.items[m]
        else {
            return Ok(());
        };
        let within = gap.iter().all(|s| match *s {
            Step::Delete(d) => self.old[d].trim().is_empty() || indent(&self.old[d]) >= k,
            _ => true,
        });
        if !within {
            return Ok(());
        }
        Err(Refusal(format!(
            "old line {} ({:?}) would be deleted: line {} of the new text ({:?}) stands right after it as old line {}, just above the marker on line {line}. Was that line moved up (the marker keeping old line {}), or is old line {} deleted? Include the lines around it, or send the lines in full",
            self.line_no(j),
            self.old[j].trim(),
            item_line(&self.items[i]),
            self.old[at].trim(),
            self.line_no(at),
            self.line_no(j),
            self.line_no(j),
        )))
    }

    /// A changed copy takes an old line's place only before the sketch line that pins it there
    /// (matched right after it).
    fn check_replacements(&self, path: &[Step]) -> Result<(), Refusal> {
        for (k, step) in path.iter().enumerate() {
            let Step::Replace(i, j) = *step else { continue };
            let pinned =
                matches!(path.get(k + 1), Some(&Step::Match(n, o)) if n == i + 1 && o == j + 1);
            if !pinned {
                return Err(Refusal(format!(
                    "line {} of the new text ({:?}) looks like a changed version of old line {} ({:?}), but no unchanged line beside it pins it there: lancet cannot tell whether it replaces that line or is added. Include the old line's neighbours, or send the lines in full",
                    item_line(&self.items[i]),
                    self.texts()[i].trim(),
                    self.line_no(j),
                    self.old[j].trim()
                )));
            }
        }
        Ok(())
    }

    /// A marker that keeps no line while old lines right beside it are dropped: indented
    /// deeper than they are, it could not keep them, yet a marker says "the code here stays".
    fn check_empty_markers(&self, path: &[Step]) -> Result<(), Refusal> {
        for (k, step) in path.iter().enumerate() {
            let Step::Exit(m) = *step else { continue };
            if path
                .iter()
                .any(|s| matches!(*s, Step::Absorb(a, _) if a == m))
            {
                continue;
            }
            let dropped = |steps: &mut dyn Iterator<Item = &Step>| {
                steps
                    .take_while(|s| !self.is_anchor(s))
                    .find_map(|s| match *s {
                        Step::Delete(j) if !self.old[j].trim().is_empty() => Some(j),
                        _ => None,
                    })
            };
            if let (Some(j), Item::Marker { line, .. }) = (
                self.changed_after_empty_marker(&path[k + 1..]),
                &self.items[m],
            ) {
                return Err(Refusal(format!(
                    "the marker on line {line} keeps no line, and right after it the new text changes old line {} ({:?}): is that code changed, or is the new text a second one beside it, after what the marker was meant to keep? Include the old lines in full there, or drop the marker",
                    self.line_no(j),
                    self.old[j].trim()
                )));
            }
            let j =
                dropped(&mut path[k + 1..].iter()).or_else(|| dropped(&mut path[..k].iter().rev()));
            if let (
                Some(j),
                Item::Marker {
                    indent: depth,
                    line,
                    ..
                },
            ) = (j, &self.items[m])
            {
                return Err(Refusal(format!(
                    "the marker on line {line} keeps no line, and old line {} ({:?}) beside it would be deleted: indented {depth} columns, the marker stands only for code at least that deep. Indent the marker like the code it stands for, or include the line",
                    self.line_no(j),
                    self.old[j].trim()
                )));
            }
        }
        Ok(())
    }

    /// After a marker that keeps nothing: the first old line the sketch changes before the
    /// next marker, when the sketch's lines there pass for a sibling of the old ones (a second
    /// route, a list item): had the marker kept the old unit, the new one stands beside it.
    fn changed_after_empty_marker(&self, after: &[Step]) -> Option<usize> {
        let mut matched = 0;
        for s in after {
            match *s {
                Step::Match(_, j) if !self.old[j].trim().is_empty() => matched += 1,
                Step::Replace(_, j) | Step::Delete(j) if !self.old[j].trim().is_empty() => {
                    return (matched > 0).then_some(j);
                }
                Step::Absorb(..) | Step::Exit(_) => return None,
                _ => {}
            }
        }
        None
    }

    /// Whether old line `j` heads a unit a file holds several of side by side: a definition,
    /// a decorated member, a method, or any block at column 0 (a route, a test, a config
    /// entry). A statement block inside a body (`if`, `for`) is not one: a second copy of it
    /// beside the first is no reading.
    fn heads_a_unit(&self, j: usize) -> bool {
        let line = &self.old[j];
        let decorated = self.old[..j]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| is_decoration(l));
        is_definition(line) || indent(line) == 0 || decorated || is_method_head(line)
    }

    /// An old block's head dropped or replaced while the sketch matches lines of its body,
    /// right after a marker: the marker could as well keep the old block whole, the sketch's
    /// block being new beside it (`impl Display for Group` after `impl Display for User`, a
    /// second route, a decorated method): a changed head, or a new block? A reader cannot tell.
    fn check_changed_heads(&self, path: &[Step]) -> Result<(), Refusal> {
        let old = self.old;
        let matched: std::collections::HashSet<usize> = path
            .iter()
            .filter_map(|s| match *s {
                Step::Match(_, j) => Some(j),
                _ => None,
            })
            .collect();
        let touches = |s: &Step, unit: &std::ops::Range<usize>| match *s {
            Step::Match(_, j) | Step::Delete(j) | Step::Replace(_, j) | Step::Absorb(_, j) => {
                unit.contains(&j)
            }
            _ => false,
        };
        for step in path {
            let (Step::Delete(j) | Step::Replace(_, j)) = *step else {
                continue;
            };
            // The same definition with a changed head (`def f(a)` -> `def f(a, b)`): a second
            // one of that name beside it is no reading.
            if let Step::Replace(i, _) = *step
                && same_definition(self.texts()[i], &old[j])
            {
                continue;
            }
            if is_trivial(&old[j]) || !self.heads_a_unit(j) {
                continue;
            }
            // The unit: its decorators or attributes, the head, the body.
            let depth = indent(&old[j]);
            let body_end = (j + 1..old.len())
                .find(|&b| !old[b].trim().is_empty() && indent(&old[b]) <= depth)
                .map_or(old.len(), |b| if is_closer(&old[b]) { b + 1 } else { b });
            let mut first = j;
            while first > 0 && is_decoration(&old[first - 1]) {
                first -= 1;
            }
            let unit = first..body_end;
            let kept = unit
                .clone()
                .any(|u| u != j && matched.contains(&u) && !old[u].trim().is_empty());
            if !kept {
                continue;
            }
            // What stands before the unit in the sketch, blank lines aside.
            let Some(start) = path.iter().position(|s| touches(s, &unit)) else {
                continue;
            };
            let before = path[..start].iter().rev().find(|s| match s {
                Step::Delete(_) => false,
                Step::Match(i, _) | Step::Insert(i) | Step::Replace(i, _) => {
                    !self.texts()[*i].trim().is_empty()
                }
                Step::Absorb(..) | Step::Exit(_) => true,
            });
            if let Some(Step::Absorb(m, _) | Step::Exit(m)) = before {
                return Err(Refusal(format!(
                    "old line {} ({:?}) would give way to new text while other lines of its block stay, right after the marker on line {}: is that block changed, or is the new text a second block beside it (the marker keeping the old one)? Include the old block's first line, or put the new block after a line that stands once",
                    self.line_no(j),
                    old[j].trim(),
                    item_line(&self.items[*m])
                )));
            }
        }
        Ok(())
    }

    /// Whether a region's tail gap after `anchor` rewrites that line's block body: every
    /// dropped line is indented deeper than it and none opens a definition.
    fn rewrites_body(&self, anchor: Option<&Step>, gap: &[Step]) -> bool {
        let Some(&Step::Match(_, a)) = anchor else {
            return false;
        };
        let depth = indent(&self.old[a]);
        gap.iter().all(|s| match *s {
            Step::Delete(j) | Step::Replace(_, j) => {
                let line = &self.old[j];
                line.trim().is_empty() || (indent(line) > depth && !is_definition(line))
            }
            _ => true,
        })
    }

    /// New lines right beside a marker that look like a changed version of the old line at
    /// the marker's edge: replace or insert beside it? A reader cannot tell.
    fn check_edges(&self, path: &[Step]) -> Result<(), Refusal> {
        let old = self.old;
        let mut k = 0;
        while k < path.len() {
            let Step::Absorb(m, first) = path[k] else {
                k += 1;
                continue;
            };
            let mut last = first;
            let mut e = k;
            while e < path.len() {
                match path[e] {
                    Step::Absorb(_, j) => last = j,
                    Step::Exit(_) => break,
                    _ => {}
                }
                e += 1;
            }
            let region: Vec<usize> = (first..=last)
                .filter(|&j| !old[j].trim().is_empty())
                .collect();
            // The new lines between the region and the nearest anchor, nearest first; of
            // them, the one touching the region and the block's first line are compared.
            let inserts = |steps: &mut dyn Iterator<Item = &Step>| -> Vec<usize> {
                steps
                    .take_while(|s| !self.is_anchor(s))
                    .filter_map(|s| match s {
                        Step::Insert(i) | Step::Replace(i, _) => match &self.items[*i] {
                            Item::Line { text, .. } if !is_trivial(text) => Some(*i),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect()
            };
            let above = inserts(&mut path[..k].iter().rev());
            let below = inserts(&mut path[(e + 1).min(path.len())..].iter());
            let edges = [
                (
                    above
                        .first()
                        .into_iter()
                        .chain(above.last())
                        .copied()
                        .collect::<Vec<_>>(),
                    region.first(),
                ),
                (below.first().copied().into_iter().collect(), region.last()),
            ];
            for &i in above.iter().chain(&below) {
                let Item::Line { text, line, .. } = &self.items[i] else {
                    continue;
                };
                if let Some(j) = (first..=last).find(|&j| old[j].trim() == text.trim()) {
                    return Err(Refusal(format!(
                        "line {line} of the new text ({:?}) is written as new code next to the marker on line {}, while the marker keeps the same line (old line {}): it would be there twice. Include the lines around it instead of the marker",
                        text.trim(),
                        item_line(&self.items[m]),
                        self.line_no(j)
                    )));
                }
            }
            for (new_items, edge) in edges {
                let Some(&edge) = edge else { continue };
                for i in new_items {
                    let Item::Line { text, line, .. } = &self.items[i] else {
                        continue;
                    };
                    if !is_trivial(text) && looks_changed(text, &old[edge]) {
                        return Err(Refusal(format!(
                            "line {line} of the new text ({:?}) is new, next to the marker on line {}, and looks like a changed version of old line {} ({:?}), which the marker would keep: lancet cannot tell whether it replaces that line or is added beside it. Include the old line's neighbours instead of the marker there, or send the lines in full",
                            text.trim(),
                            item_line(&self.items[m]),
                            self.line_no(edge),
                            old[edge].trim()
                        )));
                    }
                }
            }
            k = e + 1;
        }
        Ok(())
    }

    /// A new definition's body lines matched into another definition's body: the sketch's
    /// new function would take over the old one's lines.
    fn check_new_definitions(&self, path: &[Step]) -> Result<(), Refusal> {
        let sketch = self.texts();
        let inserted: std::collections::HashSet<usize> = path
            .iter()
            .filter_map(|s| match s {
                Step::Insert(i) => Some(*i),
                _ => None,
            })
            .collect();
        for s in path {
            let (Step::Match(i, j) | Step::Replace(i, j)) = *s else {
                continue;
            };
            if is_trivial(sketch[i]) || sketch[i].trim().is_empty() {
                continue;
            }
            let depth = indent(sketch[i]);
            let opener = (0..i)
                .rev()
                .find(|&p| !sketch[p].trim().is_empty() && indent(sketch[p]) < depth);
            if let Some(p) = opener
                && inserted.contains(&p)
                && is_definition(sketch[p])
            {
                return Err(Refusal(format!(
                    "line {} of the new text ({:?}) belongs to the new definition {:?}, yet it matches old line {} inside other code: lancet cannot tell which old lines the new definition replaces. Include a line that pins its place, or send it as a separate insertion",
                    item_line(&self.items[i]),
                    sketch[i].trim(),
                    sketch[p].trim(),
                    self.line_no(j)
                )));
            }
        }
        Ok(())
    }

    /// A definition a marker keeps that the sketch also writes as new code (in the same
    /// enclosing block): a move, or a copy, would be written twice.
    fn check_duplicates(&self, path: &[Step]) -> Result<(), Refusal> {
        let old = self.old;
        let sketch = self.texts();
        let new_defs: Vec<(usize, &str, String)> = path
            .iter()
            .filter_map(|s| match s {
                Step::Insert(i) if is_definition(sketch[*i]) => {
                    Some((*i, sketch[*i].trim(), container(&sketch, *i)))
                }
                _ => None,
            })
            .collect();
        let old_strs: Vec<&str> = old.iter().map(String::as_str).collect();
        for s in path {
            let Step::Absorb(_, j) = *s else { continue };
            if !is_definition(&old[j]) {
                continue;
            }
            let outer = container(&old_strs, j);
            let same = |t: &str| t == old[j].trim() || same_definition(t, &old[j]);
            if let Some((i, text, _)) = new_defs.iter().find(|(_, t, c)| same(t) && *c == outer) {
                return Err(Refusal(format!(
                    "line {} of the new text writes {text:?} as new code, while a marker keeps the same definition at old line {}: it would be written twice. If it moves, include the lines around its old place (without it) instead of a marker",
                    item_line(&self.items[*i]),
                    self.line_no(j)
                )));
            }
        }
        Ok(())
    }
}

/// The line of the new text an item stands on.
fn item_line(item: &Item) -> usize {
    match item {
        Item::Marker { line, .. } | Item::Line { line, .. } => *line,
    }
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

/// Whether two definition heads define the same thing: the same name (`def f(a)` and
/// `def f(a, b)`); an `impl` names what it implements and for whom, so all of its head counts.
fn same_definition(a: &str, b: &str) -> bool {
    let head = |l: &str| {
        let t = l.trim().trim_end_matches('{').trim();
        let t = t.strip_prefix("unsafe ").unwrap_or(t);
        t.starts_with("impl").then(|| t.to_string())
    };
    // Go methods name their receiver first: `func (l *List) Name(`.
    let name = |l: &str| {
        let t = l.trim_start();
        match t.strip_prefix("func (").and_then(|r| r.split_once(')')) {
            Some((_, rest)) => {
                let rest = rest.trim_start();
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (end > 0).then(|| rest[..end].to_string())
            }
            None => definition_name(l).map(str::to_string),
        }
    };
    match (head(a), head(b)) {
        (None, None) => name(a).is_some_and(|n| Some(n) == name(b)),
        (x, y) => x == y,
    }
}

/// A decorator or attribute line (`@action`, `#[test]`), which belongs to the definition below.
fn is_decoration(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('@') || t.starts_with("#[")
}

/// A JavaScript/TypeScript class method's head: `name(args) {`, `async name(args): T {`.
fn is_method_head(line: &str) -> bool {
    const KEYWORDS: [&str; 8] = [
        "if", "for", "while", "switch", "catch", "with", "return", "function",
    ];
    let t = line.trim();
    let t = [
        "async ",
        "static ",
        "public ",
        "private ",
        "protected ",
        "get ",
        "set ",
    ]
    .iter()
    .fold(t, |t, m| t.strip_prefix(m).unwrap_or(t));
    let name_end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(t.len());
    name_end > 0
        && !KEYWORDS.contains(&&t[..name_end])
        && t[name_end..].starts_with('(')
        && t.ends_with('{')
}

/// Per line: whether it begins inside a string literal that an earlier line opened (a
/// Python triple-quoted string, a JavaScript template literal or Go raw string, a string
/// continued with a trailing backslash). Its indentation is the string's, not the code's.
fn inside_strings(lines: &[String]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Option<&str> = None;
    for line in lines {
        out.push(open.is_some());
        let mut rest = line.as_str();
        while !rest.is_empty() {
            if let Some(close) = open {
                match find_unescaped(rest, close) {
                    Some(at) => {
                        rest = &rest[at + close.len()..];
                        open = None;
                    }
                    None => {
                        // A one-quote string stays open only through a trailing backslash.
                        if close == "\"" && !rest.ends_with('\\') {
                            open = None;
                        }
                        break;
                    }
                }
                continue;
            }
            let Some(at) = rest.find(['"', '\'', '`', '#', '/']) else {
                break;
            };
            let tail = &rest[at..];
            if tail.starts_with("//") || (tail.starts_with('#') && !tail.starts_with("#[")) {
                break;
            }
            let quote = ["\"\"\"", "'''", "`", "\""]
                .into_iter()
                .find(|q| tail.starts_with(q));
            match quote {
                Some(q) => {
                    open = Some(q);
                    rest = &tail[q.len()..];
                }
                // A single quote: a character, a lifetime or a one-line string, skipped.
                None => rest = &tail[1..],
            }
        }
    }
    out
}

/// The byte offset of the first `close` in `s` not escaped by a backslash.
fn find_unescaped(s: &str, close: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = s[from..].find(close) {
        let at = from + at;
        let backslashes = s[..at].chars().rev().take_while(|&c| c == '\\').count();
        if backslashes % 2 == 0 {
            return Some(at);
        }
        from = at + close.len();
    }
    None
}

/// A line that is only a comment (`#`, `//`, `/*`, `*`, `--`), not code.
fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    (t.starts_with('#') && !t.starts_with("#[") && !t.starts_with("#!"))
        || t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with("* ")
        || t == "*/"
}

/// Same indentation and most of the text the same.
fn looks_changed(new: &str, old: &str) -> bool {
    if indent(new) != indent(old) || new.trim() == old.trim() {
        return false;
    }
    let (a, b) = (new.trim(), old.trim());
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    strsim::normalized_levenshtein(a, b) >= 0.6 || (shorter >= 4 && 2 * shared >= shorter)
}

/// The text of the nearest line above `at` indented less (its enclosing block's opener).
fn container(lines: &[&str], at: usize) -> String {
    let depth = indent(lines[at]);
    lines[..at]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty() && indent(l) < depth)
        .map(|l| l.trim().to_string())
        .unwrap_or_default()
}

/// A line that opens a definition (`def`, `class`, `fn`, `function`, `func`, `struct`, ...).
fn is_definition(line: &str) -> bool {
    const MODIFIERS: [&str; 12] = [
        "pub",
        "pub(crate)",
        "export",
        "default",
        "async",
        "static",
        "private",
        "public",
        "protected",
        "abstract",
        "unsafe",
        "const",
    ];
    const KEYWORDS: [&str; 12] = [
        "def",
        "class",
        "fn",
        "function",
        "function*",
        "func",
        "struct",
        "enum",
        "impl",
        "trait",
        "interface",
        "mod",
    ];
    line.split_whitespace()
        .find(|w| !MODIFIERS.contains(w))
        .is_some_and(|w| KEYWORDS.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    fn apply(old: &str, sketch: &str) -> Result<String, String> {
        resolve(&lines(old), &lines(sketch), true)
            .map(|r| r.lines.join("\n") + "\n")
            .map_err(|e| e.0)
    }

    const CLASS: &str = "import os\n\nclass A:\n    def f(self):\n        x = 1\n        return x\n\n    def g(self):\n        return 2\n\n\ndef main():\n    A().f()\n";

    #[test]
    fn a_marker_keeps_the_lines_between_its_aligned_neighbours() {
        let sketch = "# ... existing code ...\n    def g(self):\n        return 3\n\n\n# ... rest of file ...\n";
        // The column-0 marker may stand for `return 2` too: replace it, or keep it beside
        // `return 3`? Refused rather than guessed.
        let e = apply(CLASS, sketch).unwrap_err();
        assert!(e.contains("looks like a changed version"), "{e}");
        // With a class-level marker after g's body, nothing pins where `return 2` goes
        // (dropped before or after the empty marker): refused too, overcautiously.
        let indented = "import os\n\nclass A:\n    # ... existing code ...\n    def g(self):\n        return 3\n    # ... rest of the class ...\n\n\ndef main():\n    A().f()\n";
        let e = apply(CLASS, indented).unwrap_err();
        assert!(e.contains("could start before old line 9"), "{e}");
    }

    #[test]
    fn a_new_method_goes_at_the_end_of_the_block_its_marker_covers() {
        let sketch = "import os\n\nclass A:\n    # ... existing methods ...\n\n    def h(self):\n        return 4\n# ... rest of file ...\n";
        let want = CLASS.replace(
            "        return 2\n",
            "        return 2\n\n    def h(self):\n        return 4\n",
        );
        assert_eq!(apply(CLASS, sketch).unwrap(), want);
    }

    #[test]
    fn a_body_marker_cannot_swallow_the_next_definition() {
        // `# ...` indented 8 stands only for f's body, so g must be kept by something else:
        // here nothing keeps it, and dropping it silently is refused.
        let sketch = "import os\n\nclass A:\n    def f(self):\n        # ... existing code ...\n\n\ndef main():\n    A().f()\n";
        let e = apply(CLASS, sketch).unwrap_err();
        assert!(e.contains("old line 8"), "{e}");
    }

    #[test]
    fn identical_places_are_ambiguous() {
        let old = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
        let sketch = "# ...\n    def f(self):\n        return 2\n# ...\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(e.contains("could start") || e.contains("could end"), "{e}");
        // Pinned by the class line, it applies.
        let pinned = "# ...\nclass B:\n    def f(self):\n        return 2\n";
        assert_eq!(
            apply(old, pinned).unwrap(),
            "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n"
        );
    }

    #[test]
    fn a_changed_line_next_to_a_marker_is_refused() {
        let old = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
        let sketch = "def f():\n    # ... existing code ...\n    return a + b + 1\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(e.contains("looks like a changed version"), "{e}");
    }

    #[test]
    fn new_lines_between_two_markers_at_one_depth_are_refused() {
        let old = "def f():\n    a = 1\n    b = 2\n    c = 3\n";
        let sketch = "def f():\n    # ...\n    print('hi')\n    # ...\n";
        assert!(apply(old, sketch).is_err());
    }

    #[test]
    fn a_moved_definition_under_a_marker_is_refused() {
        let old = "def a():\n    return 1\n\ndef b():\n    return 2\n";
        let sketch = "def b():\n    return 2\n\n# ... existing code ...\n";
        assert!(apply(old, sketch).is_err());
    }

    #[test]
    fn closing_braces_stay_with_their_blocks() {
        let old = "impl A {\n    fn a(&self) -> u8 {\n        1\n    }\n}\n\nfn main() {}\n";
        let sketch = "impl A {\n    // ... existing code ...\n\n    fn b(&self) -> u8 {\n        2\n    }\n}\n// ... rest of file ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            "impl A {\n    fn a(&self) -> u8 {\n        1\n    }\n\n    fn b(&self) -> u8 {\n        2\n    }\n}\n\nfn main() {}\n"
        );
    }

    #[test]
    fn a_sketch_matching_nothing_is_refused_and_a_stub_is_not_a_marker() {
        let e = apply("a = 1\n", "# ...\nb = 2\n").unwrap_err();
        assert!(
            e.starts_with("no line of the new text other than its markers occurs"),
            "{e}"
        );
        let e = apply("    a = 1\n    b = 2\n", "a = 1\n# ...\n").unwrap_err();
        assert!(e.contains("only with other indentation"), "{e}");
        assert!(!is_sketch(
            &lines("def f():\n    return 1\n"),
            &lines("def f():\n    ...\n")
        ));
        assert!(is_sketch(
            &lines("def f():\n    a()\n    return 1\n"),
            &lines("def f():\n    ...\n    return 2\n")
        ));
    }

    #[test]
    fn deleting_between_two_aligned_lines_without_a_marker_replaces() {
        let old = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";
        let sketch = "def a():\n    return 1\n\ndef c():\n    return 3\n# ... rest ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            "def a():\n    return 1\n\ndef c():\n    return 3\n"
        );
    }

    fn apply_fragment(old: &str, sketch: &str) -> Result<String, String> {
        let (old, sketch) = (lines(old), lines(sketch));
        let region = fragment_region(&old, &sketch)
            .map_err(|e| e.0)?
            .ok_or("no region")?;
        let inner = resolve_region(&old, region, &sketch).map_err(|e| e.0)?;
        let out = [
            &old[..region.first],
            &inner.lines[..],
            &old[region.last + 1..],
        ]
        .concat();
        Ok(out.join("\n") + "\n")
    }

    #[test]
    fn a_column0_marker_after_a_deeper_one_keeps_only_module_lines() {
        let old = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\ndef h():\n    return 3\n";
        let sketch = "class A:\n    def f(self):\n        return 10\n\n    # ... existing code ...\n\n\n# ... existing code ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("return 1\n", "return 10\n")
        );
    }

    #[test]
    fn a_changed_copy_pinned_by_the_next_line_replaces_the_old_line() {
        let old = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
        let sketch = "function a() {\n  return 11;\n}\n\n// ... existing code ...\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("return 1;", "return 11;")
        );
        // Pinned only by the line before it, it stays a question.
        let old = "class S:\n    retries = 3\n    timeout = 1\n\n    def f(self):\n        pass\n";
        let e = apply(
            old,
            "class S:\n    retries = 5\n    # ... existing code ...\n",
        )
        .unwrap_err();
        assert!(
            e.contains("looks like a changed version of old line 2"),
            "{e}"
        );
    }

    #[test]
    fn a_fragment_stands_for_the_block_its_first_line_opens() {
        let old = "import os\n\n\nclass Session:\n    retries = 3\n\n    def close(self):\n        pass\n\n\ndef main():\n    pass\n";
        let sketch = "class Session:\n    # ... existing code ...\n\n    def close(self):\n        self.closed = True\n";
        assert_eq!(
            apply_fragment(old, sketch).unwrap(),
            old.replace(
                "        pass\n\n\ndef",
                "        self.closed = True\n\n\ndef"
            )
        );
        // Without markers, the block's tail may not be dropped where it holds definitions.
        let e = apply_fragment(old, "class Session:\n    retries = 5\n").unwrap_err();
        assert!(e.contains("after the new text's last line"), "{e}");
    }

    #[test]
    fn a_fragment_refusal_numbers_old_lines_as_the_file_does() {
        let old = "import os\n\n\ndef f():\n    a = 1\n    b = 2\n    return a\n";
        let sketch = "def f():\n    a = 10\n    # ... existing code ...\n    return a\n";
        let e = apply_fragment(old, sketch).unwrap_err();
        assert!(e.contains("old line 5"), "{e}");
    }

    #[test]
    fn a_line_pulled_up_above_a_marker_over_dropped_lines_is_refused() {
        let old = "fn router() {\n    new()\n        .route(\"/health\")\n        .route(\"/items\")\n        .route(\"/items/:id\")\n        .done()\n}\n";
        let sketch = "fn router() {\n    new()\n        .route(\"/items\")\n        // ... existing code ...\n        .done()\n}\n";
        let e = apply(old, sketch).unwrap_err();
        assert!(e.contains("moved up"), "{e}");
    }

    #[test]
    fn a_closing_bracket_the_sketch_writes_is_not_kept_again_by_the_marker() {
        let old = "impl A {\n    fn new() -> Self {\n        Self\n    }\n\n    fn get(&self) -> u8 {\n        0\n    }\n}\n";
        let sketch = "impl A {\n    fn new() -> Self {\n        check();\n        Self\n    }\n\n    // ... existing code ...\n}\n";
        assert_eq!(
            apply(old, sketch).unwrap(),
            old.replace("        Self\n", "        check();\n        Self\n")
        );
    }
}
