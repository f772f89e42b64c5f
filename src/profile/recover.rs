//! Every profile error in one run: after an error, the offending entry is blanked out (its
//! bytes become spaces, so every later position stays where it was) and the profile is
//! parsed again; and values that parse but that no rule can use (a version lblint cannot
//! compare, an address that is neither an IP nor a DNS name) are errors too.

use std::sync::Arc;

use serde_saphyr::Error as YamlError;

use super::error::{Place, ProfileError};
use super::model::Profile;
use super::version::parse_version;

/// Errors reported from one profile, at most (a runaway file stops there).
const MAX_ERRORS: usize = 20;

/// Deserialize `text`, and after each error blank the entry and try again: the document
/// when one parse succeeds, and every error found on the way (`convert` words them).
pub(crate) fn parse_all<T: serde::de::DeserializeOwned>(
    text: &str,
    convert: impl Fn(&YamlError) -> ProfileError,
) -> (Option<T>, Vec<ProfileError>) {
    let mut errors: Vec<ProfileError> = Vec::new();
    let mut work = text.to_string();
    loop {
        match serde_saphyr::from_str_with_options::<T>(&work, super::load::yaml_options()) {
            Ok(doc) => return (Some(doc), errors),
            Err(e) => {
                let err = convert(&e);
                // Only a wrong value, type or key is an error of its own; anything else
                // after a blank (end of file, a mapping now empty, a field now missing) is
                // the blank's doing. serde reads in document order, so a real one is later.
                let own = matches!(
                    e.without_snippet(),
                    YamlError::SerdeInvalidType { .. }
                        | YamlError::SerdeInvalidValue { .. }
                        | YamlError::SerdeUnknownVariant { .. }
                        | YamlError::SerdeUnknownField { .. }
                );
                if errors
                    .last()
                    .is_some_and(|last| !own || err.offset <= last.offset)
                {
                    return (None, errors);
                }
                let offset = err.offset;
                errors.push(err);
                if !own || errors.len() >= MAX_ERRORS || !blank_entry(&mut work, offset) {
                    return (None, errors);
                }
            }
        }
    }
}

/// Blank out the YAML entry at `offset`: the key on that line and every more-indented line
/// under it. False when nothing is left to blank (the caller then stops retrying).
pub(crate) fn blank_entry(text: &mut String, offset: usize) -> bool {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let first = &text[start..line_end(start)];
    let indent = first.len() - first.trim_start().len();
    // A sequence item keeps its `- `: only the entry after it goes.
    let key_at = start
        + indent
        + if first.trim_start().starts_with("- ") {
            2
        } else {
            0
        };
    let key_column = key_at - start;
    let mut end = line_end(start);
    while end < text.len() {
        let next = end + 1;
        let line = &text[next..line_end(next)];
        let trimmed = line.trim_start();
        let deeper = line.len() - trimmed.len() > key_column;
        if !(trimmed.is_empty() || trimmed.starts_with('#') || deeper) {
            break;
        }
        end = line_end(next);
    }
    let blanked: String = text[key_at..end]
        .chars()
        .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
        .collect();
    if blanked == text[key_at..end] {
        return false;
    }
    text.replace_range(key_at..end, &blanked);
    true
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
        assert!(blank_entry(&mut text, at));
        assert_eq!(text.len(), before);
        assert_eq!(
            text,
            "spec:\n  kubeProxy:\n               \n  provider: tke\n"
        );
        let mut text = "a:\n  b:\n    c: 1\n  d: 2\n".to_string();
        assert!(blank_entry(&mut text, 4));
        assert_eq!(text, "a:\n    \n        \n  d: 2\n");
        assert!(!blank_entry(&mut text, 4));
        let mut text = "pools:\n  - name: a\n    type: x\n".to_string();
        let at = text.find("name").unwrap();
        assert!(blank_entry(&mut text, at));
        assert_eq!(text, "pools:\n  -        \n    type: x\n");
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
