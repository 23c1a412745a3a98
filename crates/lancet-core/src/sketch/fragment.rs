//! Fragments: a sketch that stands for one region of the file, anchored by a first line that
//! stands once there and ending at its own last line or at the end of the block it opens.

use super::Refusal;
use super::lines::{indent, inside_strings, is_closer, is_comment, is_trivial};
use super::markers::{Item, items};

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
        [] => Err(Refusal::FragmentLineNowhere {
            text: line.trim().to_string(),
        }),
        _ => Err(Refusal::FragmentLineRepeated {
            text: line.trim().to_string(),
            at: at.iter().take(5).map(|j| j + 1).collect(),
            count: at.len(),
        }),
    }
}
