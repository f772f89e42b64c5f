//! The config file, `lblint.yaml` or `.lblint.yaml`: found from the working directory
//! upwards, never above the repository root (the first directory holding `.git`) and, outside
//! a repository, only in the working directory; or named with `--config`. Parsed like the
//! profile (serde-saphyr, `deny_unknown_fields`), so every mistake is an error with the
//! file's line and column and a "did you mean", and every error is reported in one run.
//!
//! Paths and globs in the file are relative to the file's own directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::catalog;
use crate::catalog::RuleMeta;
use crate::diagnostic::{FailOn, Severity};
use crate::settings::{Place, SettingsError};
use crate::source::SourceFile;
use crate::suppress::{ConfigIgnore, ConfigIgnores};

/// Names looked for in each directory, in this order.
pub(crate) const FILE_NAMES: [&str; 2] = ["lblint.yaml", ".lblint.yaml"];

/// A config file that cannot be used: the settings kit's error, code `lblint::config`.
pub(crate) type ConfigError = SettingsError;

mod parse;
mod render;
mod resolve;
pub use parse::parse_config;
pub(crate) use resolve::{resolve, ConfigChoice, ResolveError, Resolved};

const MAX_CONFIG_BYTES: usize = crate::settings::MAX_BYTES;
const FAIL_ON: &[&str] = &["error", "warning", "note", "never"];
const LEVELS: &[&str] = &["off", "error", "warning", "note"];
const TOP_KEYS: &[&str] = &[
    "profile",
    "namespace",
    "include",
    "exclude",
    "failOn",
    "rules",
    "ignore",
    "chartRoots",
    "render",
];

/// "Did you mean" (or an abbreviation's completion) and the words `got` could be.
fn choice_help(got: &str, expected: &[&str]) -> String {
    // `warn` → `warning`: an abbreviation is a typo too.
    let prefix = || {
        expected
            .iter()
            .copied()
            .find(|e| got.len() >= 3 && e.starts_with(&got.to_ascii_lowercase()))
    };
    crate::settings::suggest::one_of_help(
        crate::settings::suggest::did_you_mean(got, expected).or_else(prefix),
        expected,
    )
}

/// What `rules: {RULE: LEVEL}` does to a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleLevel {
    /// The rule does not run; its findings are not counted anywhere.
    Off,
    /// Every finding of the rule gets this severity.
    Severity(Severity),
}

/// A loaded config file.
#[derive(Clone, Debug)]
pub struct Config {
    /// Absolute, normalized.
    pub path: PathBuf,
    /// The directory paths and globs are relative to (absolute, normalized).
    pub dir: PathBuf,
    /// The file's text, under the path shown in diagnostics (relative to the working
    /// directory, with `..` when the file is above it).
    pub source: Arc<SourceFile>,
    /// `profile`, resolved against [`Config::dir`].
    pub profile: Option<PathBuf>,
    /// Where `profile` is written in the file, for errors about it.
    pub(crate) profile_at: Option<Place>,
    /// `namespace`: where objects without `metadata.namespace` land, as `kubectl apply -n`
    /// puts them (`--namespace` wins).
    pub namespace: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub fail_on: Option<FailOn>,
    pub rules: Vec<(&'static RuleMeta, RuleLevel)>,
    pub ignore: Vec<ConfigIgnore>,
    /// `chartRoots`, resolved against [`Config::dir`]: where SARIF looks first for the
    /// template of a Helm `# Source:` origin.
    pub chart_roots: Vec<PathBuf>,
    /// `render:`: how `--render` renders, and whether it is on without the flag.
    pub render: RenderConfig,
}

/// `render:` in the config file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderConfig {
    /// `render.enabled`: render without `--render`.
    pub enabled: bool,
    pub options: crate::render::RenderOptions,
    /// Where each of `options.helm_values` is written, for errors about it.
    pub(crate) values_at: Vec<Place>,
}

impl Config {
    /// The `ignore:` entries, ready for the filter stage.
    pub(crate) fn ignores(&self, cwd: &Path) -> ConfigIgnores {
        ConfigIgnores {
            entries: self.ignore.clone(),
            base: self.dir.clone(),
            cwd: crate::walk::absolute(cwd, Path::new("/")),
        }
    }
}

/// The config file for a run started in `cwd`: `lblint.yaml` or `.lblint.yaml` in `cwd`
/// or a parent up to the repository root. Outside a repository only `cwd` is searched: a
/// file planted in a shared parent (`/tmp`, a home directory) must not configure the run.
pub(crate) fn discover(cwd: &Path) -> Option<PathBuf> {
    let dirs: Vec<&Path> = match crate::walk::repository_root(cwd) {
        Some(root) => cwd
            .ancestors()
            .take_while(|d| d.starts_with(root))
            .collect(),
        None => vec![cwd],
    };
    dirs.into_iter()
        .flat_map(|dir| FILE_NAMES.map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A config file comes with the repository, so it may be a stranger's (a pull request):
/// the files it makes lblint or the tools it runs read (the profile, Helm values files)
/// must be inside that repository (or, outside one, inside the config's own folder) once
/// symbolic links are resolved. Otherwise a config could make lblint read `/etc/passwd` or
/// `/proc/self/environ` and print it in a parse error, or feed `/dev/zero` to helm.
fn check_paths_are_inside(config: &Config, cwd: &Path) -> Vec<ConfigError> {
    let (trusted, kind) = match crate::walk::repository_root(&config.dir) {
        Some(root) => (root, "repository"),
        None => (config.dir.as_path(), "config file's folder"),
    };
    let trusted_resolved = trusted
        .canonicalize()
        .unwrap_or_else(|_| trusted.to_path_buf());
    let named = config
        .profile
        .iter()
        .map(|p| {
            (
                p,
                config.profile_at,
                "the profile",
                "name it on the command line with --profile",
            )
        })
        .chain(
            config
                .render
                .options
                .helm_values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    (
                        v,
                        config.render.values_at.get(i).copied(),
                        "the values file",
                        "name values files inside the repository",
                    )
                }),
        );
    let mut errors = Vec::new();
    for (path, at, what, elsewhere) in named {
        // A file that does not exist leaks nothing; whatever reads it reports it.
        let Ok(resolved) = path.canonicalize() else {
            continue;
        };
        if resolved.starts_with(&trusted_resolved) {
            continue;
        }
        errors.push(ConfigError::new(
            parse::CONFIG.code,
            &config.source.path,
            Arc::from(config.source.text.as_str()),
            at.unwrap_or(Place::NOWHERE),
            format!(
                "{what} `{}` resolves to `{}`, outside the {kind} `{}`; a config file may only name files inside it",
                crate::walk::display_relative(path, cwd),
                resolved.display(),
                match crate::walk::display_relative(trusted, cwd) {
                    here if here.is_empty() => ".".to_string(),
                    there => there,
                },
            ),
            Some(format!("keep it in the repository, or {elsewhere}")),
        ));
    }
    errors
}

/// Read and parse a config file; `cwd` is the working directory of the run.
pub(crate) fn load_config(path: &Path, cwd: &Path) -> Result<Config, ConfigError> {
    let abs = crate::walk::absolute(path, cwd);
    let shown = crate::walk::display_relative(&abs, cwd);
    let unreadable = |message: String| {
        let code = parse::CONFIG.code;
        ConfigError::new(code, &shown, Arc::from(""), Place::NOWHERE, message, None)
    };
    // Only a regular file of at most 1 MiB is read: a FIFO or /dev/zero fails at once.
    let bytes = crate::read::read_regular(&abs, MAX_CONFIG_BYTES as u64)
        .map_err(|e| unreadable(format!("cannot read config: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| unreadable(format!("config file is not valid UTF-8: {e}")))?;
    let dir = abs
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    // Every error in one run: the profile's place is checked even when another entry is
    // in error.
    let (mut config, mut errors) = parse::parse_recovering(&text, &shown, &dir);
    config.path = abs;
    errors.extend(check_paths_are_inside(&config, cwd));
    ConfigError::all(errors).map_or(Ok(config), Err)
}

/// The config file's JSON Schema (draft-07), for yaml-language-server and editors.
pub(crate) fn json_schema() -> Value {
    let keys: Vec<&str> = crate::catalog::rule_keys();
    let globs = |description: &str| json!({"type": "array", "items": {"type": "string"}, "description": description});
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://lblint.dev/schemas/config-v1.json",
        "title": "lblint config (lblint.yaml, .lblint.yaml)",
        "description": "Project settings for lblint. Paths and globs are relative to this file's directory; command-line flags win.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "profile": {"type": "string", "description": "Cluster profile file (--profile wins)."},
            "namespace": {
                "type": "string",
                "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
                "maxLength": 63,
                "description": "The namespace objects without metadata.namespace are applied to (kubectl apply -n; --namespace wins)."
            },
            "include": globs("Lint only files matching these globs (--include replaces this list)."),
            "exclude": globs("Skip files and directories matching these globs (--exclude adds to this list)."),
            "failOn": {
                "enum": FAIL_ON,
                "description": "Exit 1 when a diagnostic at or above this severity remains (--fail-on wins; default warning)."
            },
            "rules": {
                "type": "object",
                "description": "Per-rule level: off disables the rule, a severity overrides its severity.",
                "propertyNames": {"enum": keys},
                // `false`: YAML 1.1 readers see an unquoted `off` as a boolean.
                "additionalProperties": {"enum": ["off", "error", "warning", "note", false]}
            },
            "chartRoots": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Helm chart directories, or directories holding charts, where SARIF looks first for the template of a `# Source: <chart>/templates/...` origin (--chart-root adds to this list, tried first)."
            },
            "render": render_schema(),
            "ignore": {
                "type": "array",
                "description": "Suppressions for files you do not own (vendored charts).",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["rule", "path", "reason"],
                    "properties": {
                        "rule": {"enum": keys, "description": "Rule id or name."},
                        "path": {"type": "string", "description": "Glob, relative to the config file's directory."},
                        "object": {
                            "type": "string",
                            "pattern": "^[^/]+/([^/]+/)?[^/]+$",
                            "description": "Kind/namespace/name or Kind/name; `*` matches any one part."
                        },
                        "reason": {"type": "string", "minLength": 1, "description": "Why the finding does not apply."}
                    }
                }
            }
        }
    })
}

/// The schema of `render:`.
fn render_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "description": "Render kustomization roots and Helm charts with your own tools before linting (--render); findings point at the base files and templates.",
        "properties": {
            "enabled": {"type": "boolean", "description": "Render without --render (default false)."},
            "timeout": {"type": "integer", "minimum": 1, "description": "Seconds one render may run before it is stopped (default 60)."},
            "failure": {"enum": ["error", "warning"], "description": "Severity of a render that failed, LBL008 (default error)."},
            "kustomize": {"enum": ["kubectl", "kustomize"], "description": "Render kustomizations with `kubectl kustomize` or `kustomize build` (default: kubectl when on PATH, else kustomize)."},
            "helm": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "release": {"type": "string", "minLength": 1, "description": "Release name for helm template (default release-name)."},
                    "values": {"type": "array", "items": {"type": "string"}, "description": "Values files passed to every chart with -f, in order; relative to this file's directory."}
                }
            }
        }
    })
}

#[cfg(test)]
mod tests;
