//! Python module names of the tree's files, as `import` spells them: a file's dotted name
//! (its packages, up to the first directory without `__init__.py`), an import of one module
//! written from another (relative when the importer's own import was, and both sit in one
//! package), and whether a destination can be imported at all.

use crate::rename::scan::is_identifier;
use crate::report::DestinationProblem;
use std::collections::HashSet;

/// The tree's Python files, for the package questions.
pub(super) struct Modules<'a> {
    files: HashSet<&'a str>,
}

/// The directory of a path (`""` at the root).
pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

impl<'a> Modules<'a> {
    /// Over the walked files.
    pub(super) fn new(files: &'a [String]) -> Self {
        Modules {
            files: files.iter().map(String::as_str).collect(),
        }
    }

    /// Whether a directory is a package (holds `__init__.py`).
    pub(super) fn is_package(&self, dir: &str) -> bool {
        !dir.is_empty() && self.files.contains(format!("{dir}/__init__.py").as_str())
    }

    /// The dotted name `import` reaches a file by: its stem, under each package directory
    /// above it (`src/shop/cart.py` → `shop.cart` when `src/` is no package).
    pub(super) fn dotted(&self, path: &str) -> String {
        let stem = path.strip_suffix(".py").unwrap_or(path);
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let (mut dir, file) = stem.rsplit_once('/').unwrap_or(("", stem));
        let mut names = vec![file];
        while self.is_package(dir) {
            let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
            names.push(name);
            dir = parent;
        }
        names.reverse();
        names.join(".")
    }

    /// The module `target` as an import in `from_file` spells it: relative (`.b`, `..x.b`)
    /// when `relative` and both sit under one top package, else its dotted name.
    pub(super) fn spell(&self, from_file: &str, target: &str, relative: bool) -> String {
        if relative && let Some(spelled) = self.relative(from_file, target) {
            return spelled;
        }
        self.dotted(target)
    }

    /// `target` relative to `from_file`'s package, when both are in one top package.
    fn relative(&self, from_file: &str, target: &str) -> Option<String> {
        let from_dir = dir_of(from_file);
        if !self.is_package(from_dir) {
            return None;
        }
        let target_stem = target.strip_suffix(".py")?;
        let target_stem = target_stem.strip_suffix("/__init__").unwrap_or(target_stem);
        let (from_dotted, target_dotted) = (self.dotted(from_file), self.dotted(target));
        let (from_top, target_top) = (
            from_dotted.split('.').next()?,
            target_dotted.split('.').next()?,
        );
        if from_top != target_top {
            return None;
        }
        let from_parts: Vec<&str> = from_dir.split('/').collect();
        let target_parts: Vec<&str> = target_stem.split('/').collect();
        let common = from_parts
            .iter()
            .zip(&target_parts)
            .take_while(|(a, b)| a == b)
            .count();
        let ups = from_parts.len() - common;
        let rest = target_parts[common..].join(".");
        Some(format!("{}{rest}", ".".repeat(ups + 1)))
    }

    /// Why a destination cannot be a module the code moves to, if it cannot: a directory
    /// missing or no package (not the root, a source root or the old module's own directory outside
    /// any package),
    /// a path part no module name can spell.
    pub(super) fn importable(
        &self,
        to: &str,
        from: &str,
        dir_exists: bool,
    ) -> Result<(), DestinationProblem> {
        let dir = dir_of(to);
        if !dir_exists {
            return Err(DestinationProblem::NoDirectory(dir.to_string()));
        }
        let reachable = dir.is_empty()
            || self.is_package(dir)
            || matches!(dir, "src" | "lib")
            // A directory of scripts run from it; not a directory inside a package without
            // `__init__.py` (a namespace package, which the module names here do not spell).
            || (dir == dir_of(from) && !self.is_package(dir_of(dir)));
        if !reachable {
            return Err(DestinationProblem::NotImportable(dir.to_string()));
        }
        match self.dotted(to).split('.').find(|p| !is_identifier(p)) {
            Some(part) => Err(DestinationProblem::NotModuleName(part.to_string())),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Modules;

    #[test]
    fn files_are_named_by_their_packages_and_spelled_relative_inside_one() {
        let files: Vec<String> = [
            "src/shop/__init__.py",
            "src/shop/cart.py",
            "src/shop/util/__init__.py",
            "src/shop/util/money.py",
            "tools/run.py",
            "top.py",
        ]
        .map(String::from)
        .to_vec();
        let m = Modules::new(&files);
        assert_eq!(m.dotted("src/shop/cart.py"), "shop.cart");
        assert_eq!(m.dotted("src/shop/util/__init__.py"), "shop.util");
        assert_eq!(m.dotted("tools/run.py"), "run");
        assert_eq!(m.dotted("top.py"), "top");
        assert_eq!(
            m.spell("src/shop/util/money.py", "src/shop/cart.py", true),
            "..cart"
        );
        assert_eq!(
            m.spell("src/shop/cart.py", "src/shop/util/money.py", true),
            ".util.money"
        );
        assert_eq!(
            m.spell("src/shop/cart.py", "src/shop/util/money.py", false),
            "shop.util.money"
        );
        assert_eq!(m.spell("top.py", "src/shop/cart.py", true), "shop.cart");
        assert!(m.importable("src/shop/new.py", "top.py", true).is_ok());
        assert!(m.importable("tools/new.py", "top.py", true).is_err());
        assert!(m.importable("tools/new.py", "tools/run.py", true).is_ok());
        assert!(m.importable("my-mod.py", "top.py", true).is_err());
    }
}
