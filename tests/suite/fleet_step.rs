//! Lancet as one step of a fleet engine (issue #40): the report's provenance, the status each
//! outcome carries, a second run that changes nothing, and `lancet report` over one and many
//! repositories' reports.

use crate::suite::tree::{describe, lancet, temp_tree};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const PATCH: &str =
    "*** Begin Patch\n*** Update File: app.py\n x = 1\n-print(x)\n+print(x + 1)\n*** End Patch\n";

/// A git repository holding `app.py`, committed, with an `origin` remote.
fn repository(name: &str) -> tempfile::TempDir {
    let dir = temp_tree(&[("app.py", b"x = 1\nprint(x)\n"), ("log.py", b"print(1)\n")]);
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(&out));
    };
    git(&["init", "-q"]);
    git(&[
        "remote",
        "add",
        "origin",
        &format!("https://example.org/{name}.git"),
    ]);
    git(&["add", "."]);
    git(&["commit", "-qm", "start"]);
    dir
}

fn step(root: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, Value, String) {
    let mut all = vec![
        args[0],
        "-C",
        root.to_str().unwrap(),
        "--json",
        "--provenance",
    ];
    all.extend(&args[1..]);
    let out = lancet(&all, stdin);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v, text)
}

#[test]
fn a_report_carries_its_provenance_only_when_asked() {
    let dir = repository("acme/shop");
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    let (code, v, _) = step(dir.path(), &["apply"], PATCH.as_bytes());
    assert_eq!(code, Some(0), "{v:#}");
    let p = &v["provenance"];
    assert_eq!(
        p["repository"], "https://example.org/acme/shop.git",
        "{v:#}"
    );
    assert_eq!(p["base_commit"], head.as_str(), "{v:#}");
    assert_eq!(p["lancet_version"], env!("CARGO_PKG_VERSION"));
    assert!(p["duration_ms"].is_u64(), "{v:#}");
    assert!(
        Path::new(p["root"].as_str().unwrap()).is_absolute(),
        "{v:#}"
    );
    // The same edit in another repository has the same digest.
    let other = repository("acme/cart");
    let (_, w, _) = step(other.path(), &["apply"], PATCH.as_bytes());
    assert_eq!(w["provenance"]["edit_sha256"], p["edit_sha256"], "{w:#}");
    assert_eq!(p["edit_sha256"].as_str().unwrap().len(), 64);
    // Without --provenance, none.
    let third = repository("acme/till");
    let out = lancet(
        &["apply", "-C", third.path().to_str().unwrap(), "--json"],
        PATCH.as_bytes(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("provenance").is_none(), "{v:#}");
}

#[test]
fn a_second_run_changes_nothing_and_exits_0() {
    let dir = repository("acme/shop");
    let (code, v, _) = step(dir.path(), &["apply"], PATCH.as_bytes());
    assert_eq!(code, Some(0), "{v:#}");
    let (code, v, _) = step(dir.path(), &["apply"], PATCH.as_bytes());
    assert_eq!(
        (code, v["status"].as_str()),
        (Some(0), Some("already_applied")),
        "{v:#}"
    );
    let rule = [
        "mod",
        "-p",
        "print($X)",
        "-r",
        "log($X)",
        "--lang",
        "python",
    ];
    let (code, v, _) = step(dir.path(), &rule, b"");
    assert_eq!((code, v["status"].as_str()), (Some(0), Some("applied")));
    let after = std::fs::read(dir.path().join("app.py")).unwrap();
    let (code, v, _) = step(dir.path(), &rule, b"");
    // A mod that finds nothing says so: "no site matched", not "already applied".
    assert_eq!(
        (code, v["status"].as_str()),
        (Some(0), Some("nothing_matched")),
        "{v:#}"
    );
    assert_eq!(std::fs::read(dir.path().join("app.py")).unwrap(), after);
}

/// Reports of several repositories, saved as a fleet engine saves them.
fn fleet_reports(out: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut save = |name: &str, text: String| {
        let path = out.join(format!("{name}.json"));
        std::fs::write(&path, text).unwrap();
        files.push(path.to_str().unwrap().to_string());
    };
    let changed = repository("acme/changed");
    save(
        "changed",
        step(changed.path(), &["apply"], PATCH.as_bytes()).2,
    );
    let refused = repository("acme/refused");
    let wrong = PATCH.replace(" x = 1", " x = 7");
    save(
        "refused",
        step(refused.path(), &["apply"], wrong.as_bytes()).2,
    );
    let failing = repository("acme/failing");
    let tested = ["apply", "--test", "exit 1"];
    save("failing", step(failing.path(), &tested, PATCH.as_bytes()).2);
    let done = repository("acme/done");
    step(done.path(), &["apply"], PATCH.as_bytes());
    save("done", step(done.path(), &["apply"], PATCH.as_bytes()).2);
    files
}

#[test]
fn lancet_report_summarises_many_reports_and_describes_one() {
    let out = tempfile::tempdir().unwrap();
    let files = fleet_reports(out.path());
    let args: Vec<&str> = ["report"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    let run = lancet(&args, b"");
    assert_eq!(run.status.code(), Some(0), "{}", describe(&run));
    let summary = String::from_utf8(run.stdout).unwrap();
    for row in [
        "| changed | 1 |",
        "| already applied | 1 |",
        "| refused | 1 |",
        "| tests failed | 1 |",
        "| **total** | 4 |",
    ] {
        assert!(summary.contains(row), "{row}\n{summary}");
    }
    assert!(
        summary.contains("| https://example.org/acme/refused.git | refused | no_match:"),
        "{summary}"
    );
    assert!(
        summary
            .contains("| https://example.org/acme/failing.git | tests failed | `exit 1` failed |"),
        "{summary}"
    );
    // One report: a pull-request description.
    let run = lancet(&["report", &files[0]], b"");
    let pr = String::from_utf8(run.stdout).unwrap();
    assert!(
        pr.starts_with("## lancet: 1 file(s) changed in https://example.org/acme/changed.git"),
        "{pr}"
    );
    assert!(pr.contains("- `app.py` (update)"), "{pr}");
    assert!(pr.contains("`lancet undo "), "{pr}");
    // The same report read from stdin.
    let text = std::fs::read(&files[0]).unwrap();
    let run = lancet(&["report", "-"], &text);
    assert_eq!(String::from_utf8(run.stdout).unwrap(), pr);
}

#[test]
fn lancet_report_refuses_what_is_no_report_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let good = out.path().join("good.json");
    let dir = repository("acme/shop");
    std::fs::write(&good, step(dir.path(), &["apply"], PATCH.as_bytes()).2).unwrap();
    for (name, text) in [
        ("truncated.json", "{\"status\": \"appl"),
        ("other.json", "{\"state\": \"ok\"}"),
        ("unknown.json", "{\"status\": \"merged\"}"),
    ] {
        let bad = out.path().join(name);
        std::fs::write(&bad, text).unwrap();
        let run = lancet(
            &["report", good.to_str().unwrap(), bad.to_str().unwrap()],
            b"",
        );
        assert_eq!(run.status.code(), Some(2), "{}", describe(&run));
        assert!(run.stdout.is_empty(), "{}", describe(&run));
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(err.contains(name), "{err}");
        assert!(err.contains("--json"), "{err}");
    }
    let run = lancet(&["report", "/nonexistent/r.json"], b"");
    assert_eq!(run.status.code(), Some(2), "{}", describe(&run));
}
