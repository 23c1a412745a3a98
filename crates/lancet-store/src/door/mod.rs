//! The door: the one way lancet writes into a tree.
//!
//! Every write lancet makes under a root — an edit in any format, a rename, a mod, the batch a
//! `mod --exec` became, a bisection's trial, an undo (forced or not), the rollback of a failed
//! test run, the recovery of a crashed batch, the quarantine of a planted repository — reaches
//! the disk through this module, and nothing else in lancet mutates the tree (a source scan in
//! the security suite holds every other file to that). A forward write is first *admitted*:
//! [`admit`] runs every check on the change as a whole and mints [`Admitted`], the token the
//! commit takes ([`prepare`]); nothing else mints it. The checks:
//!
//! - **confinement**: every path is a normalised relative path with no `.git` or `.lancet`
//!   component, outside the state directory and the repository's git directory (which
//!   `GIT_DIR` may put in the root), reached through no symlink (each ancestor is a real
//!   directory), and every access goes through the root's handle;
//! - **lancet's settings**, where the caller says they are the person's (over MCP): a change
//!   is refused when the settings lancet would read from the tree afterwards differ from those
//!   it reads now ([`SettingsJudge`], given by the facade, which owns the reader);
//! - **git repository lookalikes**, judged against the tree as it will be after the change
//!   ([`lookalike`]), again right before the renames;
//! - **hard links**: a file with other names gets its own inode unless the person chose to
//!   write through them.
//!
//! Rollbacks and recovery put back what a journal names, decided by content; they too pass the
//! lookalike check against the tree as it will be, and a path whose restore would complete a
//! lookalike is left as it is, its pre-image kept, and reported.

mod commit;
mod durable;
mod files;
pub mod lookalike;
pub(crate) mod ordered;
pub mod quarantine;
mod rollback;
mod swap;

pub use commit::{
    CommitError, LateWrite, Prepared, WriteOptions, Written, prepare, release, roll_back_committed,
    write,
};
pub(crate) use rollback::roll_back;

use lancet_core::staged::HardLinks;
use lancet_core::{BatchFailure, Before, RelPath, Root, StagedFile};
use std::sync::Arc;

/// Judges whether a change alters lancet's settings as lancet reads them: the facade owns the
/// settings reader, the door asks it.
pub trait SettingsJudge: Send + Sync {
    /// The first path whose change makes the settings lancet would read from the tree after
    /// `files` differ from those it reads now.
    fn changed_settings(&self, root: &Root, files: &[StagedFile]) -> Option<String>;
}

/// What the door checks besides what it always checks: the caller's protections.
#[derive(Clone, Default)]
pub struct Checks {
    /// Refuse changes of lancet's settings (the MCP server: configuration is the person's).
    pub settings: Option<Arc<dyn SettingsJudge>>,
    /// What a write does to a file with other hard links (the person's choice).
    pub hard_links: HardLinks,
}

impl std::fmt::Debug for Checks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checks")
            .field("settings", &self.settings.is_some())
            .field("hard_links", &self.hard_links)
            .finish()
    }
}

/// A change that passed every check of the door: the only way to a commit. Only [`admit`]
/// makes one.
pub struct Admitted<'a> {
    root: &'a Root,
    files: Vec<StagedFile>,
    split_hard_links: Vec<String>,
}

impl Admitted<'_> {
    /// The files admitted, as they will be written.
    pub fn files(&self) -> &[StagedFile] {
        &self.files
    }

    /// The files admitted, handed back (after the commit: what a report and a verdict need).
    pub fn into_files(self) -> Vec<StagedFile> {
        self.files
    }

    /// Files with other hard links that get an inode of their own (the default): their other
    /// names keep the old content, which the report says.
    pub fn split_hard_links(&self) -> &[String] {
        &self.split_hard_links
    }
}

/// Runs every check of the door on a change (see the module docs) and mints the token the
/// commit takes; the refusal names what failed. `off_limits` is what the state says no batch
/// may write ([`crate::StateDir::off_limits`]: the state, and in a repository its git
/// directory, which may lie in the root). A file with other hard links is set to get its own
/// inode here unless the person chose [`HardLinks::InPlace`].
pub fn admit<'a>(
    root: &'a Root,
    mut files: Vec<StagedFile>,
    off_limits: &std::path::Path,
    checks: &Checks,
) -> Result<Admitted<'a>, BatchFailure> {
    for f in files.iter() {
        confined(root, off_limits, &f.path)?;
    }
    if let Some(judge) = &checks.settings
        && let Some(path) = judge.changed_settings(root, &files)
    {
        return Err(BatchFailure::SettingsProtected { path });
    }
    if let Some(found) = lookalike::judge(root, &touches(&files)) {
        return Err(BatchFailure::RepositoryLookalike {
            dir: found.dir,
            into: found.into,
        });
    }
    let mut split = Vec::new();
    for f in files.iter_mut().filter(|f| f.in_place) {
        if checks.hard_links != HardLinks::InPlace || f.before == Before::Missing {
            f.in_place = false;
            split.push(f.path.to_string());
        }
    }
    Ok(Admitted {
        root,
        files,
        split_hard_links: split,
    })
}

/// The paths a batch touches, for the lookalike check.
fn touches(files: &[StagedFile]) -> Vec<lookalike::Touch<'_>> {
    files
        .iter()
        .map(|f| lookalike::Touch {
            path: f.path.as_str(),
            puts: f.puts_something(),
        })
        .collect()
}

/// Refuses a path that is not one lancet may write: re-validated as a state-read path would be
/// (no `.git`, no `.lancet`, normalised), outside the state directory and the repository's git
/// directory (`off_limits`), and reached through real directories only.
fn confined(root: &Root, off_limits: &std::path::Path, path: &RelPath) -> Result<(), BatchFailure> {
    let outside = |why: &str| BatchFailure::Unconfined {
        path: path.to_string(),
        why: why.to_string(),
    };
    if RelPath::from_state(path.as_str()).is_none() {
        return Err(outside(
            "it names .git, lancet's state or a step out of the root",
        ));
    }
    if root.path().join(path.as_path()).starts_with(off_limits) {
        return Err(outside(
            "it lies in lancet's state directory or the repository's git directory",
        ));
    }
    let mut ancestor = path.parent();
    while let Some(dir) = ancestor {
        if root
            .dir()
            .symlink_metadata(dir.as_path())
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(outside(&format!("{dir} on the way is a symbolic link")));
        }
        ancestor = dir.parent();
    }
    Ok(())
}
