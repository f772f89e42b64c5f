//! Load-balancer entry points: which objects get a cloud load balancer, at which layer,
//! on which provider, and whether its address is private or public.

use crate::objects::{Object, ObjectId, Workspace};
use crate::profile::{tke, Profile, Provider};
use crate::views::{Annotations, IngressView, Views};
use crate::yaml::NodeRef;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum EntryKind {
    Service,
    Ingress,
    IstioGateway,
    Gateway,
    /// A load balancer created outside Kubernetes (the profile's `loadBalancers[]` with
    /// `targets`) in front of a Service's NodePort or pods; the entry point's object is that
    /// Service.
    External,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Layer {
    L4,
    L7,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    Private,
    Public,
    /// Cannot be told from the manifest (a reused CLB id, an unknown cloud).
    Unknown,
}

/// Annotation prefixes that identify the cloud controller a Service or Ingress is meant for.
pub const TKE_EXISTED_LB: &str = "service.kubernetes.io/tke-existed-lbid";
/// Documented as read-only (the CLB a Service uses, <https://cloud.tencent.com/document/product/457/51258>),
/// yet Tencent's own demos write it by hand to put a Service on an existing CLB
/// (TencentCloud/container-demo springcloud-on-tke/backend.yaml): a reused CLB either way.
pub const TKE_LOADBALANCE_ID: &str = "service.kubernetes.io/loadbalance-id";
pub const TKE_INGRESS_SUBNET: &str = "kubernetes.io/ingress.subnetId";
pub const TKE_INGRESS_EXISTED_LB: &str = "kubernetes.io/ingress.existLbId";
pub const INGRESS_CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
pub const VKE_ADDRESS_TYPE: &str =
    "service.beta.kubernetes.io/volcengine-loadbalancer-address-type";
pub const VKE_EXISTED_LB: &str = "service.beta.kubernetes.io/volcengine-loadbalancer-id";

/// Upstream's internal load-balancer annotations (service.md, "Internal load balancer"),
/// each with the cloud whose controller reads it (`None`: a cloud without a profile name,
/// IBM) and read as that controller reads it: `Some(true)` internal, `Some(false)` public,
/// `None` when the annotation does not decide (not written, or a value the controller
/// falls back from). In order; the first that decides wins.
type InternalReader = (Option<Provider>, fn(&Annotations<'_>) -> Option<bool>);
const UPSTREAM_INTERNAL: &[InternalReader] = &[
    (Some(Provider::Gke), gke_internal),
    (Some(Provider::Eks), aws_internal),
    // kubernetes-sigs/cloud-provider-azure `requiresInternalLoadBalancer`: exactly "true".
    (Some(Provider::Aks), |a| {
        a.text("service.beta.kubernetes.io/azure-load-balancer-internal")
            .map(|v| v == "true")
    }),
    // IBM VPC `ServiceOptions.isPublic`: "" or "public" is public, any other value private.
    (None, |a| {
        a.text("service.kubernetes.io/ibm-load-balancer-cloud-provider-ip-type")
            .map(|v| !v.is_empty() && v != "public")
    }),
    // cloud-provider-openstack `getBoolFromServiceAnnotation`: exactly "true" or "false";
    // another value falls back to the config's `internal-lb`.
    (Some(Provider::Openstack), |a| {
        match a.text("service.beta.kubernetes.io/openstack-internal-load-balancer") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        }
    }),
    // Huawei CCE's controller is closed source: the documented "true", in any case.
    (Some(Provider::Cce), |a| {
        a.text("service.beta.kubernetes.io/cce-load-balancer-internal-vpc")
            .filter(|v| v.eq_ignore_ascii_case("true"))
            .map(|_| true)
    }),
    (Some(Provider::Oke), oci_internal),
];

/// GCE `GetLoadBalancerAnnotationType` (kubernetes/cloud-provider-gcp,
/// providers/gce/gce_annotations.go): the first of the two keys that is written decides;
/// `Internal` (or the deprecated `internal`) is internal, any other value external.
fn gke_internal(a: &Annotations<'_>) -> Option<bool> {
    ["networking.gke.io/load-balancer-type", GKE_LEGACY_TYPE]
        .iter()
        .find_map(|key| a.text(key))
        .map(|v| matches!(v, "Internal" | "internal"))
}

/// In-tree AWS (kubernetes/cloud-provider-aws `EnsureLoadBalancer`): any non-empty value
/// but "false" is internal. The AWS Load Balancer Controller's Services
/// (`aws-load-balancer-type: external` or `nlb-ip`) take `aws-load-balancer-scheme` first,
/// then this annotation with Go's ParseBool (`buildLoadBalancerSchemeViaAnnotation`).
fn aws_internal(a: &Annotations<'_>) -> Option<bool> {
    const TYPE: &str = "service.beta.kubernetes.io/aws-load-balancer-type";
    const SCHEME: &str = "service.beta.kubernetes.io/aws-load-balancer-scheme";
    const INTERNAL: &str = "service.beta.kubernetes.io/aws-load-balancer-internal";
    if matches!(a.text(TYPE), Some("external" | "nlb-ip")) {
        return match a.text(SCHEME) {
            Some("internal") => Some(true),
            Some("internet-facing") => Some(false),
            Some(_) => None,
            None => a
                .text(INTERNAL)
                .and_then(crate::yaml::go_values::parse_go_bool),
        };
    }
    a.text(INTERNAL)
        .filter(|v| !v.is_empty())
        .map(|v| v != "false")
}

/// OCI `isInternalLB` (oracle/oci-cloud-controller-manager, load_balancer_spec.go): Go's
/// ParseBool of the load balancer's key, or of the network load balancer's own key with
/// `oci.oraclecloud.com/load-balancer-type: nlb`; a refused value stops the controller
/// (K8S015), so it decides nothing here.
fn oci_internal(a: &Annotations<'_>) -> Option<bool> {
    // The controller lower-cases the type (`nlb`, `NLB`).
    let network_lb = a
        .text("oci.oraclecloud.com/load-balancer-type")
        .is_some_and(|t| t.eq_ignore_ascii_case("nlb"));
    let key = if network_lb {
        "oci-network-load-balancer.oraclecloud.com/internal"
    } else {
        "service.beta.kubernetes.io/oci-load-balancer-internal"
    };
    a.text(key).and_then(crate::yaml::go_values::parse_go_bool)
}

/// The annotation that puts a TKE Service on an existing CLB, whose network (public or
/// private) the manifest cannot say: `tke-existed-lbid`, else `loadbalance-id`.
pub fn tke_reused_clb<'a>(annotations: &Annotations<'a>) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
    [TKE_EXISTED_LB, TKE_LOADBALANCE_ID]
        .iter()
        .find_map(|key| annotations.entry(key))
}

/// Read an ACK annotation under either prefix.
pub fn ack_annotation<'a>(
    annotations: &Annotations<'a>,
    suffix: &str,
) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
    [
        "service.beta.kubernetes.io/alibaba-cloud-",
        "service.beta.kubernetes.io/alicloud-",
    ]
    .iter()
    .find_map(|prefix| annotations.entry(&format!("{prefix}{suffix}")))
}

/// GKE's internal passthrough load-balancer class (`kubernetes/ingress-gce`; rules/GKE001.md).
pub const GKE_INTERNAL_CLASS: &str = "networking.gke.io/l4-regional-internal";
/// GKE's internal load-balancer annotation before GKE 1.17
/// (<https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing>).
pub const GKE_LEGACY_TYPE: &str = "cloud.google.com/load-balancer-type";

/// Which cloud's controller an object's annotations are written for (the first cloud of
/// [`crate::profile::CLOUDS`] whose annotation prefixes one of its keys starts with).
fn annotated_provider(annotations: &Annotations<'_>) -> Option<Provider> {
    Provider::annotated(|| annotations.entries().filter_map(|(k, _)| k.as_str()))
}

/// Which cloud's controller provisions an object's load balancer: one owner. A profile that
/// names a cloud decides, since that cloud's controller is the one running (another cloud's
/// annotation on a portable manifest, like the AWS one on Contour's envoy Service, is
/// ignored there); `provider: generic` is none of the named clouds; with no profile, the
/// object's own annotations say which cloud it is written for (`hint`, a vendor's own class,
/// when they do not).
fn owner(
    annotations: &Annotations<'_>,
    profile: &Profile,
    hint: Option<Provider>,
) -> Option<Provider> {
    match profile.provider() {
        Provider::Generic if profile.is_absent() => {
            hint.or_else(|| annotated_provider(annotations))
        }
        Provider::Generic => None,
        stated => Some(stated),
    }
}

fn text<'a>(node: Option<NodeRef<'a>>) -> Option<&'a str> {
    node.and_then(|n| n.as_str())
}

/// Private or public, from the provider's annotations: upstream's internal-LB table
/// (https://kubernetes.io/docs/concepts/services-networking/service/#internal-load-balancer),
/// TKE https://www.tencentcloud.com/document/product/457/39142, the Volcengine CCM's
/// docs/usage.md, ACK https://www.alibabacloud.com/help/en/document_detail/86531.html.
///
/// Only the owner's controller reads its annotations: on a named cloud, its own; on a
/// cluster that is none of them (`provider: generic`), those of unnamed clouds (IBM); with
/// no profile and no owner, any cloud's (`unstated`).
fn service_network(
    annotations: &Annotations<'_>,
    provider: Option<Provider>,
    unstated: bool,
) -> Network {
    let get = |key: &str| annotations.text(key);
    let internal = UPSTREAM_INTERNAL
        .iter()
        .filter(|(cloud, _)| *cloud == provider || (unstated && provider.is_none()))
        .find_map(|(_, read)| read(annotations));
    if let Some(internal) = internal {
        return if internal {
            Network::Private
        } else {
            Network::Public
        };
    }
    match provider {
        Some(Provider::Tke) => {
            if get(tke::INTERNAL_SUBNET).is_some() {
                Network::Private
            } else if tke_reused_clb(annotations).is_some() {
                // Whether a reused CLB is public or private is not in the manifest.
                Network::Unknown
            } else {
                Network::Public
            }
        }
        Some(Provider::Vke) => match get(VKE_ADDRESS_TYPE) {
            Some("PRIVATE") => Network::Private,
            Some("PUBLIC") => Network::Public,
            Some(_) => Network::Unknown,
            None if get(VKE_EXISTED_LB).is_some() => Network::Unknown,
            None => Network::Public,
        },
        // A reused SLB (`loadbalancer-id`, IsUserManaged) keeps its own address type: the CCM
        // refuses a written `address-type` that differs ("can not change LoadBalancer
        // AddressType once created", clbv1/loadbalancer.go `Update`), so only an unwritten
        // one is unknown.
        Some(Provider::Ack) => {
            match text(ack_annotation(annotations, "loadbalancer-address-type").map(|(_, v)| v)) {
                Some("intranet") => Network::Private,
                Some("internet") => Network::Public,
                None if ack_annotation(annotations, "loadbalancer-id").is_some() => {
                    Network::Unknown
                }
                None => Network::Public,
                Some(_) => Network::Unknown,
            }
        }
        _ => Network::Unknown,
    }
}

/// The ingress class: `spec.ingressClassName`, else the legacy annotation.
pub fn ingress_class<'w>(ws: &'w Workspace, object: &'w Object) -> Option<&'w str> {
    let written = IngressView::of(ws, object).and_then(|ingress| text(ingress.class_name));
    written.or_else(|| Annotations::of(ws, object).text(INGRESS_CLASS_ANNOTATION))
}

/// What an entry point is, before addresses and backends are attached.
pub struct Classified {
    pub kind: EntryKind,
    pub layer: Layer,
    pub provider: Option<Provider>,
    pub network: Network,
    pub class: Option<String>,
}

pub fn classify(
    ws: &Workspace,
    views: &Views<'_>,
    id: ObjectId,
    profile: &Profile,
) -> Option<Classified> {
    let object = &ws.objects[id];
    let annotations = Annotations::of(ws, object);
    if let Some(service) = views.service(id) {
        if !service.is_load_balancer() {
            return None;
        }
        let class = text(service.load_balancer_class());
        // GKE's own classes name their controller (kubernetes/ingress-gce).
        let gke_class = class.is_some_and(|c| c.starts_with("networking.gke.io/"));
        let provider = owner(&annotations, profile, gke_class.then_some(Provider::Gke));
        let mut network = service_network(&annotations, provider, profile.is_absent());
        if provider == Some(Provider::Gke) && class == Some(GKE_INTERNAL_CLASS) {
            network = Network::Private;
        }
        return Some(Classified {
            kind: EntryKind::Service,
            layer: Layer::L4,
            network,
            provider,
            class: class.map(str::to_string),
        });
    }
    if views.ingress(id).is_some() {
        let class = ingress_class(ws, object).map(str::to_string);
        let qcloud = class.as_deref() == Some("qcloud");
        let provider = owner(&annotations, profile, qcloud.then_some(Provider::Tke));
        // On TKE an Ingress without a class is a CLB Ingress (class `qcloud`).
        let tke_clb =
            provider == Some(Provider::Tke) && matches!(class.as_deref(), None | Some("qcloud"));
        let network = if !tke_clb {
            Network::Unknown
        } else if annotations.text(TKE_INGRESS_SUBNET).is_some() {
            Network::Private
        } else if annotations.text(TKE_INGRESS_EXISTED_LB).is_some() {
            Network::Unknown
        } else {
            Network::Public
        };
        return Some(Classified {
            kind: EntryKind::Ingress,
            layer: Layer::L7,
            provider,
            network,
            class,
        });
    }
    if let Some(gateway) = views.istio_gateway(id) {
        if text(gateway.service_type).is_some_and(|t| t != "LoadBalancer") {
            return None;
        }
        let service_annotations = Annotations::in_mapping(gateway.service_annotations);
        return Some(Classified {
            kind: EntryKind::IstioGateway,
            layer: Layer::L4,
            provider: Some(Provider::Ack),
            network: service_network(&service_annotations, Some(Provider::Ack), false),
            class: None,
        });
    }
    let gateway = views.gateway(id)?;
    let protocols: Vec<Option<&str>> = gateway.listeners.iter().map(|l| text(l.protocol)).collect();
    let http = !protocols.is_empty()
        && protocols
            .iter()
            .all(|p| matches!(p, Some("HTTP" | "HTTPS" | "GRPC" | "TLS")));
    // The Service its implementation creates is the cloud's load balancer, and carries the
    // annotations that implementation copies; an unknown implementation's load balancer
    // (a cloud's own Gateway controller) cannot be told.
    let (provider, network) = match super::implementation::inferred_service(ws, views, gateway) {
        Some(service) => {
            let provider = owner(&service.annotations, profile, None);
            let network = service_network(&service.annotations, provider, profile.is_absent());
            (provider, network)
        }
        None => (owner(&annotations, profile, None), Network::Unknown),
    };
    Some(Classified {
        kind: EntryKind::Gateway,
        layer: if http { Layer::L7 } else { Layer::L4 },
        provider,
        network,
        class: text(gateway.class_name).map(str::to_string),
    })
}
