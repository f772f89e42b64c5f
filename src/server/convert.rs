//! lblint's findings and settings errors as LSP diagnostics.

use gen_lsp_types as lsp;

use super::text::{self, Encoding};
use crate::diagnostic::{Diagnostic, Severity};
use crate::settings::SettingsError;
use crate::source::Location;
use crate::source::{LineIndex, SourceFile};

/// The `source` of every diagnostic the server publishes.
pub(crate) const SOURCE: &str = "lblint";

/// lblint's severities in the editor: a note is information, not a hint (hints are
/// barely visible, and a note names a trade-off worth reading).
pub(crate) fn severity(severity: Severity) -> lsp::DiagnosticSeverity {
    match severity {
        Severity::Error => lsp::DiagnosticSeverity::Error,
        Severity::Warning => lsp::DiagnosticSeverity::Warning,
        Severity::Note => lsp::DiagnosticSeverity::Information,
    }
}

/// The rule page, as SARIF's `helpUri` links it.
pub(crate) fn rule_page(rule: &str) -> Option<lsp::CodeDescription> {
    crate::catalog::lookup(rule).map(|meta| lsp::CodeDescription {
        href: lsp::Uri(meta.url()),
    })
}

/// A finding in its file (`source`, the text it was linted from); `locate` turns a
/// related location into the editor's (another file's text is needed for its range).
pub(crate) fn diagnostic(
    d: &Diagnostic,
    source: &SourceFile,
    locate: &dyn Fn(&Location) -> Option<lsp::Location>,
    encoding: Encoding,
) -> lsp::Diagnostic {
    // Built to its exact length: tens of thousands of these are held for the client (a
    // doubling `push_str` left up to half of each unused).
    let lead = d.message().as_cow();
    let help = d.help().as_ref().map(|h| h.as_cow());
    let len = lead.len() + help.as_ref().map_or(0, |h| "\nhelp: ".len() + h.len());
    let mut message = String::with_capacity(len);
    message.push_str(&lead);
    if let Some(help) = help {
        message.push_str("\nhelp: ");
        message.push_str(&help);
    }
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .related()
        .iter()
        .filter_map(|r| {
            Some(lsp::DiagnosticRelatedInformation {
                location: locate(&r.location)?,
                message: r.message.to_string(),
            })
        })
        .collect();
    lsp::Diagnostic {
        range: text::range(source, d.location().span, encoding),
        severity: Some(severity(d.severity())),
        code: Some(lsp::Code::String(d.rule().to_string())),
        code_description: rule_page(d.rule()),
        source: Some(SOURCE.to_string()),
        message: lsp::Message::String(message),
        tags: None,
        related_information: (!related.is_empty()).then_some(related),
        data: None,
    }
}

/// A config or profile error on its file: the range of the offending key or value, or the
/// file's start when the error has no place (the file could not be read).
pub(crate) fn settings_error(e: &SettingsError, encoding: Encoding) -> lsp::Diagnostic {
    let text = e.source_text();
    let lines = LineIndex::new(text);
    let start = text::position(text, &lines, e.offset, encoding);
    let end = text::position(text, &lines, e.offset + e.len, encoding);
    let mut message = e.message.clone();
    if let Some(help) = &e.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lsp::Diagnostic {
        range: lsp::Range::new(start, end),
        severity: Some(lsp::DiagnosticSeverity::Error),
        code: None,
        code_description: None,
        source: Some(SOURCE.to_string()),
        message: lsp::Message::String(message),
        tags: None,
        related_information: None,
        data: None,
    }
}
