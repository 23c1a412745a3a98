//! Running one operation against the workspace: create, write, append, splice, delete, and
//! updates (by hunks or by anchored lines, with or without a move).

use super::StageError;
use super::hunks::edit_bytes;
use super::present::{unified_diff, unified_diff_between};
use super::sketches::resolve_whole_sketch;
use super::staged::Before;
use super::style::{keep_text_style, new_file_style};
use super::workspace::{Workspace, regular_file};
use crate::batch::{FileOp, Format, Hunk, LineEdit, OpKind, Span, split_lines};
use crate::digest::sha256_hex;
use crate::encoding::Transcoding;
use crate::failure::{Doing, OpFailure};
use crate::locate::elision::introduced_placeholder;
use crate::path::RelPath;
use crate::report::{Action, FileReport, HunkReport, Outcome};
use crate::text::{Eol, TextFile, replace_ranges, with_eol};

/// The mode a new executable file gets: what `open(…, 0777)` would give under this process's
/// umask (read from `/proc/self/status`; 022 where that is not available), so 0755 under the
/// usual umask, as git checks out a `100755` file.
fn new_executable_mode() -> u32 {
    let umask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        })
        .unwrap_or(0o022);
    0o777 & !umask
}

/// Refuses whole-file content that introduces an omission placeholder (`// ... existing code
/// ...`) the file did not have: writing it would replace real code with the placeholder.
fn check_placeholder(rel: &RelPath, before: Option<&[u8]>, content: &str) -> Result<(), OpFailure> {
    let old = before
        .map(|b| split_lines(&String::from_utf8_lossy(b)))
        .unwrap_or_default();
    match introduced_placeholder(&old, &split_lines(content)) {
        Some(line) => Err(OpFailure::Placeholder {
            path: rel.to_string(),
            line: line.to_string(),
        }),
        None => Ok(()),
    }
}

impl Workspace<'_> {
    pub(super) fn run(&mut self, op: &FileOp) -> Result<FileReport, StageError> {
        let rel = self.root.rel(&op.path)?;
        let mut report = FileReport::new(rel.to_string(), Action::Update, op.line);
        let result = match &op.kind {
            OpKind::Create {
                content,
                executable,
            } => {
                report.action = Action::Add;
                self.create(&rel, content, *executable, &mut report)
            }
            OpKind::Delete => {
                report.action = Action::Delete;
                self.delete(&rel, &mut report)
            }
            OpKind::Write { content } => self.write(&rel, content, &mut report),
            OpKind::Append { content } => self.append(&rel, content, &mut report),
            OpKind::Splice { base_sha256, spans } => {
                self.splice(&rel, base_sha256, spans, &mut report)
            }
            OpKind::Lines { edits, .. } => self.lines(&rel, edits, &mut report),
            OpKind::Update { hunks, move_to } => {
                let to = move_to.as_deref().map(|t| self.root.rel(t)).transpose()?;
                if let Some(to) = &to
                    && *to != rel
                {
                    report.action = Action::Move;
                    report.to = Some(to.to_string());
                }
                self.update(&rel, hunks, to.as_ref(), &mut report)
            }
        };
        if let Err(mut e) = result {
            if let OpFailure::Missing { path, nearest, .. } = &mut e {
                *nearest = super::nearest::paths_like(self.root, path);
            }
            report.status = Outcome::Failed;
            report.kind = Some(e.kind());
            report.failure = Some(std::sync::Arc::new(e));
        }
        Ok(report)
    }

    fn create(
        &mut self,
        rel: &RelPath,
        content: &str,
        executable: bool,
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let key = self.key(rel, true)?;
        let at = self.root.path().join(key.as_str());
        let entry = self.entry(&key)?;
        regular_file(entry, Doing::Add, rel)?;
        let styled = new_file_style(&at, content);
        match &entry.current {
            Some(bytes) if bytes == content.as_bytes() || bytes == styled.as_bytes() => {
                report.status = Outcome::AlreadyApplied;
                Ok(())
            }
            Some(bytes) if bytes.is_empty() => {
                entry.current = Some(content.as_bytes().to_vec());
                report.diff = Some(unified_diff(rel.as_str(), Some(""), Some(content)));
                Ok(())
            }
            Some(_) => Err(OpFailure::Exists {
                path: rel.to_string(),
            }),
            None => {
                check_placeholder(rel, None, content)?;
                entry.current = Some(styled.as_bytes().to_vec());
                entry.mode = executable.then(new_executable_mode);
                report.diff = Some(unified_diff(rel.as_str(), None, Some(&styled)));
                Ok(())
            }
        }
    }

    /// Whole-file replacement (creating the file if missing).
    fn write(
        &mut self,
        rel: &RelPath,
        content: &str,
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let root = self.root;
        let declared = self.format == Format::Sketch;
        let (key, entry) = self.rewritable(rel, Doing::Write)?;
        let at = root.path().join(key.as_str());
        let before = entry.current.clone();
        if before.is_none() {
            report.action = Action::Add;
            entry.mode = None;
        }
        if before.as_deref() == Some(content.as_bytes()) {
            report.status = Outcome::AlreadyApplied;
            return Ok(());
        }
        let sketched = resolve_whole_sketch(rel, before.as_deref(), content, declared, report)?;
        let content = sketched.as_deref().unwrap_or(content);
        check_placeholder(rel, before.as_deref(), content)?;
        // The new text in the file's own style: its line endings and BOM, and for a file in a
        // legacy encoding (or with CR-only line endings) that encoding.
        let (content, encoding) = match before.as_deref() {
            None => (new_file_style(&at, content), None),
            Some(b) => match Transcoding::of(b) {
                Ok(Some(t)) => (
                    keep_text_style(&TextFile::new(&t.decode(b)), content),
                    Some(t),
                ),
                _ => match TextFile::decode(b) {
                    Ok(old) => (keep_text_style(&old, content), None),
                    Err(_) => (content.to_string(), None),
                },
            },
        };
        let bytes = match encoding {
            Some(t) => t.encode(&content).map_err(|why| OpFailure::Unencodable {
                path: rel.to_string(),
                doing: Doing::Write,
                why: why.to_string(),
            })?,
            None => content.clone().into_bytes(),
        };
        let content = content.as_str();
        if before.as_deref() == Some(bytes.as_slice()) {
            report.status = Outcome::AlreadyApplied;
            return Ok(());
        }
        entry.current = Some(bytes);
        let old_text = before
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned());
        report.diff = Some(unified_diff(
            rel.as_str(),
            old_text.as_deref(),
            Some(content),
        ));
        Ok(())
    }

    /// Replaces byte spans computed from an earlier read, refusing when the file changed since.
    fn splice(
        &mut self,
        rel: &RelPath,
        base_sha256: &str,
        spans: &[Span],
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let (_, entry) = self.rewritable(rel, Doing::Update)?;
        let Some(before) = entry.current.as_deref() else {
            return Err(OpFailure::Gone {
                path: rel.to_string(),
            });
        };
        if sha256_hex(before) != base_sha256 {
            return Err(OpFailure::ChangedSinceRead {
                path: rel.to_string(),
            });
        }
        let mut at = 0;
        for (i, span) in spans.iter().enumerate() {
            if span.start < at || span.end < span.start || span.end > before.len() {
                return Err(OpFailure::SpanOutside {
                    path: rel.to_string(),
                    index: i + 1,
                });
            }
            at = span.end;
            let mut hunk = HunkReport::new(i + 1, 0);
            hunk.start_line = Some(span.line);
            hunk.end_line = Some(span.line);
            report.hunks.push(hunk);
        }
        let after = replace_ranges(before, spans.iter().map(Span::replacement));
        if after == before {
            report.status = Outcome::AlreadyApplied;
            return Ok(());
        }
        // What a rename or a mod changed, as every edit shows it (`--dry-run` prints it).
        if let (Ok(old), Ok(new)) = (std::str::from_utf8(before), std::str::from_utf8(&after))
            && old.len() <= 1024 * 1024
        {
            report.diff = Some(unified_diff(rel.as_str(), Some(old), Some(new)));
        }
        entry.current = Some(after);
        Ok(())
    }

    /// Appends after the last line (adding a line ending first if the file lacks a final one),
    /// in the file's line-ending style; creates a missing file.
    fn append(
        &mut self,
        rel: &RelPath,
        content: &str,
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let root = self.root;
        let (key, entry) = self.rewritable(rel, Doing::Append)?;
        let Some(before) = entry.current.clone() else {
            let styled = new_file_style(&root.path().join(key.as_str()), content);
            report.action = Action::Add;
            entry.current = Some(styled.as_bytes().to_vec());
            entry.mode = None;
            report.diff = Some(unified_diff(rel.as_str(), None, Some(&styled)));
            return Ok(());
        };
        if content.is_empty() {
            // An empty block names a file that exists: nothing to add.
            report.status = Outcome::AlreadyApplied;
            return Ok(());
        }
        let file = TextFile::decode(&before).map_err(|e| OpFailure::NotText {
            path: rel.to_string(),
            doing: Doing::Append,
            why: e.to_string(),
        })?;
        let style = file.style().eol;
        let eol = style.as_str();
        let addition = if style == Eol::Crlf {
            with_eol(content, Eol::Crlf)
        } else {
            content.to_string()
        };
        let text = file.text();
        let unterminated = !text.is_empty() && !text.ends_with('\n');
        // A file that ended without a newline still does.
        let addition = match addition.strip_suffix(eol) {
            Some(body) if unterminated => body,
            _ => addition.as_str(),
        };
        if !addition.trim().is_empty() && text.ends_with(addition) {
            report.status = Outcome::AlreadyApplied;
            return Ok(());
        }
        let mut after = text.to_string();
        if unterminated {
            after.push_str(eol);
        }
        after.push_str(addition);
        report.diff = Some(unified_diff(rel.as_str(), Some(text), Some(&after)));
        entry.current = Some(after.into_bytes());
        Ok(())
    }

    fn delete(&mut self, rel: &RelPath, report: &mut FileReport) -> Result<(), OpFailure> {
        let key = self.key(rel, false)?;
        let entry = self.entry(&key)?;
        regular_file(entry, Doing::Delete, rel)?;
        if matches!(entry.disk, Before::Link { .. }) {
            // A link to delete is its own entry, separate from its target's content.
            if entry.remove_link {
                return Err(OpFailure::Missing {
                    path: rel.to_string(),
                    doing: Doing::Delete,
                    nearest: Vec::new(),
                });
            }
            entry.remove_link = true;
            return Ok(());
        }
        match entry.current.take() {
            Some(bytes) => {
                report.diff = std::str::from_utf8(&bytes)
                    .ok()
                    .filter(|t| t.len() <= 64 * 1024)
                    .map(|t| unified_diff(rel.as_str(), Some(t), None));
                Ok(())
            }
            None => Err(OpFailure::Missing {
                path: rel.to_string(),
                doing: Doing::Delete,
                nearest: Vec::new(),
            }),
        }
    }

    /// Line-anchored edits: their anchors checked against the file (the read's snapshot when
    /// the file changed since; the rebase then merges the result), then run as an update.
    fn lines(
        &mut self,
        rel: &RelPath,
        edits: &[LineEdit],
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        if let Some(&fitting) = self.unread.get(&self.op) {
            return Err(OpFailure::AnchorsUnread {
                path: rel.to_string(),
                fitting,
            });
        }
        let (_, entry) = self.rewritable(rel, Doing::Update)?;
        let as_read = entry.rebase_from.is_some();
        let Some(before) = entry.current.clone() else {
            return Err(OpFailure::Missing {
                path: rel.to_string(),
                doing: Doing::EditLines,
                nearest: Vec::new(),
            });
        };
        let file = TextFile::decode(&before).map_err(|e| OpFailure::NotText {
            path: rel.to_string(),
            doing: Doing::EditLines,
            why: e.to_string(),
        })?;
        let lines = crate::locate::anchored::lines_of(&file);
        let (hunks, notes) =
            crate::locate::anchored::hunks(&lines, edits, as_read).map_err(|why| {
                OpFailure::StaleAnchors {
                    path: rel.to_string(),
                    why,
                }
            })?;
        report.noted.extend(notes);
        self.update(rel, &hunks, None, report)
    }

    fn update(
        &mut self,
        rel: &RelPath,
        hunks: &[Hunk],
        move_to: Option<&RelPath>,
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let dest_key = match move_to {
            Some(to) => Some(self.key(to, true)?),
            None => None,
        };
        let (key, entry) = self.rewritable(rel, Doing::Update)?;
        let Some(before) = entry.current.clone() else {
            return self.update_already_moved(rel, hunks, move_to, dest_key.as_ref(), report);
        };
        let mode = entry.mode;
        let moves = dest_key.as_ref().is_some_and(|d| *d != key);
        let after = if hunks.is_empty() && moves {
            // A pure rename: the content moves unchanged (any bytes, UTF-8 or not).
            before.clone()
        } else {
            match edit_bytes(rel, &before, hunks, self.context(self.partial), report)? {
                Some(after) => after,
                None => return Ok(()),
            }
        };
        let text_before = std::str::from_utf8(&before).unwrap_or_default();
        let text_after = std::str::from_utf8(&after).unwrap_or_default();
        let shown_to = move_to.filter(|to| *to != rel);
        report.diff = Some(unified_diff_between(
            rel.as_str(),
            shown_to.map(RelPath::as_str).unwrap_or(rel.as_str()),
            Some(text_before),
            Some(text_after),
        ));
        match dest_key.filter(|d| *d != key) {
            None => {
                self.entries.get_mut(&key).expect("loaded").current = Some(after);
            }
            Some(dest_key) => {
                let to = move_to.expect("dest_key implies move_to");
                let dest = self.entry(&dest_key)?;
                if dest.is_dir || dest.is_special {
                    return Err(OpFailure::MoveOntoSpecial {
                        path: rel.to_string(),
                        to: to.to_string(),
                    });
                }
                match &dest.current {
                    Some(existing) if *existing != after => {
                        return Err(OpFailure::MoveOntoExisting {
                            path: rel.to_string(),
                            to: to.to_string(),
                        });
                    }
                    _ => {}
                }
                dest.current = Some(after);
                dest.mode = mode;
                // Moving a symlink moves the content it shows and removes the link itself; its
                // target is another name, which the move never named.
                let source = self.key(rel, false)?;
                if source == key {
                    self.entries.get_mut(&key).expect("loaded").current = None;
                } else {
                    self.entry(&source)?.remove_link = true;
                }
            }
        }
        Ok(())
    }

    /// An Update+Move whose source is gone: if the destination already holds the result (the
    /// same patch was applied before), report it as already applied.
    fn update_already_moved(
        &mut self,
        rel: &RelPath,
        hunks: &[Hunk],
        move_to: Option<&RelPath>,
        dest_key: Option<&RelPath>,
        report: &mut FileReport,
    ) -> Result<(), OpFailure> {
        let missing = || OpFailure::Missing {
            path: rel.to_string(),
            doing: Doing::Update,
            nearest: Vec::new(),
        };
        let (Some(_), Some(dest_key)) = (move_to, dest_key) else {
            return Err(missing());
        };
        let Some(dest_bytes) = self.entry(dest_key)?.current.clone() else {
            return Err(missing());
        };
        let mut probe = report.clone();
        match edit_bytes(rel, &dest_bytes, hunks, self.context(false), &mut probe) {
            Ok(result)
                if probe
                    .hunks
                    .iter()
                    .all(|h| h.status == Outcome::AlreadyApplied)
                    || result.as_ref().is_some_and(|after| *after == dest_bytes) =>
            {
                report.hunks = probe.hunks;
                report.status = Outcome::AlreadyApplied;
                Ok(())
            }
            _ => Err(missing()),
        }
    }
}
