//! How strongly a value that names a load-balancer address shows a call (README, "The
//! cluster model"): a URL, `host:port` or a host in a destination-like setting is a call;
//! the app's own public URL, OAuth redirect and CORS origins are browser-facing identity,
//! not calls from the pod; anything else is a mention in free text.

use super::calls::{Evidence, Via};

/// Environment variable and config key words that name the app's own public identity.
const IDENTITY_WORDS: &[&str] = &[
    "ROOT_URL",
    "PUBLIC_URL",
    "EXTERNAL_URL",
    "SITE_URL",
    "REDIRECT",
    "CALLBACK",
    "ORIGIN",
    "CORS",
    "SERVER_NAME",
];

/// Last words of setting names that hold a destination.
const DESTINATION_WORDS: &[&str] = &[
    "URL",
    "URLS",
    "URI",
    "URIS",
    "HOST",
    "HOSTS",
    "HOSTNAME",
    "ADDR",
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
    "TARGET",
    "GATEWAY",
    "PROXY",
    "REMOTE",
    "BACKEND",
];

/// Config-file line starts that send traffic (nginx, HAProxy, Envoy-style keys).
const DESTINATION_LINES: &[&str] = &["upstream", "proxy_pass", "server ", "grpc_pass", "backend"];

/// A setting name (`GF_SERVER_ROOT_URL`, `api.url`, `--endpoint`) in upper snake case.
fn words(name: &str) -> String {
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

fn is_identity(name: &str) -> bool {
    let name = words(name);
    IDENTITY_WORDS.iter().any(|w| name.contains(w))
}

fn is_destination(name: &str) -> bool {
    let name = words(name);
    name.rsplit('_')
        .find(|w| !w.is_empty())
        .is_some_and(|last| DESTINATION_WORDS.contains(&last))
}

/// The line of `text` holding byte `at`, trimmed.
fn line_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].trim()
}

/// The setting a config-file line assigns (`key=value`, `key: value`, `key value`).
fn line_key(line: &str) -> &str {
    line.split(['=', ':', ' ', '\t']).next().unwrap_or("")
}

/// How the `token` at byte `at` of `text` (a value reached through `via`) names its host.
pub fn classify(via: &Via, text: &str, at: usize, token: &str) -> Evidence {
    let after = &text[at + token.len()..];
    let in_url = text[..at].ends_with("://") || text[..at].ends_with('@');
    let with_port = after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit());
    let alone = text.trim() == token;
    match via {
        Via::Env { name } if is_identity(name) => Evidence::Identity,
        Via::Env { name } if is_destination(name) && (alone || in_url || with_port) => {
            Evidence::Call
        }
        Via::Probe
        | Via::HostAlias
        | Via::Http01SelfCheck { .. }
        | Via::AuthUrl
        | Via::ImagePull => Evidence::Call,
        Via::ConfigMap { key: name, .. } | Via::Secret { key: name, .. } => {
            let line = line_at(text, at);
            // A value that is just the host (an env-style key read by envFrom): the store
            // key is the setting's name; in an embedded file, the line's own key.
            let key = if alone { name.as_str() } else { line_key(line) };
            if is_identity(key) {
                Evidence::Identity
            } else if in_url
                || with_port
                || is_destination(key)
                || DESTINATION_LINES.iter().any(|d| line.starts_with(d))
            {
                Evidence::Call
            } else {
                Evidence::Mention
            }
        }
        Via::Arg | Via::Command => {
            let flag = text[..at].rsplit_once('=').map_or("", |(flag, _)| flag);
            if is_identity(flag) {
                Evidence::Identity
            } else if in_url || with_port || alone || is_destination(flag) {
                Evidence::Call
            } else {
                Evidence::Mention
            }
        }
        Via::Env { .. } if in_url || with_port => Evidence::Call,
        Via::Env { .. } => Evidence::Mention,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str, text: &str, token: &str) -> Evidence {
        let via = Via::Env { name: name.into() };
        classify(&via, text, text.find(token).expect("token"), token)
    }

    fn conf(text: &str, token: &str) -> Evidence {
        let via = Via::ConfigMap {
            name: "c".into(),
            key: "k".into(),
        };
        classify(&via, text, text.rfind(token).expect("token"), token)
    }

    #[test]
    fn destinations_are_calls_identities_are_not_free_text_is_a_mention() {
        let host = "api.example.com";
        assert_eq!(
            env("API_URL", "https://api.example.com/v1", host),
            Evidence::Call
        );
        assert_eq!(env("DB_HOST", host, host), Evidence::Call);
        assert_eq!(env("UPSTREAM", "api.example.com:443", host), Evidence::Call);
        assert_eq!(
            env("ANYTHING", "http://api.example.com", host),
            Evidence::Call
        );
        assert_eq!(
            env("GF_SERVER_ROOT_URL", "https://api.example.com/", host),
            Evidence::Identity
        );
        assert_eq!(
            env("OAUTH_REDIRECT_URI", "https://api.example.com/cb", host),
            Evidence::Identity
        );
        assert_eq!(
            env("CORS_ALLOWED_ORIGINS", "https://api.example.com", host),
            Evidence::Identity
        );
        assert_eq!(
            env("BANNER", "Welcome to api.example.com", host),
            Evidence::Mention
        );
        assert_eq!(env("DOMAIN", host, host), Evidence::Mention);
        assert_eq!(
            conf("upstream api { server api.example.com; }", host),
            Evidence::Call
        );
        assert_eq!(
            conf("  server_name api.example.com;", host),
            Evidence::Identity
        );
        assert_eq!(
            conf("api.url=https://api.example.com", host),
            Evidence::Call
        );
        assert_eq!(conf("backend.host: api.example.com", host), Evidence::Call);
        assert_eq!(
            conf("title: the api.example.com docs", host),
            Evidence::Mention
        );
        let arg = |text: &str| classify(&Via::Arg, text, text.find(host).expect("token"), host);
        assert_eq!(arg("--endpoint=api.example.com"), Evidence::Call);
        assert_eq!(arg(host), Evidence::Call);
        assert_eq!(
            arg("--public-url=https://api.example.com"),
            Evidence::Identity
        );
        assert_eq!(arg("--motd=see api.example.com"), Evidence::Mention);
    }
}
