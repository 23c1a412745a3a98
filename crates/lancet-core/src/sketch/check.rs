//! The placement check: a resolved sketch is accepted only when its result, compared with the
//! old lines and the sketch by means of their own (a line diff, bracket counts), shows what the
//! sketch says. The alignment is meant to guarantee all of it; this check does not trust it.

use super::lines::{ends_inside_string, indent, inside_strings, is_comment};
use super::{Broken, Refusal};
use crate::line_map::{LineMap, Region};

/// Where a line of the result comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Source {
    /// Sketch line `item` (an index into the sketch's items); `soft`: a blank beside a marker.
    Sketch { item: usize, soft: bool },
    /// Old line `old`, kept by the marker at sketch item `marker`.
    Kept { marker: usize, old: usize },
}

/// What the check knows of a marker: its item index, new-text line and indentation.
#[derive(Debug, Clone, Copy)]
pub(super) struct MarkerInfo {
    pub item: usize,
    pub line: usize,
    pub indent: usize,
}

/// What is checked: the old lines, the sketch's concrete lines (item index, text), its markers,
/// and the result with each line's source.
pub(super) struct Placement<'a> {
    pub old: &'a [String],
    /// The 0-based file line of `old[0]`, for messages.
    pub base: usize,
    pub concrete: Vec<(usize, &'a str)>,
    pub markers: Vec<MarkerInfo>,
    pub result: Vec<(String, Source)>,
    /// Old lines beyond the sketch's ends may be dropped (a SEARCH block's ends).
    pub open_ends: bool,
}

impl Placement<'_> {
    /// Every property a reader of the sketch expects of its result, or the first one broken.
    pub fn check(&self) -> Result<(), Refusal> {
        self.sketch_lines_in_order()?;
        self.kept_once_in_order()?;
        self.markers_stay_in_their_blocks()?;
        self.strings_stay_closed()?;
        self.drops_are_visible()
    }

    fn line_no(&self, j: usize) -> usize {
        self.base + j + 1
    }

    /// The sketch's concrete lines all stand in the result, in the sketch's order.
    fn sketch_lines_in_order(&self) -> Result<(), Refusal> {
        let written: Vec<&str> = self
            .result
            .iter()
            .filter(|(text, s)| matches!(s, Source::Sketch { .. }) && !text.trim().is_empty())
            .map(|(text, _)| text.as_str())
            .collect();
        let wanted: Vec<&str> = self
            .concrete
            .iter()
            .map(|(_, t)| *t)
            .filter(|t| !t.trim().is_empty())
            .collect();
        if written != wanted {
            let at = written
                .iter()
                .zip(&wanted)
                .position(|(a, b)| a != b)
                .unwrap_or(written.len().min(wanted.len()));
            let line = wanted.get(at).copied().unwrap_or("");
            return Err(Refusal::Broken(Broken::Misplaced {
                text: line.trim().to_string(),
            }));
        }
        Ok(())
    }

    /// No old line is kept twice, and kept lines keep their order.
    fn kept_once_in_order(&self) -> Result<(), Refusal> {
        let mut last: Option<usize> = None;
        for (_, s) in &self.result {
            if let Source::Kept { old, .. } = *s {
                if last.is_some_and(|l| old <= l) {
                    return Err(Refusal::Broken(Broken::KeptTwice {
                        old: self.line_no(old),
                    }));
                }
                last = Some(old);
            }
        }
        Ok(())
    }

    /// A marker indented k columns keeps only lines indented at least k (comments aside: a
    /// commented-out line at column 0 belongs to the block around it); old text whose
    /// brackets balance still does after the sketch.
    fn markers_stay_in_their_blocks(&self) -> Result<(), Refusal> {
        let quoted = inside_strings(self.old);
        for m in &self.markers {
            let kept: Vec<usize> = self
                .result
                .iter()
                .filter_map(|(_, s)| match *s {
                    Source::Kept { marker, old } if marker == m.item => Some(old),
                    _ => None,
                })
                .collect();
            if m.indent == 0 {
                continue;
            }
            if let Some(&j) = kept.iter().find(|&&j| {
                !self.old[j].trim().is_empty()
                    && !is_comment(&self.old[j])
                    && !quoted[j]
                    && indent(&self.old[j]) < m.indent
            }) {
                return Err(Refusal::Broken(Broken::MarkerDeeper {
                    marker: m.line,
                    indent: m.indent,
                    old: (self.line_no(j), self.old[j].trim().to_string()),
                }));
            }
        }
        let net = |lines: &mut dyn Iterator<Item = &str>| lines.map(bracket_delta).sum::<i64>();
        let before = net(&mut self.old.iter().map(String::as_str));
        let after = net(&mut self.result.iter().map(|(t, _)| t.as_str()));
        // The old text's brackets balance and the result's do not: the placement broke a
        // block (a marker keeping a closing bracket the sketch also writes, or dropping one).
        if before == 0 && after != 0 {
            return Err(Refusal::Broken(Broken::Unbalanced { open: after }));
        }
        Ok(())
    }

    /// Old text that closes every multi-line string it opens (a docstring, a template literal,
    /// a raw string) still does after the sketch: a string's closing line (`"""`, `` `; ``)
    /// written by the sketch while a marker keeps the old one would leave a string open and
    /// swallow the code after it, a broken file even where no syntax gate runs.
    fn strings_stay_closed(&self) -> Result<(), Refusal> {
        let result: Vec<String> = self.result.iter().map(|(t, _)| t.clone()).collect();
        if ends_inside_string(self.old) || !ends_inside_string(&result) {
            return Ok(());
        }
        let kept_and_written = self.result.iter().find_map(|(text, source)| {
            let Source::Sketch { .. } = source else {
                return None;
            };
            let t = text.trim();
            if t.is_empty() || !t.contains(['"', '\'', '`']) {
                return None;
            }
            self.result.iter().find_map(|(kept, s)| match *s {
                Source::Kept { old, .. } if kept.trim() == t => Some((t, old)),
                _ => None,
            })
        });
        Err(Refusal::StringLeftOpen {
            written_and_kept: kept_and_written
                .map(|(line, old)| (line.to_string(), self.line_no(old))),
        })
    }

    /// Every old line the result drops is dropped visibly: in a line diff of the old lines and
    /// the result, a run dropped with nothing in its place stands between two sketch lines with
    /// no marker between them (or beyond the sketch's end, where the ends are open).
    fn drops_are_visible(&self) -> Result<(), Refusal> {
        let new: Vec<&str> = self.result.iter().map(|(t, _)| t.as_str()).collect();
        let old: Vec<&str> = self.old.iter().map(String::as_str).collect();
        for region in LineMap::of(&old, &new).regions() {
            let Region::Changed { old: run, new: gap } = region else {
                continue;
            };
            if !gap.is_empty() {
                continue;
            }
            let new_index = gap.start;
            let Some(j) = run.clone().find(|&j| !old[j].trim().is_empty()) else {
                continue;
            };
            let before = self.sketch_item_at(new_index.checked_sub(1), true);
            let after = self.sketch_item_at(Some(new_index), false);
            let visible = match (before, after) {
                (Some(Some(a)), Some(Some(b))) => {
                    !self.markers.iter().any(|m| a < m.item && m.item < b)
                }
                (None, _) | (_, None) => self.open_ends,
                _ => false,
            };
            if !visible {
                return Err(Refusal::Broken(Broken::DroppedUnseen {
                    old: (self.line_no(j), old[j].trim().to_string()),
                }));
            }
        }
        Ok(())
    }

    /// The sketch item of the nearest non-blank result line at or around `at` (looking back
    /// when `back`): `None` past the result's end, `Some(None)` for a kept line.
    fn sketch_item_at(&self, at: Option<usize>, back: bool) -> Option<Option<usize>> {
        let mut k = at?;
        loop {
            let (text, source) = self.result.get(k)?;
            if !text.trim().is_empty() {
                return Some(match *source {
                    Source::Sketch { item, .. } => Some(item),
                    Source::Kept { .. } => None,
                });
            }
            k = if back { k.checked_sub(1)? } else { k + 1 };
        }
    }
}

/// Opening minus closing brackets on a line, outside string literals and line comments.
pub(super) fn bracket_delta(line: &str) -> i64 {
    let mut delta = 0;
    let mut chars = line.char_indices().peekable();
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    while let Some((at, c)) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            prev = c;
            continue;
        }
        match c {
            '"' | '`' => quote = Some(c),
            // A quote after `&`, `<` or a letter is a Rust lifetime or an apostrophe; else a
            // string or character literal when it closes on the line.
            '\'' if !(prev == '&' || prev == '<' || prev.is_alphanumeric())
                && line[at + 1..].contains('\'') =>
            {
                quote = Some(c)
            }
            '/' if chars.peek().is_some_and(|&(_, n)| n == '/') => break,
            '#' if prev == ' ' || prev == '\t' => break,
            '{' | '(' | '[' => delta += 1,
            '}' | ')' | ']' => delta -= 1,
            _ => {}
        }
        prev = c;
    }
    delta
}

#[cfg(test)]
mod tests {
    use super::{Broken, MarkerInfo, Placement, Refusal, Source, bracket_delta};

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    /// A placement in which the marker (item 2) keeps old lines 1.. and the sketch wrote
    /// items 0, 1 and 3 around it; `result` names each line's source.
    fn placement<'a>(
        old: &'a [String],
        concrete: Vec<(usize, &'a str)>,
        result: &[(&str, Source)],
    ) -> Placement<'a> {
        Placement {
            old,
            base: 0,
            concrete,
            markers: vec![MarkerInfo {
                item: 2,
                line: 3,
                indent: 4,
            }],
            result: result.iter().map(|(t, s)| (t.to_string(), *s)).collect(),
            open_ends: false,
        }
    }

    #[test]
    fn a_result_whose_brackets_no_longer_balance_is_refused() {
        let old = lines("fn f() {\n    a();\n    }\n}");
        let concrete = vec![(0, "fn f() {"), (1, "    b();"), (3, "}")];
        let sketch = |item| Source::Sketch { item, soft: false };
        let kept = |old| Source::Kept { marker: 2, old };
        let broken = placement(
            &old,
            concrete.clone(),
            &[
                ("fn f() {", sketch(0)),
                ("    b();", sketch(1)),
                ("    a();", kept(1)),
                ("    }", kept(2)),
                ("    }", kept(2)),
                ("}", sketch(3)),
            ],
        );
        assert!(matches!(
            broken.check().unwrap_err(),
            Refusal::Broken(Broken::KeptTwice { .. })
        ));
        let old = lines("fn f() {\n    a();\n}");
        let concrete = vec![(0, "fn f() {"), (1, "    b();"), (3, "}"), (4, "}")];
        let unbalanced = placement(
            &old,
            concrete,
            &[
                ("fn f() {", sketch(0)),
                ("    b();", sketch(1)),
                ("    a();", kept(1)),
                ("}", sketch(3)),
                ("}", sketch(4)),
            ],
        );
        let e = unbalanced.check().unwrap_err();
        assert!(
            matches!(e, Refusal::Broken(Broken::Unbalanced { .. })),
            "{e:?}"
        );
    }

    /// A line added just before a docstring's closing `"""`, the sketch writing `"""` while its
    /// marker keeps the old one: the string would never close (issue #41).
    #[test]
    fn a_closing_line_kept_and_written_again_is_refused() {
        let old = lines("def f():\n    \"\"\"Doc.\n    \"\"\"\n    return 1");
        let q = "    \"\"\"";
        let concrete = vec![
            (0, "def f():"),
            (1, "    \"\"\"Doc."),
            (3, "    More."),
            (4, q),
        ];
        let sketch = |item| Source::Sketch { item, soft: false };
        let kept = |old| Source::Kept { marker: 2, old };
        let twice = placement(
            &old,
            concrete.clone(),
            &[
                ("def f():", sketch(0)),
                ("    \"\"\"Doc.", sketch(1)),
                (q, kept(2)),
                ("    More.", sketch(3)),
                (q, sketch(4)),
                ("    return 1", kept(3)),
            ],
        );
        assert_eq!(
            twice.check().unwrap_err(),
            Refusal::StringLeftOpen {
                written_and_kept: Some((q.trim().to_string(), 3))
            }
        );
        let once = placement(
            &old,
            concrete,
            &[
                ("def f():", sketch(0)),
                ("    \"\"\"Doc.", sketch(1)),
                ("    More.", sketch(3)),
                (q, sketch(4)),
                ("    return 1", kept(3)),
            ],
        );
        assert!(once.strings_stay_closed().is_ok());
    }

    #[test]
    fn brackets_in_strings_comments_and_lifetimes_do_not_count() {
        assert_eq!(bracket_delta("fn f<'a>(x: &'a str) -> &'a str {"), 1);
        assert_eq!(bracket_delta(r#"    let s = "{(";  // )"#), 0);
        assert_eq!(bracket_delta("    x = f('(')  # {"), 0);
        assert_eq!(bracket_delta("    }"), -1);
        assert_eq!(bracket_delta("`${a}`)"), -1);
    }
}
