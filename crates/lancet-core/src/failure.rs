//! Why something failed, as facts: a whole batch that could not be staged ([`StageError`]),
//! one operation ([`OpFailure`]), one hunk ([`HunkFailure`]). Staging fills them where the
//! files are at hand; the renderer puts them into words, in the vocabulary of the surface that
//! shows them, when the report is built — no sentence is composed below it.

use crate::kinds::ErrorKind;
use crate::locate::LocateError;
use crate::path::PathError;
use crate::rebase::ConflictRegion;

/// A whole-batch refusal found before any operation runs.
#[derive(Debug)]
pub enum StageError {
    /// A path in the batch is unsafe; no I/O happened.
    Path(PathError),
    /// An expected hash (`--expect`, MCP `expected_sha256`) differs from the file.
    Stale {
        /// The path.
        path: String,
        /// The hash the caller expected.
        expected: String,
        /// The file's hash now (`missing` if it does not exist).
        actual: String,
    },
    /// The batch writes a file at a path it (or the disk) also needs as a directory.
    FileDirectoryConflict {
        /// The path that is a file.
        file: String,
        /// The path that needs it to be a directory.
        inside: String,
    },
    /// An expected hash names a file that does not exist.
    ExpectedMissing {
        /// The path.
        path: String,
        /// The hash the caller expected.
        expected: String,
    },
    /// A base names content lancet does not have: the file changed since that read, and no
    /// snapshot of what was read is kept to rebase the edit from.
    NoSnapshot {
        /// The path.
        path: String,
        /// The hash the caller read.
        sha256: String,
    },
    /// Reading failed.
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl From<PathError> for StageError {
    fn from(e: PathError) -> Self {
        StageError::Path(e)
    }
}

impl StageError {
    /// The stable kind an operation failing with it reports.
    pub fn kind(&self) -> ErrorKind {
        match self {
            StageError::Path(_) => ErrorKind::UnsafePath,
            StageError::Stale { .. } | StageError::NoSnapshot { .. } => ErrorKind::Stale,
            StageError::ExpectedMissing { .. } => ErrorKind::Missing,
            StageError::FileDirectoryConflict { .. } => ErrorKind::PathConflict,
            StageError::Io { .. } => ErrorKind::Io,
        }
    }
}

/// Why a batch (an edit, an undo, a recovery) wrote nothing: the root, the lock, what the batch
/// may not write, the commit, the checkpoints. The layer that finds it says which; the renderer
/// words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchFailure {
    /// Another lancet process holds the root.
    Busy {
        /// The lock file.
        lock: String,
        /// How long lancet waited, in seconds.
        waited_secs: u64,
    },
    /// The state directory, the lock directory or a lock file cannot be created, opened or
    /// trusted.
    StateDir {
        /// The directory or lock file.
        path: String,
        /// What the file system said.
        error: String,
        /// Where the state lives and what kind of trouble it is, so the advice fits.
        trouble: StateTrouble,
    },
    /// A target changed between staging and writing; nothing was written.
    ChangedWhileWriting {
        /// The path, relative to the root.
        path: String,
    },
    /// Writing failed; `intact` says whether every file was restored.
    WriteFailed {
        /// The path being written.
        path: String,
        /// What the file system said.
        error: String,
        /// Whether the rollback restored every file.
        intact: bool,
    },
    /// The root cannot be opened.
    RootUnopenable {
        /// The root as given.
        root: String,
        /// What the file system said.
        error: String,
    },
    /// The batch would make a directory a git repository lookalike (`into`: false), or writes
    /// into one (`into`: true): git would run what its config and hooks name.
    RepositoryLookalike {
        /// The directory, relative to the root (empty: the root).
        dir: String,
        /// Whether the directory is a lookalike already.
        into: bool,
    },
    /// A path the door will not write: named through `.git`, lancet's state or a symbolic
    /// link on the way (staging resolves links, so a batch meeting this was not lancet's own).
    Unconfined {
        /// The path, relative to the root.
        path: String,
        /// What makes it unwritable.
        why: String,
    },
    /// The batch changes lancet's settings where they are the person's (over MCP).
    SettingsProtected {
        /// The settings file.
        path: String,
    },
    /// An undo's id prefix names several batches.
    AmbiguousId {
        /// The prefix given.
        prefix: String,
        /// The ids it names.
        ids: Vec<String>,
    },
    /// No batch to undo: none left (`id`: none), or none with the id given.
    NoCheckpoint {
        /// The id given.
        id: Option<String>,
    },
    /// The batch is undone already: an undo never runs twice (it would revert a newer batch
    /// that made the same change).
    AlreadyUndone {
        /// The batch.
        id: String,
        /// The undo that undid it (none: its tests failed and it was rolled back).
        by: Option<String>,
    },
    /// A forced undo would overwrite files the caller has not read (over MCP: the model's reads
    /// in its session), or that changed since its read: work nobody who asked has seen.
    ForceOverUnread {
        /// The batch.
        id: String,
        /// The files.
        paths: Vec<String>,
    },
    /// The root of the batch to undo cannot be opened.
    BatchRootUnopenable {
        /// The batch's root, as its log entry names it.
        root: String,
        /// The batch.
        id: String,
        /// What the file system said.
        error: String,
    },
    /// The checkpoints cannot be opened.
    CheckpointsUnreadable {
        /// What git said.
        error: String,
    },
    /// One batch's checkpoint cannot be read.
    CheckpointUnreadable {
        /// The batch.
        id: String,
        /// What git said.
        error: String,
    },
    /// A checkpoint names a path that is not inside the root (its log entry was not lancet's).
    CheckpointPathOutside {
        /// The batch.
        id: String,
        /// The path it names.
        path: String,
    },
    /// Recovering an interrupted batch failed.
    RecoveryFailed {
        /// What went wrong.
        error: String,
    },
    /// The caller cancelled the call before its batch began to be written.
    Cancelled,
}

/// What kept lancet from its state, as the advice on a `state_dir` failure needs it: the fix
/// for a read-only `.git` is not the fix for a lock directory others may write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateTrouble {
    /// The state lives in `lancet/` inside the git directory of the repository holding the
    /// root, and the file system refused to create or write it there (permissions, a read-only
    /// mount, an immutable attribute).
    GitDirUnwritable {
        /// The repository's git directory (`.git`, or what `GIT_DIR` names).
        git_dir: String,
    },
    /// The state lives in `.lancet/` at the root, and the file system refused to create or
    /// write it there.
    RootUnwritable,
    /// The user's lock directory is not theirs alone, or holds a link where a lock file goes.
    LockDir,
    /// The environment or the repository's configuration names a repository git itself refuses
    /// to work in (`GIT_DIR` naming no repository, `core.worktree` in a bare one): lancet cannot
    /// tell which repository the person means.
    Misconfigured,
    /// Anything else: a link, a directory swapped in since the command started, no space.
    Other,
}

impl BatchFailure {
    /// The report's stable kind: `busy` (retry later), `state_dir` (fix the environment),
    /// `stale`, `io`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BatchFailure::Busy { .. } => ErrorKind::Busy,
            BatchFailure::StateDir { .. } => ErrorKind::StateDir,
            BatchFailure::ChangedWhileWriting { .. } => ErrorKind::Stale,
            BatchFailure::WriteFailed { .. }
            | BatchFailure::RootUnopenable { .. }
            | BatchFailure::BatchRootUnopenable { .. }
            | BatchFailure::RecoveryFailed { .. } => ErrorKind::Io,
            BatchFailure::RepositoryLookalike { .. } | BatchFailure::SettingsProtected { .. } => {
                ErrorKind::Protected
            }
            BatchFailure::AmbiguousId { .. } => ErrorKind::AmbiguousId,
            BatchFailure::NoCheckpoint { .. } => ErrorKind::NoCheckpoint,
            BatchFailure::AlreadyUndone { .. } => ErrorKind::AlreadyUndone,
            BatchFailure::ForceOverUnread { .. } => ErrorKind::Unread,
            BatchFailure::Cancelled => ErrorKind::Cancelled,
            BatchFailure::CheckpointsUnreadable { .. }
            | BatchFailure::CheckpointUnreadable { .. } => ErrorKind::Git,
            BatchFailure::CheckpointPathOutside { .. } | BatchFailure::Unconfined { .. } => {
                ErrorKind::UnsafePath
            }
        }
    }
}

/// What an operation was doing when it failed, for the words that say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doing {
    /// Adding a file.
    Add,
    /// Writing a whole file.
    Write,
    /// Updating (editing) a file.
    Update,
    /// Appending to a file.
    Append,
    /// Deleting a file.
    Delete,
    /// Editing lines of a file by their anchors.
    EditLines,
}

/// Why one operation could not be staged (the batch then writes nothing).
#[derive(Debug)]
pub enum OpFailure {
    /// A whole-batch condition met by this operation.
    Stage(StageError),
    /// The path is a directory.
    IsDirectory {
        /// The path.
        path: String,
        /// What the operation was doing.
        doing: Doing,
    },
    /// The path is a special file (a device, a socket, ...).
    NotRegular {
        /// The path.
        path: String,
        /// What the operation was doing.
        doing: Doing,
    },
    /// The file does not exist.
    Missing {
        /// The path.
        path: String,
        /// What the operation was doing.
        doing: Doing,
        /// Existing files it may have meant, best first (the same name elsewhere, a near
        /// spelling).
        nearest: Vec<String>,
    },
    /// A file to edit by byte spans is gone since it was read.
    Gone {
        /// The path.
        path: String,
    },
    /// A file to edit by byte spans changed since it was read.
    ChangedSinceRead {
        /// The path.
        path: String,
    },
    /// A byte span overlaps another or leaves the file.
    SpanOutside {
        /// The path.
        path: String,
        /// Its 1-based index.
        index: usize,
    },
    /// A file to add exists with other content.
    Exists {
        /// The path.
        path: String,
    },
    /// A move's destination exists with other content.
    MoveOntoExisting {
        /// The path moved.
        path: String,
        /// The destination.
        to: String,
    },
    /// A move's destination is a directory or special file.
    MoveOntoSpecial {
        /// The path moved.
        path: String,
        /// The destination.
        to: String,
    },
    /// The file is not text lancet can edit (not UTF-8, or a legacy encoding it cannot
    /// decode); `why` is the decoder's finding.
    NotText {
        /// The path.
        path: String,
        /// What the operation was doing.
        doing: Doing,
        /// What the decoder found.
        why: String,
    },
    /// The file's legacy encoding does not round-trip, so editing it would risk its bytes.
    Undecodable {
        /// The path.
        path: String,
        /// What the encoding check found.
        why: String,
    },
    /// The new text holds characters the file's encoding cannot.
    Unencodable {
        /// The path.
        path: String,
        /// What the operation was doing.
        doing: Doing,
        /// What the encoder found.
        why: String,
    },
    /// Whole new content holds an omission placeholder the file does not have.
    Placeholder {
        /// The path.
        path: String,
        /// The placeholder line.
        line: String,
    },
    /// Whole new content is a lazy sketch that could not be placed.
    SketchUnplaced {
        /// The path.
        path: String,
        /// How the sketch spells its markers.
        spelling: String,
        /// Why it could not be placed.
        why: Box<crate::sketch::Refusal>,
    },
    /// Line anchors that no longer hold.
    StaleAnchors {
        /// The path.
        path: String,
        /// What did not hold.
        why: crate::locate::anchored::AnchorProblem,
    },
    /// Line anchors sent without the read's sha256 that no one kept read of the file decides:
    /// an anchor's 3-character hash alone cannot tell the line read from one changed since.
    AnchorsUnread {
        /// The path.
        path: String,
        /// Kept reads every anchor holds in (0: none; more: they differ in the lines edited).
        fitting: usize,
    },
    /// A file changed since the model read it, and the edit deletes it.
    DeleteChanged {
        /// The path.
        path: String,
    },
    /// A file changed since the model read it, and the changes touch lines the edit changes.
    RebaseConflict {
        /// The path.
        path: String,
        /// The conflicting regions, three ways.
        regions: Vec<ConflictRegion>,
    },
}

impl From<StageError> for OpFailure {
    fn from(e: StageError) -> Self {
        OpFailure::Stage(e)
    }
}

impl OpFailure {
    /// The stable kind the report names.
    pub fn kind(&self) -> ErrorKind {
        match self {
            OpFailure::Stage(e) => e.kind(),
            OpFailure::IsDirectory { .. } => ErrorKind::IsDirectory,
            OpFailure::NotRegular { .. } | OpFailure::MoveOntoSpecial { .. } => {
                ErrorKind::NotRegular
            }
            OpFailure::Missing { .. } | OpFailure::Gone { .. } => ErrorKind::Missing,
            OpFailure::ChangedSinceRead { .. }
            | OpFailure::StaleAnchors { .. }
            | OpFailure::AnchorsUnread { .. }
            | OpFailure::DeleteChanged { .. } => ErrorKind::Stale,
            OpFailure::SpanOutside { .. } => ErrorKind::Overlap,
            OpFailure::Exists { .. } | OpFailure::MoveOntoExisting { .. } => ErrorKind::Exists,
            OpFailure::NotText { .. } | OpFailure::Undecodable { .. } => ErrorKind::NotUtf8,
            OpFailure::Unencodable { .. } => ErrorKind::Unencodable,
            OpFailure::Placeholder { .. } | OpFailure::SketchUnplaced { .. } => {
                ErrorKind::Placeholder
            }
            OpFailure::RebaseConflict { .. } => ErrorKind::RebaseConflict,
        }
    }
}

/// Why a hunk failed.
#[derive(Debug, Clone, PartialEq)]
pub enum HunkFailure {
    /// The matcher could not place it.
    NotLocated(LocateFailure),
    /// It was placed, over lines another hunk of the operation also changes.
    Overlaps {
        /// The file, relative to the root.
        path: String,
        /// Its 1-based index in the operation.
        index: usize,
        /// First line it matched (1-based).
        start_line: usize,
        /// Last line it matched (1-based).
        end_line: usize,
        /// The 1-based index of the hunk it overlaps.
        other: usize,
    },
}

/// Why a hunk could not be located, with what only the file's lines could tell: gathered by
/// staging where the file is at hand, worded by the renderer for the surface that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct LocateFailure {
    /// The file, relative to the root.
    pub path: String,
    /// What the matcher found.
    pub error: LocateError,
    /// The old text's first non-blank line.
    pub first_old: String,
    /// Whether the hunk has no old text (a line-anchored insertion).
    pub no_old_text: bool,
    /// How this edit's format says which place it means.
    pub remedy: Remedy,
    /// For an ambiguity: the listed candidates, each with the line that tells it apart.
    pub places: Vec<CandidatePlace>,
    /// For an ambiguity: stacked `@@` headers (outermost first) that single out the first
    /// candidate.
    pub headers: Option<Vec<String>>,
    /// Why the new text, read as a lazy sketch (its placeholder as a marker), could not be
    /// placed either.
    pub as_sketch: Option<Box<crate::sketch::Refusal>>,
}

/// How an edit says which of several places it means, by its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// More surrounding text in `old_string` (or `replace_all`).
    OldString,
    /// Neighbouring lines in the SEARCH block (or a `:start_line:N` hint).
    SearchBlock,
    /// An `@@` header singling the place out (an enclosing line, or a line above it that
    /// stands once), or more context.
    Headers,
}

/// One candidate of an ambiguity and what tells it apart from the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidatePlace {
    /// Its 1-based start line.
    pub line: usize,
    /// The 1-based line that tells it apart, its text, and how.
    pub apart_by: Option<(usize, String, Telling)>,
}

/// How a line tells a candidate of an ambiguity apart from the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Telling {
    /// It encloses the candidate and no other (`in "def f():"`).
    Encloses,
    /// It stands right before the candidate and before no other (`after "x = 1"`).
    JustBefore,
    /// It stands once in the file, above the candidate and below the one before: the
    /// candidate is the first after it, which is what an `@@` header naming it selects.
    FirstAfter,
}
