//! "Did you mean" for a provider, which knows vendors' names as well as typos. The
//! general suggestions live in [`crate::settings::suggest`].

use crate::settings::suggest::did_you_mean;

use super::provider::Provider;

/// The provider a misspelt `spec.provider` (or a vendor's name for it) most likely means.
pub(crate) fn suggest_provider(input: &str) -> Option<&'static str> {
    let key: String = input
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    super::provider::CLOUDS
        .iter()
        .find(|cloud| cloud.aliases.contains(&key.as_str()))
        .map(|cloud| cloud.name)
        .or_else(|| did_you_mean(input, &Provider::NAMES))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
