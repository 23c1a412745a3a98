//! `lancet rename --lsp`: the project's language server decides what a rename touches (it has
//! the types lancet's own resolution lacks), and lancet applies the answer as one of its
//! transactions: stale check, syntax gate, checkpoint, journaled commit, `--test`.
//!
//! The server is started for one rename over stdio (LSP's `Content-Length` framing):
//! `initialize`, `initialized`, `textDocument/didOpen` of the file, `textDocument/prepareRename`,
//! `textDocument/rename`, `shutdown`. Python is served by `basedpyright-langserver` (or
//! `pyright-langserver`), JavaScript and TypeScript by `typescript-language-server`, Rust by
//! `rust-analyzer`, found on `PATH`. Every request has a deadline; a server that is missing, fails, hangs, answers with
//! a file operation or with an edit outside the root is refused, nothing written.

use super::At;
use crate::batch::{Batch, FileOp, Format, OpKind, Span};
use crate::digest::sha256_hex;
use crate::path::Root;
use crate::report::{ErrorKind, RenameSummary, Report, Site, Status};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long the server may take to start, index the project and answer the rename
/// (`LANCET_LSP_TIMEOUT`, in seconds, overrides it).
const DEADLINE: Duration = Duration::from_secs(90);

fn time_allowed() -> Duration {
    std::env::var("LANCET_LSP_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(DEADLINE, Duration::from_secs)
}

/// A language server for a file, by its extension: the program names tried on `PATH`, the
/// LSP language id and the initialization options.
struct ServerSpec {
    programs: &'static [&'static str],
    /// Arguments for speaking LSP over stdio (rust-analyzer takes none, and refuses `--stdio`).
    args: &'static [&'static str],
    language_id: &'static str,
    init: Value,
}

fn spec_for(path: &str) -> Option<ServerSpec> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    let ts_init = json!({
        // No syntax-only server: it answers a rename sent while the project loads with the
        // open file's sites only.
        "tsserver": {"useSyntaxServer": "never"},
        // A whole rename: `export { foo }` and `{ foo }` renamed, not aliased.
        "preferences": {
            "providePrefixAndSuffixTextForRename": false,
            "allowRenameOfImportPath": false
        }
    });
    let (programs, language_id, init): (&'static [&'static str], _, _) = match ext {
        "py" | "pyi" => (
            &["basedpyright-langserver", "pyright-langserver"],
            "python",
            json!({}),
        ),
        "ts" | "mts" | "cts" => (&["typescript-language-server"], "typescript", ts_init),
        "tsx" => (&["typescript-language-server"], "typescriptreact", ts_init),
        "js" | "mjs" | "cjs" => (&["typescript-language-server"], "javascript", ts_init),
        "jsx" => (&["typescript-language-server"], "javascriptreact", ts_init),
        // No build scripts, proc macros or `cargo check`: a rename needs the crate's names.
        "rs" => (
            &["rust-analyzer"],
            "rust",
            json!({
                "cargo": {"buildScripts": {"enable": false}, "runBuildScripts": false},
                "procMacro": {"enable": false},
                "checkOnSave": {"enable": false}
            }),
        ),
        _ => return None,
    };
    let args: &'static [&'static str] = if language_id == "rust" {
        &[]
    } else {
        &["--stdio"]
    };
    Some(ServerSpec {
        programs,
        args,
        language_id,
        init,
    })
}

/// The first of `names` found on `PATH`.
fn on_path(names: &[&str]) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

fn percent_encode(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", percent_encode(&path.to_string_lossy()))
}

/// A running server: its stdin, and the messages its stdout yields.
struct Server {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// What `workspace/configuration` is answered with (rust-analyzer asks for its options).
    settings: Value,
    name: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(
        program: &std::path::Path,
        args: &[&str],
        root: &std::path::Path,
        settings: Value,
    ) -> std::io::Result<Server> {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let input = child.stdin.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        let output = child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            while let Some(message) = read_message(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        Ok(Server {
            child,
            input,
            messages,
            next_id: 1,
            settings,
            name: program
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let body = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("the language server stopped reading: {e}"))
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its answer, answering the server's own requests
    /// meanwhile (configuration: nothing set; the rest: null).
    fn request(&mut self, method: &str, params: Value, deadline: Instant) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "{} did not answer {method} within {} s",
                        self.name,
                        time_allowed().as_secs()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{} exited during {method}", self.name));
                }
            };
            if let Some(server_method) = message.get("method").and_then(Value::as_str) {
                if let Some(request_id) = message.get("id") {
                    let result = if server_method == "workspace/configuration" {
                        let items = message["params"]["items"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        Value::Array(
                            items
                                .iter()
                                .map(|item| match item["section"].as_str() {
                                    Some("rust-analyzer") => self.settings.clone(),
                                    _ => Value::Null,
                                })
                                .collect(),
                        )
                    } else {
                        Value::Null
                    };
                    self.send(&json!({"jsonrpc": "2.0", "id": request_id, "result": result}))?;
                }
                continue;
            }
            if message.get("id").and_then(Value::as_i64) == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(format!(
                        "{} refused {method}: {}{}",
                        self.name,
                        error["message"].as_str().unwrap_or("an error"),
                        // ContentModified: the server is still loading the project.
                        if error["code"].as_i64() == Some(-32801) {
                            " (still loading)"
                        } else {
                            ""
                        }
                    ));
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
        }
    }
}

impl Server {
    /// [`Server::request`], asked again every half second while the server says it is still
    /// loading the project (rust-analyzer answers ContentModified, or "waiting for cargo
    /// metadata", until its workspace is loaded).
    fn request_when_ready(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, String> {
        loop {
            match self.request(method, params.clone(), deadline) {
                Err(e)
                    if (e.ends_with("(still loading)") || e.contains("waiting for"))
                        && Instant::now() + Duration::from_millis(500) < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }
}

/// One LSP message from a `Content-Length` framed stream.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some(value) = header.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The UTF-16 column of byte `offset` in `text` (0-based line and column).
fn position_of(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..offset].encode_utf16().count())
}

/// The byte offset of an LSP position (0-based line, UTF-16 column) in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = match line {
        0 => 0,
        _ => text.match_indices('\n').nth(line - 1)?.0 + 1,
    };
    let rest = &text[start..];
    let mut units = 0;
    for (i, c) in rest.char_indices() {
        if units >= column {
            return Some(start + i);
        }
        if c == '\n' {
            return (units == column).then_some(start + i);
        }
        units += c.len_utf16();
    }
    (units == column).then_some(text.len())
}

fn refused(kind: ErrorKind, detail: String, next: &str) -> Report {
    Report::batch_error(Status::Refused, kind, detail, next)
}

/// Asks the server what renaming the identifier at `at` to `new` changes, and applies it.
pub(super) fn rename(
    root: &Root,
    at: &At,
    new: &str,
    apply: &crate::ApplyOptions,
) -> crate::Applied {
    match edits(root, at, new) {
        Ok((server, files)) => {
            let mut renamed = Vec::new();
            let ops = files
                .into_iter()
                .map(|(path, (sha256, text, spans))| {
                    let starts: Vec<usize> = std::iter::once(0)
                        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                        .collect();
                    for s in &spans {
                        let line = starts.partition_point(|&x| x <= s.start);
                        renamed.push(Site {
                            path: path.clone(),
                            line,
                            column: s.start - starts[line - 1] + 1,
                        });
                    }
                    FileOp {
                        path,
                        kind: OpKind::Splice {
                            base_sha256: sha256,
                            spans,
                        },
                        line: 0,
                    }
                })
                .collect::<Vec<_>>();
            let summary = RenameSummary {
                old: at.name.clone(),
                new: new.to_string(),
                files_scanned: ops.len(),
                files_parsed: ops.len(),
                files_changed: ops.len(),
                sites: renamed.len(),
                definitions: Vec::new(),
                mentions: Vec::new(),
                engine: format!("lsp:{server}"),
                renamed,
                unresolved: Vec::new(),
                outside: Vec::new(),
                skipped_files: Vec::new(),
            };
            let batch = Batch {
                format: Format::Rename,
                ops,
                notes: Vec::new(),
            };
            let mut applied =
                crate::apply_batch_prechecked(&batch, apply, &crate::syntax::Prechecks::new());
            applied.report = applied.report.with_rename(summary);
            applied
        }
        Err(report) => (*report).into(),
    }
}

/// Each file's (sha256, text, spans) the server's rename changes, by path under the root.
type FileEdits = BTreeMap<String, (String, String, Vec<Span>)>;

fn edits(root: &Root, at: &At, new: &str) -> Result<(String, FileEdits), Box<Report>> {
    let no_server = |detail: String| {
        Box::new(refused(
            ErrorKind::Usage,
            detail,
            "Install the language server (Python: `pip install basedpyright`; JavaScript/TypeScript: `npm install -g typescript-language-server typescript`), or rename without --lsp.",
        ))
    };
    let spec = spec_for(&at.path)
        .ok_or_else(|| no_server(format!("lancet knows no language server for {}", at.path)))?;
    let program = on_path(spec.programs).ok_or_else(|| {
        no_server(format!(
            "no {} on PATH for {}",
            spec.programs.join(" or "),
            at.path
        ))
    })?;
    let failed = |detail: String| {
        Box::new(refused(
            ErrorKind::Io,
            detail,
            "Nothing was written. Check the language server (it must index the project), or rename without --lsp.",
        ))
    };
    let root_dir = root.path();
    let mut server = Server::start(&program, spec.args, root_dir, spec.init.clone())
        .map_err(|e| failed(format!("cannot start {}: {e}", program.display())))?;
    let deadline = Instant::now() + time_allowed();
    let root_uri = uri_of(root_dir);
    server
        .request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root_uri,
                "rootPath": root_dir,
                "workspaceFolders": [{"uri": root_uri, "name": "root"}],
                "capabilities": {
                    "workspace": {"workspaceEdit": {"documentChanges": true}, "configuration": true, "workspaceFolders": true},
                    "textDocument": {"rename": {"prepareSupport": true}, "synchronization": {}},
                    "general": {"positionEncodings": ["utf-16"]}
                },
                "initializationOptions": spec.init,
            }),
            deadline,
        )
        .map_err(failed)?;
    server.notify("initialized", json!({})).map_err(failed)?;
    let file = root_dir.join(&at.path);
    let uri = uri_of(&file);
    let text = root
        .read_regular(&root.rel(&at.path).map_err(|e| failed(e.to_string()))?)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .ok_or_else(|| failed(format!("{} cannot be read", at.path)))?;
    server
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": spec.language_id, "version": 1, "text": text}}),
        )
        .map_err(failed)?;
    let (line, character) = position_of(&text, at.offset);
    let position =
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let prepared = server
        .request_when_ready("textDocument/prepareRename", position.clone(), deadline)
        .map_err(failed)?;
    if prepared.is_null() {
        return Err(Box::new(refused(
            ErrorKind::NoMatch,
            format!(
                "{} says `{}` at {} cannot be renamed",
                server.name, at.name, at.place
            ),
            "Point --at at a symbol the project defines.",
        )));
    }
    let mut params = position;
    params["newName"] = json!(new);
    let edit = server
        .request_when_ready("textDocument/rename", params, deadline)
        .map_err(failed)?;
    let _ = server.request(
        "shutdown",
        Value::Null,
        Instant::now() + Duration::from_secs(5),
    );
    let _ = server.notify("exit", Value::Null);
    let name = server.name.clone();
    Ok((name, to_spans(root, &edit, &at.name).map_err(failed)?))
}

/// A workspace edit as spans per file of the root; refused when it touches a file outside
/// the root or creates, renames or deletes files.
fn to_spans(root: &Root, edit: &Value, old: &str) -> Result<FileEdits, String> {
    let mut per_uri: Vec<(String, Vec<Value>)> = Vec::new();
    if let Some(changes) = edit.get("documentChanges").and_then(Value::as_array) {
        for change in changes {
            if change.get("kind").is_some() {
                return Err(format!(
                    "the language server's rename {}s a file ({}); lancet renames identifiers only",
                    change["kind"].as_str().unwrap_or("change"),
                    change
                        .get("uri")
                        .or(change.get("oldUri"))
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                ));
            }
            let uri = change["textDocument"]["uri"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            per_uri.push((uri, change["edits"].as_array().cloned().unwrap_or_default()));
        }
    } else if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            per_uri.push((uri.clone(), edits.as_array().cloned().unwrap_or_default()));
        }
    }
    // The server was given the root's own (canonical) path; what it names is confined by the
    // root's handle below, never opened by its absolute path.
    let canonical = root.path();
    let mut out = FileEdits::new();
    for (uri, edits) in per_uri {
        let path = uri
            .strip_prefix("file://")
            .map(percent_decode)
            .ok_or_else(|| format!("the language server edits {uri}, which is not a file"))?;
        let path = std::path::Path::new(&path);
        let rel = path.strip_prefix(canonical).map_err(|_| {
            format!(
                "the language server edits {}, outside the root",
                path.display()
            )
        })?;
        let rel = root
            .rel(&rel.to_string_lossy())
            .map_err(|e| format!("the language server edits {}: {e}", path.display()))?;
        let bytes = root
            .read_regular(&rel)
            .ok_or_else(|| format!("{rel} (edited by the language server) cannot be read"))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| format!("{rel} (edited by the language server) is not UTF-8"))?;
        let mut spans = Vec::new();
        for e in edits {
            let range = &e["range"];
            let at = |p: &Value| {
                offset_of(
                    &text,
                    p["line"].as_u64().unwrap_or(u64::MAX) as usize,
                    p["character"].as_u64().unwrap_or(u64::MAX) as usize,
                )
            };
            let (Some(start), Some(end)) = (at(&range["start"]), at(&range["end"])) else {
                return Err(format!(
                    "the language server's edit of {rel} is outside the file"
                ));
            };
            if start > end || &text[start..end] != old {
                return Err(format!(
                    "the language server's edit of {rel} replaces {:?}, not `{old}`",
                    text.get(start..end).unwrap_or("?")
                ));
            }
            let line = text[..start].matches('\n').count() + 1;
            spans.push(Span {
                start,
                end,
                new: e["newText"].as_str().unwrap_or_default().to_string(),
                line,
            });
        }
        spans.sort_by_key(|s| s.start);
        spans.dedup_by_key(|s| s.start);
        if !spans.is_empty() {
            out.insert(rel.to_string(), (sha256_hex(&bytes), text, spans));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_utf16_both_ways() {
        let text = "a = 1\nb\u{1F600}c = d\n";
        let offset = text.find('c').unwrap();
        assert_eq!(position_of(text, offset), (1, 3));
        assert_eq!(offset_of(text, 1, 3), Some(offset));
        assert_eq!(offset_of(text, 0, 5), Some(5));
        assert_eq!(offset_of(text, 0, 9), None);
        assert_eq!(offset_of(text, 2, 0), Some(text.len()));
        assert_eq!(offset_of(text, 3, 0), None);
    }

    #[test]
    fn uris_round_trip_and_messages_are_framed() {
        let path = "/tmp/a b/c#d.py";
        let uri = uri_of(std::path::Path::new(path));
        assert_eq!(uri, "file:///tmp/a%20b/c%23d.py");
        assert_eq!(percent_decode(uri.strip_prefix("file://").unwrap()), path);
        let mut stream: &[u8] =
            b"Content-Length: 16\r\n\r\n{\"id\":1,\"x\":[2]}Content-Length: 2\r\n\r\n{}";
        let mut reader = BufReader::new(&mut stream);
        assert_eq!(read_message(&mut reader), Some(json!({"id": 1, "x": [2]})));
        assert_eq!(read_message(&mut reader), Some(json!({})));
        assert_eq!(read_message(&mut reader), None);
    }
}
