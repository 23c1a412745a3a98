//! Members a class of the tree may override in a base outside it. Code lancet cannot read
//! calls such a member by its name (`threading.Thread.start` calls `run`; a framework's view
//! reads `template_name`), so renaming the override silently stops it overriding. Lancet reads
//! no file outside the root: a base outside the tree may define any name, except the
//! builtin classes whose members Python fixes (`object`, `Exception`, `dict`, `Enum`, …).

use super::members::find_class;
use super::names::is_builtin;
use super::scopes::{Bound, bindings_in};
use super::{MAX_DEPTH, PyModule, PyProject, Target, text};
use tree_sitter::Node;

impl PyProject<'_> {
    /// The base, as written, whose member `name` the member `name` of class `qual` of `file`
    /// may override: a base up its hierarchy outside the tree (or one lancet does not resolve)
    /// that may define `name`. `None` when every base is the tree's or a builtin class
    /// without such a member.
    pub(super) fn outside_base_defining(
        &self,
        file: &str,
        qual: &str,
        name: &str,
        depth: usize,
    ) -> Option<String> {
        let m = self.module(file)?;
        let class = find_class(&m, qual)?;
        if depth > MAX_DEPTH {
            return Some(qual.to_string());
        }
        let bases = class.child_by_field_name("superclasses")?;
        let mut cursor = bases.walk();
        for base in bases.named_children(&mut cursor) {
            // `metaclass=…` types the class object, not its instances.
            if base.kind() == "keyword_argument" {
                continue;
            }
            // `Generic[T]`, `Base[int]`: the class subscripted.
            let class_expr = match base.kind() {
                "subscript" => base.child_by_field_name("value").unwrap_or(base),
                _ => base,
            };
            let found = match self.base_target(&m, class_expr, depth + 1) {
                Target::Class(base_file, base_qual) => {
                    self.outside_base_defining(&base_file, &base_qual, name, depth + 1)
                }
                Target::Outside(_) if known_without(&m, class_expr, name) => None,
                _ => Some(text(base, &m).to_string()),
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

/// Whether the base expression `base` of `m` is a builtin class (of `builtins`, `abc`, `enum`,
/// `typing`) that defines no member `name`.
fn known_without(m: &PyModule, base: Node, name: &str) -> bool {
    let Some((module, class)) = origin(m, base) else {
        return false;
    };
    let members = match (module.as_str(), class.as_str()) {
        ("builtins", "object") | ("abc", "ABC") => NONE,
        ("typing" | "typing_extensions", "Protocol" | "Generic") => NONE,
        ("builtins", "dict") => DICT,
        ("builtins", "list") => LIST,
        ("builtins", "set" | "frozenset") => SET,
        ("builtins", "tuple") => TUPLE,
        ("builtins", "str") => STR,
        ("builtins", "bytes") => BYTES,
        ("builtins", "int") => INT,
        ("builtins", "float") => FLOAT,
        ("typing" | "typing_extensions", "NamedTuple") => NAMED_TUPLE,
        ("enum", "Enum" | "Flag") => ENUM,
        ("enum", "IntEnum" | "IntFlag") => return !ENUM.contains(&name) && !INT.contains(&name),
        ("enum", "StrEnum") => return !ENUM.contains(&name) && !STR.contains(&name),
        ("builtins", exception) if is_exception(exception) => EXCEPTION,
        _ => return false,
    };
    // `_sunder_` names are reserved to `enum` and `typing`'s machinery.
    let sunder = name.len() > 2 && name.starts_with('_') && name.ends_with('_');
    !members.contains(&name) && !sunder
}

/// Where a base expression's class comes from: a builtin (`Exception`), a name imported from a
/// module (`from enum import Enum`), or a module's attribute (`abc.ABC`); as the module's
/// dotted name and the class's.
fn origin(m: &PyModule, base: Node) -> Option<(String, String)> {
    match base.kind() {
        "identifier" => {
            let name = text(base, m);
            match bindings_in(m, None, name).as_slice() {
                [] if is_builtin(name) => Some(("builtins".into(), name.into())),
                [Bound::ImportFrom { module, name, .. }] => Some((module.clone(), name.clone())),
                _ => None,
            }
        }
        "attribute" => {
            let object = base.child_by_field_name("object")?;
            let class = text(base.child_by_field_name("attribute")?, m);
            let module = text(object, m);
            let imported = bindings_in(m, None, module.split('.').next()?)
                .iter()
                .any(|b| matches!(b, Bound::Import { module: dotted } if dotted == module));
            imported.then(|| (module.to_string(), class.to_string()))
        }
        _ => None,
    }
}

/// Whether a builtin's name is one of Python's exception classes.
fn is_exception(name: &str) -> bool {
    name.ends_with("Error")
        || name.ends_with("Exception")
        || name.ends_with("Warning")
        || matches!(
            name,
            "BaseException"
                | "KeyboardInterrupt"
                | "SystemExit"
                | "GeneratorExit"
                | "StopIteration"
                | "StopAsyncIteration"
                | "ExceptionGroup"
                | "BaseExceptionGroup"
        )
}

// The members of the builtin classes besides the `__dunder__` ones (a rename of those is
// refused as a special name), as Python 3.11 to 3.13 define them.

const NONE: &[&str] = &[];

/// Every builtin exception's, together.
const EXCEPTION: &[&str] = &[
    "add_note",
    "args",
    "characters_written",
    "code",
    "derive",
    "encoding",
    "end",
    "end_lineno",
    "end_offset",
    "errno",
    "exceptions",
    "filename",
    "filename2",
    "lineno",
    "message",
    "msg",
    "name",
    "obj",
    "object",
    "offset",
    "path",
    "print_file_and_line",
    "reason",
    "split",
    "start",
    "strerror",
    "subgroup",
    "text",
    "value",
    "winerror",
    "with_traceback",
];

const DICT: &[&str] = &[
    "clear",
    "copy",
    "fromkeys",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
];

const LIST: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse",
    "sort",
];

const SET: &[&str] = &[
    "add",
    "clear",
    "copy",
    "difference",
    "difference_update",
    "discard",
    "intersection",
    "intersection_update",
    "isdisjoint",
    "issubset",
    "issuperset",
    "pop",
    "remove",
    "symmetric_difference",
    "symmetric_difference_update",
    "union",
    "update",
];

const TUPLE: &[&str] = &["count", "index"];

const NAMED_TUPLE: &[&str] = &[
    "count",
    "index",
    "_make",
    "_asdict",
    "_replace",
    "_fields",
    "_field_defaults",
];

const INT: &[&str] = &[
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "conjugate",
    "denominator",
    "from_bytes",
    "imag",
    "is_integer",
    "numerator",
    "real",
    "to_bytes",
];

const FLOAT: &[&str] = &[
    "as_integer_ratio",
    "conjugate",
    "fromhex",
    "hex",
    "imag",
    "is_integer",
    "real",
];

/// `str`'s; `bytes` shares most (see [`BYTES`]).
const STR: &[&str] = &[
    "capitalize",
    "casefold",
    "center",
    "count",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "format_map",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

const BYTES: &[&str] = &[
    "capitalize",
    "center",
    "count",
    "decode",
    "endswith",
    "expandtabs",
    "find",
    "fromhex",
    "hex",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdigit",
    "islower",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

/// `Enum`'s and `Flag`'s public members (their `_sunder_` ones are all reserved).
const ENUM: &[&str] = &["name", "value"];

#[cfg(test)]
mod tests {
    use super::super::PyProject;
    use crate::rename::resolve::testing::Fixture;

    #[test]
    fn a_member_is_told_where_a_base_outside_the_tree_may_define_it() {
        let text = "\
import abc
import threading
from enum import Enum
from typing import Generic, TypeVar
from lib import Base

T = TypeVar(\"T\")

class Worker(threading.Thread):
    def run(self): ...

class Later(Worker):
    def helper(self): ...

class Bad(ValueError):
    def describe(self): ...
    def with_traceback(self, tb): ...

class Color(Enum):
    def label(self): ...
    def _missing_(cls, value): ...

class Shape(abc.ABC, Generic[T]):
    def area(self): ...

class Counts(dict):
    def total(self): ...
    def get(self, key): ...

class Mixed(Shape, Base):
    def area(self): ...

class Odd(make_base()):
    def area(self): ...
";
        let fixture = Fixture::new(&[("m.py", text)], &["m.py"]);
        let sources = fixture.sources();
        let project = PyProject::new(&sources);
        let base = |qual: &str, name: &str| project.outside_base_defining("m.py", qual, name, 0);
        assert_eq!(base("Worker", "run").as_deref(), Some("threading.Thread"));
        // Through a base of the tree.
        assert_eq!(base("Later", "helper").as_deref(), Some("threading.Thread"));
        // The builtin classes' members are known.
        assert_eq!(base("Bad", "describe"), None);
        assert_eq!(base("Bad", "with_traceback").as_deref(), Some("ValueError"));
        assert_eq!(base("Color", "label"), None);
        assert_eq!(base("Color", "_missing_").as_deref(), Some("Enum"));
        assert_eq!(base("Shape", "area"), None);
        assert_eq!(base("Counts", "total"), None);
        assert_eq!(base("Counts", "get").as_deref(), Some("dict"));
        // A second base outside the tree, after one of the tree that defines it too.
        assert_eq!(base("Mixed", "area").as_deref(), Some("Base"));
        // A base lancet does not resolve.
        assert_eq!(base("Odd", "area").as_deref(), Some("make_base()"));
    }
}
