//! In-cluster callers: every place in a pod template (or a ConfigMap it consumes) that
//! names an address, classified as a load-balancer call or a safe in-cluster call.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::diagnostic::Location;
use crate::objects::{pod_template, Object, ObjectId, PodTemplate, Workspace};
use crate::yaml::{NodeRef, Span};

use super::address::{host_tokens, normalize};
use super::aliases::{alias_maps, aliased_elsewhere, coredns_rewrites, targets_of};
use super::consumed::{consumed, store_values, Store};
use super::evidence::{classify, Evidence};
use super::{EntryId, EntryPoint};

/// Where in the pod the address is named.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Via {
    Env {
        name: String,
    },
    Arg,
    Command,
    Probe,
    HostAlias,
    ConfigMap {
        name: String,
        key: String,
    },
    Secret {
        name: String,
        key: String,
        /// A `data` value, base64 in the manifest: the address was found decoded.
        decoded: bool,
    },
    /// cert-manager's controller checks an HTTP-01 challenge for a name it certifies.
    Http01SelfCheck {
        issuer: String,
    },
    /// ingress-nginx sends each request's auth subrequest to `auth-url`.
    AuthUrl,
}

impl Via {
    /// A call a controller makes on an object's behalf (model/implicit.rs): no pod writes
    /// it, so no edit at its location redirects it.
    pub fn is_implied(&self) -> bool {
        matches!(self, Via::Http01SelfCheck { .. } | Via::AuthUrl)
    }
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Env { name } => write!(f, "env {name}"),
            Via::Arg => f.write_str("container argument"),
            Via::Command => f.write_str("container command"),
            Via::Probe => f.write_str("probe host"),
            Via::HostAlias => f.write_str("hostAliases entry"),
            Via::ConfigMap { name, key } => write!(f, "ConfigMap {name} key {key}"),
            Via::Secret { name, key, decoded } => {
                write!(f, "Secret {name} key {key}")?;
                if *decoded {
                    f.write_str(", base64-decoded")?;
                }
                Ok(())
            }
            Via::Http01SelfCheck { issuer } => {
                write!(f, "cert-manager's HTTP-01 self-check, {issuer}")
            }
            Via::AuthUrl => f.write_str("the ingress controller's auth-url subrequest"),
        }
    }
}

/// A pod that calls a load balancer's own address.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The calling workload.
    pub workload: ObjectId,
    pub target: EntryId,
    pub address: String,
    /// The whole value that names the address.
    pub location: Location,
    /// The address itself inside the value, when it maps to source bytes one to one.
    pub address_span: Option<Span>,
    pub via: Via,
    /// How strongly the value shows a call (a URL is a call, free text a mention).
    pub evidence: Evidence,
    /// A `hostNetwork` pod: it calls from the node's own network namespace, which some
    /// kube-proxy modes treat differently (upstream IPVS and eTP Local: rules/K8S013.md).
    pub from_node: bool,
    /// The object that maps the called name to the load balancer's address: an ExternalName
    /// Service or an Istio ServiceEntry with a STATIC endpoint. `None`: the address itself.
    pub alias: Option<ObjectId>,
}

/// A pod that calls a Service by name or ClusterIP: never through the load balancer.
#[derive(Clone, Debug)]
pub struct SafeCall {
    pub workload: ObjectId,
    /// The Service called.
    pub service: ObjectId,
    pub host: String,
    pub location: Location,
    pub via: Via,
}

/// A value to scan, where it is, and how the pod uses it.
struct Value<'w> {
    node: NodeRef<'w>,
    /// The text scanned: the node's string, or a Secret's decoded `data` value.
    text: Option<Cow<'w, str>>,
    object: &'w Object,
    via: Via,
}

fn container_values<'w>(object: &'w Object, template: &PodTemplate<'w>, out: &mut Vec<Value<'w>>) {
    let spec = template.spec;
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for container in spec.get(list).into_iter().flat_map(NodeRef::items) {
            for env in container.get("env").into_iter().flat_map(NodeRef::items) {
                if let Some(value) = env.get("value") {
                    let name = env
                        .get("name")
                        .and_then(|n| n.as_str())
                        .unwrap_or("")
                        .to_string();
                    out.push(Value {
                        node: value,
                        text: value.as_str().map(Cow::Borrowed),
                        object,
                        via: Via::Env { name },
                    });
                }
            }
            for (key, via) in [("args", Via::Arg), ("command", Via::Command)] {
                for item in container.get(key).into_iter().flat_map(NodeRef::items) {
                    out.push(Value {
                        node: item,
                        text: item.as_str().map(Cow::Borrowed),
                        object,
                        via: via.clone(),
                    });
                }
            }
            for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
                if let Some(host) = container.path(&[probe, "httpGet", "host"]) {
                    out.push(Value {
                        node: host,
                        text: host.as_str().map(Cow::Borrowed),
                        object,
                        via: Via::Probe,
                    });
                }
            }
        }
    }
    for alias in spec.get("hostAliases").into_iter().flat_map(NodeRef::items) {
        // A pod that maps a name to the LB IP calls that IP for the name.
        if let Some(ip) = alias.get("ip") {
            out.push(Value {
                node: ip,
                text: ip.as_str().map(Cow::Borrowed),
                object,
                via: Via::HostAlias,
            });
        }
    }
}

/// The byte span of `token` inside a scalar whose source text holds its value verbatim
/// (plain or quoted without escapes on one line), so a fix can replace just the address.
fn token_span(
    ws: &Workspace,
    object: &Object,
    node: NodeRef<'_>,
    value: &str,
    at: usize,
    token: &str,
) -> Option<Span> {
    let source = ws.source(object);
    // Offsets only: lines and columns are worked out for the token alone.
    let extent = node.extent();
    let raw = extent.slice(&source.text);
    let inner_offset = if raw == value {
        0
    } else if raw.len() == value.len() + 2 && raw.get(1..raw.len() - 1) == Some(value) {
        1
    } else if node.is_block_scalar() {
        // A literal block keeps each line verbatim after its indentation: find the token's
        // line of the value among the raw lines after the `|` header.
        let line_start = value[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = value[at..].find('\n').map_or(value.len(), |i| at + i);
        let line = &value[line_start..line_end];
        let body = raw.find('\n')? + 1;
        let found = raw[body..]
            .match_indices(line)
            .map(|(i, _)| body + i)
            .find(|&i| raw[..i].ends_with([' ', '\n']))?;
        return Some(Span {
            start: source.pos_at(extent.start() + found + (at - line_start)),
            end: source.pos_at(extent.start() + found + (at - line_start) + token.len()),
        });
    } else {
        return None;
    };
    let start = extent.start() + inner_offset + at;
    Some(Span {
        start: source.pos_at(start),
        end: source.pos_at(start + token.len()),
    })
}

/// The token at `at` is the domain of an e-mail address (`ops@shop.example.com`,
/// `mailto:`), not a host the pod calls; `https://user@host` still is one.
fn is_mail_domain(text: &str, at: usize) -> bool {
    if !text[..at].ends_with('@') {
        return false;
    }
    let word_start = text[..at]
        .rfind(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | ',' | ';' | '='))
        .map_or(0, |i| i + 1);
    let word = &text[word_start..at];
    word.starts_with("mailto:") || !word.contains("://")
}

/// `at` is on a comment line of an embedded config file: `#` (shell, YAML, TOML,
/// properties, nginx), `//` or `;` (ini) first on the line.
fn in_comment_line(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].trim_start();
    line.starts_with('#') || line.starts_with("//") || line.starts_with(';')
}

/// Names a Service is reachable by inside the cluster.
fn service_names(name: &str, namespace: &str) -> [String; 3] {
    [
        format!("{name}.{namespace}"),
        format!("{name}.{namespace}.svc"),
        format!("{name}.{namespace}.svc.cluster.local"),
    ]
}

/// A Service without a written namespace named as `name.ns.svc[.cluster.local]` (or as
/// `name.ns` in host position, where a two-label host is not a public name).
fn unplaced_service(
    unplaced: &HashMap<&str, ObjectId>,
    host: &str,
    url_host: bool,
) -> Option<ObjectId> {
    let (name, rest) = host.split_once('.')?;
    let tail = rest.split_once('.').map_or("", |(_, tail)| tail);
    let namespaced = match tail {
        "svc" | "svc.cluster.local" => true,
        "" => url_host,
        _ => false,
    };
    namespaced.then(|| unplaced.get(name).copied()).flatten()
}

pub fn find(
    ws: &Workspace,
    entry_points: &[EntryPoint],
    workloads: &[ObjectId],
    threads: usize,
) -> (Vec<Caller>, Vec<SafeCall>) {
    let mut exact: HashMap<&str, Vec<EntryId>> = HashMap::new();
    let mut wildcard: HashMap<&str, Vec<EntryId>> = HashMap::new();
    for (index, entry) in entry_points.iter().enumerate() {
        let index = EntryId(index);
        for address in &entry.addresses {
            match address.value.strip_prefix("*.") {
                Some(suffix) => wildcard.entry(suffix).or_default().push(index),
                None => exact.entry(address.value.as_str()).or_default().push(index),
            }
        }
    }
    // In-cluster names and ClusterIPs of every Service.
    let mut in_cluster: HashMap<String, ObjectId> = HashMap::new();
    // Services without a written namespace, by name: applying chooses their namespace,
    // so `name.<any namespace>.svc` may be them (and `name.default` is not a given).
    let mut unplaced: HashMap<&str, ObjectId> = HashMap::new();
    let mut short_names: HashMap<(&str, &str), ObjectId> = HashMap::new();
    let mut stores: HashMap<(Store, &str, &str), Vec<ObjectId>> = HashMap::new();
    for (index, object) in ws.ids() {
        if object.group().is_empty() && object.kind() == "Service" {
            match object.written_namespace() {
                Some(namespace) => {
                    for name in service_names(object.name(), namespace) {
                        in_cluster.insert(name, index);
                    }
                }
                None => {
                    unplaced.insert(object.name(), index);
                }
            }
            short_names.insert((object.namespace(), object.name()), index);
            let spec = ws.spec(object);
            let ips = spec.and_then(|s| s.get("clusterIP")).into_iter().chain(
                spec.and_then(|s| s.get("clusterIPs"))
                    .into_iter()
                    .flat_map(NodeRef::items),
            );
            for ip in ips.filter_map(|ip| ip.as_str()) {
                if ip != "None" && !ip.is_empty() {
                    in_cluster.insert(normalize(ip), index);
                }
            }
        }
        if object.group().is_empty() && object.kind() == "ConfigMap" {
            stores
                .entry((Store::ConfigMap, object.namespace(), object.name()))
                .or_default()
                .push(index);
        }
        if object.group().is_empty() && object.kind() == "Secret" {
            stores
                .entry((Store::Secret, object.namespace(), object.name()))
                .or_default()
                .push(index);
        }
    }

    let (aliases, mesh_hosts) = alias_maps(ws, &exact, &wildcard);
    // Hosts CoreDNS rewrites to an in-cluster name: every pod's call of them stays inside.
    let rewritten = coredns_rewrites(ws, &stores);
    // One workload's calls: workloads are independent, so they are scanned on `threads`.
    let scan = |workload: ObjectId, callers: &mut Vec<Caller>, safe: &mut Vec<SafeCall>| {
        let object = &ws.objects[workload];
        let Some(template) = pod_template(ws, object) else {
            return;
        };
        // Hosts this pod maps elsewhere with hostAliases (to a ClusterIP, say): its calls of
        // them do not reach the load balancer.
        let aliased = aliased_elsewhere(&template, &exact);
        let from_node = template.host_network().and_then(|h| h.as_bool()) == Some(true);
        let mut values = Vec::new();
        container_values(object, &template, &mut values);
        for store in [Store::ConfigMap, Store::Secret] {
            for (name, key) in consumed(&template, store) {
                // CoreDNS reads its Corefile; the hosts in it are names it serves, not calls.
                if (object.namespace(), name) == ("kube-system", "coredns") {
                    continue;
                }
                // Same-named ConfigMaps in several overlays: the pod's own copy.
                let Some(all) = stores.get(&(store, object.namespace(), name)) else {
                    continue;
                };
                let sources: Vec<&Object> = ws
                    .nearest(object, all)
                    .into_iter()
                    .map(|id| &ws.objects[id])
                    .collect();
                for (source, (k, v, text)) in sources
                    .iter()
                    .flat_map(|&s| store_values(ws, s, store).into_iter().map(move |e| (s, e)))
                {
                    if key.is_none_or(|wanted| wanted == k) {
                        let key = k.to_string();
                        let name = name.to_string();
                        let decoded = matches!(text, Cow::Owned(_));
                        values.push(Value {
                            node: v,
                            text: Some(text),
                            object: source,
                            via: match store {
                                Store::ConfigMap => Via::ConfigMap { name, key },
                                Store::Secret => Via::Secret { name, key, decoded },
                            },
                        });
                    }
                }
            }
        }
        for value in &values {
            let Some(text) = value.text.as_deref() else {
                continue;
            };
            // An embedded file (a ConfigMap or Secret key): its comment lines call nothing.
            let embedded = matches!(value.via, Via::ConfigMap { .. } | Via::Secret { .. });
            for (at, token) in host_tokens(text) {
                // Lower-cased only when it has capitals: most tokens are not hosts at all.
                let host: Cow<'_, str> = if token.bytes().any(|b| b.is_ascii_uppercase()) {
                    Cow::Owned(token.to_ascii_lowercase())
                } else {
                    Cow::Borrowed(token)
                };
                let host = host.as_ref();
                if rewritten.contains(host) || aliased.contains(host) {
                    continue;
                }
                let mut targets = targets_of(host, &exact, &wildcard);
                // A mesh host whose ServiceEntry sends it to a load-balancer address.
                let mesh = match mesh_hosts.get(host) {
                    Some((entry, mesh_targets)) if targets.is_empty() => {
                        targets.extend(mesh_targets);
                        Some(*entry)
                    }
                    _ => None,
                };
                // A bare Service name counts only in host position (`http://web/`, `web:80`).
                let url_host =
                    text[..at].ends_with("://") || text[at + token.len()..].starts_with(':');
                let service = if targets.is_empty() {
                    in_cluster
                        .get(host)
                        .copied()
                        .or_else(|| unplaced_service(&unplaced, host, url_host))
                        .or_else(|| {
                            url_host
                                .then(|| short_names.get(&(object.namespace(), host)).copied())
                                .flatten()
                        })
                } else {
                    None
                };
                if targets.is_empty() && service.is_none() {
                    continue; // most tokens: no need to locate them
                }
                // After the lookups: most tokens name nothing, and these look back along
                // the line.
                if is_mail_domain(text, at) || embedded && in_comment_line(text, at) {
                    continue;
                }
                let address_span = token_span(ws, value.object, value.node, text, at, token);
                // In a block scalar, point at the address's own line, not at the `|`.
                let span = match address_span {
                    Some(span) if value.node.is_block_scalar() => span,
                    _ => value.node.span(),
                };
                let location = ws.location(value.object, span);
                let call = |target, evidence| Caller {
                    evidence,
                    from_node,
                    workload,
                    target,
                    address: host.to_string(),
                    location: location.clone(),
                    address_span,
                    via: value.via.clone(),
                    alias: mesh,
                };
                if !targets.is_empty() {
                    targets.sort_unstable();
                    targets.dedup();
                    let evidence = classify(&value.via, text, at, token);
                    for target in targets {
                        // The app's own public URL on a backend of that very entry point:
                        // its own name, not even a note.
                        if evidence == Evidence::Identity
                            && entry_points[target.0].backends.contains(&workload)
                        {
                            continue;
                        }
                        callers.push(call(target, evidence));
                    }
                    continue;
                }
                // An ExternalName Service that aliases a load-balancer host: calling the
                // alias calls the load balancer.
                if let Some((service, targets)) = service.and_then(|s| Some((s, aliases.get(&s)?)))
                {
                    let evidence = classify(&value.via, text, at, token);
                    callers.extend(targets.iter().map(|&target| Caller {
                        alias: Some(service),
                        ..call(target, evidence)
                    }));
                    continue;
                }
                if let Some(service) = service {
                    safe.push(SafeCall {
                        workload,
                        service,
                        host: host.to_string(),
                        location: location.clone(),
                        via: value.via.clone(),
                    });
                }
            }
        }
    };
    let (mut callers, safe) = in_parts(workloads, threads, |part| {
        let (mut callers, mut safe) = (Vec::new(), Vec::new());
        for &workload in part {
            scan(workload, &mut callers, &mut safe);
        }
        (callers, safe)
    });
    callers.extend(super::implicit::callers(ws, workloads, |host| {
        targets_of(host, &exact, &wildcard)
    }));
    (callers, safe)
}

/// `scan` over `items` cut into up to `threads` parts of at least 64, each part on its own
/// thread; the parts' results joined in order, so the result never depends on `threads`.
fn in_parts<T: Sync, A: Send, B: Send>(
    items: &[T],
    threads: usize,
    scan: impl Fn(&[T]) -> (Vec<A>, Vec<B>) + Sync,
) -> (Vec<A>, Vec<B>) {
    let parts = threads.min(items.len() / 64).max(1);
    if parts == 1 {
        return scan(items);
    }
    let size = items.len().div_ceil(parts);
    std::thread::scope(|scope| {
        let scan = &scan;
        let rest: Vec<_> = items
            .chunks(size)
            .skip(1)
            .map(|part| scope.spawn(move || scan(part)))
            .collect();
        let (mut a, mut b) = scan(&items[..size]);
        for handle in rest {
            // A panic in a part is the caller's, as it would be on one thread.
            let (more_a, more_b) = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            a.extend(more_a);
            b.extend(more_b);
        }
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::address::never_load_balancer;

    #[test]
    fn mail_domains_comments_and_loopback_are_not_calls() {
        let at = |text: &str, host: &str| text.find(host).expect("host in text");
        for mail in [
            "ops@a.example.com",
            "mailto:ops@a.example.com",
            "x, ops@a.example.com",
        ] {
            assert!(is_mail_domain(mail, at(mail, "a.example.com")), "{mail}");
        }
        for url in [
            "https://user@a.example.com/",
            "a.example.com",
            "git@x https://u@a.example.com",
        ] {
            assert!(
                !is_mail_domain(url, url.rfind("a.example.com").unwrap()),
                "{url}"
            );
        }
        let conf =
            "# server a.example.com;\n  // a.example.com\n; a.example.com\nserver a.example.com;";
        let hits: Vec<bool> = conf
            .match_indices("a.example.com")
            .map(|(i, _)| in_comment_line(conf, i))
            .collect();
        assert_eq!(hits, [true, true, true, false]);
        for host in [
            "localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "web.shop.svc",
            "web.shop.svc.cluster.local.",
        ] {
            assert!(never_load_balancer(host), "{host}");
        }
        for host in [
            "10.0.0.1",
            "127.example.com",
            "api.example.com",
            "svc.example.com",
        ] {
            assert!(!never_load_balancer(host), "{host}");
        }
    }
}
