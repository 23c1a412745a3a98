//! The tree's classes and interfaces that derive from one (extend or implement it, directly or
//! not), for what a member's hierarchy holds below its class: a subclass that also implements
//! an interface ties the member it inherits to the interface's (`class C extends A implements
//! I {}`), one with a base outside the tree lets code lancet cannot read call the member, and
//! one that defines NEW would take the renamed member's calls.
//!
//! They are found from the class's name outward, as the Python resolver's subclasses are: the
//! files that spell a known class's name or its module's name (a default import may name it
//! anything) are read, their classes and interfaces whose bases resolve to a known one are
//! known in turn, and so are the names a module re-exports a known one under, until none is
//! added. A class made at run time (`mixin(Base)`) that spells a known name leaves the
//! subclasses untold.

use super::Raw;
use super::project::{EcmaProject, MAX_DEPTH, Place};
use crate::rename::memo::remembered;
use crate::rename::model::{Resolution, SymbolId};
use crate::rename::word_index::WordIndex;
use crate::rename::words::{is_word_byte, whole_word_offsets};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Where a base as written leads, for a subclass search.
enum Placed {
    /// A declaration of the tree: its file and its name's offset.
    Tree(Place),
    /// Outside the tree.
    Outside,
    /// Lancet cannot follow it.
    Unfollowed,
}

/// How many rounds a subclass search makes: each finds the classes one step further down.
const MAX_ROUNDS: usize = 64;

/// The extensions of the files a subclass search reads.
const MODULE_EXTENSIONS: &[&str] = &[".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

impl EcmaProject<'_> {
    /// Every class and interface of the tree that derives from the one at `start` of `file`,
    /// directly or not (itself not included), sorted; `None` when one lancet cannot follow may
    /// be among them, or past [`MAX_ROUNDS`] rounds.
    pub(super) fn descendants(&self, file: &str, start: u32) -> Option<Arc<Vec<Place>>> {
        let key = (file.to_string(), start);
        remembered(&self.descendant_memo, key.clone(), || {
            self.search_descendants(&key)
        })
    }

    /// The tree's modules by the words they spell, indexed once.
    pub(super) fn words(&self) -> &WordIndex {
        self.words.get_or_init(|| {
            let modules = self.files.iter().filter(|p| is_module(p)).cloned();
            WordIndex::new(modules.collect(), &|path| (self.read)(path))
        })
    }

    /// [`EcmaProject::descendants`] searched, round by round.
    fn search_descendants(&self, key: &Place) -> Option<Arc<Vec<Place>>> {
        let index = self.words();
        let mut known: BTreeSet<Place> = BTreeSet::from([key.clone()]);
        let mut names = BTreeSet::new();
        let facts = self.facts(&key.0)?;
        // An object type is named by the type aliases of it (`type Named = { … }`, which a
        // class may implement); one no alias names, or an enum, nothing derives from.
        let aliases = facts
            .aliases
            .iter()
            .filter(|(_, named)| matches!(named, Raw::Local(start) if *start == key.1))
            .map(|(alias, _)| (key.0.clone(), *alias));
        for named_by in std::iter::once(key.clone()).chain(aliases) {
            if facts.holder_names.contains_key(&named_by.1) {
                self.learn_names(&named_by, &mut names)?;
            }
        }
        if names.is_empty() {
            return Some(Arc::new(Vec::new()));
        }
        // Each base's place, resolved once for the whole search: the rounds only hold them
        // against what is known (a barrel re-exporting every class made each round resolve
        // them all again).
        let mut placed: HashMap<(String, u32, usize), Placed> = HashMap::new();
        for _ in 0..MAX_ROUNDS {
            let before = (known.len(), names.len());
            for path in index.spelling_any(&names.clone()) {
                let Some(facts) = self.facts(path) else {
                    continue;
                };
                // A class without a name extending a known one, or a call handed one
                // (`const Sub = mix(Base)`): a subclass lancet cannot follow.
                let handed = facts
                    .unread_definitions
                    .values()
                    .any(|d| d.starts_with('(') && spells_any(d, &names));
                let nameless = (path, u32::MAX, &facts.nameless_bases[..]);
                if handed || self.derives_from(nameless, &known, &names, &mut placed)? {
                    return None;
                }
                for (start, bases) in &facts.written_bases {
                    let this = (path.to_string(), *start);
                    if !known.contains(&this)
                        && self.derives_from((path, *start, bases), &known, &names, &mut placed)?
                    {
                        self.learn_names(&this, &mut names)?;
                        // The declarations merged with it (`interface Sub` beside `class
                        // Sub`) are it.
                        let name = facts.holder_names.get(start);
                        let merged = facts.holder_names.iter().filter(|(_, n)| Some(*n) == name);
                        known.extend(merged.map(|(s, _)| (path.to_string(), *s)));
                        known.insert(this);
                    }
                }
                // A module that exports a known one (under any name, `default` too) is named
                // by its importers.
                for (exported, raw) in &facts.exports {
                    if self.names_known(path, raw, &known, &names) {
                        if exported != "default" {
                            names.insert(exported.clone());
                        }
                        names.insert(module_name(path).unwrap_or("index").to_string());
                    }
                }
            }
            if (known.len(), names.len()) == before {
                known.remove(key);
                return Some(Arc::new(known.into_iter().collect()));
            }
        }
        None
    }

    /// Adds the names a file importing the class or interface at `place` spells: its own and
    /// its module's.
    fn learn_names(&self, place: &Place, names: &mut BTreeSet<String>) -> Option<()> {
        let facts = self.facts(&place.0)?;
        names.insert(facts.holder_names.get(&place.1)?.clone());
        names.insert(module_name(&place.0).unwrap_or("index").to_string());
        Some(())
    }

    /// Whether an export of module `path` is a known class or interface under another name
    /// (`export { Base as Root } from "./base"`, `export { default as Base } …`).
    fn names_known(
        &self,
        path: &str,
        raw: &Raw,
        known: &BTreeSet<Place>,
        names: &BTreeSet<String>,
    ) -> bool {
        let place = match raw {
            // `export const Core = Base`: a name lancet does not follow may be a known one.
            Raw::Local(start) if self.unread_spelling((path, *start), names) => return true,
            Raw::Local(start) => Ok((path.to_string(), *start)),
            Raw::Imported { name, .. } if name == "default" || names.contains(name) => {
                self.place_of(path, raw, 1)
            }
            _ => return false,
        };
        place.is_ok_and(|place| known.contains(&place))
    }

    /// Whether the definition at `place` is one lancet does not follow that spells a known
    /// name (`const Core = Base`, `type L = Shape & {…}`).
    fn unread_spelling(&self, (file, start): (&str, u32), names: &BTreeSet<String>) -> bool {
        self.facts(file).is_some_and(|f| {
            f.unread_definitions
                .get(&start)
                .is_some_and(|written| spells_any(written, names))
        })
    }

    /// Whether one of a class's or interface's bases (`start` of `path`; `u32::MAX` for the
    /// classes without a name) is a known one; `None` when one lancet cannot follow may be:
    /// it spells a known name (`extends mixin(Base)`), it is a name of a named class's bases
    /// (`const Core = require("./base")`; a class without a name extending a mixin's
    /// parameter is the mixin's, whose call is weighed where it is made), or it is a
    /// definition lancet does not follow that spells one (`const Core = Base`).
    fn derives_from(
        &self,
        (path, start, bases): (&str, u32, &[(Raw, String)]),
        known: &BTreeSet<Place>,
        names: &BTreeSet<String>,
        placed: &mut HashMap<(String, u32, usize), Placed>,
    ) -> Option<bool> {
        let mut derives = false;
        for (at, (base, written)) in bases.iter().enumerate() {
            let place = placed
                .entry((path.to_string(), start, at))
                .or_insert_with(|| self.place_base(path, base));
            match place {
                Placed::Tree(place) if self.unread_spelling((&place.0, place.1), names) => {
                    return None;
                }
                Placed::Tree(place) => derives |= known.contains(place),
                Placed::Outside => {}
                Placed::Unfollowed
                    if (start != u32::MAX && is_name(written)) || spells_any(written, names) =>
                {
                    return None;
                }
                Placed::Unfollowed => {}
            }
        }
        Some(derives)
    }

    /// Where a base of a class of `path` leads. A member of an import (`React.Component`,
    /// `lib.Base` where `import lib from "./lib"`) is placed by its module alone: another
    /// package's is outside, the tree's unfollowed.
    fn place_base(&self, path: &str, base: &Raw) -> Placed {
        if let Raw::Member { holder, .. } = base
            && let Raw::Imported { source, .. } = holder.as_ref()
        {
            return match self.module_file(path, source) {
                Err(Resolution::Outside(_)) => Placed::Outside,
                _ => Placed::Unfollowed,
            };
        }
        match self.place_of(path, base, 1) {
            Ok(place) => Placed::Tree(place),
            Err(Resolution::Outside(_)) => Placed::Outside,
            Err(_) => Placed::Unfollowed,
        }
    }

    /// Whether two member symbols of one name have classes or interfaces with a class or
    /// interface of the tree below both (`class C extends A implements I {}` holds `A.m` to
    /// `I.m`): a rename of one alone breaks what the one below must be.
    pub(super) fn share_a_descendant(&self, a: &SymbolId, b: &SymbolId) -> bool {
        let (Some((file_a, start_a, name_a)), Some((file_b, start_b, name_b))) =
            (a.ecma_member(), b.ecma_member())
        else {
            return false;
        };
        if name_a != name_b {
            return false;
        }
        let (Some(below_a), Some(below_b)) = (
            self.descendants(file_a, start_a),
            self.descendants(file_b, start_b),
        ) else {
            return false;
        };
        let place_b = (file_b.to_string(), start_b);
        below_a.contains(&place_b) || below_a.iter().any(|p| below_b.binary_search(p).is_ok())
    }

    /// A class or interface of the tree up or down the hierarchy of the one at `start` of
    /// `file` that declares member `name`: its file, line and name.
    pub(super) fn hierarchy_declaring(
        &self,
        file: &str,
        start: u32,
        name: &str,
    ) -> Option<(String, usize, String)> {
        let declaring = |(f, s): &Place| self.declares(f, *s, name);
        let up = self.ancestors(file, start).into_iter().find(declaring);
        let (found_file, found_start) = up.or_else(|| {
            // Below it, and up from there: a subclass's own, and what it also implements.
            let below = self.descendants(file, start)?;
            below
                .iter()
                .find_map(|(f, s)| self.ancestors(f, *s).into_iter().find(declaring))
        })?;
        let facts = self.facts(&found_file)?;
        let holder = facts.holder_names.get(&found_start)?.clone();
        let text = (self.read)(&found_file)?;
        let line = text.as_bytes()[..(found_start as usize).min(text.len())]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        Some((found_file, line, holder))
    }

    /// The class or interface at `start` of `file`, then those of the tree up what it
    /// extends and implements, as written, nearest first along each base: what a member's
    /// hierarchy holds above its class (what it implements, declares, carries).
    pub(super) fn ancestors(&self, file: &str, start: u32) -> Vec<Place> {
        let mut found = Vec::new();
        self.collect_ancestors(file, start, 0, &mut found);
        found
    }

    /// [`EcmaProject::ancestors`], from `depth` bases up, [`MAX_DEPTH`] at most.
    fn collect_ancestors(&self, file: &str, start: u32, depth: usize, found: &mut Vec<Place>) {
        let place = (file.to_string(), start);
        // A base reached twice (a diamond of interfaces; a cycle the compiler rejects) is
        // read once.
        if found.contains(&place) {
            return;
        }
        found.push(place);
        if depth > MAX_DEPTH {
            return;
        }
        let bases = self
            .facts(file)
            .and_then(|f| f.written_bases.get(&start).cloned());
        for (base, _) in bases.unwrap_or_default() {
            if let Ok((base_file, base_start)) = self.place_of(file, &base, depth + 1) {
                self.collect_ancestors(&base_file, base_start, depth + 1, found);
            }
        }
    }

    /// Whether the class or interface at `start` of `file` declares member `name` itself.
    fn declares(&self, file: &str, start: u32, name: &str) -> bool {
        self.facts(file)
            .and_then(|f| f.members.get(&start).map(|m| m.iter().any(|n| n == name)))
            .unwrap_or(false)
    }
}

/// Whether a path is a JavaScript or TypeScript module (a declaration file is not searched:
/// it declares what code elsewhere defines).
fn is_module(path: &str) -> bool {
    !path.ends_with(".d.ts") && MODULE_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

/// The word an import of a module spells (`./base` → `base`; `./shapes/index.ts` → `shapes`).
fn module_name(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next()?;
    let stem = file.split('.').next()?;
    if stem != "index" {
        return Some(stem);
    }
    path.rsplit('/').nth(1)
}

/// Whether a base as written is a name (`Core`) or a path of names (`lib.Core`, `m.default`),
/// not another expression (`mixin(Base)`).
fn is_name(written: &str) -> bool {
    written
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(is_word_byte))
}

/// Whether `text` spells one of `names` as a whole word.
fn spells_any(text: &str, names: &BTreeSet<String>) -> bool {
    names
        .iter()
        .any(|n| !whole_word_offsets(text.as_bytes(), n).is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::EcmaProject;
    use crate::rename::resolve::testing::Fixture;

    /// The subclass search finds a class however its module names the base: by a default import
    /// of another name, through a barrel that re-exports it under another name; and one it cannot
    /// follow (`extends mixin(Base)`, a class without a name) leaves the subclasses untold.
    #[test]
    fn the_subclasses_are_found_through_default_imports_and_barrels() {
        let base = "export default class Base {\n  run() {}\n}\n";
        let barrel = "export { default as Root } from '../base';\n";
        let a = "import Anything from './base';\nexport class A extends Anything {}\n";
        let b = "import { Root } from './lib';\nclass B extends Root {}\n";
        let c = "import { A } from './a';\ninterface I { x: number }\nclass C extends A implements I {}\n";
        let files = [
            ("base.ts", base),
            ("lib/index.ts", barrel),
            ("a.ts", a),
            ("b.ts", b),
            ("c.ts", c),
        ];
        let fixture = Fixture::new(&files, &[]);
        let sources = fixture.sources();
        let project = EcmaProject::new(&sources);
        let at =
            |text: &str, class: &str| text.find(&format!("class {class} ")).unwrap() as u32 + 6;
        let below = project.descendants("base.ts", at(base, "Base")).unwrap();
        let expected = [
            ("a.ts".to_string(), at(a, "A")),
            ("b.ts".to_string(), at(b, "B")),
            ("c.ts".to_string(), at(c, "C")),
        ];
        assert_eq!(*below, expected);

        for untold in [
            "import Base from './base';\nconst mixin = (K: any) => K;\nclass M extends mixin(Base) {}\n",
            "import Base from './base';\nexport default class extends Base {}\n",
        ] {
            let files = [("base.ts", base), ("m.ts", untold)];
            let fixture = Fixture::new(&files, &[]);
            let sources = fixture.sources();
            let project = EcmaProject::new(&sources);
            assert_eq!(
                project.descendants("base.ts", at(base, "Base")),
                None,
                "{untold}"
            );
        }
    }

    /// A decorator of the tree is read like any function of it (what it does is the tree's), so
    /// only one from outside the tree may call a member by name.
    #[test]
    fn only_a_decorator_from_outside_the_tree_may_call_a_member() {
        use crate::rename::model::{EcmaMember, SymbolId};
        use crate::rename::resolve::Resolver;
        use crate::report::OutsideReach;
        let text = "import { Component } from '@angular/core';\nfunction track(c: any) { return c; }\n@track\nclass Mine {\n  run() {}\n}\n@Component({})\nclass Theirs {\n  run() {}\n}\n";
        let fixture = Fixture::new(&[("a.ts", text)], &["a.ts"]);
        let sources = fixture.sources();
        let project = EcmaProject::new(&sources);
        let member = |class: &str| SymbolId::Ecma {
            file: "a.ts".into(),
            offset: text.find(&format!("class {class} ")).unwrap() as u32 + 6,
            member: Some(EcmaMember::Public("run".into())),
        };
        assert_eq!(project.reached_from_outside(&member("Mine"), "run"), None);
        assert_eq!(
            project.reached_from_outside(&member("Theirs"), "run"),
            Some(OutsideReach::Decorator("Component".into()))
        );
    }

    /// What the attack pass on the subclass search found: a barrel's default re-export and an
    /// `export default` of another module's class are followed by the module's name; a base
    /// lancet cannot follow that may be a known class (a `const` alias, a `require`, a mixin's
    /// parameter) leaves the subclasses untold; a chain deeper than the re-export limit is still
    /// searched.
    #[test]
    fn the_subclass_search_follows_default_barrels_and_tells_what_it_cannot() {
        let base = "export class Base {\n  greet() {}\n}\n";
        let at = base.find("Base").unwrap() as u32;
        let descendants = |extra: &[(&str, &str)]| {
            let mut files = vec![("base.ts", base)];
            files.extend_from_slice(extra);
            let fixture = Fixture::new(&files, &[]);
            let sources = fixture.sources();
            let project = EcmaProject::new(&sources);
            project
                .descendants("base.ts", at)
                .map(|found| found.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>())
        };
        let barrel = [
            (
                "lib/index.ts",
                "import { Base } from '../base';\nexport default Base;\n",
            ),
            (
                "sub.ts",
                "import Thing from './lib';\nexport class Sub extends Thing {}\n",
            ),
        ];
        assert_eq!(descendants(&barrel), Some(vec!["sub.ts".to_string()]));
        for untold in [
            [
                (
                    "alias.ts",
                    "import { Base } from './base';\nexport const Core = Base;\n",
                ),
                (
                    "sub.ts",
                    "import { Core } from './alias';\nexport class Sub extends Core {}\n",
                ),
            ],
            [
                (
                    "l.ts",
                    "import { Base } from './base';\nexport type L = Base & { x: number };\n",
                ),
                (
                    "sub.ts",
                    "import { L } from './l';\nexport class Sub implements L {\n  greet() {}\n  x = 1;\n}\n",
                ),
            ],
            [
                (
                    "sub.js",
                    "const Thing = require('./base');\nclass Sub extends Thing {}\n",
                ),
                ("other.js", "\n"),
            ],
            [
                (
                    "sub.ts",
                    "import { Base } from './base';\nconst mix = (B: any) => class extends B {};\nexport const Sub = mix(Base);\n",
                ),
                ("other.ts", "\n"),
            ],
        ] {
            assert_eq!(descendants(&untold), None, "{untold:?}");
        }
        let chain: Vec<(String, String)> = (0..20)
            .map(|i| {
                let above = if i == 0 { "Base".to_string() } else { format!("C{}", i - 1) };
                let from = if i == 0 { "base".to_string() } else { format!("c{}", i - 1) };
                (
                    format!("c{i}.ts"),
                    format!("import {{ {above} }} from './{from}';\nexport class C{i} extends {above} {{}}\n"),
                )
            })
            .collect();
        let chain: Vec<(&str, &str)> = chain
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        assert_eq!(descendants(&chain).map(|found| found.len()), Some(20));
    }

    /// NEW a subclass takes from an interface it implements is in the hierarchy, as one the
    /// subclass declares is; an iteration interface of TypeScript's library declares no other
    /// member, and an alias of an intersection may hold an outside type.
    #[test]
    fn new_up_a_subclass_and_the_library_interfaces_are_weighed() {
        use crate::rename::model::{EcmaMember, SymbolId};
        use crate::rename::resolve::Resolver;
        use crate::report::OutsideReach;
        let base = "export class Base {\n  greet() {}\n}\n";
        let sub = "import { Base } from './base';\ninterface I { hello?(): number }\nexport class Sub extends Base implements I, Iterable<number> {\n  *[Symbol.iterator]() { yield 1; }\n}\ntype Local = Greeter & { name?: string };\nexport class Other extends Base implements Local {}\n";
        let greeter = "import { Greeter } from 'extlib';\n";
        let sub = format!("{greeter}{sub}");
        let fixture = Fixture::new(&[("base.ts", base), ("sub.ts", &sub)], &[]);
        let sources = fixture.sources();
        let project = EcmaProject::new(&sources);
        let greet = SymbolId::Ecma {
            file: "base.ts".into(),
            offset: base.find("Base").unwrap() as u32,
            member: Some(EcmaMember::Public("greet".into())),
        };
        assert_eq!(
            project.in_hierarchy(&greet, "hello"),
            Some(("sub.ts".into(), 3, "I".into()))
        );
        assert_eq!(
            project.reached_from_outside(&greet, "greet"),
            Some(OutsideReach::Base("Local".into()))
        );
    }
}
