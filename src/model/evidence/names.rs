//! What a setting's name says about the address it holds: env variables, command-line
//! flags and the keys of embedded config files share one vocabulary. A name can mark the
//! program's own address (identity), an address handed to a browser, an allow-list, or a
//! destination the program dials.

use super::{Evidence, Judged};

/// Words of names that hold the program's own public address or the names it serves.
const IDENTITY_WORDS: &[&str] = &[
    "ROOT_URL",
    "PUBLIC_URL",
    "EXTERNAL_URL",
    "EXTERNAL_HOST",
    "SITE_URL",
    "REDIRECT",
    "CALLBACK",
    "ORIGIN",
    "CORS",
    "SERVER_NAME",
    "ADVERTISE",
    "ANNOUNCE",
    "LISTEN",
    "BIND",
    "HOSTNAME_OVERRIDE",
    "ALLOWED_HOSTS",
];

/// Prefixes of env variables a web build hands to the browser: the browser calls them,
/// from outside the cluster.
const BROWSER_PREFIXES: &[&str] = &[
    "NEXT_PUBLIC_",
    "VITE_",
    "REACT_APP_",
    "NUXT_PUBLIC_",
    "GATSBY_",
    "EXPO_PUBLIC_",
    "PUBLIC_",
    "VUE_APP_",
];

/// Words of names that list hosts to allow or to leave alone, not to dial.
const ALLOW_WORDS: &[&str] = &[
    "NO_PROXY",
    "ALLOWED",
    "ALLOWLIST",
    "WHITELIST",
    "TRUSTED",
    "EXCLUDE",
    "IGNORE",
    "SKIP",
];

/// Last words of setting names that hold a destination.
const DESTINATION_WORDS: &[&str] = &[
    "URL",
    "URLS",
    "URI",
    "URIS",
    "IP",
    "IPS",
    "HOST",
    "HOSTS",
    "HOSTNAME",
    "ADDR",
    "ADDRS",
    "ADDRESS",
    "ADDRESSES",
    "ENDPOINT",
    "ENDPOINTS",
    "SERVER",
    "SERVERS",
    "API",
    "BROKER",
    "BROKERS",
    "DSN",
    "UPSTREAM",
    "UPSTREAMS",
    "TARGET",
    "TARGETS",
    "GATEWAY",
    "PROXY",
    "REMOTE",
    "BACKEND",
    "BACKENDS",
    "ISSUER",
    "REPO",
    "REPOSITORY",
    "REGISTRY",
    "MIRROR",
    "PEERS",
    "JOIN",
    "SEEDS",
    "MASTER",
    "CONNECT",
    "CONNECTION",
    "SINK",
    "COLLECTOR",
    "WEBHOOK",
];

/// A setting name (`GF_SERVER_ROOT_URL`, `api.url`, `--endpoint`) in upper snake case.
pub fn words(name: &str) -> String {
    name.trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn judged(evidence: Evidence, reason: String) -> Option<Judged> {
    Some(Judged { evidence, reason })
}

/// What the name alone says, before the value is read: identity, a browser's address or
/// an allow-list (`Some`), else nothing yet (`None`). `what` names the setting for the
/// reason ("env PUBLIC_URL", "flag --listen-address", "key server_name").
pub fn not_a_destination(name: &str, what: &str) -> Option<Judged> {
    let upper = words(name);
    if let Some(prefix) = BROWSER_PREFIXES.iter().find(|p| upper.starts_with(*p)) {
        return judged(
            Evidence::Identity,
            format!("{what} is handed to the browser ({prefix}): called from outside"),
        );
    }
    if let Some(word) = ALLOW_WORDS.iter().find(|w| has_word(&upper, w)) {
        // The hosts a site serves (`ALLOWED_HOSTS`, trusted origins) are its own names.
        let own = upper.contains("HOSTS") || upper.contains("ORIGIN");
        let evidence = if own {
            Evidence::Identity
        } else {
            Evidence::Mention
        };
        return judged(
            evidence,
            format!("{what} is an allow-list ({word}), not a destination"),
        );
    }
    if let Some(word) = IDENTITY_WORDS.iter().find(|w| has_word(&upper, w)) {
        return judged(
            Evidence::Identity,
            format!("{what} names the program's own address ({word})"),
        );
    }
    None
}

/// An env variable named just `HOST`, `HOSTNAME` or `IP`: where the program itself
/// listens, or its own name (a config file's `host:` key, nested in a block, is not this).
pub fn own_host(name: &str, what: &str) -> Option<Judged> {
    matches!(
        words(name).as_str(),
        "HOST" | "HOSTNAME" | "IP" | "BIND" | "POD_IP"
    )
    .then(|| Judged {
        evidence: Evidence::Identity,
        reason: format!("{what} names the program's own host"),
    })
}

/// `word` (one or more `_`-joined words) is a whole-word part of the upper snake `name`.
fn has_word(name: &str, word: &str) -> bool {
    name.match_indices(word).any(|(i, _)| {
        let before = i == 0 || name.as_bytes()[i - 1] == b'_';
        let end = i + word.len();
        let after = end == name.len() || name.as_bytes()[end] == b'_';
        // `LISTEN` also starts `LISTENERS`/`LISTEN_ADDR`; `BIND` does not start `BINDING`.
        before && (after || matches!(word, "LISTEN" | "ADVERTISE" | "ANNOUNCE"))
    })
}

/// The destination word the name ends in (`API_URL` → `URL`), if any.
pub fn destination_word(name: &str) -> Option<&'static str> {
    let upper = words(name);
    let last = upper.rsplit('_').find(|w| !w.is_empty())?;
    DESTINATION_WORDS.iter().copied().find(|w| *w == last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> Option<Evidence> {
        not_a_destination(name, "x").map(|j| j.evidence)
    }

    #[test]
    fn names_mark_identity_browser_and_allow_lists() {
        for own in [
            "GF_SERVER_ROOT_URL",
            "--bind-address",
            "--listen-client-urls",
            "--advertise-client-urls",
            "--initial-advertise-peer-urls",
            "--web.external-url",
            "--public-url",
            "NEXT_PUBLIC_API_URL",
            "VITE_API_URL",
            "ALLOWED_HOSTS",
            "CSRF_TRUSTED_ORIGINS",
            "API_ALLOWED_ORIGINS",
        ] {
            assert_eq!(kind(own), Some(Evidence::Identity), "{own}");
        }
        assert_eq!(kind("NO_PROXY"), Some(Evidence::Mention));
        assert_eq!(kind("no_proxy"), Some(Evidence::Mention));
        for neutral in ["API_URL", "DB_HOST", "--initial-cluster", "BINDING_URL"] {
            assert_eq!(kind(neutral), None, "{neutral}");
        }
        assert_eq!(destination_word("REDIS_ADDR"), Some("ADDR"));
        assert_eq!(destination_word("backend.host"), Some("HOST"));
        assert_eq!(destination_word("NODE_IP"), Some("IP"));
        assert_eq!(destination_word("DOMAIN"), None);
    }
}
