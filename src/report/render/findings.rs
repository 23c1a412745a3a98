//! What a rename found, in words: the summary line (sites, files, definitions), and what it
//! left alone (mentions in strings and comments, sites it could not decide, sites that resolve
//! outside the tree, files it skipped). In full (each site with its text, the first
//! [`LISTED`]) or brief (`--brief`, MCP: each file once with the lines of its sites).

use super::left_why;
use crate::report::{LeftSite, Mention, RenameSummary, Surface};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many sites of each kind the full words list (`--json` has them all).
const LISTED: usize = 20;
/// The summary line stays under this many characters however many definitions there are.
const SUMMARY_CHARS: usize = 200;
/// Brief words: at most this many files per heading, and this many lines per file.
const BRIEF_FILES: usize = 8;
const BRIEF_LINES: usize = 5;

/// How much of what a rename left alone the words show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    /// Each site with its text, the first [`LISTED`] of each kind.
    Full,
    /// Each file once, with the lines of its sites (a handful are listed as in full);
    /// `unresolved: false` leaves the undecided sites out (a refusal for them lists them
    /// already).
    Brief { unresolved: bool },
}

/// The rename's findings: the summary line, then what was left alone.
pub(super) fn findings(summary: &RenameSummary, detail: Detail, surface: Surface) -> String {
    let mut msg = summary_line(summary);
    let left: Vec<&Mention> = summary.mentions.iter().filter(|m| !m.renamed).collect();
    if !left.is_empty() {
        let heading = format!(
            "Not renamed, in strings or comments ({}; pass {} / {} to rename them)",
            left.len(),
            surface.switch("--include-strings"),
            surface.switch("--include-comments")
        );
        let sites: Vec<Site> = left
            .iter()
            .map(|m| Site {
                path: &m.path,
                line: m.line,
                words: format!(" ({}): {}", m.context, m.text),
            })
            .collect();
        list(&mut msg, &heading, &sites, detail);
    }
    let unresolved: Vec<&LeftSite> = summary
        .unresolved
        .iter()
        .filter(|u| {
            !summary
                .renamed
                .iter()
                .any(|r| r.path == u.path && r.line == u.line && r.column == u.column)
        })
        .collect();
    if !unresolved.is_empty() && detail != (Detail::Brief { unresolved: false }) {
        let heading = format!(
            "Not renamed, unresolved (they may or may not be this symbol; pass {} to rename them too) ({})",
            surface.switch("--include-unresolved"),
            unresolved.len()
        );
        list(&mut msg, &heading, &left_sites(&unresolved), detail);
    }
    if !summary.outside.is_empty() {
        let outside: Vec<&LeftSite> = summary.outside.iter().collect();
        let heading = format!(
            "Not renamed, they resolve outside the tree (another package's or the language's own names) ({})",
            outside.len()
        );
        list(&mut msg, &heading, &left_sites(&outside), detail);
    }
    let skipped = match detail {
        Detail::Full => LISTED,
        Detail::Brief { .. } => BRIEF_FILES,
    };
    for why in summary.skipped_files.iter().take(skipped) {
        let _ = write!(msg, "\nSkipped {why}");
    }
    if summary.skipped_files.len() > skipped {
        let _ = write!(
            msg,
            "\nSkipped {} more file(s) (--json lists all)",
            summary.skipped_files.len() - skipped
        );
    }
    msg
}

/// What was renamed where, and every definition: on that line when they fit in
/// [`SUMMARY_CHARS`], else on one of their own.
fn summary_line(summary: &RenameSummary) -> String {
    let mut line = format!(
        "Rename `{}` -> `{}`: {} identifier site(s) in code, in {} file(s) ({} file(s) scanned, {} parsed).",
        summary.old,
        summary.new,
        summary.sites,
        summary.files_changed,
        summary.files_scanned,
        summary.files_parsed
    );
    let mut also = String::new();
    let doctests = summary.renamed.iter().filter(|s| s.doctest).count();
    if doctests > 0 {
        let _ = write!(also, " {doctests} site(s) in doctests.");
    }
    // The sites a language server decided rest on its word: say which server and version.
    for by in &summary.decided_by {
        let renamed = by.sites.iter().filter(|s| s.renamed).count();
        let _ = write!(
            also,
            " {} ({}) decided {} site(s) lancet could not: {renamed} the symbol, {} another{}.",
            by.server,
            by.version.as_deref().unwrap_or("version not reported"),
            by.sites.len(),
            by.sites.len() - renamed,
            if by.undecided > 0 {
                format!("; {} it could not tell either", by.undecided)
            } else {
                String::new()
            }
        );
        if let Some(why) = &by.unconfined {
            let _ = write!(also, " ({}.)", super::server_unconfined(why));
        }
    }
    let renamed = summary.mentions.iter().filter(|m| m.renamed).count();
    if renamed > 0 {
        let _ = write!(
            also,
            " Also renamed {renamed} mention(s) in strings/comments."
        );
    }
    // Every definition is named: on the summary line when they all fit in SUMMARY_CHARS,
    // else on a line of their own.
    let all: Vec<String> = summary
        .definitions
        .iter()
        .map(|d| format!("{} {}:{}", d.kind.name(), d.path, d.line))
        .collect();
    let inline = format!(" Defined at: {}.", all.join(", "));
    if all.is_empty() {
        line.push_str(&also);
    } else if line.len() + inline.len() + also.len() < SUMMARY_CHARS {
        line.push_str(&inline);
        line.push_str(&also);
    } else {
        let _ = write!(
            line,
            " Defined at {} place(s), listed below.{also}",
            all.len()
        );
        let shown: Vec<&str> = all.iter().take(LISTED).map(String::as_str).collect();
        let _ = write!(line, "\nDefinitions ({}): {}", all.len(), shown.join(", "));
        if all.len() > LISTED {
            let _ = write!(
                line,
                " ... and {} more (--json lists all)",
                all.len() - LISTED
            );
        }
    }
    line
}

/// A site left alone, as listed: where, and the words after its place.
struct Site<'a> {
    path: &'a str,
    line: usize,
    words: String,
}

fn left_sites<'a>(sites: &[&'a LeftSite]) -> Vec<Site<'a>> {
    sites
        .iter()
        .map(|s| Site {
            path: &s.path,
            line: s.line,
            words: format!(": {}  ({})", s.text, left_why(&s.why)),
        })
        .collect()
}

/// Sites under a heading: in full, each with its words (the first [`LISTED`]); brief, one line
/// per file with the lines of its sites (unless they are a handful).
fn list(msg: &mut String, heading: &str, sites: &[Site], detail: Detail) {
    let _ = write!(msg, "\n{heading}:");
    if detail == Detail::Full || sites.len() <= BRIEF_LINES {
        for s in sites.iter().take(LISTED) {
            let _ = write!(msg, "\n  {}:{}{}", s.path, s.line, s.words);
        }
        if sites.len() > LISTED {
            let _ = write!(
                msg,
                "\n  ... and {} more (--json lists all)",
                sites.len() - LISTED
            );
        }
        return;
    }
    let mut by_file: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for s in sites {
        by_file.entry(s.path).or_default().push(s.line);
    }
    for (path, lines) in by_file.iter().take(BRIEF_FILES) {
        let shown: Vec<String> = lines
            .iter()
            .take(BRIEF_LINES)
            .map(usize::to_string)
            .collect();
        let more = lines.len() - shown.len();
        let _ = write!(
            msg,
            "\n  {path}: line(s) {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    if by_file.len() > BRIEF_FILES {
        let _ = write!(
            msg,
            "\n  ... and {} more file(s) (--json lists all)",
            by_file.len() - BRIEF_FILES
        );
    }
}
