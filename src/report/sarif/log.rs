//! The SARIF log's objects, with the names and in the field order the format gives
//! them (the structs exist for that); [`ArtifactLocation`] is in `uris`.

use serde::Serialize;

use super::uris::ArtifactLocation;
use crate::diagnostic::{Applicability, Severity};

#[derive(Serialize)]
pub(super) struct Log<'a> {
    #[serde(rename = "$schema")]
    pub(super) schema: &'static str,
    pub(super) version: &'static str,
    pub(super) runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Run<'a> {
    pub(super) tool: Tool,
    /// `%SRCROOT%`: the working directory the relative URIs start from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) original_uri_base_ids: Option<BaseIds>,
    pub(super) invocations: [Invocation; 1],
    pub(super) column_kind: &'static str,
    pub(super) results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
pub(super) struct BaseIds {
    #[serde(rename = "%SRCROOT%")]
    pub(super) src_root: BaseUri,
}

#[derive(Serialize)]
pub(super) struct BaseUri {
    pub(super) uri: String,
}

#[derive(Serialize)]
pub(super) struct Tool {
    pub(super) driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Driver {
    pub(super) name: &'static str,
    pub(super) version: &'static str,
    pub(super) semantic_version: &'static str,
    pub(super) information_uri: &'static str,
    pub(super) rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Invocation {
    pub(super) execution_successful: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReportingDescriptor {
    pub(super) id: &'static str,
    pub(super) name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) short_description: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) full_description: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) help: Option<Help>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) help_uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) default_configuration: Option<Configuration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) properties: Option<RuleProperties>,
}

#[derive(Serialize)]
pub(super) struct Text {
    pub(super) text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) markdown: Option<String>,
}

#[derive(Serialize)]
pub(super) struct Help {
    pub(super) text: String,
    pub(super) markdown: String,
}

#[derive(Serialize)]
pub(super) struct Configuration {
    pub(super) level: &'static str,
}

#[derive(Serialize)]
pub(super) struct RuleProperties {
    pub(super) tags: Vec<&'static str>,
    pub(super) precision: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifResult<'a> {
    pub(super) rule_id: &'a str,
    pub(super) rule_index: usize,
    pub(super) level: &'static str,
    pub(super) message: Text,
    pub(super) locations: [SarifLocation; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) related_locations: Vec<SarifLocation>,
    pub(super) partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) fixes: Vec<SarifFix>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) properties: Option<ResultProperties<'a>>,
}

#[derive(Serialize)]
pub(super) struct Fingerprints {
    #[serde(rename = "lblint/v1")]
    pub(super) v1: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ResultProperties<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) object: Option<Object<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) origin: Option<&'a str>,
}

/// The object a finding is about (`namespace` left out for cluster-scoped or unset).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Object<'a> {
    pub(super) api_version: &'a str,
    pub(super) kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) namespace: Option<&'a str>,
    pub(super) name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<usize>,
    /// None for standard input read without `--stdin-filename`: no file to point at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PhysicalLocation {
    pub(super) artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) region: Option<Region>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Region {
    pub(super) start_line: u32,
    pub(super) start_column: u32,
    pub(super) end_line: u32,
    pub(super) end_column: u32,
}

/// The SARIF `level` of a severity.
pub(super) fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifFix {
    pub(super) description: Text,
    pub(super) artifact_changes: [ArtifactChange; 1],
    pub(super) properties: FixProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactChange {
    pub(super) artifact_location: ArtifactLocation,
    pub(super) replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Replacement {
    pub(super) deleted_region: Region,
    pub(super) inserted_content: Text,
}

#[derive(Serialize)]
pub(super) struct FixProperties {
    pub(super) applicability: Applicability,
    /// An alternative that `--fix` never applies (the result's first fix is the one it does).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) suggestion: bool,
}
