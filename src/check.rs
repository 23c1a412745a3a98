//! `lancet check`: which files to run the syntax gate on, read from disk as they are.

use crate::path::Root;
use std::path::Path;

/// Reads every file named or found under the named directories (hidden directories skipped),
/// as (path relative to the root, bytes), sorted by path.
pub fn collect(root: &Root, paths: &[String]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for raw in paths {
        let dir_or_file = if raw == "." {
            root.path().to_path_buf()
        } else {
            let rel = root.rel(raw).map_err(|e| e.to_string())?;
            root.resolve(&rel, true).map_err(|e| e.to_string())?.real
        };
        walk(root, &dir_or_file, &mut out).map_err(|e| format!("cannot read {raw}: {e}"))?;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    Ok(out)
}

fn walk(root: &Root, path: &Path, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        out.push((root.display_rel(path), std::fs::read(path)?));
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        let kind = entry.file_type()?;
        if kind.is_dir() && !hidden {
            walk(root, &entry.path(), out)?;
        } else if kind.is_file() {
            out.push((
                root.display_rel(&entry.path()),
                std::fs::read(entry.path())?,
            ));
        }
    }
    Ok(())
}
