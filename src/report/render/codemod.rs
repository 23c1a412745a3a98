//! A code mod in words: its refusals (a rule ast-grep rejects, a language without a grammar, a
//! rule that cannot rewrite, paths), and the line that says what it rewrote, rule by rule.

use crate::report::ModRefusal;
use crate::report::{ModSummary, Report, Status, Surface};
use lancet_core::kinds::ErrorKind;
use std::fmt::Write as _;

/// The summary line stays under this many characters however many rules there are.
const SUMMARY_CHARS: usize = 200;
/// At most this many skipped files are named.
const SKIPPED_NAMED: usize = 8;

impl Report {
    /// A mod that must not run: nothing is written.
    pub fn mod_refused(refusal: &ModRefusal, surface: Surface) -> Report {
        let (status, kind, detail, next) = words(refusal, surface);
        Report::batch_error(status, kind, detail, &next)
    }

    /// A mod whose rules matched nothing: nothing to write, which is not a failure (a rerun
    /// of a mod already made finds nothing), and not "already applied" either.
    pub fn mod_matched_nothing() -> Report {
        Report::note_only(
            Status::NothingMatched,
            "No site matched; nothing was written.",
        )
    }

    /// A command that changed nothing in its scratch copy: nothing to write.
    pub fn exec_changed_nothing() -> Report {
        Report::note_only(
            Status::NothingMatched,
            "The command changed nothing; nothing was written.",
        )
    }

    /// Attaches a mod's findings and puts its summary at the top of the message.
    pub fn with_mod(mut self, summary: ModSummary) -> Report {
        self.message = format!("{}\n{}", findings(&summary), self.message);
        self.codemod = Some(summary);
        self
    }
}

/// The summary line (sites, files, each rule's count while they fit) and the skipped files.
fn findings(summary: &ModSummary) -> String {
    if let Some(run) = &summary.exec {
        return format!(
            "Exec `{}` ({}, {:.1} s, in a scratch copy{}): {} file(s) changed.",
            run.command,
            match run.exit_code {
                Some(code) => format!("exit {code}"),
                None => "no exit code".into(),
            },
            run.duration_ms as f64 / 1000.0,
            if run.sandbox.is_some() {
                ", sandboxed"
            } else {
                ""
            },
            summary.files_changed
        );
    }
    let mut line = format!(
        "Mod: {} site(s) in {} file(s) ({} file(s) scanned, {} parsed)",
        summary.sites.len(),
        summary.files_changed,
        summary.files_scanned,
        summary.files_parsed
    );
    let mut named = 0;
    for (i, rule) in summary.rules.iter().enumerate() {
        let part = format!(
            "{} `{}` {}",
            if i == 0 { ":" } else { "," },
            rule.id,
            rule.sites
        );
        let rest = summary.rules.len() - i - 1;
        if line.len() + part.len() + if rest > 0 { 16 } else { 1 } > SUMMARY_CHARS {
            break;
        }
        line.push_str(&part);
        named += 1;
    }
    if named < summary.rules.len() {
        let _ = write!(line, " and {} more rule(s)", summary.rules.len() - named);
    }
    line.push('.');
    for why in summary.skipped_files.iter().take(SKIPPED_NAMED) {
        let _ = write!(line, "\nSkipped {why}");
    }
    if summary.skipped_files.len() > SKIPPED_NAMED {
        let _ = write!(
            line,
            "\nSkipped {} more file(s) (--json lists all)",
            summary.skipped_files.len() - SKIPPED_NAMED
        );
    }
    line
}

/// A pattern that is not code of its language: the grammar's error and, for a misreading,
/// what the pattern is on its own and what the code holds.
fn pattern_syntax(fault: &crate::report::PatternSyntax) -> String {
    let mut detail = format!(
        "{}: the pattern `{}` does not parse as {} code: {}",
        fault.source, fault.pattern, fault.language, fault.error
    );
    if let Some(m) = &fault.misread {
        let _ = write!(
            detail,
            "; on its own it reads as a {}, while such code in a program is a {}",
            m.alone, m.in_context
        );
    }
    detail.push_str(", so it would match nothing and the mod would report nothing to do");
    detail
}

/// A refusal's status, stable kind, detail and what to send next.
fn words(refusal: &ModRefusal, surface: Surface) -> (Status, ErrorKind, String, String) {
    match refusal {
        ModRefusal::Rule { source, detail } => (
            Status::Malformed,
            ErrorKind::Malformed,
            format!("{source}: {detail}"),
            "Fix the rule (ast-grep's YAML rule format: id, language, rule, constraints, transform, fix, utils) and run the mod again.".into(),
        ),
        ModRefusal::PatternSyntax(fault) => (
            Status::Malformed,
            ErrorKind::Malformed,
            pattern_syntax(fault),
            match &fault.misread {
                Some(m) => format!(
                    "Give the pattern its context in a rule file (ast-grep's pattern object): `pattern: {{context: '{}', selector: {}}}`.",
                    m.context, m.in_context
                ),
                None => format!(
                    "Write the pattern as {} code that parses on its own (`$A` for one node, `$$$A` for several), or give it its context in a rule file (`pattern: {{context: CODE, selector: KIND}}`).",
                    fault.language
                ),
            },
        ),
        ModRefusal::UnknownLanguage { lang, known } => (
            Status::Malformed,
            ErrorKind::UnknownLanguage,
            format!("no grammar for the language `{lang}`"),
            format!("Use one of: {}.", known.join(", ")),
        ),
        ModRefusal::NoFix { id } => (
            Status::Malformed,
            ErrorKind::Malformed,
            format!("rule `{id}` has no `fix`: it finds sites but says nothing to write"),
            "Add a fix to the rule (or use ast-grep scan to only list matches).".into(),
        ),
        ModRefusal::NothingToRun => (
            Status::Malformed,
            ErrorKind::Usage,
            "nothing to run".into(),
            format!(
                "Pass {} FILE.yml, or {} PATTERN {} REWRITE {} LANG.",
                surface.param("--rule"),
                surface.param("-p"),
                surface.param("-r"),
                surface.param("--lang")
            ),
        ),
        ModRefusal::PathOutside { error } => (
            Status::Refused,
            ErrorKind::UnsafePath,
            error.clone(),
            "Pass paths relative to the root, inside it.".into(),
        ),
        ModRefusal::PathMissing { path } => (
            Status::Refused,
            ErrorKind::Missing,
            format!("{path} does not exist under the root"),
            "Pass existing files or directories.".into(),
        ),
        ModRefusal::ExecFailed { run } => (
            Status::Refused,
            ErrorKind::ExecFailed,
            format!(
                "`{}` {} in the scratch copy, so nothing it changed is applied. Its output:\n{}",
                run.command,
                super::verify::why(run),
                run.output.trim_end()
            ),
            "Fix the command (or pass --accept-exit CODE when that exit code means success for it) and run the mod again.".into(),
        ),
        ModRefusal::ExecUnsupported { path, what } => (
            Status::Refused,
            ErrorKind::ExecFailed,
            format!("the command {what} {path}, which a batch cannot carry"),
            "Nothing was written. Make the command change only text files' content, create or delete files.".into(),
        ),
        ModRefusal::ExecNoSandbox { why } => (
            Status::Refused,
            ErrorKind::Sandbox,
            format!("--exec runs its command only in lancet's sandbox, which cannot be built here: {why}"),
            "Nothing was run. Run the mod where Landlock is available, and a user namespace, a cgroup v2 lancet may write or a readable /proc.".into(),
        ),
        ModRefusal::ExecScratch { error } => (
            Status::Error,
            ErrorKind::Io,
            format!("cannot make the scratch copy: {error}"),
            "Nothing was run or written. Free space in the temp directory (TMPDIR) and run the mod again.".into(),
        ),
    }
}
