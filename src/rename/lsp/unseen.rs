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
use crate::rename::model::{Chosen, FileScan, RenameOptions};
use crate::rename::named_by_string::named_by_string_refusal;
use crate::rename::refusal::undecided_sites;
use crate::rename::registry::resolve_all;
use crate::rename::scan::{line_text, renameable_languages, scan_all, walk};
use crate::rename::scope::keep_mentions_in_scope;
use crate::rename::{complete_summary, finish_scan, summarise};
use crate::report::Report;
use crate::report::{LeftSite, Mention, NotDecided, RenameRefusal, RenameSummary, UndecidedBy};
use lancet_core::{MAX_LISTED, Root};
use std::collections::BTreeSet;

/// What lancet renames where the server does not look, beside the server's own answer.
#[derive(Default)]
pub(super) struct Unseen {
    /// Per file, lancet's spans at those sites.
    pub(super) files: FileEdits,
    /// The renamed sites in doctests, by (path, byte offset): the report marks them.
    pub(super) doctest: BTreeSet<(String, usize)>,
}

/// The mentions of the name in a Python rename's strings and comments, as lancet's own rename
/// lists and renames them, beside the server's edits (which never touch them).
#[derive(Default)]
pub(super) struct Mentions {
    /// Per file, lancet's spans at the mentions renamed (`--include-strings`,
    /// `--include-comments`).
    pub(super) files: FileEdits,
    /// Every mention, renamed or left, as the report lists them.
    pub(super) listed: Vec<Mention>,
}

/// lancet's own scan of the name at `at` beside a server's rename, made once and read twice: for
/// the mentions before the server is asked ([`python_mentions`]) and for the sites the server
/// does not look at after ([`sites_unseen`]). Resolved, and the symbol at `at` chosen, as
/// lancet's own rename does, so that mentions are kept to the symbol's scope as there.
pub(super) struct OwnScan {
    /// The language scanned: the symbol's.
    language: String,
    /// What the scan found, mentions kept to the chosen symbol's scope.
    summary: RenameSummary,
    /// The parsed files, resolved.
    scans: Vec<FileScan>,
    /// The symbol at `at`, or `None` where lancet cannot tell which symbol `--at` names.
    chosen: Option<Chosen>,
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
        let (mut summary, mut scans) =
            summarise(&opts, unwalkable, scan_all(root, &files, &opts, apply));
        resolve_all(root, &files, &mut scans, &opts.old);
        let chosen = choose(&scans, Some(at), None, apply.surface).ok();
        if let Some(chosen) = &chosen {
            keep_mentions_in_scope(&mut scans, &mut summary, chosen);
        }
        Ok(OwnScan {
            language: language.to_string(),
            summary,
            scans,
            chosen,
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
    let mentions = mentions(&scan, at, opts, apply)?;
    Ok((Some(scan), mentions))
}

/// The strings and comments of the `scan`'s files that hold the name, in the symbol's scope:
/// listed, and renamed as `--include-strings` and `--include-comments` say. A Python string
/// Python reads as the attribute's name (`getattr(p, "x")`, `__slots__`, …), which the
/// server's rename leaves as lancet's own would, refuses the rename, listed, unless it is
/// renamed or `--leave-unresolved` leaves it.
fn mentions(
    scan: &OwnScan,
    at: &At,
    opts: &RenameOptions,
    apply: &ApplyOptions,
) -> Result<Mentions, Box<Report>> {
    let opts = own_scan(opts, at, &scan.language);
    if let Some(refusal) = named_by_string_refusal(&opts, &scan.scans) {
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
    /// The language, as lancet's scan names it.
    language: &'static str,
    /// Its servers, as the words name them.
    server: &'static str,
    /// The sites they leave, in words.
    sites: &'static str,
    /// Whether `macro_rules!` bodies are among them.
    macro_bodies: bool,
}

/// rust-analyzer leaves doctests (`cargo test --doc`) and `macro_rules!` bodies.
const RUST: Blind = Blind {
    language: "rust",
    server: "rust-analyzer",
    sites: "doctests or `macro_rules!` bodies",
    macro_bodies: true,
};

/// basedpyright and pyright leave a docstring's doctests (`>>>` lines, run by `python -m doctest`
/// and `pytest --doctest-modules`).
const PYTHON: Blind = Blind {
    language: "python",
    server: "basedpyright or pyright",
    sites: "doctests",
    macro_bodies: false,
};

/// Why such a site was left to lancet, before what lancet found of it.
fn not_the_servers(blind: &Blind, doctest: bool) -> String {
    let server = blind.server;
    if doctest {
        format!("in a doctest, which {server} does not rename")
    } else {
        format!("in a `macro_rules!` body, which {server} does not rename")
    }
}

/// lancet's decisions on the sites of the symbol at `at` its server does not look at (Rust's
/// doctests and `macro_rules!` bodies, Python's doctests; for other languages, nothing), beside
/// the `by_server` sites the server's rename edits. Sites it cannot decide refuse the rename,
/// listed, unless `--include-unresolved` (renamed) or `--leave-unresolved` (left) says
/// otherwise. `scan` is the scan the mentions were found in, if any.
pub(super) fn sites_unseen(
    root: &Root,
    at: &At,
    scan: Option<OwnScan>,
    opts: &RenameOptions,
    apply: &ApplyOptions,
    by_server: usize,
) -> Result<Unseen, Box<Report>> {
    let blind = match scan.as_ref().map(|s| s.language.as_str()) {
        _ if at.path.ends_with(".rs") => &RUST,
        Some(language) if language == PYTHON.language => &PYTHON,
        _ => return Ok(Unseen::default()),
    };
    let opts = RenameOptions {
        include_strings: false,
        include_comments: false,
        ..own_scan(opts, at, blind.language)
    };
    let own = match scan {
        Some(scan) if scan.language == blind.language => scan.mentions_left(),
        _ => OwnScan::of(root, at, blind.language, &opts, apply)?,
    };
    let OwnScan {
        mut summary,
        mut scans,
        chosen,
        ..
    } = own;
    let unseen_at = |scan: &FileScan, at: usize| {
        scan.occurrences
            .iter()
            .find(|o| o.at == at)
            .map(|o| o.doctest || (blind.macro_bodies && in_macro_rules(scan, at, opts.old.len())))
    };
    let Some(chosen) = chosen else {
        // lancet cannot tell which symbol `--at` names: every unseen site is undecided.
        let undecided: Vec<LeftSite> = scans
            .iter()
            .flat_map(|scan| {
                scan.occurrences
                    .iter()
                    .filter(|o| unseen_at(scan, o.at) == Some(true))
                    .map(move |o| {
                        left(
                            blind,
                            scan,
                            o.at,
                            "lancet cannot tell which symbol --at names",
                        )
                    })
            })
            .collect();
        return if undecided.is_empty() || opts.leave_unresolved {
            Ok(Unseen::default())
        } else {
            Err(refused(blind, &opts, summary, by_server, undecided, apply))
        };
    };
    for scan in &mut scans {
        finish_scan(scan, &chosen, &opts, false);
    }
    complete_summary(&mut summary, &scans, &chosen, &opts);
    let mut unseen = Unseen::default();
    for scan in &scans {
        let spans: Vec<_> = scan
            .spans
            .iter()
            .filter(|s| unseen_at(scan, s.start) == Some(true))
            .cloned()
            .collect();
        for s in &spans {
            if scan
                .occurrences
                .iter()
                .any(|o| o.at == s.start && o.doctest)
            {
                unseen.doctest.insert((scan.path.clone(), s.start));
            }
        }
        if !spans.is_empty() {
            unseen.files.insert(
                scan.path.clone(),
                (scan.sha256.clone(), scan.parsed.text.clone(), spans),
            );
        }
    }
    if opts.include_unresolved || opts.leave_unresolved {
        return Ok(unseen);
    }
    let undecided: Vec<LeftSite> = undecided_sites(&summary, &scans, &chosen, &opts.old)
        .into_iter()
        .filter_map(|site| {
            let scan = scans.iter().find(|s| s.path == site.path)?;
            let at = scan.starts.get(site.line - 1)? + site.column - 1;
            (unseen_at(scan, at) == Some(true)).then(|| left(blind, scan, at, &site.why))
        })
        .collect();
    if undecided.is_empty() {
        return Ok(unseen);
    }
    let decided = by_server
        + unseen
            .files
            .values()
            .map(|(_, _, s)| s.len())
            .sum::<usize>();
    Err(refused(blind, &opts, summary, decided, undecided, apply))
}

/// The refusal for unseen sites lancet could not decide, with what the scan found (nothing
/// renamed; the undecided sites listed).
fn refused(
    blind: &Blind,
    opts: &RenameOptions,
    mut summary: RenameSummary,
    decided: usize,
    undecided: Vec<LeftSite>,
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
        servers: vec![UndecidedBy {
            server: blind.server.into(),
            why: NotDecided::NotItsSites(blind.sites.into()),
        }],
    };
    Box::new(Report::rename_refused(&refusal, apply.surface).with_rename(summary, apply.surface))
}

/// A site lancet leaves undecided, with why the server was not asked and why lancet could not
/// decide it.
fn left(blind: &Blind, scan: &FileScan, at: usize, why: &str) -> LeftSite {
    let doctest = scan.occurrences.iter().any(|o| o.at == at && o.doctest);
    let line = lancet_core::line_of(&scan.starts, at);
    LeftSite {
        path: scan.path.clone(),
        line,
        column: at - scan.starts[line - 1] + 1,
        text: line_text(&scan.parsed.text, &scan.starts, line),
        why: format!("{}; {why}", not_the_servers(blind, doctest)),
    }
}

/// Whether the occurrence at `at` stands in a `macro_rules!` definition.
fn in_macro_rules(scan: &FileScan, at: usize, len: usize) -> bool {
    let Some(mut node) = scan
        .parsed
        .tree
        .root_node()
        .descendant_for_byte_range(at, at + len)
    else {
        return false;
    };
    while let Some(parent) = node.parent() {
        if parent.kind() == "macro_definition" {
            return true;
        }
        node = parent;
    }
    false
}
