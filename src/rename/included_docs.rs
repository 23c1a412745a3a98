//! Markdown that rustdoc runs as doctests though no `.rs` file holds it: a crate's
//! `#![doc = include_str!("../README.md")]` (or an item's `#[doc = include_str!(…)]`) makes
//! every compiled block of that file a doctest of the crate. lancet renames no Markdown, so a
//! Rust rename whose old name stands in such a block would pass the compiler and fail
//! `cargo test`: it is refused unless the person leaves those sites (`--leave-unresolved`).

use super::doctests::Fence;
use super::model::{Chosen, FileScan, RenameOptions};
use super::words::whole_word_offsets;
use crate::report::{DocCodeLeft, RenameRefusal};
use lancet_core::{MAX_LISTED, Root};

/// What a Rust file includes as documentation, as far as lancet can tell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Included {
    /// A file, relative to the root (`include_str!("../README.md")`).
    Path(String),
    /// A file relative to the crate's directory, the one holding the including file's
    /// `Cargo.toml` (`include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))`).
    FromManifest(String),
    /// A path lancet cannot tell (another macro, another variable, or one leaving the root):
    /// its examples cannot be read, so a rename fails closed.
    Unread,
}

/// A file a Rust file includes as documentation, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IncludedDoc {
    /// What is included.
    pub(crate) what: Included,
    /// The Rust file that includes it, and the line of its `include_str!`.
    pub(crate) by: (String, usize),
}

/// What `rel`'s text includes as documentation (`doc = include_str!(…)` in an attribute, but
/// not under `cfg_attr(not(doctest), …)` nor in a binary's or build script's files, where
/// rustdoc runs nothing of it).
pub(crate) fn included_docs(rel: &str, bytes: &[u8]) -> Vec<IncludedDoc> {
    // A binary's docs are never doctested (rustdoc tests a library only).
    let binary = rel == "src/main.rs" || rel.ends_with("/src/main.rs") || rel.contains("src/bin/");
    if binary || rel.ends_with("build.rs") {
        return Vec::new();
    }
    let marker = b"include_str!";
    memchr::memmem::find_iter(bytes, marker)
        .filter(|&at| is_doc_value(&bytes[..at]) && !outside_doctests(&bytes[..at]))
        .map(|at| {
            let what = match path_argument(&bytes[at + marker.len()..]) {
                Some((false, path)) => joined(rel, &path).map_or(Included::Unread, Included::Path),
                Some((true, path)) => Included::FromManifest(path),
                None => Included::Unread,
            };
            let line = memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1;
            IncludedDoc {
                what,
                by: (rel.to_string(), line),
            }
        })
        .collect()
}

/// Whether the text before an `include_str!` ends in `doc =` inside an attribute (`#[doc =`,
/// `#![doc =`, `cfg_attr(…, doc =`).
fn is_doc_value(before: &[u8]) -> bool {
    let before = before.trim_ascii_end();
    let Some(before) = before.strip_suffix(b"=") else {
        return false;
    };
    let Some(before) = before.trim_ascii_end().strip_suffix(b"doc") else {
        return false;
    };
    matches!(before.trim_ascii_end().last(), Some(b'[' | b'(' | b','))
}

/// Whether the attribute an `include_str!` stands in is `cfg_attr(not(doctest), …)`: the
/// predicate between the last `cfg_attr(` and it says so.
fn outside_doctests(before: &[u8]) -> bool {
    let Some(open) = memchr::memmem::rfind(before, b"cfg_attr(") else {
        return false;
    };
    let predicate: Vec<u8> = before[open..]
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    predicate.starts_with(b"cfg_attr(not(doctest)")
}

/// The path of `(…)` at the start of `after`: string literals, joined by `concat!`, and
/// whether it starts at the crate's directory (`env!("CARGO_MANIFEST_DIR")`, which then leads);
/// `None` for anything else.
fn path_argument(after: &[u8]) -> Option<(bool, String)> {
    let mut tokens = Tokens(after);
    tokens.punct(b'(')?;
    let (manifest, path) = path_expression(&mut tokens)?;
    tokens.punct(b')')?;
    let path = if manifest {
        path.strip_prefix('/')?.to_string()
    } else {
        path
    };
    Some((manifest, path))
}

/// One path expression: a literal, `concat!(…)` of literals after an optional
/// `env!("CARGO_MANIFEST_DIR")`.
fn path_expression(tokens: &mut Tokens) -> Option<(bool, String)> {
    if let Some(literal) = tokens.literal() {
        return Some((false, literal));
    }
    tokens.word(b"concat!")?;
    tokens.punct(b'(')?;
    let manifest = tokens.word(b"env!").is_some();
    if manifest {
        tokens.punct(b'(')?;
        (tokens.literal()? == "CARGO_MANIFEST_DIR").then_some(())?;
        tokens.punct(b')')?;
    }
    let mut path = String::new();
    loop {
        if tokens.punct(b')').is_some() {
            return Some((manifest, path));
        }
        if manifest || !path.is_empty() {
            tokens.punct(b',')?;
        }
        if tokens.punct(b')').is_some() {
            return Some((manifest, path)); // a trailing comma
        }
        path.push_str(&tokens.literal()?);
    }
}

/// The bytes after `include_str!`, read token by token (whitespace skipped).
struct Tokens<'a>(&'a [u8]);

impl Tokens<'_> {
    /// Takes `byte` if it is next.
    fn punct(&mut self, byte: u8) -> Option<()> {
        self.0 = self.0.trim_ascii_start().strip_prefix(&[byte])?;
        Some(())
    }

    /// Takes `word` if it is next.
    fn word(&mut self, word: &[u8]) -> Option<()> {
        self.0 = self.0.trim_ascii_start().strip_prefix(word)?;
        Some(())
    }

    /// Takes a plain string literal (no escape) if one is next.
    fn literal(&mut self) -> Option<String> {
        let rest = self.0.trim_ascii_start().strip_prefix(b"\"")?;
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        (rest[end] == b'"').then_some(())?;
        let literal = std::str::from_utf8(&rest[..end]).ok()?.to_string();
        self.0 = &rest[end + 1..];
        Some(literal)
    }
}

/// `literal` resolved against the directory of `rel`, as a root-relative path; `None` for an
/// absolute path or one that climbs out of the root.
fn joined(rel: &str, literal: &str) -> Option<String> {
    if literal.starts_with('/') || literal.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    for part in literal.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The root-relative path of an included file: a path as it is, one from the crate's
/// directory joined to the nearest directory above the including file holding a `Cargo.toml`.
fn path_of(root: &Root, doc: &IncludedDoc) -> Option<String> {
    match &doc.what {
        Included::Path(path) => Some(path.clone()),
        Included::FromManifest(rest) => {
            let mut dirs: Vec<&str> = doc.by.0.split('/').collect();
            dirs.pop();
            loop {
                let manifest = dirs.iter().chain(["Cargo.toml"].iter()).copied();
                let manifest = manifest.collect::<Vec<_>>().join("/");
                if root.dir().symlink_metadata(&manifest).is_ok() {
                    // A sibling of the crate's `Cargo.toml`.
                    return joined(&manifest, rest);
                }
                dirs.pop()?;
            }
        }
        Included::Unread => None,
    }
}

/// The refusal of a Rust rename whose OLD stands in a compiled block of a file included as
/// documentation, or where an included file cannot be told, if either: unless the person
/// leaves undecided sites, or only locals are renamed (no example outside their function
/// reaches them).
pub(super) fn included_doctests_refusal(
    root: &Root,
    (included, scanned): (&[IncludedDoc], &[FileScan]),
    opts: &RenameOptions,
    chosen: &Chosen,
    renames_rust: bool,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved || chosen.only_locals() || !renames_rust {
        return None;
    }
    let mut read: Vec<String> = Vec::new();
    let (mut places, mut unread) = (Vec::new(), Vec::new());
    for doc in included {
        let Some(path) = path_of(root, doc) else {
            unread.push(doc.by.clone());
            continue;
        };
        if read.contains(&path) {
            continue;
        }
        // Read through the root's handle; one that cannot be read is not told (fail closed).
        let Ok(bytes) = root.dir().read(&path) else {
            unread.push(doc.by.clone());
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (line, _) in compiled_lines_naming(&text, &opts.old) {
            places.push((path.clone(), line, doc.by.clone()));
        }
        read.push(path);
    }
    let mut in_blocks: Vec<(String, usize)> = scanned
        .iter()
        .flat_map(|scan| {
            unread_doc_code(scan)
                .into_iter()
                .map(|l| (scan.path.clone(), l))
        })
        .collect();
    places.truncate(MAX_LISTED);
    unread.truncate(MAX_LISTED);
    in_blocks.truncate(MAX_LISTED);
    let found = !places.is_empty() || !unread.is_empty() || !in_blocks.is_empty();
    found.then(|| {
        RenameRefusal::IncludedDoctests(DocCodeLeft {
            old: opts.old.clone(),
            places,
            unread,
            in_blocks,
        })
    })
}

/// The 1-based lines of Markdown `text` inside a block rustdoc compiles that hold `old` as a
/// whole word, each with whether its block is one a doc comment's doctests do not read (an
/// indented one, or one in a block quote): a fenced block (untagged or Rust; `ignore` and
/// `compile_fail` excepted, which a rename cannot make fail) or an indented one (four spaces or
/// a tab, after a blank line), quoted or not.
fn compiled_lines_naming(text: &str, old: &str) -> Vec<(usize, bool)> {
    let mut lines = Vec::new();
    let mut open: Option<Fence> = None;
    let (mut start, mut after_blank, mut indented) = (0, true, false);
    for (n, line) in text.split('\n').enumerate() {
        let (content, quoted) = unquoted(line.strip_suffix('\r').unwrap_or(line));
        let names = || !whole_word_offsets(content.as_bytes(), old).is_empty();
        match &open {
            Some(fence) if fence.closes(content) => open = None,
            Some(fence) => {
                if fence.compiled && !fence.compile_fail && names() {
                    lines.push((n + 1, quoted));
                }
            }
            None => {
                let blank = content.trim().is_empty();
                let code = content.starts_with("    ") || content.starts_with('\t');
                indented = !blank && code && (indented || after_blank) || (blank && indented);
                if indented && !blank && names() {
                    lines.push((n + 1, true));
                }
                if !indented {
                    open = Fence::opens(content, start);
                }
                after_blank = blank;
            }
        }
        start += line.len() + 1;
    }
    lines
}

/// A Markdown line with its block quotes' markers taken off (`> > x` is `x`), and whether it
/// had any.
fn unquoted(line: &str) -> (&str, bool) {
    let mut rest = line;
    let mut quoted = false;
    while let Some(inner) = rest.trim_start().strip_prefix('>') {
        rest = inner.strip_prefix(' ').unwrap_or(inner);
        quoted = true;
    }
    (if quoted { rest } else { line }, quoted)
}

/// The lines of a Rust file where OLD stands, unrenamed, in doc code rustdoc compiles and the
/// file's doctests (fenced blocks of doc comments) do not hold: an indented or block-quoted
/// block of a doc comment, or a `#[doc = "…"]` string holding a code block.
fn unread_doc_code(scan: &FileScan) -> Vec<usize> {
    if scan.language != "rust" {
        return Vec::new();
    }
    let text = scan.parsed.text.as_str();
    let mut lines: Vec<usize> = scan
        .mentions
        .iter()
        .filter(|m| !scan.mention_spans.iter().any(|s| s.start == m.at))
        .filter(|m| match m.context {
            "comment" => in_unread_doc_block(text, &scan.starts, m.line, m.at),
            _ => in_doc_attribute(scan, m.at),
        })
        .map(|m| m.line)
        .collect();
    lines.dedup();
    lines
}

/// Whether line `line` of a Rust file is in a code block of its doc comment that the doctests
/// do not read (an indented one, or one in a block quote): the comment's consecutive `///` (or
/// `//!`) lines read as rustdoc reads them (markers taken off, the common indentation taken
/// off), and `at`'s word found there.
fn in_unread_doc_block(text: &str, starts: &[usize], line: usize, at: usize) -> bool {
    let line_text = |n: usize| {
        let start = starts[n - 1];
        let end = starts.get(n).map_or(text.len(), |e| e - 1);
        text[start..end].trim_end_matches('\r').trim_start()
    };
    let marker = match line_text(line) {
        l if l.starts_with("///") && !l.starts_with("////") => "///",
        l if l.starts_with("//!") => "//!",
        _ => return false,
    };
    let is_doc = |n: usize| line_text(n).starts_with(marker) && !line_text(n).starts_with("////");
    let first = (1..line)
        .rev()
        .take_while(|&n| is_doc(n))
        .last()
        .unwrap_or(line);
    let last = (line + 1..=starts.len())
        .take_while(|&n| is_doc(n))
        .last()
        .unwrap_or(line);
    let contents: Vec<&str> = (first..=last)
        .map(|n| &line_text(n)[marker.len()..])
        .collect();
    let indent = contents
        .iter()
        .filter(|c| !c.trim().is_empty())
        .map(|c| c.len() - c.trim_start().len())
        .min()
        .unwrap_or(0);
    let markdown: Vec<&str> = contents
        .iter()
        .map(|c| c.get(indent..).unwrap_or(""))
        .collect();
    let word_end = text[at..]
        .find(|c: char| !(c == '_' || c.is_alphanumeric()))
        .map_or(text.len(), |n| at + n);
    compiled_lines_naming(&markdown.join("\n"), &text[at..word_end])
        .into_iter()
        .any(|(n, unread)| unread && first + n - 1 == line)
}

/// Whether byte `at` stands in the string of a `#[doc = "…"]` attribute (or one a macro builds
/// it from) in a file holding a code block (a fence) anywhere: rustdoc joins an item's doc
/// attributes and comments into one text, so the block may open in another.
fn in_doc_attribute(scan: &FileScan, at: usize) -> bool {
    let text = scan.parsed.text.as_str();
    let Some(node) = scan
        .parsed
        .tree
        .root_node()
        .descendant_for_byte_range(at, at + 1)
    else {
        return false;
    };
    let Some(string) = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| matches!(n.kind(), "string_literal" | "raw_string_literal"))
    else {
        return false;
    };
    // The attribute the string is the value of, directly or through a macro's tokens
    // (`#[doc = concat!("```\n", …)]`).
    let attribute = std::iter::successors(string.parent(), |n| n.parent())
        .find(|n| !matches!(n.kind(), "token_tree" | "macro_invocation"));
    // `doc = …`: its value (not `#![doc(html_root_url = "…")]`'s arguments).
    let is_doc = attribute.is_some_and(|attribute| {
        attribute.kind() == "attribute"
            && attribute
                .named_child(0)
                .is_some_and(|name| &text[name.byte_range()] == "doc")
            && attribute.child_by_field_name("value").is_some_and(|value| {
                value.start_byte() <= string.start_byte() && string.end_byte() <= value.end_byte()
            })
    });
    // A block may open in another attribute or doc comment of the item: any fence in the file.
    let holds_block = ["```", "~~~"].iter().any(|f| text.contains(f));
    is_doc && holds_block
}

#[cfg(test)]
mod tests {
    use super::{Included, IncludedDoc, compiled_lines_naming, included_docs};

    #[test]
    fn doc_includes_are_found_and_their_paths_told_where_lancet_can() {
        let text = b"#![doc = include_str!(\"../README.md\")]\n\
#![cfg_attr(docsrs, doc = include_str!( \"docs/a.md\" ))]\n\
#[doc=include_str!(\"../../../up.md\")]\n\
const S: &str = include_str!(\"data.txt\");\n\
#[doc = include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/docs/\", \"x.md\"))]\n\
#[doc = include_str!(concat!(env!(\"OUT_DIR\"), \"/gen.md\"))]\n\
#![cfg_attr(not(doctest), doc = include_str!(\"../NOT_TESTED.md\"))]\n\
#![cfg_attr(doctest, doc = include_str!(concat!(\"../\", \"T.md\",)))]\n\
mod m;\n";
        let found: Vec<(Included, usize)> = included_docs("crate/src/lib.rs", text)
            .into_iter()
            .map(|IncludedDoc { what, by }| (what, by.1))
            .collect();
        assert_eq!(
            found,
            [
                (Included::Path("crate/README.md".into()), 1),
                (Included::Path("crate/src/docs/a.md".into()), 2),
                (Included::Unread, 3),
                (Included::FromManifest("docs/x.md".into()), 5),
                (Included::Unread, 6),
                (Included::Path("crate/T.md".into()), 8),
            ]
        );
    }

    #[test]
    fn only_blocks_rustdoc_compiles_are_read() {
        let text = "# total\n\n```rust\nlet t = total(1);\n```\n\n```text\ntotal\n```\n\n```ignore\ntotal()\n```\n\n~~~\n# use c::total;\ntotals(); total();\n~~~\n\n```compile_fail\ntotal(\"x\");\n```\n";
        let lines: Vec<usize> = compiled_lines_naming(text, "total")
            .into_iter()
            .map(|(line, _)| line)
            .collect();
        assert_eq!(lines, [4, 16, 17]);
    }

    #[test]
    fn blocks_in_block_quotes_are_code_the_doctests_do_not_read() {
        let text =
            "> ```\n> total(1);\n> ```\n\n> > ~~~\n> > total(2);\n> > ~~~\n\n```\ntotal(3);\n```\n";
        assert_eq!(
            compiled_lines_naming(text, "total"),
            [(2, true), (6, true), (10, false)]
        );
    }

    #[test]
    fn a_binarys_includes_are_no_doctests() {
        let text = b"#![doc = include_str!(\"../README.md\")]\n";
        assert!(included_docs("src/main.rs", text).is_empty());
        assert!(included_docs("tool/src/bin/run.rs", text).is_empty());
        assert_eq!(included_docs("tool/src/lib.rs", text).len(), 1);
    }

    #[test]
    fn indented_blocks_after_a_blank_line_are_code() {
        let text = "Adds up:\n    total(1) is text, a paragraph's continuation\n\n    let t = total(1);\n\n    total(2);\nthe total\n\ttotal(3);\n";
        assert_eq!(compiled_lines_naming(text, "total"), [(4, true), (6, true)]);
    }
}
