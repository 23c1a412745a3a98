//! Whole-batch refusals and failures in words: a batch that could not be staged, the root's
//! lock not taken, a commit that did not happen or did not finish; each with what to do next.

use super::Words;
use crate::report::{Report, Status, Surface};
use lancet_core::failure::{BatchFailure, StageError, StateTrouble};
use lancet_core::kinds::ErrorKind;
use lancet_core::path::PathError;
use std::fmt;

impl Report {
    /// A path lancet will not touch (outside the root, through `.git` or its state, a link
    /// leading out): refused before anything under it is read or written.
    pub fn unsafe_path(e: &PathError) -> Report {
        Report::batch_error(
            Status::Refused,
            ErrorKind::UnsafePath,
            e.to_string(),
            "Use a path relative to the root, inside it, and outside .git.",
        )
    }

    /// A read that cannot show its file (`lancet read --json`), as a report like every other
    /// refusal, so a script reads it by the report's schema: the kind, why, and what to ask for
    /// instead.
    pub fn read_refused(kind: ErrorKind, detail: String) -> Report {
        let next = match kind {
            ErrorKind::Missing => "Read a file that exists, by its path relative to the root.",
            ErrorKind::UnsafePath => {
                "Read a path inside the root, outside .git and lancet's state."
            }
            ErrorKind::NotUtf8 => "lancet reads text: UTF-8, or a legacy encoding it recognises.",
            ErrorKind::NotRegular | ErrorKind::IsDirectory => {
                "Read a regular file (a directory's files one by one)."
            }
            ErrorKind::Usage => "Pass an --offset within the file's lines.",
            _ => "Check the file and read it again.",
        };
        let mut report = Report::batch_error(Status::Refused, kind, detail, next);
        report.message =
            report
                .message
                .replacen("Refused, nothing was written: ", "Cannot read: ", 1);
        report
    }

    /// A batch that could not be staged: nothing was written. `snapshots_kept` is how many
    /// reads the state keeps (for a base lancet no longer has).
    pub fn stage_refused(e: &StageError, surface: Surface, snapshots_kept: usize) -> Report {
        let (status, next) = match e {
            StageError::Path(p) => return Report::unsafe_path(p),
            StageError::Stale { path, .. } => (
                Status::Refused,
                format!(
                    "Someone changed it after your read; nothing was written. Re-read it ({}) and rebuild the edit from what it holds now, with the new sha256 as {}.",
                    surface.read(path),
                    surface.expect_flag()
                ),
            ),
            StageError::FileDirectoryConflict { .. } => (
                Status::Refused,
                "Nothing was written. Write the file or the directory, not both, in one batch."
                    .to_string(),
            ),
            StageError::NoSnapshot { path, .. } => (
                Status::Refused,
                format!(
                    "Nothing was written. Snapshots are kept by {} (the last {snapshots_kept} reads); read the file again and resend the edit against what it holds now.",
                    surface.read(path),
                ),
            ),
            StageError::ExpectedMissing { .. } => (
                Status::Refused,
                "Nothing was written. Check the path (it may have been moved or deleted since your read).".to_string(),
            ),
            StageError::Io { .. } => (
                Status::Error,
                "Nothing was written; check the path and permissions.".to_string(),
            ),
        };
        Report::batch_error(status, e.kind(), Words(e).to_string(), &next)
    }

    /// A batch (an edit, an undo, a recovery) that wrote nothing, or was rolled back.
    pub fn batch_failed(failure: &BatchFailure, surface: Surface) -> Report {
        let (status, next) = match failure {
            BatchFailure::Busy { .. } => (
                Status::Error,
                "Retry when the other lancet process is done.".to_string(),
            ),
            BatchFailure::StateDir { trouble, .. } => (Status::Error, state_advice(trouble, surface)),
            BatchFailure::ChangedWhileWriting { .. } => (
                Status::Refused,
                "Something else wrote the file meanwhile: re-read it and resend the edit."
                    .to_string(),
            ),
            BatchFailure::WriteFailed { .. } => (
                Status::Error,
                "Check permissions and free space, then resend the edit.".to_string(),
            ),
            BatchFailure::RootUnopenable { .. } => (
                Status::Error,
                "Pass an existing directory with -C.".to_string(),
            ),
            BatchFailure::RepositoryLookalike { .. } => (
                Status::Refused,
                "Nothing was written. Name the files otherwise (a test fixture of a repository can be created by the test itself, with `git init`).".to_string(),
            ),
            BatchFailure::Unconfined { .. } => (
                Status::Refused,
                "Nothing was written. Name the file by its real path inside the root.".to_string(),
            ),
            BatchFailure::SettingsProtected { .. } => (
                Status::Refused,
                match surface {
                    Surface::Mcp => "Nothing was written. Leave lancet's settings out of the edit (an undo that would change them is the user's to run: `lancet undo`); ask the user to change them if they must change.",
                    Surface::Cli => "Nothing was written. Edit lancet's settings by hand.",
                }
                .to_string(),
            ),
            BatchFailure::AmbiguousId { .. } => {
                (Status::Malformed, "Pass more of the id.".to_string())
            }
            BatchFailure::NoCheckpoint { .. } => {
                (Status::Refused, format!("See {}.", surface.log()))
            }
            BatchFailure::AlreadyUndone { by: Some(by), .. } => (
                Status::Refused,
                format!(
                    "Nothing was written. To redo it, undo the undo: {}.",
                    surface.undo_id(by)
                ),
            ),
            BatchFailure::AlreadyUndone { by: None, .. } => (
                Status::Refused,
                format!("Nothing was written. See {}.", surface.log()),
            ),
            BatchFailure::ForceOverUnread { id, .. } => (
                Status::Refused,
                format!(
                    "Nothing was written. Read those files first ({}), then undo with force again if their current content may go; or {} to restore only the files that did not change.",
                    surface.read("PATH"),
                    surface.undo_partial(id)
                ),
            ),
            BatchFailure::BatchRootUnopenable { .. }
            | BatchFailure::CheckpointsUnreadable { .. }
            | BatchFailure::CheckpointUnreadable { .. }
            | BatchFailure::CheckpointPathOutside { .. } => {
                (Status::Error, "Nothing was written.".to_string())
            }
            BatchFailure::RecoveryFailed { .. } => {
                (Status::Error, "Inspect the journal by hand.".to_string())
            }
            BatchFailure::Cancelled => (
                Status::Refused,
                "Nothing was written. Send the call again to apply it.".to_string(),
            ),
        };
        Report::batch_error(status, failure.kind(), Words(failure).to_string(), &next)
    }

    /// Tests that must run in lancet's sandbox where none can be built (`why`): refused before
    /// any write.
    pub fn no_sandbox(why: &str, surface: Surface) -> Report {
        Report::batch_error(
            Status::Refused,
            ErrorKind::Sandbox,
            format!("the tests must run in lancet's sandbox, which cannot be built here: {why}"),
            match surface {
                Surface::Mcp => {
                    "Nothing was written. Resend without test, or ask the user to run the server where Landlock is available (or to start it with --no-sandbox)."
                }
                Surface::Cli => {
                    "Nothing was written. Run without --sandbox, or on a kernel with Landlock (Linux 5.13+)."
                }
            },
        )
    }

    /// Tests that would run where lancet cannot end what they start (`why`): refused before any
    /// write, since what they left running could change the tree after the verdict.
    pub fn tests_uncontained(why: &str, surface: Surface) -> Report {
        Report::batch_error(
            Status::Refused,
            ErrorKind::Sandbox,
            format!("the tests cannot run here: {why}"),
            match surface {
                Surface::Mcp => {
                    "Nothing was written. Resend without test, or ask the user to run the server where user namespaces, a cgroup v2 lancet may write, or /proc are available."
                }
                Surface::Cli => {
                    "Nothing was written. Run without --test, or where user namespaces, a cgroup v2 lancet may write, or /proc are available."
                }
            },
        )
    }

    /// An undo whose restore could not be written.
    pub fn undo_failed(failure: &BatchFailure) -> Report {
        Report::batch_error(
            Status::Error,
            ErrorKind::Io,
            Words(failure).to_string(),
            "Retry the undo.",
        )
    }
}

/// What to do when lancet cannot use its state, by what kept it: where the state lives decides
/// what must become writable, and nothing but that gets around it (the journal lives there even
/// without a checkpoint).
fn state_advice(trouble: &StateTrouble, surface: Surface) -> String {
    match (trouble, surface) {
        (StateTrouble::GitDirUnwritable { git_dir }, Surface::Cli) => format!(
            "Make {git_dir} writable (its permissions, a read-only mount or an immutable attribute) and run again. Nothing else gets around it: the journal lives there too, so --no-checkpoint does not help; --dry-run shows what the edit would do without writing anything."
        ),
        (StateTrouble::GitDirUnwritable { git_dir }, Surface::Mcp) => format!(
            "Nothing else gets around it: ask the user to make {git_dir} writable (lancet's journal and checkpoints live there), then resend the edit."
        ),
        (StateTrouble::RootUnwritable, Surface::Cli) => "Make the root writable (permissions, a read-only mount) and run again, or pass --dry-run to see what the edit would do without writing anything.".to_string(),
        (StateTrouble::RootUnwritable, Surface::Mcp) => {
            "Ask the user to make the root writable, then resend the edit.".to_string()
        }
        (StateTrouble::LockDir, _) => {
            "Make the lock directory your own (owned by you, chmod 700, no links in it) and run again.".to_string()
        }
        (StateTrouble::Misconfigured, Surface::Cli) => "Run `git status` in the root to see what git says of it, set GIT_DIR (or unset it), GIT_WORK_TREE or core.worktree so that git works there, and run again.".to_string(),
        (StateTrouble::Misconfigured, Surface::Mcp) => "Ask the user to fix the repository setup the server runs with (GIT_DIR, GIT_WORK_TREE, core.worktree): git refuses it too.".to_string(),
        (StateTrouble::Other, _) => "Make the root writable (permissions, a read-only mount, free space) and the lock directory your own (chmod 700), or pass --dry-run.".to_string(),
    }
}

/// Why lancet cannot use its state: where it lives and that it must be writable there, when
/// the file system refused the write; else what was wrong with it.
fn state_dir_unusable(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    error: &str,
    trouble: &StateTrouble,
) -> fmt::Result {
    let lives = match trouble {
        StateTrouble::GitDirUnwritable { git_dir } => {
            format!("in {git_dir}/lancet/ (inside the repository's git directory)")
        }
        StateTrouble::RootUnwritable => "in .lancet/ at the root".to_string(),
        _ => {
            return write!(
                f,
                "the lancet state directory cannot be used ({path}: {error}); nothing was written"
            );
        }
    };
    write!(
        f,
        "lancet keeps this root's state {lives}, and it must be writable there: {path}: {error}; nothing was written"
    )
}

impl fmt::Display for Words<'_, BatchFailure> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            BatchFailure::Busy { lock, waited_secs } => write!(
                f,
                "another lancet process is working on this root, or on a directory inside or around it ({lock} held for over {waited_secs}s); retry when it is done"
            ),
            BatchFailure::StateDir {
                path,
                error,
                trouble,
            } => state_dir_unusable(f, path, error, trouble),
            BatchFailure::ChangedWhileWriting { path } => write!(
                f,
                "{path} changed on disk while the edit was being prepared; nothing was written"
            ),
            BatchFailure::RootUnopenable { root, error } => {
                write!(f, "cannot open the root {root}: {error}")
            }
            BatchFailure::RepositoryLookalike { dir, into } => {
                let shown = if dir.is_empty() {
                    "the root".to_string()
                } else {
                    format!("{dir}/")
                };
                let why = if *into {
                    "writes config, commondir or hooks/ into the repository lookalike"
                } else {
                    "would make a git repository lookalike of"
                };
                write!(
                    f,
                    "the batch {why} {shown}: git takes a directory holding HEAD beside config, commondir, objects/ or refs/ for a repository, and runs what its config and hooks name when anyone runs git there"
                )
            }
            BatchFailure::Unconfined { path, why } => {
                write!(f, "lancet does not write {path}: {why}")
            }
            BatchFailure::SettingsProtected { path } => write!(
                f,
                "{path} holds lancet's settings, and configuration is the user's: a model cannot create, change, move or delete lancet.toml, or change the [tool.lancet] table of pyproject.toml"
            ),
            BatchFailure::AmbiguousId { prefix, ids } => write!(
                f,
                "the id prefix {prefix} names {} batches: {}",
                ids.len(),
                ids.join(", ")
            ),
            BatchFailure::NoCheckpoint { id: None } => write!(f, "no batch left to undo"),
            BatchFailure::NoCheckpoint { id: Some(id) } => write!(f, "no checkpoint {id}"),
            BatchFailure::AlreadyUndone { id, by: Some(by) } => {
                write!(
                    f,
                    "batch {id} is already undone by {by}; an undo never runs twice"
                )
            }
            BatchFailure::AlreadyUndone { id, by: None } => write!(
                f,
                "batch {id} is already undone (its tests failed and it was rolled back)"
            ),
            BatchFailure::ForceOverUnread { id, paths } => write!(
                f,
                "undo with force would overwrite {}, changed after batch {id}, which you have not read in this session (or which changed since you read it): forcing would destroy work nobody here has seen",
                paths.join(", ")
            ),
            BatchFailure::BatchRootUnopenable { root, id, error } => {
                write!(f, "cannot open the root {root:?} of batch {id}: {error}")
            }
            BatchFailure::CheckpointsUnreadable { error }
            | BatchFailure::RecoveryFailed { error } => write!(f, "{error}"),
            BatchFailure::Cancelled => {
                write!(f, "the call was cancelled before its batch was written")
            }
            BatchFailure::CheckpointUnreadable { id, error } => {
                write!(f, "checkpoint {id} is unreadable: {error}")
            }
            BatchFailure::CheckpointPathOutside { id, path } => write!(
                f,
                "checkpoint {id} names {path:?}, which is not a path inside the root (its metadata was not written by lancet)"
            ),
            BatchFailure::WriteFailed {
                path,
                error,
                intact,
            } => write!(
                f,
                "writing {path} failed: {error}; {}",
                if *intact {
                    "every file was restored to its state before the batch"
                } else {
                    "ROLLBACK INCOMPLETE: some files could not be restored (see lancet recover)"
                }
            ),
        }
    }
}
