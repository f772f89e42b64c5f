//! The rule engine: the `Rule` trait and the `Context` rules read (the workspace, the
//! profile, the cluster model and typed views); the list of rules is `registry.rs`, their
//! metadata `crate::catalog`. Rules never parse YAML or print.

pub(crate) mod ack;
pub(crate) mod cce;
pub(crate) mod claims;
pub(crate) mod doks;
pub(crate) mod edit;
pub(crate) mod eks;
pub(crate) mod family;
pub(crate) mod hetzner;
pub mod k8s;
pub(crate) mod oke;
pub(crate) mod profile_objects;
mod registry;
pub use registry::{for_profile, for_provider, registry};
mod run;
pub(crate) use run::run_rules;
pub(crate) mod rename;
pub(crate) mod select;
pub(crate) mod tke;
pub(crate) mod verdict;
pub(crate) mod vke;

use crate::catalog::RuleMeta;
use crate::diagnostic::Diagnostic;
use crate::model::Model;
use crate::objects::Workspace;
use crate::profile::Profile;

pub struct Context<'a> {
    pub ws: &'a Workspace,
    /// Which rule judges which load balancer's calls, and which calls have a verdict.
    pub claims: claims::Claims<'a>,
    pub profile: &'a Profile,
    pub model: &'a Model,
    /// Which TkeServiceConfig each Service and Ingress uses, built once per run.
    pub tke_configs: crate::model::tke_config::Index<'a>,
    /// Typed views of the objects rules read, built once per run.
    pub views: crate::views::Views<'a>,
}

impl<'a> Context<'a> {
    /// The annotations the load balancer's Service carries: a Service's own, or for a
    /// Gateway API Gateway those its implementation copies onto the Service it creates
    /// (`model::implementation`).
    pub(crate) fn lb_annotations(
        &self,
        object: &crate::objects::Object,
    ) -> crate::views::Annotations<'a> {
        self.inferred_service(object).map_or_else(
            || crate::views::Annotations::of(self.ws, object),
            |s| s.annotations,
        )
    }

    /// The ports of the load balancer's Service: a Service's own, or for a Gateway whose
    /// implementation creates its Service, the ports it gives it (`model::implementation`).
    pub(crate) fn lb_ports(
        &self,
        entry: &crate::model::EntryPoint,
    ) -> Vec<crate::views::ServicePort<'a>> {
        if let Some(service) = self.views.service(entry.object) {
            return service.ports.to_vec();
        }
        let Some(gateway) = self.views.gateway(entry.object) else {
            return Vec::new();
        };
        crate::model::implementation::inferred_service(self.ws, &self.views, gateway)
            .map(|s| s.ports(gateway))
            .unwrap_or_default()
    }

    /// How a finding names the load balancer's Service: "Service `web`", or for a Gateway
    /// "Gateway `eg`'s Service `envoy-default-eg-e41e7b31` (inferred)".
    pub(crate) fn lb_subject(&self, object: &crate::objects::Object) -> String {
        match self.inferred_service(object) {
            Some(service) => match service.name {
                Some(name) => format!("Gateway `{}`'s Service `{name}` (inferred)", object.name()),
                None => format!("Gateway `{}`'s Service (inferred)", object.name()),
            },
            None => format!("Service `{}`", object.name()),
        }
    }

    /// The Service a Gateway's implementation creates, when `object` is such a Gateway.
    pub(crate) fn inferred_service(
        &self,
        object: &crate::objects::Object,
    ) -> Option<crate::model::implementation::InferredService<'a>> {
        if object.kind() != "Gateway" {
            return None;
        }
        let gateway = self
            .views
            .gateways()
            .find(|g| std::ptr::eq(g.object, object))?;
        crate::model::implementation::inferred_service(self.ws, &self.views, gateway)
    }
}

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>);

    /// Whether this rule judges the in-cluster calls of `entry`, whatever it finds: a rule
    /// that advises on every load balancer's calls (K8S010) leaves it to this one
    /// (`claims.rs`).
    fn claims(&self, _cx: &Context<'_>, _entry: &crate::model::EntryPoint) -> bool {
        false
    }

    /// Whether this rule gives way on a call another rule's finding judges: it runs after
    /// the others and stays silent on such calls (K8S001; `claims.rs`).
    fn yields_to_verdicts(&self) -> bool {
        false
    }
}
