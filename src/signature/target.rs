//! Which function a signature change is of, found as a rename finds a symbol: the files that
//! hold its name scanned and resolved (`--at`, a qualified name, or a bare name that names one
//! function), the overrides that must change with it joined (the resolver's ties), and for a
//! constructor (a class named, or its `__init__`) the classes whose calls reach it.

use crate::apply_options::ApplyOptions;
use crate::rename::at::At;
use crate::rename::choose::choose;
use crate::rename::model::{Chosen, FileScan, RenameOptions, Resolution, Scanned, SymbolId};
use crate::rename::registry::{Resolvers, Symbols, resolve_all_then};
use crate::rename::scan::scan_all;
use crate::report::Report;
use crate::report::{Definition, SignatureRefusal, SymbolKind};
use lancet_core::MAX_LISTED;
use lancet_core::Root;
use std::collections::HashSet;

/// The files holding one name, scanned and resolved.
pub(crate) struct NameScan {
    /// The name.
    pub(crate) name: String,
    /// Each file holding it, parsed, its occurrences resolved.
    pub(crate) scans: Vec<FileScan>,
    /// The symbols its sites resolve to, in the groups the resolvers tie.
    pub(crate) symbols: Symbols,
    /// Files of a renameable language walked.
    pub(crate) files_scanned: usize,
}

/// A rename's options that scan for `name` (and rename nothing: NEW is OLD).
pub(crate) fn name_options(name: &str) -> RenameOptions {
    RenameOptions::plain(name, name)
}

/// Scans and resolves the walked files for `name`.
pub(crate) fn scan_name(
    root: &Root,
    files: &[String],
    name: &str,
    apply: &ApplyOptions,
) -> NameScan {
    scan_name_then(root, files, name, apply, |scan, _| scan)
}

/// [`scan_name`], then `then` with the scan and the resolvers that resolved it (a move plans
/// on them).
pub(crate) fn scan_name_then<R>(
    root: &Root,
    files: &[String],
    name: &str,
    apply: &ApplyOptions,
    then: impl FnOnce(NameScan, &Resolvers) -> R,
) -> R {
    let opts = name_options(name);
    let mut scans = Vec::new();
    let mut files_scanned = 0;
    for outcome in scan_all(root, files, &opts, apply).0 {
        match outcome {
            Scanned::Skipped => {}
            Scanned::Walked | Scanned::Unreadable(_) => files_scanned += 1,
            Scanned::Parsed(scan) => {
                files_scanned += 1;
                scans.push(*scan);
            }
        }
    }
    resolve_all_then(root, files, scans, name, |scans, symbols, resolvers| {
        let scan = NameScan {
            name: name.to_string(),
            scans,
            symbols,
            files_scanned,
        };
        then(scan, resolvers)
    })
}

/// The function a change is of.
pub(super) struct Target {
    /// The function named (the `__init__` of a class named).
    pub(super) primary: SymbolId,
    /// It and the overrides that change with it (a constructor alone: `__init__`s need not
    /// agree).
    pub(super) ids: HashSet<SymbolId>,
}

/// What a name's symbol is by the definitions of it the scan found.
fn kinds_of(scan: &NameScan, id: &SymbolId) -> Vec<(SymbolKind, String, usize)> {
    scan.scans
        .iter()
        .flat_map(|s| s.occurrences.iter().map(move |o| (s, o)))
        .filter(|(_, o)| matches!(&o.resolution, Some(Resolution::Symbol(i)) if i == id))
        .flat_map(|(s, o)| o.kinds.iter().map(move |k| (*k, s.path.clone(), o.line)))
        .collect()
}

fn is_function(kind: SymbolKind) -> bool {
    matches!(kind, SymbolKind::Function | SymbolKind::Method)
}

/// Whether a symbol's definitions may be a function's: a `def`, a `function`, a method, a
/// class (its constructor), or a JavaScript/TypeScript variable (a `const` may hold an arrow
/// function; the plan reads which).
fn may_define_function(id: &SymbolId, kind: SymbolKind) -> bool {
    is_function(kind)
        || kind == SymbolKind::Class
        || (matches!(id, SymbolId::Ecma { .. }) && kind == SymbolKind::Variable)
}

/// The function (or class) `--at`, a qualified name or a bare name names among the scanned
/// sites: a refusal when it names nothing, several unrelated things, or no function.
pub(super) fn find(
    scan: &NameScan,
    at: Option<&At>,
    qualified: Option<&str>,
    apply: &ApplyOptions,
) -> Result<SymbolId, Outcome> {
    let chosen = choose(&scan.scans, at, qualified, apply.surface).map_err(Outcome::Report)?;
    let candidates: Vec<SymbolId> = match chosen {
        Chosen::Ids(ids) => ids.into_iter().collect(),
        Chosen::All => {
            let defined: Vec<&Vec<SymbolId>> = scan
                .symbols
                .iter()
                .filter(|group| {
                    group.iter().any(|id| {
                        kinds_of(scan, id)
                            .iter()
                            .any(|(k, _, _)| may_define_function(id, *k))
                    })
                })
                .collect();
            match defined.as_slice() {
                [] => {
                    return Err(Outcome::Refused(not_a_function(scan)));
                }
                [group] => group.to_vec(),
                groups => {
                    let mut listed: Vec<Definition> = groups
                        .iter()
                        .filter_map(|g| {
                            g.iter().find_map(|id| {
                                kinds_of(scan, id)
                                    .into_iter()
                                    .next()
                                    .map(|(kind, path, line)| Definition { path, line, kind })
                            })
                        })
                        .collect();
                    listed.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
                    let symbols = listed.len();
                    listed.truncate(MAX_LISTED);
                    return Err(Outcome::Refused(SignatureRefusal::Ambiguous {
                        function: scan.name.clone(),
                        listed,
                        symbols,
                    }));
                }
            }
        }
    };
    // The one defined by `def` (or `class`) among them: a group's base method first.
    let defined = candidates.iter().find(|id| {
        kinds_of(scan, id)
            .iter()
            .any(|(k, _, _)| may_define_function(id, *k))
    });
    match defined {
        Some(id) => Ok(id.clone()),
        None => {
            let id = candidates.first().cloned();
            let place = id
                .as_ref()
                .and_then(|id| {
                    kinds_of(scan, id)
                        .into_iter()
                        .next()
                        .map(|(_, path, line)| format!("{path}:{line}"))
                })
                .or_else(|| at.map(|a| a.place.clone()))
                .unwrap_or_default();
            Err(Outcome::Refused(SignatureRefusal::NotAFunction {
                name: scan.name.clone(),
                place,
                what: "not defined by `def` in the tree (a variable, an attribute or a parameter)"
                    .into(),
            }))
        }
    }
}

/// Nothing, or no function, of the name: which refusal.
fn not_a_function(scan: &NameScan) -> SignatureRefusal {
    let other = scan.symbols.iter().flatten().find_map(|id| {
        kinds_of(scan, id)
            .into_iter()
            .next()
            .map(|(kind, path, line)| (kind, format!("{path}:{line}")))
    });
    match other {
        Some((kind, place)) => SignatureRefusal::NotAFunction {
            name: scan.name.clone(),
            place,
            what: format!("a {}", kind.name()),
        },
        None => SignatureRefusal::NoMatch {
            function: scan.name.clone(),
            files_scanned: scan.files_scanned,
        },
    }
}

/// What stops a change before anything is planned: a report made elsewhere (`--at`), or a
/// refusal of the signature change.
pub(super) enum Outcome {
    /// A report ready to return.
    Report(Box<Report>),
    /// A refusal to word.
    Refused(SignatureRefusal),
}

impl Outcome {
    /// The report it ends the change with.
    pub(super) fn into_applied(self, surface: crate::report::Surface) -> crate::applied::Applied {
        match self {
            Outcome::Report(report) => (*report).into(),
            Outcome::Refused(r) => Report::signature_refused(&r, surface).into(),
        }
    }
}

/// Whether an id names a class by the scan's definitions.
pub(super) fn is_class(scan: &NameScan, id: &SymbolId) -> bool {
    let kinds = kinds_of(scan, id);
    kinds.iter().any(|(k, _, _)| *k == SymbolKind::Class)
        && !kinds.iter().any(|(k, _, _)| is_function(*k))
}

/// The overrides that change with `id`: the group the resolvers tie it to (a method and the
/// ones overriding it, a function and its re-exports). A constructor stands alone: an
/// `__init__` need not take what its base's takes.
pub(super) fn with_overrides(scan: &NameScan, id: &SymbolId) -> HashSet<SymbolId> {
    if constructor_class(id).is_some() {
        return HashSet::from([id.clone()]);
    }
    scan.symbols
        .iter()
        .find(|group| group.contains(id))
        .map(|group| group.iter().cloned().collect())
        .unwrap_or_else(|| HashSet::from([id.clone()]))
}

/// For `module::Class.__init__`, the class `module::Class`.
pub(super) fn constructor_class(id: &SymbolId) -> Option<SymbolId> {
    let SymbolId::Python { module, qual } = id else {
        return None;
    };
    let class = qual.strip_suffix(".__init__")?;
    (!class.contains("::")).then(|| SymbolId::Python {
        module: module.clone(),
        qual: class.to_string(),
    })
}

/// The last part of a qualified name (`pkg.mod.Class.method` → `method`).
pub(crate) fn last_part(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}
