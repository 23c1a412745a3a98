//! Arguments a tool cannot take, in words a model acts on: which argument, what it must be,
//! what was sent, and what the tool takes. The SDK's own answer is serde's text ("invalid
//! type: integer `3`, expected a string"), which names neither the argument nor the tool.
//!
//! The arguments are checked against the tool's input schema (the one the model was shown:
//! types, required and allowed names, list items, `$defs`) before the call; what the schema
//! does not say and serde still refuses is worded from serde's text after it.

use serde_json::{Map, Value};

/// The SDK's prefix for an argument its deserialisation refused.
const SDK_PREFIX: &str = "failed to deserialize parameters:";

/// Why `args` do not fit `tool`'s input `schema`, worded; `None` when they fit.
pub(crate) fn misfit(
    tool: &str,
    schema: &Map<String, Value>,
    args: &Map<String, Value>,
) -> Option<String> {
    let problem = check_object(schema, schema, args, "")?;
    Some(format!(
        "Wrong arguments for {tool}: {problem}. {tool} takes {}. Resend the call with the arguments fixed.",
        takes(schema, schema)
    ))
}

/// The SDK's refusal of arguments, reworded when the schema check let them through.
pub(crate) fn reword_sdk_error(tool: &str, text: &str) -> Option<String> {
    let detail = text.strip_prefix(SDK_PREFIX)?.trim();
    Some(format!(
        "Wrong arguments for {tool}: {detail}. Resend the call with the arguments its schema names."
    ))
}

/// The first problem of an object against its schema: a missing required argument, one the
/// schema does not name, or one of the wrong type (depth first, in the schema's order).
fn check_object(
    root: &Map<String, Value>,
    schema: &Map<String, Value>,
    value: &Map<String, Value>,
    at: &str,
) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !value.contains_key(name) {
                let expected = properties
                    .and_then(|p| p.get(name))
                    .and_then(Value::as_object)
                    .map(|s| expected(root, s))
                    .unwrap_or_else(|| "a value".into());
                return Some(format!(
                    "`{at}{name}` is missing (it is required: {expected})"
                ));
            }
        }
    }
    for (name, given) in value {
        match properties
            .and_then(|p| p.get(name))
            .and_then(Value::as_object)
        {
            Some(property) => {
                if let Some(problem) = check_value(root, property, given, &format!("{at}{name}")) {
                    return Some(problem);
                }
            }
            None if closed => {
                let known = properties
                    .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default();
                return Some(format!(
                    "there is no argument `{at}{name}` (the names are: {known})"
                ));
            }
            None => {}
        }
    }
    None
}

/// The first problem of a value against its schema, `at` naming it (`edits[0].start`).
fn check_value(
    root: &Map<String, Value>,
    schema: &Map<String, Value>,
    value: &Value,
    at: &str,
) -> Option<String> {
    let schema = resolve(root, schema);
    if !types(schema).iter().any(|t| is_type(value, t)) {
        return Some(format!(
            "`{at}` must be {}, not {}",
            expected(root, schema),
            describe(value)
        ));
    }
    let below = |min: i64| value.as_i64().is_some_and(|n| n < min);
    if schema
        .get("minimum")
        .and_then(Value::as_i64)
        .is_some_and(below)
    {
        return Some(format!(
            "`{at}` must be {}, not {}",
            expected(root, schema),
            describe(value)
        ));
    }
    match value {
        Value::Array(items) => {
            let item_schema = schema.get("items").and_then(Value::as_object)?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| check_value(root, item_schema, item, &format!("{at}[{i}]")))
        }
        Value::Object(map) => check_object(root, schema, map, &format!("{at}.")),
        _ => None,
    }
}

/// A `$ref` to the schema's `$defs` followed; else the schema itself.
fn resolve<'s>(
    root: &'s Map<String, Value>,
    schema: &'s Map<String, Value>,
) -> &'s Map<String, Value> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name)?.as_object())
        .unwrap_or(schema)
}

/// The JSON types a schema allows (any, when it names none).
fn types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![
            "string", "integer", "number", "boolean", "array", "object", "null",
        ],
    }
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "string" => value.is_string(),
        // schemars' `uint` carries `minimum: 0`: a count or a line number.
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// What a schema expects, in words: `a string`, `a whole number ≥ 0 (or left out)`.
fn expected(root: &Map<String, Value>, schema: &Map<String, Value>) -> String {
    let schema = resolve(root, schema);
    let ts = types(schema);
    let nullable = ts.contains(&"null");
    let words: Vec<String> = ts
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "string" => "a string".to_string(),
            "integer" if schema.get("minimum").and_then(Value::as_i64) == Some(0) => {
                "a whole number ≥ 0".to_string()
            }
            "integer" => "a whole number".to_string(),
            "number" => "a number".to_string(),
            "boolean" => "true or false".to_string(),
            "array" => match schema.get("items").and_then(Value::as_object) {
                Some(items) => format!("a list of {}", plural(&expected(root, items))),
                None => "a list".to_string(),
            },
            "object" => "an object".to_string(),
            other => other.to_string(),
        })
        .collect();
    let mut out = words.join(" or ");
    if nullable {
        out.push_str(" (or left out)");
    }
    out
}

/// `a string` → `strings`, `an object` → `objects`, for a list's items.
fn plural(one: &str) -> String {
    let bare = one
        .strip_prefix("a ")
        .or_else(|| one.strip_prefix("an "))
        .unwrap_or(one);
    match bare.split_once(' ') {
        Some((noun, rest)) => format!("{noun}s {rest}"),
        None => format!("{bare}s"),
    }
}

/// A value as a model would recognise what it sent: `the number 3`, `the string "x"`.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            format!("a string of {} characters", s.chars().count())
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(items) => format!("a list of {} item(s)", items.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// The arguments a tool takes, each with what it expects and whether it is required.
fn takes(root: &Map<String, Value>, schema: &Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return "no arguments".into();
    };
    // The required ones first, then the others, each in the schema's order.
    let mut names: Vec<(&String, &Value)> = properties.iter().collect();
    names.sort_by_key(|(name, _)| !required.contains(&name.as_str()));
    names
        .into_iter()
        .map(|(name, property)| {
            let what = property
                .as_object()
                .map(|p| expected(root, p))
                .unwrap_or_default();
            let what = what.trim_end_matches(" (or left out)");
            match required.contains(&name.as_str()) {
                true => format!("{name} ({what}, required)"),
                false => format!("{name} ({what})"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::{misfit, reword_sdk_error};
    use serde_json::{Value, json};

    fn object(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn schema() -> serde_json::Map<String, Value> {
        object(json!({
            "$defs": {"LineEditArg": {"additionalProperties": false, "properties": {
                "op": {"type": "string"}, "start": {"type": "string"},
                "lines": {"default": [], "items": {"type": "string"}, "type": "array"}},
                "required": ["op", "start"], "type": "object"}},
            "additionalProperties": false,
            "properties": {
                "path": {"type": "string"},
                "edits": {"items": {"$ref": "#/$defs/LineEditArg"}, "type": "array"},
                "limit": {"format": "uint", "minimum": 0, "type": ["integer", "null"]},
                "test": {"type": ["boolean", "null"]}
            },
            "required": ["path", "edits"], "type": "object"
        }))
    }

    /// Each kind of misfit names the tool, the argument (nested ones by their path) and what
    /// it must be, and lists what the tool takes (issue #41: serde's raw text named neither).
    #[test]
    fn a_misfit_names_the_argument_and_what_it_must_be() {
        let s = schema();
        let said = |args: Value| misfit("edit_lines", &s, &object(args)).unwrap();
        let e = said(json!({"path": 3, "edits": []}));
        assert!(
            e.starts_with(
                "Wrong arguments for edit_lines: `path` must be a string, not the number 3."
            ),
            "{e}"
        );
        assert!(
            e.contains("edit_lines takes edits (a list of objects, required), path (a string, required), limit (a whole number ≥ 0), test (true or false)"),
            "{e}"
        );
        let e = said(json!({"path": "a"}));
        assert!(
            e.contains("`edits` is missing (it is required: a list of objects)"),
            "{e}"
        );
        let e = said(json!({"path": "a", "edits": [], "tests": true}));
        assert!(
            e.contains("there is no argument `tests` (the names are: edits, limit, path, test)"),
            "{e}"
        );
        let e = said(json!({"path": "a", "edits": [{"op": "replace", "start": 1}]}));
        assert!(
            e.contains("`edits[0].start` must be a string, not the number 1"),
            "{e}"
        );
        let e = said(json!({"path": "a", "edits": [{"op": "replace"}]}));
        assert!(e.contains("`edits[0].start` is missing"), "{e}");
        let e = said(json!({"path": "a", "edits": [], "limit": -1}));
        assert!(
            e.contains("`limit` must be a whole number ≥ 0 (or left out), not the number -1"),
            "{e}"
        );
        assert_eq!(
            misfit(
                "edit_lines",
                &s,
                &object(
                    json!({"path": "a", "edits": [{"op": "delete", "start": "1:abc"}], "limit": null})
                )
            ),
            None
        );
    }

    #[test]
    fn the_sdks_own_refusal_is_reworded() {
        let e =
            reword_sdk_error("edit", "failed to deserialize parameters: invalid value").unwrap();
        assert_eq!(
            e,
            "Wrong arguments for edit: invalid value. Resend the call with the arguments its schema names."
        );
        assert_eq!(reword_sdk_error("edit", "something else"), None);
    }
}
