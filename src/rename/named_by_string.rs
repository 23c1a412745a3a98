//! Python reaches an attribute by a string too: `getattr(obj, "x")` (and `setattr`, `hasattr`,
//! `delattr`), `operator.attrgetter("x")`, a class's `__slots__` and `__match_args__`, and
//! `obj.__dict__["x"]`, `vars(obj)["x"]`, `asdict(obj)["x"]` and a call's `**{"x": 1}` use `x`
//! where no identifier stands. A rename that
//! leaves such a string leaves code reaching nothing, so it is refused unless the strings are
//! renamed too (`--include-strings`, which renames them in the symbol's scope only: one outside
//! it still refuses) or the person leaves what lancet cannot decide (`--leave-unresolved`).

use super::model::{FileScan, Parsed, RenameOptions};
use super::words::whole_word_offsets;
use crate::report::{AttributeReader, RenameRefusal};
use lancet_core::MAX_LISTED;
use tree_sitter::Node;

/// The builtins whose second argument names an attribute.
const BY_NAME: [&str; 4] = ["getattr", "setattr", "hasattr", "delattr"];

/// The class attributes whose strings name attributes.
const CLASS_LISTS: [&str; 2] = ["__slots__", "__match_args__"];

/// The refusal of a rename that would leave OLD named by a string Python reaches an attribute
/// through, if there is one in `scanned` (every file that holds OLD).
pub(super) fn named_by_string_refusal<'s>(
    opts: &RenameOptions,
    scanned: impl IntoIterator<Item = &'s FileScan>,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved {
        return None;
    }
    let places: Vec<(String, usize, AttributeReader)> = scanned
        .into_iter()
        .filter(|s| s.language == "python")
        .flat_map(|s| named_in(s, &opts.old))
        .take(MAX_LISTED)
        .collect();
    (!places.is_empty()).then(|| RenameRefusal::NamedByString {
        old: opts.old.clone(),
        places,
        outside_scope: opts.include_strings,
    })
}

/// Each string in `scan` that is exactly `old`, names an attribute and is not renamed (by
/// `--include-strings`, in the symbol's scope): its path, line and what reads it.
fn named_in(scan: &FileScan, old: &str) -> Vec<(String, usize, AttributeReader)> {
    attribute_strings(scan, old)
        .into_iter()
        .filter(|(at, _)| !scan.mention_spans.iter().any(|s| s.start == *at))
        .map(|(at, reader)| {
            (
                scan.path.clone(),
                lancet_core::line_of(&scan.starts, at),
                reader,
            )
        })
        .collect()
}

/// The byte offset of each string's content in `scan` that is exactly `old` and names an
/// attribute, with what reads it: the places a rename must rename too, or refuse. The file's
/// doctests are read too (their shadow keeps the file's offsets): `>>> getattr(p, "x")` runs.
fn attribute_strings(scan: &FileScan, old: &str) -> Vec<(usize, AttributeReader)> {
    let mut found: Vec<(usize, AttributeReader)> = std::iter::once(&scan.parsed)
        .chain(scan.doctests.as_ref())
        .flat_map(|parsed| attribute_strings_in(parsed, old))
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found
}

/// [`attribute_strings`] in one parse: the file's own or its doctests' shadow.
fn attribute_strings_in(parsed: &Parsed, old: &str) -> Vec<(usize, AttributeReader)> {
    let text = parsed.text.as_str();
    let root = parsed.tree.root_node();
    whole_word_offsets(text.as_bytes(), old)
        .into_iter()
        .filter_map(|at| {
            let content = root.descendant_for_byte_range(at, at + old.len())?;
            let string = content.parent().filter(|s| s.kind() == "string")?;
            if content.kind() != "string_content" {
                return None;
            }
            let reader = reader(text, string)?;
            // The whole string names the attribute; `attrgetter` also reads a dotted path
            // (`attrgetter("p.x")`), each of whose parts names one.
            let whole = content.byte_range() == (at..at + old.len());
            let part = reader == AttributeReader::Attrgetter
                && dotted_part(text.as_bytes(), content.byte_range(), at, old.len());
            (whole || part).then_some((at, reader))
        })
        .collect()
}

/// Whether `at..at + len` is one whole part of the dotted path in `content` (`.` or the
/// content's edge on each side).
fn dotted_part(bytes: &[u8], content: std::ops::Range<usize>, at: usize, len: usize) -> bool {
    let end = at + len;
    (at == content.start || bytes[at - 1] == b'.') && (end == content.end || bytes[end] == b'.')
}

/// What the expression `value` is, if it is an object's dictionary of attributes or fields:
/// `vars(obj)`, `obj.__dict__`, `asdict(obj)` (`dataclasses.asdict`), `obj._asdict()`.
fn dictionary_of_attributes(text: &str, value: Node) -> Option<AttributeReader> {
    if value.kind() == "call" {
        let function = text.get(value.child_by_field_name("function")?.byte_range())?;
        return match function {
            "vars" => Some(AttributeReader::Vars),
            f if f == "asdict" || f.ends_with(".asdict") || f.ends_with("._asdict") => {
                Some(AttributeReader::AsDict)
            }
            _ => None,
        };
    }
    text.get(value.byte_range())?
        .ends_with(".__dict__")
        .then_some(AttributeReader::Dict)
}

/// What reads the string node `string` as an attribute's name, if anything does: a builtin
/// taking it as its second argument, `attrgetter` taking it as any, an attribute or field
/// dictionary indexed by it, a dictionary of keywords unpacked into a call keyed by it, or a
/// class list holding it (`__slots__ = ("x",)`).
fn reader(text: &str, string: Node) -> Option<AttributeReader> {
    let parent = string.parent()?;
    if parent.kind() == "argument_list" {
        let call = parent.parent().filter(|c| c.kind() == "call")?;
        let callee = call.child_by_field_name("function")?;
        let function = text.get(callee.byte_range())?;
        if function.rsplit('.').next() == Some("attrgetter") {
            return Some(AttributeReader::Attrgetter);
        }
        // `vars(obj).get("x")`, `obj.__dict__.get("x")`, `asdict(obj).get("x")`: a key looked up
        // by its first argument.
        let first = parent.named_child(0).is_some_and(|n| n.id() == string.id());
        let looked_up = (callee.kind() == "attribute")
            .then(|| callee.child_by_field_name("attribute"))
            .flatten()
            .is_some_and(|a| text.get(a.byte_range()) == Some("get"));
        if first && looked_up {
            return dictionary_of_attributes(text, callee.child_by_field_name("object")?);
        }
        let second = parent.named_child(1).is_some_and(|n| n.id() == string.id());
        let builtin = BY_NAME.iter().find(|b| **b == function)?;
        return second.then_some(AttributeReader::Builtin(builtin));
    }
    // A key of an object's attribute dictionary: `obj.__dict__["x"]`, `vars(obj)["x"]`; or of
    // the dictionary of its fields: `asdict(obj)["x"]`, `obj._asdict()["x"]`.
    if parent.kind() == "subscript" {
        let key = parent.child_by_field_name("subscript")?;
        let value = parent.child_by_field_name("value")?;
        let reader = dictionary_of_attributes(text, value)?;
        return (key.id() == string.id()).then_some(reader);
    }
    // A key of a dictionary unpacked into a call's keywords (`P(**{"x": 1})`), or of a class's
    // `__slots__` written as a dictionary (`__slots__ = {"x": "its doc"}`).
    if parent.kind() == "pair" {
        let key = parent.child_by_field_name("key")?;
        let dictionary = parent.parent().filter(|d| d.kind() == "dictionary")?;
        let holder = dictionary.parent()?;
        if key.id() != string.id() {
            return None;
        }
        return match holder.kind() {
            "dictionary_splat" => holder
                .parent()
                .is_some_and(|a| a.kind() == "argument_list")
                .then_some(AttributeReader::Keyword),
            "assignment" => {
                let left = text.get(holder.child_by_field_name("left")?.byte_range())?;
                let list = CLASS_LISTS.iter().find(|l| **l == left)?;
                Some(AttributeReader::ClassList(list))
            }
            _ => None,
        };
    }
    // The string itself, or one element of a tuple, list or set, assigned to a class list.
    let assignment = match parent.kind() {
        "assignment" => parent,
        "tuple" | "list" | "set" | "parenthesized_expression" => {
            parent.parent().filter(|a| a.kind() == "assignment")?
        }
        _ => return None,
    };
    let left = text.get(assignment.child_by_field_name("left")?.byte_range())?;
    let list = CLASS_LISTS.iter().find(|l| **l == left)?;
    Some(AttributeReader::ClassList(list))
}

#[cfg(test)]
mod tests {
    use super::super::model::RenameOptions;
    use super::super::scan::{renamers, scan_file};
    use super::named_in;
    use crate::report::AttributeReader;

    /// The lines and readers of the attribute strings naming `cents` in Python `text`.
    fn found_in(text: &str) -> Vec<(usize, AttributeReader)> {
        let python = renamers()
            .iter()
            .find(|r| r.entry.name == "python")
            .unwrap();
        let opts = RenameOptions::plain("cents", "amount");
        let scan = scan_file("m.py".into(), text, python, &opts).unwrap();
        named_in(&scan, "cents")
            .into_iter()
            .map(|(_, line, reader)| (line, reader))
            .collect()
    }

    #[test]
    fn only_strings_python_reads_as_an_attribute_name_are_found() {
        let text = "\
class P:
    __slots__ = ('cents', 'other')
    __match_args__ = ('cents',)

getattr(p, 'cents')
setattr(p, 'cents', 'cents')
print('cents')
getattr('cents', 'x')
operator.attrgetter('cents')
label = ('cents',)
p.__dict__['cents'] + vars(p)['cents'] + prices['cents']
asdict(p)['cents'] + p._asdict()['cents'] + dataclasses.asdict(p)['cents'] + f(p)['cents']
P(**{'cents': 1}) + P(**{'amount': 'cents'}) + {'cents': 1}
class Q:
    __slots__ = {'cents': 'in cents', 'other': 'cents'}
attrgetter('p.cents') + attrgetter('cents.total') + attrgetter('p.cents_x') + attrgetter('p cents')
vars(p).get('cents') + p.__dict__.get('cents', 0) + prices.get('cents') + vars(p).get(0, 'cents')
";
        let found = found_in(text);
        assert_eq!(
            found,
            [
                (2, AttributeReader::ClassList("__slots__")),
                (3, AttributeReader::ClassList("__match_args__")),
                (5, AttributeReader::Builtin("getattr")),
                (6, AttributeReader::Builtin("setattr")),
                (9, AttributeReader::Attrgetter),
                (11, AttributeReader::Dict),
                (11, AttributeReader::Vars),
                (12, AttributeReader::AsDict),
                (12, AttributeReader::AsDict),
                (12, AttributeReader::AsDict),
                (13, AttributeReader::Keyword),
                (15, AttributeReader::ClassList("__slots__")),
                (16, AttributeReader::Attrgetter),
                (16, AttributeReader::Attrgetter),
                (17, AttributeReader::Vars),
                (17, AttributeReader::Dict),
            ]
        );
    }

    #[test]
    fn a_string_in_a_doctest_is_found_where_the_doctest_reads_it() {
        let text = "\
def shown(p):
    \"\"\"The cents.

    >>> getattr(p, 'cents')
    >>> print('cents')
    getattr(p, 'cents')
    \"\"\"
";
        let found = found_in(text);
        // The example's getattr, not its print nor the expected output's text.
        assert_eq!(found, [(4, AttributeReader::Builtin("getattr"))]);
    }
}
