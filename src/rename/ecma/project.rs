//! The tree's modules joined: a specifier to its file, an export followed through re-exports
//! to its declaration, a holder to the file declaring it, a member through its bases, and
//! what a call or a callback's parameter is declared to be.

use super::facts::facts_of;
use super::holders::SAME_ARRAY;
use super::packages::Packages;
use super::sites::analyze;
use super::{ModuleFacts, Raw, with_semantic};
use crate::rename::model::{self, EcmaMember, Parsed, Resolution};
use crate::rename::resolve::{Resolved, Resolver, Sources};
use crate::rename::word_index::WordIndex;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// A class or interface of the tree: its file and its name's offset.
pub(super) type Place = (String, u32);

/// How deep re-export chains are followed.
pub(super) const MAX_DEPTH: usize = 16;

/// The members the library's `Array` declares: a member of a declared array so named is the
/// library's.
pub(super) const ARRAY_MEMBERS: &[&str] = &[
    "length",
    "at",
    "concat",
    "copyWithin",
    "entries",
    "every",
    "fill",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flat",
    "flatMap",
    "forEach",
    "includes",
    "indexOf",
    "join",
    "keys",
    "lastIndexOf",
    "map",
    "pop",
    "push",
    "reduce",
    "reduceRight",
    "reverse",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "toLocaleString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "toString",
    "unshift",
    "values",
    "with",
];

/// The members the library's `Map` declares.
pub(super) const MAP_MEMBERS: &[&str] = &[
    "clear", "delete", "entries", "forEach", "get", "has", "keys", "set", "size", "values",
];

/// The extensions a module specifier may leave out, in TypeScript's order of preference.
pub(super) const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

/// The tree's JavaScript/TypeScript modules, analysed on demand.
pub(crate) struct EcmaProject<'a> {
    pub(super) files: &'a [String],
    /// The walked files as a set: a module specifier probes up to 27 names, through a barrel
    /// of thousands of `export *` once per re-exporting module.
    pub(super) file_set: HashSet<&'a str>,
    pub(super) read: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// The workspace's packages under the root, for bare specifiers.
    pub(super) packages: Packages<'a>,
    facts: Mutex<HashMap<String, Option<Arc<ModuleFacts>>>>,
    /// The modules by the words they spell, for the subclass searches.
    pub(super) words: OnceLock<WordIndex>,
    /// Each class's or interface's descendants, searched once (see
    /// [`EcmaProject::descendants`]).
    pub(super) descendant_memo: Mutex<HashMap<Place, Option<Arc<Vec<Place>>>>>,
    /// Each module specifier's file, by the file that imports it and the specifier, found
    /// once: a barrel's `export *` lines are probed for every name looked up through it.
    pub(super) module_memo: Mutex<HashMap<(String, String), Result<String, Resolution>>>,
    /// Each declaration an export stands for, by its module's file, the exported name and the
    /// depth it was asked at, once found (see [`EcmaProject::export`]).
    pub(super) export_memo: Mutex<HashMap<(String, String, usize), Place>>,
}

impl<'a> EcmaProject<'a> {
    /// A project over the walked files, which it reads (a module that does not hold OLD) when
    /// an import reaches them.
    pub(crate) fn new(sources: &Sources<'a>) -> Self {
        EcmaProject {
            files: sources.files,
            file_set: sources.files.iter().map(String::as_str).collect(),
            read: sources.read,
            packages: Packages::new(sources.files, sources.read, sources.real),
            facts: Mutex::new(HashMap::new()),
            words: OnceLock::new(),
            descendant_memo: Mutex::new(HashMap::new()),
            module_memo: Mutex::new(HashMap::new()),
            export_memo: Mutex::new(HashMap::new()),
        }
    }

    /// What other files need of module `path` (its exports, its classes' members and bases),
    /// analysed once.
    pub(super) fn facts(&self, path: &str) -> Option<Arc<ModuleFacts>> {
        if let Some(f) = self.facts.lock().ok()?.get(path) {
            return f.clone();
        }
        let facts = (self.read)(path).map(|text| Arc::new(with_semantic(path, &text, facts_of)));
        self.facts
            .lock()
            .ok()?
            .insert(path.to_string(), facts.clone());
        facts
    }

    fn finish(&self, path: &str, raw: Raw, depth: usize) -> Resolution {
        match raw {
            Raw::Local(start) => Resolution::Symbol(declaration_id(path, start, None)),
            Raw::Imported { source, name } => match self.export(path, &source, &name, depth) {
                Ok((file, start)) => Resolution::Symbol(declaration_id(&file, start, None)),
                Err(resolution) => resolution,
            },
            Raw::Member { holder, name } => {
                let (file, start) = match self.place_of(path, &holder, depth) {
                    Ok(found) => found,
                    Err(resolution) => {
                        return self
                            .library_member(path, &holder, &name, depth)
                            .unwrap_or(resolution);
                    }
                };
                let declared = self
                    .facts(&file)
                    .is_some_and(|f| f.members.get(&start).is_some_and(|m| m.contains(&name)));
                let declaring = if declared {
                    Ok(Some((file.clone(), start)))
                } else {
                    self.inherited(&file, start, &name, depth + 1)
                };
                if let Ok(Some((found, at))) = &declaring
                    && self
                        .facts(found)
                        .is_some_and(|f| f.static_and_instance(*at, &name))
                {
                    return Resolution::Unresolved(format!(
                        "that class in {found} declares `{name}` both static and not: lancet keeps one member per name, so it cannot tell which this is"
                    ));
                }
                match declaring {
                    // A member and its overrides are one symbol, as TypeScript renames them
                    // together: the declaration the hierarchy's root makes.
                    Ok(Some((file, start))) => match self.root_member(&file, start, &name, depth) {
                        Ok((file, start)) => Resolution::Symbol(declaration_id(
                            &file,
                            start,
                            Some(EcmaMember::Public(name)),
                        )),
                        Err(why) => Resolution::Unresolved(format!(
                            "`{name}` of that class in {file} overrides a base's: {why}"
                        )),
                    },
                    Ok(None) => Resolution::Unresolved(format!(
                        "`{name}` is not declared by that class in {file} nor by its bases"
                    )),
                    Err(why) => Resolution::Unresolved(format!(
                        "`{name}` is not declared by that class in {file} (an inherited member: {why})"
                    )),
                }
            }
            Raw::Private { class, name } => {
                Resolution::Symbol(declaration_id(path, class, Some(EcmaMember::Private(name))))
            }
            Raw::Outside(why) => Resolution::Outside(why),
            Raw::Unresolved(why) => Resolution::Unresolved(why),
            Raw::Returns(_) | Raw::GenericReturns { .. } | Raw::MethodReturns { .. } => {
                Resolution::Unresolved("a value a function returns".into())
            }
            Raw::Parameter { .. }
            | Raw::TupleElement { .. }
            | Raw::AliasOf { .. }
            | Raw::ParameterOf { .. }
            | Raw::MethodParameterOf { .. }
            | Raw::FieldOf { .. }
            | Raw::MapOf(_)
            | Raw::ArrayOf(_)
            | Raw::ElementOf(_) => Resolution::Unresolved("a value of a declared type".into()),
        }
    }
}

impl EcmaProject<'_> {
    /// Where a holder of members (a class or interface, as `path` names it) is declared: its
    /// file and its name's offset.
    pub(super) fn place_of(
        &self,
        path: &str,
        holder: &Raw,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved("a chain too long to follow".into()));
        }
        match holder {
            Raw::Local(start) => self.holder_place(path.to_string(), *start, false, depth),
            Raw::Imported { source, name } => {
                let (file, start) = self.export(path, source, name, depth + 1)?;
                self.holder_place(file, start, true, depth)
            }
            Raw::FieldOf { .. }
            | Raw::GenericReturns { .. }
            | Raw::Returns(_)
            | Raw::MethodReturns { .. }
            | Raw::Parameter { .. }
            | Raw::TupleElement { .. }
            | Raw::AliasOf { .. }
            | Raw::ParameterOf { .. }
            | Raw::MethodParameterOf { .. } => {
                let (file, declared) = self
                    .declared_type(path, holder, depth + 1)
                    .map_err(outside_declares)?;
                self.place_of(&file, &declared, depth + 1)
            }
            Raw::ElementOf(array) => match self
                .declared_type(path, array, depth + 1)
                .map_err(outside_declares)?
            {
                (file, Raw::ArrayOf(element)) => self.place_of(&file, &element, depth + 1),
                _ => Err(Resolution::Unresolved(
                    "the receiver of the callback is not declared an array".into(),
                )),
            },
            Raw::ArrayOf(_) => Err(Resolution::Unresolved("a member of an array".into())),
            Raw::MapOf(_) => Err(Resolution::Unresolved("a member of a Map".into())),
            Raw::Outside(why) => Err(Resolution::Outside(why.clone())),
            Raw::Unresolved(why) => Err(Resolution::Unresolved(why.clone())),
            Raw::Member { .. } | Raw::Private { .. } => {
                Err(Resolution::Unresolved("a member of a member".into()))
            }
        }
    }

    /// Where the declaration at `start` of `file` places its members: a class or interface is
    /// itself; a type alias stands for what it names; an imported variable for what its
    /// declaration says it holds (a local one is typed where it is read).
    fn holder_place(
        &self,
        file: String,
        start: u32,
        imported: bool,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        let facts = self.facts(&file);
        if let Some(named) = facts.as_ref().and_then(|f| f.aliases.get(&start)) {
            return self.place_of(&file, named, depth + 1);
        }
        if imported && let Some(held) = facts.as_ref().and_then(|f| f.values.get(&start)) {
            return self
                .place_of(&file, held, depth + 1)
                .map_err(outside_declares);
        }
        Ok((file, start))
    }

    /// What a value's declaration says it is, and the file that says it: the return type a
    /// called function or method declares, a callable type's parameter type, an array type;
    /// why not for anything else.
    fn declared_type(
        &self,
        path: &str,
        value: &Raw,
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        let (file, declared) = self.declaration_says(path, value, depth)?;
        Ok(self.unaliased(file, declared, depth + 1))
    }

    /// What a type alias (of this file or imported) names, followed to a type that is no
    /// alias; anything else as it is.
    fn unaliased(&self, file: String, raw: Raw, depth: usize) -> (String, Raw) {
        if depth > MAX_DEPTH {
            return (file, raw);
        }
        let (home, start) = match &raw {
            Raw::Local(start) => (file.clone(), *start),
            Raw::Imported { source, name } => match self.export(&file, source, name, depth + 1) {
                Ok(found) => found,
                Err(_) => return (file, raw),
            },
            _ => return (file, raw),
        };
        match self
            .facts(&home)
            .and_then(|f| f.aliases.get(&start).cloned())
        {
            Some(named) => self.unaliased(home, named, depth + 1),
            None => (file, raw),
        }
    }

    /// What a value's declaration says it is (an alias not followed), and the file saying it.
    fn declaration_says(
        &self,
        path: &str,
        value: &Raw,
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        if depth > MAX_DEPTH {
            return Err(Resolution::Unresolved("a chain too long to follow".into()));
        }
        match value {
            // An imported type, as its module declares it (an alias is followed after).
            Raw::Imported { .. } => Ok((path.to_string(), value.clone())),
            Raw::FieldOf { holder, name } => {
                let (file, start) = self.method_of(path, holder, name, depth + 1)?;
                let typed = self
                    .facts(&file)
                    .and_then(|f| f.member_types.get(&(start, name.clone())).cloned())
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "the type of `{name}` is no class, interface or array its declaration (in {file}) names"
                        ))
                    })?;
                Ok((file, typed))
            }
            Raw::ArrayOf(_) | Raw::MapOf(_) => Ok((path.to_string(), value.clone())),
            Raw::AliasOf { alias, arguments } => self.alias_says(path, alias, arguments, depth),
            Raw::GenericReturns {
                function,
                arguments,
            } => {
                let (file, start) = self.place_of(path, function, depth + 1)?;
                match self.facts(&file).and_then(|f| f.generic_returns.get(&start).copied()) {
                    // The type argument, as the call (in this file) names it.
                    Some(index) => match arguments.get(index) {
                        Some(Some(argument)) => Ok((path.to_string(), argument.clone())),
                        _ => Err(Resolution::Unresolved(
                            "the call's type argument is no class, interface or array lancet can name".into(),
                        )),
                    },
                    None => self.declaration_says(path, &Raw::Returns(function.clone()), depth + 1),
                }
            }
            Raw::Returns(function) => {
                let (file, start) = self.place_of(path, function, depth + 1)?;
                let returned = self
                    .facts(&file)
                    .and_then(|f| f.returns.get(&start).cloned())
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "what the function called returns is not declared (in {file})"
                        ))
                    })?;
                Ok((file, returned))
            }
            Raw::MethodReturns { holder, name } => {
                // `m.get(k)` of a `Map<K, V>`: a V (or undefined).
                if name == "get"
                    && let Ok((file, Raw::MapOf(value))) =
                        self.declared_type(path, holder, depth + 1)
                {
                    return Ok((file, *value));
                }
                // `rows.filter(…)`, `rows.slice(…)`: the array they are called on, as declared.
                if SAME_ARRAY.contains(&name.as_str())
                    && let Ok((file, array @ Raw::ArrayOf(_))) =
                        self.declared_type(path, holder, depth + 1)
                {
                    return Ok((file, array));
                }
                let (file, start) = self.method_of(path, holder, name, depth + 1)?;
                let returned = self
                    .facts(&file)
                    .and_then(|f| f.method_returns.get(&(start, name.clone())).cloned())
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "what `{name}(…)` returns is not declared (in {file})"
                        ))
                    })?;
                Ok((file, returned))
            }
            Raw::ParameterOf { .. } | Raw::MethodParameterOf { .. } => {
                self.parameter_declared(path, value, depth)
            }
            Raw::TupleElement {
                function,
                position,
                index,
                elements,
            } => self.tuple_element_says(path, function, *position, *index, elements, depth),
            Raw::Parameter { callable, index } => {
                let (file, start) = self.place_of(path, callable, depth + 1)?;
                // Merged declarations may hold several call signatures (overloads).
                let typed = self
                    .facts(&file)
                    .filter(|f| !f.merged.contains(&start))
                    .and_then(|f| f.callables.get(&start).and_then(|p| p.get(*index).cloned()))
                    .flatten()
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "the type of a callback's parameter is no class or interface its callable type in {file} names"
                        ))
                    })?;
                Ok((file, typed))
            }
            _ => Err(Resolution::Unresolved(
                "the type of the receiver is not declared".into(),
            )),
        }
    }

    /// What an imported generic type with its arguments ([`Raw::AliasOf`]) is: the argument
    /// for the parameter an alias keeps the members of, else the type itself.
    fn alias_says(
        &self,
        path: &str,
        alias: &Raw,
        arguments: &[Option<Raw>],
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        // A type outside the tree (or not found) is told where it is placed.
        let itself = || Ok((path.to_string(), alias.clone()));
        let Raw::Imported { source, name } = alias else {
            return itself();
        };
        let Ok((file, start)) = self.export(path, source, name, depth + 1) else {
            return itself();
        };
        match self
            .facts(&file)
            .and_then(|f| f.parameter_aliases.get(&start).copied())
        {
            // The argument, as the reference (in this file) writes it.
            Some(index) => match arguments.get(index) {
                Some(Some(argument)) => Ok((path.to_string(), argument.clone())),
                _ => Err(Resolution::Unresolved(
                    "the type argument is no class, interface or array lancet can name".into(),
                )),
            },
            None => itself(),
        }
    }

    /// What a callback's parameter taking another callback's tuple ([`Raw::TupleElement`]) is:
    /// the element the call writes, when the function declares the pair; else the
    /// parameter's declared type.
    fn tuple_element_says(
        &self,
        path: &str,
        function: &Raw,
        position: usize,
        index: usize,
        elements: &[(usize, Raw)],
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        let (file, start) = self.place_of(path, function, depth + 1)?;
        let takes = self
            .facts(&file)
            .and_then(|f| f.tuple_callbacks.get(&start).cloned())
            .and_then(|pairs| {
                pairs
                    .into_iter()
                    .find_map(|(callback, tuple)| (callback == position).then_some(tuple))
            });
        match takes {
            // The element, as the call (in this file) writes it: a type, or a value
            // whose declaration says (`row.getAllCells()`).
            Some(tuple) => match elements.iter().find(|(at, _)| *at == tuple) {
                Some((
                    _,
                    element @ (Raw::Local(_)
                    | Raw::Imported { .. }
                    | Raw::ArrayOf(_)
                    | Raw::MapOf(_)),
                )) => Ok((path.to_string(), element.clone())),
                Some((_, Raw::Unresolved(why))) => Err(Resolution::Unresolved(why.clone())),
                Some((_, element)) => self.declaration_says(path, element, depth + 1),
                None => Err(Resolution::Unresolved(format!(
                    "the callback takes the tuple argument {} returns, which is no array literal lancet reads",
                    tuple + 1
                ))),
            },
            None => {
                let parameter = Raw::Parameter {
                    callable: Box::new(Raw::ParameterOf {
                        function: Box::new(function.clone()),
                        position,
                    }),
                    index,
                };
                self.declaration_says(path, &parameter, depth + 1)
            }
        }
    }

    /// The callable type a parameter of a function or method of the tree is declared as
    /// (a [`Raw::ParameterOf`] or [`Raw::MethodParameterOf`]), and the file declaring it.
    fn parameter_declared(
        &self,
        path: &str,
        value: &Raw,
        depth: usize,
    ) -> Result<(String, Raw), Resolution> {
        match value {
            Raw::ParameterOf { function, position } => {
                let (file, start) = self.place_of(path, function, depth + 1)?;
                let callable = self
                    .facts(&file)
                    .and_then(|f| f.parameters.get(&start).and_then(|p| p.get(*position).cloned()))
                    .flatten()
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "parameter {} of the function called is not declared a callable type (in {file}; an overloaded function's is not told)",
                            position + 1
                        ))
                    })?;
                Ok((file, callable))
            }
            Raw::MethodParameterOf {
                holder,
                name,
                position,
            } => {
                let (file, start) = self.method_of(path, holder, name, depth + 1)?;
                let callable = self
                    .facts(&file)
                    .and_then(|f| {
                        f.method_parameters
                            .get(&(start, name.clone()))
                            .and_then(|p| p.get(*position).cloned())
                    })
                    .flatten()
                    .ok_or_else(|| {
                        Resolution::Unresolved(format!(
                            "parameter {} of `{name}` is not declared a callable type (in {file}; an overloaded method's is not told)",
                            position + 1
                        ))
                    })?;
                Ok((file, callable))
            }
            _ => Err(Resolution::Unresolved(
                "not a parameter of a function or method".into(),
            )),
        }
    }

    /// The class or interface whose declaration of method `name` a holder's calls reach: the
    /// holder's own, else the one it inherits (its file and name's offset).
    fn method_of(
        &self,
        path: &str,
        holder: &Raw,
        name: &str,
        depth: usize,
    ) -> Result<(String, u32), Resolution> {
        let (file, start) = self.place_of(path, holder, depth + 1)?;
        let declares = self.facts(&file).is_some_and(|f| {
            f.members
                .get(&start)
                .is_some_and(|m| m.iter().any(|n| n == name))
        });
        if declares {
            return Ok((file, start));
        }
        match self.inherited(&file, start, name, depth + 1) {
            Ok(Some(found)) => Ok(found),
            Ok(None) | Err(_) => Err(Resolution::Unresolved(format!(
                "the method `{name}` is not found on the receiver's class"
            ))),
        }
    }

    /// The declaration of member `name` that class or interface `start` of `file` declares
    /// overrides, followed up to the one that overrides none of the tree (its own when it
    /// overrides none): the declaration a member and all its overrides share as one symbol.
    /// A declaration whose bases lancet cannot read (a package's class) stands for itself, as
    /// it does when named directly; why not when the hierarchy is too deep to follow.
    fn root_member(
        &self,
        file: &str,
        start: u32,
        name: &str,
        depth: usize,
    ) -> Result<(String, u32), String> {
        let mut at = (file.to_string(), start);
        for level in depth..=MAX_DEPTH {
            match self.inherited(&at.0, at.1, name, level + 1) {
                Ok(Some(base)) => at = base,
                Ok(None) | Err(_) => return Ok(at),
            }
        }
        Err("a hierarchy too deep to follow".into())
    }

    /// A member of a value the global `Array` or `Map` holds (`rows.map`, `m.get`): the
    /// library's, outside the tree, when the library declares a member of that name; `None`
    /// when the holder is no such value or the name is none of the library's.
    fn library_member(
        &self,
        path: &str,
        holder: &Raw,
        name: &str,
        depth: usize,
    ) -> Option<Resolution> {
        let declared = match holder {
            Raw::ArrayOf(_) | Raw::MapOf(_) => holder.clone(),
            Raw::Local(_) | Raw::Imported { .. } => {
                self.unaliased(path.to_string(), holder.clone(), depth + 1)
                    .1
            }
            _ => self.declared_type(path, holder, depth + 1).ok()?.1,
        };
        let (members, global) = match declared {
            Raw::ArrayOf(_) => (ARRAY_MEMBERS, "Array"),
            Raw::MapOf(_) => (MAP_MEMBERS, "Map"),
            _ => return None,
        };
        members.contains(&name).then(|| {
            Resolution::Outside(format!(
                "`{name}` of an array or map is the global `{global}`'s"
            ))
        })
    }

    /// The declaration of member `name` that class or interface `start` of `file` inherits:
    /// the one base (followed through its own bases) that declares it, `None` when every
    /// base is known and none does; why not when a base is outside the tree or cannot be
    /// read, when the holder's declarations are merged, or when several bases declare it.
    fn inherited(
        &self,
        file: &str,
        start: u32,
        name: &str,
        depth: usize,
    ) -> Result<Option<(String, u32)>, String> {
        if depth > MAX_DEPTH {
            return Err("a hierarchy too deep to follow".into());
        }
        let facts = self
            .facts(file)
            .ok_or_else(|| format!("{file} cannot be read"))?;
        if facts.merged.contains(&start) {
            return Err("its declarations are merged".into());
        }
        let bases = facts
            .bases
            .get(&start)
            .ok_or_else(|| "it is not a class or interface lancet reads".to_string())?;
        let mut found: Option<(String, u32)> = None;
        for base in bases {
            let (base_file, base_start) =
                self.place_of(file, base, depth + 1)
                    .map_err(|r| match (r, base) {
                        (Resolution::Outside(why), Raw::Imported { name: class, .. }) => {
                            format!("its base `{class}` is outside the tree ({why})")
                        }
                        (Resolution::Outside(why), _) => {
                            format!("a base is outside the tree ({why})")
                        }
                        (_, Raw::Imported { name: class, .. }) => {
                            format!("its base `{class}` is not resolved in the tree")
                        }
                        (Resolution::Unresolved(why), _) => why,
                        _ => "a base lancet cannot read".into(),
                    })?;
            let declares = self.facts(&base_file).is_some_and(|f| {
                f.members
                    .get(&base_start)
                    .is_some_and(|m| m.iter().any(|n| n == name))
            });
            let here = if declares {
                Some((base_file, base_start))
            } else {
                self.inherited(&base_file, base_start, name, depth + 1)?
            };
            match (&found, here) {
                (Some(a), Some(b)) if *a != b => {
                    return Err("several bases declare it".into());
                }
                (_, Some(b)) => found = Some(b),
                _ => {}
            }
        }
        Ok(found)
    }
}

/// A value whose type a declaration outside the tree gives (what a package's function returns,
/// a parameter of a package's callback) may be an instance of the tree's own class: its
/// members are undecided, never outside.
fn outside_declares(resolution: Resolution) -> Resolution {
    match resolution {
        Resolution::Outside(why) => Resolution::Unresolved(format!(
            "the value's type is declared outside the tree ({why})"
        )),
        other => other,
    }
}

/// The id of a declaration of `file` at `offset`, or of a member it declares.
pub(super) fn declaration_id(
    file: &str,
    offset: u32,
    member: Option<EcmaMember>,
) -> model::SymbolId {
    model::SymbolId::Ecma {
        file: file.to_string(),
        offset,
        member,
    }
}

impl EcmaProject<'_> {
    /// What each identifier spelled `name` at `offsets` of `file` refers to, as a rename
    /// resolves it.
    pub(crate) fn resolve_names(
        &self,
        file: &Parsed,
        offsets: &[usize],
        name: &str,
    ) -> Vec<Resolution> {
        self.resolve_file(file, offsets, name)
            .into_iter()
            .map(|r| r.value)
            .collect()
    }
}

impl Resolver for EcmaProject<'_> {
    fn languages(&self) -> &'static [&'static str] {
        &["javascript", "typescript", "tsx"]
    }

    /// Resolves every occurrence (byte offsets of `old`) of one file.
    fn resolve_file(&self, file: &Parsed, offsets: &[usize], old: &str) -> Vec<Resolved> {
        let path = file.path.as_str();
        let analysis = analyze(path, &file.text, offsets, old.len());
        if let Ok(mut facts) = self.facts.lock() {
            facts.insert(path.to_string(), Some(Arc::clone(&analysis.facts)));
        }
        analysis
            .raw
            .into_iter()
            .map(|(raw, field)| Resolved {
                value: self.finish(path, raw, 0),
                field: field.map(|f| self.finish(path, f, 0)),
            })
            .collect()
    }

    /// A class's member and the interface's it implements (see [`EcmaProject::implements`]),
    /// or two with a class or interface below both (see [`EcmaProject::share_a_descendant`]).
    fn related(&self, a: &model::SymbolId, b: &model::SymbolId) -> bool {
        self.implements(a, b) || self.share_a_descendant(a, b)
    }

    /// A member of a class or interface: a base up its hierarchy outside the tree that may
    /// declare it.
    fn reached_from_outside(
        &self,
        id: &model::SymbolId,
        name: &str,
    ) -> Option<crate::report::OutsideReach> {
        let (file, start, own) = id.ecma_member()?;
        self.member_reached_from_outside(file, start, own, name)
    }

    /// A class or interface of the tree up or down the member's hierarchy, in any file, that
    /// declares NEW (see [`EcmaProject::hierarchy_declaring`]).
    fn in_hierarchy(&self, id: &model::SymbolId, name: &str) -> Option<(String, usize, String)> {
        let (file, start, _) = id.ecma_member()?;
        self.hierarchy_declaring(file, start, name)
    }
}
