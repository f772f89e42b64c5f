//! `render:` in the config file: how `--render` renders (see `crate::render`).

use std::path::Path;

use serde::{Deserialize, Deserializer};

use super::{choice_help, RenderConfig};
use crate::diagnostic::Severity;
use crate::settings::translate::refuse;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRender {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    timeout: Option<Seconds>,
    #[serde(default)]
    failure: Option<Choice<FailureLevel>>,
    #[serde(default)]
    kustomize: Option<Choice<KustomizeChoice>>,
    #[serde(default)]
    helm: Option<RawHelm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHelm {
    #[serde(default)]
    release: Option<Release>,
    #[serde(default)]
    values: Option<Vec<serde_saphyr::Spanned<String>>>,
}

/// A string that must be one of a few words.
trait Words: Sized {
    const KEY: &'static str;
    const WORDS: &'static [&'static str];
    fn of(word: &str) -> Option<Self>;
}

struct Choice<T>(T);

impl<'de, T: Words> Deserialize<'de> for Choice<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        T::of(&text).map(Choice).ok_or_else(|| {
            refuse(
                format!("unknown value `{text}` for `{}`", T::KEY),
                choice_help(&text, T::WORDS),
            )
        })
    }
}

struct FailureLevel(Severity);

impl Words for FailureLevel {
    const KEY: &'static str = "render.failure";
    const WORDS: &'static [&'static str] = &["error", "warning"];
    fn of(word: &str) -> Option<Self> {
        match word {
            "error" => Some(FailureLevel(Severity::Error)),
            "warning" => Some(FailureLevel(Severity::Warning)),
            _ => None,
        }
    }
}

struct KustomizeChoice(crate::render::KustomizeTool);

impl Words for KustomizeChoice {
    const KEY: &'static str = "render.kustomize";
    const WORDS: &'static [&'static str] = &["kubectl", "kustomize"];
    fn of(word: &str) -> Option<Self> {
        use crate::render::KustomizeTool;
        match word {
            "kubectl" => Some(KustomizeChoice(KustomizeTool::Kubectl)),
            "kustomize" => Some(KustomizeChoice(KustomizeTool::Kustomize)),
            _ => None,
        }
    }
}

/// `render.timeout`: whole seconds, at least one.
struct Seconds(u64);

/// The longest `render.timeout`, in seconds.
const MAX_TIMEOUT: u64 = 3600;

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let seconds = u64::deserialize(deserializer)?;
        match seconds {
            0 => Err(refuse(
                "`render.timeout` is 0",
                "give the seconds one render may run, e.g. `timeout: 60`",
            )),
            // A deadline past what the clock can hold panicked; an hour is already far
            // more than any render needs.
            n if n > MAX_TIMEOUT => Err(refuse(
                format!("`render.timeout` is {n} seconds, over the limit of {MAX_TIMEOUT}"),
                "give the seconds one render may run, at most an hour, e.g. `timeout: 60`",
            )),
            n => Ok(Seconds(n)),
        }
    }
}

struct Release(String);

impl<'de> Deserialize<'de> for Release {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.trim().is_empty() || text.starts_with('-') {
            return Err(refuse(
                format!("`render.helm.release` `{text}` is not a release name"),
                "give the name `helm template` renders with, e.g. `release: shop`",
            ));
        }
        Ok(Release(text))
    }
}

/// `render:` as the run uses it: values files resolved against the config's folder.
pub(super) fn render_config(raw: RawRender, dir: &Path, text: &str) -> RenderConfig {
    let mut options = crate::render::RenderOptions::default();
    let mut values_at = Vec::new();
    if let Some(Seconds(s)) = raw.timeout {
        options.timeout = std::time::Duration::from_secs(s);
    }
    if let Some(Choice(FailureLevel(level))) = raw.failure {
        options.failure = level;
    }
    if let Some(Choice(KustomizeChoice(tool))) = raw.kustomize {
        options.kustomize = tool;
    }
    if let Some(helm) = raw.helm {
        if let Some(Release(name)) = helm.release {
            options.helm_release = name;
        }
        for value in helm.values.into_iter().flatten() {
            options
                .helm_values
                .push(crate::walk::absolute(Path::new(&value.value), dir));
            values_at.push(crate::settings::place_of(&value.referenced, text));
        }
    }
    RenderConfig {
        enabled: raw.enabled.unwrap_or(false),
        options,
        values_at,
    }
}
