//! `lancet rename --lsp`: the project's language server decides what a rename touches (it has
//! the types lancet's own resolution lacks), and lancet applies the answer as one of its
//! transactions: stale check, syntax gate, checkpoint, journaled commit, `--test`.
//!
//! The server is started for one rename over stdio ([`protocol`]): `initialize`,
//! `initialized`, `textDocument/didOpen` of the file, `textDocument/prepareRename`,
//! `textDocument/rename`, `shutdown`. Python is served by `basedpyright-langserver` (or
//! `pyright-langserver`), JavaScript and TypeScript by `typescript-language-server`, Rust by
//! `rust-analyzer`, each resolved to a real program outside the root ([`servers`]).
//!
//! A server reads the tree, and the tree may be a model's: it runs in lancet's sandbox where the
//! kernel has one — it executes no program under the root, writes nothing but a temp
//! directory, reaches no network ([`crate::sandbox`]); over MCP that is required. Every request
//! has a deadline; a server that is missing, fails, hangs, sends an oversized message, answers
//! with a file operation, with an edit outside the root, or with an edit other than the new
//! name (or a shorthand's expansion) is refused, nothing written.

mod definitions;
mod protocol;
pub(super) mod servers;
mod unseen;

pub(crate) use definitions::{Answer, Asked, Place, ask_definitions};

pub use servers::{Confinement, LanguageServers, Lsp};

use super::at::At;
use crate::report::Report;
use crate::report::{
    RenameRefusal, RenameSummary, ServerMissing, ServerRefusal, ServerTrouble, Site,
};
use crate::sandbox::{Policy, Sandbox};
use lancet_core::Root;
use lancet_core::notes::BatchNote;
use lancet_core::sha256_hex;
use lancet_core::{Batch, FileOp, Format, OpKind, Span};
use protocol::{Server, offset_of, percent_decode, position_of, uri_of};
use serde_json::{Value, json};
use servers::ServerSpec;
use std::collections::{BTreeMap, BTreeSet};
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

/// Asks the server what renaming the identifier at `at` to `opts.new` changes, and applies it
/// with lancet's own decisions where the server does not look (Rust's doctests and
/// `macro_rules!` bodies, Python's doctests, every language's strings and comments: [`unseen`]);
/// a special name is refused as lancet's own rename refuses it.
pub(super) fn rename(
    root: &Root,
    at: &At,
    opts: &super::model::RenameOptions,
    lsp: &Lsp,
    apply: &crate::apply_options::ApplyOptions,
) -> crate::applied::Applied {
    // A special name is refused before any server is looked for: the server's rename leaves
    // what the interpreter calls by that name as much as lancet's would.
    let language = lancet_syntax::languages::language_for(&at.path, b"").map(|l| l.name.as_str());
    let python = language == Some("python");
    if let Some(refused) = super::refusal::special_name(python, opts) {
        return Report::rename_refused(&refused, apply.surface).into();
    }
    // lancet's own scan of the name finds what the server leaves: the mentions in strings and
    // comments (listed; renamed as --include-strings and --include-comments say), and a Python
    // string that names the attribute, refused as lancet's own rename refuses it.
    let (scan, mut mentions) = match unseen::own_scan_beside(root, at, language, opts, apply) {
        Ok(found) => found,
        Err(report) => return (*report).into(),
    };
    let new = opts.new.as_str();
    match edits(root, at, new, lsp) {
        Ok((server, mut files, unconfined)) => {
            let unseen = match unseen::sites_unseen(scan, apply, (&server, &files)) {
                Ok(unseen) => unseen,
                Err(report) => return (*report).into(),
            };
            mentions.mark_renamed_by(&files);
            let in_text: BTreeSet<(String, usize)> = mentions
                .files
                .iter()
                .flat_map(|(path, (_, _, spans))| spans.iter().map(|s| (path.clone(), s.start)))
                .collect();
            for (path, (sha256, text, spans)) in unseen.files.into_iter().chain(mentions.files) {
                let entry = files
                    .entry(path)
                    .or_insert_with(|| (sha256, text, Vec::new()));
                entry.2.extend(spans);
                entry.2.sort_by_key(|s| (s.start, s.end));
                entry.2.dedup_by_key(|s| s.start);
            }
            let at_name = at.name.clone();
            let mut renamed = Vec::new();
            let mut definitions = Vec::new();
            let ops = files
                .into_iter()
                .map(|(path, (sha256, text, spans))| {
                    let starts = lancet_core::line_starts(&text);
                    let named = |s: &&Span| !in_text.contains(&(path.clone(), s.start));
                    let at: Vec<usize> = spans.iter().filter(named).map(|s| s.start).collect();
                    definitions.extend(
                        super::scan::definitions_at(&path, &text, &at, &at_name).unwrap_or_else(
                            || super::foreign::definitions_among(&path, &text, &at, &at_name),
                        ),
                    );
                    for s in spans.iter().filter(named) {
                        let line = lancet_core::line_of(&starts, s.start);
                        renamed.push(Site {
                            path: path.clone(),
                            line,
                            column: s.start - starts[line - 1] + 1,
                            doctest: unseen.doctest.contains(&(path.clone(), s.start)),
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
                definitions,
                mentions: mentions.listed,
                engine: format!("lsp:{server}"),
                renamed,
                unresolved: Vec::new(),
                outside: Vec::new(),
                skipped_files: Vec::new(),
                decided_by: Vec::new(),
            };
            let batch = Batch {
                format: Format::Rename,
                ops,
                notes: unconfined
                    .into_iter()
                    .map(BatchNote::ServerUnconfined)
                    .collect(),
            };
            let mut applied = crate::pipeline::apply_batch_prechecked(
                &batch,
                apply,
                &lancet_syntax::Prechecks::new(),
            );
            applied.report = applied.report.with_rename(summary, apply.surface);
            applied
        }
        Err(refusal) => Report::rename_refused(&refusal, apply.surface).into(),
    }
}

/// Each file's (sha256, text, spans) the server's rename changes, by path under the root.
type FileEdits = BTreeMap<String, (String, String, Vec<Span>)>;

/// The refusal of a rename whose language server failed.
fn failed(trouble: ServerTrouble) -> Box<RenameRefusal> {
    Box::new(RenameRefusal::Server(ServerRefusal::Failed { trouble }))
}

/// The sandbox a server runs in, `None` where the kernel has none and the caller allows that
/// (with why there is none, for the report to say).
fn sandbox_for(
    root: &Root,
    command: &servers::ServerCommand,
    confinement: Confinement,
) -> Result<(Option<Sandbox>, Option<String>), ServerRefusal> {
    let mut policy = Policy::for_language_server(root.path());
    policy.writable.extend(command.writes.iter().cloned());
    let built = crate::sandbox::available().and_then(|()| Sandbox::new(&policy));
    match (built, confinement) {
        (Ok(sandbox), _) => Ok((Some(sandbox), None)),
        (Err(e), Confinement::WhereAvailable) => Ok((None, Some(e.to_string()))),
        (Err(e), Confinement::Required) => Err(ServerRefusal::NoSandbox { why: e.to_string() }),
    }
}

/// A started, initialized server for one file's language: the session, the server's
/// version as it reported it, why it runs unconfined (when it does) and the deadline of the
/// whole exchange.
struct Session {
    server: Server,
    /// The sandbox the server runs in: its private temp directory (the server's caches) lives
    /// as long as the session.
    _sandbox: Option<Sandbox>,
    spec: ServerSpec,
    version: Option<String>,
    unconfined: Option<String>,
    deadline: Instant,
}

/// Starts the server for `path`'s language (sandboxed as `lsp` says) and initializes it for
/// the root; the refusal says why it cannot.
fn open_session(root: &Root, path: &str, lsp: &Lsp) -> Result<Session, ServerRefusal> {
    let no_server = |missing: Option<ServerMissing>| ServerRefusal::NoServer {
        path: path.to_string(),
        missing,
    };
    let failed = |trouble: ServerTrouble| ServerRefusal::Failed { trouble };
    let spec = lsp
        .servers
        .spec_for(path)
        .ok_or_else(|| no_server(None))?
        .map_err(|why| no_server(Some(why)))?;
    let (mut sandbox, unconfined) = sandbox_for(root, &spec.command, lsp.confinement)?;
    let root_dir = root.path();
    let allowed = time_allowed();
    let mut server = Server::start(
        &spec.command,
        root_dir,
        spec.settings.clone(),
        allowed,
        sandbox.as_mut(),
    )
    .map_err(|e| {
        failed(ServerTrouble::CannotStart {
            program: spec.command.program.display().to_string(),
            error: e.to_string(),
        })
    })?;
    let deadline = Instant::now() + allowed;
    let root_uri = uri_of(root_dir);
    let initialized = server
        .request(
            "initialize",
            json!({
                // No parent for the server to watch: in the sandbox it may not signal lancet
                // (Landlock's signal scope), and a server that probes its parent with kill(pid,
                // 0) would take the refusal for lancet's death and exit. lancet ends it.
                "processId": Value::Null,
                "rootUri": root_uri,
                "rootPath": root_dir,
                "workspaceFolders": [{"uri": root_uri, "name": "root"}],
                "capabilities": {
                    "workspace": {"workspaceEdit": {"documentChanges": true}, "configuration": true, "workspaceFolders": true},
                    "textDocument": {
                        "rename": {"prepareSupport": true},
                        "definition": {"linkSupport": true},
                        "synchronization": {}
                    },
                    "general": {"positionEncodings": ["utf-16"]},
                    "experimental": {"serverStatusNotification": spec.reports_quiescence()}
                },
                "initializationOptions": spec.init,
            }),
            deadline,
        )
        .map_err(failed)?;
    server.notify("initialized", json!({})).map_err(failed)?;
    if spec.reports_quiescence() {
        server.wait_until_quiescent(deadline).map_err(failed)?;
    }
    let version = initialized["serverInfo"]["version"]
        .as_str()
        .map(str::to_string);
    Ok(Session {
        server,
        _sandbox: sandbox,
        spec,
        version,
        unconfined,
        deadline,
    })
}

impl Session {
    /// Ends the server politely (it is killed with its process group when dropped anyway).
    fn close(mut self) {
        let _ = self.server.request(
            "shutdown",
            Value::Null,
            Instant::now() + Duration::from_secs(5),
        );
        let _ = self.server.notify("exit", Value::Null);
    }
}

fn edits(
    root: &Root,
    at: &At,
    new: &str,
    lsp: &Lsp,
) -> Result<(String, FileEdits, Option<String>), Box<RenameRefusal>> {
    // The sandbox is held to the end: its temp directory holds the server's caches.
    let Session {
        mut server,
        _sandbox: _confined,
        spec,
        unconfined,
        deadline,
        ..
    } = open_session(root, &at.path, lsp).map_err(|r| Box::new(RenameRefusal::Server(r)))?;
    let root_dir = root.path();
    let file = root_dir.join(&at.path);
    let uri = uri_of(&file);
    let text = root
        .read_regular(
            &root
                .rel(&at.path)
                .map_err(|e| failed(ServerTrouble::StartUnnamed(e.to_string())))?,
        )
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .ok_or_else(|| failed(ServerTrouble::StartUnreadable(at.path.clone())))?;
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
        return Err(Box::new(RenameRefusal::Server(ServerRefusal::Refuses {
            server: server.name.to_string(),
            name: at.name.clone(),
            place: at.place.clone(),
        })));
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
    drop(server);
    let files = to_spans(root, &edit, &at.name, new).map_err(failed)?;
    Ok((name, files, unconfined))
}

/// Whether one text edit of the server's answer is part of renaming `old` to `new`: `old`
/// replaced by `new`, or a shorthand expanded (`old` replaced by `old: new` or `new: old`, or
/// `new: ` inserted before `old`, `: new` after it). Anything else is not a rename.
fn rename_edit(text: &str, start: usize, end: usize, old: &str, new_text: &str, new: &str) -> bool {
    let replaced = &text[start..end];
    let word_at = |at: usize| {
        text[at..].starts_with(old)
            && !text[at + old.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    let word_before = |at: usize| {
        text[..at].ends_with(old)
            && !text[..at - old.len()]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    if replaced == old {
        return new_text == new
            || new_text == format!("{old}: {new}")
            || new_text == format!("{new}: {old}");
    }
    replaced.is_empty()
        && ((new_text == format!("{new}: ") && word_at(start))
            || (new_text == format!(": {new}") && word_before(start)))
}

/// A workspace edit as spans per file of the root; refused when it touches a file outside
/// the root or creates, renames or deletes files.
fn to_spans(root: &Root, edit: &Value, old: &str, new: &str) -> Result<FileEdits, ServerTrouble> {
    let mut per_uri: Vec<(String, Vec<Value>)> = Vec::new();
    if let Some(changes) = edit.get("documentChanges").and_then(Value::as_array) {
        for change in changes {
            if change.get("kind").is_some() {
                return Err(ServerTrouble::ChangesFiles {
                    kind: change["kind"].as_str().unwrap_or("change").to_string(),
                    uri: change
                        .get("uri")
                        .or(change.get("oldUri"))
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                        .to_string(),
                });
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
            .ok_or_else(|| ServerTrouble::EditsNonFile(uri.clone()))?;
        let path = std::path::Path::new(&path);
        let rel = path
            .strip_prefix(canonical)
            .map_err(|_| ServerTrouble::EditsOutside(path.display().to_string()))?;
        let rel = root
            .rel(&rel.to_string_lossy())
            .map_err(|e| ServerTrouble::EditsUnnamed {
                path: path.display().to_string(),
                error: e.to_string(),
            })?;
        let bytes = root
            .read_regular(&rel)
            .ok_or_else(|| ServerTrouble::EditedUnreadable(rel.to_string()))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| ServerTrouble::EditedNotUtf8(rel.to_string()))?;
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
                return Err(ServerTrouble::EditOutsideFile(rel.to_string()));
            };
            let new_text = e["newText"].as_str().unwrap_or_default();
            if start > end
                || !text.is_char_boundary(start)
                || !text.is_char_boundary(end)
                || !rename_edit(&text, start, end, old, new_text, new)
            {
                return Err(ServerTrouble::NotARename {
                    path: rel.to_string(),
                    put: new_text.to_string(),
                    replaced: text.get(start..end).unwrap_or("?").to_string(),
                    old: old.to_string(),
                    new: new.to_string(),
                });
            }
            let line = text[..start].matches('\n').count() + 1;
            spans.push(Span {
                start,
                end,
                new: new_text.to_string(),
                line,
            });
        }
        spans.sort_by_key(|s| (s.start, s.end));
        spans.dedup_by(|a, b| (a.start, a.end, &a.new) == (b.start, b.end, &b.new));
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
    fn only_the_new_name_or_a_shorthand_expansion_is_a_rename() {
        let text = "let v = Version { major };\nmajor2(major)";
        let at = text.find("major").unwrap();
        let end = at + "major".len();
        let ok = |s, e, t: &str| rename_edit(text, s, e, "major", t, "maj");
        assert!(ok(at, end, "maj"));
        assert!(ok(at, end, "major: maj"));
        assert!(ok(at, end, "maj: major"));
        assert!(ok(at, at, "maj: "));
        assert!(ok(end, end, ": maj"));
        assert!(!ok(at, end, "maj; evil()"));
        assert!(!ok(at, end, "other"));
        assert!(!ok(at, at, "evil(); "));
        // An insertion beside a longer word is not beside OLD.
        let longer = text.find("major2").unwrap();
        assert!(!ok(longer, longer, "maj: "));
        assert!(!ok(0, 3, "maj"));
    }
}
