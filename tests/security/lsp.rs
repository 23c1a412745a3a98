//! Critical 2 and Medium 7: `rename --lsp` runs a language server over a tree a model wrote.
//! Over MCP it runs only when the person allowed it at start; the server is the real program
//! found then, outside the root (rustup's proxy resolved, so a model-written
//! `rust-toolchain.toml` names nothing; TypeScript pinned beside the server, never the
//! project's `node_modules`); it runs sandboxed (no program under the root executes); its
//! answer must be the rename and nothing else; an oversized message is refused; its whole
//! process group goes at the end.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet_env, temp_tree};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const FAKE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/suite/lsp/fake_langserver.py"
);

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A PATH whose first directory holds `tools` (name → the file it links to).
fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Whether this kernel can sandbox (the MCP server requires it for lsp).
fn landlock() -> bool {
    let out = lancet_env(
        &[
            "apply",
            "-C",
            r(temp_tree(&[]).path()),
            "--dry-run",
            "--sandbox",
            "--test",
            "true",
        ],
        b"*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n",
        &[],
    );
    out.status.code() == Some(0)
}

/// An edit renaming `close` on lines 1 and 5 of `file` (as the fake server's answer).
fn rename_edit(file: &str, new: &str) -> String {
    format!(
        r#"{{"changes": {{"{{ROOT}}/{file}": [
        {{"range": {{"start": {{"line": 0, "character": 4}}, "end": {{"line": 0, "character": 9}}}}, "newText": "{new}"}},
        {{"range": {{"start": {{"line": 4, "character": 0}}, "end": {{"line": 4, "character": 5}}}}, "newText": "{new}"}}]}}}}"#
    )
}

#[test]
fn over_mcp_lsp_needs_the_persons_permission() {
    let dir = temp_tree(&[("a.py", b"def close():\n    pass\n\n\nclose()\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let a = mcp.call(
        "rename_symbol",
        json!({"old": "", "new": "shutdown", "at": "a.py:1:5", "lsp": true}),
    );
    assert!(a.is_error && a.text.contains("--allow-lsp"), "{a:?}");
}

/// The attack: a model-written `rust-toolchain.toml` naming `<root>/tc` and an executable
/// `tc/bin/rust-analyzer`; rustup's proxy, run in the root, would execute it. Here rustup is a
/// fake that behaves like the real one (as `rust-analyzer` it follows the toolchain file of
/// its working directory, unless RUSTUP_TOOLCHAIN is set).
#[test]
fn a_model_written_toolchain_file_never_runs() {
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    let marker = tools.path().join("planted-program-ran");
    let server = tools.path().join("toolchain/bin/rust-analyzer");
    std::fs::create_dir_all(server.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(Path::new(FAKE).canonicalize().unwrap(), &server).unwrap();
    executable(
        &bin.join("rustup"),
        &format!(
            "#!/bin/sh\n\
             case \"$(basename \"$0\")\" in\n\
             rust-analyzer)\n\
               if [ -z \"$RUSTUP_TOOLCHAIN\" ] && [ -f rust-toolchain.toml ]; then\n\
                 exec \"$(sed -n 's/^path = \"\\(.*\\)\"/\\1/p' rust-toolchain.toml)/bin/rust-analyzer\"\n\
               fi\n\
               exec {server} ;;\n\
             esac\n\
             case \"$1 $2\" in\n\
             'show active-toolchain') echo 'fake-toolchain (default)' ;;\n\
             'which rust-analyzer') echo {server} ;;\n\
             *) exit 1 ;;\n\
             esac\n",
            server = server.display()
        ),
    );
    std::os::unix::fs::symlink("rustup", bin.join("rust-analyzer")).unwrap();
    let dir = temp_tree(&[("src/lib.rs", b"pub fn close() {}\n\n\n\nclose();\n")]);
    let root = dir.path();
    let path = path_with(&bin);
    let edit = rename_edit("src/lib.rs", "shutdown").replace(
        "\"character\": 4}, \"end\": {\"line\": 0, \"character\": 9}",
        "\"character\": 7}, \"end\": {\"line\": 0, \"character\": 12}",
    );
    let env = [
        ("PATH", path.as_str()),
        ("FAKE_LSP", "ok"),
        ("FAKE_LSP_EDIT", edit.as_str()),
        ("LANCET_LSP_TIMEOUT", "10"),
    ];
    let mut mcp = Mcp::start(root, &["--allow-lsp"], &env);
    // The model plants the toolchain (an executable file, through a unified diff's mode).
    let plant = format!(
        "diff --git a/rust-toolchain.toml b/rust-toolchain.toml\nnew file mode 100644\n--- /dev/null\n+++ b/rust-toolchain.toml\n@@ -0,0 +1,2 @@\n+[toolchain]\n+path = \"{root}/tc\"\n\
         diff --git a/tc/bin/rust-analyzer b/tc/bin/rust-analyzer\nnew file mode 100755\n--- /dev/null\n+++ b/tc/bin/rust-analyzer\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch {marker}\n",
        root = root.display(),
        marker = marker.display()
    );
    let a = mcp.call("apply_patch", json!({"text": plant}));
    assert!(!a.is_error, "{a:?}");
    let a = mcp.call(
        "rename_symbol",
        json!({"old": "", "new": "shutdown", "at": "src/lib.rs:1:8", "lsp": true}),
    );
    if landlock() {
        assert!(!a.is_error, "{a:?}");
        assert_eq!(
            a.structured["rename"]["engine"], "lsp:rust-analyzer",
            "{a:?}"
        );
        assert!(
            std::fs::read_to_string(root.join("src/lib.rs"))
                .unwrap()
                .contains("shutdown();")
        );
    } else {
        assert_eq!(a.structured["error"]["kind"], "sandbox", "{a:?}");
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!marker.exists(), "the model's toolchain program ran");
}

/// typescript-language-server is told which tsserver to run: the one installed beside it, never
/// a `node_modules/typescript` under the root (which a model can write).
#[test]
fn typescript_is_pinned_to_the_one_beside_the_server() {
    let tools = tempfile::tempdir().unwrap();
    let modules = tools.path().join("lib/node_modules");
    let cli = modules.join("typescript-language-server/lib/cli.py");
    executable(&cli, &std::fs::read_to_string(FAKE).unwrap());
    std::fs::create_dir_all(modules.join("typescript/lib")).unwrap();
    std::fs::write(
        modules.join("typescript/lib/tsserver.js"),
        "// the person's TypeScript\n",
    )
    .unwrap();
    let bin = tools.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&cli, bin.join("typescript-language-server")).unwrap();
    let dir = temp_tree(&[
        ("a.ts", b"function close() {}\n\n\n\nclose()\n"),
        (
            "node_modules/typescript/lib/tsserver.js",
            b"require('fs').writeFileSync('/tmp/pwned', '')\n",
        ),
    ]);
    let root = dir.path();
    let path = path_with(&bin);
    let edit = rename_edit("a.ts", "shutdown").replace(
        "\"character\": 4}, \"end\": {\"line\": 0, \"character\": 9}",
        "\"character\": 9}, \"end\": {\"line\": 0, \"character\": 14}",
    );
    let env = [
        ("PATH", path.as_str()),
        ("FAKE_LSP", "tsserver"),
        ("FAKE_LSP_EDIT", edit.as_str()),
        ("LANCET_LSP_TIMEOUT", "10"),
    ];
    let out = lancet_env(
        &[
            "rename",
            "-C",
            r(root),
            "--at",
            "a.ts:1:10",
            "shutdown",
            "--lsp",
            "--json",
        ],
        b"",
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        std::fs::read_to_string(root.join("a.ts"))
            .unwrap()
            .starts_with("function shutdown()")
    );
}

/// Medium 7: the server's answer is checked edit by edit (the new name, or a shorthand's
/// expansion, nothing else); a message over 64 MiB is refused, not read; everything the server
/// started is killed with it.
#[test]
fn a_language_servers_answer_is_checked_and_its_processes_end_with_it() {
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        Path::new(FAKE).canonicalize().unwrap(),
        bin.join("basedpyright-langserver"),
    )
    .unwrap();
    let path = path_with(&bin);
    let original = "def close():\n    pass\n\n\nclose()\n";
    let dir = temp_tree(&[("a.py", original.as_bytes())]);
    let root = dir.path();
    let marker: PathBuf = tools.path().join("orphan-survived");
    let run = |mode: &str, edit: &str, extra: &[(&str, &str)]| {
        let mut env = vec![
            ("PATH", path.as_str()),
            ("FAKE_LSP", mode),
            ("FAKE_LSP_EDIT", edit),
            ("LANCET_LSP_TIMEOUT", "10"),
            ("FAKE_LSP_MARKER", r(&marker)),
        ];
        env.extend_from_slice(extra);
        let out = lancet_env(
            &[
                "rename",
                "-C",
                r(root),
                "--at",
                "a.py:1:5",
                "shutdown",
                "--lsp",
                "--json",
            ],
            b"",
            &env,
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
        (out.status.code(), v)
    };
    let (code, v) = run(
        "ok",
        &rename_edit("a.py", "shutdown; import os; os.system('x')"),
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("which is not renaming `close` to `shutdown`"),
        "{v:#}"
    );
    let started = std::time::Instant::now();
    let (code, v) = run("huge", &rename_edit("a.py", "shutdown"), &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("over lancet's cap of 64 MiB"),
        "{v:#}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "refused at once"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        original
    );
    // Unconfined (no Landlock here, as far as lancet knows), so only the kill stops the child.
    let (code, v) = run(
        "orphan",
        &rename_edit("a.py", "shutdown"),
        &[("LANCET_FAILPOINT", "no-landlock:1")],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert!(v["notes"].to_string().contains("ran unconfined"), "{v:#}");
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(!marker.exists(), "a process the server started outlived it");
}

/// Sandboxed, the server cannot execute a program under the root (what a model wrote).
#[test]
fn a_sandboxed_language_server_executes_nothing_under_the_root() {
    if !landlock() {
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        Path::new(FAKE).canonicalize().unwrap(),
        bin.join("basedpyright-langserver"),
    )
    .unwrap();
    let dir = temp_tree(&[("a.py", b"def close():\n    pass\n\n\nclose()\n")]);
    let root = dir.path();
    executable(&root.join("tool.sh"), "#!/bin/sh\nexit 0\n");
    let path = path_with(&bin);
    let edit = rename_edit("a.py", "shutdown");
    let out = lancet_env(
        &[
            "rename",
            "-C",
            r(root),
            "--at",
            "a.py:1:5",
            "shutdown",
            "--lsp",
            "--json",
        ],
        b"",
        &[
            ("PATH", path.as_str()),
            ("FAKE_LSP", "exec"),
            ("FAKE_LSP_EDIT", edit.as_str()),
            ("LANCET_LSP_TIMEOUT", "10"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the server could execute tool.sh: {}",
        describe(&out)
    );
}

/// Medium: basedpyright ran `<root>/.venv/bin/python`, a link to the system's Python (which
/// passes the sandbox's no-execution-under-the-root rule), and the model's `.pth` in the venv's
/// `site-packages` ran. The server is told to run the Python found outside the root, and it can
/// neither write `/dev/shm` nor connect to a Unix socket (it talks over stdio).
#[test]
fn a_python_language_server_runs_the_interpreter_found_outside_the_root() {
    if !landlock() {
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        Path::new(FAKE).canonicalize().unwrap(),
        bin.join("basedpyright-langserver"),
    )
    .unwrap();
    let dir = temp_tree(&[("a.py", b"def close():\n    pass\n\n\nclose()\n")]);
    let root = dir.path();
    // The model's venv: the system's Python by a link, and a .pth that runs at its start.
    let asked = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])",
        ])
        .output()
        .unwrap();
    let asked = String::from_utf8(asked.stdout).unwrap();
    let (python, version) = asked.trim().split_once('\n').unwrap();
    let python = Path::new(python).canonicalize().unwrap();
    let venv = root.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::os::unix::fs::symlink(&python, venv.join("bin/python")).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!(
            "home = {}\ninclude-system-site-packages = false\n",
            python.parent().unwrap().display()
        ),
    )
    .unwrap();
    let site = venv.join(format!("lib/python{version}/site-packages"));
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("evil.pth"), "import sys; print('PTH-RAN')\n").unwrap();
    let socket = tools.path().join("service.sock");
    let _service = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let path = path_with(&bin);
    let edit = rename_edit("a.py", "shutdown");
    let out = lancet_env(
        &[
            "rename",
            "-C",
            r(root),
            "--at",
            "a.py:1:5",
            "shutdown",
            "--lsp",
            "--json",
        ],
        b"",
        &[
            ("PATH", path.as_str()),
            ("FAKE_LSP", "python"),
            ("FAKE_LSP_EDIT", edit.as_str()),
            ("FAKE_LSP_SOCKET", r(&socket)),
            ("LANCET_LSP_TIMEOUT", "20"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        std::fs::read_to_string(root.join("a.py"))
            .unwrap()
            .starts_with("def shutdown()")
    );
}
