//! Issue #38, "Renames that finish": the shapes a rename once wrote wrong with exit 0, where one
//! run's report cannot show it (a workspace link, a compiler's verdict); the others are
//! scenarios under `fixtures/rename/`.

use super::tree::{read, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    super::tree::run_json(root, args[0], &args[1..])
}

/// A TypeScript monorepo: `packages/b` imports `@demo/a`, which is `packages/a` through the
/// workspace's link in `node_modules` (no package.json names it, no tsconfig maps it). The
/// importer is the tree, renamed with the definition.
#[test]
fn a_workspace_package_reached_through_its_node_modules_link_is_renamed() {
    let dir = temp_tree(&[
        (".gitignore", b"node_modules/\n"),
        ("packages/a/index.ts", b"export function makeThing() {}\n"),
        (
            "packages/b/src/index.ts",
            b"import { makeThing } from '@demo/a';\nexport const x = makeThing();\n",
        ),
    ]);
    std::fs::create_dir_all(dir.path().join("node_modules/@demo")).unwrap();
    std::os::unix::fs::symlink("../../packages/a", dir.path().join("node_modules/@demo/a"))
        .unwrap();
    let (code, v) = run_json(dir.path(), &["rename", "makeThing", "createThing"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "packages/b/src/index.ts"),
        "import { createThing } from '@demo/a';\nexport const x = createThing();\n"
    );
    assert_eq!(v["rename"]["outside"], serde_json::json!([]), "{v:#}");
}

const DOCTEST_LIB: &str = "\
//! ```
//! assert_eq!(demo::double(2), 4);
//! ```

/// Doubles `x`.
///
/// ```
/// # use demo::double;
/// assert_eq!(double(3), 6);
/// ```
pub fn double(x: i32) -> i32 {
    x * 2
}
";

/// `cargo test --doc`'s verdict on a crate, when cargo is on PATH (its target directory in a
/// temp directory of its own, offline: the crate has no dependency).
fn doctests_pass(dir: &Path) -> Result<(), String> {
    super::tree::cargo_verdict(dir, &["test", "--doc", "--offline", "--quiet"])
}

/// A Rust doctest (a ```` ``` ```` block of a `///` or `//!` comment) is compiled by `cargo
/// test`: its names are renamed as code, so the doctests still pass.
#[test]
fn rust_doctests_still_pass_after_a_rename() {
    let dir = temp_tree(&[
        (
            "Cargo.toml",
            b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", DOCTEST_LIB.as_bytes()),
    ]);
    doctests_pass(dir.path()).unwrap();
    let (code, v) = run_json(dir.path(), &["rename", "double", "twice"]);
    assert_eq!(code, Some(0), "{v:#}");
    let doctests: Vec<u64> = v["rename"]["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["doctest"] == true)
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(doctests, [2, 8, 9], "{v:#}");
    doctests_pass(dir.path()).unwrap_or_else(|e| panic!("{e}\n{}", read(dir.path(), "src/lib.rs")));
}

const GO_SHAPES: &str = "package shapes\n\nfunc Area(side int) int {\n\treturn side * side\n}\n";
const GO_MAIN: &str = "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/demo/shapes\"\n)\n\nfunc main() {\n\tfmt.Println(shapes.Area(2))\n}\n";

fn go_tree() -> tempfile::TempDir {
    temp_tree(&[
        ("go.mod", b"module example.com/demo\n\ngo 1.19\n"),
        ("shapes/shapes.go", GO_SHAPES.as_bytes()),
        ("main.go", GO_MAIN.as_bytes()),
    ])
}

/// Go has no resolver of lancet's own: without gopls the rename says so and names the
/// languages it supports (never "no identifier found, check the spelling").
#[test]
fn go_without_gopls_is_refused_naming_what_is_supported() {
    let dir = go_tree();
    let (code, v) = run_json(dir.path(), &["rename", "Area", "SquareArea", "--no-lsp"]);
    assert_eq!(code, Some(1), "{v:#}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("rename does not support Go without gopls")
            && message.contains("supported: python")
            && message.contains("main.go, shapes/shapes.go"),
        "{v:#}"
    );
    assert_eq!(v["error"]["kind"], "unknown_language", "{v:#}");
    // No gopls on PATH: the same refusal, saying so.
    let root = dir.path().to_str().unwrap();
    let out = super::tree::lancet_env(
        &["rename", "-C", root, "--json", "Area", "SquareArea"],
        b"",
        &[("PATH", "/nonexistent")],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("without gopls (no gopls on PATH"),
        "{v:#}"
    );
    assert_eq!(read(dir.path(), "main.go"), GO_MAIN);
}

/// With gopls installed (Debian's, with Debian's Go), a Go rename goes through it: the
/// definition found by lancet (a bare name) or named by `--at`, the server's edit applied as
/// one transaction, its definition named.
#[test]
fn go_renames_through_gopls_when_it_is_installed() {
    let found = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
    };
    if !found("gopls") || !found("go") {
        eprintln!("gopls or go is not on PATH: the gopls rename is not tried here");
        return;
    }
    let dir = go_tree();
    // A home without caches, as on a fresh machine: gopls exited at its first request when
    // its own cache directory (`~/.cache/gopls`) did not exist and the sandbox forbade
    // creating it.
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join(".cache");
    let out = super::tree::lancet_env(
        &[
            "rename",
            "-C",
            dir.path().to_str().unwrap(),
            "--json",
            "Area",
            "SquareArea",
        ],
        b"",
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("XDG_CACHE_HOME", cache.to_str().unwrap()),
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert!(
        !cache.join("gopls").exists(),
        "nothing written outside the sandbox"
    );
    assert_eq!(v["rename"]["engine"], "lsp:gopls", "{v:#}");
    assert_eq!(
        v["rename"]["definitions"],
        serde_json::json!([{"path": "shapes/shapes.go", "line": 3, "kind": "function"}]),
        "{v:#}"
    );
    assert!(read(dir.path(), "main.go").contains("shapes.SquareArea(2)"));
    assert!(read(dir.path(), "shapes/shapes.go").contains("func SquareArea(side int)"));
}

const DOCTEST_PY: &str = "\
\"\"\"Prices.

>>> from shop import total
>>> total([1, 2])
3
\"\"\"


def total(items):
    \"\"\"Adds the items.

    >>> total([])
    0
    >>> Cart().total()
    0
    \"\"\"
    return sum(items)


class Cart:
    def total(self):
        return total([])
";

/// Python's doctests (`>>> ` lines of docstrings, run by `pytest --doctest-modules`) are
/// renamed as code: with their module's globals (a name they do not bind is the module's,
/// `from shop import total` in shop.py is shop's own), reported as doctest sites; the method
/// of the same name is another symbol, left alone.
#[test]
fn python_doctests_still_pass_after_a_rename() {
    let dir = temp_tree(&[("shop.py", DOCTEST_PY.as_bytes())]);
    let doctest = |dir: &Path| {
        std::process::Command::new("python3")
            .args(["-m", "doctest", "shop.py"])
            .current_dir(dir)
            .output()
            .map(|o| {
                (
                    o.status.success(),
                    String::from_utf8_lossy(&o.stdout).into_owned(),
                )
            })
    };
    if let Ok((passed, out)) = doctest(dir.path()) {
        assert!(passed, "{out}");
    }
    let (code, v) = run_json(dir.path(), &["rename", "--at", "shop.py:9:5", "sum_prices"]);
    assert_eq!(code, Some(0), "{v:#}");
    let doctests: Vec<u64> = v["rename"]["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["doctest"] == true)
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(doctests, [3, 4, 12], "{v:#}");
    let after = read(dir.path(), "shop.py");
    assert!(
        after.contains("    def total(self):\n        return sum_prices([])"),
        "{after}"
    );
    if let Ok((passed, out)) = doctest(dir.path()) {
        assert!(passed, "{out}\n{after}");
    }
}
