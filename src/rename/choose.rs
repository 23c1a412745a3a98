//! Naming one symbol: `--at PATH:LINE:COL` read to the identifier there, a qualified OLD
//! (`pkg.mod.Class.method`, `crate::m::Type::f`) cut to its last part, and, once the tree is
//! resolved, the symbol ids either one chooses.

use super::at::At;
use super::model::{Chosen, FileScan, RenameOptions, Resolution, RustSymbol, SymbolId};
use super::refusal::{invalid_request, refused};
use super::registry::Symbols;
use super::scan::is_identifier;
use super::words::is_word_byte;
use crate::report::{AtProblem, PlaceRefusal, RenameRefusal};
use crate::report::{Report, Surface};
use lancet_core::Root;
use std::collections::HashSet;

/// The rename asked for: OLD from `--at` (the identifier there) or from a qualified name (its
/// last part), checked; the position and the qualified name themselves.
pub(super) fn request(
    root: &Root,
    opts: &RenameOptions,
    surface: Surface,
) -> Result<(RenameOptions, Option<At>, Option<String>), Box<Report>> {
    let at = opts
        .at
        .as_deref()
        .map(|place| locate_at(root, place, surface))
        .transpose()?;
    let mut opts = opts.clone();
    if let Some(refusal) = old_typed_with_at(root, &opts, surface) {
        return Err(refused(refusal, surface));
    }
    if let Some(at) = &at {
        if !opts.old.is_empty() && opts.old != at.name {
            let refusal = RenameRefusal::Place(PlaceRefusal::AtNamesOther {
                place: at.place.clone(),
                name: at.name.clone(),
                old: opts.old.clone(),
            });
            return Err(refused(refusal, surface));
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
        return Err(refused(refusal, surface));
    }
    Ok((opts, at, qualified))
}

/// `rename --at P:L:C OLD NEW` on the command line (OLD typed too, though `--at` names it):
/// the positionals are NEW [PATH]..., so OLD is taken for NEW and NEW for a path, which is a
/// name that does not exist under the root.
fn old_typed_with_at(root: &Root, opts: &RenameOptions, surface: Surface) -> Option<RenameRefusal> {
    let name = opts.paths.first()?;
    let typed = opts.at.is_some()
        && surface == Surface::Cli
        && is_identifier(name)
        && root.dir().symlink_metadata(name).is_err();
    typed.then(|| {
        RenameRefusal::Place(PlaceRefusal::OldTypedWithAt {
            taken: opts.new.clone(),
            name: name.clone(),
        })
    })
}

/// Which sites to rename: the binding at `--at`, the bindings a qualified name matches, or
/// every resolved symbol.
pub(crate) fn choose(
    scans: &[FileScan],
    at: Option<&At>,
    qualified: Option<&str>,
    surface: Surface,
) -> Result<Chosen, Box<Report>> {
    if let Some(at) = at {
        let occurrence = scans
            .iter()
            .find(|s| s.path == at.path)
            .and_then(|s| s.occurrences.iter().find(|o| o.at == at.offset));
        let (name, place) = (at.name.clone(), at.place.clone());
        let refusal = match occurrence.and_then(|o| o.resolution.as_ref()) {
            Some(Resolution::Symbol(id)) => return Ok(Chosen::Ids(HashSet::from([id.clone()]))),
            // A definition lancet cannot place (an object type's property, an enum variant's
            // field): what is unsupported, and who can do it.
            Some(Resolution::Unresolved(why))
                if occurrence.is_some_and(|o| !o.kinds.is_empty()) || why.contains("by syntax") =>
            {
                RenameRefusal::Place(PlaceRefusal::AtUnsupported {
                    name,
                    place,
                    why: why.clone(),
                })
            }
            Some(Resolution::Unresolved(why)) => RenameRefusal::Place(PlaceRefusal::AtUnresolved {
                name,
                place,
                why: why.clone(),
            }),
            Some(Resolution::Outside(why)) => RenameRefusal::Place(PlaceRefusal::AtOutside {
                name,
                place,
                why: why.clone(),
            }),
            None => RenameRefusal::Place(PlaceRefusal::AtNotCode { name, place }),
        };
        return Err(refused(refusal, surface));
    }
    let Some(qualified) = qualified else {
        return Ok(Chosen::All);
    };
    let ids: HashSet<SymbolId> = scans
        .iter()
        .flat_map(|s| &s.occurrences)
        .filter_map(|o| match &o.resolution {
            Some(Resolution::Symbol(id)) if qualified_matches(id, qualified) => Some(id.clone()),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        let refusal = RenameRefusal::Place(PlaceRefusal::QualifiedUnknown {
            qualified: qualified.to_string(),
        });
        return Err(refused(refusal, surface));
    }
    Ok(Chosen::Ids(ids))
}

/// Whether a symbol is the one a qualified name names: a Python symbol
/// (`src/pkg/mod.py::Class.method`) by its module path and qualified name, a Rust one
/// (`Type::method`, an item) by its type and name (`crate::m::Type::method` ends with
/// `Type::method`). JavaScript/TypeScript symbols (a file and an offset) carry no name: they
/// are named with `--at`; so are Rust locals.
fn qualified_matches(id: &SymbolId, qualified: &str) -> bool {
    let qualified = qualified.replace("::", ".");
    let qualified = qualified.strip_prefix("crate.").unwrap_or(&qualified);
    let full = match id {
        // One of several items of the name, or the only one: by its name.
        SymbolId::Rust(RustSymbol::Item { name, .. }) => name.clone(),
        SymbolId::Rust(RustSymbol::Local { .. }) | SymbolId::Ecma { .. } => return false,
        SymbolId::Rust(
            RustSymbol::Associated { holder, name, .. } | RustSymbol::Field { holder, name },
        ) => format!("{holder}.{name}"),
        SymbolId::Python { module, qual } => {
            let module = module
                .trim_end_matches(".py")
                .trim_end_matches("/__init__")
                .replace('/', ".");
            format!("{module}.{}", qual.replace("::", "."))
        }
    };
    full == qualified || full.ends_with(&format!(".{qualified}"))
}

/// Reads the identifier `--at` points at.
pub(crate) fn locate_at(root: &Root, place: &str, surface: Surface) -> Result<At, Box<Report>> {
    let refused = |refusal: RenameRefusal| refused(refusal, surface);
    let usage =
        |problem: AtProblem| refused(RenameRefusal::Place(PlaceRefusal::AtMalformed { problem }));
    let mut parts = place.rsplitn(3, ':');
    let not_a_place = || {
        usage(AtProblem::NotAPlace {
            place: place.to_string(),
        })
    };
    let (Some(col), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(not_a_place());
    };
    let (Ok(line), Ok(col)) = (line.trim().parse::<usize>(), col.trim().parse::<usize>()) else {
        return Err(not_a_place());
    };
    let rel = root.rel(path).map_err(|e| {
        refused(RenameRefusal::Place(PlaceRefusal::PathOutside {
            error: e.to_string(),
            at: true,
        }))
    })?;
    let Some(bytes) = root.read_regular(&rel) else {
        return Err(refused(RenameRefusal::Place(PlaceRefusal::AtFileMissing {
            path: rel.to_string(),
        })));
    };
    let text = String::from_utf8_lossy(&bytes);
    let Some(line_text) = text.split_inclusive('\n').nth(line.saturating_sub(1)) else {
        return Err(usage(AtProblem::NoLine {
            path: rel.to_string(),
            line,
        }));
    };
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let Some((col_byte, _)) = line_text.char_indices().nth(col.saturating_sub(1)) else {
        return Err(usage(AtProblem::NoColumn {
            path: rel.to_string(),
            line,
            column: col,
        }));
    };
    let b = text.as_bytes();
    let at = line_start + col_byte;
    if !is_word_byte(b[at]) {
        return Err(usage(AtProblem::NotOnIdentifier {
            place: place.to_string(),
            line_text: line_text.trim_end().to_string(),
        }));
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

/// The chosen symbols with the ones they are tied to ([`Symbols`]' groups: a method and the
/// methods overriding it, through the tree's classes): a rename of one alone would change which
/// runs (`S.norm` would stop overriding a renamed `P.norm`), so `--at` and a qualified name
/// rename the family, as a bare name does.
pub(crate) fn with_tied(chosen: Chosen, symbols: &Symbols) -> Chosen {
    let Chosen::Ids(mut ids) = chosen else {
        return chosen;
    };
    for group in symbols {
        if group.iter().any(|id| ids.contains(id)) {
            ids.extend(group.iter().cloned());
        }
    }
    Chosen::Ids(ids)
}
