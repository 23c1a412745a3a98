//! A rename's refusals in words: names that are no identifiers, a reserved or taken NEW, a
//! language's special name, nothing to rename, a `--kind` that does not fit, a bare name of
//! several languages, sites lancet could not decide; with what to send next in the surface's
//! words.

use super::left_why;
use super::place::place_words;
use super::reach::{overrides_outside, would_override_outside};
use super::refused::{RefusalWords, refused};
use super::servers::{server_missing, server_said, server_words};
use crate::report::{AttributeReader, DocCodeLeft, NotDecided, RenameRefusal, ServerRefusal};
use crate::report::{Definition, LeftSite, Report, Status, Surface, SymbolKind};
use crate::report::{ServerMissing, UndecidedBy};
use lancet_core::kinds::ErrorKind;

impl Report {
    /// A rename that must not go ahead: nothing is written.
    pub fn rename_refused(refusal: &RenameRefusal, surface: Surface) -> Report {
        let (status, kind, detail, next) = words(refusal, surface);
        Report::batch_error(status, kind, detail, &next)
    }
}

/// The status, kind, detail and next step of a refusal.
fn words(refusal: &RenameRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        RenameRefusal::NotIdentifier { which, name } => (
            Status::Malformed,
            ErrorKind::InvalidName,
            format!("{which} `{name}` is not an identifier"),
            "Pass a name made of letters, digits and `_`, not starting with a digit.".into(),
        ),
        RenameRefusal::SameNames { name } => same_names(name),
        RenameRefusal::UnknownLanguage { lang, known } => (
            Status::Malformed,
            ErrorKind::UnknownLanguage,
            format!("lancet cannot rename in `{lang}`"),
            format!("Use one of: {}.", known.join(", ")),
        ),
        RenameRefusal::Reserved { new, language } => reserved(new, language),
        RenameRefusal::SpecialName {
            which,
            name,
            language,
        } => special_name(which, name, language),
        RenameRefusal::Mangled {
            which,
            name,
            sites,
            spelled,
        } => mangled(which, name, sites, spelled),
        RenameRefusal::NamedByString {
            old,
            places,
            outside_scope,
        } => named_by_string(old, places, *outside_scope, surface),
        RenameRefusal::IncludedDoctests(left) => included_doctests(left, surface),
        RenameRefusal::UnreadKeywords { old, places } => unread_keywords(old, places, surface),
        RenameRefusal::OverridesOutside { old, places } => overrides_outside(old, places, surface),
        RenameRefusal::WouldOverrideOutside { new, places } => {
            would_override_outside(new, places, surface)
        }
        RenameRefusal::NewInHierarchy { old, new, places } => new_in_hierarchy(old, new, places),
        RenameRefusal::DoctestOutput { old, places } => doctest_output(old, places, surface),
        RenameRefusal::DoctestFiles { old, places } => doctest_files(old, places, surface),
        RenameRefusal::ComponentFiles { old, places } => component_files(old, places, surface),
        RenameRefusal::NameInUse { old, new, places } => name_in_use(old, new, places),
        RenameRefusal::NoMatch {
            old,
            files_scanned,
            mentions,
        } => no_match(old, *files_scanned, *mentions, surface),
        RenameRefusal::Unresolved {
            old,
            decided,
            listed,
            total,
            at,
            servers,
        } => unresolved(old, (*decided, *total), listed, (*at, servers), surface),
        RenameRefusal::Languages {
            old,
            languages,
            listed,
        } => several_languages(old, languages, listed, surface),
        RenameRefusal::Definitions {
            old,
            listed,
            symbols,
            all,
        } => several_definitions(old, listed, (*symbols, *all), surface),
        RenameRefusal::Unsupported {
            old,
            language,
            server,
            files,
            supported,
        } => unsupported(old, language, server.as_ref(), files, supported, surface),
        RenameRefusal::ForeignNoDefinition {
            old,
            language,
            files,
        } => foreign_no_definition(old, language, files, surface),
        RenameRefusal::KindNotDefined { old, kind, others } => kind_not_defined(old, *kind, others),
        RenameRefusal::Place(place) => place_words(place, surface),
        RenameRefusal::Server(server) => server_words(server),
        RenameRefusal::KindMixed { old, kind, others } => refused(
            ErrorKind::KindMismatch,
            format!(
                "`{old}` names a {} but also: {}; lancet renames by name, so it cannot rename one and keep the other",
                kind.name(),
                places(others)
            ),
            "Narrow the paths to the files of the symbol you mean.",
        ),
    }
}

/// No identifier OLD under the paths, and where it is still mentioned.
fn no_match(old: &str, files_scanned: usize, mentions: usize, surface: Surface) -> RefusalWords {
    let mentions = if mentions == 0 {
        String::new()
    } else {
        format!(
            " (it is mentioned {mentions} time(s) in strings or comments, listed below; {} / {} rename those)",
            surface.switch("--include-strings"),
            surface.switch("--include-comments")
        )
    };
    refused(
        ErrorKind::NoMatch,
        format!("no identifier `{old}` found in {files_scanned} file(s) scanned{mentions}"),
        "Check the spelling and the paths (files ignored by .gitignore are not walked).",
    )
}

/// No definition of the asked `--kind`, and what OLD is defined as instead.
fn kind_not_defined(old: &str, kind: SymbolKind, others: &[Definition]) -> RefusalWords {
    let found = if others.is_empty() {
        "no definition of it was found".to_string()
    } else {
        format!("it is defined as: {}", places(others))
    };
    refused(
        ErrorKind::KindMismatch,
        format!(
            "no {} named `{old}` is defined under the given paths; {found}",
            kind.name()
        ),
        "Pass the --kind it has (or --kind any), or the paths that define it.",
    )
}

/// A special name, which the language itself calls or reads.
fn special_name(which: &str, name: &str, language: &str) -> RefusalWords {
    let (calls, pick) = match language {
        "python" => (
            "an operator, a builtin, `import *`",
            "Pick a name without leading and trailing double underscores",
        ),
        _ => (
            "`String(x)` and `+`, `JSON.stringify`, `await`, an event listener",
            "Pick another name",
        ),
    };
    refused(
        ErrorKind::InvalidName,
        format!(
            "{which} `{name}` is a special name in {}: the language itself calls or reads it ({calls}) at places no text names, so renaming {} would change what the code does where no site shows",
            display_language(language),
            if which == "OLD" { "it" } else { "to it" }
        ),
        &format!(
            "{pick}; if the change of behaviour is meant, edit the definition and its uses directly."
        ),
    )
}

/// A private name whose rename would change what a site reaches.
fn mangled(
    which: &str,
    name: &str,
    sites: &[(String, usize, Option<String>)],
    spelled: &[(String, usize, String)],
) -> RefusalWords {
    let why = if spelled.is_empty() {
        let places: Vec<String> = sites
            .iter()
            .map(|(path, line, class)| match class {
                Some(class) => format!("{path}:{line} (in class {class})"),
                None => format!("{path}:{line} (outside any class)"),
            })
            .collect();
        format!(
            "its sites stand in different places of it ({}), so renamed they would no longer reach one thing",
            places.join(", ")
        )
    } else {
        let uses: Vec<String> = spelled
            .iter()
            .map(|(path, line, spelling)| format!("{path}:{line} (`{spelling}`)"))
            .collect();
        format!(
            "it is used spelled mangled ({}), which the rename would leave reaching nothing",
            uses.join(", ")
        )
    };
    refused(
        ErrorKind::InvalidName,
        format!(
            "{which} `{name}` is a private name Python mangles in a class body (`__x` in class `C` reads `_C__x`), and {why}"
        ),
        "Rename it where every site stands in one class's body (or none does) and no use spells it mangled, or pick a name without two leading underscores.",
    )
}

/// OLD and NEW are one name.
fn same_names(name: &str) -> RefusalWords {
    (
        Status::Malformed,
        ErrorKind::InvalidName,
        format!("OLD and NEW are both `{name}`"),
        "Pass a different new name.".into(),
    )
}

/// NEW is a keyword of the language.
fn reserved(new: &str, language: &str) -> RefusalWords {
    (
        Status::Malformed,
        ErrorKind::InvalidName,
        format!(
            "`{new}` is a reserved word in {}",
            display_language(language)
        ),
        "Pass a new name that is not a keyword.".into(),
    )
}

/// OLD named by a string Python reaches an attribute through.
fn named_by_string(
    old: &str,
    places: &[(String, usize, AttributeReader)],
    outside_scope: bool,
    surface: Surface,
) -> RefusalWords {
    let listed: Vec<String> = places
        .iter()
        .map(|(path, line, reader)| match reader {
            AttributeReader::Builtin(builtin) => {
                format!("{path}:{line} ({builtin}(…, \"{old}\"))")
            }
            AttributeReader::Attrgetter => format!("{path}:{line} (attrgetter(\"{old}\"))"),
            AttributeReader::ClassList(list) => format!("{path}:{line} ({list})"),
            AttributeReader::Dict => format!("{path}:{line} (__dict__[\"{old}\"])"),
            AttributeReader::Vars => format!("{path}:{line} (vars(…)[\"{old}\"])"),
            AttributeReader::AsDict => format!("{path}:{line} (asdict(…)[\"{old}\"])"),
            AttributeReader::Keyword => format!("{path}:{line} (**{{\"{old}\": …}})"),
        })
        .collect();
    if outside_scope {
        return refused(
            ErrorKind::UnresolvedSites,
            format!(
                "`{old}` is named by a string Python reaches an attribute through outside the scope where this `{old}` is seen ({} renames strings only there), and the rename would leave it reaching nothing: {}",
                surface.switch("--include-strings"),
                listed.join(", ")
            ),
            &format!(
                "If they name this symbol, make the rename and those strings one edit of your own; if they name something else, pass {}.",
                surface.switch("--leave-unresolved")
            ),
        );
    }
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` is named by a string Python reaches an attribute through, which the rename would leave reaching nothing: {}",
            listed.join(", ")
        ),
        &format!(
            "Pass {} to rename such strings too, or {} if they name something else.",
            surface.switch("--include-strings"),
            surface.switch("--leave-unresolved")
        ),
    )
}

/// OLD in the examples of a file rustdoc includes as documentation.
fn included_doctests(left: &DocCodeLeft, surface: Surface) -> RefusalWords {
    let DocCodeLeft {
        old,
        places,
        unread,
        in_blocks,
    } = left;
    let listed: Vec<String> = places
        .iter()
        .map(|(path, line, (by, by_line))| format!("{path}:{line} (included by {by}:{by_line})"))
        .collect();
    let mut said = Vec::new();
    if !listed.is_empty() {
        said.push(format!(
            "`{old}` stands in code rustdoc runs as a doctest from a file included as documentation, which lancet does not rename; the rename would leave it failing `cargo test`: {}",
            listed.join(", ")
        ));
    }
    if !unread.is_empty() {
        said.push(format!(
            "lancet cannot tell which file {} includes as documentation (its path is built by a macro lancet does not read), and rustdoc runs that file's examples as doctests, which may name `{old}`",
            path_lines(unread)
        ));
    }
    if !in_blocks.is_empty() {
        said.push(format!(
            "`{old}` stands in doc code rustdoc runs as a doctest where lancet does not rename (an indented or block-quoted block of a doc comment, or a block of a `#[doc = \"…\"]` string): {}",
            path_lines(in_blocks)
        ));
    }
    let detail = said.join("; and ");
    refused(
        ErrorKind::UnresolvedSites,
        detail,
        &format!(
            "Rename `{old}` in those examples yourself and run the rename again, or pass {} if they name something else.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// OLD a parameter some call passes a mapping lancet cannot read to.
fn unread_keywords(
    old: &str,
    places: &[(String, usize, String)],
    surface: Surface,
) -> RefusalWords {
    let listed: Vec<String> = places
        .iter()
        .map(|(path, line, call)| format!("{path}:{line} ({call})"))
        .collect();
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` is a parameter, and a call passes its function keywords lancet cannot read or rename (a mapping unpacked, a keyword `functools.partial` binds), which may pass `{old}` by name and would then name nothing: {}",
            listed.join(", ")
        ),
        &format!(
            "If a mapping unpacked there holds the key `{old}`, rename the key where the mapping is built in one edit with the rename; if none does, pass {}.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// OLD in files of a language lancet hands to a server, none of which defines it.
fn foreign_no_definition(
    old: &str,
    language: &str,
    files: &[String],
    surface: Surface,
) -> RefusalWords {
    refused(
        ErrorKind::NoMatch,
        format!(
            "`{old}` stands in {} file(s) ({}) but none defines it, and its server renames from a definition",
            display_language(language),
            files.join(", ")
        ),
        &format!(
            "Point {} at a use of it (PATH:LINE:COL), and its server renames the symbol there.",
            surface.param("--at")
        ),
    )
}

/// NEW a member of a class in the renamed member's class's hierarchy.
fn new_in_hierarchy(old: &str, new: &str, places: &[(String, usize, String)]) -> RefusalWords {
    let listed: Vec<String> = places
        .iter()
        .map(|(path, line, class)| format!("class {class} at {path}:{line}"))
        .collect();
    refused(
        ErrorKind::NameInUse,
        format!(
            "`{new}` is a member of a class in the hierarchy of `{old}`'s class ({}): renamed, one would override the other, and calls of either would reach the other",
            listed.join(", ")
        ),
        "Pick a new name no class in its hierarchy defines.",
    )
}

/// OLD in a doctest's expected output.
fn doctest_output(old: &str, places: &[(String, usize)], surface: Surface) -> RefusalWords {
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` stands in a doctest's expected output, which doctest compares as text with what the example prints; the rename would leave it: {}",
            path_lines(places)
        ),
        &format!(
            "Pass {} to rename it with the rest, or {} if it names something else.",
            surface.switch("--include-strings"),
            surface.switch("--leave-unresolved")
        ),
    )
}

/// OLD in an example of a text file pytest runs as doctests.
fn doctest_files(old: &str, places: &[(String, usize)], surface: Surface) -> RefusalWords {
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` stands in an example of a text file pytest runs as doctests (`test*.txt`, or a configuration's --doctest-glob), which lancet does not rename; the rename would leave it failing the tests: {}",
            path_lines(places)
        ),
        &format!(
            "Rename `{old}` in those examples yourself and run the rename again, or pass {} if they name something else.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// OLD in a single-file component lancet does not read.
fn component_files(old: &str, places: &[(String, usize)], surface: Surface) -> RefusalWords {
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` stands in single-file components (`.vue`, `.svelte`, `.astro`), whose scripts and templates lancet does not read or rename; the rename would leave those uses naming nothing: {}",
            path_lines(places)
        ),
        &format!(
            "Rename `{old}` there in the same change yourself, or pass {} if they name something else.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// Places as `path:line`, joined.
fn path_lines(places: &[(String, usize)]) -> String {
    let listed: Vec<String> = places.iter().map(|(p, l)| format!("{p}:{l}")).collect();
    listed.join(", ")
}

/// NEW already names something where OLD would become it.
fn name_in_use(old: &str, new: &str, places: &[(String, usize)]) -> RefusalWords {
    let shown: Vec<String> = places
        .iter()
        .take(20)
        .map(|(path, line)| format!("{path}:{line}"))
        .collect();
    let more = places.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    refused(
        ErrorKind::NameInUse,
        format!(
            "`{new}` is already used in files this rename changes: {}{more}; renaming `{old}` would merge the two names",
            shown.join(", ")
        ),
        "Pick a new name that is not in use there, or narrow the paths.",
    )
}

/// A bare OLD defined in several languages: unrelated symbols of one name.
fn several_languages(
    old: &str,
    languages: &[String],
    listed: &[(Definition, String)],
    surface: Surface,
) -> RefusalWords {
    refused(
        ErrorKind::Ambiguous,
        format!(
            "`{old}` is defined in {} languages ({}): {}; a bare name cannot say which of these unrelated symbols to rename",
            languages.len(),
            languages.join(", "),
            listed
                .iter()
                .map(|(d, language)| format!("{} ({language})", place(d)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        &format!(
            "Name the symbol by position ({} PATH:LINE:COL) or by a qualified name, or narrow the paths.",
            surface.param("--at")
        ),
    )
}

/// A bare OLD naming several unrelated symbols: which to rename is the caller's to say.
fn several_definitions(
    old: &str,
    listed: &[Definition],
    (symbols, all): (usize, bool),
    surface: Surface,
) -> RefusalWords {
    let more = symbols.saturating_sub(listed.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    refused(
        ErrorKind::Ambiguous,
        format!(
            "`{old}` names {symbols} unrelated symbols (no override, re-export or import joins them): {}{more}; renaming them all would merge what the code keeps apart",
            places(listed)
        ),
        &if all {
            format!(
                "Name one by position ({} PATH:LINE:COL, one of the places above), or pass {} to rename them all.",
                surface.param("--at"),
                surface.switch("--all-definitions")
            )
        } else {
            format!(
                "Name one by position ({} PATH:LINE:COL, one of the places above).",
                surface.param("--at")
            )
        },
    )
}

/// A language's name as people write it (lancet's names are lowercase: `tsx`, `c-sharp`).
pub(super) fn display_language(language: &str) -> String {
    match language {
        "go" => "Go".into(),
        "javascript" => "JavaScript".into(),
        "typescript" | "tsx" => "TypeScript".into(),
        "c-sharp" => "C#".into(),
        "cpp" => "C++".into(),
        other => {
            let mut chars = other.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        }
    }
}

/// A language lancet resolves no names in, and no server of it may rename here.
fn unsupported(
    old: &str,
    language: &str,
    server: Option<&(String, Option<ServerMissing>)>,
    files: &[String],
    supported: &[String],
    surface: Surface,
) -> RefusalWords {
    let name = display_language(language);
    let (without, next) = match server {
        Some((server, why)) => (
            format!(
                " without {server} ({})",
                why.as_ref().map_or_else(
                    || "language servers are turned off for this rename".to_string(),
                    server_missing
                )
            ),
            match surface {
                Surface::Mcp => format!(
                    "Rename it by editing the files, or ask the user to install {server} outside the project and start the server with --allow-lsp."
                ),
                Surface::Cli => format!(
                    "Install {server} outside the project (Debian: `apt-get install gopls golang-go`) and run the rename again (without --no-lsp), or rename it by editing the files."
                ),
            },
        ),
        None => (
            String::new(),
            "Rename it by editing the files (or with the language's own tools).".to_string(),
        ),
    };
    refused(
        ErrorKind::UnknownLanguage,
        format!(
            "rename does not support {name}{without}; supported: {}. `{old}` stands in {name} file(s): {}",
            supported.join(", "),
            files.join(", ")
        ),
        &next,
    )
}

/// Sites lancet could not decide stop the rename: each may be the symbol, and one left under
/// the old name can break the build while the rest is renamed.
fn unresolved(
    old: &str,
    (decided, total): (usize, usize),
    listed: &[LeftSite],
    (at, servers): (bool, &[UndecidedBy]),
    surface: Surface,
) -> RefusalWords {
    let more = total.saturating_sub(listed.len());
    let servers_said: String = servers.iter().map(|s| server_said(s, surface)).collect();
    let (include, leave) = surface.unresolved_switches();
    let detail = format!(
        "{total} site(s) spelled `{old}` could not be decided (each may or may not be this symbol); {}, so nothing was written:\n{}{}",
        if decided == 0 {
            "none could be, and renaming none of them is no rename".to_string()
        } else {
            format!(
                "renaming the {decided} decided site(s) and leaving these could break the build"
            )
        },
        listed
            .iter()
            .map(|u| format!(
                "  {}:{}: {}  ({})",
                u.path,
                u.line,
                u.text,
                left_why(&u.why)
            ))
            .collect::<Vec<_>>()
            .join("\n"),
        if more > 0 {
            format!("\n  … and {more} more")
        } else {
            String::new()
        }
    ) + &servers_said;
    // What lets a server decide them: installing it, or letting lancet ask it.
    let server = servers.iter().find_map(|s| match (&s.why, surface) {
        (
            NotDecided::Missing(_) | NotDecided::CannotAsk(ServerRefusal::NoServer { .. }),
            _,
        ) => Some(format!(
            "install {} outside the project to let it decide them",
            s.server
        )),
        (NotDecided::Off, Surface::Cli) => Some(format!(
            "run the rename without --no-lsp (and without `[rename] lsp = false`) to let {} decide them",
            s.server
        )),
        (NotDecided::Off, Surface::Mcp) => Some(format!(
            "ask the user to start the server with --allow-lsp to let {} decide them",
            s.server
        )),
        _ => None,
    });
    // Sites only lancet decides: what it reads decides them.
    let only_lancet = servers
        .iter()
        .any(|s| matches!(s.why, NotDecided::NotItsSites(_)));
    // With `--at` the symbol is named already: only a server can decide more.
    let decide = match (at, server) {
        (_, Some(server)) => format!("or {server}"),
        _ if only_lancet => "or write the types lancet reads at those sites (a `let x: Type`, a parameter's type) so that it can decide them".to_string(),
        (true, None) => format!(
            "or use the language server ({}) to decide them",
            surface.switch("--lsp")
        ),
        (false, None) => format!(
            "or name the symbol by position ({}) or use the language server ({}) to decide them",
            surface.param("--at"),
            surface.switch("--lsp")
        ),
    };
    let next = if decided == 0 {
        format!("Pass {include} to rename them; {decide}.")
    } else {
        format!(
            "Pass {include} to rename them too, or {leave} to rename only the decided sites and leave these; {decide}."
        )
    };
    (Status::Refused, ErrorKind::UnresolvedSites, detail, next)
}

/// A definition as a refusal names it: `kind path:line`.
fn place(d: &Definition) -> String {
    format!("{} {}:{}", d.kind.name(), d.path, d.line)
}

/// Definitions as a refusal lists them.
pub(super) fn places(definitions: &[Definition]) -> String {
    definitions.iter().map(place).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ServerTrouble;

    #[test]
    fn why_a_server_did_not_decide_is_worded_from_the_fact() {
        let by = |why| UndecidedBy {
            server: "gopls".into(),
            why,
        };
        let said = |why| server_said(&by(why), Surface::Cli);
        assert_eq!(
            said(NotDecided::Missing(None)),
            "\ngopls would decide them: lancet knows no server for it"
        );
        assert_eq!(
            said(NotDecided::CannotAsk(ServerRefusal::NoSandbox {
                why: "no Landlock".into()
            })),
            "\ngopls was asked and failed: lancet's sandbox cannot be built here (no Landlock), and the server runs only in it"
        );
        assert_eq!(
            said(NotDecided::CannotAsk(ServerRefusal::Failed {
                trouble: ServerTrouble::Exited {
                    server: "gopls".into(),
                    during: "initialize".into(),
                },
            })),
            "\ngopls was asked and failed: gopls exited during initialize"
        );
        let unsupported = |server| {
            unsupported(
                "x",
                "go",
                Some(&("gopls".to_string(), server)),
                &["a.go".to_string()],
                &["python".to_string()],
                Surface::Cli,
            )
            .2
        };
        assert_eq!(
            unsupported(None),
            "rename does not support Go without gopls (language servers are turned off for this rename); supported: python. `x` stands in Go file(s): a.go"
        );
        assert_eq!(
            unsupported(Some(ServerMissing::NoGo("gopls".into()))),
            "rename does not support Go without gopls (gopls runs the go command, and there is no go on PATH outside the project); supported: python. `x` stands in Go file(s): a.go"
        );
    }
}
