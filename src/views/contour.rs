//! Contour's `HTTPProxy` (projectcontour.io/v1): its root's host and the class it asks for.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::{Annotations, Kind};

/// The kinds [`HttpProxyView`] reads.
pub const HTTP_PROXY: &[Kind] = &[("projectcontour.io", "HTTPProxy")];

/// An HTTPProxy: `spec.virtualhost.fqdn` (root proxies only) and its class.
#[derive(Clone, Debug)]
pub struct HttpProxyView<'w> {
    pub object: &'w Object,
    pub fqdn: Option<NodeRef<'w>>,
    /// The class as Contour reads it (`internal/annotation` `IngressClass`): the
    /// `projectcontour.io/ingress.class` annotation, else `kubernetes.io/ingress.class`,
    /// else `spec.ingressClassName` (v1.18.0 and later).
    pub class: Option<&'w str>,
}

impl<'w> HttpProxyView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<HttpProxyView<'w>> {
        if !super::is_kind(object, HTTP_PROXY) {
            return None;
        }
        let spec = ws.spec(object);
        let annotations = Annotations::of(ws, object);
        let class = annotations
            .non_empty("projectcontour.io/ingress.class")
            .or_else(|| annotations.non_empty("kubernetes.io/ingress.class"))
            .or_else(|| spec?.get("ingressClassName")?.as_str());
        Some(HttpProxyView {
            object,
            fqdn: spec.and_then(|s| s.path(&["virtualhost", "fqdn"])),
            class,
        })
    }
}
