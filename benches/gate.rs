//! Syntax-gate throughput over the CPython standard library installed on this machine: every
//! `.py` file (site-packages excluded) as one batch that rewrites each file with one small edit
//! (a comment appended).
//!
//! Run: `cargo bench --bench gate`. Reported: the plain single-threaded full parse of the new
//! bytes (the baseline), the gate on 1 thread and on every core (rayon), and the incremental
//! alternative (parse the old text, `Tree::edit`, reparse the new text from the old tree) — in
//! MB/s and as ratios to the baseline. Medians of 3 runs. Then the MCP server's case: 20
//! successive one-line edits of one 2 MB Rust file through the gate, with and without the tree
//! cache the server keeps (`GateOptions::trees`).

mod common;

use common::time;
use lancet::internals::digest::sha256_hex;
use lancet::internals::path::Root;
use lancet::internals::staged::{Before, StagedFile};
use lancet::internals::syntax::TreeCache;
use lancet::internals::syntax::{GateOptions, gate};
use std::path::{Path, PathBuf};
use std::sync::Arc;
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

/// One staged edit of `m.rs` from `before` to `after`.
fn rust_edit(root: &Root, before: &str, after: &str) -> StagedFile {
    StagedFile {
        path: root.rel("m.rs").unwrap(),
        before: Before::File {
            sha256: sha256_hex(before.as_bytes()),
            bytes: before.as_bytes().to_vec(),
            mode: 0o644,
        },
        after: Some(after.as_bytes().to_vec()),
        after_link: None,
        mode: Some(0o644),
        in_place: false,
    }
}

/// 20 successive one-line edits of a 2 MB Rust file, gated one by one as the MCP server does,
/// without and with the kept trees.
fn kept_trees() {
    let root_dir = tempfile::tempdir().unwrap();
    let root = Root::new(root_dir.path()).unwrap();
    let mut versions = vec![String::new()];
    for i in 0.. {
        if versions[0].len() > 2_000_000 {
            break;
        }
        versions[0].push_str(&format!(
            "pub fn f{i}(x: u32) -> u32 {{\n    let y = x * {i};\n    y + 1\n}}\n\n"
        ));
    }
    for k in 1..=20 {
        let previous = versions[k - 1].clone();
        let at = k * 1000;
        versions.push(previous.replacen(
            &format!("let y = x * {at};"),
            &format!("let y = x * {at} + 1;"),
            1,
        ));
    }
    let edits: Vec<StagedFile> = versions
        .windows(2)
        .map(|w| rust_edit(&root, &w[0], &w[1]))
        .collect();
    let plain = GateOptions::default();
    let cold = time(RUNS, || {
        for e in &edits {
            assert!(gate(std::slice::from_ref(e), &plain).errors.is_empty());
        }
    });
    let warm = time(RUNS, || {
        let cached = GateOptions {
            trees: Some(Arc::new(TreeCache::default())),
            ..GateOptions::default()
        };
        for e in &edits {
            assert!(gate(std::slice::from_ref(e), &cached).errors.is_empty());
        }
    });
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / edits.len() as f64;
    println!(
        "20 one-line edits of a {:.1} MB .rs file: {:.1} ms per edit fresh, {:.1} ms per edit with \
         the kept tree (first edit parses afresh), {:.1}x",
        versions[0].len() as f64 / 1e6,
        per(cold),
        per(warm),
        cold.as_secs_f64() / warm.as_secs_f64()
    );
}

fn main() {
    kept_trees();
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
