//! An object's fields: the alias group each key belongs to, and each group's value read with
//! its type, refusing unknown, doubled and misplaced fields.

use super::text::{line_text, value_end};
use super::{
    COMMAND_KEY, CONTENT_KEY, EDITS_KEY, EXPECTED_KEYS, FILE_TEXT_KEY, INSERT_LINE_KEY,
    METADATA_KEYS, NEW_KEYS, OLD_KEYS, PATH_KEYS, Parser, REPLACE_ALL_KEYS,
};
use crate::format::ParseError;
use serde_json::{Map, Value};

/// Which field a key is, by alias group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Path,
    Old,
    New,
    ReplaceAll,
    Expected,
    Command,
    FileText,
    InsertLine,
    Edits,
    Content,
    Metadata,
}

impl Field {
    fn of(key: &str) -> Option<Field> {
        let groups: [(&[&str], Field); 11] = [
            (&PATH_KEYS, Field::Path),
            (&OLD_KEYS, Field::Old),
            (&NEW_KEYS, Field::New),
            (&REPLACE_ALL_KEYS, Field::ReplaceAll),
            (&EXPECTED_KEYS, Field::Expected),
            (&[COMMAND_KEY], Field::Command),
            (&[FILE_TEXT_KEY], Field::FileText),
            (&[INSERT_LINE_KEY], Field::InsertLine),
            (&[EDITS_KEY], Field::Edits),
            (&[CONTENT_KEY], Field::Content),
            (&METADATA_KEYS, Field::Metadata),
        ];
        groups
            .iter()
            .find(|(keys, _)| keys.contains(&key))
            .map(|&(_, f)| f)
    }
}

fn accepted_names() -> String {
    let mut names: Vec<&str> = Vec::new();
    for group in [
        &PATH_KEYS[..],
        &OLD_KEYS,
        &NEW_KEYS,
        &REPLACE_ALL_KEYS,
        &EXPECTED_KEYS,
        &[
            COMMAND_KEY,
            FILE_TEXT_KEY,
            INSERT_LINE_KEY,
            EDITS_KEY,
            CONTENT_KEY,
        ],
        &METADATA_KEYS,
    ] {
        names.extend(group);
    }
    names.join(", ")
}

/// One object's fields, by group, with the key each was given under.
pub(super) struct Fields<'v> {
    /// 1-based line where the object starts.
    pub(super) line: usize,
    /// Byte range of the object in the text.
    span: (usize, usize),
    pub(super) found: Vec<(Field, &'v str, &'v Value)>,
}

impl Parser<'_> {
    /// An error about `key` of the object `f`, at the key's own line when it can be found.
    pub(super) fn field_error(
        &self,
        f: &Fields,
        key: &str,
        expected: &str,
        message: String,
    ) -> ParseError {
        let quoted = format!("\"{key}\"");
        let offset = self.text[f.span.0..f.span.1]
            .find(&quoted)
            .map_or(f.span.0, |k| f.span.0 + k);
        self.error_at(offset, expected, message)
    }

    pub(super) fn fields<'v>(
        &self,
        obj: &'v Map<String, Value>,
        at: usize,
    ) -> Result<Fields<'v>, ParseError> {
        let span = (at, value_end(self.text.as_bytes(), at));
        let mut f = Fields {
            line: self.line_of(at),
            span,
            found: Vec::new(),
        };
        let unknown: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .filter(|k| Field::of(k).is_none())
            .collect();
        if let Some(first) = unknown.first() {
            let list = unknown
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(self.field_error(
                &f,
                first,
                "only known edit fields",
                format!(
                    "unknown field(s) {list} in the JSON edit; accepted fields: {}",
                    accepted_names()
                ),
            ));
        }
        for (k, v) in obj {
            if v.is_null() {
                continue;
            }
            let field = Field::of(k).unwrap_or(Field::Metadata);
            if let Some((_, other, _)) = f.found.iter().find(|(g, _, _)| *g == field) {
                let other = other.to_string();
                return Err(self.field_error(
                    &f,
                    k,
                    &format!("'{other}' or '{k}', not both"),
                    format!("'{other}' and '{k}' are two names for the same field: give it once"),
                ));
            }
            f.found.push((field, k.as_str(), v));
        }
        Ok(f)
    }

    pub(super) fn missing(&self, f: &Fields, expected: &str) -> ParseError {
        let line = f.line;
        ParseError::new(
            line,
            line_text(self.text, line),
            expected,
            format!("the JSON edit starting at line {line} lacks {expected}"),
        )
    }

    /// Refuses any of `groups` present in `f`, saying why.
    pub(super) fn reject(&self, f: &Fields, groups: &[Field], why: &str) -> Result<(), ParseError> {
        match f.found.iter().find(|(g, _, _)| groups.contains(g)) {
            Some((_, key, _)) => Err(self.field_error(
                f,
                key,
                "only the fields of one edit shape",
                format!("'{key}' {why}"),
            )),
            None => Ok(()),
        }
    }

    fn get<'v>(&self, f: &Fields<'v>, group: Field) -> Option<(&'v str, &'v Value)> {
        f.found
            .iter()
            .find(|(g, _, _)| *g == group)
            .map(|&(_, k, v)| (k, v))
    }

    pub(super) fn string(&self, f: &Fields, group: Field) -> Result<Option<String>, ParseError> {
        match self.get(f, group) {
            None => Ok(None),
            Some((_, Value::String(s))) => Ok(Some(s.clone())),
            Some((k, _)) => {
                Err(self.field_error(f, k, "a string", format!("'{k}' must be a JSON string")))
            }
        }
    }

    pub(super) fn bool(&self, f: &Fields, group: Field) -> Result<Option<bool>, ParseError> {
        match self.get(f, group) {
            None => Ok(None),
            Some((_, Value::Bool(b))) => Ok(Some(*b)),
            Some((k, _)) => Err(self.field_error(
                f,
                k,
                "true or false",
                format!("'{k}' must be true or false"),
            )),
        }
    }

    pub(super) fn count(&self, f: &Fields) -> Result<Option<usize>, ParseError> {
        match self.get(f, Field::Expected) {
            None => Ok(None),
            Some((k, v)) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n >= 1 => Ok(Some(n)),
                _ => Err(self.field_error(
                    f,
                    k,
                    "an integer ≥ 1",
                    format!("'{k}' must be a whole number of at least 1, got {v}"),
                )),
            },
        }
    }

    pub(super) fn insert_line(&self, f: &Fields) -> Result<usize, ParseError> {
        match self.get(f, Field::InsertLine) {
            None => Err(self.missing(f, "\"insert_line\": the line to insert after (0 = the top)")),
            Some((k, v)) => v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
                self.field_error(
                    f,
                    k,
                    "an integer ≥ 0",
                    format!("'{k}' must be 0 (the top of the file) or the line to insert after, got {v}"),
                )
            }),
        }
    }

    pub(super) fn path(&mut self, f: &Fields) -> Result<String, ParseError> {
        match self.string(f, Field::Path)? {
            Some(p) if !p.trim().is_empty() => Ok(p.trim().to_string()),
            Some(_) => {
                let (k, _) = self.get(f, Field::Path).unwrap_or(("path", &Value::Null));
                Err(self.field_error(f, k, "a file path", format!("'{k}' is empty")))
            }
            None => match &self.opts.default_path {
                Some(p) => {
                    self.used_default_path = true;
                    Ok(p.clone())
                }
                None => Err(self.missing(f, "\"path\" (or \"file_path\"): the file to edit")),
            },
        }
    }
}
