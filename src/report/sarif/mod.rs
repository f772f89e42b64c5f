//! SARIF 2.1.0, shaped for GitHub code scanning (`github/codeql-action/upload-sarif`).
//!
//! - URIs: relative to the working directory (`uriBaseId: %SRCROOT%`), POSIX,
//!   percent-encoded per RFC 3986; a file outside the working directory gets an
//!   absolute `file://` URI. See [`artifact_location`].
//! - Columns: UTF-16 code units (`run.columnKind`), converted from our char-based
//!   columns with the file text when the source map has it.
//! - `partialFingerprints["lblint/v1"]`: FNV-1a of rule, file, object identity and the
//!   primary span's text plus an occurrence counter; no line numbers, so moving an
//!   object keeps its alert. `primaryLocationLineHash` is left to upload-sarif.
//!
//! This file writes the log; `log` has its objects, `rules` the rule descriptors,
//! `uris` the artifact locations, `regions` the columns, `fingerprints` and `fixes`
//! what their names say.

use std::io;
use std::path::Path;

use crate::diagnostic::{Diagnostic, Location};
use crate::source::SourceMap;

use super::ReportOptions;
use fingerprints::Fingerprinter;
use log::{
    level, Driver, Fingerprints, Invocation, Log, Object, PhysicalLocation, ResultProperties, Run,
    SarifLocation, SarifResult, Text, Tool,
};
use regions::region;
use rules::RuleTable;

mod fingerprints;
mod fixes;
mod log;
mod regions;
mod rules;
mod uris;

pub use fingerprints::{Fnv1a, FINGERPRINT_KEY};
pub use regions::utf16_column;
pub use rules::full_description;
pub use uris::{artifact_location, encode_path, ArtifactLocation};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub(super) fn write(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let cwd = options.cwd.as_deref();
    let mut rules = RuleTable::new(&options.rules);
    let mut fingerprints = Fingerprinter::default();
    let results = diagnostics
        .iter()
        .map(|d| {
            let rule_index = rules.index(d);
            result(d, rule_index, sources, cwd, &mut fingerprints)
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "lblint",
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules: rules.descriptors(),
                },
            },
            invocations: [Invocation {
                execution_successful: true,
            }],
            column_kind: "utf16CodeUnits",
            results,
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}

/// `d` as the result at `rule_index` in `driver.rules`.
fn result<'a>(
    d: &'a Diagnostic,
    rule_index: usize,
    sources: &SourceMap,
    cwd: Option<&Path>,
    fingerprints: &mut Fingerprinter,
) -> SarifResult<'a> {
    let artifact = artifact_location(&d.location.file, cwd);
    let text = sources.get(&d.location.file).map(|f| f.text.as_str());
    let fingerprint = fingerprints.next(d, &artifact.uri, text);
    let fixes = fixes::fixes(d, &artifact, text);
    let properties = (d.object.is_some() || d.origin.is_some()).then(|| ResultProperties {
        object: d.object.as_ref().map(|o| Object {
            api_version: &o.api_version,
            kind: &o.kind,
            namespace: o.namespace.as_deref(),
            name: &o.name,
        }),
        origin: d.origin.as_deref(),
    });
    SarifResult {
        rule_id: d.rule,
        rule_index,
        level: level(d.severity),
        message: Text {
            text: d.message.clone(),
        },
        locations: [SarifLocation {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: artifact,
                region: Some(region(d.location.span.start, d.location.span.end, text)),
            },
            message: None,
        }],
        related_locations: related_locations(d, sources, cwd),
        partial_fingerprints: Fingerprints { v1: fingerprint },
        fixes,
        properties,
    }
}

/// `d`'s related locations, then the template it was rendered from, numbered from 1.
fn related_locations(
    d: &Diagnostic,
    sources: &SourceMap,
    cwd: Option<&Path>,
) -> Vec<SarifLocation> {
    let mut related: Vec<SarifLocation> = d
        .related
        .iter()
        .map(|r| SarifLocation {
            id: None,
            physical_location: physical(&r.location, sources, cwd),
            message: Some(Text {
                text: r.message.clone(),
            }),
        })
        .collect();
    if let Some(origin) = &d.origin {
        related.push(SarifLocation {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: artifact_location(origin, cwd),
                region: None,
            },
            message: Some(Text {
                text: "rendered from this template".to_string(),
            }),
        });
    }
    for (i, location) in related.iter_mut().enumerate() {
        location.id = Some(i + 1);
    }
    related
}

fn physical(location: &Location, sources: &SourceMap, cwd: Option<&Path>) -> PhysicalLocation {
    let text = sources.get(&location.file).map(|f| f.text.as_str());
    PhysicalLocation {
        artifact_location: artifact_location(&location.file, cwd),
        region: Some(region(location.span.start, location.span.end, text)),
    }
}
