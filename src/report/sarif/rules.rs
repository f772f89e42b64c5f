//! `tool.driver.rules`: a reporting descriptor for each rule, from its document.

use super::log::{level, Configuration, Help, ReportingDescriptor, RuleProperties, Text};
use crate::catalog;
use crate::catalog::{docs, RuleMeta};
use crate::diagnostic::Diagnostic;

/// GitHub truncates longer `fullDescription`s.
const MAX_FULL_DESCRIPTION: usize = 1024;

/// The descriptors of a run: every enabled rule, then any rule a result names that is
/// not among them.
pub(super) struct RuleTable {
    /// `ids[i]` is the id of `descriptors[i]`.
    ids: Vec<&'static str>,
    descriptors: Vec<ReportingDescriptor>,
}

impl RuleTable {
    pub(super) fn new(enabled: &[&'static RuleMeta]) -> Self {
        let mut table = RuleTable {
            ids: Vec::new(),
            descriptors: Vec::new(),
        };
        for meta in enabled {
            if !table.ids.contains(&meta.id) {
                table.ids.push(meta.id);
                table.descriptors.push(descriptor(meta));
            }
        }
        table
    }

    /// The index of `d`'s rule (`ruleIndex`). A result's rule must be in driver.rules: a
    /// rule filtered out of the list (or unknown to the registry) still gets a
    /// descriptor.
    pub(super) fn index(&mut self, d: &Diagnostic) -> usize {
        if let Some(i) = self.ids.iter().position(|id| *id == d.rule()) {
            return i;
        }
        self.ids.push(d.rule());
        self.descriptors.push(
            match catalog::lookup(d.rule()).filter(|m| m.id == d.rule()) {
                Some(meta) => descriptor(meta),
                None => ReportingDescriptor {
                    id: d.rule(),
                    name: d.name(),
                    short_description: None,
                    full_description: None,
                    help: None,
                    help_uri: None,
                    default_configuration: None,
                    properties: None,
                },
            },
        );
        self.descriptors.len() - 1
    }

    pub(super) fn descriptors(self) -> Vec<ReportingDescriptor> {
        self.descriptors
    }
}

fn descriptor(meta: &'static RuleMeta) -> ReportingDescriptor {
    let url = meta.url();
    let body = docs::body(meta.doc).trim_end();
    let mut tags = vec!["kubernetes", "reliability"];
    tags.extend(meta.providers.clouds().iter().map(|p| p.as_str()));
    ReportingDescriptor {
        id: meta.id,
        name: meta.name,
        short_description: Some(Text {
            text: meta.summary.to_string(),
            markdown: None,
        }),
        full_description: Some(Text {
            text: full_description(body).unwrap_or_else(|| meta.summary.to_string()),
            markdown: None,
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
pub(crate) fn full_description(body: &str) -> Option<String> {
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
