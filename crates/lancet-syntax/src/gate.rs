//! Running the gate over a batch: each file parsed in parallel, judged by a precise parser or
//! tree-sitter, its errors split into new and pre-existing, compiler checks run after.

use crate::external::{compile_checks, external_check, external_command, tool_installed};
use crate::introduced::TREE_SITTER;
use crate::introduced::{classify, classify_by};
use crate::job::Job;
use crate::languages::{self, LanguageEntry, grammar, language_for};
use crate::mended::mended;
use crate::options::GateOptions;
use crate::parse::parse_errors;
use crate::readable::readable;
use crate::site::Site;
use crate::{precise, trees};
use lancet_core::digest;
use lancet_core::{SyntaxError, SyntaxReport};
use rayon::prelude::*;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tree_sitter::Parser;

/// How long the gate may take: one deadline for a whole batch (a file not judged by then
/// refuses it), or a budget for each file (`lancet check`: a file over it is unchecked).
#[derive(Clone, Copy)]
pub(crate) enum Until {
    Batch(Instant),
    EachFile(Duration),
}

impl Until {
    /// When a parse starting now must stop.
    fn deadline(self) -> Instant {
        match self {
            Until::Batch(at) => at,
            Until::EachFile(budget) => Instant::now() + budget,
        }
    }

    /// Whether a batch's time is up, so no further file may be started.
    fn passed(self) -> bool {
        matches!(self, Until::Batch(at) if Instant::now() >= at)
    }
}

enum Verdict {
    /// Parsed: the language, new errors, pre-existing errors, and whether the language's
    /// compiler check is still to run on this file tree-sitter found clean (run in batches after
    /// the parallel pass).
    Checked(
        &'static LanguageEntry,
        Vec<SyntaxError>,
        Vec<SyntaxError>,
        bool,
    ),
    Unchecked(String),
    /// Not judged: the time was up before the file's parse began or ended.
    OutOfTime,
}

pub(crate) fn run(jobs: &[Job], opts: &GateOptions, until: Until) -> SyntaxReport {
    // One file: no thread pool is worth starting for it.
    let verdicts: Vec<(usize, Verdict)> = if jobs.len() < 2 {
        let mut parsers = HashMap::new();
        jobs.iter()
            .enumerate()
            .map(|(i, job)| (i, check_file(job, &mut parsers, opts, until)))
            .collect()
    } else {
        let parse_all = || {
            jobs.par_iter()
                .enumerate()
                .map_init(HashMap::new, |parsers, (i, job)| {
                    (i, check_file(job, parsers, opts, until))
                })
                .collect()
        };
        match precise::parser_pool() {
            Some(pool) => pool.install(parse_all),
            None => parse_all(),
        }
    };
    let mut report = SyntaxReport::default();
    let mut pending: HashMap<&'static str, (&'static LanguageEntry, Vec<&Job>)> = HashMap::new();
    for (i, verdict) in verdicts {
        match verdict {
            Verdict::Checked(language, new, old, compile) => {
                let name = language_name(language);
                report.checked.push(format!("{} ({name})", jobs[i].path));
                report.errors.extend(new);
                report.preexisting.extend(old);
                if compile {
                    pending
                        .entry(name)
                        .or_insert_with(|| (language, Vec::new()))
                        .1
                        .push(&jobs[i]);
                }
            }
            Verdict::Unchecked(why) => report.unchecked.push(format!("{} ({why})", jobs[i].path)),
            Verdict::OutOfTime => match until {
                Until::Batch(_) => report.unjudged.push(jobs[i].path.to_string()),
                Until::EachFile(budget) => report.unchecked.push(format!(
                    "{} (parse gave up after {}s)",
                    jobs[i].path,
                    budget.as_secs()
                )),
            },
        }
    }
    for (language, jobs) in pending.into_values() {
        for (new, error) in compile_checks(language, &jobs) {
            if new {
                report.errors.push(error);
            } else {
                report.preexisting.push(error);
            }
        }
    }
    if !opts.external.is_empty() {
        let missing: Vec<&str> = languages::languages()
            .iter()
            .filter(|l| opts.external_for(&l.name))
            .filter(|l| {
                report
                    .checked
                    .iter()
                    .any(|c| c.ends_with(&format!("({})", l.name)))
            })
            .filter_map(|l| l.check.as_ref())
            .filter_map(|c| c.first().map(String::as_str))
            .filter(|tool| !tool_installed(tool))
            .collect();
        for tool in missing {
            report.notes.push(format!(
                "{tool} is not installed: its extra check was skipped"
            ));
        }
        if let Err(why) = lancet_process::available() {
            report.notes.push(format!(
                "the extra checks (gate.external) were skipped: {why}"
            ));
        }
    }
    report.notes.sort();
    report.notes.dedup();
    report
}

/// A file's verdict, with errors the file's language cannot back reported unchecked instead:
/// the gate never refuses valid code.
fn check_file(
    job: &Job,
    parsers: &mut HashMap<&'static str, Parser>,
    opts: &GateOptions,
    until: Until,
) -> Verdict {
    match judge_file(job, parsers, opts, until) {
        Verdict::Checked(language, new, old, compile) if !new.is_empty() => {
            let tree_sitter = new.iter().all(|e| e.checker == TREE_SITTER);
            if language.name != "html" && holds_template_tags(job.after) {
                return Verdict::Unchecked(format!(
                    "template syntax ({{% %}} or <% %>): not checked as plain {}",
                    language.name
                ));
            }
            match &language.unconfirmed {
                Some(why) if tree_sitter && external_command(language, opts).is_none() => {
                    let first = &new[0];
                    Verdict::Unchecked(format!(
                        "tree-sitter flags line {}:{}, but {why}: not judged (gate.external = [\"{}\"] has the language's own check judge it, where it has one)",
                        first.line, first.column, language.name
                    ))
                }
                _ => Verdict::Checked(language, new, old, compile),
            }
        }
        verdict => verdict,
    }
}

fn judge_file(
    job: &Job,
    parsers: &mut HashMap<&'static str, Parser>,
    opts: &GateOptions,
    until: Until,
) -> Verdict {
    if opts.skip.is_match(job.path) {
        return Verdict::Unchecked("skipped by the configuration (gate.skip)".into());
    }
    let Some(language) = language_for(job.path, job.after) else {
        return Verdict::Unchecked("no known language".into());
    };
    if is_template(language, job.after) {
        return Verdict::Unchecked(format!(
            "template syntax ({{{{ }}}}, {{% %}} or <% %>): not checked as plain {}",
            language.name
        ));
    }
    // No parse is begun once the batch's time is up (a precise parser cannot be stopped).
    if opts.judges_precisely(&language.name) && until.passed() {
        return Verdict::OutOfTime;
    }
    if let Some(verdict) = precise_verdict(job, language, opts) {
        return verdict;
    }
    if job.after.len() > opts.max_file_bytes {
        return Verdict::Unchecked(format!(
            "{} bytes, over gate.max_file_bytes ({}): not parsed",
            job.after.len(),
            opts.max_file_bytes
        ));
    }
    let precheck = job.prechecked.filter(|p| {
        p.language == language_name(language) && p.after_sha256 == digest::sha256_hex(job.after)
    });
    let (mut new, mut old) = match precheck {
        Some(p) => (p.errors.clone(), p.preexisting.clone()),
        None => {
            if until.passed() {
                return Verdict::OutOfTime;
            }
            let Some(parser) = parser_for(parsers, language) else {
                return Verdict::Unchecked(format!(
                    "{} grammar not built in (cargo feature off)",
                    language.name
                ));
            };
            let Some(errors) = tree_sitter_errors(job, language, parser, opts, until) else {
                return Verdict::OutOfTime;
            };
            errors
        }
    };
    // A second opinion (Rust: syn) clears what tree-sitter flags in text it parses.
    if !new.is_empty()
        && opts.precise
        && precise::second_opinion_accepts(language_name(language), job.after) == Some(true)
    {
        overrule(&mut new, &mut old, precise::RUST_CHECKER);
    }
    // Where the language's own compiler is at hand it is the judge: tree-sitter grammars are
    // both too lenient (Python accepts `return` at module level) and, rarely, too strict
    // (CPython's test_compile.py does not parse). Errors it accepts are kept as notes.
    let compiler = external_command(language, opts);
    if let Some(command) = compiler
        && !new.is_empty()
        && let Some(Ok(())) = external_check(command, job.path, job.after)
    {
        overrule(&mut new, &mut old, &command[0]);
    }
    let compile = compiler.is_some() && new.is_empty();
    Verdict::Checked(language, new, old, compile)
}

/// tree-sitter's verdict on a file: the errors its new content brings and those it already
/// had, or `None` when the time was up first.
fn tree_sitter_errors(
    job: &Job,
    language: &'static LanguageEntry,
    parser: &mut Parser,
    opts: &GateOptions,
    until: Until,
) -> Option<(Vec<SyntaxError>, Vec<SyntaxError>)> {
    // What the grammar is handed: valid text it cannot read made readable, in place.
    let after = readable(&language.name, job.after);
    let parsed = match &opts.trees {
        Some(cache) => {
            let before = job.before.map(|b| readable(&language.name, b));
            cache.parse(
                job.path,
                language_name(language),
                parser,
                (before.as_deref(), &after),
                until.deadline(),
            )
        }
        None => parse_errors(parser, &after, until.deadline()).map(|after| trees::Parsed {
            after,
            before: None,
        }),
    }?;
    // Valid text the grammar misreads in a way only a mending safe after a failed reading
    // puts right (mended.rs): read again mended, taken only when clean.
    let read_again_clean = !parsed.after.is_empty()
        && clean_when_mended(&language.name, parser, &after, until.deadline());
    // Only when the new content has errors is the old content worth parsing (the common case
    // parses once).
    let kept_before = parsed.before;
    let mut out_of_time = false;
    let (mut new, mut old) = classify(job.path, job.before, job.after, &parsed.after, || {
        old_errors(job, language, parser, kept_before, until.deadline()).unwrap_or_else(|| {
            out_of_time = true;
            Vec::new()
        })
    });
    if out_of_time {
        return None;
    }
    if read_again_clean {
        overrule(&mut new, &mut old, SECOND_READING);
    }
    Some((new, old))
}

/// The old content's error sites as the gate stood by them (kept from an earlier parse, or
/// parsed now): none where its second reading was clean, else an error an edit brings, where
/// the grammar reports the old one, would pass as pre-existing. `None` when the time was up.
fn old_errors(
    job: &Job,
    language: &'static LanguageEntry,
    parser: &mut Parser,
    kept: Option<Vec<Site>>,
    deadline: Instant,
) -> Option<Vec<Site>> {
    let same_language =
        |b: &&[u8]| language_for(job.path, b).is_some_and(|l| l.name == language.name);
    let before = job
        .before
        .filter(same_language)
        .map(|b| readable(&language.name, b));
    let errors = match (kept, &before) {
        (Some(errors), _) => errors,
        (None, None) => return Some(Vec::new()),
        (None, Some(before)) => parse_errors(parser, before, deadline)?,
    };
    Some(match &before {
        Some(before)
            if !errors.is_empty()
                && clean_when_mended(&language.name, parser, before, deadline) =>
        {
            Vec::new()
        }
        _ => errors,
    })
}

/// Whether `text`, which tree-sitter flags, parses clean once mended for a second reading
/// (mended.rs): valid text its grammar misreads. A reading past the deadline is not clean.
fn clean_when_mended(language: &str, parser: &mut Parser, text: &[u8], deadline: Instant) -> bool {
    mended(language, text)
        .is_some_and(|mended| parse_errors(parser, &mended, deadline).is_some_and(|e| e.is_empty()))
}

/// Who accepted tree-sitter's errors that its own second reading of the mended text clears.
const SECOND_READING: &str = "tree-sitter, read again mended";

/// Moves tree-sitter's errors to the notes, marked as accepted by `judge`.
fn overrule(new: &mut Vec<SyntaxError>, old: &mut Vec<SyntaxError>, judge: &str) {
    old.extend(std::mem::take(new).into_iter().map(|mut e| {
        e.kind = format!("{} (accepted by {judge})", e.kind);
        e
    }));
}

/// The verdict of the language's precise parser, when lancet has one and the text is UTF-8:
/// it overrules tree-sitter both ways, and its message is what the report shows.
fn precise_verdict(
    job: &Job,
    language: &'static LanguageEntry,
    opts: &GateOptions,
) -> Option<Verdict> {
    let name = language.name.as_str();
    if !opts.precise {
        return None;
    }
    let checker = precise::checker(name)?;
    let sites = |text: &[u8]| precise::errors(name, job.path, text, opts.python);
    let after_errors = sites(job.after)?;
    let (new, old) = classify_by(
        checker,
        job.path,
        job.before,
        job.after,
        &after_errors,
        || job.before.and_then(sites).unwrap_or_default(),
    );
    let compile = new.is_empty() && external_command(language, opts).is_some();
    Some(Verdict::Checked(language, new, old, compile))
}

/// Whether a text holds a template's block tags (`{% %}`: Django, Jinja; `<% %>`: ERB, EJS):
/// a file of another language than HTML that does and fails to parse is a template (Django's
/// `i18n_catalog.js`), not plain code with errors.
fn holds_template_tags(text: &[u8]) -> bool {
    let holds = |tag: &[u8]| text.windows(2).any(|w| w == tag);
    (holds(b"{%") && holds(b"%}")) || (holds(b"<%") && holds(b"%>"))
}

/// Whether an HTML file holds template syntax (Jinja, Django, ERB, Go templates), which the
/// HTML grammar would report as errors.
fn is_template(language: &LanguageEntry, text: &[u8]) -> bool {
    language.name == "html" && text.windows(2).any(|w| matches!(w, b"{{" | b"{%" | b"<%"))
}

pub(crate) fn language_name(language: &'static LanguageEntry) -> &'static str {
    language.name.as_str()
}

fn parser_for<'p>(
    parsers: &'p mut HashMap<&'static str, Parser>,
    language: &'static LanguageEntry,
) -> Option<&'p mut Parser> {
    if !parsers.contains_key(language.name.as_str()) {
        let grammar = grammar(language)?;
        let mut parser = Parser::new();
        parser.set_language(&grammar).ok()?;
        parsers.insert(language.name.as_str(), parser);
    }
    parsers.get_mut(language.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precheck::{Prechecked, precheck_edit};
    use languages::languages;

    /// The gate with tree-sitter alone (the precise parsers have their own tests).
    fn tree_sitter_only() -> GateOptions {
        GateOptions {
            precise: false,
            ..GateOptions::default()
        }
    }

    /// The gate's time for a batch in these tests: more than any of them takes.
    fn batch() -> Until {
        Until::Batch(Instant::now() + Duration::from_secs(600))
    }

    fn check(path: &str, before: Option<&str>, after: &str) -> SyntaxReport {
        let job = Job {
            path,
            before: before.map(str::as_bytes),
            after: after.as_bytes(),
            prechecked: None,
        };
        run(&[job], &tree_sitter_only(), batch())
    }

    #[test]
    fn syn_clears_what_tree_sitter_flags_in_valid_rust_and_never_adds_errors() {
        let with_syn = |before: Option<&str>, after: &str| {
            let job = Job {
                path: "s.rs",
                before: before.map(str::as_bytes),
                after: after.as_bytes(),
                prechecked: None,
            };
            run(&[job], &GateOptions::default(), batch())
        };
        let r = with_syn(None, "struct S<T> where T: Eq;\n");
        assert!(r.errors.is_empty(), "{r:?}");
        assert!(r.preexisting[0].kind.contains("accepted by syn"), "{r:?}");
        // tree-sitter alone refuses it: the test above is not vacuous.
        assert!(
            !check("s.rs", None, "struct S<T> where T: Eq;\n")
                .errors
                .is_empty()
        );
        let r = with_syn(Some("fn main() {}\n"), "fn main( {}\n");
        assert_eq!(r.errors.len(), 1, "{r:?}");
        // 2015-edition code syn refuses but tree-sitter takes stays accepted.
        let r = with_syn(None, "type A = Fn(u8) + Send;\n");
        assert!(r.errors.is_empty() && r.preexisting.is_empty(), "{r:?}");
    }

    #[test]
    fn the_precise_parser_overrules_tree_sitter_both_ways() {
        let precise = |before: Option<&str>, after: &str| {
            let job = Job {
                path: "m.py",
                before: before.map(str::as_bytes),
                after: after.as_bytes(),
                prechecked: None,
            };
            run(&[job], &GateOptions::default(), batch())
        };
        // Valid Python 3.12 (PEP 695 generics, PEP 701 quotes in an f-string) passes; the
        // same for 3.11 is refused (below, in precise.rs).
        let generic = "def first[T](xs: list[T]) -> T:\n    return f\"{xs[0][\"k\"]}\"\n";
        let r = precise(None, generic);
        assert!(r.errors.is_empty(), "{r:?}");
        assert_eq!(r.checked, vec!["m.py (python)".to_string()]);
        // A typographic quote: the parser's words, where it is.
        let r = precise(Some("x = 'hi'\n"), "x = \u{201c}hi\u{201d}\n");
        assert_eq!(r.errors.len(), 1, "{r:?}");
        assert_eq!(r.errors[0].checker, precise::PYTHON_CHECKER);
        assert_eq!((r.errors[0].line, r.errors[0].column), (1, 5));
        assert_eq!(r.errors[0].kind, "Got unexpected token \u{201c}");
        // An error that was already there does not block.
        let r = precise(
            Some("def f(:\n    pass\nx = 1\n"),
            "def f(:\n    pass\nx = 2\n",
        );
        assert!(r.errors.is_empty() && r.preexisting.len() == 1, "{r:?}");
        // Configured skips and templates are reported unchecked, not refused.
        let opts = GateOptions {
            skip: globset::GlobSet::builder()
                .add(globset::Glob::new("gen/**").unwrap())
                .build()
                .unwrap(),
            ..GateOptions::default()
        };
        let job = Job {
            path: "gen/x.py",
            before: None,
            after: b"def (",
            prechecked: None,
        };
        let r = run(&[job], &opts, batch());
        assert_eq!(
            r.unchecked,
            vec!["gen/x.py (skipped by the configuration (gate.skip))".to_string()]
        );
    }

    /// Issue #41: the CSS gate refused valid unquoted `url(...)` (Django's admin CSS); it
    /// passes, and an error beside it is still found where it stands.
    #[cfg(feature = "lang-css")]
    #[test]
    fn unquoted_css_urls_are_valid_css() {
        let css = ".a { background: url(../img/icon.png) no-repeat; }\n@import url(fonts.css);\n";
        let r = check("a.css", None, css);
        assert!(r.errors.is_empty(), "{r:?}");
        let broken = format!("{css}.b {{ color: red; \n");
        let r = check("a.css", Some(css), &broken);
        assert_eq!(r.errors.len(), 1, "{r:?}");
        assert_eq!(r.errors[0].line, 3, "{r:?}");
    }

    /// Issue #41's gate corpora (tests/corpus/gate_languages.py): valid code four grammars
    /// flagged passes (Ruby's `:$,` in typeprof and NUL bytes in RubyGems' stub comments, a
    /// YAML quoted scalar continued at its key's column in ansible-core, JSON's `1e+16`, CSS's
    /// `@IMporT` in Django), each by its own mending; an error beside it is still refused.
    #[cfg(all(
        feature = "lang-ruby",
        feature = "lang-yaml",
        feature = "lang-json",
        feature = "lang-css"
    ))]
    #[test]
    fn valid_code_the_grammars_misread_passes_and_errors_beside_it_are_refused() {
        let cases = [
            (
                "t.rb",
                "case v\nwhen :$,, :$;, :$\" then 1\nend\n",
                "def f(\n",
            ),
            (
                "t.gemspec",
                "# stub: a.rb\0b.rb\nGem::Specification.new\n",
                "def f(\n",
            ),
            (
                "t.yml",
                "- name: x\n  fail:\n    msg: \"a\n    b\"\n",
                "a: [\n",
            ),
            ("t.json", "{\"a\": 1e+16}\n", "{\"b\": }\n"),
            (
                "t.css",
                "@IMporT url(\"a.css\");\na { b: c !IMPORTANT }\n",
                ".d { \n",
            ),
        ];
        for (path, valid, broken_tail) in cases {
            let r = check(path, None, valid);
            assert!(r.errors.is_empty(), "{path}: {r:?}");
            let broken = format!("{valid}{broken_tail}");
            let r = check(path, Some(valid), &broken);
            assert!(!r.errors.is_empty(), "{path}: {r:?}");
        }
    }

    /// Issue #41: where a grammar flags valid code (the gate corpus: C macros, bash's extended
    /// globs),
    /// its errors are reported unchecked, never refused, unless the language's own check
    /// judges; a JS file holding Django block tags is a template, not code with errors.
    #[cfg(all(feature = "lang-bash", feature = "lang-javascript"))]
    #[test]
    fn errors_a_language_cannot_back_are_unchecked_not_refused() {
        let valid_bash = "f() {\n    [[ $x == -@(an|[rwy]) ]] || echo n\n}\n";
        let r = check("x.sh", None, valid_bash);
        assert!(r.errors.is_empty(), "{r:?}");
        assert!(r.unchecked[0].contains("not judged"), "{r:?}");
        let with_bash = GateOptions {
            external: vec!["bash".into()],
            ..tree_sitter_only()
        };
        let job = |text: &'static str| Job {
            path: "x.sh",
            before: None,
            after: text.as_bytes(),
            prechecked: None,
        };
        if external_command(
            languages().iter().find(|l| l.name == "bash").unwrap(),
            &with_bash,
        )
        .is_some()
        {
            let r = run(&[job(valid_bash)], &with_bash, batch());
            assert!(r.errors.is_empty() && r.unchecked.is_empty(), "{r:?}");
            let r = run(&[job("if true; then\n  echo\n")], &with_bash, batch());
            assert_eq!(r.errors.len(), 1, "bash -n confirms a real error: {r:?}");
        }
        let template = "{% autoescape off %}\nconst v = {{ plural }};\n{% endautoescape %}\n";
        let r = check("i18n_catalog.js", None, template);
        assert!(r.errors.is_empty(), "{r:?}");
        assert!(r.unchecked[0].contains("template syntax"), "{r:?}");
    }

    /// Issue #41's gate corpora: bash's own check (`gate.external = ["bash"]`) refused 131 of
    /// bash-completion's scripts, valid bash that turns extended globs on at run time (`bash -n`
    /// runs no `shopt`); it reads them on, and still refuses a real error.
    #[cfg(feature = "lang-bash")]
    #[test]
    fn bash_s_own_check_reads_extended_globs() {
        let opts = GateOptions {
            external: vec!["bash".into()],
            ..tree_sitter_only()
        };
        let bash = languages().iter().find(|l| l.name == "bash").unwrap();
        if external_command(bash, &opts).is_none() {
            return; // bash or process containment missing: nothing to run.
        }
        let job = |text: &'static str| Job {
            path: "x.sh",
            before: None,
            after: text.as_bytes(),
            prechecked: None,
        };
        let extglob = "shopt -s extglob\ncase $x in\n  @(a|b)) echo y ;;\nesac\n";
        let r = run(&[job(extglob)], &opts, batch());
        assert!(r.errors.is_empty() && r.unchecked.is_empty(), "{r:?}");
        let r = run(&[job("if true; then\n  echo\n")], &opts, batch());
        assert_eq!(r.errors.len(), 1, "{r:?}");
    }

    /// A valid sample per language: each grammar must load and parse it without error.
    const SAMPLES: &[(&str, &str)] = &[
        ("python", "def f(x):\n    return x + 1\n"),
        ("rust", "fn main() { let x = 1; println!(\"{x}\"); }\n"),
        ("javascript", "const f = (x) => x + 1;\nexport default f;\n"),
        ("typescript", "const f = (x: number): number => x + 1;\n"),
        ("tsx", "const A = () => <div className=\"a\">hi</div>;\n"),
        ("go", "package main\n\nfunc main() { println(1) }\n"),
        ("java", "class A { int f() { return 1; } }\n"),
        ("c", "int main(void) { return 0; }\n"),
        (
            "cpp",
            "#include <vector>\nint main() { std::vector<int> v; return 0; }\n",
        ),
        ("c-sharp", "class A { int F() { return 1; } }\n"),
        ("ruby", "def f(x)\n  x + 1\nend\n"),
        ("bash", "for i in 1 2; do echo \"$i\"; done\n"),
        ("json", "{\"a\": [1, 2, {\"b\": null}]}\n"),
        ("toml", "[package]\nname = \"x\"\n"),
        ("yaml", "a:\n  - 1\n  - b: 2\n"),
        ("html", "<!doctype html><p class=\"a\">hi</p>\n"),
        ("css", "a > b { color: red; }\n"),
    ];

    fn point(text: &str, at: usize) -> tree_sitter::Point {
        let row = text[..at].matches('\n').count();
        let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1);
        tree_sitter::Point::new(row, column)
    }

    #[test]
    fn an_incremental_precheck_finds_what_a_fresh_parse_finds() {
        let python = languages().iter().find(|l| l.name == "python").unwrap();
        let mut parser = Parser::new();
        parser.set_language(&grammar(python).unwrap()).unwrap();
        let clean = "def f(a):\n    return a\n";
        let broken = "x = (\ndef f(a):\n    return a\n";
        // (before, replaced range, replacement, new errors?, pre-existing errors?)
        let cases = [
            (clean, (5, 6), "", true, false),
            (clean, (4, 5), "g", false, false),
            (clean, (17, 18), "b\n    return (", true, false),
            (broken, (12, 13), "b", false, true),
        ];
        for (before, (start, end), new, introduced, preexisting) in cases {
            let after = format!("{}{new}{}", &before[..start], &before[end..]);
            let tree = parser.parse(before, None).unwrap();
            let edit = tree_sitter::InputEdit {
                start_byte: start,
                old_end_byte: end,
                new_end_byte: start + new.len(),
                start_position: point(before, start),
                old_end_position: point(before, end),
                new_end_position: point(&after, start + new.len()),
            };
            let pre = precheck_edit(
                "a.py",
                python,
                &mut parser,
                tree,
                before.as_bytes(),
                after.as_bytes(),
                &[edit],
            )
            .unwrap();
            let fresh = check("a.py", Some(before), &after);
            assert_eq!(pre.errors, fresh.errors, "{after:?}");
            assert_eq!(pre.preexisting, fresh.preexisting, "{after:?}");
            assert_eq!(!pre.errors.is_empty(), introduced, "{after:?}");
            assert_eq!(!pre.preexisting.is_empty(), preexisting, "{after:?}");
        }
    }

    #[test]
    fn the_gate_takes_a_precheck_only_for_the_content_it_checked() {
        let after = b"x = (\n";
        let trusted = |checked: &[u8]| Prechecked {
            after_sha256: digest::sha256_hex(checked),
            language: "python",
            errors: Vec::new(),
            preexisting: Vec::new(),
        };
        let gate = |pre: &Prechecked| {
            let job = Job {
                path: "a.py",
                before: Some(b"x = 1\n"),
                after,
                prechecked: Some(pre),
            };
            run(&[job], &tree_sitter_only(), batch())
        };
        // A verdict on other content is ignored: the file is parsed and its error found.
        assert_eq!(gate(&trusted(b"x = 2\n")).errors.len(), 1);
        // A verdict on this very content is taken as given (no parse).
        assert!(gate(&trusted(after)).errors.is_empty());
    }

    #[test]
    fn every_language_loads_parses_its_sample_and_compiles_its_queries() {
        for entry in languages() {
            let sample = SAMPLES
                .iter()
                .find(|(name, _)| *name == entry.name)
                .unwrap_or_else(|| panic!("no sample for {}", entry.name))
                .1;
            let Some(grammar) = grammar(entry) else {
                continue; // compiled out in this build
            };
            let mut parser = Parser::new();
            parser.set_language(&grammar).unwrap();
            let tree = parser.parse(sample, None).unwrap();
            assert!(
                !tree.root_node().has_error(),
                "{}: {}",
                entry.name,
                tree.root_node().to_sexp()
            );
            for query in &entry.queries {
                // The rename query is the one the binary embeds (TSX shares TypeScript's).
                let source = match query.as_str() {
                    "rename.scm" => languages::rename_query(&entry.name)
                        .unwrap_or_else(|| panic!("{}: no embedded rename.scm", entry.name))
                        .to_string(),
                    _ => std::fs::read_to_string(format!(
                        "{}/grammars/{}/{query}",
                        env!("CARGO_MANIFEST_DIR"),
                        entry.name
                    ))
                    .unwrap(),
                };
                tree_sitter::Query::new(&grammar, &source)
                    .unwrap_or_else(|e| panic!("{}/{query}: {e}", entry.name));
            }
        }
    }

    #[cfg(all(
        feature = "lang-javascript",
        feature = "lang-c-sharp",
        feature = "lang-toml"
    ))]
    #[test]
    fn with_default_features_every_grammar_is_built_in() {
        for entry in languages() {
            assert!(grammar(entry).is_some(), "{}", entry.name);
        }
    }

    #[test]
    fn a_new_unclosed_paren_is_an_error_with_line_and_column() {
        let r = check(
            "m.py",
            Some("def f():\n    return g(1)\n"),
            "def f():\n    return g(1\n",
        );
        assert_eq!(r.errors.len(), 1, "{r:?}");
        let e = &r.errors[0];
        assert_eq!(
            (e.path.as_str(), e.checker.as_str()),
            ("m.py", "tree-sitter")
        );
        let precise = run(
            &[Job {
                path: "m.py",
                before: Some(b"def f():\n    return g(1)\n"),
                after: b"def f():\n    return g(1\n",
                prechecked: None,
            }],
            &GateOptions::default(),
            batch(),
        );
        assert_eq!(precise.errors.len(), 1, "{precise:?}");
        assert_eq!(precise.errors[0].checker, precise::PYTHON_CHECKER);
        assert_eq!(e.line, 2);
        assert!(e.excerpt.contains("2 |     return g(1\n"), "{}", e.excerpt);
        assert!(e.excerpt.contains('^'));
    }

    #[test]
    fn errors_that_were_already_there_do_not_block() {
        let before = "def f():\n    return g(1)\n\n\ndef broken(:\n    pass\n";
        let after = "def f():\n    return g(2)\n\n\ndef broken(:\n    pass\n";
        let r = check("m.py", Some(before), after);
        assert!(r.errors.is_empty(), "{r:?}");
        assert!(!r.preexisting.is_empty());
        let r = check(
            "m.py",
            Some(before),
            "def f():\n    return g(2\n\n\ndef broken(:\n    pass\n",
        );
        assert!(!r.errors.is_empty());
    }

    #[test]
    fn editing_inside_an_already_broken_line_does_not_block() {
        let before = "impl Config\n{\n    pub a: bool,\n}\n\nfn f() {}\n";
        let after = "impl Config\n{\n    pub b: bool,\n}\n\nfn f() {}\n";
        let r = check("c.rs", Some(before), after);
        assert!(r.errors.is_empty(), "{r:?}");
        let worse = "impl Config\n{\n    pub b: bool,\n}\n\nfn f( {}\n";
        assert!(!check("c.rs", Some(before), worse).errors.is_empty());
    }

    /// Run by `.ci/run` in a lean build (`--no-default-features`).
    #[cfg(not(feature = "lang-json"))]
    #[test]
    fn a_compiled_out_grammar_reports_its_files_unchecked() {
        let r = check("a.json", None, "{");
        assert_eq!(
            r.unchecked,
            vec!["a.json (json grammar not built in (cargo feature off))".to_string()]
        );
        assert!(r.errors.is_empty());
    }

    #[test]
    fn files_not_judged_when_the_batch_time_is_up_are_listed_not_passed() {
        let rust = b"fn main() {}\n";
        let judged = Prechecked {
            after_sha256: digest::sha256_hex(rust),
            language: "rust",
            errors: Vec::new(),
            preexisting: Vec::new(),
        };
        let jobs = [
            Job {
                path: "m.rs",
                before: None,
                after: rust,
                prechecked: Some(&judged),
            },
            Job {
                path: "a.py",
                before: Some(b"x = 1\n"),
                after: b"x = 2\n",
                prechecked: None,
            },
            Job {
                path: "deep.html",
                before: None,
                after: b"<div><div></div></div>\n",
                prechecked: None,
            },
            Job {
                path: "notes.txt",
                before: None,
                after: b"anything (",
                prechecked: None,
            },
        ];
        // The time was up before the gate began: nothing that needs a parse is judged, by a
        // precise parser or tree-sitter; a file of no known language needs none, and one its
        // caller already judged (a rename's precheck) keeps that verdict.
        let r = run(&jobs, &GateOptions::default(), Until::Batch(Instant::now()));
        assert_eq!(r.unjudged, ["a.py", "deep.html"]);
        assert_eq!(r.unchecked, ["notes.txt (no known language)"]);
        assert_eq!(r.checked, ["m.rs (rust)"]);
        assert!(r.refuses());
        // With time left, the same files are judged and pass.
        let r = run(&jobs, &GateOptions::default(), batch());
        assert!(r.unjudged.is_empty() && !r.refuses(), "{r:?}");
        let mut judged = vec!["m.rs (rust)", "a.py (python)"];
        // A lean build (`.ci/run`'s `--no-default-features`) has no HTML grammar to judge with.
        if cfg!(feature = "lang-html") {
            judged.push("deep.html (html)");
        }
        assert_eq!(r.checked, judged);
    }

    #[test]
    fn unknown_languages_are_unchecked() {
        let r = check("notes.txt", None, "anything (");
        assert_eq!(
            r.unchecked,
            vec!["notes.txt (no known language)".to_string()]
        );
        assert!(r.errors.is_empty());
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = format!("x = {}{}\n", "[".repeat(100_000), "]".repeat(99_999));
        let r = check("deep.py", None, &deep);
        assert!(r.checked.len() + r.unchecked.len() == 1);
    }
}
