//! "Did you mean" suggestions, shared by the profile loader, rule ids and config keys.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, each
/// substring edited once), over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The closest candidate to `input`, if it is close enough to be a plausible typo.
///
/// Comparison ignores ASCII case (so `IPVS` suggests `ipvs`); ties go to the earlier
/// candidate, so callers list the most common spelling first.
pub fn did_you_mean<'c, S: AsRef<str>>(input: &str, candidates: &'c [S]) -> Option<&'c str> {
    let needle = input.to_ascii_lowercase();
    // Short words get one edit; longer ones up to a third of their length, capped at 3,
    // so `mod` → `mode` is offered but unrelated short words are not.
    let limit = (needle.chars().count().div_ceil(3)).clamp(1, 3);
    candidates
        .iter()
        .map(|c| c.as_ref())
        .filter(|c| *c != input)
        .map(|c| (edit_distance(&needle, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// What people write for a provider instead of its profile name, letters and digits only,
/// lowercase: vendors, products and controllers.
const PROVIDER_ALIASES: &[(&str, &str)] = &[
    ("tencent", "tke"),
    ("tencentcloud", "tke"),
    ("qcloud", "tke"),
    ("volcengine", "vke"),
    ("alibaba", "ack"),
    ("alibabacloud", "ack"),
    ("alicloud", "ack"),
    ("aliyun", "ack"),
    ("aws", "eks"),
    ("amazon", "eks"),
    ("azure", "aks"),
    ("google", "gke"),
    ("gcp", "gke"),
    ("gce", "gke"),
    ("huawei", "cce"),
    ("huaweicloud", "cce"),
    ("oracle", "oke"),
    ("oci", "oke"),
    ("digitalocean", "doks"),
    ("do", "doks"),
    ("linode", "lke"),
    ("akamai", "lke"),
    ("kapsule", "scaleway"),
    ("scw", "scaleway"),
    ("hcloud", "hetzner"),
    ("occm", "openstack"),
    ("octavia", "openstack"),
    ("ovh", "openstack"),
    ("ovhcloud", "openstack"),
    ("selectel", "openstack"),
    ("servercore", "openstack"),
    ("plusserver", "openstack"),
];

/// The provider a misspelt `spec.provider` (or a vendor's name for it) most likely means.
pub fn suggest_provider(input: &str) -> Option<&'static str> {
    let key: String = input
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    PROVIDER_ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .map(|(_, name)| *name)
        .or_else(|| did_you_mean(input, &super::Provider::NAMES))
}

/// `` `a`, `b` or `c` `` for help texts.
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{}`", s.as_ref())).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("mod", "mode"), 1);
        assert_eq!(edit_distance("ipvss", "ipvs"), 1);
        assert_eq!(
            edit_distance("ipsv", "ipvs"),
            1,
            "transposition counts once"
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            edit_distance("ümlaut", "umlaut"),
            1,
            "counts chars, not bytes"
        );
    }

    #[test]
    fn suggestions() {
        let modes = ["iptables", "ipvs", "nftables", "ebpf"];
        assert_eq!(did_you_mean("ipvss", &modes), Some("ipvs"));
        assert_eq!(did_you_mean("IPVS", &modes), Some("ipvs"));
        assert_eq!(did_you_mean("iptable", &modes), Some("iptables"));
        assert_eq!(did_you_mean("userspace", &modes), None);
        assert_eq!(did_you_mean("mod", &["mode", "version"]), Some("mode"));
        assert_eq!(did_you_mean("x", &["mode"]), None);
        let none: [&str; 0] = [];
        assert_eq!(did_you_mean("mode", &none), None);
    }

    #[test]
    fn provider_suggestions() {
        assert_eq!(suggest_provider("TKE"), Some("tke"));
        assert_eq!(suggest_provider("hetzer"), Some("hetzner"));
        assert_eq!(suggest_provider("open-stack"), Some("openstack"));
        assert_eq!(suggest_provider("cloudscale.ch"), Some("cloudscale"));
        assert_eq!(suggest_provider("scaleways"), Some("scaleway"));
        // Vendor names, even where a provider name is one edit away (`aws` ~ `aks`).
        assert_eq!(suggest_provider("aws"), Some("eks"));
        assert_eq!(suggest_provider("DigitalOcean"), Some("doks"));
        assert_eq!(suggest_provider("Linode"), Some("lke"));
        assert_eq!(suggest_provider("OVHcloud"), Some("openstack"));
        assert_eq!(suggest_provider("ibm"), None);
        for (alias, name) in PROVIDER_ALIASES {
            assert!(
                super::super::Provider::NAMES.contains(name),
                "{alias} -> {name}"
            );
            assert!(
                !super::super::Provider::NAMES.contains(alias),
                "{alias} is a name"
            );
        }
    }

    #[test]
    fn lists() {
        assert_eq!(list(&["a"]), "`a`");
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` or `c`");
        let none: [&str; 0] = [];
        assert_eq!(list(&none), "");
    }
}
