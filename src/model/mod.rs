//! The cluster model: which pods back each load-balancer entry point, and which pods in
//! the cluster call its address.

use std::collections::HashMap;

use crate::diagnostic::Location;
use crate::objects::{pod_template, selector_matches, Object, Workspace};
use crate::profile::Profile;
use crate::yaml::NodeRef;

/// An object that gets a cloud load-balancer address (a `type: LoadBalancer` Service).
#[derive(Clone, Debug)]
pub struct EntryPoint {
    /// Index into [`Workspace::objects`].
    pub object: usize,
    /// Addresses that reach this load balancer, lower-cased.
    pub addresses: Vec<String>,
    /// Workloads whose pods back it.
    pub backends: Vec<usize>,
}

/// A pod template value that names a load-balancer address.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The calling workload (index into [`Workspace::objects`]).
    pub workload: usize,
    /// Index into [`Model::entry_points`].
    pub target: usize,
    pub address: String,
    /// The value that names the address.
    pub location: Location,
}

#[derive(Debug, Default)]
pub struct Model {
    pub entry_points: Vec<EntryPoint>,
    pub callers: Vec<Caller>,
    /// Objects with a pod template.
    pub workloads: Vec<usize>,
}

impl Model {
    pub fn build(ws: &Workspace, profile: &Profile) -> Model {
        let workloads: Vec<usize> = (0..ws.objects.len())
            .filter(|&i| pod_template(ws, &ws.objects[i]).is_some())
            .collect();
        let mut model = Model {
            workloads,
            ..Model::default()
        };
        for (index, object) in ws.objects.iter().enumerate() {
            if is_load_balancer_service(ws, object) {
                let backends = model
                    .workloads
                    .iter()
                    .copied()
                    .filter(|&w| {
                        let workload = &ws.objects[w];
                        workload.namespace() == object.namespace()
                            && pod_template(ws, workload).is_some_and(|t| {
                                selector_matches(
                                    ws.spec(object).and_then(|s| s.get("selector")),
                                    t.labels,
                                )
                            })
                    })
                    .collect();
                model.entry_points.push(EntryPoint {
                    object: index,
                    addresses: service_addresses(ws, object, profile),
                    backends,
                });
            }
        }
        model.callers = find_callers(ws, &model);
        model
    }

    pub fn entry_point(&self, object: usize) -> Option<(usize, &EntryPoint)> {
        self.entry_points
            .iter()
            .enumerate()
            .find(|(_, e)| e.object == object)
    }

    pub fn callers_of(&self, entry_point: usize) -> impl Iterator<Item = &Caller> {
        self.callers.iter().filter(move |c| c.target == entry_point)
    }
}

pub fn is_load_balancer_service(ws: &Workspace, object: &Object) -> bool {
    object.kind() == "Service"
        && object.group().is_empty()
        && ws
            .spec(object)
            .and_then(|s| s.get("type"))
            .and_then(|t| t.as_str())
            == Some("LoadBalancer")
}

fn normalize_address(text: &str) -> String {
    text.trim().trim_end_matches('.').to_ascii_lowercase()
}

fn service_addresses(ws: &Workspace, object: &Object, profile: &Profile) -> Vec<String> {
    let root = ws.root(object);
    let mut out = Vec::new();
    let mut push = |text: &str| {
        let address = normalize_address(text);
        if !address.is_empty() && !out.contains(&address) {
            out.push(address);
        }
    };
    for ingress in root
        .path(&["status", "loadBalancer", "ingress"])
        .into_iter()
        .flat_map(NodeRef::items)
    {
        for key in ["ip", "hostname"] {
            if let Some(text) = ingress.get(key).and_then(|v| v.as_str()) {
                push(text);
            }
        }
    }
    if let Some(ip) = root
        .path(&["spec", "loadBalancerIP"])
        .and_then(|v| v.as_str())
    {
        push(ip);
    }
    for ip in root
        .path(&["spec", "externalIPs"])
        .into_iter()
        .flat_map(NodeRef::items)
    {
        if let Some(text) = ip.as_str() {
            push(text);
        }
    }
    if let Some((_, hosts)) = ws.annotation(object, "external-dns.alpha.kubernetes.io/hostname") {
        for host in hosts.as_str().unwrap_or("").split(',') {
            push(host);
        }
    }
    for lb in profile.load_balancers() {
        let Some(key) = &lb.object else { continue };
        if key.kind == object.kind()
            && key.namespace == object.namespace()
            && key.name == object.name()
        {
            for address in lb.addresses.iter().flatten() {
                push(address);
            }
        }
    }
    out
}

/// Host-like tokens of a value: runs of `[A-Za-z0-9.-]`, so URLs, `host:port`,
/// `-Dapi=http://10.0.1.25:8080` and bare addresses all yield their host.
fn host_tokens(value: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = None;
    let mut tokens = Vec::new();
    for (i, c) in value
        .char_indices()
        .chain(std::iter::once((value.len(), ' ')))
    {
        let host_char = c.is_ascii_alphanumeric() || c == '.' || c == '-';
        match (host_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                tokens.push((s, value[s..i].trim_end_matches('.')));
                start = None;
            }
            _ => {}
        }
    }
    tokens.into_iter().filter(|(_, t)| !t.is_empty())
}

fn find_callers(ws: &Workspace, model: &Model) -> Vec<Caller> {
    let mut by_address: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, entry) in model.entry_points.iter().enumerate() {
        for address in &entry.addresses {
            by_address.entry(address.as_str()).or_default().push(index);
        }
    }
    let mut out = Vec::new();
    if by_address.is_empty() {
        return out;
    }
    for &workload in &model.workloads {
        let object = &ws.objects[workload];
        let Some(template) = pod_template(ws, object) else {
            continue;
        };
        let mut values: Vec<NodeRef<'_>> = Vec::new();
        for list in ["containers", "initContainers"] {
            for container in template.spec.get(list).into_iter().flat_map(NodeRef::items) {
                for env in container.get("env").into_iter().flat_map(NodeRef::items) {
                    values.extend(env.get("value"));
                }
                for key in ["args", "command"] {
                    values.extend(container.get(key).into_iter().flat_map(NodeRef::items));
                }
            }
        }
        for alias in template
            .spec
            .get("hostAliases")
            .into_iter()
            .flat_map(NodeRef::items)
        {
            values.extend(alias.get("ip"));
            values.extend(alias.get("hostnames").into_iter().flat_map(NodeRef::items));
        }
        for value in values {
            let Some(text) = value.as_str() else { continue };
            for (_, token) in host_tokens(text) {
                let token = token.to_ascii_lowercase();
                if let Some(targets) = by_address.get(token.as_str()) {
                    for &target in targets {
                        out.push(Caller {
                            workload,
                            target,
                            address: token.clone(),
                            location: ws.location(object, value.span()),
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_tokens_find_hosts_inside_longer_values() {
        let tokens: Vec<&str> = host_tokens("-Dapi=http://10.0.1.25:8080/x gw.example.com.")
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            tokens,
            vec!["-Dapi", "http", "10.0.1.25", "8080", "x", "gw.example.com"]
        );
    }
}
