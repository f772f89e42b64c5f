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

use serde_saphyr::Error as YamlError;

use super::document::{tables, Document};
use super::header::{check_header, Header, STARTER_HELP};
use super::model::{Profile, Spec};
use super::provider::Provider;
use super::suggest::suggest_provider;
use super::MAX_PROFILE_BYTES;
use crate::settings::recover::{parse_all, Blank};
use crate::settings::schema::Shape;
use crate::settings::suggest::{did_you_mean, list, one_of_help};
use crate::settings::translate::{self, error_place, parser_message, Kind, Said};
use crate::settings::{first_content_offset, is_empty_yaml, place_of, yaml_options};
use crate::settings::{Place, SettingsError};

/// How profile errors are named and worded where every settings file words them alike.
pub(super) const PROFILE: Kind = Kind {
    code: "lblint::profile",
    name: "profile",
    one_document: (
        "a profile file holds exactly one YAML document",
        "remove the `---` separator and everything after it, or split the file",
    ),
    budget_help: Some(
        "profiles are small hand-written files; check for alias bombs or runaway nesting",
    ),
    syntax_help:
        "check indentation and quoting here, and that every `[` and `{` before it is closed",
    section: |expected| match tables().section(expected) {
        Some("the top level") => " at the top level".to_owned(),
        Some(s) => format!(" in {s}"),
        None => String::new(),
    },
    choose: |got, expected| choose_help(got, expected, "fields"),
};

/// Parse a profile; `path` is only used in errors and [`Profile::path`].
pub fn parse_profile(text: &str, path: &str) -> Result<Profile, SettingsError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let source: Arc<str> = Arc::from(text);
    let fail = |at: Place, message: String, help: Option<String>| {
        SettingsError::new(PROFILE.code, path, source.clone(), at, message, help)
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
    let (doc, mut errors) = parse_all::<Document>(text, Blank::Entry, |e| {
        let mut err = convert(e, text, path, &source, Pass::Typed);
        if let (
            YamlError::SerdeMissingField {
                field: "provider", ..
            },
            Some(at),
        ) = (e.without_snippet(), spec_at)
        {
            err = fail(at, err.message, err.help);
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
        errors.extend(super::values::unusable_values(profile, &fail));
    }
    match (SettingsError::all(errors), profile) {
        (Some(err), _) => Err(err),
        (None, Some(profile)) => Ok(profile),
        // Unreachable: no profile means an error was recorded.
        (None, None) => Err(fail(Place::NOWHERE, "invalid profile".into(), None)),
    }
}

/// Read and parse a profile file; an unreadable file is an (unlocated) error too.
pub fn load_profile(path: &std::path::Path) -> Result<Profile, SettingsError> {
    // Shown relative to the working directory, as every other file is.
    let shown = match std::env::current_dir() {
        Ok(cwd) if path.is_absolute() => crate::walk::display_relative(path, &cwd),
        _ => path.display().to_string(),
    };
    let unreadable = |message: String| {
        SettingsError::new(
            PROFILE.code,
            &shown,
            Arc::from(""),
            Place::NOWHERE,
            message,
            None,
        )
    };
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
        spec: Spec::unknown(Provider::Generic),
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

fn convert(
    err: &YamlError,
    text: &str,
    path: &str,
    source: &Arc<str>,
    pass: Pass,
) -> SettingsError {
    let err = err.without_snippet();
    let at = match err {
        // serde-saphyr puts a missing field at the mapping's last key; a missing top-level
        // field belongs to the document as a whole.
        YamlError::SerdeMissingField { field: "spec", .. } => {
            Place::at_offset(text, first_content_offset(text), 0)
        }
        _ => error_place(err, text),
    };
    let fallback = parser_message(err);
    let (message, help) = if fallback.contains("recursion limit") {
        // The parser's own depth guard (not a Budget breach): say what it means for a profile.
        (
            "profile is nested too deeply".to_owned(),
            Some("profiles are small hand-written files; check for runaway `[` or `{`".to_owned()),
        )
    } else {
        translate::describe(err, &PROFILE)
            .or_own(|err| describe(err, text, &at, pass))
            .unwrap_or((fallback, None))
    };
    SettingsError::new(PROFILE.code, path, source.clone(), at, message, help)
}

fn choose_help(got: &str, expected: &[&str], what: &str) -> String {
    if expected.is_empty() {
        return format!("no {what} are allowed here");
    }
    one_of_help(did_you_mean(got, expected), expected)
}

/// Our message and help for the errors only a profile has, or `None` to use
/// serde-saphyr's own message.
fn describe(err: &YamlError, text: &str, at: &Place, pass: Pass) -> Option<Said> {
    match err {
        YamlError::SerdeUnknownVariant {
            variant, expected, ..
        } => {
            let help = if expected[..] == Provider::NAMES {
                // Vendor names (`aws`, `digitalocean`) as well as typos.
                one_of_help(suggest_provider(variant), expected)
            } else {
                choose_help(variant, expected, "values")
            };
            let field = tables()
                .enum_field(expected)
                .map_or(String::new(), |s| format!(" for {s}"));
            Some((format!("unknown value `{variant}`{field}"), Some(help)))
        }
        YamlError::SerdeMissingField { field, .. } => Some((
            match *field {
                "provider" => "missing field `provider` in `spec`".to_owned(),
                _ => format!("missing field `{field}`"),
            },
            match *field {
                "provider" => Some(format!(
                    "`spec.provider` is required: one of {}",
                    list(&Provider::NAMES)
                )),
                "spec" => Some(STARTER_HELP.into()),
                _ => None,
            },
        )),
        YamlError::Eof { .. } => Some(("unexpected end of file".into(), Some(STARTER_HELP.into()))),
        YamlError::AliasReplayCounterOverflow { .. }
        | YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayStackDepthExceeded { .. } => Some((
            "profile expands too many YAML aliases".into(),
            Some(
                "profiles are small hand-written files; write the values out instead of `*alias`"
                    .into(),
            ),
        )),
        // The header pass only fails on shape when the document root is not a mapping.
        _ if pass == Pass::Header && at.offset == first_content_offset(text) => Some((
            format!(
                "a profile must be a YAML mapping, found {}",
                describe_value(text, at)
            ),
            Some(STARTER_HELP.into()),
        )),
        _ if pass == Pass::Header => None,
        // Everything else on the typed pass is a value of the wrong shape.
        _ => type_error(text, at),
    }
}

fn type_error(text: &str, at: &Place) -> Option<Said> {
    let key = key_before(text, at.offset)?;
    let found = describe_value(text, at);
    let (expected, help) = match tables().shape(key)? {
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
}
