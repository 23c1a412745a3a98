//! Each language's reading and resolving, chosen by the scanned file's language: the one
//! place a signature change dispatches between [`super::python`] and [`super::ecma`].

use super::binding::Arg;
use super::layout::List;
use super::syntax::{Def, DefProblem, Use};
use super::{ecma, python};
use crate::rename::ecma::EcmaProject;
use crate::rename::model::{Parsed, Resolution};
use crate::rename::python::PyProject;
use tree_sitter::Node;

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

/// The resolvers a plan asks what the syntax cannot tell: a receiver's kind, a name's binding,
/// a class's bases.
pub(super) struct Facts<'a> {
    pub(super) py: &'a PyProject<'a>,
    pub(super) ecma: &'a EcmaProject<'a>,
}

impl Facts<'_> {
    /// What each identifier spelled `name` at `offsets` of a file refers to.
    pub(super) fn resolve(
        &self,
        lang: Lang,
        file: &Parsed,
        offsets: &[usize],
        name: &str,
    ) -> Vec<Resolution> {
        match lang {
            Lang::Python => self.py.resolve_names(file, offsets, name),
            Lang::Ecma { .. } => self.ecma.resolve_names(file, offsets, name),
        }
    }
}
