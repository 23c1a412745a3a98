//! The changes a signature change is made of, as data, and how the command line spells them:
//! `--add NAME[=DEFAULT][@POS][:VALUE]`, `--remove NAME`, `--rename OLD=NEW`,
//! `--reorder A,B,C`. Applied in the order given, each to the parameters the previous left.

use crate::report::SignatureRefusal;

/// One change to a function's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamChange {
    /// A new parameter.
    Add {
        /// Its name.
        name: String,
        /// Its default, as code (`None`, `0`, `"utf-8"`): the definition gets `name=DEFAULT`.
        default: Option<String>,
        /// Where it goes: 0-based among the parameters as written (the receiver counted);
        /// `None` puts it after the last ordinary parameter (before `*args`, keyword-only
        /// parameters and `**kwargs`).
        position: Option<usize>,
        /// What the existing calls pass for it, as code (rope's `ArgumentAdder(value=)`);
        /// `None` passes nothing (the default applies).
        value: Option<String>,
    },
    /// A parameter removed, with the arguments every call passes for it.
    Remove {
        /// Its name.
        name: String,
    },
    /// A parameter renamed: in the definition, its body and the calls' keyword arguments.
    Rename {
        /// Its name.
        old: String,
        /// Its new name.
        new: String,
    },
    /// Parameters put in a new order: the ones named take, in this order, the places they
    /// held (the others stay where they are).
    Reorder {
        /// The names, in their new order.
        names: Vec<String>,
    },
}

/// What `--add` takes, for its refusal.
const ADD: &str = "NAME[=DEFAULT][@POS][:VALUE] (a DEFAULT or VALUE with a `:` or `@N` of its own in parentheses)";

impl ParamChange {
    /// Reads `--add NAME[=DEFAULT][@POS][:VALUE]`. DEFAULT ends at a `@POS` or `:` outside
    /// brackets and strings, VALUE is the rest: a lambda or an `@N` inside a default is
    /// written in parentheses.
    pub fn parse_add(spec: &str) -> Result<ParamChange, SignatureRefusal> {
        let malformed = || SignatureRefusal::Malformed {
            flag: "--add",
            spec: spec.to_string(),
            expected: ADD,
        };
        let name_end = spec
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(spec.len(), |(i, _)| i);
        let name = spec[..name_end].to_string();
        if name.is_empty() {
            return Err(malformed());
        }
        let mut rest = &spec[name_end..];
        let mut default = None;
        if let Some(after) = rest.strip_prefix('=') {
            let end = top_level(after, |tail| {
                tail.starts_with(':') || position_at(tail).is_some()
            });
            default = Some(after[..end].trim().to_string());
            rest = &after[end..];
        }
        let mut position = None;
        if let Some((pos, len)) = position_at(rest) {
            position = Some(pos);
            rest = &rest[len..];
        }
        let value = match rest.strip_prefix(':') {
            Some(v) => Some(v.trim().to_string()),
            None if rest.is_empty() => None,
            None => return Err(malformed()),
        };
        if default.as_deref() == Some("") || value.as_deref() == Some("") {
            return Err(malformed());
        }
        Ok(ParamChange::Add {
            name,
            default,
            position,
            value,
        })
    }

    /// Reads `--rename OLD=NEW`.
    pub fn parse_rename(spec: &str) -> Result<ParamChange, SignatureRefusal> {
        match spec.split_once('=') {
            Some((old, new)) if !old.trim().is_empty() && !new.trim().is_empty() => {
                Ok(ParamChange::Rename {
                    old: old.trim().to_string(),
                    new: new.trim().to_string(),
                })
            }
            _ => Err(SignatureRefusal::Malformed {
                flag: "--rename",
                spec: spec.to_string(),
                expected: "OLD=NEW",
            }),
        }
    }

    /// Reads `--reorder A,B,C`.
    pub fn parse_reorder(spec: &str) -> Result<ParamChange, SignatureRefusal> {
        let names: Vec<String> = spec.split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(String::is_empty) {
            return Err(SignatureRefusal::Malformed {
                flag: "--reorder",
                spec: spec.to_string(),
                expected: "A,B,C (the parameters' names in their new order)",
            });
        }
        Ok(ParamChange::Reorder { names })
    }

    /// The parameter names the change mentions, to check they are identifiers.
    pub(super) fn names(&self) -> Vec<&str> {
        match self {
            ParamChange::Add { name, .. } | ParamChange::Remove { name } => vec![name],
            ParamChange::Rename { old, new } => vec![old, new],
            ParamChange::Reorder { names } => names.iter().map(String::as_str).collect(),
        }
    }

    /// The change as the report lists it (the command line's spelling).
    pub(super) fn spelled(&self) -> String {
        match self {
            ParamChange::Add {
                name,
                default,
                position,
                value,
            } => {
                let mut s = format!("add {name}");
                if let Some(d) = default {
                    s.push_str(&format!("={d}"));
                }
                if let Some(p) = position {
                    s.push_str(&format!("@{p}"));
                }
                if let Some(v) = value {
                    s.push_str(&format!(":{v}"));
                }
                s
            }
            ParamChange::Remove { name } => format!("remove {name}"),
            ParamChange::Rename { old, new } => format!("rename {old}={new}"),
            ParamChange::Reorder { names } => format!("reorder {}", names.join(",")),
        }
    }
}

/// `@N` at the start of `tail`, followed by `:` or the end: the position and its length.
fn position_at(tail: &str) -> Option<(usize, usize)> {
    let digits = tail.strip_prefix('@')?;
    let len = digits.bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 || !(digits[len..].is_empty() || digits[len..].starts_with(':')) {
        return None;
    }
    Some((digits[..len].parse().ok()?, len + 1))
}

/// The first byte of `text` outside brackets and string literals where `stop` holds of the
/// rest, or its length.
fn top_level(text: &str, stop: impl Fn(&str) -> bool) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && stop(&text[i..]) => return i,
            _ => {}
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::ParamChange;

    fn add(
        name: &str,
        default: Option<&str>,
        position: Option<usize>,
        value: Option<&str>,
    ) -> ParamChange {
        ParamChange::Add {
            name: name.into(),
            default: default.map(str::to_string),
            position,
            value: value.map(str::to_string),
        }
    }

    #[test]
    fn add_reads_each_part_outside_brackets_and_strings() {
        let cases = [
            ("timeout", add("timeout", None, None, None)),
            ("timeout=None", add("timeout", Some("None"), None, None)),
            (
                "timeout=None@2",
                add("timeout", Some("None"), Some(2), None),
            ),
            ("timeout@2:30", add("timeout", None, Some(2), Some("30"))),
            ("timeout:30", add("timeout", None, None, Some("30"))),
            (
                "opts={'a': 1}@1:{'b': 2}",
                add("opts", Some("{'a': 1}"), Some(1), Some("{'b': 2}")),
            ),
            ("sep=':'", add("sep", Some("':'"), None, None)),
            (
                "m=(a @ b):x@1",
                add("m", Some("(a @ b)"), None, Some("x@1")),
            ),
            (
                "key=(lambda v: v)",
                add("key", Some("(lambda v: v)"), None, None),
            ),
        ];
        for (spec, expected) in cases {
            assert_eq!(ParamChange::parse_add(spec).unwrap(), expected, "{spec}");
        }
        for spec in ["", "=1", "x=", "x:", "x@", "x@a", "x!"] {
            assert!(ParamChange::parse_add(spec).is_err(), "{spec}");
        }
    }

    #[test]
    fn rename_and_reorder_read_their_names() {
        assert_eq!(
            ParamChange::parse_rename("n=count").unwrap(),
            ParamChange::Rename {
                old: "n".into(),
                new: "count".into()
            }
        );
        assert!(ParamChange::parse_rename("n").is_err());
        assert_eq!(
            ParamChange::parse_reorder("b, a").unwrap(),
            ParamChange::Reorder {
                names: vec!["b".into(), "a".into()]
            }
        );
        assert!(ParamChange::parse_reorder("a,,b").is_err());
    }

    #[test]
    fn changes_are_listed_as_spelled() {
        let spec = "timeout=None@2:30";
        assert_eq!(
            ParamChange::parse_add(spec).unwrap().spelled(),
            format!("add {spec}")
        );
    }
}
