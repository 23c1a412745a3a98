//! `lancet check`: which files to run the syntax gate on, read from disk as they are, through
//! the root's handle (a link out of the root is refused, not followed).

use crate::config::{Config, ConfigError, Ignored};
use lancet_core::Root;
use lancet_syntax::SyntaxReport;
use std::path::Path;

/// What a check is asked beyond the paths.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Globs (root-relative) to leave out, added to the settings' `[check] exclude`.
    pub exclude: Vec<String>,
    /// Skip the languages' external check commands (tree-sitter and the precise parsers
    /// still run).
    pub no_compile_check: bool,
}

/// The verdict on the checked files, and what the person should know of the settings (guarded
/// keys an untrusted repository set and lancet ignored).
#[derive(Debug)]
pub struct Checked {
    /// The gate's findings.
    pub report: SyntaxReport,
    /// The repository's guarded settings lancet ignored, when it did: the surface words the
    /// notice ([`Ignored::notice`]).
    pub ignored: Option<Ignored>,
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The repository's settings cannot be read.
    #[error(transparent)]
    Settings(#[from] ConfigError),
    /// A named path cannot be read, or an exclude glob is invalid.
    #[error("{0}")]
    Files(String),
}

/// Runs the syntax gate on files as they are: the named files and the files under the named
/// directories (`.` for the root), with the repository's settings (its excludes, its external
/// checks) and `opts`.
pub fn check(root: &Root, paths: &[String], opts: &CheckOptions) -> Result<Checked, CheckError> {
    let config = Config::load(root)?;
    let mut exclude = config.check_excludes();
    exclude.extend(opts.exclude.iter().cloned());
    let files = collect(root, paths, &exclude).map_err(CheckError::Files)?;
    let mut gate = config.gate_options();
    if opts.no_compile_check {
        gate.external.clear();
    }
    Ok(Checked {
        report: lancet_syntax::check_contents(&files, &gate),
        ignored: config.ignored,
    })
}

/// Reads every file named or found under the named directories (hidden directories skipped),
/// as (path relative to the root, bytes), sorted by path, leaving out paths matching an
/// `exclude` glob. A named path must be a regular file or a directory; FIFOs, sockets and
/// devices found while walking are skipped unopened.
fn collect(
    root: &Root,
    paths: &[String],
    exclude: &[String],
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let excluded = crate::config::globs(exclude).map_err(|e| format!("--exclude: {e}"))?;
    // The gate's external checks never run a program from inside the tree.
    lancet_syntax::distrust_programs_under(root.path());
    let mut out = Vec::new();
    for raw in paths {
        let rel = match root.walk_rel(raw).map_err(|e| e.to_string())? {
            None => String::new(),
            Some(rel) => root
                .resolve(&rel, true)
                .map_err(|e| e.to_string())?
                .real
                .to_string(),
        };
        let at = if rel.is_empty() { "." } else { rel.as_str() };
        let meta = root
            .dir()
            .symlink_metadata(at)
            .map_err(|e| format!("cannot read {raw}: {e}"))?;
        if !meta.is_file() && !meta.is_dir() {
            return Err(format!(
                "cannot read {raw}: it is not a regular file or directory (a FIFO, socket or device)"
            ));
        }
        walk(root, &rel, &excluded, &mut out).map_err(|e| format!("cannot read {raw}: {e}"))?;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    Ok(out)
}

/// Collects `rel` (a file, or a directory walked recursively; `""` is the root), never reading
/// an excluded file.
fn walk(
    root: &Root,
    rel: &str,
    excluded: &globset::GlobSet,
    out: &mut Vec<(String, Vec<u8>)>,
) -> std::io::Result<()> {
    let dir = root.dir();
    let at = Path::new(if rel.is_empty() { "." } else { rel });
    if excluded.is_match(rel) {
        return Ok(());
    }
    if dir.symlink_metadata(at)?.is_file() {
        out.push((rel.to_string(), dir.read(at)?));
        return Ok(());
    }
    for entry in dir.read_dir(at)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let kind = entry.file_type()?;
        if kind.is_dir() && !name.starts_with('.') {
            walk(root, &child, excluded, out)?;
        } else if kind.is_file() && !excluded.is_match(&child) {
            out.push((child.clone(), dir.read(&child)?));
        }
    }
    Ok(())
}
