//! The profile file as a whole: its top-level type, the JSON Schema derived from it (and
//! from the types of `model.rs` under it), and the error-help tables read from that schema.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::header::{API_VERSION, KIND};
use super::model::Spec;
use crate::settings::schema::Tables;

/// Facts about the target cluster. Leave out what you do not know: missing facts are
/// unknown.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(
    title = "lblint ClusterProfile",
    extend("$id" = "https://lblint.dev/schemas/cluster-profile-v1alpha1.json")
)]
pub(super) struct Document {
    // Already checked by the header pass; kept so `deny_unknown_fields` accepts them.
    #[allow(dead_code)]
    #[schemars(extend("const" = API_VERSION))]
    pub(super) api_version: String,
    #[allow(dead_code)]
    #[schemars(extend("const" = KIND))]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) metadata: Option<Metadata>,
    pub(super) spec: Spec,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Metadata {
    /// Profile name shown in reports.
    #[serde(default)]
    pub(super) name: Option<String>,
}

/// The profile's JSON Schema (draft-07), for yaml-language-server and editors.
pub fn json_schema() -> Value {
    crate::settings::schema::json_schema::<Document>()
}

/// Paths that messages have always named otherwise than the rule of [`Tables::of`] would
/// (tests/integration/cli.rs pins it).
const SHOWN: &[(&str, &str)] = &[("spec.nodePools[].type", "nodePools[].type")];

/// The error-help tables, read from the schema once, on the first error that needs them.
pub(super) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::of(&json_schema(), SHOWN))
}

/// Whether `keys` (`["spec", "kubeProxy", "mode"]`) names a field of the profile.
pub(super) fn has_field(keys: &[&str]) -> bool {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    Tables::has_path(SCHEMA.get_or_init(json_schema), keys)
}
