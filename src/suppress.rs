//! Suppressions: the filter stage between the rules and the report.
//!
//! Three layers, all disabled by `--no-ignores`:
//! 1. a YAML comment `# lblint: ignore[RULE,...] reason` on the diagnostic's line (trailing)
//!    or on a line of its own directly above it; only real comments count
//!    ([`crate::yaml::LoadedFile::comments`]), never a `#` inside a string;
//! 2. an object annotation `ignore.lblint.dev/<rule id or name>: "<reason>"` on the object
//!    the diagnostic is about (found by file and [`ObjectRef`]);
//! 3. config-file `ignore:` entries (rule, path glob, optional object, reason).
//!
//! A suppression that matches nothing, or names an unknown rule, becomes an `LBL004`
//! note, so stale suppressions do not pile up.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use globset::GlobMatcher;

use crate::diagnostic::{Diagnostic, Location, ObjectRef, Severity};
use crate::objects::Workspace;
use crate::profile::suggest::did_you_mean;
use crate::rules::{self, lbl, RuleMeta};
use crate::yaml::Comment;

/// Prefix of suppression annotations: `ignore.lblint.dev/TKE001: "reason"`.
pub const ANNOTATION_PREFIX: &str = "ignore.lblint.dev/";

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

/// `Kind/namespace/name` (or `Kind/name` for objects without a namespace); `*` matches
/// any one part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectPattern {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectPattern {
    pub fn parse(text: &str) -> Result<ObjectPattern, String> {
        let parts: Vec<&str> = text.split('/').collect();
        let pattern = match parts[..] {
            [kind, name] => ObjectPattern {
                kind: kind.into(),
                namespace: None,
                name: name.into(),
            },
            [kind, namespace, name] => ObjectPattern {
                kind: kind.into(),
                namespace: Some(namespace.into()),
                name: name.into(),
            },
            _ => {
                return Err(format!(
                    "invalid object `{text}`: expected `Kind/namespace/name` or `Kind/name`"
                ))
            }
        };
        if parts.iter().any(|p| p.trim().is_empty()) {
            return Err(format!("invalid object `{text}`: a part is empty"));
        }
        Ok(pattern)
    }

    pub fn matches(&self, object: &ObjectRef) -> bool {
        let part = |pattern: &str, value: &str| pattern == "*" || pattern == value;
        let namespace_ok = match &self.namespace {
            // `Kind/name`: objects without a namespace (cluster-scoped, or left to apply time).
            None => object.namespace.is_none(),
            Some(ns) => part(ns, object.namespace.as_deref().unwrap_or("default")),
        };
        part(&self.kind, &object.kind) && namespace_ok && part(&self.name, &object.name)
    }
}

/// A config-file `ignore:` entry, validated.
#[derive(Clone, Debug)]
pub struct ConfigIgnore {
    pub rule: &'static RuleMeta,
    /// The glob as written, relative to the config file's directory.
    pub path: String,
    pub matcher: GlobMatcher,
    pub object: Option<ObjectPattern>,
    pub reason: String,
    /// Where the entry is, in the config file (for LBL004 notes).
    pub location: Location,
}

/// Config-file suppressions plus what is needed to match their globs.
#[derive(Clone, Debug, Default)]
pub struct ConfigIgnores {
    pub entries: Vec<ConfigIgnore>,
    /// The config file's directory (absolute, normalized) and the working directory:
    /// displayed paths are relative to `cwd`, globs to `base`.
    pub base: PathBuf,
    pub cwd: PathBuf,
}

impl ConfigIgnores {
    fn relative(&self, display: &str) -> Option<String> {
        crate::walk::rebase(display, &self.cwd, &self.base)
    }
}

/// Result of the filter stage.
#[derive(Debug, Default)]
pub struct Filtered {
    pub kept: Vec<Diagnostic>,
    pub suppressed: usize,
    /// LBL004 notes: unused suppressions and unknown rules in suppressions.
    pub notes: Vec<Diagnostic>,
}

struct CommentSite<'w> {
    file: Arc<str>,
    comment: &'w Comment,
    /// The line the comment applies to: its own, or the next one for a comment on a line
    /// by itself.
    line: u32,
    /// Known rules, with "used" flags; unknown keys are reported at once.
    rules: Vec<(&'static RuleMeta, bool)>,
    /// The comment lists LBL004 itself: never reported as unused.
    keep: bool,
}

struct AnnotationSite {
    object: usize,
    rule: &'static RuleMeta,
    location: Location,
    used: bool,
    /// The object also carries an LBL004 suppression: never reported as unused.
    keep: bool,
}

/// Remove suppressed diagnostics. `enabled` says whether a rule ran in this run (a
/// suppression for a rule that did not run is not reported as unused).
pub fn apply(
    ws: &Workspace,
    diagnostics: Vec<Diagnostic>,
    config: Option<&ConfigIgnores>,
    enabled: &dyn Fn(&'static RuleMeta) -> bool,
) -> Filtered {
    let mut notes = Vec::new();
    let mut comments = collect_comments(ws, &mut notes);
    let mut annotations = collect_annotations(ws, &mut notes);
    let mut config_used = vec![false; config.map_or(0, |c| c.entries.len())];

    // Comments by (file, line) → indices into `comments`.
    let mut by_line: HashMap<(Arc<str>, u32), Vec<usize>> = HashMap::new();
    for (i, site) in comments.iter().enumerate() {
        by_line
            .entry((site.file.clone(), site.line))
            .or_default()
            .push(i);
    }
    // Objects by (file, identity) → indices into `ws.objects`.
    let mut objects: HashMap<(&str, &ObjectRef), Vec<usize>> = HashMap::new();
    for (i, o) in ws.objects.iter().enumerate() {
        objects
            .entry((&*ws.files[o.file].source.path, &o.id))
            .or_default()
            .push(i);
    }
    let mut annotations_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, a) in annotations.iter().enumerate() {
        annotations_of.entry(a.object).or_default().push(i);
    }

    let mut kept = Vec::new();
    let mut suppressed = 0;
    for d in diagnostics {
        let mut hit = false;
        let line = d.location.span.start.line;
        for &i in by_line
            .get(&(d.location.file.clone(), line))
            .into_iter()
            .flatten()
        {
            for (rule, used) in &mut comments[i].rules {
                if rule.id == d.rule {
                    *used = true;
                    hit = true;
                }
            }
        }
        if let Some(object) = d
            .object
            .as_ref()
            .and_then(|id| object_of(ws, &objects, &d, id))
        {
            for &i in annotations_of.get(&object).into_iter().flatten() {
                if annotations[i].rule.id == d.rule {
                    annotations[i].used = true;
                    hit = true;
                }
            }
        }
        if let Some(config) = config {
            let relative = config.relative(&d.location.file);
            for (i, entry) in config.entries.iter().enumerate() {
                let path_ok = relative
                    .as_deref()
                    .is_some_and(|p| entry.matcher.is_match(p));
                let object_ok = match (&entry.object, &d.object) {
                    (None, _) => true,
                    (Some(pattern), Some(id)) => pattern.matches(id),
                    (Some(_), None) => false,
                };
                if entry.rule.id == d.rule && path_ok && object_ok {
                    config_used[i] = true;
                    hit = true;
                }
            }
        }
        if hit {
            suppressed += 1;
        } else {
            kept.push(d);
        }
    }

    // A file whose documents did not all parse was not fully linted: its suppressions
    // may well be needed once it parses, so they are not reported as unused.
    let broken: Vec<&str> = ws
        .files
        .iter()
        .filter(|f| !f.loaded.errors.is_empty())
        .map(|f| &*f.source.path)
        .collect();
    for site in &comments {
        if site.keep || broken.contains(&&*site.file) {
            continue;
        }
        for (rule, used) in &site.rules {
            if !used && enabled(rule) {
                notes.push(unused(
                    Location {
                        file: site.file.clone(),
                        span: site.comment.span,
                    },
                    format!(
                        "Unused suppression: no `{}` diagnostic on line {} to ignore.",
                        rule.id,
                        site.line
                    ),
                    "remove the comment, or put it on the diagnostic's line or on its own line directly above it",
                ));
            }
        }
    }
    for a in &annotations {
        if !a.used && !a.keep && enabled(a.rule) && !broken.contains(&&*a.location.file) {
            let object = &ws.objects[a.object];
            let mut note = unused(
                a.location.clone(),
                format!(
                    "Unused suppression: {} has no `{}` diagnostic to ignore.",
                    object.id, a.rule.id
                ),
                "remove the annotation",
            );
            note.object = Some(object.id.clone());
            note.origin = object.origin.clone();
            notes.push(note);
        }
    }
    if let Some(config) = config {
        // Only entries whose glob matched a file of this run can be known to be unused
        // (pre-commit lints a few changed files at a time).
        let relatives: Vec<String> = ws
            .files
            .iter()
            .filter(|f| f.loaded.errors.is_empty())
            .filter_map(|f| config.relative(&f.source.path))
            .collect();
        for (entry, used) in config.entries.iter().zip(&config_used) {
            if !used
                && enabled(entry.rule)
                && !is_lbl004(Some(entry.rule))
                && relatives.iter().any(|p| entry.matcher.is_match(p))
            {
                notes.push(unused(
                    entry.location.clone(),
                    format!(
                        "Unused suppression: no `{}` diagnostic in the files matching `{}`{} to ignore.",
                        entry.rule.id,
                        entry.path,
                        entry
                            .object
                            .as_ref()
                            .map_or(String::new(), |o| format!(" for `{}`", object_text(o)))
                    ),
                    "remove the `ignore` entry, or fix its `rule`, `path` or `object`",
                ));
            }
        }
    }
    // Config entries for LBL004 itself hide the notes of the files (and objects) they match.
    if let Some(config) = config.filter(|_| enabled(&lbl::UNUSED_SUPPRESSION)) {
        notes.retain(|n| {
            let relative = config.relative(&n.location.file);
            let hidden = config.entries.iter().any(|e| {
                is_lbl004(Some(e.rule))
                    && relative.as_deref().is_some_and(|p| e.matcher.is_match(p))
                    && match (&e.object, &n.object) {
                        (None, _) => true,
                        (Some(pattern), Some(id)) => pattern.matches(id),
                        (Some(_), None) => false,
                    }
            });
            suppressed += usize::from(hidden);
            !hidden
        });
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

fn object_text(o: &ObjectPattern) -> String {
    match &o.namespace {
        Some(ns) => format!("{}/{ns}/{}", o.kind, o.name),
        None => format!("{}/{}", o.kind, o.name),
    }
}

fn unused(location: Location, message: String, help: &str) -> Diagnostic {
    lbl::UNUSED_SUPPRESSION
        .diagnostic(Severity::Note, location, message)
        .with_help(help)
}

fn unknown_rule(location: Location, key: &str, what: &str) -> Diagnostic {
    let keys = crate::rules::rule_keys();
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

/// The object a diagnostic is about: same file, same identity; when a file holds the same
/// identity twice, the one whose document contains the diagnostic.
fn object_of(
    ws: &Workspace,
    objects: &HashMap<(&str, &ObjectRef), Vec<usize>>,
    d: &Diagnostic,
    id: &ObjectRef,
) -> Option<usize> {
    let candidates = objects.get(&(&*d.location.file, id))?;
    let offset = d.location.span.start.offset;
    candidates
        .iter()
        .copied()
        .find(|&i| {
            let span = ws.document(&ws.objects[i]).span;
            span.start.offset <= offset && offset <= span.end.offset
        })
        .or_else(|| candidates.first().copied())
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
            let keep = parsed.rules.iter().any(|k| is_lbl004(rules::lookup(k)));
            let mut known = Vec::new();
            for key in &parsed.rules {
                match rules::lookup(key) {
                    Some(meta) => known.push((meta, false)),
                    None if keep => {}
                    None => {
                        notes.push(unknown_rule(location.clone(), key, "a suppression comment"))
                    }
                }
            }
            sites.push(CommentSite {
                file: file.source.path.clone(),
                comment,
                line: if own_line { line + 1 } else { line },
                rules: known,
                keep,
            });
        }
    }
    sites
}

fn collect_annotations(ws: &Workspace, notes: &mut Vec<Diagnostic>) -> Vec<AnnotationSite> {
    let mut sites = Vec::new();
    for (index, object) in ws.objects.iter().enumerate() {
        let Some(annotations) = ws.root(object).path(&["metadata", "annotations"]) else {
            continue;
        };
        let keep = annotations.entries().any(|(key, _)| {
            key.as_str()
                .and_then(|k| k.strip_prefix(ANNOTATION_PREFIX))
                .is_some_and(|k| is_lbl004(rules::lookup(k)))
        });
        for (key, _value) in annotations.entries() {
            let Some(rule_key) = key.as_str().and_then(|k| k.strip_prefix(ANNOTATION_PREFIX))
            else {
                continue;
            };
            let location = ws.location(object, key.span());
            match rules::lookup(rule_key) {
                Some(rule) => sites.push(AnnotationSite {
                    object: index,
                    rule,
                    location,
                    used: false,
                    keep,
                }),
                None if keep => {}
                None => {
                    let mut note = unknown_rule(location, rule_key, "a suppression annotation");
                    note.object = Some(object.id.clone());
                    notes.push(note);
                }
            }
        }
    }
    sites
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

    #[test]
    fn object_patterns() {
        let svc = ObjectRef {
            api_version: "v1".into(),
            kind: "Service".into(),
            namespace: Some("shop".into()),
            name: "web".into(),
        };
        let unset = ObjectRef {
            namespace: None,
            ..svc.clone()
        };
        let p = |t: &str| ObjectPattern::parse(t).unwrap();
        assert!(p("Service/shop/web").matches(&svc));
        assert!(p("Service/*/web").matches(&svc));
        assert!(p("*/shop/*").matches(&svc));
        assert!(!p("Service/other/web").matches(&svc));
        assert!(!p("Ingress/shop/web").matches(&svc));
        assert!(p("Service/default/web").matches(&unset));
        assert!(p("Service/web").matches(&unset));
        assert!(!p("Service/web").matches(&svc));
        assert!(ObjectPattern::parse("Service").is_err());
        assert!(ObjectPattern::parse("Service//web").is_err());
        assert!(ObjectPattern::parse("a/b/c/d").is_err());
    }
}
