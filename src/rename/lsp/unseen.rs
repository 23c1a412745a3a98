//! What a language server's rename does not reach but the program runs. The Rust sites a
//! server does not read as code but `cargo test` compiles: the doctests (```` ``` ```` blocks of
//! doc comments) and the bodies of `macro_rules!` (tokens until a call expands them).
//! rust-analyzer's rename leaves both, and its answer alone would leave `cargo test --doc` or a
//! macro's expansion failing with exit 0. lancet's own resolver decides them (as a rename
//! without `--lsp` does), and what it cannot decide stops the rename, listed; the server is
//! asked about the rest. Python's doctests (a docstring's `>>>` lines, which `python -m doctest`
//! and `pytest --doctest-modules` run) are the same to basedpyright and pyright, and are
//! decided the same way. And the mentions of the name in strings and comments, which no
//! server's rename touches: listed and renamed as lancet's own rename lists and renames them
//! (in the symbol's scope), a Python string that names an attribute (`getattr(p, "x")`,
//! `__slots__`) stopping the rename as it stops lancet's, unless renamed (`--include-strings`)
//! or left (`--leave-unresolved`). One scan of the symbol's language serves both.

use super::FileEdits;
use crate::apply_options::ApplyOptions;
use crate::rename::at::At;
use crate::rename::choose::choose;
use crate::rename::included_docs::IncludedDoc;
use crate::rename::model::{Chosen, FileScan, RenameOptions};
use crate::rename::named_by_string::named_by_string_refusal;
use crate::rename::overrides::outside_override_refusal;
use crate::rename::refusal::{ecma_special_member, left_where_tests_run, undecided_sites};
use crate::rename::registry::{OutsideReaches, resolve_all_then};
use crate::rename::scan::{renameable_languages, scan_all, walk};
use crate::rename::scope::keep_mentions_in_scope;
use crate::rename::{complete_summary, finish_scan, summarise};
use crate::report::Report;
use crate::report::{LeftSite, LeftWhy, Mention, NotDecided, RenameRefusal, RenameSummary};
use crate::report::{UndecidedBy, UnlookedSite};
use lancet_core::{MAX_LISTED, Root};
use std::collections::{BTreeSet, HashSet};

/// What lancet renames where the server does not look, beside the server's own answer.
#[derive(Default)]
pub(super) struct Unseen {
    /// Per file, lancet's spans at those sites.
    pub(super) files: FileEdits,
    /// The renamed sites in doctests, by (path, byte offset): the report marks them.
    pub(super) doctest: BTreeSet<(String, usize)>,
}

/// The mentions of the name in strings and comments, as lancet's own rename lists and renames
/// them, beside the server's edits (which never touch them).
#[derive(Default)]
pub(super) struct Mentions {
    /// Per file, lancet's spans at the mentions renamed (`--include-strings`,
    /// `--include-comments`).
    pub(super) files: FileEdits,
    /// Every mention, renamed or left, as the report lists them.
    pub(super) listed: Vec<Mention>,
}

impl Mentions {
    /// Marks renamed each mention the server's edits (`files`) reach: a TypeScript `o["kind"]`,
    /// a Python `__slots__` string, renamed whatever lancet's own scan would have done.
    pub(super) fn mark_renamed_by(&mut self, files: &FileEdits) {
        for m in self.listed.iter_mut().filter(|m| !m.renamed) {
            m.renamed = files
                .get(&m.path)
                .is_some_and(|(_, _, spans)| spans.iter().any(|s| s.start == m.at));
        }
    }
}

/// lancet's own scan of the name at `at` beside a server's rename, made once and read twice: for
/// the mentions before the server is asked ([`mentions`]) and for the sites the server
/// does not look at after ([`sites_unseen`]). Resolved, and the symbol at `at` chosen, as
/// lancet's own rename does, so that mentions are kept to the symbol's scope as there.
pub(super) struct OwnScan {
    /// The scan's options: the rename's, for the name at `at` in the symbol's language (`lang`).
    opts: RenameOptions,
    /// What the scan found, mentions kept to the chosen symbol's scope.
    summary: RenameSummary,
    /// The parsed files, resolved.
    scans: Vec<FileScan>,
    /// The symbol at `at`, or `None` where lancet cannot tell which symbol `--at` names.
    chosen: Option<Chosen>,
    /// The Markdown the language's files include as documentation (Rust's).
    included_docs: Vec<IncludedDoc>,
    /// The walked files.
    files: Vec<String>,
    /// The members found that code outside the tree may reach by their name.
    outside_reaches: OutsideReaches,
}

impl OwnScan {
    /// The scan of the tree's files of `language` for the name at `at`, with the mentions
    /// renamed as `opts`'s `--include-strings` and `--include-comments` say.
    fn of(
        root: &Root,
        at: &At,
        language: &str,
        opts: &RenameOptions,
        apply: &ApplyOptions,
    ) -> Result<OwnScan, Box<Report>> {
        let opts = own_scan(opts, at, language);
        let (files, unwalkable) = walk(root, &opts, apply)?;
        let (outcomes, included_docs) = scan_all(root, &files, &opts, apply);
        let (mut summary, scans) = summarise(&opts, unwalkable, outcomes);
        let (mut scans, outside_reaches) = resolve_all_then(
            root,
            &files,
            scans,
            &opts.old,
            |scans, symbols, resolvers| {
                let names = (opts.old.as_str(), opts.new.as_str());
                (scans, resolvers.reached_from_outside(&symbols, names))
            },
        );
        let chosen = choose(&scans, Some(at), None, apply.surface).ok();
        if let Some(chosen) = &chosen {
            keep_mentions_in_scope(&mut scans, &mut summary, chosen);
        }
        Ok(OwnScan {
            opts,
            summary,
            scans,
            chosen,
            included_docs,
            files,
            outside_reaches,
        })
    }

    /// The same scan with no mention renamed: as a scan without `--include-strings` and
    /// `--include-comments` finds it (those flags decide nothing else a scan finds).
    fn mentions_left(mut self) -> OwnScan {
        for scan in &mut self.scans {
            scan.mention_spans.clear();
            scan.mentions.iter_mut().for_each(|m| m.renamed = false);
        }
        self.summary
            .mentions
            .iter_mut()
            .for_each(|m| m.renamed = false);
        self
    }
}

/// Beside the server's rename of a symbol in a language lancet renames in (`language`, the
/// symbol's): lancet's own scan of the name in that language's files, and the mentions it finds
/// ([`mentions`]); for another language, neither.
pub(super) fn own_scan_beside(
    root: &Root,
    at: &At,
    language: Option<&str>,
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> Result<(Option<OwnScan>, Mentions), Box<Report>> {
    let Some(language) = language.filter(|l| renameable_languages().contains(l)) else {
        return Ok((None, Mentions::default()));
    };
    let scan = OwnScan::of(root, at, language, opts, apply)?;
    // The server renames none of what lancet's own rename refuses to leave either: a README's
    // or a pytest text file's examples, a doctest's expected output, a mapping unpacked into a
    // call; nor does it weigh an override of a base outside the tree, or a member name
    // JavaScript calls itself.
    let chosen = scan.chosen.as_ref().unwrap_or(&Chosen::All);
    let tree = (root, scan.files.as_slice(), scan.included_docs.as_slice());
    let languages = HashSet::from([language]);
    let outside = (&scan.outside_reaches, scan.scans.as_slice());
    if let Some(refusal) = ecma_special_member(&scan.scans, &scan.opts, chosen)
        .or_else(|| outside_override_refusal(outside, &scan.opts, chosen))
        .or_else(|| left_where_tests_run(tree, &scan.scans, &scan.opts, chosen, &languages))
    {
        return Err(Box::new(Report::rename_refused(&refusal, apply.surface)));
    }
    let mentions = mentions(&scan, apply)?;
    Ok((Some(scan), mentions))
}

/// The strings and comments of the `scan`'s files that hold the name, in the symbol's scope:
/// listed, and renamed as `--include-strings` and `--include-comments` say. A Python string
/// Python reads as the attribute's name (`getattr(p, "x")`, `__slots__`, …), which the
/// server's rename leaves as lancet's own would, refuses the rename, listed, unless it is
/// renamed or `--leave-unresolved` leaves it.
fn mentions(scan: &OwnScan, apply: &ApplyOptions) -> Result<Mentions, Box<Report>> {
    if let Some(refusal) = named_by_string_refusal(&scan.opts, &scan.scans) {
        return Err(Box::new(Report::rename_refused(&refusal, apply.surface)));
    }
    let mut mentions = Mentions {
        listed: scan.summary.mentions.clone(),
        ..Mentions::default()
    };
    for scan in scan.scans.iter().filter(|s| !s.mention_spans.is_empty()) {
        mentions.files.insert(
            scan.path.clone(),
            (
                scan.sha256.clone(),
                scan.parsed.text.clone(),
                scan.mention_spans.clone(),
            ),
        );
    }
    Ok(mentions)
}

/// The options of lancet's own scan of `language` beside a server's rename: of the name at `at`,
/// with no server asked.
fn own_scan(opts: &RenameOptions, at: &At, language: &str) -> RenameOptions {
    RenameOptions {
        old: at.name.clone(),
        lang: Some(language.into()),
        lsp: None,
        servers: None,
        ..opts.clone()
    }
}

/// Where a language's server does not look though the program runs it: the sites lancet decides
/// itself beside the server's rename.
struct Blind {
    /// Its servers, as the words name them.
    server: &'static str,
    /// The sites they leave, in words.
    sites: &'static str,
    /// Whether `macro_rules!` bodies are among them.
    macro_bodies: bool,
}

/// rust-analyzer leaves doctests (`cargo test --doc`) and `macro_rules!` bodies.
const RUST: Blind = Blind {
    server: "rust-analyzer",
    sites: "doctests or `macro_rules!` bodies",
    macro_bodies: true,
};

/// basedpyright and pyright leave a docstring's doctests (`>>>` lines, run by `python -m doctest`
/// and `pytest --doctest-modules`).
const PYTHON: Blind = Blind {
    server: "basedpyright or pyright",
    sites: "doctests",
    macro_bodies: false,
};

/// typescript-language-server leaves strings the compiler reads as names (`Pick<Op, "path">`).
const ECMA: Blind = Blind {
    server: "typescript-language-server",
    sites: "strings read as names",
    macro_bodies: false,
};

/// Where the servers of `language` do not look.
fn blind_of(language: &str) -> &'static Blind {
    match language {
        "rust" => &RUST,
        "python" => &PYTHON,
        _ => &ECMA,
    }
}

/// Why a site the server does not look at (`site`) was left: lancet could not decide it either
/// (`then`).
fn not_the_servers(blind: &Blind, site: UnlookedSite, then: LeftWhy) -> LeftWhy {
    LeftWhy::Unlooked {
        server: blind.server.to_string(),
        site,
        then: Box::new(then),
    }
}

/// Where the occurrence at `at` stands that the server does not look at, if it does.
fn unlooked(blind: &Blind, scan: &FileScan, at: usize, len: usize) -> Option<UnlookedSite> {
    let occurrence = scan.occurrences.iter().find(|o| o.at == at)?;
    if occurrence.doctest {
        Some(UnlookedSite::Doctest)
    } else if blind.macro_bodies && within(scan, at, len, &["macro_definition"]) {
        Some(UnlookedSite::MacroBody)
    } else if within(
        scan,
        at,
        len,
        &["string_literal", "string", "template_string"],
    ) {
        Some(UnlookedSite::String)
    } else {
        None
    }
}

/// lancet's decisions on the sites of the symbol at `at` its server (`server`) does not look at
/// (Rust's doctests and `macro_rules!` bodies, Python's doctests, every language's strings read
/// as code), beside the `by_server` edits of the server's rename. Sites it cannot decide refuse
/// the rename, listed, and so do the sites lancet's resolver reads as the symbol and the server
/// leaves (the two disagree, and lancet does not pick one), unless `--include-unresolved`
/// (renamed) or `--leave-unresolved` (left) says otherwise. `scan` is lancet's own scan of the
/// symbol's language (none where lancet renames nothing in it).
pub(super) fn sites_unseen(
    scan: Option<OwnScan>,
    apply: &ApplyOptions,
    (server, by_server): (&str, &FileEdits),
) -> Result<Unseen, Box<Report>> {
    let Some(own) = scan else {
        return Ok(Unseen::default());
    };
    let blind = blind_of(own.opts.lang.as_deref().unwrap_or_default());
    let opts = RenameOptions {
        include_strings: false,
        include_comments: false,
        ..own.opts.clone()
    };
    let OwnScan {
        mut summary,
        mut scans,
        chosen,
        ..
    } = own.mentions_left();
    let len = opts.old.len();
    let edited_by_server: usize = by_server.values().map(|(_, _, s)| s.len()).sum();
    let Some(chosen) = chosen else {
        let undecided = every_unlooked_site(blind, &scans, len);
        return if undecided.is_empty() || opts.leave_unresolved {
            Ok(Unseen::default())
        } else {
            let servers = vec![not_its_sites(blind)];
            Err(refused(
                &opts,
                summary,
                edited_by_server,
                undecided,
                servers,
                apply,
            ))
        };
    };
    for scan in &mut scans {
        finish_scan(scan, &chosen, &opts, false);
    }
    complete_summary(&mut summary, &scans, &chosen, &opts);
    let (unseen, disagreed) = beside_the_server(blind, &scans, &opts, (server, by_server));
    if opts.include_unresolved || opts.leave_unresolved {
        return Ok(unseen);
    }
    let undecided: Vec<LeftSite> = undecided_sites(&summary, &scans, &chosen, &opts.old)
        .into_iter()
        .filter_map(|site| {
            let scan = scans.iter().find(|s| s.path == site.path)?;
            let at = scan.starts.get(site.line - 1)? + site.column - 1;
            let kind = unlooked(blind, scan, at, len)?;
            Some(scan.left_at(at, not_the_servers(blind, kind, site.why.clone())))
        })
        .collect();
    let mut servers = Vec::new();
    if !undecided.is_empty() {
        servers.push(not_its_sites(blind));
    }
    if !disagreed.is_empty() {
        servers.push(UndecidedBy {
            server: server.to_string(),
            why: NotDecided::LeftThem,
        });
    }
    if servers.is_empty() {
        return Ok(unseen);
    }
    let decided = edited_by_server
        + unseen
            .files
            .values()
            .map(|(_, _, s)| s.len())
            .sum::<usize>();
    let left_sites = undecided.into_iter().chain(disagreed).collect();
    Err(refused(&opts, summary, decided, left_sites, servers, apply))
}

/// lancet's spans in `scans` set beside the server's edits (`by_server`): those at sites the
/// server does not look at, to rename (with the doctests marked), and the sites lancet's
/// resolver reads as the symbol where the server's rename leaves them (renamed too under
/// `--include-unresolved`; otherwise listed, as the two disagree).
fn beside_the_server(
    blind: &Blind,
    scans: &[FileScan],
    opts: &RenameOptions,
    (server, by_server): (&str, &FileEdits),
) -> (Unseen, Vec<LeftSite>) {
    let len = opts.old.len();
    let mut unseen = Unseen::default();
    let mut disagreed = Vec::new();
    for scan in scans {
        let edited = by_server
            .get(&scan.path)
            .map_or(&[][..], |(_, _, s)| s.as_slice());
        let covered = |start: usize| {
            edited
                .iter()
                .any(|e| e.start <= start + len && start <= e.end)
        };
        let mut spans = Vec::new();
        for s in &scan.spans {
            match unlooked(blind, scan, s.start, len) {
                Some(kind) => {
                    if kind == UnlookedSite::Doctest {
                        unseen.doctest.insert((scan.path.clone(), s.start));
                    }
                    spans.push(s.clone());
                }
                None if covered(s.start) => {}
                None if opts.include_unresolved => spans.push(s.clone()),
                None => disagreed.push(scan.left_at(
                    s.start,
                    LeftWhy::ServerLeaves {
                        server: server.to_string(),
                        old: opts.old.clone(),
                    },
                )),
            }
        }
        if !spans.is_empty() {
            unseen.files.insert(
                scan.path.clone(),
                (scan.sha256.clone(), scan.parsed.text.clone(), spans),
            );
        }
    }
    (unseen, disagreed)
}

/// Every site in `scans` the server does not look at, undecided: lancet cannot tell which symbol
/// `--at` names.
fn every_unlooked_site(blind: &Blind, scans: &[FileScan], len: usize) -> Vec<LeftSite> {
    scans
        .iter()
        .flat_map(|scan| {
            scan.occurrences.iter().filter_map(move |o| {
                let kind = unlooked(blind, scan, o.at, len)?;
                Some(scan.left_at(o.at, not_the_servers(blind, kind, LeftWhy::AtUntold)))
            })
        })
        .collect()
}

/// What the servers of a language do not rename, for a refusal over such sites.
fn not_its_sites(blind: &Blind) -> UndecidedBy {
    UndecidedBy {
        server: blind.server.into(),
        why: NotDecided::NotItsSites(blind.sites.into()),
    }
}

/// The refusal for unseen sites lancet could not decide, with what the scan found (nothing
/// renamed; the undecided sites listed).
fn refused(
    opts: &RenameOptions,
    mut summary: RenameSummary,
    decided: usize,
    undecided: Vec<LeftSite>,
    servers: Vec<UndecidedBy>,
    apply: &ApplyOptions,
) -> Box<Report> {
    summary.renamed.clear();
    summary.sites = 0;
    summary.files_changed = 0;
    summary.decided_by.clear();
    summary.unresolved = undecided.clone();
    let refusal = RenameRefusal::Unresolved {
        old: opts.old.clone(),
        decided,
        total: undecided.len(),
        listed: undecided.into_iter().take(MAX_LISTED).collect(),
        at: true,
        servers,
    };
    Box::new(Report::rename_refused(&refusal, apply.surface).with_rename(summary, apply.surface))
}

/// Whether the occurrence at `at` stands in a node of one of `kinds`.
fn within(scan: &FileScan, at: usize, len: usize, kinds: &[&str]) -> bool {
    let Some(mut node) = scan
        .parsed
        .tree
        .root_node()
        .descendant_for_byte_range(at, at + len)
    else {
        return false;
    };
    while let Some(parent) = node.parent() {
        if kinds.contains(&parent.kind()) {
            return true;
        }
        node = parent;
    }
    false
}
