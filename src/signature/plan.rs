//! The change planned over the sites found: every definition (the function's, its
//! overrides') rewritten with its parameters' renames in its body, every call rewritten for
//! the definition it calls, and what cannot be done safely set aside with why. Pure of I/O:
//! the resolver answers the questions the syntax cannot (a receiver's kind, a name's binding).

use super::binding::{Item, rewrite};
use super::change::ParamChange;
use super::definitions::{
    DefEdits, DefPlan, Defs, after_text, collapse, def_edits, display, last, read_all,
};
use super::lang::{Facts, Lang};
use super::layout::{Edit, Part};
use super::syntax::Use;
use super::target::NameScan;
use crate::rename::model::{Chosen, FileScan, Occurrence, Parsed, Resolution, SymbolId};
use crate::rename::python::Receiver;
use crate::rename::refusal::may_be_chosen;
use crate::report::UnsupportedDefinition;
use crate::report::{
    Definition, LeftSite, LeftWhy, SignatureRefusal, Site, SiteProblem, SymbolKind,
};
use lancet_core::line_of;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;
use tree_sitter::Node;

/// What the change writes and what it found, before the batch.
pub(super) struct Plan {
    /// Each file's edits, by path.
    pub(super) files: BTreeMap<String, FileEdits>,
    /// The definitions rewritten.
    pub(super) definitions: Vec<Definition>,
    /// The calls rewritten.
    pub(super) calls: Vec<Site>,
    /// Calls whose arguments bind as before.
    pub(super) unchanged: usize,
    /// Uses and calls that cannot be updated safely.
    pub(super) unsafe_sites: Vec<LeftSite>,
    /// Calls and uses lancet cannot decide are of the function.
    pub(super) unresolved: Vec<LeftSite>,
    /// How many undecided calls could be updated (`--include-unresolved`).
    pub(super) undecided_calls: usize,
    /// The function's parameter list before and after.
    pub(super) before: String,
    pub(super) after: String,
}

/// One file's edits, on the text they were planned on.
pub(super) struct FileEdits {
    /// The text's sha256.
    pub(super) sha256: String,
    /// The text.
    pub(super) parsed: Arc<Parsed>,
    /// The edits.
    pub(super) edits: Vec<Edit>,
}

/// What the person asked for besides the changes.
pub(super) struct Asked<'a> {
    pub(super) changes: &'a [ParamChange],
    pub(super) include_unresolved: bool,
}

/// The function, its overrides and, for a constructor, the classes whose calls reach it.
pub(super) struct Reach<'a> {
    pub(super) primary: &'a SymbolId,
    pub(super) ids: &'a HashSet<SymbolId>,
    pub(super) classes: &'a HashSet<SymbolId>,
}

/// How a call reaches the function.
enum How {
    /// It resolves to this definition.
    Decided(SymbolId),
    /// Lancet cannot decide it is a call of the function: why.
    Undecided(String),
    /// It constructs an instance of a class whose `__init__` is the function.
    Constructor,
}

/// A call found.
struct CallSite<'t> {
    scan: &'t FileScan,
    call: Node<'t>,
    receiver: Option<Node<'t>>,
    how: How,
    /// Where it is named (its line and column in the report).
    at: usize,
}

/// What the sites of one name's scans are.
#[derive(Default)]
struct Found<'t> {
    defs: Vec<(&'t FileScan, Node<'t>, SymbolId)>,
    calls: Vec<CallSite<'t>>,
    unsafe_sites: Vec<LeftSite>,
    undecided: Vec<LeftSite>,
}

/// Plans the change over the function's scan and, for a constructor, its classes' scans
/// (with their `cls(…)` calls).
pub(super) fn plan(
    facts: &Facts,
    reach: &Reach,
    scans: &[&NameScan],
    cls_calls: &[(&FileScan, Node)],
    asked: &Asked,
) -> Result<Plan, SignatureRefusal> {
    let found = found_sites(reach, scans, cls_calls);
    let defs = definitions(facts, &found, reach, asked)?;
    let mut plan = Plan {
        files: BTreeMap::new(),
        definitions: Vec::new(),
        calls: Vec::new(),
        unchanged: 0,
        unsafe_sites: found.unsafe_sites,
        unresolved: found.undecided,
        undecided_calls: 0,
        before: String::new(),
        after: String::new(),
    };
    let removed = plan_definitions(facts, &defs, reach, &mut plan)?;
    let dropped = plan_calls(facts, &found.calls, &defs, reach, asked, &mut plan);
    check_removed(removed, &dropped, &plan)?;
    plan.calls
        .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    Ok(plan)
}

/// Every site of the scans, and the `cls(…)` calls.
fn found_sites<'t>(
    reach: &Reach,
    scans: &[&'t NameScan],
    cls_calls: &[(&'t FileScan, Node<'t>)],
) -> Found<'t> {
    let mut found = Found::default();
    let chosen = Chosen::Ids(reach.ids.clone());
    let class_chosen = Chosen::Ids(reach.classes.clone());
    for scan in scans {
        let of_class = reach.classes.iter().any(|c| last(c) == scan.name);
        let chosen = if of_class { &class_chosen } else { &chosen };
        for file in &scan.scans {
            for o in &file.occurrences {
                let is = |ids: &HashSet<SymbolId>| matches!(&o.resolution, Some(Resolution::Symbol(id)) if ids.contains(id));
                let sides = (is(reach.ids), is(reach.classes));
                gather(&mut found, file, o, scan.name.len(), sides, chosen);
            }
        }
    }
    for (file, call) in cls_calls {
        found.calls.push(CallSite {
            scan: file,
            call: *call,
            receiver: None,
            how: How::Constructor,
            at: call.start_byte(),
        });
    }
    found
}

/// A removed parameter its function's body uses, by byte offset.
struct Removed {
    path: String,
    function: String,
    name: String,
    uses: Vec<usize>,
}

/// Each definition's edits into the plan; the removed parameters their bodies still use.
fn plan_definitions(
    facts: &Facts,
    defs: &Defs,
    reach: &Reach,
    plan: &mut Plan,
) -> Result<Vec<Removed>, SignatureRefusal> {
    let mut removed = Vec::new();
    for (id, d, first) in defs
        .iter()
        .flat_map(|(id, plans)| plans.iter().enumerate().map(move |(i, d)| (id, d, i == 0)))
    {
        let text = &d.scan.parsed.text;
        if id == reach.primary && first {
            plan.before = collapse(&text[d.def.list.inside.clone()]);
            plan.after = collapse(&after_text(d, text));
        }
        let DefEdits {
            edits,
            removed: uses,
        } = def_edits(facts, d, id)?;
        if !edits.is_empty() {
            plan.definitions.push(Definition {
                path: d.scan.path.clone(),
                line: line_of(&d.scan.starts, d.def.node.start_byte()),
                kind: if id.is_member() {
                    SymbolKind::Method
                } else {
                    SymbolKind::Function
                },
            });
            file_edits(&mut plan.files, d.scan).extend(edits);
        }
        removed.extend(uses.into_iter().map(|(name, uses)| Removed {
            path: d.scan.path.clone(),
            function: display(id, Some(d.scan)),
            name,
            uses,
        }));
    }
    plan.definitions
        .sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(removed)
}

/// Each call's edit into the plan (or its problem among the unsafe sites); the argument
/// ranges the edits drop, by file.
fn plan_calls(
    facts: &Facts,
    calls: &[CallSite],
    defs: &Defs,
    reach: &Reach,
    asked: &Asked,
    plan: &mut Plan,
) -> HashMap<String, Vec<Range<usize>>> {
    let mut dropped: HashMap<String, Vec<Range<usize>>> = HashMap::new();
    for site in calls {
        let undecided = match &site.how {
            How::Undecided(why) => Some(SiteProblem::Undecided(why.clone())),
            _ => None,
        };
        if let Some(problem) = &undecided
            && !asked.include_unresolved
        {
            plan.unresolved
                .push(left(site.scan, site.at, problem.clone()));
            continue;
        }
        let target = match &site.how {
            How::Decided(id) if defs.contains_key(id) => id,
            _ => reach.primary,
        };
        let Some(d) = defs.get(target).and_then(|plans| plans.first()) else {
            continue;
        };
        match call_edit(facts, site, d) {
            Ok(None) => plan.unchanged += 1,
            Ok(Some((edit, gone))) => {
                plan.calls.push(site.scan.site_at(site.at));
                if let Some(problem) = undecided {
                    plan.undecided_calls += 1;
                    plan.unresolved.push(left(site.scan, site.at, problem));
                }
                dropped
                    .entry(site.scan.path.clone())
                    .or_default()
                    .extend(gone);
                file_edits(&mut plan.files, site.scan).push(edit);
            }
            Err(problem) => plan.unsafe_sites.push(left(site.scan, site.at, problem)),
        }
    }
    dropped
}

/// A removed parameter whose body still uses it (outside the arguments the change drops)
/// refuses the change.
fn check_removed(
    removed: Vec<Removed>,
    dropped: &HashMap<String, Vec<Range<usize>>>,
    plan: &Plan,
) -> Result<(), SignatureRefusal> {
    for r in removed {
        let gone = dropped.get(&r.path).map(Vec::as_slice).unwrap_or_default();
        let left: Vec<usize> = r
            .uses
            .into_iter()
            .filter(|at| !gone.iter().any(|g| g.contains(at)))
            .collect();
        if left.is_empty() {
            continue;
        }
        let starts = plan
            .files
            .get(&r.path)
            .map(|f| lancet_core::line_starts(&f.parsed.text))
            .unwrap_or_default();
        let mut lines: Vec<usize> = left.iter().map(|&at| line_of(&starts, at)).collect();
        lines.dedup();
        return Err(SignatureRefusal::StillUsed {
            name: r.name,
            function: r.function,
            path: r.path,
            lines,
        });
    }
    Ok(())
}

/// Sorts one occurrence of a scanned name into the sites found.
fn gather<'t>(
    found: &mut Found<'t>,
    file: &'t FileScan,
    o: &Occurrence,
    len: usize,
    (ours, class): (bool, bool),
    chosen: &Chosen,
) {
    let Some(node) = file
        .parsed
        .tree
        .root_node()
        .descendant_for_byte_range(o.at, o.at + len)
        .filter(|n| n.byte_range() == (o.at..o.at + len))
    else {
        return;
    };
    let text = &file.parsed.text;
    let Some(lang) = Lang::of(file.language) else {
        return;
    };
    if ours || class {
        if o.doctest {
            found
                .unsafe_sites
                .push(left(file, o.at, SiteProblem::Doctest));
            return;
        }
        let id = match &o.resolution {
            Some(Resolution::Symbol(id)) => id.clone(),
            _ => return,
        };
        match lang.classify(node, text, class) {
            Use::Definition(def) if ours => found.defs.push((file, def, id)),
            Use::Call { call, receiver } => found.calls.push(CallSite {
                scan: file,
                call,
                receiver,
                how: if class {
                    How::Constructor
                } else {
                    How::Decided(id)
                },
                at: o.at,
            }),
            Use::Problem(problem) => found.unsafe_sites.push(left(file, o.at, problem)),
            Use::Definition(_) | Use::Harmless => {}
        }
        return;
    }
    let Some(Resolution::Unresolved(why)) = &o.resolution else {
        return;
    };
    if o.doctest || !may_be_chosen(file, o.at, len, chosen) {
        return;
    }
    match lang.classify(node, text, false) {
        Use::Call { call, receiver } => found.calls.push(CallSite {
            scan: file,
            call,
            receiver,
            how: How::Undecided(why.clone()),
            at: o.at,
        }),
        Use::Problem(_) => {
            found
                .undecided
                .push(left(file, o.at, SiteProblem::Undecided(why.clone())))
        }
        Use::Definition(_) | Use::Harmless => {}
    }
}

/// Every definition read (see [`read_all`]), and a refusal for a method overriding the
/// function without a `def`, or a function whose definition was not walked.
fn definitions<'t>(
    facts: &Facts,
    found: &Found<'t>,
    reach: &Reach,
    asked: &Asked,
) -> Result<Defs<'t>, SignatureRefusal> {
    let defs = read_all(facts, &found.defs, reach.primary, asked.changes)?;
    for id in reach.ids {
        if !defs.contains_key(id) && id.is_member() {
            let place = found
                .calls
                .iter()
                .find(|c| matches!(&c.how, How::Decided(i) if i == id))
                .map(|c| (c.scan.path.clone(), line_of(&c.scan.starts, c.at)));
            let (path, line) = place.unwrap_or_default();
            return Err(SignatureRefusal::Unsupported {
                function: display(id, None),
                path,
                line,
                why: UnsupportedDefinition::NotDefined,
            });
        }
    }
    if !defs.contains_key(reach.primary) {
        return Err(SignatureRefusal::NoMatch {
            function: display(reach.primary, None),
            files_scanned: 0,
        });
    }
    Ok(defs)
}

/// One call's edit and the argument ranges it drops, or `None` when it binds as before.
#[allow(clippy::type_complexity)]
fn call_edit(
    facts: &Facts,
    site: &CallSite,
    d: &DefPlan,
) -> Result<Option<(Edit, Vec<Range<usize>>)>, SiteProblem> {
    let text = &site.scan.parsed.text;
    let implicit = match (&site.how, site.receiver) {
        (How::Constructor, _) => true,
        (_, None) => false,
        (_, Some(_)) if !d.def.signature.receiver => false,
        (_, Some(_)) if d.classmethod => true,
        (How::Undecided(_), Some(_)) => true,
        (How::Decided(_), Some(_)) if d.lang != Lang::Python => false,
        (How::Decided(_), Some(object)) => !matches!(
            facts.py.receiver(&site.scan.parsed, object),
            Receiver::Class | Receiver::Module
        ),
    };
    let lang = Lang::of(site.scan.language).unwrap_or(d.lang);
    let Some((args, list, comments)) = lang.read_call(site.call, text) else {
        return Err(SiteProblem::Value);
    };
    let Some(items) = rewrite(&d.def.signature, &d.new, implicit, &args)? else {
        return Ok(None);
    };
    if comments {
        return Err(SiteProblem::Comments);
    }
    let mut kept: Vec<&Range<usize>> = Vec::new();
    let parts = items
        .iter()
        .map(|item| match item {
            Item::Source(r) => {
                kept.push(r);
                vec![Part::Source(r.clone())]
            }
            Item::Keyword(name, value) => {
                kept.push(value);
                vec![Part::Text(format!("{name}=")), Part::Source(value.clone())]
            }
            Item::Text(t) => vec![Part::Text(t.clone())],
        })
        .collect();
    let gone = args
        .iter()
        .filter(|a| {
            !kept
                .iter()
                .any(|k| k.start >= a.range.start && k.end <= a.range.end)
        })
        .map(|a| a.range.clone())
        .collect();
    Ok(Some((list.edit(text, parts), gone)))
}

/// The edits of a file, created with the text they are planned on.
fn file_edits<'p>(
    files: &'p mut BTreeMap<String, FileEdits>,
    scan: &FileScan,
) -> &'p mut Vec<Edit> {
    &mut files
        .entry(scan.path.clone())
        .or_insert_with(|| FileEdits {
            sha256: scan.sha256.clone(),
            parsed: Arc::clone(&scan.parsed),
            edits: Vec::new(),
        })
        .edits
}

/// A site left, with the problem a signature change has with it.
fn left(scan: &FileScan, at: usize, problem: SiteProblem) -> LeftSite {
    scan.left_at(at, LeftWhy::Signature(problem))
}
