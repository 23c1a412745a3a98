//! Syntax-gate throughput over the CPython standard library installed on this machine: every
//! `.py` file (site-packages excluded) as one batch that rewrites each file with one small edit
//! (a comment appended).
//!
//! Run: `cargo bench --bench gate`. Reported: the plain single-threaded full parse of the new
//! bytes (the baseline), the gate on 1 thread and on every core (rayon), and the incremental
//! alternative (parse the old text, `Tree::edit`, reparse the new text from the old tree) — in
//! MB/s and as ratios to the baseline. Medians of 3 runs.

mod common;

use common::time;
use lancet::digest::sha256_hex;
use lancet::path::Root;
use lancet::staged::{Before, StagedFile};
use lancet::syntax::{GateOptions, gate};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tree_sitter::{InputEdit, Parser, Point};

const RUNS: usize = 3;
const EDIT: &str = "# edited by lancet\n";

fn stdlib() -> Option<PathBuf> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        match e.file_type() {
            Ok(t) if t.is_dir() && name != "site-packages" && name != "__pycache__" => {
                python_files(&p, out)
            }
            Ok(t) if t.is_file() && name.ends_with(".py") => out.push(p),
            _ => {}
        }
    }
}

/// Every Python file under `dir`, staged with [`EDIT`] appended; and their total size.
fn corpus(dir: &std::path::Path, root: &Root) -> (Vec<StagedFile>, usize) {
    let mut paths = Vec::new();
    python_files(dir, &mut paths);
    paths.sort();
    let mut staged = Vec::new();
    let mut bytes = 0usize;
    for (i, p) in paths.iter().enumerate() {
        let Ok(before) = std::fs::read(p) else {
            continue;
        };
        let mut after = before.clone();
        after.extend_from_slice(EDIT.as_bytes());
        bytes += after.len();
        staged.push(StagedFile {
            path: root.rel(&format!("f{i}.py")).unwrap(),
            before: Before::File {
                sha256: sha256_hex(&before),
                bytes: before,
                mode: 0o644,
            },
            after: Some(after),
            after_link: None,
            mode: Some(0o644),
            in_place: false,
        });
    }
    (staged, bytes)
}

fn main() {
    let Some(dir) = stdlib() else {
        println!("python3 not found: no corpus to benchmark");
        return;
    };
    let root_dir = tempfile::tempdir().unwrap();
    let (staged, bytes) = corpus(&dir, &Root::new(root_dir.path()).unwrap());
    let mb = bytes as f64 / 1e6;
    println!(
        "corpus: {} .py files, {:.1} MB ({})",
        staged.len(),
        mb,
        dir.display()
    );

    let language = tree_sitter_python::LANGUAGE.into();
    let mut parser = Parser::new();
    parser.set_language(&language).unwrap();
    let baseline = time(RUNS, || {
        for f in &staged {
            let tree = parser.parse(f.after.as_deref().unwrap(), None).unwrap();
            std::hint::black_box(tree.root_node().has_error());
        }
    });

    let incremental = time(RUNS, || {
        for f in &staged {
            let Before::File { bytes: old, .. } = &f.before else {
                continue;
            };
            let mut tree = parser.parse(old, None).unwrap();
            let lines = old.iter().filter(|&&b| b == b'\n').count();
            let end_col = old.len() - old.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            let at = Point::new(lines, end_col);
            tree.edit(&InputEdit {
                start_byte: old.len(),
                old_end_byte: old.len(),
                new_end_byte: old.len() + EDIT.len(),
                start_position: at,
                old_end_position: at,
                new_end_position: Point::new(lines + 1, 0),
            });
            let new = parser
                .parse(f.after.as_deref().unwrap(), Some(&tree))
                .unwrap();
            std::hint::black_box(new.root_node().has_error());
        }
    });

    let opts = GateOptions::default();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut errors = 0;
    let single = time(RUNS, || {
        let r = one.install(|| gate(&staged, &opts));
        errors = r.errors.len();
    });
    let threads = rayon::current_num_threads();
    let parallel = time(RUNS, || {
        std::hint::black_box(gate(&staged, &opts));
    });

    let row = |name: &str, d: Duration| {
        println!(
            "{:<58} {:>8.2} s {:>8.1} MB/s {:>6.2}x baseline",
            name,
            d.as_secs_f64(),
            mb / d.as_secs_f64(),
            baseline.as_secs_f64() / d.as_secs_f64()
        );
    };
    row("baseline: full parse of the new text, 1 thread", baseline);
    row(
        "incremental: parse old + Tree::edit + reparse new, 1 thread",
        incremental,
    );
    row("gate, 1 thread", single);
    row(&format!("gate, rayon on {threads} threads"), parallel);
    println!(
        "new syntax errors reported by the gate: {errors} (tree-sitter only; expected 0 but for \
         CPython's test_compile.py, which tree-sitter cannot parse and whose error recovery \
         shifts when the file changes: with the compile check on, python3 overrules it)"
    );
}
