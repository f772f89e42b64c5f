//! Layer 3: config-file `ignore:` entries (rule, path glob, optional object, reason).

use std::path::PathBuf;

use globset::GlobMatcher;

use super::{is_lbl004, unused};
use crate::catalog::RuleMeta;
use crate::diagnostic::Diagnostic;
use crate::objects::Workspace;
use crate::source::{Location, ObjectRef};

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

impl ConfigIgnore {
    /// Whether the entry covers a finding in the file at `relative` (to the config
    /// file's directory; `None`: not below it) about `object`.
    fn covers(&self, relative: Option<&str>, object: Option<&ObjectRef>) -> bool {
        relative.is_some_and(|p| self.matcher.is_match(p))
            && match (&self.object, object) {
                (None, _) => true,
                (Some(pattern), Some(id)) => pattern.matches(id),
                (Some(_), None) => false,
            }
    }
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

    /// Config entries for LBL004 itself hide the notes of the files (and objects) they
    /// match; returns how many it hid.
    pub(super) fn hide_notes(&self, notes: &mut Vec<Diagnostic>) -> usize {
        let mut hidden = 0;
        notes.retain(|n| {
            let relative = self.relative(&n.location().file);
            let hide = self
                .entries
                .iter()
                .any(|e| is_lbl004(Some(e.rule)) && e.covers(relative.as_deref(), n.object()));
            hidden += usize::from(hide);
            !hide
        });
        hidden
    }
}

/// The config-file entries of a run, with "used" flags.
pub(super) struct ConfigLayer<'c> {
    config: &'c ConfigIgnores,
    /// `used[i]`: `config.entries[i]` suppressed something.
    used: Vec<bool>,
}

impl<'c> ConfigLayer<'c> {
    pub(super) fn new(config: &'c ConfigIgnores) -> Self {
        ConfigLayer {
            config,
            used: vec![false; config.entries.len()],
        }
    }

    /// Whether an entry suppresses `d`; every entry that does is marked used.
    pub(super) fn suppress(&mut self, d: &Diagnostic) -> bool {
        let relative = self.config.relative(&d.location().file);
        let mut hit = false;
        for (entry, used) in self.config.entries.iter().zip(&mut self.used) {
            if entry.rule.id == d.rule() && entry.covers(relative.as_deref(), d.object()) {
                *used = true;
                hit = true;
            }
        }
        hit
    }

    /// LBL004 notes for entries that suppressed nothing. Only entries whose glob matched
    /// a file of this run (that parsed) can be known to be unused: pre-commit lints a few
    /// changed files at a time.
    pub(super) fn unused(
        &self,
        ws: &Workspace,
        enabled: &dyn Fn(&'static RuleMeta) -> bool,
        notes: &mut Vec<Diagnostic>,
    ) {
        let relatives: Vec<String> = ws
            .files
            .iter()
            .filter(|f| f.loaded.errors.is_empty())
            .filter_map(|f| self.config.relative(&f.source.path))
            .collect();
        for (entry, used) in self.config.entries.iter().zip(&self.used) {
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
}

fn object_text(o: &ObjectPattern) -> String {
    match &o.namespace {
        Some(ns) => format!("{}/{ns}/{}", o.kind, o.name),
        None => format!("{}/{}", o.kind, o.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
