//! Lancet as one step of a fleet engine: the provenance a step's report carries (`--provenance`).
//! Reading reports back is the report room's ([`crate::StepReport`]).

use crate::report::Provenance;
use std::path::Path;
use std::time::Duration;

/// The provenance of a step run at `root`: lancet's version, the repository (its `origin`
/// remote, else the root's name), the commit HEAD named, the edit's digest and the duration.
pub fn provenance(root: &Path, edit_sha256: String, duration: Duration) -> Provenance {
    let root = &root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let repo = git2::Repository::discover(root).ok();
    let base_commit = repo
        .as_ref()
        .and_then(|r| r.head().ok())
        .and_then(|h| h.peel_to_commit().ok())
        .map(|c| c.id().to_string());
    let remote = repo
        .as_ref()
        .and_then(|r| r.find_remote("origin").ok())
        .and_then(|r| r.url().ok().map(str::to_string));
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string());
    Provenance {
        lancet_version: env!("CARGO_PKG_VERSION").to_string(),
        root: root.display().to_string(),
        repository: remote.unwrap_or(name),
        base_commit,
        edit_sha256,
        duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
    }
}
