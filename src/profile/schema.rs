//! Hand-written JSON Schema (draft-07) of the profile, for yaml-language-server and editors.
//!
//! Kept next to the serde model and checked against it by tests (field names, enum
//! values); `additionalProperties: false` mirrors `deny_unknown_fields`.

use serde_json::{json, Value};

use super::model::{CceFlavour, Provider};
use super::syntax::{API_VERSION, KIND};

/// The profile's JSON Schema.
pub fn json_schema() -> Value {
    let string = |description: &str| json!({"type": "string", "description": description});
    let boolean = |description: &str| json!({"type": "boolean", "description": description});
    // Split up: one big `json!` exceeds the macro recursion limit.
    let node_pool = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "name": string("Node pool name."),
            "type": {"enum": ["regular", "native", "super"]},
            "labels": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "boolean"]}
            },
            "taints": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "key": {"type": "string"},
                        "value": {"type": "string"},
                        "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]}
                    }
                }
            }
        }
    });
    let addons = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "ingressController": string("TKE L7 controller version."),
            "cloudControllerManager": string("The provider's own cloud controller manager version: VKE CCM, Hetzner hcloud CCM, Scaleway CCM, OpenStack OCCM, ..."),
            "cloudControllerManagerOptions": {
                "type": "object",
                "additionalProperties": false,
                "description": "Settings of the provider's cloud controller manager that decide what a Service's status reports.",
                "properties": {
                    "enableIngressHostname": boolean("OpenStack OCCM [LoadBalancer] enable-ingress-hostname: the status gets a hostname <ip>.<suffix> instead of an IP."),
                    "hostnameOnlyIngress": boolean("Linode CCM env LINODE_HOSTNAME_ONLY_INGRESS: every status carries only a hostname."),
                    "disablePrivateIngress": boolean("Hetzner CCM env HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS."),
                    "usesProxyProtocol": boolean("Hetzner CCM env HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL: PROXY protocol is the default for every Service.")
                }
            },
            "awsLoadBalancerController": string("EKS: AWS Load Balancer Controller version, e.g. \"v2.8.2\"."),
            "awsLoadBalancerControllerOptions": {
                "type": "object",
                "additionalProperties": false,
                "description": "Settings of the AWS Load Balancer Controller.",
                "properties": {
                    "serviceMutatorWebhook": boolean("Helm value enableServiceMutatorWebhook (default true from v2.5.0); true: its webhook gives plain type: LoadBalancer Services the controller's class.")
                }
            },
            "cilium": string("Cilium version, when Cilium is the dataplane, e.g. \"1.17.3\".")
        }
    });
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://lblint.dev/schemas/cluster-profile-v1alpha1.json",
        "title": "lblint ClusterProfile",
        "description": "Facts about the target cluster. Leave out what you do not know: missing facts are unknown.",
        "type": "object",
        "additionalProperties": false,
        "required": ["apiVersion", "kind", "spec"],
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "kind": {"const": KIND},
            "metadata": {
                "type": "object",
                "additionalProperties": false,
                "properties": {"name": string("Profile name shown in reports.")}
            },
            "spec": {
                "type": "object",
                "additionalProperties": false,
                "required": ["provider"],
                "properties": {
                    "provider": {
                        "enum": Provider::NAMES,
                        "description": provider_description()
                    },
                    "kubernetesVersion": string("Kubernetes version, e.g. \"1.30.2\" (quote it)."),
                    "cceFlavour": {
                        "enum": CceFlavour::NAMES,
                        "description": "Huawei CCE: standard (CCE Standard) or turbo (CCE Turbo); decides how in-cluster calls reach an ELB."
                    },
                    "kubeProxy": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "mode": {
                                "enum": ["iptables", "ipvs", "nftables", "ebpf"],
                                "description": "Service forwarding mode."
                            },
                            "version": string("kube-proxy build, e.g. \"v1.30.2-tke.3\"."),
                            "lbAddressBinding": boolean("LB addresses are bound to the IPVS NIC (needed by prevent-loopback).")
                        }
                    },
                    "network": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "cni": string("CNI plugin, e.g. vpc-cni, global-router, terway, flannel, cilium."),
                            "podInterface": string("VKE: pod interface type, e.g. ipvlan."),
                            "serviceForwarding": string("VKE: service forwarding, e.g. ebpf."),
                            "eniDirect": boolean("ACK: pods have ENI addresses (Terway / inclusive ENI).")
                        }
                    },
                    "nodePools": {"type": "array", "items": node_pool},
                    "addons": addons,
                    "allowlists": {
                        "type": "object",
                        "additionalProperties": false,
                        "description": "Account features enabled by support ticket.",
                        "properties": {
                            "clbL4Snat": boolean("CLB layer-4 SNAT."),
                            "clbL7Snat": boolean("CLB layer-7 SNAT."),
                            "clbKeepAlive": boolean("CLB keep-alive.")
                        }
                    },
                    "ingressControllers": {
                        "type": "array",
                        "description": "Which LoadBalancer Service fronts the in-cluster ingress controller of a class, when its pods are not in the manifests.",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["class", "service"],
                            "properties": {
                                "class": {"type": "string", "description": "The IngressClass name (or legacy class annotation value)."},
                                "service": {
                                    "type": "string",
                                    "pattern": "^Service/[^/]+/[^/]+$",
                                    "description": "Service/namespace/name."
                                }
                            }
                        }
                    },
                    "loadBalancers": {
                        "type": "array",
                        "description": "Addresses that resolve to this cluster's own load balancers.",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "properties": {
                                "object": {
                                    "type": "string",
                                    "pattern": "^(Service|Ingress|IstioGateway)/[^/]+/[^/]+$",
                                    "description": "Kind/namespace/name."
                                },
                                "addresses": {"type": "array", "items": {"type": "string"}},
                                "network": {
                                    "enum": ["private", "public"],
                                    "description": "Private (VPC) or public: for a reused load balancer, whose manifest cannot say."
                                }
                            }
                        }
                    }
                }
            }
        }
    })
}

/// `tke` (Tencent Cloud TKE), ..., for the `spec.provider` description.
fn provider_description() -> String {
    let names: Vec<String> = Provider::ALL
        .iter()
        .map(|p| format!("{p} ({})", p.label()))
        .collect();
    format!("Cloud provider: {}.", names.join(", "))
}
