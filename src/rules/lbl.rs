//! Diagnostics the loader itself reports: input lblint could not read or lint.

use crate::diagnostic::Severity;

use super::RuleMeta;

pub static YAML_SYNTAX: RuleMeta = RuleMeta {
    id: "LBL001",
    name: "yaml-syntax",
    default_severity: Severity::Error,
    providers: &["any"],
    summary: "The file is not valid YAML; the broken document is not linted.",
    doc: include_str!("../../rules/LBL001.md"),
};

pub static UNRENDERED_TEMPLATE: RuleMeta = RuleMeta {
    id: "LBL002",
    name: "unrendered-template",
    default_severity: Severity::Note,
    providers: &["any"],
    summary: "An unrendered Helm template was skipped; lint the `helm template` output instead.",
    doc: include_str!("../../rules/LBL002.md"),
};

pub static FILE_SKIPPED: RuleMeta = RuleMeta {
    id: "LBL003",
    name: "file-skipped",
    default_severity: Severity::Warning,
    providers: &["any"],
    summary:
        "A file could not be linted: unreadable, not UTF-8, over the size limit, or a link loop.",
    doc: include_str!("../../rules/LBL003.md"),
};

pub static UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    id: "LBL004",
    name: "unused-suppression",
    default_severity: Severity::Note,
    providers: &["any"],
    summary: "A suppression (comment, annotation or config entry) that matches no diagnostic, or names an unknown rule.",
    doc: include_str!("../../rules/LBL004.md"),
};

pub static DUPLICATE_KEY: RuleMeta = RuleMeta {
    id: "LBL005",
    name: "duplicate-key",
    default_severity: Severity::Warning,
    providers: &["any"],
    summary: "A mapping key is written twice; Kubernetes silently keeps only the last value.",
    doc: include_str!("../../rules/LBL005.md"),
};

pub static EXCESSIVE_ALIASING: RuleMeta = RuleMeta {
    id: "LBL006",
    name: "excessive-aliasing",
    default_severity: Severity::Error,
    providers: &["any"],
    summary: "A document's aliases or merge keys expand too far: Kubernetes rejects it, or it is over lblint's budget; it is not linted.",
    doc: include_str!("../../rules/LBL006.md"),
};

pub static ALL: [&RuleMeta; 6] = [
    &YAML_SYNTAX,
    &UNRENDERED_TEMPLATE,
    &FILE_SKIPPED,
    &UNUSED_SUPPRESSION,
    &DUPLICATE_KEY,
    &EXCESSIVE_ALIASING,
];
