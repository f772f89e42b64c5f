//! Typed cluster profile: the facts about one cluster that rules cannot read from manifests.
//!
//! Every fact is an `Option`: `None` means *unknown*, and rules must treat it as such
//! (never as `false` or a default). Only `spec.provider` is required.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer};

/// Cloud provider the cluster runs on. The names are a contract (README, "Cluster
/// profile"): profiles and the held-out checks spell them exactly so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Tencent Kubernetes Engine.
    Tke,
    /// Volcengine Kubernetes Engine.
    Vke,
    /// Alibaba Cloud Container Service for Kubernetes.
    Ack,
    /// Amazon Elastic Kubernetes Service.
    Eks,
    /// Azure Kubernetes Service.
    Aks,
    /// Google Kubernetes Engine.
    Gke,
    /// Huawei Cloud Container Engine.
    Cce,
    /// Oracle Container Engine for Kubernetes.
    Oke,
    /// DigitalOcean Kubernetes.
    Doks,
    /// Linode / Akamai Kubernetes Engine.
    Lke,
    /// Scaleway Kapsule.
    Scaleway,
    /// Hetzner Cloud (hcloud cloud controller manager).
    Hetzner,
    /// OpenStack cloud controller manager (OCCM): OVHcloud, Selectel, plusserver, ...
    Openstack,
    /// cloudscale.ch.
    Cloudscale,
    /// Any other cluster; also the profile used when none is given.
    Generic,
}

impl Provider {
    pub const ALL: [Provider; 15] = [
        Provider::Tke,
        Provider::Vke,
        Provider::Ack,
        Provider::Eks,
        Provider::Aks,
        Provider::Gke,
        Provider::Cce,
        Provider::Oke,
        Provider::Doks,
        Provider::Lke,
        Provider::Scaleway,
        Provider::Hetzner,
        Provider::Openstack,
        Provider::Cloudscale,
        Provider::Generic,
    ];

    /// Every profile name, in [`Provider::ALL`] order (for help texts and the schema).
    pub const NAMES: [&'static str; 15] = {
        let mut names = [""; 15];
        let mut i = 0;
        while i < names.len() {
            names[i] = Provider::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The name a profile writes, e.g. `doks`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::Tke => "tke",
            Provider::Vke => "vke",
            Provider::Ack => "ack",
            Provider::Eks => "eks",
            Provider::Aks => "aks",
            Provider::Gke => "gke",
            Provider::Cce => "cce",
            Provider::Oke => "oke",
            Provider::Doks => "doks",
            Provider::Lke => "lke",
            Provider::Scaleway => "scaleway",
            Provider::Hetzner => "hetzner",
            Provider::Openstack => "openstack",
            Provider::Cloudscale => "cloudscale",
            Provider::Generic => "generic",
        }
    }

    /// What people call it, for messages: `DigitalOcean DOKS`.
    pub const fn label(self) -> &'static str {
        match self {
            Provider::Tke => "Tencent Cloud TKE",
            Provider::Vke => "Volcengine VKE",
            Provider::Ack => "Alibaba Cloud ACK",
            Provider::Eks => "AWS EKS",
            Provider::Aks => "Azure AKS",
            Provider::Gke => "Google GKE",
            Provider::Cce => "Huawei Cloud CCE",
            Provider::Oke => "Oracle OKE",
            Provider::Doks => "DigitalOcean DOKS",
            Provider::Lke => "Linode / Akamai LKE",
            Provider::Scaleway => "Scaleway Kapsule",
            Provider::Hetzner => "Hetzner Cloud",
            Provider::Openstack => "OpenStack OCCM",
            Provider::Cloudscale => "cloudscale.ch",
            Provider::Generic => "any other cluster",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// kube-proxy (or replacement) forwarding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProxyMode {
    Iptables,
    Ipvs,
    Nftables,
    Ebpf,
}

impl ProxyMode {
    pub const ALL: [ProxyMode; 4] = [
        ProxyMode::Iptables,
        ProxyMode::Ipvs,
        ProxyMode::Nftables,
        ProxyMode::Ebpf,
    ];

    pub fn as_str(self) -> &'static str {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeType {
    Regular,
    Native,
    Super,
}

/// Kubernetes taint effect, spelled as in the Node API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Spec {
    pub provider: Provider,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Huawei CCE only: Standard or Turbo, which decide how in-cluster calls reach an ELB
    /// (rules/CCE001.md, rules/CCE002.md).
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
    #[serde(default)]
    pub allowlists: Option<Allowlists>,
    #[serde(default)]
    pub load_balancers: Option<Vec<LoadBalancer>>,
    /// Which LoadBalancer Service fronts the in-cluster ingress controller of a class, when
    /// the controller's pods are not in the manifests linted.
    #[serde(default)]
    pub ingress_controllers: Option<Vec<IngressControllerLink>>,
}

/// `spec.ingressControllers[]`: Ingresses of `class` are served behind `service`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IngressControllerLink {
    pub class: String,
    /// `Service/<namespace>/<name>`.
    pub service: ObjectKey,
}

impl Spec {
    /// All facts unknown.
    pub fn unknown(provider: Provider) -> Spec {
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

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KubeProxy {
    #[serde(default)]
    pub mode: Option<ProxyMode>,
    /// Kept as written; compare with [`super::version::parse_version`].
    #[serde(default)]
    pub version: Option<String>,
    /// LB addresses bound to the IPVS dummy NIC (kube-ipvs0); needed by prevent-loopback.
    #[serde(default)]
    pub lb_address_binding: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Network {
    /// Free string: vendors add CNIs faster than we could enumerate them.
    #[serde(default)]
    pub cni: Option<String>,
    #[serde(default)]
    pub pod_interface: Option<String>,
    #[serde(default)]
    pub service_forwarding: Option<String>,
    #[serde(default)]
    pub eni_direct: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodePool {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, rename = "type")]
    pub node_type: Option<NodeType>,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub taints: Option<Vec<Taint>>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Taint {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: Option<TaintEffect>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Addons {
    /// TKE L7 (CLB Ingress) controller version.
    #[serde(default)]
    pub ingress_controller: Option<String>,
    /// The provider's own cloud controller manager version: VKE CCM, Hetzner hcloud CCM,
    /// Scaleway CCM, OpenStack OCCM, ...
    #[serde(default)]
    pub cloud_controller_manager: Option<String>,
    /// Options of that cloud controller manager that documented behaviour depends on.
    #[serde(default)]
    pub cloud_controller_manager_options: Option<CloudControllerManagerOptions>,
    /// EKS: AWS Load Balancer Controller version.
    #[serde(default)]
    pub aws_load_balancer_controller: Option<String>,
    #[serde(default)]
    pub aws_load_balancer_controller_options: Option<AwsLoadBalancerControllerOptions>,
    /// Cilium version, when Cilium is the dataplane.
    #[serde(default)]
    pub cilium: Option<String>,
}

/// `addons.cloudControllerManagerOptions`: each is a setting of one provider's CCM (README,
/// "Cluster profile"); `None` when the profile does not say, never the CCM's default.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloudControllerManagerOptions {
    /// OpenStack OCCM `[LoadBalancer] enable-ingress-hostname`: the status gets a fake
    /// hostname `<ip>.<suffix>` instead of an IP (and no `ipMode`).
    #[serde(default)]
    pub enable_ingress_hostname: Option<bool>,
    /// Linode CCM env `LINODE_HOSTNAME_ONLY_INGRESS`: statuses carry only a hostname.
    #[serde(default)]
    pub hostname_only_ingress: Option<bool>,
    /// Hetzner CCM env `HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS`.
    #[serde(default)]
    pub disable_private_ingress: Option<bool>,
    /// Hetzner CCM env `HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL`: PROXY protocol is the
    /// default for every Service.
    #[serde(default)]
    pub uses_proxy_protocol: Option<bool>,
}

/// `addons.awsLoadBalancerControllerOptions`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AwsLoadBalancerControllerOptions {
    /// Helm value `enableServiceMutatorWebhook` (on by default from v2.5.0): the webhook
    /// gives plain `type: LoadBalancer` Services the controller's class.
    #[serde(default)]
    pub service_mutator_webhook: Option<bool>,
}

/// `spec.cceFlavour`: Huawei CCE Standard or CCE Turbo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CceFlavour {
    Standard,
    Turbo,
}

impl CceFlavour {
    pub const ALL: [CceFlavour; 2] = [CceFlavour::Standard, CceFlavour::Turbo];
    pub const NAMES: [&'static str; 2] =
        [CceFlavour::Standard.as_str(), CceFlavour::Turbo.as_str()];

    pub const fn as_str(self) -> &'static str {
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
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Allowlists {
    #[serde(default)]
    pub clb_l4_snat: Option<bool>,
    #[serde(default)]
    pub clb_l7_snat: Option<bool>,
    #[serde(default)]
    pub clb_keep_alive: Option<bool>,
}

/// Addresses that resolve to one of this cluster's own load balancers.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadBalancer {
    #[serde(default)]
    pub object: Option<ObjectKey>,
    #[serde(default)]
    pub addresses: Option<Vec<String>>,
    /// Whether the load balancer is on the private network (VPC) or public: stated for a
    /// reused load balancer (`tke-existed-lbid`, `ingress.existLbId`, a Volcengine
    /// `loadbalancer-id`), whose manifest cannot say.
    #[serde(default)]
    pub network: Option<LbNetwork>,
}

/// `loadBalancers[].network`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LbNetwork {
    Private,
    Public,
}

/// Kinds a `loadBalancers[].object` may name.
pub const OBJECT_KINDS: [&str; 3] = ["Service", "Ingress", "IstioGateway"];

/// `Kind/namespace/name` of the object that owns a load balancer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// Why an `object:` string is not a valid [`ObjectKey`]; `help` is shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectKeyError {
    pub message: String,
    pub help: String,
}

impl ObjectKey {
    pub fn parse(text: &str) -> Result<ObjectKey, ObjectKeyError> {
        let parts: Vec<&str> = text.split('/').collect();
        let [kind, namespace, name] = parts[..] else {
            return Err(ObjectKeyError {
                message: format!(
                    "invalid object `{text}`: expected `Kind/namespace/name` ({} part{} found)",
                    parts.len(),
                    if parts.len() == 1 { "" } else { "s" }
                ),
                help: "write it as e.g. `Service/istio-system/istio-ingressgateway`".into(),
            });
        };
        if let Some(empty) = [("Kind", kind), ("namespace", namespace), ("name", name)]
            .iter()
            .find(|(_, v)| v.trim().is_empty())
        {
            return Err(ObjectKeyError {
                message: format!("invalid object `{text}`: {} is empty", empty.0),
                help: "write it as e.g. `Service/istio-system/istio-ingressgateway`".into(),
            });
        }
        if !OBJECT_KINDS.contains(&kind) {
            let mut help = format!(
                "Kind must be one of {}",
                super::suggest::list(&OBJECT_KINDS)
            );
            if let Some(s) = super::suggest::did_you_mean(kind, &OBJECT_KINDS) {
                help = format!("did you mean `{s}`? {help}");
            }
            return Err(ObjectKeyError {
                message: format!("invalid object `{text}`: unknown Kind `{kind}`"),
                help,
            });
        }
        Ok(ObjectKey {
            kind: kind.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

/// Marker put in front of the JSON-encoded [`ObjectKeyError`] so the loader can
/// recover the help text from serde's string-only custom error.
pub(crate) const OBJECT_KEY_ERROR_TAG: &str = "lblint-object-key:";

impl<'de> Deserialize<'de> for ObjectKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ObjectKey::parse(&text).map_err(|e| {
            // serde's custom errors carry only a string; encode message and help so the
            // loader can split them again (the deserializer adds the value's location).
            let payload = serde_json::json!({"message": e.message, "help": e.help});
            serde::de::Error::custom(format!("{OBJECT_KEY_ERROR_TAG}{payload}"))
        })
    }
}
