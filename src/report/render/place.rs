//! A place's refusals in words: a `--at` that names no symbol lancet can read, a path, a
//! qualified name; shared by rename, move and signature.

use super::refused::{RefusalWords, refused};
use crate::report::{AtProblem, PlaceRefusal, Status, Surface};
use lancet_core::kinds::ErrorKind;

/// A place's refusal: `--at`, a path, a qualified name.
pub(super) fn place_words(refusal: &PlaceRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        PlaceRefusal::AtNamesOther { place, name, old } => {
            let at = surface.param("--at");
            refused(
                ErrorKind::NoMatch,
                format!("{at} {place} points at `{name}`, not `{old}`"),
                &format!("Leave OLD out with {at} (it is the identifier there), or point at OLD."),
            )
        }
        PlaceRefusal::AtUnsupported { name, place, why } => refused(
            ErrorKind::UnresolvedSites,
            format!("lancet does not rename `{name}` at {place}: {why}"),
            &format!(
                "Pass {} to have the project's language server rename it.",
                surface.switch("--lsp")
            ),
        ),
        PlaceRefusal::AtUnresolved { name, place, why } => refused(
            ErrorKind::UnresolvedSites,
            format!("lancet cannot tell what `{name}` at {place} refers to: {why}"),
            &format!(
                "Point {} at its definition, or pass {} to ask the project's language server.",
                surface.param("--at"),
                surface.switch("--lsp")
            ),
        ),
        PlaceRefusal::AtOutside { name, place, why } => refused(
            ErrorKind::NoMatch,
            format!(
                "`{name}` at {place} is not defined in the tree: {why}; lancet renames only the tree's own names"
            ),
            &format!(
                "Point {} at a definition of the tree or one of its uses.",
                surface.param("--at")
            ),
        ),
        PlaceRefusal::AtNotCode { name, place } => refused(
            ErrorKind::NoMatch,
            format!(
                "`{name}` at {place} is not an identifier in code lancet walked (a string, a comment, or an ignored file)"
            ),
            &format!("Point {} at the identifier in code.", surface.param("--at")),
        ),
        PlaceRefusal::AtMalformed { problem } => (
            Status::Malformed,
            ErrorKind::Usage,
            at_problem(problem, surface),
            format!(
                "Pass {} PATH:LINE:COL (1-based line and column of any character of the identifier, as {} numbers lines).",
                surface.param("--at"),
                surface.read("PATH")
            ),
        ),
        PlaceRefusal::PathOutside { error, at } => refused(
            ErrorKind::UnsafePath,
            error.clone(),
            if *at {
                "Pass a path relative to the root, inside it."
            } else {
                "Pass paths relative to the root, inside it."
            },
        ),
        PlaceRefusal::AtFileMissing { path } => refused(
            ErrorKind::Missing,
            format!("{path} is not a readable file under the root"),
            "Pass an existing file.",
        ),
        PlaceRefusal::PathMissing { path } => refused(
            ErrorKind::Missing,
            format!("{path} does not exist under the root"),
            "Pass existing files or directories.",
        ),
        PlaceRefusal::OldTypedWithAt { taken, name } => old_typed_with_at(taken, name, surface),
        PlaceRefusal::QualifiedUnknown { qualified } => refused(
            ErrorKind::NoMatch,
            format!("no symbol of the tree is named `{qualified}`"),
            &format!(
                "Check the qualified name (module path, then classes, then the name), or use {} PATH:LINE:COL.",
                surface.param("--at")
            ),
        ),
        PlaceRefusal::LspWithoutAt => {
            let at = surface.param("--at");
            (
                Status::Malformed,
                ErrorKind::Usage,
                format!(
                    "{} renames the symbol at a position: pass {at} PATH:LINE:COL",
                    surface.switch("--lsp")
                ),
                format!(
                    "Add {at} with the position of the symbol's definition or of one of its uses."
                ),
            )
        }
    }
}

/// What is wrong with a `--at` place, in words.
fn at_problem(problem: &AtProblem, surface: Surface) -> String {
    match problem {
        AtProblem::NotAPlace { place } => {
            format!(
                "{} takes PATH:LINE:COL, got {place:?}",
                surface.param("--at")
            )
        }
        AtProblem::NoLine { path, line } => format!("{path} has no line {line}"),
        AtProblem::NoColumn { path, line, column } => {
            format!("line {line} of {path} has no column {column}")
        }
        AtProblem::NotOnIdentifier { place, line_text } => {
            format!("{place} is not on an identifier (the line reads {line_text:?})")
        }
    }
}

/// `--at P:L:C OLD NEW` on the command line: OLD was taken for NEW and NEW for a path.
fn old_typed_with_at(taken: &str, name: &str, surface: Surface) -> RefusalWords {
    match surface {
        Surface::Cli => (
            Status::Malformed,
            ErrorKind::Usage,
            format!(
                "`{name}` is no file or directory under the root: with --at, OLD is left out, so `{taken}` was taken for NEW and `{name}` for a path"
            ),
            format!("Run `lancet rename --at PATH:LINE:COL {name}`."),
        ),
        Surface::Mcp => (
            Status::Malformed,
            ErrorKind::Usage,
            format!("`new` is `{taken}`, and `paths` names `{name}`, which does not exist"),
            "Pass the new name as `new` and existing files or directories as `paths`.".into(),
        ),
    }
}
