//! Why a rename must not go ahead: names that are not identifiers, a reserved NEW, a special
//! name, nothing to rename, a `--kind` that does not fit, NEW already in use, a bare name defined
//! in several languages, or sites lancet could not decide that may be the symbol.

use super::component_files::component_files_refusal;
use super::doctest_files::doctest_files_refusal;
use super::doctest_output::doctest_output_refusal;
use super::ecma::is_ecma_language;
use super::included_docs::{IncludedDoc, included_doctests_refusal};
use super::mangling::mangling_refusal;
use super::model::{Chosen, FileScan, RenameOptions, Resolution, SymbolId};
use super::named_by_string::named_by_string_refusal;
use super::overrides::outside_override_refusal;
use super::registry::{OutsideReaches, Symbols};
use super::scan::{is_identifier, renameable_languages, renamers};
use super::splats::splat_refusal;
use crate::report::{Definition, LeftSite, RenameRefusal, RenameSummary, SymbolKind};
use crate::report::{Report, Surface};
use lancet_core::{MAX_LISTED, Root};
use lancet_syntax::languages;
use std::collections::HashSet;

/// A refusal of the whole rename as the surface's report: nothing is written.
pub(super) fn refused(refusal: RenameRefusal, surface: Surface) -> Box<Report> {
    Box::new(Report::rename_refused(&refusal, surface))
}

/// The refusal of names that are not identifiers, OLD equal to NEW, or a language lancet cannot
/// rename in.
pub(super) fn invalid_request(opts: &RenameOptions) -> Option<RenameRefusal> {
    for (what, name) in [("OLD", &opts.old), ("NEW", &opts.new)] {
        if !is_identifier(name) {
            return Some(RenameRefusal::NotIdentifier {
                which: what,
                name: name.clone(),
            });
        }
    }
    if opts.old == opts.new {
        return Some(RenameRefusal::SameNames {
            name: opts.old.clone(),
        });
    }
    let lang = opts.lang.as_ref()?;
    (!renamers().iter().any(|r| &r.entry.name == lang)).then(|| RenameRefusal::UnknownLanguage {
        lang: lang.clone(),
        known: renameable_languages()
            .into_iter()
            .map(str::to_string)
            .collect(),
    })
}

/// The unresolved sites that may be the chosen symbol. A site's shape limits what it can
/// name: a member access (`x.close()`) only a member, a keyword argument (`f(close=…)`) only a
/// parameter, a part of an import's module path only a module (never renamed by lancet).
pub(super) fn undecided_sites<'s>(
    summary: &'s RenameSummary,
    scans: &[FileScan],
    chosen: &Chosen,
    old: &str,
) -> Vec<&'s LeftSite> {
    let (members, locals) = match chosen {
        Chosen::Ids(ids) => (
            ids.iter().any(SymbolId::is_member),
            ids.iter().any(SymbolId::is_local),
        ),
        Chosen::All => (true, true),
    };
    // Only locals chosen: a local is seen in its own file only.
    let local_files: Option<Vec<&str>> = match chosen {
        Chosen::Ids(ids) if ids.iter().all(SymbolId::is_local) => {
            ids.iter().map(SymbolId::local_file).collect()
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
                SiteShape::Keyword => locals || (members && python),
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
    /// `f(name=…)`: a parameter, or in Python a member too (a constructor's `**kwargs` may set
    /// it as an attribute, a model's generated `__init__` takes its fields).
    Keyword,
    /// A part of an import's dotted module path: a module.
    ModulePath,
    /// Anything else.
    Plain,
}

/// The shape of a site (see [`SiteShape`]).
fn site_shape(scan: &FileScan, site: &LeftSite, len: usize) -> SiteShape {
    let Some(&line_start) = scan.starts.get(site.line - 1) else {
        return SiteShape::Plain;
    };
    site_shape_at(scan, line_start + site.column - 1, len)
}

/// Whether an undecided site at byte `at` of a scanned file may be one of the chosen symbols,
/// by its shape (see [`undecided_sites`]): what a refactoring built on the rename's sites
/// (a signature change) weighs as the rename does.
pub(crate) fn may_be_chosen(scan: &FileScan, at: usize, len: usize, chosen: &Chosen) -> bool {
    let (members, locals) = match chosen {
        Chosen::Ids(ids) => (
            ids.iter().any(SymbolId::is_member),
            ids.iter().any(SymbolId::is_local),
        ),
        Chosen::All => (true, true),
    };
    // Only locals chosen: a local is seen in its own file only.
    if let Chosen::Ids(ids) = chosen
        && ids.iter().all(SymbolId::is_local)
        && let Some(files) = ids
            .iter()
            .map(SymbolId::local_file)
            .collect::<Option<Vec<&str>>>()
        && !files.contains(&scan.path.as_str())
    {
        return false;
    }
    let python = scan.path.ends_with(".py") || scan.path.ends_with(".pyi");
    match site_shape_at(scan, at, len) {
        SiteShape::Member => members || python,
        SiteShape::ValueMember => members,
        SiteShape::Keyword => locals || (members && python),
        SiteShape::ModulePath => false,
        SiteShape::Plain => true,
    }
}

/// The shape of the site at byte `at`.
fn site_shape_at(scan: &FileScan, at: usize, len: usize) -> SiteShape {
    // A shorthand whose value is decided (`const { x } = o`, `P { x }`): what is undecided is
    // its key, a member (a rename of a local or a function never waits on it).
    let key_undecided = scan.occurrences.iter().any(|o| {
        o.at == at
            && matches!(o.resolution, Some(Resolution::Symbol(_)))
            && matches!(o.field, Some(Resolution::Unresolved(_)))
    });
    if key_undecided {
        return SiteShape::Member;
    }
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
    if let Some(argument) = crate::rename::scan::keyword_argument_named_by(node) {
        // `replace(p, x=5)`, `p._replace(x=5)`: the keywords are the fields of `p`'s class.
        let replaces = argument
            .parent()
            .and_then(|list| list.parent())
            .and_then(|call| call.child_by_field_name("function"))
            .is_some_and(|f| {
                let spelled = &scan.parsed.text[f.byte_range()];
                matches!(spelled.rsplit('.').next(), Some("replace" | "_replace"))
            });
        return if replaces {
            SiteShape::ValueMember
        } else {
            SiteShape::Keyword
        };
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

/// OLD or NEW as one of Python's special names, in a rename that touches Python: the rename of
/// a language server (`--lsp`) is refused alike, as the server leaves `==` calling the old
/// `__eq__` too.
pub(super) fn special_name(touches_python: bool, opts: &RenameOptions) -> Option<RenameRefusal> {
    let (which, name) = [("OLD", &opts.old), ("NEW", &opts.new)]
        .into_iter()
        .find(|(_, name)| python_special(name))?;
    touches_python.then(|| RenameRefusal::SpecialName {
        which,
        name: name.clone(),
        language: "python".into(),
    })
}

/// OLD or NEW as a member name JavaScript itself calls (`toString` for `String(x)` and `+`,
/// `valueOf`, `toJSON` for `JSON.stringify`, `then` for `await`), in a rename of a member of a
/// JavaScript/TypeScript class or object type: renaming one, or a member to one, changes what
/// runs where no site shows, whatever the class's bases.
pub(crate) fn ecma_special_member(
    scanned: &[FileScan],
    opts: &RenameOptions,
    chosen: &Chosen,
) -> Option<RenameRefusal> {
    let (which, name) = [("OLD", &opts.old), ("NEW", &opts.new)]
        .into_iter()
        .find(|(_, name)| ECMA_CALLED_MEMBERS.contains(&name.as_str()))?;
    let language = scanned.iter().find_map(|scan| {
        let member = scan.occurrences.iter().any(|o| {
            chosen.renames(o.resolution.as_ref(), opts)
                && matches!(&o.resolution, Some(Resolution::Symbol(id @ SymbolId::Ecma { .. })) if id.is_member())
        });
        member.then_some(scan.language)
    })?;
    Some(RenameRefusal::SpecialName {
        which,
        name: name.clone(),
        language: language.to_string(),
    })
}

/// The members JavaScript calls by name on any object: `Object.prototype`'s conversions, what
/// `JSON.stringify` and `await` look for, an event listener object's handler.
const ECMA_CALLED_MEMBERS: [&str; 6] = [
    "toString",
    "valueOf",
    "toLocaleString",
    "toJSON",
    "then",
    "handleEvent",
];

/// Whether Python reserves `name` for itself (`__eq__`, `__init__`, `__all__`): the language
/// reference's "system-defined names", which the interpreter calls or reads where no text
/// names them.
fn python_special(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// The refusal of a rename that would leave OLD where the tests run code or compare text
/// lancet does not rename, if it would, in the renamed `languages`: Rust doc code it does not
/// read ([`included_doctests_refusal`]), a call unpacking keywords into a renamed parameter's
/// function ([`splat_refusal`]), a Python doctest's expected output
/// ([`doctest_output_refusal`]), a text file pytest runs as doctests
/// ([`doctest_files_refusal`]), a single-file component's script or template
/// ([`component_files_refusal`]). Lancet's own rename and a server's (which renames none of
/// those places either) weigh them alike.
pub(crate) fn left_where_tests_run(
    (root, files, included_docs): (&Root, &[String], &[IncludedDoc]),
    scanned: &[FileScan],
    opts: &RenameOptions,
    chosen: &Chosen,
    languages: &HashSet<&str>,
) -> Option<RenameRefusal> {
    let docs = (included_docs, scanned);
    included_doctests_refusal(root, docs, opts, chosen, languages.contains("rust"))
        .or_else(|| splat_refusal(root, files, scanned, opts, chosen))
        .or_else(|| doctest_output_refusal(scanned, opts, chosen))
        .or_else(|| {
            let renames_python = languages.contains("python");
            doctest_files_refusal(root, files, opts, chosen, renames_python)
        })
        .or_else(|| {
            let renames_ecma = languages.iter().any(|l| is_ecma_language(l));
            component_files_refusal(root, files, opts, chosen, renames_ecma)
        })
}

/// What a rename found, as its refusals weigh it.
pub(super) struct Found<'a> {
    pub(super) summary: &'a RenameSummary,
    /// The symbols the sites resolve to, grouped.
    pub(super) symbols: &'a Symbols,
    /// The members among them that code outside the tree may reach by their name.
    pub(super) outside_reaches: &'a OutsideReaches,
    /// The files with a site to rename.
    pub(super) touched: &'a [&'a FileScan],
    /// The undecided sites that may be the chosen symbol.
    pub(super) undecided: &'a [&'a LeftSite],
    /// Every file that holds OLD, parsed.
    pub(super) scanned: &'a [FileScan],
    /// The root, the walked files and the Markdown the Rust files include as documentation.
    pub(super) tree: (&'a Root, &'a [String], &'a [IncludedDoc]),
}

/// Why the rename must not go ahead, if it must not: a reserved NEW, a special name (OLD or
/// NEW), a `--kind` that does not fit, a bare OLD naming several unrelated symbols, NEW already
/// in use where OLD would become it, nothing to rename, or undecided sites.
pub(super) fn refusal(
    opts: &RenameOptions,
    chosen: &Chosen,
    found: &Found,
) -> Option<RenameRefusal> {
    let Found {
        summary,
        symbols,
        outside_reaches,
        touched,
        undecided,
        scanned,
        tree: (root, files, included_docs),
    } = *found;
    let languages: HashSet<&str> = touched.iter().map(|s| s.language).collect();
    for entry in languages::languages() {
        if languages.contains(entry.name.as_str()) && entry.keywords.contains(&opts.new) {
            return Some(RenameRefusal::Reserved {
                new: opts.new.clone(),
                language: entry.name.clone(),
            });
        }
    }
    if let Some(refused) = special_name(languages.contains("python"), opts)
        .or_else(|| ecma_special_member(scanned, opts, chosen))
        .or_else(|| mangling_refusal(opts, touched, scanned))
        .or_else(|| named_by_string_refusal(opts, scanned))
        .or_else(|| outside_override_refusal((outside_reaches, scanned), opts, chosen))
        .or_else(|| {
            let tree = (root, files, included_docs);
            left_where_tests_run(tree, scanned, opts, chosen, &languages)
        })
    {
        return Some(refused);
    }
    if let Some(report) = kind_refusal(opts, summary) {
        return Some(report);
    }
    if matches!(chosen, Chosen::All)
        && let Some(report) = definitions_refusal(symbols, touched, opts)
    {
        return Some(report);
    }
    // A member of NEW's name merges only with a member: renaming a plain binding beside a
    // method `Other.new` joins nothing.
    let plain_target = touched
        .iter()
        .flat_map(|s| &s.occurrences)
        .filter(|o| chosen.renames(o.resolution.as_ref(), opts))
        .all(|o| matches!(&o.resolution, Some(Resolution::Symbol(id)) if !id.is_member()));
    let collisions: Vec<(String, usize)> = touched
        .iter()
        .flat_map(|s| {
            s.collisions
                .iter()
                .filter(|c| !(plain_target && c.member))
                .map(move |c| (s.path.clone(), c.line))
        })
        .collect();
    if !collisions.is_empty() {
        return Some(RenameRefusal::NameInUse {
            old: opts.old.clone(),
            new: opts.new.clone(),
            places: collisions,
        });
    }
    if touched.is_empty() && !undecided.is_empty() && !opts.include_unresolved {
        // Every site in code is undecided (cfg variants, unknown receivers): say so.
        return Some(unresolved_refusal(opts, summary, undecided));
    }
    if touched.is_empty() {
        return Some(RenameRefusal::NoMatch {
            old: opts.old.clone(),
            files_scanned: summary.files_scanned,
            mentions: summary.mentions.len(),
        });
    }
    if !undecided.is_empty() && !opts.include_unresolved && !opts.leave_unresolved {
        return Some(unresolved_refusal(opts, summary, undecided));
    }
    None
}

/// A bare name naming several unrelated symbols (see [`super::registry::Symbols`]): each is
/// named by a definition (the first site with a definition's kind, else its first site).
fn definitions_refusal(
    symbols: &Symbols,
    scans: &[&FileScan],
    opts: &RenameOptions,
) -> Option<RenameRefusal> {
    if symbols.len() < 2 || opts.all_definitions {
        return None;
    }
    let place = |group: &Vec<SymbolId>| -> Option<Definition> {
        let mut first = None;
        for scan in scans {
            for o in &scan.occurrences {
                let of_group = [&o.resolution, &o.field]
                    .into_iter()
                    .flatten()
                    .any(|r| matches!(r, Resolution::Symbol(id) if group.contains(id)));
                if !of_group {
                    continue;
                }
                let definition = |kind| Definition {
                    path: scan.path.clone(),
                    line: o.line,
                    kind,
                };
                if let Some(&kind) = o.kinds.first() {
                    return Some(definition(kind));
                }
                first.get_or_insert_with(|| definition(SymbolKind::Any));
            }
        }
        first
    };
    let mut listed: Vec<Definition> = symbols.iter().filter_map(place).collect();
    listed.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    listed.truncate(MAX_LISTED);
    Some(RenameRefusal::Definitions {
        old: opts.old.clone(),
        listed,
        symbols: symbols.len(),
        all: true,
    })
}

/// A bare name defined in several languages (a Rust `fn frob` and a Python `def frob`): one
/// name, unrelated symbols; renaming all of them by spelling is no rename anyone asked for.
pub(super) fn languages_refusal(
    summary: &RenameSummary,
    scans: &[FileScan],
    opts: &RenameOptions,
) -> Option<RenameRefusal> {
    let language = |path: &str| scans.iter().find(|s| s.path == path).map(|s| s.language);
    let languages: std::collections::BTreeSet<&str> = summary
        .definitions
        .iter()
        .filter_map(|d| language(&d.path))
        .collect();
    if languages.len() < 2 {
        return None;
    }
    let listed = summary
        .definitions
        .iter()
        .take(MAX_LISTED)
        .map(|d| (d.clone(), language(&d.path).unwrap_or("?").to_string()))
        .collect();
    Some(RenameRefusal::Languages {
        old: opts.old.clone(),
        languages: languages.into_iter().map(str::to_string).collect(),
        listed,
    })
}

/// `--kind K` where OLD is defined as no K, or as K and something else.
fn kind_refusal(opts: &RenameOptions, summary: &RenameSummary) -> Option<RenameRefusal> {
    if opts.kind == SymbolKind::Any {
        return None;
    }
    let (fits, others): (Vec<&Definition>, Vec<&Definition>) = summary
        .definitions
        .iter()
        .partition(|d| d.kind == opts.kind);
    let others: Vec<Definition> = others.into_iter().cloned().collect();
    if fits.is_empty() {
        return Some(RenameRefusal::KindNotDefined {
            old: opts.old.clone(),
            kind: opts.kind,
            others,
        });
    }
    (!others.is_empty()).then(|| RenameRefusal::KindMixed {
        old: opts.old.clone(),
        kind: opts.kind,
        others,
    })
}

/// Sites lancet could not decide stop the rename: each may be the symbol, and one left under
/// the old name can break the build while the rest is renamed.
fn unresolved_refusal(
    opts: &RenameOptions,
    summary: &RenameSummary,
    undecided: &[&LeftSite],
) -> RenameRefusal {
    RenameRefusal::Unresolved {
        old: opts.old.clone(),
        decided: summary.sites,
        listed: undecided
            .iter()
            .take(MAX_LISTED)
            .map(|u| (*u).clone())
            .collect(),
        total: undecided.len(),
        at: opts.at.is_some(),
        servers: Vec::new(),
    }
}
