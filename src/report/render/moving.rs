//! A move in words: its refusals (the request, the symbol named, the destination, a name
//! taken, an import cycle, star imports, undecided sites) and the lines that say what moved:
//! from where to where, the imports and uses updated per file, the imports brought and dropped.

use super::place::place_words;
use super::refused::{RefusalWords, refused};
use super::rename::places;
use super::{join_all_lines, left_why, list_left_sites};
use crate::report::{DestinationProblem, MoveRefusal, Unmovable};
use crate::report::{LeftSite, MoveSummary, Report, Status, Surface};
use lancet_core::kinds::ErrorKind;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many files the sites line names, each with its count.
const FILES_NAMED: usize = 12;

impl Report {
    /// A move that must not go ahead: nothing is written.
    pub fn move_refused(refusal: &MoveRefusal, surface: Surface) -> Report {
        let (status, kind, detail, next) = words(refusal, surface);
        Report::batch_error(status, kind, detail, &next)
    }

    /// Attaches a move's findings and puts them at the top of the message.
    pub fn with_move(mut self, summary: MoveSummary, surface: Surface) -> Report {
        let refused_for_sites = self
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::UnresolvedSites);
        self.message = format!(
            "{}\n{}",
            findings(&summary, refused_for_sites, surface),
            self.message
        );
        self.moved = Some(summary);
        self
    }
}

/// The status, kind, detail and next step of a refusal.
fn words(refusal: &MoveRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        MoveRefusal::Bisect => (
            Status::Malformed,
            ErrorKind::Usage,
            "--bisect has nothing to bisect in a move: the moved code and its imports stand or fall together".into(),
            "Run it with --test alone: a failing test run rolls the whole move back.".into(),
        ),
        MoveRefusal::NotIdentifier { name } => (
            Status::Malformed,
            ErrorKind::InvalidName,
            format!("`{name}` is not an identifier"),
            "Name the symbol by its name (letters, digits and `_`), its qualified name (pkg.mod.name), or --at PATH:LINE:COL.".into(),
        ),
        MoveRefusal::NoMatch {
            symbol,
            files_scanned,
        } => refused(
            ErrorKind::NoMatch,
            format!("no module-level definition of `{symbol}` found in {files_scanned} file(s) scanned"),
            "Check the spelling and the paths (files ignored by .gitignore are not walked).",
        ),
        MoveRefusal::Ambiguous {
            symbol,
            listed,
            symbols,
        } => {
            let more = symbols.saturating_sub(listed.len());
            refused(
                ErrorKind::Ambiguous,
                format!(
                    "`{symbol}` names {symbols} unrelated symbols: {}{}",
                    places(listed),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
                &format!(
                    "Name one by position ({} PATH:LINE:COL, one of the places above) or by its qualified name (pkg.mod.name).",
                    surface.param("--at")
                ),
            )
        }
        MoveRefusal::NotMovable { symbol, place, why } => unmovable(symbol, place, why),
        MoveRefusal::Destination { to, problem } => destination(to, problem, surface),
        MoveRefusal::NameTaken { name, path, line } => refused(
            ErrorKind::NameInUse,
            format!(
                "`{name}` already means something else in {path} (line {line}): moving the code there would merge the two"
            ),
            "Rename one of them first (lancet rename), or move the symbol to another module.",
        ),
        MoveRefusal::Cycle {
            from,
            to,
            needs,
            back,
        } => refused(
            ErrorKind::ImportCycle,
            format!(
                "the move would make {from} and {to} import each other at module level: {to} would import {} from {from}, and {from} imports {to} ({back})",
                needs
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "Move those names along first (one move each), or move the symbol where both can import it.",
        ),
        MoveRefusal::StarImports { .. } | MoveRefusal::Sites { .. } => {
            sites_words(refusal, surface)
        }
        MoveRefusal::Overlap { path, line } => (
            Status::Error,
            ErrorKind::Overlap,
            format!(
                "two changes of {path} overlap at line {line}, which lancet cannot make both of; nothing was written"
            ),
            "Make this move by editing the files, and report the case to lancet's maintainers."
                .into(),
        ),
        MoveRefusal::Changed { path } => refused(
            ErrorKind::Stale,
            format!("{path} changed while lancet read it"),
            "Run the move again once nothing else writes the files.",
        ),
        MoveRefusal::Place(place) => place_words(place, surface),
    }
}

/// Sites that stop the move: star imports of the old module, sites lancet cannot decide.
fn sites_words(refusal: &MoveRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        MoveRefusal::StarImports {
            symbol,
            sites,
            total,
        } => {
            let mut detail = format!(
                "{total} file(s) import everything of the old module with `*`: whether they use `{symbol}` is not in their text, and after the move they would not get it:"
            );
            list_sites(&mut detail, sites, *total);
            refused(
                ErrorKind::UnresolvedSites,
                detail,
                &format!(
                    "Import `{symbol}` by name in those files first, or pass {} to keep the old module re-exporting it.",
                    surface.switch("--keep-reexport")
                ),
            )
        }
        MoveRefusal::Sites {
            symbol,
            updated,
            unresolved,
            total,
        } => {
            let (_, leave) = surface.unresolved_switches();
            let mut detail = format!(
                "{total} site(s) may name {symbol} and cannot be updated by lancet, so nothing was written ({updated} site(s) could be):"
            );
            list_sites(&mut detail, unresolved, *total);
            refused(
                ErrorKind::UnresolvedSites,
                detail,
                &format!(
                    "Rewrite those sites by hand first, or pass {leave} to move it and leave them as they are (with {} the old module still answers for it).",
                    surface.switch("--keep-reexport")
                ),
            )
        }
        _ => unreachable!("only the sites' refusals are worded here"),
    }
}

/// A symbol lancet does not move, and why.
fn unmovable(symbol: &str, place: &str, why: &Unmovable) -> RefusalWords {
    let (kind, detail, next) = match why {
        Unmovable::NotGlobal => (
            ErrorKind::KindMismatch,
            format!(
                "`{symbol}` at {place} is not defined at its module's top level (a method, a local or a class attribute)"
            ),
            "Move a module-level function, class, constant or type alias.",
        ),
        Unmovable::Redefined { lines } => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` is bound more than once at the top level of its module ({place}, lines {}): which binding moves is not decided (a first `{symbol} = …` moves with later plain reassignments left writing the new module's `{symbol}` only when no other file uses it and the module names it there as `b.{symbol}`)",
                join_all_lines(lines)
            ),
            "Leave one binding of it (or move the code by hand).",
        ),
        Unmovable::Shared => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place} is bound by a statement that binds more or shares its line with another"
            ),
            "Give it a statement of its own on its own line(s) first.",
        ),
        Unmovable::NotDefinition(what) => (
            ErrorKind::KindMismatch,
            format!("`{symbol}` at {place} is bound by {what}, not defined there"),
            "Move the definition it comes from (a function, a class or an assignment).",
        ),
        Unmovable::Global(name) => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place} declares `global {name}`: moved, it would read and write the new module's `{name}`"
            ),
            "Move it by hand, or pass the state it writes as an argument first.",
        ),
        Unmovable::ConditionalImport { name, line } => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place} uses `{name}`, which its module imports under a condition (line {line}): which import the new module needs is not decided"
            ),
            "Import it unconditionally first, or move the code by hand.",
        ),
        Unmovable::StarName(name) => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place} uses `{name}`, which its module may take from a `from … import *`"
            ),
            "Import that name by name in the old module first.",
        ),
        Unmovable::Language(language) => (
            ErrorKind::UnknownLanguage,
            format!(
                "`{symbol}` at {place} is {language}; lancet moves Python and JavaScript/TypeScript symbols so far"
            ),
            "Move it by editing the files.",
        ),
        Unmovable::DefaultExport => (
            ErrorKind::KindMismatch,
            format!(
                "`{symbol}` at {place} is its module's default export: each importer names it as it likes (`import anything from`), so which names are it is not decided"
            ),
            "Export it by name first (`export function …`, importers `import { … }`), then move it.",
        ),
        Unmovable::CommonJs => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place} is in a CommonJS module (`require`, `module.exports`): what its users read of it is not in import statements"
            ),
            "Move it by hand, or make the module an ES module (`import`/`export`) first.",
        ),
        Unmovable::Assigns(name) => (
            ErrorKind::UnresolvedSites,
            format!(
                "`{symbol}` at {place}: `{name}` is assigned across the two modules after the move, and an imported binding cannot be assigned"
            ),
            "Give the module that keeps it a function that sets it, then move the code.",
        ),
    };
    refused(kind, detail, next)
}

/// A destination the symbol cannot move to.
fn destination(to: &str, problem: &DestinationProblem, surface: Surface) -> RefusalWords {
    let to_flag = surface.param("--to");
    let detail = match problem {
        DestinationProblem::SameFile => format!("{to} is the file the symbol is in already"),
        DestinationProblem::Directory => format!("{to} is a directory, not a module"),
        DestinationProblem::Extension(ext) => {
            format!("{to} is not a {ext} file, so it cannot be the symbol's module")
        }
        DestinationProblem::NoDirectory(dir) => {
            format!("{to} would be created in {dir}, which does not exist: nothing imports it")
        }
        DestinationProblem::NotImportable(dir) => format!(
            "{to} cannot be imported by a module name: {dir} is no package (no __init__.py) and no source root"
        ),
        DestinationProblem::NotModuleName(part) => format!(
            "{to} cannot be imported: `{part}` is not an identifier, so no module name reaches it"
        ),
        DestinationProblem::Path(why) => format!("{to}: {why}"),
    };
    (
        Status::Refused,
        ErrorKind::UnsafePath,
        detail,
        format!(
            "Pass as {to_flag} a module file of the project (an existing one, or a new one in a package directory)."
        ),
    )
}

/// Sites, each with its text and why, and how many more.
fn list_sites(detail: &mut String, sites: &[LeftSite], total: usize) {
    for site in sites {
        let _ = write!(
            detail,
            "\n  {}:{}: {}  ({})",
            site.path,
            site.line,
            site.text,
            left_why(&site.why)
        );
    }
    if total > sites.len() {
        let _ = write!(detail, "\n  … and {} more", total - sites.len());
    }
}

/// The findings: what moved where, the sites per file, the imports, and the sites left.
fn findings(summary: &MoveSummary, refused_for_sites: bool, surface: Surface) -> String {
    let mut msg = format!(
        "Move of {} (lines {}-{}) to {}{}: {} import(s) and use(s) updated in {} file(s) ({} file(s) scanned).",
        summary.symbol,
        summary.lines[0],
        summary.lines[1],
        summary.to,
        if summary.created { " (new file)" } else { "" },
        summary.sites.len(),
        summary.files_changed,
        summary.files_scanned
    );
    if !summary.sites.is_empty() {
        let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
        for site in &summary.sites {
            *per_file.entry(&site.path).or_default() += 1;
        }
        let shown: Vec<String> = per_file
            .iter()
            .take(FILES_NAMED)
            .map(|(path, n)| format!("{path} {n}"))
            .collect();
        let more = per_file.len().saturating_sub(FILES_NAMED);
        let _ = write!(
            msg,
            "\nSites updated per file: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more file(s) (--json lists all)")
            } else {
                String::new()
            }
        );
    }
    if !summary.imports_added.is_empty() {
        let _ = write!(
            msg,
            "\nImports added to {}: {}",
            summary.to,
            summary.imports_added.join("; ")
        );
    }
    if !summary.imports_removed.is_empty() {
        let _ = write!(
            msg,
            "\nImports removed from {} (only the moved code used them): {}",
            summary.from,
            summary.imports_removed.join("; ")
        );
    }
    if !refused_for_sites && !summary.unresolved.is_empty() {
        let (_, leave) = surface.unresolved_switches();
        list_left_sites(
            &mut msg,
            &format!("Left as they are ({leave}), undecided"),
            &summary.unresolved,
        );
    }
    msg
}
