//! JSON Schemas of what lancet prints, generated from the types that print it, so a program
//! reading `--json` or MCP structured content can validate and generate code against a contract
//! that cannot drift from the code.

use crate::batch::Batch;
use crate::report::Report;
use schemars::JsonSchema;

/// The schema of a [`Report`]: `--json`, each JSON line of a batch run, and MCP structured
/// content (whose compact form only leaves optional fields out).
pub fn report_schema() -> serde_json::Value {
    document::<Report>("lancet report", Contract::Printed)
}

/// The schema of a parsed [`Batch`]: what `lancet parse --json` prints.
pub fn batch_schema() -> serde_json::Value {
    document::<Batch>("lancet batch", Contract::Printed)
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
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = match contract {
        Contract::Printed => settings.for_serialize(),
        Contract::Read => settings.for_deserialize(),
    };
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(object) = schema.as_object_mut() {
        object.insert("title".into(), title.into());
    }
    schema
}
