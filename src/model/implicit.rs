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
use crate::views::pod_template;
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
            ["containers"].iter().any(|list| {
                t.spec
                    .get(list)
                    .into_iter()
                    .flat_map(NodeRef::items)
                    .filter_map(|c| c.get("image")?.as_str())
                    .any(|image| image.contains("cert-manager-controller"))
            })
        })
    })
}

/// Issuers with an HTTP-01 solver, by (kind, namespace (empty for a ClusterIssuer), name).
type Issuers = HashSet<(String, String, String)>;

fn http01_issuers(ws: &Workspace) -> Issuers {
    let mut found = Issuers::new();
    for object in &ws.objects {
        if object.group() != "cert-manager.io"
            || !matches!(object.kind(), "Issuer" | "ClusterIssuer")
        {
            continue;
        }
        let http01 = ws
            .spec(object)
            .and_then(|s| s.path(&["acme", "solvers"]))
            .into_iter()
            .flat_map(NodeRef::items)
            .any(|solver| solver.get("http01").is_some());
        if http01 {
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
fn issuer_names<'w>(ws: &'w Workspace, issuers: &Issuers, object: &'w Object) -> Vec<Implied<'w>> {
    let spec = ws.spec(object);
    let (kind, name, names): (&str, &str, Vec<NodeRef<'w>>) =
        if object.group() == "cert-manager.io" && object.kind() == "Certificate" {
            let issuer = spec.and_then(|s| s.get("issuerRef"));
            let text = |key: &str| issuer.and_then(|i| i.get(key)).and_then(|v| v.as_str());
            let Some(name) = text("name") else {
                return Vec::new();
            };
            let names = spec
                .and_then(|s| s.get("dnsNames"))
                .into_iter()
                .flat_map(NodeRef::items);
            (text("kind").unwrap_or("Issuer"), name, names.collect())
        } else if object.kind() == "Ingress" {
            let issuer = [(ISSUER, "Issuer"), (CLUSTER_ISSUER, "ClusterIssuer")]
                .into_iter()
                .find_map(|(key, kind)| Some((kind, ws.annotation(object, key)?.1.as_str()?)));
            let Some((kind, name)) = issuer else {
                return Vec::new();
            };
            let names = spec
                .and_then(|s| s.get("tls"))
                .into_iter()
                .flat_map(NodeRef::items)
                .flat_map(|t| t.get("hosts").into_iter().flat_map(NodeRef::items));
            (kind, name, names.collect())
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
    let (_, node) = ws.annotation(object, AUTH_URL)?;
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
    workloads: &[ObjectId],
    targets: impl Fn(&str) -> Vec<EntryId>,
) -> Vec<Caller> {
    let issuers = http01_issuers(ws);
    let controller = cert_manager(ws, workloads);
    let mut out = Vec::new();
    for (id, object) in ws.ids() {
        let mut implied = if issuers.is_empty() {
            Vec::new()
        } else {
            issuer_names(ws, &issuers, object)
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
                    from_node: false,
                    alias: None,
                });
            }
        }
    }
    out
}
