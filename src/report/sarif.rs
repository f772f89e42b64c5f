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
//! The structs exist to fix field names and order.

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::rules::{self, docs, RuleMeta};
use crate::source::SourceMap;
use crate::yaml::Pos;

use super::ReportOptions;

mod fixes;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";
/// Key of our fingerprint in `partialFingerprints`; bump the suffix if the recipe changes.
pub const FINGERPRINT_KEY: &str = "lblint/v1";
/// GitHub truncates longer `fullDescription`s.
const MAX_FULL_DESCRIPTION: usize = 1024;

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    invocations: [Invocation; 1],
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_description: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<Help>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_configuration: Option<Configuration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RuleProperties>,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
    precision: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [SarifLocation; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<fixes::SarifFix>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ResultProperties<'a>>,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "lblint/v1")]
    v1: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<Object<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<&'a str>,
}

/// The object a finding is about (`namespace` left out for cluster-scoped or unset).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Object<'a> {
    api_version: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
    name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

/// A SARIF `artifactLocation`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

pub(super) fn write(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let cwd = options.cwd.as_deref();
    // `ids[i]` is the id of `descriptors[i]`.
    let mut ids: Vec<&'static str> = Vec::new();
    let mut descriptors: Vec<ReportingDescriptor> = Vec::new();
    for meta in &options.rules {
        if !ids.contains(&meta.id) {
            ids.push(meta.id);
            descriptors.push(descriptor(meta));
        }
    }

    let mut occurrences: HashMap<String, usize> = HashMap::new();
    let mut results = Vec::with_capacity(diagnostics.len());
    for d in diagnostics {
        // A result's rule must be in driver.rules: a rule filtered out of the list
        // (or unknown to the registry) still gets a descriptor.
        let rule_index = match ids.iter().position(|id| *id == d.rule) {
            Some(i) => i,
            None => {
                ids.push(d.rule);
                descriptors.push(match rules::lookup(d.rule).filter(|m| m.id == d.rule) {
                    Some(meta) => descriptor(meta),
                    None => ReportingDescriptor {
                        id: d.rule,
                        name: d.name,
                        short_description: None,
                        full_description: None,
                        help: None,
                        help_uri: None,
                        default_configuration: None,
                        properties: None,
                    },
                });
                descriptors.len() - 1
            }
        };
        let artifact = artifact_location(&d.location.file, cwd);
        let text = sources.get(&d.location.file).map(|f| f.text.as_str());
        let key = fingerprint_key(d, &artifact.uri, text);
        let occurrence = occurrences.entry(key.clone()).or_insert(0);
        let fingerprint = fingerprint(&key, *occurrence);
        *occurrence += 1;

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

        results.push(SarifResult {
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
            related_locations: related,
            partial_fingerprints: Fingerprints { v1: fingerprint },
            fixes,
            properties,
        });
    }

    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "lblint",
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules: descriptors,
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

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn descriptor(meta: &'static RuleMeta) -> ReportingDescriptor {
    let url = meta.url();
    let body = docs::body(meta.doc).trim_end();
    let mut tags = vec!["kubernetes", "reliability"];
    tags.extend(meta.providers.iter().copied().filter(|p| *p != "any"));
    ReportingDescriptor {
        id: meta.id,
        name: meta.name,
        short_description: Some(Text {
            text: meta.summary.to_string(),
        }),
        full_description: Some(Text {
            text: full_description(body).unwrap_or_else(|| meta.summary.to_string()),
        }),
        help: Some(Help {
            // GitHub shows help but ignores helpUri, so the link goes in the text too.
            text: format!("{body}\n\nDocumentation: {url}\n"),
            markdown: format!("{body}\n\nDocumentation: [{}]({url})\n", meta.id),
        }),
        help_uri: Some(url),
        default_configuration: Some(Configuration {
            level: level(meta.default_severity),
        }),
        properties: Some(RuleProperties {
            tags,
            // The loader's own rules report facts about the input; the others
            // depend on profile facts that may be unknown.
            precision: if meta.id.starts_with("LBL") {
                "very-high"
            } else {
                "high"
            },
        }),
    }
}

/// First paragraph of the document's "What it finds" section, on one line, as plain
/// text (`**` dropped), at most 1024 chars. A paragraph ending in `:` keeps the list
/// that completes it.
pub fn full_description(body: &str) -> Option<String> {
    let mut lines = body.lines().skip_while(|l| l.trim() != "## What it finds");
    lines.next()?;
    let section: Vec<&str> = lines.take_while(|l| !l.starts_with('#')).collect();
    let mut blocks = section
        .split(|l| l.trim().is_empty())
        .filter(|block| !block.is_empty());
    let mut text = join(blocks.next()?);
    while text.ends_with(':') {
        match blocks.next() {
            Some(block) => {
                text.push(' ');
                text.push_str(&join(block));
            }
            None => break,
        }
    }
    Some(truncate(&text.replace("**", ""), MAX_FULL_DESCRIPTION))
}

/// A markdown block's lines on one line, list markers dropped.
fn join(block: &[&str]) -> String {
    block
        .iter()
        .map(|l| {
            let l = l.trim();
            l.strip_prefix("- ").unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

fn physical(location: &Location, sources: &SourceMap, cwd: Option<&Path>) -> PhysicalLocation {
    let text = sources.get(&location.file).map(|f| f.text.as_str());
    PhysicalLocation {
        artifact_location: artifact_location(&location.file, cwd),
        region: Some(region(location.span.start, location.span.end, text)),
    }
}

fn region(start: Pos, end: Pos, text: Option<&str>) -> Region {
    let start_line = start.line.max(1);
    let start_column = utf16_column(start, text);
    let (end_line, end_column) = if (end.line, end.column) < (start.line, start.column) {
        (start_line, start_column)
    } else {
        (end.line.max(1), utf16_column(end, text))
    };
    Region {
        start_line,
        start_column,
        end_line,
        end_column,
    }
}

/// 1-based column of `pos` in UTF-16 code units. Uses the file text when it has the
/// offset; otherwise the char column (they differ only after non-BMP characters).
pub fn utf16_column(pos: Pos, text: Option<&str>) -> u32 {
    let column = text.and_then(|text| {
        let before = text.get(..pos.offset)?;
        let line_start = crate::source::line_start(text, pos.offset);
        Some(before[line_start..].encode_utf16().count() as u32 + 1)
    });
    column.unwrap_or(pos.column).max(1)
}

/// Where `path` (a displayed path: relative to `cwd` when under it, `/`-separated)
/// lives, as SARIF wants it.
///
/// - Under the working directory: a relative, percent-encoded URI with
///   `uriBaseId: %SRCROOT%` (GitHub resolves it against the checkout root, so run
///   lblint from the repository root).
/// - Elsewhere (an absolute path, or `../` leading out of `cwd`): an absolute
///   `file://` URI and no base id. Without a known `cwd`, a `../` path stays relative.
///
/// Paths are normalised lexically (`.` and `dir/..` removed); symbolic links are not
/// resolved.
pub fn artifact_location(path: &str, cwd: Option<&Path>) -> ArtifactLocation {
    let relative = |rel: &str| ArtifactLocation {
        uri: encode_path(rel),
        uri_base_id: Some(SRCROOT),
    };
    let file = |abs: &Path| ArtifactLocation {
        uri: file_uri(abs),
        uri_base_id: None,
    };
    let given = Path::new(path);
    let absolute = given.is_absolute() || path.starts_with('/');
    if !absolute {
        let normal = normalize(given);
        if !normal.starts_with("..") {
            return relative(&posix(&normal));
        }
    }
    let Some(cwd) = cwd else {
        return if absolute {
            file(&normalize(given))
        } else {
            relative(&posix(&normalize(given)))
        };
    };
    let cwd = normalize(cwd);
    let full = normalize(&cwd.join(given));
    match full.strip_prefix(&cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => relative(&posix(rel)),
        _ => file(&full),
    }
}

/// Lexical normalisation: drop `.`, fold `dir/..`; leading `..` of a relative path stay.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir | Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn posix(path: &Path) -> String {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_string()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `file:///abs/path` (Windows: `file:///C:/abs/path`).
fn file_uri(abs: &Path) -> String {
    let text = abs.to_string_lossy().replace('\\', "/");
    let (drive, rest) = match text.as_bytes() {
        [letter, b':', ..] if letter.is_ascii_alphabetic() => text.split_at(2),
        _ => ("", text.as_str()),
    };
    let rest = rest.trim_start_matches('/');
    if drive.is_empty() {
        format!("file:///{}", encode_path(rest))
    } else {
        format!("file:///{drive}/{}", encode_path(rest))
    }
}

/// Percent-encodes a `/`-separated path per RFC 3986: everything but unreserved
/// characters (`A-Z a-z 0-9 - . _ ~`) and `/` becomes `%XX` of its UTF-8 bytes, so
/// spaces, `#`, `?`, `%`, `:` and non-ASCII are all safe.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Everything that identifies a finding except where it is: rule, file, object and
/// the primary span's text (CRLF folded so a line-ending change keeps it).
fn fingerprint_key(d: &Diagnostic, uri: &str, text: Option<&str>) -> String {
    let object = d.object.as_ref().map(|o| o.to_string()).unwrap_or_default();
    let span = text
        .map_or("", |t| d.location.span.slice(t))
        .replace("\r\n", "\n");
    format!("{}\0{uri}\0{object}\0{span}", d.rule)
}

fn fingerprint(key: &str, occurrence: usize) -> String {
    let mut hash = Fnv1a::new();
    hash.write(key.as_bytes());
    hash.write(b"\0");
    hash.write(occurrence.to_string().as_bytes());
    format!("{:016x}", hash.0)
}

/// 64-bit FNV-1a: stable across runs and platforms, unlike std's `DefaultHasher`.
pub struct Fnv1a(pub u64);

impl Fnv1a {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub fn new() -> Self {
        Fnv1a(Self::OFFSET)
    }

    pub fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}
