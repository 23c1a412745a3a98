//! What the server remembers of this session: the content of each file the model read or
//! wrote, the bases a stale edit is rebased from, and the read-before-overwrite rule.

use crate::LancetServer;
use crate::call::Call;
use crate::result::report_result;
use lancet::Base;
use lancet::sha256_hex;
use lancet::{Applied, Report, UnreadChange};
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
            let change = match &op.kind {
                OpKind::Write { .. } => UnreadChange::Overwritten,
                OpKind::Delete => UnreadChange::Deleted,
                OpKind::Update {
                    move_to: Some(_), ..
                } => UnreadChange::Moved,
                _ => return None,
            };
            let rel = root.rel(&op.path).ok()?;
            let existing = root.read_regular(&rel)?;
            // Read, then changed by someone else: the whole file is rebased over the change.
            let known = self.seen(rel.as_str()).is_some();
            (!known).then(|| {
                report_result(&Report::unread(
                    rel.as_str(),
                    &sha256_hex(&existing),
                    change,
                ))
            })
        })
    }

    pub(crate) fn remember(&self, path: &str, bytes: Vec<u8>) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_string(), bytes);
        }
    }

    /// The sha256 of what the model last read or wrote of each file, by path: what a forced
    /// undo may overwrite.
    pub(crate) fn read_hashes(&self) -> std::collections::HashMap<String, String> {
        self.seen
            .lock()
            .map(|seen| {
                seen.iter()
                    .map(|(path, bytes)| (path.clone(), sha256_hex(bytes)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn seen(&self, path: &str) -> Option<Vec<u8>> {
        self.seen.lock().ok()?.get(path).cloned()
    }

    /// What the model read of a file, as the base its write carries: the bytes it judged. The
    /// comparison with the file now happens under the root's lock, as late as the file system
    /// allows (an unchanged file is written over exactly those bytes, a changed one is rebased
    /// from them, or refused) — never decided here, before the lock.
    pub(crate) fn base_of(&self, rel: &str) -> Option<Base> {
        let seen = self.seen(rel)?;
        Some(Base {
            path: rel.to_string(),
            sha256: sha256_hex(&seen),
            snapshot: Some(Arc::new(seen)),
        })
    }

    /// [`Self::base_of`] of every file a batch edits, writes, deletes or moves, once each.
    pub(crate) fn bases(&self, batch: &Batch) -> Vec<Base> {
        let Ok(root) = self.root() else {
            return Vec::new();
        };
        let mut bases: Vec<Base> = Vec::new();
        for op in &batch.ops {
            if let Ok(rel) = root.rel(&op.path)
                && let Some(base) = self.base_of(rel.as_str())
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

    /// A writing call's result, remembering what the model now knows of the files it wrote,
    /// and noting in the `call` what its batch left (standing, or stopped by a signal).
    pub(crate) fn answer(&self, applied: Applied, call: &Call) -> CallToolResult {
        self.remember_written(&applied);
        call.record(&applied);
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
        let structured = refusal.structured_content.as_ref().unwrap();
        assert_eq!(structured["error"]["kind"], "unread", "{structured}");
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
    fn every_write_carries_what_the_model_read() {
        let root = TempRoot::new("stale");
        std::fs::write(root.path().join("a.txt"), "now\n").unwrap();
        std::fs::write(root.path().join("b.txt"), "same\n").unwrap();
        let server = root.server();
        // Nothing read: no base.
        assert!(server.base_of("a.txt").is_none());
        server.remember("a.txt", b"as read\n".to_vec());
        server.remember("b.txt", b"same\n".to_vec());
        let base = server.base_of("a.txt").unwrap();
        assert_eq!(base.path, "a.txt");
        assert_eq!(base.sha256, sha256_hex(b"as read\n"));
        assert_eq!(
            base.snapshot.as_deref().map(Vec::as_slice),
            Some(&b"as read\n"[..])
        );
        // Unchanged since the read: the base is carried all the same, and compared under the
        // lock (the file may change before the batch takes it).
        assert_eq!(
            server.base_of("b.txt").unwrap().sha256,
            sha256_hex(b"same\n")
        );
        // A batch gets one base per file it touches, whatever the number of its ops.
        let edits = batch(vec![
            ("a.txt", OpKind::Delete),
            ("b.txt", OpKind::Delete),
            ("a.txt", OpKind::Delete),
        ]);
        let bases = server.bases(&edits);
        assert_eq!(bases.len(), 2, "{bases:?}");
        assert_eq!(bases[0].sha256, base.sha256);
    }

    #[test]
    fn what_the_model_wrote_counts_as_read_and_a_refusal_wrote_nothing() {
        let root = TempRoot::new("written");
        std::fs::write(root.path().join("a.txt"), "old\n").unwrap();
        let server = root.server();
        let call = Call::default();
        let opts = lancet::ApplyOptions {
            checkpoint: false,
            fsync: false,
            ..server.options(&call).unwrap()
        };
        let created = batch(vec![(
            "b.txt",
            OpKind::Create {
                content: "new\n".to_string(),
                executable: false,
            },
        )]);
        let result = server.answer(lancet::apply_batch(&created, &opts), &call);
        assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
        // What stands, for a cancellation that comes after the answer left.
        assert_eq!(call.outcome().stands.as_deref(), Some("b.txt"));
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
        assert_eq!(server.answer(refused, &call).is_error, Some(true));
        assert_eq!(call.outcome().stands, None);
        assert!(server.seen("a.txt").is_none());
        assert!(
            server
                .unread_overwrite(&overwrite("a.txt", "x\n"))
                .is_some()
        );
    }
}
