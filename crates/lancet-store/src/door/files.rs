//! The file steps the commit sequence is made of: a temp file written with the target's mode, a
//! pre-image kept, and the directories a batch makes or empties.

use crate::state::PreImages;
use cap_std::fs::{Dir, File, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};
use lancet_core::failpoint;
use lancet_core::{Before, RelPath, StagedFile};
use std::io::{self, Write};

/// Creates the temp file (never an existing one) and writes the content with the target's mode
/// (or the umask's default for a new file); returns it open, for the caller to sync.
pub(super) fn write_temp(
    dir: &Dir,
    temp: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<File> {
    failpoint::check("write")?;
    let mut file = dir.open_with(
        temp,
        OpenOptions::new().write(true).create_new(true).mode(0o666),
    )?;
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    Ok(file)
}

/// Keeps the original of a file about to be replaced: a hard link (the same inode, so content,
/// mode and owner come back exactly), or a copy where linking is impossible, or always a copy
/// for a file written in place (its inode is about to change).
pub(super) fn keep_pre_image(
    dir: &Dir,
    target: &str,
    pre: &PreImages,
    backup: &str,
    in_place: bool,
) -> io::Result<()> {
    failpoint::check("backup")?;
    if !in_place && dir.hard_link(target, &pre.dir, backup).is_ok() {
        return Ok(());
    }
    dir.copy(target, &pre.dir, backup)?;
    pre.dir.open(backup)?.sync_all()
}

/// The directories a batch's deletions leave empty (nothing else in them, nothing written into
/// them), outermost first: they go with their last file, as git removes them.
pub(super) fn emptied_dirs(root: &Dir, files: &[StagedFile]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let deleted: BTreeSet<&str> = files
        .iter()
        .filter(|f| !f.puts_something() && f.before != Before::Missing)
        .map(|f| f.path.as_str())
        .collect();
    let written: Vec<&str> = files
        .iter()
        .filter(|f| f.puts_something())
        .map(|f| f.path.as_str())
        .collect();
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for path in &deleted {
        let mut cur = RelPath::from_state(path).and_then(|p| p.parent());
        while let Some(d) = cur {
            cur = d.parent();
            candidates.insert(d.to_string());
        }
    }
    // Innermost first: a directory is emptied when each of its entries is deleted or is an
    // emptied directory itself.
    let mut emptied: BTreeMap<String, bool> = BTreeMap::new();
    let mut by_depth: Vec<&String> = candidates.iter().collect();
    by_depth.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    for d in by_depth {
        let receives = written.iter().any(|w| {
            w.strip_prefix(d.as_str())
                .is_some_and(|r| r.starts_with('/'))
        });
        let all_go = root.read_dir(d).is_ok_and(|entries| {
            entries.flatten().all(|e| {
                let child = format!("{d}/{}", e.file_name().to_string_lossy());
                deleted.contains(child.as_str()) || emptied.get(&child) == Some(&true)
            })
        });
        emptied.insert(d.clone(), all_go && !receives);
    }
    let mut out: Vec<String> = emptied
        .into_iter()
        .filter(|(_, e)| *e)
        .map(|(d, _)| d)
        .collect();
    out.sort_by_key(|d| d.matches('/').count());
    out
}

/// Ancestors of `dir` (relative to the root) that do not exist yet, outermost first.
pub(super) fn missing_dirs(root: &Dir, dir: &RelPath) -> Vec<String> {
    let mut missing = Vec::new();
    let mut cur = Some(dir.clone());
    while let Some(d) = cur {
        if root.symlink_metadata(d.as_path()).is_ok() {
            break;
        }
        cur = d.parent();
        missing.push(d.to_string());
    }
    missing.reverse();
    missing
}
