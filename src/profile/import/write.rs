//! The imported profile as commented YAML, in the shape `profile init` writes: every field
//! with the evidence it came from, every fact left out with how to state it.

use std::fmt::Write as _;

use super::dump::Dump;
use super::nodes::Pool;
use super::workloads::Container;
use super::Found;

/// A LoadBalancer Service's or an Ingress's reported addresses.
pub(crate) struct LbAddresses {
    pub object: String,
    pub addresses: Vec<String>,
}

/// An IngressClass served by controller pods that publish a Service's address.
pub(crate) struct Link {
    pub class: String,
    pub service: String,
    pub why: String,
}

/// Addresses from `status.loadBalancer.ingress` of Services of type LoadBalancer and of
/// Ingresses.
pub(crate) fn load_balancers(dump: &Dump<'_>) -> Vec<LbAddresses> {
    let mut out = Vec::new();
    for obj in &dump.objects {
        let wanted = match obj.kind {
            "Service" => obj.text(&["spec", "type"]) == Some("LoadBalancer"),
            "Ingress" => true,
            _ => false,
        };
        if !wanted || obj.namespace.is_empty() {
            continue;
        }
        let addresses: Vec<String> = obj
            .get(&["status", "loadBalancer", "ingress"])
            .into_iter()
            .flat_map(|i| i.items())
            .flat_map(|i| [i.get("ip"), i.get("hostname")])
            .filter_map(|n| Some(n?.as_str()?.to_string()))
            // Only what a profile holds: an IP or a DNS name.
            .filter(|a| crate::profile::values::is_ip_or_dns_name(a))
            .collect();
        if !addresses.is_empty() {
            out.push(LbAddresses {
                object: format!("{}/{}/{}", obj.kind, obj.namespace, obj.name),
                addresses,
            });
        }
    }
    out
}

/// IngressClasses whose controller pods say which Service publishes their address
/// (`--publish-service`), as the model links them from manifests.
pub(crate) fn ingress_links(dump: &Dump<'_>, containers: &[Container<'_>]) -> Vec<Link> {
    let mut out = Vec::new();
    for class in dump.objects.iter().filter(|o| o.kind == "IngressClass") {
        let controller = class.text(&["spec", "controller"]).unwrap_or("");
        for c in containers {
            let Some(publish) = c.flag("publish-service") else {
                continue;
            };
            let serves = c.flag("controller-class").as_deref() == Some(controller)
                || c.flag("ingress-class").as_deref() == Some(class.name)
                || (controller == "k8s.io/ingress-nginx" && c.image.contains("ingress-nginx"));
            let Some((ns, name)) = publish.split_once('/') else {
                continue;
            };
            let ns = if ns.starts_with("$(") {
                c.owner.namespace
            } else {
                ns
            };
            if serves && !out.iter().any(|l: &Link| l.class == class.name) {
                out.push(Link {
                    class: class.name.to_string(),
                    service: format!("Service/{ns}/{name}"),
                    why: format!("{} (controller {controller}) is served by {} with --publish-service={publish}", class.id(), c.owner.id()),
                });
            }
        }
    }
    out
}

/// A YAML scalar: plain when that reads back as the same string, else double-quoted.
fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'/' | b'_'))
        && !matches!(
            value,
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        )
        && value.parse::<f64>().is_err()
        && !value.starts_with(['-', '.']);
    if plain {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_default()
    }
}

/// The fields in the order the profile template writes them: (path, key, indent).
const FIELDS: &[(&str, &str, usize)] = &[
    ("spec.provider", "provider", 2),
    ("spec.kubernetesVersion", "kubernetesVersion", 2),
];

const NESTED: &[(&str, &[(&str, &str)])] = &[
    (
        "kubeProxy",
        &[
            ("spec.kubeProxy.mode", "mode"),
            ("spec.kubeProxy.version", "version"),
            ("spec.kubeProxy.lbAddressBinding", "lbAddressBinding"),
        ],
    ),
    ("network", &[("spec.network.cni", "cni")]),
    (
        "addons",
        &[
            ("spec.addons.ingressController", "ingressController"),
            (
                "spec.addons.cloudControllerManager",
                "cloudControllerManager",
            ),
            (
                "spec.addons.awsLoadBalancerController",
                "awsLoadBalancerController",
            ),
            ("spec.addons.cilium", "cilium"),
        ],
    ),
];

const OPTIONS: &[(&str, &[&str])] = &[
    (
        "cloudControllerManagerOptions",
        &[
            "usesProxyProtocol",
            "disablePrivateIngress",
            "privateNetwork",
            "hostnameOnlyIngress",
            "enableIngressHostname",
        ],
    ),
    (
        "awsLoadBalancerControllerOptions",
        &["serviceMutatorWebhook"],
    ),
];

/// Booleans are written plain; everything else as a scalar.
fn value_text(path: &str, value: &str) -> String {
    let boolean = (path.contains("Options.") || path == "spec.kubeProxy.lbAddressBinding")
        && matches!(value, "true" | "false");
    if boolean {
        value.to_string()
    } else {
        scalar(value)
    }
}

fn field(out: &mut String, found: &Found, path: &str, key: &str, indent: usize) -> bool {
    let Some((value, why)) = found.get(path) else {
        return false;
    };
    let pad = " ".repeat(indent);
    let _ = writeln!(out, "{pad}# from {}", why.0);
    let _ = writeln!(out, "{pad}{key}: {}", value_text(path, value));
    true
}

/// The profile's text.
pub(crate) fn profile(
    names: &[String],
    found: &Found,
    pools: &[Pool],
    lbs: &[LbAddresses],
    links: &[Link],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Imported by `lblint profile import` from {}.",
        names.join(", ")
    );
    out.push_str(
        "# Each fact names its evidence; review them, and state what is left out below.\n",
    );
    out.push_str("apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nmetadata:\n  name: imported\nspec:\n");
    if !field(&mut out, found, "spec.provider", "provider", 2) {
        out.push_str("  # no providerID or provider label settles the cloud: state it\n  provider: generic\n");
    }
    for &(path, key, indent) in &FIELDS[1..] {
        field(&mut out, found, path, key, indent);
    }
    for (section, fields) in NESTED {
        let mut body = String::new();
        for (path, key) in *fields {
            field(&mut body, found, path, key, 4);
        }
        if *section == "addons" {
            for (options, keys) in OPTIONS {
                let mut inner = String::new();
                for key in *keys {
                    field(
                        &mut inner,
                        found,
                        &format!("spec.addons.{options}.{key}"),
                        key,
                        6,
                    );
                }
                if !inner.is_empty() {
                    let _ = write!(body, "    {options}:\n{inner}");
                }
            }
        }
        if !body.is_empty() {
            let _ = write!(out, "  {section}:\n{body}");
        }
    }
    write_pools(&mut out, pools);
    write_lists(&mut out, lbs, links);
    write_left_out(&mut out, found);
    out
}

fn write_pools(out: &mut String, pools: &[Pool]) {
    if pools.is_empty() {
        return;
    }
    out.push_str("  nodePools:\n");
    for pool in pools {
        let _ = writeln!(
            out,
            "    # {} node(s), grouped by {}; labels and taints every one of them has",
            pool.nodes, pool.by
        );
        let _ = writeln!(out, "    - name: {}", scalar(&pool.name));
        match &pool.node_type {
            Some(Ok((node_type, why))) => {
                let _ = writeln!(out, "      # from {why}\n      type: {node_type}");
            }
            Some(Err(why)) => {
                let _ = writeln!(
                    out,
                    "      # type: not imported, {why}: state regular, native or super"
                );
            }
            None => {}
        }
        if !pool.labels.is_empty() {
            out.push_str("      labels:\n");
            for (k, v) in &pool.labels {
                let _ = writeln!(
                    out,
                    "        {}: {}",
                    scalar(k),
                    serde_json::to_string(v).unwrap_or_default()
                );
            }
        }
        if !pool.taints.is_empty() {
            out.push_str("      taints:\n");
            for (key, value, effect) in &pool.taints {
                let _ = writeln!(out, "        - key: {}", scalar(key));
                if !value.is_empty() {
                    let _ = writeln!(
                        out,
                        "          value: {}",
                        serde_json::to_string(value).unwrap_or_default()
                    );
                }
                if !effect.is_empty() {
                    let _ = writeln!(out, "          effect: {}", scalar(effect));
                }
            }
        }
    }
}

fn write_lists(out: &mut String, lbs: &[LbAddresses], links: &[Link]) {
    if !lbs.is_empty() {
        // `imported: true`: the whole cluster's, so one team's manifests lack most of them.
        out.push_str("  loadBalancers:\n");
        for lb in lbs {
            out.push_str("    # from its status.loadBalancer.ingress\n");
            let _ = writeln!(out, "    - object: {}\n      imported: true", lb.object);
            let addresses: Vec<String> = lb.addresses.iter().map(|a| scalar(a)).collect();
            let _ = writeln!(out, "      addresses: [{}]", addresses.join(", "));
        }
    }
    if !links.is_empty() {
        out.push_str("  ingressControllers:\n");
        for link in links {
            let _ = writeln!(out, "    # {}", link.why);
            let _ = writeln!(
                out,
                "    - class: {}\n      service: {}\n      imported: true",
                scalar(&link.class),
                link.service
            );
        }
    }
}

fn write_left_out(out: &mut String, found: &Found) {
    if !found.unknown.is_empty() {
        out.push_str("# Not imported (state them by hand if you know them):\n");
        for (path, how) in &found.unknown {
            let _ = writeln!(out, "#   {path}: {how}");
        }
    }
    if !found.conflicts.is_empty() {
        out.push_str("# Left out, the dumps disagree:\n");
        for (path, what) in &found.conflicts {
            let _ = writeln!(out, "#   {path}: {what}");
        }
    }
    let by_hand = match found.get("spec.provider").map(|(p, _)| p.as_str()) {
        Some("cce") => "spec.cceFlavour (CCE Standard or Turbo)",
        Some("tke") => "spec.allowlists (CLB SNAT and keep-alive, enabled by support ticket)",
        Some("ack") => "spec.network.eniDirect (pods on ENI addresses)",
        _ => return,
    };
    let _ = writeln!(
        out,
        "# Not in the cluster API, state it by hand: {by_hand}."
    );
}
