//! `lancet rename` and batch input at scale through the CLI, where one run's report and tree
//! cannot say it: a rename then its undo, the language-server rename, renames rustc checks, and
//! batches of 2,000 files or JSON lines. Every rename checked by one run (exit code, the tree
//! after, the report) is a scenario under `fixtures/rename/` (fixtures/README.md).

use super::tree::{describe, lancet, read, snapshot, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec![args[0], "-C", root.to_str().unwrap(), "--json"];
    all.extend(&args[1..]);
    let out = lancet(&all, stdin);
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
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
fn a_rename_is_undone_like_any_batch() {
    // The rename itself is fixtures/rename/001; its checkpoint makes it undoable like any batch.
    let dir = temp_tree(&[
        ("shop.py", SHOP_PY.as_bytes()),
        ("main.py", MAIN_PY.as_bytes()),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "total", "sum_prices", "--all-definitions"],
        b"",
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert!(v["checkpoint"].is_string(), "{v:#}");
    assert!(read(dir.path(), "shop.py").contains("def sum_prices(items):"));
    let (code, v) = run_json(dir.path(), &["undo"], b"");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "shop.py"), SHOP_PY);
    assert_eq!(read(dir.path(), "main.py"), MAIN_PY);
}

/// `rename OLD NEW .` and `./` walk the root itself (issue #41: refused as an unsafe path).
#[test]
fn a_dot_path_renames_across_the_whole_root() {
    for dot in [".", "./"] {
        let dir = temp_tree(&[
            ("shop.py", SHOP_PY.as_bytes()),
            ("main.py", MAIN_PY.as_bytes()),
        ]);
        let (code, v) = run_json(
            dir.path(),
            &["rename", "total", "sum_prices", "--all-definitions", dot],
            b"",
        );
        assert_eq!(code, Some(0), "{dot}: {v:#}");
        assert!(read(dir.path(), "shop.py").contains("def sum_prices(items):"));
        assert!(read(dir.path(), "main.py").contains("shop.sum_prices([])"));
    }
}

/// `--at` names OLD by position: a person who also types OLD gets NEW taken for OLD, and is
/// told to leave OLD out.
#[test]
fn at_with_old_typed_too_says_to_leave_old_out() {
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes())]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "shop.py:4:5", "total", "sum_prices"],
        b"",
    );
    assert_eq!(code, Some(2), "{v:#}");
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("with --at, OLD is left out"), "{v:#}");
    assert!(
        message.contains("lancet rename --at PATH:LINE:COL sum_prices"),
        "{v:#}"
    );
    // OLD mistyped: it is taken for NEW, and the real NEW for a path that is not there.
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--at", "shop.py:4:5", "totl", "sum_prices"],
        b"",
    );
    assert_eq!(code, Some(2), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("`totl` was taken for NEW and `sum_prices` for a path"),
        "{v:#}"
    );
    assert_eq!(read(dir.path(), "shop.py"), SHOP_PY);
}

fn sites(v: &serde_json::Value, list: &str) -> Vec<String> {
    v["rename"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}:{}", s["path"].as_str().unwrap(), s["line"]))
        .collect()
}

/// A PATH whose `basedpyright-langserver` is the fake server of `tests/suite/lsp/`.
fn fake_server_path(dir: &Path) -> String {
    fake_server_path_as(dir, "basedpyright-langserver")
}

/// A PATH whose `name` is the fake server of `tests/suite/lsp/`.
pub(super) fn fake_server_path_as(dir: &Path, name: &str) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suite/lsp/fake_langserver.py");
    std::os::unix::fs::symlink(fake.canonicalize().unwrap(), bin.join(name)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// `lancet ARGS` (a `rename --lsp --json`) with the fake server on `path`, behaving as `mode`
/// says and answering `edit`, given 3 s: the exit code and the report.
fn by_fake_server(
    args: &[&str],
    path: &str,
    mode: &str,
    edit: &str,
) -> (Option<i32>, serde_json::Value) {
    let out = super::tree::lancet_env(
        args,
        b"",
        &[
            ("PATH", path),
            ("FAKE_LSP", mode),
            ("FAKE_LSP_EDIT", edit),
            ("LANCET_LSP_TIMEOUT", "3"),
        ],
    );
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    (out.status.code(), v)
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
        by_fake_server(&args, &path, mode, edit)
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
    // A server still loading the project (ContentModified) is asked again until it answers.
    let (code, v) = run("loading", good, &["--dry-run"]);
    assert_eq!(code, Some(0), "{v:#}");
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
    // The server's answer names its definitions too (#38): kind, path and line.
    assert_eq!(
        v["rename"]["definitions"],
        serde_json::json!([{"path": "a.py", "line": 1, "kind": "function"}]),
        "{v:#}"
    );
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
        String::from_utf8_lossy(&out.stdout).contains("pip install basedpyright"),
        "{}",
        describe(&out)
    );
    let out = lancet(&["rename", "-C", root, "shutdown", "x", "--lsp"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

/// A special name is refused before any server is looked for: the server's rename would leave
/// what the interpreter calls by that name as much as lancet's.
#[test]
fn lsp_rename_to_a_special_name_is_refused_before_any_server_is_looked_for() {
    let dir = temp_tree(&[("a.py", b"def close():\n    pass\n\n\nclose()\n")]);
    let root = dir.path().to_str().unwrap();
    let out = super::tree::lancet_env(
        &[
            "rename",
            "-C",
            root,
            "--at",
            "a.py:1:5",
            "__close__",
            "--lsp",
        ],
        b"",
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("NEW `__close__` is a special name in Python"),
        "{}",
        describe(&out)
    );
}

/// basedpyright's rename leaves a string Python reads as the attribute's name
/// (`getattr(p, "cents")`) as lancet's own rename would, and the program would raise
/// AttributeError after an exit 0: the `--lsp` rename refuses it before any server is asked,
/// renames it beside the server's edit with `--include-strings` (with every other string
/// mention, as the switch says; mentions, not sites), and leaves it with `--leave-unresolved`.
#[test]
fn lsp_rename_refuses_renames_or_leaves_a_string_python_reads_as_the_attribute() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before = "class P:\n    cents = 1\n\n\nprint(getattr(P(), \"cents\"), 'cents')\n";
    let dir = temp_tree(&[("a.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/a.py": [
        {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 9}}, "newText": "amount"}]}}"#;
    let run = |extra: &[&str]| {
        let mut args = vec![
            "rename", "-C", root, "--at", "a.py:2:5", "amount", "--lsp", "--json",
        ];
        args.extend(extra);
        by_fake_server(&args, &path, "ok", edit)
    };
    let (code, v) = run(&[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("a.py:5 (getattr(…, \"cents\"))"),
        "{v:#}"
    );
    assert_eq!(read(dir.path(), "a.py"), before);
    let (code, v) = run(&["--include-strings"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "class P:\n    amount = 1\n\n\nprint(getattr(P(), \"amount\"), 'amount')\n"
    );
    assert_eq!(sites(&v, "renamed"), ["a.py:2"], "{v:#}");
    assert_eq!(sites(&v, "mentions"), ["a.py:5", "a.py:5"], "{v:#}");
    assert_eq!(v["rename"]["mentions"][0]["renamed"], true, "{v:#}");
    std::fs::write(dir.path().join("a.py"), before).unwrap();
    let (code, v) = run(&["--leave-unresolved"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "class P:\n    amount = 1\n\n\nprint(getattr(P(), \"cents\"), 'cents')\n"
    );
    assert_eq!(v["rename"]["mentions"][0]["renamed"], false, "{v:#}");
}

/// basedpyright's rename leaves a docstring's doctest (`>>> close()`), which `pytest
/// --doctest-modules` runs: the `--lsp` rename adds lancet's own decision there, as it does for
/// Rust's doctests, and marks the site.
#[test]
fn lsp_rename_renames_a_python_doctest_the_server_leaves() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before = "def close():\n    \"\"\"Close.\n\n    >>> close()\n    \"\"\"\n\n\nclose()\n";
    let dir = temp_tree(&[("a.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/a.py": [
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}, "newText": "shutdown"},
        {"range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 5}}, "newText": "shutdown"}]}}"#;
    let args = [
        "rename", "-C", root, "--at", "a.py:1:5", "shutdown", "--lsp", "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", edit);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def shutdown():\n    \"\"\"Close.\n\n    >>> shutdown()\n    \"\"\"\n\n\nshutdown()\n"
    );
    assert_eq!(
        sites(&v, "renamed"),
        ["a.py:1", "a.py:4", "a.py:8"],
        "{v:#}"
    );
    assert_eq!(v["rename"]["renamed"][1]["doctest"], true, "{v:#}");
}

/// A doctest lancet cannot decide refuses a Python `--lsp` rename whatever `--include-comments`
/// says, and the refusal lists the comment's mention as left: lancet's one scan of the name
/// serves the mentions (renamed as the flags say) and the doctests (a refusal renames nothing).
#[test]
fn lsp_rename_refusing_a_python_doctest_lists_its_mentions_as_left() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before = "class Door:\n    def close(self):\n        \"\"\"Close.\n\n        >>> thing.close()\n        \"\"\"\n\n\n# close the door\nDoor().close()\n";
    let dir = temp_tree(&[("a.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/a.py": [
        {"range": {"start": {"line": 1, "character": 8}, "end": {"line": 1, "character": 13}}, "newText": "shut"},
        {"range": {"start": {"line": 9, "character": 7}, "end": {"line": 9, "character": 12}}, "newText": "shut"}]}}"#;
    let args = [
        "rename",
        "-C",
        root,
        "--at",
        "a.py:2:9",
        "shut",
        "--lsp",
        "--include-comments",
        "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", edit);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(read(dir.path(), "a.py"), before);
    assert_eq!(sites(&v, "unresolved"), ["a.py:5"], "{v:#}");
    let mentions = v["rename"]["mentions"].as_array().unwrap();
    assert_eq!(mentions.len(), 1, "{v:#}");
    assert_eq!(mentions[0]["line"], 9, "{v:#}");
    assert_eq!(mentions[0]["renamed"], false, "{v:#}");
}

/// `--include-strings` beside a server's rename of a Python local renames the strings in the
/// local's scope only, as lancet's own rename does: a string in another function that spells
/// the same word is another thing.
#[test]
fn lsp_rename_of_a_python_local_renames_only_the_strings_in_its_scope() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before = "def area(side):\n    print(\"side is\", side)\n    return side * side\n\n\ndef label():\n    return \"side\"\n";
    let dir = temp_tree(&[("a.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let range = |line: u32, from: u32| {
        format!(
            r#"{{"range": {{"start": {{"line": {line}, "character": {from}}}, "end": {{"line": {line}, "character": {}}}}}, "newText": "edge"}}"#,
            from + 4
        )
    };
    let edit = format!(
        r#"{{"changes": {{"{{ROOT}}/a.py": [{}, {}, {}, {}]}}}}"#,
        range(0, 9),
        range(1, 21),
        range(2, 11),
        range(2, 18)
    );
    let args = [
        "rename",
        "-C",
        root,
        "--at",
        "a.py:1:10",
        "edge",
        "--lsp",
        "--include-strings",
        "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", &edit);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.py"),
        "def area(edge):\n    print(\"edge is\", edge)\n    return edge * edge\n\n\ndef label():\n    return \"side\"\n"
    );
    let mentions = v["rename"]["mentions"].as_array().unwrap();
    assert_eq!(mentions.len(), 1, "{v:#}");
}

/// A parameter some call passes an unpacked mapping to (`area(**kw)`) refuses beside a server's
/// rename as without one: basedpyright's rename leaves the mapping's key too.
#[test]
fn lsp_rename_of_a_python_parameter_refuses_a_call_unpacking_unread_keywords() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before =
        "def area(w, h):\n    return w * h\n\n\nkw = dict(w=1, h=1)\nassert area(**kw) == 1\n";
    let dir = temp_tree(&[("m.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/m.py": [
        {"range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 10}}, "newText": "width"},
        {"range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 12}}, "newText": "width"}]}}"#;
    let args = [
        "rename",
        "-C",
        root,
        "--at",
        "m.py:1:10",
        "width",
        "--lsp",
        "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", edit);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("m.py:6 (area(**kw))"), "{v:#}");
    assert_eq!(read(dir.path(), "m.py"), before);
}

/// A method that may override one of a base outside the tree (`threading.Thread.run`) refuses
/// with `--lsp` too: the server renames the one method, and the thread would run the base's.
#[test]
fn lsp_rename_of_a_method_a_base_outside_the_tree_may_call_refuses() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before =
        "import threading\n\n\nclass Worker(threading.Thread):\n    def run(self):\n        pass\n";
    let dir = temp_tree(&[("m.py", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/m.py": [
        {"range": {"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 11}}, "newText": "go"}]}}"#;
    let args = [
        "rename", "-C", root, "--at", "m.py:5:9", "go", "--lsp", "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", edit);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("m.py:5 (base `threading.Thread`)"), "{v:#}");
    assert_eq!(read(dir.path(), "m.py"), before);
}

/// A quoted key the server's rename reaches (typescript-language-server renames the key of
/// `o["kind"]`) is a site of the rename, as lancet's own reads it; the text beside it (`" kind"`)
/// is a mention left as it stands: the report says what the tree now holds.
#[test]
fn lsp_rename_lists_a_quoted_key_the_server_renamed_as_a_site() {
    let tools = tempfile::tempdir().unwrap();
    // The server copied (not linked) beside a TypeScript, which lancet finds from the server's
    // own place, outside the root.
    let bin = tools.path().join("bin");
    let tsserver = tools.path().join("node_modules/typescript/lib");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&tsserver).unwrap();
    std::fs::write(tsserver.join("tsserver.js"), "").unwrap();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suite/lsp/fake_langserver.py");
    std::fs::copy(fake, bin.join("typescript-language-server")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let before = "interface Op {\n  kind: string;\n}\nexport function label(o: Op): string {\n  return o[\"kind\"] + \" kind\";\n}\n";
    let dir = temp_tree(&[("a.ts", before.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let edit = r#"{"changes": {"{ROOT}/a.ts": [
        {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 6}}, "newText": "type"},
        {"range": {"start": {"line": 4, "character": 12}, "end": {"line": 4, "character": 16}}, "newText": "type"}]}}"#;
    let args = [
        "rename", "-C", root, "--at", "a.ts:2:3", "type", "--lsp", "--json",
    ];
    let (code, v) = by_fake_server(&args, &path, "ok", edit);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.ts"),
        before
            .replace("kind:", "type:")
            .replace("[\"kind\"]", "[\"type\"]")
    );
    // The key the server renamed is a site; the text it left (" kind") a mention, not renamed.
    let renamed: Vec<(u64, u64)> = v["rename"]["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(renamed, [(2, 3), (5, 13)], "{v:#}");
    let mentions: Vec<bool> = v["rename"]["mentions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["renamed"].as_bool().unwrap())
        .collect();
    assert_eq!(mentions, [false], "{v:#}");
}

/// A site lancet's own resolver reads as the symbol and the server's rename leaves: the two
/// disagree, so the rename is refused, listed, unless `--include-unresolved` renames it (lancet's
/// reading) or `--leave-unresolved` leaves it (the server's).
#[test]
fn lsp_rename_refuses_where_the_server_leaves_a_site_lancet_reads_as_the_symbol() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path(tools.path());
    let before = "def close():\n    pass\n\n\nclose()\nclose()\n";
    let edit = r#"{"changes": {"{ROOT}/a.py": [
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}, "newText": "shut"},
        {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 5}}, "newText": "shut"}]}}"#;
    for (more, code, after) in [
        (None, 1, before.to_string()),
        (
            Some("--include-unresolved"),
            0,
            before.replace("close", "shut"),
        ),
        (
            Some("--leave-unresolved"),
            0,
            "def shut():\n    pass\n\n\nshut()\nclose()\n".to_string(),
        ),
    ] {
        let dir = temp_tree(&[("a.py", before.as_bytes())]);
        let root = dir.path().to_str().unwrap();
        let mut args = vec![
            "rename", "-C", root, "--at", "a.py:1:5", "shut", "--lsp", "--json",
        ];
        args.extend(more);
        let (exit, v) = by_fake_server(&args, &path, "ok", edit);
        assert_eq!(exit, Some(code), "{more:?}: {v:#}");
        assert_eq!(read(dir.path(), "a.py"), after, "{more:?}");
        if more.is_none() {
            assert_eq!(sites(&v, "unresolved"), ["a.py:6"], "{v:#}");
            let message = v["message"].as_str().unwrap();
            assert!(
                message
                    .contains("rename leaves the sites lancet's own resolver reads as this symbol"),
                "{message}"
            );
        }
    }
}

/// rust-analyzer answers a rename while its workspace still loads, from what it has loaded
/// (sites inside `assert_eq!` are missing until the standard library is): lancet asks for its
/// status and renames only once it says it is quiescent.
#[test]
fn lsp_rename_waits_until_rust_analyzer_has_loaded_the_workspace() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path_as(tools.path(), "rust-analyzer");
    let dir = temp_tree(&[("src/lib.rs", b"pub fn close() {}\n")]);
    let edit = r#"{"changes": {"{ROOT}/src/lib.rs": [
        {"range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 12}}, "newText": "shutdown"}]}}"#;
    let out = super::tree::lancet_env(
        &[
            "rename",
            "-C",
            dir.path().to_str().unwrap(),
            "--at",
            "src/lib.rs:1:8",
            "shutdown",
            "--lsp",
        ],
        b"",
        &[
            ("PATH", path.as_str()),
            ("FAKE_LSP", "status"),
            ("FAKE_LSP_EDIT", edit),
            ("LANCET_LSP_TIMEOUT", "20"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(read(dir.path(), "src/lib.rs"), "pub fn shutdown() {}\n");
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

/// rustc's verdict on a one-file library crate, when rustc is on PATH.
fn rustc_accepts(dir: &Path, file: &str) -> Result<(), String> {
    super::tree::verdict(
        std::process::Command::new("rustc")
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
            .arg(dir.join(file)),
    )
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

/// A rename for an agent (`--brief`): its summary line stays under 200 characters however
/// many definitions there are (they are named on a line of their own), the mentions left alone are one line per file with their line
/// numbers (the first few), the files are named once (by the summary, with a few chunks each),
/// and the whole is far shorter than the full report; the JSON keeps every site.
#[test]
fn brief_rename_caps_what_it_lists_and_keeps_its_summary_line_short() {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..12 {
        let mut text =
            format!("def total(x):\n    \"\"\"total of module {i}\"\"\"\n    return x\n\n");
        for j in 0..10 {
            text.push_str(&format!(
                "v{j} = total({j})  # the total {j}\nlabel{j} = \"total\"\n"
            ));
        }
        files.push((
            format!("package_with_a_long_name/module_number_{i:02}.py"),
            text.into_bytes(),
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_slice()))
        .collect();
    let dir = temp_tree(&refs);
    let root = dir.path().to_str().unwrap();
    let args = [
        "rename",
        "-C",
        root,
        "--dry-run",
        "total",
        "amount",
        "--all-definitions",
    ];
    let full = lancet(&args, b"");
    assert_eq!(full.status.code(), Some(0), "{}", describe(&full));
    let mut brief_args = args.to_vec();
    brief_args.push("--brief");
    let brief = lancet(&brief_args, b"");
    assert_eq!(brief.status.code(), Some(0), "{}", describe(&brief));
    let text = String::from_utf8_lossy(&brief.stdout).into_owned();

    let summary = text
        .lines()
        .find(|l| l.starts_with("Rename `total`"))
        .unwrap();
    assert!(
        summary.len() < 200,
        "{} characters: {summary}",
        summary.len()
    );
    // Every definition is named, on a line of its own when the summary has no room (#38).
    assert!(
        summary.contains("Defined at 12 place(s), listed below."),
        "{summary}"
    );
    assert!(
        text.contains(
            "Definitions (12): function package_with_a_long_name/module_number_00.py:1, function"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "package_with_a_long_name/module_number_00.py: line(s) 2, 5, 6, 7, 8 and 16 more"
        ),
        "{text}"
    );
    assert!(
        text.contains("... and 4 more file(s) (--json lists all)"),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("M ")),
        "the summary names the files once: {text}"
    );
    assert!(
        text.contains("and 7 more chunk(s)]"),
        "the Applied line counts the rest: {text}"
    );
    let applied = text.lines().find(|l| l.starts_with("Dry run")).unwrap();
    assert!(
        applied.len() < 300 && applied.contains("more operation(s) (--json lists every one)"),
        "{} characters: {applied}",
        applied.len()
    );
    let full_text = String::from_utf8_lossy(&full.stdout);
    assert!(
        text.len() * 2 < full_text.len(),
        "brief {} bytes, full {} bytes",
        text.len(),
        full_text.len()
    );
    let (_, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--dry-run",
            "--brief",
            "total",
            "amount",
            "--all-definitions",
        ],
        b"",
    );
    assert_eq!(v["rename"]["mentions"].as_array().unwrap().len(), 12 * 21);
}
