//! The syntax gate through the CLI: a batch that breaks a file's syntax is refused whole, with
//! path, line:column and an excerpt; errors that were already there do not block.

use super::tree::{describe, lancet, snapshot, temp_tree, trust};

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
    // Python's own grammar (ruff_python_parser, in process) judges, with its words.
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(e["checker"], "ruff_python_parser");
    assert!(
        e["excerpt"]
            .as_str()
            .unwrap()
            .contains("2 |     return sum(x.price for x in items\n")
    );
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("shop.py:3:1: unexpected EOF while parsing (ruff_python_parser)"),
        "{message}"
    );
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
    // The parsers accept `return` at module level (a compiler's rule, not the grammar's); the
    // compiler does not. Its check runs only when the project opts in (lancet.toml).
    let dir = temp_tree(&[("m.py", b"x = 1\n")]);
    let edit = b"*** Begin Patch\n*** Update File: m.py\n-x = 1\n+return 1\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &["--dry-run"]);
    assert_eq!(code, Some(0), "without the opt-in it is not run: {v:#}");
    std::fs::write(
        dir.path().join("lancet.toml"),
        "[gate]\nexternal = [\"python\"]\n",
    )
    .unwrap();
    trust(dir.path());
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
    let mut styles = String::new();
    while styles.len() < 5 * 1024 * 1024 {
        styles.push_str(".a{b:c}");
    }
    styles.push('\n');
    let dir = temp_tree(&[
        ("big.min.js", minified.as_bytes()),
        ("big.min.css", styles.as_bytes()),
        ("data.bin.txt", b"a\0b\n"),
    ]);
    let edit = b"*** Begin Patch\n*** Update File: big.min.js\n@@\n+var b=1;\n*** Update File: big.min.css\n@@\n+.b{c:d}\n*** Update File: data.bin.txt\n-a\0b\n+a\0c\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(0), "{v:#}");
    // Over gate.max_file_bytes (5 MB): judged by the precise parser where lancet has one
    // (JavaScript: oxc_parser), else not parsed, and said so.
    let checked = v["syntax"]["checked"].to_string();
    assert!(checked.contains("big.min.js (javascript)"), "{checked}");
    let unchecked = v["syntax"]["unchecked"].to_string();
    assert!(
        unchecked.contains(
            "big.min.css (5242890 bytes, over gate.max_file_bytes (5000000): not parsed)"
        ),
        "{unchecked}"
    );
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

/// `lancet check` in a repository whose guarded settings nobody trusted: they are ignored, and
/// the person is told how to trust them, in the command line's words.
#[test]
fn check_names_the_untrusted_settings_it_ignores() {
    let dir = temp_tree(&[
        ("ok.py", GOOD_PY),
        ("lancet.toml", b"[gate]\nskip = [\"ok.py\"]\n"),
    ]);
    let out = lancet(&["check", "-C", dir.path().to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("lancet check: ") && err.contains("`lancet trust`"),
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(", 0 unchecked,"),
        "the skip is ignored: {text}"
    );
}

#[test]
fn lancet_toml_configures_the_gate_and_check_and_refuses_unknown_keys() {
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        (
            "templates/page.html",
            b"<p>{{ user.name }}</p>\n{% if x %}<b>{% endif %}\n",
        ),
        ("vendor/broken.py", b"def (\n"),
    ]);
    // A typo in a key is an error naming it, exit 2, nothing written.
    std::fs::write(dir.path().join("lancet.toml"), "[gate]\nenable = false\n").unwrap();
    let edit = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = (\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), edit, &[]);
    assert_eq!(code, Some(2), "{v:#}");
    assert_eq!(v["error"]["kind"], "config");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("lancet.toml: unknown field `enable`"),
        "{v:#}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        b"x = 1\n"
    );
    // gate.enabled = false lets a broken edit through once the user trusted it.
    std::fs::write(dir.path().join("lancet.toml"), "[gate]\nenabled = false\n").unwrap();
    let (code, v) = apply_json(dir.path(), edit, &["--dry-run"]);
    assert_eq!(code, Some(1), "untrusted, the gate stays on: {v:#}");
    assert!(
        v["notes"].to_string().contains("gate.enabled")
            && v["notes"].to_string().contains("lancet trust"),
        "{v:#}"
    );
    trust(dir.path());
    let (code, v) = apply_json(dir.path(), edit, &["--dry-run"]);
    assert_eq!(code, Some(0), "{v:#}");
    // gate.python: 3.11 refuses PEP 695 syntax, 3.12 takes it.
    let generic = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+type Pair = tuple[int, int]\n*** End Patch\n";
    std::fs::write(
        dir.path().join("lancet.toml"),
        "[gate]\npython = \"3.11\"\n",
    )
    .unwrap();
    let (code, v) = apply_json(dir.path(), generic, &["--dry-run"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["syntax"]["errors"][0]["kind"]
            .as_str()
            .unwrap()
            .contains("3.12"),
        "{v:#}"
    );
    std::fs::write(
        dir.path().join("lancet.toml"),
        "[gate]\npython = \"3.12\"\n",
    )
    .unwrap();
    let (code, v) = apply_json(dir.path(), generic, &["--dry-run"]);
    assert_eq!(code, Some(0), "{v:#}");
    // check: templates are not refused as HTML; --exclude and check.exclude leave files out.
    std::fs::write(
        dir.path().join("lancet.toml"),
        "[check]\nexclude = [\"vendor/**\"]\n",
    )
    .unwrap();
    let out = lancet(
        &["check", "-C", dir.path().to_str().unwrap(), "--json"],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["unchecked"]
            .to_string()
            .contains("templates/page.html (template syntax"),
        "{report:#}"
    );
    assert!(
        !report.to_string().contains("vendor/broken.py"),
        "{report:#}"
    );
    std::fs::write(dir.path().join("lancet.toml"), "").unwrap();
    let out = lancet(&["check", "-C", dir.path().to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let out = lancet(
        &[
            "check",
            "-C",
            dir.path().to_str().unwrap(),
            "--exclude",
            "vendor/*",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // gate.skip: a skipped file is reported unchecked, never refused.
    std::fs::write(
        dir.path().join("lancet.toml"),
        "[gate]\nskip = [\"app.py\"]\n",
    )
    .unwrap();
    trust(dir.path());
    let (code, v) = apply_json(dir.path(), edit, &["--dry-run"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert!(
        v["syntax"]["unchecked"].to_string().contains("gate.skip"),
        "{v:#}"
    );
}

#[test]
fn pyproject_tool_lancet_and_requires_python_are_read() {
    let dir = temp_tree(&[
        ("app.py", b"x = 1\n"),
        (
            "pyproject.toml",
            b"[project]\nname = \"app\"\nrequires-python = \">=3.11\"\n[tool.lancet.checkpoints]\nkeep = 1\n",
        ),
    ]);
    let generic = b"*** Begin Patch\n*** Update File: app.py\n-x = 1\n+type Pair = tuple[int, int]\n*** End Patch\n";
    let (code, v) = apply_json(dir.path(), generic, &["--dry-run"]);
    assert_eq!(
        code,
        Some(1),
        "requires-python >=3.11 must keep 3.11 syntax: {v:#}"
    );
    // checkpoints.keep = 1 (trusted): after two batches the log holds one.
    trust(dir.path());
    for n in ["2", "3"] {
        let edit = format!(
            "*** Begin Patch\n*** Update File: app.py\n@@\n-x = {}\n+x = {n}\n*** End Patch\n",
            if n == "2" { "1" } else { "2" }
        );
        let (code, v) = apply_json(dir.path(), edit.as_bytes(), &[]);
        assert_eq!(code, Some(0), "{v:#}");
    }
    let out = lancet(&["log", "-C", dir.path().to_str().unwrap(), "--json"], b"");
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log.as_array().map(Vec::len), Some(1), "{log:#}");
}
