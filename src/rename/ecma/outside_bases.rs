//! Members a class of the tree may override in a base outside it (`render` of a
//! `React.Component`, `ngOnInit` of Angular's `OnInit`): code lancet cannot read calls them by
//! name, so a rename would silently stop the override (or break the `implements`). A base
//! outside the tree may declare any name, except the globals whose members JavaScript fixes
//! (`Error`, `Array`, `Map`, …). So may the members of an interface that augments one outside
//! the tree (`declare global { interface Window { … } }`, `declare module "express" { … }`, or
//! any interface of a file without imports or exports, which is global): code reaches them
//! through the outside type (`window.appName`).

use super::Raw;
use super::project::{ARRAY_MEMBERS, EcmaProject, MAP_MEMBERS, MAX_DEPTH};
use crate::report::OutsideReach;

impl EcmaProject<'_> {
    /// What may reach member `name` of the class or interface at `start` of `file`, whose
    /// member `own` the symbol is, from outside the tree: a declaration file's member (its
    /// code is elsewhere), or a base outside the tree that may declare `name`, up its
    /// hierarchy or up one of the tree's classes below it (subclasses lancet cannot tell
    /// count as one), or a decorator from outside the tree on a class of the hierarchy.
    pub(super) fn member_reached_from_outside(
        &self,
        file: &str,
        start: u32,
        own: &str,
        name: &str,
    ) -> Option<OutsideReach> {
        if is_declaration_file(file) && name == own {
            return Some(OutsideReach::DeclarationFile(file.to_string()));
        }
        let above = self.ancestors(file, start);
        if let Some((interface, augmented)) = above
            .iter()
            .find_map(|(f, s)| self.facts(f)?.augmentations.get(s).cloned())
        {
            return Some(OutsideReach::Augmentation {
                interface,
                augmented,
            });
        }
        if let Some(base) = self.outside_base_of(file, start, name, 0) {
            return Some(OutsideReach::Base(base));
        }
        // Below it: a subclass's own bases (`class Job extends Base implements Runner`).
        let Some(below) = self.descendants(file, start) else {
            let holder = self
                .facts(file)
                .and_then(|f| f.holder_names.get(&start).cloned());
            return Some(OutsideReach::UntoldSubclasses(holder.unwrap_or_default()));
        };
        if let Some(base) = below
            .iter()
            .find_map(|(f, s)| self.outside_base_of(f, *s, name, 0))
        {
            return Some(OutsideReach::Base(base));
        }
        let mut hierarchy = above;
        hierarchy.extend(below.iter().cloned());
        // An iterator's `next`, which `for … of` calls.
        if let Some(class) = self.iterator_in_hierarchy(&hierarchy, name) {
            return Some(OutsideReach::Iterator(class));
        }
        // A framework's decorator on a class up or down the hierarchy (Angular calls a
        // decorated component's `ngOnInit`, inherited or its own).
        hierarchy
            .iter()
            .find_map(|(f, s)| self.outside_decorator(f, *s))
            .map(OutsideReach::Decorator)
    }

    /// Whether the declaration at `start` of `file` is one whose members lancet reads: a class,
    /// an interface, an enum, an object type.
    fn holds_members(&self, file: &str, start: u32) -> bool {
        self.facts(file)
            .is_some_and(|f| f.bases.contains_key(&start))
    }

    /// A decorator of the class at `start` of `file` from outside the tree (or one lancet
    /// cannot place), as written.
    fn outside_decorator(&self, file: &str, start: u32) -> Option<String> {
        let facts = self.facts(file)?;
        let decorators = facts.decorators.get(&start)?;
        decorators.iter().find_map(|(raw, written)| {
            // A decorator of the file is the tree's; an import is followed to its declaration
            // (`export { Component } from "fw"` in a file of the tree is the package's); any
            // other binding (`import * as fw`) lancet does not follow is counted outside.
            let outside = match raw {
                Raw::Local(_) => false,
                Raw::Imported { source, name } => self.export(file, source, name, 1).is_err(),
                _ => true,
            };
            outside.then(|| written.clone())
        })
    }

    /// The base, as written, whose member `name` the member `name` of the class or interface
    /// at `start` of `file` may override: a base up its hierarchy (what it extends and
    /// implements) outside the tree, or one lancet cannot read, that may declare `name`.
    /// `None` when every base is the tree's or a global without such a member.
    pub(super) fn outside_base_of(
        &self,
        file: &str,
        start: u32,
        name: &str,
        depth: usize,
    ) -> Option<String> {
        let facts = self.facts(file)?;
        let bases = facts.written_bases.get(&start)?;
        for (base, written) in bases {
            let found = match base {
                Raw::Outside(global) if !global_declares(global, name) => None,
                Raw::Outside(_) => Some(written.clone()),
                _ => match self.place_of(file, base, depth + 1) {
                    Ok(_) if depth >= MAX_DEPTH => Some(written.clone()),
                    // A declaration file describes code elsewhere, which calls what it calls.
                    Ok((base_file, _)) if is_declaration_file(&base_file) => Some(written.clone()),
                    // A type alias of what lancet does not read as members (`Greeter & {…}`)
                    // may hold an outside type.
                    Ok((base_file, base_start)) if !self.holds_members(&base_file, base_start) => {
                        Some(written.clone())
                    }
                    Ok((base_file, base_start)) => {
                        self.outside_base_of(&base_file, base_start, name, depth + 1)
                    }
                    Err(_) => Some(written.clone()),
                },
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

/// Whether a file is a TypeScript declaration file (`.d.ts`), whose classes are another
/// file's, maybe outside the tree.
fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// Whether a global class may declare member `name`: one whose members are not known always
/// may.
fn global_declares(global: &str, name: &str) -> bool {
    let own: &[&str] = match global {
        "Object" => &[],
        "Error" | "EvalError" | "RangeError" | "ReferenceError" | "SyntaxError" | "TypeError"
        | "URIError" | "AggregateError" => &[
            "name",
            "message",
            "stack",
            "cause",
            "errors",
            // Static: V8's, and what `new.target` reaches.
            "captureStackTrace",
            "prepareStackTrace",
            "stackTraceLimit",
            "isError",
        ],
        "Array" => ARRAY_MEMBERS,
        "Map" => MAP_MEMBERS,
        "Set" => SET_MEMBERS,
        // `Promise.all` calls the subclass's static `resolve` by name.
        "Promise" => &[
            "then",
            "catch",
            "finally",
            "resolve",
            "reject",
            "all",
            "allSettled",
            "any",
            "race",
            "withResolvers",
            "try",
        ],
        // TypeScript's iteration interfaces: what `for … of` and spreads call.
        "Iterable" | "AsyncIterable" | "Disposable" | "AsyncDisposable" => &[],
        "Iterator" | "IterableIterator" | "AsyncIterator" | "AsyncIterableIterator" => {
            &["next", "return", "throw"]
        }
        "PromiseLike" => &["then"],
        "ArrayLike" => &["length"],
        _ => return true,
    };
    own.contains(&name) || OBJECT_MEMBERS.contains(&name) || STATICS.contains(&name)
}

/// `Object.prototype`'s, which every class inherits.
const OBJECT_MEMBERS: &[&str] = &[
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

/// The statics the array-like and keyed globals share (`Array.from`, `Map.groupBy`): a
/// subclass's are reached through them.
const STATICS: &[&str] = &["from", "of", "isArray", "fromAsync", "groupBy"];

/// `Set.prototype`'s.
const SET_MEMBERS: &[&str] = &[
    "add",
    "clear",
    "delete",
    "difference",
    "entries",
    "forEach",
    "has",
    "intersection",
    "isDisjointFrom",
    "isSubsetOf",
    "isSupersetOf",
    "keys",
    "size",
    "symmetricDifference",
    "union",
    "values",
];
