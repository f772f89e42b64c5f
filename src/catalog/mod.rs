//! The rule catalog: every rule's metadata, generated from `rules/<ID>.md` (`build.rs`), the
//! loader's own findings, and lookup by id or name. Every stage that names a rule (load,
//! render, suppressions, config, selection, reports, the server) reads it here; only the
//! driver enters the rule engine (`crate::rules`).

pub mod docs;
pub mod lbl;
pub(crate) mod meta;

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::source::Location;

/// Static description of a rule; `doc` is `rules/<ID>.md`, embedded.
#[derive(Debug)]
pub struct RuleMeta {
    pub id: &'static str,
    pub name: &'static str,
    pub default_severity: Severity,
    /// The clouds the rule is about (`providers:` in its document).
    pub providers: Providers,
    /// One-line summary.
    pub summary: &'static str,
    /// Whether findings come with a fix (`--fix`, or shown as a suggestion).
    pub fix: FixAvailability,
    pub doc: &'static str,
}

/// The clouds a rule is about: every cluster (`providers: [any]`), or the named ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Providers {
    Any,
    Only(&'static [Provider]),
}

impl Providers {
    /// The named clouds; none for `any`.
    pub fn clouds(self) -> &'static [Provider] {
        match self {
            Providers::Any => &[],
            Providers::Only(clouds) => clouds,
        }
    }

    /// As the document writes them: `any`, or the profile names.
    pub(crate) fn names(self) -> Vec<&'static str> {
        match self {
            Providers::Any => vec!["any"],
            Providers::Only(clouds) => clouds.iter().map(|p| p.as_str()).collect(),
        }
    }
}

/// Whether a rule's findings come with a fix, as ruff states it per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixAvailability {
    None,
    /// When the manifest's layout allows the edit (a block mapping, a plain scalar …).
    Sometimes,
    Always,
}

impl FixAvailability {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FixAvailability::None => "none",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "always",
        }
    }
}

impl RuleMeta {
    pub(crate) fn diagnostic(
        &'static self,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.id, self.name, severity, location, message)
    }

    /// Whether the rule runs on a cluster of `provider`: a provider's rules run on its
    /// clusters only (`generic` is none of the named clouds); `providers: [any]` runs
    /// everywhere. With no profile at all every rule runs (`rules::for_profile`).
    pub(crate) fn runs_on(&self, provider: Provider) -> bool {
        match self.providers {
            Providers::Any => true,
            Providers::Only(clouds) => clouds.contains(&provider),
        }
    }

    /// Whether the rule is one cloud's (not `providers: [any]`): with no profile its
    /// findings rest on the object's annotations alone (the rule loop caps their errors).
    pub(crate) fn is_cloud_rule(&self) -> bool {
        matches!(self.providers, Providers::Only(_))
    }

    /// Where the rule's documentation is published, as of this version (its release tag),
    /// so a link in an old report keeps showing the rule that made it.
    pub fn url(&self) -> String {
        format!(
            "https://github.com/lblint/lblint/blob/v{}/rules/{}.md",
            env!("CARGO_PKG_VERSION"),
            self.id
        )
    }
}

/// The ids of the documented rules that name `provider` (`profile init` lists them).
pub(crate) fn ids_for_provider(provider: Provider) -> Vec<&'static str> {
    meta::DOCUMENTED
        .iter()
        .filter(|m| m.providers.clouds().contains(&provider))
        .map(|m| m.id)
        .collect()
}

/// Every rule's metadata, the loader's own (yaml-syntax and friends) included, by id:
/// one record per document in `rules/`.
pub fn all_meta() -> &'static [&'static RuleMeta] {
    &meta::DOCUMENTED
}

/// README's rules table: one row per rule, from the metadata (`lblint rules --format
/// markdown` prints it; a test keeps README's copy current).
pub fn markdown_table() -> String {
    let mut out =
        String::from("| rule | name | default | fix | what it finds |\n|---|---|---|---|---|\n");
    for m in all_meta() {
        let fix = match m.fix {
            FixAvailability::None => "",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "yes",
        };
        out.push_str(&format!(
            "| [{id}](rules/{id}.md) | `{name}` | {severity} | {fix} | {summary} |\n",
            id = m.id,
            name = m.name,
            severity = m.default_severity.as_str(),
            summary = m.summary,
        ));
    }
    out
}

/// Find a rule by id (case-insensitive) or name.
pub fn lookup(key: &str) -> Option<&'static RuleMeta> {
    all_meta()
        .iter()
        .copied()
        .find(|m| m.id.eq_ignore_ascii_case(key) || m.name == key)
}

/// Every id and name a rule can be selected by.
pub(crate) fn rule_keys() -> Vec<&'static str> {
    all_meta().iter().flat_map(|m| [m.id, m.name]).collect()
}

/// A rule key (`--select`, `--ignore`) that names no rule, with the closest one.
#[derive(Debug)]
pub(crate) struct UnknownRule {
    pub key: String,
    pub suggestion: Option<String>,
}

impl std::fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown rule `{}` (see `lblint rules`)", self.key)?;
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean `{s}`?")?;
        }
        Ok(())
    }
}

/// The rules named by comma-separated ids or names.
pub(crate) fn resolve(keys: &[String]) -> Result<Vec<&'static RuleMeta>, UnknownRule> {
    keys.iter()
        .flat_map(|k| k.split(','))
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|key| {
            lookup(key).ok_or_else(|| UnknownRule {
                key: key.to_string(),
                suggestion: crate::settings::suggest::did_you_mean(key, &rule_keys())
                    .map(str::to_string),
            })
        })
        .collect()
}
