//! Reading lancet's own sources for what mutates the file system: the security suite holds
//! every writer to the door ("One door for every write").
//!
//! Production code only: a file is read up to its `#[cfg(test)]` module (the house's rule:
//! tests sit at the end), and a `tests.rs` module is not read. A line counts when it calls a mutating file-system function — by
//! method name (`rename`, `remove_file`, `create_dir`, `hard_link`, `set_permissions`, an
//! `open_with` or `OpenOptions` that writes, ...), through `std::fs`, or as a raw system call.

use std::collections::BTreeMap;
use std::path::Path;

/// The files allowed to mutate the file system, by path prefix from the workspace, with why.
pub const ALLOWED_WRITERS: &[(&str, &str)] = &[
    (
        "crates/lancet-store/src/door/",
        "the door: every write into a tree",
    ),
    (
        "crates/lancet-store/src/state.rs",
        "the state module: the state directory and its handle",
    ),
    (
        "crates/lancet-store/src/journal.rs",
        "the state module: the journal file, through the state handle",
    ),
    (
        "crates/lancet-store/src/checkpoint.rs",
        "the state module: the checkpoint log, through the state handle",
    ),
    (
        "crates/lancet-store/src/retention.rs",
        "the state module: the retention rules' record and the checkpoint log's tally, through the state handle",
    ),
    (
        "crates/lancet-store/src/packs.rs",
        "the state module: lancet's own checkpoint packs in the checkpoint repository's object store (folded, never the repository's), and their record through the state handle",
    ),
    (
        "crates/lancet-store/src/ledger.rs",
        "the state module: the rollback ledger, through the state handle",
    ),
    (
        "crates/lancet-store/src/snapshots.rs",
        "the state module: the reads' snapshots, through the state handle",
    ),
    (
        "crates/lancet-store/src/repository.rs",
        "the state module: the checkpoint repository, opened through the state handle",
    ),
    (
        "crates/lancet-store/src/locks.rs",
        "the state module: lock files, in the user's own lock directory",
    ),
    (
        "src/config/trust.rs",
        "the person's trust records, outside every root",
    ),
    (
        "src/codemod/exec.rs",
        "mod --exec's scratch copy, a private temporary directory outside the root",
    ),
    (
        "crates/lancet-syntax/src/external.rs",
        "the gate's external checks' private temporary directory outside the root",
    ),
    (
        "crates/lancet-process/src/cgroup.rs",
        "the cgroup a contained program runs in, under the cgroup2 mount, outside every root",
    ),
    (
        "crates/lancet-core/src/failpoint.rs",
        "the fault tests' pause marker, a path the test harness names",
    ),
    (
        "surfaces/lancet-mcp/src/lib.rs",
        "the MCP call log the person names with --log",
    ),
];

/// Calls that mutate the file system, as they are spelled in the sources.
const MUTATIONS: &[&str] = &[
    ".rename(",
    ".remove_file(",
    ".remove_dir(",
    ".remove_dir_all(",
    ".create_dir(",
    ".create_dir_all(",
    ".hard_link(",
    ".symlink(",
    ".set_permissions(",
    ".set_len(",
    ".copy(",
    ".open_with(",
    "fs::write(",
    "fs::rename(",
    "fs::remove_file(",
    "fs::remove_dir",
    "fs::create_dir",
    "fs::copy(",
    "fs::hard_link(",
    "fs::set_permissions(",
    "fs::OpenOptions",
    "File::create(",
    "os::unix::fs::symlink(",
    "libc::rename",
    "libc::unlink",
    "libc::mkdir",
    "libc::rmdir",
    "libc::chmod",
    "libc::fchmod",
    "libc::link",
    "libc::symlink",
    "libc::truncate",
    "libc::ftruncate",
    "renameat_with(",
];

/// The production sources of the workspace, by path relative to it, each cut at its test
/// module.
fn sources(workspace: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![workspace.join("src")];
    // The engine's crates and the surfaces' (the CLI, the MCP server).
    for folder in ["crates", "surfaces"] {
        if let Ok(crates) = std::fs::read_dir(workspace.join(folder)) {
            stack.extend(crates.flatten().map(|c| c.path().join("src")));
        }
    }
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let production = text
                    .find("#[cfg(test)]")
                    .map_or(text.as_str(), |cut| &text[..cut]);
                let rel = path
                    .strip_prefix(workspace)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, production.to_string()));
            }
        }
    }
    out.sort();
    out
}

/// Whether a source line is code (not a comment or a doc line).
fn is_code(line: &str) -> bool {
    let t = line.trim_start();
    !(t.starts_with("//") || t.starts_with("/*") || t.starts_with('*'))
}

/// Whether a line calls `mutation`; a method of the code's own `self` is not a file-system call.
fn calls(line: &str, mutation: &str) -> bool {
    line.match_indices(mutation)
        .any(|(at, _)| !mutation.starts_with('.') || receiver(&line[..at]) != "self")
}

/// The identifier just before a method call's dot.
fn receiver(before: &str) -> &str {
    before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default()
}

/// Whether a line writes a file through a directory handle (`dir.write(path, bytes)`): a
/// `.write(` with arguments, not a lock's `.write()` nor a method of the code's own `self`.
fn writes_through_a_handle(line: &str) -> bool {
    line.match_indices(".write(").any(|(at, m)| {
        let after = &line[at + m.len()..];
        !after.starts_with(')') && receiver(&line[..at]) != "self" && !after.starts_with("true")
    })
}

/// The files whose production code mutates the file system, with the lines that do.
pub fn mutating_files(workspace: &Path) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, text) in sources(workspace) {
        for line in text.lines().filter(|l| is_code(l)) {
            if MUTATIONS.iter().any(|m| calls(line, m)) || writes_through_a_handle(line) {
                found
                    .entry(file.clone())
                    .or_default()
                    .push(line.trim().to_string());
            }
        }
    }
    found
}
