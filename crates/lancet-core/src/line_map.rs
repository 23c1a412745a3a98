//! One change model for lines: how the lines of one text became another's (a Myers diff of
//! the lines, as the caller splits them), asked every way lancet asks it. Forward, where a line
//! of the old text went: a stale edit's report numbers carried into the merged file. Backward,
//! where a line of the new text came from: an error the gate finds judged against the text
//! before the edit. As regions, kept and changed: which lines a hunk keeps, what its context
//! says, where a sketch drops lines, a plan's keys matched, a needle aligned with the file. As
//! steps: a hunk shown as a diff. One diff, read by all, so no two answers can disagree.

use similar::{Algorithm, DiffOp};
use std::hash::Hash;
use std::ops::Range;

/// How one text's lines became another's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMap {
    regions: Vec<Region>,
}

/// A run of lines of both texts, in order (0-based lines): kept, or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Region {
    /// `len` unchanged lines: old lines `old..old + len` are new lines `new..new + len`.
    Kept {
        /// The first of them in the old text.
        old: usize,
        /// The first of them in the new text.
        new: usize,
        /// How many.
        len: usize,
    },
    /// Old lines `old` gave way to new lines `new`: either may be empty (a deletion, an
    /// insertion at `new.start`/`old.start`), never both.
    Changed {
        /// The old lines replaced.
        old: Range<usize>,
        /// The new lines that replaced them.
        new: Range<usize>,
    },
}

/// Where a line of the new text came from (0-based lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Unchanged: this line of the old text.
    Same(usize),
    /// Part of a changed region: new lines `new.0..new.1` replaced old lines `old.0..old.1`
    /// (either may be empty).
    Changed {
        /// The old lines replaced.
        old: (usize, usize),
        /// The new lines that replaced them.
        new: (usize, usize),
    },
}

/// One line of a walk through both texts in order (0-based lines): what a diff shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Line `old` of the old text, unchanged as line `new` of the new one.
    Kept {
        /// Its index in the old text.
        old: usize,
        /// Its index in the new text.
        new: usize,
    },
    /// Line of the old text that is gone.
    Removed(usize),
    /// Line of the new text that is not in the old one.
    Added(usize),
}

impl Region {
    /// The old lines the region covers.
    pub fn old_lines(&self) -> Range<usize> {
        match self {
            Region::Kept { old, len, .. } => *old..old + len,
            Region::Changed { old, .. } => old.clone(),
        }
    }

    /// The new lines the region covers.
    pub fn new_lines(&self) -> Range<usize> {
        match self {
            Region::Kept { new, len, .. } => *new..new + len,
            Region::Changed { new, .. } => new.clone(),
        }
    }

    /// Whether the region's lines are unchanged.
    pub fn is_kept(&self) -> bool {
        matches!(self, Region::Kept { .. })
    }
}

impl LineMap {
    /// The map from `old`'s lines to `new`'s, split as the caller reads lines.
    pub fn of<T: Hash + Eq + Ord>(old: &[T], new: &[T]) -> LineMap {
        let regions = similar::capture_diff_slices(Algorithm::Myers, old, new)
            .into_iter()
            .map(|op| match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => Region::Kept {
                    old: old_index,
                    new: new_index,
                    len,
                },
                op => Region::Changed {
                    old: op.old_range(),
                    new: op.new_range(),
                },
            })
            .collect();
        LineMap { regions }
    }

    /// The map between two texts' lines, each line with its ending (a last line without one
    /// differs from the same line with one).
    pub fn between(from: &[u8], to: &[u8]) -> LineMap {
        let lines = |t| -> Vec<&[u8]> { <[u8]>::split_inclusive(t, |&b| b == b'\n').collect() };
        LineMap::of(&lines(from), &lines(to))
    }

    /// The runs of kept and changed lines, in order.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The 1-based line of the new text that 1-based `line` of the old text became: the same
    /// line when it is unchanged, the first line of what replaced it otherwise (0 stays 0:
    /// "before line 1").
    pub fn forward(&self, line: usize) -> usize {
        if line == 0 {
            return 0;
        }
        let i = line - 1;
        let mut last_end = 0;
        for region in &self.regions {
            let (old, new) = (region.old_lines(), region.new_lines());
            if old.contains(&i) {
                return match region {
                    Region::Kept { .. } => new.start + (i - old.start) + 1,
                    Region::Changed { .. } => new.start + 1,
                };
            }
            last_end = new.end;
        }
        last_end.max(1)
    }

    /// Where each line of the new text came from, by its 0-based index.
    pub fn origins(&self) -> Vec<Origin> {
        let new_len = self.regions.last().map_or(0, |r| r.new_lines().end);
        let mut lines = vec![
            Origin::Changed {
                old: (0, 0),
                new: (0, 0)
            };
            new_len
        ];
        for region in &self.regions {
            match region {
                Region::Kept { old, new, len } => {
                    for k in 0..*len {
                        lines[new + k] = Origin::Same(old + k);
                    }
                }
                Region::Changed { old, new } => {
                    for line in &mut lines[new.clone()] {
                        *line = Origin::Changed {
                            old: (old.start, old.end),
                            new: (new.start, new.end),
                        };
                    }
                }
            }
        }
        lines
    }

    /// Both texts walked in order, as a diff shows them: a replaced block's old lines, then
    /// its new ones.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.regions.iter().flat_map(|region| {
            let kept = region.is_kept();
            let (old, new) = (region.old_lines(), region.new_lines());
            let pairs = old.clone().zip(new.clone()).filter(move |_| kept);
            let removed = old.filter(move |_| !kept).map(Step::Removed);
            let added = new.filter(move |_| !kept).map(Step::Added);
            pairs
                .map(|(old, new)| Step::Kept { old, new })
                .chain(removed)
                .chain(added)
        })
    }

    /// Lines that differ between the two texts, a replaced block counting its longer side.
    pub fn changed_lines(&self) -> usize {
        self.regions
            .iter()
            .map(|region| match region {
                Region::Kept { .. } => 0,
                Region::Changed { old, new } => old.len().max(new.len()),
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::{LineMap, Origin, Step};

    #[test]
    fn steps_walk_both_texts_with_a_replaced_block_old_lines_first() {
        let old: Vec<&str> = "a\nb\nc\nd".split('\n').collect();
        let new: Vec<&str> = "a\nB\nc\nd\ne".split('\n').collect();
        assert_eq!(
            LineMap::of(&old, &new).steps().collect::<Vec<_>>(),
            vec![
                Step::Kept { old: 0, new: 0 },
                Step::Removed(1),
                Step::Added(1),
                Step::Kept { old: 2, new: 2 },
                Step::Kept { old: 3, new: 3 },
                Step::Added(4),
            ]
        );
    }

    #[test]
    fn forward_follows_unchanged_lines_and_sends_changed_ones_to_their_replacement() {
        let map = LineMap::between(b"a\nb\nc\nd\n", b"x\ny\na\nB\nc\nd\n");
        assert_eq!(
            (1..=4).map(|l| map.forward(l)).collect::<Vec<_>>(),
            vec![3, 4, 5, 6]
        );
        assert_eq!(map.forward(0), 0);
        let map = LineMap::between(b"a\nb\nc\n", b"a\nc\n");
        assert_eq!((map.forward(2), map.forward(3)), (2, 2));
        assert_eq!(map.changed_lines(), 1);
    }

    #[test]
    fn origins_name_the_old_line_or_the_region_replaced() {
        let old: Vec<&str> = "a\nb\nc".split('\n').collect();
        let new: Vec<&str> = "a\nB\nX\nc".split('\n').collect();
        assert_eq!(
            LineMap::of(&old, &new).origins(),
            vec![
                Origin::Same(0),
                Origin::Changed {
                    old: (1, 2),
                    new: (1, 3)
                },
                Origin::Changed {
                    old: (1, 2),
                    new: (1, 3)
                },
                Origin::Same(2),
            ]
        );
    }
}
