//! `lancet mod`: structural rewrites (ast-grep's rules and patterns) as one transaction. What
//! ast-grep itself would write is held by the conformance corpus (tests/corpus/mod_conformance.py,
//! against `ast-grep --update-all`); these hold lancet's side: the pipeline (dry run, gate, undo,
//! tests), the report's sites, and the refusals.

use super::tree::{describe, lancet, read, snapshot, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    super::tree::run_json(root, "mod", args)
}

const APP_PY: &str = "\
def total(items):
    print(\"items:\", items)
    print(len(items))
    return sum(items)
";

/// A pattern and its rewrite, applied: every site rewritten, each listed with its place and
/// both texts; the dry run shows the diff and writes nothing; a second run finds nothing to do
/// (exit 0); undo puts the file back.
#[test]
fn a_pattern_rewrites_every_site_and_lists_each() {
    let dir = temp_tree(&[("app.py", APP_PY.as_bytes()), ("web.js", b"print(1);\n")]);
    let root = dir.path();
    let args = ["-p", "print($$$ARGS)", "-r", "log($$$ARGS)", "--lang", "py"];
    let before = snapshot(root);

    let mut dry = vec!["mod", "-C", root.to_str().unwrap(), "--dry-run"];
    dry.extend(args);
    let out = lancet(&dry, b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("-    print(len(items))\n") && text.contains("+    log(len(items))\n"),
        "{text}"
    );
    assert!(text.contains("Mod: 2 site(s) in 1 file(s)"), "{text}");
    assert_eq!(snapshot(root), before, "a dry run writes nothing");

    let (code, v) = run_json(root, &args);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["status"], "applied");
    assert_eq!(
        read(root, "app.py"),
        APP_PY.replace("print(", "log("),
        "both calls rewritten"
    );
    assert_eq!(
        read(root, "web.js"),
        "print(1);\n",
        "other languages untouched"
    );
    let sites = v["mod"]["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 2);
    assert_eq!(sites[0]["path"], "app.py");
    assert_eq!(sites[0]["line"], 2);
    assert_eq!(sites[0]["column"], 5);
    assert_eq!(sites[0]["rule"], "pattern");
    assert_eq!(sites[0]["before"], "print(\"items:\", items)");
    assert_eq!(sites[0]["after"], "log(\"items:\", items)");
    assert_eq!(v["mod"]["rules"][0]["sites"], 2);

    let (code, v) = run_json(root, &args);
    assert_eq!(code, Some(0), "a rerun has nothing to do: {v}");
    assert_eq!(v["status"], "nothing_matched", "not already_applied: {v}");
    assert!(v["message"].as_str().unwrap().contains("No site matched"));

    let out = lancet(&["undo", "-C", root.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(snapshot(root), before);
}

/// A rule file of two rules (one with `constraints`, one with `transform` and `utils`) in
/// ast-grep's format: each rule's sites are counted, and a file a rule's `ignores` names is
/// left alone.
#[test]
fn a_rule_file_runs_every_rule_with_constraints_transform_and_utils() {
    let dir = temp_tree(&[
        ("src/calc.py", b"x = len(items) == 0\ny = len(names) == 0\nz = len(a) == 1\nlabel = format_name(user)\n"),
        ("tests/test_calc.py", b"assert len(xs) == 0\n"),
    ]);
    let root = dir.path();
    let rules = dir.path().join("rules.yml");
    std::fs::write(
        &rules,
        r#"id: empty-len
language: python
rule:
  pattern: len($SEQ) == 0
constraints:
  SEQ:
    regex: ^(items|xs)$
fix: not $SEQ
ignores:
  - tests/**
---
id: upper-call
language: Python
utils:
  is-call:
    kind: call
rule:
  matches: is-call
  pattern: format_name($ARG)
transform:
  UPPER:
    convert:
      source: $ARG
      toCase: upperCase
fix: format_name($UPPER)
"#,
    )
    .unwrap();
    let (code, v) = run_json(root, &["--rule", rules.to_str().unwrap(), "src", "tests"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        read(root, "src/calc.py"),
        "x = not items\ny = len(names) == 0\nz = len(a) == 1\nlabel = format_name(USER)\n"
    );
    assert_eq!(read(root, "tests/test_calc.py"), "assert len(xs) == 0\n");
    let rules = v["mod"]["rules"].as_array().unwrap();
    assert_eq!(rules[0]["id"], "empty-len");
    assert_eq!(rules[0]["sites"], 1);
    assert_eq!(rules[1]["id"], "upper-call");
    assert_eq!(rules[1]["sites"], 1);
}

/// A rewrite that breaks the syntax is refused by the gate: nothing is written, the report says
/// which file and why; a failing --test rolls a mod back.
#[test]
fn the_gate_and_the_tests_hold_a_mod_as_any_batch() {
    let dir = temp_tree(&[("app.py", APP_PY.as_bytes())]);
    let root = dir.path();
    let before = snapshot(root);
    let (code, v) = run_json(
        root,
        &["-p", "print($$$A)", "-r", "print($$$A", "--lang", "py"],
    );
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["status"], "refused");
    assert!(
        v["syntax"]["errors"]
            .as_array()
            .is_some_and(|e| !e.is_empty()),
        "{v}"
    );
    assert_eq!(snapshot(root), before);

    let (code, v) = run_json(
        root,
        &[
            "-p",
            "print($$$A)",
            "-r",
            "log($$$A)",
            "--lang",
            "py",
            "--test",
            "exit 1",
        ],
    );
    assert_eq!(code, Some(3), "{v}");
    assert_eq!(v["status"], "test_failed");
    assert_eq!(snapshot(root), before, "rolled back");
}

/// What cannot run is refused before any file is read: a rule ast-grep rejects, a language
/// without a grammar, a rule without a fix (exit 2), a path outside the root (exit 1), nothing
/// to run (exit 2).
#[test]
fn bad_rules_languages_and_paths_are_refused() {
    let dir = temp_tree(&[("app.py", APP_PY.as_bytes())]);
    let root = dir.path();
    let before = snapshot(root);
    let rule = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let cases = [
        (
            vec![
                "--rule".to_string(),
                rule(
                    "bad.yml",
                    "id: x\nlanguage: python\nrule:\n  nonsense: 1\nfix: y\n",
                ),
            ],
            2,
            "bad.yml",
        ),
        (
            vec![
                "--rule".to_string(),
                rule(
                    "cobol.yml",
                    "id: x\nlanguage: cobol\nrule:\n  pattern: a\nfix: b\n",
                ),
            ],
            2,
            "cobol",
        ),
        (
            vec![
                "--rule".to_string(),
                rule(
                    "nofix.yml",
                    "id: find-only\nlanguage: python\nrule:\n  pattern: print($A)\n",
                ),
            ],
            2,
            "has no `fix`",
        ),
        (
            ["-p", "print($A)", "-r", "log($A)", "--lang", "cobol"]
                .map(String::from)
                .to_vec(),
            2,
            "no grammar for the language `cobol`",
        ),
        (
            ["-p", "f($A)", "-r", "g($A)", "--lang", "py", "../elsewhere"]
                .map(String::from)
                .to_vec(),
            1,
            "outside",
        ),
        (Vec::new(), 2, "nothing to run"),
    ];
    for (args, exit, said) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, v) = run_json(root, &args);
        assert_eq!(code, Some(exit), "{args:?}: {v}");
        let message = v["message"].as_str().unwrap();
        assert!(message.contains(said), "{args:?}: {message}");
    }
    std::fs::remove_file(dir.path().join("bad.yml")).unwrap();
    std::fs::remove_file(dir.path().join("cobol.yml")).unwrap();
    std::fs::remove_file(dir.path().join("nofix.yml")).unwrap();
    assert_eq!(snapshot(root), before);
}

/// Issue #41: a pattern that does not parse in its language matched nothing and reported
/// `already_applied`, exit 0; it is refused (exit 2), quoting the grammar's error, whether
/// given with -p or in a rule file, and nothing is written.
#[test]
fn a_pattern_that_does_not_parse_is_refused_quoting_the_error() {
    let dir = temp_tree(&[("app.py", APP_PY.as_bytes())]);
    let root = dir.path();
    let before = snapshot(root);
    let rules = tempfile::tempdir().unwrap();
    let rule = rules.path().join("unparsed.yml");
    std::fs::write(
        &rule,
        "id: calls\nlanguage: python\nrule:\n  any:\n    - pattern: print($A,, $B)\nfix: log($A)\n",
    )
    .unwrap();
    let cases = [
        (
            vec![
                "-p",
                "strconv.Itoa($X)",
                "-r",
                "fmt.Sprint($X)",
                "--lang",
                "go",
            ],
            "on its own it reads as a type_conversion_expression",
        ),
        (
            vec!["-p", "print($A,, $B)", "-r", "log($A)", "--lang", "py"],
            "the grammar cannot read `,` at column 9",
        ),
        (
            vec!["--rule", rule.to_str().unwrap()],
            "rule `calls`: the pattern `print($A,, $B)` does not parse as python code",
        ),
    ];
    for (args, said) in cases {
        let (code, v) = run_json(root, &args);
        assert_eq!(code, Some(2), "{args:?}: {v}");
        assert_eq!(v["error"]["kind"], "malformed", "{args:?}: {v}");
        let message = v["message"].as_str().unwrap();
        assert!(message.contains(said), "{args:?}: {message}");
    }
    assert_eq!(snapshot(root), before);
}

/// `.` and `./` name the root itself, as ripgrep and ast-grep take them: walked, never refused
/// as an unsafe path (issue #41).
#[test]
fn dot_walks_the_whole_root() {
    for dot in [".", "./", "sub/.."] {
        let dir = temp_tree(&[("app.py", b"print(1)\n"), ("sub/lib.py", b"print(2)\n")]);
        let root = dir.path();
        let (code, v) = run_json(
            root,
            &["-p", "print($A)", "-r", "log($A)", "--lang", "py", dot],
        );
        assert_eq!(code, Some(0), "{dot}: {v}");
        assert_eq!(v["status"], "applied", "{dot}: {v}");
        assert_eq!(read(root, "app.py"), "log(1)\n", "{dot}");
        assert_eq!(read(root, "sub/lib.py"), "log(2)\n", "{dot}");
    }
}

/// The walk honours `.gitignore` also outside git, as `rename` does.
#[test]
fn ignored_files_are_not_rewritten() {
    let dir = temp_tree(&[
        ("app.py", b"print(1)\n"),
        ("build/gen.py", b"print(2)\n"),
        (".gitignore", b"build/\n"),
    ]);
    let root = dir.path();
    let (code, v) = run_json(root, &["-p", "print($A)", "-r", "log($A)", "--lang", "py"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(read(root, "app.py"), "log(1)\n");
    assert_eq!(read(root, "build/gen.py"), "print(2)\n");
}

/// Runs `lancet mod --exec CMD` on `root` (JSON); `None` where lancet's sandbox cannot be built
/// (no Landlock), after checking that it then refuses to run the command at all.
fn exec(root: &Path, command: &str, extra: &[&str]) -> Option<(Option<i32>, serde_json::Value)> {
    let mut args = vec!["--exec", command];
    args.extend(extra);
    let (code, v) = run_json(root, &args);
    if v["error"]["kind"] == "sandbox" {
        assert_eq!(code, Some(1), "{v}");
        return None;
    }
    Some((code, v))
}

/// A codemod command runs in a scratch copy: what it changed there (content, created, deleted)
/// is applied as one batch; files the root ignores that it created (caches) are not carried;
/// undo puts everything back.
#[test]
fn exec_applies_what_the_command_changed_in_its_scratch_copy() {
    let dir = temp_tree(&[
        ("a.py", b"x = 1\n"),
        ("b.py", b"y = 2\n"),
        (".gitignore", b"cache/\n"),
    ]);
    let root = dir.path();
    let before = snapshot(root);
    let command = "sed -i 's/1/10/' a.py && rm b.py && echo 'z = 3' > c.py && mkdir cache && echo junk > cache/f && echo edited";
    let Some((code, v)) = exec(root, command, &[]) else {
        return;
    };
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(read(root, "a.py"), "x = 10\n");
    assert!(!root.join("b.py").exists());
    assert_eq!(read(root, "c.py"), "z = 3\n");
    assert!(
        !root.join("cache").exists(),
        "an ignored cache is not the mod's"
    );
    assert_eq!(v["mod"]["exec"]["exit_code"], 0);
    assert!(
        v["mod"]["exec"]["output"]
            .as_str()
            .unwrap()
            .contains("edited")
    );
    assert_eq!(v["mod"]["files_changed"], 3);
    let out = lancet(&["undo", "-C", root.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(snapshot(root), before);
}

/// The command never touches the person's tree or anything outside its copy: a write outside
/// fails; a command that fails (an exit code not accepted, a timeout) is refused with its output
/// and nothing is written; --accept-exit names a code that means success; a binary file it
/// writes is refused.
#[test]
fn exec_is_confined_and_refused_when_the_command_fails() {
    let dir = temp_tree(&[("a.py", b"x = 1\n")]);
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path();
    let before = snapshot(root);
    let escape = format!(
        "echo no > {}/planted && sed -i 's/1/2/' a.py",
        outside.path().display()
    );
    let Some((code, v)) = exec(root, &escape, &[]) else {
        return;
    };
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["error"]["kind"], "exec_failed");
    assert!(
        !outside.path().join("planted").exists(),
        "a write outside fails"
    );
    assert_eq!(snapshot(root), before);

    let (code, v) = exec(root, "sed -i 's/1/2/' a.py; echo 'one left'; exit 1", &[]).unwrap();
    assert_eq!(code, Some(1), "{v}");
    assert!(v["message"].as_str().unwrap().contains("one left"), "{v}");
    assert_eq!(snapshot(root), before);
    let (code, v) = exec(
        root,
        "sed -i 's/1/2/' a.py; exit 1",
        &["--accept-exit", "1"],
    )
    .unwrap();
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(read(root, "a.py"), "x = 2\n");

    let (code, v) = exec(root, "sleep 30", &["--test-timeout", "1"]).unwrap();
    assert_eq!(code, Some(1), "{v}");
    assert!(v["message"].as_str().unwrap().contains("timed out"), "{v}");

    let (code, v) = exec(root, "printf '\\377\\376' > a.py", &[]).unwrap();
    assert_eq!(code, Some(1), "{v}");
    assert!(v["message"].as_str().unwrap().contains("binary"), "{v}");
    assert_eq!(read(root, "a.py"), "x = 2\n");
}

/// `[walk] exclude` in lancet.toml leaves vendored code out of a mod (and a rename), once the
/// person trusted the settings: it narrows what a tree-wide change touches, so a planted one
/// counts for nothing.
#[test]
fn walk_excludes_from_trusted_settings_are_not_rewritten() {
    let dir = temp_tree(&[
        ("app.py", b"token = 1\nprint(token)\n"),
        ("vendor/lib.py", b"token = 2\nprint(token)\n"),
        ("lancet.toml", b"[walk]\nexclude = [\"vendor/**\"]\n"),
    ]);
    let root = dir.path();
    let args = [
        "-p",
        "print($A)",
        "-r",
        "log($A)",
        "--lang",
        "py",
        "--dry-run",
    ];
    let (code, v) = run_json(root, &args);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["mod"]["files_changed"], 2, "untrusted: ignored: {v}");
    super::tree::trust(root);
    let (code, v) = run_json(root, &args);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["mod"]["files_changed"], 1, "{v}");
    assert_eq!(v["mod"]["sites"][0]["path"], "app.py");
    let out = lancet(
        &[
            "rename",
            "-C",
            root.to_str().unwrap(),
            "--dry-run",
            "--json",
            "token",
            "key",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v}");
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["app.py"], "{v}");
    // Over MCP, the server reads the same settings into the rename's own options.
    let mut mcp = crate::security::mcp::Mcp::start(root, &[], &[]);
    let answer = mcp.call(
        "rename_symbol",
        serde_json::json!({"old": "token", "new": "key"}),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(read(root, "app.py"), "key = 1\nprint(key)\n");
    assert_eq!(read(root, "vendor/lib.py"), "token = 2\nprint(token)\n");
}

/// A mod whose tests fail with one file: `--bisect` holds that file back and writes the rest
/// (exit 1, status partial).
#[test]
fn bisect_holds_back_the_file_a_mod_broke_the_tests_with() {
    let files: Vec<(String, Vec<u8>)> = (1..=6)
        .map(|i| (format!("f{i}.py"), format!("print({i})\n").into_bytes()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_slice()))
        .collect();
    let dir = temp_tree(&refs);
    let root = dir.path();
    let (code, v) = run_json(
        root,
        &[
            "-p",
            "print($A)",
            "-r",
            "log($A)",
            "--lang",
            "py",
            "--test",
            "! grep -q 'log(4)' f4.py",
            "--bisect",
        ],
    );
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["status"], "partial");
    assert_eq!(read(root, "f4.py"), "print(4)\n");
    for i in [1, 2, 3, 5, 6] {
        assert_eq!(read(root, &format!("f{i}.py")), format!("log({i})\n"));
    }
}
