//! The stable kinds every refusal and failure is named by, in one list: what models and scripts
//! match on in the JSON report.

use serde::Serialize;

/// Every stable kind a report can name, in one place: serialised as the snake_case names the
/// JSON has always carried, which models and scripts match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A file the operation needs does not exist.
    Missing,
    /// A file the operation would create already exists with other content.
    Exists,
    /// The path is a directory.
    IsDirectory,
    /// The path is a FIFO, socket, device or other non-regular file.
    NotRegular,
    /// The file is neither UTF-8 nor a legacy encoding that round-trips.
    NotUtf8,
    /// The new text cannot be written in the file's own encoding.
    Unencodable,
    /// The edit would write an omission placeholder (`// ... existing code ...`).
    Placeholder,
    /// The path leaves the root, names `.git` or `.lancet`, or goes through a link out.
    UnsafePath,
    /// The batch writes what makes other programs run code, which no edit may: a git
    /// repository lookalike, or (over MCP) lancet's own settings.
    Protected,
    /// The file changed since it was read (an expected hash differs, or it changed mid-batch).
    Stale,
    /// The file changed since the model read it and the edit's changes touch those changes:
    /// the 3-way merge conflicts (shown three ways).
    RebaseConflict,
    /// The batch needs one path as both a file and a directory.
    PathConflict,
    /// Undo: the file changed after the batch.
    ChangedSince,
    /// Two changes of one operation overlap.
    Overlap,
    /// Rename: OLD is not defined as the kind asked for.
    KindMismatch,
    /// A hunk's old text is nowhere in the file.
    NoMatch,
    /// A hunk's old text is in several places and nothing chooses one.
    Ambiguous,
    /// The number of matches differs from the number expected.
    CountMismatch,
    /// A hunk's `@@` context line is not in the file.
    ContextNotFound,
    /// The old and new texts elide different numbers of pieces.
    ElisionMismatch,
    /// The edit text cannot be parsed.
    Malformed,
    /// The command line is wrong.
    Usage,
    /// The project's configuration (`lancet.toml`, `[tool.lancet]`) is wrong.
    Config,
    /// A file-system error.
    Io,
    /// The checkpoint repository cannot be read or written.
    Git,
    /// Another lancet process holds the root (retry later).
    Busy,
    /// The state directory cannot be used (permissions, read-only, full).
    StateDir,
    /// The sandbox a test command or language server must run in cannot be built here (the
    /// kernel lacks Landlock).
    Sandbox,
    /// An id prefix names several batches.
    AmbiguousId,
    /// No batch matches (or none is left to undo).
    NoCheckpoint,
    /// Undo: the batch is undone already (an undo is itself a batch: undoing it redoes).
    AlreadyUndone,
    /// Over MCP: the call would overwrite a file the model has not read in this session (or
    /// that changed since its read).
    Unread,
    /// The caller cancelled the call before its commit point (over MCP, its client's
    /// `notifications/cancelled`): nothing was written, or the batch was rolled back.
    Cancelled,
    /// Rename: a name is not an identifier, or OLD equals NEW.
    InvalidName,
    /// Rename: a language lancet cannot rename in.
    UnknownLanguage,
    /// Rename: NEW is already used in a file the rename touches.
    NameInUse,
    /// Rename: code sites spelled OLD that lancet cannot decide are the symbol or not (the
    /// rename writes nothing unless told to rename them too or to leave them).
    UnresolvedSites,
    /// The syntax gate: the edit would introduce syntax errors (listed in `syntax.errors`).
    SyntaxError,
    /// The syntax gate ran out of time before it judged every file (listed in
    /// `syntax.unjudged`): nothing is written unjudged.
    GateTimeout,
    /// `mod --exec`: the command failed, or changed what a batch cannot carry.
    ExecFailed,
    /// Signature: a change that does not fit the definition (an unknown or duplicate
    /// parameter, an order Python rejects, a removed parameter the body still uses).
    InvalidSignature,
    /// Move: the move would make two modules import each other at module level.
    ImportCycle,
}

impl ErrorKind {
    /// Every kind, for documentation and its test.
    pub const ALL: [ErrorKind; 42] = [
        ErrorKind::Missing,
        ErrorKind::Exists,
        ErrorKind::IsDirectory,
        ErrorKind::NotRegular,
        ErrorKind::NotUtf8,
        ErrorKind::Unencodable,
        ErrorKind::Placeholder,
        ErrorKind::UnsafePath,
        ErrorKind::Protected,
        ErrorKind::Stale,
        ErrorKind::RebaseConflict,
        ErrorKind::PathConflict,
        ErrorKind::ChangedSince,
        ErrorKind::Overlap,
        ErrorKind::KindMismatch,
        ErrorKind::NoMatch,
        ErrorKind::Ambiguous,
        ErrorKind::CountMismatch,
        ErrorKind::ContextNotFound,
        ErrorKind::ElisionMismatch,
        ErrorKind::Malformed,
        ErrorKind::Usage,
        ErrorKind::Config,
        ErrorKind::Io,
        ErrorKind::Git,
        ErrorKind::Busy,
        ErrorKind::StateDir,
        ErrorKind::Sandbox,
        ErrorKind::AmbiguousId,
        ErrorKind::NoCheckpoint,
        ErrorKind::AlreadyUndone,
        ErrorKind::Unread,
        ErrorKind::Cancelled,
        ErrorKind::InvalidName,
        ErrorKind::UnknownLanguage,
        ErrorKind::NameInUse,
        ErrorKind::UnresolvedSites,
        ErrorKind::SyntaxError,
        ErrorKind::GateTimeout,
        ErrorKind::ExecFailed,
        ErrorKind::InvalidSignature,
        ErrorKind::ImportCycle,
    ];

    /// The kind's name in reports (`no_match`, `unsafe_path`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Missing => "missing",
            ErrorKind::Exists => "exists",
            ErrorKind::IsDirectory => "is_directory",
            ErrorKind::NotRegular => "not_regular",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::Unencodable => "unencodable",
            ErrorKind::Placeholder => "placeholder",
            ErrorKind::UnsafePath => "unsafe_path",
            ErrorKind::Protected => "protected",
            ErrorKind::Stale => "stale",
            ErrorKind::RebaseConflict => "rebase_conflict",
            ErrorKind::PathConflict => "path_conflict",
            ErrorKind::ChangedSince => "changed_since",
            ErrorKind::Overlap => "overlap",
            ErrorKind::KindMismatch => "kind_mismatch",
            ErrorKind::NoMatch => "no_match",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::CountMismatch => "count_mismatch",
            ErrorKind::ContextNotFound => "context_not_found",
            ErrorKind::ElisionMismatch => "elision_mismatch",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Usage => "usage",
            ErrorKind::Config => "config",
            ErrorKind::Io => "io",
            ErrorKind::Git => "git",
            ErrorKind::Busy => "busy",
            ErrorKind::StateDir => "state_dir",
            ErrorKind::Sandbox => "sandbox",
            ErrorKind::AmbiguousId => "ambiguous_id",
            ErrorKind::NoCheckpoint => "no_checkpoint",
            ErrorKind::AlreadyUndone => "already_undone",
            ErrorKind::Unread => "unread",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::InvalidName => "invalid_name",
            ErrorKind::UnknownLanguage => "unknown_language",
            ErrorKind::NameInUse => "name_in_use",
            ErrorKind::UnresolvedSites => "unresolved_sites",
            ErrorKind::SyntaxError => "syntax_error",
            ErrorKind::GateTimeout => "gate_timeout",
            ErrorKind::ExecFailed => "exec_failed",
            ErrorKind::InvalidSignature => "invalid_signature",
            ErrorKind::ImportCycle => "import_cycle",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The schema names every kind, so a consumer can match on the list rather than on a string.
impl schemars::JsonSchema for ErrorKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        schemars::json_schema!({
            "description": "A stable kind: what models and scripts match on (docs/report.md, the kinds).",
            "type": "string",
            "enum": names,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report's documented list of kinds (docs/report.md) is the contract scripts rely on:
    /// every kind is in it, and its JSON name is its documented name.
    #[test]
    fn every_error_kind_is_documented_under_its_json_name() {
        let readme = include_str!("../../../docs/report.md");
        for kind in ErrorKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert!(
                readme.contains(&format!("`{}`", kind.as_str())),
                "docs/report.md does not document the kind `{kind}`"
            );
        }
    }
}
