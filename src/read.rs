//! The read view an agent edits from: numbered lines plus the file's SHA-256.
//!
//! Agents should edit what they have read. The hash printed here is what `--expect PATH=SHA256`
//! takes, so a later edit is refused if the file changed in between.

use lancet_core::locate::closest::NumberedLine;
use lancet_core::sha256_hex;
use lancet_core::{NotUtf8, TextFile, TextStyle};
use lancet_core::{PathError, Root};
use serde::Serialize;

/// A window of a file's lines with its identity.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReadView {
    /// The path, relative to the root.
    pub path: String,
    /// SHA-256 of the whole file (not just the window).
    pub sha256: String,
    /// Number of lines in the file.
    pub total_lines: usize,
    /// Line ending, BOM and final-newline state.
    pub style: TextStyle,
    /// The window's lines.
    pub lines: Vec<NumberedLine>,
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Unsafe path.
    #[error(transparent)]
    Path(#[from] PathError),
    /// Missing or unreadable.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A FIFO, socket, device or directory: opening it for reading could block forever.
    #[error("cannot read {path}: it is not a regular file (a directory, FIFO, socket or device)")]
    NotRegular {
        /// The path.
        path: String,
    },
    /// A window that starts after the file's last line.
    #[error("{path} has {lines} line(s): offset {offset} is past its end")]
    PastEnd {
        /// The path.
        path: String,
        /// The 1-based line asked for.
        offset: usize,
        /// How many lines the file has.
        lines: usize,
    },
    /// Not UTF-8 text.
    #[error("cannot show {path}: the file is {source}")]
    NotText {
        /// The path.
        path: String,
        /// Where decoding failed.
        source: NotUtf8,
    },
}

impl ReadError {
    /// The stable kind a report of this refusal names.
    pub fn kind(&self) -> lancet_core::ErrorKind {
        use lancet_core::ErrorKind;
        match self {
            ReadError::Path(_) => ErrorKind::UnsafePath,
            ReadError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorKind::Missing
            }
            ReadError::Io { .. } => ErrorKind::Io,
            ReadError::NotRegular { .. } => ErrorKind::NotRegular,
            ReadError::PastEnd { .. } => ErrorKind::Usage,
            ReadError::NotText { .. } => ErrorKind::NotUtf8,
        }
    }
}

/// Reads `limit` lines (all when `None`) from 1-based line `offset` of a file under the root,
/// and keeps what it read as a snapshot for a later `--base` (the CLI's `lancet read`).
pub fn read(
    root: &Root,
    raw: &str,
    offset: usize,
    limit: Option<usize>,
) -> Result<ReadView, ReadError> {
    read_view(root, raw, offset, limit, true).map(|(view, _)| view)
}

/// [`read`] without keeping a snapshot: for a caller that remembers what it showed (the MCP
/// server), handed the very bytes the view shows, so what it remembers is what was read.
pub fn read_only(
    root: &Root,
    raw: &str,
    offset: usize,
    limit: Option<usize>,
) -> Result<(ReadView, Vec<u8>), ReadError> {
    read_view(root, raw, offset, limit, false)
}

fn read_view(
    root: &Root,
    raw: &str,
    offset: usize,
    limit: Option<usize>,
    keep: bool,
) -> Result<(ReadView, Vec<u8>), ReadError> {
    let rel = root.rel(raw)?;
    let resolved = root.resolve(&rel, true)?;
    let at = resolved.real.as_path();
    let meta = root
        .dir()
        .symlink_metadata(at)
        .map_err(|source| ReadError::Io {
            path: rel.to_string(),
            source,
        })?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: rel.to_string(),
        });
    }
    let bytes = root.dir().read(at).map_err(|source| ReadError::Io {
        path: rel.to_string(),
        source,
    })?;
    let file = TextFile::decode(&bytes).map_err(|source| ReadError::NotText {
        path: rel.to_string(),
        source,
    })?;
    if offset > file.len().max(1) {
        return Err(ReadError::PastEnd {
            path: rel.to_string(),
            offset,
            lines: file.len(),
        });
    }
    let first = offset.max(1) - 1;
    let last = limit.map_or(file.len(), |l| first.saturating_add(l).min(file.len()));
    let lines = (first.min(last)..last)
        .map(|i| {
            let l = file.line(i);
            NumberedLine {
                line: i + 1,
                text: l.strip_suffix('\r').unwrap_or(l).to_string(),
                hash: None,
            }
        })
        .collect();
    let sha256 = sha256_hex(&bytes);
    if keep {
        // What the model sees is kept, so an edit it writes against this read can be rebased
        // (`apply --base PATH=SHA256`) if the file changes before the edit arrives. Under the
        // root's lock and through the state's handle, like every state write; a root busy
        // for longer than the lock's wait keeps no snapshot (the read itself never fails).
        let state = lancet_store::StateDir::locate(root);
        if let Ok(_lock) = state.lock() {
            lancet_store::snapshots::keep(&state, &sha256, &bytes, rel.as_str());
        }
    }
    let view = ReadView {
        path: rel.to_string(),
        sha256,
        total_lines: file.len(),
        style: file.style(),
        lines,
    };
    Ok((view, bytes))
}

impl ReadView {
    /// The view with each line's anchor hash (`LINE:HASH`), for line-anchored edits.
    pub fn with_anchors(mut self) -> ReadView {
        for l in &mut self.lines {
            l.hash = Some(lancet_core::line_hash(&l.text));
        }
        self
    }

    /// The view as text: a header with the hash, then `number<TAB>line`, or `LINE:HASH|line`
    /// when it carries anchors.
    pub fn render(&self) -> String {
        let (first, last) = match (self.lines.first(), self.lines.last()) {
            (Some(a), Some(b)) => (a.line, b.line),
            _ => (0, 0),
        };
        let mut out = format!(
            "{}  lines {first}-{last} of {}  sha256 {}\n",
            self.path, self.total_lines, self.sha256
        );
        for l in &self.lines {
            match &l.hash {
                Some(hash) => out.push_str(&format!("{}:{hash}|{}\n", l.line, l.text)),
                None => out.push_str(&format!("{:>6}\t{}\n", l.line, l.text)),
            }
        }
        out
    }
}
