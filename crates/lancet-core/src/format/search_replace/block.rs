//! Reading one block: its line markers, SEARCH and REPLACE parts and how it closes, and the
//! refusals for a block that is malformed, cut off or never opened.

use super::markers::{
    is_divider, is_head, is_near_miss, is_near_miss_updated, is_roo_separator, is_updated,
};
use super::{
    BLOCK_SHAPE, Block, DIVIDER, END_LINE, HEAD, Parser, SEARCH_WORD, START_LINE, UPDATED,
};
use crate::format::ParseError;

impl<'t, 'l> Parser<'t, 'l> {
    /// Reads the block whose HEAD is at `head`, checking its structure.
    #[allow(
        clippy::too_many_lines,
        reason = "a parser that follows its format's grammar: one arm per kind of line"
    )]
    pub(super) fn block(&self, head: usize) -> Result<Block, ParseError> {
        let n = self.lines.len();
        let mut j = head + 1;
        let mut hint = None;
        let mut line_markers = false;
        while j < n {
            let t = self.lines[j].trim();
            if let Some(value) = t.strip_prefix(START_LINE) {
                hint = Some(self.line_number(j, START_LINE, value)?).filter(|&l| l > 0);
            } else if let Some(value) = t.strip_prefix(END_LINE) {
                self.line_number(j, END_LINE, value)?;
            } else {
                break;
            }
            line_markers = true;
            j += 1;
        }
        if j < n && is_roo_separator(self.lines[j].trim(), line_markers) {
            j += 1;
        }
        let search_start = j;
        let divider = loop {
            if j == n {
                return Err(self.cut_off(head, search_start, "its SEARCH part", DIVIDER));
            }
            let t = self.lines[j].trim();
            if is_divider(t) {
                break j;
            }
            if is_updated(t) {
                let mut message = format!(
                    "line {} closes the block opened at line {} with `{UPDATED}`, but the block has no `{DIVIDER}` line between its SEARCH and REPLACE parts",
                    j + 1,
                    head + 1
                );
                if let Some(k) = (search_start..j).find(|&k| self.lines[k].contains("=====")) {
                    message.push_str(&format!(
                        "; line {} (`{}`) is not a divider: a divider is a line of only `=` (5 or more)",
                        k + 1,
                        self.lines[k].trim()
                    ));
                }
                return Err(self.error(j, DIVIDER, message));
            }
            if is_head(t) {
                return Err(self.error(
                    j,
                    DIVIDER,
                    format!(
                        "line {} opens a new block, but the block opened at line {} has no `{DIVIDER}` yet: finish each block with `{DIVIDER}`, the replacement and `{UPDATED}` (a marker line that belongs to the file's content is written with a leading backslash, e.g. `\\{HEAD}`)",
                        j + 1,
                        head + 1
                    ),
                ));
            }
            j += 1;
        };
        j = divider + 1;
        let (replace_end, end) = loop {
            if j == n {
                return Err(self.cut_off(head, divider + 1, "its REPLACE part", UPDATED));
            }
            let t = self.lines[j].trim();
            if is_updated(t) {
                break (j, j);
            }
            if is_divider(t) {
                // Models close blocks with a second divider, alone or right before UPDATED (Aider
                // reads the REPLACE part up to it). Only an UPDATED further on is ambiguous: is
                // this line content or the end?
                let next = (j + 1..n).find(|&k| {
                    let t = self.lines[k].trim();
                    is_updated(t) || is_head(t)
                });
                match next {
                    Some(k) if is_updated(self.lines[k].trim()) && k > j + 1 => {
                        return Err(self.error(
                            j,
                            UPDATED,
                            format!(
                                "the block opened at line {} has a second `{DIVIDER}` line (lines {} and {}) and closes only at line {}: a block has exactly one divider; if this line belongs to the file's content, write it with a leading backslash (`\\{DIVIDER}`)",
                                head + 1,
                                divider + 1,
                                j + 1,
                                k + 1
                            ),
                        ));
                    }
                    Some(k) if k == j + 1 && is_updated(self.lines[k].trim()) => break (j, k),
                    _ => break (j, j),
                }
            }
            if is_head(t) {
                return Err(self.error(
                    j,
                    UPDATED,
                    format!(
                        "line {} opens a new block, but the block opened at line {} is not closed: end it with `{UPDATED}` first",
                        j + 1,
                        head + 1
                    ),
                ));
            }
            if let Some(marker) = [START_LINE, END_LINE]
                .into_iter()
                .find(|m| t.starts_with(m))
            {
                return Err(self.error(
                    j,
                    format!("replacement text or `{UPDATED}`"),
                    format!(
                        "line {} puts `{marker}` in the REPLACE part: line markers go right after `{HEAD}`; if the line is meant literally, write it with a leading backslash (`\\{marker}`)",
                        j + 1
                    ),
                ));
            }
            j += 1;
        };
        Ok(Block {
            head,
            hint,
            search: search_start..divider,
            replace: divider + 1..replace_end,
            end,
            closed_by_divider: is_divider(self.lines[replace_end].trim()),
        })
    }

    /// Parses the number after a `:start_line:` or `:end_line:` marker.
    fn line_number(&self, at: usize, marker: &str, value: &str) -> Result<usize, ParseError> {
        value.trim().parse().map_err(|_| {
            self.error(
                at,
                format!("{marker}N"),
                format!(
                    "line {} has `{marker}` without a line number: write `{marker}12`",
                    at + 1
                ),
            )
        })
    }

    /// The text ended inside the block opened at `head`, in the part starting at `part_start`.
    fn cut_off(&self, head: usize, part_start: usize, part: &str, expected: &str) -> ParseError {
        let last = (part_start..self.lines.len())
            .rev()
            .find(|&k| !self.lines[k].trim().is_empty())
            .unwrap_or(part_start.saturating_sub(1));
        let mut message = format!(
            "the block opened at line {} is not finished: the text ends inside {part} without `{expected}`; send the block whole (a block cut off like this is never applied, so a truncated reply cannot write half a change)",
            head + 1
        );
        if expected == UPDATED
            && let Some(k) =
                (part_start..self.lines.len()).find(|&k| is_near_miss_updated(self.lines[k].trim()))
        {
            message.push_str(&format!(
                "; line {} (`{}`) is not a closing marker: `{UPDATED}` stands alone on its line",
                k + 1,
                self.lines[k].trim()
            ));
        }
        self.error(last, expected, message)
    }

    /// An UPDATED marker at `at`, outside any block.
    pub(super) fn stray_updated(&self, at: usize, after_previous: usize) -> ParseError {
        let near_miss = (after_previous..at)
            .rev()
            .find(|&k| is_near_miss(self.lines[k].trim(), b"<-", SEARCH_WORD));
        let message = match near_miss {
            Some(k) => format!(
                "line {} closes a block that never opened: line {} (`{}`) is not an opening marker; write `{HEAD}` (5 to 9 `<`) or `------- SEARCH` (3 or more `-`), one space, then SEARCH in capitals",
                at + 1,
                k + 1,
                self.lines[k].trim()
            ),
            None => format!(
                "line {} closes a block that never opened: each block starts with `{HEAD}`:\n{BLOCK_SHAPE}",
                at + 1
            ),
        };
        self.error(at, HEAD, message)
    }
}
