//! From read sections to the batch: each section's paths and hunks made one file operation,
//! repeated hunks dropped, and the notes the leniencies leave.

use super::headers::{Side, strip_git_prefixes};
use super::{Body, HEADERS_EXPECTED, Notes, Parser, RawHunk, Section};
use crate::batch::{Anchor, Batch, FileOp, Format, Hunk, OpKind, Pick};
use crate::format::ParseError;
use crate::notes::BatchNote;

impl Parser<'_, '_> {
    pub(super) fn finish(mut self) -> Result<Batch, ParseError> {
        let mut ops: Vec<FileOp> = Vec::new();
        let sections = std::mem::take(&mut self.sections);
        for section in sections {
            if let Some(op) = self.section_op(section)? {
                ops.push(op);
            }
        }
        self.drop_duplicate_hunks(&mut ops);
        if ops.is_empty() {
            let at = self
                .lines
                .iter()
                .position(|l| !l.trim().is_empty())
                .unwrap_or(0);
            return Err(ParseError::new(
                at + 1,
                self.lines.get(at).copied().unwrap_or(""),
                HEADERS_EXPECTED,
                "the diff changes nothing: no file header with a hunk that adds or removes lines",
            ));
        }
        Ok(Batch {
            format: Format::Unified,
            ops,
            notes: self.notes.facts(self.fences),
        })
    }

    /// Drops hunks identical to an earlier hunk of the same file (and operations left empty).
    fn drop_duplicate_hunks(&mut self, ops: &mut Vec<FileOp>) {
        let mut seen: Vec<(String, Hunk)> = Vec::new();
        for op in ops.iter_mut() {
            let OpKind::Update { hunks, .. } = &mut op.kind else {
                continue;
            };
            let path = op.path.clone();
            hunks.retain(|h| {
                let dup = seen.iter().any(|(p, s)| {
                    *p == path && s.old == h.old && s.new == h.new && s.line_hint == h.line_hint
                });
                if dup {
                    self.notes.duplicates += 1;
                } else {
                    seen.push((path.clone(), h.clone()));
                }
                !dup
            });
        }
        // An update left with no hunk does nothing, unless it moves the file.
        ops.retain(
            |op| !matches!(&op.kind, OpKind::Update { hunks, move_to: None } if hunks.is_empty()),
        );
    }

    #[allow(
        clippy::too_many_lines,
        reason = "a parser that follows its format's grammar: one arm per kind of line"
    )]
    fn section_op(&mut self, s: Section) -> Result<Option<FileOp>, ParseError> {
        let fail = |expected: &str, message: String| {
            Err(ParseError::new(s.line, s.header.clone(), expected, message))
        };
        let (mut old, mut new) = if let Some(p) = &s.inherited {
            (Side::Path(p.clone()), Side::Path(p.clone()))
        } else if let Some((o, n)) = s.file_headers.clone() {
            strip_git_prefixes(o, n)
        } else if let Some((o, n)) = s.git_paths.clone() {
            strip_git_prefixes(o, n)
        } else if s.rename_from.is_some() && s.rename_to.is_some() {
            (Side::DevNull, Side::DevNull)
        } else {
            return fail(
                "'diff --git a/path b/path'",
                "cannot read the file paths of this git header".to_string(),
            );
        };
        if let Some(p) = &s.rename_from {
            old = Side::Path(p.clone());
        }
        if let Some(p) = &s.rename_to {
            new = Side::Path(p.clone());
        }
        if s.file_headers.is_none() && s.inherited.is_none() {
            if s.new_file {
                old = Side::DevNull;
            }
            if s.deleted_file {
                new = Side::DevNull;
            }
        }
        if s.mode_change && !s.hunks.is_empty() {
            self.notes.mode_ignored += 1;
        }
        let line = s.line;
        match (old, new) {
            (Side::DevNull, Side::DevNull) => fail(
                "a real path on one side",
                "both sides of this file header are /dev/null".to_string(),
            ),
            (Side::DevNull, Side::Path(path)) => {
                if s.hunks.iter().any(RawHunk::has_old_lines) {
                    self.notes.devnull_updates.push(path.clone());
                    return self.update(s, path.clone(), path);
                }
                if s.hunks.is_empty() && !s.new_file {
                    return fail(
                        "'@@' and the new file's '+' lines",
                        format!("the new file '{path}' has no hunk"),
                    );
                }
                let mut content = String::new();
                let mut final_newline = true;
                for h in &s.hunks {
                    for (k, b) in h.body.iter().enumerate() {
                        let text = match b {
                            Body::Added(t) => t.as_str(),
                            _ => {
                                self.notes.blank_added += 1;
                                ""
                            }
                        };
                        content.push_str(text);
                        content.push('\n');
                        final_newline = !h.no_newline.contains(&k);
                    }
                }
                if !final_newline {
                    content.pop();
                }
                Ok(Some(FileOp {
                    path,
                    kind: OpKind::Create {
                        content,
                        executable: s.new_executable,
                    },
                    line,
                }))
            }
            (Side::Path(path), Side::DevNull) => {
                if let Some(h) = s
                    .hunks
                    .iter()
                    .find(|h| h.body.iter().any(|b| matches!(b, Body::Added(_))))
                {
                    return Err(ParseError::new(
                        h.line,
                        h.header.clone(),
                        "only '-' lines (the deleted file's content)",
                        format!("'{path}' is deleted ('+++ /dev/null') but this hunk adds lines"),
                    ));
                }
                if s.hunks.is_empty() && s.file_headers.is_some() && !s.deleted_file {
                    return fail(
                        "'@@' and the deleted file's '-' lines",
                        format!("the deletion of '{path}' has no hunk"),
                    );
                }
                Ok(Some(FileOp {
                    path,
                    kind: OpKind::Delete,
                    line,
                }))
            }
            (Side::Path(from), Side::Path(to)) => self.update(s, from, to),
        }
    }

    fn update(
        &mut self,
        s: Section,
        from: String,
        to: String,
    ) -> Result<Option<FileOp>, ParseError> {
        let move_to = (from != to).then_some(to);
        if s.hunks.is_empty() && move_to.is_some() {
            // A pure rename (`similarity index 100%`): move the file, content untouched.
            return Ok(Some(FileOp {
                path: from,
                kind: OpKind::Update {
                    hunks: Vec::new(),
                    move_to,
                },
                line: s.line,
            }));
        }
        if s.hunks.is_empty() {
            let (expected, message) = if s.mode_change {
                (
                    "'@@' hunks",
                    format!(
                        "mode changes are not supported: the diff for '{from}' changes nothing else"
                    ),
                )
            } else {
                ("'@@' hunks", format!("the diff for '{from}' has no hunk"))
            };
            return Err(ParseError::new(s.line, s.header, expected, message));
        }
        let mut hunks = Vec::new();
        for h in s.hunks {
            if !h.changes() && move_to.is_none() {
                self.notes.no_change_hunks += 1;
                continue;
            }
            if !h.no_newline.is_empty() {
                self.notes.no_newline_ignored += 1;
            }
            let (mut old, mut new) = (Vec::new(), Vec::new());
            for b in h.body {
                match b {
                    Body::Context(t) => {
                        old.push(t.clone());
                        new.push(t);
                    }
                    Body::Blank => {
                        old.push(String::new());
                        new.push(String::new());
                    }
                    Body::Removed(t) => old.push(t),
                    Body::Added(t) => new.push(t),
                }
            }
            // A pure insertion has no lines to find: `-A,0` says it goes after line A.
            let anchor = match (h.old_start, h.counts) {
                (Some(a), Some((0, _))) if old.is_empty() => Anchor::AfterLine(a),
                _ => Anchor::Anywhere,
            };
            hunks.push(Hunk {
                line_hint: h.old_start.filter(|&a| a > 0),
                new_line_hint: h.new_start.filter(|&c| c > 0),
                anchor,
                pick: Pick::Nearest,
                ..Hunk::lines(old, new, h.line)
            });
        }
        if hunks.is_empty() {
            return Ok(None);
        }
        Ok(Some(FileOp {
            path: from,
            kind: OpKind::Update { hunks, move_to },
            line: s.line,
        }))
    }
}

impl Notes {
    fn facts(&self, fences: usize) -> Vec<BatchNote> {
        let mut notes = Vec::new();
        if self.prose + fences > 0 {
            notes.push(BatchNote::AroundDiff {
                prose: self.prose,
                fences,
            });
        }
        if self.default_path {
            notes.push(BatchNote::HunksArePathFile);
        }
        notes.extend(
            self.inherited
                .iter()
                .cloned()
                .map(BatchNote::HeaderInherited),
        );
        notes.extend(BatchNote::counted(&[
            (self.implicit_hunks, BatchNote::ImplicitHunks),
            (self.blank_separators, BatchNote::BlankSeparators),
        ]));
        notes.extend(
            self.devnull_updates
                .iter()
                .cloned()
                .map(BatchNote::DevNullUpdate),
        );
        notes.extend(BatchNote::counted(&[
            (self.blank_added, BatchNote::BlankAdded),
            (self.no_change_hunks, BatchNote::ContextOnlyHunks),
            (self.duplicates, BatchNote::DuplicateHunks),
            (self.mode_ignored, BatchNote::ModeIgnored),
        ]));
        if self.no_newline_ignored > 0 {
            notes.push(BatchNote::NoNewlineIgnored);
        }
        notes
    }
}
