//! `lancet schema`: the JSON Schemas of what lancet prints and reads, for programs that
//! validate or generate code against them. They are generated from the types themselves and
//! checked into `schema/`, where a test keeps them equal to what the code generates.

use crate::config::Config;
use crate::read::ReadView;
mod contract;

pub use contract::{Contract, schema_for};
use lancet_store::CheckpointMeta;

/// A document lancet has a schema for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The report: `--json`, and MCP structured content.
    Report,
    /// A parsed batch: `lancet parse --json`.
    Batch,
    /// The settings file: `lancet.toml`, or `[tool.lancet]` in `pyproject.toml`.
    Config,
    /// A read window: `lancet read --json`, and the MCP `read_file` tool's structured content.
    Read,
    /// The checkpoint list: `lancet log --json`.
    Log,
}

impl Schema {
    /// Every schema, in the order `schema/` lists them.
    pub const ALL: [Schema; 5] = [
        Schema::Report,
        Schema::Batch,
        Schema::Config,
        Schema::Read,
        Schema::Log,
    ];

    /// The name `lancet schema NAME` takes, and the file stem under `schema/`.
    pub fn name(self) -> &'static str {
        match self {
            Schema::Report => "report",
            Schema::Batch => "batch",
            Schema::Config => "config",
            Schema::Read => "read",
            Schema::Log => "log",
        }
    }

    /// The schema document (JSON Schema draft 2020-12).
    pub fn document(self) -> serde_json::Value {
        match self {
            Schema::Report => contract::report_schema(),
            Schema::Batch => contract::batch_schema(),
            Schema::Config => {
                contract::document::<Config>("lancet settings (lancet.toml)", Contract::Read)
            }
            Schema::Read => contract::document::<ReadView>("lancet read", Contract::Printed),
            Schema::Log => {
                contract::document::<Vec<CheckpointMeta>>("lancet checkpoints", Contract::Printed)
            }
        }
    }

    /// The document as checked in: pretty JSON with a final newline.
    pub fn text(self) -> String {
        serde_json::to_string_pretty(&self.document()).unwrap_or_default() + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::Schema;
    use std::path::PathBuf;

    /// The schemas in `schema/` are what the code generates: a change to a report type that is
    /// not checked in fails here. `LANCET_WRITE_SNAPSHOTS=1` rewrites them.
    #[test]
    fn the_checked_in_schemas_are_what_the_types_generate() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema");
        for schema in Schema::ALL {
            let path = dir.join(format!("{}.schema.json", schema.name()));
            let generated = schema.text();
            if std::env::var_os("LANCET_WRITE_SNAPSHOTS").is_some() {
                std::fs::write(&path, &generated).unwrap();
            }
            let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                checked_in == generated,
                "{} differs from what the types generate: run `LANCET_WRITE_SNAPSHOTS=1 cargo test -p lancet schema` and review the change",
                path.display()
            );
        }
    }

    /// Every kind a report can name is in the schema's list, so a consumer matching on it
    /// sees them all.
    #[test]
    fn the_report_schema_lists_every_error_kind() {
        let doc = Schema::Report.document();
        let listed = doc["$defs"]["ErrorKind"]["enum"].as_array().unwrap().len();
        assert_eq!(listed, lancet_core::ErrorKind::ALL.len());
    }
}
