//! The rule engine: the `Rule` trait and the `Context` rules read (the workspace, the
//! profile, the cluster model and typed views); the list of rules is `registry.rs`, their
//! metadata `crate::catalog`. Rules never parse YAML or print.

pub mod ack;
pub mod cce;
pub mod doks;
pub(crate) mod edit;
pub mod eks;
pub mod family;
pub mod hetzner;
pub mod k8s;
pub mod oke;
pub mod profile_objects;
mod registry;
pub use registry::{for_profile, for_provider, registry};
mod run;
pub use run::run_rules;
pub(crate) mod rename;
pub mod select;
pub mod tke;
pub(crate) mod verdict;
pub mod vke;

use crate::catalog::{all_meta, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Model;
use crate::objects::Workspace;
use crate::profile::Profile;

pub struct Context<'a> {
    pub ws: &'a Workspace,
    pub profile: &'a Profile,
    pub model: &'a Model,
    /// Which TkeServiceConfig each Service and Ingress uses, built once per run.
    pub tke_configs: crate::model::tke_config::Index<'a>,
    /// Typed views of the objects rules read, built once per run.
    pub views: crate::model::views::Views<'a>,
}

impl<'a> Context<'a> {
    /// The annotations the load balancer's Service carries: a Service's own, or for a
    /// Gateway API Gateway those its implementation copies onto the Service it creates
    /// (`model::implementation`).
    pub fn lb_annotations(&self, object: &crate::objects::Object) -> crate::views::Annotations<'a> {
        self.inferred_service(object).map_or_else(
            || crate::views::Annotations::of(self.ws, object),
            |s| s.annotations,
        )
    }

    /// The ports of the load balancer's Service: a Service's own, or for a Gateway whose
    /// implementation creates its Service, the ports it gives it (`model::implementation`).
    pub fn lb_ports(&self, entry: &crate::model::EntryPoint) -> Vec<crate::views::ServicePort<'a>> {
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
    pub fn lb_subject(&self, object: &crate::objects::Object) -> String {
        match self.inferred_service(object) {
            Some(service) => match service.name {
                Some(name) => format!("Gateway `{}`'s Service `{name}` (inferred)", object.name()),
                None => format!("Gateway `{}`'s Service (inferred)", object.name()),
            },
            None => format!("Service `{}`", object.name()),
        }
    }

    /// The Service a Gateway's implementation creates, when `object` is such a Gateway.
    pub fn inferred_service(
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
}

/// With no profile, a cloud's rule judged an object by its annotations alone: the cluster
/// may be another cloud, so an error is at most a warning, and the help names the field
/// that settles it (DEVELOPERS.md, Severity).
pub fn cap_unstated_provider(profile: &Profile, diagnostics: &mut [Diagnostic]) {
    if !profile.is_absent() {
        return;
    }
    let cloud: std::collections::HashSet<&str> = all_meta()
        .iter()
        .filter(|m| m.is_cloud_rule())
        .map(|m| m.id)
        .collect();
    for d in diagnostics.iter_mut() {
        if d.severity() == Severity::Error && cloud.contains(d.rule()) {
            d.set_severity(Severity::Warning);
            d.add_help(
                "no profile given: the object's annotations alone say which cloud runs it; a \
                 profile with `spec.provider` makes this an error on that cloud",
            );
        }
    }
}
