//! Unified and git diffs (`diff -u`, `git diff`, Aider's udiff).
//!
//! Grammar, as lancet reads it:
//!
//! ```text
//! text     := (prose | fence | section)*            prose and fence lines outside hunks are ignored
//! section  := git_head? file_head? hunk*            a file: one operation
//! git_head := "diff --git " old new NL ext*
//! ext      := "index " … | "new file mode " m | "deleted file mode " m | "old mode " m | "new mode " m
//!           | "similarity index " n | "dissimilarity index " n | "rename from " p | "rename to " p
//! file_head:= "--- " path (TAB stamp)? NL "+++ " path (TAB stamp)? NL
//! hunk     := "@@" ( " -A[,B] +C[,D] @@" text? | any )? NL body+
//! body     := " " text | "-" text | "+" text | "" | "\ No newline at end of file"
//! path     := "/dev/null" | ("a/" | "b/")? name | '"' c-escaped name '"'
//! ```
//!
//! `/dev/null` on the old side creates the file from the `+` lines, on the new side deletes it;
//! anything else updates it, moving it when the two paths (or `rename from`/`rename to`) differ.
//! Git's `a/` and `b/` prefixes are removed when the old path has `a/` (or is `/dev/null`) and the
//! new one `b/` (or is `/dev/null`). Header numbers are hints: `A` becomes the hunk's line hint,
//! the counts `B`/`D` are never used to size anything — the body is read until the next `@@`, file
//! header, fence or end of text. A pure insertion (no context, no removed line) under a header
//! `-A,0` goes after line `A` (`0`: the top), since it has no lines to be found by.
//!
//! Leniencies (each is noted in the batch):
//! - prose and Markdown fences around and between diffs (a fence line ends a hunk and a file);
//! - bare `@@ … @@` and `@@` headers without numbers (Aider's udiff), and a first hunk with no
//!   `@@` line right after the file header;
//! - a fenced block of hunks with no file header edits the previous block's file (as a separate,
//!   later operation); hunks before any file header edit `--path`;
//! - blank lines at the end of a hunk are separators and dropped (unless the header's counts
//!   say they belong to the hunk); a blank line inside a hunk is an empty context line, or an
//!   empty added line in a new file;
//! - after a hunk whose body already has the header's counts, prose may follow without a fence
//!   (so does `git format-patch`'s `-- ` signature);
//! - a `/dev/null` old side whose hunks have context or removed lines is read as an update;
//! - a hunk identical to an earlier one of the same file (same lines and hint) is dropped;
//! - hunks that change nothing (context only) are dropped, except in a move.
//!
//! Refused: binary patches, combined diffs (`@@@`), copies, mode-only changes, pure renames
//! without a hunk (an update needs one: add one context line), a line inside a hunk that has
//! no diff prefix (unless the counts are met), and a fence that is opened around a diff but
//! never closed (a cut-off reply). A removed line `-- x` directly followed by an added line
//! `++ y` is read as a file header (`--- x` / `+++ y`); that pair cannot be told apart.

mod headers;
mod ops;

use super::{ParseError, ParseOptions};
use crate::batch::Batch;
use headers::{Side, git_line_paths, header_path, hunk_numbers, target_path};

const GIT_HEADER: &str = "diff --git ";
const DIFF_HEADER: &str = "diff ";
const SVN_INDEX: &str = "Index: ";
const OLD_HEADER: &str = "--- ";
const NEW_HEADER: &str = "+++ ";
const HUNK_HEADER: &str = "@@";
const COMBINED_HUNK_HEADER: &str = "@@@";
const DEV_NULL: &str = "/dev/null";
const OLD_PREFIX: &str = "a/";
const NEW_PREFIX: &str = "b/";
const NEW_FILE_MODE: &str = "new file mode ";
const DELETED_FILE_MODE: &str = "deleted file mode ";
const OLD_MODE: &str = "old mode ";
const NEW_MODE: &str = "new mode ";
const RENAME_FROM: &str = "rename from ";
const RENAME_TO: &str = "rename to ";
const COPY_FROM: &str = "copy from ";
const COPY_TO: &str = "copy to ";
const INDEX_LINE: &str = "index ";
const SIMILARITY: &str = "similarity index ";
const DISSIMILARITY: &str = "dissimilarity index ";
const GIT_BINARY: &str = "GIT binary patch";
const BINARY_FILES: &str = "Binary files ";
const BINARY_DIFFER: &str = " differ";
const NO_NEWLINE: u8 = b'\\';
/// The line `git format-patch` puts between the last hunk and its version signature.
const EMAIL_SIGNATURE: &str = "-- ";
const FENCES: [&str; 2] = ["```", "~~~"];
const SEARCH_MARKERS: [&str; 2] = ["<<<<<<<", "------- SEARCH"];
const BODY_EXPECTED: &str =
    "' ' (context line), '-' (removed line), '+' (added line) or '\\ No newline at end of file'";
const HEADERS_EXPECTED: &str = "'--- path' and '+++ path' lines, then '@@' hunks";

/// Whether the text looks like a unified diff: a `diff --git` line, or a `---`/`+++` pair and an
/// `@@` line, or text that starts (after an optional fence) with an `@@` hunk. Text holding
/// SEARCH/REPLACE markers is left to that format.
pub fn looks_like(text: &str) -> bool {
    let mut git = false;
    let mut file_header = false;
    let mut hunk = false;
    let mut prev_old_header = false;
    let mut first = None;
    for line in text.lines() {
        let t = line.trim_start();
        if SEARCH_MARKERS.iter().any(|m| t.starts_with(m)) {
            return false;
        }
        git |= line.starts_with(GIT_HEADER);
        file_header |= prev_old_header && line.starts_with(NEW_HEADER);
        prev_old_header = line.starts_with(OLD_HEADER);
        hunk |= line.starts_with(HUNK_HEADER);
        if first.is_none() && !t.is_empty() && !is_fence(line) {
            first = Some(line);
        }
    }
    git || (hunk && (file_header || first.is_some_and(|l| l.starts_with(HUNK_HEADER))))
}

/// Parses a unified or git diff into a batch; errors carry the 1-based line of the text.
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    // A `\r` before every line ending is the transport's (the patch was saved with CRLF); on
    // only some lines it is content (a patch adding or changing CRLF files), which `+`, `-` and
    // context lines keep. Structural lines (headers) never carry it.
    let transport = body.split('\n').all(|l| l.ends_with('\r'));
    let lines: Vec<&str> = body
        .split('\n')
        .map(|l| match l.strip_suffix('\r') {
            Some(bare) if transport || !is_body_line(bare) => bare,
            _ => l,
        })
        .collect();
    let mut parser = Parser {
        lines: &lines,
        opts,
        sections: Vec::new(),
        cur: None,
        hunk: None,
        fence_open: None,
        fenced_diff: false,
        fences: 0,
        notes: Notes::default(),
    };
    parser.run()?;
    parser.finish()
}

/// Whether a line can be a hunk's body line (`+`, `-`, context), whose bytes are content.
fn is_body_line(line: &str) -> bool {
    let header = line.starts_with("--- ") || line.starts_with("+++ ");
    !header && (line.starts_with(['+', '-', ' ']) || line.is_empty())
}

/// One line of a hunk body.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Context(String),
    Removed(String),
    Added(String),
    /// A line with no prefix at all: an empty context line, or a separator at the hunk's end.
    Blank,
}

impl Body {
    fn parse(line: &str) -> Option<Body> {
        match line.as_bytes().first() {
            None => Some(Body::Blank),
            Some(b' ') => Some(Body::Context(line[1..].to_string())),
            Some(b'-') => Some(Body::Removed(line[1..].to_string())),
            Some(b'+') => Some(Body::Added(line[1..].to_string())),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct RawHunk {
    /// 1-based line of the `@@` header (or of the first body line when there is none).
    line: usize,
    header: String,
    /// The old start `A` of `-A,B`, as written (0 for an insertion at the top).
    old_start: Option<usize>,
    /// The new start `C` of `+C,D`, as written.
    new_start: Option<usize>,
    counts: Option<(usize, usize)>,
    body: Vec<Body>,
    /// Indices of body lines followed by `\ No newline at end of file`.
    no_newline: Vec<usize>,
}

impl RawHunk {
    fn counts_of(body: &[Body]) -> (usize, usize) {
        body.iter().fold((0, 0), |(o, n), b| match b {
            Body::Context(_) | Body::Blank => (o + 1, n + 1),
            Body::Removed(_) => (o + 1, n),
            Body::Added(_) => (o, n + 1),
        })
    }

    fn trailing_blanks(&self) -> usize {
        self.body
            .iter()
            .rev()
            .take_while(|b| **b == Body::Blank)
            .count()
    }

    /// Whether the body has the header's counts, with or without its trailing blank lines.
    fn counts_met(&self) -> bool {
        let Some(counts) = self.counts else {
            return false;
        };
        let trimmed = self.body.len() - self.trailing_blanks();
        Self::counts_of(&self.body) == counts || Self::counts_of(&self.body[..trimmed]) == counts
    }

    fn changes(&self) -> bool {
        self.body
            .iter()
            .any(|b| matches!(b, Body::Added(_) | Body::Removed(_)))
    }

    fn has_old_lines(&self) -> bool {
        self.body
            .iter()
            .any(|b| matches!(b, Body::Context(_) | Body::Removed(_)))
    }
}

#[derive(Debug, Default)]
struct Section {
    /// 1-based line of the section's first header.
    line: usize,
    header: String,
    git: bool,
    git_paths: Option<(Side, Side)>,
    file_headers: Option<(Side, Side)>,
    /// A path given outright (a headerless block continuing a file, or `--path`).
    inherited: Option<String>,
    new_file: bool,
    /// `new file mode 100755`.
    new_executable: bool,
    deleted_file: bool,
    mode_change: bool,
    rename_from: Option<String>,
    rename_to: Option<String>,
    hunks: Vec<RawHunk>,
}

#[derive(Debug, Default)]
struct Notes {
    prose: usize,
    blank_separators: usize,
    inherited: Vec<String>,
    default_path: bool,
    implicit_hunks: usize,
    devnull_updates: Vec<String>,
    blank_added: usize,
    no_change_hunks: usize,
    duplicates: usize,
    mode_ignored: usize,
    no_newline_ignored: usize,
}

struct Parser<'t, 'l> {
    lines: &'l [&'t str],
    opts: &'l ParseOptions,
    sections: Vec<Section>,
    cur: Option<Section>,
    hunk: Option<RawHunk>,
    /// 0-based line of the fence that is open, if any.
    fence_open: Option<usize>,
    /// Whether a diff started inside the open fence.
    fenced_diff: bool,
    fences: usize,
    notes: Notes,
}

impl Parser<'_, '_> {
    fn error(&self, i: usize, expected: &str, message: impl Into<String>) -> ParseError {
        ParseError::new(i + 1, self.lines[i], expected, message)
    }

    fn is_file_header_pair(&self, i: usize) -> bool {
        self.lines[i].starts_with(OLD_HEADER)
            && self
                .lines
                .get(i + 1)
                .is_some_and(|l| l.starts_with(NEW_HEADER))
    }

    /// Whether line `i` ends a hunk: a new hunk, a file header, or a fence.
    fn is_boundary(&self, i: usize) -> bool {
        let line = self.lines[i];
        line.starts_with(HUNK_HEADER)
            || line.starts_with(DIFF_HEADER)
            || line.starts_with(SVN_INDEX)
            || is_fence(line)
            || self.is_file_header_pair(i)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        let mut i = 0;
        while i < self.lines.len() {
            let line = self.lines[i];
            if self.hunk.is_some() {
                if !self.is_boundary(i) {
                    let Some(hunk) = self.hunk.as_mut() else {
                        unreachable!("checked above")
                    };
                    if line.as_bytes().first() == Some(&NO_NEWLINE) {
                        if !hunk.body.is_empty() {
                            hunk.no_newline.push(hunk.body.len() - 1);
                        }
                        i += 1;
                        continue;
                    }
                    let signature = line == EMAIL_SIGNATURE
                        && hunk.counts == Some(RawHunk::counts_of(&hunk.body));
                    if !signature && let Some(body) = Body::parse(line) {
                        hunk.body.push(body);
                        i += 1;
                        continue;
                    }
                    if !signature && !hunk.counts_met() {
                        let start = hunk.line;
                        return Err(self.error(
                            i,
                            BODY_EXPECTED,
                            format!(
                                "line {} is inside the hunk that starts at line {} but has no diff prefix: every hunk line starts with ' ' (context), '-' (removed) or '+' (added); write an empty context line as a single space. If this is prose after the diff, put the diff in a ```diff fence",
                                i + 1,
                                start
                            ),
                        ));
                    }
                }
                self.close_hunk()?;
            }
            i = self.outside_hunk(i)?;
        }
        self.close_section()?;
        if let Some(open) = self.fence_open.filter(|_| self.fenced_diff) {
            return Err(self.error(
                open,
                "a closing fence after the diff",
                "the fence opened here around the diff is never closed: the reply looks cut off, so nothing was applied; send the whole diff again",
            ));
        }
        Ok(())
    }

    /// Handles line `i` outside any hunk; returns the next line to read.
    fn outside_hunk(&mut self, i: usize) -> Result<usize, ParseError> {
        let line = self.lines[i];
        if is_fence(line) {
            self.fences += 1;
            self.close_section()?;
            if self.fence_open.take().is_none() {
                self.fence_open = Some(i);
                self.fenced_diff = false;
            }
            return Ok(i + 1);
        }
        if let Some(rest) = line.strip_prefix(GIT_HEADER) {
            self.close_section()?;
            self.start_section(Section {
                line: i + 1,
                header: line.to_string(),
                git: true,
                git_paths: git_line_paths(rest),
                ..Section::default()
            });
            return Ok(i + 1);
        }
        if self.is_file_header_pair(i) {
            let old = Side::from_header(&line[OLD_HEADER.len()..]);
            let new = Side::from_header(&self.lines[i + 1][NEW_HEADER.len()..]);
            let joins_git = self
                .cur
                .as_ref()
                .is_some_and(|s| s.git && s.file_headers.is_none() && s.hunks.is_empty());
            if joins_git {
                if let Some(s) = self.cur.as_mut() {
                    s.file_headers = Some((old, new));
                }
            } else {
                self.close_section()?;
                self.start_section(Section {
                    line: i + 1,
                    header: line.to_string(),
                    file_headers: Some((old, new)),
                    ..Section::default()
                });
            }
            return Ok(i + 2);
        }
        if line.starts_with(COMBINED_HUNK_HEADER) {
            return Err(self.error(
                i,
                "'@@ -A,B +C,D @@'",
                "combined diffs ('@@@', from merges) are not supported; send a plain diff against one parent",
            ));
        }
        if line.starts_with(HUNK_HEADER) {
            self.open_hunk(i, true)?;
            return Ok(i + 1);
        }
        if line.starts_with(GIT_BINARY)
            || (line.starts_with(BINARY_FILES) && line.trim_end().ends_with(BINARY_DIFFER))
        {
            return Err(self.error(
                i,
                "a text diff",
                "binary patches are not supported: lancet edits text files only",
            ));
        }
        let in_git_header = self
            .cur
            .as_ref()
            .is_some_and(|s| s.git && s.file_headers.is_none() && s.hunks.is_empty());
        if in_git_header && self.extended_header(i)? {
            return Ok(i + 1);
        }
        let awaiting_hunk = self
            .cur
            .as_ref()
            .is_some_and(|s| s.file_headers.is_some() && s.hunks.is_empty());
        if awaiting_hunk && !line.trim().is_empty() {
            if Body::parse(line).is_some() {
                self.notes.implicit_hunks += 1;
                self.open_hunk(i, false)?;
                return Ok(i);
            }
            return Err(self.error(
                i,
                "'@@' (a hunk header)",
                "a file header ('--- '/'+++ ') must be followed by '@@' hunks",
            ));
        }
        if line.starts_with(DIFF_HEADER) || line.starts_with(SVN_INDEX) {
            self.close_section()?;
        }
        if !line.trim().is_empty() {
            self.notes.prose += 1;
        }
        Ok(i + 1)
    }

    fn start_section(&mut self, section: Section) {
        if self.fence_open.is_some() {
            self.fenced_diff = true;
        }
        self.cur = Some(section);
    }

    /// Reads a git extended header line; false when line `i` is not one.
    fn extended_header(&mut self, i: usize) -> Result<bool, ParseError> {
        let line = self.lines[i];
        if line.starts_with(COPY_FROM) || line.starts_with(COPY_TO) {
            return Err(self.error(
                i,
                "'rename from'/'rename to', or '--- '/'+++ ' lines",
                "copies are not supported: send the new file as '--- /dev/null' / '+++ b/path' with its lines",
            ));
        }
        let Some(s) = self.cur.as_mut() else {
            return Ok(false);
        };
        if let Some(mode) = line.strip_prefix(NEW_FILE_MODE) {
            s.new_file = true;
            s.new_executable = u32::from_str_radix(mode.trim(), 8).is_ok_and(|m| m & 0o111 != 0);
        } else if line.starts_with(DELETED_FILE_MODE) {
            s.deleted_file = true;
        } else if line.starts_with(OLD_MODE) || line.starts_with(NEW_MODE) {
            s.mode_change = true;
        } else if let Some(p) = line.strip_prefix(RENAME_FROM) {
            s.rename_from = Some(header_path(p));
        } else if let Some(p) = line.strip_prefix(RENAME_TO) {
            s.rename_to = Some(header_path(p));
        } else if !(line.starts_with(INDEX_LINE)
            || line.starts_with(SIMILARITY)
            || line.starts_with(DISSIMILARITY))
        {
            return Ok(false);
        }
        Ok(true)
    }

    /// Opens a hunk at line `i` (`header`: whether that line is its `@@`).
    fn open_hunk(&mut self, i: usize, header: bool) -> Result<(), ParseError> {
        if self.cur.is_none() {
            let inherited = if let Some(prev) = self.sections.last() {
                let path = target_path(prev);
                self.notes.inherited.push(path.clone());
                path
            } else if let Some(p) = &self.opts.default_path {
                self.notes.default_path = true;
                p.clone()
            } else {
                return Err(self.error(
                    i,
                    HEADERS_EXPECTED,
                    "this hunk names no file: put '--- path' and '+++ path' lines before it (or pass --path)",
                ));
            };
            self.start_section(Section {
                line: i + 1,
                header: self.lines[i].to_string(),
                inherited: Some(inherited),
                ..Section::default()
            });
        }
        let line = self.lines[i];
        let (old_start, new_start, counts) = if header {
            hunk_numbers(&line[HUNK_HEADER.len()..])
        } else {
            (None, None, None)
        };
        self.hunk = Some(RawHunk {
            line: i + 1,
            header: line.to_string(),
            old_start,
            new_start,
            counts,
            body: Vec::new(),
            no_newline: Vec::new(),
        });
        Ok(())
    }

    fn close_hunk(&mut self) -> Result<(), ParseError> {
        let Some(mut hunk) = self.hunk.take() else {
            return Ok(());
        };
        let blanks = hunk.trailing_blanks();
        if blanks > 0 && hunk.counts != Some(RawHunk::counts_of(&hunk.body)) {
            hunk.body.truncate(hunk.body.len() - blanks);
            self.notes.blank_separators += blanks;
        }
        if hunk.body.is_empty() {
            return Err(ParseError::new(
                hunk.line,
                hunk.header,
                BODY_EXPECTED,
                "this hunk has no lines: an '@@' header must be followed by ' ', '-' or '+' lines",
            ));
        }
        if let Some(s) = self.cur.as_mut() {
            s.hunks.push(hunk);
        }
        Ok(())
    }

    fn close_section(&mut self) -> Result<(), ParseError> {
        self.close_hunk()?;
        if let Some(s) = self.cur.take() {
            self.sections.push(s);
        }
        Ok(())
    }
}

/// Whether a line is a Markdown fence (at column 0).
fn is_fence(line: &str) -> bool {
    FENCES.iter().any(|f| line.starts_with(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{Anchor, FileOp, Format, Hunk, OpKind, Pick};
    use crate::notes::BatchNote;

    fn parse_ok(text: &str) -> Batch {
        parse(text, &ParseOptions::default()).unwrap()
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn update(op: &FileOp) -> (&[Hunk], Option<&str>) {
        match &op.kind {
            OpKind::Update { hunks, move_to } => (hunks, move_to.as_deref()),
            other => panic!("not an update: {other:?}"),
        }
    }

    #[test]
    fn git_diff_with_rename_and_hunk() {
        let text = "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\nindex 83db48f..bf269f4 100644\n--- a/old.py\n+++ b/new.py\n@@ -3,4 +3,4 @@ def main():\n x = 1\n-y = 2\n+y = 3\n z = 4\n";
        let batch = parse_ok(text);
        assert_eq!(batch.format, Format::Unified);
        assert_eq!(batch.ops.len(), 1);
        let op = &batch.ops[0];
        assert_eq!((op.path.as_str(), op.line), ("old.py", 1));
        let (hunks, move_to) = update(op);
        assert_eq!(move_to, Some("new.py"));
        assert_eq!(
            hunks,
            &[Hunk {
                line_hint: Some(3),
                new_line_hint: Some(3),
                pick: Pick::Nearest,
                ..Hunk::lines(
                    strings(&["x = 1", "y = 2", "z = 4"]),
                    strings(&["x = 1", "y = 3", "z = 4"]),
                    8
                )
            }]
        );
        assert!(batch.notes.is_empty(), "{:?}", batch.notes);
    }

    #[test]
    fn pure_rename_is_a_move_without_hunks() {
        let batch = parse(
            "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n",
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(
            batch.ops[0].kind,
            OpKind::Update {
                hunks: Vec::new(),
                move_to: Some("b.txt".into())
            }
        );
        assert_eq!(batch.ops[0].path, "a.txt");
    }

    fn parse_ok_err(text: &str) -> ParseError {
        parse(text, &ParseOptions::default()).unwrap_err()
    }

    #[test]
    fn dev_null_creates_with_and_without_final_newline() {
        let batch = parse_ok(
            "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..3b18e51\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
        );
        assert_eq!(
            batch.ops,
            vec![FileOp {
                path: "new.txt".into(),
                kind: OpKind::Create {
                    content: "hello\nworld\n".into(),
                    executable: false
                },
                line: 1,
            }]
        );
        let batch = parse_ok(
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+last\n\\ No newline at end of file\n",
        );
        assert_eq!(
            batch.ops[0].kind,
            OpKind::Create {
                content: "last".into(),
                executable: false
            }
        );
        assert_eq!(batch.ops[0].path, "n.txt");
    }

    #[test]
    fn empty_new_file_and_delete() {
        let batch = parse_ok(
            "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3b18e51..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-hello\n-world\n",
        );
        assert_eq!(
            batch.ops,
            vec![
                FileOp {
                    path: "empty".into(),
                    kind: OpKind::Create {
                        content: String::new(),
                        executable: false
                    },
                    line: 1
                },
                FileOp {
                    path: "gone.txt".into(),
                    kind: OpKind::Delete,
                    line: 4
                },
            ]
        );
    }

    #[test]
    fn two_files_in_one_plain_diff() {
        let batch = parse_ok(
            "--- a.py\t2024-01-01 10:00:00\n+++ a.py\t2024-01-02 10:00:00\n@@ -1,2 +1,2 @@\n-one = 1\n+one = 11\n two = 2\n@@ -9 +9 @@\n-three = 3\n+three = 33\n--- b.py\n+++ b.py\n@@ -1 +1 @@\n-alpha = 'a'\n+alpha = 'A'\n",
        );
        assert_eq!(batch.ops.len(), 2);
        let (h, _) = update(&batch.ops[0]);
        assert_eq!(batch.ops[0].path, "a.py");
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].old, strings(&["one = 1", "two = 2"]));
        assert_eq!(h[0].new, strings(&["one = 11", "two = 2"]));
        assert_eq!((h[0].line_hint, h[0].line), (Some(1), 3));
        assert_eq!((h[1].line_hint, h[1].line), (Some(9), 7));
        assert_eq!(batch.ops[1].path, "b.py");
        assert_eq!(batch.ops[1].line, 10);
        assert_eq!(update(&batch.ops[1]).0[0].new, strings(&["alpha = 'A'"]));
    }

    #[test]
    fn bare_udiff_headers_and_blank_context() {
        let batch =
            parse_ok("--- f.py\n+++ f.py\n@@ ... @@\n def f():\n\n-    return 1\n+    return 2\n");
        let (h, move_to) = update(&batch.ops[0]);
        assert_eq!(move_to, None);
        assert_eq!(
            h,
            &[Hunk {
                pick: Pick::Nearest,
                ..Hunk::lines(
                    strings(&["def f():", "", "    return 1"]),
                    strings(&["def f():", "", "    return 2"]),
                    3
                )
            }]
        );
    }

    #[test]
    fn fenced_diff_with_prose_and_headerless_continuation() {
        let text = "To fix it:\n\n```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n\n--- a/main.py\n+++ b/main.py\n@@ ... @@\n-b = 1\n+b = 2\n```\n\nand then\n\n```diff\n@@ ... @@\n-c = 1\n+c = 2\n```\nDone.\n";
        let batch = parse_ok(text);
        let paths: Vec<&str> = batch.ops.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, ["x.py", "main.py", "main.py"]);
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["a = 1"]));
        assert_eq!(update(&batch.ops[2]).0[0].new, strings(&["c = 2"]));
        assert_eq!(batch.ops[2].line, 20);
        assert!(
            batch
                .notes
                .iter()
                .any(|n| matches!(n, BatchNote::AroundDiff { prose, .. } if *prose > 0))
        );
        assert!(
            batch
                .notes
                .iter()
                .any(|n| matches!(n, BatchNote::BlankSeparators(_)))
        );
        assert!(
            batch
                .notes
                .contains(&BatchNote::HeaderInherited("main.py".into()))
        );
    }

    #[test]
    fn binary_patches_are_refused() {
        for text in [
            "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nabc\n",
            "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
        ] {
            let e = parse_ok_err(text);
            assert_eq!(e.line, 3);
            assert!(e.message.contains("binary patches are not supported"));
        }
    }

    #[test]
    fn malformed_hunk_line_names_line_found_and_expected() {
        let e = parse_ok_err("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\nc\n+B\n");
        assert_eq!((e.line, e.found.as_str()), (6, "c"));
        assert_eq!(e.expected, BODY_EXPECTED);
        assert!(e.message.contains("line 6"));
    }

    #[test]
    fn prose_after_a_counted_hunk_is_allowed() {
        let batch = parse_ok("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\nThat renames b.\n");
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["a", "b"]));
    }

    #[test]
    fn counts_keep_a_trailing_blank_context_line() {
        let batch = parse_ok("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n");
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["a", "b"]));
        let batch = parse_ok(
            "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n",
        );
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["a", "b", ""]));
    }

    #[test]
    fn hunks_without_a_file_use_the_default_path_or_fail() {
        let e = parse_ok_err("@@ ... @@\n-a\n+b\n");
        assert_eq!((e.line, e.expected.as_str()), (1, HEADERS_EXPECTED));
        let opts = ParseOptions {
            default_path: Some("src/x.rs".into()),
            ..ParseOptions::default()
        };
        let batch = parse("@@ ... @@\n-a\n+b\n", &opts).unwrap();
        assert_eq!(batch.ops[0].path, "src/x.rs");
    }

    #[test]
    fn duplicate_and_no_change_hunks_are_dropped() {
        let text = "```diff\n--- f.py\n+++ f.py\n@@ ... @@\n-v = 1\n+v = 2\n```\nagain:\n```diff\n--- f.py\n+++ f.py\n@@ ... @@\n-v = 1\n+v = 2\n@@ ... @@\n ctx\n```\n";
        let batch = parse_ok(text);
        assert_eq!(batch.ops.len(), 1);
        assert_eq!(update(&batch.ops[0]).0.len(), 1);
    }

    #[test]
    fn unclosed_fence_around_a_diff_is_refused() {
        let e = parse_ok_err("```diff\n--- f\n+++ f\n@@ ... @@\n-a\n+b\n");
        assert_eq!((e.line, e.found.as_str()), (1, "```diff"));
    }

    #[test]
    fn quoted_paths_and_plain_prefixes() {
        let batch = parse_ok(
            "diff --git \"a/caf\\303\\251 x.txt\" \"b/caf\\303\\251 x.txt\"\n--- \"a/caf\\303\\251 x.txt\"\n+++ \"b/caf\\303\\251 x.txt\"\n@@ -1 +1 @@\n-a\n+b\n",
        );
        assert_eq!(batch.ops[0].path, "café x.txt");
        let batch = parse_ok("--- dir name/f.txt\n+++ dir name/f.txt\n@@ ... @@\n-a\n+b\n");
        assert_eq!(batch.ops[0].path, "dir name/f.txt");
        let batch = parse_ok("--- b/f.txt\n+++ b/f.txt\n@@ ... @@\n-a\n+b\n");
        assert_eq!(batch.ops[0].path, "b/f.txt");
    }

    #[test]
    fn dev_null_with_old_lines_is_an_update() {
        let batch = parse_ok("--- /dev/null\n+++ file.txt\n@@ ... @@\n-Original\n+Modified\n");
        assert_eq!(batch.ops[0].path, "file.txt");
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["Original"]));
    }

    #[test]
    fn new_file_mode_755_creates_an_executable_file() {
        let kinds: Vec<OpKind> = parse_ok(
            "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo\ndiff --git a/a b/a\nnew file mode 100644\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+x\n",
        )
        .ops
        .into_iter()
        .map(|op| op.kind)
        .collect();
        assert_eq!(
            kinds,
            [
                OpKind::Create {
                    content: "echo\n".into(),
                    executable: true
                },
                OpKind::Create {
                    content: "x\n".into(),
                    executable: false
                }
            ]
        );
    }

    #[test]
    fn other_refusals() {
        let e = parse_ok_err("--- a/f\n+++ b/f\nhello\n");
        assert_eq!(e.line, 3);
        let e =
            parse_ok_err("--- a/f\n+++ b/f\n@@ -1 +1 @@\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n");
        assert_eq!(e.line, 3);
        let e = parse_ok_err("diff --git a/f b/f\nold mode 100644\nnew mode 100755\n");
        assert!(e.message.contains("mode changes"));
        let e = parse_ok_err("diff --git a/f b/g\ncopy from f\ncopy to g\n");
        assert_eq!(e.line, 2);
        let e = parse_ok_err("--- a/f\n+++ b/f\n@@@ -1 -1 +1 @@@\n");
        assert_eq!(e.line, 3);
    }

    #[test]
    fn looks_like_is_specific() {
        assert!(looks_like("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"));
        assert!(looks_like(
            "diff --git a/x b/x\nBinary files a/x and b/x differ\n"
        ));
        assert!(looks_like("```diff\n@@ ... @@\n-x\n+y\n```\n"));
        assert!(!looks_like("some prose\n@@ not a diff\n"));
        assert!(!looks_like(
            "f.py\n<<<<<<< SEARCH\n--- a\n+++ b\n@@\n=======\n>>>>>>> REPLACE\n"
        ));
    }

    #[test]
    fn pure_insertion_goes_after_the_header_line() {
        let batch = parse_ok("--- a/f\n+++ b/f\n@@ -3,0 +4,2 @@\n+x\n+y\n@@ -0,0 +1 @@\n+top\n");
        let (h, _) = update(&batch.ops[0]);
        assert_eq!(
            h,
            &[
                Hunk {
                    line_hint: Some(3),
                    new_line_hint: Some(4),
                    anchor: Anchor::AfterLine(3),
                    pick: Pick::Nearest,
                    ..Hunk::lines(vec![], strings(&["x", "y"]), 3)
                },
                Hunk {
                    new_line_hint: Some(1),
                    anchor: Anchor::AfterLine(0),
                    pick: Pick::Nearest,
                    ..Hunk::lines(vec![], strings(&["top"]), 6)
                }
            ]
        );
        let batch = parse_ok("--- a/f\n+++ b/f\n@@ ... @@\n+z\n");
        assert_eq!(update(&batch.ops[0]).0[0].anchor, Anchor::Anywhere);
    }

    #[test]
    fn format_patch_email_is_read() {
        let text = "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\n---\n f | 2 +-\n 1 file changed\n\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n-- \n2.43.0\n\n";
        let batch = parse_ok(text);
        assert_eq!(update(&batch.ops[0]).0[0].new, strings(&["a", "c"]));
    }

    #[test]
    fn crlf_text_reads_like_lf() {
        let batch = parse_ok("--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n");
        assert_eq!(update(&batch.ops[0]).0[0].old, strings(&["a"]));
    }

    #[test]
    fn never_panics_on_scrambled_input() {
        let frags = [
            "diff --git a/x b/x",
            "diff --git \"a/\\303 q\" b/y",
            "--- a/x",
            "+++ b/x",
            "--- /dev/null",
            "+++ /dev/null",
            "@@ -1,2 +1,3 @@",
            "@@ -0,0 +1 @@",
            "@@ ... @@",
            "@@",
            "@@@ -1 -1 +1 @@@",
            " ctx",
            "-old",
            "+new",
            "",
            "\\ No newline at end of file",
            "```diff",
            "```",
            "prose é",
            "new file mode 100644",
            "deleted file mode 100644",
            "rename from a",
            "rename to b",
            "index 1..2",
            "old mode 1",
            "-- ",
            "Index: x",
            "GIT binary patch",
            "+++ ",
            "--- ",
        ];
        super::super::survives_scrambles(&frags, '\n', |text, opts| {
            let _ = looks_like(text);
            let _ = parse(text, opts);
        });
    }
}
