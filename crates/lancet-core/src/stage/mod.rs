//! Staging: run every operation of a batch against in-memory buffers, nothing on disk.
//!
//! Operations apply in order against an evolving buffer per file, so two Update sections for one
//! file, or an Add then a Delete, compose (a long run of substring edits to one file in one pass
//! when that gives the same result: `runs`). Every failure is collected (not just the first) so the
//! model can fix everything in one retry; the batch is staged only if all operations succeed.

mod hunks;
mod nearest;
mod ops;
mod present;
mod reads;
mod rebase;
mod runs;
mod sketches;
pub mod staged;
mod style;
mod workspace;

use crate::batch::{Batch, FileOp, OpKind};
pub use crate::failure::StageError;
use crate::path::Root;
use crate::report::{FileReport, Outcome};
use rayon::prelude::*;
use rebase::stale_bases;
use staged::{Before, StagedFile};
use std::collections::HashMap;
use std::sync::Arc;
use workspace::Workspace;

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

/// What a caller asks of staging beyond the batch.
#[derive(Debug, Clone, Copy, Default)]
pub struct StageOptions<'a> {
    /// Hashes the files must have now (`--expect`, MCP `expected_sha256`).
    pub expect: &'a [Expectation],
    /// What the model read, by hash: a file changed since is edited as read and rebased.
    pub bases: &'a [Base],
    /// The reads `lancet read` kept of files edited by line anchors that name no read and
    /// have no base, newest first: the newest every anchor holds in is their base.
    pub kept_reads: &'a [Base],
    /// Keep the operations and hunks that locate when others fail (the failures are still
    /// reported).
    pub partial: bool,
}

/// Stages a batch: validates every path first (no I/O), checks expectations and bases, then
/// runs the operations in memory (against a base's snapshot for a file that changed since).
/// With `partial`, operations and hunks that locate are staged even when others fail (the
/// failures are still reported).
pub fn stage(root: &Root, batch: &Batch, opts: &StageOptions) -> Result<Staged, StageError> {
    let StageOptions {
        expect,
        bases,
        kept_reads,
        partial,
    } = *opts;
    for op in &batch.ops {
        root.file_rel(&op.path)?;
        if let OpKind::Update {
            move_to: Some(to), ..
        } = &op.kind
        {
            root.file_rel(to)?;
        }
    }
    let anchored = reads::anchored_reads(root, batch, bases, kept_reads);
    let bases: Vec<Base> = bases.iter().cloned().chain(anchored.bases).collect();
    let rebases = stale_bases(root, &bases)?;
    let workspace = || Workspace {
        root,
        rebases: &rebases,
        unread: &anchored.unread,
        entries: HashMap::new(),
        order: Vec::new(),
        op: 0,
        partial,
        format: batch.format,
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
    let run_group = |group: Vec<usize>| {
        let mut ws = workspace();
        let mut reports = ws.run_group(&batch.ops, &group);
        ws.merge_rebased(&mut reports);
        (reports, ws)
    };
    // One group (a one-file edit): no thread pool is worth starting for it.
    let results: Vec<(Vec<OpResult>, Workspace)> = if groups.len() < 2 {
        groups.into_iter().map(run_group).collect()
    } else {
        groups.into_par_iter().map(run_group).collect()
    };
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
    judged_as_claimed(root, expect, &bases, &rebases, files.iter().map(|(_, f)| f))?;
    Ok(Staged {
        files: files.into_iter().map(|(_, f)| f).collect(),
        reports: reports
            .into_iter()
            .map(|(_, r)| r)
            .collect::<Result<_, _>>()?,
    })
}

/// The expectation every write carries is what was judged: each file staged against a hash the
/// caller claimed (`--expect`, or a base that needed no rebase) must have been staged from
/// exactly those bytes. The claim is checked on one read and the operations ran on another: a
/// write landing in between is refused here (`stale`) rather than carried into the commit as
/// the expected pre-image.
fn judged_as_claimed<'a>(
    root: &Root,
    expect: &[Expectation],
    bases: &[Base],
    rebased: &HashMap<crate::path::RelPath, std::sync::Arc<Vec<u8>>>,
    files: impl Iterator<Item = &'a StagedFile> + Clone,
) -> Result<(), StageError> {
    let claims = expect
        .iter()
        .map(|e| (&e.path, &e.sha256))
        .chain(bases.iter().map(|b| (&b.path, &b.sha256)));
    for (path, sha256) in claims {
        let rel = root.rel(path)?;
        let key = root.resolve(&rel, true)?.real;
        if rebased.contains_key(&key) {
            continue;
        }
        let Some(f) = files.clone().find(|f| f.path == key) else {
            continue;
        };
        let actual = match &f.before {
            Before::File { sha256, .. } => sha256.clone(),
            _ => "missing".to_string(),
        };
        if !actual.eq_ignore_ascii_case(sha256.trim()) {
            return Err(StageError::Stale {
                path: rel.to_string(),
                expected: sha256.clone(),
                actual,
            });
        }
    }
    Ok(())
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
    let keys_of = |op: &FileOp| {
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
    };
    let keys: Vec<Vec<String>> = if ops.len() < 2 {
        ops.iter().map(keys_of).collect()
    } else {
        ops.par_iter().map(keys_of).collect()
    };
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

#[cfg(test)]
mod parallel_tests {
    use super::*;
    use crate::batch::Format;
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
        let unread = HashMap::new();
        let ws = Workspace {
            root: &root,
            rebases: &rebases,
            unread: &unread,
            entries: HashMap::new(),
            order: Vec::new(),
            op: 0,
            partial: false,
            format: Format::Patch,
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
        let staged = stage(&root, &batch(PATCH), &StageOptions::default()).unwrap();
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
