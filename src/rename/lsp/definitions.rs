//! The hybrid resolver's questions: for each site lancet could not decide, the project's
//! language server is asked where the identifier there is defined (`textDocument/definition`
//! at that position), one site at a time, in one session per language. The answers are places
//! (a file of the root and the byte offset of the definition's name, or somewhere outside the
//! root), never edits: what they mean for the rename is the caller's to weigh.

use super::protocol::{offset_of, percent_decode, position_of, uri_of};
use super::{Lsp, open_session};
use crate::report::ServerRefusal;
use lancet_core::Root;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Where a server says a site's identifier is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// In a file of the root (its path), at this byte offset (the start of the name).
    Tree(String, usize),
    /// Outside the root (a library, the language's own stubs): the path.
    Elsewhere(String),
}

/// A server's answer for one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The definition's places (several for a union type or overloads).
    Places(Vec<Place>),
    /// No answer to go by: none given, one lancet cannot place, or an error. (Why is not
    /// kept: a site without a place stays undecided whatever the reason, and the report says
    /// what the server did as a whole.)
    Unknown,
}

/// What one server answered: its name and version, one answer per question, in order.
#[derive(Debug)]
pub(crate) struct Asked {
    /// The server's name as found on PATH.
    pub(crate) server: String,
    /// Its version, as it reported it at initialization.
    pub(crate) version: Option<String>,
    /// One answer per question.
    pub(crate) answers: Vec<Answer>,
    /// Why it ran unconfined (the kernel has no sandbox), when it did.
    pub(crate) unconfined: Option<String>,
}

/// Asks the server for the language of `questions` (sites: a path of the root and the byte
/// offset of the identifier; all of one server's language) where each is defined, in order,
/// while `go_on` says an answer is worth the next question (the answers are then fewer than
/// the questions). A server that cannot start is the refusal; a question it cannot answer is
/// [`Answer::Unknown`].
pub(crate) fn ask_definitions(
    root: &Root,
    lsp: &Lsp,
    questions: &[(String, usize)],
    mut go_on: impl FnMut(&Answer) -> bool,
) -> Result<Asked, ServerRefusal> {
    let Some((first, _)) = questions.first() else {
        return Ok(Asked {
            server: String::new(),
            version: None,
            answers: Vec::new(),
            unconfined: None,
        });
    };
    let mut session = open_session(root, first, lsp)?;
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let mut answers = Vec::with_capacity(questions.len());
    for (path, offset) in questions {
        let text = texts.entry(path.clone()).or_insert_with(|| {
            let text = root
                .rel(path)
                .ok()
                .and_then(|rel| root.read_regular(&rel))
                .and_then(|b| String::from_utf8(b).ok())?;
            let opened = session.server.notify(
                "textDocument/didOpen",
                json!({"textDocument": {
                    "uri": uri_of(&root.path().join(path.as_str())),
                    "languageId": session.spec.language_id,
                    "version": 1,
                    "text": text
                }}),
            );
            opened.ok().map(|()| text)
        });
        let Some(text) = text.as_deref() else {
            answers.push(Answer::Unknown);
            continue;
        };
        if *offset > text.len() || !text.is_char_boundary(*offset) {
            answers.push(Answer::Unknown);
            continue;
        }
        let (line, character) = position_of(text, *offset);
        let asked = session.server.request_when_ready(
            "textDocument/definition",
            json!({
                "textDocument": {"uri": uri_of(&root.path().join(path.as_str()))},
                "position": {"line": line, "character": character}
            }),
            session.deadline,
        );
        match asked {
            Ok(result) => answers.push(places(root, &result)),
            Err(_) => {
                let out_of_time = std::time::Instant::now() >= session.deadline;
                answers.push(Answer::Unknown);
                if out_of_time {
                    // Every later question would time out too.
                    let left = questions.len() - answers.len();
                    answers.extend(std::iter::repeat_n(Answer::Unknown, left));
                    break;
                }
            }
        }
        if answers.last().is_some_and(|answer| !go_on(answer)) {
            break;
        }
    }
    let server = session.server.name.clone();
    let version = session.version.clone();
    let unconfined = session.unconfined.clone();
    session.close();
    Ok(Asked {
        server,
        version,
        answers,
        unconfined,
    })
}

/// A definition answer (`Location`, `Location[]`, `LocationLink[]` or null) as places: each
/// link's name range (`targetSelectionRange`), each location's range, by its start.
fn places(root: &Root, result: &Value) -> Answer {
    let items: Vec<&Value> = match result {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    if items.is_empty() {
        return Answer::Unknown;
    }
    let mut out = Vec::new();
    let mut files: HashMap<String, Option<String>> = HashMap::new();
    for item in items {
        let (uri, range) = match (item.get("targetUri"), item.get("uri")) {
            (Some(uri), _) => (uri, &item["targetSelectionRange"]),
            (None, Some(uri)) => (uri, &item["range"]),
            _ => return Answer::Unknown,
        };
        let Some(path) = uri.as_str().and_then(|u| u.strip_prefix("file://")) else {
            return Answer::Unknown;
        };
        let path = percent_decode(path);
        let Ok(rel) = std::path::Path::new(&path).strip_prefix(root.path()) else {
            out.push(Place::Elsewhere(path));
            continue;
        };
        let rel = rel.to_string_lossy().into_owned();
        let text = files.entry(rel.clone()).or_insert_with(|| {
            root.rel(&rel)
                .ok()
                .and_then(|r| root.read_regular(&r))
                .and_then(|b| String::from_utf8(b).ok())
        });
        let start = &range["start"];
        let offset = text.as_deref().and_then(|t| {
            offset_of(
                t,
                start["line"].as_u64()? as usize,
                start["character"].as_u64()? as usize,
            )
        });
        match offset {
            Some(offset) => out.push(Place::Tree(rel, offset)),
            None => return Answer::Unknown,
        }
    }
    Answer::Places(out)
}
