//! `lancet move` through the CLI, one behaviour per test: imports under an alias, `__all__`
//! on both sides, star imports (refused unless the old module keeps re-exporting), the import
//! cycle refused, decorators and the comments directly above moving with their function (a
//! section heading set apart by a blank line staying), an import into a module without imports
//! (past a shebang and a heading), a new module, a name clash, `--keep-reexport`, a Rust symbol
//! refused, and the transaction (`--dry-run`, undo, `--bisect`).

use super::tree::{describe, lancet, read, run_json, snapshot, temp_tree};
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    run_json(root, "move", args)
}

const CART: &str = "\
import math
from shop.money import Money

__all__ = [\"total\", \"Cart\"]


class Cart:
    pass


# The sum of prices, rounded up.
# Used by the checkout.
def total(prices):
    return Money(math.ceil(sum(prices)))
";

const MAIN: &str = "\
from shop.cart import total as grand_total, Cart
import shop.cart

print(grand_total([1.5]), shop.cart.total([2]), Cart())
";

fn shop() -> tempfile::TempDir {
    temp_tree(&[
        ("shop/__init__.py", b""),
        ("shop/cart.py", CART.as_bytes()),
        ("shop/money.py", b"class Money(int):\n    pass\n"),
        ("main.py", MAIN.as_bytes()),
    ])
}

#[test]
fn a_function_moves_with_its_comments_and_imports_and_every_importer_follows() {
    let dir = shop();
    let (code, v) = run(dir.path(), &["total", "--to", "shop/pricing.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "shop/pricing.py"),
        "import math\nfrom shop.money import Money\n\n\n# The sum of prices, rounded up.\n# Used by the checkout.\ndef total(prices):\n    return Money(math.ceil(sum(prices)))\n"
    );
    // The old module lost the function, the imports only it used, and its `__all__` entry.
    assert_eq!(
        read(dir.path(), "shop/cart.py"),
        "__all__ = [\"Cart\"]\n\n\nclass Cart:\n    pass\n"
    );
    // The alias is kept, the statement split (Cart stays), `shop.cart.total` follows and
    // `import shop.cart`, used by nothing else, gives way to `import shop.pricing`.
    assert_eq!(
        read(dir.path(), "main.py"),
        "from shop.cart import Cart\nfrom shop.pricing import total as grand_total\nimport shop.pricing\n\nprint(grand_total([1.5]), shop.pricing.total([2]), Cart())\n"
    );
    let summary = &v["move"];
    assert_eq!(summary["symbol"], "shop/cart.py::total");
    assert_eq!(summary["created"], true);
    assert_eq!(summary["sites"].as_array().unwrap().len(), 2, "{v:#}");
}

#[test]
fn a_section_heading_with_a_blank_line_under_it_stays_with_the_code_it_heads() {
    // rope moves the comments directly above (test_moving_with_comment_prefix); a heading
    // set apart by a blank line heads what stays.
    let dir = temp_tree(&[(
        "helpers.py",
        b"import math\n\n# Helpers\n\n# Rounds up.\ndef up(x):\n    return math.ceil(x)\n\n\ndef down(x):\n    return math.floor(x)\n",
    )]);
    let (code, v) = run(dir.path(), &["up", "--to", "other.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "other.py"),
        "import math\n\n\n# Rounds up.\ndef up(x):\n    return math.ceil(x)\n"
    );
    assert_eq!(
        read(dir.path(), "helpers.py"),
        "import math\n\n# Helpers\n\ndef down(x):\n    return math.floor(x)\n"
    );
}

#[test]
fn an_import_into_a_module_without_imports_goes_past_its_shebang_and_its_heading() {
    // Above the shebang the script no longer runs (the gate passes it: a comment); under a
    // licence set apart by a blank line; two blank lines before a `def` (PEP 8), none before
    // other code (rope's test_changing_source_module).
    let dir = temp_tree(&[
        (
            "tool.py",
            b"#!/usr/bin/env python3\n# Licence: MIT\n\n\ndef up(x):\n    return x + 1\n\n\ndef main():\n    return up(1)\n",
        ),
        (
            "cli.py",
            b"#!/usr/bin/env python3\ndef down(x):\n    return x - 1\n\n\nprint(down(2))\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["up", "--to", "lib.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "tool.py"),
        "#!/usr/bin/env python3\n# Licence: MIT\n\nimport lib\n\n\ndef main():\n    return lib.up(1)\n"
    );
    let (code, v) = run(dir.path(), &["down", "--to", "lib.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "cli.py"),
        "#!/usr/bin/env python3\nimport lib\n\n\nprint(lib.down(2))\n"
    );
}

#[test]
fn all_is_updated_on_both_sides() {
    let dir = temp_tree(&[
        (
            "a.py",
            b"__all__ = ['f', 'g']\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n",
        ),
        ("b.py", b"__all__ = ('h',)\n\n\ndef h():\n    return 3\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "__all__ = ['g']\n\n\ndef g():\n    return 2\n"
    );
    assert_eq!(
        read(dir.path(), "b.py"),
        "__all__ = ('h', 'f',)\n\n\ndef h():\n    return 3\n\n\ndef f():\n    return 1\n"
    );
}

#[test]
fn a_star_import_of_the_old_module_is_refused_unless_it_keeps_re_exporting() {
    let files: [(&str, &[u8]); 2] = [
        ("a.py", b"def f():\n    return 1\n"),
        ("x.py", b"from a import *\n\nprint(f())\n"),
    ];
    let dir = temp_tree(&files);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(detail.contains("x.py:1: from a import *"), "{detail}");
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py", "--keep-reexport"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "from b import f  # noqa: F401 (re-exported)\n"
    );
    assert_eq!(read(dir.path(), "x.py"), "from a import *\n\nprint(f())\n");
}

#[test]
fn a_move_that_would_make_the_modules_import_each_other_is_refused() {
    // `total` needs RATE from a; a still calls `total`: b → a and a → b at module level.
    let dir = temp_tree(&[(
        "a.py",
        b"RATE = 2\n\n\ndef total(n):\n    return n * RATE\n\n\ndef report():\n    return total(3)\n",
    )]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["total", "--to", "b.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "import_cycle");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("b.py would import `RATE` from a.py") && detail.contains("line 9"),
        "{detail}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn decorators_move_with_their_function_and_the_old_module_keeps_its_uses() {
    let dir = temp_tree(&[
        (
            "a.py",
            b"import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\nprint(fib(10))\n",
        ),
        ("b.py", b"\"\"\"Numbers.\"\"\"\n"),
    ]);
    let (code, v) = run(dir.path(), &["fib", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "b.py"),
        "\"\"\"Numbers.\"\"\"\nimport functools\n\n\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    );
    // a.py imports modules whole (`import functools`): its use names `b.fib`.
    assert_eq!(read(dir.path(), "a.py"), "import b\n\n\nprint(b.fib(10))\n");
}

#[test]
fn uses_left_in_the_old_module_follow_its_import_style() {
    // Names taken with `from`: `from b import f`; nothing imported (rope's way) or modules
    // imported whole: `import b` and `b.f`.
    for (old, expected) in [
        (
            "from x import g\n\n\ndef f():\n    return 1\n\n\nprint(f(), g)\n",
            "from x import g\nfrom b import f\n\n\nprint(f(), g)\n",
        ),
        (
            "def f():\n    return 1\n\n\nprint(f())\n",
            "import b\nprint(b.f())\n",
        ),
        (
            "import x\n\n\ndef f():\n    return 1\n\n\nprint(f(), x.g)\n",
            "import x\nimport b\n\n\nprint(b.f(), x.g)\n",
        ),
        // A name `b` of its own: `from b import f`.
        (
            "def f():\n    return 1\n\n\ndef h(b):\n    return f() + b\n",
            "from b import f\n\n\ndef h(b):\n    return f() + b\n",
        ),
    ] {
        let dir = temp_tree(&[("a.py", old.as_bytes()), ("x.py", b"g = 1\n")]);
        let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
        assert_eq!(code, Some(0), "{old}: {v:#}");
        assert_eq!(read(dir.path(), "a.py"), expected, "{old}");
    }
}

#[test]
fn a_constant_reassigned_at_the_top_level_moves_and_its_reassignments_follow_it() {
    // rope's test_move_constant_multiple_statements: the first binding moves, the later
    // ones write the new module's name.
    let dir = temp_tree(&[("a.py", b"foo = 123\nfoo += 3\nfoo = 4\n")]);
    let (code, v) = run(dir.path(), &["foo", "--at", "a.py:1:1", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "b.py"), "foo = 123\n");
    assert_eq!(
        read(dir.path(), "a.py"),
        "import b\nb.foo += 3\nb.foo = 4\n"
    );
    // Read elsewhere, which module is loaded first decides the value seen: refused; and so is
    // a function defined twice.
    for (files, at) in [
        (
            [
                ("a.py", &b"foo = 123\nfoo += 3\n"[..]),
                ("c.py", b"from a import foo\n"),
            ],
            "a.py:1:1",
        ),
        (
            [
                ("a.py", b"def foo():\n    pass\n\n\ndef foo():\n    pass\n"),
                ("c.py", b""),
            ],
            "a.py:1:5",
        ),
    ] {
        let dir = temp_tree(&files);
        let before = snapshot(dir.path());
        let (code, v) = run(dir.path(), &["foo", "--at", at, "--to", "b.py"]);
        assert_eq!(code, Some(1), "{v:#}");
        assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
        assert_eq!(snapshot(dir.path()), before);
    }
}

#[test]
fn the_destination_s_own_import_of_the_symbol_gives_way_to_it() {
    let dir = temp_tree(&[
        ("a.py", b"class AClass(object):\n    pass\n"),
        ("b.py", b"from a import AClass\na_var = AClass()\n"),
    ]);
    let (code, v) = run(dir.path(), &["AClass", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    // Before its first use at the top level, which runs on import.
    assert_eq!(
        read(dir.path(), "b.py"),
        "class AClass(object):\n    pass\n\n\na_var = AClass()\n"
    );
    assert_eq!(read(dir.path(), "a.py"), "");
}

#[test]
fn a_name_the_destination_defines_already_is_refused() {
    let dir = temp_tree(&[
        ("a.py", b"def f():\n    return 1\n"),
        ("b.py", b"def f():\n    return 2\n"),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--at", "a.py:1:5", "--to", "b.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "name_in_use");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn destinations_nothing_imports_are_refused() {
    let dir = temp_tree(&[
        ("pkg/__init__.py", b""),
        ("pkg/a.py", b"def f():\n    return 1\n"),
        ("scripts/run.py", b"print(1)\n"),
    ]);
    for (to, words) in [
        ("scripts/util.py", "no package"),
        ("pkg/a.py", "already"),
        ("pkg", "directory"),
        ("pkg/b.txt", "not a .py file"),
        ("nowhere/b.py", "does not exist"),
    ] {
        let (code, v) = run(dir.path(), &["f", "--to", to]);
        assert_eq!(code, Some(1), "{to}: {v:#}");
        let detail = v["error"]["detail"].as_str().unwrap();
        assert!(detail.contains(words), "{to}: {detail}");
    }
}

#[test]
fn relative_imports_stay_relative_and_a_package_s_module_import_follows() {
    let dir = temp_tree(&[
        ("pkg/__init__.py", b"from .a import f\n"),
        ("pkg/a.py", b"def f():\n    return 1\n"),
        ("pkg/x.py", b"from . import a\n\nprint(a.f())\n"),
        ("main.py", b"from pkg import f\n\nprint(f())\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "pkg/b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "pkg/__init__.py"), "from .b import f\n");
    assert_eq!(
        read(dir.path(), "pkg/x.py"),
        "from . import b\n\nprint(b.f())\n"
    );
    // Through the package's re-export: unchanged, and still right.
    assert_eq!(
        read(dir.path(), "main.py"),
        "from pkg import f\n\nprint(f())\n"
    );
}

#[test]
fn a_string_naming_the_symbol_stops_the_move_unless_left() {
    let dir = temp_tree(&[
        ("a.py", b"def f():\n    return 1\n"),
        ("x.py", b"import a\n\nprint(getattr(a, \"f\")())\n"),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites");
    assert_eq!(v["move"]["unresolved"][0]["line"], 3, "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py", "--leave-unresolved"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "b.py"), "def f():\n    return 1\n");
}

#[test]
fn methods_and_locals_do_not_move() {
    let dir = temp_tree(&[("a.py", b"class C:\n    def f(self):\n        return 1\n")]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "kind_mismatch");
}

#[test]
fn names_imported_for_the_type_checker_alone_follow_under_type_checking() {
    let dir = temp_tree(&[
        ("pkg/__init__.py", b""),
        (
            "pkg/ctx.py",
            b"from __future__ import annotations\n\nimport typing as t\n\nif t.TYPE_CHECKING:\n    from .app import Flask\n\n\nclass Ctx:\n    def __init__(self, app: Flask) -> None:\n        self.app = app\n",
        ),
        (
            "pkg/app.py",
            b"from .ctx import Ctx\n\n\nclass Flask:\n    def ctx(self):\n        return Ctx(self)\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["Ctx", "--to", "pkg/contexts.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "pkg/contexts.py"),
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .app import Flask\n\n\nclass Ctx:\n    def __init__(self, app: Flask) -> None:\n        self.app = app\n"
    );
    // Not a cycle: the type checker's imports do not run.
    assert!(read(dir.path(), "pkg/app.py").starts_with("from .contexts import Ctx\n"));
}

#[test]
fn a_rust_symbol_is_refused_for_now() {
    let dir = temp_tree(&[
        ("src/lib.rs", b"pub fn f() -> u32 {\n    1\n}\n"),
        (
            "src/main.rs",
            b"fn main() {\n    println!(\"{}\", demo::f());\n}\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(
        dir.path(),
        &["f", "--at", "src/lib.rs:1:8", "--to", "src/b.rs"],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unknown_language");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("lancet moves Python and JavaScript/TypeScript symbols so far"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_move_is_undone_like_any_batch_and_a_dry_run_writes_nothing() {
    let dir = shop();
    let before = snapshot(dir.path());
    let (code, v) = run(
        dir.path(),
        &["total", "--to", "shop/pricing.py", "--dry-run"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "dry_run");
    let diffs: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["diff"].as_str())
        .collect();
    assert!(
        diffs
            .iter()
            .any(|d| d.contains("+from shop.pricing import total as grand_total")),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(dir.path(), &["total", "--to", "shop/pricing.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    let out = lancet(&["-C", dir.path().to_str().unwrap(), "undo", "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(
        dir.path(),
        &[
            "total",
            "--to",
            "shop/pricing.py",
            "--test",
            "true",
            "--bisect",
        ],
    );
    assert_eq!(code, Some(2), "{v:#}");
    assert!(v["error"]["detail"].as_str().unwrap().contains("--bisect"));
}

#[test]
fn move_symbol_over_mcp_moves_and_refuses_in_its_words() {
    use crate::security::mcp::Mcp;
    use serde_json::json;
    let dir = temp_tree(&[
        ("a.py", b"def f():\n    return 1\n"),
        ("x.py", b"from a import *\n\nprint(f())\n"),
        ("y.py", b"from a import f\n\nprint(f())\n"),
    ]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let before = snapshot(dir.path());
    let answer = mcp.call("move_symbol", json!({"symbol": "f", "to": "b.py"}));
    assert!(answer.is_error, "{answer:?}");
    assert_eq!(answer.structured["error"]["kind"], "unresolved_sites");
    assert!(
        answer.text.contains("keep_reexport true"),
        "{}",
        answer.text
    );
    assert_eq!(snapshot(dir.path()), before);
    let answer = mcp.call(
        "move_symbol",
        json!({"symbol": "f", "to": "b.py", "keep_reexport": true}),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(answer.structured["move"]["symbol"], "a.py::f");
    assert_eq!(read(dir.path(), "b.py"), "def f():\n    return 1\n");
    assert_eq!(read(dir.path(), "y.py"), "from b import f\n\nprint(f())\n");
}

#[test]
fn a_cycle_through_the_package_init_is_refused() {
    // pkg/__init__ imports f from .a; b imports from the package itself: with f in b,
    // `import pkg` would load b half-way through __init__ and fail (flask's json/provider.py).
    let dir = temp_tree(&[
        (
            "pkg/__init__.py",
            b"from .a import f\n\n\ndef dumps():\n    return f()\n",
        ),
        ("pkg/a.py", b"def f():\n    return 1\n"),
        (
            "pkg/b.py",
            b"from . import dumps\n\n\ndef g():\n    return dumps()\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(
        dir.path(),
        &["f", "--at", "pkg/a.py:1:5", "--to", "pkg/b.py"],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "import_cycle", "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_directory_without_init_inside_a_package_is_no_destination() {
    // pkg/sub has no __init__.py: a namespace package whose modules lancet cannot spell, so
    // importers would be rewritten to `from c import X` (ModuleNotFoundError): refused.
    let dir = temp_tree(&[
        ("pkg/__init__.py", b""),
        ("pkg/sub/a.py", b"X = object()\n"),
        ("pkg/sub/c.py", b""),
        ("pkg/m.py", b"from .sub.a import X\n"),
        ("pkg/sub/b.py", b"from .a import X\n"),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(
        dir.path(),
        &["X", "--at", "pkg/sub/a.py:1:1", "--to", "pkg/sub/c.py"],
    );
    assert_ne!(code, Some(0), "{v:#}");
    assert_eq!(v["error"]["kind"], "unsafe_path", "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_destination_outside_the_root_is_refused_and_nothing_is_written() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.py"), b"def f():\n    return 1\n").unwrap();
    let before = snapshot(&root);
    let absolute = outer.path().join("b.py");
    for to in ["../b.py", absolute.to_str().unwrap()] {
        let (code, v) = run(&root, &["f", "--to", to]);
        assert_ne!(code, Some(0), "{to}: {v:#}");
        assert!(v["error"].is_object(), "{to}: {v:#}");
        assert_eq!(snapshot(&root), before, "{to}");
        assert!(
            !outer.path().join("b.py").exists(),
            "{to}: written outside the root"
        );
    }
}

#[test]
fn a_stdlib_import_beside_a_sibling_of_its_name_is_no_cycle() {
    // Inside package p, `import logging` is the top-level (stdlib) logging, not p/logging.py
    // (Python 3 imports are absolute): p/logging.py importing p.b closes no cycle.
    let dir = temp_tree(&[
        ("p/__init__.py", b""),
        ("p/logging.py", b"from p.b import helper\n"),
        ("p/b.py", b"def helper():\n    return 1\n"),
        (
            "p/a.py",
            b"import logging\n\n\ndef f():\n    logging.info('x')\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "p/b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "p/b.py"),
        "import logging\n\n\ndef helper():\n    return 1\n\n\ndef f():\n    logging.info('x')\n"
    );
}

#[test]
fn two_names_of_one_import_left_unused_go_together() {
    // p and q of `from x import r, p, q` were the moved code's alone; r stays (requests'
    // SessionRedirectMixin): one edit of the statement, not two overlapping ones.
    let dir = temp_tree(&[
        (
            "x.py",
            b"def p():\n    return 1\n\n\ndef q():\n    return 2\n\n\ndef r():\n    return 3\n",
        ),
        (
            "a.py",
            b"from x import r, p, q\n\n\ndef f():\n    return p() + q()\n\n\ndef g():\n    return r()\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "from x import r\n\n\ndef g():\n    return r()\n"
    );
    assert_eq!(
        read(dir.path(), "b.py"),
        "from x import p, q\n\n\ndef f():\n    return p() + q()\n"
    );
}

#[test]
fn the_destination_s_type_checking_imports_give_way_or_gain_a_runtime_import() {
    // flask: app.py imports FlaskClient from testing for the type checker alone (it gives way
    // to the class moved in), and Response too, which the moved class needs when it runs
    // (imported at run time as well).
    let dir = temp_tree(&[
        ("pkg/__init__.py", b""),
        ("pkg/wrappers.py", b"class Response:\n    pass\n"),
        (
            "pkg/testing.py",
            b"from .wrappers import Response\n\n\nclass Client:\n    response_class = Response\n",
        ),
        (
            "pkg/app.py",
            b"from __future__ import annotations\n\nimport typing as t\n\nif t.TYPE_CHECKING:\n    from .testing import Client\n    from .wrappers import Response\n\n\ndef make(r: Response) -> Client:\n    raise NotImplementedError\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["Client", "--to", "pkg/app.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    let app = read(dir.path(), "pkg/app.py");
    assert!(!app.contains("from .testing import Client"), "{app}");
    assert!(app.contains("\nfrom .wrappers import Response\n"), "{app}");
    assert!(
        app.contains("class Client:\n    response_class = Response\n"),
        "{app}"
    );
    assert!(app.contains("if t.TYPE_CHECKING:\n"), "{app}");
    assert_eq!(read(dir.path(), "pkg/testing.py"), "");
}

#[test]
fn a_type_checking_name_the_destination_binds_otherwise_is_a_clash() {
    let dir = temp_tree(&[
        ("pkg/__init__.py", b""),
        ("pkg/app.py", b"class Flask:\n    pass\n"),
        (
            "pkg/ctx.py",
            b"from __future__ import annotations\n\nimport typing as t\n\nif t.TYPE_CHECKING:\n    from .app import Flask\n\n\nclass Ctx:\n    def __init__(self, app: Flask) -> None:\n        self.app = app\n",
        ),
        ("pkg/other.py", b"Flask = None\n"),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["Ctx", "--to", "pkg/other.py"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "name_in_use", "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn the_destination_s_import_of_the_old_module_goes_when_nothing_needs_it() {
    let dir = temp_tree(&[
        (
            "a.py",
            b"def f():\n    return 1\n\n\ndef h():\n    return 2\n",
        ),
        ("b.py", b"import a\n\n\ndef g():\n    return a.f()\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "b.py"),
        "def g():\n    return f()\n\n\ndef f():\n    return 1\n"
    );
}

#[test]
fn the_destination_s_import_the_move_removes_makes_no_cycle() {
    // `a` keeps using `f` (so it will import `b`); `b`'s `import a` served only `a.f`, which
    // the move makes `b`'s own `f`: that import goes, and no cycle is left.
    let dir = temp_tree(&[
        (
            "a.py",
            b"def f():\n    return 1\n\n\ndef h():\n    return f() + 1\n",
        ),
        ("b.py", b"import a\n\n\ndef g():\n    return a.f()\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "b.py"),
        "def g():\n    return f()\n\n\ndef f():\n    return 1\n"
    );
    assert!(read(dir.path(), "a.py").contains("f() + 1"));
    assert!(!read(dir.path(), "b.py").contains("import a"));
}

/// The person's `[walk] exclude` leaves vendored code out of a move's walk, on the command
/// line and over MCP alike (each surface reads it into the move's own options): an importer
/// under `vendor/` is neither read nor rewritten.
#[test]
fn the_person_s_walk_excludes_leave_vendored_importers_of_a_move_alone() {
    use crate::security::mcp::Mcp;
    use serde_json::json;
    let tree = || {
        temp_tree(&[
            ("a.py", b"def f():\n    return 1\n"),
            ("main.py", b"from a import f\n\nprint(f())\n"),
            ("vendor/v.py", b"from a import f\n\nprint(f())\n"),
            ("lancet.toml", b"[walk]\nexclude = [\"vendor/**\"]\n"),
        ])
    };
    let moved_but_vendored = |root: &Path| {
        assert_eq!(read(root, "main.py"), "from b import f\n\nprint(f())\n");
        assert_eq!(read(root, "vendor/v.py"), "from a import f\n\nprint(f())\n");
    };
    let dir = tree();
    super::tree::trust(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.py"]);
    assert_eq!(code, Some(0), "{v:#}");
    moved_but_vendored(dir.path());

    let dir = tree();
    super::tree::trust(dir.path());
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let answer = mcp.call("move_symbol", json!({"symbol": "f", "to": "b.py"}));
    assert!(!answer.is_error, "{}", answer.text);
    moved_but_vendored(dir.path());
}
