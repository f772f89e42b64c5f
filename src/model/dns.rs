//! Names the cluster's DNS answers itself: CoreDNS `rewrite name` rules and `hosts` entries
//! in the manifests. A rewrite of the public host to an in-cluster Service is the fix
//! Tencent's older loopback guide recommends and what compumike/hairpin-proxy installs
//! (`rewrite name <host> hairpin-proxy.hairpin-proxy.svc.cluster.local`): every pod's call of
//! such a host, explicit or made by a controller on an object's behalf, stays inside.
//!
//! Read from kube-system/coredns (`Corefile`) and kube-system/coredns-custom (AKS and k3s
//! import its `*.override` and `*.server` keys). Syntax as CoreDNS's plugin/rewrite
//! README gives it: `rewrite [continue|stop] name [exact|prefix|suffix|substring|regex]
//! FROM TO [answer …]`, and the `hosts` plugin's inline `IP name…` lines.

use regex::Regex;

use crate::objects::ObjectId;
use crate::views::Views;

use super::address::normalize;

/// The ConfigMaps CoreDNS reads its configuration from, by (namespace, name).
pub const COREDNS_CONFIG: [(&str, &str); 2] = [
    ("kube-system", "coredns"),
    ("kube-system", "coredns-custom"),
];

/// The hosts CoreDNS answers without asking upstream DNS.
#[derive(Debug, Default)]
pub struct DnsRewrites {
    rules: Vec<Rule>,
}

/// One rule: what it matches (lower-cased, no trailing dot) and where it sends the name.
#[derive(Debug)]
enum Rule {
    Exact(String, String),
    Prefix(String, String),
    Suffix(String, String),
    Substring(String, String),
    Regex(Regex, String),
    /// A `hosts` entry: the name resolves to this address.
    Hosts(String, String),
}

impl DnsRewrites {
    /// The rules of every CoreDNS configuration in the manifests (`configs` are the
    /// ConfigMaps named in [`COREDNS_CONFIG`]).
    pub fn read(views: &Views<'_>, configs: &[ObjectId]) -> DnsRewrites {
        let mut rules = Vec::new();
        for &config in configs {
            let Some(data) = views.data(config) else {
                continue;
            };
            for (_, value) in &data.data {
                if let Some(text) = value.as_str() {
                    read_corefile(text, &mut rules);
                }
            }
        }
        DnsRewrites { rules }
    }

    /// Where CoreDNS sends `host` (normalized), if a rule matches it: the rewritten name,
    /// or the address a `hosts` entry gives.
    pub fn target(&self, host: &str) -> Option<String> {
        self.rules.iter().find_map(|rule| match rule {
            Rule::Exact(from, to) | Rule::Hosts(from, to) => (host == from).then(|| to.clone()),
            Rule::Prefix(from, to) => host
                .strip_prefix(from.as_str())
                .map(|rest| format!("{to}{rest}")),
            Rule::Suffix(from, to) => host
                .strip_suffix(from.as_str())
                .map(|rest| format!("{rest}{to}")),
            Rule::Substring(from, to) => host
                .contains(from.as_str())
                .then(|| host.replacen(from, to, 1)),
            Rule::Regex(from, to) => from
                .captures(host)
                .map(|captures| expand_go_template(&captures, to)),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// CoreDNS writes regex replacements as `{1}`, `{2}` (plugin/rewrite README).
fn expand_go_template(captures: &regex::Captures<'_>, template: &str) -> String {
    let mut out = template.to_string();
    for i in (0..captures.len()).rev() {
        let group = captures.get(i).map_or("", |m| m.as_str());
        out = out.replace(&format!("{{{i}}}"), group);
    }
    normalize(&out)
}

fn read_corefile(text: &str, rules: &mut Vec<Rule>) {
    let mut in_hosts = false;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        if in_hosts {
            if words.first() == Some(&"}") {
                in_hosts = false;
            } else if let [address, names @ ..] = &words[..] {
                if address.parse::<std::net::IpAddr>().is_ok() {
                    let to = normalize(address);
                    rules.extend(names.iter().map(|n| Rule::Hosts(normalize(n), to.clone())));
                }
            }
            continue;
        }
        match words.first() {
            Some(&"hosts") => in_hosts = words.last() == Some(&"{"),
            Some(&"rewrite") => rules.extend(rewrite_rule(&words[1..])),
            _ => {}
        }
    }
}

/// A `rewrite` line after its first word; `None` for other fields (type, class, ttl…).
fn rewrite_rule(words: &[&str]) -> Option<Rule> {
    let words = match words.first() {
        Some(&("continue" | "stop")) => &words[1..],
        _ => words,
    };
    let [field, rest @ ..] = words else {
        return None;
    };
    if *field != "name" {
        return None;
    }
    let (kind, from, to) = match rest {
        [kind @ ("exact" | "prefix" | "suffix" | "substring" | "regex"), from, to, ..] => {
            (*kind, *from, *to)
        }
        [from, to, ..] => ("exact", *from, *to),
        _ => return None,
    };
    let to = normalize(to);
    Some(match kind {
        "exact" => Rule::Exact(normalize(from), to),
        "prefix" => Rule::Prefix(from.to_ascii_lowercase(), to),
        "suffix" => Rule::Suffix(normalize(from), to),
        "substring" => Rule::Substring(from.to_ascii_lowercase(), to),
        _ => {
            // CoreDNS matches the FQDN with its trailing dot; hosts here have none.
            let pattern = from
                .strip_suffix("\\.$")
                .map_or(from.to_string(), |p| format!("{p}$"));
            Rule::Regex(Regex::new(&format!("(?i){pattern}")).ok()?, to)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(corefile: &str) -> DnsRewrites {
        let mut rules = Vec::new();
        read_corefile(corefile, &mut rules);
        DnsRewrites { rules }
    }

    #[test]
    fn reads_every_rewrite_form_of_the_coredns_readme() {
        let dns = rules(
            ".:53 {\n\
             \x20   rewrite name shop.example.com hairpin-proxy.hairpin-proxy.svc.cluster.local\n\
             \x20   rewrite stop name exact API.example.com. api.shop.svc.cluster.local\n\
             \x20   rewrite continue name suffix .int.example.com .shop.svc.cluster.local\n\
             \x20   rewrite name prefix www. web-\n\
             \x20   rewrite name substring staging stage\n\
             \x20   rewrite stop name regex (.*)\\.apps\\.example\\.com\\.$ {1}.apps.svc.cluster.local\n\
             \x20   rewrite stop type ANY HINFO\n\
             \x20   kubernetes cluster.local\n\
             }\n",
        );
        let target = |host: &str| dns.target(host);
        assert_eq!(
            target("shop.example.com").as_deref(),
            Some("hairpin-proxy.hairpin-proxy.svc.cluster.local")
        );
        assert_eq!(
            target("api.example.com").as_deref(),
            Some("api.shop.svc.cluster.local")
        );
        assert_eq!(
            target("orders.int.example.com").as_deref(),
            Some("orders.shop.svc.cluster.local")
        );
        assert_eq!(
            target("www.example.org").as_deref(),
            Some("web-example.org")
        );
        assert_eq!(
            target("staging.example.org").as_deref(),
            Some("stage.example.org")
        );
        assert_eq!(
            target("billing.apps.example.com").as_deref(),
            Some("billing.apps.svc.cluster.local")
        );
        assert_eq!(target("example.com"), None);
        assert_eq!(target("other.example.net"), None);
    }

    #[test]
    fn reads_inline_hosts_entries_and_ignores_comments() {
        let dns = rules(
            "example.com:53 {\n  hosts {\n    10.96.0.20 shop.example.com www.shop.example.com\n    \
             fallthrough\n  }\n  # rewrite name old.example.com new.example.com\n}\n",
        );
        assert_eq!(
            dns.target("www.shop.example.com").as_deref(),
            Some("10.96.0.20")
        );
        assert_eq!(dns.target("old.example.com"), None);
        assert_eq!(dns.target("fallthrough"), None);
    }
}
