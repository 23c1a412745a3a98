//! Fuzz target `paths`: path confinement. Nothing outside the root is ever created, changed or
//! removed, whatever the batch says, whatever symlinks exist, and whatever is swapped between
//! (or during) the steps.
//!
//! Each input is decoded by hand (`arbitrary::Unstructured`) into one scenario, run in a fresh
//! directory `$LANCET_FUZZ_DIR/<pid>/it-<n>/` (default `/tmp/lancet-fuzz-paths`), holding:
//!
//! * `outside/`: a fixed sibling tree (files with the same names and contents as the files a
//!   tree may hold, modes 0644/0600/0755, an empty directory, symlinks), so a misdirected write,
//!   rename, chmod, create or delete is detectable;
//! * `root/`: a small fuzz-built tree of directories, files (some hard links between two inside
//!   names) and symlinks whose targets are relative inside, `..`-climbing out of the root (to
//!   `outside/`, to the iteration directory, to `<pid>/`), absolute (to outside, to the
//!   iteration directory, or into the root itself), dangling (also dangling *into* outside),
//!   self-loops, `.` and `..`.
//!
//! Then 1-6 steps run through the public library API: `apply_batch` (1-4 operations: Create,
//! Write, Append, Delete, Update with a hunk, Update + move; paths are component sequences over
//! the tree's names, `..`, `.`, `""`, `.lancet`, `.git`, `.GIT`, absolute prefixes of root,
//! outside, the iteration directory and `/`, separators `/` or `\`; fsync off, checkpoints on,
//! syntax checks off; sometimes `partial` or `dry_run`; sometimes a `--test` command that swaps
//! a top-level entry for a link out (or the reverse) while the batch is pending and then
//! passes or fails, which rolls the batch back), swaps between steps (any entry replaced by a
//! link to outside, a climbing link, a dangling link into outside, a real directory, a file),
//! `history::undo` (plain, `--force`, `--partial`), `history::recover`, a forged journal
//! (entries, temps, backups, created and removed directories through links, bad roots; backups
//! in `pre/` that are links or hard links to outside files), and tampered checkpoint metadata
//! (`created_dirs` naming paths through links or out of the root).
//!
//! After every step it asserts:
//! * every entry under `outside/` is identical: type, permission bits, bytes, link target,
//!   inode, mtime, and (unless the file was already hard-linked into the root) ctime and link
//!   count; nothing appeared or disappeared there;
//! * the iteration directory still holds exactly `root/` and `outside/`, with its mtime
//!   unchanged (nothing was created and removed there meanwhile); the same for `<pid>/`.
//!
//! A failure panics with a readable reproduction (the tree, every step, the differences) and
//! leaves the iteration directory in place for inspection; on success it is removed.
//!
//! `LANCET_FUZZ_HARDLINKS=1` lets tree files be hard links to outside files (by default hard
//! links join two inside names only): lancet rewrites a hard-linked file in place, so that mode
//! changes the outside name's content at once (see the fuzzing report).
//!
//! `LANCET_FUZZ_STATE=1` also lets swaps replace lancet's own state directory (`.lancet`,
//! `.lancet/pre`, `.lancet/git`, `.lancet/checkpoints`, `.lancet/kept`) by links to outside:
//! off by default, because lancet reaches its state directory by name (std::fs), not through
//! the root's handle, so that mode finds a known issue at once (see the fuzzing report).
//!
//! Run (from the repository root; nightly and `cargo install cargo-fuzz`):
//!
//! ```text
//! cargo +nightly fuzz run paths -- -max_total_time=600 -jobs=1
//! # -jobs makes libFuzzer write fuzz-0.log into the current directory: to keep it out of the
//! # repository, run from elsewhere with --fuzz-dir:
//! cd /tmp && cargo +nightly fuzz run --fuzz-dir /path/to/lancet/fuzz paths -- -max_total_time=600 -jobs=1
//! # reproduce one input, with the scenario printed:
//! cargo +nightly fuzz run paths fuzz/artifacts/paths/crash-...
//! # or run the built binary on one input, printing every scenario (also when it passes):
//! ASAN_OPTIONS=detect_odr_violation=0 LANCET_FUZZ_VERBOSE=1 \
//!     fuzz/target/x86_64-unknown-linux-gnu/release/paths INPUT
//! ```
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use lancet::UndoOptions;
use lancet::internals::store::StateDir;
use lancet::internals::store::{Entry, FileState, Journal};
use lancet::{Batch, FileOp, Format, Hunk, OpKind, Root, Surface};

/// Names of tree entries (and path components): some exist outside too, with the same content.
const NAMES: &[&str] = &["a", "b", "d", "e", "l", "m", "x.txt", "y.txt"];
/// File contents, inside and outside (hunks below match the first two).
const CONTENTS: &[&str] = &["one\ntwo\nthree\n", "alpha\nbeta\n", "", "x\n"];
const MODES: &[u32] = &[0o644, 0o600, 0o755];

// ---------------------------------------------------------------------------------------------
// Input decoding helpers: never fail (an exhausted input reads as zeros).

fn pick(u: &mut Unstructured, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    u.choose_index(n).unwrap_or(0)
}

fn flag(u: &mut Unstructured) -> bool {
    u.arbitrary::<bool>().unwrap_or(false)
}

fn range(u: &mut Unstructured, lo: usize, hi: usize) -> usize {
    u.int_in_range(lo..=hi).unwrap_or(lo)
}

fn up(n: usize) -> String {
    "../".repeat(n)
}

// ---------------------------------------------------------------------------------------------
// The scenario's places.

struct Places {
    /// `<base>/<pid>`: the process's directory.
    proc_dir: PathBuf,
    /// `<proc_dir>/it-<n>`.
    iter: PathBuf,
    root: PathBuf,
    outside: PathBuf,
}

impl Places {
    fn s(p: &Path) -> String {
        p.to_str().unwrap().to_string()
    }
}

fn proc_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::var_os("LANCET_FUZZ_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp/lancet-fuzz-paths"));
        let dir = base.join(std::process::id().to_string());
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    })
}

/// `LANCET_FUZZ_HARDLINKS=1`: tree entries may be hard links to outside files (lancet rewrites
/// a hard-linked file in place, so this mode finds that at once; see the fuzzing report).
fn hardlinks_mode() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LANCET_FUZZ_HARDLINKS").is_some_and(|v| v == "1"))
}

fn state_mode() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LANCET_FUZZ_STATE").is_some_and(|v| v == "1"))
}

/// The fixed outside tree.
fn make_outside(outside: &Path) {
    let file = |name: &str, content: &str, mode: u32| {
        let p = outside.join(name);
        std::fs::write(&p, content).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    std::fs::create_dir(outside).unwrap();
    file("x.txt", CONTENTS[0], 0o644);
    file("y.txt", CONTENTS[1], 0o600);
    file("a", CONTENTS[0], 0o755);
    std::fs::create_dir(outside.join("d")).unwrap();
    file("d/x.txt", CONTENTS[0], 0o644);
    file("d/y.txt", CONTENTS[1], 0o644);
    std::fs::create_dir(outside.join("e")).unwrap();
    std::os::unix::fs::symlink("x.txt", outside.join("l")).unwrap();
    std::os::unix::fs::symlink("d", outside.join("b")).unwrap();
    std::os::unix::fs::symlink("../root", outside.join("m")).unwrap();
    // Already hard-linked twice: the harness links it into a forged `pre/` without that being
    // a change (ctime and nlink of shared inodes are not compared).
    file("h", CONTENTS[1], 0o644);
    std::fs::hard_link(outside.join("h"), outside.join("d/h")).unwrap();
}

/// A symlink target, for a link whose parent is `depth` directories below the root.
fn link_target(u: &mut Unstructured, pl: &Places, depth: usize, own: &str) -> String {
    let outside_name = [
        "",
        "/x.txt",
        "/d",
        "/e",
        "/y.txt",
        "/l",
        "/b",
        "/new.txt",
        "/d/new.txt",
    ];
    let name = |u: &mut Unstructured| NAMES[pick(u, NAMES.len())];
    match pick(u, 12) {
        0 => format!("{}{}", up(depth), name(u)),
        1 => name(u).to_string(),
        2 => format!("{}{}/{}", up(depth), name(u), name(u)),
        3 => format!(
            "{}outside{}",
            up(depth + 1),
            outside_name[pick(u, outside_name.len())]
        ),
        4 => up(depth + 1 + pick(u, 2)).trim_end_matches('/').to_string(),
        5 => format!(
            "{}{}",
            Places::s(&pl.outside),
            outside_name[pick(u, outside_name.len())]
        ),
        6 => format!("{}/{}", Places::s(&pl.root), name(u)),
        7 => ["nonexistent", "nodir/new.txt"][pick(u, 2)].to_string(),
        8 => own.to_string(),
        9 => [".", "..", "./", "../root"][pick(u, 4)].to_string(),
        10 => [
            Places::s(&pl.iter),
            "/".to_string(),
            Places::s(&pl.proc_dir),
        ][pick(u, 3)]
        .clone(),
        _ => format!(
            "{}../outside/{}",
            up(depth),
            ["new.txt", "d/new.txt", "e/new.txt"][pick(u, 3)]
        ),
    }
}

/// Builds the tree; returns the paths of its entries (relative) and a description.
fn make_tree(u: &mut Unstructured, pl: &Places, log: &mut String) -> Vec<String> {
    let mut dirs: Vec<String> = vec![String::new()];
    let mut entries: Vec<String> = Vec::new();
    let n = range(u, 0, 10);
    for _ in 0..n {
        let parent = dirs[pick(u, dirs.len())].clone();
        let name = NAMES[pick(u, NAMES.len())];
        let rel = if parent.is_empty() {
            name.to_string()
        } else {
            format!("{parent}/{name}")
        };
        let at = pl.root.join(&rel);
        if at.symlink_metadata().is_ok() {
            continue;
        }
        let depth = if parent.is_empty() {
            0
        } else {
            parent.split('/').count()
        };
        match pick(u, 6) {
            0 | 1 => {
                std::fs::create_dir(&at).unwrap();
                dirs.push(rel.clone());
                let _ = writeln!(log, "  mkdir {rel}");
            }
            2 | 3 => {
                let c = pick(u, CONTENTS.len());
                let mode = MODES[pick(u, MODES.len())];
                std::fs::write(&at, CONTENTS[c]).unwrap();
                std::fs::set_permissions(&at, std::fs::Permissions::from_mode(mode)).unwrap();
                let _ = writeln!(log, "  file  {rel} = {:?} mode {mode:o}", CONTENTS[c]);
            }
            4 => {
                let t = link_target(u, pl, depth, name);
                std::os::unix::fs::symlink(&t, &at).unwrap();
                let _ = writeln!(log, "  link  {rel} -> {t}");
            }
            _ if hardlinks_mode() => {
                let src = ["x.txt", "d/x.txt", "y.txt"][pick(u, 3)];
                std::fs::hard_link(pl.outside.join(src), &at).unwrap();
                let _ = writeln!(log, "  hardlink {rel} == outside/{src}");
            }
            _ => {
                // A hard link between two inside names (written in place by lancet).
                let files: Vec<&String> = entries
                    .iter()
                    .filter(|e| {
                        pl.root
                            .join(e)
                            .symlink_metadata()
                            .is_ok_and(|m| m.file_type().is_file())
                    })
                    .collect();
                if files.is_empty() {
                    continue;
                }
                let src = files[pick(u, files.len())].clone();
                std::fs::hard_link(pl.root.join(&src), &at).unwrap();
                let _ = writeln!(log, "  hardlink {rel} == {src}");
            }
        }
        entries.push(rel);
    }
    entries
}

// ---------------------------------------------------------------------------------------------
// Batches.

fn batch_path(u: &mut Unstructured, pl: &Places) -> String {
    let comps: &[&str] = &[
        "a",
        "b",
        "d",
        "e",
        "l",
        "m",
        "x.txt",
        "y.txt",
        "new.txt",
        "..",
        ".",
        "",
        ".lancet",
        ".LANCET",
        ".git",
        ".GIT",
        "outside",
        "root",
        "pre",
        "journal.json",
    ];
    let mut s = match pick(u, 10) {
        0 => format!("{}/", Places::s(&pl.root)),
        1 => format!("{}/", Places::s(&pl.outside)),
        2 => format!("{}/", Places::s(&pl.iter)),
        3 => "/".to_string(),
        _ => String::new(),
    };
    let n = range(u, 1, 4);
    for i in 0..n {
        if i > 0 {
            s.push(if pick(u, 5) == 0 { '\\' } else { '/' });
        }
        s.push_str(comps[pick(u, comps.len())]);
    }
    s
}

fn make_batch(u: &mut Unstructured, pl: &Places) -> Batch {
    let n = range(u, 1, 4);
    let mut ops = Vec::new();
    for i in 0..n {
        let path = batch_path(u, pl);
        let content = || CONTENTS[0];
        let kind = match pick(u, 7) {
            0 => OpKind::Create {
                content: CONTENTS[pick(u, CONTENTS.len())].to_string(),
                executable: flag(u),
            },
            1 => OpKind::Write {
                content: CONTENTS[pick(u, CONTENTS.len())].to_string(),
            },
            2 => OpKind::Append {
                content: ["more\n", ""][pick(u, 2)].to_string(),
            },
            3 => OpKind::Delete,
            k => {
                let hunk = match pick(u, 3) {
                    0 => Hunk::lines(vec!["two".into()], vec!["TWO".into()], 1),
                    1 => Hunk::lines(vec!["alpha".into()], vec!["ALPHA".into()], 1),
                    _ => Hunk::lines(
                        vec!["one".into(), "two".into()],
                        vec!["one".into(), "2".into()],
                        1,
                    ),
                };
                let _ = content;
                OpKind::Update {
                    hunks: vec![hunk],
                    move_to: (k >= 5).then(|| batch_path(u, pl)),
                }
            }
        };
        ops.push(FileOp {
            path,
            kind,
            line: i + 1,
        });
    }
    Batch {
        format: Format::Patch,
        ops,
        notes: Vec::new(),
    }
}

fn describe_batch(b: &Batch) -> String {
    let mut s = String::from("    *** Begin Patch\n");
    for op in &b.ops {
        match &op.kind {
            OpKind::Create {
                content,
                executable,
            } => {
                let _ = writeln!(
                    s,
                    "    *** Add File: {}{}",
                    op.path,
                    if *executable { "   (executable)" } else { "" }
                );
                for l in content.lines() {
                    let _ = writeln!(s, "    +{l}");
                }
            }
            OpKind::Write { content } => {
                let _ = writeln!(s, "    [Write whole file] {} = {content:?}", op.path);
            }
            OpKind::Append { content } => {
                let _ = writeln!(s, "    [Append] {} += {content:?}", op.path);
            }
            OpKind::Delete => {
                let _ = writeln!(s, "    *** Delete File: {}", op.path);
            }
            OpKind::Update { hunks, move_to } => {
                let _ = writeln!(s, "    *** Update File: {}", op.path);
                if let Some(to) = move_to {
                    let _ = writeln!(s, "    *** Move to: {to}");
                }
                for h in hunks {
                    let _ = writeln!(s, "    @@");
                    for l in &h.old {
                        let _ = writeln!(s, "    -{l}");
                    }
                    for l in &h.new {
                        let _ = writeln!(s, "    +{l}");
                    }
                }
            }
            other => {
                let _ = writeln!(s, "    {other:?} {}", op.path);
            }
        }
    }
    s.push_str("    *** End Patch\n");
    s
}

// ---------------------------------------------------------------------------------------------
// Swaps.

/// Whether every ancestor of `rel` (under root) is a real directory: the harness itself must
/// never act through a link.
fn real_parents(root: &Path, rel: &str) -> bool {
    let mut cur = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for p in &parts[..parts.len() - 1] {
        cur.push(p);
        match cur.symlink_metadata() {
            Ok(m) if m.is_dir() => {}
            _ => return false,
        }
    }
    true
}

fn remove_entry(at: &Path) {
    match at.symlink_metadata() {
        Ok(m) if m.is_dir() => {
            // std's remove_dir_all does not follow symlinks.
            let _ = std::fs::remove_dir_all(at);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(at);
        }
        Err(_) => {}
    }
}

/// What a swap puts in place of an entry.
#[derive(Debug, Clone)]
enum Replacement {
    Link(String),
    Dir { with_file: bool },
    File(usize),
    Nothing,
}

fn replacement(u: &mut Unstructured, pl: &Places, depth: usize) -> Replacement {
    let o = Places::s(&pl.outside);
    match pick(u, 10) {
        0 => Replacement::Link(o),
        1 => Replacement::Link(format!("{}outside", up(depth + 1))),
        2 => Replacement::Link(format!("{o}/x.txt")),
        3 => Replacement::Link(format!("{}outside/d", up(depth + 1))),
        4 => Replacement::Dir { with_file: false },
        5 => Replacement::Dir { with_file: true },
        6 => Replacement::File(pick(u, CONTENTS.len())),
        7 => Replacement::Link(NAMES[pick(u, NAMES.len())].to_string()),
        8 => Replacement::Link(format!("{}outside/new.txt", up(depth + 1))),
        _ => Replacement::Nothing,
    }
}

fn swap_candidates(entries: &[String]) -> Vec<String> {
    let mut c: Vec<String> = entries.to_vec();
    for n in NAMES {
        c.push((*n).to_string());
        c.push(format!("d/{n}"));
    }
    if state_mode() {
        for s in [
            ".lancet",
            ".lancet/pre",
            ".lancet/git",
            ".lancet/checkpoints",
            ".lancet/kept",
        ] {
            c.push(s.to_string());
        }
    }
    c
}

fn do_swap(pl: &Places, rel: &str, r: &Replacement) -> bool {
    if !real_parents(&pl.root, rel) {
        return false;
    }
    let at = pl.root.join(rel);
    remove_entry(&at);
    match r {
        Replacement::Link(t) => std::os::unix::fs::symlink(t, &at).unwrap(),
        Replacement::Dir { with_file } => {
            std::fs::create_dir(&at).unwrap();
            if *with_file {
                std::fs::write(at.join("x.txt"), CONTENTS[0]).unwrap();
            }
        }
        Replacement::File(c) => std::fs::write(&at, CONTENTS[*c]).unwrap(),
        Replacement::Nothing => {}
    }
    true
}

/// The same swap as a shell command for `--test` (top-level names only, so the shell never acts
/// through a link: the root itself is the only ancestor).
fn swap_script(name: &str, r: &Replacement) -> String {
    let make = match r {
        Replacement::Link(t) => format!("ln -s '{t}' '{name}'"),
        Replacement::Dir { with_file: false } => format!("mkdir '{name}'"),
        Replacement::Dir { with_file: true } => {
            format!("mkdir '{name}' && printf 'one\\ntwo\\nthree\\n' > '{name}/x.txt'")
        }
        Replacement::File(_) => format!("printf 'x\\n' > '{name}'"),
        Replacement::Nothing => "true".to_string(),
    };
    format!("rm -rf '{name}'; {make}")
}

// ---------------------------------------------------------------------------------------------
// Forged state.

fn state_path(u: &mut Unstructured, pl: &Places) -> String {
    match pick(u, 8) {
        0 => [
            "../outside/x.txt",
            "..",
            "",
            ".lancet/pre/x",
            ".git/x",
            "a/../../outside/e",
            "./a",
            "a//b",
        ][pick(u, 8)]
        .to_string(),
        1 => format!(
            "{}/{}",
            Places::s(&pl.outside),
            ["x.txt", "e", "new"][pick(u, 3)]
        ),
        _ => {
            let comps = [
                "a", "b", "d", "e", "l", "m", "x.txt", "y.txt", "new.txt", "outside",
            ];
            let n = range(u, 1, 3);
            (0..n)
                .map(|_| comps[pick(u, comps.len())])
                .collect::<Vec<_>>()
                .join("/")
        }
    }
}

fn file_state(u: &mut Unstructured, pl: &Places) -> FileState {
    match pick(u, 4) {
        0 => FileState::Missing,
        1 | 2 => FileState::File {
            sha256: lancet::sha256_hex(CONTENTS[pick(u, CONTENTS.len())].as_bytes()),
        },
        _ => FileState::Link {
            target: PathBuf::from(link_target(u, pl, 0, "l")),
        },
    }
}

/// Writes a forged journal (and its pre-images) into `<root>/.lancet`.
fn forge_journal(u: &mut Unstructured, pl: &Places, log: &mut String) {
    let state_dir = pl.root.join(".lancet");
    let pre_dir = state_dir.join("pre");
    // Only if the state directory and pre/ are real directories (the harness never writes
    // through a link; in LANCET_FUZZ_STATE mode they may have been swapped).
    for d in [&state_dir, &pre_dir] {
        match d.symlink_metadata() {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                let _ = writeln!(
                    log,
                    "  (forge skipped: {} is not a real directory)",
                    d.display()
                );
                return;
            }
            Err(_) => std::fs::create_dir(d).unwrap(),
        }
    }
    let n = range(u, 1, 3);
    let mut entries = Vec::new();
    for i in 0..n {
        let backup = match pick(u, 4) {
            0 => None,
            1 => Some(["../x", "../../outside/x.txt", "a/b"][pick(u, 3)].to_string()),
            _ => Some(format!("forged-{i}")),
        };
        if let Some(b) = backup.as_deref().filter(|b| !b.contains('/')) {
            let at = pre_dir.join(b);
            remove_entry(&at);
            match pick(u, 4) {
                0 => std::fs::write(&at, CONTENTS[pick(u, CONTENTS.len())]).unwrap(),
                1 => std::os::unix::fs::symlink(pl.outside.join("x.txt"), &at).unwrap(),
                2 => std::fs::hard_link(pl.outside.join("h"), &at).unwrap(),
                _ => std::os::unix::fs::symlink(&pl.outside, &at).unwrap(),
            }
            let kind = std::fs::symlink_metadata(&at).map(|m| m.file_type());
            let _ = writeln!(log, "    pre/{b}: {kind:?}");
        }
        entries.push(Entry {
            path: state_path(u, pl),
            pre: file_state(u, pl),
            post: file_state(u, pl),
            temp: flag(u).then(|| state_path(u, pl)),
            backup,
            in_place: flag(u),
        });
    }
    let dirs = |u: &mut Unstructured| -> Vec<String> {
        let n = range(u, 0, 2);
        (0..n).map(|_| state_path(u, pl)).collect()
    };
    let journal = Journal {
        id: "forged".to_string(),
        root: ["", "", "", "d", "l", "..", "e"][pick(u, 7)].to_string(),
        entries,
        created_dirs: dirs(u),
        removed_dirs: dirs(u),
    };
    let _ = writeln!(log, "    {journal:?}");
    let root = Root::new(&pl.root).unwrap();
    journal.write(&StateDir::locate(&root), false).unwrap();
}

/// Rewrites every checkpoint's `created_dirs` (and sometimes a file path) with fuzzed paths.
fn tamper_meta(u: &mut Unstructured, pl: &Places, log: &mut String) {
    let cp = pl.root.join(".lancet/checkpoints");
    if !cp.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        let _ = writeln!(log, "    (no real checkpoints directory)");
        return;
    }
    let Ok(root) = Root::new(&pl.root) else {
        return;
    };
    let state = StateDir::locate(&root);
    for mut meta in state.list_meta() {
        let n = range(u, 1, 3);
        meta.created_dirs = (0..n).map(|_| state_path(u, pl)).collect();
        if flag(u)
            && let Some(f) = meta.files.first_mut()
        {
            f.path = state_path(u, pl);
        }
        if flag(u) {
            meta.undone = false;
        }
        let _ = writeln!(
            log,
            "    {}: created_dirs {:?}, files {:?}, undone {}",
            meta.id,
            meta.created_dirs,
            meta.files.iter().map(|f| &f.path).collect::<Vec<_>>(),
            meta.undone
        );
        state.save_meta(&meta).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Snapshots.

#[derive(Clone, PartialEq)]
struct Node {
    kind: &'static str,
    mode: u32,
    ino: u64,
    nlink: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    bytes: Option<Vec<u8>>,
    target: Option<PathBuf>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} mode {:o} ino {} nlink {} mtime {}.{:09} ctime {}.{:09}",
            self.kind,
            self.mode,
            self.ino,
            self.nlink,
            self.mtime.0,
            self.mtime.1,
            self.ctime.0,
            self.ctime.1
        )?;
        if let Some(b) = &self.bytes {
            let text = String::from_utf8_lossy(b);
            let cut: String = text.chars().take(60).collect();
            write!(
                f,
                " bytes {cut:?}{}",
                if cut.len() < text.len() { "..." } else { "" }
            )?;
        }
        if let Some(t) = &self.target {
            write!(f, " -> {}", t.display())?;
        }
        Ok(())
    }
}

fn node(p: &Path) -> Node {
    let m = p.symlink_metadata().unwrap();
    let ft = m.file_type();
    let kind = if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else {
        "special"
    };
    Node {
        kind,
        mode: m.mode() & 0o7777,
        ino: m.ino(),
        nlink: m.nlink(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
        bytes: ft.is_file().then(|| std::fs::read(p).unwrap()),
        target: ft.is_symlink().then(|| std::fs::read_link(p).unwrap()),
    }
}

fn snap_tree(dir: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Node>) {
    let n = node(&dir.join(rel));
    let is_dir = n.kind == "dir";
    out.insert(rel.to_path_buf(), n);
    if is_dir {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(rel))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            snap_tree(dir, &rel.join(name), out);
        }
    }
}

/// One directory's names and mtime (not recursive).
fn snap_names(dir: &Path) -> (Vec<String>, (i64, i64)) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let m = dir.symlink_metadata().unwrap();
    (names, (m.mtime(), m.mtime_nsec()))
}

struct Snapshot {
    outside: BTreeMap<PathBuf, Node>,
    iter: (Vec<String>, (i64, i64)),
    proc_dir: (Vec<String>, (i64, i64)),
}

fn snapshot(pl: &Places) -> Snapshot {
    let mut outside = BTreeMap::new();
    snap_tree(&pl.outside, Path::new(""), &mut outside);
    Snapshot {
        outside,
        iter: snap_names(&pl.iter),
        proc_dir: snap_names(&pl.proc_dir),
    }
}

/// The differences, empty when confinement held.
fn differences(before: &Snapshot, pl: &Places) -> Vec<String> {
    let mut diffs = Vec::new();
    if pl
        .outside
        .symlink_metadata()
        .map(|m| m.is_dir())
        .unwrap_or(false)
    {
        let now = snapshot(pl);
        for (p, b) in &before.outside {
            match now.outside.get(p) {
                None => diffs.push(format!("outside/{} was removed (was {b:?})", p.display())),
                Some(n) => {
                    // A file hard-linked into the root shares its inode with an inside name:
                    // lancet linking or renaming that name legitimately moves ctime and nlink.
                    let shared = b.kind == "file" && b.nlink > 1;
                    let same = n.kind == b.kind
                        && n.mode == b.mode
                        && n.ino == b.ino
                        && n.mtime == b.mtime
                        && n.bytes == b.bytes
                        && n.target == b.target
                        && (shared || (n.ctime == b.ctime && n.nlink == b.nlink));
                    if !same {
                        diffs.push(format!(
                            "outside/{} changed:\n      before {b:?}\n      after  {n:?}",
                            p.display()
                        ));
                    }
                }
            }
        }
        for (p, n) in &now.outside {
            if !before.outside.contains_key(p) {
                diffs.push(format!("outside/{} appeared: {n:?}", p.display()));
            }
        }
        if now.iter != before.iter {
            diffs.push(format!(
                "the iteration directory changed: {:?} -> {:?}",
                before.iter, now.iter
            ));
        }
        if now.proc_dir != before.proc_dir {
            diffs.push(format!(
                "the process directory changed: {:?} -> {:?}",
                before.proc_dir, now.proc_dir
            ));
        }
    } else {
        diffs.push("outside/ itself is gone or replaced".to_string());
    }
    if diffs.len() > 12 {
        let more = diffs.len() - 12;
        diffs.truncate(12);
        diffs.push(format!("... and {more} more"));
    }
    diffs
}

// ---------------------------------------------------------------------------------------------

fn options(root: &Path) -> lancet::ApplyOptions {
    let mut o = lancet::ApplyOptions::new(root.to_path_buf());
    o.fsync = false;
    o.checkpoint = true;
    o.syntax_check = false;
    o.test_timeout = std::time::Duration::from_secs(10);
    o
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let proc_dir = proc_dir().clone();
    let iter = proc_dir.join(format!("it-{}", COUNTER.fetch_add(1, Ordering::SeqCst)));
    let _ = std::fs::remove_dir_all(&iter);
    std::fs::create_dir(&iter).unwrap();
    let pl = Places {
        root: iter.join("root"),
        outside: iter.join("outside"),
        iter: iter.clone(),
        proc_dir,
    };
    std::fs::create_dir(&pl.root).unwrap();
    make_outside(&pl.outside);
    let mut log = String::new();
    let _ = writeln!(
        log,
        "scenario in {} (root/ and outside/):",
        pl.iter.display()
    );
    let _ = writeln!(log, " tree:");
    let entries = make_tree(&mut u, &pl, &mut log);
    let before = snapshot(&pl);

    let steps = range(&mut u, 1, 6);
    for step in 0..steps {
        // The first step is always a batch.
        let kind = if step == 0 { 0 } else { pick(&mut u, 9) };
        match kind {
            0..=2 => {
                let batch = make_batch(&mut u, &pl);
                let mut opts = options(&pl.root);
                opts.partial = pick(&mut u, 4) == 0;
                opts.dry_run = pick(&mut u, 8) == 0;
                let mut extra = String::new();
                if pick(&mut u, 4) == 0 {
                    let name = NAMES[pick(&mut u, NAMES.len())];
                    let r = replacement(&mut u, &pl, 0);
                    let exit = pick(&mut u, 2);
                    let script = format!("{}; exit {exit}", swap_script(name, &r));
                    let _ = write!(extra, ", --test {script:?}");
                    opts.test = Some(script);
                }
                let _ = writeln!(
                    log,
                    " step {step}: apply_batch (partial {}, dry_run {}{extra}):\n{}",
                    opts.partial,
                    opts.dry_run,
                    describe_batch(&batch)
                );
                let report = lancet::apply_batch(&batch, &opts).report;
                let _ = writeln!(
                    log,
                    "   -> {:?}: {}",
                    report.status,
                    report.message.lines().next().unwrap_or("")
                );
            }
            3 | 4 => {
                let cands = swap_candidates(&entries);
                let rel = cands[pick(&mut u, cands.len())].clone();
                let depth = rel.split('/').count() - 1;
                let r = replacement(&mut u, &pl, depth);
                let done = do_swap(&pl, &rel, &r);
                let _ = writeln!(
                    log,
                    " step {step}: swap {rel} for {r:?}{}",
                    if done {
                        ""
                    } else {
                        " (skipped: a parent is not a real dir)"
                    }
                );
            }
            5 => {
                let force = flag(&mut u);
                let partial = flag(&mut u);
                let _ = writeln!(log, " step {step}: undo (force {force}, partial {partial})");
                if let Ok(root) = Root::new(&pl.root) {
                    let report = lancet::undo(
                        &root,
                        None,
                        UndoOptions {
                            force,
                            partial,
                            fsync: false,
                            surface: Surface::Cli,
                            protect_settings: false,
                        },
                    )
                    .report;
                    let _ = writeln!(
                        log,
                        "   -> {:?}: {}",
                        report.status,
                        report.message.lines().next().unwrap_or("")
                    );
                }
            }
            6 => {
                let _ = writeln!(log, " step {step}: recover");
                if let Ok(root) = Root::new(&pl.root) {
                    let report = lancet::recover(&root, false);
                    let _ = writeln!(
                        log,
                        "   -> {:?}: {}",
                        report.status,
                        report.message.lines().next().unwrap_or("")
                    );
                }
            }
            7 => {
                let _ = writeln!(log, " step {step}: forge a journal:");
                forge_journal(&mut u, &pl, &mut log);
            }
            _ => {
                let _ = writeln!(log, " step {step}: tamper with the checkpoint log:");
                tamper_meta(&mut u, &pl, &mut log);
            }
        }
        let diffs = differences(&before, &pl);
        if !diffs.is_empty() {
            panic!(
                "CONFINEMENT BROKEN after step {step}\n{log}\ndifferences:\n  {}\n(left in place: {})",
                diffs.join("\n  "),
                pl.iter.display()
            );
        }
    }
    if std::env::var_os("LANCET_FUZZ_VERBOSE").is_some() {
        eprintln!("{log}");
    }
    let _ = std::fs::remove_dir_all(&pl.iter);
}

fuzz_target!(|data: &[u8]| run(data));
