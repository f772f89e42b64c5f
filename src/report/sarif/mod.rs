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

use crate::diagnostic::Diagnostic;
use crate::source::Location;
use crate::source::SourceMap;

use super::ReportOptions;
use fingerprints::Fingerprinter;
use log::{
    level, BaseIds, BaseUri, Driver, Fingerprints, Invocation, Log, Object, PhysicalLocation,
    ResultProperties, Run, SarifLocation, SarifResult, Text, Tool,
};
use regions::region;
use rules::RuleTable;

mod fingerprints;
mod fixes;
mod log;
mod origins;
mod regions;
mod rules;
mod uris;

pub(crate) use regions::utf16_column;
pub(crate) use uris::artifact_location;
// What the report's unit tests check directly.
#[cfg(test)]
pub(crate) use {fingerprints::Fnv1a, rules::full_description, uris::encode_path};

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
    let mut origins = origins::Origins::new(cwd, &options.chart_roots);
    let results = diagnostics
        .iter()
        .map(|d| {
            let rule_index = rules.index(d);
            result(d, rule_index, sources, cwd, &mut fingerprints, &mut origins)
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            original_uri_base_ids: cwd.map(|cwd| BaseIds {
                src_root: BaseUri {
                    // A directory URI ends with `/`, so relative URIs resolve inside it.
                    uri: format!("{}/", uris::file_uri(cwd).trim_end_matches('/')),
                },
            }),
            tool: Tool {
                driver: Driver {
                    name: "lblint",
                    version: env!("CARGO_PKG_VERSION"),
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
    origins: &mut origins::Origins<'_>,
) -> SarifResult<'a> {
    let artifact = artifact_location(&d.location().file, cwd);
    let text = sources.get(&d.location().file).map(|f| f.text.as_str());
    let fingerprint = fingerprints.next(d, &artifact.uri, text);
    let fixes = fixes::fixes(d, &artifact, text);
    let properties = (d.object().is_some() || d.origin().is_some()).then(|| ResultProperties {
        object: d.object().map(|o| Object {
            api_version: &o.api_version,
            kind: &o.kind,
            namespace: o.namespace.as_deref(),
            name: &o.name,
        }),
        origin: d.origin(),
    });
    let related = related_locations(d, sources, cwd, origins);
    SarifResult {
        rule_id: d.rule(),
        rule_index,
        level: level(d.severity()),
        message: message(d, &related),
        locations: [SarifLocation {
            id: None,
            physical_location: (!unnamed_stdin(&d.location().file)).then(|| PhysicalLocation {
                artifact_location: artifact,
                region: Some(region(d.location().span.start, d.location().span.end, text)),
            }),
            message: None,
        }],
        related_locations: related,
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
    origins: &mut origins::Origins<'_>,
) -> Vec<SarifLocation> {
    let mut related: Vec<SarifLocation> = d
        .related()
        .iter()
        .map(|r| SarifLocation {
            id: None,
            physical_location: (!unnamed_stdin(&r.location.file))
                .then(|| physical(&r.location, sources, cwd)),
            message: Some(Text {
                text: r.message.to_string(),
                markdown: None,
            }),
        })
        .collect();
    // The template, where it can be found (its written path is kept in `properties`).
    if let Some(origin) = d.origin().and_then(|o| origins.resolve(o)) {
        related.push(SarifLocation {
            id: None,
            physical_location: Some(PhysicalLocation {
                artifact_location: artifact_location(&origin, cwd),
                region: None,
            }),
            message: Some(Text {
                text: "rendered from this template".to_string(),
                markdown: None,
            }),
        });
    }
    for (i, location) in related.iter_mut().enumerate() {
        location.id = Some(i + 1);
    }
    related
}

/// Standard input read without `--stdin-filename`: its display name is no file, so no
/// artifact is made of it.
fn unnamed_stdin(file: &str) -> bool {
    file == "<stdin>"
}

/// The message, with a link to each related location (`[text](id)`): GitHub shows related
/// locations only through such links. The markdown form also keeps the code spans.
fn message(d: &Diagnostic, related: &[SarifLocation]) -> Text {
    let links: Vec<String> = related
        .iter()
        .filter_map(|r| {
            let id = r.id?;
            let label = r
                .message
                .as_ref()
                .map_or("related location", |m| m.text.as_str());
            Some(format!("[{}]({id})", label.replace(['[', ']'], "")))
        })
        .collect();
    let text = if links.is_empty() {
        d.message().to_string()
    } else {
        format!("{} See: {}.", d.message(), links.join("; "))
    };
    let markdown = match &d.help() {
        Some(help) => format!("{text}\n\n**Fix:** {help}"),
        None => text.clone(),
    };
    Text {
        text,
        markdown: Some(markdown),
    }
}

fn physical(location: &Location, sources: &SourceMap, cwd: Option<&Path>) -> PhysicalLocation {
    let text = sources.get(&location.file).map(|f| f.text.as_str());
    PhysicalLocation {
        artifact_location: artifact_location(&location.file, cwd),
        region: Some(region(location.span.start, location.span.end, text)),
    }
}
