//! Calls that no pod spells out but the manifests still imply: controllers that call a host
//! on an object's behalf (README, "The cluster model").
//!
//! - cert-manager's HTTP-01 self-check: before it asks the ACME server to validate, the
//!   cert-manager controller fetches `http://<host>/.well-known/acme-challenge/<token>` from
//!   inside the cluster, for every name of a Certificate (or of an Ingress's `tls` hosts with
//!   a `cert-manager.io/issuer` or `cluster-issuer` annotation) whose Issuer solves HTTP-01.
//! - ingress-nginx's `nginx.ingress.kubernetes.io/auth-url`: the controller sends every
//!   request's auth subrequest to that URL (kubernetes/ingress-nginx#10821).
//!
//! The caller is the controller's workload when it is in the manifests, else the object that
//! makes it call; the finding points at the host as that object writes it.

use std::collections::HashSet;

use crate::objects::{Object, ObjectId, Workspace};
use crate::views::{pod_template, Annotations, Views};
use crate::yaml::NodeRef;

use super::address::{host_tokens, normalize};
use super::calls::{Caller, Evidence, Via};
use super::EntryId;

const AUTH_URL: &str = "nginx.ingress.kubernetes.io/auth-url";
const ISSUER: &str = "cert-manager.io/issuer";
const CLUSTER_ISSUER: &str = "cert-manager.io/cluster-issuer";

/// The cert-manager controller's workload: the one running its controller image.
fn cert_manager(ws: &Workspace, workloads: &[ObjectId]) -> Option<ObjectId> {
    workloads.iter().copied().find(|&w| {
        pod_template(ws, &ws.objects[w]).is_some_and(|t| {
            t.containers()
                .filter_map(|c| c.image())
                .any(|image| image.contains("cert-manager-controller"))
        })
    })
}

/// Issuers with an HTTP-01 solver, by (kind, namespace (empty for a ClusterIssuer), name).
type Issuers = HashSet<(String, String, String)>;

fn http01_issuers(views: &Views<'_>) -> Issuers {
    let mut found = Issuers::new();
    for issuer in views.issuers().filter(|issuer| issuer.http01) {
        let object = issuer.object;
        let namespace = if object.kind() == "Issuer" {
            object.namespace()
        } else {
            ""
        };
        found.insert((
            object.kind().to_string(),
            namespace.to_string(),
            object.name().to_string(),
        ));
    }
    found
}

/// One host an object makes a controller call, with how.
struct Implied<'w> {
    object: &'w Object,
    node: NodeRef<'w>,
    host: String,
    via: Via,
}

/// The names an object asks cert-manager to certify, with the issuer, when that issuer
/// solves HTTP-01: a Certificate's `dnsNames`, or an annotated Ingress's `tls` hosts.
fn issuer_names<'w>(
    ws: &'w Workspace,
    views: &Views<'w>,
    issuers: &Issuers,
    id: ObjectId,
) -> Vec<Implied<'w>> {
    let object = &ws.objects[id];
    let (kind, name, names): (&str, &str, Vec<NodeRef<'w>>) =
        if let Some(certificate) = views.certificate(id) {
            let Some(name) = certificate.issuer_name else {
                return Vec::new();
            };
            let kind = certificate.issuer_kind.unwrap_or("Issuer");
            (kind, name, certificate.dns_names.clone())
        } else if object.kind() == "Ingress" {
            let annotations = Annotations::of(ws, object);
            let issuer = [(ISSUER, "Issuer"), (CLUSTER_ISSUER, "ClusterIssuer")]
                .into_iter()
                .find_map(|(key, kind)| Some((kind, annotations.text(key)?)));
            let Some((kind, name)) = issuer else {
                return Vec::new();
            };
            let names = views.ingress(id).map(|ingress| ingress.tls_hosts());
            (kind, name, names.unwrap_or_default())
        } else {
            return Vec::new();
        };
    let namespace = if kind == "Issuer" {
        object.namespace()
    } else {
        ""
    };
    if !issuers.contains(&(kind.to_string(), namespace.to_string(), name.to_string())) {
        return Vec::new();
    }
    names
        .into_iter()
        .filter_map(|node| {
            Some(Implied {
                object,
                node,
                host: normalize(node.as_str()?),
                via: Via::Http01SelfCheck {
                    issuer: format!("{kind}/{name}"),
                },
            })
        })
        .collect()
}

fn auth_url<'w>(ws: &'w Workspace, object: &'w Object) -> Option<Implied<'w>> {
    if object.kind() != "Ingress" {
        return None;
    }
    let node = Annotations::of(ws, object).value(AUTH_URL)?;
    let text = node.as_str()?;
    let (_, token) = host_tokens(text)
        .into_iter()
        .find(|(at, _)| text[..*at].ends_with("://"))?;
    Some(Implied {
        object,
        node,
        host: normalize(token),
        via: Via::AuthUrl,
    })
}

/// The implied callers whose host is a load-balancer address (`targets` says of which).
pub fn callers(
    ws: &Workspace,
    views: &Views<'_>,
    workloads: &[ObjectId],
    targets: impl Fn(&str) -> Vec<EntryId>,
) -> Vec<Caller> {
    let issuers = http01_issuers(views);
    let controller = cert_manager(ws, workloads);
    let mut out = Vec::new();
    for (id, object) in ws.ids() {
        let mut implied = if issuers.is_empty() {
            Vec::new()
        } else {
            issuer_names(ws, views, &issuers, id)
        };
        implied.extend(auth_url(ws, object));
        for call in implied {
            let workload = match call.via {
                Via::Http01SelfCheck { .. } => controller.unwrap_or(id),
                _ => id,
            };
            for target in targets(&call.host) {
                out.push(Caller {
                    workload,
                    target,
                    address: call.host.clone(),
                    location: ws.location(call.object, call.node.span()),
                    address_span: None,
                    via: call.via.clone(),
                    evidence: Evidence::Call,
                    reason: match call.via {
                        Via::Http01SelfCheck { .. } => {
                            "cert-manager dials it to self-check HTTP-01"
                        }
                        _ => "the ingress controller sends each auth subrequest to it",
                    }
                    .to_string(),
                    from_node: false,
                    alias: None,
                });
            }
        }
    }
    out
}
