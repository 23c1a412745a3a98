//! What a long-lived caller (the MCP server) keeps between calls on one root, and the facts that
//! say it still holds: the state as found (its directory handle and the checkpoint repository,
//! whose opening reads git's configuration files), and the settings as read (the user's file,
//! the root's `lancet.toml` and `pyproject.toml`, the trust record).
//!
//! Each is kept with the (device, inode, size, modification and change time) of every file its
//! finding or reading looked at, taken again on each call: any difference, a file appearing or
//! going included, and it is found or read afresh on that very call. The change time is the
//! kernel's (no program sets it), so a file rewritten to the same size and modification time is
//! still seen. Every per-call guarantee stays in the pipeline: the lock, the recovery check,
//! the compare-and-swap under the lock, the guard.

use crate::config::trust::PersonFiles;
use crate::config::{CONFIG_FILE, Config, ConfigError};
use lancet_core::Root;
use lancet_store::StateDir;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;

/// One file's identity and version as the file system says: `None` when there is none.
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64, u32)>;

/// The stamp of `path` (`follow`: through a link, as a read would go).
fn stamp(path: &Path, follow: bool) -> Stamp {
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .ok()?;
    let version = |v: i64| if meta.is_dir() { 0 } else { v };
    Some((
        meta.dev(),
        meta.ino(),
        if meta.is_dir() { 0 } else { meta.size() },
        version(meta.mtime()),
        version(meta.mtime_nsec()),
        version(meta.ctime()),
        version(meta.ctime_nsec()),
        meta.mode(),
    ))
}

/// What a long-lived caller keeps for one root between calls (see the module's doc).
#[derive(Debug, Default)]
pub struct Kept {
    state: Mutex<Option<(Vec<Stamp>, StateDir)>>,
    settings: Mutex<Option<(Vec<Stamp>, Config)>>,
}

impl Kept {
    /// Nothing kept yet: the first call finds and reads everything.
    pub fn new() -> Kept {
        Kept::default()
    }

    /// The root's settings as [`Config::load`] reads them, read again only when one of their
    /// files changed.
    pub(crate) fn settings(&self, root: &Root) -> Result<Config, ConfigError> {
        let stamps = settings_stamps(root);
        let mut kept = self.settings.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, config)) = kept.as_ref()
            && *seen == stamps
        {
            return Ok(config.clone());
        }
        let config = Config::load(root)?;
        // Read after the stamps: a change during the read shows at the next call.
        *kept = Some((stamps, config.clone()));
        Ok(config)
    }

    /// The state of `root`, as [`StateDir::locate`] finds it, found again only when a file
    /// its finding looked at changed.
    pub(crate) fn state(&self, root: &Root) -> StateDir {
        let mut kept = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, state)) = kept.as_ref()
            && *seen == state_stamps(root, state)
        {
            return state.clone();
        }
        let state = StateDir::locate(root);
        let stamps = state_stamps(root, &state);
        *kept = Some((stamps, state.clone()));
        state
    }
}

/// The files the settings of `root` are read from: the user's configuration, the root's
/// `lancet.toml` and `pyproject.toml`, and the trust record of the root.
fn settings_stamps(root: &Root) -> Vec<Stamp> {
    let person = PersonFiles::locate(Some(root));
    vec![
        person.config_file.as_deref().and_then(|p| stamp(p, true)),
        // Through a link, as the reader follows one inside the root.
        stamp(&root.path().join(CONFIG_FILE), true),
        stamp(&root.path().join("pyproject.toml"), true),
        person.record_path(root).and_then(|p| stamp(&p, true)),
    ]
}

/// The files finding the state of `root` looked at: `.git` in the root and in every directory
/// above it (git's search, and what decides a bare repository's lookalike), and in a
/// repository its git directory, `config` (`core.worktree`, `core.bare`) and `commondir`; and
/// the state directory itself, whose handle is kept (one removed or replaced since is found
/// and opened again, never written through in its old place).
fn state_stamps(root: &Root, state: &StateDir) -> Vec<Stamp> {
    let mut stamps: Vec<Stamp> = root
        .path()
        .ancestors()
        .map(|dir| stamp(&dir.join(".git"), false))
        .collect();
    stamps.push(stamp(&state.dir, false));
    if state.in_git {
        let git_dir = state.off_limits();
        stamps.push(stamp(git_dir, true));
        stamps.push(stamp(&git_dir.join("config"), true));
        stamps.push(stamp(&git_dir.join("commondir"), false));
    }
    stamps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_through_a_link_are_stamped_by_what_it_leads_to() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("conf")).unwrap();
        std::fs::write(tmp.path().join("conf/lancet.toml"), "[gate]\n").unwrap();
        std::os::unix::fs::symlink("conf/lancet.toml", tmp.path().join(CONFIG_FILE)).unwrap();
        let root = Root::new(tmp.path()).unwrap();
        let before = settings_stamps(&root);
        std::fs::write(
            tmp.path().join("conf/lancet.toml"),
            "[gate]\nenabled = false\n",
        )
        .unwrap();
        assert_ne!(settings_stamps(&root), before);
    }
}
