//! Staging: run every operation of a batch against in-memory buffers, nothing on disk.
//!
//! Operations apply in order against an evolving buffer per file, so two Update sections for one
//! file, or an Add then a Delete, compose. Every failure is collected (not just the first) so the
//! model can fix everything in one retry; the batch is staged only if all operations succeed.

use crate::batch::{Batch, FileOp, Format, Hunk, LineEdit, OpKind, Span, split_lines};
use crate::digest::sha256_hex;
use crate::encoding::Transcoding;
use crate::explain;
use crate::locate::closest::NumberedLine;
use crate::locate::normalize::introduced_placeholder;
use crate::locate::{Hints, Match, Placement};
use crate::path::{PathError, RelPath, Root};
use crate::plan::{HunkPlan, plan_file};
use crate::report::{Action, ErrorKind, FileReport, HunkReport, Outcome, Surface};
use crate::staged::{Before, StagedFile};
use crate::text::{Eol, Splice, TextFile, apply_splices, replace_ranges, with_eol};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

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
    /// An expected hash (`--expect`, MCP `expected_sha256`) differs from the file.
    #[error(
        "{path} changed since it was read: expected sha256 {expected}, the file now has {actual}"
    )]
    Stale {
        /// The path.
        path: String,
        /// The hash the caller expected.
        expected: String,
        /// The file's hash now (`missing` if it does not exist).
        actual: String,
    },
    /// The batch writes a file at a path it (or the disk) also needs as a directory.
    #[error(
        "{inside} would be inside {file}, which the batch writes as a file: no write order can do both"
    )]
    FileDirectoryConflict {
        /// The path that is a file.
        file: String,
        /// The path that needs it to be a directory.
        inside: String,
    },
    /// An expected hash names a file that does not exist.
    #[error("{path} does not exist (a sha256 was expected for it: {expected})")]
    ExpectedMissing {
        /// The path.
        path: String,
        /// The hash the caller expected.
        expected: String,
    },
    /// A base names content lancet does not have: the file changed since that read, and no
    /// snapshot of what was read is kept to rebase the edit from.
    #[error(
        "{path} changed since it was read (sha256 {sha256}), and lancet keeps no snapshot of that content to rebase the edit from"
    )]
    NoSnapshot {
        /// The path.
        path: String,
        /// The hash the caller read.
        sha256: String,
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

/// Content for a file the batch creates, in the style the project's `.editorconfig` asks of a
/// file at that path: its line ending (`end_of_line` lf or crlf, applied when the content's own
/// endings are uniform), its final newline (`insert_final_newline`) and its BOM (`charset`
/// utf-8-bom or utf-8). Models write LF without a BOM; a new file in a CRLF project must not be
/// the odd one out. Without an `.editorconfig` (or for properties it leaves unset) the content
/// is kept as sent. Existing files keep their own style instead (see [`keep_text_style`]).
fn new_file_style(real: &std::path::Path, content: &str) -> String {
    use ec4rs::property::{Charset, EndOfLine, FinalNewline};
    let Ok(props) = ec4rs::properties_of(real) else {
        return content.to_string();
    };
    let (bom, body) = match content.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, content),
    };
    let lines = body.matches('\n').count();
    let crlf = body.matches("\r\n").count();
    let own_eol = if lines > 0 && crlf == lines {
        Eol::Crlf
    } else {
        Eol::Lf
    };
    let eol = match props.get::<EndOfLine>() {
        Ok(EndOfLine::CrLf) => Eol::Crlf,
        Ok(EndOfLine::Lf) => Eol::Lf,
        _ => own_eol,
    };
    let mut out = if eol != own_eol && (crlf == 0 || crlf == lines) {
        with_eol(body, eol)
    } else {
        body.to_string()
    };
    match props.get::<FinalNewline>() {
        Ok(FinalNewline::Value(true)) if !out.is_empty() && !out.ends_with('\n') => {
            out.push_str(eol.as_str())
        }
        Ok(FinalNewline::Value(false)) => {
            if let Some(stripped) = out.strip_suffix(eol.as_str()) {
                out.truncate(stripped.len());
            }
        }
        _ => {}
    }
    let bom = match props.get::<Charset>() {
        Ok(Charset::Utf8Bom) => true,
        Ok(Charset::Utf8) => false,
        _ => bom,
    };
    if bom {
        out.insert(0, '\u{feff}');
    }
    out
}

/// Whole new content for an existing file, in that file's style: its line ending when the file
/// is CRLF, and its BOM. (The final-newline state is the content's own: a whole file says it.)
fn keep_text_style(old: &TextFile, content: &str) -> String {
    let style = old.style();
    let mut out = if style.eol == Eol::Crlf {
        with_eol(content, Eol::Crlf)
    } else {
        content.to_string()
    };
    if style.bom && !out.starts_with('\u{feff}') {
        out.insert(0, '\u{feff}');
    }
    out
}

/// Refuses an operation on a directory or a special file (only regular files are edited).
fn regular_file(entry: &Entry, verb: &str, rel: &RelPath) -> Result<(), OpError> {
    if entry.is_dir {
        return Err(OpError::new(
            ErrorKind::IsDirectory,
            format!("cannot {verb} {rel}: it is a directory"),
        ));
    }
    if entry.is_special {
        return Err(OpError::new(
            ErrorKind::NotRegular,
            format!("cannot {verb} {rel}: it is not a regular file"),
        ));
    }
    Ok(())
}

/// Refuses whole-file content that introduces an omission placeholder (`// ... existing code
/// ...`) the file did not have: writing it would replace real code with the placeholder.
fn check_placeholder(rel: &RelPath, before: Option<&[u8]>, content: &str) -> Result<(), OpError> {
    let old = before
        .map(|b| split_lines(&String::from_utf8_lossy(b)))
        .unwrap_or_default();
    match introduced_placeholder(&old, &split_lines(content)) {
        Some(line) => Err(OpError::new(
            ErrorKind::Placeholder,
            format!(
                "the new content of {rel} contains the omission placeholder {line:?}; writing it would replace real code with it. Next: send the complete content, or edit only the part that changes."
            ),
        )),
        None => Ok(()),
    }
}

/// Why one operation failed: a stable kind and the message.
#[derive(Debug)]
struct OpError {
    kind: ErrorKind,
    message: String,
}

impl OpError {
    fn new(kind: ErrorKind, message: String) -> Self {
        OpError { kind, message }
    }
}

impl From<StageError> for OpError {
    fn from(e: StageError) -> Self {
        let kind = match &e {
            StageError::Path(_) => ErrorKind::UnsafePath,
            StageError::Stale { .. } | StageError::NoSnapshot { .. } => ErrorKind::Stale,
            StageError::ExpectedMissing { .. } => ErrorKind::Missing,
            StageError::FileDirectoryConflict { .. } => ErrorKind::PathConflict,
            StageError::Io { .. } => ErrorKind::Io,
        };
        OpError::new(kind, e.to_string())
    }
}

/// A caller's claim about a file's current content (`--expect PATH=SHA256`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// The path as the caller wrote it.
    pub path: String,
    /// The hex SHA-256 the caller saw.
    pub sha256: String,
}

/// What the model read of a file (`--base PATH=SHA256`, the MCP server's remembered reads):
/// when the file changed since, the batch's operations on it run against `snapshot` and the
/// result is merged into the file as it is now ([`crate::rebase`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The path as the caller wrote it.
    pub path: String,
    /// The hex SHA-256 of what the caller read.
    pub sha256: String,
    /// The bytes read, when the caller has them (the CLI loads them from the snapshots `lancet
    /// read` keeps); needed only when the file changed.
    pub snapshot: Option<Arc<Vec<u8>>>,
}

/// Stages a batch: validates every path first (no I/O), checks expectations and bases, then
/// runs the operations in memory (against a base's snapshot for a file that changed since).
/// With `partial`, operations and hunks that locate are staged even when others fail (the
/// failures are still reported).
pub fn stage(
    root: &Root,
    batch: &Batch,
    expect: &[Expectation],
    bases: &[Base],
    partial: bool,
    surface: Surface,
) -> Result<Staged, StageError> {
    for op in &batch.ops {
        root.file_rel(&op.path)?;
        if let OpKind::Update {
            move_to: Some(to), ..
        } = &op.kind
        {
            root.file_rel(to)?;
        }
    }
    let rebases = stale_bases(root, bases)?;
    let workspace = || Workspace {
        root,
        rebases: &rebases,
        entries: HashMap::new(),
        order: Vec::new(),
        op: 0,
        partial,
        format: batch.format,
        surface,
    };
    let mut ws = workspace();
    for e in expect {
        let rel = root.rel(&e.path)?;
        let key = ws.key(&rel, true)?;
        let actual = match &ws.entry(&key)?.disk {
            Before::File { sha256, .. } => sha256.clone(),
            _ => {
                return Err(StageError::ExpectedMissing {
                    path: rel.to_string(),
                    expected: e.sha256.clone(),
                });
            }
        };
        if !actual.eq_ignore_ascii_case(e.sha256.trim()) {
            return Err(StageError::Stale {
                path: rel.to_string(),
                expected: e.sha256.clone(),
                actual,
            });
        }
    }
    // Operations on disjoint files stage in parallel, each group of operations that share a
    // file in input order against its own buffers; the results are merged back in input order,
    // so the outcome is the same as one sequential pass.
    let groups = independent_groups(&ws, &batch.ops);
    let results: Vec<(Vec<OpResult>, Workspace)> = groups
        .into_par_iter()
        .map(|group| {
            let mut ws = workspace();
            let reports = group
                .into_iter()
                .map(|i| {
                    ws.op = i;
                    (i, ws.run(&batch.ops[i]))
                })
                .collect::<Vec<_>>();
            let mut reports = reports;
            ws.merge_rebased(&mut reports);
            (reports, ws)
        })
        .collect();
    let mut reports = Vec::with_capacity(batch.ops.len());
    let mut files: Vec<(usize, StagedFile)> = Vec::new();
    for (group_reports, ws) in results {
        reports.extend(group_reports);
        files.extend(ws.into_staged());
    }
    reports.sort_by_key(|(i, _)| *i);
    files.sort_by_key(|(i, _)| *i);
    if let Some((file, inside)) = file_directory_conflict(files.iter().map(|(_, f)| f)) {
        return Err(StageError::FileDirectoryConflict { file, inside });
    }
    Ok(Staged {
        files: files.into_iter().map(|(_, f)| f).collect(),
        reports: reports
            .into_iter()
            .map(|(_, r)| r)
            .collect::<Result<_, _>>()?,
    })
}

/// The bases whose file changed since the read, by the file's key, with the snapshot to run
/// the operations against; a base whose file is unchanged is only a check that it still is.
fn stale_bases(root: &Root, bases: &[Base]) -> Result<HashMap<RelPath, Arc<Vec<u8>>>, StageError> {
    let mut stale = HashMap::new();
    for base in bases {
        let rel = root.rel(&base.path)?;
        let key = root.resolve(&rel, true)?.real;
        let now = root
            .read_regular(&key)
            .ok_or_else(|| StageError::ExpectedMissing {
                path: rel.to_string(),
                expected: base.sha256.clone(),
            })?;
        if sha256_hex(&now).eq_ignore_ascii_case(base.sha256.trim()) {
            continue;
        }
        let snapshot = base
            .snapshot
            .clone()
            .filter(|s| sha256_hex(s).eq_ignore_ascii_case(base.sha256.trim()))
            .ok_or_else(|| StageError::NoSnapshot {
                path: rel.to_string(),
                sha256: base.sha256.clone(),
            })?;
        stale.insert(key, snapshot);
    }
    Ok(stale)
}

/// A path the batch writes as a file while it also writes a path inside it (`x` and `x/y`): no
/// order of writes can do both, so the batch is refused before anything is written. (A path
/// inside a file already on disk is refused earlier, as an unsafe path.)
fn file_directory_conflict<'a>(
    files: impl Iterator<Item = &'a StagedFile> + Clone,
) -> Option<(String, String)> {
    let written: Vec<&StagedFile> = files.filter(|f| f.after.is_some()).collect();
    for inner in &written {
        let inner_path = inner.path.as_str();
        if let Some(outer) = written.iter().find(|o| {
            inner_path.len() > o.path.as_str().len()
                && inner_path.starts_with(o.path.as_str())
                && inner_path.as_bytes()[o.path.as_str().len()] == b'/'
        }) {
            return Some((outer.path.to_string(), inner_path.to_string()));
        }
    }
    None
}

/// One operation's report, by its index in the batch.
type OpResult = (usize, Result<FileReport, StageError>);

/// Splits a batch's operations into groups that share no file (union of the files each one
/// may touch: its path with and without following a symlink, and a move's destination), each
/// group in input order, groups ordered by their first operation.
fn independent_groups(ws: &Workspace, ops: &[FileOp]) -> Vec<Vec<usize>> {
    let keys: Vec<Vec<String>> = ops
        .par_iter()
        .map(|op| {
            let mut paths = vec![op.path.as_str()];
            if let OpKind::Update {
                move_to: Some(to), ..
            } = &op.kind
            {
                paths.push(to);
            }
            let mut keys = Vec::new();
            for path in paths {
                let Ok(rel) = ws.root.rel(path) else { continue };
                for follow in [true, false] {
                    if let Ok(key) = ws.key(&rel, follow) {
                        keys.push(key.to_string());
                    }
                }
                keys.push(rel.to_string());
            }
            keys
        })
        .collect();
    let mut parent: Vec<usize> = (0..ops.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, op_keys) in keys.iter().enumerate() {
        for key in op_keys {
            match owner.get(key.as_str()) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
                None => {
                    owner.insert(key, i);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut slot: HashMap<usize, usize> = HashMap::new();
    for i in 0..ops.len() {
        let r = find(&mut parent, i);
        let g = *slot.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

struct Entry {
    disk: Before,
    is_dir: bool,
    is_special: bool,
    /// A regular file with other hard links: written in place, as replacing it by rename would
    /// split them.
    hard_linked: bool,
    current: Option<Vec<u8>>,
    mode: Option<u32>,
    /// For a symlink entry: the batch removes the link itself.
    remove_link: bool,
    /// What the model read, when the file changed since: `current` starts from it, and the
    /// result is merged into `disk` once the operations ran.
    rebase_from: Option<Arc<Vec<u8>>>,
    /// The last operation that touched the entry (the one a rebase's outcome is reported on).
    last_op: usize,
}

struct Workspace<'r> {
    root: &'r Root,
    /// Files that changed since the model read them, with what it read.
    rebases: &'r HashMap<RelPath, Arc<Vec<u8>>>,
    entries: HashMap<RelPath, Entry>,
    /// Keys in the order first touched, with the index of the operation that touched them.
    order: Vec<(usize, RelPath)>,
    /// The index of the operation running now.
    op: usize,
    partial: bool,
    format: Format,
    /// Whose words failure advice uses.
    surface: Surface,
}

impl Workspace<'_> {
    /// The settings an Update's hunks are located with.
    fn context(&self, partial: bool) -> EditContext {
        EditContext {
            partial,
            format: self.format,
            surface: self.surface,
        }
    }

    /// The key under which a path's content lives: its real location relative to the root, so a
    /// symlink and its target share one buffer.
    fn key(&self, rel: &RelPath, follow: bool) -> Result<RelPath, StageError> {
        Ok(self.root.resolve(rel, follow)?.real)
    }

    /// The key and entry of a file an operation rewrites: a regular file with no other hard
    /// links (or a missing one, for the operations that create).
    fn rewritable(&mut self, rel: &RelPath, verb: &str) -> Result<(RelPath, &mut Entry), OpError> {
        let key = self.key(rel, true).map_err(OpError::from)?;
        let entry = self.entry(&key).map_err(OpError::from)?;
        regular_file(entry, verb, rel)?;
        Ok((key, entry))
    }

    fn entry(&mut self, key: &RelPath) -> Result<&mut Entry, StageError> {
        if !self.entries.contains_key(key) {
            let dir = self.root.dir();
            let at = key.as_path();
            let io = |source| StageError::Io {
                path: key.to_string(),
                source,
            };
            let hard_linked = dir
                .symlink_metadata(at)
                .is_ok_and(|m| m.is_file() && cap_std::fs::MetadataExt::nlink(&m) > 1);
            let (disk, is_dir, is_special) = match dir.symlink_metadata(at) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    (Before::Missing, false, false)
                }
                Err(e) => return Err(io(e)),
                Ok(m) if m.file_type().is_symlink() => (
                    Before::Link {
                        target: dir.read_link_contents(at).map_err(io)?,
                    },
                    false,
                    false,
                ),
                Ok(m) if m.is_dir() => (Before::Missing, true, false),
                Ok(m) if m.is_file() => {
                    let bytes = dir.read(at).map_err(io)?;
                    let sha256 = sha256_hex(&bytes);
                    (
                        Before::File {
                            bytes,
                            sha256,
                            mode: cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o7777,
                        },
                        false,
                        false,
                    )
                }
                Ok(_) => (Before::Missing, false, true),
            };
            let rebase_from = match &disk {
                Before::File { .. } => self.rebases.get(key).cloned(),
                _ => None,
            };
            let (current, mode) = match (&disk, &rebase_from) {
                (Before::File { mode, .. }, Some(read)) => (Some(read.to_vec()), Some(*mode)),
                (Before::File { bytes, mode, .. }, None) => (Some(bytes.clone()), Some(*mode)),
                _ => (None, None),
            };
            self.order.push((self.op, key.clone()));
            self.entries.insert(
                key.clone(),
                Entry {
                    disk,
                    is_dir,
                    is_special,
                    hard_linked,
                    current,
                    mode,
                    remove_link: false,
                    rebase_from,
                    last_op: self.op,
                },
            );
        }
        let entry = self.entries.get_mut(key).expect("inserted above");
        entry.last_op = self.op;
        Ok(entry)
    }

    fn run(&mut self, op: &FileOp) -> Result<FileReport, StageError> {
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
        if let Err(e) = result {
            report.status = Outcome::Failed;
            report.kind = Some(e.kind);
            report.error = Some(e.message);
        }
        Ok(report)
    }

    fn create(
        &mut self,
        rel: &RelPath,
        content: &str,
        executable: bool,
        report: &mut FileReport,
    ) -> Result<(), OpError> {
        let key = self.key(rel, true).map_err(OpError::from)?;
        let at = self.root.path().join(key.as_str());
        let entry = self.entry(&key).map_err(OpError::from)?;
        regular_file(entry, "add", rel)?;
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
            Some(_) => Err(OpError::new(
                ErrorKind::Exists,
                format!(
                    "cannot add {rel}: it already exists with different content; use Update File to change it (read it first: {})",
                    self.surface.read(rel.as_str())
                ),
            )),
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
    ) -> Result<(), OpError> {
        let root = self.root;
        let declared = self.format == Format::Sketch;
        let (key, entry) = self.rewritable(rel, "write")?;
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
            Some(t) => t.encode(&content).map_err(|why| {
                OpError::new(
                    ErrorKind::Unencodable,
                    format!("cannot write {rel}: {why}; nothing was changed"),
                )
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
    ) -> Result<(), OpError> {
        let (_, entry) = self.rewritable(rel, "update")?;
        let Some(before) = entry.current.as_deref() else {
            return Err(OpError::new(
                ErrorKind::Missing,
                format!("cannot update {rel}: it no longer exists"),
            ));
        };
        if sha256_hex(before) != base_sha256 {
            return Err(OpError::new(
                ErrorKind::Stale,
                format!("{rel} changed after it was read; run the command again"),
            ));
        }
        let mut at = 0;
        for (i, span) in spans.iter().enumerate() {
            if span.start < at || span.end < span.start || span.end > before.len() {
                return Err(OpError::new(
                    ErrorKind::Overlap,
                    format!(
                        "{rel}: replacement {} overlaps another or leaves the file",
                        i + 1
                    ),
                ));
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
    ) -> Result<(), OpError> {
        let root = self.root;
        let (key, entry) = self.rewritable(rel, "append to")?;
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
        let file = TextFile::decode(&before).map_err(|e| {
            OpError::new(
                ErrorKind::NotUtf8,
                format!("cannot append to {rel}: the file is {e}; lancet edits only UTF-8 text"),
            )
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

    fn delete(&mut self, rel: &RelPath, report: &mut FileReport) -> Result<(), OpError> {
        let key = self.key(rel, false).map_err(OpError::from)?;
        let entry = self.entry(&key).map_err(OpError::from)?;
        regular_file(entry, "delete", rel)?;
        if matches!(entry.disk, Before::Link { .. }) {
            // A link to delete is its own entry, separate from its target's content.
            if entry.remove_link {
                return Err(OpError::new(
                    ErrorKind::Missing,
                    format!("cannot delete {rel}: it does not exist"),
                ));
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
            None => Err(OpError::new(
                ErrorKind::Missing,
                format!("cannot delete {rel}: it does not exist"),
            )),
        }
    }

    /// Line-anchored edits: their anchors checked against the file (the read's snapshot when
    /// the file changed since; the rebase then merges the result), then run as an update.
    fn lines(
        &mut self,
        rel: &RelPath,
        edits: &[LineEdit],
        report: &mut FileReport,
    ) -> Result<(), OpError> {
        let (_, entry) = self.rewritable(rel, "update")?;
        let as_read = entry.rebase_from.is_some();
        let Some(before) = entry.current.clone() else {
            return Err(OpError::new(
                ErrorKind::Missing,
                format!("cannot edit lines of {rel}: it does not exist"),
            ));
        };
        let file = TextFile::decode(&before).map_err(|e| {
            OpError::new(
                ErrorKind::NotUtf8,
                format!(
                    "cannot edit lines of {rel}: the file is {e}; lancet edits only UTF-8 text"
                ),
            )
        })?;
        let lines: Vec<&str> = (0..file.len())
            .map(|i| {
                let l = file.line(i);
                l.strip_suffix('\r').unwrap_or(l)
            })
            .collect();
        let (hunks, notes) = crate::locate::anchored::hunks(&lines, edits, as_read)
            .map_err(|message| OpError::new(ErrorKind::Stale, format!("{rel}: {message}")))?;
        report.notes.extend(notes);
        self.update(rel, &hunks, None, report)
    }

    fn update(
        &mut self,
        rel: &RelPath,
        hunks: &[Hunk],
        move_to: Option<&RelPath>,
        report: &mut FileReport,
    ) -> Result<(), OpError> {
        let dest_key = match move_to {
            Some(to) => Some(self.key(to, true).map_err(OpError::from)?),
            None => None,
        };
        let (key, entry) = self.rewritable(rel, "update")?;
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
                let dest = self.entry(&dest_key).map_err(OpError::from)?;
                if dest.is_dir || dest.is_special {
                    return Err(OpError::new(
                        ErrorKind::NotRegular,
                        format!("cannot move {rel} to {to}: {to} is a directory or special file"),
                    ));
                }
                match &dest.current {
                    Some(existing) if *existing != after => {
                        return Err(OpError::new(
                            ErrorKind::Exists,
                            format!(
                                "cannot move {rel} to {to}: {to} already exists with different content; delete it first or update it instead"
                            ),
                        ));
                    }
                    _ => {}
                }
                dest.current = Some(after);
                dest.mode = mode;
                // Moving a symlink moves the content it shows and removes the link itself; its
                // target is another name, which the move never named.
                let source = self.key(rel, false).map_err(OpError::from)?;
                if source == key {
                    self.entries.get_mut(&key).expect("loaded").current = None;
                } else {
                    self.entry(&source).map_err(OpError::from)?.remove_link = true;
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
    ) -> Result<(), OpError> {
        let missing = || {
            OpError::new(
                ErrorKind::Missing,
                format!(
                    "cannot update {rel}: it does not exist (create it with Add File, or check the path)"
                ),
            )
        };
        let (Some(_), Some(dest_key)) = (move_to, dest_key) else {
            return Err(missing());
        };
        let Some(dest_bytes) = self.entry(dest_key).map_err(OpError::from)?.current.clone() else {
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

    /// The changed files, each with the index of the operation that first touched it.
    /// Merges each rebased file's result (the operations ran on what the model read) into the
    /// file as it is now; a conflict, or a deletion of a file that changed, fails the last
    /// operation on it and leaves the file as it is.
    fn merge_rebased(&mut self, reports: &mut [OpResult]) {
        for entry in self.entries.values_mut() {
            let Some(read) = entry.rebase_from.take() else {
                continue;
            };
            let Before::File { bytes: now, .. } = &entry.disk else {
                continue;
            };
            let edited = entry.current.replace(now.clone());
            let Some(Ok(report)) = reports
                .iter_mut()
                .find(|(i, _)| *i == entry.last_op)
                .map(|(_, r)| r)
            else {
                continue;
            };
            if matches!(report.status, Outcome::Failed | Outcome::Ambiguous) {
                continue;
            }
            let path = report.path.clone();
            match edited {
                None => fail_rebase(
                    report,
                    ErrorKind::Stale,
                    format!(
                        "{path} changed since you read it; deleting it now would drop those changes unseen. Nothing was written. Next: read it again ({}) and decide.",
                        self.surface.read(&path)
                    ),
                ),
                Some(edited) if edited == *read => {}
                Some(edited) => match crate::rebase::merge(&read, now, &edited) {
                    Ok(merged) => {
                        renumber_rebased(report, &read, now, &edited, &merged.bytes);
                        report.notes.push(rebase_note(now, &merged));
                        if merged.bytes == *now {
                            report.status = Outcome::AlreadyApplied;
                            for h in &mut report.hunks {
                                h.status = Outcome::AlreadyApplied;
                            }
                        }
                        report.diff = std::str::from_utf8(now)
                            .ok()
                            .zip(std::str::from_utf8(&merged.bytes).ok())
                            .map(|(a, b)| unified_diff(&path, Some(a), Some(b)));
                        entry.current = Some(merged.bytes);
                    }
                    Err(regions) => fail_rebase(
                        report,
                        ErrorKind::RebaseConflict,
                        format!(
                            "{path} changed since you read it, and in {} those changes touch lines your edit changes (a 3-way merge of what you read, the file now and your edit; changes with no unchanged line between them conflict). Nothing was written.\n{}Next: read it again ({}) and resend the edit against the current text.",
                            if regions.len() == 1 {
                                "one region".to_string()
                            } else {
                                format!("{} regions", regions.len())
                            },
                            crate::rebase::render_regions(&regions),
                            self.surface.read(&path)
                        ),
                    ),
                },
            }
        }
    }

    fn into_staged(mut self) -> Vec<(usize, StagedFile)> {
        let mut out = Vec::new();
        for (op, key) in self.order {
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
                out.push((
                    op,
                    StagedFile {
                        path: key,
                        after_link: None,
                        in_place: e.hard_linked && e.current.is_some(),
                        mode: e.mode.filter(|_| e.current.is_some()),
                        before: e.disk,
                        after: e.current,
                    },
                ));
            }
        }
        out
    }
}

/// Renumbers a rebased operation's report into the file as it is (hunk places were found in
/// what the model read; snippets were cut from the snapshot with the edit) and cuts each
/// snippet again from the merged file.
fn renumber_rebased(
    report: &mut FileReport,
    read: &[u8],
    now: &[u8],
    edited: &[u8],
    merged: &[u8],
) {
    let to_now = crate::rebase::LineMap::between(read, now);
    let to_merged = crate::rebase::LineMap::between(edited, merged);
    let merged_text = String::from_utf8_lossy(merged);
    let merged_file = TextFile::new(&merged_text);
    for h in &mut report.hunks {
        h.start_line = h.start_line.map(|l| to_now.map(l));
        h.end_line = h.end_line.map(|l| to_now.map(l));
        for m in &mut h.matches {
            *m = [to_now.map(m[0]), to_now.map(m[1])];
        }
        if let (Some(first), Some(last)) = (h.snippet.first(), h.snippet.last()) {
            let (from, to) = (to_merged.map(first.line), to_merged.map(last.line));
            h.snippet = (from..=to.max(from))
                .filter(|&l| l >= 1 && l <= merged_file.len())
                .map(|l| numbered(&merged_file, l - 1))
                .collect();
        }
    }
}

/// Line `i` (0-based) of a file, numbered from 1 and without its line ending.
fn numbered(file: &TextFile, i: usize) -> NumberedLine {
    let l = file.line(i);
    NumberedLine {
        line: i + 1,
        text: l.strip_suffix('\r').unwrap_or(l).to_string(),
        hash: None,
    }
}

/// Fails an operation whose rebase could not be made.
fn fail_rebase(report: &mut FileReport, kind: ErrorKind, message: String) {
    report.status = Outcome::Failed;
    report.kind = Some(kind);
    report.error = Some(message);
    report.diff = None;
}

/// What a model must know of a rebased edit: that the file had changed, by how much, and
/// whether the change it sends was already there.
fn rebase_note(now: &[u8], merged: &crate::rebase::Merged) -> String {
    if merged.bytes == now {
        "it changed since you read it, and it already holds your change: nothing to write"
            .to_string()
    } else {
        format!(
            "it changed since you read it: your edit was applied to what you read, then rebased over {} changed line(s) of the file now (a 3-way merge, no conflict); the diff and line numbers are the file's now",
            merged.changed_lines
        )
    }
}

/// How one file's hunks are located and reported: the batch's settings an Update needs.
#[derive(Debug, Clone, Copy)]
struct EditContext {
    /// Keep the hunks that located when others failed.
    partial: bool,
    /// The edit's format (its matching contract).
    format: Format,
    /// Whose words failure advice uses.
    surface: Surface,
}

/// Locates and splices every hunk of one Update against `before`. Fills the hunk reports;
/// returns the new bytes, or `None` when nothing changes (every hunk already applied, or a hunk
/// failed and the batch is not partial).
fn edit_bytes(
    rel: &RelPath,
    before: &[u8],
    hunks: &[Hunk],
    ctx: EditContext,
    report: &mut FileReport,
) -> Result<Option<Vec<u8>>, OpError> {
    match Transcoding::of(before) {
        Ok(None) => edit_text(rel, before, hunks, ctx, report),
        Ok(Some(t)) => {
            let text = t.decode(before);
            let after = edit_text(rel, text.as_bytes(), hunks, ctx, report)?;
            if let Some(h) = report.hunks.first_mut() {
                h.notes.push(format!(
                    "{rel} was read as {} and is written back in it; untouched bytes are kept",
                    t.describe()
                ));
            }
            after
                .map(|a| t.encode(&String::from_utf8_lossy(&a)))
                .transpose()
                .map_err(|why| OpError::new(ErrorKind::Unencodable, format!("cannot update {rel}: {why}; nothing was changed. Send text the file's encoding can hold (an escape such as \\u2603 in a string literal)")))
        }
        Err(why) => Err(OpError::new(
            ErrorKind::NotUtf8,
            format!(
                "cannot update {rel}: the file is {why}, so lancet cannot edit it without risking its bytes (Delete File still works)"
            ),
        )),
    }
}

/// [`edit_bytes`] for UTF-8 text with LF or CRLF line endings.
fn edit_text(
    rel: &RelPath,
    before: &[u8],
    hunks: &[Hunk],
    ctx: EditContext,
    report: &mut FileReport,
) -> Result<Option<Vec<u8>>, OpError> {
    let file = TextFile::decode(before).map_err(|e| {
        OpError::new(
            ErrorKind::NotUtf8,
            format!("cannot update {rel}: the file is {e}; lancet edits only UTF-8 text (Delete File still works)"),
        )
    })?;
    let EditContext {
        partial,
        format,
        surface,
    } = ctx;
    let hints = Hints {
        fragments: matches!(format, Format::SearchReplace | Format::Json),
        explicit_removals: matches!(format, Format::Patch | Format::Unified),
        ..Hints::default()
    };
    let sketches: Vec<Result<Option<(Hunk, String)>, String>> = hunks
        .iter()
        .map(|h| resolve_hunk_sketch(h, hints.explicit_removals))
        .collect();
    let resolved: Vec<Hunk> = hunks
        .iter()
        .zip(&sketches)
        .map(|(h, s)| match s {
            Ok(Some((resolved, _))) => resolved.clone(),
            _ => h.clone(),
        })
        .collect();
    let hunks = resolved.as_slice();
    let plan = plan_file(&file, hunks, hints);
    let splices = plan.splices();
    // Failures are put into words against the file's lines, built only when one needs them.
    let lines = std::cell::OnceCell::new();
    report.hunks = plan
        .hunks
        .into_iter()
        .zip(hunks)
        .enumerate()
        .map(|(i, (planned, hunk))| {
            let mut h = HunkReport::new(i + 1, hunk.line);
            match planned {
                HunkPlan::Replace { placements, .. } => note_placements(&mut h, &placements),
                HunkPlan::Overlaps { placements, other } => {
                    note_placements(&mut h, &placements);
                    h.status = Outcome::Failed;
                    h.kind = Some(ErrorKind::Overlap);
                    h.error = Some(format!(
                        "chunk {} (lines {}-{}) overlaps chunk {} in {rel}; merge them into one chunk",
                        i + 1,
                        h.start_line.unwrap_or(0),
                        h.end_line.unwrap_or(0),
                        other + 1
                    ));
                }
                HunkPlan::AlreadyApplied { at } => {
                    set_range(&mut h, at);
                    h.status = Outcome::AlreadyApplied;
                }
                HunkPlan::NotLocated(e) => {
                    let lines = lines.get_or_init(|| file.line_strs());
                    explain::describe_failure(rel, lines, hunk, format, surface, e, &mut h);
                }
            }
            match &sketches[i] {
                Ok(Some((_, note))) => h.notes.push(note.clone()),
                Err(why) if h.kind == Some(ErrorKind::Placeholder) => {
                    h.error = h.error.take().map(|e| {
                        format!("{e} Read as a lazy sketch, it could not be placed: {why}.")
                    });
                }
                _ => {}
            }
            h
        })
        .collect();
    let failed = report
        .hunks
        .iter()
        .any(|h| matches!(h.status, Outcome::Failed | Outcome::Ambiguous));
    if failed {
        report.status = if report.hunks.iter().any(|h| h.status == Outcome::Ambiguous) {
            Outcome::Ambiguous
        } else {
            Outcome::Failed
        };
        if !partial {
            return Ok(None);
        }
    }
    if splices.is_empty() {
        if !failed {
            report.status = Outcome::AlreadyApplied;
        }
        return Ok(None);
    }
    let only: Vec<Splice> = splices.iter().map(|(_, s)| s.clone()).collect();
    let after = apply_splices(before, &only);
    attach_snippets(&file, &after, &splices, &mut report.hunks);
    Ok(Some(after))
}

/// A hunk whose new text elides old lines with markers, resolved against its own old text:
/// `Ok(None)` when it is no sketch, `Err` with the reason when it cannot be placed (the hunk
/// then fails as before, as a placeholder that would delete code).
fn resolve_hunk_sketch(
    hunk: &Hunk,
    explicit_removals: bool,
) -> Result<Option<(Hunk, String)>, String> {
    let hides = if explicit_removals {
        crate::locate::normalize::placeholder_hiding_deletions(&hunk.old, &hunk.new).is_some()
    } else {
        crate::sketch::is_sketch(&hunk.old, &hunk.new)
    };
    if !hides || hunk.old.is_empty() {
        return Ok(None);
    }
    let resolved = crate::sketch::resolve(&hunk.old, &hunk.new, false).map_err(|r| r.0)?;
    if resolved.lines == hunk.old {
        return Err(
            "read as a sketch it changes nothing (its markers keep every line the hunk removes)"
                .into(),
        );
    }
    let note = sketch_note(&resolved);
    let mut out = hunk.clone();
    if let Some(text) = &mut out.text {
        let mut new = resolved.lines.join("\n");
        if text.new.ends_with('\n') {
            new.push('\n');
        }
        text.new = new;
    }
    out.new = resolved.lines;
    Ok(Some((out, note)))
}

fn sketch_note(resolved: &crate::sketch::Resolved) -> String {
    format!(
        "read as a lazy sketch: its {} marker(s) kept {} old line(s) in place",
        resolved.markers, resolved.kept
    )
}

/// Whole-file content with markers, resolved against the file's text: `None` when it is no
/// sketch (or there is no old text), the resolved content otherwise. A sketch whose first and
/// last lines are concrete and each stand once in the file is a fragment: it stands for that
/// region, the lines around it kept. `declared` (`--format sketch`): the content is a sketch
/// even without markers, so a fragment, never the whole file.
fn resolve_whole_sketch(
    rel: &RelPath,
    before: Option<&[u8]>,
    content: &str,
    declared: bool,
    report: &mut FileReport,
) -> Result<Option<String>, OpError> {
    let Some(old) = before.and_then(|b| std::str::from_utf8(b).ok()) else {
        return Ok(None);
    };
    let old_ends_open = !old.is_empty() && !old.ends_with('\n');
    let old = split_lines(&old.replace("\r\n", "\n"));
    let new = split_lines(content);
    let markers = crate::sketch::is_sketch(&old, &new);
    if !markers && !declared {
        return Ok(None);
    }
    let refuse = |why: String| {
        let spelling = marker_spelling(rel, &new);
        OpError::new(
            ErrorKind::Placeholder,
            format!(
                "the new content of {rel} is a sketch (markers like `{spelling}`), and lancet could not place it: {why}. Nothing was written."
            ),
        )
    };
    let lines = match crate::sketch::fragment_region(&old, &new) {
        // A fragment: only its region is the sketch's; the rest of the file stays. Without
        // markers it is aligned all the same, so what it drops is dropped visibly.
        Ok(Some(region)) if declared || region.first > 0 || region.last + 1 < old.len() => {
            let resolved =
                crate::sketch::resolve_region(&old, region, &new).map_err(|r| refuse(r.0))?;
            report.notes.push(format!(
                "read as a sketch of old lines {}-{}, the rest of the file kept{}",
                region.first + 1,
                region.last + 1,
                if resolved.markers > 0 {
                    format!(
                        "; its {} marker(s) kept {} old line(s) in place",
                        resolved.markers, resolved.kept
                    )
                } else {
                    String::new()
                }
            ));
            [
                &old[..region.first],
                &resolved.lines[..],
                &old[region.last + 1..],
            ]
            .concat()
        }
        Err(why) if !markers => return Err(refuse(why.0)),
        _ => {
            let resolved = crate::sketch::resolve(&old, &new, true).map_err(|r| refuse(r.0))?;
            report.notes.push(sketch_note(&resolved));
            resolved.lines
        }
    };
    // The file's final newline stays as it is when its last line is kept; a sketch that
    // writes a new last line says for itself.
    let ends_on_old_last = !old.is_empty() && lines.last() == old.last();
    let final_newline = if ends_on_old_last {
        !old_ends_open
    } else {
        content.ends_with('\n') || content.is_empty()
    };
    let mut text = lines.join("\n");
    if final_newline && !text.is_empty() {
        text.push('\n');
    }
    Ok(Some(text))
}

/// How the sketch writes its markers (the first one), for messages in the model's own words;
/// without one, the marker in the file's comment syntax.
fn marker_spelling(rel: &RelPath, new: &[String]) -> String {
    let hash_comments = matches!(
        rel.as_str().rsplit('.').next(),
        Some("py" | "pyi" | "rb" | "sh" | "bash" | "toml" | "yaml" | "yml" | "pl" | "r")
    );
    new.iter()
        .map(|l| l.trim())
        .find(|t| {
            crate::locate::normalize::is_placeholder_line(t) || *t == "..." || *t == "\u{2026}"
        })
        .unwrap_or(if hash_comments {
            "# ... existing code ..."
        } else {
            "// ... existing code ..."
        })
        .to_string()
}

/// Lines of context shown around each applied change.
const SNIPPET_CONTEXT: usize = 3;
/// Most lines in one snippet.
const SNIPPET_MAX: usize = 12;

/// Gives each applied hunk a numbered excerpt of the result around its change, so a model need
/// not re-read the file.
fn attach_snippets(
    file: &TextFile,
    after: &[u8],
    splices: &[(usize, Splice)],
    hunks: &mut [HunkReport],
) {
    let Ok(new_text) = std::str::from_utf8(after) else {
        return;
    };
    let new_file = TextFile::new(new_text);
    let old_starts: Vec<usize> = file.lines().iter().map(|l| l.start).collect();
    let old_line_of = |b: usize| old_starts.partition_point(|&s| s <= b).saturating_sub(1);
    let mut order: Vec<&(usize, Splice)> = splices.iter().collect();
    order.sort_by_key(|(_, s)| (s.start, s.end));
    let mut delta: isize = 0;
    let text = file.text();
    for (hunk, s) in order {
        let removed = text[s.start..s.end].matches('\n').count() as isize;
        let added = s.text.matches('\n').count() as isize;
        let first_old = if s.start >= text.len() {
            file.len()
        } else {
            old_line_of(s.start)
        };
        let first_new = (first_old as isize + delta).max(0) as usize;
        let span = (added.max(1)) as usize;
        delta += added - removed;
        let h = &mut hunks[*hunk];
        if !h.snippet.is_empty() {
            continue;
        }
        let from = first_new.saturating_sub(SNIPPET_CONTEXT);
        let to = (first_new + span + SNIPPET_CONTEXT)
            .min(new_file.len())
            .min(from + SNIPPET_MAX);
        h.snippet = (from..to).map(|i| numbered(&new_file, i)).collect();
    }
}

/// A located hunk's report: where it landed, every tier note, and each place when it replaced
/// several.
fn note_placements(h: &mut HunkReport, placements: &[Placement]) {
    set_range(h, placements[0].at);
    for p in placements {
        for note in &p.notes {
            if !h.notes.contains(note) {
                h.notes.push(note.clone());
            }
        }
    }
    if placements.len() > 1 {
        h.matches = placements.iter().map(|p| line_range(p.at)).collect();
    }
}

fn line_range(at: Match) -> [usize; 2] {
    if at.start == at.end {
        [at.start, at.start]
    } else {
        [at.start + 1, at.end]
    }
}

fn set_range(h: &mut HunkReport, at: Match) {
    h.tier = Some(at.tier);
    h.insertion = at.start == at.end;
    let [s, e] = line_range(at);
    h.start_line = Some(s);
    h.end_line = Some(e);
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
mod parallel_tests {
    use super::*;
    use crate::format::{FormatChoice, ParseOptions, parse};

    fn batch(patch: &str) -> Batch {
        parse(patch, FormatChoice::Auto, &ParseOptions::default()).unwrap()
    }

    const PATCH: &str = "*** Begin Patch
*** Update File: a.txt
@@
-a1
+a2
*** Update File: b.txt
@@
-b1
+b2
*** Update File: link.txt
@@
-a2
+a3
*** Update File: c.txt
*** Move to: b2.txt
@@
-c1
+c2
*** Update File: b2.txt
@@
-c2
+c3
*** Add File: d.txt
+d
*** End Patch
";

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in [("a.txt", "a1\n"), ("b.txt", "b1\n"), ("c.txt", "c1\n")] {
            std::fs::write(dir.path().join(name), body).unwrap();
        }
        std::os::unix::fs::symlink("a.txt", dir.path().join("link.txt")).unwrap();
        dir
    }

    #[test]
    fn operations_sharing_a_file_group_together_in_input_order() {
        let dir = tree();
        let root = Root::new(dir.path()).unwrap();
        let rebases = HashMap::new();
        let ws = Workspace {
            root: &root,
            rebases: &rebases,
            entries: HashMap::new(),
            order: Vec::new(),
            op: 0,
            partial: false,
            format: Format::Patch,
            surface: Surface::Cli,
        };
        // a.txt and the link to it share a buffer; the move's destination is edited next.
        assert_eq!(
            independent_groups(&ws, &batch(PATCH).ops),
            vec![vec![0, 2], vec![1], vec![3, 4], vec![5]]
        );
    }

    #[test]
    fn parallel_staging_composes_edits_like_one_sequential_pass() {
        let dir = tree();
        let root = Root::new(dir.path()).unwrap();
        let staged = stage(&root, &batch(PATCH), &[], &[], false, Surface::Cli).unwrap();
        assert!(!staged.failed());
        let files: Vec<(String, Option<String>)> = staged
            .files
            .iter()
            .map(|f| {
                (
                    f.path.to_string(),
                    f.after.clone().map(|b| String::from_utf8(b).unwrap()),
                )
            })
            .collect();
        assert_eq!(
            files,
            vec![
                ("a.txt".to_string(), Some("a3\n".to_string())),
                ("b.txt".to_string(), Some("b2\n".to_string())),
                ("c.txt".to_string(), None),
                ("b2.txt".to_string(), Some("c3\n".to_string())),
                ("d.txt".to_string(), Some("d\n".to_string())),
            ]
        );
        let paths: Vec<&str> = staged.reports.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            paths,
            ["a.txt", "b.txt", "link.txt", "c.txt", "b2.txt", "d.txt"]
        );
    }
}

#[cfg(test)]
mod editorconfig_tests {
    use super::*;
    use crate::batch::FileOp;

    fn project(editorconfig: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".editorconfig"), editorconfig).unwrap();
        dir
    }

    #[test]
    fn new_files_take_the_editorconfig_line_ending_final_newline_and_bom() {
        let crlf = project("root = true\n[*]\nend_of_line = crlf\ninsert_final_newline = true\n");
        let file = crlf.path().join("a.txt");
        assert_eq!(new_file_style(&file, "x\ny"), "x\r\ny\r\n");
        assert_eq!(new_file_style(&file, "x\r\ny\r\n"), "x\r\ny\r\n");
        // Mixed endings are the content's own business: only the final newline is added.
        assert_eq!(new_file_style(&file, "x\r\ny\nz"), "x\r\ny\nz\r\n");
        assert_eq!(new_file_style(&file, ""), "");

        let lf = project(
            "root = true\n[*]\nend_of_line = lf\ninsert_final_newline = false\n[*.md]\ncharset = utf-8-bom\n",
        );
        assert_eq!(
            new_file_style(&lf.path().join("a.txt"), "x\r\ny\r\n"),
            "x\ny"
        );
        assert_eq!(new_file_style(&lf.path().join("a.md"), "x\n"), "\u{feff}x");
        assert_eq!(
            new_file_style(&lf.path().join("a.md"), "\u{feff}x"),
            "\u{feff}x"
        );

        let none = project("root = true\n[*.py]\nend_of_line = crlf\n");
        assert_eq!(new_file_style(&none.path().join("a.txt"), "x\ny"), "x\ny");
    }

    #[test]
    fn re_adding_a_file_written_in_the_editorconfig_style_is_already_applied() {
        let dir = project("root = true\n[*]\nend_of_line = crlf\n");
        std::fs::write(dir.path().join("a.txt"), "one\r\ntwo\r\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let batch = Batch {
            format: Format::Patch,
            ops: vec![FileOp {
                path: "a.txt".into(),
                kind: OpKind::Create {
                    content: "one\ntwo\n".into(),
                    executable: false,
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let staged = stage(&root, &batch, &[], &[], false, Surface::Cli).unwrap();
        assert_eq!(staged.reports[0].status, Outcome::AlreadyApplied);
        assert!(staged.files.is_empty());
    }
}
