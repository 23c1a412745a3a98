//! Whole-file content: a filename line, then a fenced block holding the complete new file.
//!
//! Grammar, as lancet reads it:
//!
//! ```text
//! text   := (prose | block)*
//! block  := name? blank* open NL body close           name: the nearest text line before the fence
//! open   := indent≤3 ("```" | "~~~") fence_char* info?  (N ≥ 3 backticks or tildes)
//! close  := indent≤3 same fence char, ≥ N of them, nothing else
//! name   := "#"* deco* ("File:" | "Filename:" | "Path:")? deco* path deco* ":"? deco*
//! deco   := "**" | "__" | "*" | "`" | "\"" | "'"      (a matching pair around the path)
//! ```
//!
//! Each named block becomes a whole-file write (`Write`): its body lines, each with `\n`. A path
//! alone on a line is taken as written (`tmpfile1`, `Makefile`, `dir/x.py`); with a trailing
//! colon it must have a `.` or `/` (or a `File:` label), so `Here:` is not a file name. A name
//! is at most 250 bytes and has no spaces unless it is quoted.
//!
//! Leniencies (noted): when the line before the fence is prose, the one path-like token in
//! backticks on it names the block (`` Here is the new `a.txt`: ``); an info string holding a
//! path (```` ```python:src/a.py ````) names the block; with no named block, a single unnamed
//! block is the `--path` file; when other blocks are named, unnamed blocks (usage examples,
//! shell commands) are ignored; when one file has several blocks, the last of those named most
//! firmly wins (a name line beats an info string, which beats prose). Longer fences (```` ```` ````) hold bodies with
//! ```` ``` ```` lines. Trailing `\r` is removed from every line.
//!
//! Refused: a fence that is never closed (a cut-off reply: nothing is written), and blocks that
//! name no file when no block is named and no single-block `--path` applies.

use super::{ParseError, ParseOptions};
use crate::batch::{Batch, FileOp, Format, OpKind};
use crate::notes::BatchNote;

const FENCE_CHARS: [char; 2] = ['`', '~'];
const MIN_FENCE: usize = 3;
const MAX_FENCE_INDENT: usize = 3;
const MAX_NAME_LEN: usize = 250;
const NAME_LABELS: [&str; 4] = ["file:", "filename:", "file name:", "path:"];
const DECORATION_PAIRS: [&str; 6] = ["**", "__", "*", "`", "\"", "'"];
const QUOTES: [&str; 3] = ["`", "\"", "'"];
/// Lines that belong to SEARCH/REPLACE blocks (Aider's and Cline's dialects).
const OTHER_FORMAT_MARKERS: [&str; 4] = [
    "<<<<<<< SEARCH",
    "------- SEARCH",
    ">>>>>>> REPLACE",
    "+++++++ REPLACE",
];
const NAME_EXPECTED: &str = "the file's path alone on the line before the opening fence";

/// Whether the text holds a fenced block and no other format's markers (the whole format is
/// the last one auto-detection tries, so a patch, diff or SEARCH/REPLACE reply that failed to
/// parse must not be written out as a file).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| opening_fence(l).is_some())
        && !text.lines().any(|l| {
            let t = l.trim();
            OTHER_FORMAT_MARKERS.iter().any(|m| t.starts_with(m))
        })
        && !super::patch::looks_like(text)
        && !super::unified::looks_like(text)
}

/// Parses filename-and-fenced-block pairs into whole-file writes; errors carry the 1-based line.
#[allow(
    clippy::too_many_lines,
    reason = "a parser that follows its format's grammar: one arm per kind of line"
)]
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Batch, ParseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let blocks = blocks(&lines)?;
    let mut notes = Vec::new();
    let prose = prose_lines(&lines, &blocks);
    if prose > 0 {
        notes.push(BatchNote::ProseAroundFiles(prose));
    }
    let named = blocks.iter().filter(|b| b.name.is_some()).count();
    let mut chosen: Vec<(String, &Block)> = Vec::new();
    if named == 0 {
        let first = blocks.first().ok_or_else(|| {
            let at = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
            ParseError::new(
                at + 1,
                lines.get(at).copied().unwrap_or(""),
                "a file path, then a fenced block with the whole file",
                "no fenced block found",
            )
        })?;
        match (&opts.default_path, blocks.len()) {
            (Some(path), 1) => {
                notes.push(BatchNote::BlockIsPathFile(path.clone()));
                chosen.push((path.clone(), first));
            }
            (Some(_), n) => {
                return Err(block_error(
                    &lines,
                    first,
                    format!(
                        "{n} blocks name no file and --path can stand for only one: put each file's path alone on the line before its fence"
                    ),
                ));
            }
            (None, _) => {
                return Err(block_error(
                    &lines,
                    first,
                    "No filename provided before the fence: put the file's path alone on the line before the opening fence (or pass --path)".to_string(),
                ));
            }
        }
    } else {
        let unnamed = blocks.len() - named;
        if unnamed > 0 {
            notes.push(BatchNote::UnnamedBlocks(unnamed));
        }
        for b in &blocks {
            if let Some(name) = &b.name {
                match name.source {
                    Source::Prose => notes.push(BatchNote::NameFromProse {
                        path: name.path.clone(),
                        line: b.open_line,
                    }),
                    Source::Info => notes.push(BatchNote::NameFromInfo {
                        path: name.path.clone(),
                        line: b.open_line,
                    }),
                    Source::Line => {}
                }
            }
        }
        let mut dropped = 0;
        for b in &blocks {
            let Some(name) = &b.name else { continue };
            let rival = blocks.iter().filter(|o| !std::ptr::eq(*o, b)).find(|o| {
                o.name.as_ref().is_some_and(|n| {
                    n.path == name.path
                        && (n.rank() > name.rank()
                            || (n.rank() == name.rank() && o.open_line > b.open_line))
                })
            });
            if rival.is_some() {
                dropped += 1;
            } else {
                chosen.push((name.path.clone(), b));
            }
        }
        if dropped > 0 {
            notes.push(BatchNote::RivalBlocks(dropped));
        }
    }
    let ops = chosen
        .into_iter()
        .map(|(path, b)| {
            let mut content = String::new();
            for line in &lines[b.open_line..b.close_line - 1] {
                content.push_str(strip_indent(line, b.indent));
                content.push('\n');
            }
            FileOp {
                path,
                kind: OpKind::Write { content },
                line: b.name_line.unwrap_or(b.open_line),
            }
        })
        .collect();
    Ok(Batch {
        format: Format::Whole,
        ops,
        notes,
    })
}

fn block_error(lines: &[&str], b: &Block, message: String) -> ParseError {
    ParseError::new(b.open_line, lines[b.open_line - 1], NAME_EXPECTED, message)
}

/// Where a block's file name came from, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Prose,
    Info,
    Line,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Name {
    path: String,
    source: Source,
}

impl Name {
    fn rank(&self) -> Source {
        self.source
    }
}

#[derive(Debug)]
struct Block {
    name: Option<Name>,
    /// 1-based line of the name, when it came from its own line or prose.
    name_line: Option<usize>,
    /// 1-based lines of the opening and closing fences.
    open_line: usize,
    close_line: usize,
    indent: usize,
}

/// A fence: its character, length, indentation and info string.
struct Fence<'a> {
    ch: char,
    len: usize,
    indent: usize,
    info: &'a str,
}

fn opening_fence(line: &str) -> Option<Fence<'_>> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    if indent > MAX_FENCE_INDENT {
        return None;
    }
    let ch = rest.chars().next().filter(|c| FENCE_CHARS.contains(c))?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    if len < MIN_FENCE {
        return None;
    }
    let info = rest[len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some(Fence {
        ch,
        len,
        indent,
        info,
    })
}

fn closes(line: &str, open: &Fence) -> bool {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > MAX_FENCE_INDENT {
        return false;
    }
    let rest = rest.trim_end();
    rest.len() >= open.len && rest.chars().all(|c| c == open.ch)
}

fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

fn blocks(lines: &[&str]) -> Result<Vec<Block>, ParseError> {
    let mut out = Vec::new();
    let mut floor = 0; // first line after the previous block
    let mut i = 0;
    while i < lines.len() {
        let Some(fence) = opening_fence(lines[i]) else {
            i += 1;
            continue;
        };
        let Some(close) = (i + 1..lines.len()).find(|&j| closes(lines[j], &fence)) else {
            return Err(ParseError::new(
                i + 1,
                lines[i],
                format!(
                    "a closing {} after the file's last line",
                    fence_text(&fence)
                ),
                "the block opened here is never closed: the reply looks cut off, so nothing was written; send the whole file again",
            ));
        };
        let (mut name, mut name_line) = (None, None);
        if let Some(k) = (floor..i).rev().find(|&k| !lines[k].trim().is_empty()) {
            if let Some(path) = filename_line(lines[k]) {
                name = Some(Name {
                    path,
                    source: Source::Line,
                });
                name_line = Some(k + 1);
            } else if let Some(path) = prose_name(lines[k]) {
                name = Some(Name {
                    path,
                    source: Source::Prose,
                });
                name_line = Some(k + 1);
            }
        }
        if name.as_ref().is_none_or(|n| n.source < Source::Info)
            && let Some(path) = info_name(fence.info)
        {
            name = Some(Name {
                path,
                source: Source::Info,
            });
            name_line = None;
        }
        out.push(Block {
            name,
            name_line,
            open_line: i + 1,
            close_line: close + 1,
            indent: fence.indent,
        });
        floor = close + 1;
        i = close + 1;
    }
    Ok(out)
}

fn fence_text(f: &Fence) -> String {
    std::iter::repeat_n(f.ch, f.len).collect()
}

/// Non-blank lines outside the blocks that do not name one.
fn prose_lines(lines: &[&str], blocks: &[Block]) -> usize {
    let mut prose = 0;
    let mut k = 0;
    for b in blocks {
        prose += lines[k..b.open_line - 1]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .count();
        if b.name_line.is_some() {
            prose -= 1;
        }
        k = b.close_line;
    }
    prose
        + lines[k.min(lines.len())..]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .count()
}

/// Strips one matching decoration pair, or a trailing colon; reports whether a quote was removed.
fn strip_decorations(mut s: &str) -> (&str, bool, bool) {
    let (mut quoted, mut colon) = (false, false);
    loop {
        let before = s;
        s = s.trim();
        if let Some(x) = s.strip_suffix(':') {
            s = x;
            colon = true;
        }
        for pair in DECORATION_PAIRS {
            if s.len() > 2 * pair.len()
                && let Some(inner) = s.strip_prefix(pair).and_then(|x| x.strip_suffix(pair))
            {
                s = inner;
                quoted |= QUOTES.contains(&pair);
                break;
            }
        }
        if s == before {
            return (s, quoted, colon);
        }
    }
}

/// A file name standing alone on a line, possibly decorated.
fn filename_line(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches('#');
    let (mut t, mut quoted, mut colon) = strip_decorations(t);
    let mut label = false;
    for l in NAME_LABELS {
        if t.len() > l.len() && t.is_char_boundary(l.len()) && t[..l.len()].eq_ignore_ascii_case(l)
        {
            let (inner, q, c) = strip_decorations(&t[l.len()..]);
            (t, label) = (inner, true);
            quoted |= q;
            colon |= c;
            break;
        }
    }
    let path_like = t.contains('.') || t.contains('/');
    let ok = !t.is_empty()
        && t.len() <= MAX_NAME_LEN
        && (quoted || !t.contains(char::is_whitespace))
        && !t.contains([
            '`', '<', '>', '|', '*', '?', '"', '(', ')', '[', ']', '{', '}', '=', ',', ';',
        ])
        && !t.starts_with('-')
        && !t.ends_with('.')
        && !t.ends_with('/')
        && t.chars().any(char::is_alphanumeric)
        && (!colon || label || path_like);
    ok.then(|| t.to_string())
}

/// A path-like token (a `.` extension or a `/`) in backticks.
fn path_token(t: &str) -> bool {
    let ext_ok = t.rsplit_once('.').is_some_and(|(_, ext)| {
        !ext.is_empty() && ext.len() <= 10 && ext.chars().all(char::is_alphanumeric)
    });
    !t.is_empty()
        && t.len() <= MAX_NAME_LEN
        && t.chars()
            .all(|c| c.is_alphanumeric() || "._-/+@~".contains(c))
        && (t.contains('/') || ext_ok)
        && !t.ends_with('/')
}

/// The one path-like `token` in backticks on a prose line, if exactly one is there.
fn prose_name(line: &str) -> Option<String> {
    let mut found: Option<&str> = None;
    for (k, token) in line.split('`').enumerate() {
        if k % 2 == 1 && path_token(token) {
            match found {
                Some(f) if f != token => return None,
                _ => found = Some(token),
            }
        }
    }
    found.map(str::to_string)
}

/// A path in a fence's info string (```` ```python:src/a.py ```` or ```` ```src/a.py ````).
fn info_name(info: &str) -> Option<String> {
    let token = info.split_whitespace().next()?;
    let path = token.rsplit(':').next()?;
    path_token(path).then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &str, content: &str, line: usize) -> FileOp {
        FileOp {
            path: path.into(),
            kind: OpKind::Write {
                content: content.into(),
            },
            line,
        }
    }

    fn ops(text: &str) -> Vec<FileOp> {
        parse(text, &ParseOptions::default()).unwrap().ops
    }

    fn err(text: &str) -> ParseError {
        parse(text, &ParseOptions::default()).unwrap_err()
    }

    #[test]
    fn one_file() {
        assert_eq!(
            ops("Do this:\n\ntmpfile1\n```\nnew\ntwo\n```\n"),
            vec![write("tmpfile1", "new\ntwo\n", 3)]
        );
    }

    #[test]
    fn two_files_with_prose_between() {
        let text = "Here:\n\nsrc/b.py\n```python\nprint('b')\n```\n\nand the other one\n\nREADME.md\n```\n# T\n\n```\nbye\n";
        let batch = parse(text, &ParseOptions::default()).unwrap();
        assert_eq!(
            batch.ops,
            vec![
                write("src/b.py", "print('b')\n", 3),
                write("README.md", "# T\n\n", 10)
            ]
        );
        assert_eq!(batch.notes, vec![BatchNote::ProseAroundFiles(3)]);
    }

    #[test]
    fn decorated_filenames() {
        for (line, want) in [
            ("**f.py**", "f.py"),
            ("`f.py`", "f.py"),
            ("f.py:", "f.py"),
            ("# f.py", "f.py"),
            ("### a/b.txt", "a/b.txt"),
            ("**`src/x.rs`:**", "src/x.rs"),
            ("File: `lib/m.js`", "lib/m.js"),
            ("`dir name/f.txt`", "dir name/f.txt"),
            ("Makefile", "Makefile"),
        ] {
            let text = format!("{line}\n```\nx\n```\n");
            assert_eq!(ops(&text), vec![write(want, "x\n", 1)], "{line}");
        }
        for line in ["Here:", "Here is the code:", "Done.", "- f.py"] {
            let e = err(&format!("{line}\n```\nx\n```\n"));
            assert_eq!(e.line, 2, "{line}");
        }
    }

    #[test]
    fn name_in_prose_or_info_string() {
        let text = "Here is a new version of `a.txt` for you:\n\n```\nafter a\n```\n\n```rust:src/lib.rs\nfn f() {}\n```\n";
        let batch = parse(text, &ParseOptions::default()).unwrap();
        assert_eq!(
            batch.ops,
            vec![
                write("a.txt", "after a\n", 1),
                write("src/lib.rs", "fn f() {}\n", 7)
            ]
        );
        assert_eq!(batch.notes.len(), 2);
        // Two path-like tokens: no name.
        assert_eq!(err("Change `a.py` and `b.py`:\n```\nx\n```\n").line, 2);
    }

    #[test]
    fn unnamed_blocks_beside_named_ones_are_ignored() {
        let text = "Here's the modified `hello.py` file:\n\n```\nnew\n```\n\nRun it like this:\n\n```\npython hello.py\n```\n";
        let batch = parse(text, &ParseOptions::default()).unwrap();
        assert_eq!(batch.ops, vec![write("hello.py", "new\n", 1)]);
        assert!(batch.notes.contains(&BatchNote::UnnamedBlocks(1)));
    }

    #[test]
    fn unclosed_fence_is_refused() {
        let e = err("s.txt\n```\nL1\nL2\n");
        assert_eq!((e.line, e.found.as_str()), (2, "```"));
        assert!(e.message.contains("cut off"));
    }

    #[test]
    fn quad_fence_holds_triple_fences() {
        assert_eq!(
            ops("notes.md\n````markdown\nIntro\n```\nQuote!\n```\n````\n"),
            vec![write("notes.md", "Intro\n```\nQuote!\n```\n", 1)]
        );
    }

    #[test]
    fn default_path_for_a_single_unnamed_block() {
        let opts = ParseOptions {
            default_path: Some("x.py".into()),
            ..ParseOptions::default()
        };
        let batch = parse("Here:\n```\nx = 2\n```\n", &opts).unwrap();
        assert_eq!(batch.ops, vec![write("x.py", "x = 2\n", 2)]);
        let e = parse("```\na\n```\n```\nb\n```\n", &opts).unwrap_err();
        assert_eq!(e.line, 1);
        let e = err("Here:\n\n```\nx = 2\n```\n");
        assert!(e.message.contains("No filename provided before"));
    }

    #[test]
    fn later_block_for_the_same_file_wins() {
        let text = "a.txt\n```\none\n```\na.txt\n```\ntwo\n```\n";
        assert_eq!(ops(text), vec![write("a.txt", "two\n", 5)]);
    }

    #[test]
    fn looks_like_leaves_other_formats_alone() {
        assert!(looks_like("a.py\n```\nx\n```\n"));
        assert!(!looks_like(
            "g.py\n\n```python\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n"
        ));
        assert!(!looks_like("```\n*** Begin Patch\n*** End Patch\n```\n"));
        assert!(!looks_like(
            "```diff\n--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n```\n"
        ));
        assert!(!looks_like("no fence here\n"));
    }

    #[test]
    fn empty_block_and_crlf() {
        assert_eq!(ops("e.txt\r\n```\r\n```\r\n"), vec![write("e.txt", "", 1)]);
        assert_eq!(
            ops("c.txt\r\n```\r\na\r\n```\r\n"),
            vec![write("c.txt", "a\n", 1)]
        );
    }

    #[test]
    fn never_panics_on_scrambled_input() {
        let frags = [
            "a.py",
            "**b.py**",
            "`c d.txt`",
            "Here:",
            "```",
            "```python",
            "````",
            "~~~",
            "   ```",
            "x = 1",
            "",
            "# h.md",
            "Use `e.rs` now",
            "```rust:src/f.rs",
            "é",
            "File: g.txt",
        ];
        super::super::survives_scrambles(&frags, '\n', |text, opts| {
            let _ = looks_like(text);
            let _ = parse(text, opts);
        });
    }
}
