//! Reading a sketch into the alignment's items: which lines are markers (a bare `...` stub
//! body is not one), which are concrete, and which blank lines beside a marker are soft.

use super::lines::indent;
use crate::locate::elision::is_placeholder_line;
use crate::work;
use std::collections::HashSet;

/// A sketch line: concrete text, or a marker (consecutive markers are one).
#[derive(Debug, Clone)]
pub(super) enum Item {
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

/// Reads `sketch` against `old` in linear time: a sketch of a megabyte of lines (or of blank
/// lines) costs milliseconds. Without a line that looks like a marker, every line is concrete
/// and `old` is not looked at.
pub(super) fn items(old: &[String], sketch: &[String]) -> Vec<Item> {
    let concrete = |(n, text): (usize, &String)| Item::Line {
        text: text.clone(),
        line: n + 1,
        soft: false,
    };
    work::tick(sketch.len());
    if !sketch.iter().any(|l| looks_like_marker(l)) {
        return sketch.iter().enumerate().map(concrete).collect();
    }
    work::tick(old.len());
    let old_lines: HashSet<&str> = old.iter().map(|o| o.trim()).collect();
    let stubs = stub_ellipses(sketch);
    let mut out: Vec<Item> = Vec::with_capacity(sketch.len());
    // The last item that is not a blank line, by index in `out`.
    let mut last_solid: Option<usize> = None;
    for (n, text) in sketch.iter().enumerate() {
        work::tick(1);
        let t = text.trim();
        let marker = !old_lines.contains(t)
            && (is_placeholder_line(text) || (is_bare_ellipsis(t) && !stubs[n]));
        if marker {
            if matches!(out.last(), Some(Item::Marker { .. })) {
                continue;
            }
            let after_deeper = last_solid.is_some_and(
                |i| matches!(out[i], Item::Marker { indent: k, .. } if k > indent(text)),
            );
            out.push(Item::Marker {
                indent: indent(text),
                line: n + 1,
                strict: after_deeper,
            });
        } else {
            out.push(concrete((n, text)));
        }
        if !t.is_empty() || marker {
            last_solid = Some(out.len() - 1);
        }
    }
    mark_soft_blanks(&mut out);
    out
}

/// Whether a line could be a marker, read from its own text (a cheap test that lets a sketch
/// without one skip the rest).
fn looks_like_marker(line: &str) -> bool {
    is_bare_ellipsis(line.trim()) || is_placeholder_line(line)
}

/// Makes every run of blank lines touching a marker soft, in one pass over the runs.
fn mark_soft_blanks(out: &mut [Item]) {
    let blank = |item: &Item| matches!(item, Item::Line { text, .. } if text.trim().is_empty());
    let is_marker = |item: Option<&Item>| matches!(item, Some(Item::Marker { .. }));
    let mut a = 0;
    while a < out.len() {
        work::tick(1);
        if !blank(&out[a]) {
            a += 1;
            continue;
        }
        let b = (a..out.len())
            .find(|&i| !blank(&out[i]))
            .unwrap_or(out.len());
        work::tick(b - a);
        let soft = (a > 0 && is_marker(out.get(a - 1))) || is_marker(out.get(b));
        for item in &mut out[a..b] {
            if let Item::Line { soft: s, .. } = item {
                *s = soft;
            }
        }
        a = b;
    }
}

fn is_bare_ellipsis(t: &str) -> bool {
    t == "..." || t == "\u{2026}"
}

/// Per sketch line: whether it is a bare `...` that is a stub body (`def f():` / `    ...` /
/// dedent), not a marker. The nearest non-blank lines around each line are found in two passes.
fn stub_ellipses(sketch: &[String]) -> Vec<bool> {
    work::tick(2 * sketch.len());
    let solid = |l: &String| !l.trim().is_empty();
    let mut next: Vec<Option<usize>> = vec![None; sketch.len()];
    let mut following = None;
    for n in (0..sketch.len()).rev() {
        next[n] = following;
        if solid(&sketch[n]) {
            following = Some(n);
        }
    }
    let mut previous: Option<usize> = None;
    let mut stubs = vec![false; sketch.len()];
    for (n, line) in sketch.iter().enumerate() {
        if is_bare_ellipsis(line.trim()) {
            let opens = previous.is_some_and(|p| {
                let p = sketch[p].trim_end();
                p.ends_with(':') || p.ends_with('{')
            });
            let closes = next[n].is_none_or(|l| indent(&sketch[l]) < indent(line));
            stubs[n] = opens && closes;
        }
        if solid(line) {
            previous = Some(n);
        }
    }
    stubs
}

/// The line of the new text an item stands on.
pub(super) fn item_line(item: &Item) -> usize {
    match item {
        Item::Marker { line, .. } | Item::Line { line, .. } => *line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn reading_a_sketch_is_linear_in_its_lines_and_the_old_lines() {
        let old = lines(&"def f():\n    return 1\n\n".repeat(20_000));
        // A new text of blank lines (a model's runaway newlines), then the same with a marker
        // and stub bodies among them: each line is read a bounded number of times.
        let blank = vec![String::new(); 100_000];
        let mut marked = blank.clone();
        marked[50_000] = "# ... existing code ...".to_string();
        for n in (10..40_000).step_by(1_000) {
            marked[n] = "def g():".to_string();
            marked[n + 1] = "    ...".to_string();
        }
        for sketch in [&blank, &marked] {
            let (read, steps) = work::counted(|| items(&old, sketch));
            assert_eq!(read.len(), sketch.len());
            assert!(
                steps <= 8 * (old.len() + sketch.len()),
                "{steps} steps for {} + {} lines",
                old.len(),
                sketch.len()
            );
        }
        let (read, _) = work::counted(|| items(&old, &marked));
        let soft = |i: &Item| matches!(i, Item::Line { soft: true, .. });
        assert!(soft(&read[49_999]) && soft(&read[50_001]) && !soft(&read[5]));
        assert!(matches!(read[50_000], Item::Marker { line: 50_001, .. }));
        // The stub bodies are code, not markers.
        assert!(matches!(&read[11], Item::Line { text, .. } if text == "    ..."));
    }
}
