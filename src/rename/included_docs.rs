//! Markdown that rustdoc runs as doctests though no `.rs` file holds it: a crate's
//! `#![doc = include_str!("../README.md")]` (or an item's `#[doc = include_str!(…)]`) makes
//! every compiled block of that file a doctest of the crate. lancet renames no Markdown, so a
//! Rust rename whose old name stands in such a block would pass the compiler and fail
//! `cargo test`: it is refused unless the person leaves those sites (`--leave-unresolved`).

use super::doctests::Fence;
use super::model::{Chosen, RenameOptions, SymbolId};
use super::words::whole_word_offsets;
use crate::report::RenameRefusal;
use lancet_core::{MAX_LISTED, Root};

/// A file a Rust file includes as documentation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IncludedDoc {
    /// The included file, relative to the root.
    pub(crate) path: String,
    /// The Rust file that includes it, and the line of its `include_str!`.
    pub(crate) by: (String, usize),
}

/// The files `rel`'s text includes as documentation with a literal path (`doc =
/// include_str!("…")`), resolved against its directory; a path that would leave the root, or
/// one built by a macro (`concat!(env!(…), …)`), is not followed.
pub(crate) fn included_docs(rel: &str, bytes: &[u8]) -> Vec<IncludedDoc> {
    let marker = b"include_str!";
    memchr::memmem::find_iter(bytes, marker)
        .filter(|&at| is_doc_value(&bytes[..at]))
        .filter_map(|at| {
            let literal = literal_argument(&bytes[at + marker.len()..])?;
            let path = joined(rel, literal)?;
            let line = memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1;
            Some(IncludedDoc {
                path,
                by: (rel.to_string(), line),
            })
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

/// The string of `("…")` at the start of `after` (whitespace allowed), if it is a plain
/// literal (no escape).
fn literal_argument(after: &[u8]) -> Option<&str> {
    let after = after.trim_ascii_start().strip_prefix(b"(")?;
    let after = after.trim_ascii_start().strip_prefix(b"\"")?;
    let end = memchr::memchr2(b'"', b'\\', after)?;
    if after[end] != b'"' {
        return None;
    }
    let rest = after[end + 1..].trim_ascii_start();
    rest.starts_with(b")")
        .then(|| std::str::from_utf8(&after[..end]).ok())
        .flatten()
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

/// The refusal of a Rust rename whose OLD stands in a compiled block of a file included as
/// documentation, if it does: unless the person leaves undecided sites, or only locals are
/// renamed (no example outside their function reaches them).
pub(crate) fn included_doctests_refusal(
    root: &Root,
    included: &[IncludedDoc],
    opts: &RenameOptions,
    chosen: &Chosen,
    renames_rust: bool,
) -> Option<RenameRefusal> {
    let only_locals = matches!(chosen, Chosen::Ids(ids) if ids.iter().all(SymbolId::is_local));
    if opts.leave_unresolved || only_locals || !renames_rust {
        return None;
    }
    let mut read: Vec<&str> = Vec::new();
    let mut places = Vec::new();
    for doc in included {
        if read.contains(&doc.path.as_str()) {
            continue;
        }
        read.push(&doc.path);
        // Read through the root's handle; a file that cannot be read includes nothing rustdoc
        // could compile either (the build fails first).
        let Ok(bytes) = root.dir().read(&doc.path) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for line in compiled_lines_naming(text, &opts.old) {
            places.push((doc.path.clone(), line, doc.by.clone()));
        }
    }
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::IncludedDoctests {
        old: opts.old.clone(),
        places,
    })
}

/// The 1-based lines of Markdown `text` inside a block rustdoc compiles that hold `old` as a
/// whole word.
fn compiled_lines_naming(text: &str, old: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut open: Option<Fence> = None;
    let mut start = 0;
    for (n, line) in text.split('\n').enumerate() {
        let content = line.strip_suffix('\r').unwrap_or(line);
        match &open {
            Some(fence) if fence.closes(content) => open = None,
            Some(fence) => {
                if fence.compiled && !whole_word_offsets(content.as_bytes(), old).is_empty() {
                    lines.push(n + 1);
                }
            }
            None => open = Fence::opens(content, start),
        }
        start += line.len() + 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{IncludedDoc, compiled_lines_naming, included_docs};

    #[test]
    fn doc_includes_with_a_literal_path_are_found_and_resolved() {
        let text = b"#![doc = include_str!(\"../README.md\")]\n\
#![cfg_attr(docsrs, doc = include_str!( \"docs/a.md\" ))]\n\
#[doc=include_str!(\"../../../up.md\")]\n\
const S: &str = include_str!(\"data.txt\");\n\
#[doc = include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/x.md\"))]\n\
mod m;\n";
        let found = included_docs("crate/src/lib.rs", text);
        assert_eq!(
            found,
            [
                IncludedDoc {
                    path: "crate/README.md".into(),
                    by: ("crate/src/lib.rs".into(), 1)
                },
                IncludedDoc {
                    path: "crate/src/docs/a.md".into(),
                    by: ("crate/src/lib.rs".into(), 2)
                },
            ]
        );
    }

    #[test]
    fn only_compiled_blocks_are_read() {
        let text = "# total\n\n```rust\nlet t = total(1);\n```\n\n```text\ntotal\n```\n\n```ignore\ntotal()\n```\n\n~~~\n# use c::total;\ntotals(); total();\n~~~\n";
        assert_eq!(compiled_lines_naming(text, "total"), [4, 16, 17]);
    }
}
