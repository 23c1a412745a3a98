//! `lancet signature`: a function's parameters changed (added, removed, renamed, reordered)
//! with every call of it, as one transaction.
//!
//! The function is found as a rename finds a symbol ([`crate::rename`]: the walk, the scan
//! for its name, the resolvers, `--at` and qualified names), and so are its calls: each site
//! spelled its name that resolves to it, or to an override that must change with it (the
//! resolver's ties), is its definition, a call (`f(…)`, `obj.f(…)` through a receiver the
//! resolver decides), an import, or a use that cannot be updated (a value passed elsewhere,
//! `functools.partial`). A constructor is changed through its class too: the calls of the
//! class (and of its subclasses without an `__init__` of their own, and `cls(…)` in its
//! classmethods) are its calls.
//!
//! Each definition's parameters are rewritten in their own layout (annotations, defaults,
//! `/` and `*` kept), each call's arguments bound as Python binds them and laid out anew
//! ([`binding`]), the edits of one file nested where one holds another ([`layout`]). Sites
//! that cannot be updated safely, and calls lancet cannot decide are of the function, stop
//! the change and are listed (the rename's contract: `--leave-unresolved` leaves them,
//! `--include-unresolved` updates the undecided calls too). The spans then run the pipeline
//! of every edit: staging, the syntax gate, the checkpoint, the journaled commit, `--test`.

use crate::applied::Applied;
use crate::apply_options::ApplyOptions;
use crate::pipeline::{apply_batch, open_root};
use crate::rename::at::At;
use crate::rename::choose::locate_at;
use crate::rename::model::{FileScan, RenameOptions, Resolution, SymbolId};
use crate::rename::python::{binding_id, scope_of};
use crate::rename::registry::Resolvers;
use crate::rename::scan::{is_identifier, walk};
use crate::report::Report;
use crate::report::{LeftSite, PlaceRefusal};
use crate::report::{SignatureRefusal, SignatureSummary};
use lancet_core::{Batch, FileOp, Format, MAX_LISTED, OpKind};
use plan::{Asked, Plan, Reach};
use std::collections::HashSet;
use target::{NameScan, Outcome, Target, constructor_class, last_part, scan_name, scan_name_then};
use tree_sitter::Node;

mod binding;
mod change;
mod definitions;
mod ecma;
mod lang;
mod layout;
mod params;
mod plan;
mod python;
mod syntax;
pub(crate) mod target;

pub use change::ParamChange;

/// How many classes' calls a constructor's change follows (a class and its subclasses
/// without an `__init__` of their own).
const MAX_CLASSES: usize = 32;

/// What to change, where.
#[derive(Debug, Clone)]
pub struct SignatureOptions {
    /// The function: its name, or a qualified name (`pkg.mod.Class.method`); with `at`, may be
    /// left empty. A class names its `__init__`.
    pub function: String,
    /// The function by position, `PATH:LINE:COL` (its definition or a use of it).
    pub at: Option<String>,
    /// Files and directories to walk, relative to the root (empty: the whole root).
    pub paths: Vec<String>,
    /// The changes, applied in order.
    pub changes: Vec<ParamChange>,
    /// Also update the calls lancet cannot decide are of the function (as calls of it).
    pub include_unresolved: bool,
    /// Write the rest and leave as they are the sites that cannot be updated safely (and the
    /// undecided calls, unless `include_unresolved`); listed either way.
    pub leave_unresolved: bool,
    /// Files the walk for its calls leaves out: the person's `[walk] exclude`
    /// ([`Config::walk_excludes`](crate::Config::walk_excludes)), never a model's.
    pub exclude: globset::GlobSet,
}

/// Changes the function's signature and every call of it as one batch, through the same
/// pipeline as every edit (`apply.dry_run`, `apply.test` and the other options apply;
/// `--bisect` is refused: the definition and its calls stand or fall together).
pub fn change_signature(opts: &SignatureOptions, apply: &ApplyOptions) -> Applied {
    let surface = apply.surface;
    let refused =
        |r: SignatureRefusal| -> Applied { Report::signature_refused(&r, surface).into() };
    if apply.bisect_runs.is_some() {
        return refused(SignatureRefusal::Bisect);
    }
    if let Err(r) = check_request(opts) {
        return refused(r);
    }
    let mut clock = std::time::Instant::now();
    let root = match open_root(apply) {
        Ok(r) => r,
        Err(report) => return (*report).into(),
    };
    let (name, at, qualified) = match named(&root, opts, surface) {
        Ok(named) => named,
        Err(outcome) => return outcome.into_applied(surface),
    };
    let walk_opts = RenameOptions {
        paths: opts.paths.clone(),
        exclude: opts.exclude.clone(),
        ..target::name_options(&name)
    };
    let (files, _unwalkable) = match walk(&root, &walk_opts, apply) {
        Ok(walked) => walked,
        Err(report) => return (*report).into(),
    };
    // The change is planned on the resolvers that resolved the function's scan (as a move
    // is): what they parsed and resolved is not done again.
    let (applied, found) = scan_name_then(&root, &files, &name, apply, |first, resolvers| {
        let files_scanned = first.files_scanned;
        let mut change = |function: NameScan, primary, class_scan, resolvers: &Resolvers| {
            let found = match with_classes(&root, &files, function, primary, class_scan, apply) {
                Ok(found) => found,
                Err(outcome) => return (outcome.into_applied(surface), None),
            };
            lancet_core::timing::lap("signature: walk, scan and resolve", &mut clock);
            let applied = change_found(&found, files_scanned, opts, apply, resolvers);
            (applied, Some(found))
        };
        match named_function(&first, at.as_ref(), qualified.as_deref(), apply) {
            Ok(Named::Function(id)) => change(first, id, None, resolvers),
            // A class names its `__init__`, whose own scan its change is planned on.
            Ok(Named::Constructor(init)) => {
                scan_name_then(&root, &files, "__init__", apply, |function, resolvers| {
                    change(function, init, Some(first), resolvers)
                })
            }
            Err(outcome) => (outcome.into_applied(surface), None),
        }
    });
    // The parsed trees are freed off the answer's path, as a rename's are.
    crate::background::drop_later((found, files));
    applied
}

/// The change of the function found: planned (on the resolvers of the function's scan),
/// refused, or run as one batch.
fn change_found(
    found: &Found,
    files_scanned: usize,
    opts: &SignatureOptions,
    apply: &ApplyOptions,
    resolvers: &Resolvers,
) -> Applied {
    let surface = apply.surface;
    let refused =
        |r: SignatureRefusal| -> Applied { Report::signature_refused(&r, surface).into() };
    let mut clock = std::time::Instant::now();
    let planned = match plan_found(found, opts, resolvers) {
        Ok(p) => p,
        Err(r) => return refused(r),
    };
    lancet_core::timing::lap("signature: plan", &mut clock);
    let summary = summary(opts, &found.target.primary, &planned, files_scanned);
    if let Some(refusal) = sites_refusal(opts, &planned, &summary.function) {
        return Report::signature_refused(&refusal, surface)
            .with_signature(summary, surface)
            .into();
    }
    let batch = match batch_of(&planned, found) {
        Ok(batch) => batch,
        Err(r) => return refused(r),
    };
    let mut applied = apply_batch(&batch, apply);
    applied.report = applied.report.with_signature(summary, surface);
    applied
}

/// The function's name as the scan looks for it, the `--at` place read, and a qualified name
/// (its last part is the name).
fn named(
    root: &lancet_core::Root,
    opts: &SignatureOptions,
    surface: crate::report::Surface,
) -> Result<(String, Option<At>, Option<String>), Outcome> {
    let at = opts
        .at
        .as_deref()
        .map(|p| locate_at(root, p, surface))
        .transpose()
        .map_err(Outcome::Report)?;
    let name = match &at {
        Some(at) => {
            if !opts.function.is_empty() && last_part(&opts.function) != at.name {
                return Err(Outcome::Refused(SignatureRefusal::Place(
                    PlaceRefusal::AtNamesOther {
                        place: at.place.clone(),
                        name: at.name.clone(),
                        old: opts.function.clone(),
                    },
                )));
            }
            at.name.clone()
        }
        None => last_part(&opts.function).to_string(),
    };
    if !is_identifier(&name) {
        return Err(Outcome::Refused(SignatureRefusal::NotIdentifier { name }));
    }
    let qualified = (at.is_none() && opts.function != name).then(|| opts.function.clone());
    Ok((name, at, qualified))
}

/// The change planned over the function's sites and its classes' (a constructor's), on the
/// resolvers that resolved the function's scan.
fn plan_found(
    found: &Found,
    opts: &SignatureOptions,
    resolvers: &Resolvers,
) -> Result<Plan, SignatureRefusal> {
    let cls_calls: Vec<(&FileScan, Node)> = found
        .classes
        .iter()
        .flat_map(class_nodes)
        .flat_map(|(file, class)| {
            python::cls_calls(class, &file.parsed.text)
                .into_iter()
                .map(move |call| (file, call))
        })
        .collect();
    let class_ids: HashSet<SymbolId> = found.classes.iter().map(|c| c.id.clone()).collect();
    let scans = found.scans();
    let reach = Reach {
        primary: &found.target.primary,
        ids: &found.target.ids,
        classes: &class_ids,
    };
    let asked = Asked {
        changes: &opts.changes,
        include_unresolved: opts.include_unresolved,
    };
    let facts = lang::Facts {
        py: &resolvers.python,
        ecma: &resolvers.ecma,
    };
    plan::plan(&facts, &reach, &scans, &cls_calls, &asked)
}

/// The refusal for sites that cannot be updated safely or are undecided, unless the person
/// said to leave (or include) them.
fn sites_refusal(
    opts: &SignatureOptions,
    planned: &Plan,
    function: &str,
) -> Option<SignatureRefusal> {
    let undecided: Vec<LeftSite> = planned
        .unresolved
        .iter()
        .filter(|u| {
            !planned
                .calls
                .iter()
                .any(|c| c.path == u.path && c.line == u.line && c.column == u.column)
        })
        .cloned()
        .collect();
    let blocking =
        !opts.leave_unresolved && (!planned.unsafe_sites.is_empty() || !undecided.is_empty());
    let listed = |sites: &[LeftSite]| sites.iter().take(MAX_LISTED).cloned().collect::<Vec<_>>();
    blocking.then(|| SignatureRefusal::Sites {
        function: function.to_string(),
        updated: planned.calls.len(),
        unsafe_sites: listed(&planned.unsafe_sites),
        unsafe_total: planned.unsafe_sites.len(),
        unresolved: listed(&undecided),
        unresolved_total: undecided.len(),
    })
}

/// The batch of the planned edits: each file's spans, on the text they were planned on.
fn batch_of(planned: &Plan, found: &Found) -> Result<Batch, SignatureRefusal> {
    let mut ops = Vec::new();
    for (path, file) in &planned.files {
        let spans = layout::spans(&file.parsed.text, file.edits.clone()).map_err(|overlap| {
            let starts = lancet_core::line_starts(&file.parsed.text);
            SignatureRefusal::Overlap {
                path: path.clone(),
                line: lancet_core::line_of(&starts, overlap.at),
            }
        })?;
        ops.push(FileOp {
            path: path.clone(),
            kind: OpKind::Splice {
                base_sha256: file.sha256.clone(),
                spans,
            },
            line: 0,
        });
    }
    if let Some(path) = changed_between_scans(&found.scans()) {
        return Err(SignatureRefusal::Changed { path });
    }
    Ok(Batch {
        format: Format::Signature,
        ops,
        notes: Vec::new(),
    })
}

/// What can be refused before any file is read: no change, names that are no identifiers, a
/// parameter added with nothing for the calls, a default or value that is not one expression.
fn check_request(opts: &SignatureOptions) -> Result<(), SignatureRefusal> {
    if opts.changes.is_empty() {
        return Err(SignatureRefusal::NothingToChange);
    }
    for change in &opts.changes {
        if let Some(name) = change.names().into_iter().find(|n| !is_identifier(n)) {
            return Err(SignatureRefusal::NotIdentifier {
                name: name.to_string(),
            });
        }
        if let ParamChange::Add {
            name,
            default: None,
            value: None,
            ..
        } = change
        {
            return Err(SignatureRefusal::AddWithoutValue { name: name.clone() });
        }
    }
    Ok(())
}

/// A class whose calls construct through the function, with its name's scan.
struct Class {
    id: SymbolId,
    scan: NameScan,
}

/// The function found, its name's scan, and for a constructor the classes whose calls reach
/// it.
struct Found {
    target: Target,
    function: NameScan,
    classes: Vec<Class>,
}

impl Found {
    /// Every scan: the function's name's, then each class's.
    fn scans(&self) -> Vec<&NameScan> {
        let mut scans = vec![&self.function];
        scans.extend(self.classes.iter().map(|c| &c.scan));
        scans
    }
}

/// What the name's scan names: a function, or a class (its `__init__`, whose sites are another
/// name's scan).
enum Named {
    /// The function.
    Function(SymbolId),
    /// The `__init__` of the class named.
    Constructor(SymbolId),
}

/// The function `--at`, a qualified name or the name names in its scan (a class: its
/// `__init__`), of a language lancet changes signatures in.
fn named_function(
    first: &NameScan,
    at: Option<&At>,
    qualified: Option<&str>,
    apply: &ApplyOptions,
) -> Result<Named, Outcome> {
    let id = target::find(first, at, qualified, apply)?;
    unsupported_language(first, &id)?;
    if !target::is_class(first, &id) {
        return Ok(Named::Function(id));
    }
    if !defines(first, &id, "__init__") {
        return Err(Outcome::Refused(SignatureRefusal::NotAFunction {
            name: first.name.clone(),
            place: place_of(first, &id),
            what: "a class without an `__init__` of its own".into(),
        }));
    }
    let SymbolId::Python { module, qual } = &id else {
        unreachable!("a class is Python's")
    };
    Ok(Named::Constructor(SymbolId::Python {
        module: module.clone(),
        qual: format!("{qual}.__init__"),
    }))
}

/// The function found with its overrides, and for a constructor its class and the subclasses
/// without an `__init__` of their own, each with its name's scan (`class_scan`: the class's,
/// when it was the name scanned first).
fn with_classes(
    root: &lancet_core::Root,
    files: &[String],
    function: NameScan,
    primary: SymbolId,
    class_scan: Option<NameScan>,
    apply: &ApplyOptions,
) -> Result<Found, Outcome> {
    let ids = target::with_overrides(&function, &primary);
    let class = constructor_class(&primary);
    let mut classes = Vec::new();
    if let Some(class) = &class {
        let scan = match class_scan {
            Some(scan) => scan,
            None => scan_name(root, files, target::last_part(&class_name(class)), apply),
        };
        classes.push(Class {
            id: class.clone(),
            scan,
        });
        // Subclasses without an `__init__` of their own construct through it too.
        let mut next = 0;
        while next < classes.len() && classes.len() < MAX_CLASSES {
            let subclasses = subclasses_without_init(&classes[next]);
            next += 1;
            for sub in subclasses {
                if classes.iter().any(|c| c.id == sub) {
                    continue;
                }
                let scan = scan_name(root, files, target::last_part(&class_name(&sub)), apply);
                classes.push(Class { id: sub, scan });
            }
        }
    }
    // `__new__` takes the calls' arguments too: changing `__init__` alone would break them.
    for class in &classes {
        if defines(&class.scan, &class.id, "__new__") {
            let (path, line) = first_site(&class.scan, &class.id);
            return Err(Outcome::Refused(SignatureRefusal::Unsupported {
                function: primary.to_string(),
                path,
                line,
                why: crate::report::UnsupportedDefinition::New(class_name(&class.id)),
            }));
        }
    }
    Ok(Found {
        target: Target { primary, ids },
        function,
        classes,
    })
}

/// A function of a language lancet changes no signatures in yet.
fn unsupported_language(scan: &NameScan, id: &SymbolId) -> Result<(), Outcome> {
    if matches!(id, SymbolId::Python { .. } | SymbolId::Ecma { .. }) {
        return Ok(());
    }
    let (path, line, language) = scan
        .scans
        .iter()
        .find_map(|s| {
            s.occurrences
                .iter()
                .find(|o| matches!(&o.resolution, Some(Resolution::Symbol(i)) if i == id))
                .map(|o| (s.path.clone(), o.line, s.language))
        })
        .unwrap_or_default();
    Err(Outcome::Refused(SignatureRefusal::Unsupported {
        function: scan.name.clone(),
        path,
        line,
        why: crate::report::UnsupportedDefinition::Language(language.to_string()),
    }))
}

/// A class's name (`Outer.Inner` of `a.py::Outer.Inner`).
fn class_name(id: &SymbolId) -> String {
    match id {
        SymbolId::Python { qual, .. } => qual.clone(),
        other => other.to_string(),
    }
}

/// The `class_definition` nodes a class's scan holds for it.
fn class_nodes(class: &Class) -> Vec<(&FileScan, Node<'_>)> {
    let mut out = Vec::new();
    for file in &class.scan.scans {
        for o in &file.occurrences {
            if !matches!(&o.resolution, Some(Resolution::Symbol(id)) if *id == class.id) {
                continue;
            }
            let node = file
                .parsed
                .tree
                .root_node()
                .descendant_for_byte_range(o.at, o.at + class.scan.name.len());
            if let Some(def) = node
                .and_then(|n| n.parent())
                .filter(|p| p.kind() == "class_definition")
            {
                out.push((file, def));
            }
        }
    }
    out
}

/// Whether a class's body defines `__init__`.
fn body_defines(class: Node, source: &str, name: &str) -> bool {
    let Some(body) = class.child_by_field_name("body") else {
        return false;
    };
    let mut cursor = body.walk();
    body.named_children(&mut cursor).any(|child| {
        let def = match child.kind() {
            "decorated_definition" => child.child_by_field_name("definition"),
            _ => Some(child),
        };
        def.filter(|d| d.kind() == "function_definition")
            .and_then(|d| d.child_by_field_name("name"))
            .is_some_and(|n| &source[n.byte_range()] == name)
    })
}

/// Whether the class `id` (found in `scan`) defines `name` itself.
fn defines(scan: &NameScan, id: &SymbolId, name: &str) -> bool {
    scan.scans.iter().any(|file| {
        file.occurrences.iter().any(|o| {
            matches!(&o.resolution, Some(Resolution::Symbol(i)) if i == id)
                && file
                    .parsed
                    .tree
                    .root_node()
                    .descendant_for_byte_range(o.at, o.at + scan.name.len())
                    .and_then(|n| n.parent())
                    .filter(|p| p.kind() == "class_definition")
                    .is_some_and(|c| body_defines(c, &file.parsed.text, name))
        })
    })
}

/// Where a symbol's first site is (its file and line), for a refusal.
fn first_site(scan: &NameScan, id: &SymbolId) -> (String, usize) {
    scan.scans
        .iter()
        .find_map(|s| {
            s.occurrences
                .iter()
                .find(|o| matches!(&o.resolution, Some(Resolution::Symbol(i)) if i == id))
                .map(|o| (s.path.clone(), o.line))
        })
        .unwrap_or_default()
}

/// Where a symbol's first site is, as `path:line`.
fn place_of(scan: &NameScan, id: &SymbolId) -> String {
    let (path, line) = first_site(scan, id);
    format!("{path}:{line}")
}

/// The classes that name `class` among their bases and define no `__init__` of their own.
fn subclasses_without_init(class: &Class) -> Vec<SymbolId> {
    let mut out = Vec::new();
    for file in &class.scan.scans {
        for o in &file.occurrences {
            if !matches!(&o.resolution, Some(Resolution::Symbol(id)) if *id == class.id) {
                continue;
            }
            let Some(node) = file
                .parsed
                .tree
                .root_node()
                .descendant_for_byte_range(o.at, o.at + class.scan.name.len())
            else {
                continue;
            };
            let Some(sub) = node
                .parent()
                .filter(|p| p.kind() == "argument_list")
                .and_then(|list| list.parent())
                .filter(|c| c.kind() == "class_definition")
            else {
                continue;
            };
            let text = &file.parsed.text;
            if body_defines(sub, text, "__init__") {
                continue;
            }
            let Some(name) = sub.child_by_field_name("name") else {
                continue;
            };
            out.push(binding_id(
                &file.parsed,
                scope_of(name, &file.parsed),
                &text[name.byte_range()],
            ));
        }
    }
    out
}

/// A file two scans read with different contents (it changed in between).
fn changed_between_scans(scans: &[&NameScan]) -> Option<String> {
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for scan in scans {
        for file in &scan.scans {
            match seen.insert(&file.path, &file.sha256) {
                Some(before) if before != file.sha256 => return Some(file.path.clone()),
                _ => {}
            }
        }
    }
    None
}

/// The name a JavaScript/TypeScript symbol is declared under, read at its declaration.
fn found_name(planned: &Plan, id: &SymbolId) -> String {
    let SymbolId::Ecma { file, offset, .. } = id else {
        return String::new();
    };
    planned
        .files
        .get(file)
        .map(|f| {
            let text = &f.parsed.text;
            let start = *offset as usize;
            let end = text[start..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .map_or(text.len(), |e| start + e);
            text[start..end].to_string()
        })
        .unwrap_or_else(|| id.to_string())
}

/// The report's summary of the change.
fn summary(
    opts: &SignatureOptions,
    primary: &SymbolId,
    planned: &Plan,
    files_scanned: usize,
) -> SignatureSummary {
    // A JavaScript/TypeScript symbol is its file and offset: named for the person.
    let function = match primary {
        SymbolId::Ecma { file, .. } => format!("{file}::{}", found_name(planned, primary)),
        _ => definitions::display(primary, None),
    };
    SignatureSummary {
        function,
        changes: opts.changes.iter().map(ParamChange::spelled).collect(),
        before: planned.before.clone(),
        after: planned.after.clone(),
        files_scanned,
        files_changed: planned.files.len(),
        definitions: planned.definitions.clone(),
        calls: planned.calls.clone(),
        calls_unchanged: planned.unchanged,
        unsafe_sites: planned.unsafe_sites.clone(),
        unresolved: planned.unresolved.clone(),
    }
}
