//! `lancet mod --exec CMD`: any codemod tool (`ruff check --fix`, `eslint --fix`, `sed -i`, a
//! libcst script) made transactional. The command runs in a scratch copy of the root, never the
//! person's tree, confined by lancet's sandbox to that copy and a temp directory; what it
//! changed there (content, created, deleted) becomes one batch, applied only if every file it
//! touched is still as it was copied, through the gate, the checkpoint, `--test` and undo.

use crate::apply_options::ApplyOptions;
use crate::report::ModRefusal;
use crate::sandbox::{Policy, Sandbox};
use lancet_core::{Batch, Expectation, FileOp, Format, OpKind, Root, TestRun};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What a command did in its scratch copy: the batch that carries it to the root, what it
/// expects of each file it changes, and the command's run.
pub(super) struct Executed {
    /// The operations, by path.
    pub(super) batch: Batch,
    /// Each changed or deleted file's SHA-256 when it was copied: the batch is refused if the
    /// root's file changed since.
    pub(super) expect: Vec<Expectation>,
    /// The command's run.
    pub(super) run: TestRun,
}

/// A file as copied: its bytes (a link's target, for a link) and what it is.
struct Copied {
    bytes: Vec<u8>,
    executable: bool,
    link: bool,
}

/// Runs `command` in a sandboxed scratch copy of the root and collects what it changed.
pub(super) fn execute(
    root: &Root,
    command: &str,
    accept_exit: &[i32],
    apply: &ApplyOptions,
) -> Result<Executed, ModRefusal> {
    crate::sandbox::available().map_err(|e| ModRefusal::ExecNoSandbox { why: e.0 })?;
    lancet_process::available().map_err(|why| ModRefusal::ExecNoSandbox { why })?;
    let scratch_err = |e: std::io::Error| ModRefusal::ExecScratch {
        error: e.to_string(),
    };
    let scratch = tempfile::Builder::new()
        .prefix("lancet-exec-")
        .tempdir()
        .map_err(scratch_err)?;
    let copy = scratch.path().join("root");
    let tmp = scratch.path().join("tmp");
    std::fs::create_dir(&tmp).map_err(scratch_err)?;
    copy_tree(root, &copy).map_err(scratch_err)?;
    // The files that count: those the walk sees (ignored ones, caches a tool leaves, are not
    // the mod's), as they were before the command ran.
    let before = tracked(&copy).map_err(scratch_err)?;

    let policy = Policy {
        writable: vec![copy.clone(), tmp.clone()],
        no_exec_under: None,
        stdio_only: false,
    };
    let mut sandbox = Sandbox::new(&policy).map_err(|e| ModRefusal::ExecNoSandbox { why: e.0 })?;
    let shell_line = format!("export TMPDIR='{}'\n{command}", tmp.display());
    let bounds = apply.verify();
    let mut run = crate::verify::run_tests(
        &copy,
        &shell_line,
        bounds.timeout,
        bounds.max_output,
        Some((&mut sandbox, EXEC_CONFINEMENT.to_string())),
        bounds.cancel,
    );
    run.command = command.to_string();
    let accepted = !run.timed_out
        && run.interrupted_by.is_none()
        && run
            .exit_code
            .is_some_and(|code| code == 0 || accept_exit.contains(&code));
    if !accepted {
        return Err(ModRefusal::ExecFailed { run: Box::new(run) });
    }
    run.passed = true;
    let after = tracked(&copy).map_err(scratch_err)?;
    let (batch, expect) = changes(&before, &after)?;
    Ok(Executed { batch, expect, run })
}

/// How the report describes the command's confinement.
const EXEC_CONFINEMENT: &str =
    "lancet's sandbox: writes only to its scratch copy of the root and a temp directory";

/// Copies the root (but `.git` and lancet's state) into `to`, through the root's handle:
/// regular files with their executable bit, links as links.
fn copy_tree(root: &Root, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let entries = if dir.is_empty() {
            root.dir().entries()?
        } else {
            root.dir().read_dir(&dir)?
        };
        for entry in entries {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name == ".git" || name == ".lancet" {
                continue;
            }
            let rel = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            let kind = entry.file_type()?;
            let target = to.join(&rel);
            if kind.is_dir() {
                std::fs::create_dir(&target)?;
                stack.push(rel);
            } else if kind.is_symlink() {
                let link = root.dir().read_link_contents(&rel)?;
                std::os::unix::fs::symlink(link, &target)?;
            } else if kind.is_file() {
                std::fs::write(&target, root.dir().read(&rel)?)?;
                let mode = cap_std::fs::PermissionsExt::mode(&entry.metadata()?.permissions());
                std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode & 0o777))?;
            }
        }
    }
    Ok(())
}

/// The walked files of the copy (its `.gitignore`s honoured, hidden files included), by path.
fn tracked(copy: &Path) -> std::io::Result<BTreeMap<String, Copied>> {
    let mut files = BTreeMap::new();
    let mut builder = ignore::WalkBuilder::new(copy);
    builder
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git");
    for entry in builder.build().flatten() {
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(copy) else {
            continue;
        };
        let meta = std::fs::symlink_metadata(path)?;
        if meta.is_dir() {
            continue;
        }
        let link = meta.file_type().is_symlink();
        let bytes = if link {
            std::fs::read_link(path)?
                .into_os_string()
                .into_encoded_bytes()
        } else {
            std::fs::read(path)?
        };
        files.insert(
            rel.to_string_lossy().into_owned(),
            Copied {
                bytes,
                executable: !link && meta.permissions().mode() & 0o111 != 0,
                link,
            },
        );
    }
    Ok(files)
}

/// The batch that carries the copy's changes to the root: new text files created, changed ones
/// written whole, missing ones deleted; anything else (a binary file, a link, a mode alone) is
/// refused, since a batch would carry it wrong.
fn changes(
    before: &BTreeMap<String, Copied>,
    after: &BTreeMap<String, Copied>,
) -> Result<(Batch, Vec<Expectation>), ModRefusal> {
    let unsupported = |path: &str, what: &str| ModRefusal::ExecUnsupported {
        path: path.to_string(),
        what: what.to_string(),
    };
    let text = |path: &str, file: &Copied| {
        String::from_utf8(file.bytes.clone())
            .map_err(|_| unsupported(path, "wrote binary content to"))
    };
    let mut ops = Vec::new();
    let mut expect = Vec::new();
    for (path, new) in after {
        let op = match before.get(path) {
            Some(old)
                if old.bytes == new.bytes
                    && old.executable == new.executable
                    && old.link == new.link =>
            {
                continue;
            }
            Some(old) if old.link || new.link => {
                return Err(unsupported(path, "changed the link"));
            }
            Some(old) if old.bytes == new.bytes => {
                return Err(unsupported(path, "changed only the mode of"));
            }
            Some(old) => {
                if old.executable != new.executable {
                    return Err(unsupported(path, "changed the mode of"));
                }
                expect.push(Expectation {
                    path: path.clone(),
                    sha256: lancet_core::sha256_hex(&old.bytes),
                });
                OpKind::Write {
                    content: text(path, new)?,
                }
            }
            None => {
                if new.link {
                    return Err(unsupported(path, "created the link"));
                }
                OpKind::Create {
                    content: text(path, new)?,
                    executable: new.executable,
                }
            }
        };
        ops.push(FileOp {
            path: path.clone(),
            kind: op,
            line: 0,
        });
    }
    for (path, old) in before {
        if after.contains_key(path) {
            continue;
        }
        expect.push(Expectation {
            path: path.clone(),
            sha256: lancet_core::sha256_hex(&old.bytes),
        });
        ops.push(FileOp {
            path: path.clone(),
            kind: OpKind::Delete,
            line: 0,
        });
    }
    let batch = Batch {
        format: Format::Mod,
        ops,
        notes: Vec::new(),
    };
    Ok((batch, expect))
}
