//! Runs every scenario directory under `fixtures/` (format in fixtures/README.md).

use super::tree::{copy_tree, describe, lancet, snapshot, without_dirs};
use std::path::Path;

/// Fewer scenarios than this means the directory was not found or lost content.
const MIN_SCENARIOS: usize = 40;

#[test]
fn every_fixture_scenario_behaves_as_written() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    for dir in &dirs {
        if let Err(why) = run_scenario(dir) {
            failures.push(format!(
                "{}: {why}",
                dir.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(dirs.len() >= MIN_SCENARIOS, "only {} scenarios", dirs.len());
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}

fn run_scenario(dir: &Path) -> Result<(), String> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&dir.join("before"), &root);
    let root = root.canonicalize().unwrap();
    let root_str = root.to_string_lossy().into_owned();
    let bases = read_first(dir, &root)?;
    let before = snapshot(&root);
    let edit_file = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_stem().is_some_and(|s| s == "edit") && p.extension().is_some() && p.is_file()
        })
        .ok_or("no edit.<format> file")?;
    let edit = std::fs::read(&edit_file).map_err(|e| format!("{}: {e}", edit_file.display()))?;
    let edit = String::from_utf8_lossy(&edit)
        .replace("{{ROOT}}", &root_str)
        .into_bytes();
    let extra: Vec<String> = std::fs::read_to_string(dir.join("args"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.replace("{{ROOT}}", &root_str))
        .collect();
    let mut args = vec!["apply", "-C", &root_str, "--json"];
    args.extend(extra.iter().map(String::as_str));
    for base in &bases {
        args.extend(["--base", base]);
    }
    let out = lancet(&args, &edit);
    let all_output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let code = out.status.code();
    if let Ok(error) = std::fs::read_to_string(dir.join("error")) {
        let mut lines = error.lines();
        let want: i32 = lines
            .next()
            .and_then(|l| l.trim().parse().ok())
            .ok_or("error file must start with an exit code")?;
        if code != Some(want) {
            return Err(format!("expected exit {want}\n{}", describe(&out)));
        }
        for s in lines.filter(|l| !l.trim().is_empty()) {
            if !all_output.contains(s) {
                return Err(format!("output lacks {s:?}\n{}", describe(&out)));
            }
        }
        if snapshot(&root) != before {
            return Err("a refused edit changed the tree".into());
        }
    } else {
        if code != Some(0) {
            return Err(format!("expected exit 0\n{}", describe(&out)));
        }
        let expected = without_dirs(snapshot(&dir.join("after")));
        let actual = without_dirs(snapshot(&root));
        if actual != expected {
            let keys: std::collections::BTreeSet<&String> =
                expected.keys().chain(actual.keys()).collect();
            let diff: Vec<String> = keys
                .into_iter()
                .filter(|k| expected.get(*k) != actual.get(*k))
                .map(|k| {
                    format!(
                        "  {k}: expected {:?}, got {:?}",
                        expected.get(k).map(show),
                        actual.get(k).map(show)
                    )
                })
                .collect();
            return Err(format!(
                "tree differs:\n{}\n{}",
                diff.join("\n"),
                describe(&out)
            ));
        }
    }
    compare_report(dir, &out.stdout, &root_str)?;
    if let Ok(expect) = std::fs::read_to_string(dir.join("expect")) {
        for s in expect.lines().filter(|l| !l.trim().is_empty()) {
            if !all_output.contains(s) {
                return Err(format!("output lacks {s:?}\n{}", describe(&out)));
            }
        }
    }
    Ok(())
}

/// A scenario's `read/` files are what the model read before the tree became `before/`: each
/// is written at its path, shown by `lancet read` (which keeps the snapshot), and put back as
/// `before/` has it. Returns the `PATH=SHA256` bases the edit is sent with.
fn read_first(dir: &Path, root: &Path) -> Result<Vec<String>, String> {
    let read = dir.join("read");
    if !read.is_dir() {
        return Ok(Vec::new());
    }
    let mut bases = Vec::new();
    for (rel, node) in snapshot(&read) {
        let super::tree::Node::File { bytes, .. } = node else {
            continue;
        };
        let at = root.join(&rel);
        let now = std::fs::read(&at).ok();
        std::fs::write(&at, &bytes).map_err(|e| format!("{rel}: {e}"))?;
        let out = lancet(
            &["read", "-C", &root.to_string_lossy(), &rel, "--json"],
            b"",
        );
        let view: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("lancet read {rel}: {e}\n{}", describe(&out)))?;
        let sha = view["sha256"]
            .as_str()
            .ok_or("lancet read gave no sha256")?;
        bases.push(format!("{rel}={sha}"));
        match now {
            Some(now) => std::fs::write(&at, now).map_err(|e| format!("{rel}: {e}"))?,
            None => std::fs::remove_file(&at).map_err(|e| format!("{rel}: {e}"))?,
        }
    }
    Ok(bases)
}

/// Compares the JSON report with the scenario's `report.json`, the report as it was when the
/// snapshot was taken (the root and the checkpoint id replaced by placeholders): a change in
/// any field a model or a script reads shows up here. `LANCET_WRITE_SNAPSHOTS=1` (re)writes
/// them, for a deliberate change, to be reviewed in the diff.
fn compare_report(dir: &Path, stdout: &[u8], root: &str) -> Result<(), String> {
    let mut text = String::from_utf8_lossy(stdout).replace(root, "{{ROOT}}");
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(id) = v["checkpoint"].as_str()
    {
        text = text.replace(id, "{{ID}}");
    }
    let path = dir.join("report.json");
    if std::env::var_os("LANCET_WRITE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let want = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (LANCET_WRITE_SNAPSHOTS=1 writes it)",
            path.display()
        )
    })?;
    if want != text {
        let diff = similar::TextDiff::from_lines(&want, &text)
            .unified_diff()
            .context_radius(2)
            .header("report.json", "this run")
            .to_string();
        return Err(format!("the JSON report changed:\n{diff}"));
    }
    Ok(())
}

fn show(n: &super::tree::Node) -> String {
    match n {
        super::tree::Node::File { bytes, executable } => {
            format!(
                "{:?}{}",
                String::from_utf8_lossy(bytes),
                if *executable { " (x)" } else { "" }
            )
        }
        other => format!("{other:?}"),
    }
}
