//! Rule trait, metadata and the registry. Rules read the workspace, the profile and the
//! cluster model; they never parse YAML or print.

pub mod ack;
pub mod cce;
pub mod docs;
pub mod doks;
pub(crate) mod edit;
pub mod eks;
pub mod family;
pub mod hetzner;
pub mod k8s;
pub mod lbl;
pub mod meta;
pub mod oke;
pub mod profile_objects;
mod run;
pub use run::run_rules;
pub(crate) mod rename;
pub mod select;
pub mod tke;
pub(crate) mod verdict;
pub mod vke;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::model::Model;
use crate::objects::Workspace;
use crate::profile::{Profile, Provider};

/// Static description of a rule; `doc` is `rules/<ID>.md`, embedded.
#[derive(Debug)]
pub struct RuleMeta {
    pub id: &'static str,
    pub name: &'static str,
    pub default_severity: Severity,
    /// Providers the rule is about: profile names ([`Provider::NAMES`]) or `any`.
    pub providers: &'static [&'static str],
    /// One-line summary.
    pub summary: &'static str,
    /// Whether findings come with a fix (`--fix`, or shown as a suggestion).
    pub fix: FixAvailability,
    pub doc: &'static str,
}

/// Whether a rule's findings come with a fix, as ruff states it per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixAvailability {
    None,
    /// When the manifest's layout allows the edit (a block mapping, a plain scalar …).
    Sometimes,
    Always,
}

impl FixAvailability {
    pub fn as_str(self) -> &'static str {
        match self {
            FixAvailability::None => "none",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "always",
        }
    }
}

impl RuleMeta {
    pub fn diagnostic(
        &'static self,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.id, self.name, severity, location, message)
    }

    /// Whether the rule runs on a cluster of `provider`: a provider's rules run on its
    /// clusters only (`generic` is none of the named clouds); `providers: [any]` runs
    /// everywhere. With no profile at all every rule runs ([`for_profile`]).
    pub fn runs_on(&self, provider: Provider) -> bool {
        self.providers == ["any"] || self.providers.contains(&provider.as_str())
    }

    /// Whether the rule is one cloud's (not `providers: [any]`): with no profile its
    /// findings rest on the object's annotations alone ([`cap_unstated_provider`]).
    pub fn is_cloud_rule(&self) -> bool {
        self.providers != ["any"]
    }

    /// Where the rule's documentation is published, as of this version (its release tag),
    /// so a link in an old report keeps showing the rule that made it.
    pub fn url(&self) -> String {
        format!(
            "https://github.com/lblint/lblint/blob/v{}/rules/{}.md",
            env!("CARGO_PKG_VERSION"),
            self.id
        )
    }
}

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

/// Rules that run over objects, in a fixed order so output is deterministic.
pub fn registry() -> Vec<&'static dyn Rule> {
    vec![
        &tke::l4_loopback::L4Loopback,
        &tke::l7_loopback::L7Loopback,
        &tke::prevent_loopback::PreventLoopbackL7,
        &tke::prevent_loopback::PreventLoopbackKubeProxy,
        &tke::snat::SnatAllowlist,
        &tke::snat::L7SnatFieldVersion,
        &tke::service_config::MissingConfig,
        &tke::service_config::ManualAndAuto,
        &tke::service_config::ReservedName,
        &tke::service_config::UnmatchedListener,
        &tke::service_config::UnusedConfig,
        &tke::tradeoffs::UdpSnat,
        &tke::tradeoffs::L7Snat,
        &tke::tradeoffs::PreventLoopbackBypass,
        &k8s::lb_address_in_cluster::LbAddressInCluster,
        &k8s::annotation_value_not_string::AnnotationValueNotString,
        &vke::ip_mode_invalid::IpModeInvalid,
        &vke::ip_mode_not_load_balancer::IpModeNotLoadBalancer,
        &vke::proxy_prerequisites::ProxyPrerequisites,
        &vke::proxy_same_node::ProxySameNode,
        &vke::ip_mode_status_mismatch::IpModeStatusMismatch,
        &family::local_policy::ACK,
        &family::local_policy::UPSTREAM,
        &ack::eni_needs_terway::EniNeedsTerway,
        &ack::eni_with_local_policy::EniWithLocalPolicy,
        &ack::gateway_namespace::GatewayNamespace,
        &k8s::no_short_circuit::NoShortCircuit,
        &k8s::internal_traffic_policy_local::InternalTrafficPolicyLocal,
        &k8s::class_ignores_annotations::ClassIgnoresAnnotations,
        &k8s::external_lb_hairpin::ExternalLbHairpin,
        &k8s::annotation_rejected::AnnotationValueRejected,
        &family::proxy_protocol::doks::DOKS,
        &doks::hostname_needs_dns::HostnameNeedsDns,
        &family::proxy_protocol::hetzner::HETZNER,
        &hetzner::stale_hostname::StaleHostname,
        &hetzner::ipvs_private_ingress::IpvsPrivateIngress,
        &family::proxy_protocol::lke::LKE,
        &family::proxy_protocol::scaleway::SCALEWAY,
        &family::proxy_protocol::openstack::OPENSTACK,
        &family::proxy_protocol::cloudscale::CLOUDSCALE,
        &family::proxy_protocol::oke::OKE,
        &oke::ip_mode_invalid::IpModeInvalid,
        &oke::ip_mode_before_1_30::IpModeBefore130,
        &eks::nlb_hairpin::NlbHairpin,
        &eks::instance_without_node_ports::InstanceWithoutNodePorts,
        &eks::proxy_protocol_instance_local::ProxyProtocolInstanceLocal,
        &family::local_policy::CCE,
        &cce::pass_through_same_node::PassThroughSameNode,
        &cce::mixed_pass_through::MixedPassThrough,
        &family::internal_lb::InternalLbInCluster,
        &family::internal_lb::InternalLbNodeCaller,
        &profile_objects::ProfileObjectMissing,
    ]
}

/// The rules of `rules` that run on a cluster of `provider` (see [`RuleMeta::runs_on`]).
pub fn for_provider<'r>(rules: &[&'r dyn Rule], provider: Provider) -> Vec<&'r dyn Rule> {
    rules
        .iter()
        .copied()
        .filter(|rule| rule.meta().runs_on(provider))
        .collect()
}

/// The rules of `rules` that run with `profile`: its provider's ([`for_provider`]), or,
/// with no profile, every rule (each cloud's on the objects annotated for that cloud).
pub fn for_profile<'r>(rules: &[&'r dyn Rule], profile: &Profile) -> Vec<&'r dyn Rule> {
    if profile.is_absent() {
        return rules.to_vec();
    }
    for_provider(rules, profile.provider())
}

/// With no profile, a cloud's rule judged an object by its annotations alone: the cluster
/// may be another cloud, so an error is at most a warning, and the help names the field
/// that settles it (DEVELOPERS.md, Severity).
pub fn cap_unstated_provider(profile: &Profile, diagnostics: &mut [Diagnostic]) {
    if !profile.is_absent() {
        return;
    }
    let cloud: std::collections::HashSet<&str> = all_meta()
        .into_iter()
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

/// The ids of the documented rules that name `provider` (`profile init` lists them).
pub fn ids_for_provider(provider: &str) -> Vec<&'static str> {
    meta::DOCUMENTED
        .iter()
        .filter(|m| m.providers.contains(&provider))
        .map(|m| m.id)
        .collect()
}

/// Every rule's metadata, including the loader's own (yaml-syntax and friends).
pub fn all_meta() -> Vec<&'static RuleMeta> {
    let mut metas: Vec<&'static RuleMeta> = lbl::ALL.to_vec();
    metas.extend(registry().iter().map(|r| r.meta()));
    metas
}

/// README's rules table: one row per rule, from the metadata (`lblint rules --format
/// markdown` prints it; a test keeps README's copy current).
pub fn markdown_table() -> String {
    let mut out =
        String::from("| rule | name | default | fix | what it finds |\n|---|---|---|---|---|\n");
    for m in all_meta() {
        let fix = match m.fix {
            FixAvailability::None => "",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "yes",
        };
        out.push_str(&format!(
            "| [{id}](rules/{id}.md) | `{name}` | {severity} | {fix} | {summary} |\n",
            id = m.id,
            name = m.name,
            severity = m.default_severity.as_str(),
            summary = m.summary,
        ));
    }
    out
}

/// Find a rule by id (case-insensitive) or name.
pub fn lookup(key: &str) -> Option<&'static RuleMeta> {
    all_meta()
        .into_iter()
        .find(|m| m.id.eq_ignore_ascii_case(key) || m.name == key)
}

/// Every id and name a rule can be selected by.
pub fn rule_keys() -> Vec<&'static str> {
    all_meta().iter().flat_map(|m| [m.id, m.name]).collect()
}

/// A rule key (`--select`, `--ignore`) that names no rule, with the closest one.
#[derive(Debug)]
pub struct UnknownRule {
    pub key: String,
    pub suggestion: Option<String>,
}

impl std::fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown rule `{}` (see `lblint rules`)", self.key)?;
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean `{s}`?")?;
        }
        Ok(())
    }
}

/// The rules named by comma-separated ids or names.
pub fn resolve(keys: &[String]) -> Result<Vec<&'static RuleMeta>, UnknownRule> {
    keys.iter()
        .flat_map(|k| k.split(','))
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|key| {
            lookup(key).ok_or_else(|| UnknownRule {
                key: key.to_string(),
                suggestion: crate::profile::suggest::did_you_mean(key, &rule_keys())
                    .map(str::to_string),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_rules_run_on_their_cloud_only() {
        let runs = |id: &str, provider| lookup(id).expect("a rule").runs_on(provider);
        assert!(runs("TKE001", Provider::Tke));
        assert!(!runs("TKE001", Provider::Vke) && !runs("TKE001", Provider::Ack));
        assert!(runs("VKE004", Provider::Vke) && !runs("VKE004", Provider::Tke));
        assert!(runs("ACK001", Provider::Ack) && !runs("ACK001", Provider::Tke));
        // `provider: generic` is none of the named clouds: no cloud's rule runs there.
        assert!(!runs("TKE001", Provider::Generic) && !runs("ACK001", Provider::Generic));
        for provider in Provider::ALL {
            assert!(runs("K8S001", provider) && runs("LBL001", provider));
        }
        let on_vke: Vec<&str> = for_provider(&registry(), Provider::Vke)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        assert_eq!(on_vke, ["VKE001", "VKE002", "VKE003", "VKE004", "VKE005"]);
    }

    /// A provider's rules run on its clusters only; the provider-neutral ones run
    /// everywhere; with no profile, every rule runs.
    #[test]
    fn provider_rules_run_on_their_provider_only() {
        for provider in Provider::ALL {
            for m in all_meta() {
                let expected = m.providers == ["any"] || m.providers.contains(&provider.as_str());
                assert_eq!(m.runs_on(provider), expected, "{} on {provider}", m.id);
            }
            assert!(
                all_meta()
                    .iter()
                    .any(|m| m.id == "K8S010" && m.runs_on(provider)),
                "{provider}"
            );
        }
        let on_doks: Vec<&str> = for_provider(&registry(), Provider::Doks)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        assert_eq!(on_doks, ["DOKS001", "DOKS002"]);
        let on_cce: Vec<&str> = for_provider(&registry(), Provider::Cce)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        assert_eq!(on_cce, ["CCE001", "CCE002", "CCE003"]);
        let on_generic = for_provider(&registry(), Provider::Generic);
        assert!(on_generic.iter().all(|r| r.meta().providers == ["any"]));
        // No profile: every rule, each cloud's on the objects annotated for it.
        let none = for_profile(&registry(), &crate::profile::generic());
        assert_eq!(none.len(), registry().len());
    }

    /// `providers:` in rules/<ID>.md front matter names profile providers (or `any`), so a
    /// misspelt one cannot silently keep a rule from running.
    #[test]
    fn rule_providers_are_profile_names() {
        for meta in all_meta() {
            for p in meta.providers {
                assert!(
                    *p == "any" || Provider::NAMES.contains(p),
                    "{}: unknown provider `{p}`",
                    meta.id
                );
            }
        }
    }
}
