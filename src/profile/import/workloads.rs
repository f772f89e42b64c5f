//! Facts from kube-system's workloads and ConfigMaps: kube-proxy (its image tag, and its mode
//! from the KubeProxyConfiguration its `--config` names, else `--proxy-mode`), the CNI and
//! Cilium, self-managed cloud controller managers and their load-balancer options, the AWS
//! Load Balancer Controller, and TKE's controller versions.

use super::dump::{Dump, Obj};
use super::value::Val;
use super::Found;
use crate::profile::CLOUDS;
use crate::yaml::go_values::pflags;
use crate::yaml::{load, Limits};

/// A container of a workload or Pod.
pub(crate) struct Container<'d> {
    pub owner: Obj<'d>,
    pub node: &'d Val,
    pub image: &'d str,
}

impl<'d> Container<'d> {
    /// The value of `--flag=value` or `--flag value` in `command` then `args`; the last
    /// one when repeated, as pflag keeps it.
    pub(crate) fn flag(&self, flag: &str) -> Option<String> {
        let items: Vec<&str> = ["command", "args"]
            .iter()
            .filter_map(|k| self.node.get(k))
            .flat_map(Val::items)
            .filter_map(Val::as_str)
            .collect();
        pflags(&items)
            .into_iter()
            .rev()
            .find(|(name, _)| name == flag)
            .map(|(_, value)| value)
    }

    /// The env entry `name`, with its inline value (`None` for one from `valueFrom`, a
    /// Secret or ConfigMap lblint does not read).
    pub(crate) fn env_entry(&self, name: &str) -> Option<Option<&'d str>> {
        self.node
            .get("env")?
            .items()
            .find(|e| e.get("name").and_then(|n| n.as_str()) == Some(name))
            .map(|e| e.get("value").and_then(|v| v.as_str()))
    }

    pub(crate) fn env(&self, name: &str) -> Option<&'d str> {
        self.env_entry(name).flatten()
    }

    /// The image's tag (`registry/kube-proxy:v1.30.2-eksbuild.1` -> `v1.30.2-eksbuild.1`),
    /// without a digest.
    pub(crate) fn tag(&self) -> Option<&'d str> {
        let image = self.image.split('@').next()?;
        let (_, last) = image.rsplit_once('/').unwrap_or(("", image));
        last.split_once(':').map(|(_, tag)| tag)
    }
}

/// Containers of DaemonSets, Deployments, StatefulSets and Pods.
pub(crate) fn containers<'d>(dump: &Dump<'d>) -> Vec<Container<'d>> {
    let mut out = Vec::new();
    for obj in &dump.objects {
        let spec = match obj.kind {
            "DaemonSet" | "Deployment" | "StatefulSet" => obj.get(&["spec", "template", "spec"]),
            "Pod" => obj.get(&["spec"]),
            _ => None,
        };
        for list in ["initContainers", "containers"] {
            for node in spec
                .and_then(|s| s.get(list))
                .into_iter()
                .flat_map(|l| l.items())
            {
                let image = node.get("image").and_then(|i| i.as_str()).unwrap_or("");
                out.push(Container {
                    owner: *obj,
                    node,
                    image,
                });
            }
        }
    }
    out
}

/// Image names of a component (the last path part, before the tag).
fn image_name(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    let last = image.rsplit('/').next().unwrap_or(image);
    last.split(':').next().unwrap_or(last)
}

pub(crate) fn is_kube_proxy(c: &Container<'_>) -> bool {
    image_name(c.image) == "kube-proxy"
        || c.node.get("name").and_then(|n| n.as_str()) == Some("kube-proxy")
}

/// kube-proxy's mode and version.
pub(crate) fn kube_proxy(dump: &Dump<'_>, all: &[Container<'_>], found: &mut Found) {
    let proxies: Vec<&Container<'_>> = all.iter().filter(|c| is_kube_proxy(c)).collect();
    let tags: std::collections::BTreeSet<&str> = proxies.iter().filter_map(|c| c.tag()).collect();
    let tagged = proxies.iter().find_map(|c| Some((c, c.tag()?)));
    match (tags.len(), tagged) {
        (1, Some((c, tag))) => found.set(
            "spec.kubeProxy.version",
            tag,
            format!("{} image {}", c.owner.id(), c.image),
        ),
        (0 | 1, _) => {}
        _ => found.conflict(
            "spec.kubeProxy.version",
            &format!(
                "kube-proxy images {}",
                tags.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ),
    }
    let modes: Vec<(String, String)> = proxies.iter().filter_map(|c| mode_of(dump, c)).collect();
    let distinct: std::collections::BTreeSet<&str> =
        modes.iter().map(|(m, _)| m.as_str()).collect();
    match distinct.len() {
        0 if proxies.is_empty() => cilium_replacement(dump, found),
        0 => found.unknown(
            "spec.kubeProxy.mode",
            "kube-proxy's configuration is not in the dumps (add its ConfigMap)",
        ),
        1 => {
            let (mode, why) = &modes[0];
            found.set("spec.kubeProxy.mode", mode, why.clone());
        }
        _ => found.conflict(
            "spec.kubeProxy.mode",
            &modes
                .iter()
                .map(|(m, w)| format!("{m} ({w})"))
                .collect::<Vec<_>>()
                .join(" and "),
        ),
    }
}

/// The mode one kube-proxy runs with: its `--config` file's `mode`, else `--proxy-mode`.
fn mode_of(dump: &Dump<'_>, c: &Container<'_>) -> Option<(String, String)> {
    if let Some(path) = c.flag("config") {
        if let Some((configmap, key)) = mounted_configmap(c, &path) {
            let cm = dump.objects.iter().find(|o| {
                o.kind == "ConfigMap" && o.name == configmap && o.namespace == c.owner.namespace
            })?;
            let text = cm.get(&["data", &key])?.as_str()?;
            let config = load(text, &Limits::default());
            let mode = config
                .documents
                .first()?
                .root()?
                .get("mode")
                .and_then(|m| m.as_str())
                .unwrap_or("");
            let why = format!(
                "{} key {key} (`mode: \"{mode}\"`), which {} reads with --config",
                cm.id(),
                c.owner.id()
            );
            return Some(match mode {
                // kube-proxy's default on Linux.
                "" => (
                    "iptables".to_string(),
                    format!("{why}; an empty mode is kube-proxy's default, iptables on Linux"),
                ),
                mode => (mode.to_string(), why),
            });
        }
    }
    match (c.flag("proxy-mode"), c.flag("config")) {
        (Some(mode), _) => Some((
            mode.to_string(),
            format!("{} flag --proxy-mode={mode}", c.owner.id()),
        )),
        // kube-proxy's platformApplyDefaults (cmd/kube-proxy/app/server_linux.go): an unset
        // mode is iptables on Linux.
        (None, None) => Some((
            "iptables".to_string(),
            format!(
                "{}, which runs kube-proxy with neither --config nor --proxy-mode: its default mode, iptables on Linux",
                c.owner.id()
            ),
        )),
        // A config file lblint cannot see: unknown.
        (None, Some(_)) => None,
    }
}

/// The ConfigMap and key a container reads at `path`, through its volume mounts.
fn mounted_configmap<'d>(c: &Container<'d>, path: &str) -> Option<(&'d str, String)> {
    let spec = match c.owner.kind {
        "Pod" => c.owner.get(&["spec"]),
        _ => c.owner.get(&["spec", "template", "spec"]),
    }?;
    for mount in c.node.get("volumeMounts")?.items() {
        let at = mount.get("mountPath")?.as_str()?.trim_end_matches('/');
        let Some(file) = path.strip_prefix(at).and_then(|p| p.strip_prefix('/')) else {
            continue;
        };
        let volume = mount.get("name")?.as_str()?;
        let cm = spec
            .get("volumes")?
            .items()
            .find(|v| v.get("name").and_then(|n| n.as_str()) == Some(volume))?
            .get("configMap")?;
        // `items:` may map a key to another file name.
        let key = cm
            .get("items")
            .into_iter()
            .flat_map(|i| i.items())
            .find(|i| i.get("path").and_then(|p| p.as_str()) == Some(file))
            .and_then(|i| i.get("key")?.as_str())
            .unwrap_or(file)
            .to_string();
        return Some((cm.get("name")?.as_str()?, key));
    }
    None
}

/// No kube-proxy: Cilium's kube-proxy replacement answers Services.
fn cilium_replacement(dump: &Dump<'_>, found: &mut Found) {
    let replacement = dump.objects.iter().find_map(|o| {
        (o.kind == "ConfigMap" && o.name == "cilium-config")
            .then(|| Some((o.text(&["data", "kube-proxy-replacement"])?, o.id())))?
    });
    // GKE Dataplane V2 runs its Cilium as kube-system/anetd, without kube-proxy
    // (cilium/cilium-cli#216: "The agent pod is named `anet`").
    let anetd = dump
        .objects
        .iter()
        .find(|o| o.kind == "DaemonSet" && o.namespace == "kube-system" && o.name == "anetd");
    match (replacement, anetd) {
        (Some((value @ ("true" | "strict"), id)), _) => found.set(
            "spec.kubeProxy.mode",
            "ebpf",
            format!("no kube-proxy in the dumps, and {id} has kube-proxy-replacement: {value}"),
        ),
        (_, Some(anetd)) => found.set(
            "spec.kubeProxy.mode",
            "ebpf",
            format!(
                "no kube-proxy in the dumps, and {}: GKE Dataplane V2's Cilium answers Services",
                anetd.id()
            ),
        ),
        _ => found.unknown(
            "spec.kubeProxy.mode",
            "no kube-proxy in the dumps (it may run as a static pod: add `kubectl -n kube-system get pods -o yaml`)",
        ),
    }
}

/// CNIs by their image names.
const CNIS: &[(&str, &str)] = &[
    ("amazon-k8s-cni", "vpc-cni"),
    ("terway", "terway"),
    ("cilium", "cilium"),
    ("calico-node", "calico"),
    ("node", "calico"),
    ("flannel", "flannel"),
    ("kube-flannel", "flannel"),
    ("weave-kube", "weave"),
    ("antrea-agent", "antrea"),
    ("kube-router", "kube-router"),
    ("azure-cns", "azure-cni"),
];

/// The CNI (from DaemonSet images) and Cilium's version.
pub(crate) fn network(all: &[Container<'_>], found: &mut Found) {
    let mut cnis: Vec<(&str, String)> = Vec::new();
    for c in all.iter().filter(|c| c.owner.kind == "DaemonSet") {
        let name = image_name(c.image);
        let cni = CNIS
            .iter()
            .find(|(image, _)| *image == name)
            .map(|(_, cni)| *cni);
        // Calico's image is `calico/node`: only that `node`.
        let cni = cni.filter(|_| name != "node" || c.image.contains("calico/node"));
        if let Some(cni) = cni {
            if !cnis.iter().any(|(n, _)| *n == cni) {
                cnis.push((cni, format!("{} image {}", c.owner.id(), c.image)));
            }
        }
        if name == "cilium" {
            if let Some(tag) = c.tag() {
                found.set(
                    "spec.addons.cilium",
                    tag.trim_start_matches('v'),
                    format!("{} image {}", c.owner.id(), c.image),
                );
            }
        }
    }
    match cnis.len() {
        0 => {}
        1 => found.set("spec.network.cni", cnis[0].0, cnis[0].1.clone()),
        // Cilium chained on another CNI, say: the dataplane that owns Services is unclear.
        _ => found.conflict(
            "spec.network.cni",
            &cnis
                .iter()
                .map(|(c, w)| format!("{c} ({w})"))
                .collect::<Vec<_>>()
                .join(" and "),
        ),
    }
}

/// The self-managed CCM's version and options, and the AWS Load Balancer Controller's.
pub(crate) fn controllers(dump: &Dump<'_>, all: &[Container<'_>], found: &mut Found) {
    for c in all {
        let name = image_name(c.image);
        let evidence = || format!("{} image {}", c.owner.id(), c.image);
        // The self-managed cloud controllers ([`crate::profile::Cloud::ccm`]).
        let ccm = CLOUDS
            .iter()
            .find_map(|cloud| cloud.ccm.filter(|(image, _)| *image == name));
        if let Some((_, options)) = ccm {
            if let Some(tag) = c.tag() {
                found.set("spec.addons.cloudControllerManager", tag, evidence());
            }
            for (env, option) in options {
                let field = format!("spec.addons.cloudControllerManagerOptions.{option}");
                match c.env(env).map(crate::yaml::go_values::parse_go_bool) {
                    Some(Some(value)) => found.set_owned(
                        field,
                        value.to_string(),
                        format!("{} env {env}", c.owner.id()),
                    ),
                    Some(None) => found.conflict_owned(
                        field,
                        format!("{} env {env} is not a boolean", c.owner.id()),
                    ),
                    None => {}
                }
            }
            if name == "hcloud-cloud-controller-manager" {
                // Set from a Secret too (deploy/ccm-networks.yaml): set is what counts.
                let network = c.env_entry("HCLOUD_NETWORK").is_some_and(|v| v != Some(""));
                found.set(
                    "spec.addons.cloudControllerManagerOptions.privateNetwork",
                    &network.to_string(),
                    format!(
                        "{} env HCLOUD_NETWORK {}",
                        c.owner.id(),
                        if network { "set" } else { "not set" }
                    ),
                );
            }
            if name == "openstack-cloud-controller-manager" {
                found.unknown(
                    "spec.addons.cloudControllerManagerOptions.enableIngressHostname",
                    "OCCM reads it from its cloud-config Secret, which lblint never reads: state `[LoadBalancer] enable-ingress-hostname` by hand",
                );
            }
        }
        if name == "aws-load-balancer-controller" {
            if let Some(tag) = c.tag() {
                found.set("spec.addons.awsLoadBalancerController", tag, evidence());
            }
        }
    }
    for obj in &dump.objects {
        if obj.kind == "MutatingWebhookConfiguration"
            && obj.name.contains("aws-load-balancer-webhook")
        {
            let service_hook = obj
                .get(&["webhooks"])
                .into_iter()
                .flat_map(|w| w.items())
                .any(|w| w.get("name").and_then(|n| n.as_str()) == Some("mservice.elbv2.k8s.aws"));
            found.set(
                "spec.addons.awsLoadBalancerControllerOptions.serviceMutatorWebhook",
                &service_hook.to_string(),
                format!(
                    "{} {} the webhook mservice.elbv2.k8s.aws",
                    obj.id(),
                    if service_hook { "has" } else { "lacks" }
                ),
            );
        }
        // TKE's controllers state their versions in ConfigMaps (key VERSION).
        if obj.kind == "ConfigMap"
            && obj.namespace == "kube-system"
            && obj.name == "tke-ingress-controller-config"
        {
            if let Some(version) = obj.text(&["data", "VERSION"]) {
                found.set(
                    "spec.addons.ingressController",
                    version,
                    format!("{} key VERSION", obj.id()),
                );
            }
        }
    }
}
