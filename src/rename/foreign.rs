//! Languages lancet has a grammar for but resolves no names in. Go is renamed through gopls
//! when the caller lets lancet ask a language server and gopls is installed outside the root;
//! any other such language, and Go without gopls, is refused by name ("rename does not
//! support Go without gopls; supported: …"), never answered with "no identifier found".

use super::at::At;
use super::lsp::servers::Lsp;
use super::scan::renameable_languages;
use super::words::whole_word_offsets;
use crate::report::{Definition, RenameRefusal, ServerMissing, SymbolKind};
use lancet_core::Root;
use lancet_syntax::languages;
use std::collections::BTreeMap;
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

/// The languages renamed through a server when lancet resolves none of their names: the
/// language and its server.
const THROUGH_SERVER: &[(&str, &str)] = &[("go", "gopls")];

/// At most this many files holding OLD are named in a refusal.
const FILES_NAMED: usize = 8;

/// What to do with OLD in a language lancet resolves no names in.
pub(super) enum Foreign {
    /// Rename the symbol at this place through the language's server (one of these).
    Server(At, Lsp),
    /// Refuse, saying why.
    Refused(Box<RenameRefusal>),
}

/// The language of a path, when lancet has a grammar for it but no rename of its own.
fn foreign_language(path: &str) -> Option<&'static str> {
    let entry = languages::language_for(path, b"")?;
    let name = entry.name.as_str();
    (!renameable_languages().contains(&name)).then_some(name)
}

/// `--at` in a file of a language lancet resolves no names in: its server, or a refusal.
pub(super) fn at_place(at: &At, old: &str, servers: Option<&Lsp>) -> Option<Foreign> {
    let language = foreign_language(&at.path)?;
    Some(match server_of(language, servers) {
        Ok(servers) => Foreign::Server(at.clone(), servers),
        Err(why) => Foreign::Refused(unsupported(language, old, why, vec![at.path.clone()])),
    })
}

/// A bare OLD that no file lancet renames in holds as code: where a language lancet resolves
/// no names in holds it, its one definition renamed through the server, or a refusal naming
/// what is missing. `None` when no such file holds OLD.
pub(super) fn bare(
    root: &Root,
    files: &[String],
    old: &str,
    servers: Option<&Lsp>,
) -> Option<Foreign> {
    let holders = holders(root, files, old);
    let (language, paths) = holders.iter().next()?;
    let servers = match server_of(language, servers) {
        Ok(servers) => servers,
        Err(why) => {
            return Some(Foreign::Refused(unsupported(
                language,
                old,
                why,
                paths.clone(),
            )));
        }
    };
    let mut found = definitions(root, paths, old);
    Some(match found.len() {
        1 => Foreign::Server(found.remove(0).1, servers),
        0 => Foreign::Refused(Box::new(RenameRefusal::ForeignNoDefinition {
            old: old.to_string(),
            language: language.to_string(),
            files: paths.iter().take(FILES_NAMED).cloned().collect(),
        })),
        n => Foreign::Refused(Box::new(RenameRefusal::Definitions {
            old: old.to_string(),
            listed: found.into_iter().map(|(d, _)| d).collect(),
            symbols: n,
            all: false,
        })),
    })
}

/// The caller's servers when they include this language's. `Err` says why not: `None`, no
/// server renames the language; `Some(None)`, asking servers is off; `Some(Some(why))`, its
/// server cannot run here.
fn server_of(language: &str, servers: Option<&Lsp>) -> Result<Lsp, Option<Option<ServerMissing>>> {
    if !THROUGH_SERVER.iter().any(|(l, _)| *l == language) {
        return Err(None);
    }
    let Some(servers) = servers else {
        return Err(Some(None));
    };
    match servers.servers.for_language(language) {
        Some(Ok(_)) => Ok(servers.clone()),
        Some(Err(why)) => Err(Some(Some(why.clone()))),
        None => Err(None),
    }
}

/// The refusal of a language lancet cannot rename in (here).
fn unsupported(
    language: &str,
    old: &str,
    why: Option<Option<ServerMissing>>,
    mut files: Vec<String>,
) -> Box<RenameRefusal> {
    files.truncate(FILES_NAMED);
    Box::new(RenameRefusal::Unsupported {
        old: old.to_string(),
        language: language.to_string(),
        server: THROUGH_SERVER
            .iter()
            .find(|(l, _)| *l == language)
            .zip(why)
            .map(|((_, s), why)| (s.to_string(), why)),
        files,
        supported: renameable_languages()
            .into_iter()
            .map(str::to_string)
            .collect(),
    })
}

/// The walked files of languages lancet resolves no names in that hold OLD as a word, by
/// language (the languages renamed through a server first).
fn holders(root: &Root, files: &[String], old: &str) -> BTreeMap<&'static str, Vec<String>> {
    let mut by_language: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for path in files {
        let Some(language) = foreign_language(path) else {
            continue;
        };
        let holds = root
            .dir()
            .read(path)
            .is_ok_and(|bytes| !whole_word_offsets(&bytes, old).is_empty());
        if holds {
            by_language.entry(language).or_default().push(path.clone());
        }
    }
    // A language renamed through its server first: that is what the caller can act on.
    if let Some((&language, _)) = by_language
        .iter()
        .find(|(l, _)| THROUGH_SERVER.iter().any(|(t, _)| t == *l))
    {
        let paths = by_language.remove(language).unwrap_or_default();
        let mut first = BTreeMap::new();
        first.insert(language, paths);
        return first;
    }
    by_language
}

/// The definitions of OLD in the files of a language renamed through its server: what a bare
/// name can name (the server renames from one of them).
fn definitions(root: &Root, paths: &[String], old: &str) -> Vec<(Definition, At)> {
    paths
        .iter()
        .filter_map(|path| {
            let text = String::from_utf8(root.dir().read(path).ok()?).ok()?;
            Some(definitions_in(path, &text, old))
        })
        .flatten()
        .collect()
}

/// The definitions among the places a language server's edits change in one file of a language
/// renamed through its server (Go): its definitions by lancet's query, where the edits are.
pub(super) fn definitions_among(
    path: &str,
    text: &str,
    at: &[usize],
    old: &str,
) -> Vec<Definition> {
    definitions_in(path, text, old)
        .into_iter()
        .filter(|(_, place)| at.contains(&place.offset))
        .map(|(d, _)| d)
        .collect()
}

/// The definitions of OLD in one file of a language lancet renames through its server (Go's
/// functions, methods, types, constants, variables and fields), each with its place.
pub(super) fn definitions_in(path: &str, text: &str, old: &str) -> Vec<(Definition, At)> {
    let query_text = match foreign_language(path) {
        Some("go") => {
            "(function_declaration name: (identifier) @function)
             (method_declaration name: (field_identifier) @method)
             (type_spec name: (type_identifier) @class)
             (const_spec name: (identifier) @variable)
             (var_spec name: (identifier) @variable)
             (field_declaration name: (field_identifier) @field)"
        }
        _ => return Vec::new(),
    };
    let Some(grammar) = languages::language_for(path, b"").and_then(languages::grammar) else {
        return Vec::new();
    };
    let Ok(query) = Query::new(&grammar, query_text) else {
        return Vec::new();
    };
    let mut parser = Parser::new();
    let Some(tree) = parser
        .set_language(&grammar)
        .ok()
        .and_then(|()| parser.parse(text, None))
    else {
        return Vec::new();
    };
    let starts = lancet_core::line_starts(text);
    let mut out = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut captures = cursor.captures(&query, tree.root_node(), text.as_bytes());
    while let Some((m, i)) = captures.next() {
        let capture = m.captures()[*i];
        if &text[capture.node.byte_range()] != old {
            continue;
        }
        let kind = match query.capture_names()[capture.index as usize] {
            "function" => SymbolKind::Function,
            "method" => SymbolKind::Method,
            "class" => SymbolKind::Class,
            "field" => SymbolKind::Field,
            _ => SymbolKind::Variable,
        };
        let at = capture.node.start_byte();
        let line = lancet_core::line_of(&starts, at);
        let column = text[starts[line - 1]..at].chars().count() + 1;
        out.push((
            Definition {
                path: path.to_string(),
                line,
                kind,
            },
            At {
                path: path.to_string(),
                offset: at,
                name: old.to_string(),
                place: format!("{path}:{line}:{column}"),
            },
        ));
    }
    out
}
