//! Addresses that reach an entry point, and finding host names inside longer values.

use crate::objects::{Object, ObjectId, Workspace};
use crate::profile::Profile;
use crate::source::Location;
use crate::views::{load_balancer_status, Annotations, Views};
use crate::yaml::NodeRef;

use super::entry::EntryKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AddressSource {
    /// `status.loadBalancer.ingress[]` (kubectl dumps carry status).
    Status,
    LoadBalancerIp,
    ExternalIp,
    IngressHost,
    TlsHost,
    ExternalDns,
    GatewayAddress,
    ListenerHostname,
    /// A host of an Ingress that the in-cluster controller behind this Service serves (or of
    /// an Istio Gateway or VirtualService served by the gateway pods behind it).
    ControllerIngressHost,
    /// A hostname of a Gateway API route attached to this Gateway.
    RouteHostname,
    /// The cluster profile's `spec.loadBalancers[].addresses`.
    Profile,
}

#[derive(Clone, Debug)]
pub struct Address {
    /// Lower-cased, trailing dot removed; a wildcard keeps its `*.` prefix.
    pub value: String,
    pub source: AddressSource,
    /// Where the manifest states it (none for profile addresses).
    pub location: Option<Location>,
    /// For a host served through other objects (an in-cluster controller, a route, a
    /// gateway): the chain of objects that links it here, as `lblint model` shows it.
    pub link: Option<String>,
}

impl Address {
    /// Does a host name reach this address? Wildcards match exactly one more label,
    /// as Ingress host wildcards do.
    pub fn matches(&self, host: &str) -> bool {
        match self.value.strip_prefix("*.") {
            Some(suffix) => host
                .strip_suffix(suffix)
                .and_then(|label| label.strip_suffix('.'))
                .is_some_and(|label| !label.is_empty() && !label.contains('.')),
            None => self.value == host,
        }
    }
}

pub fn normalize(text: &str) -> String {
    text.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// Add `text` to `out` as an address, normalized, unless it is empty, can be no load
/// balancer's, or is there already.
pub(super) fn push_address(
    out: &mut Vec<Address>,
    text: &str,
    source: AddressSource,
    location: Option<Location>,
) {
    let value = normalize(text);
    if value.is_empty() || never_load_balancer(&value) || out.iter().any(|a| a.value == value) {
        return;
    }
    out.push(Address {
        link: None,
        value,
        source,
        location,
    });
}

struct Collector<'a> {
    ws: &'a Workspace,
    object: &'a Object,
    out: Vec<Address>,
}

impl Collector<'_> {
    fn push(&mut self, node: Option<NodeRef<'_>>, source: AddressSource) {
        let Some(node) = node else { return };
        let Some(text) = node.as_str() else { return };
        let location = Some(self.ws.location(self.object, node.span()));
        self.push_text(text, source, location);
    }

    fn push_text(&mut self, text: &str, source: AddressSource, location: Option<Location>) {
        push_address(&mut self.out, text, source, location);
    }

    fn push_all(&mut self, nodes: &[NodeRef<'_>], source: AddressSource) {
        for &node in nodes {
            self.push(Some(node), source);
        }
    }
}

/// Every address that reaches entry point `id` of `kind`: what its status reports, what
/// its spec asks for, external-dns's hostnames and the profile's stated addresses; each
/// once, in that order.
pub fn collect(
    ws: &Workspace,
    views: &Views<'_>,
    id: ObjectId,
    kind: EntryKind,
    profile: &Profile,
) -> Vec<Address> {
    let object = &ws.objects[id];
    let mut c = Collector {
        ws,
        object,
        out: Vec::new(),
    };
    for ingress in load_balancer_status(ws, object) {
        c.push(ingress.ip, AddressSource::Status);
        c.push(ingress.hostname, AddressSource::Status);
    }
    match kind {
        EntryKind::Service => {
            if let Some(service) = views.service(id) {
                c.push(service.load_balancer_ip(), AddressSource::LoadBalancerIp);
                c.push_all(service.external_ips(), AddressSource::ExternalIp);
            }
        }
        EntryKind::Ingress => {
            if let Some(ingress) = views.ingress(id) {
                c.push_all(&ingress.rule_hosts(), AddressSource::IngressHost);
                c.push_all(&ingress.tls_hosts(), AddressSource::TlsHost);
            }
        }
        EntryKind::Gateway => {
            if let Some(gateway) = views.gateway(id) {
                let (spec, status) = gateway.addresses.split_at(gateway.spec_addresses);
                c.push_all(spec, AddressSource::GatewayAddress);
                let hostnames: Vec<NodeRef<'_>> = gateway
                    .listeners
                    .iter()
                    .filter_map(|l| l.hostname)
                    .collect();
                c.push_all(&hostnames, AddressSource::ListenerHostname);
                c.push_all(status, AddressSource::Status);
            }
        }
        EntryKind::IstioGateway | EntryKind::External => {}
    }
    let annotations = Annotations::of(ws, object);
    if let Some(hosts) = annotations.value("external-dns.alpha.kubernetes.io/hostname") {
        if let Some(text) = hosts.as_str() {
            let location = Some(ws.location(object, hosts.span()));
            for host in text.split(',') {
                c.push_text(host, AddressSource::ExternalDns, location.clone());
            }
        }
    }
    for lb in profile.load_balancers() {
        if lb.object.as_ref().is_some_and(|key| object.is(key)) {
            for address in lb.addresses.iter().flatten() {
                c.push_text(address, AddressSource::Profile, None);
            }
        }
    }
    c.out
}

/// Loopback and cluster-internal names, which no load balancer answers to: localhost,
/// 127.0.0.0/8, ::1, and `*.svc`, `*.cluster.local` (an Ingress host written so is a
/// mistake, not an address to loop back to).
pub fn never_load_balancer(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host.starts_with("127.") && host.split('.').count() == 4
        || host.ends_with(".svc")
        || host.ends_with(".cluster.local")
}

/// Host-like tokens of a value with their byte offsets: runs of `[A-Za-z0-9.-]`, so URLs,
/// `host:port`, `-Dapi=http://10.0.1.25:8080` and bare addresses all yield their host.
pub fn host_tokens(value: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in value
        .char_indices()
        .chain(std::iter::once((value.len(), ' ')))
    {
        let host_char = c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_';
        match (host_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let token = value[s..i].trim_end_matches('.');
                if !token.is_empty() {
                    tokens.push((s, token));
                }
                start = None;
            }
            _ => {}
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_tokens_find_hosts_inside_longer_values() {
        let tokens: Vec<&str> = host_tokens("-Dapi=http://10.0.1.25:8080/x gw.example.com.")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            tokens,
            vec!["-Dapi", "http", "10.0.1.25", "8080", "x", "gw.example.com"]
        );
        assert_eq!(host_tokens("a=10.0.0.1")[1], (2, "10.0.0.1"));
    }

    #[test]
    fn wildcards_match_one_label() {
        let wildcard = Address {
            link: None,
            value: "*.example.com".into(),
            source: AddressSource::IngressHost,
            location: None,
        };
        assert!(wildcard.matches("api.example.com"));
        assert!(!wildcard.matches("example.com"));
        assert!(!wildcard.matches("a.b.example.com"));
        assert!(!wildcard.matches("apiexample.com"));
    }
}
