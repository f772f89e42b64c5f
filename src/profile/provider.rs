//! One record per cloud: everything lblint knows about a provider's identity, written once.
//! The profile's names and the schema, `profile init`'s provider list, the model's "which
//! cloud is this object written for", and the importer's evidence (providerID prefixes, node
//! labels, version suffixes, controller images) are all read from [`CLOUDS`]; the tests
//! check the pre-commit hook's description and README against it. A cloud's rules are its
//! adapter and its `rules/<ID>.md`; its identity is its record here.
//!
//! Each list cites where it comes from in the record's comment: the cloud controller's
//! code or the vendor's documentation, as the rule documents do.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;

/// Cloud provider the cluster runs on. The names are a contract (README, "Cluster
/// profile"): profiles and the held-out checks spell them exactly so. The variants are in
/// [`CLOUDS`] order, which a test holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
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
    /// None of the named clouds: only provider-neutral rules run. (The profile used when
    /// none is given is `generic` too, but tells itself apart: `Profile::is_absent`.)
    Generic,
}

/// A cloud's identity: its names and what tells its objects and clusters apart.
#[derive(Debug)]
pub struct Cloud {
    pub provider: Provider,
    /// The profile's name (`spec.provider`), as serde reads it.
    pub name: &'static str,
    /// What people call it, for messages: `DigitalOcean DOKS`.
    pub label: &'static str,
    /// The short name lists use (the pre-commit hook's description).
    pub short: &'static str,
    /// What people write instead of the name (vendors, products, controllers), letters
    /// and digits only, lower case: `profile check`'s "did you mean".
    pub aliases: &'static [&'static str],
    /// Prefixes (lower case) of the annotation keys its controllers read: an object that
    /// carries one is written for this cloud (with no profile, its rules judge it; the
    /// importer takes them as weak evidence).
    pub annotations: &'static [&'static str],
    /// `spec.providerID` prefixes its cloud controller writes on Nodes.
    pub provider_ids: &'static [&'static str],
    /// The domain of its node labels (a label of it or of a subdomain confirms the
    /// providerID), and its pool labels, the first a node carries naming its pool.
    pub node_labels: Option<(&'static str, &'static [&'static str])>,
    /// Suffixes of its Kubernetes and add-on builds' versions (`v1.30.2-tke.3`).
    pub version_suffixes: &'static [&'static str],
    /// Images of its own controllers, self-managed in kube-system (each project's deploy
    /// manifests): a kube-system image containing one names the cloud.
    pub controller_images: &'static [&'static str],
    /// The self-managed cloud controller whose image tag is `spec.addons.
    /// cloudControllerManager`: its image name, and the env variables that are options
    /// (`spec.addons.cloudControllerManagerOptions.<option>`).
    pub ccm: Option<(&'static str, &'static [(&'static str, &'static str)])>,
    /// The vendor's reference for its load balancers' Service annotations and behaviour.
    pub docs: Option<&'static str>,
}

/// Every cloud, in [`Provider`] order.
pub static CLOUDS: [Cloud; 15] = [
    Cloud {
        provider: Provider::Tke,
        name: "tke",
        label: "Tencent Cloud TKE",
        short: "TKE",
        aliases: &["tencent", "tencentcloud", "qcloud"],
        // TKE's service and ingress controllers (rules/TKE*.md).
        annotations: &[
            "service.kubernetes.io/qcloud-",
            "service.kubernetes.io/tke-",
            "service.cloud.tencent.com/",
            "ingress.cloud.tencent.com/",
            "kubernetes.io/ingress.subnetid",
            "kubernetes.io/ingress.existlbid",
            "kubernetes.io/ingress.qcloud-",
        ],
        provider_ids: &["qcloud://"],
        // The pool id `np-…` on pool nodes (TKE's DescribeExternalNodePools labels, public
        // node dumps); native nodes also carry it as their MachineSet's name.
        node_labels: Some((
            "cloud.tencent.com",
            &["tke.cloud.tencent.com/nodepool-id", tke::NATIVE_MACHINESET],
        )),
        // TKE revision history, <https://intl.cloud.tencent.com/document/product/457/9315>.
        version_suffixes: &["-tke."],
        controller_images: &[],
        ccm: None,
        docs: Some("https://www.tencentcloud.com/document/product/457/39142"),
    },
    Cloud {
        provider: Provider::Vke,
        name: "vke",
        label: "Volcengine VKE",
        short: "VKE",
        aliases: &["volcengine"],
        annotations: &["service.beta.kubernetes.io/volcengine-"],
        provider_ids: &["volcengine://"],
        node_labels: None,
        version_suffixes: &["-vke."],
        controller_images: &[],
        ccm: Some(("volcengine-cloud-controller-manager", &[])),
        docs: Some("https://www.volcengine.com/docs/6460"),
    },
    Cloud {
        provider: Provider::Ack,
        name: "ack",
        label: "Alibaba Cloud ACK",
        short: "ACK",
        aliases: &["alibaba", "alibabacloud", "alicloud", "aliyun"],
        // `alicloud` is the legacy prefix (before 2019-09-11); both still work.
        annotations: &[
            "service.beta.kubernetes.io/alibaba-cloud-",
            "service.beta.kubernetes.io/alicloud-",
            "service.beta.kubernetes.io/backend-type",
        ],
        // `alicloud://` and the bare `<region>.i-…` form (the importer tells that one apart).
        provider_ids: &["alicloud://"],
        // ACK labels every node of a pool `alibabacloud.com/nodepool-id` ("Schedule an
        // application pod to a specific node pool"); the CCM adds
        // `node.alibabacloud.com/nodepool-id` from v2.10.0
        // (pkg/controller/node/manager.go setFields, commit d3e6e5b8).
        node_labels: Some((
            "alibabacloud.com",
            &[
                "alibabacloud.com/nodepool-id",
                "node.alibabacloud.com/nodepool-id",
            ],
        )),
        // ACK release notes.
        version_suffixes: &["-aliyun."],
        controller_images: &["alibaba-cloud-controller-manager"],
        ccm: None,
        docs: Some("https://github.com/kubernetes/cloud-provider-alibaba-cloud"),
    },
    Cloud {
        provider: Provider::Eks,
        name: "eks",
        label: "AWS EKS",
        short: "EKS",
        aliases: &["aws", "amazon"],
        annotations: &["service.beta.kubernetes.io/aws-load-balancer-"],
        provider_ids: &["aws://", "eks-hybrid://"],
        node_labels: Some(("eks.amazonaws.com", &["eks.amazonaws.com/nodegroup"])),
        // amazon-eks-ami#546; EKS add-on images.
        version_suffixes: &["-eks-", "-eksbuild."],
        controller_images: &[],
        ccm: None,
        docs: Some(
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/",
        ),
    },
    Cloud {
        provider: Provider::Aks,
        name: "aks",
        label: "Azure AKS",
        short: "AKS",
        aliases: &["azure"],
        annotations: &["service.beta.kubernetes.io/azure-"],
        provider_ids: &["azure://"],
        node_labels: Some(("kubernetes.azure.com", &["kubernetes.azure.com/agentpool"])),
        version_suffixes: &[],
        controller_images: &["azure-cloud-controller-manager", "azure-cloud-node-manager"],
        ccm: None,
        docs: Some("https://learn.microsoft.com/en-us/azure/load-balancer/components"),
    },
    Cloud {
        provider: Provider::Gke,
        name: "gke",
        label: "Google GKE",
        short: "GKE",
        aliases: &["google", "gcp", "gce"],
        annotations: &["networking.gke.io/", "cloud.google.com/load-balancer-type"],
        provider_ids: &["gce://"],
        node_labels: Some(("cloud.google.com", &["cloud.google.com/gke-nodepool"])),
        // GKE release notes.
        version_suffixes: &["-gke."],
        controller_images: &[],
        ccm: None,
        docs: Some("https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing"),
    },
    Cloud {
        provider: Provider::Cce,
        name: "cce",
        label: "Huawei Cloud CCE",
        short: "CCE",
        aliases: &["huawei", "huaweicloud"],
        annotations: &["kubernetes.io/elb."],
        provider_ids: &[],
        node_labels: None,
        version_suffixes: &[],
        controller_images: &[],
        ccm: None,
        docs: Some("https://support.huaweicloud.com/intl/en-us/usermanual-cce/cce_10_0355.html"),
    },
    Cloud {
        provider: Provider::Oke,
        name: "oke",
        label: "Oracle OKE",
        short: "OKE",
        aliases: &["oracle", "oci"],
        annotations: &[
            "service.beta.kubernetes.io/oci-",
            "oci.oraclecloud.com/",
            "oci-network-load-balancer.oraclecloud.com/",
        ],
        provider_ids: &["oci://", "ocid1."],
        node_labels: Some(("oci.oraclecloud.com", &[])),
        version_suffixes: &[],
        controller_images: &["oci-cloud-controller-manager"],
        ccm: None,
        docs: Some(
            "https://github.com/oracle/oci-cloud-controller-manager/blob/master/docs/load-balancer-annotations.md",
        ),
    },
    Cloud {
        provider: Provider::Doks,
        name: "doks",
        label: "DigitalOcean DOKS",
        short: "DOKS",
        aliases: &["digitalocean", "do"],
        annotations: &["service.beta.kubernetes.io/do-loadbalancer-"],
        provider_ids: &["digitalocean://"],
        node_labels: Some(("doks.digitalocean.com", &["doks.digitalocean.com/node-pool"])),
        version_suffixes: &[],
        controller_images: &[],
        ccm: Some(("digitalocean-cloud-controller-manager", &[])),
        docs: Some(
            "https://github.com/digitalocean/digitalocean-cloud-controller-manager/blob/master/docs/controllers/services/annotations.md",
        ),
    },
    Cloud {
        provider: Provider::Lke,
        name: "lke",
        label: "Linode / Akamai LKE",
        short: "LKE",
        aliases: &["linode", "akamai"],
        annotations: &["service.beta.kubernetes.io/linode-loadbalancer-"],
        provider_ids: &["linode://"],
        node_labels: Some(("lke.linode.com", &["lke.linode.com/pool-id"])),
        version_suffixes: &[],
        controller_images: &["linode/linode-cloud-controller-manager"],
        ccm: Some((
            "linode-cloud-controller-manager",
            &[("LINODE_HOSTNAME_ONLY_INGRESS", "hostnameOnlyIngress")],
        )),
        docs: Some(
            "https://github.com/linode/linode-cloud-controller-manager/blob/main/docs/configuration/annotations.md",
        ),
    },
    Cloud {
        provider: Provider::Scaleway,
        name: "scaleway",
        label: "Scaleway Kapsule",
        short: "Scaleway",
        aliases: &["kapsule", "scw"],
        annotations: &["service.beta.kubernetes.io/scw-loadbalancer-"],
        provider_ids: &["scaleway://"],
        node_labels: Some(("k8s.scaleway.com", &["k8s.scaleway.com/pool-name"])),
        version_suffixes: &[],
        controller_images: &["scaleway/scaleway-cloud-controller-manager"],
        ccm: Some(("scaleway-cloud-controller-manager", &[])),
        docs: Some(
            "https://github.com/scaleway/scaleway-cloud-controller-manager/blob/master/docs/loadbalancer-annotations.md",
        ),
    },
    Cloud {
        provider: Provider::Hetzner,
        name: "hetzner",
        label: "Hetzner Cloud",
        short: "Hetzner",
        aliases: &["hcloud"],
        annotations: &["load-balancer.hetzner.cloud/"],
        provider_ids: &["hcloud://", "hrobot://"],
        node_labels: Some(("instance.hetzner.cloud", &[])),
        version_suffixes: &[],
        controller_images: &["hetznercloud/hcloud-cloud-controller-manager"],
        ccm: Some((
            "hcloud-cloud-controller-manager",
            &[
                (
                    "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL",
                    "usesProxyProtocol",
                ),
                (
                    "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS",
                    "disablePrivateIngress",
                ),
            ],
        )),
        docs: Some("https://github.com/hetznercloud/hcloud-cloud-controller-manager"),
    },
    Cloud {
        provider: Provider::Openstack,
        name: "openstack",
        label: "OpenStack OCCM",
        short: "OpenStack",
        aliases: &[
            "occm",
            "octavia",
            "ovh",
            "ovhcloud",
            "selectel",
            "servercore",
            "plusserver",
        ],
        annotations: &["loadbalancer.openstack.org/"],
        provider_ids: &["openstack://"],
        node_labels: None,
        version_suffixes: &[],
        controller_images: &["provider-os/openstack-cloud-controller-manager"],
        ccm: Some(("openstack-cloud-controller-manager", &[])),
        docs: Some("https://github.com/kubernetes/cloud-provider-openstack"),
    },
    Cloud {
        provider: Provider::Cloudscale,
        name: "cloudscale",
        label: "cloudscale.ch",
        short: "cloudscale",
        aliases: &[],
        annotations: &["k8s.cloudscale.ch/"],
        provider_ids: &["cloudscale://"],
        node_labels: None,
        version_suffixes: &[],
        controller_images: &["cloudscalech/cloudscale-cloud-controller-manager"],
        ccm: Some(("cloudscale-cloud-controller-manager", &[])),
        docs: Some("https://github.com/cloudscale-ch/cloudscale-cloud-controller-manager"),
    },
    Cloud {
        provider: Provider::Generic,
        name: "generic",
        label: "any other cluster",
        short: "",
        aliases: &[],
        annotations: &[],
        // Local distributions: no cloud's load balancer.
        provider_ids: &["k3s://", "kind://"],
        node_labels: None,
        version_suffixes: &[],
        controller_images: &[],
        ccm: None,
        docs: None,
    },
];

/// TKE's vendor constants that the model, the rules and the importer share.
pub mod tke {
    /// Creates a private-network CLB in the given subnet (Service).
    pub(crate) const INTERNAL_SUBNET: &str =
        "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid";
    /// The well-known instance-type label; TKE super (virtual) nodes carry
    /// [`SUPER_NODE_INSTANCE_TYPE`] in it and pods target them with a nodeSelector
    /// (<https://tencentcloud.com/document/product/457/45561>; rules/TKE001.md).
    pub(crate) const INSTANCE_TYPE_LABEL: &str = "node.kubernetes.io/instance-type";
    pub(crate) const SUPER_NODE_INSTANCE_TYPE: &str = "eklet";
    /// Native (MachineSet) nodes carry their MachineSet, the native pool's id, in this
    /// label (public node dumps and selectors; TKE's documentation does not list it).
    pub(crate) const NATIVE_MACHINESET: &str = "node.tke.cloud.tencent.com/machineset";
}

// The table is indexed by the enum: a record out of place fails the build.
const _: () = {
    let mut i = 0;
    while i < CLOUDS.len() {
        assert!(
            CLOUDS[i].provider as usize == i,
            "CLOUDS is not in Provider order"
        );
        i += 1;
    }
};

impl Provider {
    pub const ALL: [Provider; 15] = {
        let mut all = [Provider::Generic; 15];
        let mut i = 0;
        while i < all.len() {
            all[i] = CLOUDS[i].provider;
            i += 1;
        }
        all
    };

    /// Every profile name, in [`Provider::ALL`] order (for help texts and the schema).
    pub const NAMES: [&'static str; 15] = {
        let mut names = [""; 15];
        let mut i = 0;
        while i < names.len() {
            names[i] = CLOUDS[i].name;
            i += 1;
        }
        names
    };

    /// The provider's record.
    pub(crate) const fn cloud(self) -> &'static Cloud {
        &CLOUDS[self as usize]
    }

    /// The name a profile writes, e.g. `doks`.
    pub(crate) const fn as_str(self) -> &'static str {
        self.cloud().name
    }

    /// What people call it, for messages: `DigitalOcean DOKS`.
    pub const fn label(self) -> &'static str {
        self.cloud().label
    }

    /// The named clouds (every provider but `generic`).
    pub fn clouds() -> impl Iterator<Item = &'static Cloud> {
        CLOUDS.iter().filter(|c| c.provider != Provider::Generic)
    }

    /// The first cloud (in [`CLOUDS`] order) whose controllers read an annotation that
    /// starts like one of the keys `keys` lists (compared in lower case).
    pub(crate) fn annotated<'k, I>(keys: impl Fn() -> I) -> Option<Provider>
    where
        I: Iterator<Item = &'k str>,
    {
        Provider::clouds()
            .find(|cloud| {
                keys().any(|key| {
                    cloud.annotations.iter().any(|prefix| {
                        key.len() >= prefix.len()
                            && key.as_bytes()[..prefix.len()]
                                .eq_ignore_ascii_case(prefix.as_bytes())
                    })
                })
            })
            .map(|cloud| cloud.provider)
    }
}

/// Written from the name and label tables: `enum` with every name, and a description
/// that says which cloud each one is.
impl JsonSchema for Provider {
    fn schema_name() -> Cow<'static, str> {
        "Provider".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<String> = CLOUDS
            .iter()
            .map(|c| format!("{} ({})", c.name, c.label))
            .collect();
        let description = format!("Cloud provider: {}.", names.join(", "));
        json_schema!({"enum": Provider::NAMES, "description": description})
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde reads each record's name as its provider, and nothing else.
    #[test]
    fn each_name_reads_as_its_provider() {
        for cloud in &CLOUDS {
            let read: Provider = serde_json::from_str(&format!("\"{}\"", cloud.name)).unwrap();
            assert_eq!(read, cloud.provider);
        }
        assert!(serde_json::from_str::<Provider>("\"TKE\"").is_err());
    }

    /// Names, aliases, annotation prefixes and providerID prefixes each name one cloud.
    #[test]
    fn no_two_clouds_claim_the_same_key() {
        let mut seen = std::collections::BTreeMap::new();
        for cloud in &CLOUDS {
            let name = [cloud.name];
            let keys = name
                .iter()
                .chain(cloud.aliases)
                .chain(cloud.annotations)
                .chain(cloud.provider_ids);
            for key in keys {
                if let Some(other) = seen.insert(*key, cloud.name) {
                    panic!("`{key}` names both {other} and {}", cloud.name);
                }
            }
            assert!(cloud
                .annotations
                .iter()
                .all(|a| *a == a.to_ascii_lowercase()));
        }
    }

    #[test]
    fn annotated_objects_name_their_cloud() {
        let of = |keys: &[&str]| Provider::annotated(|| keys.iter().copied());
        assert_eq!(
            of(&["app", "Kubernetes.io/Ingress.SubnetId"]),
            Some(Provider::Tke)
        );
        assert_eq!(
            of(&["load-balancer.hetzner.cloud/uses-proxyprotocol"]),
            Some(Provider::Hetzner)
        );
        assert_eq!(of(&["app"]), None);
    }
}
