//! `lancet rename`: rename an identifier across a tree by syntax, as one transaction.
//!
//! Regex tools rewrite comments and strings; syntax-aware ones leave files that no longer parse
//! and cannot roll back. Here files are found with the `ignore` walker (honouring `.gitignore`),
//! files whose bytes cannot contain OLD are never parsed (a memchr search first), candidates
//! are parsed in parallel (rayon), and the node at each whole-word occurrence is looked up
//! against the node kinds of their language's `grammars/<lang>/rename.scm`:
//!
//! - a `@name` node spanning exactly OLD becomes a byte span to replace;
//! - inside a `@string` / `@comment` node, OLD is listed with path and line, renamed only with
//!   `--include-strings` / `--include-comments`;
//! - [`definitions`] says what a name defines, from its parents, for `--kind`.
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

use crate::applied::Applied;
use crate::apply_options::ApplyOptions;
use crate::pipeline::{apply_batch_prechecked, open_root};
use crate::report::Report;
use crate::report::{
    Definition, LeftSite, LeftWhy, PlaceRefusal, RenameRefusal, RenameSummary, Site,
};
use choose::{choose, request, with_tied};
use lancet_core::replace_ranges;
use lancet_core::{Batch, FileOp, Format, OpKind, Span};
use lancet_syntax as syntax;
use model::line_text;
use model::{Chosen, FileScan, Occurrence, Resolution, Scanned};
use rayon::prelude::*;
use refusal::{Found, languages_refusal, refusal, undecided_sites};
use registry::resolve_all_then;
use scan::{scan_all, walk};
use scope::keep_mentions_in_scope;
use tree_sitter::{InputEdit, Parser, Point, Tree};

pub(crate) mod at;
pub(crate) mod choose;
mod component_files;
mod definitions;
mod doctest_files;
mod doctest_output;
mod doctests;
pub(crate) mod ecma;
mod foreign;
mod hybrid;
mod included_docs;
pub mod lsp;
mod mangling;
mod memo;
pub(crate) mod model;
mod named_by_string;
pub(crate) mod overrides;
pub(crate) mod python;
pub(crate) mod refusal;
pub(crate) mod registry;
pub(crate) mod resolve;
mod rust;
pub(crate) mod scan;
mod scope;
mod splats;
mod word_index;
mod words;

pub use model::RenameOptions;
pub use scan::renameable_languages;

/// Renames OLD to NEW across the requested paths as one batch, through the same pipeline as
/// every edit (`apply.dry_run`, `apply.test` and the other options apply): check the names,
/// walk, scan every candidate file in parallel, then apply the splices.
pub fn rename(opts: &RenameOptions, apply: &ApplyOptions) -> Applied {
    let root = match open_root(apply) {
        Ok(r) => r,
        Err(report) => return (*report).into(),
    };
    let surface = apply.surface;
    let (opts, at, qualified) = match request(&root, opts, surface) {
        Ok(request) => request,
        Err(report) => return (*report).into(),
    };
    // `--at` in a language lancet resolves no names in (Go): its server, or a refusal.
    if opts.lsp.is_none()
        && let Some(at) = &at
        && let Some(foreign) = foreign::at_place(at, &opts.old, opts.servers.as_ref())
    {
        return foreign_rename(&root, foreign, &opts, apply);
    }
    if let Some(servers) = &opts.lsp {
        return match &at {
            Some(at) => lsp::rename(&root, at, &opts, servers, apply),
            None => {
                Report::rename_refused(&RenameRefusal::Place(PlaceRefusal::LspWithoutAt), surface)
                    .into()
            }
        };
    }
    let opts = &opts;
    let mut clock = std::time::Instant::now();
    let (files, unwalkable) = match walk(&root, opts, apply) {
        Ok(walked) => walked,
        Err(report) => return (*report).into(),
    };
    let (outcomes, included_docs) = scan_all(&root, &files, opts, apply);
    lancet_core::timing::lap("rename: walk, read, parse and query", &mut clock);
    let (mut summary, scans) = summarise(opts, unwalkable, outcomes);
    let (mut scans, symbols, outside_reaches) = resolve_all_then(
        &root,
        &files,
        scans,
        &opts.old,
        |scans, symbols, resolvers| {
            let outside = resolvers.reached_from_outside(&symbols, (&opts.old, &opts.new));
            (scans, symbols, outside)
        },
    );
    lancet_core::timing::lap("rename: resolve", &mut clock);
    let chosen = match choose(&scans, at.as_ref(), qualified.as_deref(), surface) {
        Ok(c) => with_tied(c, &symbols),
        Err(report) => {
            // What was found, for the refusal; nothing is renamed.
            complete_summary(&mut summary, &scans, &Chosen::All, opts);
            summary.renamed.clear();
            summary.sites = 0;
            summary.files_changed = 0;
            return report.with_rename(summary, apply.surface).into();
        }
    };
    keep_mentions_in_scope(&mut scans, &mut summary, &chosen);
    scans.par_iter_mut().for_each(|s| {
        let precheck = apply.syntax_check && !apply.gate.judges_precisely(s.language);
        finish_scan(s, &chosen, opts, precheck)
    });
    complete_summary(&mut summary, &scans, &chosen, opts);
    let asked = ask_servers(&root, &mut scans, &mut summary, &chosen, opts, apply);
    lancet_core::timing::lap("rename: ask the servers", &mut clock);
    let touched: Vec<&FileScan> = scans.iter().filter(|s| !s.spans.is_empty()).collect();
    let undecided = undecided_sites(&summary, &scans, &chosen, &opts.old);
    let mixed = matches!(chosen, Chosen::All)
        .then(|| languages_refusal(&summary, &scans, opts))
        .flatten();
    let found = Found {
        summary: &summary,
        symbols: &symbols,
        outside_reaches: &outside_reaches,
        touched: &touched,
        undecided: &undecided,
        scanned: &scans,
        tree: (&root, &files, &included_docs),
    };
    if let Some(mut refused) = mixed.or_else(|| refusal(opts, &chosen, &found)) {
        asked.name_servers(&mut refused, &undecided, opts);
        // No code of the languages lancet renames holds OLD: maybe Go's does (gopls).
        if matches!(refused, RenameRefusal::NoMatch { .. })
            && at.is_none()
            && let Some(foreign) = foreign::bare(&root, &files, &opts.old, opts.servers.as_ref())
        {
            return foreign_rename(&root, foreign, opts, apply);
        }
        return Report::rename_refused(&refused, apply.surface)
            .with_rename(summary, apply.surface)
            .into();
    }
    let batch = splices(&touched);
    let prechecks: syntax::Prechecks = touched
        .iter()
        .filter_map(|scan| Some((scan.path.clone(), scan.precheck.clone()?)))
        .collect();
    let mut applied = apply_batch_prechecked(&batch, apply, &prechecks);
    crate::background::drop_later(scans);
    applied.report = applied.report.with_rename(summary, apply.surface);
    applied
}

/// The rename's batch: each touched file's spans, on the bytes that were scanned.
fn splices(touched: &[&FileScan]) -> Batch {
    Batch {
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
    }
}

/// The hybrid step: the sites lancet could not decide go to the project's servers, each asked
/// alone (not when every undecided site is to be renamed anyway); what they decide is
/// finished and summed up again. What the servers said, for the refusal.
fn ask_servers(
    root: &lancet_core::Root,
    scans: &mut [FileScan],
    summary: &mut RenameSummary,
    chosen: &Chosen,
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> hybrid::Outcome {
    let undecided: Vec<LeftSite> = undecided_sites(summary, scans, chosen, &opts.old)
        .into_iter()
        .cloned()
        .collect();
    if undecided.is_empty() || opts.include_unresolved {
        return hybrid::Outcome::default();
    }
    let mut asked = hybrid::decide(root, scans, &undecided, chosen, opts);
    if asked.decided.iter().any(|d| !d.sites.is_empty()) {
        scans.par_iter_mut().for_each(|s| {
            let precheck = apply.syntax_check && !apply.gate.judges_precisely(s.language);
            finish_scan(s, chosen, opts, precheck)
        });
        complete_summary(summary, scans, chosen, opts);
    }
    summary.decided_by = std::mem::take(&mut asked.decided);
    asked
}

/// A rename in a language lancet resolves no names in: through its server, or refused.
fn foreign_rename(
    root: &lancet_core::Root,
    foreign: foreign::Foreign,
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> Applied {
    match foreign {
        foreign::Foreign::Server(at, servers) => lsp::rename(root, &at, opts, &servers, apply),
        foreign::Foreign::Refused(refusal) => {
            Report::rename_refused(&refusal, apply.surface).into()
        }
    }
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
        decided_by: Vec::new(),
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
    summary.definitions.clear();
    summary.renamed.clear();
    summary.unresolved.clear();
    summary.outside.clear();
    for scan in scans {
        let text = &scan.parsed.text;
        let column = |o: &Occurrence| o.at - scan.starts[o.line - 1] + 1;
        let left = |o: &Occurrence, why: &str| LeftSite {
            path: scan.path.clone(),
            line: o.line,
            column: column(o),
            text: line_text(text, &scan.starts, o.line),
            why: LeftWhy::Said(why.to_string()),
        };
        for o in &scan.occurrences {
            let (value, field) = o.sides(chosen, opts);
            let renamed = value || field;
            let is_symbol = matches!(o.resolution, Some(Resolution::Symbol(_)));
            // A shorthand renamed on its key side only (`const { x } = o`) defines its local,
            // not the member the rename is of.
            if (value && is_symbol) || matches!(chosen, Chosen::All) {
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
                    doctest: o.doctest,
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

/// The renamed content's spans, in file order, and the gate's verdict on it: from this
/// scan's tree edited where the spans are and reparsed incrementally (a fraction of the fresh
/// parse the gate would otherwise make of the result).
fn finish_scan(scan: &mut FileScan, chosen: &Chosen, opts: &RenameOptions, precheck: bool) {
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
    if precheck && !scan.spans.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::model::{RenameOptions, Renamer};
    use super::scan::{is_identifier, renamers, scan_file};
    use super::*;
    use crate::report::SymbolKind;

    fn opts(old: &str, new: &str) -> RenameOptions {
        RenameOptions::plain(old, new)
    }

    /// One file scanned, resolved (a tree of that file alone) and finished.
    fn scan_one(path: &str, text: &str, lang: &str, o: &RenameOptions, check: bool) -> FileScan {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
        let root = lancet_core::Root::new(dir.path()).unwrap();
        let scans = vec![scan_file(path.into(), text, renamer(lang), o).unwrap()];
        let files = [path.to_string()];
        let mut scans = resolve_all_then(&root, &files, scans, &o.old, |scans, _, _| scans);
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
            matches!(resolutions[1], (4, Resolution::Symbol(id)) if id.to_string() == "a.py::Cart.total"),
            "{resolutions:?}"
        );
        assert!(
            matches!(resolutions[2], (5, Resolution::Unresolved(why)) if why.contains("not bound")),
            "{resolutions:?}"
        );
        assert!(
            matches!(resolutions[3], (8, Resolution::Symbol(id)) if id.to_string() == "a.py::Cart.run::total"),
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
        assert_eq!(kinds, [(1, SymbolKind::Field), (3, SymbolKind::Method)]);
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
    fn every_occurrence_of_a_long_file_is_classified() {
        // 200 functions, a long comment in the middle, and each site in code, a comment and a
        // string.
        let mut text = String::new();
        for i in 0..200 {
            if i == 100 {
                text.push_str(&format!("# {}\n", "-".repeat(8192)));
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

    #[test]
    fn collisions_in_doctests_are_found_and_the_wrappers_are_none() {
        let text = "/// ```\n/// let m = 2;\n/// assert_eq!(geo::area(m, 1), 2);\n/// ```\npub fn area(w: u32, h: u32) -> u32 {\n    w * h\n}\n";
        let scan = scan_one("lib.rs", text, "rust", &opts("area", "m"), false);
        let lines: Vec<usize> = scan.collisions.iter().map(|c| c.line).collect();
        assert_eq!(
            lines,
            [2, 3],
            "the doctest's `m`, not its wrapper's name (line 1)"
        );
        let text = "def area(w, h):\n    \"\"\"\n    >>> surface = 5\n    >>> area(surface, 1)\n    5\n    \"\"\"\n    return w * h\n";
        let scan = scan_one("m.py", text, "python", &opts("area", "surface"), false);
        let lines: Vec<usize> = scan.collisions.iter().map(|c| c.line).collect();
        assert_eq!(lines, [3, 4]);
    }
}
