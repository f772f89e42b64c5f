//! Layer 1: `# lblint: ignore[RULE,...] reason` comments, on the diagnostic's line
//! (trailing) or on a line of their own directly above it.

use std::collections::HashMap;
use std::sync::Arc;

use super::{is_lbl004, unknown_rule, unused};
use crate::catalog;
use crate::catalog::{lbl, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::Workspace;
use crate::source::Location;
use crate::yaml::Comment;

/// A parsed `# lblint: ignore[...]` comment: the rule keys as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreComment {
    pub rules: Vec<String>,
    pub reason: Option<String>,
}

/// What a comment says about suppressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommentKind {
    /// Not about lblint.
    Other,
    /// `lblint: ignore[...]`, well formed.
    Ignore(IgnoreComment),
    /// Starts with `lblint:` but is not a valid suppression.
    Malformed,
}

/// Parse a comment's text (without the `#`), with the grammar
/// `lblint: ignore\[(.+)\](?:\s+.*)?$`: rule keys comma-separated, spaces around them
/// tolerated; anything after `]` must be separated by whitespace and is the reason.
pub fn parse_comment(text: &str) -> CommentKind {
    let Some(rest) = text.trim_start().strip_prefix("lblint:") else {
        return CommentKind::Other;
    };
    let Some(rest) = rest.trim_start().strip_prefix("ignore[") else {
        return CommentKind::Malformed;
    };
    let Some(close) = rest.find(']') else {
        return CommentKind::Malformed;
    };
    let (list, after) = (&rest[..close], &rest[close + 1..]);
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return CommentKind::Malformed;
    }
    let rules: Vec<String> = list.split(',').map(|r| r.trim().to_string()).collect();
    if rules
        .iter()
        .any(|r| r.is_empty() || r.contains(char::is_whitespace))
    {
        return CommentKind::Malformed;
    }
    let reason = after.trim();
    CommentKind::Ignore(IgnoreComment {
        rules,
        reason: (!reason.is_empty()).then(|| reason.to_string()),
    })
}

struct CommentSite<'w> {
    file: Arc<str>,
    comment: &'w Comment,
    /// The line the comment applies to: its own, or the next one for a comment on a line
    /// by itself.
    line: u32,
    /// Known rules, with "used" flags; unknown keys are reported at once.
    rules: Vec<(&'static RuleMeta, bool)>,
    /// Per rule (in `rules` order), the line of that rule's diagnostic in this comment's
    /// document nearest to `line`, for the note of a comment that missed it.
    nearest: Vec<Option<u32>>,
    /// The first and last line of the document the comment sits in.
    document: (u32, u32),
    /// The comment lists LBL004 itself: never reported as unused.
    keep: bool,
}

/// The suppression comments of a run, by the line they apply to.
pub(super) struct Comments<'w> {
    sites: Vec<CommentSite<'w>>,
    /// (file, line) → indices into `sites`.
    by_line: HashMap<(Arc<str>, u32), Vec<usize>>,
    /// (file, rule id) → indices into `sites` that name the rule.
    by_rule: HashMap<(Arc<str>, &'static str), Vec<usize>>,
}

impl<'w> Comments<'w> {
    /// Every suppression comment of `ws`; malformed ones and unknown rules become notes.
    pub(super) fn collect(ws: &'w Workspace, notes: &mut Vec<Diagnostic>) -> Self {
        let sites = collect_comments(ws, notes);
        let mut by_line: HashMap<(Arc<str>, u32), Vec<usize>> = HashMap::new();
        let mut by_rule: HashMap<(Arc<str>, &'static str), Vec<usize>> = HashMap::new();
        for (i, site) in sites.iter().enumerate() {
            by_line
                .entry((site.file.clone(), site.line))
                .or_default()
                .push(i);
            for (rule, _) in &site.rules {
                by_rule
                    .entry((site.file.clone(), rule.id))
                    .or_default()
                    .push(i);
            }
        }
        Comments {
            sites,
            by_line,
            by_rule,
        }
    }

    /// Whether a comment suppresses `d`; every comment that does is marked used, and every
    /// comment of its rule in its file notes its line if it is the nearest yet.
    pub(super) fn suppress(&mut self, d: &Diagnostic) -> bool {
        let mut hit = false;
        let line = d.location().span.start.line;
        let key = (d.location().file.clone(), d.rule());
        for &i in self.by_rule.get(&key).into_iter().flatten() {
            let site = &mut self.sites[i];
            let at = site.line;
            if !(site.document.0..=site.document.1).contains(&line) {
                continue;
            }
            for (slot, (rule, _)) in site.nearest.iter_mut().zip(&site.rules) {
                if rule.id == d.rule() && slot.is_none_or(|n| line.abs_diff(at) < n.abs_diff(at)) {
                    *slot = Some(line);
                }
            }
        }
        for &i in self
            .by_line
            .get(&(d.location().file.clone(), line))
            .into_iter()
            .flatten()
        {
            for (rule, used) in &mut self.sites[i].rules {
                if rule.id == d.rule() {
                    *used = true;
                    hit = true;
                }
            }
        }
        hit
    }

    /// LBL004 notes for the rules of comments that suppressed nothing, except in `broken`
    /// files and for rules that did not run.
    pub(super) fn unused(
        &self,
        broken: &[&str],
        enabled: &dyn Fn(&'static RuleMeta) -> bool,
        notes: &mut Vec<Diagnostic>,
    ) {
        for site in &self.sites {
            if site.keep || broken.contains(&&*site.file) {
                continue;
            }
            for ((rule, used), nearest) in site.rules.iter().zip(&site.nearest) {
                if !used && enabled(rule) {
                    let elsewhere = nearest.map_or(String::new(), |n| {
                        format!(" (`{}` reports line {n} of this document)", rule.id)
                    });
                    notes.push(unused(
                        Location {
                            file: site.file.clone(),
                            span: site.comment.span,
                        },
                        format!(
                            "Unused suppression: no `{}` diagnostic on line {} to ignore{elsewhere}.",
                            rule.id,
                            site.line
                        ),
                        "remove the comment, or put it on the diagnostic's line or on its own line directly above it",
                    ));
                }
            }
        }
    }
}

fn collect_comments<'w>(ws: &'w Workspace, notes: &mut Vec<Diagnostic>) -> Vec<CommentSite<'w>> {
    let mut sites = Vec::new();
    for file in &ws.files {
        let text = &file.source.text;
        for comment in &file.loaded.comments {
            let location = Location {
                file: file.source.path.clone(),
                span: comment.span,
            };
            let parsed = match parse_comment(&comment.text) {
                CommentKind::Other => continue,
                CommentKind::Malformed => {
                    notes.push(
                        lbl::UNUSED_SUPPRESSION
                            .diagnostic(
                                Severity::Note,
                                location,
                                "Malformed suppression comment: it suppresses nothing.",
                            )
                            .with_help("write it as `# lblint: ignore[RULE,...] optional reason`"),
                    );
                    continue;
                }
                CommentKind::Ignore(parsed) => parsed,
            };
            let line = comment.span.start.line;
            let line_start = crate::source::line_start(text, comment.span.start.offset);
            let own_line = text[line_start..comment.span.start.offset]
                .trim()
                .is_empty();
            let keep = parsed.rules.iter().any(|k| is_lbl004(catalog::lookup(k)));
            let mut known = Vec::new();
            for key in &parsed.rules {
                match catalog::lookup(key) {
                    Some(meta) => known.push((meta, false)),
                    None if keep => {}
                    None => {
                        notes.push(unknown_rule(location.clone(), key, "a suppression comment"))
                    }
                }
            }
            let target = if own_line { line + 1 } else { line };
            sites.push(CommentSite {
                file: file.source.path.clone(),
                comment,
                line: target,
                nearest: vec![None; known.len()],
                document: document_lines(&file.loaded.documents, target),
                rules: known,
                keep,
            });
        }
    }
    sites
}

/// The first and last line of the document of `documents` that holds `line` (a comment
/// between documents, or in a file whose documents did not parse: none, `(0, 0)`).
fn document_lines(documents: &[crate::yaml::Document], line: u32) -> (u32, u32) {
    documents
        .iter()
        .filter_map(|d| d.root())
        .map(|root| (root.span().start.line, root.span().end.line))
        .find(|(first, last)| (*first..=*last).contains(&line))
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignore(rules: &[&str], reason: Option<&str>) -> CommentKind {
        CommentKind::Ignore(IgnoreComment {
            rules: rules.iter().map(|r| r.to_string()).collect(),
            reason: reason.map(str::to_string),
        })
    }

    #[test]
    fn comment_grammar() {
        let cases: &[(&str, CommentKind)] = &[
            (" lblint: ignore[TKE001]", ignore(&["TKE001"], None)),
            ("lblint: ignore[TKE001]", ignore(&["TKE001"], None)),
            (
                " lblint: ignore[TKE001, tke-l4-loopback ] reason here",
                ignore(&["TKE001", "tke-l4-loopback"], Some("reason here")),
            ),
            (" lblint:ignore[A,B]", ignore(&["A", "B"], None)),
            (" lblint: ignore[A]\treason", ignore(&["A"], Some("reason"))),
            (" lblint: ignore[A]reason", CommentKind::Malformed),
            (" lblint: ignore[]", CommentKind::Malformed),
            (" lblint: ignore[A,,B]", CommentKind::Malformed),
            (" lblint: ignore[A B]", CommentKind::Malformed),
            (" lblint: ignore[A", CommentKind::Malformed),
            (" lblint: ignore TKE001", CommentKind::Malformed),
            (" lblint: disable[TKE001]", CommentKind::Malformed),
            (" Source: chart/templates/svc.yaml", CommentKind::Other),
            (" see lblint: ignore[TKE001]", CommentKind::Other),
            (" zizmor: ignore[TKE001]", CommentKind::Other),
            ("", CommentKind::Other),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse_comment(text), expected, "{text:?}");
        }
    }
}
