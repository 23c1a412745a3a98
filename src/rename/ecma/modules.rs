//! The tree's modules joined by their specifiers: the file a specifier names (relative, a
//! workspace package's, a tsconfig `paths` entry's, or another package's, outside) and the
//! declaration an export of a module stands for, through re-exports and `export *`.

use super::Raw;
use super::packages::{self, Bare};
use super::project::{EXTENSIONS, EcmaProject, MAX_DEPTH};
use super::relative;
use crate::rename::memo::remembered;
use crate::rename::model::Resolution;

impl EcmaProject<'_> {
    /// The file a specifier names from `from`: a relative one by its path; a bare one through
    /// the workspace (a tsconfig `paths` entry, a package of the tree by its name or its
    /// `node_modules` link), else another package's, outside the tree. A package of the tree
    /// whose file lancet cannot find is undecided, never outside.
    pub(crate) fn module_file(&self, from: &str, specifier: &str) -> Result<String, Resolution> {
        let key = (from.to_string(), specifier.to_string());
        remembered(&self.module_memo, key, || {
            self.find_module_file(from, specifier)
        })
    }

    /// [`EcmaProject::module_file`], found.
    fn find_module_file(&self, from: &str, specifier: &str) -> Result<String, Resolution> {
        if relative(specifier) {
            let base = packages::join(&packages::join(from, ".."), specifier);
            return self.probe(&base).ok_or_else(|| {
                Resolution::Unresolved(format!(
                    "module `{specifier}` (from {from}) is not a file of the tree"
                ))
            });
        }
        match self.packages.bare(from, specifier) {
            Bare::Candidates(paths) => paths.iter().find_map(|p| self.probe(p)).ok_or_else(|| {
                Resolution::Unresolved(format!(
                    "module `{specifier}` (from {from}) maps to {} by tsconfig `paths`, which is no file of the tree",
                    paths.join(", ")
                ))
            }),
            Bare::Package { dir, candidates } => {
                candidates.iter().find_map(|p| self.probe(p)).ok_or_else(|| {
                    Resolution::Unresolved(format!(
                        "`{specifier}` is the package in {}/ of the tree, but lancet finds no file of it that package.json's exports, types or main name",
                        if dir.is_empty() { "." } else { &dir }
                    ))
                })
            }
            Bare::Outside => Err(Resolution::Outside(format!(
                "imported from the package `{specifier}`"
            ))),
        }
    }

    /// Whether a bare specifier imported by `from` may name a file of the tree (when not, each
    /// is another package's).
    pub(crate) fn bare_may_reach_tree(&self, from: &str) -> bool {
        self.packages.bare_may_reach_tree(from)
    }

    /// The walked file a module path (root-relative, extension left out or not) is: itself,
    /// with an extension (a `.js` one taken for its `.ts` source), or its directory's index.
    fn probe(&self, base: &str) -> Option<String> {
        if base.split('/').next() == Some("..") {
            return None;
        }
        let stem = base
            .strip_suffix(".js")
            .or_else(|| base.strip_suffix(".jsx"))
            .or_else(|| base.strip_suffix(".mjs"))
            .unwrap_or(base);
        let with_extension = [base, stem]
            .into_iter()
            .flat_map(|stemmed| EXTENSIONS.iter().map(move |e| format!("{stemmed}{e}")));
        let index = EXTENSIONS.iter().map(|e| format!("{base}/index{e}"));
        std::iter::once(base.to_string())
            .chain(with_extension)
            .chain(index)
            .find(|c| self.file_set.contains(c.as_str()))
    }

    /// The declaration an export of a module stands for: (file, offset).
    pub(super) fn export(
        &self,
        from: &str,
        source: &str,
        name: &str,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved(
                "a re-export chain too long to follow".into(),
            ));
        }
        let file = self.module_file(from, source)?;
        // A declaration found is remembered with the depth it was asked at (deeper, the chain
        // may be cut): a barrel's `export *` lines are searched once per name, not once per
        // importer. A miss is not: each of a barrel's thousands of modules that lacks the name
        // answers at once, and remembering them all cost more than asking (not `remembered`).
        let key = (file, name.to_string(), depth);
        if let Some(found) = self
            .export_memo
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(found);
        }
        let found = self.export_of(key.0.clone(), name, depth);
        if let (Ok(place), Ok(mut memo)) = (&found, self.export_memo.lock()) {
            memo.insert(key, place.clone());
        }
        found
    }

    /// [`EcmaProject::export`] of module `file`, found.
    fn export_of(
        &self,
        file: String,
        name: &str,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        let Some(facts) = self.facts(&file) else {
            return Err(Resolution::Unresolved(format!("{file} cannot be read")));
        };
        match facts.exports.get(name) {
            Some(Raw::Local(start)) => Ok((file, *start)),
            Some(Raw::Imported { source, name }) => self.export(&file, source, name, depth + 1),
            Some(Raw::Outside(why)) => Err(Resolution::Outside(why.clone())),
            Some(Raw::Unresolved(why)) => Err(Resolution::Unresolved(why.clone())),
            Some(
                Raw::Member { .. }
                | Raw::Private { .. }
                | Raw::Returns(_)
                | Raw::MethodReturns { .. }
                | Raw::Parameter { .. }
                | Raw::TupleElement { .. }
                | Raw::AliasOf { .. }
                | Raw::ParameterOf { .. }
                | Raw::MethodParameterOf { .. }
                | Raw::FieldOf { .. }
                | Raw::GenericReturns { .. }
                | Raw::MapOf(_)
                | Raw::ArrayOf(_)
                | Raw::ElementOf(_),
            ) => Err(Resolution::Unresolved("an exported member".into())),
            None => {
                for star in &facts.stars {
                    if let Ok(found) = self.export(&file, star, name, depth + 1) {
                        return Ok(found);
                    }
                }
                Err(Resolution::Unresolved(format!(
                    "{file} does not export `{name}`"
                )))
            }
        }
    }
}
