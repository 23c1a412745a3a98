//! Each definition a signature change rewrites: read (a refusal for one lancet cannot read or
//! the change does not fit), its new parameter list, its renamed parameters' uses in its body,
//! and the removed parameters its body still uses.

use super::change::ParamChange;
use super::lang::{Facts, Lang};
use super::layout::{Edit, Part};
use super::params::{Entry, Kind, Origin, Signature};
use super::syntax::{Def, DefProblem};
use crate::rename::model::{EcmaMember, FileScan, Resolution, SymbolId};
use crate::rename::python::{PyProject, decorated_as, qual_of};
use crate::report::{OutsideReach, ParamProblem, SignatureRefusal, UnsupportedDefinition};
use lancet_core::line_of;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// Each definition by its symbol: one, or several of one name defined more than once.
pub(super) type Defs<'t> = HashMap<SymbolId, Vec<DefPlan<'t>>>;

/// A definition to rewrite.
pub(super) struct DefPlan<'t> {
    pub(super) scan: &'t FileScan,
    pub(super) def: Def<'t>,
    pub(super) lang: Lang,
    pub(super) new: Signature,
    pub(super) classmethod: bool,
}

/// Every definition read and its new parameters: a refusal for one lancet cannot read, one
/// the change does not fit, or one name defined twice with different parameters.
pub(super) fn read_all<'t>(
    facts: &Facts,
    found: &[(&'t FileScan, Node<'t>, SymbolId)],
    primary: &SymbolId,
    changes: &[ParamChange],
) -> Result<Defs<'t>, SignatureRefusal> {
    let mut defs: Defs = HashMap::new();
    for (file, node, id) in found {
        if let Some(plan) = read_one(facts, file, *node, id, id == primary, changes)? {
            defs.entry(id.clone()).or_default().push(plan);
        }
    }
    check_redefinitions(&defs)?;
    Ok(defs)
}

/// One definition read, and its new parameters (`None`: no language lancet reads).
fn read_one<'t>(
    facts: &Facts,
    file: &'t FileScan,
    node: Node<'t>,
    id: &SymbolId,
    primary: bool,
    changes: &[ParamChange],
) -> Result<Option<DefPlan<'t>>, SignatureRefusal> {
    let text = &file.parsed.text;
    let line = line_of(&file.starts, node.start_byte());
    let unsupported = |why| SignatureRefusal::Unsupported {
        function: display(id, Some(file)),
        path: file.path.clone(),
        line,
        why,
    };
    let Some(lang) = Lang::of(file.language) else {
        return Ok(None);
    };
    if lang == Lang::Python
        && let Some(why) = python_refusal(facts.py, file, node, last(id))
    {
        return Err(unsupported(why));
    }
    let def = match lang.read_def(node, text) {
        Ok(def) => def,
        Err(DefProblem::Unsupported(why)) => return Err(unsupported(why)),
        Err(DefProblem::Unreadable) => return Err(unsupported(UnsupportedDefinition::Unreadable)),
    };
    let parameters = |problem| SignatureRefusal::Parameters {
        function: display(id, Some(file)),
        path: file.path.clone(),
        line,
        problem,
    };
    if let Some(problem) = language_problem(lang, changes) {
        return Err(parameters(problem));
    }
    let new = if !primary && def.signature.forwards_everything() {
        def.signature.clone()
    } else {
        def.signature.apply(changes).map_err(parameters)?
    };
    if def.comments && new != def.signature {
        return Err(unsupported(UnsupportedDefinition::Comments));
    }
    let classmethod = lang == Lang::Python
        && def.signature.receiver
        && (decorated_as(node, "classmethod", text)
            || matches!(
                last(id),
                "__new__" | "__init_subclass__" | "__class_getitem__"
            ));
    Ok(Some(DefPlan {
        scan: file,
        def,
        lang,
        new,
        classmethod,
    }))
}

/// What Python keeps lancet from changing in a method: Python calls a dunder method itself
/// (`obj.attr = v` calls `__set__`; only `__init__`'s calls, through its class, are in the
/// text), and a base outside the tree may define it.
fn python_refusal(
    py: &PyProject,
    file: &FileScan,
    node: Node,
    name: &str,
) -> Option<UnsupportedDefinition> {
    if name.len() > 4 && name.starts_with("__") && name.ends_with("__") && name != "__init__" {
        return Some(UnsupportedDefinition::Protocol);
    }
    outside_base(py, file, node, name).map(UnsupportedDefinition::OutsideBase)
}

/// One name defined twice (under `if`, `try`): both change, when they take the same
/// parameters.
fn check_redefinitions(defs: &Defs) -> Result<(), SignatureRefusal> {
    let shape = |d: &DefPlan| -> Vec<(String, Kind)> {
        d.def
            .signature
            .kinds()
            .into_iter()
            .map(|(p, k)| (p.name.clone(), k))
            .collect()
    };
    for (id, plans) in defs {
        if let Some(other) = plans.iter().skip(1).find(|d| shape(d) != shape(&plans[0])) {
            return Err(SignatureRefusal::Unsupported {
                function: display(id, Some(other.scan)),
                path: other.scan.path.clone(),
                line: line_of(&other.scan.starts, other.def.node.start_byte()),
                why: UnsupportedDefinition::Redefined,
            });
        }
    }
    Ok(())
}

/// What outside the tree may call a method with its own parameters: a base outside the tree
/// that may define it, up its class's hierarchy or a subclass's, as a rename weighs it; `None`
/// for a function or a constructor.
fn outside_base(
    py: &PyProject,
    file: &FileScan,
    function: Node,
    name: &str,
) -> Option<OutsideReach> {
    let class = super::python::holder_class(function)?;
    if name == "__init__" {
        return None;
    }
    py.outside_reach(&file.path, &qual_of(class, &file.parsed), name)
}

/// A definition's edits: its parameter list, the renamed parameters' names and uses in its
/// body; and each removed parameter its body still uses.
pub(super) struct DefEdits {
    pub(super) edits: Vec<Edit>,
    /// Each removed parameter with the byte offsets of its uses in the body.
    pub(super) removed: Vec<(String, Vec<usize>)>,
}

/// A definition's edits (see [`DefEdits`]).
pub(super) fn def_edits(
    facts: &Facts,
    d: &DefPlan,
    id: &SymbolId,
) -> Result<DefEdits, SignatureRefusal> {
    let text = &d.scan.parsed.text;
    let mut edits = Vec::new();
    // The list is rewritten when its entries move, come or go; a rename alone edits names.
    let moved = d.new.entries.len() != d.def.signature.entries.len()
        || d.new
            .entries
            .iter()
            .enumerate()
            .any(|(i, (_, old))| *old != Some(i));
    if moved {
        let items = d
            .new
            .entries
            .iter()
            .map(|(entry, old)| match old {
                Some(i) => vec![Part::Source(d.def.places[*i].0.clone())],
                None => vec![Part::Text(entry_text(entry, d.lang))],
            })
            .collect();
        edits.push(d.def.list.edit(text, items));
    }
    edits.extend(rename_edits(facts, d, id)?);
    let kept: HashSet<usize> = d.new.entries.iter().filter_map(|(_, old)| *old).collect();
    let removed = d
        .def
        .signature
        .entries
        .iter()
        .enumerate()
        .filter(|(i, _)| !kept.contains(i))
        .filter_map(|(_, (e, _))| match e {
            Entry::Param(p) => Some(p.name.clone()),
            _ => None,
        })
        .map(|name| {
            let uses = uses_of(facts, d, &name);
            (name, uses)
        })
        .filter(|(_, uses)| !uses.is_empty())
        .collect();
    Ok(DefEdits { edits, removed })
}

/// A parameter's id as the resolver gives its uses: Python's by the function's scope,
/// JavaScript/TypeScript's by its declaration's offset.
fn param_id(d: &DefPlan, name: &str) -> Option<SymbolId> {
    match d.lang {
        Lang::Python => Some(SymbolId::Python {
            module: d.scan.path.clone(),
            qual: format!("{}::{name}", qual_of(d.def.node, &d.scan.parsed)),
        }),
        Lang::Ecma { .. } => d
            .def
            .signature
            .params()
            .position(|p| p.name == name)
            .and_then(|i| d.def.places.iter().filter(|(_, n)| n.is_some()).nth(i))
            .and_then(|(_, n)| n.clone())
            .map(|n| SymbolId::Ecma {
                file: d.scan.path.clone(),
                offset: n.start as u32,
                member: None,
            }),
    }
}

/// The uses of a parameter (by its old name) in its function's body, by byte offset.
fn uses_of(facts: &Facts, d: &DefPlan, name: &str) -> Vec<usize> {
    let Some(id) = param_id(d, name) else {
        return Vec::new();
    };
    let text = &d.scan.parsed.text;
    let offsets = d.lang.body_identifiers(d.def.node, text, name);
    // The declaration itself is renamed by its place.
    let declared = d
        .def
        .places
        .iter()
        .filter_map(|(_, n)| n.as_ref())
        .find(|n| text[(*n).clone()] == *name);
    let mut uses: Vec<usize> = facts
        .resolve(d.lang, &d.scan.parsed, &offsets, name)
        .into_iter()
        .zip(offsets)
        .filter(|(r, _)| *r == Resolution::Symbol(id.clone()))
        .map(|(_, at)| at)
        .filter(|at| declared.is_none_or(|n| n.start != *at))
        .collect();
    if let Lang::Ecma { .. } = d.lang {
        uses.extend(super::ecma::predicate_names(d.def.node, text, name));
        uses.sort_unstable();
        uses.dedup();
    }
    uses
}

/// Each renamed parameter's name and uses renamed; refused where the new name already stands
/// in the function.
fn rename_edits(facts: &Facts, d: &DefPlan, id: &SymbolId) -> Result<Vec<Edit>, SignatureRefusal> {
    let text = &d.scan.parsed.text;
    let mut edits = Vec::new();
    for (entry, _) in &d.new.entries {
        let Entry::Param(p) = entry else { continue };
        let Origin::Old(i) = p.origin else { continue };
        let Entry::Param(old) = &d.def.signature.entries[i].0 else {
            continue;
        };
        if old.name == p.name {
            continue;
        }
        let taken = d.lang.name_lines(d.def.node, text, &p.name, &d.scan.starts);
        if !taken.is_empty() {
            return Err(SignatureRefusal::NameTaken {
                new: p.name.clone(),
                function: display(id, Some(d.scan)),
                path: d.scan.path.clone(),
                lines: taken,
            });
        }
        if let Some(name) = d.def.places[i].1.clone() {
            edits.push(Edit {
                range: name,
                parts: vec![Part::Text(p.name.clone())],
            });
        }
        for at in uses_of(facts, d, &old.name) {
            let new = match d.lang {
                Lang::Python => p.name.clone(),
                Lang::Ecma { .. } => {
                    super::ecma::renamed_use(&d.scan.parsed.tree, at, &old.name, &p.name)
                }
            };
            edits.push(Edit {
                range: at..at + old.name.len(),
                parts: vec![Part::Text(new)],
            });
        }
    }
    Ok(edits)
}

/// A new entry as its language writes it: `name`, `name=default` (Python), `name = default`
/// (JavaScript, TypeScript), `*`, `/`.
fn entry_text(entry: &Entry, lang: Lang) -> String {
    match entry {
        Entry::Slash => "/".into(),
        Entry::Star => "*".into(),
        Entry::Param(p) => {
            let stars = "*".repeat(p.stars as usize);
            match (&p.default, lang) {
                (Some(d), Lang::Python) => format!("{stars}{}={d}", p.name),
                (Some(d), Lang::Ecma { .. }) => format!("{} = {d}", p.name),
                (None, _) => format!("{stars}{}", p.name),
            }
        }
    }
}

/// What a language rejects of the changes themselves: a TypeScript parameter added without a
/// default has no type; a default or value that is not one expression of the language.
fn language_problem(lang: Lang, changes: &[ParamChange]) -> Option<ParamProblem> {
    for change in changes {
        let ParamChange::Add {
            name,
            default,
            value,
            ..
        } = change
        else {
            continue;
        };
        if lang == (Lang::Ecma { typescript: true }) && default.is_none() {
            return Some(ParamProblem::Untyped { name: name.clone() });
        }
        if let Some(code) = [default, value]
            .into_iter()
            .flatten()
            .find(|code| !lang.is_expression(code))
        {
            return Some(ParamProblem::NotExpression {
                name: name.clone(),
                code: code.clone(),
            });
        }
    }
    None
}

/// The new parameter list's text, for the summary: the kept entries as written (renamed).
pub(super) fn after_text(d: &DefPlan, text: &str) -> String {
    let parts: Vec<String> = d
        .new
        .entries
        .iter()
        .map(|(entry, old)| match (entry, old) {
            (Entry::Param(p), Some(i)) => {
                let (whole, name) = &d.def.places[*i];
                match name {
                    Some(name) => format!(
                        "{}{}{}",
                        &text[whole.start..name.start],
                        p.name,
                        &text[name.end..whole.end]
                    ),
                    None => text[whole.clone()].to_string(),
                }
            }
            (_, Some(i)) => text[d.def.places[*i].0.clone()].to_string(),
            (e, None) => entry_text(e, d.lang),
        })
        .collect();
    parts.join(", ")
}

/// A symbol as the report names it: Python's by its module and qualified name
/// (`shop/cart.py::Cart.total`), JavaScript/TypeScript's by its file and the name its
/// declaration writes (`src/shop.ts::total`), read from `scan` when that is its file (else by
/// the declaration's offset, `src/shop.ts@16`).
pub(super) fn display(id: &SymbolId, scan: Option<&FileScan>) -> String {
    let SymbolId::Ecma {
        file,
        offset,
        member,
    } = id
    else {
        return id.to_string();
    };
    // A JavaScript/TypeScript symbol is its file and offset: named for the person by the name
    // written there, when `scan` is that file.
    let Some(rest) = scan
        .filter(|scan| scan.path == *file)
        .and_then(|scan| scan.parsed.text.get(*offset as usize..))
    else {
        return id.to_string();
    };
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    match member {
        Some(EcmaMember::Public(m)) => format!("{file}::{name}.{m}"),
        Some(EcmaMember::Private(m)) => format!("{file}::{name}.#{m}"),
        None => format!("{file}::{name}"),
    }
}

/// A symbol's own name (`total` of `Cart.total`).
pub(super) fn last(id: &SymbolId) -> &str {
    match id {
        SymbolId::Python { qual, .. } => qual.rsplit(['.', ':']).next().unwrap_or(qual),
        _ => "",
    }
}

/// Text on one line: runs of whitespace as one space, none inside the brackets' edges.
pub(super) fn collapse(text: &str) -> String {
    format!(
        "({})",
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(',')
    )
}
