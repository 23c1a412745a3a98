//! Walking the tree and scanning its files for OLD: the files under the requested paths, the
//! ones that can hold OLD read and parsed in parallel, and each whole-word occurrence sorted by
//! the node kinds of the language's `rename.scm` into code (an occurrence to resolve), a string or
//! a comment (a mention), or neither; NEW's occurrences in code are the collisions.

use super::definitions;
use super::included_docs::{IncludedDoc, included_docs};
use super::model::{
    Collision, FileScan, Occurrence, Parsed, RenameKinds, RenameOptions, Renamer, Scanned,
    line_text,
};
use super::words::whole_word_offsets;
use crate::apply_options::ApplyOptions;
use crate::report::Report;
use crate::report::{Definition, Mention, Phase, PlaceRefusal, RenameRefusal, SymbolKind};
use crate::walk::{WalkRefusal, Walked};
use lancet_core::Root;
use lancet_core::Span;
use lancet_core::sha256_hex;
use lancet_core::{line_of, line_starts};
use lancet_syntax::languages::{self, LanguageEntry};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};
use tree_sitter::{Node, Parser, Tree, TreeCursor};

/// Every language lancet can rename in, with the node kinds its `rename.scm` names.
pub(super) fn renamers() -> &'static [Renamer] {
    static LANGUAGES: OnceLock<Vec<Renamer>> = OnceLock::new();
    LANGUAGES.get_or_init(|| {
        languages::languages()
            .iter()
            .filter(|e| e.queries.iter().any(|q| q == "rename.scm"))
            .filter_map(|entry| {
                Some(Renamer {
                    entry,
                    kinds: RenameKinds::read(&entry.name, languages::rename_query(&entry.name)?),
                    grammar: languages::grammar(entry)?,
                })
            })
            .collect()
    })
}

impl RenameKinds {
    /// The kinds a `rename.scm` captures, each pattern one node (`(identifier) @name`). Read
    /// as a table, not compiled as a tree-sitter query: compiling even these cost TypeScript
    /// and TSX 3 ms each (the analysis zeroes a table of the grammar's states), a sixth of a
    /// small rename, and a table answers the same for an occurrence found by its offset.
    fn read(language: &str, source: &'static str) -> RenameKinds {
        let mut kinds = RenameKinds::default();
        for line in source.lines().map(str::trim) {
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            let pattern = line
                .strip_prefix('(')
                .and_then(|rest| rest.split_once(") @"))
                .filter(|(kind, capture)| !kind.contains(['(', ' ']) && !capture.contains(' '));
            let list = match pattern {
                Some((kind, "name")) => (&mut kinds.names, kind),
                Some((kind, "string")) => (&mut kinds.strings, kind),
                Some((kind, "comment")) => (&mut kinds.comments, kind),
                _ => panic!(
                    "grammars/{language}/rename.scm: `{line}` is not `(kind) @name|@string|@comment`"
                ),
            };
            list.0.push(list.1);
        }
        kinds
    }
}

/// The languages `lancet rename` works in (those with a `rename.scm` and a built-in grammar).
pub fn renameable_languages() -> Vec<&'static str> {
    renamers().iter().map(|r| r.entry.name.as_str()).collect()
}

/// The keyword argument whose name `node` is (`scale(value=4)`'s `value`), if it is one.
pub(crate) fn keyword_argument_named_by(node: Node) -> Option<Node> {
    node.parent().filter(|p| {
        p.kind() == "keyword_argument"
            && p.child_by_field_name("name")
                .is_some_and(|n| n.id() == node.id())
    })
}

/// Whether `name` has the shape of an identifier: a letter or `_`, then letters, digits, `_`.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// A node's ancestors, the root first, found in one descent from the root. tree-sitter finds
/// a node's `parent()` by descending from the root each time, so climbing a site's scopes one
/// parent at a time costs the square of its depth (a fifth of a stdlib rename's resolution,
/// when Python's scopes were found so).
/// A node of another tree is climbed by its parents.
pub(crate) fn ancestors<'t>(node: Node<'t>, root: Node<'t>) -> Vec<Node<'t>> {
    let mut path = Vec::new();
    let mut at = root;
    while at.id() != node.id() {
        path.push(at);
        match at.child_with_descendant(node) {
            Some(next) => at = next,
            None => {
                path.clear();
                let mut up = node.parent();
                while let Some(parent) = up {
                    path.push(parent);
                    up = parent.parent();
                }
                path.reverse();
                break;
            }
        }
    }
    path
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

/// Parses one file and collects OLD's identifier spans, definitions and mentions.
pub(super) fn scan_file(
    path: String,
    text: &str,
    renamer: &'static Renamer,
    opts: &RenameOptions,
) -> Option<FileScan> {
    let mut parser = Parser::new();
    parser.set_language(&renamer.grammar).ok()?;
    let tree = parser.parse(text, None)?;
    let bytes = text.as_bytes();
    let starts = line_starts(text);
    let whole_words = |word: &str| whole_word_offsets(bytes, word);
    let mut mention_spans = Vec::new();
    let mut mentions = Vec::new();
    let mut found_occurrences = Vec::new();
    let occurrences = whole_words(&opts.old);
    let found = classify(renamer, &tree, bytes, &occurrences, opts.old.len());
    let (doctests, holder) = match doctests_of(renamer, path.as_str(), text, &tree, &found) {
        Some((parsed, holder)) => (Some(parsed), holder),
        None => (None, ""),
    };
    let mut in_doctests = doctest_hits(
        renamer,
        doctests.as_ref().map(|d| (d, holder)),
        &occurrences,
        &found,
        opts.old.len(),
    )
    .into_iter();
    for (&at, hit) in occurrences.iter().zip(found) {
        let end = at + opts.old.len();
        let line = line_of(&starts, at);
        let (hit, doctest) = match in_doctests.next().flatten() {
            Some(inner) if inner.code => (inner, true),
            _ => (hit, false),
        };
        if hit.code || string_is_code(hit.context, renamer, &tree, text, at..end) {
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
                doctest,
            });
            continue;
        }
        if hit.context == Some("string") && in_format_spec(renamer, &tree, bytes, at) {
            continue; // a format code (`{:x}`, `f"{n:d}"`), not a word of the text
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
                at,
            });
        }
    }
    // A scan for a name alone (a move's, a signature change's: NEW is OLD) merges nothing.
    let in_doctests = found_occurrences.iter().any(|o| o.doctest);
    let doctests_read = doctests.as_ref().filter(|_| in_doctests);
    let collisions = (opts.new != opts.old)
        .then(|| file_collisions(renamer, (&tree, bytes), doctests_read, &opts.new, &starts));
    Some(FileScan {
        sha256: sha256_hex(bytes),
        language: renamer.entry.name.as_str(),
        renamer,
        parsed: Arc::new(Parsed {
            path: path.clone(),
            text: text.to_string(),
            tree,
            doctest_wrappers: None,
        }),
        doctests: doctests.map(Arc::new),
        starts,
        occurrences: found_occurrences,
        mention_spans,
        spans: Vec::new(),
        mentions,
        collisions: collisions.unwrap_or_default(),
        precheck: None,
        path,
    })
}

/// Whether the word at `at` of a string stands in a placeholder's format spec, where a letter is
/// a format code (`{:x}`, `{:>8s}`) and no word of the text: a Python f-string's
/// `format_specifier`, or the spec after `:` in a Rust format string's `{…}`.
fn in_format_spec(renamer: &Renamer, tree: &Tree, bytes: &[u8], at: usize) -> bool {
    match renamer.entry.name.as_str() {
        "python" => tree
            .root_node()
            .descendant_for_byte_range(at, at + 1)
            .is_some_and(|node| {
                std::iter::successors(Some(node), |n| n.parent())
                    .any(|n| n.kind() == "format_specifier")
            }),
        "rust" => super::rust::format_spec_at(bytes, at),
        _ => false,
    }
}

/// What each occurrence is in a doctest's code (`None` where it stands outside one): the
/// doctests' own classification of the occurrences lying in their holder (`comment` or
/// `string`) on a byte the doctest shadow keeps.
fn doctest_hits(
    renamer: &Renamer,
    doctests: Option<(&Parsed, &str)>,
    occurrences: &[usize],
    found: &[Hit],
    len: usize,
) -> Vec<Option<Hit>> {
    let Some((parsed, holder)) = doctests else {
        return vec![None; occurrences.len()];
    };
    let inside: Vec<bool> = occurrences
        .iter()
        .zip(found)
        .map(|(&at, hit)| {
            hit.context == Some(holder) && !parsed.text.as_bytes()[at].is_ascii_whitespace()
        })
        .collect();
    let offsets: Vec<usize> = occurrences
        .iter()
        .zip(&inside)
        .filter(|(_, inside)| **inside)
        .map(|(at, _)| *at)
        .collect();
    let mut hits =
        classify(renamer, &parsed.tree, parsed.text.as_bytes(), &offsets, len).into_iter();
    inside
        .into_iter()
        .map(|inside| if inside { hits.next() } else { None })
        .collect()
}

/// Where NEW already stands as code in the file, and in its doctests (`doctests`, when OLD is
/// renamed there as code: `let surface = 2; area(surface, 1)`).
fn file_collisions(
    renamer: &Renamer,
    (tree, bytes): (&Tree, &[u8]),
    doctests: Option<&Parsed>,
    new: &str,
    starts: &[usize],
) -> Vec<Collision> {
    let mut found = collisions(renamer, (tree, bytes, &[]), new, starts);
    if let Some(d) = doctests {
        let wrappers = d.doctest_wrappers.as_deref().unwrap_or_default();
        let shadow = (&d.tree, d.text.as_bytes(), wrappers);
        found.extend(collisions(renamer, shadow, new, starts));
    }
    found
}

/// Where NEW already stands as code in a text (the wrappers' names aside): a rename there would
/// merge two names.
fn collisions(
    renamer: &Renamer,
    (tree, bytes, wrappers): (&Tree, &[u8], &[usize]),
    new: &str,
    starts: &[usize],
) -> Vec<Collision> {
    let news = whole_word_offsets(bytes, new);
    // A member's quoted name (`"title": …`, `'title'() {}`) is that member, as its rename is.
    let quoted = |at: usize, hit: &Hit| {
        is_ecma(renamer)
            && hit.context == Some("string")
            && is_quoted_member_name(tree, at, new.len())
    };
    news.iter()
        .zip(classify(renamer, tree, bytes, &news, new.len()))
        .filter(|(at, _)| !wrappers.contains(at))
        .filter_map(|(&at, hit)| {
            let quoted = quoted(at, &hit);
            (hit.code || quoted).then(|| Collision {
                line: line_of(starts, at),
                member: quoted || is_member_shaped(tree, at, new.len()),
            })
        })
        .collect()
}

/// How a language's doctests are found in a file: its doctest shadow, when it has any.
type ShadowOf = fn(&str, &Tree) -> Option<super::doctests::Shadow>;

/// The file's doctests, parsed, and what holds them (`comment`: Rust's doc comments;
/// `string`: Python's docstrings), when an occurrence of OLD stands in such a holder.
fn doctests_of(
    renamer: &Renamer,
    path: &str,
    text: &str,
    tree: &Tree,
    found: &[Hit],
) -> Option<(Parsed, &'static str)> {
    let (holder, shadow): (&'static str, ShadowOf) = match renamer.entry.name.as_str() {
        "rust" => ("comment", super::doctests::rust),
        "python" => ("string", super::doctests::python),
        _ => return None,
    };
    if !found.iter().any(|h| h.context == Some(holder)) {
        return None;
    }
    let shadow = shadow(text, tree)?;
    let mut parser = Parser::new();
    parser.set_language(&renamer.grammar).ok()?;
    let tree = parser.parse(&shadow.text, None)?;
    let parsed = Parsed {
        path: path.to_string(),
        text: shadow.text,
        tree,
        doctest_wrappers: Some(shadow.wrappers),
    };
    Some((parsed, holder))
}

/// The definitions among the places a rename decided by other means (a language server's
/// edits) changes in one file: the definitions there ([`definitions`]), by kind. `None` for a
/// language lancet has no `rename.scm` for (one renamed through its server: see
/// [`super::foreign::definitions_among`]).
pub(super) fn definitions_at(
    path: &str,
    text: &str,
    at: &[usize],
    old: &str,
) -> Option<Vec<Definition>> {
    let Some(entry) = languages::language_for(path, text.as_bytes()) else {
        return Some(Vec::new());
    };
    let renamer = renamers().iter().find(|r| std::ptr::eq(r.entry, entry))?;
    let mut parser = Parser::new();
    let Some(tree) = parser
        .set_language(&renamer.grammar)
        .ok()
        .and_then(|()| parser.parse(text, None))
    else {
        return Some(Vec::new());
    };
    let mut sorted = at.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let starts = line_starts(text);
    let hits = classify(renamer, &tree, text.as_bytes(), &sorted, old.len());
    let found = sorted
        .iter()
        .zip(hits)
        .filter_map(|(&at, hit)| {
            let kind = *hit
                .kinds
                .iter()
                .find(|k| **k == SymbolKind::Method)
                .or(hit.kinds.first())?;
            Some(Definition {
                path: path.to_string(),
                line: line_of(&starts, at),
                kind,
            })
        })
        .collect();
    Some(found)
}

/// Whether OLD at `at` in a string (`context`) is code: `x: "Formatter"` (a name in an
/// annotation, written as a string so it may be defined later: code to a type checker, and to
/// the rename), a member's name quoted where JavaScript reads a member (`{ "name": v }`,
/// `p["name"]`), or `println!("{total}")` (a Rust format string's inline argument).
fn string_is_code(
    context: Option<&str>,
    renamer: &Renamer,
    tree: &Tree,
    text: &str,
    at: std::ops::Range<usize>,
) -> bool {
    context == Some("string")
        && (is_forward_reference(tree, at.start, at.len())
            || is_indexed_access_key(tree, text.as_bytes(), at.start, at.len())
            || is_ecma(renamer) && is_quoted_member_name(tree, at.start, at.len())
            || renamer.entry.name == "rust"
                && super::rust::inline_format_argument(tree, text, at.start, at.end))
}

/// Whether the word at `at` is the whole key of a TypeScript indexed access type
/// (`Subscribable<T>['subscribe']`) or of the library's `Pick`/`Omit` (`Pick<Options, 'retry'>`),
/// alone or one of a union of keys: a member named by a string, which `tsc` checks as it checks
/// `x.subscribe`. Left as a mention, a rename otherwise complete broke the build with exit 0.
fn is_indexed_access_key(tree: &Tree, text: &[u8], at: usize, len: usize) -> bool {
    let Some(fragment) = whole_string(tree, "string_fragment", at, len) else {
        return false;
    };
    // `'name'` is a literal type holding a string; `` `name` `` a template literal type without
    // substitutions.
    let Some(mut key) = fragment.parent().and_then(|holder| match holder.kind() {
        "string" => holder.parent().filter(|n| n.kind() == "literal_type"),
        "template_literal_type" if holder.named_child_count() == 1 => Some(holder),
        _ => None,
    }) else {
        return false;
    };
    while let Some(up) = key.parent() {
        match up.kind() {
            "union_type" | "parenthesized_type" => key = up,
            "lookup_type" => return up.child(0) != Some(key),
            // `Pick<T, 'a' | 'b'>`, `Omit<T, 'a'>`: the keys are the second type argument.
            "type_arguments" => {
                return up.named_child(1) == Some(key)
                    && up
                        .parent()
                        .filter(|g| g.kind() == "generic_type")
                        .and_then(|g| g.child_by_field_name("name"))
                        .is_some_and(|name| {
                            matches!(text.get(name.byte_range()), Some(b"Pick" | b"Omit"))
                        });
            }
            _ => return false,
        }
    }
    false
}

/// Whether the renamer reads JavaScript or TypeScript.
fn is_ecma(renamer: &Renamer) -> bool {
    super::ecma::is_ecma_language(&renamer.entry.name)
}

/// Whether the word at `at` is the whole of a quoted member name: an object literal's or a
/// destructuring pattern's key (`{ "name": v }`), a class's or an object type's member
/// (`"name" = 1`, `'name'(): void`), the index of a member access (`p["name"]`), or what an
/// `in` asks of an object (`"name" in p`). Each is
/// the member `name` as its identifier spelling is: left as a mention, a rename broke a typed
/// literal (tsc TS2353) or made `p["name"]` read nothing, with exit 0. A template without
/// substitutions (`` p[`name`] ``) is such a string, and so is a computed key holding one
/// (`{ ["name"]: v }`, `["name"]() {}`).
fn is_quoted_member_name(tree: &Tree, at: usize, len: usize) -> bool {
    let Some(string) = whole_string(tree, "string_fragment", at, len)
        .and_then(|fragment| fragment.parent())
        .filter(|n| {
            n.kind() == "string" || n.kind() == "template_string" && n.named_child_count() == 1
        })
    else {
        return false;
    };
    let Some(mut holder) = string.parent() else {
        return false;
    };
    let mut string = string;
    if holder.kind() == "computed_property_name" && holder.named_child_count() == 1 {
        string = holder;
        let Some(up) = holder.parent() else {
            return false;
        };
        holder = up;
    }
    let field = match holder.kind() {
        // `"name" in p`: whether `p` has member `name`.
        "binary_expression" => {
            return holder.child_by_field_name("operator").map(|o| o.kind()) == Some("in")
                && holder.child_by_field_name("left") == Some(string);
        }
        "pair" | "pair_pattern" => "key",
        "subscript_expression" => "index",
        "field_definition" => "property",
        "public_field_definition"
        | "method_definition"
        | "property_signature"
        | "method_signature"
        | "abstract_method_signature" => "name",
        _ => return false,
    };
    holder.child_by_field_name(field) == Some(string)
}

/// The node of a string's content (its grammar's `kind` for it) that is exactly the word at
/// `at`: a string holding that word and nothing else.
fn whole_string<'t>(tree: &'t Tree, kind: &str, at: usize, len: usize) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(at, at + len)
        .filter(|n| n.kind() == kind && n.byte_range() == (at..at + len))
}

/// Whether the word at `at` is a Python forward reference: the whole content of a string inside
/// an annotation (`request: "PreparedRequest"`, `t.Type["Formatter"]`).
fn is_forward_reference(tree: &Tree, at: usize, len: usize) -> bool {
    let Some(content) = whole_string(tree, "string_content", at, len) else {
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

/// What one occurrence of a word is.
#[derive(Default, Clone)]
struct Hit {
    /// It is an identifier (code).
    code: bool,
    /// It sits in a string or a comment.
    context: Option<&'static str>,
    /// The kinds of definition it names.
    kinds: Vec<SymbolKind>,
}

/// Says what each occurrence (byte offsets of a `len`-byte word) is, from the node it stands
/// in and the nodes around it, found in one descent from the root: a name of the language's
/// `rename.scm` spanning exactly the word (`#OLD`: the word after the `#`) is code, with the
/// kinds of definition it names; the innermost string or comment around it is its context.
fn classify(
    renamer: &Renamer,
    tree: &Tree,
    bytes: &[u8],
    occurrences: &[usize],
    len: usize,
) -> Vec<Hit> {
    let kinds = &renamer.kinds;
    let language = renamer.entry.name.as_str();
    let root = tree.root_node();
    let mut cursor = tree.walk();
    occurrences
        .iter()
        .map(|&at| {
            let mut hit = Hit::default();
            let mut around = enclosing(&mut cursor, root, at, at + len);
            let Some(node) = around.pop() else {
                return hit;
            };
            around.reverse();
            let kind = node.kind();
            let start = node.start_byte() + usize::from(kind == "private_property_identifier");
            if node.is_named()
                && kinds.names.contains(&kind)
                && start == at
                && node.end_byte() == at + len
            {
                hit.code = true;
                hit.kinds = definitions::kinds_named(language, node, &around, bytes);
            }
            hit.context = std::iter::once(node).chain(around).find_map(|n| {
                let kind = n.kind();
                if !n.is_named() {
                    None
                } else if kinds.strings.contains(&kind) {
                    Some("string")
                } else if kinds.comments.contains(&kind) {
                    Some("comment")
                } else {
                    None
                }
            });
            hit
        })
        .collect()
}

/// The nodes that hold the bytes `start..end`, the root first, down to the smallest one.
fn enclosing<'t>(
    cursor: &mut TreeCursor<'t>,
    root: Node<'t>,
    start: usize,
    end: usize,
) -> Vec<Node<'t>> {
    cursor.reset(root);
    let mut path = vec![cursor.node()];
    while cursor.goto_first_child_for_byte(start).is_some() {
        let node = cursor.node();
        if node.start_byte() > start || node.end_byte() < end {
            break;
        }
        path.push(node);
    }
    path
}

/// The files under the requested paths (see [`crate::walk::walk`]); a path outside the root or
/// missing refuses the rename.
pub(crate) fn walk(
    root: &Root,
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> Result<Walked, Box<Report>> {
    crate::walk::walk(root, &opts.paths, &opts.exclude).map_err(|refusal| {
        let place = match refusal {
            WalkRefusal::Outside(e) => PlaceRefusal::PathOutside {
                error: e.to_string(),
                at: false,
            },
            WalkRefusal::Missing(path) => PlaceRefusal::PathMissing { path },
        };
        Box::new(Report::rename_refused(
            &RenameRefusal::Place(place),
            apply.surface,
        ))
    })
}

/// Reads, parses and queries every walked file that can hold OLD, in parallel; with the
/// Markdown the Rust files include as documentation (see [`super::included_docs`]).
pub(crate) fn scan_all(
    root: &Root,
    files: &[String],
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> (Vec<Scanned>, Vec<IncludedDoc>) {
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
        &Phase::ScanningForRename {
            files: files.len(),
            old: &opts.old,
        },
        Some(files.len()),
    );
    let (outcomes, included): (Vec<Scanned>, Vec<Vec<IncludedDoc>>) = files
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
                return (Scanned::Skipped, Vec::new());
            }
            // Read through the root's handle: a directory swapped for a link since the walk
            // cannot make this read someone else's file.
            let bytes = match root.dir().read(rel) {
                Ok(b) => b,
                Err(e) => return (Scanned::Unreadable(format!("{rel}: {e}")), Vec::new()),
            };
            let Some(renamer) = renamer_for(rel, &bytes) else {
                return (Scanned::Skipped, Vec::new());
            };
            // Markdown this file makes doctests of, which a Rust rename must not leave.
            let included = if renamer.entry.name == "rust" {
                included_docs(rel, &bytes)
            } else {
                Vec::new()
            };
            if finder.find(&bytes).is_none() {
                return (Scanned::Walked, included);
            }
            let Ok(text) = std::str::from_utf8(&bytes) else {
                return (Scanned::Unreadable(format!("{rel}: not UTF-8")), included);
            };
            let scanned = match scan_file(rel.clone(), text, renamer, opts) {
                Some(scan) => Scanned::Parsed(Box::new(scan)),
                None => Scanned::Unreadable(format!("{rel}: could not be parsed")),
            };
            (scanned, included)
        })
        .unzip();
    (outcomes, included.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::RenameKinds;

    #[test]
    fn a_rename_scm_is_read_as_node_kinds() {
        let source = "; a comment\n(identifier) @name\n\n(string) @string\n(comment) @comment\n";
        let kinds = RenameKinds::read("x", source);
        assert_eq!(kinds.names, ["identifier"]);
        assert_eq!(kinds.strings, ["string"]);
        assert_eq!(kinds.comments, ["comment"]);
    }

    #[test]
    #[should_panic(expected = "is not `(kind) @name|@string|@comment`")]
    fn a_pattern_of_two_nodes_is_refused() {
        RenameKinds::read("x", "(function_definition name: (identifier) @name)\n");
    }
}
