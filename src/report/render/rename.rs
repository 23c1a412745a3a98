//! A rename's refusals in words: names that are no identifiers, a reserved or taken NEW, a
//! language's special name, nothing to rename, a `--kind` that does not fit, a bare name of
//! several languages, sites lancet could not decide; with what to send next in the surface's
//! words.

use crate::report::{
    AtProblem, AttributeReader, NotDecided, PlaceRefusal, RenameRefusal, ServerRefusal, UndecidedBy,
};
use crate::report::{
    Augmented, BadMessage, DocCodeLeft, OutsideReach, ServerMissing, ServerTrouble,
};
use crate::report::{Definition, LeftSite, Report, Status, Surface, SymbolKind};
use lancet_core::kinds::ErrorKind;

impl Report {
    /// A rename that must not go ahead: nothing is written.
    pub fn rename_refused(refusal: &RenameRefusal, surface: Surface) -> Report {
        let (status, kind, detail, next) = words(refusal, surface);
        Report::batch_error(status, kind, detail, &next)
    }
}

/// A refusal's status, stable kind, detail and what to send next.
pub(super) type Words = (Status, ErrorKind, String, String);

/// A refusal of the whole command (a rename, a signature change, a move): nothing is written.
pub(super) fn refused(kind: ErrorKind, detail: String, next: &str) -> Words {
    (Status::Refused, kind, detail, next.to_string())
}

/// The status, kind, detail and next step of a refusal.
fn words(refusal: &RenameRefusal, surface: Surface) -> Words {
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
fn no_match(old: &str, files_scanned: usize, mentions: usize, surface: Surface) -> Words {
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
fn kind_not_defined(old: &str, kind: SymbolKind, others: &[Definition]) -> Words {
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

/// A place's refusal: `--at`, a path, a qualified name.
pub(super) fn place_words(refusal: &PlaceRefusal, surface: Surface) -> Words {
    match refusal {
        PlaceRefusal::AtNamesOther { place, name, old } => {
            let at = surface.param("--at");
            refused(
                ErrorKind::NoMatch,
                format!("{at} {place} points at `{name}`, not `{old}`"),
                &format!("Leave OLD out with {at} (it is the identifier there), or point at OLD."),
            )
        }
        PlaceRefusal::AtUnsupported { name, place, why } => refused(
            ErrorKind::UnresolvedSites,
            format!("lancet does not rename `{name}` at {place}: {why}"),
            &format!(
                "Pass {} to have the project's language server rename it.",
                surface.switch("--lsp")
            ),
        ),
        PlaceRefusal::AtUnresolved { name, place, why } => refused(
            ErrorKind::UnresolvedSites,
            format!("lancet cannot tell what `{name}` at {place} refers to: {why}"),
            &format!(
                "Point {} at its definition, or pass {} to ask the project's language server.",
                surface.param("--at"),
                surface.switch("--lsp")
            ),
        ),
        PlaceRefusal::AtOutside { name, place, why } => refused(
            ErrorKind::NoMatch,
            format!(
                "`{name}` at {place} is not defined in the tree: {why}; lancet renames only the tree's own names"
            ),
            &format!(
                "Point {} at a definition of the tree or one of its uses.",
                surface.param("--at")
            ),
        ),
        PlaceRefusal::AtNotCode { name, place } => refused(
            ErrorKind::NoMatch,
            format!(
                "`{name}` at {place} is not an identifier in code lancet walked (a string, a comment, or an ignored file)"
            ),
            &format!("Point {} at the identifier in code.", surface.param("--at")),
        ),
        PlaceRefusal::AtMalformed { problem } => (
            Status::Malformed,
            ErrorKind::Usage,
            at_problem(problem, surface),
            format!(
                "Pass {} PATH:LINE:COL (1-based line and column of any character of the identifier, as {} numbers lines).",
                surface.param("--at"),
                surface.read("PATH")
            ),
        ),
        PlaceRefusal::PathOutside { error, at } => refused(
            ErrorKind::UnsafePath,
            error.clone(),
            if *at {
                "Pass a path relative to the root, inside it."
            } else {
                "Pass paths relative to the root, inside it."
            },
        ),
        PlaceRefusal::AtFileMissing { path } => refused(
            ErrorKind::Missing,
            format!("{path} is not a readable file under the root"),
            "Pass an existing file.",
        ),
        PlaceRefusal::PathMissing { path } => refused(
            ErrorKind::Missing,
            format!("{path} does not exist under the root"),
            "Pass existing files or directories.",
        ),
        PlaceRefusal::OldTypedWithAt { taken, name } => old_typed_with_at(taken, name, surface),
        PlaceRefusal::QualifiedUnknown { qualified } => refused(
            ErrorKind::NoMatch,
            format!("no symbol of the tree is named `{qualified}`"),
            &format!(
                "Check the qualified name (module path, then classes, then the name), or use {} PATH:LINE:COL.",
                surface.param("--at")
            ),
        ),
        PlaceRefusal::LspWithoutAt => {
            let at = surface.param("--at");
            (
                Status::Malformed,
                ErrorKind::Usage,
                format!(
                    "{} renames the symbol at a position: pass {at} PATH:LINE:COL",
                    surface.switch("--lsp")
                ),
                format!(
                    "Add {at} with the position of the symbol's definition or of one of its uses."
                ),
            )
        }
    }
}

/// The language server's refusal.
fn server_words(refusal: &ServerRefusal) -> Words {
    match refusal {
        ServerRefusal::NoSandbox { why } => refused(
            ErrorKind::Sandbox,
            format!(
                "the language server must run in lancet's sandbox, which cannot be built here: {why}"
            ),
            "Nothing was written. Rename without lsp, or ask the user to run the server where Landlock is available.",
        ),
        ServerRefusal::NoServer { path, missing } => refused(
            ErrorKind::Usage,
            no_server(path, missing.as_ref()),
            "Install the language server outside the project (Python: `pip install basedpyright`; JavaScript/TypeScript: `npm install -g typescript-language-server typescript`; Rust: `rustup component add rust-analyzer`), or rename without --lsp.",
        ),
        ServerRefusal::Failed { trouble } => refused(
            ErrorKind::Io,
            server_trouble(trouble),
            "Nothing was written. Check the language server (it must index the project), or rename without --lsp.",
        ),
        ServerRefusal::Refuses {
            server,
            name,
            place,
        } => refused(
            ErrorKind::NoMatch,
            format!("{server} says `{name}` at {place} cannot be renamed"),
            "Point --at at a symbol the project defines.",
        ),
    }
}

/// A special name, which the language itself calls or reads.
fn special_name(which: &str, name: &str, language: &str) -> Words {
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
) -> Words {
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
fn same_names(name: &str) -> Words {
    (
        Status::Malformed,
        ErrorKind::InvalidName,
        format!("OLD and NEW are both `{name}`"),
        "Pass a different new name.".into(),
    )
}

/// NEW is a keyword of the language.
fn reserved(new: &str, language: &str) -> Words {
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
) -> Words {
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
fn included_doctests(left: &DocCodeLeft, surface: Surface) -> Words {
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
fn unread_keywords(old: &str, places: &[(String, usize, String)], surface: Surface) -> Words {
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
fn foreign_no_definition(old: &str, language: &str, files: &[String], surface: Surface) -> Words {
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

/// What may reach a member from outside the tree, in words: a rename's and a signature
/// change's refusals say it alike.
pub(super) fn reach_words(reach: &OutsideReach) -> String {
    match reach {
        OutsideReach::Base(base) => format!("base `{base}`"),
        OutsideReach::UntoldSubclasses(class) => {
            format!("a subclass of {class} whose base lancet does not resolve")
        }
        OutsideReach::DeclarationFile(file) => {
            format!("declared in {file}, a declaration file of code elsewhere")
        }
        OutsideReach::Decorator(written) => {
            format!("decorator `@{written}` from outside the tree, which may call it by name")
        }
        OutsideReach::Augmentation {
            interface,
            augmented,
        } => {
            let what = match augmented {
                Augmented::Global => format!("an augmentation of the global `{interface}`"),
                Augmented::Module(module) => {
                    format!("an augmentation of `{interface}` of module `{module}`")
                }
                Augmented::Script => format!(
                    "a file without imports or exports, whose `{interface}` is the global `{interface}`, merged with the library's"
                ),
            };
            format!("declared in {what}; its uses reach it through that type")
        }
        OutsideReach::Iterator(class) => {
            format!("{class} is an iterator, whose `for … of` and spreads call it by name")
        }
    }
}

/// Each definition a base outside the tree may reach, with what may: `path:line (base `B`)`.
fn reached_places(places: &[(String, usize, OutsideReach)]) -> String {
    let listed: Vec<String> = places
        .iter()
        .map(|(path, line, reach)| format!("{path}:{line} ({})", reach_words(reach)))
        .collect();
    listed.join(", ")
}

/// Whether every place is reached by a decorator from outside the tree, none by a base.
fn by_decorators(places: &[(String, usize, OutsideReach)]) -> bool {
    all_reached(places, |reach| matches!(reach, OutsideReach::Decorator(_)))
}

/// Whether every place is reached by an iteration (an iterator's `next`), none by a base.
fn by_iteration(places: &[(String, usize, OutsideReach)]) -> bool {
    all_reached(places, |reach| matches!(reach, OutsideReach::Iterator(_)))
}

/// Whether every place is a member of an interface augmenting a type outside the tree.
fn by_augmentation(places: &[(String, usize, OutsideReach)]) -> bool {
    all_reached(places, |reach| {
        matches!(reach, OutsideReach::Augmentation { .. })
    })
}

/// Whether every place is reached as `kind` says.
fn all_reached(
    places: &[(String, usize, OutsideReach)],
    kind: impl Fn(&OutsideReach) -> bool,
) -> bool {
    places.iter().all(|(_, _, reach)| kind(reach))
}

/// OLD a member that may override one of a base outside the tree.
fn overrides_outside(
    old: &str,
    places: &[(String, usize, OutsideReach)],
    surface: Surface,
) -> Words {
    if by_augmentation(places) {
        return refused(
            ErrorKind::UnresolvedSites,
            format!(
                "`{old}` is a member of an interface that augments a type outside the tree: code reaches it through that type (`window.{old}`, a package's class), whose uses lancet does not rename, and they would name nothing: {}",
                reached_places(places)
            ),
            &format!(
                "Pass {} to have the language server rename it with those uses; if no code reaches it through that type, pass {}.",
                surface.switch("--lsp"),
                surface.switch("--leave-unresolved")
            ),
        );
    }
    if by_iteration(places) {
        return refused(
            ErrorKind::UnresolvedSites,
            format!(
                "`{old}` is a member JavaScript itself calls by that name: `for … of`, spreads and destructuring call an iterator's `next` (and `return`, `throw`) where no text names the call, and the renamed member would silently stop being called: {}",
                reached_places(places)
            ),
            &format!(
                "If no iteration reaches these objects, pass {} to rename it; if one does, the member must keep its name.",
                surface.switch("--leave-unresolved")
            ),
        );
    }
    if by_decorators(places) {
        return refused(
            ErrorKind::UnresolvedSites,
            format!(
                "`{old}` is a member that code outside the tree may call by that name: a decorator from outside the tree on a class of its hierarchy may have its framework call it (lancet reads no file outside the root), and the renamed member would silently stop being called: {}",
                reached_places(places)
            ),
            &format!(
                "If that decorator's framework calls no member `{old}`, pass {} to rename it; if it does, the member must keep its name.",
                surface.switch("--leave-unresolved")
            ),
        );
    }
    refused(
        ErrorKind::UnresolvedSites,
        format!(
            "`{old}` is a member that code outside the tree may call by that name: a base outside the tree, up its class's hierarchy or a subclass's, may define it (lancet reads no file outside the root), and the renamed member would silently stop overriding it: {}",
            reached_places(places)
        ),
        &format!(
            "If no base outside the tree has a member `{old}`, pass {} to rename it; if one has, the member must keep its name for that base to reach it.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// NEW a name a base outside the tree of the renamed member's class may define.
fn would_override_outside(
    new: &str,
    places: &[(String, usize, OutsideReach)],
    surface: Surface,
) -> Words {
    if by_iteration(places) {
        return refused(
            ErrorKind::NameInUse,
            format!(
                "`{new}` is a name JavaScript itself calls on an iterator (`for … of` and spreads call `next`, `return` and `throw`): the renamed member would start being called: {}",
                reached_places(places)
            ),
            &format!(
                "Pick another name; if no iteration reaches these objects, pass {}.",
                surface.switch("--leave-unresolved")
            ),
        );
    }
    if by_decorators(places) {
        return refused(
            ErrorKind::NameInUse,
            format!(
                "`{new}` may be a name a decorator from outside the tree on the renamed member's class's hierarchy has its framework call (lancet reads no file outside the root): the renamed member would start being called: {}",
                reached_places(places)
            ),
            &format!(
                "Pick another name; if that decorator's framework calls no member `{new}`, pass {}.",
                surface.switch("--leave-unresolved")
            ),
        );
    }
    refused(
        ErrorKind::NameInUse,
        format!(
            "`{new}` may be a member of a base outside the tree of the renamed member's class (lancet reads no file outside the root): the renamed member would start overriding it, and code outside the tree would call it: {}",
            reached_places(places)
        ),
        &format!(
            "Pick another name; if no base outside the tree has a member `{new}`, pass {}.",
            surface.switch("--leave-unresolved")
        ),
    )
}

/// NEW a member of a class in the renamed member's class's hierarchy.
fn new_in_hierarchy(old: &str, new: &str, places: &[(String, usize, String)]) -> Words {
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
fn doctest_output(old: &str, places: &[(String, usize)], surface: Surface) -> Words {
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
fn doctest_files(old: &str, places: &[(String, usize)], surface: Surface) -> Words {
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
fn component_files(old: &str, places: &[(String, usize)], surface: Surface) -> Words {
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
fn name_in_use(old: &str, new: &str, places: &[(String, usize)]) -> Words {
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
) -> Words {
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
) -> Words {
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
) -> Words {
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

/// What one language server did about the undecided sites, as a line of the refusal.
fn server_said(s: &UndecidedBy, surface: Surface) -> String {
    match &s.why {
        NotDecided::Off => format!("\n{} would decide them; asking it is off", s.server),
        NotDecided::Missing(why) => format!(
            "\n{} would decide them: {}",
            s.server,
            why.as_ref().map_or_else(
                || "lancet knows no server for it".to_string(),
                server_missing
            )
        ),
        NotDecided::CannotAsk(ServerRefusal::NoServer { path, missing }) => format!(
            "\n{} would decide them: {}",
            s.server,
            no_server(path, missing.as_ref())
        ),
        NotDecided::CannotAsk(ServerRefusal::Failed { trouble }) => format!(
            "\n{} was asked and failed: {}",
            s.server,
            server_trouble(trouble)
        ),
        NotDecided::CannotAsk(ServerRefusal::NoSandbox { why }) => format!(
            "\n{} was asked and failed: lancet's sandbox cannot be built here ({why}), and the server runs only in it",
            s.server
        ),
        NotDecided::CannotAsk(refusal @ ServerRefusal::Refuses { .. }) => format!(
            "\n{} was asked and failed: {}",
            s.server,
            server_words(refusal).2
        ),
        NotDecided::CouldNotTell => {
            format!("\n{} was asked and could not tell for these", s.server)
        }
        NotDecided::NotAsked(at) => format!(
            "\n{} was not asked: {at} stays undecided and stops the rename already ({} asks about every site)",
            s.server,
            surface.switch("--leave-unresolved")
        ),
        NotDecided::Stopped { at, not_asked } => format!(
            "\n{} was asked and could not tell for {at}; one undecided site stops the rename, so the {not_asked} site(s) after it were not asked ({} asks about every site)",
            s.server,
            surface.switch("--leave-unresolved")
        ),
        NotDecided::NotItsSites(what) => format!(
            "\n{} does not rename {what}: lancet decides those sites, and could not decide these",
            s.server
        ),
        NotDecided::LeftThem => format!(
            "\n{}'s rename leaves the sites lancet's own resolver reads as this symbol: one of the two is wrong there, and lancet does not pick one ({} renames them, {} leaves them)",
            s.server,
            surface.switch("--include-unresolved"),
            surface.switch("--leave-unresolved")
        ),
    }
}

/// Sites lancet could not decide stop the rename: each may be the symbol, and one left under
/// the old name can break the build while the rest is renamed.
fn unresolved(
    old: &str,
    (decided, total): (usize, usize),
    listed: &[LeftSite],
    (at, servers): (bool, &[UndecidedBy]),
    surface: Surface,
) -> Words {
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
            .map(|u| format!("  {}:{}: {}  ({})", u.path, u.line, u.text, u.why))
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

/// What is wrong with a `--at` place, in words.
fn at_problem(problem: &AtProblem, surface: Surface) -> String {
    match problem {
        AtProblem::NotAPlace { place } => {
            format!(
                "{} takes PATH:LINE:COL, got {place:?}",
                surface.param("--at")
            )
        }
        AtProblem::NoLine { path, line } => format!("{path} has no line {line}"),
        AtProblem::NoColumn { path, line, column } => {
            format!("line {line} of {path} has no column {column}")
        }
        AtProblem::NotOnIdentifier { place, line_text } => {
            format!("{place} is not on an identifier (the line reads {line_text:?})")
        }
    }
}

/// `--at P:L:C OLD NEW` on the command line: OLD was taken for NEW and NEW for a path.
fn old_typed_with_at(taken: &str, name: &str, surface: Surface) -> Words {
    match surface {
        Surface::Cli => (
            Status::Malformed,
            ErrorKind::Usage,
            format!(
                "`{name}` is no file or directory under the root: with --at, OLD is left out, so `{taken}` was taken for NEW and `{name}` for a path"
            ),
            format!("Run `lancet rename --at PATH:LINE:COL {name}`."),
        ),
        Surface::Mcp => (
            Status::Malformed,
            ErrorKind::Usage,
            format!("`new` is `{taken}`, and `paths` names `{name}`, which does not exist"),
            "Pass the new name as `new` and existing files or directories as `paths`.".into(),
        ),
    }
}

/// What went wrong with a language server, in words: a rename's refusal, or why the server did
/// not decide a site.
fn server_trouble(trouble: &ServerTrouble) -> String {
    match trouble {
        ServerTrouble::CannotStart { program, error } => format!("cannot start {program}: {error}"),
        ServerTrouble::StoppedReading(error) => {
            format!("the language server stopped reading: {error}")
        }
        ServerTrouble::Refused {
            server,
            method,
            message,
            loading,
        } => format!(
            "{server} refused {method}: {message}{}",
            if *loading { " (still loading)" } else { "" }
        ),
        ServerTrouble::Silent {
            server,
            during,
            seconds,
        } => format!("{server} did not answer {during} within {seconds} s"),
        ServerTrouble::Exited { server, during } => format!("{server} exited during {during}"),
        ServerTrouble::Unreadable { server, message } => match message {
            BadMessage::Unframed => format!("{server} sent a message without a Content-Length"),
            BadMessage::TooLarge { bytes, cap_mib } => format!(
                "{server} sent a message of {bytes} bytes, over lancet's cap of {cap_mib} MiB"
            ),
            BadMessage::NotJson(error) => {
                format!("{server} sent a message that is not JSON: {error}")
            }
        },
        ServerTrouble::StartUnnamed(why) => why.clone(),
        ServerTrouble::StartUnreadable(path) => format!("{path} cannot be read"),
        ServerTrouble::ChangesFiles { kind, uri } => format!(
            "the language server's rename {kind}s a file ({uri}); lancet renames identifiers only"
        ),
        ServerTrouble::EditsNonFile(uri) => {
            format!("the language server edits {uri}, which is not a file")
        }
        ServerTrouble::EditsOutside(path) => {
            format!("the language server edits {path}, outside the root")
        }
        ServerTrouble::EditsUnnamed { path, error } => {
            format!("the language server edits {path}: {error}")
        }
        ServerTrouble::EditedUnreadable(path) => {
            format!("{path} (edited by the language server) cannot be read")
        }
        ServerTrouble::EditedNotUtf8(path) => {
            format!("{path} (edited by the language server) is not UTF-8")
        }
        ServerTrouble::EditOutsideFile(path) => {
            format!("the language server's edit of {path} is outside the file")
        }
        ServerTrouble::NotARename {
            path,
            put,
            replaced,
            old,
            new,
        } => format!(
            "the language server's edit of {path} puts {put:?} in place of {replaced:?}, which is not renaming `{old}` to `{new}`"
        ),
    }
}

/// Why no language server runs for `path`, in words.
fn no_server(path: &str, missing: Option<&ServerMissing>) -> String {
    match missing {
        None => format!("lancet knows no language server for {path}"),
        Some(why) => format!("{}, for {path}", server_missing(why)),
    }
}

/// Why no language server can run for a language here, in words.
fn server_missing(why: &ServerMissing) -> String {
    match why {
        ServerMissing::NotOnPath(names) => {
            format!("no {} on PATH (outside the project)", names.join(" or "))
        }
        ServerMissing::NoPython(server) => format!(
            "{server} runs a Python interpreter, and there is no python3 or python on PATH outside the project (it would look for one in the project)"
        ),
        ServerMissing::NoTypeScript { server, program } => format!(
            "{server} ({program}) has no TypeScript installed beside it, and lancet never lets it use one under the project (install it beside the server: `npm install -g typescript`)"
        ),
        ServerMissing::NoGo(server) => {
            format!("{server} runs the go command, and there is no go on PATH outside the project")
        }
        ServerMissing::RustupUnrunnable(error) => format!("cannot run rustup: {error}"),
        ServerMissing::RustupSilent(seconds) => {
            format!("rustup did not answer within {seconds} s")
        }
        ServerMissing::RustupNoToolchain => "rustup has no default toolchain".to_string(),
        ServerMissing::ProxyWithoutToolchain(server) => format!(
            "{server} on PATH is rustup's proxy, and rustup has no default toolchain to resolve it in"
        ),
        ServerMissing::NoRustAnalyzer(toolchain) => format!(
            "rust-analyzer on PATH is rustup's proxy, and the toolchain {toolchain} has no rust-analyzer (`rustup component add rust-analyzer`)"
        ),
        ServerMissing::Unresolvable(error) => error.clone(),
        ServerMissing::UnderProject => {
            "rust-analyzer resolves to a program under the project".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_s_trouble_is_worded_with_what_it_said() {
        let refused = |loading| ServerTrouble::Refused {
            server: "pyright".into(),
            method: "textDocument/rename".into(),
            message: "no symbol".into(),
            loading,
        };
        assert_eq!(
            server_trouble(&refused(false)),
            "pyright refused textDocument/rename: no symbol"
        );
        assert_eq!(
            server_trouble(&refused(true)),
            "pyright refused textDocument/rename: no symbol (still loading)"
        );
        let huge = ServerTrouble::Unreadable {
            server: "gopls".into(),
            message: BadMessage::TooLarge {
                bytes: 70_000_000,
                cap_mib: 64,
            },
        };
        assert_eq!(
            server_trouble(&huge),
            "gopls sent a message of 70000000 bytes, over lancet's cap of 64 MiB"
        );
        let wrong = ServerTrouble::NotARename {
            path: "a.py".into(),
            put: "y".into(),
            replaced: "xx".into(),
            old: "x".into(),
            new: "y".into(),
        };
        assert_eq!(
            server_trouble(&wrong),
            "the language server's edit of a.py puts \"y\" in place of \"xx\", which is not renaming `x` to `y`"
        );
    }

    #[test]
    fn a_missing_server_is_worded_for_the_file_it_was_wanted_for() {
        assert_eq!(
            no_server("a.ex", None),
            "lancet knows no language server for a.ex"
        );
        let path = ServerMissing::NotOnPath(vec![
            "basedpyright-langserver".into(),
            "pyright-langserver".into(),
        ]);
        assert_eq!(
            no_server("a.py", Some(&path)),
            "no basedpyright-langserver or pyright-langserver on PATH (outside the project), for a.py"
        );
        assert_eq!(
            server_missing(&ServerMissing::RustupSilent(120)),
            "rustup did not answer within 120 s"
        );
    }

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
