//! The first pass over a profile: `apiVersion` and `kind`, checked before the typed pass so
//! that a Kubernetes manifest given as a profile gets a helpful message.

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::settings::suggest::did_you_mean;
use crate::settings::{first_content_offset, place_of, Place, SettingsError};

pub(crate) const API_VERSION: &str = "lblint.dev/v1alpha1";
pub(crate) const KIND: &str = "ClusterProfile";

pub(super) const STARTER_HELP: &str =
    "a profile starts with `apiVersion: lblint.dev/v1alpha1`, `kind: ClusterProfile` and `spec.provider`";

#[derive(Deserialize)]
pub(super) struct Header {
    #[serde(default, rename = "apiVersion")]
    pub(super) api_version: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) kind: Option<Spanned<String>>,
    /// Where `spec` starts: serde-saphyr puts a missing field at the mapping's *last* key,
    /// so a missing `spec.provider` is reported here instead.
    #[serde(default)]
    pub(super) spec: Option<Spanned<serde::de::IgnoredAny>>,
}

pub(super) fn check_header(
    header: &Header,
    text: &str,
    fail: &impl Fn(Place, String, Option<String>) -> SettingsError,
) -> Result<(), SettingsError> {
    let start = Place::at_offset(text, first_content_offset(text), 0);
    let Some(api) = &header.api_version else {
        return Err(fail(
            start,
            "missing `apiVersion`".into(),
            Some(format!("add `apiVersion: {API_VERSION}` at the top")),
        ));
    };
    if api.value != API_VERSION {
        let help = if did_you_mean(&api.value, &[API_VERSION]).is_some() {
            format!("did you mean `{API_VERSION}`?")
        } else if api.value.starts_with("lblint.dev/") {
            format!("this lblint reads only `{API_VERSION}` profiles")
        } else if let Some(kind) = header.kind.as_ref().filter(|k| k.value != KIND) {
            format!(
                "this looks like a Kubernetes `{}`, not a cluster profile; {STARTER_HELP}",
                kind.value
            )
        } else {
            format!("is this a cluster profile? {STARTER_HELP}")
        };
        return Err(fail(
            place_of(&api.referenced, text),
            format!(
                "unsupported apiVersion `{}`: expected `{API_VERSION}`",
                api.value
            ),
            Some(help),
        ));
    }
    let Some(kind) = &header.kind else {
        return Err(fail(
            start,
            "missing `kind`".into(),
            Some(format!("add `kind: {KIND}`")),
        ));
    };
    if kind.value != KIND {
        let help = if did_you_mean(&kind.value, &[KIND]).is_some() {
            format!("did you mean `{KIND}`?")
        } else {
            format!("`{API_VERSION}` has only `kind: {KIND}`")
        };
        return Err(fail(
            place_of(&kind.referenced, text),
            format!("unsupported kind `{}`: expected `{KIND}`", kind.value),
            Some(help),
        ));
    }
    Ok(())
}
