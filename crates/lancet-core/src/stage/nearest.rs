//! The paths a model probably meant when it named one that does not exist: the same file name
//! elsewhere in the tree, or a near spelling. A refusal that says "did you mean app/util.py?"
//! turns a second guess into a fix, as the nearest lines do for a hunk that missed.

use crate::path::Root;
use std::collections::VecDeque;

/// At most this many directory entries are looked at: a suggestion must stay cheap on a huge tree.
const MAX_ENTRIES: usize = 20_000;
/// Directories no edit means: dependencies, build output, caches.
const SKIPPED_DIRS: [&str; 5] = ["node_modules", "target", "__pycache__", "venv", "dist"];
/// How close a different spelling must be (normalised Levenshtein of the whole path).
const MIN_SIMILARITY: f64 = 0.75;
/// At most this many suggestions, best first.
const MAX_SUGGESTIONS: usize = 3;

/// Existing files like `missing` (a path relative to the root), best first: those with its
/// file name (the longer their shared tail of directories, the better), else those within a
/// small edit of its spelling. Empty when nothing is close.
pub(super) fn paths_like(root: &Root, missing: &str) -> Vec<String> {
    let wanted = missing.to_lowercase();
    let wanted_name = wanted.rsplit('/').next().unwrap_or(&wanted).to_string();
    let mut scored: Vec<(f64, String)> = Vec::new();
    for file in files_under(root) {
        let lower = file.to_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let spelling = strsim::normalized_levenshtein(&wanted, &lower);
        let score = if name == wanted_name {
            // Same name: rank by the directories it shares at the end, then by spelling.
            1.0 + shared_tail(&wanted, &lower) as f64 + spelling
        } else if spelling >= MIN_SIMILARITY {
            spelling
        } else {
            continue;
        };
        scored.push((score, file));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, path)| path)
        .collect()
}

/// How many trailing path components two paths share.
fn shared_tail(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The regular files under the root, breadth first, hidden and dependency directories left out,
/// up to [`MAX_ENTRIES`] entries. Links are not followed.
fn files_under(root: &Root) -> Vec<String> {
    let mut files = Vec::new();
    let mut queue: VecDeque<String> = VecDeque::from([String::new()]);
    let mut seen = 0usize;
    while let Some(dir) = queue.pop_front() {
        let entries = if dir.is_empty() {
            root.dir().entries()
        } else {
            root.dir().read_dir(&dir)
        };
        let Ok(entries) = entries else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return files;
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            if kind.is_dir() && !SKIPPED_DIRS.contains(&name.as_str()) {
                queue.push_back(path);
            } else if kind.is_file() {
                files.push(path);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::paths_like;
    use crate::path::Root;

    fn tree(files: &[&str]) -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x\n").unwrap();
        }
        let root = Root::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn the_same_name_elsewhere_comes_first_then_near_spellings() {
        let (_d, root) = tree(&[
            "src/app/util.py",
            "tests/util.py",
            "src/app/utils.py",
            "node_modules/x/src/util.py",
            ".git/util.py",
        ]);
        assert_eq!(
            paths_like(&root, "app/util.py"),
            ["src/app/util.py", "tests/util.py"]
        );
        assert_eq!(paths_like(&root, "src/app/utill.py")[0], "src/app/util.py");
        assert_eq!(paths_like(&root, "SRC/App/Util.py")[0], "src/app/util.py");
        assert!(paths_like(&root, "docs/guide.md").is_empty());
    }
}
