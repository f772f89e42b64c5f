//! Azure AKS (rules/AKS001.md). AKS001: a Service on an internal Azure load balancer,
//! called from inside the cluster. Azure documents that a backend VM's flow to the
//! frontend of its own internal load balancer fails; kube-proxy answers most such calls on
//! the node, so this is an advisory. Floating IP (`azure-disable-load-balancer-floating-ip`)
//! and `azure-pip-*` carry no hairpin text and are not linted.

use crate::diagnostic::Diagnostic;
use crate::profile::Provider;
use crate::rules::internal_lb::{advise, Advisory};
use crate::rules::proxy_protocol::{annotation_in, services_of};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::AKS001 as META;

pub const INTERNAL: &str = "service.beta.kubernetes.io/azure-load-balancer-internal";
const COMPONENTS_DOC: &str = "https://learn.microsoft.com/en-us/azure/load-balancer/components";

pub struct InternalLbInCluster;

impl Rule for InternalLbInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry, service) in services_of(cx, Provider::Aks) {
            let Some(at) = annotation_in(cx.ws, service, INTERNAL, &["true"]) else {
                continue;
            };
            let advisory = Advisory {
                at,
                node_callers_only: false,
                subject: format!(
                    "Service `{}` has an Azure internal load balancer (`{INTERNAL}: \"true\"`)",
                    service.name()
                ),
                vendor: "Azure: \"Outbound flow from a backend VM to a frontend of an internal Load Balancer \
                         will fail.\" Its troubleshooting guide names the symptom, \"intermittent connection \
                         timeouts when the flow returns to the same backend that originated the flow\", and a \
                         backend VM calling an application on the same VM over the same network interface is \
                         unsupported as well."
                    .to_string(),
                short_circuited: "kube-proxy answers this call on the node in its default paths (the Azure cloud \
                                  provider never reports `ipMode: Proxy`), so it should not reach the load \
                                  balancer: that kube-proxy masks the limitation is inferred from upstream \
                                  behaviour, and no AKS document covers pods calling their own internal load \
                                  balancer."
                    .to_string(),
                unserved: "Off kube-proxy's shortcut, nothing masks the Azure limitation.".to_string(),
                help: format!(
                    "have in-cluster clients call {} (or the ClusterIP) instead of the internal load balancer's \
                     address; Azure's own workarounds are a proxy layer behind the internal load balancer, or \
                     Direct Server Return (Floating IP, which AKS uses by default). See {COMPONENTS_DOC}",
                    service.service_hosts_hint()
                ),
            };
            advise(cx, &META, index, entry, advisory, out);
        }
    }
}
