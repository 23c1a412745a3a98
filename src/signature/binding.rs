//! One call rewritten, pure: its arguments bound to the old parameters as Python binds them,
//! then laid out for the new ones. An argument keeps its style (positional or keyword) where
//! it can; one whose place moved behind a parameter now passed by keyword is passed by
//! keyword. A call whose binding cannot be known (`*args`, `**kwargs` the change reaches) or
//! does not match the definition is not rewritten but refused, with why.

use super::params::{Kind, Origin, Signature};
use crate::report::SiteProblem;
use std::collections::HashMap;
use std::ops::Range;

/// What an argument is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgKind {
    /// `value`.
    Positional,
    /// `name=value`.
    Keyword(String),
    /// `*values`.
    Star,
    /// `**mapping`.
    DoubleStar,
}

/// One argument of a call: what it is, its whole text and its value's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    pub(crate) kind: ArgKind,
    /// The whole argument (`name=value` for a keyword).
    pub(crate) range: Range<usize>,
    /// Its value (after `name=`; the whole argument otherwise).
    pub(crate) value: Range<usize>,
}

/// One argument of the rewritten call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// An argument as written.
    Source(Range<usize>),
    /// `name=` before a value as written (a renamed keyword, an argument now passed by keyword).
    Keyword(String, Range<usize>),
    /// New text (a value added for a new parameter).
    Text(String),
}

/// What the old parameters received from one call.
struct Bound {
    /// Old entry index → the argument bound to it.
    params: HashMap<usize, usize>,
    /// Positional arguments beyond the named parameters (to `*args`).
    extra_positional: Vec<usize>,
    /// Whether `*values` stands among the arguments.
    star: bool,
    /// Whether `**mapping` stands among the arguments.
    double_star: bool,
}

/// The call's arguments for the new parameters, or `None` when they bind as before. `implicit`:
/// the call supplies the receiver itself (`obj.method(…)`, `Class(…)`).
pub(crate) fn rewrite(
    old: &Signature,
    new: &Signature,
    implicit: bool,
    args: &[Arg],
) -> Result<Option<Vec<Item>>, SiteProblem> {
    let skip = usize::from(implicit && old.receiver);
    let old_kinds: Vec<(usize, String, Kind)> = old
        .entries
        .iter()
        .filter_map(|(e, at)| match e {
            super::params::Entry::Param(p) => Some((at.unwrap_or_default(), p.name.clone())),
            _ => None,
        })
        .zip(old.kinds())
        .map(|((at, name), (_, kind))| (at, name, kind))
        .skip(skip)
        .collect();
    let bound = bind(&old_kinds, args)?;
    let new_kinds: Vec<(&super::params::Param, Kind)> =
        new.kinds().into_iter().skip(skip).collect();
    let old_index = |p: &super::params::Param| match p.origin {
        Origin::Old(i) => Some(i),
        Origin::Added { .. } => None,
    };
    if bound.star {
        // `*values` fills the positional parameters from its place on: they must stay as
        // they are.
        let before: Vec<Option<usize>> = old_kinds
            .iter()
            .filter(|(_, _, k)| k.positional() || *k == Kind::VarPositional)
            .map(|(i, _, _)| Some(*i))
            .collect();
        let after: Vec<Option<usize>> = new_kinds
            .iter()
            .filter(|(_, k)| k.positional() || *k == Kind::VarPositional)
            .map(|(p, _)| old_index(p))
            .collect();
        if before != after {
            return Err(SiteProblem::StarArgs);
        }
    }
    if bound.double_star {
        let old_var_keyword = old_kinds.iter().any(|(_, _, k)| *k == Kind::VarKeyword);
        for (at, name, kind) in &old_kinds {
            let reachable =
                matches!(kind, Kind::Normal | Kind::KeywordOnly) || (*kind == Kind::VarKeyword);
            if !reachable || bound.params.contains_key(at) {
                continue;
            }
            let kept = new_kinds
                .iter()
                .find(|(p, _)| old_index(p) == Some(*at))
                .is_some_and(|(p, _)| p.name == *name);
            if !kept {
                return Err(SiteProblem::DoubleStarArgs);
            }
        }
        let passes_new = new_kinds
            .iter()
            .any(|(p, _)| matches!(&p.origin, Origin::Added { value: Some(_) }));
        if old_var_keyword && passes_new {
            return Err(SiteProblem::DoubleStarArgs);
        }
    }
    let items = lay_out(&new_kinds, &bound, args)?;
    let unchanged = items.len() == args.len()
        && items
            .iter()
            .zip(args)
            .all(|(item, arg)| *item == Item::Source(arg.range.clone()));
    Ok((!unchanged).then_some(items))
}

/// Binds the arguments to the old parameters (after the receiver the call supplies).
fn bind(old: &[(usize, String, Kind)], args: &[Arg]) -> Result<Bound, SiteProblem> {
    let mut bound = Bound {
        params: HashMap::new(),
        extra_positional: Vec::new(),
        star: false,
        double_star: false,
    };
    let positional: Vec<usize> = old
        .iter()
        .filter(|(_, _, k)| k.positional())
        .map(|(at, _, _)| *at)
        .collect();
    let var_positional = old.iter().any(|(_, _, k)| *k == Kind::VarPositional);
    let var_keyword = old.iter().any(|(_, _, k)| *k == Kind::VarKeyword);
    let mut next = 0;
    for (i, arg) in args.iter().enumerate() {
        match &arg.kind {
            ArgKind::Positional if bound.star => {}
            ArgKind::Positional => {
                match positional.get(next) {
                    Some(at) => {
                        bound.params.insert(*at, i);
                    }
                    None if var_positional => bound.extra_positional.push(i),
                    None => {
                        let given = args
                            .iter()
                            .filter(|a| a.kind == ArgKind::Positional)
                            .count();
                        return Err(SiteProblem::TooMany {
                            given,
                            takes: positional.len(),
                        });
                    }
                }
                next += 1;
            }
            ArgKind::Star => bound.star = true,
            ArgKind::DoubleStar => bound.double_star = true,
            ArgKind::Keyword(name) => {
                let param = old
                    .iter()
                    .find(|(_, n, k)| n == name && matches!(k, Kind::Normal | Kind::KeywordOnly));
                match param {
                    Some((at, _, _)) => {
                        if bound.params.insert(*at, i).is_some() {
                            return Err(SiteProblem::Twice { name: name.clone() });
                        }
                    }
                    None if var_keyword => {}
                    None => return Err(SiteProblem::UnknownKeyword { name: name.clone() }),
                }
            }
        }
    }
    Ok(bound)
}

/// The new arguments: the positional ones while each new parameter in turn is passed by
/// position (an argument passed so, or a value added), then `*args`' extras, then by keyword
/// those that can no longer be passed in place, the keyword arguments as written (renamed,
/// without the removed ones), and the values added for parameters passed by keyword.
fn lay_out(
    new: &[(&super::params::Param, Kind)],
    bound: &Bound,
    args: &[Arg],
) -> Result<Vec<Item>, SiteProblem> {
    let mut positional = Vec::new();
    let mut converted = Vec::new();
    let mut added = Vec::new();
    let mut in_place = true;
    // Old entry index → its new name, for the keyword arguments as written.
    let mut renamed: HashMap<usize, &str> = HashMap::new();
    let mut var_positional_kept = false;
    let mut var_keyword_kept = false;
    for (param, kind) in new {
        match (&param.origin, kind) {
            (Origin::Old(_), Kind::VarPositional) => var_positional_kept = true,
            (Origin::Old(_), Kind::VarKeyword) => var_keyword_kept = true,
            _ => {}
        }
        let arg = match &param.origin {
            Origin::Old(at) => {
                renamed.insert(*at, &param.name);
                bound.params.get(at).map(|&i| &args[i])
            }
            Origin::Added { .. } => None,
        };
        let value = match &param.origin {
            Origin::Added { value } => value.as_deref(),
            Origin::Old(_) => None,
        };
        if !kind.positional() {
            if let Some(v) = value {
                added.push(Item::Text(format!("{}={v}", param.name)));
            }
            continue;
        }
        if bound.star {
            // The positional structure is unchanged (checked): they stay as written.
            continue;
        }
        match (arg, value) {
            (Some(a), _) if in_place && a.kind == ArgKind::Positional => {
                positional.push(Item::Source(a.range.clone()));
            }
            (None, Some(v)) if in_place => positional.push(Item::Text(v.to_string())),
            (None, None) => in_place = false,
            (Some(a), _) if a.kind == ArgKind::Positional => {
                if *kind == Kind::PositionalOnly {
                    return Err(SiteProblem::PositionalOnly {
                        name: param.name.clone(),
                    });
                }
                in_place = false;
                converted.push(Item::Keyword(param.name.clone(), a.value.clone()));
            }
            (Some(_), _) => in_place = false,
            (None, Some(v)) => {
                if *kind == Kind::PositionalOnly {
                    return Err(SiteProblem::PositionalOnly {
                        name: param.name.clone(),
                    });
                }
                added.push(Item::Text(format!("{}={v}", param.name)));
            }
        }
    }
    let mut items = positional;
    if bound.star {
        items.extend(
            args.iter()
                .filter(|a| matches!(a.kind, ArgKind::Positional | ArgKind::Star))
                .map(|a| Item::Source(a.range.clone())),
        );
    } else if var_positional_kept && !bound.extra_positional.is_empty() {
        if !in_place {
            return Err(SiteProblem::ExtraAfterGap);
        }
        items.extend(
            bound
                .extra_positional
                .iter()
                .map(|&i| Item::Source(args[i].range.clone())),
        );
    }
    items.extend(converted);
    let param_of: HashMap<usize, usize> = bound.params.iter().map(|(&at, &i)| (i, at)).collect();
    for (i, arg) in args.iter().enumerate() {
        match &arg.kind {
            ArgKind::Keyword(name) => match param_of.get(&i) {
                Some(at) => match renamed.get(at) {
                    Some(new) if *new == name => items.push(Item::Source(arg.range.clone())),
                    Some(new) => items.push(Item::Keyword(new.to_string(), arg.value.clone())),
                    None => {} // its parameter was removed
                },
                // An extra keyword, to `**kwargs`: kept while `**kwargs` is.
                None if var_keyword_kept => items.push(Item::Source(arg.range.clone())),
                None => {}
            },
            ArgKind::DoubleStar => items.push(Item::Source(arg.range.clone())),
            _ => {}
        }
    }
    items.extend(added);
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::change::ParamChange;
    use crate::signature::params::tests::sig;

    /// A call's arguments from their spelling (`1, b=2, *xs, **kw`), each range into it.
    fn args(text: &str) -> Vec<Arg> {
        let mut out = Vec::new();
        let mut at = 0;
        for part in text.split(", ") {
            let range = at..at + part.len();
            let (kind, value) = if let Some(rest) = part.strip_prefix("**") {
                let _ = rest;
                (ArgKind::DoubleStar, range.clone())
            } else if part.starts_with('*') {
                (ArgKind::Star, range.clone())
            } else if let Some((name, _)) = part.split_once('=') {
                (
                    ArgKind::Keyword(name.into()),
                    at + name.len() + 1..range.end,
                )
            } else {
                (ArgKind::Positional, range.clone())
            };
            out.push(Arg { kind, range, value });
            at += part.len() + 2;
        }
        if text.is_empty() {
            out.clear();
        }
        out
    }

    /// The call after the changes, as text, or why it is refused.
    fn call(
        def: &str,
        receiver: bool,
        implicit: bool,
        text: &str,
        changes: &[&str],
    ) -> Result<String, SiteProblem> {
        let old = sig(def, receiver);
        let changes: Vec<ParamChange> = changes
            .iter()
            .map(|c| {
                let (verb, rest) = c.split_once(' ').unwrap();
                match verb {
                    "add" => ParamChange::parse_add(rest).unwrap(),
                    "remove" => ParamChange::Remove { name: rest.into() },
                    "rename" => ParamChange::parse_rename(rest).unwrap(),
                    _ => ParamChange::parse_reorder(rest).unwrap(),
                }
            })
            .collect();
        let new = old.apply(&changes).unwrap();
        let items = rewrite(&old, &new, implicit, &args(text))?;
        Ok(match items {
            None => text.to_string(),
            Some(items) => items
                .iter()
                .map(|i| match i {
                    Item::Source(r) => text[r.clone()].to_string(),
                    Item::Keyword(n, r) => format!("{n}={}", &text[r.clone()]),
                    Item::Text(t) => t.clone(),
                })
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    #[test]
    fn removed_parameters_take_their_arguments_along() {
        assert_eq!(
            call("a, b, c", false, false, "1, 2, 3", &["remove b"]).unwrap(),
            "1, 3"
        );
        assert_eq!(
            call("a, b", false, false, "1, b=2", &["remove b"]).unwrap(),
            "1"
        );
        assert_eq!(
            call("a, *args", false, false, "1, 2, 3", &["remove args"]).unwrap(),
            "1"
        );
        assert_eq!(
            call("a, **kw", false, false, "1, x=2", &["remove kw"]).unwrap(),
            "1"
        );
    }

    #[test]
    fn arguments_keep_their_style_until_a_gap() {
        // rope: test_changing_order_with_static_params.
        assert_eq!(
            call(
                "p1, p2=0, p3=0",
                false,
                false,
                "1, 2",
                &["reorder p1,p3,p2"]
            )
            .unwrap(),
            "1, p2=2"
        );
        // rope: test_adding_arguments_for_norm_args_chang_calls_with_no_value.
        assert_eq!(
            call("p2=0", false, false, "1", &["add p1=0@0"]).unwrap(),
            "p2=1"
        );
        assert_eq!(
            call("p1=0", false, false, "", &["add p2=0@1:1"]).unwrap(),
            "p2=1"
        );
        assert_eq!(
            call("", false, false, "", &["add p1=None@0:1"]).unwrap(),
            "1"
        );
        assert_eq!(
            call("a, b", false, false, "1, b=2", &["reorder b,a"]).unwrap(),
            "a=1, b=2"
        );
        assert_eq!(
            call("a, b", false, false, "x, y", &["reorder b,a"]).unwrap(),
            "y, x"
        );
        // rope: test_doing_multiple_changes2. Its call passes `p2` by keyword; rope writes
        // `2, 3`, lancet keeps the call's keyword (the oracle's "equivalent").
        assert_eq!(
            call(
                "p1, p2",
                false,
                false,
                "p2=2",
                &["add p3:3", "reorder p2,p1,p3", "remove p1"]
            )
            .unwrap(),
            "p2=2, p3=3"
        );
        assert_eq!(
            call("a, *, k", false, false, "1", &["add z=0:5"]).unwrap(),
            "1, 5"
        );
        assert_eq!(
            call("a, *, k=1", false, false, "1", &["add z=0@2:5"]).unwrap(),
            "1, z=5"
        );
    }

    #[test]
    fn renames_reach_the_keywords_only() {
        assert_eq!(
            call("a, b", false, false, "1, b=2", &["rename b=c"]).unwrap(),
            "1, c=2"
        );
        assert_eq!(
            call("a, b", false, false, "1, 2", &["rename b=c"]).unwrap(),
            "1, 2"
        );
    }

    #[test]
    fn the_receiver_a_call_supplies_is_not_an_argument() {
        assert_eq!(
            call("self, a, b", true, true, "1, 2", &["remove a"]).unwrap(),
            "2"
        );
        // `Class.method(obj, …)`: the receiver is the first argument.
        assert_eq!(
            call("self, a, b", true, false, "o, 1, 2", &["remove a"]).unwrap(),
            "o, 2"
        );
    }

    #[test]
    fn unknown_bindings_are_refused_only_where_the_change_reaches() {
        assert_eq!(
            call("a, b", false, false, "*xs", &["remove b"]),
            Err(SiteProblem::StarArgs)
        );
        assert_eq!(
            call("a, b", false, false, "*xs", &["rename b=c"]).unwrap(),
            "*xs"
        );
        assert_eq!(
            call("a, b", false, false, "1, **kw", &["rename b=c"]),
            Err(SiteProblem::DoubleStarArgs)
        );
        assert_eq!(
            call("a, b", false, false, "1, **kw", &["add c=1:2"]).unwrap(),
            "1, **kw, c=2"
        );
        assert_eq!(
            call("a", false, false, "1, 2", &["remove a"]),
            Err(SiteProblem::TooMany { given: 2, takes: 1 })
        );
        assert_eq!(
            call("a", false, false, "z=1", &["remove a"]),
            Err(SiteProblem::UnknownKeyword { name: "z".into() })
        );
        assert_eq!(
            call("a=1, b=2, /", false, false, "1, 2", &["add z=0@0"]),
            Err(SiteProblem::PositionalOnly { name: "a".into() })
        );
        assert_eq!(
            call(
                "a, b=0, *args",
                false,
                false,
                "1, 2, 3",
                &["remove b", "add z=0@1"]
            ),
            Err(SiteProblem::ExtraAfterGap)
        );
    }

    #[test]
    fn calls_that_bind_as_before_are_left_alone() {
        assert_eq!(
            call("a, b", false, false, "1, b=2", &["add c=0"]).unwrap(),
            "1, b=2"
        );
        let old = sig("a", false);
        assert_eq!(rewrite(&old, &old, false, &args("1")), Ok(None));
    }
}
