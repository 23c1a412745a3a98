//! `lancet rename`: rename an identifier across a tree by syntax, as one transaction.
//!
//! Regex tools rewrite comments and strings; syntax-aware ones leave files that no longer parse
//! and cannot roll back. Here files are found with the `ignore` walker (honouring `.gitignore`),
//! files whose bytes cannot contain OLD are never parsed (a memchr search first), candidates
//! are parsed in parallel (rayon) and queried with their language's `grammars/<lang>/rename.scm`:
//!
//! - `@name` nodes whose text is exactly OLD become byte spans to replace;
//! - `@string` / `@comment` nodes are searched for OLD as a whole word: listed with path and
//!   line, renamed only with `--include-strings` / `--include-comments`;
//! - `@definition.<kind>` nodes say what OLD defines, for `--kind`.
//!
//! Each identifier spelled OLD is then *resolved* ([`python`]: scopes, imports between the
//! tree's modules, class members through `self`/`cls`, bases and keyword arguments; [`ecma`]:
//! JavaScript and TypeScript from `oxc_semantic`; [`rust`]: what a Rust tree proves): it is the
//! symbol (a binding of the tree, by id), unresolved (listed; renamed with
//! `--include-unresolved`), or outside the tree (`os.close`, a name imported from another
//! package: never renamed). `--at PATH:LINE:COL` names one binding: only the sites resolving
//! to it are renamed; a qualified OLD (`pkg.mod.Class.method`) does the same by name.
//!
//! The spans become [`OpKind::Splice`] operations of one batch, which then runs the pipeline of
//! every edit: staging (refused if a file changed since it was read), the syntax gate, the
//! checkpoint, the journaled commit and the optional tests. A NEW that already names something
//! in a touched file is refused, since renaming would merge the two names.

use crate::batch::{Batch, FileOp, Format, OpKind, Span};
use crate::digest::sha256_hex;
use crate::path::Root;
use crate::report::{
    Definition, ErrorKind, LeftSite, MAX_LISTED, Mention, RenameSummary, Report, Site, Status,
    Surface, SymbolKind,
};
use crate::syntax;
use crate::syntax::languages::{self, LanguageEntry};
use crate::text::replace_ranges;
use crate::{Applied, ApplyOptions, apply_batch_prechecked};
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use tree_sitter::{InputEdit, Parser, Point, Query, QueryCursor, StreamingIterator, Tree};

mod ecma;
pub mod lsp;
mod python;
mod rust;

/// A parsed file of the tree: what resolution reads.
pub(crate) struct Parsed {
    /// Relative path.
    pub path: String,
    /// The source.
    pub text: String,
    /// Its syntax tree.
    pub tree: Tree,
}

/// What an identifier spelled OLD refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// A binding of the tree, by id (`path::Class.method`, `path::name`, `rust:name`).
    Symbol(String),
    /// Lancet cannot tell without types; why.
    Unresolved(String),
    /// Something outside the tree (a builtin, another package's name); why.
    Outside(String),
}

/// The kind a query capture named `definition.<kind>` stands for.
fn kind_of_capture(name: &str) -> Option<SymbolKind> {
    match name.strip_prefix("definition.")? {
        "function" => Some(SymbolKind::Function),
        "class" => Some(SymbolKind::Class),
        "method" => Some(SymbolKind::Method),
        "variable" => Some(SymbolKind::Variable),
        _ => None,
    }
}

/// What to rename, where.
#[derive(Debug, Clone)]
pub struct RenameOptions {
    /// The identifier to rename.
    pub old: String,
    /// Its new name.
    pub new: String,
    /// Files and directories to walk, relative to the root (empty: the whole root).
    pub paths: Vec<String>,
    /// Only files of this language (a name of `grammars/languages.toml`).
    pub lang: Option<String>,
    /// Only when OLD is defined as this kind of symbol.
    pub kind: SymbolKind,
    /// Also rename whole-word mentions inside string literals.
    pub include_strings: bool,
    /// Also rename whole-word mentions inside comments.
    pub include_comments: bool,
    /// The symbol by position, `PATH:LINE:COL` (1-based line and column, in characters; any
    /// character of the identifier): only the sites that resolve to it are renamed, and OLD
    /// may be left empty (it is the identifier there).
    pub at: Option<String>,
    /// Also rename the sites lancet cannot resolve (never those that resolve outside the tree).
    pub include_unresolved: bool,
    /// Write the decided sites and leave the unresolved ones as they are (listed). Without it
    /// or `include_unresolved`, a rename with an unresolved site writes nothing: a site that
    /// may be the symbol left under its old name can break the build.
    pub leave_unresolved: bool,
    /// Ask the project's language server (needs `at`): its answer is applied as a transaction.
    pub lsp: Option<lsp::Lsp>,
}

/// A language's compiled rename query and the indexes of its captures.
struct Renamer {
    entry: &'static LanguageEntry,
    grammar: tree_sitter::Language,
    query: Query,
    name: u32,
    string: Option<u32>,
    comment: Option<u32>,
    definitions: Vec<(u32, SymbolKind)>,
}

/// Every language lancet can rename in, compiled once.
fn renamers() -> &'static [Renamer] {
    static COMPILED: OnceLock<Vec<Renamer>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        languages::languages()
            .iter()
            .filter(|e| e.queries.iter().any(|q| q == "rename.scm"))
            .filter_map(|entry| {
                let source = languages::rename_query(&entry.name)?;
                let grammar = languages::grammar(entry)?;
                let query = Query::new(&grammar, source).unwrap_or_else(|e| {
                    panic!("grammars/{}/rename.scm does not compile: {e}", entry.name)
                });
                let index = |n: &str| query.capture_index_for_name(n);
                let definitions = query
                    .capture_names()
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| Some((i as u32, kind_of_capture(n)?)))
                    .collect();
                Some(Renamer {
                    entry,
                    name: index("name")?,
                    string: index("string"),
                    comment: index("comment"),
                    definitions,
                    grammar,
                    query,
                })
            })
            .collect()
    })
}

/// The languages `lancet rename` works in (those with a `rename.scm` and a built-in grammar).
pub fn renameable_languages() -> Vec<&'static str> {
    renamers().iter().map(|r| r.entry.name.as_str()).collect()
}

/// Whether `name` has the shape of an identifier: a letter or `_`, then letters, digits, `_`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

fn is_word_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80
}

/// One whole-word occurrence of OLD in code.
struct Occurrence {
    /// Byte offset.
    at: usize,
    /// 1-based line.
    line: usize,
    /// The kinds of definition it names (from the query).
    kinds: Vec<SymbolKind>,
    /// What it refers to, once resolved (for a shorthand field, the value: a local or item).
    resolution: Option<Resolution>,
    /// A Rust shorthand field (`P { major }`, `let P { major } = p`): the field it also names.
    field: Option<Resolution>,
}

impl Occurrence {
    /// Which sides the rename takes: the value (the usual resolution) and, for a shorthand
    /// field, the field.
    fn sides(&self, chosen: &Chosen, opts: &RenameOptions) -> (bool, bool) {
        (
            chosen.renames(self.resolution.as_ref(), opts),
            self.field
                .as_ref()
                .is_some_and(|f| chosen.renames(Some(f), opts)),
        )
    }
}

/// What one file holds of OLD.
struct FileScan {
    path: String,
    sha256: String,
    language: &'static str,
    renamer: &'static Renamer,
    parsed: Arc<Parsed>,
    /// Offsets where lines start.
    starts: Vec<usize>,
    occurrences: Vec<Occurrence>,
    /// Spans of the strings and comments renamed on request.
    mention_spans: Vec<Span>,
    spans: Vec<Span>,
    mentions: Vec<Mention>,
    /// Lines where NEW already is an identifier.
    collisions: Vec<Collision>,
    /// The syntax gate's verdict on the renamed content, from this scan's tree.
    precheck: Option<syntax::Prechecked>,
}

/// The 1-based line holding byte `at`, from the offsets where lines start.
fn line_of(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at)
}

fn line_text(text: &str, starts: &[usize], line: usize) -> String {
    let start = starts[line - 1];
    let end = starts.get(line).copied().unwrap_or(text.len());
    text[start..end].trim().to_string()
}

/// NEW already in code, where OLD would become it.
struct Collision {
    line: usize,
    /// A member's name (`x.new`, a method or field declared in a class): it merges with
    /// nothing but a member.
    member: bool,
}

/// Whether the identifier at `at` names a member: after `.` (`x.name`, `this.#name`), or the
/// name of a method or field a class, impl or struct body declares.
fn is_member_shaped(tree: &Tree, at: usize, len: usize) -> bool {
    let Some(node) = tree.root_node().descendant_for_byte_range(at, at + len) else {
        return false;
    };
    if matches!(
        node.kind(),
        "property_identifier" | "field_identifier" | "private_property_identifier"
    ) {
        return true;
    }
    let Some(parent) = node.parent() else {
        return false;
    };
    let named_by = |p: tree_sitter::Node, field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == node.id())
    };
    if parent.kind() == "attribute" && named_by(parent, "attribute") {
        return true;
    }
    // `def name(self)` in a class body, `fn name` in an impl: a method.
    matches!(parent.kind(), "function_definition" | "function_item")
        && named_by(parent, "name")
        && parent
            .parent()
            .and_then(|body| body.parent())
            .is_some_and(|holder| {
                matches!(
                    holder.kind(),
                    "class_definition" | "impl_item" | "trait_item"
                )
            })
}

/// The spans as tree-sitter edits (last first, so each one's offsets still hold when it is
/// applied), for an incremental reparse of the renamed file.
fn input_edits(spans: &[Span], starts: &[usize]) -> Vec<InputEdit> {
    spans
        .iter()
        .rev()
        .map(|span| {
            let row = span.line - 1;
            let column = span.start - starts[row];
            InputEdit {
                start_byte: span.start,
                old_end_byte: span.end,
                new_end_byte: span.start + span.new.len(),
                start_position: Point::new(row, column),
                old_end_position: Point::new(row, column + (span.end - span.start)),
                new_end_position: Point::new(row, column + span.new.len()),
            }
        })
        .collect()
}

/// Where `word` stands in `bytes` as a whole word (not inside a longer identifier).
fn whole_word_offsets(bytes: &[u8], word: &str) -> Vec<usize> {
    memchr::memmem::find_iter(bytes, word.as_bytes())
        .filter(|&at| {
            let after = at + word.len();
            (at == 0 || !is_word_byte(bytes[at - 1]))
                && (after >= bytes.len() || !is_word_byte(bytes[after]))
        })
        .collect()
}

/// Parses one file and collects OLD's identifier spans, definitions and mentions.
fn scan_file(
    path: String,
    text: &str,
    renamer: &'static Renamer,
    opts: &RenameOptions,
) -> Option<FileScan> {
    let mut parser = Parser::new();
    parser.set_language(&renamer.grammar).ok()?;
    let tree = parser.parse(text, None)?;
    let bytes = text.as_bytes();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
        .collect();
    let whole_words = |word: &str| whole_word_offsets(bytes, word);
    let mut cursor = QueryCursor::new();
    let mut mention_spans = Vec::new();
    let mut mentions = Vec::new();
    let mut found_occurrences = Vec::new();
    let occurrences = whole_words(&opts.old);
    let found = classify(
        &mut cursor,
        renamer,
        &tree,
        bytes,
        &occurrences,
        opts.old.len(),
    );
    for (&at, hit) in occurrences.iter().zip(found) {
        let end = at + opts.old.len();
        let line = line_of(&starts, at);
        // `x: "Formatter"`: a name in an annotation, written as a string so it may be defined
        // later. It is code to a type checker, and to the rename.
        let forward = hit.context == Some("string") && is_forward_reference(&tree, at, end - at);
        if hit.code || forward {
            let mut kinds = hit.kinds.clone();
            // A node captured as a method is also a function: keep the most specific kind.
            if kinds.contains(&SymbolKind::Method) {
                kinds.retain(|k| *k != SymbolKind::Function);
            }
            kinds.dedup();
            found_occurrences.push(Occurrence {
                at,
                line,
                kinds,
                resolution: None,
                field: None,
            });
            continue;
        }
        let renamed = match hit.context {
            Some("string") => opts.include_strings,
            Some(_) => opts.include_comments,
            None => continue, // neither code nor text (e.g. a keyword-like token)
        };
        if renamed {
            mention_spans.push(Span {
                start: at,
                end,
                new: opts.new.clone(),
                line,
            });
        }
        if let Some(context) = hit.context {
            mentions.push(Mention {
                path: path.clone(),
                line,
                context,
                renamed,
                text: line_text(text, &starts, line),
            });
        }
    }
    let news = whole_words(&opts.new);
    let collisions = news
        .iter()
        .zip(classify(
            &mut cursor,
            renamer,
            &tree,
            bytes,
            &news,
            opts.new.len(),
        ))
        .filter(|(_, hit)| hit.code)
        .map(|(&at, _)| Collision {
            line: line_of(&starts, at),
            member: is_member_shaped(&tree, at, opts.new.len()),
        })
        .collect();
    Some(FileScan {
        sha256: sha256_hex(bytes),
        language: renamer.entry.name.as_str(),
        renamer,
        parsed: Arc::new(Parsed {
            path: path.clone(),
            text: text.to_string(),
            tree,
        }),
        starts,
        occurrences: found_occurrences,
        mention_spans,
        spans: Vec::new(),
        mentions,
        collisions,
        precheck: None,
        path,
    })
}

/// Whether the word at `at` is a Python forward reference: the whole content of a string inside
/// an annotation (`request: "PreparedRequest"`, `t.Type["Formatter"]`).
fn is_forward_reference(tree: &Tree, at: usize, len: usize) -> bool {
    let Some(content) = tree
        .root_node()
        .descendant_for_byte_range(at, at + len)
        .filter(|n| n.kind() == "string_content" && n.byte_range() == (at..at + len))
    else {
        return false;
    };
    let mut up = content.parent();
    while let Some(n) = up {
        match n.kind() {
            "type" => return true,
            "block" | "module" | "expression_statement" | "call" => return false,
            _ => up = n.parent(),
        }
    }
    false
}

/// Whether the identifier at `at` is a JavaScript/TypeScript shorthand property (`{secret}`,
/// `const {secret} = o`): a property key and a local in one word, which a rename of the local
/// must expand (`{secret: token}`), never rename in place (a different object).
fn is_shorthand(tree: &Tree, at: usize, len: usize) -> bool {
    tree.root_node()
        .descendant_for_byte_range(at, at + len)
        .is_some_and(|n| {
            matches!(
                n.kind(),
                "shorthand_property_identifier" | "shorthand_property_identifier_pattern"
            )
        })
}

/// The renamed content's spans, in file order, and the gate's verdict on it: from this
/// scan's tree edited where the spans are and reparsed incrementally (a fraction of the fresh
/// parse the gate would otherwise make of the result).
fn finish_scan(scan: &mut FileScan, chosen: &Chosen, opts: &RenameOptions, check_syntax: bool) {
    let mut spans: Vec<Span> = scan
        .occurrences
        .iter()
        .filter_map(|o| {
            let (value, field) = o.sides(chosen, opts);
            let (old, new) = (&opts.old, &opts.new);
            let text = match (value, field) {
                (false, false) => return None,
                // A Rust shorthand field: the side renamed gets the new name, the other keeps
                // the old one (`P { major: maj }`, `P { maj: major }`).
                (true, false) if o.field.is_some() => format!("{old}: {new}"),
                (false, true) => format!("{new}: {old}"),
                // `{secret}` is the property `secret` and the local `secret` at once: the
                // local is renamed, the property keeps its name.
                (true, false) if is_shorthand(&scan.parsed.tree, o.at, old.len()) => {
                    format!("{old}: {new}")
                }
                _ => new.clone(),
            };
            Some(Span {
                start: o.at,
                end: o.at + old.len(),
                new: text,
                line: o.line,
            })
        })
        .collect();
    spans.extend(scan.mention_spans.iter().cloned());
    spans.sort_by_key(|s| s.start);
    scan.spans = spans;
    if check_syntax && !scan.spans.is_empty() {
        let mut parser = Parser::new();
        if parser.set_language(&scan.renamer.grammar).is_err() {
            return;
        }
        let bytes = scan.parsed.text.as_bytes();
        let after = replace_ranges(bytes, scan.spans.iter().map(Span::replacement));
        let edits = input_edits(&scan.spans, &scan.starts);
        scan.precheck = syntax::precheck_edit(
            &scan.path,
            scan.renamer.entry,
            &mut parser,
            scan.parsed.tree.clone(),
            bytes,
            &after,
            &edits,
        );
    }
}

/// Which resolved sites a rename takes: every symbol, or the bindings `--at` or a qualified
/// name chose.
enum Chosen {
    All,
    Ids(HashSet<String>),
}

impl Chosen {
    fn renames(&self, resolution: Option<&Resolution>, opts: &RenameOptions) -> bool {
        match resolution {
            Some(Resolution::Symbol(id)) => match self {
                Chosen::All => true,
                Chosen::Ids(ids) => ids.contains(id),
            },
            Some(Resolution::Unresolved(_)) => opts.include_unresolved,
            Some(Resolution::Outside(_)) | None => false,
        }
    }
}

/// Resolves every code occurrence of OLD in the scans: Python through the tree's modules
/// (parsing, on demand, modules that do not hold OLD), JavaScript/TypeScript through
/// their imports and exports (`oxc_semantic`), Rust file by file.
fn resolve_all(root: &Root, files: &[String], scans: &mut [FileScan], old: &str) {
    let python: Vec<Arc<Parsed>> = scans
        .iter()
        .filter(|s| s.language == "python")
        .map(|s| Arc::clone(&s.parsed))
        .collect();
    let py_files: Vec<String> = files
        .iter()
        .filter(|f| f.ends_with(".py"))
        .cloned()
        .collect();
    let load = |path: &str| -> Option<Parsed> {
        let bytes = root.dir().read(path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let renamer = renamers().iter().find(|r| r.entry.name == "python")?;
        let mut parser = Parser::new();
        parser.set_language(&renamer.grammar).ok()?;
        let tree = parser.parse(&text, None)?;
        Some(Parsed {
            path: path.to_string(),
            text,
            tree,
        })
    };
    let project = python::PyProject::new(&py_files, python, &load);
    let read =
        |path: &str| -> Option<String> { String::from_utf8(root.dir().read(path).ok()?).ok() };
    let ecma = ecma::EcmaProject::new(files, &read);
    let facts: Vec<Option<rust::FileFacts>> = scans
        .par_iter()
        .map(|s| {
            (s.language == "rust")
                .then(|| rust::FileFacts::of(&s.path, &s.parsed.text, &s.parsed.tree))
        })
        .collect();
    let rust = rust::RustProject {
        files: scans
            .iter()
            .zip(facts)
            .filter_map(|(s, f)| Some((s.path.as_str(), f?)))
            .collect(),
    };
    let resolved: Vec<Vec<(Resolution, Option<Resolution>)>> = scans
        .par_iter()
        .map(|scan| {
            let parsed = &scan.parsed;
            if ecma::handles(scan.language) {
                let offsets: Vec<usize> = scan.occurrences.iter().map(|o| o.at).collect();
                return ecma
                    .resolve_file(&scan.path, &parsed.text, &offsets, old)
                    .into_iter()
                    .map(|r| (r, None))
                    .collect();
            }
            let facts = rust
                .files
                .iter()
                .find(|(p, _)| *p == scan.path)
                .map(|(_, f)| f);
            scan.occurrences
                .iter()
                .map(|o| {
                    let range = o.at..o.at + old.len();
                    let node = parsed
                        .tree
                        .root_node()
                        .descendant_for_byte_range(range.start, range.end)
                        .filter(|n| n.byte_range() == range);
                    let Some(node) = node else {
                        return (Resolution::Unresolved("not one syntax node".into()), None);
                    };
                    match facts {
                        None => (project.resolve(parsed, node, old), None),
                        Some(facts) => (
                            rust.resolve(facts, &parsed.text, node, old),
                            rust.shorthand_field(&parsed.text, node, old),
                        ),
                    }
                })
                .collect()
        })
        .collect();
    for (scan, resolutions) in scans.iter_mut().zip(resolved) {
        for (o, (r, field)) in scan.occurrences.iter_mut().zip(resolutions) {
            o.resolution = Some(r);
            o.field = field;
        }
    }
}

/// What the rename query says of one occurrence of a word.
#[derive(Default, Clone)]
struct Hit {
    /// It is an identifier (code).
    code: bool,
    /// It sits in a string or a comment.
    context: Option<&'static str>,
    /// The kinds of definition it names.
    kinds: Vec<SymbolKind>,
}

/// Occurrences closer than this share one query run.
const CLUSTER_GAP: usize = 4096;

/// Runs the rename query where the occurrences (sorted byte offsets of a `len`-byte word) are,
/// and says what each is. Nearby occurrences share one run over their span: one descent from
/// the root per cluster, not per occurrence (a test file with hundreds of sites would otherwise
/// walk the same siblings hundreds of times), and the file outside the clusters is not visited.
fn classify(
    cursor: &mut QueryCursor,
    renamer: &Renamer,
    tree: &tree_sitter::Tree,
    bytes: &[u8],
    occurrences: &[usize],
    len: usize,
) -> Vec<Hit> {
    let mut hits = vec![Hit::default(); occurrences.len()];
    let mut first = 0;
    while first < occurrences.len() {
        let mut last = first;
        while last + 1 < occurrences.len()
            && occurrences[last + 1] - occurrences[last] <= CLUSTER_GAP
        {
            last += 1;
        }
        cursor.set_byte_range(occurrences[first]..occurrences[last] + len);
        let cluster = &occurrences[first..=last];
        let mut captures = cursor.captures(&renamer.query, tree.root_node(), bytes);
        while let Some((m, i)) = captures.next() {
            let capture = m.captures()[*i];
            let (mut start, end) = (capture.node.start_byte(), capture.node.end_byte());
            // `#count`: the name is the word after the `#`.
            if capture.node.kind() == "private_property_identifier" {
                start += 1;
            }
            let index = capture.index;
            if Some(index) == renamer.string || Some(index) == renamer.comment {
                let context = if Some(index) == renamer.string {
                    "string"
                } else {
                    "comment"
                };
                let from = cluster.partition_point(|&at| at < start);
                let to = cluster.partition_point(|&at| at + len <= end);
                for hit in &mut hits[first + from..first + to.max(from)] {
                    hit.context = Some(context);
                }
            } else if end - start == len
                && let Ok(j) = cluster.binary_search(&start)
            {
                let hit = &mut hits[first + j];
                if index == renamer.name {
                    hit.code = true;
                } else if let Some((_, kind)) =
                    renamer.definitions.iter().find(|(d, _)| *d == index)
                {
                    hit.kinds.push(*kind);
                }
            }
        }
        first = last + 1;
    }
    hits
}

/// The files under the requested paths, relative to the root, in walk order; `.gitignore`d,
/// hidden and lancet's own files are left out.
/// Unreadable directories are returned as reasons, not errors: one bad directory does not stop
/// a rename elsewhere, and the report lists it.
fn walk(root: &Root, opts: &RenameOptions) -> Result<Walked, Box<Report>> {
    let mut starts = Vec::new();
    for p in &opts.paths {
        let rel = root.rel(p).map_err(|e| {
            Box::new(refused(
                ErrorKind::UnsafePath,
                e.to_string(),
                "Pass paths relative to the root, inside it.",
            ))
        })?;
        // Through the root's handle: a link leading outside is refused here, as `read` and
        // `check` refuse it, instead of walking and printing someone else's files.
        let real = root.resolve(&rel, true).map_err(|e| {
            Box::new(refused(
                ErrorKind::UnsafePath,
                e.to_string(),
                "Pass paths relative to the root, inside it.",
            ))
        })?;
        if root.dir().symlink_metadata(real.real.as_path()).is_err() {
            return Err(Box::new(refused(
                ErrorKind::Missing,
                format!("{p} does not exist under the root"),
                "Pass existing files or directories.",
            )));
        }
        starts.push(root.path().join(real.real.as_str()));
    }
    if starts.is_empty() {
        starts.push(root.path().to_path_buf());
    }
    let mut builder = ignore::WalkBuilder::new(&starts[0]);
    for s in &starts[1..] {
        builder.add(s);
    }
    builder
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".lancet" && e.file_name() != ".git");
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for entry in builder.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                unreadable.push(e.to_string());
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue; // directories, and symlinks: their targets are walked in their own place
        }
        let full = entry.into_path();
        if let Ok(rel) = full.strip_prefix(root.path()) {
            files.push(rel.to_string_lossy().into_owned());
        }
    }
    files.sort();
    files.dedup();
    Ok((files, unreadable))
}

/// The files found (relative to the root) and what could not be walked.
type Walked = (Vec<String>, Vec<String>);

fn refused(kind: ErrorKind, detail: String, next: &str) -> Report {
    Report::batch_error(Status::Refused, kind, detail, next)
}

/// Renames OLD to NEW across the requested paths as one batch, through the same pipeline as
/// every edit (`apply.dry_run`, `apply.test` and the other options apply): check the names,
/// walk, scan every candidate file in parallel, then apply the splices.
pub fn rename(opts: &RenameOptions, apply: &ApplyOptions) -> Report {
    rename_written(opts, apply).report
}

/// [`rename`], also handing back what it wrote.
pub fn rename_written(opts: &RenameOptions, apply: &ApplyOptions) -> Applied {
    let root = match Root::new(&apply.root) {
        Ok(r) => r,
        Err(e) => {
            return Report::batch_error(
                Status::Error,
                ErrorKind::Io,
                format!("cannot open the root {}: {e}", apply.root.display()),
                "Pass an existing directory with -C.",
            )
            .into();
        }
    };
    let surface = apply.surface;
    let (at_flag, lsp_flag) = (surface.param("--at"), surface.switch("--lsp"));
    let (opts, at, qualified) = match request(&root, opts, surface) {
        Ok(request) => request,
        Err(report) => return (*report).into(),
    };
    if let Some(servers) = &opts.lsp {
        return match &at {
            Some(at) => lsp::rename(&root, at, &opts.new, servers, apply),
            None => Report::batch_error(
                Status::Malformed,
                ErrorKind::Usage,
                format!("{lsp_flag} renames the symbol at a position: pass {at_flag} PATH:LINE:COL"),
                &format!("Add {at_flag} with the position of the symbol's definition or of one of its uses."),
            )
            .into(),
        };
    }
    let opts = &opts;
    let mut clock = std::time::Instant::now();
    let (files, unwalkable) = match walk(&root, opts) {
        Ok(walked) => walked,
        Err(report) => return (*report).into(),
    };
    let outcomes = scan_all(&root, &files, opts, apply);
    crate::lap("rename: walk, read, parse and query", &mut clock);
    let (mut summary, mut scans) = summarise(opts, unwalkable, outcomes);
    resolve_all(&root, &files, &mut scans, &opts.old);
    crate::lap("rename: resolve", &mut clock);
    let chosen = match choose(&scans, at.as_ref(), qualified.as_deref(), surface) {
        Ok(c) => c,
        Err(report) => {
            // What was found, for the refusal; nothing is renamed.
            complete_summary(&mut summary, &scans, &Chosen::All, opts);
            summary.renamed.clear();
            summary.sites = 0;
            summary.files_changed = 0;
            return report.with_rename(summary, apply.surface).into();
        }
    };
    scans
        .par_iter_mut()
        .for_each(|s| finish_scan(s, &chosen, opts, apply.syntax_check));
    complete_summary(&mut summary, &scans, &chosen, opts);
    let touched: Vec<&FileScan> = scans.iter().filter(|s| !s.spans.is_empty()).collect();
    let undecided = undecided_sites(&summary, &scans, &chosen, &opts.old);
    let mixed = matches!(chosen, Chosen::All)
        .then(|| languages_refusal(&summary, &scans, opts, surface))
        .flatten();
    if let Some(report) =
        mixed.or_else(|| refusal(opts, &summary, &chosen, &touched, &undecided, apply.surface))
    {
        return report.with_rename(summary, apply.surface).into();
    }
    let batch = Batch {
        format: Format::Rename,
        ops: touched
            .iter()
            .map(|scan| FileOp {
                path: scan.path.clone(),
                kind: OpKind::Splice {
                    base_sha256: scan.sha256.clone(),
                    spans: scan.spans.clone(),
                },
                line: 0,
            })
            .collect(),
        notes: Vec::new(),
    };
    let prechecks: syntax::Prechecks = touched
        .iter()
        .filter_map(|scan| Some((scan.path.clone(), scan.precheck.clone()?)))
        .collect();
    let mut applied = apply_batch_prechecked(&batch, apply, &prechecks);
    applied.report = applied.report.with_rename(summary, apply.surface);
    applied
}

/// The rename asked for: OLD from `--at` (the identifier there) or from a qualified name (its
/// last part), checked; the position and the qualified name themselves.
fn request(
    root: &Root,
    opts: &RenameOptions,
    surface: Surface,
) -> Result<(RenameOptions, Option<At>, Option<String>), Box<Report>> {
    let at_flag = surface.param("--at");
    let at = opts
        .at
        .as_deref()
        .map(|place| locate_at(root, place, surface))
        .transpose()?;
    let mut opts = opts.clone();
    if let Some(at) = &at {
        if !opts.old.is_empty() && opts.old != at.name {
            return Err(Box::new(refused(
                ErrorKind::NoMatch,
                format!(
                    "{at_flag} {} points at `{}`, not `{}`",
                    at.place, at.name, opts.old
                ),
                &format!(
                    "Leave OLD out with {at_flag} (it is the identifier there), or point at OLD."
                ),
            )));
        }
        opts.old = at.name.clone();
    }
    // A qualified OLD (`pkg.mod.Class.method`, `crate::m::Type::f`) renames its last part,
    // only where it resolves to a symbol the qualified name matches.
    let qualified = (opts.old.contains('.') || opts.old.contains("::")).then(|| opts.old.clone());
    if let Some(q) = &qualified {
        opts.old = q.rsplit(['.', ':']).next().unwrap_or_default().to_string();
    }
    if let Some(refusal) = invalid_request(&opts) {
        return Err(Box::new(refusal));
    }
    Ok((opts, at, qualified))
}

/// The refusal of names that are not identifiers, OLD equal to NEW, or a language lancet cannot
/// rename in.
fn invalid_request(opts: &RenameOptions) -> Option<Report> {
    for (what, name) in [("OLD", &opts.old), ("NEW", &opts.new)] {
        if !is_identifier(name) {
            return Some(Report::batch_error(
                Status::Malformed,
                ErrorKind::InvalidName,
                format!("{what} `{name}` is not an identifier"),
                "Pass a name made of letters, digits and `_`, not starting with a digit.",
            ));
        }
    }
    if opts.old == opts.new {
        return Some(Report::batch_error(
            Status::Malformed,
            ErrorKind::InvalidName,
            format!("OLD and NEW are both `{}`", opts.old),
            "Pass a different new name.",
        ));
    }
    let lang = opts.lang.as_ref()?;
    (!renamers().iter().any(|r| &r.entry.name == lang)).then(|| {
        Report::batch_error(
            Status::Malformed,
            ErrorKind::UnknownLanguage,
            format!("lancet cannot rename in `{lang}`"),
            &format!("Use one of: {}.", renameable_languages().join(", ")),
        )
    })
}

/// Reads, parses and queries every walked file that can hold OLD, in parallel.
fn scan_all(
    root: &Root,
    files: &[String],
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> Vec<Scanned> {
    let all = renamers();
    let wanted = |entry: &LanguageEntry| opts.lang.as_ref().is_none_or(|l| *l == entry.name);
    let renamer_for = |path: &str, head: &[u8]| {
        let entry = languages::language_for(path, head)?;
        all.iter()
            .find(|r| std::ptr::eq(r.entry, entry) && wanted(entry))
    };
    let finder = memchr::memmem::Finder::new(opts.old.as_bytes());
    let progress = crate::progress::Progress::new(&apply.progress, files.len());
    progress.phase(
        &format!("scanning {} files for `{}`", files.len(), opts.old),
        Some(files.len()),
    );
    files
        .par_iter()
        .inspect(|_| progress.inc())
        .map(|rel| {
            // Known by name: read only renameable ones. Unknown: only extensionless files can
            // still be code (a `#!` line), so only those are read to look.
            let by_name = languages::language_for(rel, b"");
            let has_extension = rel.rsplit('/').next().is_some_and(|n| n.contains('.'));
            let skip = match by_name {
                Some(_) => renamer_for(rel, b"").is_none(),
                None => has_extension,
            };
            if skip {
                return Scanned::Skipped;
            }
            // Read through the root's handle: a directory swapped for a link since the walk
            // cannot make this read someone else's file.
            let bytes = match root.dir().read(rel) {
                Ok(b) => b,
                Err(e) => return Scanned::Unreadable(format!("{rel}: {e}")),
            };
            let Some(renamer) = renamer_for(rel, &bytes) else {
                return Scanned::Skipped;
            };
            if finder.find(&bytes).is_none() {
                return Scanned::Walked;
            }
            let Ok(text) = std::str::from_utf8(&bytes) else {
                return Scanned::Unreadable(format!("{rel}: not UTF-8"));
            };
            match scan_file(rel.clone(), text, renamer, opts) {
                Some(scan) => Scanned::Parsed(Box::new(scan)),
                None => Scanned::Unreadable(format!("{rel}: could not be parsed")),
            }
        })
        .collect()
}

/// The rename's counts, mentions and skipped files, and the parsed scans (sites, definitions
/// and the left-alone lists come once the scans are resolved: [`complete_summary`]).
fn summarise(
    opts: &RenameOptions,
    unwalkable: Vec<String>,
    outcomes: Vec<Scanned>,
) -> (RenameSummary, Vec<FileScan>) {
    let mut summary = RenameSummary {
        old: opts.old.clone(),
        new: opts.new.clone(),
        files_scanned: 0,
        files_parsed: 0,
        files_changed: 0,
        sites: 0,
        definitions: Vec::new(),
        mentions: Vec::new(),
        engine: "binding".into(),
        renamed: Vec::new(),
        unresolved: Vec::new(),
        outside: Vec::new(),
        skipped_files: unwalkable,
    };
    let mut scans = Vec::new();
    for outcome in outcomes {
        match outcome {
            Scanned::Skipped => {}
            Scanned::Walked => summary.files_scanned += 1,
            Scanned::Unreadable(why) => {
                summary.files_scanned += 1;
                summary.skipped_files.push(why);
            }
            Scanned::Parsed(scan) => {
                summary.files_scanned += 1;
                summary.files_parsed += 1;
                summary.mentions.extend(scan.mentions.iter().cloned());
                scans.push(*scan);
            }
        }
    }
    (summary, scans)
}

/// Fills in what resolution decided: the definitions of the chosen symbol(s), every renamed
/// site, and the unresolved and outside ones.
fn complete_summary(
    summary: &mut RenameSummary,
    scans: &[FileScan],
    chosen: &Chosen,
    opts: &RenameOptions,
) {
    for scan in scans {
        let text = &scan.parsed.text;
        let column = |o: &Occurrence| o.at - scan.starts[o.line - 1] + 1;
        let left = |o: &Occurrence, why: &str| LeftSite {
            path: scan.path.clone(),
            line: o.line,
            column: column(o),
            text: line_text(text, &scan.starts, o.line),
            why: why.to_string(),
        };
        for o in &scan.occurrences {
            let (value, field) = o.sides(chosen, opts);
            let renamed = value || field;
            let is_symbol = matches!(o.resolution, Some(Resolution::Symbol(_)));
            if (renamed && is_symbol) || matches!(chosen, Chosen::All) {
                summary
                    .definitions
                    .extend(o.kinds.iter().map(|&kind| Definition {
                        path: scan.path.clone(),
                        line: o.line,
                        kind,
                    }));
            }
            if renamed {
                summary.renamed.push(Site {
                    path: scan.path.clone(),
                    line: o.line,
                    column: column(o),
                });
            }
            match (&o.resolution, &o.field) {
                (Some(Resolution::Unresolved(why)), _) | (_, Some(Resolution::Unresolved(why))) => {
                    summary.unresolved.push(left(o, why));
                }
                (Some(Resolution::Outside(why)), _) => summary.outside.push(left(o, why)),
                _ => {}
            }
        }
    }
    summary.sites = summary.renamed.len();
    summary.files_changed = scans.iter().filter(|s| !s.spans.is_empty()).count();
}

/// The unresolved sites that may be the chosen symbol. A site's shape limits what it can
/// name: a member access (`x.close()`) only a member, a keyword argument (`f(close=…)`) only a
/// parameter, a part of an import's module path only a module (never renamed by lancet).
fn undecided_sites<'s>(
    summary: &'s RenameSummary,
    scans: &[FileScan],
    chosen: &Chosen,
    old: &str,
) -> Vec<&'s LeftSite> {
    let (members, locals) = match chosen {
        Chosen::Ids(ids) => (
            ids.iter().any(|id| is_member_id(id)),
            ids.iter().any(|id| is_local_id(id)),
        ),
        Chosen::All => (true, true),
    };
    // Only locals chosen: a local is seen in its own file only.
    let local_files: Option<Vec<&str>> = match chosen {
        Chosen::Ids(ids) if ids.iter().all(|id| is_local_id(id)) => {
            ids.iter().map(|id| local_file(id)).collect()
        }
        _ => None,
    };
    summary
        .unresolved
        .iter()
        .filter(|site| {
            local_files
                .as_ref()
                .is_none_or(|files| files.contains(&site.path.as_str()))
        })
        .filter(|site| {
            let shape = scans
                .iter()
                .find(|s| s.path == site.path)
                .map_or(SiteShape::Plain, |scan| site_shape(scan, site, old.len()));
            let python = site.path.ends_with(".py") || site.path.ends_with(".pyi");
            match shape {
                // In Python a member may be a module's attribute (`pkg.mod.Name`): any symbol.
                SiteShape::Member => members || python,
                SiteShape::ValueMember => members,
                SiteShape::Keyword => locals,
                SiteShape::ModulePath => false,
                SiteShape::Plain => true,
            }
        })
        .collect()
}

/// What a site can name, by its place in the syntax.
enum SiteShape {
    /// `x.name`: a member (in Python maybe a module's attribute).
    Member,
    /// `self.name`, `f().name`: a member of a value, never a module's attribute.
    ValueMember,
    /// `f(name=…)`: a parameter.
    Keyword,
    /// A part of an import's dotted module path: a module.
    ModulePath,
    /// Anything else.
    Plain,
}

/// Whether a symbol id names a member (`path::Class.name`, `file@N.name`, `rust:Type::name`)
/// rather than a plain binding (`path::name`, `file@N`, `rust:item:name`, `rust:local@path@N`).
fn is_member_id(id: &str) -> bool {
    if let Some(rust) = id.strip_prefix("rust:") {
        return !(rust.starts_with("item:") || rust.starts_with("local@"));
    }
    let tail = match id.rfind('@') {
        Some(at) => &id[at..],
        None => id.rsplit("::").next().unwrap_or(id),
    };
    tail.contains('.')
}

/// Whether a symbol id names a binding local to a function (a parameter among them):
/// Python's `path::func::name`, JavaScript's `file@N`, Rust's `rust:local@path@N`.
fn is_local_id(id: &str) -> bool {
    if id.starts_with("rust:") {
        return id.starts_with("rust:local@");
    }
    !is_member_id(id) && (id.contains('@') || id.matches("::").count() >= 2)
}

/// The file a function's local is seen in, by its id: `rust:local@PATH@N`, `PATH::f::x`
/// (Python). A JavaScript id (`PATH@N`) may be a module's export, seen elsewhere: none.
fn local_file(id: &str) -> Option<&str> {
    if let Some(rest) = id.strip_prefix("rust:local@") {
        return rest.rsplit_once('@').map(|(path, _)| path);
    }
    (!id.contains('@') && id.matches("::").count() >= 2)
        .then(|| id.split("::").next())
        .flatten()
}

/// The shape of a site (see [`SiteShape`]).
fn site_shape(scan: &FileScan, site: &LeftSite, len: usize) -> SiteShape {
    let Some(&line_start) = scan.starts.get(site.line - 1) else {
        return SiteShape::Plain;
    };
    let at = line_start + site.column - 1;
    let Some(node) = scan
        .parsed
        .tree
        .root_node()
        .descendant_for_byte_range(at, at + len)
    else {
        return SiteShape::Plain;
    };
    let parent = node.parent();
    let is_field = |p: &tree_sitter::Node, field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == node.id())
    };
    // `.name` among a Rust macro's tokens (`assert_eq!(x.len(), 1)`) is a member too.
    let after_dot = parent.is_some_and(|p| p.kind() == "token_tree")
        && node.prev_sibling().is_some_and(|b| b.kind() == ".");
    // `self.name`, `f().name`, `x[0].name`: a member of a value, never a module's attribute.
    if let Some(p) = parent.filter(|p| p.kind() == "attribute" && is_field(p, "attribute")) {
        let object = p.child_by_field_name("object");
        let of_value = object.is_some_and(|o| {
            !matches!(o.kind(), "identifier" | "attribute")
                || matches!(&scan.parsed.text[o.byte_range()], "self" | "cls")
        });
        return if of_value {
            SiteShape::ValueMember
        } else {
            SiteShape::Member
        };
    }
    if matches!(node.kind(), "property_identifier" | "field_identifier") || after_dot {
        return SiteShape::Member;
    }
    if parent.is_some_and(|p| p.kind() == "keyword_argument" && is_field(&p, "name")) {
        return SiteShape::Keyword;
    }
    // `import a.b` / `import a.b as c` / `from a.b import x`: `a` and `b` are modules.
    if let Some(dotted) = parent.filter(|p| p.kind() == "dotted_name")
        && let Some(holder) = dotted.parent()
    {
        let module_path = match holder.kind() {
            "import_statement" => true,
            "aliased_import" => holder
                .parent()
                .is_some_and(|h| h.kind() == "import_statement"),
            "import_from_statement" => holder
                .child_by_field_name("module_name")
                .is_some_and(|m| m.id() == dotted.id()),
            _ => false,
        };
        if module_path {
            return SiteShape::ModulePath;
        }
    }
    SiteShape::Plain
}

/// Which sites to rename: the binding at `--at`, the bindings a qualified name matches, or
/// every resolved symbol.
fn choose(
    scans: &[FileScan],
    at: Option<&At>,
    qualified: Option<&str>,
    surface: Surface,
) -> Result<Chosen, Box<Report>> {
    let (at_flag, lsp_flag) = (surface.param("--at"), surface.switch("--lsp"));
    if let Some(at) = at {
        let occurrence = scans
            .iter()
            .find(|s| s.path == at.path)
            .and_then(|s| s.occurrences.iter().find(|o| o.at == at.offset));
        return match occurrence.and_then(|o| o.resolution.as_ref()) {
            Some(Resolution::Symbol(id)) => Ok(Chosen::Ids(HashSet::from([id.clone()]))),
            // A definition lancet cannot place (an object type's property, an enum variant's
            // field): what is unsupported, and who can do it.
            Some(Resolution::Unresolved(why))
                if occurrence.is_some_and(|o| !o.kinds.is_empty()) || why.contains("by syntax") =>
            {
                Err(Box::new(refused(
                    ErrorKind::UnresolvedSites,
                    format!(
                        "lancet does not rename `{}` at {}: {why}",
                        at.name, at.place
                    ),
                    &format!("Pass {lsp_flag} to have the project's language server rename it."),
                )))
            }
            Some(Resolution::Unresolved(why)) => Err(Box::new(refused(
                ErrorKind::UnresolvedSites,
                format!(
                    "lancet cannot tell what `{}` at {} refers to: {why}",
                    at.name, at.place
                ),
                &format!(
                    "Point {at_flag} at its definition, or pass {lsp_flag} to ask the project's language server."
                ),
            ))),
            Some(Resolution::Outside(why)) => Err(Box::new(refused(
                ErrorKind::NoMatch,
                format!(
                    "`{}` at {} is not defined in the tree: {why}; lancet renames only the tree's own names",
                    at.name, at.place
                ),
                &format!("Point {at_flag} at a definition of the tree or one of its uses."),
            ))),
            None => Err(Box::new(refused(
                ErrorKind::NoMatch,
                format!(
                    "`{}` at {} is not an identifier in code lancet walked (a string, a comment, or an ignored file)",
                    at.name, at.place
                ),
                &format!("Point {at_flag} at the identifier in code."),
            ))),
        };
    }
    let Some(qualified) = qualified else {
        return Ok(Chosen::All);
    };
    let ids: HashSet<String> = scans
        .iter()
        .flat_map(|s| &s.occurrences)
        .filter_map(|o| match &o.resolution {
            Some(Resolution::Symbol(id)) if qualified_matches(id, qualified) => Some(id.clone()),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        return Err(Box::new(refused(
            ErrorKind::NoMatch,
            format!("no symbol of the tree is named `{qualified}`"),
            &format!(
                "Check the qualified name (module path, then classes, then the name), or use {at_flag} PATH:LINE:COL."
            ),
        )));
    }
    Ok(Chosen::Ids(ids))
}

/// Whether a symbol id is the one a qualified name names: a Python id
/// (`src/pkg/mod.py::Class.method`) by its module path and qualified name, a Rust id
/// (`rust:Type::method`, `rust:item:name`) by its type and name (`crate::m::Type::method`
/// ends with `Type::method`). JavaScript/TypeScript ids (`file@offset`) carry no name: those
/// symbols are named with `--at`.
fn qualified_matches(id: &str, qualified: &str) -> bool {
    let qualified = qualified.replace("::", ".");
    let qualified = qualified.strip_prefix("crate.").unwrap_or(&qualified);
    let full = if let Some(rust) = id.strip_prefix("rust:") {
        match rust.strip_prefix("item:") {
            // `name#space`, `name@path:offset`: one of several items of the name.
            Some(item) => item.split(['@', '#']).next().unwrap_or(item).to_string(),
            None if rust.starts_with("local@") => return false,
            None => rust.replace("::", "."),
        }
    } else {
        let Some((path, qual)) = id.split_once("::") else {
            return false;
        };
        let module = path
            .trim_end_matches(".py")
            .trim_end_matches("/__init__")
            .replace('/', ".");
        format!("{module}.{}", qual.replace("::", "."))
    };
    full == qualified || full.ends_with(&format!(".{qualified}"))
}

/// `--at PATH:LINE:COL`, read: the identifier there.
struct At {
    /// The path, relative to the root.
    path: String,
    /// Byte offset of the identifier's first byte.
    offset: usize,
    /// The identifier.
    name: String,
    /// As the caller wrote it, for messages.
    place: String,
}

/// Reads the identifier `--at` points at.
fn locate_at(root: &Root, place: &str, surface: Surface) -> Result<At, Box<Report>> {
    let at_flag = surface.param("--at");
    let usage = |detail: String| {
        Box::new(Report::batch_error(
            Status::Malformed,
            ErrorKind::Usage,
            detail,
            &format!(
                "Pass {at_flag} PATH:LINE:COL (1-based line and column of any character of the identifier, as {} numbers lines).",
                surface.read("PATH")
            ),
        ))
    };
    let mut parts = place.rsplitn(3, ':');
    let (Some(col), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(usage(format!(
            "{at_flag} takes PATH:LINE:COL, got {place:?}"
        )));
    };
    let (Ok(line), Ok(col)) = (line.trim().parse::<usize>(), col.trim().parse::<usize>()) else {
        return Err(usage(format!(
            "{at_flag} takes PATH:LINE:COL, got {place:?}"
        )));
    };
    let rel = root.rel(path).map_err(|e| {
        Box::new(refused(
            ErrorKind::UnsafePath,
            e.to_string(),
            "Pass a path relative to the root, inside it.",
        ))
    })?;
    let Some(bytes) = root.read_regular(&rel) else {
        return Err(Box::new(refused(
            ErrorKind::Missing,
            format!("{rel} is not a readable file under the root"),
            "Pass an existing file.",
        )));
    };
    let text = String::from_utf8_lossy(&bytes);
    let Some(line_text) = text.split_inclusive('\n').nth(line.saturating_sub(1)) else {
        return Err(usage(format!("{rel} has no line {line}")));
    };
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let Some((col_byte, _)) = line_text.char_indices().nth(col.saturating_sub(1)) else {
        return Err(usage(format!("line {line} of {rel} has no column {col}")));
    };
    let b = text.as_bytes();
    let at = line_start + col_byte;
    if !is_word_byte(b[at]) {
        return Err(usage(format!(
            "{place} is not on an identifier (the line reads {:?})",
            line_text.trim_end()
        )));
    }
    let start = (0..=at)
        .rev()
        .take_while(|&i| is_word_byte(b[i]))
        .last()
        .unwrap_or(at);
    let end = (at..b.len())
        .find(|&i| !is_word_byte(b[i]))
        .unwrap_or(b.len());
    Ok(At {
        path: rel.to_string(),
        offset: start,
        name: text[start..end].to_string(),
        place: place.to_string(),
    })
}

/// One walked file's outcome.
enum Scanned {
    /// Not a language being renamed.
    Skipped,
    /// Walked; OLD's bytes are not in it.
    Walked,
    /// Could not be read or decoded.
    Unreadable(String),
    /// Parsed and queried.
    Parsed(Box<FileScan>),
}

/// Why the rename must not go ahead, if it must not: a reserved NEW, nothing to rename, a
/// `--kind` that does not fit, or NEW already in use where OLD would become it.
fn refusal(
    opts: &RenameOptions,
    summary: &RenameSummary,
    chosen: &Chosen,
    touched: &[&FileScan],
    undecided: &[&LeftSite],
    surface: Surface,
) -> Option<Report> {
    let languages: HashSet<&str> = touched.iter().map(|s| s.language).collect();
    for entry in languages::languages() {
        if languages.contains(entry.name.as_str()) && entry.keywords.contains(&opts.new) {
            return Some(Report::batch_error(
                Status::Malformed,
                ErrorKind::InvalidName,
                format!("`{}` is a reserved word in {}", opts.new, entry.name),
                "Pass a new name that is not a keyword.",
            ));
        }
    }
    if let Some(report) = kind_refusal(opts, summary) {
        return Some(report);
    }
    // A member of NEW's name merges only with a member: renaming a plain binding beside a
    // method `Other.new` joins nothing.
    let plain_target = touched
        .iter()
        .flat_map(|s| &s.occurrences)
        .filter(|o| chosen.renames(o.resolution.as_ref(), opts))
        .all(|o| matches!(&o.resolution, Some(Resolution::Symbol(id)) if !is_member_id(id)));
    let collisions: Vec<String> = touched
        .iter()
        .flat_map(|s| {
            s.collisions
                .iter()
                .filter(|c| !(plain_target && c.member))
                .map(move |c| format!("{}:{}", s.path, c.line))
        })
        .collect();
    if !collisions.is_empty() {
        let shown = collisions.iter().take(20).cloned().collect::<Vec<_>>();
        let more = collisions.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return Some(refused(
            ErrorKind::NameInUse,
            format!(
                "`{}` is already used in files this rename changes: {}{more}; renaming `{}` would merge the two names",
                opts.new,
                shown.join(", "),
                opts.old
            ),
            "Pick a new name that is not in use there, or narrow the paths.",
        ));
    }
    if touched.is_empty() && !undecided.is_empty() && !opts.include_unresolved {
        // Every site in code is undecided (cfg variants, unknown receivers): say so.
        return Some(unresolved_refusal(opts, summary, undecided, surface));
    }
    if touched.is_empty() {
        let mentions = if summary.mentions.is_empty() {
            String::new()
        } else {
            format!(
                " (it is mentioned {} time(s) in strings or comments, listed below; {} / {} rename those)",
                summary.mentions.len(),
                surface.switch("--include-strings"),
                surface.switch("--include-comments")
            )
        };
        return Some(refused(
            ErrorKind::NoMatch,
            format!(
                "no identifier `{}` found in {} file(s) scanned{mentions}",
                opts.old, summary.files_scanned
            ),
            "Check the spelling and the paths (files ignored by .gitignore are not walked).",
        ));
    }
    if !undecided.is_empty() && !opts.include_unresolved && !opts.leave_unresolved {
        return Some(unresolved_refusal(opts, summary, undecided, surface));
    }
    None
}

/// A bare name defined in several languages (a Rust `fn frob` and a Python `def frob`): one
/// name, unrelated symbols; renaming all of them by spelling is no rename anyone asked for.
fn languages_refusal(
    summary: &RenameSummary,
    scans: &[FileScan],
    opts: &RenameOptions,
    surface: Surface,
) -> Option<Report> {
    let language = |path: &str| scans.iter().find(|s| s.path == path).map(|s| s.language);
    let languages: std::collections::BTreeSet<&str> = summary
        .definitions
        .iter()
        .filter_map(|d| language(&d.path))
        .collect();
    if languages.len() < 2 {
        return None;
    }
    let listed: Vec<String> = summary
        .definitions
        .iter()
        .take(MAX_LISTED)
        .map(|d| {
            format!(
                "{} {}:{} ({})",
                d.kind.name(),
                d.path,
                d.line,
                language(&d.path).unwrap_or("?")
            )
        })
        .collect();
    Some(refused(
        ErrorKind::Ambiguous,
        format!(
            "`{}` is defined in {} languages ({}): {}; a bare name cannot say which of these unrelated symbols to rename",
            opts.old,
            languages.len(),
            languages.into_iter().collect::<Vec<_>>().join(", "),
            listed.join(", ")
        ),
        &format!(
            "Name the symbol by position ({} PATH:LINE:COL) or by a qualified name, or narrow the paths.",
            surface.param("--at")
        ),
    ))
}

/// `--kind K` where OLD is defined as no K, or as K and something else.
fn kind_refusal(opts: &RenameOptions, summary: &RenameSummary) -> Option<Report> {
    let place = |d: &Definition| format!("{} {}:{}", d.kind.name(), d.path, d.line);
    if opts.kind != SymbolKind::Any {
        let (fits, others): (Vec<&Definition>, Vec<&Definition>) = summary
            .definitions
            .iter()
            .partition(|d| d.kind == opts.kind);
        if fits.is_empty() {
            let found = if others.is_empty() {
                "no definition of it was found".to_string()
            } else {
                format!(
                    "it is defined as: {}",
                    others
                        .iter()
                        .map(|d| place(d))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Some(refused(
                ErrorKind::KindMismatch,
                format!(
                    "no {} named `{}` is defined under the given paths; {found}",
                    opts.kind.name(),
                    opts.old
                ),
                "Pass the --kind it has (or --kind any), or the paths that define it.",
            ));
        }
        if !others.is_empty() {
            return Some(refused(
                ErrorKind::KindMismatch,
                format!(
                    "`{}` names a {} but also: {}; lancet renames by name, so it cannot rename one and keep the other",
                    opts.old,
                    opts.kind.name(),
                    others
                        .iter()
                        .map(|d| place(d))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "Narrow the paths to the files of the symbol you mean.",
            ));
        }
    }
    None
}

/// Sites lancet could not decide stop the rename: each may be the symbol, and one left under
/// the old name can break the build while the rest is renamed.
fn unresolved_refusal(
    opts: &RenameOptions,
    summary: &RenameSummary,
    undecided: &[&LeftSite],
    surface: Surface,
) -> Report {
    let n = undecided.len();
    let listed: Vec<String> = undecided
        .iter()
        .take(MAX_LISTED)
        .map(|u| format!("  {}:{}: {}  ({})", u.path, u.line, u.text, u.why))
        .collect();
    let more = n.saturating_sub(listed.len());
    let (include, leave) = surface.unresolved_switches();
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "{n} site(s) spelled `{}` could not be decided (each may or may not be this symbol); {}, so nothing was written:\n{}{}",
            opts.old,
            if summary.sites == 0 {
                "none could be, and renaming none of them is no rename".to_string()
            } else {
                format!(
                    "renaming the {} decided site(s) and leaving these could break the build",
                    summary.sites
                )
            },
            listed.join("\n"),
            if more > 0 {
                format!("\n  … and {more} more")
            } else {
                String::new()
            }
        ),
        &if summary.sites == 0 {
            format!(
                "Pass {include} to rename them; or name the symbol by position ({}) or use the language server ({}) to decide them.",
                surface.param("--at"),
                surface.switch("--lsp")
            )
        } else {
            format!(
                "Pass {include} to rename them too, or {leave} to rename only the decided sites and leave these; or name the symbol by position ({}) or use the language server ({}) to decide them.",
                surface.param("--at"),
                surface.switch("--lsp")
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(old: &str, new: &str) -> RenameOptions {
        RenameOptions {
            old: old.into(),
            new: new.into(),
            paths: Vec::new(),
            lang: None,
            kind: SymbolKind::Any,
            include_strings: false,
            include_comments: false,
            at: None,
            include_unresolved: false,
            leave_unresolved: false,
            lsp: None,
        }
    }

    /// One file scanned, resolved (a tree of that file alone) and finished.
    fn scan_one(path: &str, text: &str, lang: &str, o: &RenameOptions, check: bool) -> FileScan {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let mut scans = vec![scan_file(path.into(), text, renamer(lang), o).unwrap()];
        resolve_all(&root, &[path.to_string()], &mut scans, &o.old);
        finish_scan(&mut scans[0], &Chosen::All, o, check);
        scans.pop().unwrap()
    }

    fn kinds(scan: &FileScan) -> Vec<(usize, SymbolKind)> {
        scan.occurrences
            .iter()
            .flat_map(|o| o.kinds.iter().map(move |k| (o.line, *k)))
            .collect()
    }

    fn renamer(name: &str) -> &'static Renamer {
        renamers().iter().find(|r| r.entry.name == name).unwrap()
    }

    fn apply_spans(text: &str, spans: &[Span]) -> String {
        String::from_utf8(replace_ranges(
            text.as_bytes(),
            spans.iter().map(Span::replacement),
        ))
        .unwrap()
    }

    #[test]
    fn python_bindings_are_renamed_and_the_rest_resolved_or_listed() {
        let text = "from shop import total as t\n\nclass Cart:\n    def total(self):  # total of the cart\n        return f\"{total(1)} total\"\n\n    def run(self):\n        total = 1\n        return self.total() + total\n";
        let scan = scan_one("a.py", text, "python", &opts("total", "sum_all"), true);
        let precheck = scan
            .precheck
            .as_ref()
            .expect("checked from the scan's tree");
        assert!(precheck.is_clean(), "{precheck:?}");
        // `shop` is not in the tree: its `total` is another package's. The bare `total(1)` in
        // the method binds to nothing (a class scope does not reach its methods' bodies).
        assert_eq!(
            apply_spans(text, &scan.spans),
            "from shop import total as t\n\nclass Cart:\n    def sum_all(self):  # total of the cart\n        return f\"{total(1)} total\"\n\n    def run(self):\n        sum_all = 1\n        return self.sum_all() + sum_all\n"
        );
        let resolutions: Vec<(usize, &Resolution)> = scan
            .occurrences
            .iter()
            .map(|o| (o.line, o.resolution.as_ref().unwrap()))
            .collect();
        assert!(
            matches!(resolutions[0], (1, Resolution::Outside(why)) if why.contains("`shop` is outside the tree")),
            "{resolutions:?}"
        );
        assert!(
            matches!(resolutions[1], (4, Resolution::Symbol(id)) if id == "a.py::Cart.total"),
            "{resolutions:?}"
        );
        assert!(
            matches!(resolutions[2], (5, Resolution::Unresolved(why)) if why.contains("not bound")),
            "{resolutions:?}"
        );
        assert!(
            matches!(resolutions[3], (8, Resolution::Symbol(id)) if id == "a.py::Cart.run::total"),
            "{resolutions:?}"
        );
        let mentions: Vec<(usize, &str)> =
            scan.mentions.iter().map(|m| (m.line, m.context)).collect();
        assert_eq!(mentions, [(4, "comment"), (5, "string")]);
        let kinds = kinds(&scan);
        assert_eq!(kinds, [(4, SymbolKind::Method), (8, SymbolKind::Variable)]);
    }

    #[test]
    fn opted_in_mentions_are_renamed_as_whole_words_only() {
        let text = "x = 'total totals subtotal'  # total\n";
        let mut o = opts("total", "sum_all");
        o.include_strings = true;
        o.include_comments = true;
        let scan = scan_one("a.py", text, "python", &o, true);
        assert_eq!(
            apply_spans(text, &scan.spans),
            "x = 'sum_all totals subtotal'  # sum_all\n"
        );
    }

    #[test]
    fn rust_items_fields_and_self_members_are_renamed_and_unknown_receivers_listed() {
        // `t` is declared a `Total` (`let t = Total { … }`); `w`'s type is not written, and
        // `std::iter::Sum::total` is outside the tree.
        let text = "struct Total { total: u32 }\nimpl Total {\n    fn total(&self) -> u32 { self.total }\n}\nfn main() {\n    let t = Total { total: 1 };\n    println!(\"total: {}\", t.total()); // total\n    let w = make();\n    w.total();\n    std::iter::Sum::total();\n}\n";
        let scan = scan_one("a.rs", text, "rust", &opts("total", "sum"), true);
        assert_eq!(
            apply_spans(text, &scan.spans),
            "struct Total { sum: u32 }\nimpl Total {\n    fn sum(&self) -> u32 { self.sum }\n}\nfn main() {\n    let t = Total { sum: 1 };\n    println!(\"total: {}\", t.sum()); // total\n    let w = make();\n    w.total();\n    std::iter::Sum::total();\n}\n"
        );
        let last: Vec<&Resolution> = scan.occurrences[scan.occurrences.len() - 2..]
            .iter()
            .filter_map(|o| o.resolution.as_ref())
            .collect();
        assert!(
            matches!(last[0], Resolution::Unresolved(why) if why.contains("the type of `w` is not known")),
            "{last:?}"
        );
        assert!(
            matches!(last[1], Resolution::Outside(why) if why.contains("outside the tree")),
            "{last:?}"
        );
        assert_eq!(scan.mentions.len(), 2);
        let kinds = kinds(&scan);
        assert_eq!(kinds, [(3, SymbolKind::Method)]);
    }

    #[test]
    fn identifiers_are_checked_by_shape() {
        assert!(is_identifier("expect_equal"));
        assert!(is_identifier("_x1"));
        assert!(is_identifier("naïve"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier(""));
    }

    #[test]
    fn clustered_query_runs_classify_every_occurrence() {
        // 200 functions, a long docstring-free gap in the middle (wider than a cluster), and
        // each site in code, a comment and a string.
        let mut text = String::new();
        for i in 0..200 {
            if i == 100 {
                text.push_str(&format!("# {}\n", "-".repeat(2 * CLUSTER_GAP)));
            }
            text.push_str(&format!(
                "def f{i}():\n    return total({i})  # total\n\nx{i} = 'total'\n"
            ));
        }
        text.push_str("def total(n):\n    return n\n");
        let scan = scan_one("a.py", &text, "python", &opts("total", "sum_all"), true);
        assert_eq!(scan.spans.len(), 201);
        let count = |context: &str| {
            scan.mentions
                .iter()
                .filter(|m| m.context == context)
                .count()
        };
        assert_eq!((count("comment"), count("string")), (200, 200));
        let kinds = kinds(&scan);
        assert_eq!(kinds, [(802, SymbolKind::Function)]);
        assert!(scan.precheck.unwrap().is_clean());
    }

    #[test]
    fn collisions_with_new_are_found() {
        let text = "def total(): pass\nsum_all = 3\n";
        let scan = scan_one("a.py", text, "python", &opts("total", "sum_all"), false);
        let lines: Vec<usize> = scan.collisions.iter().map(|c| c.line).collect();
        assert_eq!(lines, [2]);
        assert!(scan.precheck.is_none(), "no syntax check asked for");
    }
}
