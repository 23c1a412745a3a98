//! Why a command left a site, in words: the report's lists of sites left and their JSON.

use super::site_problem;
use crate::report::{LeftWhy, MoveLeft, UnlookedSite};

/// Why a site was left, as the report says it.
pub(super) fn left_why(why: &LeftWhy) -> String {
    match why {
        LeftWhy::Said(said) => said.clone(),
        LeftWhy::Unlooked { server, site, then } => {
            let holder = match site {
                UnlookedSite::Doctest => "in a doctest",
                UnlookedSite::MacroBody => "in a `macro_rules!` body",
                UnlookedSite::String => "in a string read as code",
            };
            format!(
                "{holder}, which {server} does not rename; {}",
                left_why(then)
            )
        }
        LeftWhy::ServerLeaves { server, old } => {
            format!("lancet's resolver reads it as this `{old}`, and {server}'s rename leaves it")
        }
        LeftWhy::AtUntold => "lancet cannot tell which symbol --at names".into(),
        LeftWhy::Signature(problem) => site_problem(problem),
        LeftWhy::Move(left) => move_left(left),
    }
}

/// Why a move left a site, in words.
fn move_left(left: &MoveLeft) -> String {
    match left {
        MoveLeft::Reexported => "the new module re-exports it from the old one".into(),
        MoveLeft::NamespaceExport { name } => format!(
            "`export * as …` of the old module: what its users read of it, `{name}` among them, is not decided"
        ),
        MoveLeft::ModuleString { reader, name } => {
            format!("{reader} of the old module: whether it reaches `{name}` is not decided")
        }
        MoveLeft::NameTaken { namespace, name } => format!(
            "`{namespace}.{name}` cannot become `{name}`: the module binds a `{name}` of its own"
        ),
        MoveLeft::NamespaceWhole { namespace, name } => format!(
            "the old module's namespace `{namespace}` is used whole: whether it reads `{name}` is not decided"
        ),
        MoveLeft::Doctest => "in a doctest, which lancet does not rewrite".into(),
        MoveLeft::String => "a string naming it, which lancet does not rewrite".into(),
        MoveLeft::StarImport => "imports everything of the old module with `*`".into(),
    }
}

/// A site's `why` in the report's JSON: its words.
pub(crate) fn left_why_in_json<S: serde::Serializer>(
    why: &LeftWhy,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&left_why(why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_a_server_does_not_look_at_says_so_before_why_lancet_left_it() {
        let unlooked = LeftWhy::Unlooked {
            server: "rust-analyzer".into(),
            site: UnlookedSite::Doctest,
            then: Box::new(LeftWhy::AtUntold),
        };
        assert_eq!(
            left_why(&unlooked),
            "in a doctest, which rust-analyzer does not rename; lancet cannot tell which symbol --at names"
        );
        let leaves = LeftWhy::ServerLeaves {
            server: "pyright".into(),
            old: "x".into(),
        };
        assert_eq!(
            left_why(&leaves),
            "lancet's resolver reads it as this `x`, and pyright's rename leaves it"
        );
    }

    #[test]
    fn a_move_s_sites_left_are_worded_from_the_fact() {
        let taken = MoveLeft::NameTaken {
            namespace: "a".into(),
            name: "f".into(),
        };
        assert_eq!(
            left_why(&LeftWhy::Move(taken)),
            "`a.f` cannot become `f`: the module binds a `f` of its own"
        );
        let read = MoveLeft::ModuleString {
            reader: "vi.mock()",
            name: "f".into(),
        };
        assert_eq!(
            left_why(&LeftWhy::Move(read)),
            "vi.mock() of the old module: whether it reaches `f` is not decided"
        );
    }
}
