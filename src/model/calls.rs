//! What the model says about calls: who names which load-balancer address, where, how
//! (`Via`) and how strongly the value shows a call (`Evidence`). The scanner
//! (`callers.rs`), the classifier (`evidence.rs`) and the implied callers (`implicit.rs`)
//! all depend on these types, and the types on none of them.

use crate::objects::ObjectId;
use crate::source::Location;
use crate::source::Span;

use super::EntryId;

/// Where in the pod the address is named.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Via {
    Env {
        name: String,
    },
    Arg,
    Command,
    Probe,
    HostAlias,
    ConfigMap {
        name: String,
        key: String,
    },
    Secret {
        name: String,
        key: String,
        /// A `data` value, base64 in the manifest: the address was found decoded.
        decoded: bool,
    },
    /// cert-manager's controller checks an HTTP-01 challenge for a name it certifies.
    Http01SelfCheck {
        issuer: String,
    },
    /// ingress-nginx sends each request's auth subrequest to `auth-url`.
    AuthUrl,
    /// The kubelet pulls a container's image from its registry: from the node, through the
    /// node's resolver (no CoreDNS, no hostAliases), whatever the pod's network.
    ImagePull,
}

impl Via {
    /// Read from a Secret's values: reports never quote them.
    pub fn is_secret(&self) -> bool {
        matches!(self, Via::Secret { .. })
    }

    /// A call a controller makes on an object's behalf (model/implicit.rs): no pod writes
    /// it, so no edit at its location redirects it.
    pub fn is_implied(&self) -> bool {
        matches!(self, Via::Http01SelfCheck { .. } | Via::AuthUrl)
    }
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Env { name } => write!(f, "env {name}"),
            Via::Arg => f.write_str("container argument"),
            Via::Command => f.write_str("container command"),
            Via::Probe => f.write_str("probe host"),
            Via::HostAlias => f.write_str("hostAliases entry"),
            Via::ConfigMap { name, key } => write!(f, "ConfigMap {name} key {key}"),
            Via::Secret { name, key, decoded } => {
                write!(f, "Secret {name} key {key}")?;
                if *decoded {
                    f.write_str(", base64-decoded")?;
                }
                Ok(())
            }
            Via::Http01SelfCheck { issuer } => {
                write!(f, "cert-manager's HTTP-01 self-check, {issuer}")
            }
            Via::AuthUrl => f.write_str("the ingress controller's auth-url subrequest"),
            Via::ImagePull => f.write_str("the kubelet's image pull, from the node"),
        }
    }
}

/// A pod that calls a load balancer's own address.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The calling workload.
    pub workload: ObjectId,
    pub target: EntryId,
    pub address: String,
    /// The whole value that names the address.
    pub location: Location,
    /// The address itself inside the value, when it maps to source bytes one to one.
    pub address_span: Option<Span>,
    pub via: Via,
    /// How strongly the value shows a call (a URL is a call, free text a mention).
    pub evidence: Evidence,
    /// Why the value counts as it does (README, "The cluster model"): "curl argument",
    /// "env API_URL ends in URL", "xmlns is an XML namespace identifier".
    pub reason: String,
    /// A `hostNetwork` pod or the kubelet's image pull: the call leaves from the node's own
    /// network namespace, which some kube-proxy modes treat differently (upstream IPVS and
    /// eTP Local: rules/K8S013.md).
    pub from_node: bool,
    /// The object that maps the called name to the load balancer's address: an ExternalName
    /// Service or an Istio ServiceEntry with a STATIC endpoint. `None`: the address itself.
    pub alias: Option<ObjectId>,
}

/// A pod that calls a Service by name or ClusterIP: never through the load balancer.
#[derive(Clone, Debug)]
pub struct SafeCall {
    pub workload: ObjectId,
    /// The Service called.
    pub service: ObjectId,
    pub host: String,
    pub location: Location,
    pub via: Via,
}

/// What a caller's value shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// The pod's own public identity (root URL, redirect URI, CORS origin, `server_name`):
    /// browsers use it, the pod does not call it. At most a note (K8S001).
    Identity,
    /// A loose mention in free text: at most a warning.
    Mention,
    /// A URL, `host:port`, or a host in a destination-like setting: a call, which can make
    /// an error.
    Call,
}

impl Evidence {
    /// The word JSON output uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Identity => "identity",
            Evidence::Mention => "mention",
            Evidence::Call => "call",
        }
    }

    /// For messages: how the address is named.
    pub fn describe(self) -> &'static str {
        match self {
            Evidence::Identity => "names it as the app's own public address",
            Evidence::Mention => "mentions it in free text",
            Evidence::Call => "calls it",
        }
    }
}
