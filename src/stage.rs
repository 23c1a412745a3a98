//! Staging: run every operation of a batch against in-memory buffers, nothing on disk.
//!
//! Operations apply in order against an evolving buffer per file, so two Update sections for one
//! file, or an Add then a Delete, compose. Every failure is collected (not just the first) so the
//! model can fix everything in one retry; the batch is staged only if all operations succeed.

use crate::batch::{Batch, FileOp, Hunk, OpKind};
use crate::locate::{self, Hints, LocateError, Located, Match};
use crate::path::{PathError, RelPath, Root};
use crate::report::{Action, FileReport, HunkReport, Outcome, join_lines};
use crate::store::sha256_hex;
use crate::text::{Splice, TextFile, apply_splices, indent_of};
use similar::{Algorithm, DiffOp};
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// What was at a path before the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// Nothing.
    Missing,
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Their SHA-256, hex.
        sha256: String,
        /// Its permission bits.
        mode: u32,
    },
    /// A symlink (only ever staged for deletion: edits go to the link's target).
    Link {
        /// Where it points.
        target: PathBuf,
    },
}

/// One path's new state, computed in memory and ready to commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedFile {
    /// The path relative to the root (a symlink's target, when an edit went through a link).
    pub path: RelPath,
    /// Where it is on disk.
    pub real: PathBuf,
    /// What is there now; checked again just before writing.
    pub before: Before,
    /// The new content, or `None` to remove the path.
    pub after: Option<Vec<u8>>,
    /// Permission bits for `after` (copied from the file, or from a move's source); `None` for a
    /// new file, which gets the umask's default.
    pub mode: Option<u32>,
}

/// The staged batch: files to write, and a report entry per operation.
#[derive(Debug)]
pub struct Staged {
    /// Paths whose content changes.
    pub files: Vec<StagedFile>,
    /// One entry per operation, in batch order.
    pub reports: Vec<FileReport>,
}

impl Staged {
    /// Whether any operation failed (then nothing may be written).
    pub fn failed(&self) -> bool {
        self.reports
            .iter()
            .any(|r| matches!(r.status, Outcome::Failed | Outcome::Ambiguous))
    }
}

/// A whole-batch refusal found before any operation runs.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// A path in the batch is unsafe; no I/O happened.
    #[error(transparent)]
    Path(#[from] PathError),
    /// An `--expect` hash differs from the file.
    #[error("{path} changed since it was read: --expect {expected}, the file has {actual}")]
    Stale {
        /// The path.
        path: String,
        /// The hash the caller expected.
        expected: String,
        /// The file's hash now (`missing` if it does not exist).
        actual: String,
    },
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// A caller's claim about a file's current content (`--expect PATH=SHA256`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// The path as the caller wrote it.
    pub path: String,
    /// The hex SHA-256 the caller saw.
    pub sha256: String,
}

/// Stages a batch: validates every path first (no I/O), checks expectations, then runs the
/// operations in memory.
pub fn stage(root: &Root, batch: &Batch, expect: &[Expectation]) -> Result<Staged, StageError> {
    for op in &batch.ops {
        root.rel(&op.path)?;
        if let OpKind::Update {
            move_to: Some(to), ..
        } = &op.kind
        {
            root.rel(to)?;
        }
    }
    let mut ws = Workspace {
        root,
        entries: HashMap::new(),
        order: Vec::new(),
    };
    for e in expect {
        let rel = root.rel(&e.path)?;
        let key = ws.key(&rel, true)?;
        let actual = match &ws.entry(&key)?.disk {
            Before::File { sha256, .. } => sha256.clone(),
            _ => "missing".to_string(),
        };
        if !actual.eq_ignore_ascii_case(e.sha256.trim()) {
            return Err(StageError::Stale {
                path: rel.to_string(),
                expected: e.sha256.clone(),
                actual,
            });
        }
    }
    let mut reports = Vec::with_capacity(batch.ops.len());
    for op in &batch.ops {
        reports.push(ws.run(op)?);
    }
    Ok(Staged {
        files: ws.into_staged(),
        reports,
    })
}

struct Entry {
    real: PathBuf,
    disk: Before,
    is_dir: bool,
    is_special: bool,
    current: Option<Vec<u8>>,
    mode: Option<u32>,
    /// For a symlink entry: the batch removes the link itself.
    remove_link: bool,
}

struct Workspace<'r> {
    root: &'r Root,
    entries: HashMap<RelPath, Entry>,
    order: Vec<RelPath>,
}

impl Workspace<'_> {
    /// The key under which a path's content lives: its real location relative to the root, so a
    /// symlink and its target share one buffer.
    fn key(&self, rel: &RelPath, follow: bool) -> Result<RelPath, StageError> {
        let resolved = self.root.resolve(rel, follow)?;
        let shown = self.root.display_rel(&resolved.real);
        Ok(self.root.rel(&shown)?)
    }

    fn entry(&mut self, key: &RelPath) -> Result<&mut Entry, StageError> {
        if !self.entries.contains_key(key) {
            let real = self.root.path().join(key.as_str());
            let io = |source| StageError::Io {
                path: key.to_string(),
                source,
            };
            let (disk, is_dir, is_special) = match std::fs::symlink_metadata(&real) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    (Before::Missing, false, false)
                }
                Err(e) => return Err(io(e)),
                Ok(m) if m.file_type().is_symlink() => (
                    Before::Link {
                        target: std::fs::read_link(&real).map_err(io)?,
                    },
                    false,
                    false,
                ),
                Ok(m) if m.is_dir() => (Before::Missing, true, false),
                Ok(m) if m.is_file() => {
                    let bytes = std::fs::read(&real).map_err(io)?;
                    let sha256 = sha256_hex(&bytes);
                    (
                        Before::File {
                            bytes,
                            sha256,
                            mode: m.permissions().mode() & 0o7777,
                        },
                        false,
                        false,
                    )
                }
                Ok(_) => (Before::Missing, false, true),
            };
            let (current, mode) = match &disk {
                Before::File { bytes, mode, .. } => (Some(bytes.clone()), Some(*mode)),
                _ => (None, None),
            };
            self.order.push(key.clone());
            self.entries.insert(
                key.clone(),
                Entry {
                    real,
                    disk,
                    is_dir,
                    is_special,
                    current,
                    mode,
                    remove_link: false,
                },
            );
        }
        Ok(self.entries.get_mut(key).expect("inserted above"))
    }

    fn run(&mut self, op: &FileOp) -> Result<FileReport, StageError> {
        let rel = self.root.rel(&op.path)?;
        let mut report = FileReport {
            path: rel.to_string(),
            action: Action::Update,
            to: None,
            status: Outcome::Applied,
            edit_line: op.line,
            hunks: Vec::new(),
            error: None,
            diff: None,
        };
        let result = match &op.kind {
            OpKind::Create { content } => {
                report.action = Action::Add;
                self.create(&rel, content, &mut report)
            }
            OpKind::Delete => {
                report.action = Action::Delete;
                self.delete(&rel, &mut report)
            }
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
        if let Err(message) = result {
            report.status = Outcome::Failed;
            report.error = Some(message);
        }
        Ok(report)
    }

    fn create(
        &mut self,
        rel: &RelPath,
        content: &str,
        report: &mut FileReport,
    ) -> Result<(), String> {
        let key = self.key(rel, true).map_err(|e| e.to_string())?;
        let entry = self.entry(&key).map_err(|e| e.to_string())?;
        if entry.is_dir {
            return Err(format!("cannot add {rel}: it is a directory"));
        }
        if entry.is_special {
            return Err(format!(
                "cannot add {rel}: it exists and is not a regular file"
            ));
        }
        match &entry.current {
            Some(bytes) if bytes == content.as_bytes() => {
                report.status = Outcome::AlreadyApplied;
                Ok(())
            }
            Some(_) => Err(format!(
                "cannot add {rel}: it already exists with different content; use Update File to change it (read it first: lancet read {rel})"
            )),
            None => {
                entry.current = Some(content.as_bytes().to_vec());
                entry.mode = None;
                report.diff = Some(unified_diff(rel.as_str(), None, Some(content)));
                Ok(())
            }
        }
    }

    fn delete(&mut self, rel: &RelPath, report: &mut FileReport) -> Result<(), String> {
        let key = self.key(rel, false).map_err(|e| e.to_string())?;
        let entry = self.entry(&key).map_err(|e| e.to_string())?;
        if entry.is_dir {
            return Err(format!("cannot delete {rel}: it is a directory"));
        }
        if entry.is_special {
            return Err(format!("cannot delete {rel}: it is not a regular file"));
        }
        if matches!(entry.disk, Before::Link { .. }) {
            // A link to delete is its own entry, separate from its target's content.
            if entry.remove_link {
                return Err(format!("cannot delete {rel}: it does not exist"));
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
            None => Err(format!("cannot delete {rel}: it does not exist")),
        }
    }

    fn update(
        &mut self,
        rel: &RelPath,
        hunks: &[Hunk],
        move_to: Option<&RelPath>,
        report: &mut FileReport,
    ) -> Result<(), String> {
        let key = self.key(rel, true).map_err(|e| e.to_string())?;
        let dest_key = match move_to {
            Some(to) => Some(self.key(to, true).map_err(|e| e.to_string())?),
            None => None,
        };
        let entry = self.entry(&key).map_err(|e| e.to_string())?;
        if entry.is_dir {
            return Err(format!("cannot update {rel}: it is a directory"));
        }
        if entry.is_special {
            return Err(format!("cannot update {rel}: it is not a regular file"));
        }
        let Some(before) = entry.current.clone() else {
            return self.update_already_moved(rel, hunks, move_to, dest_key.as_ref(), report);
        };
        let mode = entry.mode;
        let after = match edit_bytes(rel, &before, hunks, report)? {
            Some(after) => after,
            None => return Ok(()),
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
                let dest = self.entry(&dest_key).map_err(|e| e.to_string())?;
                if dest.is_dir || dest.is_special {
                    return Err(format!(
                        "cannot move {rel} to {to}: {to} is a directory or special file"
                    ));
                }
                match &dest.current {
                    Some(existing) if *existing != after => {
                        return Err(format!(
                            "cannot move {rel} to {to}: {to} already exists with different content; delete it first or update it instead"
                        ));
                    }
                    _ => {}
                }
                dest.current = Some(after);
                dest.mode = mode;
                self.entries.get_mut(&key).expect("loaded").current = None;
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
    ) -> Result<(), String> {
        let missing = || {
            format!(
                "cannot update {rel}: it does not exist (create it with Add File, or check the path)"
            )
        };
        let (Some(_), Some(dest_key)) = (move_to, dest_key) else {
            return Err(missing());
        };
        let Some(dest_bytes) = self
            .entry(dest_key)
            .map_err(|e| e.to_string())?
            .current
            .clone()
        else {
            return Err(missing());
        };
        let mut probe = report.clone();
        match edit_bytes(rel, &dest_bytes, hunks, &mut probe) {
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

    fn into_staged(mut self) -> Vec<StagedFile> {
        let mut out = Vec::new();
        for key in self.order {
            let Some(e) = self.entries.remove(&key) else {
                continue;
            };
            let changed = match (&e.disk, &e.current) {
                (Before::File { bytes, .. }, Some(now)) => bytes != now,
                (Before::File { .. }, None) => true,
                (Before::Missing, Some(_)) => true,
                (Before::Missing, None) => false,
                (Before::Link { .. }, Some(_)) => true,
                (Before::Link { .. }, None) => e.remove_link,
            };
            if changed {
                out.push(StagedFile {
                    path: key,
                    real: e.real,
                    mode: e.mode.filter(|_| e.current.is_some()),
                    before: e.disk,
                    after: e.current,
                });
            }
        }
        out
    }
}

/// Locates and splices every hunk of one Update against `before`. Fills the hunk reports;
/// returns the new bytes, or `None` when every hunk was already applied.
fn edit_bytes(
    rel: &RelPath,
    before: &[u8],
    hunks: &[Hunk],
    report: &mut FileReport,
) -> Result<Option<Vec<u8>>, String> {
    let file = TextFile::decode(before).map_err(|e| {
        format!("cannot update {rel}: the file is {e}; lancet edits only UTF-8 text (Delete File still works)")
    })?;
    let lines = file.line_strs();
    let mut hints = Hints::default();
    let mut splices = Vec::new();
    let mut taken: Vec<(usize, usize, usize)> = Vec::new();
    let mut all_already = true;
    report.hunks.clear();
    for (i, hunk) in hunks.iter().enumerate() {
        let mut h = HunkReport {
            index: i + 1,
            status: Outcome::Applied,
            tier: None,
            start_line: None,
            end_line: None,
            insertion: false,
            edit_line: hunk.line,
            error: None,
            candidates: Vec::new(),
            closest: None,
        };
        match locate::locate(&lines, hunk, hints) {
            Ok(Located::Replace {
                at,
                old_len,
                new_len,
            }) => {
                all_already = false;
                set_range(&mut h, at);
                if let Some(&(other, s, e)) = taken
                    .iter()
                    .find(|&&(_, s, e)| overlaps((s, e), (at.start, at.end)))
                {
                    h.status = Outcome::Failed;
                    h.error = Some(format!(
                        "chunk {} (lines {}-{}) overlaps chunk {other} (lines {}-{}); merge them into one chunk",
                        i + 1,
                        at.start + 1,
                        at.end.max(at.start + 1),
                        s + 1,
                        e.max(s + 1)
                    ));
                } else {
                    taken.push((i + 1, at.start, at.end));
                    splices.push(splice_for(
                        &file,
                        at,
                        &hunk.old[..old_len],
                        &hunk.new[..new_len],
                    ));
                }
                hints.cursor = at.end;
            }
            Ok(Located::AlreadyApplied { at }) => {
                set_range(&mut h, at);
                h.status = Outcome::AlreadyApplied;
                hints.cursor = at.end;
            }
            Err(e) => {
                all_already = false;
                describe_failure(rel, &lines, hunk, e, &mut h);
            }
        }
        report.hunks.push(h);
    }
    if report
        .hunks
        .iter()
        .any(|h| matches!(h.status, Outcome::Failed | Outcome::Ambiguous))
    {
        report.status = if report.hunks.iter().any(|h| h.status == Outcome::Ambiguous) {
            Outcome::Ambiguous
        } else {
            Outcome::Failed
        };
        return Ok(None);
    }
    if all_already {
        report.status = Outcome::AlreadyApplied;
        return Ok(None);
    }
    Ok(Some(apply_splices(before, &splices)))
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    // Two insertions at one point do not overlap; a range overlaps what lies strictly inside.
    a.0 < b.1 && b.0 < a.1
}

fn set_range(h: &mut HunkReport, at: Match) {
    h.tier = Some(at.tier);
    h.insertion = at.start == at.end;
    if h.insertion {
        h.start_line = Some(at.start);
        h.end_line = Some(at.start);
    } else {
        h.start_line = Some(at.start + 1);
        h.end_line = Some(at.end);
    }
}

/// The nearest line above `line` (0-based) that is less indented than it: the enclosing
/// function or class, which is what an `@@` header should name to disambiguate.
fn enclosing_line<'a>(lines: &[&'a str], line: usize) -> Option<(usize, &'a str)> {
    let first = (line..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    let width = indent_of(lines[first]).len();
    (first.saturating_sub(MAX_ENCLOSING_SCAN)..first)
        .rev()
        .find(|&i| !lines[i].trim().is_empty() && indent_of(lines[i]).len() < width)
        .map(|i| (i, lines[i].trim()))
}

/// The enclosing lines of a candidate, innermost first, a few levels up.
fn enclosing_chain<'a>(lines: &[&'a str], line: usize) -> Vec<&'a str> {
    let mut chain = Vec::new();
    let mut at = line;
    while chain.len() < 4 {
        let Some((i, text)) = enclosing_line(lines, at) else {
            break;
        };
        chain.push(text);
        at = i;
    }
    chain
}

/// Stacked `@@` headers (outermost first) that single out the first candidate: its enclosing
/// lines up to the first level where they differ from every other candidate's.
fn suggest_headers<'a>(lines: &[&'a str], candidates: &[usize]) -> Option<Vec<&'a str>> {
    let chains: Vec<Vec<&str>> = candidates
        .iter()
        .map(|&c| enclosing_chain(lines, c - 1))
        .collect();
    let (first, others) = chains.split_first()?;
    let depth = (0..first.len()).find(|&d| others.iter().all(|o| o.get(d) != Some(&first[d])))?;
    Some(first[..=depth].iter().rev().copied().collect())
}

/// How far up to look for an enclosing line.
const MAX_ENCLOSING_SCAN: usize = 500;

fn describe_failure(
    rel: &RelPath,
    lines: &[&str],
    hunk: &Hunk,
    e: LocateError,
    h: &mut HunkReport,
) {
    let first_old = hunk
        .old
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default();
    match e {
        LocateError::NotFound { closest, note } => {
            h.status = Outcome::Failed;
            let mut msg = format!(
                "Failed to find expected lines in {rel} (first expected line: {first_old:?}); no tier matched (exact, eol, trailing_ws, trimmed, unicode)."
            );
            if let Some(note) = note {
                msg.push_str(&format!(" Note: {note}."));
            }
            match &closest {
                Some(c) => {
                    msg.push_str(&format!(
                        " Closest real lines {}-{} (similarity {:.2}):\n",
                        c.start_line, c.end_line, c.similarity
                    ));
                    for l in &c.excerpt {
                        msg.push_str(&format!("    {:>5} | {}\n", l.line, l.text));
                    }
                    for d in &c.differences {
                        msg.push_str(&format!("  {d}\n"));
                    }
                    msg.push_str(&format!(
                        "  Next: copy those lines exactly as they are now (lancet read {rel} --offset {} --limit {}) and resend this chunk.",
                        c.start_line,
                        c.end_line + 1 - c.start_line
                    ));
                }
                None => msg.push_str(&format!(
                    " Nothing similar is in the file. Next: re-read it (lancet read {rel}) and resend this chunk with lines copied from it."
                )),
            }
            h.closest = closest;
            h.error = Some(msg);
        }
        LocateError::Ambiguous { tier, candidates } => {
            h.status = Outcome::Ambiguous;
            h.tier = Some(tier);
            let places: Vec<String> = candidates
                .iter()
                .map(|&c| match enclosing_line(lines, c - 1) {
                    Some((i, text)) => format!("line {c} (under line {}: {text:?})", i + 1),
                    None => format!("line {c}"),
                })
                .collect();
            let example = suggest_headers(lines, &candidates)
                .map(|hs| {
                    hs.iter()
                        .map(|h| format!("'@@ {h}'"))
                        .collect::<Vec<_>>()
                        .join(" then ")
                })
                .unwrap_or_else(|| "'@@ def name():'".to_string());
            h.error = Some(format!(
                "the expected lines are ambiguous in {rel}: they match at lines {} (tier {}): {}. Next: add an '@@' header naming the enclosing line of the one you mean (for example {example}), or more context lines, so exactly one place matches.",
                join_lines(&candidates),
                tier.name(),
                places.join("; ")
            ));
            h.candidates = candidates;
        }
        LocateError::ContextNotFound { header, closest } => {
            h.status = Outcome::Failed;
            let near = closest
                .as_ref()
                .map(|c| {
                    format!(
                        " The closest line is {} ({:?}); an @@ header must match a whole line.",
                        c.start_line,
                        c.excerpt.first().map(|l| l.text.as_str()).unwrap_or("")
                    )
                })
                .unwrap_or_default();
            h.error = Some(format!(
                "Failed to find context '{header}' in {rel}.{near} Next: copy the header line exactly from the file, or drop the header."
            ));
            h.closest = closest;
        }
        LocateError::ContextAmbiguous { header, candidates } => {
            h.status = Outcome::Ambiguous;
            h.error = Some(format!(
                "the @@ context '{header}' is ambiguous in {rel}: it occurs at lines {}. Next: stack an outer header (for example '@@ class Name') before it, or add context lines.",
                join_lines(&candidates)
            ));
            h.candidates = candidates;
        }
    }
}

/// Builds the byte splice for one located hunk. Lines the hunk keeps (context) keep the file's
/// own bytes; inserted lines get the file's line ending (and, when the match ignored
/// indentation, the file's indentation); the file's final-newline state is preserved.
fn splice_for(file: &TextFile, at: Match, old: &[String], new: &[String]) -> Splice {
    let text = file.text();
    let lines = file.lines();
    let n = lines.len();
    let style = file.style();
    let eol = style.eol.as_str();
    let reindent = at.tier.ignores_indent().then(|| {
        let file_lines: Vec<&str> = (at.start..at.end).map(|i| file.line(i)).collect();
        (
            common_indent(old.iter().map(String::as_str)).to_string(),
            common_indent(file_lines.iter().copied()).to_string(),
        )
    });
    // (content, its own line ending if kept from the file)
    let mut pieces: Vec<(String, Option<&str>)> = Vec::new();
    let inserted = |s: &str| -> String {
        match &reindent {
            Some((from, to)) if !s.trim().is_empty() => match s.strip_prefix(from.as_str()) {
                Some(rest) => format!("{to}{rest}"),
                None => s.to_string(),
            },
            _ => s.to_string(),
        }
    };
    for op in similar::capture_diff_slices(Algorithm::Myers, old, new) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                let first = at.start + old_index;
                for &l in &lines[first..first + len] {
                    let own = (l.next > l.end).then(|| &text[l.end..l.next]);
                    pieces.push((text[l.start..l.end].to_string(), own));
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => {
                for line in &new[new_index..new_index + new_len] {
                    pieces.push((inserted(line), None));
                }
            }
        }
    }
    let mut start = if at.start < n {
        lines[at.start].start
    } else {
        text.len()
    };
    let end = if at.end > at.start {
        lines[at.end - 1].next
    } else {
        start
    };
    let open_end = at.end == n && n > 0 && !style.final_newline;
    let mut out = String::new();
    if pieces.is_empty() {
        if open_end && at.start > 0 && at.end > at.start {
            // Deleting the unterminated last line: the line before it becomes the last one and
            // loses its line ending, so the file still ends without a newline.
            start = lines[at.start - 1].end;
        }
    } else {
        if open_end && at.start == n {
            out.push_str(eol);
        }
        let count = pieces.len();
        for (i, (content, own)) in pieces.into_iter().enumerate() {
            out.push_str(&content);
            if !(open_end && i + 1 == count) {
                out.push_str(own.unwrap_or(eol));
            }
        }
    }
    Splice {
        start,
        end,
        text: out,
    }
}

/// The longest indentation prefix shared by every non-blank line.
fn common_indent<'a>(lines: impl Iterator<Item = &'a str>) -> &'a str {
    let mut common: Option<&str> = None;
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let ind = indent_of(line);
        common = Some(match common {
            None => ind,
            Some(c) => {
                let len = c
                    .bytes()
                    .zip(ind.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..len]
            }
        });
    }
    common.unwrap_or("")
}

fn unified_diff(path: &str, before: Option<&str>, after: Option<&str>) -> String {
    unified_diff_between(path, path, before, after)
}

fn unified_diff_between(from: &str, to: &str, before: Option<&str>, after: Option<&str>) -> String {
    let old_name = if before.is_some() {
        format!("a/{from}")
    } else {
        "/dev/null".into()
    };
    let new_name = if after.is_some() {
        format!("b/{to}")
    } else {
        "/dev/null".into()
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::Tier;

    fn splice(text: &str, at: (usize, usize, Tier), old: &[&str], new: &[&str]) -> String {
        let file = TextFile::new(text);
        let old: Vec<String> = old.iter().map(|s| s.to_string()).collect();
        let new: Vec<String> = new.iter().map(|s| s.to_string()).collect();
        let s = splice_for(
            &file,
            Match {
                start: at.0,
                end: at.1,
                tier: at.2,
            },
            &old,
            &new,
        );
        String::from_utf8(apply_splices(text.as_bytes(), &[s])).unwrap()
    }

    #[test]
    fn crlf_file_keeps_crlf_and_context_bytes() {
        assert_eq!(
            splice(
                "a\r\nb\r\nc\r\n",
                (0, 3, Tier::Eol),
                &["a", "b", "c"],
                &["a", "B", "c"]
            ),
            "a\r\nB\r\nc\r\n"
        );
    }

    #[test]
    fn missing_final_newline_is_preserved() {
        assert_eq!(
            splice("a\nb", (1, 2, Tier::Exact), &["b"], &["B", "C"]),
            "a\nB\nC"
        );
        assert_eq!(splice("a\nb", (1, 2, Tier::Exact), &["b"], &[]), "a");
        assert_eq!(splice("a\nb", (2, 2, Tier::Exact), &[], &["c"]), "a\nb\nc");
        assert_eq!(
            splice("a\nb", (0, 2, Tier::Exact), &["a", "b"], &["b", "a"]),
            "b\na"
        );
    }

    #[test]
    fn context_lines_keep_their_trailing_spaces() {
        assert_eq!(
            splice(
                "foo   \nbar\n",
                (0, 2, Tier::TrailingWs),
                &["foo", "bar"],
                &["foo", "baz"]
            ),
            "foo   \nbaz\n"
        );
    }

    #[test]
    fn trimmed_matches_reindent_inserted_lines() {
        assert_eq!(
            splice(
                "def f():\n\tif x:\n\t\treturn 1\n",
                (1, 3, Tier::Trimmed),
                &["    if x:", "        return 1"],
                &["    if x:", "        log()", "        return 2"]
            ),
            "def f():\n\tif x:\n\t    log()\n\t    return 2\n"
        );
    }

    #[test]
    fn insertion_into_empty_file() {
        assert_eq!(splice("", (0, 0, Tier::Exact), &[], &["x"]), "x\n");
    }
}
