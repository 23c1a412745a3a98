//! Which language server runs for a file, and exactly what program that is: each found on
//! `PATH` once, resolved to a real executable outside the root, so nothing a model wrote into
//! the tree chooses it.
//!
//! - A `PATH` entry that is relative or lies in the root is skipped, and so is a program whose
//!   real path lies in the root.
//! - rustup's proxy is not run: `rust-analyzer` on `PATH` that is rustup itself is resolved with
//!   `rustup which`, from `/` (no toolchain file of the root counts), and the server runs with
//!   that toolchain pinned (`RUSTUP_TOOLCHAIN`), so the `cargo` and `rustc` it starts ignore a
//!   `rust-toolchain.toml` in the root too; build wrappers are switched off.
//! - typescript-language-server is given the `tsserver.js` of the TypeScript installed beside
//!   it, never one under the root (it would otherwise prefer the workspace's `node_modules`).
//! - gopls runs the `go` found beside it on `PATH` (outside the root): offline
//!   (`GOPROXY=off`), with `GOTOOLCHAIN=local` (a `go.mod` in the root may not choose a
//!   toolchain to download and run) and no cgo (no C compiler runs); in the sandbox its
//!   caches (go's build cache, gopls's own) are in the run's temp directory.
//! - basedpyright and pyright are told which Python to run (`python.pythonPath`): one found on
//!   `PATH` outside the root, never a `.venv/bin/python` under it (a link to the system's Python
//!   passes the sandbox's no-execution-under-the-root rule, and its `site-packages` `.pth`
//!   files run as it starts).

use crate::report::ServerMissing;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// One language server, ready to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCommand {
    /// The program's real path (outside the root).
    pub program: PathBuf,
    /// Its name as found on `PATH`, for messages.
    pub name: String,
    /// Arguments for speaking LSP over stdio (rust-analyzer takes none).
    pub args: Vec<String>,
    /// Environment it runs with, over lancet's own.
    pub env: Vec<(String, String)>,
    /// Variables naming a directory of its own in the sandbox's private temp directory (its
    /// caches: the person's may not be written from the sandbox).
    pub temp_env: Vec<(String, String)>,
    /// The `tsserver.js` pinned for typescript-language-server.
    pub tsserver: Option<PathBuf>,
    /// The Python interpreter pinned for basedpyright and pyright (outside the root).
    pub python: Option<PathBuf>,
    /// Files outside the root it must be able to write in the sandbox (cargo's lock files).
    pub writes: Vec<PathBuf>,
}

/// The language servers lancet may start for a root: each resolved, or why not, the first
/// time a rename needs it (a rename that asks no server spends nothing finding one).
#[derive(Debug)]
pub struct LanguageServers {
    root: PathBuf,
    python: OnceLock<Result<ServerCommand, ServerMissing>>,
    ecma: OnceLock<Result<ServerCommand, ServerMissing>>,
    rust: OnceLock<Result<ServerCommand, ServerMissing>>,
    go: OnceLock<Result<ServerCommand, ServerMissing>>,
}

/// What is sent to a server for one file: its command, LSP language id, initialization options
/// and the answers to its `workspace/configuration` requests (by section).
pub(super) struct ServerSpec {
    pub command: ServerCommand,
    pub language_id: &'static str,
    pub init: Value,
    pub settings: Value,
}

impl ServerSpec {
    /// Whether the server says when its workspace is loaded (rust-analyzer's
    /// `experimental/serverStatus`): a rename asked before that misses sites, such as those
    /// inside `assert_eq!` before the standard library's macros are loaded.
    pub fn reports_quiescence(&self) -> bool {
        self.language_id == "rust"
    }
}

impl LanguageServers {
    /// The servers lancet knows, for work on `root`, each resolved when first needed.
    pub fn resolve(root: &Path) -> LanguageServers {
        LanguageServers {
            root: root.to_path_buf(),
            python: OnceLock::new(),
            ecma: OnceLock::new(),
            rust: OnceLock::new(),
            go: OnceLock::new(),
        }
    }

    /// Every server resolved now (the MCP server does this as it starts).
    pub fn resolve_now(&self) {
        for language in ["python", "typescript", "rust", "go"] {
            let _ = self.for_language(language);
        }
    }

    /// The server for a language (a name of `grammars/languages.toml`), resolved on first
    /// use: its command, or why there is none; `None` for a language lancet knows no server
    /// of.
    fn server(&self, language: &str) -> Option<&Result<ServerCommand, ServerMissing>> {
        let root = self.root.as_path();
        Some(match language {
            "python" => self.python.get_or_init(|| python_server(root)),
            "javascript" | "typescript" | "tsx" => self.ecma.get_or_init(|| ecma_server(root)),
            "rust" => self.rust.get_or_init(|| rust_server(root)),
            "go" => self
                .go
                .get_or_init(|| find(root, &["gopls"]).and_then(|(p, n)| gopls(p, n, root))),
            _ => return None,
        })
    }

    /// Whether a server for this language was found: its name as found, or why none was;
    /// `None` for a language lancet knows no server of.
    pub(crate) fn for_language(&self, language: &str) -> Option<Result<&str, &ServerMissing>> {
        Some(self.server(language)?.as_ref().map(|c| c.name.as_str()))
    }

    /// The server for a file, by its extension, with what is sent at initialization.
    pub(super) fn spec_for(&self, path: &str) -> Option<Result<ServerSpec, ServerMissing>> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        let (language, language_id) = match ext {
            "py" | "pyi" => ("python", "python"),
            "ts" | "mts" | "cts" => ("typescript", "typescript"),
            "tsx" => ("typescript", "typescriptreact"),
            "js" | "mjs" | "cjs" => ("typescript", "javascript"),
            "jsx" => ("typescript", "javascriptreact"),
            "rs" => ("rust", "rust"),
            "go" => ("go", "go"),
            _ => return None,
        };
        let server = self.server(language)?;
        Some(server.clone().map(|command| {
            let init = match language_id {
                "python" | "go" => json!({}),
                // No build scripts, proc macros or `cargo check`: a rename needs the crate's
                // names, and nothing of the project's should run.
                "rust" => json!({
                    "cargo": {"buildScripts": {"enable": false}, "runBuildScripts": false},
                    "procMacro": {"enable": false},
                    "checkOnSave": {"enable": false}
                }),
                _ => json!({
                    // The TypeScript beside the server, never the project's.
                    "tsserver": {
                        "path": command.tsserver.as_ref().map(|p| p.display().to_string()),
                        // No syntax-only server: it answers a rename sent while the project
                        // loads with the open file's sites only.
                        "useSyntaxServer": "never"
                    },
                    // A whole rename: `export { foo }` and `{ foo }` renamed, not aliased.
                    "preferences": {
                        "providePrefixAndSuffixTextForRename": false,
                        "allowRenameOfImportPath": false
                    }
                }),
            };
            let settings = match language_id {
                // What the server asks for by `workspace/configuration`: rust-analyzer its
                // options; basedpyright and pyright which Python to run (the one pinned).
                "rust" => json!({"rust-analyzer": init}),
                "python" => {
                    let python = command.python.as_ref().map(|p| p.display().to_string());
                    json!({"python": {"pythonPath": python, "defaultInterpreterPath": python}})
                }
                _ => json!({}),
            };
            ServerSpec {
                command,
                language_id,
                init,
                settings,
            }
        }))
    }
}

/// basedpyright or pyright, with the Python it is told to run (outside the root).
fn python_server(root: &Path) -> Result<ServerCommand, ServerMissing> {
    let (program, name) = find(root, &["basedpyright-langserver", "pyright-langserver"])?;
    let (python, _) =
        find(root, &["python3", "python"]).map_err(|_| ServerMissing::NoPython(name.clone()))?;
    Ok(ServerCommand {
        program,
        name,
        args: vec!["--stdio".into()],
        env: Vec::new(),
        temp_env: Vec::new(),
        tsserver: None,
        python: Some(python),
        writes: Vec::new(),
    })
}

/// typescript-language-server, with the TypeScript installed beside it.
fn ecma_server(root: &Path) -> Result<ServerCommand, ServerMissing> {
    let (program, name) = find(root, &["typescript-language-server"])?;
    let tsserver = tsserver_beside(&program, root).ok_or_else(|| ServerMissing::NoTypeScript {
        server: name.clone(),
        program: program.display().to_string(),
    })?;
    Ok(ServerCommand {
        program,
        name,
        args: vec!["--stdio".into()],
        env: Vec::new(),
        temp_env: Vec::new(),
        tsserver: Some(tsserver),
        python: None,
        writes: Vec::new(),
    })
}

/// rust-analyzer, rustup's proxy resolved for the toolchain rustup uses outside any project.
fn rust_server(root: &Path) -> Result<ServerCommand, ServerMissing> {
    let rustup = find(root, &["rustup"]).and_then(|rustup| {
        let toolchain = active_toolchain(&rustup)?;
        Ok((rustup, toolchain))
    });
    let (program, name) = find(root, &["rust-analyzer"])?;
    rust_analyzer(program, name, rustup.as_ref().ok(), root)
}

/// The first of `names` on `PATH`, as a real path outside `root`, with the name it was
/// found by.
fn find(root: &Path, names: &[&str]) -> Result<(PathBuf, String), ServerMissing> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .filter(|d| !d.canonicalize().is_ok_and(|c| c.starts_with(root)))
        .collect();
    for name in names {
        for dir in &dirs {
            let candidate = dir.join(name);
            let Ok(real) = candidate.canonicalize() else {
                continue;
            };
            if real.is_file() && !real.starts_with(root) {
                return Ok((real, name.to_string()));
            }
        }
    }
    Err(ServerMissing::NotOnPath(
        names.iter().map(|n| n.to_string()).collect(),
    ))
}

/// gopls, with the `go` it runs (found on `PATH` outside the root) and an environment that
/// fetches nothing, runs no toolchain a `go.mod` names and keeps its caches in the run's own
/// temp directory when sandboxed.
fn gopls(program: PathBuf, name: String, root: &Path) -> Result<ServerCommand, ServerMissing> {
    let (go, _) = find(root, &["go"]).map_err(|_| ServerMissing::NoGo(name.clone()))?;
    let go_dir = go
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let path = std::env::var("PATH").unwrap_or_default();
    let env = [
        ("PATH", format!("{go_dir}:{path}")),
        ("GOPROXY", "off".into()),
        ("GOTOOLCHAIN", "local".into()),
        ("CGO_ENABLED", "0".into()),
    ];
    Ok(ServerCommand {
        program,
        name,
        args: Vec::new(),
        env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        // gopls keeps its own cache under the user cache directory (`$XDG_CACHE_HOME/gopls`,
        // else `~/.cache/gopls`): on a machine where it does not exist yet the sandbox may not
        // create it there, and gopls exits at its first request.
        temp_env: vec![
            ("GOCACHE".into(), "go-build".into()),
            ("GOPLSCACHE".into(), "gopls".into()),
            ("XDG_CACHE_HOME".into(), "cache".into()),
        ],
        tsserver: None,
        python: None,
        writes: Vec::new(),
    })
}

/// How long a question to rustup may take (it may install the toolchain it names).
const RUSTUP_BUDGET: Duration = Duration::from_secs(120);

/// `rustup ARGS` run from `/` (no toolchain file of the root counts), contained.
fn ask_rustup(rustup: &Path, args: &[&str]) -> Result<lancet_process::Finished, ServerMissing> {
    let mut command = Command::new(rustup);
    command.args(args).current_dir("/");
    lancet_process::output(command, RUSTUP_BUDGET)
        .map_err(|e| ServerMissing::RustupUnrunnable(e.to_string()))?
        .ok_or(ServerMissing::RustupSilent(RUSTUP_BUDGET.as_secs()))
}

/// The toolchain rustup uses outside any project (`rustup show active-toolchain` from `/`).
fn active_toolchain(rustup: &(PathBuf, String)) -> Result<String, ServerMissing> {
    let out = ask_rustup(&rustup.0, &["show", "active-toolchain"])?;
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .filter(|_| out.status.success())
        .map(str::to_string)
        .ok_or(ServerMissing::RustupNoToolchain)
}

/// rust-analyzer's real program (rustup's proxy resolved for the pinned toolchain) and its
/// environment.
fn rust_analyzer(
    program: PathBuf,
    name: String,
    rustup: Option<&((PathBuf, String), String)>,
    root: &Path,
) -> Result<ServerCommand, ServerMissing> {
    let is_proxy = program.file_name().is_some_and(|n| n == "rustup");
    let program = match (is_proxy, rustup) {
        (false, _) => program,
        (true, None) => {
            return Err(ServerMissing::ProxyWithoutToolchain(name));
        }
        (true, Some(((rustup, _), toolchain))) => {
            let out = ask_rustup(
                rustup,
                &["which", "rust-analyzer", "--toolchain", toolchain],
            )?;
            let real = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            if !out.status.success() || !real.is_file() {
                return Err(ServerMissing::NoRustAnalyzer(toolchain.clone()));
            }
            let real = real
                .canonicalize()
                .map_err(|e| ServerMissing::Unresolvable(e.to_string()))?;
            if real.starts_with(root) {
                return Err(ServerMissing::UnderProject);
            }
            real
        }
    };
    let mut env: Vec<(String, String)> = [
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_RUSTC_WRAPPER",
    ]
    .iter()
    .map(|k| (k.to_string(), String::new()))
    .collect();
    if let Some((_, toolchain)) = rustup {
        env.push(("RUSTUP_TOOLCHAIN".into(), toolchain.clone()));
    }
    Ok(ServerCommand {
        program,
        name,
        args: Vec::new(),
        env,
        temp_env: Vec::new(),
        tsserver: None,
        python: None,
        writes: cargo_locks(),
    })
}

/// The lock and cache files cargo opens for writing even for `cargo metadata` (in
/// `$CARGO_HOME`, default `~/.cargo`), where they exist: the sandboxed server may write those
/// and nothing else of cargo's.
fn cargo_locks() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(home) = home.filter(|h| h.is_absolute()) else {
        return Vec::new();
    };
    [".package-cache", ".package-cache-mutate", ".global-cache"]
        .iter()
        .map(|name| home.join(name))
        .filter(|p| p.symlink_metadata().is_ok_and(|m| m.is_file()))
        .collect()
}

/// The `typescript/lib/tsserver.js` of the TypeScript installed beside a language server
/// (node's resolution from the server's own place, outside the root).
fn tsserver_beside(program: &Path, root: &Path) -> Option<PathBuf> {
    program.ancestors().skip(1).find_map(|dir| {
        let candidates = [
            dir.join("node_modules/typescript/lib/tsserver.js"),
            dir.join("typescript/lib/tsserver.js"),
        ];
        candidates.into_iter().find_map(|c| {
            let real = c.canonicalize().ok()?;
            (real.is_file() && !real.starts_with(root)).then_some(real)
        })
    })
}

/// How a rename asks a language server: which servers there are (resolved once, outside the
/// root) and whether they must run sandboxed.
#[derive(Debug, Clone)]
pub struct Lsp {
    /// The servers, as resolved.
    pub servers: Arc<LanguageServers>,
    /// Whether a server that cannot be sandboxed may still run.
    pub confinement: Confinement,
}

/// Whether a language server must run in lancet's sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// Sandboxed or not at all (over MCP: the model wrote the tree the server reads).
    Required,
    /// Sandboxed where the kernel can; else unconfined, and the report says so (the CLI: the
    /// person runs it).
    WhereAvailable,
}

impl Lsp {
    /// The servers found for `root` now, sandboxed where possible: what the CLI uses.
    pub fn for_person(root: &std::path::Path) -> Lsp {
        Lsp {
            servers: Arc::new(LanguageServers::resolve(root)),
            confinement: Confinement::WhereAvailable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsserver_is_the_one_beside_the_server_never_the_projects() {
        let place = tempfile::tempdir().unwrap();
        let global = place.path().join("global/lib/node_modules");
        std::fs::create_dir_all(global.join("typescript-language-server/lib")).unwrap();
        std::fs::create_dir_all(global.join("typescript/lib")).unwrap();
        std::fs::write(global.join("typescript/lib/tsserver.js"), "").unwrap();
        let cli = global.join("typescript-language-server/lib/cli.mjs");
        std::fs::write(&cli, "").unwrap();
        let project = place.path().join("project");
        std::fs::create_dir_all(project.join("node_modules/typescript/lib")).unwrap();
        std::fs::write(project.join("node_modules/typescript/lib/tsserver.js"), "").unwrap();
        let found = tsserver_beside(&cli, &project).unwrap();
        assert_eq!(
            found,
            global
                .join("typescript/lib/tsserver.js")
                .canonicalize()
                .unwrap()
        );
        // A server installed inside the project finds none outside it.
        let inside = project.join("node_modules/.bin/cli.mjs");
        std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
        std::fs::write(&inside, "").unwrap();
        assert_eq!(
            tsserver_beside(&inside, &project.canonicalize().unwrap()),
            None
        );
    }
}
