//! Line anchors sent without the read's sha256: the read they were written against, found among
//! the reads `lancet read` kept of the file.
//!
//! An anchor's hash is 3 characters: alone it cannot tell the line read from one changed since
//! into another of the same hash (1 in 46,656). So line-anchored edits always run on a read: the
//! one their `sha256` names, the caller's base (MCP: what the session saw), or else the newest
//! kept read of the file that every anchor holds in (rebased onto the file now, as any read). No
//! kept read holding them, or several that differ in the lines the edits change, refuses the
//! operation (`stale`), asking for the sha256.

use super::Base;
use crate::batch::{Batch, LineEdit, OpKind};
use crate::locate::anchored;
use crate::path::{RelPath, Root};
use crate::text::TextFile;
use std::collections::HashMap;

/// The reads chosen for line-anchored edits that named none, and the operations refused for
/// want of one.
#[derive(Debug, Default)]
pub(super) struct AnchoredReads {
    /// A base per file whose anchored edits named no read: its newest kept read they fit.
    pub(super) bases: Vec<Base>,
    /// Operations (by index) that no one kept read decides, with how many kept reads fit.
    pub(super) unread: HashMap<usize, usize>,
}

/// For every file a batch edits by line anchors with no `sha256` and no base of the caller's,
/// the read its first such operation fits among `kept` (the kept reads of those files, newest
/// first), or the refusal of its operations.
pub(super) fn anchored_reads(
    root: &Root,
    batch: &Batch,
    bases: &[Base],
    kept: &[Base],
) -> AnchoredReads {
    let rel = |path: &str| root.rel(path).ok();
    let mut out = AnchoredReads::default();
    let mut decided: HashMap<RelPath, bool> = HashMap::new();
    for (i, op) in batch.ops.iter().enumerate() {
        let OpKind::Lines {
            base_sha256: None,
            edits,
        } = &op.kind
        else {
            continue;
        };
        let Some(path) = rel(&op.path) else {
            continue;
        };
        if bases.iter().any(|b| rel(&b.path).as_ref() == Some(&path)) {
            continue;
        }
        if let Some(&found) = decided.get(&path) {
            if !found {
                out.unread.insert(i, 0);
            }
            continue;
        }
        let fitting: Vec<(&Base, Vec<String>)> = kept
            .iter()
            .filter(|b| rel(&b.path).as_ref() == Some(&path))
            .filter_map(|b| Some((b, edited_lines(b.snapshot.as_deref()?, edits)?)))
            .collect();
        match fitting.split_first() {
            Some(((read, lines), older)) if older.iter().all(|(_, other)| other == lines) => {
                out.bases.push(Base {
                    path: op.path.clone(),
                    ..(*read).clone()
                });
                decided.insert(path, true);
            }
            _ => {
                out.unread.insert(i, fitting.len());
                decided.insert(path, false);
            }
        }
    }
    out
}

/// The lines each edit changes (first to last) in `bytes`, when every anchor holds there.
fn edited_lines(bytes: &[u8], edits: &[LineEdit]) -> Option<Vec<String>> {
    let file = TextFile::decode(bytes).ok()?;
    let lines = anchored::lines_of(&file);
    if !anchored::hold_in(&lines, edits) {
        return None;
    }
    Some(
        edits
            .iter()
            .flat_map(|e| lines[e.first.line - 1..e.last.line.max(e.first.line)].iter())
            .map(|l| l.to_string())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::{LineAnchor, line_hash};
    use crate::batch::{FileOp, Format, LineAction};
    use crate::digest::sha256_hex;
    use std::sync::Arc;

    fn anchor(text: &str, n: usize) -> LineAnchor {
        let line = text.lines().nth(n - 1).unwrap();
        LineAnchor {
            line: n,
            hash: line_hash(line),
        }
    }

    fn replace(read: &str, first: usize, last: usize) -> Batch {
        Batch {
            format: Format::Anchors,
            ops: vec![FileOp {
                path: "m.py".into(),
                kind: OpKind::Lines {
                    base_sha256: None,
                    edits: vec![LineEdit {
                        action: LineAction::Replace,
                        first: anchor(read, first),
                        last: anchor(read, last),
                        lines: vec!["x".into()],
                        line: 1,
                    }],
                },
                line: 1,
            }],
            notes: Vec::new(),
        }
    }

    fn kept(text: &str) -> Base {
        Base {
            path: "m.py".into(),
            sha256: sha256_hex(text.as_bytes()),
            snapshot: Some(Arc::new(text.as_bytes().to_vec())),
        }
    }

    #[test]
    fn the_newest_kept_read_the_anchors_hold_in_is_the_base() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let read = "a\nb\nc\n";
        let batch = replace(read, 2, 2);
        // Newest first: a later read the anchor does not hold in, then the read.
        let found = anchored_reads(&root, &batch, &[], &[kept("a\nB\nc\n"), kept(read)]);
        assert!(found.unread.is_empty());
        assert_eq!(found.bases[0].sha256, sha256_hex(read.as_bytes()));
        // A base of the caller's decides alone.
        let given = anchored_reads(&root, &batch, &[kept(read)], &[]);
        assert!(given.bases.is_empty() && given.unread.is_empty());
    }

    #[test]
    fn no_kept_read_or_reads_that_differ_in_the_edited_lines_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let read = "a\nb\nc\nd\n";
        let batch = replace(read, 1, 3);
        let none = anchored_reads(&root, &batch, &[], &[]);
        assert_eq!(none.unread.get(&0), Some(&0));
        // Two reads both hold lines 1 and 3, and differ on line 2, which the edit replaces.
        let two = anchored_reads(&root, &batch, &[], &[kept("a\nX\nc\nd\n"), kept(read)]);
        assert_eq!(two.unread.get(&0), Some(&2));
        assert!(two.bases.is_empty());
        // Reads that differ only outside the edited lines agree: the newest is the base.
        let agree = anchored_reads(&root, &batch, &[], &[kept("a\nb\nc\nD\n"), kept(read)]);
        assert!(agree.unread.is_empty());
        assert_eq!(agree.bases[0].sha256, sha256_hex(b"a\nb\nc\nD\n"));
    }
}
