//! The crates a Cargo tree's manifests name, as the code of each package reaches them. A path
//! that starts with the name of a dependency fetched from a registry or git (`use
//! itoa::Buffer`), or whose `path` leads to no manifest of the tree, names that crate's items,
//! never the tree's, however the tree names its own: such a path leaves the tree as `std::…`
//! does. A workspace member reached by name (`use my_util::helper`: a `path` dependency under
//! the root, or the package's own name in its tests and doctests) is the tree's, and its
//! library's root file is known, so that `my_util::text::shout` can be told from another
//! crate's `shout`. A name no manifest declares keeps resolving by name (nothing is known of it).

use std::collections::{HashMap, HashSet};

/// The crate names the code of one package reaches.
#[derive(Clone, Default)]
pub(super) struct CrateNames {
    /// Crates outside the tree (`itoa`, `serde`).
    pub(super) outside: HashSet<String>,
    /// Crates of the tree, each with its library's root file (`my_util` →
    /// `crates/my-util/src/lib.rs`).
    pub(super) tree: HashMap<String, String>,
    /// The package's directory (root-relative, `""` for the root).
    pub(super) package: String,
}

/// Each package manifest's directory (root-relative, `""` for the root) and the crate names
/// its code reaches.
pub(super) struct Crates {
    packages: Vec<(String, CrateNames)>,
}

/// The tables of a manifest that declare dependencies (`[target.'cfg(..)'.dependencies]` too).
const DEPENDENCY_TABLES: &[&str] = &["dependencies", "dev-dependencies", "build-dependencies"];

impl Crates {
    /// Reads every `Cargo.toml` among the walked files (a manifest that does not parse declares
    /// nothing: its paths keep resolving by name).
    pub(super) fn new(files: &[String], read: &(dyn Fn(&str) -> Option<String> + Sync)) -> Self {
        let manifests: Vec<(String, toml::Table)> = files
            .iter()
            .filter(|f| *f == "Cargo.toml" || f.ends_with("/Cargo.toml"))
            .filter_map(|f| {
                let table = read(f)?.parse::<toml::Table>().ok()?;
                let dir = f.strip_suffix("Cargo.toml").unwrap_or_default();
                Some((dir.trim_end_matches('/').to_string(), table))
            })
            .collect();
        let library = |dir: &str| -> Option<String> {
            let (_, table) = manifests.iter().find(|(d, _)| d == dir)?;
            table.get("package")?;
            let lib = table
                .get("lib")
                .and_then(|l| l.get("path"))
                .and_then(toml::Value::as_str)
                .unwrap_or("src/lib.rs");
            Some(join(dir, lib.trim_start_matches("./")))
        };
        let packages = manifests
            .iter()
            .filter(|(_, t)| t.contains_key("package"))
            .map(|(dir, table)| {
                let workspace = workspace_of(dir, &manifests);
                let mut names = CrateNames {
                    package: dir.clone(),
                    ..CrateNames::default()
                };
                if let Some(own) = table
                    .get("lib")
                    .and_then(|l| l.get("name"))
                    .or_else(|| table.get("package")?.get("name"))
                    .and_then(toml::Value::as_str)
                    && let Some(root) = library(dir)
                {
                    names.tree.insert(own.replace('-', "_"), root);
                }
                for (key, spec) in dependencies(table) {
                    let (base, spec) = match spec.get("workspace") {
                        Some(toml::Value::Boolean(true)) => {
                            let Some((wdir, wtable)) = workspace else {
                                continue;
                            };
                            let Some(spec) = workspace_dependency(wtable, key) else {
                                continue;
                            };
                            (wdir, spec)
                        }
                        _ => (dir.as_str(), spec),
                    };
                    let name = key.replace('-', "_");
                    match dependency_dir(base, &spec).and_then(|d| library(&d)) {
                        Some(root) => {
                            names.tree.insert(name, root);
                        }
                        None => {
                            names.outside.insert(name);
                        }
                    }
                }
                (dir.clone(), names)
            })
            .collect();
        Crates { packages }
    }

    /// The crate names the code of `path` reaches: its package's (the manifest nearest above
    /// it).
    pub(super) fn of(&self, path: &str) -> CrateNames {
        self.packages
            .iter()
            .filter(|(dir, _)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .max_by_key(|(dir, _)| dir.len())
            .map(|(_, names)| names.clone())
            .unwrap_or_default()
    }
}

/// `dir/rel`, for a root-relative directory (`""` is the root).
fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// A manifest's dependencies, each as a table (`"1.0"` is `{ version = "1.0" }`).
fn dependencies(table: &toml::Table) -> impl Iterator<Item = (&String, toml::Table)> {
    let targets = table
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|t| t.values().filter_map(toml::Value::as_table));
    std::iter::once(table)
        .chain(targets)
        .flat_map(|t| {
            DEPENDENCY_TABLES
                .iter()
                .filter_map(|k| t.get(*k).and_then(toml::Value::as_table))
        })
        .flat_map(|deps| deps.iter())
        .map(|(key, spec)| (key, as_spec(spec)))
}

fn as_spec(spec: &toml::Value) -> toml::Table {
    match spec {
        toml::Value::Table(t) => t.clone(),
        other => toml::Table::from_iter([("version".to_string(), other.clone())]),
    }
}

/// The workspace manifest a package belongs to: the nearest manifest at or above its directory
/// with a `[workspace]` table.
fn workspace_of<'m>(
    dir: &str,
    manifests: &'m [(String, toml::Table)],
) -> Option<(&'m str, &'m toml::Table)> {
    manifests
        .iter()
        .filter(|(d, t)| {
            t.contains_key("workspace")
                && (d.is_empty() || dir == d || dir.starts_with(&format!("{d}/")))
        })
        .max_by_key(|(d, _)| d.len())
        .map(|(d, t)| (d.as_str(), t))
}

/// `[workspace.dependencies] key`, which a member's `key = { workspace = true }` inherits.
fn workspace_dependency(workspace: &toml::Table, key: &str) -> Option<toml::Table> {
    let deps = workspace.get("workspace")?.get("dependencies")?;
    deps.get(key).map(as_spec)
}

/// The root-relative directory of a `path` dependency declared in the manifest of `base`;
/// `None` for a crate from a registry or git, or a path that leaves the root.
fn dependency_dir(base: &str, spec: &toml::Table) -> Option<String> {
    let path = spec.get("path").and_then(toml::Value::as_str)?;
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crates(files: &[(&str, &str)]) -> Crates {
        let paths: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        let read = |p: &str| {
            files
                .iter()
                .find(|(f, _)| *f == p)
                .map(|(_, t)| t.to_string())
        };
        Crates::new(&paths, &read)
    }

    #[test]
    fn registry_and_git_dependencies_are_outside_and_members_are_not() {
        let c = crates(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\n[workspace.dependencies]\nmemchr = \"2\"\nmy-util = { path = \"crates/my-util\" }\n",
            ),
            (
                "crates/app/Cargo.toml",
                "[package]\nname = \"app\"\n[dependencies]\nitoa = \"1\"\nu = { package = \"my-util\", path = \"../my-util\" }\nmy-util.workspace = true\nmemchr = { workspace = true }\ngit-dep = { git = \"https://example.com/x\" }\nfar = { path = \"../../../elsewhere\" }\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n",
            ),
            (
                "crates/my-util/Cargo.toml",
                "[package]\nname = \"my-util\"\n",
            ),
        ]);
        let app = c.of("crates/app/src/main.rs");
        let mut outside: Vec<&String> = app.outside.iter().collect();
        outside.sort();
        assert_eq!(outside, ["far", "git_dep", "itoa", "libc", "memchr"]);
        let mut tree: Vec<(&String, &String)> = app.tree.iter().collect();
        tree.sort();
        assert_eq!(
            tree,
            [
                (&"app".to_string(), &"crates/app/src/lib.rs".to_string()),
                (
                    &"my_util".to_string(),
                    &"crates/my-util/src/lib.rs".to_string()
                ),
                (&"u".to_string(), &"crates/my-util/src/lib.rs".to_string()),
            ]
        );
        assert!(c.of("crates/my-util/src/lib.rs").outside.is_empty());
        assert!(c.of("tools/x.rs").tree.is_empty());
    }
}
