//! The filter stage: which rules' findings are reported (`--select`, `--ignore`, config
//! `off`), at which severity (config levels), and which are suppressed (comments,
//! annotations, config `ignore:` entries); then the output order.

use std::collections::HashMap;
use std::sync::Arc;

use crate::config::RuleLevel;
use crate::diagnostic::Diagnostic;
use crate::objects::Workspace;
use crate::rules::{lbl, RuleMeta};
use crate::source::SourceFile;
use crate::suppress::{self, ConfigIgnores};

/// The filter stage's settings.
pub(crate) struct Filter<'a> {
    pub(crate) selected: &'a [&'static RuleMeta],
    pub(crate) ignored: &'a [&'static RuleMeta],
    pub(crate) levels: &'a [(&'static RuleMeta, RuleLevel)],
    pub(crate) config_ignores: Option<&'a ConfigIgnores>,
    pub(crate) config_source: Option<&'a Arc<SourceFile>>,
    /// Off with `--no-ignores`: nothing is suppressed.
    pub(crate) suppress: bool,
}

impl Filter<'_> {
    fn level(&self, id: &str) -> Option<RuleLevel> {
        self.levels
            .iter()
            .find(|(r, _)| r.id == id)
            .map(|(_, level)| *level)
    }

    /// Whether the rule's findings are reported at all in this run.
    pub(crate) fn enabled(&self, id: &str) -> bool {
        (self.selected.is_empty() || self.selected.iter().any(|m| m.id == id))
            && !self.ignored.iter().any(|m| m.id == id)
            && self.level(id) != Some(RuleLevel::Off)
    }

    fn set_severity(&self, d: &mut Diagnostic) {
        if let Some(RuleLevel::Severity(severity)) = self.level(d.rule) {
            d.severity = severity;
        }
    }

    /// Drop the findings of rules that do not run, apply severity overrides, then
    /// suppressions (adding LBL004 notes for unused ones). Returns the findings in output
    /// order (files in `order`, then position) and how many were suppressed.
    pub(crate) fn apply(
        &self,
        ws: &Workspace,
        mut diagnostics: Vec<Diagnostic>,
        order: &HashMap<&str, usize>,
    ) -> (Vec<Diagnostic>, usize) {
        diagnostics.retain(|d| self.enabled(d.rule));
        for d in &mut diagnostics {
            self.set_severity(d);
        }
        sort(&mut diagnostics, order);
        if !self.suppress {
            return (diagnostics, 0);
        }
        let filtered = suppress::apply(ws, diagnostics, self.config_ignores, &|rule| {
            self.enabled(rule.id)
        });
        let mut diagnostics = filtered.kept;
        if self.enabled(lbl::UNUSED_SUPPRESSION.id) {
            for mut note in filtered.notes {
                self.set_severity(&mut note);
                diagnostics.push(note);
            }
        }
        sort(&mut diagnostics, order);
        (diagnostics, filtered.suppressed)
    }
}

/// Output order: files in walk order, then position; exact duplicates dropped.
fn sort(diagnostics: &mut Vec<Diagnostic>, order: &HashMap<&str, usize>) {
    diagnostics.sort_by(|a, b| {
        let fa = order.get(&*a.location.file).copied().unwrap_or(usize::MAX);
        let fb = order.get(&*b.location.file).copied().unwrap_or(usize::MAX);
        (fa, a.sort_key()).cmp(&(fb, b.sort_key()))
    });
    diagnostics.dedup();
}
