//! Profile text → [`Profile`], with every failure located in the profile file.
//!
//! Two passes over the text, both with serde-saphyr under a tight [`serde_saphyr::Budget`]:
//! 1. a lenient header pass (`apiVersion`, `kind`, everything else skipped) so a file that is
//!    not a profile at all (a Kubernetes manifest, say) gets one clear error instead of a
//!    dozen unknown-field ones, and so YAML syntax errors anywhere in the file are reported
//!    as syntax errors (the typed pass can stop at a type error before the parser reaches
//!    the broken line);
//! 2. the strict typed pass (`deny_unknown_fields`), whose serde errors carry the
//!    location, the offending name and serde's list of expected names.

use std::sync::Arc;

use serde::Deserialize;
use serde_saphyr::{Error as YamlError, MessageFormatter};

use super::header::{check_header, Header};
use super::recover::Blank;

use super::error::{Place, ProfileError};
use super::model::{CceFlavour, Profile, Provider, Spec, OBJECT_KEY_ERROR_TAG};
use super::suggest::{did_you_mean, list, suggest_provider};
use super::syntax::{
    first_content_offset, is_empty_yaml, place_of, yaml_options, MAX_PROFILE_BYTES, STARTER_HELP,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Document {
    // Already checked by the header pass; kept so `deny_unknown_fields` accepts them.
    #[allow(dead_code)]
    api_version: String,
    #[allow(dead_code)]
    kind: String,
    #[serde(default)]
    metadata: Option<Metadata>,
    spec: Spec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    #[serde(default)]
    name: Option<String>,
}

/// Parse a profile; `path` is only used in errors and [`Profile::path`].
pub fn parse_profile(text: &str, path: &str) -> Result<Profile, ProfileError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let source: Arc<str> = Arc::from(text);
    let fail = |at: Place, message: String, help: Option<String>| {
        ProfileError::new(path, source.clone(), at, message, help)
    };

    if text.len() > MAX_PROFILE_BYTES {
        return Err(fail(
            Place::at_offset(text, 0, 0),
            format!(
                "profile is too large ({} bytes; at most {MAX_PROFILE_BYTES})",
                text.len()
            ),
            None,
        ));
    }
    if is_empty_yaml(text) {
        return Err(fail(
            Place::at_offset(text, 0, 0),
            "profile is empty".into(),
            Some(STARTER_HELP.into()),
        ));
    }

    let header: Header = serde_saphyr::from_str_with_options(text, yaml_options())
        .map_err(|e| convert(&e, text, path, &source, Pass::Header))?;
    check_header(&header, text, &fail)?;

    let spec_at = header.spec.as_ref().map(|s| place_of(&s.referenced, text));
    // Every error in one run: blank out each offending entry and parse again.
    // Items keep their place: unusable values are found again by index, below.
    let (doc, mut errors) = super::recover::parse_all::<Document>(text, Blank::Entry, |e| {
        let mut err = convert(e, text, path, &source, Pass::Typed);
        if let (
            YamlError::SerdeMissingField {
                field: "provider", ..
            },
            Some(at),
        ) = (e.without_snippet(), spec_at)
        {
            err = ProfileError::new(path, source.clone(), at, err.message, err.help);
        }
        err
    });
    let profile = doc.map(|doc| Profile {
        name: doc.metadata.and_then(|m| m.name),
        spec: doc.spec,
        path: Some(path.to_owned()),
        text: Some(Arc::from(text)),
        tree: Default::default(),
    });
    if let Some(profile) = &profile {
        errors.extend(super::recover::unusable_values(profile, path, &source));
    }
    match (ProfileError::all(errors), profile) {
        (Some(err), _) => Err(err),
        (None, Some(profile)) => Ok(profile),
        // Unreachable: no profile means an error was recorded.
        (None, None) => Err(ProfileError::new(
            path,
            source,
            Place::NOWHERE,
            "invalid profile",
            None,
        )),
    }
}

/// Read and parse a profile file; an unreadable file is an (unlocated) error too.
pub fn load_profile(path: &std::path::Path) -> Result<Profile, ProfileError> {
    // Shown relative to the working directory, as every other file is.
    let shown = match std::env::current_dir() {
        Ok(cwd) if path.is_absolute() => crate::walk::display_relative(path, &cwd),
        _ => path.display().to_string(),
    };
    let unreadable =
        |message: String| ProfileError::new(&shown, Arc::from(""), Place::NOWHERE, message, None);
    // Only a regular file of at most 1 MiB is read: a FIFO or /dev/zero fails at once.
    let bytes = crate::read::read_regular(path, MAX_PROFILE_BYTES as u64)
        .map_err(|e| unreadable(format!("cannot read profile: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| unreadable(format!("profile is not valid UTF-8: {e}")))?;
    parse_profile(&text, &shown)
}

/// The profile used when none is given: generic provider, every fact unknown.
pub fn generic() -> Profile {
    Profile {
        name: None,
        spec: Spec::unknown(super::model::Provider::Generic),
        path: None,
        text: None,
        tree: Default::default(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Header,
    Typed,
}

/// Shape a schema key's value must have, for type errors.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Bool,
    List,
    Mapping,
    Text,
    Choice(&'static [&'static str]),
}

const PROVIDERS: &[&str] = &Provider::NAMES;
const CCE_FLAVOURS: &[&str] = &CceFlavour::NAMES;
const PROXY_MODES: &[&str] = &["iptables", "ipvs", "nftables", "ebpf"];
const NODE_TYPES: &[&str] = &["regular", "native", "super"];
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// Shape by key name: keys are unique across the schema, so the key alone says which field it is.
fn shape_of(key: &str) -> Option<Shape> {
    Some(match key {
        "lbAddressBinding"
        | "eniDirect"
        | "clbL4Snat"
        | "clbL7Snat"
        | "clbKeepAlive"
        | "enableIngressHostname"
        | "hostnameOnlyIngress"
        | "disablePrivateIngress"
        | "usesProxyProtocol"
        | "serviceMutatorWebhook" => Shape::Bool,
        "nodePools" | "taints" | "loadBalancers" | "addresses" | "ingressControllers" => {
            Shape::List
        }
        "metadata"
        | "spec"
        | "kubeProxy"
        | "network"
        | "addons"
        | "cloudControllerManagerOptions"
        | "awsLoadBalancerControllerOptions"
        | "allowlists"
        | "labels" => Shape::Mapping,
        "apiVersion"
        | "kind"
        | "name"
        | "kubernetesVersion"
        | "version"
        | "cni"
        | "podInterface"
        | "serviceForwarding"
        | "ingressController"
        | "cloudControllerManager"
        | "awsLoadBalancerController"
        | "cilium"
        | "key"
        | "value"
        | "object"
        | "class"
        | "service" => Shape::Text,
        "provider" => Shape::Choice(PROVIDERS),
        "mode" => Shape::Choice(PROXY_MODES),
        "type" => Shape::Choice(NODE_TYPES),
        "cceFlavour" => Shape::Choice(CCE_FLAVOURS),
        "effect" => Shape::Choice(TAINT_EFFECTS),
        _ => return None,
    })
}

/// Where a struct's fields live, recognised by serde's list of expected field names.
fn section_of(expected: &[&str]) -> Option<&'static str> {
    Some(match expected.first().copied()? {
        "apiVersion" => "the top level",
        "name" if expected.contains(&"type") => "`spec.nodePools[]`",
        "name" => "`metadata`",
        "provider" => "`spec`",
        "mode" => "`spec.kubeProxy`",
        "cni" => "`spec.network`",
        "key" => "`taints[]`",
        "ingressController" => "`spec.addons`",
        "enableIngressHostname" => "`spec.addons.cloudControllerManagerOptions`",
        "serviceMutatorWebhook" => "`spec.addons.awsLoadBalancerControllerOptions`",
        "clbL4Snat" => "`spec.allowlists`",
        "object" => "`spec.loadBalancers[]`",
        "class" => "`spec.ingressControllers[]`",
        _ => return None,
    })
}

/// Which field an enum's variants belong to, by serde's list of expected variants.
fn enum_field_of(expected: &[&str]) -> Option<&'static str> {
    Some(match expected.first().copied()? {
        "tke" => "`spec.provider`",
        "iptables" => "`spec.kubeProxy.mode`",
        "regular" => "`nodePools[].type`",
        "NoSchedule" => "`taints[].effect`",
        "private" => "`spec.loadBalancers[].network`",
        "standard" => "`spec.cceFlavour`",
        _ => return None,
    })
}

/// The mapping key whose value starts at `offset`, read back from the source line
/// (works for block `key: value` and flow `{a: 1, key: value}` alike).
fn key_before(text: &str, offset: usize) -> Option<&str> {
    let line_start = crate::source::line_start(text, offset);
    let before = text[line_start..offset].trim_end();
    let before = before.strip_suffix(':')?.trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map_or(0, |i| i + 1);
    let key = &before[start..];
    (!key.is_empty()).then_some(key)
}

/// How the value at `offset` looks, for "found ..." in type errors.
fn describe_value(text: &str, place: &Place) -> String {
    let rest = &text[place.offset..];
    match rest.chars().next() {
        Some('{') => "a mapping".into(),
        Some('[') => "a list".into(),
        Some('-') if rest[1..].starts_with([' ', '\n', '\r', '\t']) => "a list".into(),
        Some('\n') | Some('\r') | None => "nothing".into(),
        _ => {
            let raw = &text[place.offset..place.offset + place.len];
            let raw = if raw.is_empty() {
                rest.lines().next().unwrap_or("").trim()
            } else {
                raw
            };
            if raw.chars().count() > 40 {
                "a scalar".into()
            } else {
                format!("`{raw}`")
            }
        }
    }
}

fn convert(err: &YamlError, text: &str, path: &str, source: &Arc<str>, pass: Pass) -> ProfileError {
    let err = err.without_snippet();
    let at = match err {
        // serde-saphyr puts a missing field at the mapping's last key; a missing top-level
        // field belongs to the document as a whole.
        YamlError::SerdeMissingField { field: "spec", .. } => {
            Place::at_offset(text, first_content_offset(text), 0)
        }
        _ => err
            .location()
            .map_or(Place::at_offset(text, 0, 0), |l| place_of(&l, text)),
    };
    let fallback = serde_saphyr::UserMessageFormatter
        .format_message(err)
        .into_owned();
    let (message, help) = if fallback.contains("recursion limit") {
        // The parser's own depth guard (not a Budget breach): say what it means for a profile.
        (
            "profile is nested too deeply".to_owned(),
            Some("profiles are small hand-written files; check for runaway `[` or `{`".to_owned()),
        )
    } else {
        describe(err, text, &at, pass).unwrap_or((fallback, None))
    };
    ProfileError::new(path, source.clone(), at, message, help)
}

fn choose_help(got: &str, expected: &[&str], what: &str) -> Option<String> {
    if expected.is_empty() {
        return Some(format!("no {what} are allowed here"));
    }
    Some(one_of_help(did_you_mean(got, expected), expected))
}

fn one_of_help(suggestion: Option<&str>, expected: &[&str]) -> String {
    let one_of = format!("expected one of {}", list(expected));
    match suggestion {
        Some(s) => format!("did you mean `{s}`? {one_of}"),
        None => one_of,
    }
}

/// Our message and help for the error, or `None` to use serde-saphyr's own message.
fn describe(
    err: &YamlError,
    text: &str,
    at: &Place,
    pass: Pass,
) -> Option<(String, Option<String>)> {
    match err {
        // An error met while replaying an alias: describe the original error.
        YamlError::AliasError { error, .. } => describe(error, text, at, pass),
        YamlError::SerdeUnknownField {
            field, expected, ..
        } => {
            let place = match section_of(expected) {
                Some("the top level") => " at the top level".to_owned(),
                Some(s) => format!(" in {s}"),
                None => String::new(),
            };
            Some((
                format!("unknown field `{field}`{place}"),
                choose_help(field, expected, "fields"),
            ))
        }
        YamlError::SerdeUnknownVariant {
            variant, expected, ..
        } => {
            let help = if expected[..] == *PROVIDERS {
                // Vendor names (`aws`, `digitalocean`) as well as typos.
                Some(one_of_help(suggest_provider(variant), expected))
            } else {
                choose_help(variant, expected, "values")
            };
            let field = enum_field_of(expected).map_or(String::new(), |s| format!(" for {s}"));
            Some((format!("unknown value `{variant}`{field}"), help))
        }
        YamlError::SerdeMissingField { field, .. } => Some((
            match *field {
                "provider" => "missing field `provider` in `spec`".to_owned(),
                _ => format!("missing field `{field}`"),
            },
            match *field {
                "provider" => Some(format!(
                    "`spec.provider` is required: one of {}",
                    list(PROVIDERS)
                )),
                "spec" => Some(STARTER_HELP.into()),
                _ => None,
            },
        )),
        YamlError::DuplicateMappingKey { key, .. } => Some((
            match key {
                Some(k) => format!("duplicate key `{k}`"),
                None => "duplicate key".into(),
            },
            Some("each key may appear only once in a mapping".into()),
        )),
        YamlError::MultipleDocuments { .. } => Some((
            "a profile file holds exactly one YAML document".into(),
            Some("remove the `---` separator and everything after it, or split the file".into()),
        )),
        YamlError::Budget { breach, .. } => Some((
            format!("profile exceeds the parser's safety limits ({breach:?})"),
            Some("profiles are small hand-written files; check for alias bombs or runaway nesting".into()),
        )),
        YamlError::Message { msg, .. } => {
            let payload = msg.strip_prefix(OBJECT_KEY_ERROR_TAG)?;
            let v: serde_json::Value = serde_json::from_str(payload).ok()?;
            Some((
                v["message"].as_str()?.to_owned(),
                v["help"].as_str().map(str::to_owned),
            ))
        }
        YamlError::ExternalMessage { msg, .. } => {
            Some((
                format!("YAML syntax error: {msg}"),
                Some("check indentation and quoting here, and that every `[` and `{` before it is closed".into()),
            ))
        }
        YamlError::Eof { .. } => Some(("unexpected end of file".into(), Some(STARTER_HELP.into()))),
        YamlError::AliasReplayCounterOverflow { .. }
        | YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayStackDepthExceeded { .. } => Some((
            "profile expands too many YAML aliases".into(),
            Some("profiles are small hand-written files; write the values out instead of `*alias`".into()),
        )),
        // The header pass only fails on shape when the document root is not a mapping.
        _ if pass == Pass::Header && at.offset == first_content_offset(text) => Some((
            format!("a profile must be a YAML mapping, found {}", describe_value(text, at)),
            Some(STARTER_HELP.into()),
        )),
        _ if pass == Pass::Header => None,
        // Everything else on the typed pass is a value of the wrong shape.
        _ => type_error(text, at),
    }
}

fn type_error(text: &str, at: &Place) -> Option<(String, Option<String>)> {
    let key = key_before(text, at.offset)?;
    let found = describe_value(text, at);
    let (expected, help) = match shape_of(key)? {
        Shape::Bool => (
            "`true` or `false`".to_owned(),
            format!("`{key}` is a yes/no fact; leave it out (or commented out) when unknown"),
        ),
        Shape::List => (
            "a list".to_owned(),
            format!("write `{key}:` followed by `- ` items, or `{key}: []`"),
        ),
        Shape::Mapping => (
            "a mapping".to_owned(),
            format!("write `{key}:` followed by indented `name: value` lines"),
        ),
        Shape::Text => (
            "a string".to_owned(),
            "quote the value, e.g. `\"1.30.2\"`".to_owned(),
        ),
        Shape::Choice(values) => (
            format!("one of {}", list(values)),
            format!("`{key}` takes a single value"),
        ),
    };
    Some((
        format!("`{key}` must be {expected}, found {found}"),
        Some(help),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_before_reads_block_and_flow_keys() {
        let t = "a:\n  mode: ipvss\n  t: [{key: a, effect: X}]\n";
        assert_eq!(key_before(t, t.find("ipvss").unwrap()), Some("mode"));
        assert_eq!(key_before(t, t.find("X").unwrap()), Some("effect"));
        assert_eq!(key_before(t, t.find("[").unwrap()), Some("t"));
        assert_eq!(key_before(t, 0), None);
    }

    #[test]
    fn empty_yaml() {
        assert!(is_empty_yaml(""));
        assert!(is_empty_yaml("# c\n\n---\n"));
        assert!(!is_empty_yaml("a: 1"));
    }
}
