//! The syntax gate: a batch that breaks the syntax of a file it touches never reaches disk.
//!
//! Every staged file of a known language is parsed in parallel (rayon, one parser per language
//! per worker). Where lancet has a parser of the language's real grammar in process (Python:
//! ruff's, at the project's Python version; JavaScript, TypeScript, JSX, TSX: oxc's), its
//! verdict overrules tree-sitter's. A file whose new content parses without error passes after
//! one parse. Where a grammar misreads valid text it is handed it readable (`readable.rs`, in
//! place) or, once it flags the file, reads it again mended (`mended.rs`: taken only when
//! clean). Otherwise its old content is parsed too, and only errors the edit introduced
//! count: an error is pre-existing when it sits on lines the edit left alone and the old text
//! had the same error at the same place. Where the person asks for a language's external check
//! (its own compiler or interpreter, never a program from inside the tree) and the tool is
//! installed, it runs on the new content of changed files, with the same rule. At most two
//! trees per worker exist at once (a long-lived caller may keep the last tree of each file, to
//! reparse its next edit incrementally).
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

#[doc(hidden)]
pub mod languages;
#[doc(hidden)]
pub mod precise;
#[doc(hidden)]
pub mod trees;

mod external;
mod gate;
mod introduced;
mod job;
mod mended;
mod options;
mod parse;
mod precheck;
mod readable;
mod site;

pub use external::distrust_programs_under;
use gate::{Until, run};
use job::Job;
use lancet_core::{Before, StagedFile};
pub use lancet_core::{SyntaxError, SyntaxReport};
pub use languages::LanguageEntry;
pub use options::{GATE_BUDGET, GateOptions, MAX_FILE_BYTES};
pub use precheck::{Prechecked, Prechecks, precheck_edit};
pub use precise::{NEWEST_PYTHON, PARSER_STACK, Version, thread_has_parser_stack};
pub use trees::TreeCache;

/// Checks a staged batch: errors the batch introduces, per file.
pub fn gate(files: &[StagedFile], opts: &GateOptions) -> SyntaxReport {
    gate_prechecked(files, opts, &Prechecks::new())
}

/// [`gate`], taking the verdicts in `prechecked` for files whose staged content they checked.
/// The batch gets [`GateOptions::budget`] (none at all with `LANCET_FAILPOINT=gate_deadline:1`,
/// for the tests): a file not judged by then is listed in [`SyntaxReport::unjudged`].
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
    let budget = match lancet_core::failpoint::check("gate_deadline") {
        Ok(()) => opts.budget,
        Err(_) => std::time::Duration::ZERO,
    };
    run(
        &jobs,
        opts,
        Until::Batch(std::time::Instant::now() + budget),
    )
}

/// Checks files as they are (`lancet check`): every error counts; a file whose parse takes
/// longer than [`GateOptions::budget`] is reported unchecked.
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
    run(&jobs, opts, Until::EachFile(opts.budget))
}
