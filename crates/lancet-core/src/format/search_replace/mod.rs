//! SEARCH/REPLACE blocks: the Aider edit-block format and the Roo (`apply_diff`) and Cline
//! (`replace_in_file`) dialects.
//!
//! Grammar, as lancet reads it. Every marker is tested on the line with surrounding whitespace
//! removed; a trailing `\r` is removed from every line first, so CRLF text reads like LF text.
//!
//! ```text
//! text     := (prose | shell | block)*
//! block    := HEAD roo_head? search DIVIDER replace close
//! close    := UPDATED | DIVIDER UPDATED | DIVIDER       the last two: see the leniencies
//! HEAD     := ("<"{5,9} | "-"{3,}) " SEARCH" ">"?       Aider/Roo, Cline
//! DIVIDER  := "="{5,}
//! UPDATED  := (">"{5,9} | "+"{3,}) " REPLACE" ">"?      Aider/Roo, Cline; dialects may mix
//! roo_head := (":start_line:" N | ":end_line:" N)+ ("-"{5,})?
//!           | "-------"                                  Roo's separator, right after HEAD
//! search   := line*        holding no HEAD, DIVIDER or UPDATED line
//! replace  := line*        holding no HEAD, DIVIDER, UPDATED, ":start_line:" or ":end_line:" line
//! shell    := "```" (bash|sh|shell|...) NL line* "```"   a command suggestion, never applied
//! prose    := any other line: chatter, code fences, filename lines
//! ```
//!
//! **Which file.** `--path` ([`ParseOptions::default_path`]), when given, is the file of every
//! block: Roo and Cline pass the path beside the text, and a name in the text is then noted and
//! ignored. Otherwise the file is named on one of the 3 lines before HEAD (never reaching back
//! into the previous block), nearest first; the walk goes on past a line only while that line is
//! a fence (```` ``` ````, or Aider's `<source>`, `<code>`, `<pre>`, `<codeblock>`,
//! `<sourcecode>` and their closers). A candidate line is cleaned of a trailing `:`, leading `#`, and
//! surrounding `` ` ``, `*`, quotes and spaces, so `path/f.py`, `**f.py**`, `` `f.py` ``,
//! `f.py:`, `# f.py` and `### f.py` all name `f.py`; a fence opener names a file only when its
//! info string holds a `.` or `/` (```` ```f.py ````; ```` ```python ```` and `<source>python`
//! are languages). A
//! candidate must look like a path: no spaces (unless backtick-quoted), no `<`, `>` or `|`, a
//! letter or digit, no sentence punctuation at its end, `...` never. Among several candidates the first holding a
//! `.` or `/` wins. A block naming no file reuses the previous block's; the first block must
//! name one.
//!
//! **What a block becomes.** One [`OpKind::Update`] with one hunk per block, in text order, so a
//! later block sees the earlier blocks' results. Bodies are kept verbatim (`...` elision lines
//! included: the matcher reads them). A SEARCH holding only whitespace becomes
//! [`OpKind::Append`] of the REPLACE lines (which creates a missing file). `:start_line:N`
//! becomes the hunk's line hint.
//!
//! **Leniencies**, each noted in [`Batch::notes`]: prose, fences and shell blocks around the
//! blocks are ignored; a body line starting with `\` followed by a marker (`\=======`,
//! `\<<<<<<<`, `\>>>>>>>`, `\-------`, `\+++++++`, `\:start_line:`, `\:end_line:`) is that text
//! without the backslash (Roo's escape for marker lines inside content); when both SEARCH and
//! REPLACE are wrapped in their own ```` ``` ```` fence lines (optionally after a line repeating
//! the file name), the wrapping is removed; a second DIVIDER ends the REPLACE part when no
//! UPDATED follows before the next block or the end, or when UPDATED comes right after it
//! (models close blocks both ways; Aider reads them so); an empty block (empty SEARCH and REPLACE) is
//! an empty [`OpKind::Append`]: it creates a missing file empty and leaves an existing one as it
//! is; without `--path`, text holding no block at all is an empty batch (a reply that
//! edits nothing).
//!
//! **Refused** (a [`ParseError`] naming the line): a block without DIVIDER or UPDATED (also at
//! the end of the text: a reply cut off inside a block must not write half a replacement), a
//! second DIVIDER with more lines before UPDATED (content or end? ambiguous: content spells it
//! `\=======`), a HEAD inside a block, an UPDATED outside any block, a line that tries to
//! be a HEAD and is not one (`<<<< SEARCH`, `<<<<<<<SEARCH`, `<<<<<<< search`), a line marker in
//! REPLACE, no file for the first block and no `--path`, and, with `--path`, text holding no
//! block.

mod block;
mod filename;
mod markers;

use super::{ParseError, ParseOptions};
use crate::batch::{Batch, FileOp, Format, Hunk, OpKind, Pick};
use crate::notes::BatchNote;
use filename::unwrap_fenced;
pub use markers::has_marker_like_line;
use markers::{is_head, is_near_miss, is_updated, unescape};
use std::ops::{Range, RangeInclusive};

/// The canonical opening marker, for messages.
const HEAD: &str = "<<<<<<< SEARCH";
/// The canonical divider, for messages.
const DIVIDER: &str = "=======";
/// The canonical closing marker, for messages.
const UPDATED: &str = ">>>>>>> REPLACE";
/// The word after the opening marker's run of `<` or `-`.
const SEARCH_WORD: &str = "SEARCH";
/// The word after the closing marker's run of `>` or `+`.
const REPLACE_WORD: &str = "REPLACE";
/// How many `<` (HEAD) or `>` (UPDATED) an Aider/Roo marker has.
const ANGLE_RUN: RangeInclusive<usize> = 5..=9;
/// The fewest `-` (HEAD) or `+` (UPDATED) a Cline marker has.
const CLINE_MIN_RUN: usize = 3;
/// The fewest `=` a divider has.
const DIVIDER_MIN_RUN: usize = 5;
/// Roo's hint line: the 1-based line where the SEARCH text starts.
const START_LINE: &str = ":start_line:";
/// Roo's end-line line: parsed and ignored.
const END_LINE: &str = ":end_line:";
/// Roo's separator between its line markers and the SEARCH text, as written without markers.
const ROO_SEPARATOR: &str = "-------";
/// The fewest `-` of Roo's separator after line markers.
const ROO_SEPARATOR_MIN_RUN: usize = 5;
/// The Markdown code fence (opener and closer).
const FENCE: &str = "```";
/// Aider's other fence openers (it picks one when a file holds ```` ``` ```` lines).
const TAG_FENCES: [&str; 5] = ["<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>"];
/// How many lines before HEAD may name the file.
const FILENAME_LOOKBACK: usize = 3;
/// The longest accepted filename.
const FILENAME_MAX_LEN: usize = 250;
/// Fence languages that mark a shell-command block (Aider's list).
const SHELL_LANGUAGES: [&str; 12] = [
    "bash",
    "sh",
    "shell",
    "cmd",
    "batch",
    "powershell",
    "ps1",
    "zsh",
    "fish",
    "ksh",
    "csh",
    "tcsh",
];
/// What a backslash may escape at the start of a body line.
const ESCAPABLE: [&str; 7] = [
    "<<<<<<<", "=======", ">>>>>>>", "-------", "+++++++", START_LINE, END_LINE,
];
/// How to write a block, for messages.
const BLOCK_SHAPE: &str =
    "path/to/file\n<<<<<<< SEARCH\n(lines to find)\n=======\n(lines to put there)\n>>>>>>> REPLACE";

/// Whether the text holds a SEARCH/REPLACE opening marker of any dialect (used by format
/// detection).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| is_head(l.trim()))
}

/// Parses SEARCH/REPLACE blocks into a batch: one update (or append) per block, in order.
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if text.trim().is_empty() {
        return Err(ParseError::new(
            1,
            "",
            HEAD,
            format!("the edit text is empty; send SEARCH/REPLACE blocks:\n{BLOCK_SHAPE}"),
        ));
    }
    let default_path = opts
        .default_path
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let mut parser = Parser {
        lines: &lines,
        default_path,
        unique: opts.unique,
        ops: Vec::new(),
        previous_path: None,
        outside_lines: 0,
        filename_lines: 0,
        shell_blocks: 0,
        reused: 0,
        unescaped: 0,
        unwrapped: 0,
        closed_by_divider: Vec::new(),
        overridden_names: Vec::new(),
        blocks: 0,
    };
    parser.run()?;
    let notes = parser.notes();
    Ok(Batch {
        format: Format::SearchReplace,
        ops: parser.ops,
        notes,
    })
}

struct Parser<'t, 'l> {
    lines: &'l [&'t str],
    default_path: Option<&'l str>,
    /// `--unique`: no block takes the first of several matches.
    unique: bool,
    ops: Vec<FileOp>,
    previous_path: Option<String>,
    /// Non-blank lines seen outside blocks and shell blocks.
    outside_lines: usize,
    /// Of those, lines that named a block's file.
    filename_lines: usize,
    shell_blocks: usize,
    reused: usize,
    unescaped: usize,
    unwrapped: usize,
    /// 1-based HEAD lines of blocks that a second DIVIDER closed.
    closed_by_divider: Vec<usize>,
    /// Names written in the text that `--path` overrode: (name, 1-based line).
    overridden_names: Vec<(String, usize)>,
    blocks: usize,
}

/// A block's lines, as 0-based indexes.
struct Block {
    head: usize,
    hint: Option<usize>,
    search: Range<usize>,
    replace: Range<usize>,
    /// The block's last line.
    end: usize,
    /// Whether a second DIVIDER closed it (alone, or right before UPDATED).
    closed_by_divider: bool,
}

impl<'t, 'l> Parser<'t, 'l> {
    fn run(&mut self) -> Result<(), ParseError> {
        let n = self.lines.len();
        // First line after the previous block (or shell block): filename lookback stops here.
        let mut after_previous = 0;
        let mut i = 0;
        while i < n {
            let t = self.lines[i].trim();
            if is_head(t) {
                let block = self.block(i)?;
                self.emit(&block, after_previous)?;
                i = block.end + 1;
                after_previous = i;
                continue;
            }
            if let Some(close) = self.shell_block_end(i) {
                self.shell_blocks += 1;
                i = close + 1;
                after_previous = i;
                continue;
            }
            if is_updated(t) {
                return Err(self.stray_updated(i, after_previous));
            }
            if is_near_miss(t, b"<-", SEARCH_WORD) {
                return Err(self.error(
                    i,
                    HEAD,
                    format!(
                        "line {} tries to open a SEARCH/REPLACE block but is not a marker: write `{HEAD}` (5 to 9 `<`) or `------- SEARCH` (3 or more `-`), one space, then SEARCH in capitals, alone on the line",
                        i + 1
                    ),
                ));
            }
            if !t.is_empty() {
                self.outside_lines += 1;
            }
            i += 1;
        }
        if self.blocks == 0
            && let Some(path) = self.default_path
        {
            let at = self
                .lines
                .iter()
                .position(|l| !l.trim().is_empty())
                .unwrap_or(0);
            return Err(self.error(
                at,
                HEAD,
                format!(
                    "no SEARCH/REPLACE block found in the edit for {path}; write each change as:\n{BLOCK_SHAPE}"
                ),
            ));
        }
        Ok(())
    }

    /// Turns a parsed block into an operation.
    fn emit(&mut self, block: &Block, after_previous: usize) -> Result<(), ParseError> {
        let path = self.path_for(block.head, after_previous)?;
        let mut old = self.body(block.search.clone());
        let mut new = self.body(block.replace.clone());
        let head_line = block.head + 1;
        self.blocks += 1;
        if block.closed_by_divider {
            self.closed_by_divider.push(head_line);
        }
        if old.iter().all(|l| l.trim().is_empty()) {
            // An empty REPLACE too: an empty file (Aider creates it so), nothing to add.
            let content = new.iter().map(|l| format!("{l}\n")).collect();
            self.ops.push(FileOp {
                path,
                kind: OpKind::Append { content },
                line: head_line,
            });
            return Ok(());
        }
        if let (Some(o), Some(n)) = (unwrap_fenced(&old, &path), unwrap_fenced(&new, &path)) {
            old = o;
            new = n;
            self.unwrapped += 1;
        }
        let mut hunk = Hunk::lines(old, new, head_line);
        hunk.line_hint = block.hint;
        // Aider teaches its models that a block "replaces the first match"; a block whose file
        // is passed beside it (Roo, Cline) or that carries a `:start_line:` hint has a hint to
        // decide by instead, and is refused when that does not single one place out.
        if self.default_path.is_none() && block.hint.is_none() && !self.unique {
            hunk.pick = Pick::First;
        }
        self.ops.push(FileOp {
            path,
            kind: OpKind::Update {
                hunks: vec![hunk],
                move_to: None,
            },
            line: head_line,
        });
        Ok(())
    }

    /// A body's lines, with backslash-escaped marker lines unescaped.
    fn body(&mut self, range: Range<usize>) -> Vec<String> {
        self.lines[range]
            .iter()
            .map(|line| match unescape(line) {
                Some(plain) => {
                    self.unescaped += 1;
                    plain.to_string()
                }
                None => line.to_string(),
            })
            .collect()
    }

    /// When a shell-command fence opens at `i` and holds no block, the index of its closing
    /// fence (or of the last line when it never closes).
    fn shell_block_end(&self, i: usize) -> Option<usize> {
        let info = self.lines[i].trim().strip_prefix(FENCE)?;
        let language = info.split_whitespace().next()?.to_ascii_lowercase();
        if !SHELL_LANGUAGES.contains(&language.as_str()) {
            return None;
        }
        let n = self.lines.len();
        let close = (i + 1..n)
            .find(|&k| self.lines[k].trim().starts_with(FENCE))
            .unwrap_or(n - 1);
        let holds_block = (i + 1..=close).any(|k| is_head(self.lines[k].trim()));
        (!holds_block).then_some(close)
    }

    fn error(&self, at: usize, expected: impl Into<String>, message: String) -> ParseError {
        ParseError::new(at + 1, self.lines[at], expected, message)
    }

    fn notes(&self) -> Vec<BatchNote> {
        let mut notes = Vec::new();
        if self.blocks == 0 {
            notes.push(BatchNote::NoBlocks);
        }
        let prose = self.outside_lines.saturating_sub(self.filename_lines);
        notes.extend(BatchNote::counted(&[
            (prose, BatchNote::OutsideBlocks),
            (self.shell_blocks, BatchNote::ShellBlocks),
            (self.reused, BatchNote::ReusedFile),
        ]));
        if let (Some(path), false) = (self.default_path, self.overridden_names.is_empty()) {
            notes.push(BatchNote::PathOverridesNames {
                path: path.to_string(),
                names: self.overridden_names.clone(),
            });
        }
        if self.unescaped > 0 {
            notes.push(BatchNote::UnescapedMarkers(self.unescaped));
        }
        if !self.closed_by_divider.is_empty() {
            notes.push(BatchNote::ClosedByDivider(self.closed_by_divider.clone()));
        }
        if self.unwrapped > 0 {
            notes.push(BatchNote::UnwrappedFences(self.unwrapped));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::markers::is_divider;
    use super::*;

    fn parse_text(text: &str) -> Batch {
        parse(text, &ParseOptions::default()).unwrap()
    }

    fn parse_with_path(text: &str, path: &str) -> Batch {
        parse(
            text,
            &ParseOptions {
                default_path: Some(path.into()),
                ..ParseOptions::default()
            },
        )
        .unwrap()
    }

    fn parse_err(text: &str) -> ParseError {
        parse(text, &ParseOptions::default()).unwrap_err()
    }

    fn strings(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    /// An Aider-dialect block: the file named in the text, so the first match is taken.
    fn update(path: &str, old: &[&str], new: &[&str], line: usize) -> FileOp {
        FileOp {
            path: path.into(),
            kind: OpKind::Update {
                hunks: vec![Hunk {
                    pick: Pick::First,
                    ..Hunk::lines(strings(old), strings(new), line)
                }],
                move_to: None,
            },
            line,
        }
    }

    /// A block with its path given beside it (Roo, Cline): several matches are refused.
    fn unique_update(path: &str, old: &[&str], new: &[&str], line: usize) -> FileOp {
        unique(update(path, old, new, line))
    }

    fn unique(mut op: FileOp) -> FileOp {
        if let OpKind::Update { hunks, .. } = &mut op.kind {
            hunks[0].pick = Pick::Unique;
        }
        op
    }

    fn with_hint(mut op: FileOp, hint: usize) -> FileOp {
        if let OpKind::Update { hunks, .. } = &mut op.kind {
            hunks[0].line_hint = Some(hint);
            hunks[0].pick = Pick::Unique;
        }
        op
    }

    /// (path, old, new) of every update op.
    fn blocks(batch: &Batch) -> Vec<(String, Vec<String>, Vec<String>)> {
        batch
            .ops
            .iter()
            .map(|op| match &op.kind {
                OpKind::Update { hunks, .. } => {
                    (op.path.clone(), hunks[0].old.clone(), hunks[0].new.clone())
                }
                other => panic!("not an update: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn aider_block_with_prose_and_fence() {
        let batch = parse_text(
            "Here's the change:\n\n```python\nfoo.py\n<<<<<<< SEARCH\nold 1\n    old 2\n=======\nnew\n>>>>>>> REPLACE\n```\n\nHope you like it!\n",
        );
        assert_eq!(
            batch,
            Batch {
                format: Format::SearchReplace,
                ops: vec![update("foo.py", &["old 1", "    old 2"], &["new"], 5)],
                notes: vec![BatchNote::OutsideBlocks(4)],
            }
        );
    }

    #[test]
    fn filename_decorations() {
        let text = "**a.py**\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n\n\
                    `b.py`\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n\n\
                    c.py:\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n\n\
                    ### d.py\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n\n\
                    ```e.py\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n\n\
                    \x20 f.py  \n```python\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n\n\
                    # g/h.py\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n\n\
                    `my file.txt`\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n";
        let paths: Vec<String> = parse_text(text).ops.into_iter().map(|o| o.path).collect();
        assert_eq!(
            paths,
            [
                "a.py",
                "b.py",
                "c.py",
                "d.py",
                "e.py",
                "f.py",
                "g/h.py",
                "my file.txt"
            ]
        );
    }

    #[test]
    fn filename_inside_fences() {
        // The path alone in its own fence, then the edit in a second fence (DeepSeek).
        let batch = parse_text(
            " ```python\nfoo.txt\n```\n```python\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n```\n",
        );
        assert_eq!(batch.ops, vec![update("foo.txt", &["one"], &["two"], 5)]);
        // Fence, name, fence, fence, name, fence: the nearest name wins.
        let batch = parse_text(
            "```python\nfile1.py\n```\n```\nfile2.py\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n",
        );
        assert_eq!(batch.ops[0].path, "file2.py");
        // Path inside the fence, before HEAD (diff-fenced).
        let batch = parse_text(
            "```python\nmathweb/app.py\n<<<<<<< SEARCH\nfrom flask import Flask\n=======\nimport math\nfrom flask import Flask\n>>>>>>> REPLACE\n```\n",
        );
        assert_eq!(batch.ops[0].path, "mathweb/app.py");
    }

    #[test]
    fn fence_language_and_prose_are_not_filenames() {
        for text in [
            "```python\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n",
            // A blank line between the name and the fence stops the walk back.
            "g.py\n\n```python\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n",
            "Here is the change for you\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n",
            "...\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n",
            "Done.\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n",
        ] {
            let e = parse_err(text);
            assert!(e.message.contains("names no file"), "{text}: {e:?}");
            assert!(e.message.contains("--path"), "{e:?}");
            assert_eq!(e.found, "<<<<<<< SEARCH");
        }
        // Only the 3 lines before HEAD count.
        let e = parse_err("f.py\n```\n```\n```\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n");
        assert_eq!(e.line, 5);
    }

    #[test]
    fn missing_filename_error_names_the_line() {
        let e = parse_err(
            "\nHere's the change:\n\n```text\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n",
        );
        assert_eq!(e.line, 5);
        assert_eq!(e.found, "<<<<<<< SEARCH");
        assert_eq!(
            e.expected,
            "the file's path alone on the line before the block, or --path"
        );
    }

    #[test]
    fn a_block_without_a_name_reuses_the_previous_one() {
        let batch = parse_text(
            "foo.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n\n...\n\n<<<<<<< SEARCH\nthree\n=======\nfour\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            batch.ops,
            vec![
                update("foo.txt", &["one"], &["two"], 2),
                update("foo.txt", &["three"], &["four"], 10),
            ]
        );
        assert!(batch.notes.contains(&BatchNote::ReusedFile(1)));
        // Back-to-back blocks: the previous block's closing marker is never a name.
        let batch = parse_text(
            "a.py\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\nb.py\n<<<<<<< SEARCH\n5\n=======\n6\n>>>>>>> REPLACE\n",
        );
        let paths: Vec<&str> = batch.ops.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, ["a.py", "a.py", "b.py"]);
    }

    #[test]
    fn default_path_names_every_block() {
        let batch = parse_with_path(
            "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
            "src/lib.rs",
        );
        assert_eq!(
            batch.ops,
            vec![unique_update("src/lib.rs", &["x"], &["y"], 1)]
        );
        assert!(batch.notes.is_empty(), "{:?}", batch.notes);
        // A name in the text loses to --path (Roo's tests write `test.ts` before the block).
        let batch = parse_with_path(
            "test.ts\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE",
            "file.txt",
        );
        assert_eq!(
            batch.ops,
            vec![unique_update("file.txt", &["x"], &["y"], 2)]
        );
        assert_eq!(
            batch.notes,
            [BatchNote::PathOverridesNames {
                path: "file.txt".into(),
                names: vec![("test.ts".into(), 1)]
            }]
        );
        // With --path, text holding no block is malformed.
        let e = parse(
            "test.ts\nInvalid diff format",
            &ParseOptions {
                default_path: Some("file.txt".into()),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!((e.line, e.found.as_str()), (1, "test.ts"));
        assert!(e.message.contains("no SEARCH/REPLACE block"), "{e:?}");
    }

    #[test]
    fn no_blocks_without_path_is_an_empty_batch() {
        let batch = parse_text("I don't think any change is needed.\n");
        assert_eq!(batch.ops, vec![]);
        assert_eq!(
            batch.notes,
            [BatchNote::NoBlocks, BatchNote::OutsideBlocks(1)]
        );
        let e = parse_err(" \n\n");
        assert_eq!(e.line, 1);
    }

    #[test]
    fn empty_search_appends() {
        let batch = parse_text(
            "newfile.txt\n<<<<<<< SEARCH\n=======\ncreating a new file\n\nsecond\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            batch.ops,
            vec![FileOp {
                path: "newfile.txt".into(),
                kind: OpKind::Append {
                    content: "creating a new file\n\nsecond\n".into()
                },
                line: 2,
            }]
        );
        // Whitespace-only SEARCH is empty too.
        let batch = parse_text("f.txt\n<<<<<<< SEARCH\n  \n\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(
            batch.ops[0].kind,
            OpKind::Append {
                content: "b\n".into()
            }
        );
        // Empty SEARCH and REPLACE: an empty append, which creates a missing file empty.
        let batch = parse_text("f.txt\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(
            batch.ops[0].kind,
            OpKind::Append {
                content: String::new()
            }
        );
        assert!(batch.notes.is_empty(), "{:?}", batch.notes);
    }

    #[test]
    fn empty_replace_deletes() {
        let batch = parse_text("f.txt\n<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(batch.ops, vec![update("f.txt", &["b"], &[], 2)]);
    }

    #[test]
    fn roo_start_line_and_separator() {
        let batch = parse_with_path(
            "<<<<<<< SEARCH\n:start_line:12\n:end_line:13\n-------\n.overlay {\n=======\n.piece {\n}\n\n.overlay {\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line: 3\n-------\nb\n=======\nc\n>>>>>>> REPLACE\n",
            "app.css",
        );
        assert_eq!(
            batch.ops,
            vec![
                with_hint(
                    unique_update(
                        "app.css",
                        &[".overlay {"],
                        &[".piece {", "}", "", ".overlay {"],
                        1
                    ),
                    12
                ),
                with_hint(unique_update("app.css", &["b"], &["c"], 13), 3),
            ]
        );
        // `-------` alone right after HEAD is Roo's separator; line numbers in bodies stay.
        let batch = parse_with_path(
            "<<<<<<< SEARCH\n-------\n2 | line to delete\n=======\n>>>>>>> REPLACE",
            "f",
        );
        assert_eq!(
            batch.ops,
            vec![unique_update("f", &["2 | line to delete"], &[], 1)]
        );
        // A bad number is refused.
        let e = parse(
            "<<<<<<< SEARCH\n:start_line:abc\n-------\nx\n=======\ny\n>>>>>>> REPLACE",
            &ParseOptions {
                default_path: Some("f".into()),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!((e.line, e.found.as_str()), (2, ":start_line:abc"));
    }

    #[test]
    fn roo_line_marker_in_replace_is_refused() {
        let e = parse(
            "<<<<<<< SEARCH\ncontent to find\n=======\n  :start_line:5  \nreplacement content\n>>>>>>> REPLACE",
            &ParseOptions {
                default_path: Some("f".into()),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("`:start_line:`"), "{e:?}");
        // Escaped, it is content.
        let batch = parse_with_path(
            "<<<<<<< SEARCH\ncontent\n=======\n\\:start_line:5\n>>>>>>> REPLACE",
            "f",
        );
        assert_eq!(
            batch.ops,
            vec![unique_update("f", &["content"], &[":start_line:5"], 1)]
        );
    }

    #[test]
    fn roo_escaped_markers_are_content() {
        let batch = parse_with_path(
            "<<<<<<< SEARCH\n\\<<<<<<< SEARCH\n\\=======\n\\>>>>>>> REPLACE\n\\<<<<<<< HEAD\n=======\nunchanged\n>>>>>>> REPLACE",
            "file.txt",
        );
        assert_eq!(
            batch.ops,
            vec![unique_update(
                "file.txt",
                &[
                    "<<<<<<< SEARCH",
                    "=======",
                    ">>>>>>> REPLACE",
                    "<<<<<<< HEAD"
                ],
                &["unchanged"],
                1
            )]
        );
        assert_eq!(batch.notes, [BatchNote::UnescapedMarkers(4)]);
        // Other backslash lines are untouched.
        let batch = parse_with_path("<<<<<<< SEARCH\n\\n\n=======\n\\\\\n>>>>>>> REPLACE", "f");
        assert_eq!(batch.ops, vec![unique_update("f", &["\\n"], &["\\\\"], 1)]);
    }

    #[test]
    fn cline_dialect_and_mixes() {
        let batch = parse_with_path(
            "------- SEARCH\nFirst\n=======\n1st\n+++++++ REPLACE\n\n----- SEARCH\nThird\n==========\n3rd\n+++ REPLACE\n----------- SEARCH>\nx\n=====\ny\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nz\n=======\nw\n+++++++ REPLACE>",
            "file.txt",
        );
        assert_eq!(
            batch.ops,
            vec![
                unique_update("file.txt", &["First"], &["1st"], 1),
                unique_update("file.txt", &["Third"], &["3rd"], 7),
                unique_update("file.txt", &["x"], &["y"], 12),
                unique_update("file.txt", &["z"], &["w"], 17),
            ]
        );
        let batch = parse_with_path("------- SEARCH\n=======\nnew content\n+++++++ REPLACE", "f");
        assert_eq!(
            batch.ops[0].kind,
            OpKind::Append {
                content: "new content\n".into()
            }
        );
    }

    #[test]
    fn marker_lengths_and_spacing() {
        for text in [
            "f.py\n<<<<< SEARCH\nold\n=====\nnew\n>>>>> REPLACE\n",
            "f.py\n<<<<<<<<< SEARCH\nold\n=========\nnew\n>>>>>>>>> REPLACE\n",
            "f.py\n<<<<<< SEARCH\nold\n========\nnew\n>>>>>>>>> REPLACE\n",
            "f.py\n<<<<<<< SEARCH>\nold\n=======\nnew\n>>>>>>> REPLACE\n",
            "f.py\n   <<<<<<< SEARCH\nold\n  =======\nnew\n    >>>>>>> REPLACE\n",
            "f.py\n<<<<<<< SEARCH   \nold\n=======  \nnew\n>>>>>>> REPLACE \t\n",
        ] {
            assert_eq!(
                parse_text(text).ops,
                vec![update("f.py", &["old"], &["new"], 2)],
                "{text:?}"
            );
        }
    }

    #[test]
    fn invalid_markers_are_not_markers() {
        for head in [
            "<<<< SEARCH",
            "<<<<<<<<<< SEARCH",
            "<<<<<<< search",
            "<<<<<<<SEARCH",
            "<<<<<<< SEARCH>>",
            "<<<<<<< SEARCH  >",
            "-- SEARCH",
            "-------SEARCH",
            "<<-- SEARCH",
        ] {
            assert!(!is_head(head), "{head}");
            assert!(!looks_like(&format!("f.py\n{head}\nold\n")), "{head}");
            // Such a line is refused rather than silently taken for prose.
            let e = parse_err(&format!(
                "f.py\n{head}\nold\n=======\nnew\n>>>>>>> REPLACE\n"
            ));
            assert_eq!((e.line, e.found.as_str()), (2, head), "{head}");
        }
        assert!(!is_updated(">>>>>>> REPLACE f.py"));
        assert!(!is_updated(">>>> REPLACE"));
        assert!(!is_updated(">>>>>>> replace"));
        assert!(!is_divider("===="));
        assert!(!is_divider("------- ======="));
        // Prose that merely mentions the words is prose.
        let batch = parse_text("- search the docs\n-- search results below\n<< SEARCH is a word\n");
        assert_eq!(batch.ops, vec![]);
    }

    #[test]
    fn looks_like_needs_a_head_marker() {
        assert!(looks_like("x\n<<<<<<< SEARCH\n"));
        assert!(looks_like("------- SEARCH\n"));
        assert!(looks_like("  <<<<<<<<< SEARCH>\r\n"));
        assert!(!looks_like("=======\n>>>>>>> REPLACE\n"));
        assert!(!looks_like("*** Begin Patch\n"));
        assert!(!looks_like("use <<<<<<< SEARCH blocks\n"));
    }

    #[test]
    fn crlf_text() {
        let batch = parse_text(
            "f.txt\r\n<<<<<<< SEARCH\r\nb\r\n  c\r\n=======\r\nB\r\n>>>>>>> REPLACE\r\n",
        );
        assert_eq!(batch.ops, vec![update("f.txt", &["b", "  c"], &["B"], 2)]);
        let batch =
            parse_text("\u{feff}f.txt\r\n<<<<<<< SEARCH\r\n=======\r\nB\r\n>>>>>>> REPLACE");
        assert_eq!(
            batch.ops[0],
            FileOp {
                path: "f.txt".into(),
                kind: OpKind::Append {
                    content: "B\n".into()
                },
                line: 2
            }
        );
    }

    #[test]
    fn elision_lines_stay_verbatim() {
        let batch = parse_text(
            "f.py\n<<<<<<< SEARCH\ndef a():\n...\n    // ... existing code ...\n=======\ndef b():\n...\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            blocks(&batch),
            vec![(
                "f.py".to_string(),
                strings(&["def a():", "...", "    // ... existing code ..."]),
                strings(&["def b():", "..."])
            )]
        );
    }

    #[test]
    fn missing_divider() {
        let e = parse_err("f.py\n<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n");
        assert_eq!((e.line, e.found.as_str()), (4, ">>>>>>> REPLACE"));
        assert_eq!(e.expected, DIVIDER);
        assert!(e.message.contains("opened at line 2"), "{e:?}");
        // A near-miss divider is pointed at.
        let e = parse_err("f\n------- SEARCH\nline2\n------- =======\nreplaced\n+++++++ REPLACE");
        assert_eq!(e.line, 6);
        assert!(e.message.contains("line 4 (`------- =======`)"), "{e:?}");
        // Text ending inside SEARCH.
        let e = parse_err("f.py\n<<<<<<< SEARCH\nold\nolder\n\n");
        assert_eq!(
            (e.line, e.found.as_str(), e.expected.as_str()),
            (4, "older", DIVIDER)
        );
        // A new block before the divider.
        let e = parse_err(
            "f.py\n<<<<<<< SEARCH\nold\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
        );
        assert_eq!(e.line, 4);
    }

    #[test]
    fn missing_replace_marker() {
        let e = parse_err(
            "\nHere's the change:\n\n```text\nfoo.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n\n\noops!\n",
        );
        assert_eq!((e.line, e.found.as_str()), (12, "oops!"));
        assert_eq!(e.expected, UPDATED);
        assert!(e.message.contains("opened at line 6"), "{e:?}");
        // A closing marker with text after it is not one, and the message says so.
        let e = parse_err("f.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE f.py\n");
        assert_eq!(e.line, 6);
        assert!(
            e.message.contains("line 6 (`>>>>>>> REPLACE f.py`)"),
            "{e:?}"
        );
        // Cline's missing final marker is refused too.
        let e = parse(
            "------- SEARCH\nline2\n=======\nreplaced",
            &ParseOptions {
                default_path: Some("f".into()),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!((e.line, e.found.as_str()), (4, "replaced"));
        // A divider with nothing after it: the error is at the divider.
        let e = parse_err("f.py\n<<<<<<< SEARCH\nold\n=======");
        assert_eq!((e.line, e.found.as_str()), (4, "======="));
    }

    #[test]
    fn second_divider_and_stray_markers() {
        // A second divider with more text before the closing marker is ambiguous.
        let e = parse_err(
            "f.py\n<<<<<<< SEARCH\nold\n=======\nnew\n=======\nignored\n>>>>>>> REPLACE\n",
        );
        assert_eq!((e.line, e.found.as_str()), (6, "======="));
        assert!(e.message.contains("closes only at line 8"), "{e:?}");
        assert!(e.message.contains("\\======="), "{e:?}");
        let e = parse_err("=======\ncontent\n>>>>>>> REPLACE");
        assert_eq!((e.line, e.found.as_str()), (3, ">>>>>>> REPLACE"));
        let e = parse_err("f.py\n<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\n");
        assert_eq!(e.line, 6);
        // A lone divider in prose (a setext heading) is prose.
        let batch =
            parse_text("Title\n=======\n\nf.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(batch.ops, vec![update("f.py", &["a"], &["b"], 5)]);
    }

    #[test]
    fn a_second_divider_can_close_a_block() {
        // Alone, with no closing marker before the next block or the end (real replies).
        let batch = parse_text(
            "f.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n=======\n\nThis change does the following.\n\ng.py\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            batch.ops,
            vec![
                update("f.py", &["a"], &["b"], 3),
                update("g.py", &["c"], &["d"], 12)
            ]
        );
        // Right before the closing marker.
        let batch = parse_text(
            "f.py\n<<<<<<< SEARCH\na\n=======\nb\n=======\n>>>>>>> REPLACE\n\nf.py\n<<<<<<< SEARCH\nc\n=======\n=======\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            batch.ops,
            vec![
                update("f.py", &["a"], &["b"], 2),
                update("f.py", &["c"], &[], 10)
            ]
        );
        assert_eq!(batch.notes, [BatchNote::ClosedByDivider(vec![2, 10])]);
    }

    #[test]
    fn tag_fences_and_unusual_paths() {
        // Aider's `<source>` fence: its language is not a file name.
        let batch = parse_text(
            "aider/commands.py\n<source>python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</source>\n",
        );
        assert_eq!(batch.ops[0].path, "aider/commands.py");
        let batch = parse_text(
            "src\\mycli\\dev\\__init__.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
        );
        assert_eq!(batch.ops[0].path, "src\\mycli\\dev\\__init__.py");
        let batch = parse_text("tmpfile1\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(batch.ops[0].path, "tmpfile1");
    }

    #[test]
    fn shell_blocks_are_ignored() {
        let batch = parse_text(
            "Run:\n\n```bash\npip install foo\n>>>>>>> REPLACE\n```\n\nf.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
        );
        assert_eq!(batch.ops, vec![update("f.py", &["a"], &["b"], 9)]);
        assert_eq!(
            batch.notes,
            [BatchNote::OutsideBlocks(1), BatchNote::ShellBlocks(1)]
        );
        // A ```sh fence holding a block is an edit (Aider issue #3785).
        let batch = parse_text(
            "```sh\ntest_hello.sh\n<<<<<<< SEARCH\n=======\n#!/bin/bash\necho \"$1\"\n>>>>>>> REPLACE\n```\n",
        );
        assert_eq!(
            batch.ops,
            vec![FileOp {
                path: "test_hello.sh".into(),
                kind: OpKind::Append {
                    content: "#!/bin/bash\necho \"$1\"\n".into()
                },
                line: 3,
            }]
        );
        // The name right after a shell block is not taken from inside it.
        let e = parse_err("```bash\nls\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(e.line, 4);
    }

    #[test]
    fn fence_wrapped_bodies_are_unwrapped_when_both_are() {
        let batch = parse_text(
            "filename.ext\n<<<<<<< SEARCH\nfilename.ext\n```\nWe just want this content\n```\n=======\nfilename.ext\n```\nNEW content\n```\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            batch.ops,
            vec![update(
                "filename.ext",
                &["We just want this content"],
                &["NEW content"],
                2
            )]
        );
        assert_eq!(batch.notes, [BatchNote::UnwrappedFences(1)]);
        // Only one side wrapped: kept verbatim. A first line naming the file is content.
        let batch = parse_text(
            "README.md\n<<<<<<< SEARCH\n```\nx\n```\n=======\ny\n>>>>>>> REPLACE\n\nconfig.py\n<<<<<<< SEARCH\n# config.py\nx = 1\n=======\n# configuration\nx = 2\n>>>>>>> REPLACE\n",
        );
        assert_eq!(
            blocks(&batch),
            vec![
                (
                    "README.md".to_string(),
                    strings(&["```", "x", "```"]),
                    strings(&["y"])
                ),
                (
                    "config.py".to_string(),
                    strings(&["# config.py", "x = 1"]),
                    strings(&["# configuration", "x = 2"])
                ),
            ]
        );
    }

    #[test]
    fn no_final_newline_and_multiple_files() {
        let batch = parse_text(
            "a/b.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\nc.py\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE",
        );
        assert_eq!(
            batch.ops,
            vec![
                update("a/b.py", &["x"], &["y"], 2),
                update("c.py", &["z"], &["w"], 9)
            ]
        );
        assert!(batch.notes.is_empty(), "{:?}", batch.notes);
    }
}
