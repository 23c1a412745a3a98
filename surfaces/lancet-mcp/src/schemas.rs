//! What each tool declares it takes and returns: its `inputSchema`, from its arguments' type,
//! and its `outputSchema`: the report's for the tools that write, the read view's for
//! `read_file` and the checkpoint list's for `checkpoints` (each of those two, or a refusal's
//! report). They are generated from the types the arguments and results serialise, as the
//! documents `lancet schema` prints are, in JSON Schema's own formats only, so a client can
//! validate both sides strictly.

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::sync::{Arc, LazyLock};

/// The `checkpoints` tool's structured content (a tool's result is an object, not a list).
#[derive(Serialize, JsonSchema)]
pub(crate) struct CheckpointList {
    /// The batches applied, newest first.
    pub(crate) checkpoints: Vec<lancet::CheckpointMeta>,
    /// What the model must know besides (a cancelled call whose batch stands).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
}

static REPORT: LazyLock<Arc<JsonObject>> =
    LazyLock::new(|| object(lancet::surfaces::Schema::Report.document()));
static READ_RESULT: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    object(either(
        lancet::surfaces::Schema::Read.document(),
        lancet::surfaces::Schema::Report.document(),
    ))
});
static CHECKPOINTS_RESULT: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    object(either(
        lancet::surfaces::schema_for::<CheckpointList>(lancet::surfaces::Contract::Printed),
        lancet::surfaces::Schema::Report.document(),
    ))
});

/// The report, for every tool that applies a batch or undoes one.
pub(crate) fn report() -> Arc<JsonObject> {
    Arc::clone(&REPORT)
}

/// The read view or a refusal, for `read_file`.
pub(crate) fn read_result() -> Arc<JsonObject> {
    Arc::clone(&READ_RESULT)
}

/// The checkpoint list or a refusal, for `checkpoints`.
pub(crate) fn checkpoints_result() -> Arc<JsonObject> {
    Arc::clone(&CHECKPOINTS_RESULT)
}

/// A tool's `inputSchema`: its arguments as a model sends them.
pub(crate) fn input<T: JsonSchema>() -> Arc<JsonObject> {
    object(lancet::surfaces::schema_for::<T>(
        lancet::surfaces::Contract::Read,
    ))
}

/// One schema document taking what either document takes: their roots as the branches of an
/// `anyOf` under an object root, their definitions merged (a name both use is the same type).
fn either(first: Value, second: Value) -> Value {
    let mut definitions = serde_json::Map::new();
    let mut branches = Vec::new();
    for document in [first, second] {
        let Value::Object(mut root) = document else {
            continue;
        };
        if let Some(Value::Object(defined)) = root.remove("$defs") {
            definitions.extend(defined);
        }
        root.remove("$schema");
        branches.push(Value::Object(root));
    }
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "anyOf": branches,
        "$defs": definitions,
    })
}

/// A schema document as the object MCP carries: an object at its root, as MCP requires of a
/// tool's schemas (a union of objects says so beside its branches).
fn object(document: Value) -> Arc<JsonObject> {
    match document {
        Value::Object(mut map) => {
            map.entry("type").or_insert_with(|| "object".into());
            Arc::new(map)
        }
        _ => Arc::default(),
    }
}
