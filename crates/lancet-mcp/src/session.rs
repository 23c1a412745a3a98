//! What the server remembers of this session: the content of each file the model read or
//! wrote, the bases a stale edit is rebased from, and the read-before-overwrite rule.

use crate::LancetServer;
use crate::result::{error_result, report_result};
use lancet::Applied;
use lancet::batch::{Batch, OpKind};
use lancet::digest::sha256_hex;
use lancet::path::Root;
use lancet::stage::Base;
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

    /// [`Self::stale_base`] of every file a batch edits or overwrites, once each.
    pub(crate) fn stale_bases(&self, batch: &Batch) -> Vec<Base> {
        let Ok(root) = self.root() else {
            return Vec::new();
        };
        let mut bases: Vec<Base> = Vec::new();
        for op in &batch.ops {
            if let Some(base) = self.stale_base(&root, &op.path)
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
