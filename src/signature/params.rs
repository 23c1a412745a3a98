//! A definition's parameter list as data, and the changes applied to it: pure, language-free
//! beyond Python's kinds of parameter (positional-only before `/`, ordinary, `*args`,
//! keyword-only after `*` or `*args`, `**kwargs`), which are also what a JavaScript or
//! TypeScript list is made of (ordinary and rest parameters).

use super::change::ParamChange;
use crate::report::ParamProblem;

/// What kind of parameter an entry is, by where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Before `/`: passed by position only.
    PositionalOnly,
    /// Passed by position or by keyword.
    Normal,
    /// `*args`: the extra positional arguments.
    VarPositional,
    /// After `*` or `*args`: passed by keyword only.
    KeywordOnly,
    /// `**kwargs`: the extra keyword arguments.
    VarKeyword,
}

impl Kind {
    /// Whether an argument can fill it by position.
    pub(crate) fn positional(self) -> bool {
        matches!(self, Kind::PositionalOnly | Kind::Normal)
    }
}

/// One entry of a parameter list as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A parameter.
    Param(Param),
    /// `/`: the ones before it are positional-only.
    Slash,
    /// A bare `*`: the ones after it are keyword-only.
    Star,
}

/// A parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Param {
    /// Its name.
    pub(crate) name: String,
    /// `*` (1) or `**` (2) before it, or none (0).
    pub(crate) stars: u8,
    /// Its default, as written.
    pub(crate) default: Option<String>,
    /// Where it comes from.
    pub(crate) origin: Origin,
}

/// Where an entry of a changed list comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The entry of the original list at this index.
    Old(usize),
    /// An added parameter, with what existing calls pass for it.
    Added {
        /// The value existing calls pass (`None`: nothing, its default applies).
        value: Option<String>,
    },
}

/// A parameter list: its entries, and whether its first parameter is a method's receiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signature {
    /// The entries, in order, each with where it came from (markers too: `None` for one the
    /// change wrote).
    pub(crate) entries: Vec<(Entry, Option<usize>)>,
    /// The first parameter is `self` or `cls`, which the call supplies.
    pub(crate) receiver: bool,
    /// Every parameter but a rest one is passed by position only (JavaScript, TypeScript: no
    /// keyword arguments).
    pub(crate) by_position: bool,
}

impl Signature {
    /// A list as read from a definition: each entry's origin is its own index.
    pub(crate) fn read(entries: Vec<Entry>, receiver: bool) -> Signature {
        let entries = entries
            .into_iter()
            .enumerate()
            .map(|(i, mut e)| {
                if let Entry::Param(p) = &mut e {
                    p.origin = Origin::Old(i);
                }
                (e, Some(i))
            })
            .collect();
        Signature {
            entries,
            receiver,
            by_position: false,
        }
    }

    /// The same list, every parameter but a rest one passed by position only.
    pub(crate) fn by_position(mut self) -> Signature {
        self.by_position = true;
        self
    }

    /// The parameters, in order.
    pub(crate) fn params(&self) -> impl Iterator<Item = &Param> {
        self.entries.iter().filter_map(|(e, _)| match e {
            Entry::Param(p) => Some(p),
            _ => None,
        })
    }

    /// The parameters with their kinds, in order.
    pub(crate) fn kinds(&self) -> Vec<(&Param, Kind)> {
        let has_slash = self.entries.iter().any(|(e, _)| *e == Entry::Slash);
        let mut before_slash = has_slash;
        let mut keyword_only = false;
        let mut out = Vec::new();
        for (entry, _) in &self.entries {
            match entry {
                Entry::Slash => before_slash = false,
                Entry::Star => keyword_only = true,
                Entry::Param(p) => {
                    let kind = match p.stars {
                        1 => Kind::VarPositional,
                        2 => Kind::VarKeyword,
                        _ if keyword_only => Kind::KeywordOnly,
                        _ if before_slash || self.by_position => Kind::PositionalOnly,
                        _ => Kind::Normal,
                    };
                    if p.stars == 1 {
                        keyword_only = true;
                    }
                    out.push((p, kind));
                }
            }
        }
        out
    }

    /// The parameter names, as a refusal lists them.
    pub(crate) fn names(&self) -> Vec<String> {
        self.params().map(|p| p.name.clone()).collect()
    }

    /// Whether the list takes any arguments at all and hands them on (`*args, **kwargs`
    /// besides the receiver): an override written so accepts every change of its base.
    pub(crate) fn forwards_everything(&self) -> bool {
        let kinds: Vec<Kind> = self
            .kinds()
            .into_iter()
            .skip(usize::from(self.receiver))
            .map(|(_, k)| k)
            .collect();
        kinds == [Kind::VarPositional, Kind::VarKeyword]
    }

    /// The list after the changes, in order, each applied to what the previous left.
    pub(crate) fn apply(&self, changes: &[ParamChange]) -> Result<Signature, ParamProblem> {
        let mut changed = self.clone();
        for change in changes {
            changed.apply_one(change)?;
        }
        changed.check()?;
        Ok(changed)
    }

    fn index_of(&self, name: &str) -> Result<usize, ParamProblem> {
        self.entries
            .iter()
            .position(|(e, _)| matches!(e, Entry::Param(p) if p.name == name))
            .ok_or_else(|| ParamProblem::Unknown {
                name: name.to_string(),
                known: self.names(),
            })
    }

    /// Whether the entry at `index` is the receiver.
    fn is_receiver(&self, index: usize) -> bool {
        self.receiver
            && self
                .entries
                .iter()
                .position(|(e, _)| matches!(e, Entry::Param(_)))
                == Some(index)
    }

    fn apply_one(&mut self, change: &ParamChange) -> Result<(), ParamProblem> {
        match change {
            ParamChange::Rename { old, new } => {
                let at = self.index_of(old)?;
                if self.index_of(new).is_ok() {
                    return Err(ParamProblem::Duplicate { name: new.clone() });
                }
                if let Entry::Param(p) = &mut self.entries[at].0 {
                    p.name = new.clone();
                }
            }
            ParamChange::Remove { name } => {
                let at = self.index_of(name)?;
                if self.is_receiver(at) {
                    return Err(ParamProblem::Receiver { name: name.clone() });
                }
                let (removed, _) = self.entries.remove(at);
                // `*args` before keyword-only parameters: they stay keyword-only behind `*`.
                let keyword_only_follow = self.entries[at..]
                    .iter()
                    .any(|(e, _)| matches!(e, Entry::Param(p) if p.stars == 0));
                if matches!(removed, Entry::Param(Param { stars: 1, .. })) && keyword_only_follow {
                    self.entries.insert(at, (Entry::Star, None));
                }
                self.tidy_markers();
            }
            ParamChange::Add {
                name,
                default,
                position,
                value,
            } => {
                if self.index_of(name).is_ok() {
                    return Err(ParamProblem::Duplicate { name: name.clone() });
                }
                let count = self.params().count();
                let at = match position {
                    Some(p) if *p > count => {
                        return Err(ParamProblem::Position {
                            position: *p,
                            count,
                        });
                    }
                    Some(0) if self.receiver && count > 0 => {
                        let receiver = self.params().next().map(|p| p.name.clone());
                        return Err(ParamProblem::Receiver {
                            name: receiver.unwrap_or_default(),
                        });
                    }
                    Some(p) if *p == count => self.entries.len(),
                    Some(p) => self
                        .entries
                        .iter()
                        .enumerate()
                        .filter(|(_, (e, _))| matches!(e, Entry::Param(_)))
                        .nth(*p)
                        .map_or(self.entries.len(), |(i, _)| i),
                    None => self.default_place(),
                };
                let param = Param {
                    name: name.clone(),
                    stars: 0,
                    default: default.clone(),
                    origin: Origin::Added {
                        value: value.clone(),
                    },
                };
                self.entries.insert(at, (Entry::Param(param), None));
            }
            ParamChange::Reorder { names } => self.reorder(names)?,
        }
        Ok(())
    }

    /// Where a parameter added without a position goes: after the last ordinary parameter,
    /// before `*args`, a bare `*`, keyword-only parameters and `**kwargs`.
    fn default_place(&self) -> usize {
        let kinds = self.kinds();
        let mut params = kinds.iter();
        self.entries
            .iter()
            .position(|(e, _)| match e {
                Entry::Star => true,
                Entry::Slash => false,
                Entry::Param(_) => params.next().is_some_and(|(_, k)| !k.positional()),
            })
            .unwrap_or(self.entries.len())
    }

    /// The named parameters take, in the order given, the places they held.
    fn reorder(&mut self, names: &[String]) -> Result<(), ParamProblem> {
        let mut seen = std::collections::HashSet::new();
        let mut slots = Vec::new();
        for name in names {
            if !seen.insert(name) {
                return Err(ParamProblem::Repeated { name: name.clone() });
            }
            slots.push(self.index_of(name)?);
        }
        let before: Vec<(String, Kind)> = self
            .kinds()
            .into_iter()
            .map(|(p, k)| (p.name.clone(), k))
            .collect();
        let receiver = self
            .receiver
            .then(|| before.first().map(|(n, _)| n.clone()))
            .flatten();
        let moved: Vec<(Entry, Option<usize>)> =
            slots.iter().map(|&i| self.entries[i].clone()).collect();
        let mut places = slots.clone();
        places.sort_unstable();
        for (place, entry) in places.into_iter().zip(moved) {
            self.entries[place] = entry;
        }
        let after = self.kinds();
        if let Some(name) = receiver
            && after.first().is_none_or(|(p, _)| p.name != name)
        {
            return Err(ParamProblem::Receiver { name });
        }
        for (p, kind) in after {
            if before.iter().any(|(n, k)| *n == p.name && *k != kind) {
                return Err(ParamProblem::KindChange {
                    name: p.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Markers a removal left meaningless: `/` with nothing before it, `*` with no
    /// keyword-only parameter after it.
    fn tidy_markers(&mut self) {
        while matches!(self.entries.first(), Some((Entry::Slash, _))) {
            self.entries.remove(0);
        }
        if let Some(star) = self.entries.iter().position(|(e, _)| *e == Entry::Star) {
            let keyword_only = self.entries[star + 1..]
                .iter()
                .any(|(e, _)| matches!(e, Entry::Param(p) if p.stars == 0));
            if !keyword_only {
                self.entries.remove(star);
            }
        }
    }

    /// What Python rejects: a positional parameter without a default after one with a
    /// default, anything after `**kwargs`.
    fn check(&self) -> Result<(), ParamProblem> {
        let mut defaulted = false;
        let mut after_var_keyword = false;
        for (p, kind) in self.kinds() {
            if after_var_keyword {
                return Err(ParamProblem::AfterVarKeyword {
                    name: p.name.clone(),
                });
            }
            match kind {
                Kind::VarKeyword => after_var_keyword = true,
                k if k.positional() && p.default.is_some() => defaulted = true,
                k if k.positional() && defaulted => {
                    return Err(ParamProblem::AfterDefault {
                        name: p.name.clone(),
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A list from Python's spelling: `self, a, b=1, /, *args, c, **kw` (the binding's tests
    /// use it too).
    pub(crate) fn sig(spec: &str, receiver: bool) -> Signature {
        let entries = spec
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match s {
                "/" => Entry::Slash,
                "*" => Entry::Star,
                _ => {
                    let stars = s.bytes().take_while(|b| *b == b'*').count() as u8;
                    let s = &s[stars as usize..];
                    let (name, default) = match s.split_once('=') {
                        Some((n, d)) => (n, Some(d.to_string())),
                        None => (s, None),
                    };
                    Entry::Param(Param {
                        name: name.into(),
                        stars,
                        default,
                        origin: Origin::Old(0),
                    })
                }
            })
            .collect();
        Signature::read(entries, receiver)
    }

    fn show(s: &Signature) -> String {
        s.entries
            .iter()
            .map(|(e, _)| match e {
                Entry::Slash => "/".to_string(),
                Entry::Star => "*".to_string(),
                Entry::Param(p) => format!(
                    "{}{}{}",
                    "*".repeat(p.stars as usize),
                    p.name,
                    p.default
                        .as_ref()
                        .map(|d| format!("={d}"))
                        .unwrap_or_default()
                ),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn apply(spec: &str, receiver: bool, changes: &[&str]) -> Result<String, ParamProblem> {
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
        sig(spec, receiver).apply(&changes).map(|s| show(&s))
    }

    #[test]
    fn kinds_follow_the_markers() {
        let s = sig("a, /, b, *args, c, **kw", false);
        let kinds: Vec<Kind> = s.kinds().into_iter().map(|(_, k)| k).collect();
        assert_eq!(
            kinds,
            [
                Kind::PositionalOnly,
                Kind::Normal,
                Kind::VarPositional,
                Kind::KeywordOnly,
                Kind::VarKeyword
            ]
        );
    }

    #[test]
    fn adds_go_where_asked_or_after_the_ordinary_parameters() {
        assert_eq!(
            apply("a, *args, **kw", false, &["add b=1"]).unwrap(),
            "a, b=1, *args, **kw"
        );
        assert_eq!(
            apply("a, *, c", false, &["add b=1"]).unwrap(),
            "a, b=1, *, c"
        );
        assert_eq!(apply("a, *, c", false, &["add b@1"]).unwrap(), "a, *, b, c");
        assert_eq!(
            apply("a, /, c", false, &["add b=2"]).unwrap(),
            "a, /, c, b=2"
        );
        assert_eq!(
            apply("self, a", true, &["add b@1:2"]).unwrap(),
            "self, b, a"
        );
        assert_eq!(apply("a", false, &["add b@1"]).unwrap(), "a, b");
        assert_eq!(
            apply("self, a", true, &["add b@0"]),
            Err(ParamProblem::Receiver {
                name: "self".into()
            })
        );
        assert_eq!(
            apply("a", false, &["add b@3"]),
            Err(ParamProblem::Position {
                position: 3,
                count: 1
            })
        );
        assert_eq!(
            apply("a", false, &["add a=1"]),
            Err(ParamProblem::Duplicate { name: "a".into() })
        );
        assert_eq!(
            apply("a=1", false, &["add b:2"]),
            Err(ParamProblem::AfterDefault { name: "b".into() })
        );
        assert_eq!(
            apply("a, **kw", false, &["add b=1@2"]),
            Err(ParamProblem::AfterVarKeyword { name: "b".into() })
        );
    }

    #[test]
    fn removals_leave_no_meaningless_marker() {
        assert_eq!(apply("a, *, b", false, &["remove b"]).unwrap(), "a");
        assert_eq!(apply("a, /, b", false, &["remove a"]).unwrap(), "b");
        assert_eq!(
            apply("a, *args, b", false, &["remove args"]).unwrap(),
            "a, *, b"
        );
        assert_eq!(
            apply("a, *args, **kw", false, &["remove kw"]).unwrap(),
            "a, *args"
        );
        assert_eq!(
            apply("self, a", true, &["remove self"]),
            Err(ParamProblem::Receiver {
                name: "self".into()
            })
        );
        assert!(matches!(
            apply("a", false, &["remove b"]),
            Err(ParamProblem::Unknown { .. })
        ));
    }

    #[test]
    fn reorders_permute_within_the_places_the_names_held() {
        assert_eq!(
            apply("a, b, c", false, &["reorder c,a,b"]).unwrap(),
            "c, a, b"
        );
        assert_eq!(
            apply("a, b, c", false, &["reorder c,a"]).unwrap(),
            "c, b, a"
        );
        assert_eq!(
            apply("self, a, b", true, &["reorder self,b,a"]).unwrap(),
            "self, b, a"
        );
        assert_eq!(
            apply("self, a", true, &["reorder a,self"]),
            Err(ParamProblem::Receiver {
                name: "self".into()
            })
        );
        assert_eq!(
            apply("a, *, b", false, &["reorder b,a"]),
            Err(ParamProblem::KindChange { name: "b".into() })
        );
        assert_eq!(
            apply("a, b=1", false, &["reorder b,a"]),
            Err(ParamProblem::AfterDefault { name: "a".into() })
        );
        assert_eq!(
            apply("a, b", false, &["reorder a,a"]),
            Err(ParamProblem::Repeated { name: "a".into() })
        );
    }

    #[test]
    fn changes_apply_in_order_each_to_what_the_last_left() {
        // rope's test_doing_multiple_changes2: add p3, reorder, remove the second.
        assert_eq!(
            apply(
                "p1, p2",
                false,
                &["add p3:3", "reorder p2,p1,p3", "remove p1"]
            )
            .unwrap(),
            "p2, p3"
        );
        assert_eq!(
            apply("a, b", false, &["rename a=x", "reorder b,x"]).unwrap(),
            "b, x"
        );
    }

    #[test]
    fn a_forwarding_override_takes_every_change() {
        assert!(sig("self, *args, **kwargs", true).forwards_everything());
        assert!(!sig("self, a, *args, **kwargs", true).forwards_everything());
    }
}
