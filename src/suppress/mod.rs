//! Suppressions: the filter stage between the rules and the report.
//!
//! Three layers, all disabled by `--no-ignores`:
//! 1. a YAML comment `# lblint: ignore[RULE,...] reason` on the diagnostic's line (trailing)
//!    or on a line of its own directly above it; only real comments count
//!    ([`crate::yaml::LoadedFile::comments`]), never a `#` inside a string (`comments`);
//! 2. an object annotation `ignore.lblint.dev/<rule id or name>: "<reason>"` on the object
//!    the diagnostic is about (found by file and [`crate::source::ObjectRef`];
//!    `annotations`);
//! 3. config-file `ignore:` entries (rule, path glob, optional object, reason; `config`).
//!
//! A suppression that matches nothing, or names an unknown rule, becomes an `LBL004`
//! note, so stale suppressions do not pile up.

use crate::catalog::{lbl, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::Workspace;
use crate::settings::suggest::did_you_mean;
use crate::source::Location;

use annotations::Annotations;
use comments::Comments;
use config::ConfigLayer;

mod annotations;
mod comments;
mod config;

pub use comments::{parse_comment, CommentKind};
pub use config::{ConfigIgnore, ConfigIgnores, ObjectPattern};

/// Prefix of suppression annotations: `ignore.lblint.dev/TKE001: "reason"`.
pub const ANNOTATION_PREFIX: &str = "ignore.lblint.dev/";

/// Result of the filter stage.
#[derive(Debug, Default)]
pub struct Filtered {
    pub kept: Vec<Diagnostic>,
    pub suppressed: usize,
    /// LBL004 notes: unused suppressions and unknown rules in suppressions.
    pub notes: Vec<Diagnostic>,
}

/// Findings moved out of rendered text (`--render`) into the base files in `ws`: the
/// rendered text kept no comments, so the base files' suppression comments are applied
/// here, and config entries by the base file's path. Nothing is reported unused: a base
/// file is read for these findings, not linted whole. Returns how many were suppressed.
pub fn in_base_files(
    ws: &Workspace,
    diagnostics: &mut Vec<Diagnostic>,
    config: Option<&ConfigIgnores>,
) -> usize {
    let mut comments = Comments::collect(ws, &mut Vec::new());
    let mut config_layer = config.map(ConfigLayer::new);
    let before = diagnostics.len();
    diagnostics.retain(|d| {
        let by_comment = comments.suppress(d);
        let by_config = config_layer.as_mut().is_some_and(|c| c.suppress(d));
        !(by_comment || by_config)
    });
    before - diagnostics.len()
}

/// Remove suppressed diagnostics. `enabled` says whether a rule ran in this run (a
/// suppression for a rule that did not run is not reported as unused).
pub fn apply(
    ws: &Workspace,
    mut diagnostics: Vec<Diagnostic>,
    config: Option<&ConfigIgnores>,
    enabled: &dyn Fn(&'static RuleMeta) -> bool,
) -> Filtered {
    let mut notes = Vec::new();
    let mut comments = Comments::collect(ws, &mut notes);
    let mut annotations = Annotations::collect(ws, &mut notes);
    let mut config_layer = config.map(ConfigLayer::new);

    // In place, in order: a second vector of the kept ones grew to 1.5x the findings beside
    // them (5.9 MB of the 9,229-finding stream's 62 MB peak).
    let before = diagnostics.len();
    diagnostics.retain(|d| {
        // Every layer looks at every diagnostic, so that each marks what it used.
        let by_comment = comments.suppress(d);
        let by_annotation = annotations.suppress(d);
        let by_config = config_layer.as_mut().is_some_and(|c| c.suppress(d));
        !(by_comment || by_annotation || by_config)
    });
    let mut suppressed = before - diagnostics.len();
    let kept = diagnostics;

    // A file whose documents did not all parse was not fully linted: its suppressions
    // may well be needed once it parses, so they are not reported as unused.
    let broken: Vec<&str> = ws
        .files
        .iter()
        .filter(|f| !f.loaded.errors.is_empty())
        .map(|f| &*f.source.path)
        .collect();
    comments.unused(&broken, enabled, &mut notes);
    annotations.unused(&broken, enabled, &mut notes);
    if let Some(layer) = &config_layer {
        layer.unused(ws, enabled, &mut notes);
    }
    if let Some(config) = config.filter(|_| enabled(&lbl::UNUSED_SUPPRESSION)) {
        suppressed += config.hide_notes(&mut notes);
    }
    Filtered {
        kept,
        suppressed,
        notes,
    }
}

fn is_lbl004(rule: Option<&'static RuleMeta>) -> bool {
    rule.is_some_and(|r| r.id == lbl::UNUSED_SUPPRESSION.id)
}

/// An LBL004 note about a suppression that suppressed nothing.
fn unused(location: Location, message: String, help: &str) -> Diagnostic {
    lbl::UNUSED_SUPPRESSION
        .diagnostic(Severity::Note, location, message)
        .with_help(help)
}

/// An LBL004 note about a suppression naming a rule that does not exist.
fn unknown_rule(location: Location, key: &str, what: &str) -> Diagnostic {
    let keys = crate::catalog::rule_keys();
    let help = match did_you_mean(key, &keys) {
        Some(s) => format!("did you mean `{s}`? (see `lblint rules`)"),
        None => "see `lblint rules` for the rule ids and names".to_string(),
    };
    lbl::UNUSED_SUPPRESSION
        .diagnostic(
            Severity::Note,
            location,
            format!("Unknown rule `{key}` in {what}: it suppresses nothing."),
        )
        .with_help(help)
}
