//! Members a class of the tree may override in a base outside it. Code lancet cannot read
//! calls such a member by its name (`threading.Thread.start` calls `run`; a framework's view
//! reads `template_name`), so renaming the override silently stops it overriding. Lancet reads
//! no file outside the root: a base outside the tree may define any name, except the
//! builtin classes whose members Python fixes (`object`, `Exception`, `dict`, `Enum`, …).

use super::members::find_class;
use super::names::is_builtin;
use super::scopes::{Bound, bindings_in};
use super::{MAX_DEPTH, PyModule, PyProject, Target, text};
use crate::report::OutsideReach;
use tree_sitter::Node;

impl PyProject<'_> {
    /// What may reach member `name` of class `qual` of `file` by that name where lancet cannot
    /// see: a base outside the tree up its class's hierarchy, or up a subclass's of the tree
    /// (`class W(Mixin, threading.Thread)`: the mixin's `run` is what the thread calls), or
    /// subclasses lancet cannot tell (a base it does not resolve may be the class).
    pub(crate) fn outside_reach(&self, file: &str, qual: &str, name: &str) -> Option<OutsideReach> {
        if let Some(base) = self.outside_base_defining(file, qual, name, 0) {
            return Some(OutsideReach::Base(base));
        }
        let Some(subclasses) = self.subclasses(file, qual) else {
            return Some(OutsideReach::UntoldSubclasses(qual.to_string()));
        };
        subclasses
            .iter()
            .find_map(|(sub_file, sub_qual)| {
                self.outside_base_defining(sub_file, sub_qual, name, 0)
            })
            .map(OutsideReach::Base)
    }

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
            // `metaclass=M`: its `__call__` makes the instances, and one outside the tree may
            // call any method on them.
            if base.kind() == "keyword_argument" {
                let metaclass = base
                    .child_by_field_name("name")
                    .is_some_and(|k| text(k, &m) == "metaclass");
                if let Some(value) = base.child_by_field_name("value")
                    && metaclass
                    && self.outside_metaclass(&m, value, depth)
                {
                    return Some(text(value, &m).to_string());
                }
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

impl PyProject<'_> {
    /// Whether a class's metaclass is outside the tree (or not resolved) and none of Python's
    /// own (`type`, `abc.ABCMeta`, `enum.EnumMeta`), which call no method by name.
    fn outside_metaclass(&self, m: &PyModule, value: Node, depth: usize) -> bool {
        match self.base_target(m, value, depth + 1) {
            Target::Class(..) => false,
            Target::Outside(_) => !matches!(
                origin(m, value),
                Some((module, class)) if matches!(
                    (module.as_str(), class.as_str()),
                    ("builtins", "type") | ("abc", "ABCMeta") | ("enum", "EnumMeta" | "EnumType")
                )
            ),
            _ => true,
        }
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
        ("builtins", "str") => return !STRING_LIKE.contains(&name) && !STR_ONLY.contains(&name),
        ("builtins", "bytes") => {
            return !STRING_LIKE.contains(&name) && !BYTES_ONLY.contains(&name);
        }
        ("builtins", "int") => INT,
        ("builtins", "float") => FLOAT,
        ("typing" | "typing_extensions", "NamedTuple") => NAMED_TUPLE,
        ("enum", "Enum" | "Flag") => ENUM,
        ("enum", "IntEnum" | "IntFlag") => return !ENUM.contains(&name) && !INT.contains(&name),
        ("enum", "StrEnum") => {
            return !ENUM.contains(&name)
                && !STRING_LIKE.contains(&name)
                && !STR_ONLY.contains(&name);
        }
        ("builtins", exception) if is_exception(exception) => {
            return !EXCEPTION.contains(&name) && !exception_members(exception).contains(&name);
        }
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
            let object = text(base.child_by_field_name("object")?, m);
            let class = text(base.child_by_field_name("attribute")?, m);
            let first = object.split('.').next()?;
            // `import typing` or `import typing as t` (then `t.Generic`), `import a.b` (then
            // `a.b.C`, which binds `a`).
            let module = match bindings_in(m, None, first).as_slice() {
                [Bound::Import { module }] if object == first => module.clone(),
                [Bound::Import { module }] if module == first => object.to_string(),
                _ => return None,
            };
            Some((module, class.to_string()))
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

/// A builtin exception's own members (3.11 to 3.13; `winerror` and `name_from` on some).
fn exception_members(class: &str) -> &'static [&'static str] {
    match class {
        "AttributeError" => &["name", "obj"],
        "BaseExceptionGroup" | "ExceptionGroup" => {
            &["derive", "exceptions", "message", "split", "subgroup"]
        }
        "ImportError" | "ModuleNotFoundError" => &["msg", "name", "name_from", "path"],
        "IndentationError" | "SyntaxError" | "TabError" => &[
            "end_lineno",
            "end_offset",
            "filename",
            "lineno",
            "msg",
            "offset",
            "print_file_and_line",
            "text",
        ],
        "NameError" | "UnboundLocalError" => &["name"],
        "StopIteration" | "StopAsyncIteration" => &["value"],
        "SystemExit" => &["code"],
        "UnicodeDecodeError" | "UnicodeEncodeError" | "UnicodeTranslateError" => {
            &["encoding", "end", "object", "reason", "start"]
        }
        "OSError"
        | "EnvironmentError"
        | "IOError"
        | "BlockingIOError"
        | "BrokenPipeError"
        | "ChildProcessError"
        | "ConnectionAbortedError"
        | "ConnectionError"
        | "ConnectionRefusedError"
        | "ConnectionResetError"
        | "FileExistsError"
        | "FileNotFoundError"
        | "InterruptedError"
        | "IsADirectoryError"
        | "NotADirectoryError"
        | "PermissionError"
        | "ProcessLookupError"
        | "TimeoutError" => &[
            "characters_written",
            "errno",
            "filename",
            "filename2",
            "strerror",
            "winerror",
        ],
        _ => &[],
    }
}

/// Every exception's: `BaseException`'s.
const EXCEPTION: &[&str] = &["add_note", "args", "with_traceback"];

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

/// `str`'s and `bytes`' (see [`STR_ONLY`], [`BYTES_ONLY`]).
const STRING_LIKE: &[&str] = &[
    "capitalize",
    "center",
    "count",
    "endswith",
    "expandtabs",
    "find",
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

const STR_ONLY: &[&str] = &[
    "casefold",
    "encode",
    "format",
    "format_map",
    "isdecimal",
    "isidentifier",
    "isnumeric",
    "isprintable",
];

const BYTES_ONLY: &[&str] = &["decode", "fromhex", "hex"];

/// `Enum`'s and `Flag`'s public members (their `_sunder_` ones are all reserved).
const ENUM: &[&str] = &["name", "value"];

#[cfg(test)]
mod tests {
    use super::super::PyProject;
    use crate::rename::resolve::testing::Fixture;
    use crate::report::OutsideReach;

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

class Mixin:
    def run(self): ...
    def plain(self): ...

class Threaded(Mixin, threading.Thread): ...

class NotFound(KeyError):
    message = \"not found\"
    code = 404

class Quit(SystemExit):
    code = 2

class Typed(t.Generic[T]):
    def area(self): ...

class Made(metaclass=extlib.Meta):
    def setup(self): ...

class Abstract(metaclass=abc.ABCMeta):
    def setup(self): ...
";
        let text = text.replace(
            "import abc\n",
            "import abc\nimport extlib\nimport typing as t\n",
        );
        let fixture = Fixture::new(&[("m.py", &text)], &["m.py"]);
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
        // Each builtin exception's own members (`code` is `SystemExit`'s only).
        assert_eq!(base("NotFound", "message"), None);
        assert_eq!(base("NotFound", "code"), None);
        assert_eq!(base("Quit", "code").as_deref(), Some("SystemExit"));
        // A module imported under another name.
        assert_eq!(base("Typed", "area"), None);
        // A metaclass outside the tree makes the instances; Python's own call nothing.
        assert_eq!(base("Made", "setup").as_deref(), Some("extlib.Meta"));
        assert_eq!(base("Abstract", "setup"), None);
        // A mixin's member the thread its subclass is calls, through the subclass.
        let reach = |qual: &str, name: &str| project.outside_reach("m.py", qual, name);
        assert_eq!(
            reach("Mixin", "run"),
            Some(OutsideReach::Base("threading.Thread".into()))
        );
        // `Mixed(Shape, Base)` puts `Base`, outside the tree, after `Shape`.
        assert_eq!(
            reach("Shape", "area"),
            Some(OutsideReach::Base("Base".into()))
        );
        assert_eq!(reach("Counts", "total"), None);
    }
}

#[cfg(test)]
mod hierarchy_tests {
    use super::super::PyProject;
    use crate::rename::resolve::testing::Fixture;

    #[test]
    fn a_member_of_new_name_up_or_down_the_hierarchy_is_found_in_any_file() {
        let base = "class Base:\n    def describe(self): ...\n\nclass Other:\n    def describe(self): ...\n";
        let child = "from base import Base\n\nclass Child(Base):\n    def label(self): ...\n    def shown(self): ...\n";
        let fixture = Fixture::new(&[("base.py", base), ("child.py", child)], &["base.py"]);
        let sources = fixture.sources();
        let project = PyProject::new(&sources);
        // Up: `Child.label` renamed `describe` would override `Base.describe`.
        assert_eq!(
            project.hierarchy_member("child.py", "Child", "describe"),
            Some(("base.py".into(), 1, "Base".into()))
        );
        // Down: `Base.describe` renamed `shown` would be overridden by `Child.shown`.
        assert_eq!(
            project.hierarchy_member("base.py", "Base", "shown"),
            Some(("child.py".into(), 3, "Child".into()))
        );
        // An unrelated class's member of the name is not in the hierarchy.
        assert_eq!(project.hierarchy_member("base.py", "Other", "shown"), None);
    }
}
