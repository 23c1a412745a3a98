//! The walked `.py` files, indexed for the questions an import asks of them: is this path a
//! file, is this directory on some file's path, which files could be module `a.b`, is a name
//! any module's or package's. A move's import-cycle search asks them for every import of
//! hundreds of modules; a list scanned per question made that search cost more than the
//! rename it is built on.

use std::collections::{HashMap, HashSet};

/// The tree's Python files and the indexes over them.
pub(super) struct TreeFiles {
    /// Every file, by path.
    paths: HashSet<String>,
    /// Every directory some file sits under (each prefix of each path).
    dirs: HashSet<String>,
    /// Every file stem and directory name anywhere in the tree.
    names: HashSet<String>,
    /// The files each module name's last part could be (`b` → `a/b.py`, `x/b/__init__.py`).
    by_last: HashMap<String, Vec<String>>,
}

impl TreeFiles {
    /// Over the walked files (those ending `.py`).
    pub(super) fn new(files: &[String]) -> Self {
        let mut index = TreeFiles {
            paths: HashSet::new(),
            dirs: HashSet::new(),
            names: HashSet::new(),
            by_last: HashMap::new(),
        };
        for f in files.iter().filter(|f| f.ends_with(".py")) {
            let (dir, file) = f.rsplit_once('/').unwrap_or(("", f));
            let stem = file.strip_suffix(".py").unwrap_or(file);
            index.names.insert(stem.to_string());
            let last = match (stem, dir.rsplit_once('/')) {
                ("__init__", Some((_, package))) => package,
                ("__init__", None) if !dir.is_empty() => dir,
                _ => stem,
            };
            index
                .by_last
                .entry(last.to_string())
                .or_default()
                .push(f.clone());
            let mut prefix = dir;
            while !prefix.is_empty() && index.dirs.insert(prefix.to_string()) {
                let (parent, name) = prefix.rsplit_once('/').unwrap_or(("", prefix));
                index.names.insert(name.to_string());
                prefix = parent;
            }
            index.paths.insert(f.clone());
        }
        index
    }

    /// Whether `path` is a file of the tree.
    pub(super) fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// Every file, in path order.
    pub(super) fn sorted(&self) -> Vec<&String> {
        let mut paths: Vec<&String> = self.paths.iter().collect();
        paths.sort();
        paths
    }

    /// Whether some file sits under directory `dir`.
    pub(super) fn has_dir(&self, dir: &str) -> bool {
        self.dirs.contains(dir)
    }

    /// Whether a file stem or a directory anywhere in the tree is named `name`.
    pub(super) fn names_anything(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The files whose module name ends in `last` (a module file or a package's
    /// `__init__.py`), in walk order.
    pub(super) fn ending_in(&self, last: &str) -> &[String] {
        self.by_last.get(last).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::TreeFiles;

    #[test]
    fn indexes_paths_directories_names_and_last_parts() {
        let files: Vec<String> = [
            "a/b.py",
            "a/__init__.py",
            "x/y/b/__init__.py",
            "top.py",
            "README.md",
        ]
        .map(String::from)
        .to_vec();
        let tree = TreeFiles::new(&files);
        assert!(tree.contains("a/b.py") && !tree.contains("README.md"));
        assert!(tree.has_dir("x") && tree.has_dir("x/y/b") && !tree.has_dir("y"));
        assert!(
            tree.names_anything("y") && tree.names_anything("top") && !tree.names_anything("z")
        );
        assert_eq!(tree.ending_in("b"), ["a/b.py", "x/y/b/__init__.py"]);
        assert_eq!(tree.ending_in("a"), ["a/__init__.py"]);
    }
}
