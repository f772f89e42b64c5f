//! In-cluster callers: every place in a pod template (or a ConfigMap it consumes) that
//! names an address, classified as a load-balancer call or a safe in-cluster call.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::objects::{Object, ObjectId, Workspace};
use crate::source::Span;
use crate::views::{pod_template, Argv, PodTemplate, Site, Views};
use crate::yaml::NodeRef;

use super::address::{host_tokens, normalize};
use super::aliases::{alias_maps, aliased_elsewhere, targets_of, MeshHosts};
use super::calls::{Caller, Evidence, SafeCall, Via};
use super::consumed::store_values;
use super::dns::{DnsRewrites, COREDNS_CONFIG};
use super::evidence::{classify, Document, Reading};
use super::parts::in_parts;
use super::service_names::ServiceNames;
use super::{EntryId, EntryPoint};
use crate::views::Store;

/// A value to scan, where it is, and how the pod uses it.
struct Value<'w> {
    node: NodeRef<'w>,
    /// The text scanned: the node's string, or a Secret's decoded `data` value.
    text: Option<Cow<'w, str>>,
    object: &'w Object,
    via: Via,
    /// How the program receives the value, which decides how it is read.
    reading: Reading<'w>,
}

/// The values the pod may dial, each with where the pod writes it.
fn container_values<'w>(object: &'w Object, template: &PodTemplate<'w>, out: &mut Vec<Value<'w>>) {
    for (node, site) in template.values() {
        let argv = |a: Argv<'w>| Reading::Argv {
            program: a.program,
            previous: a.previous,
        };
        let (via, reading) = match site {
            Site::Env(name) => (
                Via::Env {
                    name: name.to_string(),
                },
                Reading::Env(Cow::Borrowed(name)),
            ),
            Site::Arg(a) => (Via::Arg, argv(a)),
            Site::Command(a) => (Via::Command, argv(a)),
            Site::Probe => (Via::Probe, Reading::Site),
            Site::HostAlias => (Via::HostAlias, Reading::Site),
        };
        out.push(Value {
            node,
            text: node.as_str().map(Cow::Borrowed),
            object,
            via,
            reading,
        });
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
    // A bounded look back: a huge one-line value must not cost a pass per address.
    let mut low = at.saturating_sub(4096);
    while !text.is_char_boundary(low) {
        low -= 1;
    }
    let line_start = text[low..at].rfind('\n').map_or(low, |i| low + i + 1);
    let line = text[line_start..].trim_start();
    line.starts_with('#') || line.starts_with("//") || line.starts_with(';')
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

/// What a workload's values are looked up in, built once per run: the load balancers'
/// addresses, the in-cluster names of Services, ConfigMaps and Secrets, aliases and DNS
/// rewrites. Shared by the threads that scan workloads.
struct CallIndex<'w> {
    ws: &'w Workspace,
    views: &'w Views<'w>,
    entry_points: &'w [EntryPoint],
    /// Load-balancer addresses, and the suffixes of wildcard ones (`*.shop.example`).
    exact: HashMap<&'w str, Vec<EntryId>>,
    wildcard: HashMap<&'w str, Vec<EntryId>>,
    /// Services by in-cluster name and ClusterIP, and by (namespace, name) for bare names
    /// in host position.
    services: ServiceNames<'w>,
    /// Services without a written namespace, by name: applying chooses their namespace,
    /// so `name.<any namespace>.svc` may be them (and `name.default` is not a given).
    unplaced: HashMap<&'w str, ObjectId>,
    stores: HashMap<(Store, &'w str, &'w str), Vec<ObjectId>>,
    /// ExternalName Services that alias load-balancer hosts.
    aliases: HashMap<ObjectId, Vec<EntryId>>,
    mesh_hosts: MeshHosts,
    /// CoreDNS rewrites: every pod's call of a host rewritten away from the load balancers
    /// stays inside.
    dns: DnsRewrites,
}

/// Where a token's calls go: load balancers (directly or through a mesh host), or a
/// Service by its in-cluster name.
struct Lookup {
    targets: Vec<EntryId>,
    /// The ServiceEntry that maps the host to a load-balancer address.
    mesh: Option<ObjectId>,
    service: Option<ObjectId>,
}

/// One workload's scan: the pod's own facts every value of it shares.
struct Scan<'a, 'w> {
    workload: ObjectId,
    object: &'w Object,
    /// Hosts this pod maps elsewhere with hostAliases (to a ClusterIP, say): its calls of
    /// them do not reach the load balancer.
    aliased: HashSet<String>,
    from_node: bool,
    callers: &'a mut Vec<Caller>,
    safe: &'a mut Vec<SafeCall>,
}

pub fn find(
    ws: &Workspace,
    views: &Views<'_>,
    entry_points: &[EntryPoint],
    workloads: &[ObjectId],
    threads: usize,
) -> (Vec<Caller>, Vec<SafeCall>) {
    let index = CallIndex::new(ws, views, entry_points);
    // Workloads are independent, so they are scanned on `threads`.
    let (mut callers, safe) = in_parts(workloads, threads, |part| {
        let (mut callers, mut safe) = (Vec::new(), Vec::new());
        for &workload in part {
            index.scan_workload(workload, &mut callers, &mut safe);
        }
        (callers, safe)
    });
    callers.extend(super::implicit::callers(ws, views, workloads, |host| {
        let targets = targets_of(host, &index.exact, &index.wildcard);
        // The controllers' pods resolve through CoreDNS like any other.
        if !targets.is_empty() && index.rewritten_away(host) {
            return Vec::new();
        }
        targets
    }));
    (callers, safe)
}

impl<'w> CallIndex<'w> {
    fn new(
        ws: &'w Workspace,
        views: &'w Views<'w>,
        entry_points: &'w [EntryPoint],
    ) -> CallIndex<'w> {
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
        let mut index = CallIndex {
            ws,
            views,
            entry_points,
            exact,
            wildcard,
            services: ServiceNames::default(),
            unplaced: HashMap::new(),
            stores: HashMap::new(),
            aliases: HashMap::new(),
            mesh_hosts: MeshHosts::new(),
            dns: DnsRewrites::default(),
        };
        for (id, object) in ws.ids() {
            if !object.group().is_empty() {
                continue;
            }
            match object.kind() {
                "Service" => index.add_service(id, object),
                "ConfigMap" => index.add_store(Store::ConfigMap, id, object),
                "Secret" => index.add_store(Store::Secret, id, object),
                _ => {}
            }
        }
        (index.aliases, index.mesh_hosts) = alias_maps(views, &index.exact, &index.wildcard);
        let coredns = COREDNS_CONFIG.iter().flat_map(|&(namespace, name)| {
            index
                .stores
                .get(&(Store::ConfigMap, namespace, name))?
                .last()
                .copied()
        });
        index.dns = DnsRewrites::read(views, &coredns.collect::<Vec<_>>());
        index
    }

    /// CoreDNS answers `host` with a name or address that is no load balancer's.
    fn rewritten_away(&self, host: &str) -> bool {
        if self.dns.is_empty() {
            return false;
        }
        self.dns
            .target(host)
            .is_some_and(|to| targets_of(&to, &self.exact, &self.wildcard).is_empty())
    }

    fn add_service(&mut self, id: ObjectId, object: &'w Object) {
        if object.written_namespace().is_none() {
            self.unplaced.insert(object.name(), id);
        }
        let ips = self.views.service(id).map(|s| s.cluster_ips());
        self.services.add(id, object, ips.unwrap_or_default());
    }

    fn add_store(&mut self, store: Store, id: ObjectId, object: &'w Object) {
        self.stores
            .entry((store, object.namespace(), object.name()))
            .or_default()
            .push(id);
    }

    /// One workload's calls and safe calls.
    fn scan_workload(
        &self,
        workload: ObjectId,
        callers: &mut Vec<Caller>,
        safe: &mut Vec<SafeCall>,
    ) {
        let object = &self.ws.objects[workload];
        let Some(template) = pod_template(self.ws, object) else {
            return;
        };
        let mut values = Vec::new();
        container_values(object, &template, &mut values);
        self.consumed_values(object, &template, &mut values);
        let mut scan = Scan {
            workload,
            object,
            aliased: aliased_elsewhere(&template, &self.exact),
            from_node: template.host_network().and_then(|h| h.as_bool()) == Some(true),
            callers,
            safe,
        };
        for value in &values {
            let Some(text) = value.text.as_deref() else {
                continue;
            };
            // Read once, when the first address of a load balancer turns up in it.
            let document = std::cell::OnceCell::new();
            for (at, token) in host_tokens(text) {
                self.classify_token(&mut scan, value, &document, text, at, token);
            }
        }
        self.scan_images(&mut scan, &template);
    }

    /// The kubelet's pulls of the pod's images from a registry at a load-balancer address.
    /// They leave from the node and resolve through the node's DNS, so neither the pod's
    /// hostAliases nor CoreDNS rewrites apply, and no in-cluster name is a way out.
    fn scan_images(&self, scan: &mut Scan<'_, 'w>, template: &PodTemplate<'w>) {
        for node in template.all_containers().filter_map(|c| c.image_node()) {
            let Some(host) = node.as_str().and_then(registry_host) else {
                continue;
            };
            let host = normalize(host);
            let mut targets = targets_of(&host, &self.exact, &self.wildcard);
            targets.sort_unstable();
            targets.dedup();
            let location = self.ws.location(scan.object, node.span());
            scan.callers
                .extend(targets.into_iter().map(|target| Caller {
                    evidence: Evidence::Call,
                    reason: "the kubelet pulls the image from it".to_string(),
                    from_node: true,
                    workload: scan.workload,
                    target,
                    address: host.clone(),
                    location: location.clone(),
                    // Not an address a fix may replace with an in-cluster name: the node
                    // cannot resolve one.
                    address_span: None,
                    via: Via::ImagePull,
                    alias: None,
                }));
        }
    }

    /// The values of the ConfigMap and Secret keys the pod reads (its own copy, when
    /// several overlays hold one of that name).
    fn consumed_values(
        &self,
        object: &'w Object,
        template: &PodTemplate<'w>,
        values: &mut Vec<Value<'w>>,
    ) {
        let ws = self.ws;
        for store in [Store::ConfigMap, Store::Secret] {
            for consumed in template.consumed(store) {
                let (name, key) = (consumed.name, consumed.key);
                // CoreDNS reads its Corefile; the hosts in it are names it serves, not calls.
                if COREDNS_CONFIG.contains(&(object.namespace(), name)) {
                    continue;
                }
                let Some(all) = self.stores.get(&(store, object.namespace(), name)) else {
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
                        let reading = Reading::of_key(consumed.read, k);
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
                            reading,
                        });
                    }
                }
            }
        }
    }

    /// Where `host` leads: load-balancer targets (or a mesh host's), else a Service by one
    /// of its in-cluster names. A bare Service name counts only in host position.
    fn lookup(&self, host: &str, namespace: &str, url_host: bool) -> Lookup {
        let mut targets = targets_of(host, &self.exact, &self.wildcard);
        // A mesh host whose ServiceEntry sends it to a load-balancer address.
        let mesh = match self.mesh_hosts.get(host) {
            Some((entry, mesh_targets)) if targets.is_empty() => {
                targets.extend(mesh_targets);
                Some(*entry)
            }
            _ => None,
        };
        let service = if targets.is_empty() {
            self.services
                .in_cluster(host)
                .or_else(|| unplaced_service(&self.unplaced, host, url_host))
                .or_else(|| {
                    url_host
                        .then(|| self.services.short(namespace, host))
                        .flatten()
                })
        } else {
            None
        };
        Lookup {
            targets,
            mesh,
            service,
        }
    }

    /// One host-like token of a value: a call of a load balancer (directly or through an
    /// alias), a safe call of a Service, or nothing.
    fn classify_token<'t>(
        &self,
        scan: &mut Scan<'_, 'w>,
        value: &Value<'w>,
        document: &std::cell::OnceCell<Document<'t>>,
        text: &'t str,
        at: usize,
        token: &str,
    ) {
        // Lower-cased only when it has capitals: most tokens are not hosts at all.
        let host: Cow<'_, str> = if token.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(token.to_ascii_lowercase())
        } else {
            Cow::Borrowed(token)
        };
        let host = host.as_ref();
        if scan.aliased.contains(host) {
            return;
        }
        let url_host = text[..at].ends_with("://") || text[at + token.len()..].starts_with(':');
        let Lookup {
            mut targets,
            mesh,
            service,
        } = self.lookup(host, scan.object.namespace(), url_host);
        if targets.is_empty() && service.is_none() {
            return; // most tokens: no need to locate them
        }
        if !targets.is_empty() && self.rewritten_away(host) {
            return;
        }
        // After the lookups: most tokens name nothing, and these look back along the line.
        // An embedded file (a ConfigMap or Secret key): its comment lines call nothing.
        let embedded = matches!(value.via, Via::ConfigMap { .. } | Via::Secret { .. });
        if is_mail_domain(text, at) || embedded && in_comment_line(text, at) {
            return;
        }
        let ws = self.ws;
        let address_span = token_span(ws, value.object, value.node, text, at, token);
        // In a block scalar, point at the address's own line, not at the `|`.
        let span = match address_span {
            Some(span) if value.node.is_block_scalar() => span,
            _ => value.node.span(),
        };
        let location = ws.location(value.object, span);
        let doc = document.get_or_init(|| Document::new(&value.reading, text));
        let judged = classify(&value.via, &value.reading, doc, at, token);
        let evidence = judged.evidence;
        let call = |target, evidence| Caller {
            evidence,
            reason: judged.reason.clone(),
            from_node: scan.from_node,
            workload: scan.workload,
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
            for target in targets {
                // The app's own public URL on a backend of that very entry point: its own
                // name, not even a note.
                if evidence == Evidence::Identity
                    && self.entry_points[target.0]
                        .backends
                        .contains(&scan.workload)
                {
                    continue;
                }
                scan.callers.push(call(target, evidence));
            }
            return;
        }
        // An ExternalName Service that aliases a load-balancer host: calling the alias
        // calls the load balancer.
        if let Some((service, targets)) = service.and_then(|s| Some((s, self.aliases.get(&s)?))) {
            scan.callers.extend(targets.iter().map(|&target| Caller {
                alias: Some(service),
                ..call(target, evidence)
            }));
            return;
        }
        if let Some(service) = service {
            scan.safe.push(SafeCall {
                workload: scan.workload,
                service,
                host: host.to_string(),
                location: location.clone(),
                via: value.via.clone(),
            });
        }
    }
}

/// The registry host of an image reference, without its port: the first path component
/// when it has a `.` or a `:` or is `localhost` (the Docker reference grammar); `None` for
/// Docker Hub images.
fn registry_host(image: &str) -> Option<&str> {
    let (first, _) = image.trim().split_once('/')?;
    if !(first.contains(['.', ':']) || first == "localhost") {
        return None;
    }
    // `[::1]:5000` keeps its brackets off; `host:5000` loses its port.
    let host = match first.strip_prefix('[') {
        Some(rest) => rest.split_once(']')?.0,
        None => first.split(':').next()?,
    };
    Some(host)
}

#[cfg(test)]
#[path = "tests/callers.rs"]
mod tests;
