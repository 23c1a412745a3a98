//! The doubts a reader would have about the one best alignment, each a refusal with its reason:
//! lines dropped beside a marker, changed copies, empty markers, new blocks beside old ones.

use super::align::{Alignment, Step};
use super::lines::{
    container, indent, is_closer, is_decoration, is_definition, is_method_head, is_trivial,
    looks_changed, same_definition,
};
use super::markers::{Item, item_line};
use super::{Ends, Refusal, Unmarked, Unplaced};

impl Alignment<'_> {
    /// The doubts a reader would have about the one alignment.
    pub(super) fn check_path(&self, path: &[Step], ends: Ends) -> Result<(), Refusal> {
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
            if let Some(refusal) = self.tail_without_marker(ends) {
                return Err(refusal);
            }
            let why = if shared(&|o, t| o.trim_end() == t.trim_end()) {
                Unplaced::MarkerWouldLeaveBlock
            } else if shared(&|o, t| o.trim() == t.trim()) {
                Unplaced::OtherIndentation
            } else {
                Unplaced::NoSharedLine
            };
            return Err(Refusal::NothingPlaces(why));
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
                if at_edge && !beside_marker && !open_tail {
                    let mut gone = gap.iter().filter_map(|s| match s {
                        Step::Delete(j) | Step::Replace(_, j) if !old[*j].trim().is_empty() => {
                            Some(*j)
                        }
                        _ => None,
                    });
                    let last = gone.next_back().unwrap_or(j);
                    return Err(self.dropped_at_an_end(j, last, k == 0));
                }
                let lies = if open_tail {
                    Unmarked::OpenTail
                } else if beside_marker {
                    Unmarked::BesideMarker
                } else {
                    Unmarked::AtAnEnd
                };
                return Err(Refusal::DeletedUnmarked {
                    line: self.line_no(j),
                    text: old[j].trim().to_string(),
                    lies,
                });
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

    /// Old lines `first..=last` the sketch would drop before its first line (`head`) or after
    /// its last, where it has no marker: the range, and the marker that keeps them.
    fn dropped_at_an_end(&self, first: usize, last: usize, head: bool) -> Refusal {
        let numbered = |j: usize| (self.line_no(j), self.old[j].trim().to_string());
        Refusal::DroppedAtEnd {
            first: numbered(first),
            last: (first != last).then(|| numbered(last)),
            head,
        }
    }

    /// A sketch placed nowhere because it ends without a marker before the old text ends: its
    /// last line that stands once in the old text would be followed by old lines it drops
    /// (the alignment prefers placing nothing to deleting them). Says which, instead of "cannot
    /// be placed".
    fn tail_without_marker(&self, ends: Ends) -> Option<Refusal> {
        if ends == Ends::Open {
            return None;
        }
        let lines: Vec<(usize, &str)> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Item::Line { text, .. } if !text.trim().is_empty() => Some((i, text.as_str())),
                _ => None,
            })
            .collect();
        let &(last_item, _) = lines.last()?;
        if self.items[last_item + 1..]
            .iter()
            .any(|i| matches!(i, Item::Marker { .. }))
        {
            return None;
        }
        // The last sketch line found exactly once in the old text, and how many sketch lines
        // follow it (each may take an old line's place).
        let (after, j) = lines
            .iter()
            .rev()
            .enumerate()
            .find_map(|(after, (_, text))| {
                let mut at = self
                    .old
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| !is_trivial(text) && o.trim_end() == text.trim_end());
                match (at.next(), at.next()) {
                    (Some((j, _)), None) => Some((after, j)),
                    _ => None,
                }
            })?;
        let first = (j + 1 + after..self.old.len()).find(|&o| !self.old[o].trim().is_empty())?;
        let last = (first..self.old.len())
            .rev()
            .find(|&o| !self.old[o].trim().is_empty())?;
        Some(self.dropped_at_an_end(first, last, false))
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
        Err(Refusal::PulledUp {
            deleted: (self.line_no(j), self.old[j].trim().to_string()),
            new_line: item_line(&self.items[i]),
            at: (self.line_no(at), self.old[at].trim().to_string()),
            marker: line,
        })
    }

    /// A changed copy takes an old line's place only before the sketch line that pins it there
    /// (matched right after it).
    fn check_replacements(&self, path: &[Step]) -> Result<(), Refusal> {
        for (k, step) in path.iter().enumerate() {
            let Step::Replace(i, j) = *step else { continue };
            let pinned =
                matches!(path.get(k + 1), Some(&Step::Match(n, o)) if n == i + 1 && o == j + 1);
            if !pinned {
                return Err(Refusal::ReplacementUnpinned {
                    new: (
                        item_line(&self.items[i]),
                        self.texts()[i].trim().to_string(),
                    ),
                    old: (self.line_no(j), self.old[j].trim().to_string()),
                });
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
                return Err(Refusal::EmptyMarkerBeforeChange {
                    marker: *line,
                    old: (self.line_no(j), self.old[j].trim().to_string()),
                });
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
                return Err(Refusal::EmptyMarkerTooDeep {
                    marker: *line,
                    depth: *depth,
                    old: (self.line_no(j), self.old[j].trim().to_string()),
                });
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
                return Err(Refusal::BlockHeadChanged {
                    old: (self.line_no(j), old[j].trim().to_string()),
                    marker: item_line(&self.items[*m]),
                });
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
                    return Err(Refusal::WrittenTwiceBesideMarker {
                        new: (*line, text.trim().to_string()),
                        marker: item_line(&self.items[m]),
                        old: self.line_no(j),
                    });
                }
            }
            for (new_items, edge) in edges {
                let Some(&edge) = edge else { continue };
                for i in new_items {
                    let Item::Line { text, line, .. } = &self.items[i] else {
                        continue;
                    };
                    if !is_trivial(text) && looks_changed(text, &old[edge]) {
                        return Err(Refusal::ChangedBesideMarker {
                            new: (*line, text.trim().to_string()),
                            marker: item_line(&self.items[m]),
                            old: (self.line_no(edge), old[edge].trim().to_string()),
                        });
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
                return Err(Refusal::NewDefinitionMatchesOld {
                    new: (item_line(&self.items[i]), sketch[i].trim().to_string()),
                    definition: sketch[p].trim().to_string(),
                    old: self.line_no(j),
                });
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
                return Err(Refusal::DefinitionTwice {
                    new: item_line(&self.items[*i]),
                    text: text.to_string(),
                    old: self.line_no(j),
                });
            }
        }
        Ok(())
    }
}
