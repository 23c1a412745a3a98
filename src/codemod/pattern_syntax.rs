//! Whether a pattern is code of its language. ast-grep builds a pattern from whatever tree the
//! grammar makes of its text, errors included, and a pattern that does not parse matches
//! nothing, silently: a mod in CI would report "nothing to do" having done nothing. lancet
//! reads the pattern as ast-grep does (the same grammar, the same metavariable spelling, the
//! same node taken as the pattern) and refuses it, quoting the error, when
//! - the node the pattern matches with holds a syntax error or a missing token; or
//! - the text has an error around that node (a statement end missing at the top level) and
//!   reads as another node there than inside a function body, where such code stands (Go's
//!   `strconv.Itoa($X)`: a type conversion on its own, a call in a program).
//!
//! A pattern that is one metavariable (`$NAME`) matches any node, whatever tree it makes; an
//! error outside the node taken (Rust's `foo($A)` wrapped in an error at the top level) does
//! not change what it matches, as ast-grep takes the node inside.

use super::language::ModLanguage;
use crate::report::Misread;
use ast_grep_core::Language;
use ast_grep_core::tree_sitter::LanguageExt;
use tree_sitter::Node;

/// What is wrong with a pattern (see [`crate::report::PatternSyntax`]): the grammar's error and,
/// for a misreading, the reading.
#[derive(Debug, PartialEq)]
pub(super) struct Unparsed {
    /// What and where: `` the grammar cannot read `,` at column 10 ``, `` `)` is missing at
    /// column 9 ``.
    pub error: String,
    /// The pattern's reading on its own and in a function body, when they differ.
    pub misread: Option<Misread>,
}

/// Checks a pattern string (`-p`, or a rule's `pattern:`).
pub(super) fn check(language: ModLanguage, pattern: &str) -> Result<(), Unparsed> {
    let source = language.pre_process_pattern(pattern).into_owned();
    let root = language.ast_grep(&source);
    let top = root.root().get_inner_node();
    let taken = taken_node(top);
    if language
        .extract_meta_var(&source[taken.byte_range()])
        .is_some()
    {
        return Ok(());
    }
    if let Some(fault) = first_fault(taken) {
        return Err(Unparsed {
            error: describe(fault, &source, pattern),
            misread: None,
        });
    }
    let Some(fault) = first_fault(top) else {
        return Ok(());
    };
    let Some((before, after)) = function_body(language) else {
        return Ok(());
    };
    let wrapped = format!("{before}{source}{after}");
    let context = language.ast_grep(&wrapped);
    let span = before.len()..before.len() + source.trim_end().len();
    let Some(there) = preorder(context.root().get_inner_node()).find(|n| n.byte_range() == span)
    else {
        return Ok(());
    };
    let there = taken_node(there);
    if there.kind() == taken.kind() || first_fault(there).is_some() {
        return Ok(());
    }
    Err(Unparsed {
        error: describe(fault, &source, pattern),
        misread: Some(Misread {
            alone: taken.kind().to_string(),
            in_context: there.kind().to_string(),
            context: format!("{before}{}{after}", pattern.trim_end()).replace('\n', " "),
        }),
    })
}

/// Checks a pattern object's `context` (with its `selector`): the node the selector picks in it
/// (the first of that kind, as ast-grep takes it) must hold no syntax error.
pub(super) fn check_in_context(
    language: ModLanguage,
    context: &str,
    selector: &str,
) -> Result<(), Unparsed> {
    let source = language.pre_process_pattern(context).into_owned();
    let root = language.ast_grep(&source);
    let Some(selected) = preorder(root.root().get_inner_node()).find(|n| n.kind() == selector)
    else {
        return Ok(()); // ast-grep's own refusal: the selector matches no node in the context
    };
    match first_fault(selected) {
        Some(fault) => Err(Unparsed {
            error: describe(fault, &source, context),
            misread: None,
        }),
        None => Ok(()),
    }
}

/// The node ast-grep takes as the pattern: from the root down while a node has one child (or
/// a second that is missing or empty, as grammars leave at the end).
fn taken_node(mut node: Node<'_>) -> Node<'_> {
    loop {
        let single = match node.child_count() {
            1 => true,
            2 => node
                .child(1)
                .is_some_and(|c| c.is_missing() || c.kind().is_empty()),
            _ => false,
        };
        match node.child(0) {
            Some(first) if single => node = first,
            _ => return node,
        }
    }
}

/// `node` and every node under it, parents first, missing tokens included.
fn preorder(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut stack = vec![node];
    std::iter::from_fn(move || {
        let next = stack.pop()?;
        let mut cursor = next.walk();
        let children: Vec<_> = next.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
        Some(next)
    })
}

/// A syntax error the grammar found.
#[derive(Clone, Copy)]
enum Fault<'t> {
    /// An error or missing token the tree shows.
    Node(Node<'t>),
    /// A missing token of the grammar's own, hidden from the tree's nodes (Go's statement end
    /// at the top level): only the tree's text form names it.
    Hidden(Node<'t>),
}

/// The first error or missing token at or under `node`.
fn first_fault(node: Node<'_>) -> Option<Fault<'_>> {
    if !node.has_error() {
        return None;
    }
    Some(
        preorder(node)
            .find(|n| n.is_error() || n.is_missing())
            .map_or(Fault::Hidden(node), Fault::Node),
    )
}

/// An error in the pattern's own words: the text the grammar could not read, or the token it
/// misses, and where (`source` is the pattern as parsed, `written` as the person wrote it:
/// the metavariables' spelling differs, their characters line up).
fn describe(fault: Fault<'_>, source: &str, written: &str) -> String {
    let fault = match fault {
        Fault::Node(node) => node,
        Fault::Hidden(node) => {
            let tree = node.to_sexp();
            let missing = tree
                .split("(MISSING ")
                .nth(1)
                .and_then(|rest| rest.split(')').next())
                .map(|kind| kind.trim_matches('"').to_string());
            return match missing {
                Some(kind) => {
                    format!("a statement end (the grammar's hidden `{kind}`) is missing after it")
                }
                None => "the grammar finds an error it does not place".to_string(),
            };
        }
    };
    let at = fault.start_position();
    let line_start = source
        .lines()
        .take(at.row)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let column = source[line_start..line_start + at.column].chars().count() + 1;
    let place = match written.trim_end().lines().count() {
        0 | 1 => format!("column {column}"),
        _ => format!("line {}, column {column}", at.row + 1),
    };
    if fault.is_missing() {
        let kind = fault.kind();
        let token = if kind.chars().all(|c| c.is_alphanumeric() || c == '_') {
            format!("a statement end (the grammar's `{kind}`)")
        } else {
            format!("`{kind}`")
        };
        return format!("{token} is missing at {place}");
    }
    let width = source[fault.byte_range()].chars().count().clamp(1, 40);
    let text: String = written
        .lines()
        .nth(at.row)
        .unwrap_or("")
        .chars()
        .skip(column - 1)
        .take(width)
        .collect();
    format!("the grammar cannot read `{}` at {place}", text.trim_end())
}

/// The text around a pattern that makes it stand where such code stands, for languages whose
/// top level holds only declarations (Go: a function body; CSS: a rule's block): a snippet there
/// may read as another node than the same code in a program.
fn function_body(language: ModLanguage) -> Option<(&'static str, &'static str)> {
    match language.name() {
        "go" => Some(("func t() { ", " }")),
        "css" => Some(("a { ", " }")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{ModLanguage, check, check_in_context};

    fn lang(name: &str) -> ModLanguage {
        ModLanguage::named(name).unwrap()
    }

    /// Go's `strconv.Itoa($X)` is a type conversion at the top level and a call in a function:
    /// refused, quoting the missing statement end and the context that reads it as a call
    /// (issue #41); a call with several arguments reads the same both ways and is taken.
    #[test]
    fn a_pattern_misread_at_the_top_level_is_refused_with_its_context() {
        let e = check(lang("go"), "strconv.Itoa($X)").unwrap_err();
        assert!(
            e.error.contains("`source_file_token1`) is missing"),
            "{e:?}"
        );
        let m = e.misread.unwrap();
        assert_eq!(m.alone, "type_conversion_expression");
        assert_eq!(m.in_context, "call_expression");
        assert_eq!(m.context, "func t() { strconv.Itoa($X) }");
        assert_eq!(
            check(lang("go"), "strings.ReplaceAll($S, $OLD, $NEW)"),
            Ok(())
        );
        assert!(check(lang("css"), "color: $A").is_err());
    }

    #[test]
    fn an_error_inside_the_pattern_is_refused_and_quoted() {
        let e = check(lang("python"), "print($A,, $B)").unwrap_err();
        assert!(e.error.contains("column"), "{e:?}");
        assert!(e.misread.is_none());
        let e = check(lang("rust"), "impl $T { $$$ }").unwrap_err();
        assert!(e.error.contains("`$$$`"), "{e:?}");
    }

    /// What ast-grep matches as written is taken: a lone metavariable, an error only around
    /// the node taken, a statement end missing after a pattern that reads the same in a body.
    #[test]
    fn patterns_ast_grep_matches_are_taken() {
        for (l, p) in [
            ("go", "$NAME"),
            ("rust", "foo($A)"),
            ("rust", "$A.chars().enumerate()"),
            ("python", "len($A) == 0"),
            ("tsx", "React.useState<$T>($A)"),
            ("python", "async def $FUNC($$$ARGS): $$$BODY"),
            ("go", "if err != nil { return $E }"),
            ("java", "System.out.println($A)"),
        ] {
            assert_eq!(check(lang(l), p), Ok(()), "{l}: {p}");
        }
        assert_eq!(
            check_in_context(lang("go"), "func t() { t.Errorf($A) }", "call_expression"),
            Ok(())
        );
        assert!(
            check_in_context(
                lang("go"),
                "func t() { defer $A.$B(1 +) }",
                "defer_statement"
            )
            .is_err()
        );
    }
}
