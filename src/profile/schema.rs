//! Hand-written JSON Schema (draft-07) of the profile, for yaml-language-server and editors.
//!
//! Kept next to the serde model and checked against it by tests (field names, enum
//! values); `additionalProperties: false` mirrors `deny_unknown_fields`.

use serde_json::{json, Value};

use super::load::{API_VERSION, KIND};

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
                        "enum": ["tke", "vke", "ack", "generic"],
                        "description": "Cloud provider: Tencent TKE, Volcengine VKE, Alibaba ACK, or generic."
                    },
                    "kubernetesVersion": string("Kubernetes version, e.g. \"1.30.2\" (quote it)."),
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
                    "addons": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "ingressController": string("TKE L7 controller version."),
                            "cloudControllerManager": string("VKE cloud-controller-manager version.")
                        }
                    },
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
