//! Values that parse but that no rule can use (a version lblint cannot compare, an address
//! that is neither an IP nor a DNS name): errors too, each at its place in the profile.

use super::model::Profile;
use super::version::parse_version;
use crate::settings::{Place, SettingsError};
use crate::source::Location;

/// Values that parse but that no rule can use, each at its place in the profile (`fail`
/// makes the error).
pub(super) fn unusable_values(
    profile: &Profile,
    fail: &impl Fn(Place, String, Option<String>) -> SettingsError,
) -> Vec<SettingsError> {
    let text = profile.text.as_deref().unwrap_or_default();
    let mut errors = Vec::new();
    let error = |at: Option<Location>, message: String, help: &str| {
        let at = at.map_or(Place::NOWHERE, |l| {
            Place::at_offset(text, l.span.start.offset, l.span.len())
        });
        fail(at, message, Some(help.into()))
    };
    let versions = [
        profile.kubernetes_version(),
        profile.kube_proxy_version(),
        profile.ingress_controller(),
        profile.cloud_controller_manager(),
        profile.aws_load_balancer_controller(),
        profile.cilium(),
    ];
    for fact in versions {
        let Some(value) = fact.value else { continue };
        // Vendor builds (`-eksbuild.1`, `+k3s1`, `-gke.100`) are versions too, compared on
        // their release; only a string without `major.minor` is unusable.
        if parse_version(value).is_none() {
            errors.push(error(
                fact.location(),
                format!(
                    "`{value}` is not a version lblint can compare, for `{}`",
                    fact.field()
                ),
                "write the version as the cluster shows it, with at least major.minor, e.g. \"1.31.4\", \"v1.21.0\", \
                 \"v1.20.6-tke.12\" or \"v1.30.2-eks-a1b2c3d\"; leave the field out if it is \
                 unknown",
            ));
        }
    }
    for (i, lb) in profile.load_balancers().enumerate() {
        for (j, address) in lb.addresses.iter().flatten().enumerate() {
            if !is_ip_or_dns_name(address) {
                let (i, j) = (i.to_string(), j.to_string());
                errors.push(error(
                    profile.fact_location(&["spec", "loadBalancers", &i, "addresses", &j]),
                    format!("`{address}` is neither an IP address nor a DNS name"),
                    "list the addresses clients use for this load balancer: its IP or its DNS name",
                ));
            }
        }
    }
    errors
}

/// An IPv4 or IPv6 address, or a DNS name (labels of letters, digits and `-`, a leading
/// `*.` for a wildcard, a trailing dot allowed).
pub(crate) fn is_ip_or_dns_name(text: &str) -> bool {
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
