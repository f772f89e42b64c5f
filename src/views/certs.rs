//! cert-manager's Issuers and Certificates: which names its controller checks over HTTP-01
//! from inside the cluster.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds [`IssuerView`] reads.
pub const ISSUER: &[Kind] = &[
    ("cert-manager.io", "Issuer"),
    ("cert-manager.io", "ClusterIssuer"),
];
/// The kinds [`CertificateView`] reads.
pub const CERTIFICATE: &[Kind] = &[("cert-manager.io", "Certificate")];

/// A cert-manager `Issuer` or `ClusterIssuer`.
#[derive(Clone, Debug)]
pub struct IssuerView<'w> {
    pub object: &'w Object,
    /// An ACME solver with `http01`.
    pub http01: bool,
}

impl<'w> IssuerView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IssuerView<'w>> {
        if !super::is_kind(object, ISSUER) {
            return None;
        }
        let http01 = ws
            .spec(object)
            .and_then(|s| s.path(&["acme", "solvers"]))
            .into_iter()
            .flat_map(NodeRef::items)
            .any(|solver| solver.get("http01").is_some());
        Some(IssuerView { object, http01 })
    }
}

/// A cert-manager `Certificate`.
#[derive(Clone, Debug)]
pub struct CertificateView<'w> {
    pub object: &'w Object,
    /// `spec.issuerRef.name` and `.kind` (unset: `Issuer`).
    pub issuer_name: Option<&'w str>,
    pub issuer_kind: Option<&'w str>,
    pub dns_names: Vec<NodeRef<'w>>,
}

impl<'w> CertificateView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<CertificateView<'w>> {
        if !super::is_kind(object, CERTIFICATE) {
            return None;
        }
        let spec = ws.spec(object);
        let issuer = spec.and_then(|s| s.get("issuerRef"));
        let text = |key: &str| issuer.and_then(|i| i.get(key)).and_then(|v| v.as_str());
        Some(CertificateView {
            object,
            issuer_name: text("name"),
            issuer_kind: text("kind"),
            dns_names: spec
                .and_then(|s| s.get("dnsNames"))
                .into_iter()
                .flat_map(NodeRef::items)
                .collect(),
        })
    }
}
