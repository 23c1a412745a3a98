//! A signature change in words: its refusals (the request, the function named, a change that
//! does not fit a definition, sites that cannot be updated), why each site was left, and the
//! lines that say what changed: the parameters before and after, the definitions, the calls
//! updated per file.

use super::place::place_words;
use super::reach::reach_words;
use super::refused::{RefusalWords, refused};
use super::rename::{display_language, places};
use super::{SITES_LISTED as LISTED, join_all_lines, left_why, list_left_sites};
use crate::report::{LeftSite, Report, SignatureSummary, Status, Surface};
use crate::report::{ParamProblem, SignatureRefusal, SiteProblem, UnsupportedDefinition};
use lancet_core::kinds::ErrorKind;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many files the calls line names, each with its count.
const FILES_NAMED: usize = 12;

impl Report {
    /// A signature change that must not go ahead: nothing is written.
    pub fn signature_refused(refusal: &SignatureRefusal, surface: Surface) -> Report {
        let (status, kind, detail, next) = words(refusal, surface);
        Report::batch_error(status, kind, detail, &next)
    }

    /// Attaches a signature change's findings and puts them at the top of the message.
    pub fn with_signature(mut self, summary: SignatureSummary, surface: Surface) -> Report {
        let refused_for_sites = self
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::UnresolvedSites);
        self.message = format!(
            "{}\n{}",
            findings(&summary, refused_for_sites, surface),
            self.message
        );
        self.signature = Some(summary);
        self
    }
}

/// Why a call site was not updated, as its listing says it.
pub(super) fn site_problem(problem: &SiteProblem) -> String {
    match problem {
            SiteProblem::Value => "used as a value (passed, stored or returned): the calls made through it elsewhere cannot be found".into(),
            SiteProblem::Partial => "`functools.partial` binds arguments to it ahead of the calls".into(),
            SiteProblem::Decorator => "used as a decorator: it is called with the function it decorates".into(),
            SiteProblem::StarArgs => "`*` unpacks arguments into it: which parameters they fill is not known".into(),
            SiteProblem::DoubleStarArgs => "`**` unpacks keywords into it: which parameters they name is not known".into(),
            SiteProblem::TooMany { given, takes } => format!(
                "{given} positional argument(s), the definition takes {takes}: the call does not match it"
            ),
            SiteProblem::UnknownKeyword { name } => {
                format!("the keyword `{name}` names no parameter: the call does not match the definition")
            }
            SiteProblem::Twice { name } => format!("`{name}` is given twice: the call does not match the definition"),
            SiteProblem::PositionalOnly { name } => format!(
                "`{name}` is passed by position only (positional-only, or JavaScript's), and its place would hold no argument, or another"
            ),
            SiteProblem::ExtraAfterGap => "its extra positional arguments (to `*args`, `...rest`) would fill the new or moved parameter before them".into(),
            SiteProblem::Comments => "comments between its arguments: lancet does not guess where they go".into(),
            SiteProblem::Undecided(why) => format!("may or may not call this function: {why}"),
            SiteProblem::Doctest => "in a doctest, which lancet does not rewrite".into(),
        }
}

/// A request that cannot be read as asked.
fn malformed(kind: ErrorKind, detail: String, next: &str) -> RefusalWords {
    (Status::Malformed, kind, detail, next.to_string())
}

/// The status, kind, detail and next step of a refusal.
fn words(refusal: &SignatureRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        SignatureRefusal::NothingToChange
        | SignatureRefusal::Bisect
        | SignatureRefusal::Malformed { .. }
        | SignatureRefusal::NotIdentifier { .. }
        | SignatureRefusal::AddWithoutValue { .. } => request_words(refusal, surface),
        SignatureRefusal::NotAFunction { .. }
        | SignatureRefusal::NoMatch { .. }
        | SignatureRefusal::Ambiguous { .. } => target_words(refusal, surface),
        SignatureRefusal::Unsupported {
            function,
            path,
            line,
            why,
        } => unsupported(function, path, *line, why),
        SignatureRefusal::Parameters { .. }
        | SignatureRefusal::StillUsed { .. }
        | SignatureRefusal::NameTaken { .. } => definition_words(refusal),
        SignatureRefusal::Sites {
            function,
            updated,
            unsafe_sites,
            unsafe_total,
            unresolved,
            unresolved_total,
        } => sites(
            function,
            *updated,
            (unsafe_sites, *unsafe_total),
            (unresolved, *unresolved_total),
            surface,
        ),
        SignatureRefusal::Overlap { path, line } => (
            Status::Error,
            ErrorKind::Overlap,
            format!(
                "two changes of {path} overlap at line {line}, which lancet cannot make both of; nothing was written"
            ),
            "Make this change by editing the file, and report the case to lancet's maintainers."
                .into(),
        ),
        SignatureRefusal::Changed { path } => refused(
            ErrorKind::Stale,
            format!("{path} changed while lancet read it"),
            "Run the change again once nothing else writes the files.",
        ),
        SignatureRefusal::Place(place) => place_words(place, surface),
    }
}

/// The function named is none, is no function, or is one of several.
fn target_words(refusal: &SignatureRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        SignatureRefusal::NotAFunction { name, place, what } => refused(
            ErrorKind::KindMismatch,
            format!(
                "`{name}` at {place} is {what}, not a function whose signature lancet can change"
            ),
            &format!(
                "Name a function or method defined with `def` (by name, qualified name, or {} PATH:LINE:COL).",
                surface.param("--at")
            ),
        ),
        SignatureRefusal::NoMatch {
            function,
            files_scanned,
        } => refused(
            ErrorKind::NoMatch,
            format!(
                "no definition of a function `{function}` found in {files_scanned} file(s) scanned"
            ),
            "Check the spelling and the paths (files ignored by .gitignore are not walked).",
        ),
        SignatureRefusal::Ambiguous {
            function,
            listed,
            symbols,
        } => {
            let more = symbols.saturating_sub(listed.len());
            refused(
                ErrorKind::Ambiguous,
                format!(
                    "`{function}` names {symbols} unrelated functions: {}{}",
                    places(listed),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
                &format!(
                    "Name one by position ({} PATH:LINE:COL, one of the places above) or by its qualified name (module.Class.method).",
                    surface.param("--at")
                ),
            )
        }
        _ => unreachable!("only the target's refusals are worded here"),
    }
}

/// A change that does not fit a definition.
fn definition_words(refusal: &SignatureRefusal) -> RefusalWords {
    match refusal {
        SignatureRefusal::Parameters {
            function,
            path,
            line,
            problem,
        } => refused(
            ErrorKind::InvalidSignature,
            format!("{function} ({path}:{line}): {}", param_problem(problem)),
            "Fix the change to fit the definition, and send it again.",
        ),
        SignatureRefusal::StillUsed {
            name,
            function,
            path,
            lines,
        } => refused(
            ErrorKind::InvalidSignature,
            format!(
                "the body of {function} still uses `{name}` ({path} line(s) {}): removing the parameter would leave those uses unbound (or bound to a global of that name)",
                join_all_lines(lines)
            ),
            "Remove or rewrite those uses first, then remove the parameter.",
        ),
        SignatureRefusal::NameTaken {
            new,
            function,
            path,
            lines,
        } => refused(
            ErrorKind::NameInUse,
            format!(
                "`{new}` already stands in {function} ({path} line(s) {}): renaming the parameter to it would merge the two names",
                join_all_lines(lines)
            ),
            "Pick a new name the function does not use.",
        ),
        _ => unreachable!("only a definition's refusals are worded here"),
    }
}

/// A request that cannot be read as asked: no change, a change spelled wrong, a name or code
/// that is none, a parameter added with nothing for the calls, `--bisect`.
fn request_words(refusal: &SignatureRefusal, surface: Surface) -> RefusalWords {
    match refusal {
        SignatureRefusal::NothingToChange => malformed(
            ErrorKind::Usage,
            "no change was given".into(),
            match surface {
                Surface::Cli => "Pass at least one of --add, --remove, --rename or --reorder.",
                Surface::Mcp => {
                    "Pass at least one change in `changes` (op add, remove, rename or reorder)."
                }
            },
        ),
        SignatureRefusal::Bisect => malformed(
            ErrorKind::Usage,
            "--bisect has nothing to bisect in a signature change: the definition and its calls stand or fall together".into(),
            "Run it with --test alone: a failing test run rolls the whole change back.",
        ),
        SignatureRefusal::Malformed { flag, spec, expected } => malformed(
            ErrorKind::Usage,
            format!("{} {spec:?} cannot be read", surface.param(flag)),
            &format!("Write it as {} {expected}.", surface.param(flag)),
        ),
        SignatureRefusal::NotIdentifier { name } => malformed(
            ErrorKind::InvalidName,
            format!("`{name}` is not an identifier"),
            "Pass parameter names made of letters, digits and `_`, not starting with a digit.",
        ),
        SignatureRefusal::AddWithoutValue { name } => malformed(
            ErrorKind::Usage,
            format!(
                "the new parameter `{name}` has neither a default nor a value for the existing calls, so every call would lack it"
            ),
            &match surface {
                Surface::Cli => format!(
                    "Give it a default (--add {name}=DEFAULT) or the value the existing calls pass (--add {name}:VALUE), or both."
                ),
                Surface::Mcp => format!(
                    "Give `{name}` a `default`, or the `value` the existing calls pass, or both."
                ),
            },
        ),
        _ => unreachable!("only a request's refusals are worded here"),
    }
}

/// A definition lancet does not change by its text.
fn unsupported(
    function: &str,
    path: &str,
    line: usize,
    why: &UnsupportedDefinition,
) -> RefusalWords {
    match why {
        UnsupportedDefinition::Decorator(decorator) => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) is decorated with `@{decorator}`, which may change how it is called: its calls call what the decorator returns"
            ),
            "Change the signature by editing the files, or drop the decorator first.",
        ),
        UnsupportedDefinition::Overload => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) has `@overload` signatures: changing one definition would leave the others stating the old one"
            ),
            "Change the overloads by editing the files.",
        ),
        UnsupportedDefinition::Language(language) => refused(
            ErrorKind::UnknownLanguage,
            format!(
                "{function} ({path}:{line}) is {}; lancet changes the signatures of Python and JavaScript/TypeScript functions so far",
                display_language(language)
            ),
            "Change it by editing the files, or rename with `lancet rename`.",
        ),
        UnsupportedDefinition::Comments => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) has comments among its parameters: lancet does not guess where they go"
            ),
            "Move the comments out of the parameter list (or change the signature by editing the file), and send it again.",
        ),
        UnsupportedDefinition::New(class) => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} is a constructor, and its class {class} ({path}:{line}) also defines `__new__`, which takes the same arguments: changing `__init__` alone would break its calls"
            ),
            "Change `__new__` and `__init__` together by editing the files.",
        ),
        UnsupportedDefinition::OutsideBase(reach) => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) may override a method of a class outside the tree, which calls it with that method's parameters: {}",
                reach_words(reach)
            ),
            "Change it by editing the files, where the outside class's calls are known to allow it.",
        ),
        UnsupportedDefinition::Method => refused(
            ErrorKind::UnknownLanguage,
            format!(
                "{function} ({path}:{line}) is a JavaScript/TypeScript method; lancet changes the signatures of Python functions and methods, and of JavaScript/TypeScript functions, so far"
            ),
            "Change it by editing the files (its overrides and interfaces with it).",
        ),
        UnsupportedDefinition::Redefined => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} is defined more than once, with different parameters ({path}:{line} differs from the first): its calls may reach either"
            ),
            "Change the definitions by editing the files, or make them take the same parameters first.",
        ),
        UnsupportedDefinition::Protocol => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) is a method Python calls itself (a protocol's: attribute access, operators, `with`, calling an instance): its calls are not in the code, and their arguments are the protocol's"
            ),
            "Leave its parameters as the protocol has them.",
        ),
        UnsupportedDefinition::Unreadable => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) has a parameter lancet does not read (a tuple parameter)"
            ),
            "Change the signature by editing the file.",
        ),
        UnsupportedDefinition::NotDefined => refused(
            ErrorKind::UnresolvedSites,
            format!(
                "{function} ({path}:{line}) overrides it without a `def` (a function assigned to an attribute): lancet cannot change its parameters"
            ),
            "Change that override by editing the file, or name a method without it.",
        ),
    }
}

/// What does not fit in a definition's parameters.
fn param_problem(problem: &ParamProblem) -> String {
    match problem {
        ParamProblem::Unknown { name, known } => format!(
            "it has no parameter `{name}` (its parameters: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ),
        ParamProblem::Duplicate { name } => format!("it has a parameter `{name}` already"),
        ParamProblem::Receiver { name } => format!(
            "`{name}` is the method's receiver, which every call supplies: it cannot be removed, moved or preceded"
        ),
        ParamProblem::Position { position, count } => format!(
            "position {position} is past its {count} parameter(s) (positions count from 0, the receiver included)"
        ),
        ParamProblem::AfterDefault { name } => format!(
            "`{name}` would have no default after a parameter with one, which Python rejects"
        ),
        ParamProblem::KindChange { name } => format!(
            "the new order would change what kind of parameter `{name}` is (positional-only, ordinary, *args, keyword-only, **kwargs)"
        ),
        ParamProblem::AfterVarKeyword { name } => {
            format!("`{name}` would follow the `**` parameter, which Python rejects")
        }
        ParamProblem::Repeated { name } => format!("`{name}` is named twice in the new order"),
        ParamProblem::Untyped { name } => format!(
            "the new parameter `{name}` has no default, so it would have no type (TypeScript infers one from a default)"
        ),
        ParamProblem::NotExpression { name, code } => format!(
            "`{code}`, given for the new parameter `{name}`, is not one expression of its language (a tuple goes in parentheses)"
        ),
    }
}

/// Sites the change cannot update safely, or cannot decide: they stop it.
fn sites(
    function: &str,
    updated: usize,
    (unsafe_sites, unsafe_total): (&[LeftSite], usize),
    (unresolved, unresolved_total): (&[LeftSite], usize),
    surface: Surface,
) -> RefusalWords {
    let (include, leave) = surface.unresolved_switches();
    let mut detail = format!(
        "{} site(s) of {function} cannot be updated safely, so nothing was written ({updated} call(s) could be):",
        unsafe_total + unresolved_total
    );
    for (listed, total) in [(unsafe_sites, unsafe_total), (unresolved, unresolved_total)] {
        for site in listed {
            let _ = write!(
                detail,
                "\n  {}:{}: {}  ({})",
                site.path,
                site.line,
                site.text,
                left_why(&site.why)
            );
        }
        if total > listed.len() {
            let _ = write!(detail, "\n  … and {} more", total - listed.len());
        }
    }
    let next = match (unsafe_total > 0, unresolved_total > 0) {
        (true, false) => format!(
            "Rewrite those sites by hand first, or pass {leave} to change the rest and leave them as they are."
        ),
        (false, _) => format!(
            "Pass {include} to update those calls too (as calls of this function), or {leave} to change the rest and leave them; or name their receivers' types."
        ),
        (true, true) => format!(
            "Pass {leave} to change the rest and leave them (with {include} the undecided calls are updated too), or rewrite them by hand first."
        ),
    };
    (Status::Refused, ErrorKind::UnresolvedSites, detail, next)
}

/// The findings: the change, the definitions, the calls per file, and the sites left.
fn findings(summary: &SignatureSummary, refused_for_sites: bool, surface: Surface) -> String {
    let mut msg = format!(
        "Signature of {}: {} -> {} ({}).",
        summary.function,
        summary.before,
        summary.after,
        summary.changes.join("; ")
    );
    let _ = write!(
        msg,
        " {} definition(s), {} call(s) updated in {} file(s) ({} call(s) needed no change; {} file(s) scanned).",
        summary.definitions.len(),
        summary.calls.len(),
        summary.files_changed,
        summary.calls_unchanged,
        summary.files_scanned
    );
    if !summary.definitions.is_empty() {
        let shown: Vec<String> = summary
            .definitions
            .iter()
            .take(LISTED)
            .map(|d| format!("{}:{}", d.path, d.line))
            .collect();
        let _ = write!(msg, "\nDefinitions: {}", shown.join(", "));
    }
    if !summary.calls.is_empty() {
        let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
        for call in &summary.calls {
            *per_file.entry(&call.path).or_default() += 1;
        }
        let shown: Vec<String> = per_file
            .iter()
            .take(FILES_NAMED)
            .map(|(path, n)| format!("{path} {n}"))
            .collect();
        let more = per_file.len().saturating_sub(FILES_NAMED);
        let _ = write!(
            msg,
            "\nCalls updated per file: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more file(s) (--json lists all)")
            } else {
                String::new()
            }
        );
    }
    // A refusal for these sites lists them itself.
    if !refused_for_sites {
        let (include, _) = surface.unresolved_switches();
        list_left_sites(
            &mut msg,
            "Left as they are, not safe to update",
            &summary.unsafe_sites,
        );
        let undecided: Vec<LeftSite> = summary
            .unresolved
            .iter()
            .filter(|u| {
                !summary
                    .calls
                    .iter()
                    .any(|c| c.path == u.path && c.line == u.line && c.column == u.column)
            })
            .cloned()
            .collect();
        list_left_sites(
            &mut msg,
            &format!("Left as they are, undecided (pass {include} to update them too)"),
            &undecided,
        );
    }
    msg
}
