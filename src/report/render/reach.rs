//! What may reach a member from outside the tree, in words: the refusals of a rename whose OLD
//! may override, or whose NEW may be, a member a base, a decorator, an iteration or an
//! augmented type outside the tree reaches by name. A signature change's refusal words its
//! places alike.

use super::refused::{RefusalWords, refused};
use crate::report::{Augmented, OutsideReach, Surface};
use lancet_core::kinds::ErrorKind;

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
pub(super) fn overrides_outside(
    old: &str,
    places: &[(String, usize, OutsideReach)],
    surface: Surface,
) -> RefusalWords {
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
pub(super) fn would_override_outside(
    new: &str,
    places: &[(String, usize, OutsideReach)],
    surface: Surface,
) -> RefusalWords {
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
