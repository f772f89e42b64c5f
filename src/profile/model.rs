//! Typed cluster profile: the facts about one cluster that rules cannot read from manifests.
//!
//! Every fact is an `Option`: `None` means *unknown*, and rules must treat it as such
//! (never as `false` or a default). Only `spec.provider` is required.
//!
//! These types are the profile's schema: its JSON Schema and the help of its errors are
//! derived from them (`document.rs`), so a field's doc comment is what an editor shows for it.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;

pub(crate) use super::object_key::ObjectKey;
use super::provider::Provider;

/// kube-proxy (or replacement) forwarding mode. Also `profile init --proxy-mode`'s values
/// (clap's names are serde's: lowercase words); variants carry no doc comments, which
/// clap would show as help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProxyMode {
    Iptables,
    Ipvs,
    Nftables,
    Ebpf,
}

impl ProxyMode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ProxyMode::Iptables => "iptables",
            ProxyMode::Ipvs => "ipvs",
            ProxyMode::Nftables => "nftables",
            ProxyMode::Ebpf => "ebpf",
        }
    }
}

impl fmt::Display for ProxyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Node pool kind; `super` is TKE's serverless (eklet) node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeType {
    Regular,
    Native,
    Super,
}

/// Kubernetes taint effect, spelled as in the Node API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

/// A loaded profile. `path` is the file it came from (`None` for [`super::generic`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// `metadata.name`.
    pub name: Option<String>,
    pub spec: Spec,
    pub path: Option<String>,
    /// The file's text, so findings can point at the fact that decided them.
    pub text: Option<std::sync::Arc<str>>,
    /// `text` parsed once, on the first fact lookup.
    pub tree: FactTree,
}

/// A cache of the profile's YAML tree; it carries no facts of its own, so every two compare
/// equal.
#[derive(Clone, Default)]
pub struct FactTree(pub std::sync::Arc<std::sync::OnceLock<Option<crate::yaml::Document>>>);

impl PartialEq for FactTree {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for FactTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FactTree")
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Spec {
    pub provider: Provider,
    /// Kubernetes version, e.g. "1.30.2" (quote it).
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Huawei CCE: standard (CCE Standard) or turbo (CCE Turbo); decides how in-cluster
    /// calls reach an ELB (rules/CCE001.md, rules/CCE002.md).
    #[serde(default)]
    pub cce_flavour: Option<CceFlavour>,
    #[serde(default)]
    pub kube_proxy: Option<KubeProxy>,
    #[serde(default)]
    pub network: Option<Network>,
    #[serde(default)]
    pub node_pools: Option<Vec<NodePool>>,
    #[serde(default)]
    pub addons: Option<Addons>,
    /// Account features enabled by support ticket.
    #[serde(default)]
    pub allowlists: Option<Allowlists>,
    /// Addresses that resolve to this cluster's own load balancers.
    #[serde(default)]
    pub load_balancers: Option<Vec<LoadBalancer>>,
    /// Which LoadBalancer Service fronts the in-cluster ingress controller of a class, when
    /// its pods are not in the manifests.
    #[serde(default)]
    pub ingress_controllers: Option<Vec<IngressControllerLink>>,
}

/// `spec.ingressControllers[]`: Ingresses of `class` are served behind `service`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IngressControllerLink {
    /// The IngressClass name (or legacy class annotation value).
    pub class: String,
    /// Written by `lblint profile import`: it describes the whole cluster, so its Service
    /// may be another team's (LBL007 does not report it missing from these manifests).
    #[serde(default)]
    pub imported: bool,
    /// Service/namespace/name.
    #[schemars(regex(pattern = r"^Service/[^/]+/[^/]+$"))]
    pub service: ObjectKey,
}

impl Spec {
    /// All facts unknown.
    pub(crate) fn unknown(provider: Provider) -> Spec {
        Spec {
            provider,
            kubernetes_version: None,
            cce_flavour: None,
            kube_proxy: None,
            network: None,
            node_pools: None,
            addons: None,
            allowlists: None,
            load_balancers: None,
            ingress_controllers: None,
        }
    }
}

// Note on booleans: serde-saphyr accepts YAML 1.1 spellings (`yes`, `on`, `y`, ...) for bool
// fields because `strict_booleans` stays off; Kubernetes (go-yaml v2) reads them the same
// way, so a profile written by Kubernetes users means what they think it means.

#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KubeProxy {
    /// Service forwarding mode.
    #[serde(default)]
    pub mode: Option<ProxyMode>,
    // Kept as written; rules compare it with `version::parse_version`.
    /// kube-proxy build, e.g. "v1.30.2-tke.3".
    #[serde(default)]
    pub version: Option<String>,
    /// LB addresses are bound to the IPVS NIC (kube-ipvs0; needed by prevent-loopback).
    #[serde(default)]
    pub lb_address_binding: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Network {
    // Free string: vendors add CNIs faster than we could enumerate them.
    /// CNI plugin, e.g. vpc-cni, global-router, terway, flannel, cilium.
    #[serde(default)]
    pub cni: Option<String>,
    /// VKE: pod interface type, e.g. ipvlan.
    #[serde(default)]
    pub pod_interface: Option<String>,
    /// VKE: service forwarding, e.g. ebpf.
    #[serde(default)]
    pub service_forwarding: Option<String>,
    /// ACK: pods have ENI addresses (Terway / inclusive ENI).
    #[serde(default)]
    pub eni_direct: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodePool {
    /// Node pool name.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, rename = "type")]
    pub node_type: Option<NodeType>,
    // An unquoted `true` or `5` is read as the label's text, as Kubernetes reads it.
    #[serde(default)]
    #[schemars(extend("additionalProperties" = {"type": ["string", "number", "boolean"]}))]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub taints: Option<Vec<Taint>>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Taint {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: Option<TaintEffect>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Addons {
    /// TKE L7 (CLB Ingress) controller version.
    #[serde(default)]
    pub ingress_controller: Option<String>,
    /// The provider's own cloud controller manager version: VKE CCM, Hetzner hcloud CCM,
    /// Scaleway CCM, OpenStack OCCM, ...
    #[serde(default)]
    pub cloud_controller_manager: Option<String>,
    /// Settings of the provider's cloud controller manager that decide what a Service's
    /// status reports.
    #[serde(default)]
    pub cloud_controller_manager_options: Option<CloudControllerManagerOptions>,
    /// EKS: AWS Load Balancer Controller version, e.g. "v2.8.2".
    #[serde(default)]
    pub aws_load_balancer_controller: Option<String>,
    /// Settings of the AWS Load Balancer Controller.
    #[serde(default)]
    pub aws_load_balancer_controller_options: Option<AwsLoadBalancerControllerOptions>,
    /// Cilium version, when Cilium is the dataplane, e.g. "1.17.3".
    #[serde(default)]
    pub cilium: Option<String>,
}

// Each is a setting of one provider's CCM (README, "Cluster profile"); `None` when the
// profile does not say, never the CCM's default.
/// `addons.cloudControllerManagerOptions`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloudControllerManagerOptions {
    /// OpenStack OCCM `[LoadBalancer] enable-ingress-hostname`: the status gets a hostname
    /// `<ip>.<suffix>` instead of an IP (and no `ipMode`).
    #[serde(default)]
    pub enable_ingress_hostname: Option<bool>,
    /// Linode CCM env `LINODE_HOSTNAME_ONLY_INGRESS`: every status carries only a hostname.
    #[serde(default)]
    pub hostname_only_ingress: Option<bool>,
    /// Hetzner CCM env `HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS`.
    #[serde(default)]
    pub disable_private_ingress: Option<bool>,
    /// Hetzner CCM env `HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL`: PROXY protocol is the
    /// default for every Service.
    #[serde(default)]
    pub uses_proxy_protocol: Option<bool>,
    /// Hetzner CCM env `HCLOUD_NETWORK` is set: the controller attaches every load balancer
    /// to that private network and reports its private IP in the status too.
    #[serde(default)]
    pub private_network: Option<bool>,
}

/// `addons.awsLoadBalancerControllerOptions`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AwsLoadBalancerControllerOptions {
    /// Helm value `enableServiceMutatorWebhook` (on by default from v2.5.0); true: its
    /// webhook gives plain `type: LoadBalancer` Services the controller's class.
    #[serde(default)]
    pub service_mutator_webhook: Option<bool>,
}

/// `spec.cceFlavour`: Huawei CCE Standard or CCE Turbo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CceFlavour {
    Standard,
    Turbo,
}

impl CceFlavour {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            CceFlavour::Standard => "standard",
            CceFlavour::Turbo => "turbo",
        }
    }
}

impl fmt::Display for CceFlavour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Account features that are only enabled by a support ticket.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Allowlists {
    /// CLB layer-4 SNAT.
    #[serde(default)]
    pub clb_l4_snat: Option<bool>,
    /// CLB layer-7 SNAT.
    #[serde(default)]
    pub clb_l7_snat: Option<bool>,
    /// CLB keep-alive.
    #[serde(default)]
    pub clb_keep_alive: Option<bool>,
}

/// Addresses that resolve to one of this cluster's own load balancers: one a manifest's
/// object gets (`object`), or one created outside Kubernetes (Terraform, the console) in
/// front of a Service's NodePort or pods (`targets`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadBalancer {
    /// Kind/namespace/name.
    #[serde(default)]
    pub object: Option<ObjectKey>,
    /// Written by `lblint profile import`: it describes the whole cluster, so its object
    /// may be another team's (LBL007 does not report it missing from these manifests).
    #[serde(default)]
    pub imported: bool,
    /// A name for messages (a load balancer created outside Kubernetes has no object).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub addresses: Option<Vec<String>>,
    /// Private (VPC) or public: for a reused load balancer (`tke-existed-lbid`,
    /// `loadbalance-id`, `ingress.existLbId`, a Volcengine or Alibaba `loadbalancer-id`),
    /// whose manifest cannot say.
    #[serde(default)]
    pub network: Option<LbNetwork>,
    /// The Service (Service/namespace/name) a load balancer created outside Kubernetes
    /// forwards to: its NodePort on the nodes (`targetType: instance`) or its pods (`ip`).
    #[serde(default)]
    pub targets: Option<ObjectKey>,
    /// What the load balancer's targets are: the nodes (`instance`) or the pods (`ip`).
    #[serde(default)]
    pub target_type: Option<TargetType>,
    /// Whether the load balancer keeps the client's source IP (AWS NLB target group
    /// attribute `preserve_client_ip.enabled`; on by default for instance targets, off for
    /// IP targets over TCP).
    #[serde(default)]
    pub preserves_client_ip: Option<bool>,
}

/// `loadBalancers[].targetType`: the nodes at the Service's NodePort (`instance`) or the
/// pods at their own IPs (`ip`). (Variants undocumented so the schema lists plain values.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TargetType {
    Instance,
    Ip,
}

/// `loadBalancers[].network`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LbNetwork {
    Private,
    Public,
}
