//! The tree's subclasses of a class, for `self.name` in a method of a class whose hierarchy
//! does not define `name`: `self` is then an instance of a subclass, and the member is the one
//! the subclasses of the tree define. Flask's `sansio.Blueprint` passes
//! `self.send_static_file`, which only `flask.Blueprint(sansio.Blueprint)` defines: that
//! site is `flask.Blueprint`'s, never `Flask.send_static_file`.
//!
//! The subclasses are found from the class's name outward: the files that spell one of the
//! known classes' names are parsed, their classes whose bases resolve to a known class are
//! known in turn, until none is added. A subclass made at run time (`type(…)`) or outside the
//! tree is not seen, as a subclass outside the tree that overrides a method is not.

use super::members::Lacks;
use super::scopes::{Bound, qual_of, scope_of};
use super::{MAX_DEPTH, PyModule, PyProject, Target, remembered};
use crate::rename::model::{Resolution, SymbolId};
use crate::rename::word_index::WordIndex;
use crate::rename::words::whole_word_offsets;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::sync::Arc;
use tree_sitter::Node;

thread_local! {
    /// How many base expressions this thread is resolving (see [`PyProject::base_target`]).
    static IN_BASE: Cell<u32> = const { Cell::new(0) };
}

/// A class of the tree: its file and qualified name.
pub(super) type Class = (String, String);

/// A file's classes (qualified names) with what their bases are.
pub(super) type FileClasses = Arc<Vec<(String, Vec<Base>)>>;

/// What one base of a class is, for a subclass search.
pub(super) enum Base {
    /// A class of the tree.
    Tree(Class),
    /// Outside the tree.
    Outside,
    /// Not resolved: its text, and when it is a variable, the texts of its values.
    Unresolved(String, Option<Vec<String>>),
    /// A variable whose bindings lancet cannot read: it may hold any class.
    Unreadable,
}

impl PyProject<'_> {
    /// `self.name` where class `qual` of `file` and its bases lack `name`: the one member of
    /// the tree its subclasses give, or `None` when that is not one member of the tree (none
    /// defines it, several do, or a subclass may take it from a base outside the tree or a
    /// `__getattr__`).
    pub(super) fn subclasses_member(&self, file: &str, qual: &str, name: &str) -> Option<SymbolId> {
        let subclasses = self.subclasses(file, qual)?;
        let mut found: Option<SymbolId> = None;
        for (sub_file, sub_qual) in subclasses.iter() {
            match self.class_member(sub_file, sub_qual, name, 0) {
                Resolution::Symbol(id) => match &found {
                    Some(first) if *first != id => return None,
                    _ => found = Some(id),
                },
                _ => match self.hierarchy_lacks(sub_file, sub_qual, name, 0) {
                    Lacks::Everywhere => {}
                    Lacks::Outside(_) | Lacks::NotCertain => return None,
                },
            }
        }
        found
    }

    /// Whether two classes of the tree have a subclass of the tree in common (`class C(A, B)`):
    /// a member both define is then one to a rename, as `C`'s lookup finds one of them and a
    /// rename of that one alone would hand `C` the other's.
    pub(super) fn share_a_subclass(&self, a: &Class, b: &Class) -> bool {
        let (Some(of_a), Some(of_b)) = (self.subclasses(&a.0, &a.1), self.subclasses(&b.0, &b.1))
        else {
            return false;
        };
        of_a.iter().any(|class| of_b.binary_search(class).is_ok())
    }

    /// Every class of the tree that derives from class `qual` of `file`, directly or not (the
    /// class itself not included), sorted; `None` past [`MAX_DEPTH`] rounds or when a base
    /// lancet does not resolve may be one of them.
    pub(super) fn subclasses(&self, file: &str, qual: &str) -> Option<Arc<Vec<Class>>> {
        if IN_BASE.with(Cell::get) > 0 {
            return None;
        }
        let key = (file.to_string(), qual.to_string());
        remembered(&self.subclass_memo, key.clone(), || {
            self.search_subclasses(&key)
        })
    }

    /// [`PyProject::subclasses`] searched: from the class's name outward, round by round.
    fn search_subclasses(&self, key: &Class) -> Option<Arc<Vec<Class>>> {
        let index = self.words.get_or_init(|| {
            let paths = self.files.sorted().into_iter().cloned().collect();
            WordIndex::new(paths, &|path| self.text_of(path))
        });
        let mut known: BTreeSet<Class> = BTreeSet::from([key.clone()]);
        let mut names: BTreeSet<String> = BTreeSet::from([last_part(&key.1).to_string()]);
        for _ in 0..MAX_DEPTH {
            let before = known.len();
            for path in index.spelling_any(&names) {
                for (qual, bases) in self.classes_of_file(path).iter() {
                    let this = (path.to_string(), qual.clone());
                    if !known.contains(&this) && derives_from_known(bases, &known, &names)? {
                        names.insert(last_part(qual).to_string());
                        known.insert(this);
                    }
                }
            }
            if known.len() == before {
                known.remove(key);
                return Some(Arc::new(known.into_iter().collect()));
            }
        }
        None
    }

    /// A file's text for the word index: from its parse when it was parsed, else read.
    fn text_of(&self, path: &str) -> Option<String> {
        let parsed = self.parsed.lock().ok()?.get(path).cloned().flatten();
        match parsed {
            Some(module) => Some(module.text.clone()),
            None => (self.read)(path),
        }
    }

    /// What a class's base expression stands for, resolved without subclass searches: a
    /// search resolves bases, and a base (`class X(obj.attr)`) could ask for a search again;
    /// resolving every base so, wherever it is asked, keeps each answer one answer.
    pub(super) fn base_target(&self, module: &PyModule, base: Node, depth: usize) -> Target {
        IN_BASE.with(|n| n.set(n.get() + 1));
        let target = self.expression(module, base, depth);
        IN_BASE.with(|n| n.set(n.get() - 1));
        target
    }

    /// Each class a file defines (at any depth) with what its bases are, remembered: a
    /// subclass search asks it of every file that spells a known name, and a rename runs many.
    fn classes_of_file(&self, path: &str) -> FileClasses {
        remembered(&self.file_classes, path.to_string(), || {
            let found: Vec<(String, Vec<Base>)> = match self.module(path) {
                Some(module) => classes_in(&module)
                    .into_iter()
                    .map(|class| (qual_of(class, &module), self.bases_of(&module, class)))
                    .collect(),
                None => Vec::new(),
            };
            Arc::new(found)
        })
    }

    /// What each base of a class is.
    fn bases_of(&self, module: &PyModule, class: Node) -> Vec<Base> {
        let mut found = Vec::new();
        let Some(bases) = class.child_by_field_name("superclasses") else {
            return found;
        };
        let mut cursor = bases.walk();
        for base in bases
            .named_children(&mut cursor)
            .filter(|b| b.kind() != "keyword_argument")
        {
            let code = module.text[base.byte_range()].to_string();
            found.push(match self.base_target(module, base, 1) {
                Target::Class(file, qual) => Base::Tree((file, qual)),
                Target::Outside(_) => Base::Outside,
                Target::Variable(..) => match self.variable_values(module, base) {
                    Some(values) => {
                        Base::Unresolved(code, Some(values.into_iter().map(String::from).collect()))
                    }
                    None => Base::Unreadable,
                },
                _ => Base::Unresolved(code, None),
            });
        }
        found
    }

    /// The texts of the values a variable named by `ident` is assigned, in the scope whose
    /// bindings it reads; `None` when one binding is not a plain assignment.
    fn variable_values<'m>(&self, module: &'m PyModule, ident: Node) -> Option<Vec<&'m str>> {
        if ident.kind() != "identifier" {
            return None;
        }
        let name = &module.text[ident.byte_range()];
        let mut scope = scope_of(ident, module);
        let bound = loop {
            let bound = self.bindings(module, scope, name);
            if !bound.is_empty() {
                break bound;
            }
            scope = scope_of(scope?, module);
        };
        bound
            .iter()
            .map(|b| match b {
                Bound::Value(start, end) => module.text.get(*start..*end),
                _ => None,
            })
            .collect()
    }
}

/// The last part of a qualified name (`Outer.Inner` → `Inner`).
fn last_part(qual: &str) -> &str {
    qual.rsplit(['.', ':']).next().unwrap_or(qual)
}

/// Every class definition of a module, at any depth.
fn classes_in(module: &PyModule) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![module.tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "class_definition" {
            out.push(n);
        }
        let mut cursor = n.walk();
        stack.extend(
            n.named_children(&mut cursor)
                .filter(|c| may_hold_a_class(c.kind())),
        );
    }
    out
}

/// Whether a node of this kind may hold a class definition: a statement that holds a block, a
/// block, a clause of one, a definition. An expression or a simple statement cannot (a
/// `lambda` holds no statement), so a search for classes does not walk them. A part that does
/// not parse (`ERROR`) may hold anything.
fn may_hold_a_class(kind: &str) -> bool {
    matches!(
        kind,
        "ERROR"
            | "block"
            | "class_definition"
            | "function_definition"
            | "decorated_definition"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "match_statement"
            | "case_clause"
    )
}

/// Whether one of a class's bases is a class of `known`; `None` when a base lancet does not
/// resolve may be one: it spells a known class's name (`mixed(Base)`), or it is a variable one
/// of whose values does (`B = Base`) or whose binding lancet cannot read. Other bases it does
/// not resolve (`oldcls = x.__class__`, a module it does not follow) name none of them.
fn derives_from_known(
    bases: &[Base],
    known: &BTreeSet<Class>,
    names: &BTreeSet<String>,
) -> Option<bool> {
    let spells = |code: &str| {
        names
            .iter()
            .any(|n| !whole_word_offsets(code.as_bytes(), n).is_empty())
    };
    let mut derives = false;
    for base in bases {
        match base {
            Base::Tree(class) => derives |= known.contains(class),
            Base::Outside => {}
            Base::Unresolved(code, _) if spells(code) => return None,
            Base::Unresolved(_, Some(values)) if values.iter().any(|v| spells(v)) => return None,
            Base::Unresolved(..) => {}
            Base::Unreadable => return None,
        }
    }
    Some(derives)
}
