//! Packages of a JavaScript/TypeScript workspace whose sources are under the root. A bare
//! specifier (`@demo/a`, `@demo/a/util`) names a file of the tree when a tsconfig `paths` entry
//! maps it there, when a `package.json` of the tree has that `name` (npm, pnpm and yarn
//! workspaces), or when `node_modules/<name>` is a link into the tree (a workspace install).
//! Such an import is the tree's own: a rename follows it, and where lancet cannot find the file
//! it names the import is undecided, never another package's (a monorepo's importer left with
//! the old name fails to compile).

use crate::rename::memo::remembered;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// What a bare specifier names, as far as the tree tells.
pub(super) enum Bare {
    /// Paths of the tree to try in order (each without its extension probed yet).
    Candidates(Vec<String>),
    /// A package of the tree, with the candidates its manifest names; none found is undecided.
    Package {
        dir: String,
        candidates: Vec<String>,
    },
    /// Not a package of the tree.
    Outside,
}

/// A tsconfig's module mappings: `paths` patterns with their targets, relative to the root.
#[derive(Default, Clone)]
struct Mappings {
    /// `(pattern, targets)`, each with at most one `*`; targets already joined to the base.
    paths: Vec<(String, Vec<String>)>,
}

/// The workspace's packages and tsconfig files, read once when a bare specifier is met.
pub(super) struct Packages<'a> {
    files: &'a [String],
    read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    real: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// Package name → its directory (root-relative, `""` for the root).
    by_name: OnceLock<HashMap<String, String>>,
    /// tsconfig.json path → its mappings (with `extends` followed).
    configs: std::sync::Mutex<HashMap<String, Arc<Mappings>>>,
    /// A directory → the mappings of the tsconfig nearest it: every specifier of its files
    /// asks, and finding the config is a look through the walked files.
    dir_mappings: std::sync::Mutex<HashMap<String, Option<Arc<Mappings>>>>,
    /// A path (`…/node_modules`, `…/node_modules/<name>`) → where it leads, once looked up:
    /// every file of a directory asks the same paths, for every bare import and every string
    /// a move reads as a possible module name, and each answer is a walk of the file system.
    links: std::sync::Mutex<HashMap<String, Option<String>>>,
}

impl<'a> Packages<'a> {
    /// Over the walked files, a reader of the tree and a resolver of its links (the path a
    /// path of the tree leads to, when it stays in the tree).
    pub(super) fn new(
        files: &'a [String],
        read: &'a (dyn Fn(&str) -> Option<String> + Sync),
        real: &'a (dyn Fn(&str) -> Option<String> + Sync),
    ) -> Self {
        Packages {
            files,
            read,
            real,
            by_name: OnceLock::new(),
            configs: std::sync::Mutex::new(HashMap::new()),
            dir_mappings: std::sync::Mutex::new(HashMap::new()),
            links: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// What `specifier`, imported by the file `from`, names in the tree.
    pub(super) fn bare(&self, from: &str, specifier: &str) -> Bare {
        let mapped = self.mapped(from, specifier);
        if !mapped.is_empty() {
            return Bare::Candidates(mapped);
        }
        let (name, subpath) = split_package(specifier);
        let dir = self
            .names()
            .get(name)
            .cloned()
            .or_else(|| self.linked(from, name));
        match dir {
            Some(dir) => {
                let candidates = self.entries(&dir, subpath);
                Bare::Package { dir, candidates }
            }
            None => Bare::Outside,
        }
    }

    /// Whether any bare specifier imported by `from` may name a file of the tree: its nearest
    /// tsconfig maps some (`paths`), the tree has a package of its own, or a `node_modules`
    /// stands beside `from` or above it (a link there may lead into the tree). When not, every
    /// bare specifier of `from` is [`Bare::Outside`], and a caller asking of many (a move, of
    /// every string it reads) need not ask one by one.
    pub(super) fn bare_may_reach_tree(&self, from: &str) -> bool {
        if self
            .nearest_mappings(from)
            .is_some_and(|m| !m.paths.is_empty())
            || !self.names().is_empty()
        {
            return true;
        }
        let mut dir = parent(from);
        loop {
            if self.real_of(&join(&dir, "node_modules")).is_some() {
                return true;
            }
            if dir.is_empty() {
                return false;
            }
            dir = parent(&dir);
        }
    }

    /// Package names of the tree's manifests (outside `node_modules`).
    fn names(&self) -> &HashMap<String, String> {
        self.by_name.get_or_init(|| {
            let mut names = HashMap::new();
            for file in self.files {
                let Some(dir) = manifest_dir(file) else {
                    continue;
                };
                if dir.split('/').any(|part| part == "node_modules") {
                    continue;
                }
                let name = self
                    .json(file)
                    .and_then(|doc| doc.get("name")?.as_str().map(str::to_string));
                if let Some(name) = name {
                    names.entry(name).or_insert(dir);
                }
            }
            names
        })
    }

    /// Where a path of the tree leads, when it exists (the tree's resolver, asked once per
    /// path).
    fn real_of(&self, path: &str) -> Option<String> {
        remembered(&self.links, path.to_string(), || (self.real)(path))
    }

    /// `node_modules/<name>` beside `from` or above it, when it is a link into the tree outside
    /// any `node_modules` (a workspace install); an installed package is another package.
    fn linked(&self, from: &str, name: &str) -> Option<String> {
        let mut dir = parent(from);
        loop {
            // Where `node_modules` is missing (or leads out of the tree), nothing under it leads
            // into the tree: its names are not looked up one by one.
            let modules = join(&dir, "node_modules");
            if self.real_of(&modules).is_some() {
                let link = join(&modules, name);
                if let Some(real) = self.real_of(&link)
                    && real != link
                    && !real.split('/').any(|part| part == "node_modules")
                {
                    return Some(real);
                }
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent(&dir);
        }
    }

    /// The files a package's subpath may be, in order: its manifest's `exports`, `types`,
    /// `module` and `main` (and the sources a build output was made from: `dist/x.js` from
    /// `src/x.ts`), then the subpath itself and `src/`.
    fn entries(&self, dir: &str, subpath: &str) -> Vec<String> {
        let manifest = self.json(&join(dir, "package.json"));
        let mut named: Vec<String> = Vec::new();
        if let Some(doc) = &manifest {
            let key = if subpath.is_empty() {
                ".".to_string()
            } else {
                format!("./{subpath}")
            };
            if let Some(exports) = doc.get("exports") {
                exports_targets(exports, &key, &mut named);
            }
            if subpath.is_empty() {
                for field in ["types", "typings", "module", "main"] {
                    if let Some(s) = doc.get(field).and_then(|v| v.as_str()) {
                        named.push(s.to_string());
                    }
                }
            }
        }
        if !subpath.is_empty() {
            named.push(subpath.to_string());
        }
        let mut out = Vec::new();
        for target in named {
            let target = target.trim_start_matches("./");
            out.push(join(dir, target));
            if let Some(source) = built_from(target) {
                out.push(join(dir, &source));
            }
        }
        let rest = if subpath.is_empty() { "index" } else { subpath };
        out.push(join(dir, &format!("src/{rest}")));
        out.push(join(dir, rest));
        out.dedup();
        out
    }

    /// The targets of the nearest tsconfig's `paths` that match `specifier`, in order.
    fn mapped(&self, from: &str, specifier: &str) -> Vec<String> {
        let Some(mappings) = self.nearest_mappings(from) else {
            return Vec::new();
        };
        // An exact pattern first, then the longest prefix before a `*`, as TypeScript does.
        let mut best: Option<(usize, Vec<String>)> = None;
        for (pattern, targets) in &mappings.paths {
            let (score, star) = match pattern.split_once('*') {
                None if pattern == specifier => (usize::MAX, None),
                None => continue,
                Some((pre, post))
                    if specifier.len() >= pre.len() + post.len()
                        && specifier.starts_with(pre)
                        && specifier.ends_with(post) =>
                {
                    (
                        pre.len(),
                        Some(&specifier[pre.len()..specifier.len() - post.len()]),
                    )
                }
                Some(_) => continue,
            };
            if best.as_ref().is_none_or(|(b, _)| score > *b) {
                let filled = targets
                    .iter()
                    .map(|t| match star {
                        Some(s) => t.replacen('*', s, 1),
                        None => t.clone(),
                    })
                    .collect();
                best = Some((score, filled));
            }
        }
        best.map(|(_, t)| t).unwrap_or_default()
    }

    /// The mappings of the tsconfig nearest `from`, once per directory.
    fn nearest_mappings(&self, from: &str) -> Option<Arc<Mappings>> {
        let dir = parent(from);
        if let Some(known) = self.dir_mappings.lock().ok()?.get(&dir) {
            return known.clone();
        }
        let mappings = self
            .nearest_config(from)
            .map(|config| self.mappings(&config, 0));
        self.dir_mappings.lock().ok()?.insert(dir, mappings.clone());
        mappings
    }

    /// The tsconfig.json (or jsconfig.json) in the directory of `from` or the nearest above.
    fn nearest_config(&self, from: &str) -> Option<String> {
        let mut dir = parent(from);
        loop {
            for name in ["tsconfig.json", "jsconfig.json"] {
                let path = join(&dir, name);
                if self.files.contains(&path) {
                    return Some(path);
                }
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent(&dir);
        }
    }

    /// A tsconfig's `paths`, its `extends` of the tree followed (the nearer config wins).
    fn mappings(&self, config: &str, depth: usize) -> Arc<Mappings> {
        if let Some(m) = self
            .configs
            .lock()
            .ok()
            .and_then(|c| c.get(config).cloned())
        {
            return m;
        }
        let mut mappings = Mappings::default();
        if let Some(doc) = self.json(config) {
            let dir = parent(config);
            let options = doc.get("compilerOptions");
            let base = options
                .and_then(|o| o.get("baseUrl"))
                .and_then(|b| b.as_str())
                .map(|b| join(&dir, b));
            if let Some(paths) = options
                .and_then(|o| o.get("paths"))
                .and_then(|p| p.as_object())
            {
                let base = base.clone().unwrap_or_else(|| dir.clone());
                for (pattern, targets) in paths {
                    let targets = targets
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.as_str())
                        .map(|t| join(&base, t))
                        .collect();
                    mappings.paths.push((pattern.clone(), targets));
                }
            }
            let extended = doc
                .get("extends")
                .and_then(|e| e.as_str())
                .filter(|e| e.starts_with('.'))
                .map(|e| {
                    let e = join(&dir, e);
                    if e.ends_with(".json") {
                        e
                    } else {
                        format!("{e}.json")
                    }
                });
            if let Some(parent_config) = extended
                && depth < 8
                && mappings.paths.is_empty()
            {
                mappings = Mappings::clone(&self.mappings(&parent_config, depth + 1));
            }
        }
        let mappings = Arc::new(mappings);
        if let Ok(mut configs) = self.configs.lock() {
            configs.insert(config.to_string(), Arc::clone(&mappings));
        }
        mappings
    }

    /// A JSON (or JSON with comments and trailing commas) file of the tree.
    fn json(&self, path: &str) -> Option<serde_json::Value> {
        let text = (self.read)(path)?;
        serde_json::from_str(&text)
            .ok()
            .or_else(|| serde_json::from_str(&strip_jsonc(&text)).ok())
    }
}

/// The directory of a `package.json` path, or none for another file.
fn manifest_dir(file: &str) -> Option<String> {
    if file == "package.json" {
        return Some(String::new());
    }
    file.strip_suffix("/package.json").map(str::to_string)
}

/// `@scope/name/sub/path` → (`@scope/name`, `sub/path`); `name/sub` → (`name`, `sub`).
fn split_package(specifier: &str) -> (&str, &str) {
    let parts = if specifier.starts_with('@') { 2 } else { 1 };
    let mut end = 0;
    for (i, piece) in specifier.split('/').enumerate() {
        if i == parts {
            return (&specifier[..end], &specifier[end + 1..]);
        }
        end += piece.len() + usize::from(i > 0);
    }
    (specifier, "")
}

/// The targets `exports` gives `key`: a string, a list, conditions (every one, in order) or a
/// map of subpaths (`"./*"` patterns too).
fn exports_targets(exports: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match exports {
        Value::String(s) if key == "." => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| exports_targets(i, key, out)),
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => {
            if let Some(v) = map.get(key) {
                conditions(v, out);
                return;
            }
            for (pattern, v) in map {
                if let Some((pre, post)) = pattern.split_once('*')
                    && key.starts_with(pre)
                    && key.ends_with(post)
                    && key.len() >= pre.len() + post.len()
                {
                    let star = &key[pre.len()..key.len() - post.len()];
                    let mut targets = Vec::new();
                    conditions(v, &mut targets);
                    out.extend(targets.into_iter().map(|t| t.replace('*', star)));
                }
            }
        }
        Value::Object(_) if key == "." => conditions(exports, out),
        _ => {}
    }
}

/// Every string of a conditions object, in order (`types`, `import`, `default`, nested).
fn conditions(value: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| conditions(i, out)),
        Value::Object(map) => map.values().for_each(|v| conditions(v, out)),
        _ => {}
    }
}

/// The source a build output was likely compiled from: `dist/x.js`, `lib/x.d.ts` → `src/x`.
fn built_from(target: &str) -> Option<String> {
    let (top, rest) = target.split_once('/')?;
    if !matches!(top, "dist" | "lib" | "build" | "out" | "esm" | "cjs" | "es") {
        return None;
    }
    let rest = rest.trim_start_matches("esm/").trim_start_matches("cjs/");
    let stem = [".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|e| rest.strip_suffix(e))
        .unwrap_or(rest);
    Some(format!("src/{stem}"))
}

/// The directory part of a root-relative path (`""` at the top).
fn parent(path: &str) -> String {
    path.rsplit_once('/')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default()
}

/// `dir` joined with a relative `path`, `.` and `..` folded (a path climbing above the root
/// keeps its `..`, and then names no file of the tree).
pub(super) fn join(dir: &str, path: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for piece in path.split('/') {
        match piece {
            "." | "" => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// JSON with comments (`//`, `/* */`) and trailing commas made plain JSON, as tsconfig files
/// are written.
fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if c == b'\\' && i + 1 < bytes.len() {
                out.push_str(&text[i..i + 2]);
                i += 2;
                continue;
            }
            in_string = c != b'"';
        } else if c == b'"' {
            in_string = true;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + n + 4);
            continue;
        } else if c == b',' {
            let next = text[i + 1..].trim_start();
            if next.starts_with('}') || next.starts_with(']') {
                i += 1;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Bare, Packages, built_from, join, split_package, strip_jsonc};
    use std::sync::Mutex;

    #[test]
    fn links_are_looked_up_once_per_path_and_only_where_node_modules_is() {
        // `node_modules/@demo/a` links to `packages/a`; `src/` has no `node_modules`.
        let files = ["src/app/x.ts", "src/app/y.ts", "packages/a/index.ts"].map(String::from);
        let asked = Mutex::new(Vec::new());
        let read = |_: &str| -> Option<String> { None };
        let real = |path: &str| -> Option<String> {
            asked.lock().unwrap().push(path.to_string());
            match path {
                "node_modules" => Some(path.to_string()),
                "node_modules/@demo/a" => Some("packages/a".to_string()),
                _ => None,
            }
        };
        let packages = Packages::new(&files, &read, &real);
        for from in ["src/app/x.ts", "src/app/y.ts"] {
            for specifier in ["@demo/a", "vitest", "a string, not a module", "@demo/a"] {
                let found = packages.bare(from, specifier);
                let linked = matches!(&found, Bare::Package { dir, .. } if dir == "packages/a");
                assert_eq!(linked, specifier == "@demo/a", "{specifier}");
            }
        }
        let mut asked = asked.into_inner().unwrap();
        let all = asked.len();
        asked.sort();
        asked.dedup();
        assert_eq!(all, asked.len(), "a path asked twice: {asked:?}");
        let under_src = asked.iter().filter(|p| p.starts_with("src/")).count();
        assert_eq!(
            under_src, 2,
            "only src/app/node_modules and src/node_modules: {asked:?}"
        );
    }

    #[test]
    fn a_specifier_is_its_package_and_a_subpath() {
        assert_eq!(split_package("@demo/a"), ("@demo/a", ""));
        assert_eq!(split_package("@demo/a/util/x"), ("@demo/a", "util/x"));
        assert_eq!(split_package("lodash/fp"), ("lodash", "fp"));
        assert_eq!(split_package("react"), ("react", ""));
    }

    #[test]
    fn paths_are_joined_and_builds_traced_to_their_sources() {
        assert_eq!(join("packages/b/src", "../../a/src"), "packages/a/src");
        assert_eq!(join("", "./packages/*"), "packages/*");
        assert_eq!(built_from("dist/index.js").as_deref(), Some("src/index"));
        assert_eq!(built_from("lib/esm/util.d.ts").as_deref(), Some("src/util"));
        assert_eq!(built_from("index.js"), None);
    }

    #[test]
    fn tsconfig_comments_and_trailing_commas_are_read() {
        let text = "{\n  // paths\n  \"a\": \"//not a comment\", /* b */\n  \"c\": [1, 2,],\n}\n";
        let doc: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(doc["a"], "//not a comment");
        assert_eq!(doc["c"], serde_json::json!([1, 2]));
    }
}
