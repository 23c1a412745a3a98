//! What a signature change reads of a definition and its sites, whatever the language: a
//! definition's parameters and what an occurrence is. Each language's own reading
//! ([`super::python`], [`super::ecma`]) makes these; [`super::lang`] chooses it.

use super::layout::List;
use super::params::Signature;
use crate::report::{SiteProblem, UnsupportedDefinition};
use std::ops::Range;
use tree_sitter::Node;

/// A definition as read.
pub(crate) struct Def<'t> {
    /// What defines it: Python's `function_definition`; a JavaScript/TypeScript function
    /// declaration, or the declarator holding an arrow function or function expression.
    pub(crate) node: Node<'t>,
    /// Its parameters.
    pub(crate) signature: Signature,
    /// Each entry's place, and its name's for a parameter.
    pub(crate) places: Vec<(Range<usize>, Option<Range<usize>>)>,
    /// The parameter list's inside and entries.
    pub(crate) list: List,
    /// A comment among the parameters (lancet does not guess where it goes).
    pub(crate) comments: bool,
}

/// What stops a definition from being read.
pub(crate) enum DefProblem {
    /// A decorator, an overload, a method lancet does not change in this language.
    Unsupported(UnsupportedDefinition),
    /// A parameter lancet does not read (a tuple or destructured parameter).
    Unreadable,
}

/// What an occurrence of the function's (or, for a constructor, its class's) name is.
pub(crate) enum Use<'t> {
    /// What defines it (see [`Def::node`]).
    Definition(Node<'t>),
    /// A call: the call node, and the object it is called through (`obj.f(…)`).
    Call {
        call: Node<'t>,
        receiver: Option<Node<'t>>,
    },
    /// Nothing to update: an import or export, a class's own name, an annotation, a base class,
    /// a test of a type.
    Harmless,
    /// A use whose calls cannot be found or updated.
    Problem(SiteProblem),
}
