//! What each tool declares it returns, its `outputSchema`: the report's schema for the tools
//! that write, the read view's for `read_file`, the checkpoint list's for `checkpoints`. They are
//! the documents `lancet schema` prints, generated from the types the results serialise, so a
//! client can validate structured content against them.

use rmcp::model::JsonObject;
use serde::Serialize;
use std::sync::{Arc, LazyLock};

/// The `checkpoints` tool's structured content (a tool's result is an object, not a list).
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CheckpointList {
    /// The batches applied, newest first.
    pub(crate) checkpoints: Vec<lancet::CheckpointMeta>,
}

static REPORT: LazyLock<Arc<JsonObject>> =
    LazyLock::new(|| object(lancet::Schema::Report.document()));
static READ_VIEW: LazyLock<Arc<JsonObject>> =
    LazyLock::new(|| object(lancet::Schema::Read.document()));
static CHECKPOINT_LIST: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    object(
        generator
            .into_root_schema_for::<CheckpointList>()
            .to_value(),
    )
});

/// The report, for every tool that applies a batch or undoes one.
pub(crate) fn report() -> Arc<JsonObject> {
    Arc::clone(&REPORT)
}

/// The read view, for `read_file`.
pub(crate) fn read_view() -> Arc<JsonObject> {
    Arc::clone(&READ_VIEW)
}

/// The checkpoint list, for `checkpoints`.
pub(crate) fn checkpoint_list() -> Arc<JsonObject> {
    Arc::clone(&CHECKPOINT_LIST)
}

/// A schema document as the object MCP carries.
fn object(document: serde_json::Value) -> Arc<JsonObject> {
    match document {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}
