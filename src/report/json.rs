//! Machine-readable report, contract version 1.
//!
//! The structs below exist only to fix field names and order; every field is
//! always present (null or [] when empty) so consumers need no defaults.

use std::io;

use serde::Serialize;

use crate::diagnostic::{Applicability, Diagnostic, FixRef, Severity, Summary, Text};
use crate::source::ObjectRef;
use crate::source::Span;

const VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: &'a Summary,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a Text,
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    object: Option<&'a ObjectRef>,
    related: Vec<JsonRelated<'a>>,
    help: Option<&'a Text>,
    fix: Option<JsonFix<'a>>,
    /// Alternatives to `fix` that `--fix` never applies (added after version 1 shipped:
    /// additive, so the version stays 1).
    suggestions: Vec<JsonFix<'a>>,
    origin: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    message: &'a Text,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    description: &'a str,
    applicability: Applicability,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    content: &'a str,
}

impl<'a> From<&'a Diagnostic> for JsonDiagnostic<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        let span = d.location().span;
        JsonDiagnostic {
            rule: d.rule(),
            name: d.name(),
            severity: d.severity(),
            message: d.message(),
            file: &d.location().file,
            line: span.start.line,
            column: span.start.column,
            end_line: span.end.line,
            end_column: span.end.column,
            object: d.object(),
            related: d
                .related()
                .iter()
                .map(|r| JsonRelated {
                    file: &r.location.file,
                    line: r.location.span.start.line,
                    column: r.location.span.start.column,
                    message: &r.message,
                })
                .collect(),
            help: d.help(),
            fix: d.fix().map(JsonFix::from),
            suggestions: d.suggestions().map(JsonFix::from).collect(),
            origin: d.origin(),
        }
    }
}

impl<'a> From<FixRef<'a>> for JsonFix<'a> {
    fn from(fix: FixRef<'a>) -> Self {
        JsonFix {
            description: fix.description(),
            applicability: fix.applicability(),
            edits: fix.edits().map(|e| edit(&e.span, e.content)).collect(),
        }
    }
}

fn edit<'a>(span: &Span, content: &'a str) -> JsonEdit<'a> {
    JsonEdit {
        line: span.start.line,
        column: span.start.column,
        end_line: span.end.line,
        end_column: span.end.column,
        content,
    }
}

pub(super) fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let report = Report {
        version: VERSION,
        diagnostics: diagnostics.iter().map(JsonDiagnostic::from).collect(),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    out.write_all(b"\n")
}
