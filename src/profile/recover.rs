//! Every error of a profile or config file in one run: after an error, the offending entry
//! is blanked out (its bytes become spaces, so every later position stays where it was) and
//! the file is parsed again; and values that parse but that no rule can use (a version
//! lblint cannot compare, an address that is neither an IP nor a DNS name) are errors too.

use std::sync::Arc;

use serde_saphyr::Error as YamlError;

use super::error::{Place, ProfileError};
use super::model::Profile;
use super::version::parse_version;

/// Errors reported from one file, at most (a runaway file stops there).
const MAX_ERRORS: usize = 20;

/// What lblint's own deserializers put before a custom error (`lblint-config:`,
/// `lblint-object-key:`): a value they refused, an error of its own like a wrong type.
pub(crate) const TAG_PREFIX: &str = "lblint-";

/// What goes with an error before the file is parsed again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blank {
    /// The key (or the entry after a `- `) and what is nested under it. Sequence items
    /// keep their place, so a fact found later by its index (the profile's
    /// `loadBalancers.0.addresses`) is still where the index says; but an item left
    /// without a required field ends the search.
    Entry,
    /// The whole sequence item holding the error, `- ` included, when there is one; else
    /// as [`Blank::Entry`]. No item is left without a required field, so a missing field
    /// is an error of its own; later items move up one index, which is fine for a file
    /// whose places come from spans (the config file).
    Item,
}

/// Deserialize `text`, and after each error blank its entry (as `blank` says) and try
/// again: the document when one parse succeeds, and every error found on the way
/// (`convert` words them).
pub(crate) fn parse_all<T: serde::de::DeserializeOwned>(
    text: &str,
    blank: Blank,
    convert: impl Fn(&YamlError) -> ProfileError,
) -> (Option<T>, Vec<ProfileError>) {
    let mut errors: Vec<ProfileError> = Vec::new();
    let mut work = text.to_string();
    // Where the last blank ends: an error there or before it is the blank's doing.
    let mut blanked_end = 0;
    loop {
        match serde_saphyr::from_str_with_options::<T>(&work, super::syntax::yaml_options()) {
            Ok(doc) => return (Some(doc), errors),
            Err(e) => {
                let err = convert(&e);
                // Only a wrong value, type or key is an error of its own; anything else
                // after a blank (end of file, a mapping now empty, a field now missing) is
                // the blank's doing. serde reads in document order, so a real one is later.
                let own = match e.without_snippet() {
                    YamlError::SerdeInvalidType { .. }
                    | YamlError::SerdeInvalidValue { .. }
                    | YamlError::SerdeUnknownVariant { .. }
                    | YamlError::SerdeUnknownField { .. } => true,
                    YamlError::Message { msg, .. } => msg.starts_with(TAG_PREFIX),
                    // A value of the wrong shape (a string for a list), a required field
                    // missing: the blank's doing when an item is kept as a bare `- `, never
                    // when items go whole.
                    YamlError::Unexpected { .. } | YamlError::SerdeMissingField { .. } => {
                        blank == Blank::Item
                    }
                    _ => false,
                };
                if !errors.is_empty() && (!own || err.offset <= blanked_end) {
                    return (None, errors);
                }
                let offset = err.offset;
                errors.push(err);
                let blanked = match blank {
                    Blank::Entry => blank_entry(&mut work, offset),
                    Blank::Item => blank_item(&mut work, offset),
                };
                match blanked {
                    Some(end) if own && errors.len() < MAX_ERRORS => {
                        blanked_end = end.max(offset);
                    }
                    _ => return (None, errors),
                }
            }
        }
    }
}

/// The start of the line holding `offset` and the line (without its line break).
fn line_at(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    (start, text[start..end].trim_end_matches('\r'))
}

fn is_item(trimmed: &str) -> bool {
    trimmed.starts_with("- ") || trimmed == "-"
}

/// Blank out the YAML entry at `offset`: the key on that line and every more-indented line
/// under it. The end of what was blanked; `None` when nothing is left to blank (the caller
/// then stops retrying).
pub(crate) fn blank_entry(text: &mut String, offset: usize) -> Option<usize> {
    let offset = offset.min(text.len());
    let (start, first) = line_at(text, offset);
    let trimmed = first.trim_start();
    let indent = first.len() - trimmed.len();
    // A sequence item keeps its `- `: only the entry after it goes.
    let key_at = start + indent + if trimmed.starts_with("- ") { 2 } else { 0 };
    blank_block(text, key_at, key_at - start)
}

/// Blank out the block sequence item holding `offset`, `- ` and all; the entry at `offset`
/// when it is in no item (a top-level key, a flow sequence).
pub(crate) fn blank_item(text: &mut String, offset: usize) -> Option<usize> {
    let offset = offset.min(text.len());
    match item_start(text, offset) {
        Some(dash) => {
            let column = dash - line_at(text, dash).0;
            blank_block(text, dash, column)
        }
        None => blank_entry(text, offset),
    }
}

/// The `-` of the innermost block sequence item holding `offset`: on its line, or on the
/// nearest line above that is less indented and starts an item (a key less indented
/// than the line, and no item above it, means there is none).
pub(crate) fn item_start(text: &str, offset: usize) -> Option<usize> {
    let (mut start, line) = line_at(text, offset);
    let trimmed = line.trim_start();
    let mut threshold = line.len() - trimmed.len();
    if is_item(trimmed) {
        return Some(start + threshold);
    }
    while start > 0 && threshold > 0 {
        let (above, line) = line_at(text, start - 1);
        start = above;
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') || indent >= threshold {
            continue;
        }
        if is_item(trimmed) {
            return Some(start + indent);
        }
        threshold = indent;
    }
    None
}

/// Blank from `from` to the end of its line, and every following line indented deeper
/// than `column` (with the blank and comment lines among them); the end of the range.
fn blank_block(text: &mut String, from: usize, column: usize) -> Option<usize> {
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let mut end = line_end(from);
    while end < text.len() {
        let next = end + 1;
        let line = &text[next..line_end(next)];
        let trimmed = line.trim_start();
        let deeper = line.len() - trimmed.len() > column;
        if !(trimmed.trim_end().is_empty() || trimmed.starts_with('#') || deeper) {
            break;
        }
        end = line_end(next);
    }
    let blanked: String = text[from..end]
        .chars()
        .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
        .collect();
    if blanked == text[from..end] {
        return None;
    }
    text.replace_range(from..end, &blanked);
    Some(end)
}

/// Values that parse but that no rule can use, each at its place in the profile.
pub(crate) fn unusable_values(
    profile: &Profile,
    path: &str,
    source: &Arc<str>,
) -> Vec<ProfileError> {
    let mut errors = Vec::new();
    let at = |keys: &[&str]| {
        profile
            .fact_location(keys)
            .map(|l| Place::at_offset(source, l.span.start.offset, l.span.len()))
            .unwrap_or(Place::NOWHERE)
    };
    let spec = &profile.spec;
    let addons = spec.addons.as_ref();
    let versions: [(&[&str], Option<&String>); 6] = [
        (
            &["spec", "kubernetesVersion"],
            spec.kubernetes_version.as_ref(),
        ),
        (
            &["spec", "kubeProxy", "version"],
            spec.kube_proxy.as_ref().and_then(|k| k.version.as_ref()),
        ),
        (
            &["spec", "addons", "ingressController"],
            addons.and_then(|a| a.ingress_controller.as_ref()),
        ),
        (
            &["spec", "addons", "cloudControllerManager"],
            addons.and_then(|a| a.cloud_controller_manager.as_ref()),
        ),
        (
            &["spec", "addons", "awsLoadBalancerController"],
            addons.and_then(|a| a.aws_load_balancer_controller.as_ref()),
        ),
        (
            &["spec", "addons", "cilium"],
            addons.and_then(|a| a.cilium.as_ref()),
        ),
    ];
    for (keys, value) in versions {
        let Some(value) = value else { continue };
        // A vendor build suffix (`-eksbuild.1`, `-gke.100`) keeps a version readable; rules
        // that cannot order it treat it as unknown and say so.
        let core = value
            .split_once('-')
            .map_or(value.as_str(), |(core, _)| core);
        if parse_version(value).is_none() && parse_version(core).is_none() {
            errors.push(ProfileError::new(
                path,
                source.clone(),
                at(keys),
                format!(
                    "`{value}` is not a version lblint can compare, for `{}`",
                    keys.join(".")
                ),
                Some(
                    "write the version as the cluster shows it, e.g. \"1.31.4\", \"v1.21.0\" or \
                     \"v1.20.6-tke.12\"; leave the field out if it is unknown"
                        .into(),
                ),
            ));
        }
    }
    for (i, lb) in spec.load_balancers.iter().flatten().enumerate() {
        for (j, address) in lb.addresses.iter().flatten().enumerate() {
            if !is_ip_or_dns_name(address) {
                let (i, j) = (i.to_string(), j.to_string());
                errors.push(ProfileError::new(
                    path,
                    source.clone(),
                    at(&["spec", "loadBalancers", &i, "addresses", &j]),
                    format!("`{address}` is neither an IP address nor a DNS name"),
                    Some("list the addresses clients use for this load balancer: its IP or its DNS name".into()),
                ));
            }
        }
    }
    errors
}

/// An IPv4 or IPv6 address, or a DNS name (labels of letters, digits and `-`, a leading
/// `*.` for a wildcard, a trailing dot allowed).
fn is_ip_or_dns_name(text: &str) -> bool {
    if text.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let name = text.strip_prefix("*.").unwrap_or(text);
    let name = name.strip_suffix('.').unwrap_or(name);
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanking_keeps_positions_and_takes_the_nested_block() {
        let mut text = "spec:\n  kubeProxy:\n    mode: ipvss\n  provider: tke\n".to_string();
        let before = text.len();
        let at = text.find("ipvss").unwrap();
        assert!(blank_entry(&mut text, at).is_some());
        assert_eq!(text.len(), before);
        assert_eq!(
            text,
            "spec:\n  kubeProxy:\n               \n  provider: tke\n"
        );
        let mut text = "a:\n  b:\n    c: 1\n  d: 2\n".to_string();
        assert_eq!(blank_entry(&mut text, 4), Some(16));
        assert_eq!(text, "a:\n    \n        \n  d: 2\n");
        assert_eq!(blank_entry(&mut text, 4), None);
        let mut text = "pools:\n  - name: a\n    type: x\n".to_string();
        let at = text.find("name").unwrap();
        assert!(blank_entry(&mut text, at).is_some());
        assert_eq!(text, "pools:\n  -        \n    type: x\n");
    }

    #[test]
    fn blanking_an_item_takes_the_whole_item() {
        let item = |text: &str, at: &str| {
            let mut work = text.to_string();
            let blanked = blank_item(&mut work, text.find(at).unwrap()).is_some();
            (blanked, work)
        };
        let blank = |n: usize| " ".repeat(n);
        // An error on any line of an item takes the item, `- ` and all.
        let text = "ignore:\n  - rule: X\n    path: \"[\"\n  - rule: Y\n";
        let expected = format!("ignore:\n{}\n{}\n  - rule: Y\n", blank(11), blank(13));
        assert_eq!(item(text, "path"), (true, expected));
        // Items at the indentation of their key, and scalar items.
        let text = "ignore:\n- rule: X\n  reason: r\nfailOn: x\n";
        let expected = format!("ignore:\n{}\n{}\nfailOn: x\n", blank(9), blank(11));
        assert_eq!(item(text, "reason"), (true, expected));
        let text = "include:\n  - a\n  - \"[\"\n";
        let expected = format!("include:\n  - a\n{}\n", blank(7));
        assert_eq!(item(text, "\""), (true, expected));
        // In no item: the entry; nothing left to blank: false.
        let text = "rules:\n  TKE001: warn\nfailOn: x\n";
        let expected = format!("rules:\n{}\nfailOn: x\n", blank(14));
        assert_eq!(item(text, "warn"), (true, expected.clone()));
        assert_eq!(item(&expected, "    "), (false, expected.clone()));
    }

    #[test]
    fn lblints_own_error_tags_start_with_the_prefix() {
        assert!(super::super::model::OBJECT_KEY_ERROR_TAG.starts_with(TAG_PREFIX));
        assert!(crate::config::ERROR_TAG.starts_with(TAG_PREFIX));
    }

    #[test]
    fn addresses_are_ips_or_dns_names() {
        for ok in [
            "10.0.0.1",
            "::1",
            "gw.example.com",
            "*.example.com",
            "a-b.example.com.",
        ] {
            assert!(is_ip_or_dns_name(ok), "{ok}");
        }
        for bad in ["", "http://x", "a..b", "-a.com", "a b", "10.0.0.1:80"] {
            assert!(!is_ip_or_dns_name(bad), "{bad}");
        }
    }
}
