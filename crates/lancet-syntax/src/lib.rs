//! The syntax gate: a batch that breaks the syntax of a file it touches never reaches disk.
//!
//! Every staged file of a known language is parsed with tree-sitter, in parallel (rayon, one
//! parser per language per worker). A file whose new content parses without error passes after
//! one parse. Otherwise its old content is parsed too, and only errors the edit introduced
//! count: an error is pre-existing when it sits on lines the edit left alone and the old text
//! had the same error at the same place. Where a language names an external check (Python's
//! `compile()`; tree-sitter's Python grammar is lenient) and the tool is installed, it runs on
//! the new content of changed files, and again on the old content if it fails, with the same
//! rule. At most two trees per worker exist at once: parse, collect errors, drop.
//!
//! # lancet-syntax
//!
//! This crate is that gate, the language table (`grammars/languages.toml`, which grammar
//! parses which file) and the grammars' query files. Its place in the pipeline:
//!
//! ```text
//! [lancet-core] stage ─▶ StagedFile[] ─gate─▶ SyntaxReport ─▶ [lancet-store] commit
//! ```
//!
//! Each grammar but Python's and Rust's is a cargo feature (`lang-*`); a file of a language
//! compiled out is reported unchecked, never silently passed.
#![deny(missing_docs)]

pub mod languages;
pub mod precise;
pub mod trees;

use lancet_core::digest;
use lancet_core::staged::{Before, StagedFile};
pub use lancet_core::verdicts::{SyntaxError, SyntaxReport};
use languages::{LanguageEntry, grammar, language_for};
use rayon::prelude::*;
use similar::{Algorithm, DiffOp};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// How thorough the gate is, and what it leaves alone (from `lancet.toml`'s `[gate]`).
#[derive(Debug, Clone)]
pub struct GateOptions {
    /// Languages whose external check command runs where installed (`python`, `ruby`,
    /// `bash`, `javascript`): opt-in, since each run starts an interpreter and uses whatever
    /// version is on PATH.
    pub external: Vec<String>,
    /// The Python version the precise parser checks against.
    pub python: precise::Version,
    /// Files larger than this many bytes are judged by a precise parser only (a tree-sitter
    /// tree of a 20 MB file costs seconds and hundreds of MB); without one they are unchecked,
    /// with a note.
    pub max_file_bytes: usize,
    /// Files the gate does not check (globs on root-relative paths), reported unchecked.
    pub skip: globset::GlobSet,
    /// Let a precise parser judge where lancet has one (off: tree-sitter alone, which the
    /// gate benchmark and the tree-sitter tests measure).
    pub precise: bool,
    /// Trees kept from earlier calls (the MCP server keeps one cache for its lifetime): a file
    /// whose old content has a kept tree is reparsed incrementally from it.
    pub trees: Option<std::sync::Arc<trees::TreeCache>>,
}

/// The default size above which only a precise parser checks a file.
pub const MAX_FILE_BYTES: usize = 5_000_000;

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            external: Vec::new(),
            python: precise::NEWEST_PYTHON,
            max_file_bytes: MAX_FILE_BYTES,
            skip: globset::GlobSet::empty(),
            precise: true,
            trees: None,
        }
    }
}

impl GateOptions {
    /// Whether `language`'s external check is asked for.
    fn external_for(&self, language: &str) -> bool {
        self.external.iter().any(|l| l == language)
    }
}

/// Longest a single parse may take before the file is reported unchecked.
const PARSE_BUDGET: Duration = Duration::from_secs(20);
/// Longest an external check may run.
const CHECK_BUDGET: Duration = Duration::from_secs(30);
/// Most errors reported per file.
const MAX_ERRORS_PER_FILE: usize = 20;

/// One file to check: its path, its content before and after the batch, and the verdict of a
/// caller that already checked it.
struct Job<'a> {
    path: &'a str,
    before: Option<&'a [u8]>,
    after: &'a [u8],
    prechecked: Option<&'a Prechecked>,
}

/// A file's tree-sitter verdict, computed by a caller that already held the file's tree
/// (`lancet rename` parses every file it edits): it edits that tree and reparses incrementally,
/// a fraction of a fresh parse. The gate takes it instead of parsing when the staged content is
/// exactly the content checked; the compiler check still runs as for any file.
#[derive(Debug, Clone)]
pub struct Prechecked {
    after_sha256: String,
    language: &'static str,
    errors: Vec<SyntaxError>,
    preexisting: Vec<SyntaxError>,
}

impl Prechecked {
    /// Whether the checked content has no syntax error at all.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty() && self.preexisting.is_empty()
    }
}

/// Verdicts computed before staging, by path.
pub type Prechecks = HashMap<String, Prechecked>;

/// Checks an edit of a file whose old tree the caller has: `edits` (in the old text's
/// coordinates, in the order given) are applied to `old_tree`, `after` is reparsed from it,
/// and errors are classified as for any file. `None` when the parse gave up.
pub fn precheck_edit(
    path: &str,
    language: &'static LanguageEntry,
    parser: &mut Parser,
    mut old_tree: Tree,
    before: &[u8],
    after: &[u8],
    edits: &[tree_sitter::InputEdit],
) -> Option<Prechecked> {
    let before_errors = error_sites(&old_tree);
    for edit in edits {
        old_tree.edit(edit);
    }
    let new_tree = parse_from(parser, after, Some(&old_tree))?;
    drop(old_tree);
    let after_errors = error_sites(&new_tree);
    drop(new_tree);
    let (errors, preexisting) =
        classify(path, Some(before), after, &after_errors, || before_errors);
    Some(Prechecked {
        after_sha256: digest::sha256_hex(after),
        language: language_name(language),
        errors,
        preexisting,
    })
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
}

/// How many files one run of a multi-file check command (`{files}`) takes at most.
const FILES_PER_CHECK: usize = 1024;

/// Checks a staged batch: errors the batch introduces, per file.
pub fn gate(files: &[StagedFile], opts: &GateOptions) -> SyntaxReport {
    gate_prechecked(files, opts, &Prechecks::new())
}

/// [`gate`], taking the verdicts in `prechecked` for files whose staged content they checked.
pub fn gate_prechecked(
    files: &[StagedFile],
    opts: &GateOptions,
    prechecked: &Prechecks,
) -> SyntaxReport {
    let jobs: Vec<Job> = files
        .iter()
        .filter_map(|f| {
            let after = f.after.as_deref()?;
            let before = match &f.before {
                Before::File { bytes, .. } => Some(bytes.as_slice()),
                _ => None,
            };
            Some(Job {
                path: f.path.as_str(),
                before,
                after,
                prechecked: prechecked.get(f.path.as_str()),
            })
        })
        .collect();
    run(&jobs, opts)
}

/// Checks files as they are (`lancet check`): every error counts.
pub fn check_contents(files: &[(String, Vec<u8>)], opts: &GateOptions) -> SyntaxReport {
    let jobs: Vec<Job> = files
        .iter()
        .map(|(path, bytes)| Job {
            path,
            before: None,
            after: bytes,
            prechecked: None,
        })
        .collect();
    run(&jobs, opts)
}

fn run(jobs: &[Job], opts: &GateOptions) -> SyntaxReport {
    let verdicts: Vec<(usize, Verdict)> = jobs
        .par_iter()
        .enumerate()
        .map_init(HashMap::new, |parsers, (i, job)| {
            (i, check_file(job, parsers, opts))
        })
        .collect();
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
    }
    report.notes.sort();
    report.notes.dedup();
    report
}

fn check_file(
    job: &Job,
    parsers: &mut HashMap<&'static str, Parser>,
    opts: &GateOptions,
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
            let Some(parser) = parser_for(parsers, language) else {
                return Verdict::Unchecked(format!(
                    "{} grammar not built in (cargo feature off)",
                    language.name
                ));
            };
            let parsed = match &opts.trees {
                Some(cache) => cache.parse(
                    job.path,
                    language_name(language),
                    parser,
                    job.before,
                    job.after,
                ),
                None => parse_errors(parser, job.after).map(|after| trees::Parsed {
                    after,
                    before: None,
                }),
            };
            let Some(parsed) = parsed else {
                return Verdict::Unchecked(format!(
                    "parse gave up after {}s",
                    PARSE_BUDGET.as_secs()
                ));
            };
            // Only when the new content has errors is the old content worth parsing (the
            // common case parses once).
            let kept_before = parsed.before;
            classify(job.path, job.before, job.after, &parsed.after, || {
                kept_before.unwrap_or_else(|| {
                    job.before
                        .filter(|b| {
                            language_for(job.path, b).is_some_and(|l| l.name == language.name)
                        })
                        .and_then(|b| parse_errors(parser, b))
                        .unwrap_or_default()
                })
            })
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

/// `language`'s external check command, when the configuration asks for it and its tool is
/// installed.
fn external_command<'l>(
    language: &'l LanguageEntry,
    opts: &GateOptions,
) -> Option<&'l Vec<String>> {
    language.check.as_ref().filter(|c| {
        opts.external_for(&language.name) && c.first().is_some_and(|tool| tool_installed(tool))
    })
}

/// Whether an HTML file holds template syntax (Jinja, Django, ERB, Go templates), which the
/// HTML grammar would report as errors.
fn is_template(language: &LanguageEntry, text: &[u8]) -> bool {
    language.name == "html" && text.windows(2).any(|w| matches!(w, b"{{" | b"{%" | b"<%"))
}

/// Splits the new text's error sites into errors the edit introduced and errors that were
/// already there; `before_errors` is only called when there are errors to classify.
fn classify(
    path: &str,
    before: Option<&[u8]>,
    after: &[u8],
    after_errors: &[Site],
    before_errors: impl FnOnce() -> Vec<Site>,
) -> (Vec<SyntaxError>, Vec<SyntaxError>) {
    classify_by(
        "tree-sitter",
        path,
        before,
        after,
        after_errors,
        before_errors,
    )
}

/// [`classify`], naming who found the errors.
fn classify_by(
    checker: &str,
    path: &str,
    before: Option<&[u8]>,
    after: &[u8],
    after_errors: &[Site],
    before_errors: impl FnOnce() -> Vec<Site>,
) -> (Vec<SyntaxError>, Vec<SyntaxError>) {
    let mut new = Vec::new();
    let mut old = Vec::new();
    if after_errors.is_empty() {
        return (new, old);
    }
    let before_errors = before_errors();
    let map = before.map(|b| line_map(b, after));
    for site in after_errors {
        let preexisting = map
            .as_ref()
            .is_some_and(|m| m.was_there(site, after_errors, &before_errors));
        let error = site.clone().into_error(path, after, checker);
        if preexisting {
            old.push(error)
        } else {
            new.push(error)
        }
    }
    (new, old)
}

/// Runs a compiler check over files tree-sitter found clean. A command taking `{files}` runs
/// once per chunk (one interpreter start for hundreds of files), chunks in parallel. When a
/// chunk fails, the files its output names are checked alone; see [`narrow_checks`]. Each error
/// found is returned with whether the edit introduced it (the old content passed) or not.
fn compile_checks(language: &LanguageEntry, jobs: &[&Job]) -> Vec<(bool, SyntaxError)> {
    let Some(command) = language.check.as_deref() else {
        return Vec::new();
    };
    let reports_all = language.check_reports_all;
    let batched = command.iter().any(|a| a == "{files}");
    let chunk = if batched {
        jobs.len()
            .div_ceil(rayon::current_num_threads())
            .clamp(1, FILES_PER_CHECK)
    } else {
        1
    };
    jobs.par_chunks(chunk)
        .flat_map_iter(|chunk| narrow_checks(command, reports_all, chunk))
        .collect()
}

/// The failures among `jobs`, from one run over all of them. When that run fails, the files its
/// output names are checked alone (for their error and their old content). With a command that
/// `reports_all` (checks every file and names each failure), the others passed; otherwise
/// those before the last one named passed (checkers go in argument order) and those after it
/// are checked again together, since the checker may have stopped at its first failure. A
/// failure naming no file is halved. So a failing file costs a few runs, not one per halving.
fn narrow_checks(command: &[String], reports_all: bool, jobs: &[&Job]) -> Vec<(bool, SyntaxError)> {
    if let [job] = jobs {
        return one_compile_check(command, job).into_iter().collect();
    }
    if jobs.is_empty() {
        return Vec::new();
    }
    match external_check_many(command, jobs) {
        Some(Checked::Passed) => Vec::new(),
        Some(Checked::Failed(named)) if !named.is_empty() => {
            let unchecked = match named.last() {
                Some(&last) if !reports_all => &jobs[last + 1..],
                _ => &[],
            };
            let failed: Vec<&Job> = named.iter().map(|&i| jobs[i]).collect();
            let (mut found, rest) = rayon::join(
                || {
                    failed
                        .par_iter()
                        .flat_map_iter(|job| one_compile_check(command, job))
                        .collect::<Vec<_>>()
                },
                || narrow_checks(command, reports_all, unchecked),
            );
            found.extend(rest);
            found
        }
        _ => {
            let (left, right) = jobs.split_at(jobs.len() / 2);
            let (mut a, b) = rayon::join(
                || narrow_checks(command, reports_all, left),
                || narrow_checks(command, reports_all, right),
            );
            a.extend(b);
            a
        }
    }
}

/// What one run of a check command over several files said.
enum Checked {
    Passed,
    /// It failed; the indexes (in argument order) of the files its output names.
    Failed(Vec<usize>),
}

/// One file's compiler check: the error, and whether the edit introduced it.
fn one_compile_check(command: &[String], job: &Job) -> Option<(bool, SyntaxError)> {
    let Some(Err(site)) = external_check(command, job.path, job.after) else {
        return None;
    };
    let also_before = job
        .before
        .and_then(|b| external_check(command, job.path, b))
        .is_some_and(|r| r.is_err());
    let checker = command.first().cloned().unwrap_or_default();
    Some((!also_before, site.into_error(job.path, job.after, &checker)))
}

/// Runs a `{files}` check command once over several files' new content; `None` when it could
/// not run.
fn external_check_many(command: &[String], jobs: &[&Job]) -> Option<Checked> {
    let dir = tempfile::tempdir().ok()?;
    let mut files = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let sub = dir.path().join(i.to_string());
        std::fs::create_dir(&sub).ok()?;
        let file = sub.join(job.path.rsplit('/').next().unwrap_or("file"));
        std::fs::write(&file, job.after).ok()?;
        files.push(file.to_string_lossy().into_owned());
    }
    let args: Vec<String> = command[1..]
        .iter()
        .flat_map(|a| match a.as_str() {
            "{files}" => files.clone(),
            _ => vec![a.clone()],
        })
        .collect();
    let (status, output) = run_bounded(&command[0], &args, dir.path())?;
    if status.success() {
        return Some(Checked::Passed);
    }
    // Each temp file sits alone in a directory named by its index, so no path is a prefix of
    // another's.
    Some(Checked::Failed(
        files
            .iter()
            .enumerate()
            .filter(|(_, f)| output.contains(f.as_str()))
            .map(|(i, _)| i)
            .collect(),
    ))
}

/// Runs a check program in `dir` within the check budget; its status and combined output.
fn run_bounded(
    program: &str,
    args: &[String],
    dir: &std::path::Path,
) -> Option<(std::process::ExitStatus, String)> {
    let mut child = Command::new(find_program(program)?)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < CHECK_BUDGET => {
                std::thread::sleep(Duration::from_millis(2))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let output = child.wait_with_output().ok()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Some((output.status, text))
}

fn language_name(language: &'static LanguageEntry) -> &'static str {
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

/// Where an error is, before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Site {
    /// 0-based start line and byte column.
    line: usize,
    column: usize,
    /// 0-based end line and byte column (exclusive).
    end: (usize, usize),
    kind: String,
}

impl Site {
    /// Whether the error's span covers a position.
    fn covers(&self, line: usize, column: usize) -> bool {
        (self.line, self.column) <= (line, column) && (line, column) < self.end
    }
}

impl Site {
    fn into_error(self, path: &str, text: &[u8], checker: &str) -> SyntaxError {
        SyntaxError {
            path: path.to_string(),
            line: self.line + 1,
            column: self.column + 1,
            excerpt: excerpt(text, self.line, self.column),
            kind: self.kind,
            checker: checker.to_string(),
        }
    }
}

/// Parses `text` and lists its ERROR and MISSING nodes (outermost only), or `None` when the
/// parse ran over its time budget.
fn parse_errors(parser: &mut Parser, text: &[u8]) -> Option<Vec<Site>> {
    let tree = parse(parser, text)?;
    Some(error_sites(&tree))
}

fn parse(parser: &mut Parser, text: &[u8]) -> Option<Tree> {
    parse_from(parser, text, None)
}

/// Parses within the time budget, reusing `old_tree` (already edited) when given.
fn parse_from(parser: &mut Parser, text: &[u8], old_tree: Option<&Tree>) -> Option<Tree> {
    let started = Instant::now();
    let mut over_budget = |_: &ParseState| {
        if started.elapsed() > PARSE_BUDGET {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut over_budget);
    let len = text.len();
    parser.parse_with_options(
        &mut |offset, _| if offset < len { &text[offset..] } else { &[] },
        old_tree,
        Some(options),
    )
}

/// Walks the tree with a cursor (no recursion: deeply nested input must not overflow the
/// stack), descending only into subtrees that contain an error.
fn error_sites(tree: &Tree) -> Vec<Site> {
    let mut sites = Vec::new();
    if !tree.root_node().has_error() {
        return sites;
    }
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let is_site = node.is_error() || node.is_missing();
        if is_site {
            let start = node.start_position();
            let kind = if node.is_missing() {
                format!("MISSING {}", node.kind())
            } else {
                "ERROR".to_string()
            };
            sites.push(Site {
                line: start.row,
                column: start.column,
                end: (node.end_position().row, node.end_position().column),
                kind,
            });
            if sites.len() == MAX_ERRORS_PER_FILE {
                break;
            }
        }
        if !is_site && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    sites
}

/// How the new text's lines relate to the old text's: unchanged (with their old line), or part
/// of a changed region (with the old lines it replaced).
struct LineMap {
    lines: Vec<Origin>,
}

#[derive(Clone, Copy)]
enum Origin {
    Same(usize),
    /// New lines `new` replaced old lines `old` (either may be empty).
    Changed {
        old: (usize, usize),
        new: (usize, usize),
    },
}

impl LineMap {
    /// Whether an error of the new text was already in the old text. On an unchanged line: the
    /// old text had the same error at the same place. In a changed region: the region holds no
    /// more errors of that kind than the old lines it replaced (an edit inside an already broken
    /// statement keeps it broken; it does not break it).
    fn was_there(&self, site: &Site, after: &[Site], before: &[Site]) -> bool {
        match self.lines.get(site.line) {
            // The same error at the same place, or inside an error span of the old text (error
            // recovery may split one large error into several, or merge them).
            Some(Origin::Same(old_line)) => before.iter().any(|b| {
                (b.line == *old_line && b.column == site.column && b.kind == site.kind)
                    || b.covers(*old_line, site.column)
            }),
            Some(Origin::Changed { old, new }) => {
                let count = |sites: &[Site], (from, to): (usize, usize)| {
                    sites
                        .iter()
                        .filter(|s| {
                            s.kind == site.kind && s.line >= from && s.line < to.max(from + 1)
                        })
                        .count()
                };
                count(after, *new) <= count(before, *old)
            }
            None => false,
        }
    }
}

fn line_map(before: &[u8], after: &[u8]) -> LineMap {
    let old: Vec<&[u8]> = before.split(|&b| b == b'\n').collect();
    let new: Vec<&[u8]> = after.split(|&b| b == b'\n').collect();
    let mut lines = vec![
        Origin::Changed {
            old: (0, 0),
            new: (0, 0)
        };
        new.len()
    ];
    for op in similar::capture_diff_slices(Algorithm::Myers, &old, &new) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    lines[new_index + k] = Origin::Same(old_index + k);
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                for line in &mut lines[new_index..new_index + new_len] {
                    *line = Origin::Changed {
                        old: (old_index, old_index),
                        new: (new_index, new_index + new_len),
                    };
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for line in &mut lines[new_index..new_index + new_len] {
                    *line = Origin::Changed {
                        old: (old_index, old_index + old_len),
                        new: (new_index, new_index + new_len),
                    };
                }
            }
        }
    }
    LineMap { lines }
}

/// The line before, the error line, a caret under the column, and the line after.
fn excerpt(text: &[u8], line: usize, column: usize) -> String {
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let show = |i: usize| -> String {
        let raw = String::from_utf8_lossy(lines[i]);
        let raw = raw.strip_suffix('\r').unwrap_or(&raw).to_string();
        // Long lines (minified code) are cut around the column.
        if raw.len() > 160 {
            let from = column.saturating_sub(60).min(raw.len());
            let from = (0..=from)
                .rev()
                .find(|&k| raw.is_char_boundary(k))
                .unwrap_or(0);
            let to = (from + 120).min(raw.len());
            let to = (to..=raw.len())
                .find(|&k| raw.is_char_boundary(k))
                .unwrap_or(raw.len());
            format!("…{}…", &raw[from..to])
        } else {
            raw
        }
    };
    let mut out = String::new();
    let width = (line + 2).to_string().len();
    if line > 0 && line - 1 < lines.len() {
        out.push_str(&format!("{:>width$} | {}\n", line, show(line - 1)));
    }
    if line < lines.len() {
        let text_line = show(line);
        let caret_at = if text_line.starts_with('…') {
            61.min(text_line.chars().count())
        } else {
            String::from_utf8_lossy(&lines[line][..column.min(lines[line].len())])
                .chars()
                .count()
        };
        out.push_str(&format!("{:>width$} | {}\n", line + 1, text_line));
        out.push_str(&format!("{:>width$} | {}^\n", "", " ".repeat(caret_at)));
    }
    if line + 1 < lines.len() && !(line + 2 == lines.len() && lines[line + 1].is_empty()) {
        out.push_str(&format!("{:>width$} | {}\n", line + 2, show(line + 1)));
    }
    out
}

/// Whether a program can be run (found on PATH).
fn tool_installed(tool: &str) -> bool {
    find_program(tool).is_some()
}

/// Directories whose programs are never run as checks: roots a model may write (an activated
/// `.venv/bin` on `PATH` must not make the model's `python3` the judge, unsandboxed).
static DISTRUSTED: std::sync::RwLock<Vec<std::path::PathBuf>> = std::sync::RwLock::new(Vec::new());

/// Never runs a check program found under `dir`: `PATH` entries inside it are skipped.
pub fn distrust_programs_under(dir: &std::path::Path) {
    if let Ok(mut d) = DISTRUSTED.write()
        && !d.iter().any(|x| x == dir)
    {
        d.push(dir.to_path_buf());
    }
}

/// A program by name on `PATH` (absolute entries only, none under a distrusted directory), as
/// an absolute path.
fn find_program(name: &str) -> Option<std::path::PathBuf> {
    let distrusted = DISTRUSTED.read().map(|d| d.clone()).unwrap_or_default();
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| {
            let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            !distrusted
                .iter()
                .any(|d| real.starts_with(d) || dir.starts_with(d))
        })
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Runs a language's check command on `content` (written to a temp file named like the
/// original). `None` when the tool is missing or cannot run; `Some(Err)` with where it failed.
fn external_check(command: &[String], path: &str, content: &[u8]) -> Option<Result<(), Site>> {
    let program = command.first()?;
    if !tool_installed(program) {
        return None;
    }
    let dir = tempfile::tempdir().ok()?;
    let name = path.rsplit('/').next().unwrap_or("file");
    let file = dir.path().join(name);
    std::fs::write(&file, content).ok()?;
    let args: Vec<String> = command[1..]
        .iter()
        .map(|a| {
            a.replace("{files}", &file.to_string_lossy())
                .replace("{file}", &file.to_string_lossy())
        })
        .collect();
    let (status, output) = run_bounded(program, &args, dir.path())?;
    if status.success() {
        return Some(Ok(()));
    }
    let text = output.replace(&file.to_string_lossy().into_owned(), path);
    let line = text
        .split("line ")
        .skip(1)
        .find_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<usize>().ok()
        })
        .unwrap_or(1);
    let verdict = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("failed")
        .trim()
        .to_string();
    Some(Err(Site {
        line: line.saturating_sub(1),
        column: 0,
        end: (line, 0),
        kind: verdict,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use languages::languages;

    /// The gate with tree-sitter alone (the precise parsers have their own tests).
    fn tree_sitter_only() -> GateOptions {
        GateOptions {
            precise: false,
            ..GateOptions::default()
        }
    }

    fn check(path: &str, before: Option<&str>, after: &str) -> SyntaxReport {
        let job = Job {
            path,
            before: before.map(str::as_bytes),
            after: after.as_bytes(),
            prechecked: None,
        };
        run(&[job], &tree_sitter_only())
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
            run(&[job], &GateOptions::default())
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
            run(&[job], &GateOptions::default())
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
        let r = run(&[job], &opts);
        assert_eq!(
            r.unchecked,
            vec!["gen/x.py (skipped by the configuration (gate.skip))".to_string()]
        );
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

    /// A language whose check command is a shell script over `{files}` that counts its runs.
    fn scripted_check(script: &str, reports_all: bool) -> LanguageEntry {
        LanguageEntry {
            name: "fake".into(),
            grammar: "none".into(),
            extensions: Vec::new(),
            file_names: Vec::new(),
            shebangs: Vec::new(),
            check: Some(
                ["sh", "-c", script, "sh", "{files}"]
                    .map(String::from)
                    .to_vec(),
            ),
            check_reports_all: reports_all,
            queries: Vec::new(),
            keywords: Vec::new(),
        }
    }

    #[test]
    fn failing_files_are_found_from_what_the_checker_names() {
        let counter = tempfile::NamedTempFile::new().unwrap();
        let count = counter.path().display().to_string();
        let runs = || std::fs::read_to_string(&count).unwrap().lines().count();
        let name = |f: &str| format!("echo \"  File \\\"{f}\\\", line 1\"");
        // Stops at its first failure, naming it; checks and names every failure; names none.
        let first_only = format!(
            "echo run >> {count}; for f; do if grep -q BAD \"$f\"; then {}; exit 1; fi; done",
            name("$f")
        );
        let every = format!(
            "echo run >> {count}; r=0; for f; do if grep -q BAD \"$f\"; then {}; r=1; fi; done; exit $r",
            name("$f")
        );
        let silent =
            format!("echo run >> {count}; for f; do grep -q BAD \"$f\" && exit 1; done; exit 0");
        let paths: Vec<String> = (0..6).map(|i| format!("f{i}.txt")).collect();
        let jobs: Vec<Job> = paths
            .iter()
            .enumerate()
            .map(|(i, path)| Job {
                path,
                before: Some(if i == 4 { b"BAD" } else { b"ok" }),
                after: match i {
                    1 => b"BAD new",
                    4 => b"BAD old",
                    _ => b"ok",
                },
                prechecked: None,
            })
            .collect();
        let refs: Vec<&Job> = jobs.iter().collect();
        // (script, reports_all, runs: the chunk, each failure alone twice (new and old
        // content), and for the stopping checker the files after each failure again)
        for (script, reports_all, expected_runs) in [
            (&every, true, Some(5)),
            (&first_only, false, Some(7)),
            (&silent, false, None),
        ] {
            std::fs::write(&count, "").unwrap();
            let command = scripted_check(script, reports_all);
            let mut found: Vec<(bool, String, usize)> =
                narrow_checks(command.check.as_deref().unwrap(), reports_all, &refs)
                    .into_iter()
                    .map(|(new, e)| (new, e.path, e.line))
                    .collect();
            found.sort_by(|a, b| a.1.cmp(&b.1));
            assert_eq!(
                found,
                [
                    (true, "f1.txt".to_string(), 1),
                    (false, "f4.txt".to_string(), 1)
                ],
                "{script}"
            );
            if let Some(expected) = expected_runs {
                assert_eq!(runs(), expected, "{script}");
            }
        }
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
            run(&[job], &tree_sitter_only())
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
