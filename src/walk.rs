//! The files a tree-wide command (`rename`, `mod`) looks at: the `ignore` walker under the
//! requested paths, honouring `.gitignore`, `.ignore` and hidden files also outside git, and
//! the person's `[walk] exclude`; never lancet's own state or a repository directory. Paths
//! are confined to the root: a path or a link leading outside is refused, not walked.

use lancet_core::{PathError, Root};

/// The files found (relative to the root, sorted) and what could not be walked.
pub(crate) type Walked = (Vec<String>, Vec<String>);

/// Why the requested paths cannot be walked.
#[derive(Debug)]
pub(crate) enum WalkRefusal {
    /// A path (or a link on it) leads outside the root.
    Outside(PathError),
    /// A path does not exist under the root.
    Missing(String),
}

/// The files under `paths` (the whole root when empty), relative to the root, but those
/// `exclude` matches. Unreadable directories are returned as reasons, not errors: one bad
/// directory does not stop the command elsewhere, and the report lists it.
pub(crate) fn walk(
    root: &Root,
    paths: &[String],
    exclude: &globset::GlobSet,
) -> Result<Walked, WalkRefusal> {
    let mut starts = Vec::new();
    for p in paths {
        // `.` (the root itself) walks the whole root, as ripgrep and ast-grep take it.
        let Some(rel) = root.walk_rel(p).map_err(WalkRefusal::Outside)? else {
            starts.push(root.path().to_path_buf());
            continue;
        };
        // Through the root's handle: a link leading outside is refused here, as `read` and
        // `check` refuse it, instead of walking and printing someone else's files.
        let real = root.resolve(&rel, true).map_err(WalkRefusal::Outside)?;
        if root.dir().symlink_metadata(real.real.as_path()).is_err() {
            return Err(WalkRefusal::Missing(p.clone()));
        }
        starts.push(root.path().join(real.real.as_str()));
    }
    if starts.is_empty() {
        starts.push(root.path().to_path_buf());
    }
    let mut builder = ignore::WalkBuilder::new(&starts[0]);
    for s in &starts[1..] {
        builder.add(s);
    }
    builder
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".lancet" && e.file_name() != ".git");
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for entry in builder.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                unreadable.push(e.to_string());
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue; // directories, and symlinks: their targets are walked in their own place
        }
        let full = entry.into_path();
        if let Ok(rel) = full.strip_prefix(root.path())
            && !exclude.is_match(rel)
        {
            files.push(rel.to_string_lossy().into_owned());
        }
    }
    files.sort();
    files.dedup();
    Ok((files, unreadable))
}
