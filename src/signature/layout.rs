//! Edits of one file as the signature change makes them, and the spans they become: a list
//! (parameters, arguments) rewritten in its own layout (what precedes its first element,
//! separates two, follows its last), and edits nested inside others' kept text (a renamed
//! parameter inside a moved one, a call inside another call's argument) applied there.

use lancet_core::Span;
use lancet_core::line_of;
use std::ops::Range;

/// A piece of an edit's new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// Text of the file as it stands there, with the edits inside it applied.
    Source(Range<usize>),
    /// New text.
    Text(String),
}

/// One edit: a range of the file and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) range: Range<usize>,
    pub(crate) parts: Vec<Part>,
}

impl Edit {
    /// Whether it keeps none of the text it replaces: nothing can stand inside it.
    fn is_leaf(&self) -> bool {
        !self.parts.iter().any(|p| matches!(p, Part::Source(_)))
    }
}

/// A list between brackets as written: its inside (between the brackets) and each element.
#[derive(Debug, Clone)]
pub(crate) struct List {
    pub(crate) inside: Range<usize>,
    pub(crate) items: Vec<Range<usize>>,
    /// The brackets are the element's own (`f(x for x in xs)`): a rewritten list needs its
    /// own.
    pub(crate) parenthesize: bool,
}

impl List {
    /// The edit that makes the list hold `new` (each element as parts) in its own layout: the
    /// text before its first element, between its first two (or, for one element, a comma and
    /// the first one's line break and indentation when it stands on a line of its own), and
    /// after its last (a trailing comma kept).
    pub(crate) fn edit(&self, source: &str, new: Vec<Vec<Part>>) -> Edit {
        let mut parts = Vec::new();
        if new.is_empty() {
            if self.parenthesize {
                parts.push(Part::Text("()".into()));
            }
            return Edit {
                range: self.inside.clone(),
                parts,
            };
        }
        let (prefix, sep, suffix) = match (self.items.first(), self.items.last()) {
            (Some(first), Some(last)) => {
                let prefix = &source[self.inside.start..first.start];
                let suffix = &source[last.end..self.inside.end];
                let sep = match self.items.get(1) {
                    Some(second) => source[first.end..second.start].to_string(),
                    None => match prefix.rfind('\n') {
                        Some(nl) => format!(",{}", &prefix[nl..]),
                        None => ", ".to_string(),
                    },
                };
                (prefix.to_string(), sep, suffix.to_string())
            }
            _ => (String::new(), ", ".to_string(), String::new()),
        };
        parts.push(Part::Text(prefix));
        for (i, item) in new.into_iter().enumerate() {
            if i > 0 {
                parts.push(Part::Text(sep.clone()));
            }
            parts.extend(item);
        }
        parts.push(Part::Text(suffix));
        if self.parenthesize {
            parts.insert(0, Part::Text("(".into()));
            parts.push(Part::Text(")".into()));
        }
        Edit {
            range: self.inside.clone(),
            parts,
        }
    }
}

/// Two edits that overlap without one holding the other: a bug of the caller, refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Overlap {
    pub(crate) at: usize,
}

/// The spans that make the file's edits: each outermost edit rendered, the edits inside its
/// kept text applied there (an edit inside text it drops is dropped with it).
pub(crate) fn spans(source: &str, mut edits: Vec<Edit>) -> Result<Vec<Span>, Overlap> {
    // Outer first; of two over one range, the one that keeps text (`f(x)`'s arguments, `x`
    // renamed inside them) holds the one that does not.
    edits.sort_by_key(|e| (e.range.start, std::cmp::Reverse(e.range.end), e.is_leaf()));
    edits.dedup();
    // Each edit's children: the edits directly inside it.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); edits.len()];
    let mut roots = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        while stack
            .last()
            .is_some_and(|&top| edits[top].range.end <= edit.range.start)
        {
            stack.pop();
        }
        match stack.last() {
            // Inside text an edit keeps: applied there.
            Some(&top) if edit.range.end <= edits[top].range.end && !edits[top].is_leaf() => {
                children[top].push(i)
            }
            Some(&top)
                if edit.range.start < edits[top].range.end || edits[top].range == edit.range =>
            {
                return Err(Overlap {
                    at: edit.range.start,
                });
            }
            _ => roots.push(i),
        }
        stack.push(i);
    }
    let starts = lancet_core::line_starts(source);
    Ok(roots
        .into_iter()
        .map(|i| Span {
            start: edits[i].range.start,
            end: edits[i].range.end,
            new: render(source, &edits, &children, i),
            line: line_of(&starts, edits[i].range.start),
        })
        .collect())
}

/// An edit's new text.
fn render(source: &str, edits: &[Edit], children: &[Vec<usize>], i: usize) -> String {
    let mut out = String::new();
    for part in &edits[i].parts {
        match part {
            Part::Text(text) => out.push_str(text),
            Part::Source(range) => {
                let mut at = range.start;
                for &child in &children[i] {
                    let inner = &edits[child].range;
                    if inner.start >= range.start && inner.end <= range.end {
                        out.push_str(&source[at..inner.start]);
                        out.push_str(&render(source, edits, children, child));
                        at = inner.end;
                    }
                }
                out.push_str(&source[at..range.end]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(source: &str, edits: Vec<Edit>) -> String {
        let spans = spans(source, edits).unwrap();
        let mut out = source.to_string();
        for span in spans.iter().rev() {
            out.replace_range(span.start..span.end, &span.new);
        }
        out
    }

    fn list(source: &str) -> List {
        let open = source.find('(').unwrap() + 1;
        let close = source.rfind(')').unwrap();
        let mut items = Vec::new();
        let mut at = open;
        for piece in source[open..close].split(',') {
            let trimmed = piece.trim();
            if !trimmed.is_empty() {
                let start = at + piece.find(trimmed).unwrap();
                items.push(start..start + trimmed.len());
            }
            at += piece.len() + 1;
        }
        List {
            inside: open..close,
            items,
            parenthesize: false,
        }
    }

    #[test]
    fn a_list_keeps_its_layout() {
        let one_line = "f(a, b)";
        let l = list(one_line);
        let swapped = vec![
            vec![Part::Source(l.items[1].clone())],
            vec![Part::Source(l.items[0].clone())],
        ];
        assert_eq!(apply(one_line, vec![l.edit(one_line, swapped)]), "f(b, a)");
        let hanging = "f(\n    a,\n    b,\n)";
        let l = list(hanging);
        let edit = l.edit(
            hanging,
            vec![
                vec![Part::Source(l.items[1].clone())],
                vec![Part::Text("c=1".into())],
                vec![Part::Source(l.items[0].clone())],
            ],
        );
        assert_eq!(
            apply(hanging, vec![edit]),
            "f(\n    b,\n    c=1,\n    a,\n)"
        );
        let single = "f(\n    a\n)";
        let l = list(single);
        let edit = l.edit(
            single,
            vec![
                vec![Part::Source(l.items[0].clone())],
                vec![Part::Text("b".into())],
            ],
        );
        assert_eq!(apply(single, vec![edit]), "f(\n    a,\n    b\n)");
        let empty = "f()";
        let edit = list(empty).edit(empty, vec![vec![Part::Text("1".into())]]);
        assert_eq!(apply(empty, vec![edit]), "f(1)");
        let edit = list(one_line).edit(one_line, vec![]);
        assert_eq!(apply(one_line, vec![edit]), "f()");
    }

    #[test]
    fn nested_edits_apply_inside_the_kept_text_only() {
        let source = "f(g(x), y)";
        let outer = list(source);
        let inner = Edit {
            range: 4..5,
            parts: vec![Part::Text("z".into())],
        };
        // The outer call swaps its arguments; `g(x)` keeps its own edit.
        let swap = outer.edit(
            source,
            vec![vec![Part::Source(8..9)], vec![Part::Source(2..6)]],
        );
        assert_eq!(apply(source, vec![swap, inner.clone()]), "f(y, g(z))");
        // Dropping `g(x)` drops its edit.
        let drop = outer.edit(source, vec![vec![Part::Source(8..9)]]);
        assert_eq!(apply(source, vec![drop, inner]), "f(y)");
    }

    #[test]
    fn an_edit_over_the_same_text_as_a_list_is_applied_inside_it() {
        // `f(x)`: the arguments rewritten (a value added), `x` renamed inside them.
        let source = "f(x)";
        let list = list(source);
        let call = list.edit(
            source,
            vec![vec![Part::Source(2..3)], vec![Part::Text("1".into())]],
        );
        let rename = Edit {
            range: 2..3,
            parts: vec![Part::Text("y".into())],
        };
        assert_eq!(apply(source, vec![rename.clone(), call.clone()]), "f(y, 1)");
        assert_eq!(apply(source, vec![call, rename]), "f(y, 1)");
        // Two renames of one name are one.
        let twice = vec![
            Edit {
                range: 2..3,
                parts: vec![Part::Text("y".into())],
            };
            2
        ];
        assert_eq!(apply(source, twice), "f(y)");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let a = Edit {
            range: 0..4,
            parts: vec![],
        };
        let b = Edit {
            range: 2..6,
            parts: vec![],
        };
        assert_eq!(spans("abcdefgh", vec![a, b]), Err(Overlap { at: 2 }));
    }
}
