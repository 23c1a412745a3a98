//! A run of substring edits to one file (a MultiEdit's thousands of `old_string`/`new_string`
//! pairs), staged in one pass over the file instead of one pass per edit.
//!
//! Edits to one file apply in order, each against the result of the ones before (DESIGN §3).
//! When every edit's old text stands exactly once in the file as it was, and no two stand closer
//! than the longest of them (so no edit can write a second copy of a later edit's old text
//! without it showing in its own neighbourhood, which is searched), every edit meets its old text
//! exactly once, where it stood. Each edit is then located, spliced and reported by the same code
//! as a lone edit, on a window of the file around it as the edit meets it (the earlier edits in
//! the window applied, the later ones not), its line numbers shifted by the lines before the
//! window; the file is spliced once. The same bytes and reports as edit by edit, in
//! O(file + edits × window). Any other run (an edit whose old text only an earlier edit writes,
//! edits overlapping or closer than that, an old text missing or standing twice, a window whose
//! report would reach past it, a file in CRLF, with a BOM or in a legacy encoding) is staged
//! edit by edit, as before.

use super::OpResult;
use super::hunks::edit_bytes;
use super::present::unified_diff;
use super::workspace::Workspace;
use crate::batch::{Anchor, FileOp, Format, Hunk, HunkText, Occurrences, OpKind, Pick};
use crate::failure::Doing;
use crate::locate::elision::introduced_placeholder;
use crate::path::RelPath;
use crate::report::{Action, FileReport, Outcome};
use crate::text::{line_of, line_starts, replace_ranges};
use crate::work;
use aho_corasick::{AhoCorasick, MatchKind};

/// Shortest run worth a pass of its own: below it, one pass per edit costs little.
pub(super) const MIN_RUN: usize = 32;

/// Lines of the file kept around each edit's lines in its window: more than a report shows
/// around a change (3 lines of diff context, a snippet of 12 lines).
const WINDOW_MARGIN: usize = 16;

/// The substring edit an operation is, when it can join a run: a JSON edit of one exact
/// `old_string` that must stand once, with nothing else to place it by.
pub(super) fn run_edit(op: &FileOp, format: Format) -> Option<(&Hunk, &HunkText)> {
    let OpKind::Update {
        hunks,
        move_to: None,
    } = &op.kind
    else {
        return None;
    };
    let [hunk] = hunks.as_slice() else {
        return None;
    };
    let text = hunk.text.as_ref()?;
    let plain = format == Format::Json
        && !text.old.is_empty()
        && hunk.occurrences == Occurrences::One
        && hunk.context.is_empty()
        && hunk.line_hint.is_none()
        && hunk.new_line_hint.is_none()
        && hunk.anchor == Anchor::Anywhere
        && hunk.pick == Pick::Unique;
    plain.then_some((hunk, text))
}

/// One edit of a run, placed in the file as it was.
struct Edit<'r> {
    /// The operation's index in the batch.
    op: usize,
    hunk: &'r Hunk,
    text: &'r HunkText,
    /// Its old text's bytes.
    at: (usize, usize),
    /// The lines they span (0-based, inclusive).
    lines: (usize, usize),
}

impl Edit<'_> {
    /// How many lines the edit adds (negative: removes).
    fn lines_added(&self) -> isize {
        let count = |s: &str| s.matches('\n').count() as isize;
        count(&self.text.new) - count(&self.text.old)
    }
}

impl Workspace<'_> {
    /// Runs a group's operations in order, each long run of substring edits to one file in one
    /// pass when it can be.
    pub(super) fn run_group(&mut self, ops: &[FileOp], group: &[usize]) -> Vec<OpResult> {
        let mut out = Vec::with_capacity(group.len());
        let mut k = 0;
        while k < group.len() {
            let path = &ops[group[k]].path;
            let run = group[k..]
                .iter()
                .take_while(|&&i| ops[i].path == *path && run_edit(&ops[i], self.format).is_some())
                .count();
            if run >= MIN_RUN
                && let Some(results) = self.stage_run(ops, &group[k..k + run])
            {
                out.extend(results);
                k += run;
                continue;
            }
            for &i in &group[k..k + run.max(1)] {
                self.op = i;
                out.push((i, self.run(&ops[i])));
            }
            k += run.max(1);
        }
        out
    }

    /// Stages the run `run` (indexes into `ops`, all substring edits of one path, in order) in
    /// one pass, or `None` when the run must go edit by edit (nothing is changed then).
    fn stage_run(&mut self, ops: &[FileOp], run: &[usize]) -> Option<Vec<OpResult>> {
        self.op = run[0];
        let rel = self.root.rel(&ops[run[0]].path).ok()?;
        let (key, entry) = self.rewritable(&rel, Doing::Update).ok()?;
        let before = entry.current.clone()?;
        let text = std::str::from_utf8(&before).ok()?;
        // LF text without a BOM: every edit splices its new text as it is, whatever the ones
        // before it did.
        if text.contains('\r') || text.starts_with('\u{feff}') {
            return None;
        }
        let edits = place(text, ops, run, self.format)?;
        no_copies_made(text, &edits)?;
        let layout = Layout::new(text, &edits);
        let mut above = LinesAbove::new(edits.len());
        let mut results = Vec::with_capacity(edits.len());
        for (k, edit) in edits.iter().enumerate() {
            let (first, end) = layout.window(k);
            let window = layout.as_met(k, first, end);
            let shift = first as isize + above.before(layout.rank_before(first));
            let shift = usize::try_from(shift).ok()?;
            let report = self.report_one(&ops[edit.op], &rel, &window, edit, shift)?;
            results.push((edit.op, Ok(report)));
            above.add(layout.rank[k], edit.lines_added());
        }
        let mut splices: Vec<(usize, usize, &str)> = edits
            .iter()
            .map(|e| (e.at.0, e.at.1, e.text.new.as_str()))
            .collect();
        splices.sort_unstable_by_key(|s| s.0);
        let after = replace_ranges(text.as_bytes(), splices);
        self.op = *run.last().expect("a run is not empty");
        self.entry(&key).ok()?.current = Some(after);
        Some(results)
    }

    /// One edit's report, staged on its window by the code that stages a lone edit, its line
    /// numbers shifted by the `shift` lines before the window. `None` when the window's result
    /// is not the edit's splice alone, or what the report shows around the change (the lines
    /// the diff and the snippet hold, the text a re-sent edit is looked for in) reaches past
    /// the window.
    fn report_one(
        &self,
        op: &FileOp,
        rel: &RelPath,
        window: &Window,
        edit: &Edit,
        shift: usize,
    ) -> Option<FileReport> {
        let mut report = FileReport::new(rel.to_string(), Action::Update, op.line);
        let hunks = std::slice::from_ref(edit.hunk);
        let context = self.context(self.partial);
        let before = window.text.as_str();
        let after = edit_bytes(rel, before.as_bytes(), hunks, context, &mut report).ok()??;
        let (b, e) = window.at;
        let new = edit.text.new.as_str();
        let spliced = [&before[..b], new, &before[e..]].concat();
        let [h] = report.hunks.as_mut_slice() else {
            return None;
        };
        if after != spliced.as_bytes()
            || report.status != Outcome::Applied
            || h.status != Outcome::Applied
            || !h.noted.is_empty()
            || !h.matches.is_empty()
        {
            return None;
        }
        // A re-sent edit's added text is looked for right around the old text.
        let reach = new.len();
        let resent_inside =
            (window.at_start || b >= reach) && (window.at_end || before.len() - e >= reach);
        // The snippet: 3 lines above the change, up to 12 lines from there.
        let first = before[..b].matches('\n').count();
        let span = new.matches('\n').count().max(1);
        let from = first.saturating_sub(3);
        let to = (first + span + 3).min(from + 12);
        let lines_after = spliced.matches('\n').count() + usize::from(!spliced.ends_with('\n'));
        let snippet_inside =
            (window.at_start || first >= 3) && (window.at_end || to <= lines_after);
        if !resent_inside
            || !snippet_inside
            || !diff_is_local(before, &spliced, window.at_start, window.at_end)
        {
            return None;
        }
        let shift_line = |l: &mut usize| *l += shift;
        h.start_line.as_mut().map(shift_line);
        h.end_line.as_mut().map(shift_line);
        h.snippet.iter_mut().for_each(|l| l.line += shift);
        report.diff = Some(shift_hunk_headers(
            &unified_diff(rel.as_str(), Some(before), Some(&spliced)),
            shift,
        ));
        Some(report)
    }
}

/// Each edit of the run with the one place its old text stands in `text` (overlapping
/// occurrences counted), found in one pass of an Aho-Corasick automaton for all of them; `None`
/// when one is missing or stands twice, or an edit is one the sequential pass reads otherwise
/// (a lazy sketch, a placeholder, a carriage return).
fn place<'r>(
    text: &str,
    ops: &'r [FileOp],
    run: &[usize],
    format: Format,
) -> Option<Vec<Edit<'r>>> {
    let edits: Vec<(usize, &Hunk, &HunkText)> = run
        .iter()
        .map(|&i| run_edit(&ops[i], format).map(|(h, t)| (i, h, t)))
        .collect::<Option<_>>()?;
    let plain = |(_, h, t): &(usize, &Hunk, &HunkText)| {
        !t.old.contains('\r')
            && !t.new.contains('\r')
            && !crate::sketch::is_sketch(&h.old, &h.new)
            && introduced_placeholder(&h.old, &h.new).is_none()
    };
    if !edits.iter().all(plain) {
        return None;
    }
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(edits.iter().map(|(_, _, t)| t.old.as_str()))
        .ok()?;
    work::tick(text.len());
    let mut found: Vec<Option<(usize, usize)>> = vec![None; edits.len()];
    for m in ac.find_overlapping_iter(text) {
        work::tick(1);
        let slot = &mut found[m.pattern().as_usize()];
        if slot.is_some() {
            return None;
        }
        *slot = Some((m.start(), m.end()));
    }
    let starts = line_starts(text);
    let line = |byte: usize| line_of(&starts, byte) - 1;
    edits
        .into_iter()
        .zip(found)
        .map(|((op, hunk, text), at)| {
            let (b, e) = at?;
            Some(Edit {
                op,
                hunk,
                text,
                at: (b, e),
                lines: (line(b), line(e - 1)),
            })
        })
        .collect()
}

/// Whether every edit meets its old text only where it stood: no two old texts overlap or stand
/// closer than the longest old text, and no edit writes a copy of a later edit's old text. Such
/// a copy would overlap what the edit wrote, so only each edit's new text, with the longest old
/// text's length of the file on either side (the file as it was there), is searched.
fn no_copies_made(text: &str, edits: &[Edit]) -> Option<()> {
    let longest = edits.iter().map(|e| e.text.old.len()).max().unwrap_or(0);
    let mut order: Vec<&Edit> = edits.iter().collect();
    order.sort_unstable_by_key(|e| e.at.0);
    if !order.windows(2).all(|w| w[1].at.0 >= w[0].at.1 + longest) {
        return None;
    }
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(edits.iter().map(|e| e.text.old.as_str()))
        .ok()?;
    // Matches beyond a few per searched byte: give up rather than list them all.
    let mut budget = 0usize;
    for (j, edit) in edits.iter().enumerate() {
        let from = floor_char_boundary(text, edit.at.0.saturating_sub(longest));
        let to = ceil_char_boundary(text, (edit.at.1 + longest).min(text.len()));
        let (left, right) = (&text[from..edit.at.0], &text[edit.at.1..to]);
        let around = [left, edit.text.new.as_str(), right].concat();
        let (s, e) = (left.len(), left.len() + edit.text.new.len());
        budget += 4 * around.len();
        work::tick(around.len());
        for m in ac.find_overlapping_iter(&around) {
            budget = budget.checked_sub(1)?;
            let overlaps = if s == e {
                m.start() < s && s < m.end()
            } else {
                m.start() < e && s < m.end()
            };
            if overlaps && m.pattern().as_usize() > j {
                return None;
            }
        }
    }
    Some(())
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The file as it was with the run's edits placed in it: their order in the file, the lines.
struct Layout<'t, 'r> {
    text: &'t str,
    edits: &'t [Edit<'r>],
    starts: Vec<usize>,
    line_count: usize,
    /// Edit indexes in file order, and each edit's rank in it.
    order: Vec<usize>,
    rank: Vec<usize>,
}

/// An edit's window as the edit meets it: the text, where the old text stands in it, and
/// whether it begins or ends the file.
struct Window {
    text: String,
    at: (usize, usize),
    at_start: bool,
    at_end: bool,
}

impl<'t, 'r> Layout<'t, 'r> {
    fn new(text: &'t str, edits: &'t [Edit<'r>]) -> Self {
        let starts = line_starts(text);
        work::tick(text.len());
        let line_count = starts.len() - usize::from(text.is_empty() || text.ends_with('\n'));
        let mut order: Vec<usize> = (0..edits.len()).collect();
        order.sort_unstable_by_key(|&k| edits[k].at.0);
        let mut rank = vec![0; edits.len()];
        for (r, &k) in order.iter().enumerate() {
            rank[k] = r;
        }
        Layout {
            text,
            edits,
            starts,
            line_count,
            order,
            rank,
        }
    }

    fn line(&self, byte: usize) -> usize {
        line_of(&self.starts, byte) - 1
    }

    fn byte(&self, line: usize) -> usize {
        self.starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
            .min(self.text.len())
    }

    /// How many edits (in file order) start on a line before `line`.
    fn rank_before(&self, line: usize) -> usize {
        self.order
            .partition_point(|&k| self.edits[k].lines.0 < line)
    }

    /// Edit `k`'s window, lines `first..end` of the file as it was: its lines, the bytes around
    /// its old text a re-sent edit could be looked for in, and [`WINDOW_MARGIN`] lines on either
    /// side; widened so that every other edit's lines are all in it or all out of it.
    fn window(&self, k: usize) -> (usize, usize) {
        let edit = &self.edits[k];
        let reach = edit.text.new.len();
        let mut first = self
            .line(edit.at.0.saturating_sub(reach))
            .saturating_sub(WINDOW_MARGIN);
        let last = self.line((edit.at.1 + reach).min(self.text.len()).max(1) - 1);
        let mut end = (last.max(edit.lines.1) + 1 + WINDOW_MARGIN).min(self.line_count);
        loop {
            let before = self.crossing(first);
            let after = self.crossing(end);
            match (before, after) {
                (None, None) => return (first, end),
                (b, a) => {
                    if let Some(b) = b {
                        first = self.edits[b].lines.0;
                    }
                    if let Some(a) = a {
                        end = self.edits[a].lines.1 + 1;
                    }
                }
            }
        }
    }

    /// The edit whose lines a window edge at `line` would cut (it starts above the line and
    /// ends on or below it), if any.
    fn crossing(&self, line: usize) -> Option<usize> {
        let r = self.rank_before(line);
        let k = *self.order.get(r.checked_sub(1)?)?;
        (self.edits[k].lines.1 >= line).then_some(k)
    }

    /// Lines `first..end` as edit `k` meets them: the edits before it in the run applied, the
    /// ones after it not.
    fn as_met(&self, k: usize, first: usize, end: usize) -> Window {
        let (from, to) = (self.byte(first), self.byte(end));
        let inside = &self.order[self.rank_before(first)..self.rank_before(end)];
        let mut text = String::with_capacity(to - from + 64);
        let mut at = (0, 0);
        let mut cursor = from;
        for &j in inside {
            let edit = &self.edits[j];
            text.push_str(&self.text[cursor..edit.at.0]);
            if j == k {
                at = (text.len(), text.len() + edit.at.1 - edit.at.0);
            }
            let piece = if j < k {
                edit.text.new.as_str()
            } else {
                &self.text[edit.at.0..edit.at.1]
            };
            text.push_str(piece);
            cursor = edit.at.1;
        }
        text.push_str(&self.text[cursor..to]);
        work::tick(text.len());
        Window {
            text,
            at,
            at_start: from == 0,
            at_end: to == self.text.len(),
        }
    }
}

/// The lines the edits applied so far added above a place: a Fenwick tree over the edits'
/// ranks in file order.
struct LinesAbove(Vec<isize>);

impl LinesAbove {
    fn new(edits: usize) -> Self {
        LinesAbove(vec![0; edits + 1])
    }

    /// The lines added by the edits ranked below `rank`.
    fn before(&self, rank: usize) -> isize {
        let mut sum = 0;
        let mut k = rank;
        while k > 0 {
            sum += self.0[k];
            k &= k - 1;
        }
        sum
    }

    fn add(&mut self, rank: usize, lines: isize) {
        let mut k = rank + 1;
        while k < self.0.len() {
            self.0[k] += lines;
            k += k & k.wrapping_neg();
        }
    }
}

/// Whether the diff of the window is the whole file's diff, moved: the first change lies
/// inside the window with the diff's 3 lines of context above it there (or the window starts
/// the file), and 3 below the last (or the window ends it). Outside the window the two texts
/// are the same lines, so the diff trims them and sees the same middle.
fn diff_is_local(before: &str, after: &str, at_start: bool, at_end: bool) -> bool {
    use similar::DiffOp;
    let diff = similar::TextDiff::from_lines(before, after);
    let ops = diff.ops();
    let Some(last) = ops.last() else {
        return false;
    };
    let (old_len, new_len) = (last.old_range().end, last.new_range().end);
    let prefix = match ops.first() {
        Some(DiffOp::Equal { len, .. }) => *len,
        _ => 0,
    };
    let suffix = match last {
        DiffOp::Equal { len, .. } if ops.len() > 1 => *len,
        _ => 0,
    };
    prefix < old_len.min(new_len) && (at_start || prefix >= 3) && (at_end || suffix >= 3)
}

/// A unified diff's hunk headers (`@@ -a,b +c,d @@`) moved down `shift` lines.
fn shift_hunk_headers(diff: &str, shift: usize) -> String {
    let mut out = String::with_capacity(diff.len() + 16);
    for line in diff.split_inclusive('\n') {
        match line
            .strip_prefix("@@ -")
            .and_then(|rest| rest.split_once(" @@"))
        {
            Some((ranges, tail)) => {
                let moved: Vec<String> = ranges
                    .split(" +")
                    .map(|range| match range.split_once(',') {
                        Some((start, len)) => format!("{},{len}", shift_start(start, shift)),
                        None => shift_start(range, shift),
                    })
                    .collect();
                out.push_str(&format!("@@ -{} +{} @@{tail}", moved[0], moved[1]));
            }
            None => out.push_str(line),
        }
    }
    out
}

fn shift_start(start: &str, shift: usize) -> String {
    start
        .parse::<usize>()
        .map_or_else(|_| start.to_string(), |n| (n + shift).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{FormatChoice, ParseOptions, parse};
    use crate::path::{RelPath, Root};
    use proptest::prelude::*;
    use std::collections::HashMap;
    use std::sync::Arc;

    /// What staging a batch gave: every report as JSON, the file's bytes, the steps counted.
    type Outcome = (serde_json::Value, Option<Vec<u8>>, usize);

    /// Stages a MultiEdit of `edits` on `f.py` holding `file`, by runs (`by_runs`) or one
    /// operation at a time, as `stage` does for one group.
    fn staged(file: &str, edits: &[(String, String)], by_runs: bool) -> Outcome {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.py"), file).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let json = serde_json::json!({
            "file_path": "f.py",
            "edits": edits
                .iter()
                .map(|(o, n)| serde_json::json!({"old_string": o, "new_string": n}))
                .collect::<Vec<_>>(),
        });
        let batch = parse(
            &json.to_string(),
            FormatChoice::Auto,
            &ParseOptions::default(),
        )
        .unwrap();
        let rebases: HashMap<RelPath, Arc<Vec<u8>>> = HashMap::new();
        let unread = HashMap::new();
        let mut ws = Workspace {
            root: &root,
            rebases: &rebases,
            unread: &unread,
            entries: HashMap::new(),
            order: Vec::new(),
            op: 0,
            partial: false,
            format: batch.format,
        };
        let group: Vec<usize> = (0..batch.ops.len()).collect();
        let (results, steps) = work::counted(|| {
            if by_runs {
                ws.run_group(&batch.ops, &group)
            } else {
                group
                    .iter()
                    .map(|&i| {
                        ws.op = i;
                        (i, ws.run(&batch.ops[i]))
                    })
                    .collect()
            }
        });
        let reports: Vec<FileReport> = results.into_iter().map(|(_, r)| r.unwrap()).collect();
        let bytes = ws.entries.values().next().and_then(|e| e.current.clone());
        (serde_json::to_value(&reports).unwrap(), bytes, steps)
    }

    fn numbered(lines: usize) -> String {
        (0..lines)
            .map(|i| format!("value_{i:05} = compute({i}, \"\u{e9}t\u{e9} {}\")\n", i % 7))
            .collect()
    }

    #[test]
    fn a_multiedit_of_thousands_of_edits_is_staged_in_one_pass_with_the_same_result() {
        let file = numbered(10_000);
        // Every fifth line, in an order that is not the file's: some edits add lines above
        // others, some delete lines, the last one is the file's last line.
        let mut edits: Vec<(String, String)> = (0..2_000)
            .map(|k| {
                let i = (k * 5 + 4) % 10_000;
                let old = format!("value_{i:05} = compute({i},");
                let new = match k % 3 {
                    0 => format!("value_{i:05} = compute({},", i + 1),
                    1 => format!("# changed\nvalue_{i:05} = compute({i},"),
                    _ => format!("value_{i:05} = (\n    compute({i},"),
                };
                (old, new)
            })
            .collect();
        edits.swap(3, 1_700);
        let (runs, seq) = (staged(&file, &edits, true), staged(&file, &edits, false));
        assert_eq!(runs.0, seq.0);
        assert_eq!(runs.1, seq.1);
        // One edit at a time, each staging reads the whole file; by runs, a few passes over it
        // and a window of some 40 lines (under 2,000 bytes here) twice per edit.
        assert!(seq.2 >= 2_000 * file.len(), "{}", seq.2);
        let bound = 4 * file.len() + 2_000 * 2 * 2_000;
        assert!(runs.2 <= bound, "{} steps, bound {bound}", runs.2);
    }

    #[test]
    fn edits_that_depend_on_each_other_are_staged_one_after_the_other() {
        let file = numbered(400);
        let far = |k: usize| {
            let i = k * 10 + 5;
            (format!("value_{i:05} ="), format!("v_{i:05} ="))
        };
        let with = |k: usize, edit: (String, String)| {
            let mut edits: Vec<(String, String)> = (0..36).map(far).collect();
            edits[k] = edit;
            edits
        };
        let cases = [
            // The old text only stands after an earlier edit wrote it.
            with(20, ("v_00005 =".into(), "w_00005 =".into())),
            // An earlier edit writes a second copy of a later edit's old text: ambiguous.
            with(2, ("value_00025 =".into(), "value_00025 = value_00305 =".into())),
            // Two edits on neighbouring lines.
            with(7, ("value_00016 =".into(), "x_00016 =".into())),
            // An old text standing twice.
            with(9, ("= compute(".into(), "= c(".into())),
            // Duplicating the following line: the diff's change moves down.
            with(
                11,
                ("value_00115 = compute(115, \"\u{e9}t\u{e9} 3\")\n".into(), "value_00115 = compute(115, \"\u{e9}t\u{e9} 3\")\nvalue_00116 = compute(116, \"\u{e9}t\u{e9} 4\")\n".into()),
            ),
        ];
        for edits in cases {
            let (runs, seq) = (staged(&file, &edits, true), staged(&file, &edits, false));
            assert_eq!(runs.0, seq.0);
            assert_eq!(runs.1, seq.1);
        }
    }

    #[test]
    fn edits_on_neighbouring_lines_go_in_one_pass_too() {
        let file = numbered(2_000);
        // Every line from 100 on, changed at its start; a few add lines, a few remove them.
        let edits: Vec<(String, String)> = (100..1_900)
            .map(|i| {
                let old = format!("value_{i:05} = ");
                let new = match i % 10 {
                    0 => format!("# {i}\nv_{i:05} = "),
                    5 => String::new(),
                    _ => format!("v_{i:05} = "),
                };
                (old, new)
            })
            .collect();
        let (runs, seq) = (staged(&file, &edits, true), staged(&file, &edits, false));
        assert_eq!(runs.0, seq.0);
        assert_eq!(runs.1, seq.1);
        assert!(runs.2 * 20 < seq.2, "{} steps against {}", runs.2, seq.2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the edits, staging by runs gives what staging one at a time gives: in one
        /// pass when no edit depends on another (about half the cases), edit by edit when one
        /// copies text a later one looks for.
        #[test]
        fn runs_give_what_one_edit_at_a_time_gives(
            picks in proptest::sample::subsequence((0..300usize).collect::<Vec<_>>(), 32..64)
                .prop_flat_map(|lines| {
                    let n = lines.len();
                    (Just(lines).prop_shuffle(), proptest::collection::vec(0usize..6, n))
                }),
            copying in proptest::option::of(0usize..32),
        ) {
            let file = numbered(300);
            let (lines, hows) = picks;
            let line = |i: usize| file.lines().nth(i % 300).unwrap().to_string();
            let edits: Vec<(String, String)> = lines
                .iter()
                .zip(&hows)
                .enumerate()
                .map(|(k, (&i, &how))| {
                    let old = format!("value_{i:05} = ");
                    let new = match how {
                        // One edit copies the next line, or a line far away: a later edit may
                        // then find its old text twice.
                        _ if copying == Some(k) && how % 2 == 0 => format!("{}\n{old}", line(i + 1)),
                        _ if copying == Some(k) => format!("{}\n{old}", line(i + 150)),
                        0 => String::new(),
                        1 => format!("{old}\n\n"),
                        2 => format!("{old}0 + "),
                        3 => old.replace('=', ":="),
                        4 => format!("# {i}\n#\n{old}"),
                        _ => format!("v_{i:05} = "),
                    };
                    (old, new)
                })
                .collect();
            let (runs, seq) = (staged(&file, &edits, true), staged(&file, &edits, false));
            prop_assert_eq!(runs.0, seq.0);
            prop_assert_eq!(runs.1, seq.1);
        }
    }
}
