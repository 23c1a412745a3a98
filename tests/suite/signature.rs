//! `lancet signature` through the CLI, one behaviour per test: each change (add, remove,
//! rename, reorder) over positional and keyword calls, overrides through a subclass, a
//! constructor through its class, the sites that stop the change (`*args` forwarding,
//! `functools.partial`, an undecided receiver) and what the person can say about them, the
//! request refused before anything is read, and the transaction (undo, `--dry-run`, `--bisect`).

use super::tree::{describe, lancet, read, run_json, snapshot, temp_tree};
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    run_json(root, "signature", args)
}

const SHOP: &str = "\
def total(prices, tax=0.0, *, rounding=2):
    \"\"\"The sum of prices with tax.\"\"\"
    return round(sum(prices) * (1 + tax), rounding)
";

const MAIN: &str = "\
from shop import total
import shop

print(total([1, 2]))
print(total([1, 2], 0.2))
print(shop.total([3], tax=0.1, rounding=0))
";

fn shop() -> tempfile::TempDir {
    temp_tree(&[("shop.py", SHOP.as_bytes()), ("main.py", MAIN.as_bytes())])
}

#[test]
fn an_added_parameter_reaches_every_call_with_its_value() {
    let dir = shop();
    let (code, v) = run(
        dir.path(),
        &["total", "--add", "currency=\"EUR\"@1:\"USD\""],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "shop.py").lines().next().unwrap(),
        "def total(prices, currency=\"EUR\", tax=0.0, *, rounding=2):"
    );
    assert_eq!(
        read(dir.path(), "main.py"),
        "from shop import total\nimport shop\n\nprint(total([1, 2], \"USD\"))\nprint(total([1, 2], \"USD\", 0.2))\nprint(shop.total([3], \"USD\", tax=0.1, rounding=0))\n"
    );
    let summary = &v["signature"];
    assert_eq!(summary["before"], "(prices, tax=0.0, *, rounding=2)");
    assert_eq!(
        summary["after"],
        "(prices, currency=\"EUR\", tax=0.0, *, rounding=2)"
    );
    assert_eq!(summary["calls"].as_array().unwrap().len(), 3, "{v:#}");
}

#[test]
fn a_removed_parameter_takes_its_arguments_along_positional_or_keyword() {
    let dir = temp_tree(&[(
        "a.py",
        b"def send(to, body, retries=3):\n    return to, body\n\n\nsend('a', 'b', 5)\nsend('a', body='b', retries=1)\nsend('a', 'b')\n",
    )]);
    let (code, v) = run(dir.path(), &["send", "--remove", "retries"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def send(to, body):\n    return to, body\n\n\nsend('a', 'b')\nsend('a', body='b')\nsend('a', 'b')\n"
    );
    assert_eq!(v["signature"]["calls_unchanged"], 1, "{v:#}");
}

#[test]
fn a_removed_parameter_the_body_still_uses_is_refused() {
    let dir = shop();
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["total", "--remove", "tax"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "invalid_signature");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("still uses `tax` (shop.py line(s) 3)"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_renamed_parameter_is_renamed_in_its_body_and_the_keyword_arguments() {
    let dir = shop();
    let (code, v) = run(dir.path(), &["total", "--rename", "tax=vat"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "shop.py"),
        "def total(prices, vat=0.0, *, rounding=2):\n    \"\"\"The sum of prices with tax.\"\"\"\n    return round(sum(prices) * (1 + vat), rounding)\n"
    );
    assert!(read(dir.path(), "main.py").contains("shop.total([3], vat=0.1, rounding=0)"));
    // The positional calls bind as before.
    assert_eq!(v["signature"]["calls_unchanged"], 2, "{v:#}");
}

#[test]
fn a_reorder_moves_positional_arguments_and_passes_by_keyword_past_a_gap() {
    let dir = temp_tree(&[(
        "a.py",
        b"def box(w, h=1, d=1):\n    return w * h * d\n\n\nbox(2, 3, 4)\nbox(2, 3)\nbox(2, d=5)\n",
    )]);
    let (code, v) = run(dir.path(), &["box", "--reorder", "d,h"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def box(w, d=1, h=1):\n    return w * h * d\n\n\nbox(2, 4, 3)\nbox(2, h=3)\nbox(2, d=5)\n"
    );
}

#[test]
fn overrides_change_with_their_base_and_calls_through_the_class_pass_self() {
    let dir = temp_tree(&[
        (
            "shapes.py",
            b"class Shape:\n    def scale(self, k):\n        return k\n\n\nclass Square(Shape):\n    def scale(self, k):\n        return super().scale(k) * 2\n",
        ),
        (
            "use.py",
            b"from shapes import Shape, Square\n\ns = Square()\ns.scale(2)\nShape().scale(k=3)\nShape.scale(s, 4)\n",
        ),
    ]);
    let (code, v) = run(
        dir.path(),
        &["--at", "shapes.py:2:9", "--add", "origin=None:(0, 0)"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "shapes.py"),
        "class Shape:\n    def scale(self, k, origin=None):\n        return k\n\n\nclass Square(Shape):\n    def scale(self, k, origin=None):\n        return super().scale(k, (0, 0)) * 2\n"
    );
    assert_eq!(
        read(dir.path(), "use.py"),
        "from shapes import Shape, Square\n\ns = Square()\ns.scale(2, (0, 0))\nShape().scale(k=3, origin=(0, 0))\nShape.scale(s, 4, (0, 0))\n"
    );
    assert_eq!(v["signature"]["definitions"].as_array().unwrap().len(), 2);
}

#[test]
fn a_class_names_its_constructor_and_its_calls_are_updated() {
    let dir = temp_tree(&[(
        "a.py",
        b"class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n    @classmethod\n    def origin(cls):\n        return cls(0, 0)\n\n\nclass Pixel(Point):\n    pass\n\n\nPoint(1, 2)\nPixel(x=3, y=4)\n",
    )]);
    let (code, v) = run(dir.path(), &["Point", "--add", "z=0:9"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "class Point:\n    def __init__(self, x, y, z=0):\n        self.x, self.y = x, y\n\n    @classmethod\n    def origin(cls):\n        return cls(0, 0, 9)\n\n\nclass Pixel(Point):\n    pass\n\n\nPoint(1, 2, 9)\nPixel(x=3, y=4, z=9)\n"
    );
    assert_eq!(v["signature"]["function"], "a.py::Point.__init__");
}

#[test]
fn forwarding_through_star_args_stops_the_change_and_is_listed() {
    let code = "def send(to, body):\n    return to\n\n\ndef relay(*args, **kwargs):\n    return send(*args, **kwargs)\n\n\nsend('a', 'b')\n";
    let dir = temp_tree(&[("a.py", code.as_bytes())]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["send", "--remove", "body"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites");
    let left = &v["signature"]["unsafe_sites"][0];
    assert_eq!(
        (left["path"].as_str(), left["line"].as_u64()),
        (Some("a.py"), Some(6))
    );
    assert!(
        left["why"].as_str().unwrap().contains("`*` unpacks"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
    // Left by the person's choice: the rest is written, the forwarding call listed.
    let (status, v) = run(
        dir.path(),
        &["send", "--remove", "body", "--leave-unresolved"],
    );
    assert_eq!(status, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def send(to):\n    return to\n\n\ndef relay(*args, **kwargs):\n    return send(*args, **kwargs)\n\n\nsend('a')\n"
    );
    assert_eq!(v["signature"]["unsafe_sites"].as_array().unwrap().len(), 1);
}

#[test]
fn functools_partial_of_the_function_is_refused() {
    let dir = temp_tree(&[(
        "a.py",
        b"import functools\n\n\ndef send(to, body):\n    return to\n\n\nhello = functools.partial(send, 'bob')\n",
    )]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["send", "--rename", "to=recipient"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites");
    assert!(
        v["error"]["detail"].as_str().unwrap().contains(
            "a.py:8: hello = functools.partial(send, 'bob')  (`functools.partial` binds arguments"
        ),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn calls_through_an_undecided_receiver_stop_the_change_unless_included() {
    let code = "class Mailer:\n    def send(self, to):\n        return to\n\n\ndef notify(m):\n    return m.send('a')\n\n\nMailer().send('b')\n";
    let dir = temp_tree(&[("a.py", code.as_bytes())]);
    let (status, v) = run(dir.path(), &["Mailer.send", "--add", "cc=None:'c'"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["signature"]["unresolved"][0]["line"], 7, "{v:#}");
    let (status, v) = run(
        dir.path(),
        &[
            "Mailer.send",
            "--add",
            "cc=None:'c'",
            "--include-unresolved",
        ],
    );
    assert_eq!(status, Some(0), "{v:#}");
    assert!(read(dir.path(), "a.py").contains("return m.send('a', 'c')"));
    assert!(read(dir.path(), "a.py").contains("Mailer().send('b', 'c')"));
}

#[test]
fn a_parameter_added_without_default_or_value_is_refused() {
    let dir = shop();
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["total", "--add", "currency"]);
    assert_eq!(status, Some(2), "{v:#}");
    assert_eq!(v["error"]["kind"], "usage");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("neither a default nor a value"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_signature_change_is_undone_like_any_batch() {
    let dir = shop();
    let (status, v) = run(dir.path(), &["total", "--add", "currency=None:\"EUR\""]);
    assert_eq!(status, Some(0), "{v:#}");
    assert!(v["checkpoint"].is_string(), "{v:#}");
    assert_ne!(read(dir.path(), "main.py"), MAIN);
    let out = lancet(&["-C", dir.path().to_str().unwrap(), "undo", "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(read(dir.path(), "shop.py"), SHOP);
    assert_eq!(read(dir.path(), "main.py"), MAIN);
}

#[test]
fn a_dry_run_shows_the_diff_and_bisect_is_refused() {
    let dir = shop();
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["total", "--rename", "tax=vat", "--dry-run"]);
    assert_eq!(status, Some(0), "{v:#}");
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
            .any(|d| d.contains("+def total(prices, vat=0.0, *, rounding=2):")),
        "{v:#}"
    );
    let (status, v) = run(
        dir.path(),
        &["total", "--rename", "tax=vat", "--test", "true", "--bisect"],
    );
    assert_eq!(status, Some(2), "{v:#}");
    assert!(
        v["error"]["detail"].as_str().unwrap().contains("--bisect"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn changes_apply_in_the_order_given_on_the_command_line() {
    let dir = temp_tree(&[("a.py", b"def f(a, b):\n    return a\n\n\nf(1, 2)\n")]);
    // Renamed first, then reordered by its new name.
    let (status, v) = run(dir.path(), &["f", "--rename", "b=c", "--reorder", "c,a"]);
    assert_eq!(status, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def f(c, a):\n    return a\n\n\nf(2, 1)\n"
    );
    // The other way round, the reorder names a parameter that does not exist yet.
    let (status, v) = run(dir.path(), &["f", "--reorder", "x,a", "--rename", "c=x"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "invalid_signature");
}

#[test]
fn change_signature_over_mcp_updates_the_calls_and_refuses_in_its_words() {
    use crate::security::mcp::Mcp;
    use serde_json::json;
    let dir = temp_tree(&[
        ("shop.py", SHOP.as_bytes()),
        ("main.py", MAIN.as_bytes()),
        (
            "later.py",
            b"import functools\nfrom shop import total\n\nsum_eur = functools.partial(total, tax=0.2)\n",
        ),
    ]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let before = snapshot(dir.path());
    // A parameter with nothing for the calls: refused in the tool's own words.
    let answer = mcp.call(
        "change_signature",
        json!({"function": "total", "changes": [{"op": "add", "name": "currency"}]}),
    );
    assert!(answer.is_error, "{answer:?}");
    assert_eq!(answer.structured["error"]["kind"], "usage");
    assert!(
        answer.text.contains("Give `currency` a `default`"),
        "{}",
        answer.text
    );
    // `functools.partial` stops it, and the way past is named as the tool's argument.
    let add = json!({"op": "add", "name": "currency", "default": "None", "value": "\"USD\""});
    let answer = mcp.call(
        "change_signature",
        json!({"function": "total", "changes": [add]}),
    );
    assert!(answer.is_error, "{answer:?}");
    assert_eq!(answer.structured["error"]["kind"], "unresolved_sites");
    assert!(answer.text.contains("later.py:4"), "{}", answer.text);
    assert!(
        answer.text.contains("leave_unresolved true"),
        "{}",
        answer.text
    );
    assert_eq!(snapshot(dir.path()), before);
    let answer = mcp.call(
        "change_signature",
        json!({"function": "total", "changes": [add], "leave_unresolved": true}),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(answer.structured["signature"]["function"], "shop.py::total");
    assert!(read(dir.path(), "main.py").contains("print(total([1, 2], 0.2, \"USD\"))"));
    assert!(read(dir.path(), "later.py").contains("functools.partial(total, tax=0.2)"));
}

/// A parameter that is the whole parameter list, renamed, and a recursive call rewritten
/// around its renamed argument: one text, three edits nested (requests' urldefragauth lost its
/// parameter's rename when the list's edit and the name's covered the same bytes).
#[test]
fn a_lone_parameter_renamed_inside_a_recursive_call_rewritten() {
    let dir = temp_tree(&[(
        "a.py",
        b"def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n\n\ndef strip(url):\n    return url\n\n\nfact(5)\n",
    )]);
    let (code, v) = run(dir.path(), &["fact", "--rename", "n=k", "--add", "acc=1:1"]);
    assert_eq!(code, Some(0), "{v:#}");
    let (code, v) = run(dir.path(), &["strip", "--rename", "url=link"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def fact(k, acc=1):\n    return 1 if k < 2 else k * fact(k - 1, 1)\n\n\ndef strip(link):\n    return link\n\n\nfact(5, 1)\n"
    );
}

#[test]
fn a_constructor_whose_class_defines_new_is_refused() {
    let dir = temp_tree(&[(
        "a.py",
        b"class Unit:\n    def __new__(cls, name):\n        return super().__new__(cls)\n\n    def __init__(self, name):\n        self.name = name\n\n\nUnit('m')\n",
    )]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["Unit", "--add", "scale=1:1"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("also defines `__new__`"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// Python calls a protocol's method itself: `obj.attr = v` calls a descriptor's `__set__`
/// (found by the type checker on flask's ConfigAttribute, whose reordered `__set__` broke every
/// assignment through it).
#[test]
fn a_method_python_calls_itself_is_refused() {
    let dir = temp_tree(&[(
        "a.py",
        b"class Attr:\n    def __set__(self, obj, value):\n        obj.__dict__['x'] = value\n\n\nclass Holder:\n    x = Attr()\n\n\nHolder().x = 1\n",
    )]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["Attr.__set__", "--reorder", "value,obj"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("a method Python calls itself"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// A method of a class whose base is outside the tree may override that base's, which calls
/// it with its own parameters (`logging.Handler` calls `emit(record)`).
#[test]
fn a_method_a_base_outside_the_tree_may_define_is_refused() {
    let dir = temp_tree(&[(
        "a.py",
        b"import logging\n\n\nclass Quiet(logging.Handler):\n    def emit(self, record):\n        pass\n\n    def mine(self, x):\n        return x\n\n\nQuiet().emit(None)\nQuiet().mine(1)\n",
    )]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["Quiet.emit", "--add", "level=0:1"]);
    assert_eq!(status, Some(1), "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("may override a method of a class outside the tree"),
        "{v:#}"
    );
    assert!(detail.contains("logging.Handler"), "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
    // What an outside base defines is not in the tree: a method of its own is refused alike.
    let (status, v) = run(dir.path(), &["Quiet.mine", "--add", "y=0:2"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
}

/// One name defined under `if`/`else`: both definitions change (their calls may reach either),
/// and differing ones are refused.
#[test]
fn a_function_defined_twice_changes_in_both_places() {
    let code = "import sys\n\nif sys.platform == 'win32':\n    def home(user):\n        return 'C:/' + user\nelse:\n    def home(user):\n        return '/home/' + user\n\n\nhome('ann')\n";
    let dir = temp_tree(&[("a.py", code.as_bytes())]);
    let (status, v) = run(dir.path(), &["home", "--add", "root=None:'/'"]);
    assert_eq!(status, Some(0), "{v:#}");
    let after = read(dir.path(), "a.py");
    assert_eq!(
        after.matches("def home(user, root=None):").count(),
        2,
        "{after}"
    );
    assert!(after.contains("home('ann', '/')"), "{after}");
    let differing = code.replace(
        "def home(user):\n        return '/home/'",
        "def home(user, sep='/'):\n        return '/home/'",
    );
    let dir = temp_tree(&[("a.py", differing.as_bytes())]);
    let (status, v) = run(dir.path(), &["home", "--add", "root=None:'/'"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("defined more than once"),
        "{v:#}"
    );
}

const SHOP_TS: &str = "\
export function total(prices: number[], tax = 0, ...extra: number[]): number {
  const sum = prices.reduce((a, b) => a + b, 0);
  return { sum, tax }.sum * (1 + tax);
}
";

const MAIN_TS: &str = "\
import { total } from './shop';
import * as shop from './shop';

total([1, 2]);
total([1], 0.2);
shop.total([3], 0.1);
";

#[test]
fn a_typescript_function_changes_with_its_calls_across_modules() {
    let dir = temp_tree(&[
        ("shop.ts", SHOP_TS.as_bytes()),
        ("main.ts", MAIN_TS.as_bytes()),
    ]);
    let change = [
        "total",
        "--rename",
        "tax=vat",
        "--add",
        "currency='EUR'@2:'USD'",
    ];
    // `total([1, 2])` passes no tax, and JavaScript has no keywords: the value has no place.
    let (status, v) = run(dir.path(), &change);
    assert_eq!(status, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("main.ts:4: total([1, 2]);"),
        "{v:#}"
    );
    let (status, v) = run(dir.path(), &[&change[..], &["--leave-unresolved"]].concat());
    assert_eq!(status, Some(0), "{v:#}");
    // The rename reaches the body (a shorthand property keeps its key); the calls pass the
    // value where the new parameter stands, positionally: JavaScript has no keywords.
    assert_eq!(
        read(dir.path(), "shop.ts"),
        "export function total(prices: number[], vat = 0, currency = 'EUR', ...extra: number[]): number {\n  const sum = prices.reduce((a, b) => a + b, 0);\n  return { sum, tax: vat }.sum * (1 + vat);\n}\n"
    );
    assert_eq!(
        read(dir.path(), "main.ts"),
        "import { total } from './shop';\nimport * as shop from './shop';\n\ntotal([1, 2]);\ntotal([1], 0.2, 'USD');\nshop.total([3], 0.1, 'USD');\n"
    );
    assert_eq!(
        v["signature"]["calls"].as_array().unwrap().len(),
        2,
        "{v:#}"
    );
}

#[test]
fn a_javascript_arrow_function_gets_brackets_and_a_call_that_cannot_place_a_value_is_listed() {
    let dir = temp_tree(&[(
        "a.js",
        b"export const half = x => x / 2;\nhalf(4);\nhalf();\n",
    )]);
    let (status, v) = run(dir.path(), &["half", "--add", "round=false:true"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("a.js:3: half();"),
        "{v:#}"
    );
    let (status, v) = run(
        dir.path(),
        &["half", "--add", "round=false:true", "--leave-unresolved"],
    );
    assert_eq!(status, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.js"),
        "export const half = (x, round = false) => x / 2;\nhalf(4, true);\nhalf();\n"
    );
}

/// A TypeScript function a refusal names is named by its file and name, as the success
/// message names it, not by where its declaration starts.
#[test]
fn a_typescript_refusal_names_the_function_as_written() {
    let dir = temp_tree(&[("shop.ts", SHOP_TS.as_bytes())]);
    let (status, v) = run(dir.path(), &["total", "--remove", "tax"]);
    assert_eq!(status, Some(1), "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the body of shop.ts::total still uses `tax` (shop.ts line(s) 3)"),
        "{v:#}"
    );
}

#[test]
fn a_typescript_method_and_an_untyped_parameter_are_refused() {
    let dir = temp_tree(&[
        ("shop.ts", SHOP_TS.as_bytes()),
        (
            "cart.ts",
            b"export class Cart {\n  add(item: string): void {}\n}\nnew Cart().add('a');\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (status, v) = run(dir.path(), &["--at", "cart.ts:2:3", "--add", "qty=1"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unknown_language");
    let (status, v) = run(dir.path(), &["total", "--add", "currency:'USD'"]);
    assert_eq!(status, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "invalid_signature");
    assert!(
        v["error"]["detail"].as_str().unwrap().contains("no type"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// A TypeScript parameter is named outside its body too: by a type predicate of the return
/// type and by the parameters after it (found by tsc on query-core's isCancelledError and
/// table-core's isNumberArray, whose predicates kept the old name).
#[test]
fn a_typescript_parameter_renamed_in_its_type_predicate_and_later_parameters() {
    let dir = temp_tree(&[(
        "p.ts",
        b"export function isErr(value: any): value is Error {\n  return value instanceof Error;\n}\nexport function check(a: number, b = a): asserts a {}\nisErr(1);\ncheck(1);\n",
    )]);
    let (status, v) = run(dir.path(), &["isErr", "--rename", "value=v"]);
    assert_eq!(status, Some(0), "{v:#}");
    let (status, v) = run(dir.path(), &["check", "--rename", "a=x"]);
    assert_eq!(status, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "p.ts"),
        "export function isErr(v: any): v is Error {\n  return v instanceof Error;\n}\nexport function check(x: number, b = x): asserts x {}\nisErr(1);\ncheck(1);\n"
    );
}

/// The person's `[walk] exclude` leaves vendored callers out of a signature change, on the
/// command line and over MCP alike: a call under `vendor/` is neither read nor rewritten.
#[test]
fn the_person_s_walk_excludes_leave_vendored_calls_alone() {
    use crate::security::mcp::Mcp;
    use serde_json::json;
    let tree = || {
        temp_tree(&[
            ("shop.py", SHOP.as_bytes()),
            ("main.py", MAIN.as_bytes()),
            ("vendor/v.py", MAIN.as_bytes()),
            ("lancet.toml", b"[walk]\nexclude = [\"vendor/**\"]\n"),
        ])
    };
    let dir = tree();
    super::tree::trust(dir.path());
    let (code, v) = run(
        dir.path(),
        &["total", "--add", "currency=\"EUR\"@1:\"USD\""],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_ne!(read(dir.path(), "main.py"), MAIN);
    assert_eq!(read(dir.path(), "vendor/v.py"), MAIN);

    let dir = tree();
    super::tree::trust(dir.path());
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let answer = mcp.call(
        "change_signature",
        json!({"function": "total", "changes": [{"op": "add", "name": "currency", "position": 1, "value": "\"USD\""}]}),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_ne!(read(dir.path(), "main.py"), MAIN);
    assert_eq!(read(dir.path(), "vendor/v.py"), MAIN);
}
