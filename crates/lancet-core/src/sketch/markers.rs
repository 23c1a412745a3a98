//! Reading a sketch into the alignment's items: which lines are markers (a bare `...` stub
//! body is not one), which are concrete, and which blank lines beside a marker are soft.

use super::lines::indent;
use crate::locate::normalize::is_placeholder_line;

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

pub(super) fn items(old: &[String], sketch: &[String]) -> Vec<Item> {
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

/// The line of the new text an item stands on.
pub(super) fn item_line(item: &Item) -> usize {
    match item {
        Item::Marker { line, .. } | Item::Line { line, .. } => *line,
    }
}
