//! JSON Schemas of what lancet prints, generated from the types that print it, so a program
//! reading `--json` or MCP structured content can validate and generate code against a contract
//! that cannot drift from the code.

use crate::report::Report;
use crate::report::render::BatchInJson;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};

/// The schema of a [`Report`]: `--json`, each JSON line of a batch run, and MCP structured
/// content (whose compact form only leaves optional fields out).
pub fn report_schema() -> serde_json::Value {
    document::<Report>("lancet report", Contract::Printed)
}

/// The schema of a parsed batch: what `lancet parse --json` prints.
pub fn batch_schema() -> serde_json::Value {
    document::<BatchInJson<'static>>("lancet batch", Contract::Printed)
}

/// Which side of serde a schema describes: a field left out when empty is optional in what lancet
/// prints, while a field with a default is optional in what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    /// What lancet prints (`Serialize`).
    Printed,
    /// What lancet reads (`Deserialize`).
    Read,
}

/// A schema document for `T` (JSON Schema draft 2020-12) under a title naming what it describes.
pub fn document<T: JsonSchema>(title: &str, contract: Contract) -> serde_json::Value {
    let mut schema = schema_for::<T>(contract);
    if let Some(object) = schema.as_object_mut() {
        object.insert("title".into(), title.into());
    }
    schema
}

/// The schema of `T` (JSON Schema draft 2020-12) in standard formats only: what every schema
/// lancet hands out is made of, documents and MCP tools' arguments alike.
pub fn schema_for<T: JsonSchema>(contract: Contract) -> serde_json::Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = match contract {
        Contract::Printed => settings.for_serialize(),
        Contract::Read => settings.for_deserialize(),
    };
    settings
        .with_transform(StandardFormats)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The formats JSON Schema (draft 2020-12) defines: the only ones a validator must know.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keeps to [`STANDARD_FORMATS`]: schemars marks Rust's number types with formats of its own
/// (`uint`, `uint64`, `int32`, `double`, …), which strict validators (Ajv's strict mode) reject
/// and the MCP TypeScript SDK warns about on every `tools/list`. What such a format meant stays
/// as standard keywords: an unsigned integer says `minimum: 0`, a 32-bit one its range.
#[derive(Clone)]
struct StandardFormats;

impl Transform for StandardFormats {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(format) = object.get("format").and_then(|f| f.as_str()) else {
            return;
        };
        if STANDARD_FORMATS.contains(&format) {
            return;
        }
        let (minimum, maximum): (Option<i64>, Option<i64>) = match format {
            "uint32" => (Some(0), Some(u32::MAX.into())),
            "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
            unsigned if unsigned.starts_with("uint") => (Some(0), None),
            _ => (None, None),
        };
        object.remove("format");
        if let Some(minimum) = minimum {
            object.entry("minimum").or_insert(minimum.into());
        }
        if let Some(maximum) = maximum {
            object.entry("maximum").or_insert(maximum.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `format` left in a schema, wherever it stands.
    fn formats(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(f)) = map.get("format") {
                    found.push(f.clone());
                }
                map.values().for_each(|v| formats(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
            _ => {}
        }
    }

    #[derive(JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    struct Numbers {
        count: usize,
        size: u64,
        small: u32,
        huge: u128,
        code: Option<i32>,
        ratio: f64,
        when: i64,
    }

    #[test]
    fn only_standard_formats_and_the_bounds_they_meant() {
        for schema in [
            schema_for::<Numbers>(Contract::Printed),
            report_schema(),
            batch_schema(),
        ] {
            let mut found = Vec::new();
            formats(&schema, &mut found);
            assert!(
                found.iter().all(|f| STANDARD_FORMATS.contains(&f.as_str())),
                "{found:?}"
            );
        }
        let numbers = schema_for::<Numbers>(Contract::Printed);
        let p = &numbers["properties"];
        for unsigned in ["count", "size", "huge"] {
            assert_eq!(p[unsigned]["minimum"], 0, "{unsigned}: {}", p[unsigned]);
            assert_eq!(p[unsigned]["type"], "integer", "{unsigned}");
        }
        assert_eq!(p["small"]["maximum"], u32::MAX, "{}", p["small"]);
        assert_eq!(p["code"]["minimum"], i32::MIN, "{}", p["code"]);
        assert_eq!(p["ratio"]["type"], "number");
        assert!(p["when"].get("minimum").is_none(), "{}", p["when"]);
    }
}
