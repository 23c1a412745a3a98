//! The hybrid resolver: lancet decides what its own resolution can, and only the sites it
//! cannot decide go to the project's language server, one question per site ("where is the
//! identifier here defined?", [`lsp::ask_definitions`]). A site whose definition is one of the
//! chosen symbol's definitions is the symbol; one whose definition is another symbol of the
//! tree, or outside the tree, is not; any other answer (none, a place lancet cannot relate to
//! a site spelled OLD, places that disagree) leaves the site undecided, and the refusal stays
//! — so, unless undecided sites are left by choice (`--leave-unresolved`), the questions stop
//! at the first site the server cannot decide.
//!
//! The servers are the ones the caller lets lancet run (the CLI's default when one is
//! installed outside the root; `--no-lsp` and `[rename] lsp = false` turn it off; over MCP only
//! with `--allow-lsp`), sandboxed as every server lancet runs.

use super::lsp::{self, Answer, Lsp, Place};
use super::model::{Chosen, FileScan, RenameOptions, Resolution};
use crate::report::{
    DecidedSite, LeftSite, NotDecided, RenameRefusal, ServerDecisions, UndecidedBy,
};
use lancet_core::Root;
use std::collections::BTreeMap;

/// The server that decides a file's sites, by extension: its language (as the server table
/// names it) and its name as a refusal gives it.
fn server_of(path: &str) -> Option<(&'static str, &'static str)> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "py" | "pyi" => ("python", "basedpyright-langserver or pyright-langserver"),
        "ts" | "mts" | "cts" | "tsx" | "js" | "mjs" | "cjs" | "jsx" => {
            ("typescript", "typescript-language-server")
        }
        "rs" => ("rust", "rust-analyzer"),
        _ => return None,
    })
}

/// A server's name and the sites it is asked about (scan and occurrence indexes).
type ServerSites = (&'static str, Vec<(usize, usize)>);

/// What asking the servers came to: the sites each decided, and for each language whose
/// sites are still undecided, why its server did not decide them.
#[derive(Default)]
pub(super) struct Outcome {
    /// Per server asked, the sites it decided.
    pub(super) decided: Vec<ServerDecisions>,
    /// By language, why its server left sites undecided.
    why_not: BTreeMap<&'static str, UndecidedBy>,
}

impl Outcome {
    /// A refusal for undecided sites names the server of each of their languages and why it
    /// did not decide them.
    pub(super) fn name_servers(
        &self,
        refusal: &mut RenameRefusal,
        undecided: &[&LeftSite],
        opts: &RenameOptions,
    ) {
        if let RenameRefusal::Unresolved { servers, .. } = refusal {
            *servers = self.why_not(undecided, opts);
        }
    }

    /// Why the servers did not decide these sites, one per language.
    fn why_not(&self, undecided: &[&LeftSite], opts: &RenameOptions) -> Vec<UndecidedBy> {
        let mut out: BTreeMap<&str, UndecidedBy> = BTreeMap::new();
        for site in undecided {
            let Some((language, server)) = server_of(&site.path) else {
                continue;
            };
            out.entry(language).or_insert_with(|| {
                self.why_not.get(language).cloned().unwrap_or(UndecidedBy {
                    server: server.to_string(),
                    why: match &opts.servers {
                        None => NotDecided::Off,
                        // Not asked: only the sites a server could not have seen were left.
                        Some(_) => NotDecided::CouldNotTell,
                    },
                })
            });
        }
        out.into_values().collect()
    }
}

/// Asks the servers about the undecided sites (each site of `undecided` found among the
/// scans' occurrences), and sets each decided occurrence's resolution to the server's word.
pub(super) fn decide(
    root: &Root,
    scans: &mut [FileScan],
    undecided: &[LeftSite],
    chosen: &Chosen,
    opts: &RenameOptions,
) -> Outcome {
    let mut outcome = Outcome::default();
    let by_language = askable_by_language(scans, undecided);
    // Unless undecided sites are left by choice, one the servers cannot decide stops the
    // rename: the questions end there (on a large tree, seconds instead of the deadline).
    let stop_at_first = !opts.leave_unresolved;
    let mut stopped: Option<String> = None;
    for (language, (server, sites)) in by_language {
        let not = |why: NotDecided| UndecidedBy {
            server: server.to_string(),
            why,
        };
        let Some(lsp) = &opts.servers else {
            outcome.why_not.insert(language, not(NotDecided::Off));
            continue;
        };
        if let Some(at) = &stopped {
            outcome
                .why_not
                .insert(language, not(NotDecided::NotAsked(at.clone())));
            continue;
        }
        let go_on = |answer: &Answer| {
            !stop_at_first || verdict(scans, answer, chosen, opts, server).is_some()
        };
        let asked = match lsp.servers.for_language(language) {
            Some(Ok(_)) => ask(root, lsp, scans, &sites, go_on),
            Some(Err(why)) => Err(NotDecided::Missing(Some(why.clone()))),
            None => Err(NotDecided::Missing(None)),
        };
        let asked = match asked {
            Ok(asked) => asked,
            Err(why) => {
                if stop_at_first {
                    stopped = Some(place(scans, sites[0]));
                }
                outcome.why_not.insert(language, not(why));
                continue;
            }
        };
        let mut decisions = ServerDecisions {
            server: asked.server.clone(),
            version: asked.version.clone(),
            sites: Vec::new(),
            undecided: 0,
            unconfined: asked.unconfined.clone(),
        };
        let mut first_undecided = None;
        for (&(s, i), answer) in sites.iter().zip(&asked.answers) {
            let Some((resolution, definition)) =
                verdict(scans, answer, chosen, opts, &asked.server)
            else {
                decisions.undecided += 1;
                first_undecided.get_or_insert((s, i));
                continue;
            };
            let scan = &mut scans[s];
            let o = &mut scan.occurrences[i];
            decisions.sites.push(DecidedSite {
                path: scan.path.clone(),
                line: o.line,
                column: o.at - scan.starts[o.line - 1] + 1,
                renamed: chosen.renames(Some(&resolution), opts),
                definition,
            });
            o.resolution = Some(resolution);
        }
        let not_asked = sites.len() - asked.answers.len();
        if let Some(site) = first_undecided.filter(|_| stop_at_first) {
            stopped = Some(place(scans, site));
        }
        if not_asked > 0 {
            let why = NotDecided::Stopped {
                at: stopped.clone().unwrap_or_default(),
                not_asked,
            };
            outcome.why_not.insert(language, not(why));
        } else if decisions.undecided > 0 {
            outcome
                .why_not
                .insert(language, not(NotDecided::CouldNotTell));
        }
        outcome.decided.push(decisions);
    }
    outcome
}

/// By language, (scan, occurrence) of each undecided site a server can see: not in a doctest,
/// not a shorthand that is two names at once.
fn askable_by_language(
    scans: &[FileScan],
    undecided: &[LeftSite],
) -> BTreeMap<&'static str, ServerSites> {
    let mut by_language: BTreeMap<&'static str, ServerSites> = BTreeMap::new();
    for site in undecided {
        let Some((language, server)) = server_of(&site.path) else {
            continue;
        };
        let Some(found) = occurrence_of(scans, site) else {
            continue;
        };
        let o = &scans[found.0].occurrences[found.1];
        if o.doctest || o.field.is_some() {
            continue;
        }
        by_language
            .entry(language)
            .or_insert_with(|| (server, Vec::new()))
            .1
            .push(found);
    }
    by_language
}

/// A site as `path:line`, for the words.
fn place(scans: &[FileScan], (s, i): (usize, usize)) -> String {
    format!("{}:{}", scans[s].path, scans[s].occurrences[i].line)
}

/// One server's answers for the sites, in order; why not when it could not be asked.
fn ask(
    root: &Root,
    lsp: &Lsp,
    scans: &[FileScan],
    sites: &[(usize, usize)],
    go_on: impl FnMut(&Answer) -> bool,
) -> Result<lsp::Asked, NotDecided> {
    let questions: Vec<(String, usize)> = sites
        .iter()
        .map(|&(s, i)| (scans[s].path.clone(), scans[s].occurrences[i].at))
        .collect();
    lsp::ask_definitions(root, lsp, &questions, go_on).map_err(NotDecided::CannotAsk)
}

/// The scan and occurrence a listed site is.
fn occurrence_of(scans: &[FileScan], site: &LeftSite) -> Option<(usize, usize)> {
    let s = scans.iter().position(|s| s.path == site.path)?;
    let scan = &scans[s];
    let start = *scan.starts.get(site.line.checked_sub(1)?)?;
    let at = start + site.column - 1;
    let i = scan.occurrences.iter().position(|o| o.at == at)?;
    Some((s, i))
}

/// What a server's answer makes of a site: the chosen symbol (its definition is one of the
/// symbol's), another symbol or something outside the tree; `None` when the answer does not
/// decide it. With the place the server named, for the report.
fn verdict(
    scans: &[FileScan],
    answer: &Answer,
    chosen: &Chosen,
    opts: &RenameOptions,
    server: &str,
) -> Option<(Resolution, String)> {
    let Answer::Places(places) = answer else {
        return None;
    };
    let mut found: Vec<(Resolution, String)> = Vec::new();
    for place in places {
        found.push(match place {
            Place::Elsewhere(path) => (
                Resolution::Outside(format!(
                    "{server} finds its definition outside the tree ({path})"
                )),
                path.clone(),
            ),
            Place::Tree(path, offset) => {
                let scan = scans.iter().find(|s| &s.path == path)?;
                let o = scan.occurrences.iter().find(|o| o.at == *offset)?;
                match &o.resolution {
                    Some(r @ (Resolution::Symbol(_) | Resolution::Outside(_))) => {
                        (r.clone(), format!("{path}:{}", o.line))
                    }
                    _ => return None,
                }
            }
        });
    }
    let first = found.first()?;
    let renames = |r: &Resolution| chosen.renames(Some(r), opts);
    let agree = found.iter().all(|(r, _)| renames(r) == renames(&first.0))
        && (!renames(&first.0) || found.iter().all(|(r, _)| *r == first.0));
    agree.then(|| first.clone())
}
