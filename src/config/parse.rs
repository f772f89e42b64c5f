//! Parsing `lblint.yaml`: serde-saphyr with `deny_unknown_fields`, every value checked as it
//! is read, and every mistake turned into a located error with a "did you mean".

use std::path::Path;
use std::sync::Arc;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::{Error as YamlError, Spanned};

use super::*;
use crate::settings::recover::{item_start, parse_all, Blank};
use crate::settings::suggest::{did_you_mean, list};
use crate::settings::translate::{self, error_place, parser_message, refuse, Kind, Said};
use crate::settings::{is_empty_yaml, place_of, yaml_options};
use crate::source::{Location, Pos, SourceFile, Span};
use crate::suppress::{ConfigIgnore, ObjectPattern};

/// How config errors are named and worded where every settings file words them alike.
pub(super) const CONFIG: Kind = Kind {
    code: "lblint::config",
    name: "config file",
    one_document: (
        "a config file holds exactly one YAML document",
        "remove the `---` separator and everything after it",
    ),
    budget_help: None,
    syntax_help: "check indentation and quoting here",
    section: |expected| {
        match expected.first().copied() {
            Some("profile") => " at the top level",
            Some("rule") => " in an `ignore` entry",
            _ => "",
        }
        .to_owned()
    },
    choose: choice_help,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Raw {
    #[serde(default)]
    profile: Option<Spanned<String>>,
    #[serde(default)]
    namespace: Option<Spanned<String>>,
    #[serde(default)]
    include: Option<Vec<GlobText>>,
    #[serde(default)]
    exclude: Option<Vec<GlobText>>,
    #[serde(default)]
    fail_on: Option<FailOnText>,
    #[serde(default)]
    rules: Option<RuleLevels>,
    #[serde(default)]
    ignore: Option<Vec<Spanned<RawIgnore>>>,
    #[serde(default)]
    chart_roots: Option<Vec<String>>,
    #[serde(default)]
    render: Option<super::render::RawRender>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIgnore {
    rule: RuleKey,
    path: GlobText,
    #[serde(default)]
    object: Option<ObjectText>,
    reason: Reason,
}

struct GlobText(String);

impl<'de> Deserialize<'de> for GlobText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        globset::Glob::new(&text).map_err(|e| {
            refuse(
                format!("invalid glob `{text}`: {}", e.kind()),
                "globs use `*`, `**`, `?`, `[abc]` and `{a,b}`; they are relative to the config file's directory",
            )
        })?;
        Ok(GlobText(text))
    }
}

struct RuleKey(&'static RuleMeta);

impl<'de> Deserialize<'de> for RuleKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        catalog::lookup(&text).map(RuleKey).ok_or_else(|| {
            let keys = crate::catalog::rule_keys();
            let help: String = match did_you_mean(&text, &keys) {
                Some(s) => format!("did you mean `{s}`? (`lblint rules` lists the rules)"),
                None => "`lblint rules` lists the rule ids and names".into(),
            };
            refuse(format!("unknown rule `{text}`"), help)
        })
    }
}

struct Reason(String);

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.trim().is_empty() {
            return Err(refuse(
                "`reason` is empty",
                "say why the finding does not apply, e.g. `reason: vendor chart, only called from outside the cluster`",
            ));
        }
        Ok(Reason(text))
    }
}

struct ObjectText(ObjectPattern);

impl<'de> Deserialize<'de> for ObjectText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ObjectPattern::parse(&text)
            .map(ObjectText)
            .map_err(|message| {
                refuse(
                    message,
                    "write it as e.g. `Service/shop/web` (`*` matches any kind, namespace or name)",
                )
            })
    }
}

struct FailOnText(FailOn);

impl<'de> Deserialize<'de> for FailOnText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        // Exactly the names `--fail-on` takes (case-sensitive, as YAML keys are).
        match <FailOn as clap::ValueEnum>::from_str(&text, false) {
            Ok(level) => Ok(FailOnText(level)),
            Err(_) => Err(refuse(
                format!("unknown value `{text}` for `failOn`"),
                choice_help(&text, FAIL_ON),
            )),
        }
    }
}

struct LevelText(RuleLevel);

impl<'de> Deserialize<'de> for LevelText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = LevelText;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("one of `off`, `error`, `warning` or `note`")
            }
            // YAML 1.1 reads an unquoted `off` as the boolean false.
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LevelText, E> {
                if v {
                    Err(refuse(
                        "unknown level `true` for a rule",
                        choice_help("true", LEVELS),
                    ))
                } else {
                    Ok(LevelText(RuleLevel::Off))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LevelText, E> {
                Ok(LevelText(match v {
                    "off" => RuleLevel::Off,
                    "error" => RuleLevel::Severity(Severity::Error),
                    "warning" => RuleLevel::Severity(Severity::Warning),
                    "note" => RuleLevel::Severity(Severity::Note),
                    _ => {
                        return Err(refuse(
                            format!("unknown level `{v}` for a rule"),
                            choice_help(v, LEVELS),
                        ))
                    }
                }))
            }
        }
        deserializer.deserialize_any(V)
    }
}

struct RuleLevels(Vec<(&'static RuleMeta, RuleLevel)>);

impl<'de> Deserialize<'de> for RuleLevels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RuleLevels;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of rule ids or names to `off`, `error`, `warning` or `note`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RuleLevels, A::Error> {
                let mut out: Vec<(&'static RuleMeta, RuleLevel)> = Vec::new();
                while let Some(RuleKey(rule)) = map.next_key()? {
                    let LevelText(level) = map.next_value()?;
                    // An id and a name of the same rule: the later line wins.
                    out.retain(|(r, _)| r.id != rule.id);
                    out.push((rule, level));
                }
                Ok(RuleLevels(out))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// Parse a config file's text; `shown` is its displayed path, `dir` its directory. The
/// error carries every error found in the file (`ConfigError::each`).
pub fn parse_config(text: &str, shown: &str, dir: &Path) -> Result<Config, ConfigError> {
    let (config, errors) = parse_recovering(text, shown, dir);
    ConfigError::all(errors).map_or(Ok(config), Err)
}

/// The config as far as it could be read (an entry with an error is left out), and every
/// error in the file: like the profile, each entry in error is blanked out and the file
/// parsed again ([`crate::settings::recover`]).
pub(super) fn parse_recovering(text: &str, shown: &str, dir: &Path) -> (Config, Vec<ConfigError>) {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let source_text: Arc<str> = Arc::from(text);
    let fail = |at: Place, message: String, help: Option<String>| {
        ConfigError::new(CONFIG.code, shown, source_text.clone(), at, message, help)
    };
    let dir = crate::walk::absolute(dir, Path::new("/"));
    let mut config = Config::empty(text, shown, &dir);
    if text.len() > MAX_CONFIG_BYTES {
        let at = Place::at_offset(text, 0, 0);
        let message = format!("config file is too large ({} bytes)", text.len());
        return (config, vec![fail(at, message, None)]);
    }
    if is_empty_yaml(text) {
        return (config, Vec::new());
    }
    let error = |e: &YamlError| {
        let (at, message, help) = convert(e, text);
        fail(at, message, help)
    };
    // YAML syntax first, over the whole file: the typed pass stops at the first error of
    // its own, and a broken line after it would never be reached.
    if let Err(e) = serde_saphyr::from_str_with_options::<de::IgnoredAny>(text, yaml_options()) {
        return (config, vec![error(&e)]);
    }
    let (raw, mut errors) = parse_all::<Raw>(text, Blank::Item, error);
    let Some(raw) = raw else {
        return (config, errors);
    };
    if let Some(profile) = raw.profile {
        let at = place_of(&profile.referenced, text);
        let end = at.offset + profile.value.len().max(1);
        config.profile_at = Some(Place {
            len: text.get(at.offset..end).map_or(0, str::len),
            ..at
        });
        config.profile = Some(dir.join(profile.value));
    }
    if let Some(namespace) = raw.namespace {
        if crate::objects::is_namespace_name(&namespace.value) {
            config.namespace = Some(namespace.value);
        } else {
            let at = place_of(&namespace.referenced, text);
            errors.push(fail(
                at,
                format!("`namespace: {}` is not a namespace name", namespace.value),
                Some(crate::objects::NAMESPACE_NAME_HELP.into()),
            ));
        }
    }
    let globs = |list: Option<Vec<GlobText>>| list.into_iter().flatten().map(|g| g.0).collect();
    config.include = globs(raw.include);
    config.exclude = globs(raw.exclude);
    config.fail_on = raw.fail_on.map(|f| f.0);
    config.rules = raw.rules.map(|r| r.0).unwrap_or_default();
    config.chart_roots = raw
        .chart_roots
        .into_iter()
        .flatten()
        .map(|root| crate::walk::absolute(Path::new(&root), &dir))
        .collect();
    if let Some(render) = raw.render {
        config.render = super::render::render_config(render, &dir, text);
    }
    for entry in raw.ignore.unwrap_or_default() {
        match ignore_entry(entry, text, &config.source) {
            Ok(ignore) => config.ignore.push(ignore),
            Err((at, message)) => errors.push(fail(at, message, None)),
        }
    }
    (config, errors)
}

impl Config {
    /// Nothing configured yet: the file `shown` in `dir` (absolute), with `text`.
    fn empty(text: &str, shown: &str, dir: &Path) -> Config {
        Config {
            path: dir.join(shown.rsplit('/').next().unwrap_or(FILE_NAMES[0])),
            dir: dir.to_path_buf(),
            source: Arc::new(SourceFile::new(Arc::from(shown), text.to_string())),
            profile: None,
            profile_at: None,
            namespace: None,
            include: Vec::new(),
            exclude: Vec::new(),
            fail_on: None,
            rules: Vec::new(),
            ignore: Vec::new(),
            chart_roots: Vec::new(),
            render: RenderConfig::default(),
        }
    }
}

/// An `ignore:` entry, located from its first line to the end of that line; an error's
/// place and message when its glob does not compile.
fn ignore_entry(
    entry: Spanned<RawIgnore>,
    text: &str,
    source: &SourceFile,
) -> Result<ConfigIgnore, (Place, String)> {
    let place = place_of(&entry.referenced, text);
    let line_end = text[place.offset..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| place.offset + i);
    let end = Place::at_offset(text, line_end, 0);
    let pos = |p: Place| Pos {
        line: p.line as u32,
        column: p.column as u32,
        offset: p.offset,
    };
    let span = Span {
        start: pos(place),
        end: pos(end),
    };
    let raw = entry.value;
    let matcher = match globset::Glob::new(&raw.path.0) {
        Ok(glob) => glob.compile_matcher(),
        Err(e) => return Err((place, format!("invalid glob: {e}"))),
    };
    Ok(ConfigIgnore {
        rule: raw.rule.0,
        path: raw.path.0,
        matcher,
        object: raw.object.map(|o| o.0),
        reason: raw.reason.0,
        location: Location {
            file: source.path.clone(),
            span,
        },
    })
}

fn convert(err: &YamlError, text: &str) -> (Place, String, Option<String>) {
    let err = err.without_snippet();
    let mut at = error_place(err, text);
    if let YamlError::SerdeMissingField { .. } = err {
        // serde-saphyr puts a missing field at the mapping's last key: point at the entry.
        at = item_start(text, at.offset).map_or(at, |o| Place::at_offset(text, o, 1));
    }
    let (message, help) = translate::describe(err, &CONFIG)
        .or_own(describe)
        .or_else(|| wrong_type(err))
        .or_else(|| shape_error(text, &at))
        .or_else(|| match err {
            // A list where a mapping belongs, or the reverse, under no key of its own.
            YamlError::Unexpected { expected, .. } => Some((
                format!(
                    "expected a {} here",
                    match *expected {
                        "sequence start" => "list",
                        "mapping start" => "mapping",
                        other => other,
                    }
                ),
                Some(keys_help()),
            )),
            _ => None,
        })
        .unwrap_or_else(|| (parser_message(err), None));
    (at, message, help)
}

/// A value of the wrong shape, named by the key in front of it.
fn shape_error(text: &str, at: &Place) -> Option<Said> {
    let line_start = crate::source::line_start(text, at.offset);
    let before = text[line_start..at.offset].trim_end().strip_suffix(':')?;
    let key = before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .next()?;
    let (expected, help) = match key {
        "include" | "exclude" => (
            "a list of globs",
            format!("write `{key}: [\"charts/**\"]` or `{key}:` followed by `- ` items"),
        ),
        "chartRoots" => (
            "a list of directories",
            "write `chartRoots: [deploy/chart]` or `chartRoots:` followed by `- ` items".into(),
        ),
        "ignore" => (
            "a list of entries",
            "write `ignore:` followed by `- rule: ...` items with `path` and `reason`".into(),
        ),
        "rules" => (
            "a mapping",
            "write `rules:` followed by indented `RULE: off|error|warning|note` lines".into(),
        ),
        "render" | "helm" => (
            "a mapping",
            "write `render:` followed by indented `enabled`, `timeout`, `failure`, `kustomize` or `helm` lines".into(),
        ),
        "values" => (
            "a list of files",
            "write `values: [values-prod.yaml]`, relative to the config file's directory".into(),
        ),
        "profile" | "namespace" | "failOn" | "rule" | "path" | "object" | "reason" | "release"
        | "kustomize" | "failure" => {
            ("a string", "quote the value".into())
        }
        _ => return None,
    };
    Some((format!("`{key}` must be {expected}"), Some(help)))
}

/// Our message and help for the errors only a config file has.
fn describe(err: &YamlError) -> Option<Said> {
    match err {
        YamlError::SerdeMissingField { field, .. } => Some((
            format!("missing field `{field}` in an `ignore` entry"),
            Some(match *field {
                "reason" => "every `ignore` entry needs a `reason`: say why the finding does not apply".into(),
                "path" => "give a glob relative to the config file's directory, e.g. `path: charts/vendor/**` (`**` for every file)".into(),
                _ => "an `ignore` entry has `rule`, `path`, optional `object` and `reason`".into(),
            }),
        )),
        _ => None,
    }
}

/// Wrong shapes: say what each top-level key takes.
fn wrong_type(err: &YamlError) -> Option<Said> {
    let text = parser_message(err);
    text.contains("invalid type")
        .then(|| (text.trim_end_matches('.').to_string(), Some(keys_help())))
}

/// What each key takes, for values of the wrong shape.
fn keys_help() -> String {
    format!(
        "the config keys are {}: `profile` a path, `namespace` a namespace name, `include`/`exclude` lists of globs, `failOn` one of {}, `rules` a mapping of rule to level, `ignore` a list of entries (`rule`, `path`, `object`, `reason`), `chartRoots` a list of directories, `render` a mapping (`enabled`, `timeout`, `failure`, `kustomize`, `helm`)",
        list(TOP_KEYS),
        list(FAIL_ON)
    )
}
