//! The syntax gate through the CLI: a batch that breaks a file's syntax is refused whole, with
//! path, line:column and an excerpt; errors that were already there do not block.

use super::tree::{describe, lancet, snapshot, temp_tree};

fn apply_json(
    root: &std::path::Path,
    edit: &[u8],
    extra: &[&str],
) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["apply", "-C", root.to_str().unwrap(), "--json"];
    args.extend(extra);
    let out = lancet(&args, edit);
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

const GOOD_PY: &[u8] = b"def total(items):\n    return sum(x.price for x in items)\n";
const BREAK_PY: &[u8] = b"*** Begin Patch\n*** Update File: shop.py\n-    return sum(x.price for x in items)\n+    return sum(x.price for x in items\n*** End Patch\n";

#[test]
fn python_unclosed_paren_is_refused_with_line_and_column() {
    let dir = temp_tree(&[("shop.py", GOOD_PY)]);
    let before = snapshot(dir.path());
    let (code, v) = apply_json(dir.path(), BREAK_PY, &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["status"], "refused");
    let e = &v["syntax"]["errors"][0];
    assert_eq!(e["path"], "shop.py");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(2), Some(5))
    );
    assert_eq!(e["checker"], "tree-sitter");
    assert!(
        e["excerpt"]
            .as_str()
            .unwrap()
            .contains("2 |     return sum(x.price for x in items\n")
    );
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("shop.py:2:5: ERROR"), "{message}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn the_same_batch_applies_when_the_only_error_was_already_there() {
    let broken_elsewhere =
        b"def total(items):\n    return sum(x.price for x in items)\n\n\ndef legacy(:\n    pass\n";
    let dir = temp_tree(&[("shop.py", broken_elsewhere)]);
    let fix = b"*** Begin Patch\n*** Update File: shop.py\n-    return sum(x.price for x in items)\n+    return sum(x.cost for x in items)\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), fix, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["syntax"]["errors"].as_array().unwrap().len(), 0);
    assert!(!v["syntax"]["preexisting"].as_array().unwrap().is_empty());
    // Breaking it further is still refused.
    let (code, _) = apply_json(dir.path(), b"*** Begin Patch\n*** Update File: shop.py\n-    return sum(x.cost for x in items)\n+    return sum(x.cost for x in items\n*** End Patch\n", &[]);
    assert_eq!(code, Some(1));
}

#[test]
fn rust_breakage_is_refused_and_preexisting_rust_errors_do_not_block() {
    let good = b"fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
    let dir = temp_tree(&[("src/main.rs", good)]);
    let (code, v) = apply_json(dir.path(), b"*** Begin Patch\n*** Update File: src/main.rs\n-    let x = 1;\n+    let x = 1\n*** End Patch\n", &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["syntax"]["errors"][0]["path"], "src/main.rs");
    assert!(
        v["syntax"]["errors"][0]["kind"]
            .as_str()
            .unwrap()
            .starts_with("MISSING")
            || v["syntax"]["errors"][0]["kind"] == "ERROR"
    );
    let broken_elsewhere =
        b"fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n\nfn old( {}\n";
    let dir = temp_tree(&[("src/main.rs", broken_elsewhere)]);
    let (code, v) = apply_json(dir.path(), b"*** Begin Patch\n*** Update File: src/main.rs\n-    let x = 1;\n+    let x = 2;\n*** End Patch\n", &[]);
    assert_eq!(code, Some(0), "{v:#}");
}

#[test]
fn a_two_file_batch_where_only_the_second_breaks_writes_nothing() {
    let dir = temp_tree(&[("a.py", b"x = 1\n"), ("b.py", b"y = f(2)\n")]);
    let before = snapshot(dir.path());
    let edit = b"*** Begin Patch\n*** Update File: a.py\n-x = 1\n+x = 10\n*** Update File: b.py\n-y = f(2)\n+y = f(2\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["syntax"]["errors"].as_array().unwrap().len(), 1);
    assert_eq!(v["syntax"]["errors"][0]["path"], "b.py");
    assert_eq!(snapshot(dir.path()), before);
    // --no-syntax-check writes it anyway.
    let (code, _) = apply_json(dir.path(), edit, &["--no-syntax-check"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"y = f(2\n"
    );
}

#[test]
fn python_compile_check_catches_what_tree_sitter_allows() {
    if std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("python3 missing: the compile-check test cannot run here");
        return;
    }
    // tree-sitter's Python grammar accepts `return` at module level; the compiler does not.
    let dir = temp_tree(&[("m.py", b"x = 1\n")]);
    let edit = b"*** Begin Patch\n*** Update File: m.py\n-x = 1\n+return 1\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(1), "{v:#}");
    let e = &v["syntax"]["errors"][0];
    assert_eq!(e["checker"], "python3");
    assert_eq!(e["line"], 1);
    assert!(e["kind"].as_str().unwrap().contains("SyntaxError"), "{e}");
    let (code, _) = apply_json(dir.path(), edit, &["--no-compile-check"]);
    assert_eq!(code, Some(0));
}

#[test]
fn a_move_is_checked_in_the_language_of_its_new_name() {
    let dir = temp_tree(&[("notes.txt", b"this is not ( python\n")]);
    let before = snapshot(dir.path());
    let edit = b"*** Begin Patch\n*** Update File: notes.txt\n*** Move to: notes.py\n@@\n this is not ( python\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["syntax"]["errors"][0]["path"], "notes.py");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn unknown_languages_nul_bytes_and_minified_files_pass_through() {
    let mut minified = String::from("var a=[");
    while minified.len() < 5 * 1024 * 1024 {
        minified.push_str("{k:1,v:\"x\"},");
    }
    minified.push_str("0];\n");
    let dir = temp_tree(&[
        ("big.min.js", minified.as_bytes()),
        ("data.bin.txt", b"a\0b\n"),
    ]);
    let edit = b"*** Begin Patch\n*** Update File: big.min.js\n@@\n+var b=1;\n*** Update File: data.bin.txt\n-a\0b\n+a\0c\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    let checked = v["syntax"]["checked"].to_string();
    assert!(checked.contains("big.min.js (javascript)"), "{checked}");
    let unchecked = v["syntax"]["unchecked"].to_string();
    assert!(
        unchecked.contains("data.bin.txt (no known language)"),
        "{unchecked}"
    );
}

#[test]
fn check_flags_broken_files_and_passes_clean_ones() {
    let dir = temp_tree(&[
        ("ok.py", GOOD_PY),
        ("src/bad.rs", b"fn main( {\n}\n"),
        ("README.md", b"# any ( text\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let out = lancet(&["check", "-C", root], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("src/bad.rs:1:"), "{text}");
    assert!(
        text.contains("2 file(s) checked, 1 unchecked, 1 with syntax errors"),
        "{text}"
    );
    let out = lancet(&["check", "-C", root, "ok.py", "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["checked"][0], "ok.py (python)");
}
