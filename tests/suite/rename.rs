//! `lancet rename` and batch input at scale through the CLI: what is renamed, what is only
//! listed, what is refused, and that every refusal writes nothing.

use super::tree::{describe, lancet, snapshot, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec![args[0], "-C", root.to_str().unwrap(), "--json"];
    all.extend(&args[1..]);
    let out = lancet(&all, stdin);
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

const SHOP_PY: &str = "\
\"\"\"The shop: total() adds prices.\"\"\"


def total(items):
    # total of all items
    return sum(i.price for i in items)


class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        return total(self.items)

    def report(self):
        total = self.total()  # a local that shadows the function
        return f\"total: {total}\"
";

const MAIN_PY: &str = "\
from shop import total as grand, Cart
import shop

print(grand([]), shop.total([]), Cart().total())
print(\"total\")
";

#[test]
fn python_rename_updates_definitions_calls_methods_imports_and_locals_but_not_text() {
    let dir = temp_tree(&[
        ("shop.py", SHOP_PY.as_bytes()),
        ("main.py", MAIN_PY.as_bytes()),
        ("notes.txt", b"total is not code\n"),
    ]);
    let (code, v) = run_json(dir.path(), &["rename", "total", "sum_prices"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "shop.py"),
        "\
\"\"\"The shop: total() adds prices.\"\"\"


def sum_prices(items):
    # total of all items
    return sum(i.price for i in items)


class Cart:
    def __init__(self):
        self.items = []

    def sum_prices(self):
        return sum_prices(self.items)

    def report(self):
        sum_prices = self.sum_prices()  # a local that shadows the function
        return f\"total: {sum_prices}\"
"
    );
    assert_eq!(
        read(dir.path(), "main.py"),
        "\
from shop import sum_prices as grand, Cart
import shop

print(grand([]), shop.sum_prices([]), Cart().sum_prices())
print(\"total\")
"
    );
    assert_eq!(read(dir.path(), "notes.txt"), "total is not code\n");
    let r = &v["rename"];
    assert_eq!(r["sites"], 9, "{r:#}");
    assert_eq!(r["files_changed"], 2);
    let mentions: Vec<String> = r["mentions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}:{} {}", m["path"], m["line"], m["context"]))
        .collect();
    assert_eq!(
        mentions,
        [
            "\"main.py\":5 \"string\"",
            "\"shop.py\":1 \"string\"",
            "\"shop.py\":5 \"comment\"",
            "\"shop.py\":18 \"string\"",
        ]
    );
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("shop.py:5 (comment): # total of all items"),
        "{message}"
    );
    // The checkpoint makes it undoable like any batch.
    assert!(v["checkpoint"].is_string());
    let (code, _) = run_json(dir.path(), &["undo"], b"");
    assert_eq!(code, Some(0));
    assert_eq!(read(dir.path(), "shop.py"), SHOP_PY);
    assert_eq!(read(dir.path(), "main.py"), MAIN_PY);
}

#[test]
fn strings_and_comments_are_renamed_only_when_asked() {
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes())]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "total", "sum_prices", "--include-comments"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    let after = read(dir.path(), "shop.py");
    assert!(after.contains("    # sum_prices of all items\n"));
    assert!(after.contains("\"\"\"The shop: total() adds prices.\"\"\""));
    assert!(after.contains("f\"total: {sum_prices}\""));
}

const LIB_RS: &str = "\
/// Sums the total.
pub fn total(xs: &[u32]) -> u32 {
    xs.iter().sum()
}

pub struct Cart {
    pub total: u32,
}

impl Cart {
    pub fn total(&self) -> u32 {
        self.total
    }
}

pub fn show(c: &Cart) -> String {
    let total = c.total();
    format!(\"total={}\", total)
}
";

const MAIN_RS: &str = "\
use crate::lib::{total, Cart};

fn main() {
    let c = Cart { total: total(&[1, 2]) };
    println!(\"{}\", c.total());
}
";

#[test]
fn rust_rename_updates_items_fields_methods_uses_and_macro_arguments() {
    let dir = temp_tree(&[
        ("src/lib.rs", LIB_RS.as_bytes()),
        ("src/main.rs", MAIN_RS.as_bytes()),
    ]);
    let (code, v) = run_json(dir.path(), &["rename", "total", "amount", "src"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        "\
/// Sums the total.
pub fn amount(xs: &[u32]) -> u32 {
    xs.iter().sum()
}

pub struct Cart {
    pub amount: u32,
}

impl Cart {
    pub fn amount(&self) -> u32 {
        self.amount
    }
}

pub fn show(c: &Cart) -> String {
    let amount = c.amount();
    format!(\"total={}\", amount)
}
"
    );
    assert_eq!(
        read(dir.path(), "src/main.rs"),
        "\
use crate::lib::{amount, Cart};

fn main() {
    let c = Cart { amount: amount(&[1, 2]) };
    println!(\"{}\", c.amount());
}
"
    );
    assert_eq!(v["rename"]["mentions"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_names_and_unknown_languages_are_usage_errors() {
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes())]);
    let before = snapshot(dir.path());
    for (args, kind) in [
        (vec!["rename", "total", "2fast"], "invalid_name"),
        (vec!["rename", "total", "class"], "invalid_name"),
        (vec!["rename", "total", "a-b"], "invalid_name"),
        (
            vec!["rename", "total", "x", "--lang", "cobol"],
            "unknown_language",
        ),
    ] {
        let (code, v) = run_json(dir.path(), &args, b"");
        assert_eq!(code, Some(2), "{args:?}: {v:#}");
        assert_eq!(v["error"]["kind"], kind, "{args:?}");
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn refusals_say_why_and_write_nothing() {
    let dir = temp_tree(&[
        ("shop.py", SHOP_PY.as_bytes()),
        ("other.py", b"sum_prices = 1\ntotal = 2\n"),
    ]);
    let before = snapshot(dir.path());
    // NEW already in use where OLD would become it.
    let (code, v) = run_json(dir.path(), &["rename", "total", "sum_prices"], b"");
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "name_in_use");
    assert!(v["message"].as_str().unwrap().contains("other.py:1"));
    // --kind that does not fit, or that is not the only kind.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "total", "t2", "shop.py", "--kind", "class"],
        b"",
    );
    assert_eq!(code, Some(1));
    assert_eq!(v["error"]["kind"], "kind_mismatch");
    let (code, v) = run_json(
        dir.path(),
        &["rename", "total", "t2", "shop.py", "--kind", "function"],
        b"",
    );
    assert_eq!(code, Some(1));
    assert!(
        v["message"].as_str().unwrap().contains("method shop.py:13"),
        "{v:#}"
    );
    // Nothing to rename.
    let (code, v) = run_json(dir.path(), &["rename", "nothing_here", "x"], b"");
    assert_eq!(code, Some(1));
    assert_eq!(v["error"]["kind"], "no_match");
    // A path outside the root, and one that does not exist.
    let (code, v) = run_json(dir.path(), &["rename", "total", "x", "../"], b"");
    assert_eq!(code, Some(1));
    assert_eq!(v["error"]["kind"], "unsafe_path");
    let (code, v) = run_json(dir.path(), &["rename", "total", "x", "nope/"], b"");
    assert_eq!(code, Some(1));
    assert_eq!(v["error"]["kind"], "missing");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn kind_narrows_when_the_name_has_one_kind() {
    let dir = temp_tree(&[("a.py", b"class Total:\n    pass\n\nx = Total()\n")]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "Total", "Sum", "--kind", "class"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "class Sum:\n    pass\n\nx = Sum()\n"
    );
}

#[test]
fn gitignored_files_are_not_walked_and_dry_run_writes_nothing() {
    let dir = temp_tree(&[
        (".gitignore", b"build/\n"),
        ("a.py", b"total = 1\n"),
        ("build/gen.py", b"total = 2\n"),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run_json(dir.path(), &["rename", "total", "t", "--dry-run"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "dry_run");
    assert_eq!(v["rename"]["files_changed"], 1);
    assert_eq!(snapshot(dir.path()), before);
    let (code, _) = run_json(dir.path(), &["rename", "total", "t"], b"");
    assert_eq!(code, Some(0));
    assert_eq!(read(dir.path(), "a.py"), "t = 1\n");
    assert_eq!(read(dir.path(), "build/gen.py"), "total = 2\n");
}

#[test]
fn a_failing_test_command_rolls_the_rename_back() {
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes())]);
    let before = snapshot(dir.path());
    let (code, v) = run_json(
        dir.path(),
        &["rename", "total", "sum_prices", "--test", "exit 1"],
        b"",
    );
    assert_eq!(code, Some(3), "{v:#}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn crlf_and_bom_survive_a_rename() {
    let dir = temp_tree(&[("w.py", b"\xef\xbb\xbfdef total():\r\n    return total\r\n")]);
    let (code, v) = run_json(dir.path(), &["rename", "total", "t"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        std::fs::read(dir.path().join("w.py")).unwrap(),
        b"\xef\xbb\xbfdef t():\r\n    return t\r\n"
    );
}

// ---- batch input ----------------------------------------------------------------------------

fn patch_for(path: &str, old: &str, new: &str) -> String {
    format!("*** Begin Patch\n*** Update File: {path}\n-{old}\n+{new}\n*** End Patch\n")
}

#[test]
fn several_files_a_directory_and_jsonl_are_one_batch_in_input_order() {
    let dir = temp_tree(&[("a.txt", b"one\n"), ("b.txt", b"two\n")]);
    let edits = tempfile::tempdir().unwrap();
    // A directory, read in name order: the second edit sees the first one's result.
    std::fs::write(
        edits.path().join("02.patch"),
        patch_for("a.txt", "uno", "eins"),
    )
    .unwrap();
    std::fs::write(
        edits.path().join("01.patch"),
        patch_for("a.txt", "one", "uno"),
    )
    .unwrap();
    std::fs::write(edits.path().join(".hidden"), "not an edit").unwrap();
    let (code, v) = run_json(dir.path(), &["apply", edits.path().to_str().unwrap()], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "a.txt"), "eins\n");
    // Several files, in the order given.
    let f1 = edits.path().join("x.patch");
    let f2 = edits.path().join("y.json");
    std::fs::write(&f1, patch_for("b.txt", "two", "zwei")).unwrap();
    std::fs::write(
        &f2,
        r#"{"path": "b.txt", "old_string": "zwei", "new_string": "deux"}"#,
    )
    .unwrap();
    let (code, v) = run_json(
        dir.path(),
        &["apply", f1.to_str().unwrap(), f2.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "b.txt"), "deux\n");
    // JSON lines: objects and strings of edit text in any format.
    let jsonl = format!(
        "{}\n\n{}\n{}\n",
        r#"{"path": "a.txt", "old_string": "eins", "new_string": "one"}"#,
        serde_json::to_string(&patch_for("b.txt", "deux", "two")).unwrap(),
        serde_json::to_string("c.txt\n```\nthree\n```\n").unwrap(),
    );
    let (code, v) = run_json(dir.path(), &["apply", "--jsonl"], jsonl.as_bytes());
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        (
            read(dir.path(), "a.txt"),
            read(dir.path(), "b.txt"),
            read(dir.path(), "c.txt")
        ),
        ("one\n".into(), "two\n".into(), "three\n".into())
    );
    // A malformed line names its entry and writes nothing.
    let before = snapshot(dir.path());
    let bad = format!(
        "{}\nnot json\n",
        r#"{"path": "a.txt", "old_string": "one", "new_string": "1"}"#
    );
    let (code, v) = run_json(dir.path(), &["apply", "--jsonl"], bad.as_bytes());
    assert_eq!(code, Some(2), "{v:#}");
    assert!(
        v["message"].as_str().unwrap().contains("stdin entry 2"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_batch_failing_in_file_1999_of_2000_writes_nothing() {
    let files: Vec<(String, Vec<u8>)> = (0..2000)
        .map(|i| {
            (
                format!("d{}/f{i:04}.txt", i % 20),
                format!("line {i}\n").into_bytes(),
            )
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let dir = temp_tree(&refs);
    let before = snapshot(dir.path());
    let jsonl: String = (0..2000)
        .map(|i| {
            let old = if i == 1998 { "no such line" } else { "line" };
            serde_json::json!({
                "path": format!("d{}/f{i:04}.txt", i % 20),
                "old_string": format!("{old} {i}"),
                "new_string": format!("row {i}"),
            })
            .to_string()
                + "\n"
        })
        .collect();
    let (code, v) = run_json(dir.path(), &["apply", "--jsonl"], jsonl.as_bytes());
    assert_eq!(code, Some(1), "{}", v["message"]);
    assert_eq!(v["status"], "refused");
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("d18/f1998.txt"), "{message}");
    assert_eq!(snapshot(dir.path()), before);
    // The same batch without the bad line applies, and the human report summarises it.
    let good = jsonl.replace("no such line 1998", "line 1998");
    let out = lancet(
        &[
            "apply",
            "-C",
            dir.path().to_str().unwrap(),
            "--jsonl",
            "--no-fsync",
        ],
        good.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Applied: 2000 file(s) (2000 M), 2000 chunk(s) by matcher: exact 2000."),
        "{text}"
    );
    assert!(text.contains("... and 1980 more file(s)"), "{text}");
    assert!(text.lines().count() < 40, "{text}");
    assert_eq!(read(dir.path(), "d19/f1999.txt"), "row 1999\n");
}

#[test]
fn quiet_prints_nothing_on_success_and_still_reports_failures() {
    let dir = temp_tree(&[("a.py", b"total = 1\n")]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["rename", "-C", root, "total", "t", "-q"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        describe(&out)
    );
    let out = lancet(&["rename", "-C", root, "nothing", "t", "-q"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no identifier `nothing`"));
}

#[test]
fn scripts_are_found_by_their_shebang_and_other_languages_are_left_alone() {
    let dir = temp_tree(&[
        (
            "bin/tool",
            b"#!/usr/bin/env python3\ntotal = 2\nprint(total)\n",
        ),
        ("lib.c", b"int total = 1;\n"),
        ("a.py", b"total = 1\n"),
    ]);
    let (code, v) = run_json(dir.path(), &["rename", "total", "t"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "bin/tool"),
        "#!/usr/bin/env python3\nt = 2\nprint(t)\n"
    );
    assert_eq!(read(dir.path(), "lib.c"), "int total = 1;\n");
    assert_eq!(v["rename"]["files_scanned"], 2);
    // --lang narrows to one language.
    let dir = temp_tree(&[
        ("a.py", b"total = 1\n"),
        ("b.rs", b"const total: u8 = 1;\n"),
    ]);
    let (code, v) = run_json(dir.path(), &["rename", "total", "t", "--lang", "rust"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "a.py"), "total = 1\n");
    assert_eq!(read(dir.path(), "b.rs"), "const t: u8 = 1;\n");
}

/// A small package shaped like psf/requests: a session and a response that both define
/// `close`, callers on values lancet cannot type, and the standard library's `os.close`.
const PKG_SESSIONS: &str = "\
import os
from .models import Response


class Session:
    def close(self):
        for adapter in self.adapters:
            adapter.close()

    def __exit__(self, *args):
        self.close()

    def release(self, fd, fp):
        os.close(fd)
        fp.close()
        self.raw.close()
";

const PKG_MODELS: &str = "\
class Response:
    def close(self):
        release = getattr(self.raw, \"release_conn\", None)

    def __exit__(self, *args):
        self.close()
";

const PKG_API: &str = "\
from .sessions import Session


def request(method, url, **kwargs):
    with Session() as session:
        return session.request(method=method, url=url, **kwargs)


def finish():
    Session().close()
";

fn requests_like() -> tempfile::TempDir {
    temp_tree(&[
        ("pkg/__init__.py", b"from .api import request\n"),
        ("pkg/sessions.py", PKG_SESSIONS.as_bytes()),
        ("pkg/models.py", PKG_MODELS.as_bytes()),
        ("pkg/api.py", PKG_API.as_bytes()),
    ])
}

fn sites(v: &serde_json::Value, list: &str) -> Vec<String> {
    v["rename"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}:{}", s["path"].as_str().unwrap(), s["line"]))
        .collect()
}

#[test]
fn a_method_rename_never_touches_the_standard_library_or_values_of_unknown_type() {
    let dir = requests_like();
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "close",
            "shutdown",
            "--kind",
            "method",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    let sessions = read(dir.path(), "pkg/sessions.py");
    assert!(sessions.contains("    def shutdown(self):\n        for adapter in self.adapters:\n            adapter.close()"), "{sessions}");
    assert!(sessions.contains("        self.shutdown()\n"), "{sessions}");
    assert!(
        sessions.contains("        os.close(fd)\n        fp.close()\n        self.raw.close()\n"),
        "{sessions}"
    );
    assert!(read(dir.path(), "pkg/api.py").contains("    Session().shutdown()\n"));
    assert!(read(dir.path(), "pkg/models.py").contains("    def shutdown(self):"));
    assert_eq!(
        sites(&v, "outside"),
        ["pkg/sessions.py:14"],
        "os.close resolves to the standard library: {v:#}"
    );
    assert_eq!(
        sites(&v, "unresolved"),
        [
            "pkg/sessions.py:8",
            "pkg/sessions.py:15",
            "pkg/sessions.py:16"
        ],
        "{v:#}"
    );
    let text = v["message"].as_str().unwrap();
    assert!(
        text.contains("pkg/sessions.py:15: fp.close()  (`fp` is a variable of unknown type)"),
        "{text}"
    );
    assert!(text.contains("--include-unresolved"), "{text}");
}

#[test]
fn at_renames_one_binding_and_its_uses_only() {
    let dir = requests_like();
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "--at",
            "pkg/sessions.py:6:10",
            "shutdown",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["pkg/api.py:10", "pkg/sessions.py:6", "pkg/sessions.py:11"],
        "{v:#}"
    );
    assert!(read(dir.path(), "pkg/models.py").contains("    def close(self):"));
    // The same symbol by qualified name, on a fresh tree.
    let dir = requests_like();
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "pkg.models.Response.close",
            "shutdown",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["pkg/models.py:2", "pkg/models.py:6"],
        "{v:#}"
    );
    // --at on a name of the standard library is refused, saying so.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "pkg/sessions.py:14:12", "shut"],
        b"",
    );
    assert_eq!(code, Some(1), "{v:#}");
    let text = v["message"].as_str().unwrap();
    assert!(
        text.contains("is not defined in the tree: `os` is outside the tree"),
        "{text}"
    );
    // --at naming OLD too must agree with it.
    let (code, _) = run_json(
        dir.path(),
        &["rename", "open", "shut", "--at", "pkg/sessions.py:6:10"],
        b"",
    );
    assert_eq!(code, Some(1));
}

#[test]
fn include_unresolved_renames_the_unknown_receivers_but_never_the_outside_ones() {
    let dir = requests_like();
    let (code, v) = run_json(
        dir.path(),
        &["rename", "close", "shutdown", "--include-unresolved"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    let sessions = read(dir.path(), "pkg/sessions.py");
    assert!(
        sessions.contains("            adapter.shutdown()\n"),
        "{sessions}"
    );
    assert!(
        sessions
            .contains("        os.close(fd)\n        fp.shutdown()\n        self.raw.shutdown()\n"),
        "{sessions}"
    );
}

#[test]
fn another_packages_function_of_the_same_name_is_left_alone() {
    // pallets/flask: the project's send_from_directory calls werkzeug's.
    let dir = temp_tree(&[
        (
            "flask/helpers.py",
            b"import werkzeug.utils\n\n\ndef send_from_directory(directory, path, **kwargs):\n    return werkzeug.utils.send_from_directory(directory, path, **kwargs)\n",
        ),
        (
            "flask/__init__.py",
            b"from .helpers import send_from_directory as send_from_directory\n",
        ),
        (
            "tests/test_helpers.py",
            b"import flask\nimport flask.helpers\n\n\ndef test_send(app):\n    flask.send_from_directory(\"static\", \"hello.txt\", max_age=1)\n    flask.helpers.send_from_directory(directory=\"s\", path=\"p\")\n",
        ),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "send_from_directory", "serve_from_directory"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "flask/helpers.py"),
        "import werkzeug.utils\n\n\ndef serve_from_directory(directory, path, **kwargs):\n    return werkzeug.utils.send_from_directory(directory, path, **kwargs)\n"
    );
    assert_eq!(
        read(dir.path(), "tests/test_helpers.py"),
        "import flask\nimport flask.helpers\n\n\ndef test_send(app):\n    flask.serve_from_directory(\"static\", \"hello.txt\", max_age=1)\n    flask.helpers.serve_from_directory(directory=\"s\", path=\"p\")\n"
    );
    assert_eq!(sites(&v, "outside"), ["flask/helpers.py:5"], "{v:#}");
    // A keyword argument follows its function's parameter.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "flask/helpers.py:4:26", "folder"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert!(
        read(dir.path(), "tests/test_helpers.py")
            .contains("serve_from_directory(folder=\"s\", path=\"p\")")
    );
    assert!(read(dir.path(), "flask/helpers.py").contains("def serve_from_directory(folder, path, **kwargs):\n    return werkzeug.utils.send_from_directory(folder, path, **kwargs)"));
}

#[test]
fn typescript_renames_follow_imports_exports_and_scopes() {
    let dir = temp_tree(&[
        (
            "src/cache.ts",
            b"import { EventEmitter } from 'events'\n\nexport class Cache extends EventEmitter {\n  clear(): void {\n    this.clear()\n    this.emit('clear')\n  }\n}\n\nexport function clear(c: Cache, x) {\n  c.clear()\n  x.clear()\n}\n",
        ),
        ("src/index.ts", b"export * from './cache'\n"),
        (
            "src/use.ts",
            b"import type { Cache } from '.'\nimport { clear as wipe } from './cache'\n\nexport function run(cache: Cache) {\n  const clear = 1\n  wipe(cache)\n  return clear\n}\n",
        ),
    ]);
    // The method, by position: its definition, `this.clear()` and `c.clear()` (the parameter
    // is declared a Cache); `x.clear()` on an untyped `x` is unresolved; the function and the
    // local are other symbols.
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "--at",
            "src/cache.ts:4:3",
            "reset",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["src/cache.ts:4", "src/cache.ts:5", "src/cache.ts:11"],
        "{v:#}"
    );
    assert_eq!(sites(&v, "unresolved"), ["src/cache.ts:12"], "{v:#}");
    // The function: its export, and the aliased import in another file (the alias stays).
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/cache.ts:10:17", "wipeAll"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/use.ts"),
        "import type { Cache } from '.'\nimport { wipeAll as wipe } from './cache'\n\nexport function run(cache: Cache) {\n  const clear = 1\n  wipe(cache)\n  return clear\n}\n"
    );
    // The class through `export *` and a type-only import; `EventEmitter` is another package's.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/cache.ts:3:14", "Store", "--dry-run"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        [
            "src/cache.ts:3",
            "src/cache.ts:10",
            "src/use.ts:1",
            "src/use.ts:4"
        ],
        "{v:#}"
    );
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/cache.ts:3:29", "Emitter"],
        b"",
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("imported from the package `events`"),
        "{v:#}"
    );
}

/// A PATH whose `basedpyright-langserver` is the fake server of `tests/suite/lsp/`.
fn fake_server_path(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suite/lsp/fake_langserver.py");
    std::os::unix::fs::symlink(
        fake.canonicalize().unwrap(),
        bin.join("basedpyright-langserver"),
    )
    .unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn lsp_rename_applies_the_servers_edit_as_a_transaction_and_refuses_bad_servers() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let dir = temp_tree(&[("a.py", b"def close():\n    pass\n\n\nclose()\n")]);
    let root = dir.path().to_str().unwrap();
    let run = |mode: &str, edit: &str, extra: &[&str]| {
        let mut args = vec![
            "rename", "-C", root, "--at", "a.py:1:5", "shutdown", "--lsp", "--json",
        ];
        args.extend(extra);
        let out = super::tree::lancet_env(
            &args,
            b"",
            &[
                ("PATH", path.as_str()),
                ("FAKE_LSP", mode),
                ("FAKE_LSP_EDIT", edit),
                ("LANCET_LSP_TIMEOUT", "3"),
            ],
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
        (out.status.code(), v)
    };
    let good = r#"{"changes": {"{ROOT}/a.py": [
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}, "newText": "shutdown"},
        {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 5}}, "newText": "shutdown"}]}}"#;
    // A server that crashes, hangs, says "nothing here", or edits outside the root: refused,
    // nothing written.
    for (mode, edit, says) in [
        ("crash", good, "exited during initialize"),
        (
            "hang",
            good,
            "did not answer textDocument/prepareRename within 3 s",
        ),
        ("null", good, "says `close` at a.py:1:5 cannot be renamed"),
        (
            "ok",
            r#"{"changes": {"file:///etc/passwd": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4}}, "newText": "x"}]}}"#,
            "outside the root",
        ),
        (
            "ok",
            r#"{"documentChanges": [{"kind": "rename", "oldUri": "{ROOT}/a.py", "newUri": "{ROOT}/b.py"}]}"#,
            "lancet renames identifiers only",
        ),
    ] {
        let (code, v) = run(mode, edit, &[]);
        assert_eq!(code, Some(1), "{mode}: {v:#}");
        assert!(
            v["message"].as_str().unwrap().contains(says),
            "{mode}: {v:#}"
        );
        assert_eq!(
            read(dir.path(), "a.py"),
            "def close():\n    pass\n\n\nclose()\n"
        );
    }
    // The server's answer goes through the pipeline: dry run first, then written.
    let (code, v) = run("ok", good, &["--dry-run"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def close():\n    pass\n\n\nclose()\n"
    );
    let (code, v) = run("ok", good, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        v["rename"]["engine"], "lsp:basedpyright-langserver",
        "{v:#}"
    );
    assert_eq!(sites(&v, "renamed"), ["a.py:1", "a.py:5"], "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def shutdown():\n    pass\n\n\nshutdown()\n"
    );
    // No server on PATH, and --lsp without --at.
    let out = super::tree::lancet_env(
        &["rename", "-C", root, "--at", "a.py:1:5", "x", "--lsp"],
        b"",
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pip install basedpyright"),
        "{}",
        describe(&out)
    );
    let out = lancet(&["rename", "-C", root, "shutdown", "x", "--lsp"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn rust_members_are_told_apart_by_their_type_and_locals_by_their_declaration() {
    let dir = temp_tree(&[
        (
            "src/lib.rs",
            b"pub struct A;\npub struct B;\n\nimpl A {\n    pub fn new() -> A { A }\n    pub fn len(&self) -> usize { 1 }\n}\n\nimpl B {\n    pub fn new() -> B { B }\n    pub fn len(&self) -> usize { 2 }\n}\n\nimpl std::fmt::Display for A {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }\n}\n\npub fn run(v: Vec<u8>) -> usize {\n    let a = A::new();\n    let b = B::new();\n    let len = v.len();\n    a.len() + b.len() + len\n}\n",
        ),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "--at",
            "src/lib.rs:6:12",
            "size",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    // A::len and its call through `let a = A::new()`; not B::len, the Vec's len or the local.
    assert_eq!(
        sites(&v, "renamed"),
        ["src/lib.rs:6", "src/lib.rs:22"],
        "{v:#}"
    );
    // The Vec's `len` is the library's: outside, never renamed.
    assert_eq!(sites(&v, "outside"), ["src/lib.rs:21"], "{v:#}");
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/lib.rs:21:9", "n", "--dry-run"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["src/lib.rs:21", "src/lib.rs:22"],
        "{v:#}"
    );
    // `fmt` of `impl Display` is the standard library's trait method.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/lib.rs:15:8", "show"],
        b"",
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("a method of the trait `Display`, outside the tree"),
        "{v:#}"
    );
}

#[test]
fn rust_members_of_two_types_of_one_name_are_left_unresolved() {
    // A test crate wraps the library's type in its own type of the same name.
    let dir = temp_tree(&[
        (
            "src/lib.rs",
            b"pub struct Req;\nimpl Req {\n    pub const STAR: Req = Req;\n}\n",
        ),
        (
            "tests/node.rs",
            b"pub struct Req(lib::Req);\nimpl Req {\n    pub const STAR: Self = Req(lib::Req::STAR);\n}\n",
        ),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "src/lib.rs:3:15", "ANY"],
        b"",
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("2 types of the walked files are named `Req`"),
        "{v:#}"
    );
    assert_eq!(
        read(dir.path(), "tests/node.rs"),
        "pub struct Req(lib::Req);\nimpl Req {\n    pub const STAR: Self = Req(lib::Req::STAR);\n}\n"
    );
}

#[test]
fn a_python_local_assigned_once_from_a_class_call_is_an_instance_of_it() {
    let dir = temp_tree(&[(
        "app.py",
        b"class Pool:\n    def close(self):\n        pass\n\n    def __enter__(self):\n        return self\n\n\ndef run(make):\n    p = Pool()\n    p.close()\n    q = Pool()\n    q = make()\n    q.close()\n    with Pool() as w:\n        w.close()\n",
    )]);
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "--at",
            "app.py:2:9",
            "shutdown",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    // `p` is a Pool; `q` is assigned twice (its type is not known); `w` is what
    // `Pool().__enter__()` returns: `self`.
    assert_eq!(
        sites(&v, "renamed"),
        ["app.py:2", "app.py:11", "app.py:16"],
        "{v:#}"
    );
    assert_eq!(sites(&v, "unresolved"), ["app.py:14"], "{v:#}");
}

#[test]
fn a_qualified_rust_name_picks_the_member_of_its_type() {
    let dir = temp_tree(&[(
        "src/lib.rs",
        b"pub struct A;\npub struct B;\n\nimpl A {\n    pub fn len(&self) -> usize { 1 }\n}\n\nimpl B {\n    pub fn len(&self) -> usize { 2 }\n}\n\npub fn total() -> usize {\n    A.len() + B::len(&B)\n}\n",
    )]);
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--leave-unresolved",
            "crate::B::len",
            "size",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["src/lib.rs:9", "src/lib.rs:13"],
        "{v:#}"
    );
    let (code, v) = run_json(
        dir.path(),
        &["rename", "crate::total", "sum", "--dry-run"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(sites(&v, "renamed"), ["src/lib.rs:12"], "{v:#}");
}

/// A shorthand property is a key and a local in one word: renaming the local expands it, so
/// the object keeps its shape (`{secret}` would otherwise become `{token}`, another object).
#[test]
fn a_shorthand_property_is_expanded_never_renamed_in_place() {
    let tree = temp_tree(&[(
        "a.ts",
        b"export function make(secret: string) {\n  return {secret};\n}\nconst {secret, ...rest} = {secret: 1, b: 2};\nconsole.log(secret, rest);\n",
    )]);
    let (code, v) = run_json(
        tree.path(),
        &[
            "rename",
            "--leave-unresolved",
            "secret",
            "token",
            "--no-checkpoint",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        read(tree.path(), "a.ts"),
        "export function make(token: string) {\n  return {secret: token};\n}\nconst {secret: token, ...rest} = {secret: 1, b: 2};\nconsole.log(token, rest);\n"
    );
}

/// A site lancet cannot decide stops the rename: nothing is written, the sites are listed with
/// kind `unresolved_sites`, and the two switches that proceed are named.
#[test]
fn undecided_sites_stop_the_rename_unless_told_what_to_do_with_them() {
    let tree = temp_tree(&[(
        "a.ts",
        b"export function make(secret: string) {\n  return secret;\n}\nconst o = JSON.parse('{}');\nconsole.log(o.secret);\n",
    )]);
    let before = snapshot(tree.path());
    let (code, v) = run_json(tree.path(), &["rename", "secret", "token"], b"");
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("a.ts:5: console.log(o.secret);"),
        "{message}"
    );
    assert!(message.contains("--include-unresolved") && message.contains("--leave-unresolved"));
    assert_eq!(snapshot(tree.path()), before);
    let (code, v) = run_json(
        tree.path(),
        &[
            "rename",
            "secret",
            "token",
            "--include-unresolved",
            "--dry-run",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(sites(&v, "renamed").len(), 3, "{v}");
    let (code, v) = run_json(
        tree.path(),
        &["rename", "secret", "token", "--leave-unresolved"],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    assert!(read(tree.path(), "a.ts").contains("console.log(o.secret);"));
    // A function by position: `o.secret` (a member access) is never the function, so it does
    // not stop the rename.
    let (code, v) = run_json(tree.path(), &["rename", "--at", "a.ts:1:17", "build"], b"");
    assert_eq!(code, Some(0), "{v}");
}

/// One bare name, definitions in two languages: unrelated symbols, never renamed together.
#[test]
fn a_bare_name_defined_in_two_languages_is_refused() {
    let tree = temp_tree(&[
        ("src/lib.rs", b"pub fn frob() -> u8 {\n    1\n}\n"),
        ("py/x.py", b"def frob():\n    return 1\n\n\nfrob()\n"),
    ]);
    let before = snapshot(tree.path());
    let (code, v) = run_json(tree.path(), &["rename", "frob", "twiddle"], b"");
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "ambiguous", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("py/x.py:1 (python)"),
        "{v}"
    );
    assert_eq!(snapshot(tree.path()), before);
    let (code, v) = run_json(
        tree.path(),
        &["rename", "--at", "py/x.py:1:5", "twiddle"],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    assert!(read(tree.path(), "src/lib.rs").contains("pub fn frob()"));
}

/// A Rust shorthand field names a field and a value at once: the side renamed takes the new
/// name and the other keeps the old one, in expressions and patterns; rustc (when installed)
/// compiles every result.
#[test]
fn a_rust_shorthand_field_is_expanded_on_the_side_renamed() {
    const LIB: &str = "pub struct P {\n    pub major: u64,\n}\n\npub fn make(major: u64) -> P {\n    P { major }\n}\n\npub fn get(p: P) -> u64 {\n    let P { major } = p;\n    major\n}\n";
    let cases = [
        // The parameter: the struct literal keeps its field.
        (
            "src/lib.rs:5:13",
            "pub fn make(maj: u64) -> P {\n    P { major: maj }\n}",
        ),
        // The field: the literal and the pattern keep their locals.
        ("src/lib.rs:2:9", "    let P { maj: major } = p;"),
        // The pattern's local.
        (
            "src/lib.rs:10:13",
            "    let P { major: maj } = p;\n    maj\n",
        ),
    ];
    for (at, expected) in cases {
        let tree = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
        let (code, v) = run_json(tree.path(), &["rename", "--at", at, "maj"], b"");
        assert_eq!(code, Some(0), "{at}: {v}");
        let after = read(tree.path(), "src/lib.rs");
        assert!(after.contains(expected), "{at}:\n{after}");
        let rustc = std::process::Command::new("rustc")
            .args(["--crate-type", "lib", "--edition", "2021", "-o"])
            .arg(tree.path().join("out.rlib"))
            .arg(tree.path().join("src/lib.rs"))
            .output();
        if let Ok(out) = rustc {
            assert!(
                out.status.success(),
                "{at}: rustc rejects\n{after}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// What a type checker reads as code is code to the rename: a string annotation naming the
/// class (`"Formatter"`, `t.Type["Formatter"]`), and a submodule reached as the attribute of a
/// package whose `__init__.py` imports from it (`pkg.errors.Oops`).
#[test]
fn python_forward_references_and_package_attributes_are_code() {
    let tree = temp_tree(&[
        ("pkg/__init__.py", b"from .errors import Oops\n"),
        (
            "pkg/errors.py",
            b"import typing as t\n\n\nclass Oops(Exception):\n    def twin(self) -> \"Oops\":\n        return self\n\n\ndef kinds() -> t.List[t.Type[\"Oops\"]]:\n    return [Oops]\n\n\nMESSAGE = \"Oops, it broke\"\n",
        ),
        (
            "main.py",
            b"import pkg\n\n\ndef fail():\n    raise pkg.errors.Oops()\n",
        ),
    ]);
    let (code, v) = run_json(tree.path(), &["rename", "Oops", "Failure"], b"");
    assert_eq!(code, Some(0), "{v}");
    let errors = read(tree.path(), "pkg/errors.py");
    assert!(
        errors.contains("def twin(self) -> \"Failure\":"),
        "{errors}"
    );
    assert!(errors.contains("t.Type[\"Failure\"]"), "{errors}");
    // A string that is not an annotation stays prose.
    assert!(errors.contains("MESSAGE = \"Oops, it broke\""), "{errors}");
    assert!(read(tree.path(), "main.py").contains("raise pkg.errors.Failure()"));
    assert!(read(tree.path(), "pkg/__init__.py").contains("from .errors import Failure"));
}

/// rustc's verdict on a one-file library crate, when rustc is on PATH.
fn rustc_accepts(dir: &Path, file: &str) -> Result<(), String> {
    let Ok(out) = std::process::Command::new("rustc")
        .args([
            "--crate-type",
            "lib",
            "--edition",
            "2021",
            "--emit",
            "metadata",
            "-o",
        ])
        .arg(dir.join("out.rmeta"))
        .arg(dir.join(file))
        .output()
    else {
        return Ok(());
    };
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const LOGGER_RS: &str = "\
pub trait Log {
    fn log(&self, msg: &str);
}

pub struct Config {
    pub level: u32,
}

impl Config {
    pub fn level(&self) -> u32 {
        self.level
    }
}

pub struct Logger {
    config: Config,
    sink: Box<Config>,
}

impl Logger {
    pub fn level(&self) -> u32 {
        self.config.level() + self.sink.level
    }
}

impl Log for Logger {
    fn log(&self, msg: &str) {
        let _ = msg.len();
    }
}

pub fn emit<L: Log>(logger: &L) {
    logger.log(\"a\");
}

pub fn emit_where<L>(logger: &L)
where
    L: Log + ?Sized,
{
    logger.log(\"b\");
}

pub fn emit_dyn(logger: &dyn Log, boxed: Box<dyn Log>) {
    logger.log(\"c\");
    boxed.log(\"d\");
}

pub fn compare(lhs: &str, rhs: &str) -> bool {
    let check = |n: usize| n == lhs.len();
    check(rhs.len())
}

pub fn local_use() -> usize {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = s.write_str(\"a\");
    s.len()
}

pub trait Write {
    fn flush_all(&mut self);
}

impl Write for Config {
    fn flush_all(&mut self) {}
}

pub fn flush(c: &mut Config) {
    Write::flush_all(c);
}

pub mod identifier {
    pub struct Identifier;
}

pub fn identifier() -> identifier::Identifier {
    identifier::Identifier
}

#[test]
fn test() {
    assert_eq!(identifier().len_of(), 0);
}

trait LenOf {
    fn len_of(&self) -> usize;
}

impl LenOf for identifier::Identifier {
    fn len_of(&self) -> usize {
        0
    }
}
";

/// The resolution gaps real crates showed, each renamed and checked by rustc: a closure sees
/// its function's parameters; a trait method is reached through a generic bound, a `where`
/// clause, `&dyn` and `Box<dyn>`; a field's declared type types its receiver (`self.config.
/// level()`); a field and a method of one name are two symbols; a `use` inside one function
/// reaches that function only; a module and a function of one name are two items; `#[test]`
/// names no item of the tree.
#[test]
fn rust_renames_resolve_through_closures_bounds_fields_and_namespaces() {
    let cases: &[(&str, &str, &[&str], &[&str])] = &[
        // (at, new, present after, absent after)
        (
            "src/lib.rs:48:16",
            "left",
            &["pub fn compare(left: &str", "n == left.len()"],
            &["lhs"],
        ),
        (
            "src/lib.rs:2:8",
            "record",
            &[
                "fn record(&self, msg: &str);",
                "logger.record(\"a\")",
                "logger.record(\"b\")",
                "logger.record(\"c\")",
                "boxed.record(\"d\")",
            ],
            &[".log(", "fn log"],
        ),
        (
            "src/lib.rs:6:9",
            "threshold",
            &[
                "pub threshold: u32",
                "self.threshold\n",
                "self.sink.threshold",
            ],
            &["self.config.threshold"],
        ),
        (
            "src/lib.rs:10:12",
            "current",
            &[
                "pub fn current(&self)",
                "self.config.current()",
                "pub fn level(&self)",
            ],
            &["self.current\n"],
        ),
        (
            "src/lib.rs:60:11",
            "Sink",
            &[
                "pub trait Sink {",
                "impl Sink for Config",
                "Sink::flush_all(c)",
            ],
            &["trait Write", "Write for"],
        ),
        (
            "src/lib.rs:76:8",
            "make_identifier",
            &[
                "pub fn make_identifier() -> identifier::Identifier",
                "make_identifier().len_of()",
                "pub mod identifier {",
            ],
            &["fn identifier()"],
        ),
        (
            "src/lib.rs:81:4",
            "smoke",
            &["fn smoke() {", "#[test]"],
            &["fn test()"],
        ),
        // A parameter of a trait method's signature: its own local, not the impl's.
        (
            "src/lib.rs:2:19",
            "text",
            &["fn log(&self, text: &str);", "fn log(&self, msg: &str) {"],
            &[],
        ),
    ];
    for (at, new, present, absent) in cases {
        let tree = temp_tree(&[("src/lib.rs", LOGGER_RS.as_bytes())]);
        rustc_accepts(tree.path(), "src/lib.rs").expect("the crate compiles before");
        let (code, v) = run_json(tree.path(), &["rename", "--at", at, new], b"");
        assert_eq!(code, Some(0), "{at}: {v}");
        let after = read(tree.path(), "src/lib.rs");
        for p in *present {
            assert!(after.contains(p), "{at}: `{p}` missing\n{after}");
        }
        for a in *absent {
            assert!(!after.contains(a), "{at}: `{a}` left\n{after}");
        }
        if let Err(e) = rustc_accepts(tree.path(), "src/lib.rs") {
            panic!("{at}: rustc rejects the renamed crate\n{after}\n{e}");
        }
    }
}

/// A field of an enum variant is not renamed by name: `--at` says so, not "no match".
#[test]
fn an_enum_variant_field_by_position_says_what_is_unsupported() {
    let tree = temp_tree(&[(
        "src/lib.rs",
        b"pub enum Shape {\n    Circle { radius: f64 },\n}\n\npub fn r(s: &Shape) -> f64 {\n    match s {\n        Shape::Circle { radius } => *radius,\n    }\n}\n",
    )]);
    let before = snapshot(tree.path());
    let (code, v) = run_json(
        tree.path(),
        &["rename", "--at", "src/lib.rs:2:16", "r"],
        b"",
    );
    assert_eq!(code, Some(1), "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("a field of the enum variant `Circle`"),
        "{message}"
    );
    assert!(message.contains("--lsp"), "{message}");
    assert_eq!(snapshot(tree.path()), before);
}

/// A class's `#private` member renames inside its class (and not a public `count` elsewhere);
/// a regex literal is listed with the strings; an object type's property by position says
/// what is unsupported; a name whose every site is undecided says so, not "no identifier".
#[test]
fn typescript_private_members_regexes_and_undecidable_properties() {
    const A_TS: &str = "export class Counter {\n  #count = 0;\n  count = 1;\n  inc(): number {\n    this.#count += this.count;\n    return this.#count;\n  }\n}\ntype Options = { timeout: number };\nexport function wait(o: Options): number {\n  const re = /timeout/;\n  return re.test(\"x\") ? o.timeout : 0;\n}\n";
    let tree = temp_tree(&[("a.ts", A_TS.as_bytes())]);
    let (code, v) = run_json(tree.path(), &["rename", "--at", "a.ts:2:4", "total"], b"");
    assert_eq!(code, Some(0), "{v}");
    let after = read(tree.path(), "a.ts");
    assert!(after.contains("  #total = 0;\n  count = 1;"), "{after}");
    assert!(after.contains("this.#total += this.count;"), "{after}");
    assert!(after.contains("return this.#total;"), "{after}");

    let tree = temp_tree(&[("a.ts", A_TS.as_bytes())]);
    let before = snapshot(tree.path());
    let (code, v) = run_json(tree.path(), &["rename", "timeout", "limit"], b"");
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("2 site(s) spelled `timeout` could not be decided"),
        "{message}"
    );
    assert!(!message.contains("no identifier"), "{message}");
    let mentions = v["rename"]["mentions"].as_array().unwrap();
    assert!(
        mentions
            .iter()
            .any(|m| m["line"] == 11 && m["context"] == "string"),
        "the regex is listed with the strings: {v}"
    );
    let (code, v) = run_json(tree.path(), &["rename", "--at", "a.ts:9:18", "limit"], b"");
    assert_eq!(code, Some(1), "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("is a property of an object type") && message.contains("--lsp"),
        "{message}"
    );
    assert_ne!(v["error"]["kind"], "no_match", "{v}");
    assert_eq!(snapshot(tree.path()), before);
}

/// NEW as another class's method merges with nothing when a module function takes the name;
/// NEW as a module function in the same file still does.
#[test]
fn name_in_use_only_where_the_names_would_merge() {
    const M_PY: &str = "def total(items):\n    return sum(items)\n\n\nclass Other:\n    def grand(self):\n        return 1\n\n\ndef use():\n    return total([1]) + Other().grand()\n";
    let tree = temp_tree(&[("m.py", M_PY.as_bytes())]);
    let (code, v) = run_json(tree.path(), &["rename", "total", "grand"], b"");
    assert_eq!(code, Some(0), "{v}");
    let after = read(tree.path(), "m.py");
    assert!(
        after.contains("def grand(items):")
            && after.contains("return grand([1]) + Other().grand()")
    );
    let clash = format!("{M_PY}\n\ndef grand():\n    return 2\n");
    let tree = temp_tree(&[("m.py", clash.as_bytes())]);
    let (code, v) = run_json(tree.path(), &["rename", "total", "grand"], b"");
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "name_in_use", "{v}");
}

/// A macro's own words (`logger:` in its matcher and its calls) and a local bound among its
/// tokens (`m!({ let logger = …; logger })`) are not the function `logger`; rustc checks.
#[test]
fn rust_macro_words_and_token_locals_are_not_the_item() {
    const LIB: &str = "pub fn logger() -> u32 {\n    7\n}\n\nmacro_rules! show {\n    (logger: $l:expr) => {\n        $l + $crate::logger()\n    };\n}\n\npub fn a() -> u32 {\n    show!(logger: logger())\n}\n\npub fn b() -> u32 {\n    show!(logger: {\n        let logger = 1;\n        logger\n    })\n}\n";
    let tree = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
    let (code, v) = run_json(
        tree.path(),
        &["rename", "--at", "src/lib.rs:1:8", "sink"],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    let after = read(tree.path(), "src/lib.rs");
    assert!(after.contains("pub fn sink() -> u32"), "{after}");
    assert!(
        after.contains("(logger: $l:expr) => {\n        $l + $crate::sink()"),
        "{after}"
    );
    assert!(after.contains("show!(logger: sink())"), "{after}");
    assert!(
        after.contains("let logger = 1;\n        logger\n"),
        "{after}"
    );
    if let Err(e) = rustc_accepts(tree.path(), "src/lib.rs") {
        panic!("rustc rejects the renamed crate\n{after}\n{e}");
    }
}

/// A module reached through `sys.path` (`import toolmod` after `sys.path.insert(0, "tools")`)
/// may be the tree's own `tools/toolmod.py`: its uses are undecided, never another package's.
#[test]
fn a_module_named_like_a_file_of_the_tree_is_never_outside() {
    let tree = temp_tree(&[
        ("tools/toolmod.py", b"def make_thing():\n    return 3\n"),
        (
            "tests/test_b.py",
            b"import sys\n\nsys.path.insert(0, \"tools\")\nimport toolmod\n\n\ndef test_b():\n    assert toolmod.make_thing() == 3\n",
        ),
    ]);
    let before = snapshot(tree.path());
    let (code, v) = run_json(
        tree.path(),
        &["rename", "--at", "tools/toolmod.py:1:5", "build_thing"],
        b"",
    );
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v}");
    assert_eq!(sites(&v, "unresolved"), ["tests/test_b.py:8"], "{v}");
    assert_eq!(snapshot(tree.path()), before);
}

/// A function's local is seen in its own file only: a site of its spelling elsewhere (another
/// crate's path, a lifetime) does not stop its rename, and a lifetime is never renamed.
#[test]
fn a_local_is_undecided_only_in_its_own_file() {
    let tree = temp_tree(&[
        (
            "src/lib.rs",
            b"pub fn f<'kvs>(kvs: &'kvs str) -> usize {\n    kvs.len()\n}\n",
        ),
        (
            "src/other.rs",
            b"pub fn g() -> u32 {\n    kvs::count()\n}\n",
        ),
    ]);
    let (code, v) = run_json(
        tree.path(),
        &["rename", "--at", "src/lib.rs:1:16", "pairs"],
        b"",
    );
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        read(tree.path(), "src/lib.rs"),
        "pub fn f<'kvs>(pairs: &'kvs str) -> usize {\n    pairs.len()\n}\n"
    );
    assert!(read(tree.path(), "src/other.rs").contains("kvs::count()"));
}

/// A trait's method implemented for a type with an inherent method of the same name: two
/// symbols (`impl Log for File { fn write }` is `Log::write`); a loop label is never the
/// module of its name. rustc checks each.
#[test]
fn rust_trait_impl_methods_and_labels_are_their_own() {
    const LIB: &str = "pub trait Log {\n    fn write(&self) -> u8;\n}\npub struct File;\nimpl File {\n    pub fn write(&self) -> u32 {\n        3\n    }\n}\nimpl Log for File {\n    fn write(&self) -> u8 {\n        1\n    }\n}\npub fn b<L: Log>(l: &L) -> u8 {\n    l.write()\n}\npub fn c(f: &File) -> u32 {\n    f.write()\n}\npub mod util {\n    pub fn f() -> u8 {\n        1\n    }\n}\npub fn h() {\n    'util: loop {\n        break 'util;\n    }\n}\n";
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "src/lib.rs:2:8",
            "emit",
            &[
                "fn emit(&self) -> u8;",
                "fn emit(&self) -> u8 {",
                "l.emit()",
                "pub fn write(&self) -> u32",
                "f.write()",
            ],
        ),
        (
            "src/lib.rs:6:12",
            "put",
            &[
                "pub fn put(&self) -> u32",
                "f.put()",
                "fn write(&self) -> u8 {",
                "l.write()",
            ],
        ),
        (
            "src/lib.rs:21:9",
            "tool",
            &["pub mod tool {", "'util: loop", "break 'util;"],
        ),
    ];
    for (at, new, present) in cases {
        let tree = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
        let (code, v) = run_json(tree.path(), &["rename", "--at", at, new], b"");
        assert_eq!(code, Some(0), "{at}: {v}");
        let after = read(tree.path(), "src/lib.rs");
        for p in *present {
            assert!(after.contains(p), "{at}: `{p}` missing\n{after}");
        }
        if let Err(e) = rustc_accepts(tree.path(), "src/lib.rs") {
            panic!("{at}: rustc rejects the renamed crate\n{after}\n{e}");
        }
    }
}
