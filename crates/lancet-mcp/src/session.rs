//! What the server remembers of this session: the content of each file the model read or
//! wrote, the bases a stale edit is rebased from, and the read-before-overwrite rule.

use crate::LancetServer;
use crate::result::{error_result, report_result};
use lancet::Applied;
use lancet::Base;
use lancet::Root;
use lancet::sha256_hex;
use lancet::{Batch, OpKind};
use rmcp::model::CallToolResult;
use std::sync::Arc;

impl LancetServer {
    /// The refusal for a batch that overwrites, deletes or moves an existing file the model
    /// has not read in this session: the rule of write_file, for every way to send one (a file
    /// read and changed since is rebased instead).
    pub(crate) fn unread_overwrite(&self, batch: &Batch) -> Option<CallToolResult> {
        let root = self.root().ok()?;
        batch.ops.iter().find_map(|op| {
            let what = match &op.kind {
                OpKind::Write { .. } => "overwritten",
                OpKind::Delete => "deleted",
                OpKind::Update {
                    move_to: Some(_), ..
                } => "moved",
                _ => return None,
            };
            let rel = root.rel(&op.path).ok()?;
            let existing = root.read_regular(&rel)?;
            // Read, then changed by someone else: the whole file is rebased over the change.
            let known = self.seen(rel.as_str()).is_some();
            (!known).then(|| {
                error_result(format!(
                    "{rel} exists and you have not read it in this session: read it first (read_file), then resend, so nothing you have not seen is {what} (sha256 now {}). Nothing was written.",
                    sha256_hex(&existing)
                ))
            })
        })
    }

    pub(crate) fn remember(&self, path: &str, bytes: Vec<u8>) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_string(), bytes);
        }
    }

    pub(crate) fn seen(&self, path: &str) -> Option<Vec<u8>> {
        self.seen.lock().ok()?.get(path).cloned()
    }

    /// What the model read of a file that changed since (another agent, a formatter, the user
    /// wrote it): the base its edit is applied to and rebased from.
    fn stale_base(&self, root: &Root, path: &str) -> Option<Base> {
        let rel = root.rel(path).ok()?;
        self.stale_base_of(rel.as_str(), &root.read_regular(&rel)?)
    }

    /// [`Self::stale_base`] of a file (by its relative path) whose bytes are read already.
    pub(crate) fn stale_base_of(&self, rel: &str, now: &[u8]) -> Option<Base> {
        let seen = self.seen(rel)?;
        (seen != now).then(|| Base {
            path: rel.to_string(),
            sha256: sha256_hex(&seen),
            snapshot: Some(Arc::new(seen)),
        })
    }

    /// What the model saw of a file edited by line anchors, changed since or not: their
    /// anchors are that content's (an anchor alone cannot tell its line from one changed into
    /// another of the same hash, so lancet refuses anchors that name no read).
    fn anchors_base(&self, root: &Root, path: &str) -> Option<Base> {
        let rel = root.rel(path).ok()?;
        let seen = self.seen(rel.as_str())?;
        Some(Base {
            path: rel.to_string(),
            sha256: sha256_hex(&seen),
            snapshot: Some(Arc::new(seen)),
        })
    }

    /// [`Self::stale_base`] of every file a batch edits or overwrites, once each; for a file it
    /// edits by line anchors, [`Self::anchors_base`].
    pub(crate) fn stale_bases(&self, batch: &Batch) -> Vec<Base> {
        let Ok(root) = self.root() else {
            return Vec::new();
        };
        let mut bases: Vec<Base> = Vec::new();
        for op in &batch.ops {
            let base = match op.kind {
                OpKind::Lines { .. } => self.anchors_base(&root, &op.path),
                _ => self.stale_base(&root, &op.path),
            };
            if let Some(base) = base
                && !bases.iter().any(|b| b.path == base.path)
            {
                bases.push(base);
            }
        }
        bases
    }

    /// Records what the model now knows of the files a batch wrote (a refused batch wrote
    /// nothing, and its message shows only excerpts): the bytes the batch handed back, and,
    /// for a path it reached through a symlink (reported under the link's name), what the link
    /// now reads as.
    fn remember_written(&self, applied: &Applied) {
        if applied.report.exit_code() != 0 {
            return;
        }
        for (path, bytes) in &applied.written {
            self.remember(path, bytes.clone());
        }
        let Ok(root) = self.root() else {
            return;
        };
        for f in &applied.report.files {
            let path = f.to.as_deref().unwrap_or(&f.path);
            if applied.written.iter().any(|(p, _)| p == path) {
                continue;
            }
            if let Ok(rel) = root.rel(path)
                && let Some(bytes) = root.read_regular(&rel)
            {
                self.remember(path, bytes);
            }
        }
    }

    /// A writing call's result, remembering what the model now knows of the files it wrote.
    pub(crate) fn answer(&self, applied: Applied) -> CallToolResult {
        self.remember_written(&applied);
        report_result(&applied.report)
    }
}

/// A name no other session of this machine has: the process and the moment it started.
pub(crate) fn session_name() -> String {
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("mcp:{}:{started}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerOptions;
    use lancet::{ErrorKind, Report, Status};
    use lancet::{FileOp, Format};
    use std::path::{Path, PathBuf};

    /// A root of its own under the system's temp directory, removed when dropped.
    struct TempRoot(PathBuf);

    impl TempRoot {
        fn new(name: &str) -> TempRoot {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let dir = std::env::temp_dir().join(format!(
                "lancet-mcp-session-{name}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            TempRoot(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }

        fn server(&self) -> LancetServer {
            LancetServer::new(self.0.clone(), None, ServerOptions::default())
        }
    }

    impl Drop for TempRoot {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn batch(ops: Vec<(&str, OpKind)>) -> Batch {
        Batch {
            format: Format::Whole,
            ops: ops
                .into_iter()
                .map(|(path, kind)| FileOp {
                    path: path.to_string(),
                    kind,
                    line: 1,
                })
                .collect(),
            notes: Vec::new(),
        }
    }

    fn overwrite(path: &str, content: &str) -> Batch {
        batch(vec![(
            path,
            OpKind::Write {
                content: content.to_string(),
            },
        )])
    }

    fn text_of(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect()
    }

    #[test]
    fn an_overwrite_or_deletion_of_an_unread_file_is_refused_until_it_is_read() {
        let root = TempRoot::new("unread");
        std::fs::write(root.path().join("a.txt"), "old\n").unwrap();
        let server = root.server();
        let refusal = server
            .unread_overwrite(&overwrite("a.txt", "new\n"))
            .expect("an unread file is not overwritten");
        assert_eq!(refusal.is_error, Some(true));
        let text = text_of(&refusal);
        assert!(
            text.contains("a.txt exists and you have not read it"),
            "{text}"
        );
        assert!(text.contains(&sha256_hex(b"old\n")), "{text}");
        assert!(text.contains("is overwritten"), "{text}");
        let delete = batch(vec![("a.txt", OpKind::Delete)]);
        assert!(text_of(&server.unread_overwrite(&delete).unwrap()).contains("is deleted"));
        // A new file needs no read.
        assert!(
            server
                .unread_overwrite(&overwrite("new.txt", "x\n"))
                .is_none()
        );
        // Once read (even if it changed since: the write is rebased), it may be overwritten.
        server.remember("a.txt", b"older\n".to_vec());
        assert!(
            server
                .unread_overwrite(&overwrite("a.txt", "new\n"))
                .is_none()
        );
        assert!(server.unread_overwrite(&delete).is_none());
    }

    #[test]
    fn a_file_changed_since_its_read_is_rebased_from_what_was_read() {
        let root = TempRoot::new("stale");
        std::fs::write(root.path().join("a.txt"), "now\n").unwrap();
        std::fs::write(root.path().join("b.txt"), "same\n").unwrap();
        let server = root.server();
        // Nothing read: no base.
        assert!(server.stale_base_of("a.txt", b"now\n").is_none());
        server.remember("a.txt", b"as read\n".to_vec());
        server.remember("b.txt", b"same\n".to_vec());
        let base = server.stale_base_of("a.txt", b"now\n").unwrap();
        assert_eq!(base.path, "a.txt");
        assert_eq!(base.sha256, sha256_hex(b"as read\n"));
        assert_eq!(
            base.snapshot.as_deref().map(Vec::as_slice),
            Some(&b"as read\n"[..])
        );
        // Unchanged since the read: nothing to rebase.
        assert!(server.stale_base_of("b.txt", b"same\n").is_none());
        // A batch gets one base per changed file it touches, whatever the number of its ops.
        let edits = batch(vec![
            ("a.txt", OpKind::Delete),
            ("b.txt", OpKind::Delete),
            ("a.txt", OpKind::Delete),
        ]);
        let bases = server.stale_bases(&edits);
        assert_eq!(bases.len(), 1, "{bases:?}");
        assert_eq!(bases[0].sha256, base.sha256);
    }

    #[test]
    fn what_the_model_wrote_counts_as_read_and_a_refusal_wrote_nothing() {
        let root = TempRoot::new("written");
        std::fs::write(root.path().join("a.txt"), "old\n").unwrap();
        let server = root.server();
        let opts = lancet::ApplyOptions {
            checkpoint: false,
            fsync: false,
            ..server.options().unwrap()
        };
        let created = batch(vec![(
            "b.txt",
            OpKind::Create {
                content: "new\n".to_string(),
                executable: false,
            },
        )]);
        let result = server.answer(lancet::apply_batch(&created, &opts));
        assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
        assert_eq!(server.seen("b.txt").as_deref(), Some(&b"new\n"[..]));
        assert!(
            server
                .unread_overwrite(&overwrite("b.txt", "newer\n"))
                .is_none()
        );
        // A refused batch leaves the session as it was, whatever it lists.
        let refused = Applied {
            report: Report::batch_error(
                Status::Refused,
                ErrorKind::Stale,
                "refused".to_string(),
                "",
            ),
            written: vec![("a.txt".to_string(), b"never written\n".to_vec())],
        };
        assert_eq!(server.answer(refused).is_error, Some(true));
        assert!(server.seen("a.txt").is_none());
        assert!(
            server
                .unread_overwrite(&overwrite("a.txt", "x\n"))
                .is_some()
        );
    }
}
