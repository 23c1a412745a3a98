//! `lancet move`: a module-level symbol moved to another module, with every import and
//! qualified use of it, as one transaction.
//!
//! The symbol is found as a rename finds one ([`crate::rename`]: the walk, the scan for its
//! name, the resolvers, `--at` and qualified names), and so are its sites: each identifier
//! spelled its name that resolves to it. The language's planner ([`python`]) cuts its
//! statement (bytes kept, with its decorators and the comments directly above it) from the
//! old module, writes it and the imports it needs into the new one, and rewrites the sites;
//! what it cannot decide (a string naming it, an attribute of a value of unknown type) stops
//! the move (`--leave-unresolved` leaves them), and so does a destination nothing imports,
//! a name clash there, or an import cycle the move would make. The changes then run the
//! pipeline of every edit: staging, the syntax gate, the checkpoint, the journaled commit,
//! `--test`.

use crate::applied::Applied;
use crate::apply_options::ApplyOptions;
use crate::pipeline::{apply_batch, open_root};
use crate::rename::choose::{choose, locate_at};
use crate::rename::model::{Chosen, FileScan, Parsed, RenameOptions, Resolution, SymbolId};
use crate::rename::registry::Resolvers;
use crate::rename::scan::{is_identifier, walk};
use crate::report::{
    Definition, DestinationProblem, MoveRefusal, MoveSummary, PlaceRefusal, Unmovable,
};
use crate::report::{Report, Surface};
use crate::signature::target::{NameScan, last_part, scan_name_then};
use edits::Edits;
use lancet_core::{Batch, FileOp, Format, MAX_LISTED, OpKind, Root};
use modules::Modules;
use std::collections::BTreeMap;

mod cycles;
mod ecma;
mod edits;
mod modules;
mod python;

use python::Planned;

/// What to move, where.
#[derive(Debug, Clone)]
pub struct MoveOptions {
    /// The symbol: its name, or a qualified name (`pkg.mod.name`); with `at`, may be left
    /// empty.
    pub symbol: String,
    /// The symbol by position, `PATH:LINE:COL` (its definition or a use of it).
    pub at: Option<String>,
    /// The module it moves to: a file under the root (created when missing).
    pub to: String,
    /// Keep `from <new> import <symbol>` in the old module, for users outside the tree.
    pub keep_reexport: bool,
    /// Move it and leave as they are (listed) the sites lancet cannot decide or update.
    pub leave_unresolved: bool,
    /// Files the walk for its uses leaves out: the person's `[walk] exclude`
    /// ([`Config::walk_excludes`](crate::Config::walk_excludes)), never a model's.
    pub exclude: globset::GlobSet,
}

/// Moves the symbol and updates its imports and uses as one batch, through the same pipeline
/// as every edit (`apply.dry_run`, `apply.test` and the other options apply; `--bisect` is
/// refused: the moved code and its imports stand or fall together).
pub fn move_symbol(opts: &MoveOptions, apply: &ApplyOptions) -> Applied {
    let surface = apply.surface;
    let refused = |r: MoveRefusal| -> Applied { Report::move_refused(&r, surface).into() };
    if apply.bisect_runs.is_some() {
        return refused(MoveRefusal::Bisect);
    }
    let mut clock = std::time::Instant::now();
    let root = match open_root(apply) {
        Ok(r) => r,
        Err(report) => return (*report).into(),
    };
    let (name, at, qualified) = match named(&root, opts, surface) {
        Ok(named) => named,
        Err(applied) => return *applied,
    };
    let walk_opts = RenameOptions {
        exclude: opts.exclude.clone(),
        ..RenameOptions::plain(&name, &name)
    };
    let (files, _unwalkable) = match walk(&root, &walk_opts, apply) {
        Ok(walked) => walked,
        Err(report) => return (*report).into(),
    };
    let (applied, scan) = scan_name_then(&root, &files, &name, apply, |scan, resolvers| {
        let applied = match find(&scan, at.as_ref(), qualified.as_deref(), surface) {
            Ok(primary) => {
                lancet_core::timing::lap("move: walk, scan and resolve", &mut clock);
                let context = Context {
                    root: &root,
                    opts,
                    name: &name,
                    files: &files,
                    scan: &scan,
                    primary: &primary,
                    resolvers,
                };
                move_found(&context, apply, clock)
            }
            Err(applied) => *applied,
        };
        (applied, scan)
    });
    // The parsed trees are freed off the answer's path, as a rename's are.
    crate::background::drop_later((scan, files));
    applied
}

/// The move of the symbol found: planned by its language, refused, or run as one batch.
fn move_found(context: &Context, apply: &ApplyOptions, mut clock: std::time::Instant) -> Applied {
    let surface = apply.surface;
    let refused = |r: MoveRefusal| -> Applied { Report::move_refused(&r, surface).into() };
    let (opts, name, scan, primary) = (context.opts, context.name, context.scan, context.primary);
    let prepared = match primary {
        SymbolId::Python { module, .. } => plan_python(context, module),
        SymbolId::Ecma { file, .. } => plan_ecma(context, file),
        SymbolId::Rust(_) => {
            let (path, line) = first_definition(scan, primary);
            Err(MoveRefusal::NotMovable {
                symbol: name.to_string(),
                place: format!("{path}:{line}"),
                why: Unmovable::Language("Rust".into()),
            })
        }
    };
    let Prepared {
        from,
        to,
        planned,
        to_exists,
        to_text,
    } = match prepared {
        Ok(p) => p,
        Err(r) => return refused(r),
    };
    lancet_core::timing::lap("move: plan", &mut clock);
    let summary = summary_of(&from, name, &to, &planned, scan.files_scanned);
    if !planned.unresolved.is_empty() && !opts.leave_unresolved {
        let refusal = MoveRefusal::Sites {
            symbol: summary.symbol.clone(),
            updated: planned.sites.len(),
            unresolved: planned
                .unresolved
                .iter()
                .take(MAX_LISTED)
                .cloned()
                .collect(),
            total: planned.unresolved.len(),
        };
        return Report::move_refused(&refusal, surface)
            .with_move(summary, surface)
            .into();
    }
    let batch = match batch_of(planned, &scan.scans, &to, to_exists, &to_text) {
        Ok(batch) => batch,
        Err(r) => return refused(r),
    };
    let mut applied = apply_batch(&batch, apply);
    applied.report = applied.report.with_move(summary, surface);
    applied
}

/// What a language's planner is handed: the tree walked and scanned, the symbol found.
struct Context<'a> {
    root: &'a Root,
    opts: &'a MoveOptions,
    name: &'a str,
    files: &'a [String],
    scan: &'a NameScan,
    primary: &'a SymbolId,
    /// The resolvers the scan's sites were resolved by, with what they learnt.
    resolvers: &'a Resolvers<'a>,
}

/// A move planned, with where from and to, and the destination as it was read.
struct Prepared {
    from: String,
    to: String,
    planned: Planned,
    to_exists: bool,
    to_text: String,
}

/// A Python symbol's move planned.
fn plan_python(cx: &Context, module: &str) -> Result<Prepared, MoveRefusal> {
    let from = module.to_string();
    let modules = Modules::new(cx.files);
    let (to, to_parsed, to_exists) = read_destination(cx.root, &cx.opts.to, &from, &modules)?;
    let Some(from_scan) = cx.scan.scans.iter().find(|s| s.path == from) else {
        return Err(MoveRefusal::NoMatch {
            symbol: cx.name.to_string(),
            files_scanned: cx.scan.files_scanned,
        });
    };
    let request = python::Request {
        name: cx.name,
        from: &from_scan.parsed,
        to: &to.path,
        to_parsed: &to_parsed,
        to_exists,
        scans: &cx.scan.scans,
        primary: cx.primary,
        keep_reexport: cx.opts.keep_reexport,
        modules: &modules,
    };
    let planned = python::plan(&request, &cx.resolvers.python)?;
    Ok(Prepared {
        from,
        to: to.path,
        planned,
        to_exists,
        to_text: to_parsed.text,
    })
}

/// A JavaScript/TypeScript symbol's move planned.
fn plan_ecma(cx: &Context, file: &str) -> Result<Prepared, MoveRefusal> {
    let Some(from_scan) = cx.scan.scans.iter().find(|s| s.path == file) else {
        return Err(MoveRefusal::NoMatch {
            symbol: cx.name.to_string(),
            files_scanned: cx.scan.files_scanned,
        });
    };
    let family: &[&str] = if ecma::is_typescript(file) {
        &[".ts", ".tsx", ".mts", ".cts"]
    } else {
        &[".js", ".jsx", ".mjs", ".cjs"]
    };
    let (to, to_text, to_exists) = read_ecma_destination(cx.root, &cx.opts.to, file, family)?;
    let read =
        |path: &str| -> Option<String> { String::from_utf8(cx.root.dir().read(path).ok()?).ok() };
    let request = ecma::Request {
        name: cx.name,
        from: (file, &from_scan.parsed.text),
        to: &to,
        to_text: &to_text,
        to_exists,
        scans: &cx.scan.scans,
        primary: cx.primary,
        keep_reexport: cx.opts.keep_reexport,
        files: cx.files,
        read: &read,
    };
    let planned = ecma::plan(&request, &cx.resolvers.ecma)?;
    Ok(Prepared {
        from: file.to_string(),
        to,
        planned,
        to_exists,
        to_text,
    })
}

/// A JavaScript/TypeScript destination checked and read: a path under the root in an existing
/// directory, of the old module's family of extensions, not the old module; its text (empty
/// when it does not exist yet), and whether it exists.
fn read_ecma_destination(
    root: &Root,
    to: &str,
    from: &str,
    family: &[&str],
) -> Result<(String, String, bool), MoveRefusal> {
    let refused = |to: &str, problem| MoveRefusal::Destination {
        to: to.to_string(),
        problem,
    };
    let rel = root
        .rel(to)
        .map_err(|e| refused(to, DestinationProblem::Path(e.problem.to_string())))?;
    let path = rel.as_str().to_string();
    if root.dir().is_dir(&path) {
        return Err(refused(&path, DestinationProblem::Directory));
    }
    if !family.iter().any(|e| path.ends_with(e)) || path.ends_with(".d.ts") {
        return Err(refused(
            &path,
            DestinationProblem::Extension(family.join("/")),
        ));
    }
    if path == from {
        return Err(refused(&path, DestinationProblem::SameFile));
    }
    let dir = modules::dir_of(&path);
    if !(dir.is_empty() || root.dir().is_dir(dir)) {
        return Err(refused(
            &path,
            DestinationProblem::NoDirectory(dir.to_string()),
        ));
    }
    match root.dir().read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok((path, text, true)),
            Err(_) => Err(refused(
                &path,
                DestinationProblem::Path("not UTF-8 text".into()),
            )),
        },
        Err(_) => Ok((path, String::new(), false)),
    }
}

/// The report's summary of the move planned.
fn summary_of(
    from: &str,
    name: &str,
    to: &str,
    planned: &Planned,
    files_scanned: usize,
) -> MoveSummary {
    MoveSummary {
        symbol: format!("{from}::{name}"),
        from: from.to_string(),
        to: to.to_string(),
        created: planned.created.is_some(),
        lines: planned.lines,
        files_scanned,
        files_changed: planned.edits.len() + usize::from(planned.created.is_some()),
        sites: planned.sites.clone(),
        imports_added: planned.imports_added.clone(),
        imports_removed: planned.imports_removed.clone(),
        unresolved: planned.unresolved.clone(),
    }
}

/// The symbol's name as the scan looks for it, the `--at` place read, and a qualified name.
fn named(
    root: &Root,
    opts: &MoveOptions,
    surface: Surface,
) -> Result<(String, Option<crate::rename::at::At>, Option<String>), Box<Applied>> {
    let at = opts
        .at
        .as_deref()
        .map(|p| locate_at(root, p, surface))
        .transpose()
        .map_err(|report| Box::new(Applied::from(*report)))?;
    let name = match &at {
        Some(at) => {
            if !opts.symbol.is_empty() && last_part(&opts.symbol) != at.name {
                let refusal = MoveRefusal::Place(PlaceRefusal::AtNamesOther {
                    place: at.place.clone(),
                    name: at.name.clone(),
                    old: opts.symbol.clone(),
                });
                return Err(Box::new(Report::move_refused(&refusal, surface).into()));
            }
            at.name.clone()
        }
        None => last_part(&opts.symbol).to_string(),
    };
    if !is_identifier(&name) {
        let refusal = MoveRefusal::NotIdentifier { name };
        return Err(Box::new(Report::move_refused(&refusal, surface).into()));
    }
    let qualified = (at.is_none() && opts.symbol != name).then(|| opts.symbol.clone());
    Ok((name, at, qualified))
}

/// The definitions the scan found of a symbol: `(path, line)`.
fn definitions(scan: &NameScan, id: &SymbolId) -> Vec<Definition> {
    scan.scans
        .iter()
        .flat_map(|s| s.occurrences.iter().map(move |o| (s, o)))
        .filter(|(_, o)| matches!(&o.resolution, Some(Resolution::Symbol(i)) if i == id))
        .flat_map(|(s, o)| {
            o.kinds.iter().map(move |kind| Definition {
                path: s.path.clone(),
                line: o.line,
                kind: *kind,
            })
        })
        .collect()
}

/// Where a symbol is first defined (for a refusal).
fn first_definition(scan: &NameScan, id: &SymbolId) -> (String, usize) {
    definitions(scan, id)
        .first()
        .map(|d| (d.path.clone(), d.line))
        .unwrap_or_default()
}

/// Whether an id is a module's own top-level binding.
fn is_module_level(id: &SymbolId) -> bool {
    match id {
        SymbolId::Python { qual, .. } => !qual.contains('.') && !qual.contains("::"),
        SymbolId::Ecma { member, .. } => member.is_none(),
        // A Rust item reaches the planner's language refusal.
        SymbolId::Rust(_) => true,
    }
}

/// The symbol `--at`, a qualified name or a bare name names: one module-level definition.
fn find(
    scan: &NameScan,
    at: Option<&crate::rename::at::At>,
    qualified: Option<&str>,
    surface: Surface,
) -> Result<SymbolId, Box<Applied>> {
    let refused = |r: MoveRefusal| Box::new(Applied::from(Report::move_refused(&r, surface)));
    let chosen = choose(&scan.scans, at, qualified, surface)
        .map_err(|report| Box::new(Applied::from(*report)))?;
    let candidates: Vec<SymbolId> = match chosen {
        Chosen::Ids(ids) => ids.into_iter().collect(),
        Chosen::All => scan.symbols.iter().flatten().cloned().collect(),
    };
    let defined: Vec<&SymbolId> = candidates
        .iter()
        .filter(|id| !definitions(scan, id).is_empty())
        .collect();
    let movable: Vec<&SymbolId> = defined
        .iter()
        .copied()
        .filter(|id| is_module_level(id))
        .collect();
    match movable.as_slice() {
        [one] => Ok((*one).clone()),
        [] => match defined.first() {
            Some(id) => {
                let (path, line) = first_definition(scan, id);
                Err(refused(MoveRefusal::NotMovable {
                    symbol: scan.name.clone(),
                    place: format!("{path}:{line}"),
                    why: Unmovable::NotGlobal,
                }))
            }
            None => Err(refused(MoveRefusal::NoMatch {
                symbol: scan.name.clone(),
                files_scanned: scan.files_scanned,
            })),
        },
        many => {
            let mut listed: Vec<Definition> = many
                .iter()
                .filter_map(|id| definitions(scan, id).into_iter().next())
                .collect();
            listed.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
            let symbols = listed.len();
            listed.truncate(MAX_LISTED);
            Err(refused(MoveRefusal::Ambiguous {
                symbol: scan.name.clone(),
                listed,
                symbols,
            }))
        }
    }
}

/// The destination, checked: a path under the root, a file of the language, not the
/// symbol's own, importable by a module name.
struct Destination {
    path: String,
}

fn destination(
    root: &Root,
    to: &str,
    from: &str,
    modules: &Modules,
    extension: &str,
) -> Result<Destination, DestinationProblem> {
    let rel = root
        .rel(to)
        .map_err(|e| DestinationProblem::Path(e.problem.to_string()))?;
    let path = rel.as_str().to_string();
    if root.dir().is_dir(&path) {
        return Err(DestinationProblem::Directory);
    }
    if !path.ends_with(extension) {
        return Err(DestinationProblem::Extension(extension.into()));
    }
    if path == from {
        return Err(DestinationProblem::SameFile);
    }
    let dir = modules::dir_of(&path);
    let dir_exists = dir.is_empty() || root.dir().is_dir(dir);
    modules.importable(&path, from, dir_exists)?;
    Ok(Destination { path })
}

/// The destination checked, read and parsed (empty when it does not exist yet), and
/// whether it exists.
fn read_destination(
    root: &Root,
    to: &str,
    from: &str,
    modules: &Modules,
) -> Result<(Destination, Parsed, bool), MoveRefusal> {
    let refused = |to: &str, problem| MoveRefusal::Destination {
        to: to.to_string(),
        problem,
    };
    let dest = destination(root, to, from, modules, ".py").map_err(|p| refused(to, p))?;
    let (text, exists) = match root.dir().read(&dest.path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => (text, true),
            Err(_) => {
                return Err(refused(
                    &dest.path,
                    DestinationProblem::Path("not UTF-8 text".into()),
                ));
            }
        },
        Err(_) => (String::new(), false),
    };
    let parsed = parse_python(&dest.path, text).ok_or_else(|| {
        refused(
            &dest.path,
            DestinationProblem::Path("cannot be parsed as Python".into()),
        )
    })?;
    Ok((dest, parsed, exists))
}

/// A Python file parsed (an empty text for a module not created yet).
fn parse_python(path: &str, text: String) -> Option<Parsed> {
    let grammar = lancet_syntax::languages::languages()
        .iter()
        .find(|e| e.name == "python")
        .and_then(lancet_syntax::languages::grammar)?;
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar).ok()?;
    let tree = parser.parse(&text, None)?;
    Some(Parsed {
        path: path.to_string(),
        text,
        tree,
        doctest_wrappers: None,
    })
}

/// The batch of the planned changes: each existing file's spans on the text they were
/// planned on, and the new module created.
fn batch_of(
    planned: Planned,
    scans: &[FileScan],
    to: &str,
    to_exists: bool,
    to_text: &str,
) -> Result<Batch, MoveRefusal> {
    let mut ops = Vec::new();
    let texts: BTreeMap<&str, (&str, String)> = scans
        .iter()
        .map(|s| (s.path.as_str(), (s.parsed.text.as_str(), s.sha256.clone())))
        .collect();
    for (path, edits) in planned.edits {
        let (text, sha) = match texts.get(path.as_str()) {
            Some((text, sha)) => (*text, sha.clone()),
            None if path == to && to_exists => {
                (to_text, lancet_core::sha256_hex(to_text.as_bytes()))
            }
            None => continue,
        };
        let spans = spans_of(edits, text, &path)?;
        ops.push(FileOp {
            path: path.clone(),
            kind: OpKind::Splice {
                base_sha256: sha,
                spans,
            },
            line: 0,
        });
    }
    if let Some(content) = planned.created {
        ops.push(FileOp {
            path: to.to_string(),
            kind: OpKind::Create {
                content,
                executable: false,
            },
            line: 0,
        });
    }
    Ok(Batch {
        format: Format::Move,
        ops,
        notes: Vec::new(),
    })
}

/// One file's changes as spans, or the overlap refused.
fn spans_of(edits: Edits, text: &str, path: &str) -> Result<Vec<lancet_core::Span>, MoveRefusal> {
    edits.spans(text).map_err(|at| MoveRefusal::Overlap {
        path: path.to_string(),
        line: lancet_core::line_of(&lancet_core::line_starts(text), at),
    })
}
