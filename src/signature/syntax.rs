//! What a signature change reads of a definition and its sites, whatever the language: a
//! definition's parameters, a call's arguments, what an occurrence is; each language's own
//! reading ([`super::python`], [`super::ecma`]) chosen by the scanned file's language.

use super::binding::Arg;
use super::layout::List;
use super::params::Signature;
use super::{ecma, python};
use lancet_core::{SiteProblem, UnsupportedDefinition};
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

/// The languages whose signatures lancet changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// Python.
    Python,
    /// JavaScript, or TypeScript (whose parameters a type makes: an added one without a
    /// default would have none).
    Ecma { typescript: bool },
}

impl Lang {
    /// The language of a scanned file, by its name in the language table.
    pub(crate) fn of(language: &str) -> Option<Lang> {
        match language {
            "python" => Some(Lang::Python),
            "javascript" => Some(Lang::Ecma { typescript: false }),
            "typescript" | "tsx" => Some(Lang::Ecma { typescript: true }),
            _ => None,
        }
    }

    /// Reads a definition's parameters.
    pub(crate) fn read_def<'t>(self, node: Node<'t>, source: &str) -> Result<Def<'t>, DefProblem> {
        match self {
            Lang::Python => python::read_def(node, source),
            Lang::Ecma { .. } => ecma::read_def(node, source),
        }
    }

    /// Reads a call's arguments, their list, and whether a comment stands among them.
    pub(crate) fn read_call(self, call: Node, source: &str) -> Option<(Vec<Arg>, List, bool)> {
        match self {
            Lang::Python => python::read_call(call, source),
            Lang::Ecma { .. } => ecma::read_call(call),
        }
    }

    /// What an occurrence is (`class_name`: of a class whose constructor changes).
    pub(crate) fn classify<'t>(self, ident: Node<'t>, source: &str, class_name: bool) -> Use<'t> {
        match self {
            Lang::Python => python::classify(ident, source, class_name),
            Lang::Ecma { .. } => ecma::classify(ident),
        }
    }

    /// Identifiers spelled `name` in a definition's body, by byte offset.
    pub(crate) fn body_identifiers(self, def: Node, source: &str, name: &str) -> Vec<usize> {
        match self {
            Lang::Python => python::body_identifiers(def, source, name),
            Lang::Ecma { .. } => ecma::body_identifiers(def, source, name),
        }
    }

    /// Whether `code` is one expression of the language (a default or value given).
    pub(crate) fn is_expression(self, code: &str) -> bool {
        match self {
            Lang::Python => python::is_expression(code),
            Lang::Ecma { typescript } => ecma::is_expression(code, typescript),
        }
    }

    /// Lines where `name` stands as a name of code in a definition.
    pub(crate) fn name_lines(
        self,
        def: Node,
        source: &str,
        name: &str,
        starts: &[usize],
    ) -> Vec<usize> {
        match self {
            Lang::Python => python::name_lines(def, source, name, starts),
            Lang::Ecma { .. } => ecma::name_lines(def, source, name, starts),
        }
    }
}
