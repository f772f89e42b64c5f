//! VKE003 vke-proxy-mode-prerequisites: `Proxy` on a cluster that lacks a prerequisite.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::{version, Fact, Profile};
use crate::rules::{Context, Rule};

use super::{proxy_services, to_vip_fix, IP_MODE, SEED_DOC};

use crate::catalog::meta::VKE003 as META;

pub(crate) struct ProxyPrerequisites;

/// A prerequisite the profile contradicts (with where it says so), or one it does not state.
enum Verdict {
    Missing(String, &'static [&'static str]),
    Unknown(String),
}

fn version_fact(fact: Fact<'_, &str>, minimum: &str, what: &str) -> Option<Verdict> {
    let field = fact.field();
    let Some(value) = fact.value else {
        return Some(Verdict::Unknown(
            fact.unknown(&format!("{what} must be {minimum} or later")),
        ));
    };
    match version::at_least(value, minimum) {
        Some(true) => None,
        Some(false) => Some(Verdict::Missing(
            format!("`{field}` is `{value}`{}, below {minimum}", fact.at()),
            fact.keys,
        )),
        None => Some(Verdict::Unknown(fact.unknown(&format!(
            "`{value}` is not a version lblint can compare; {what} must be {minimum} or later"
        )))),
    }
}

fn string_fact(fact: Fact<'_, &str>, wanted: &str, what: &str) -> Option<Verdict> {
    match fact.value {
        None => Some(Verdict::Unknown(
            fact.unknown(&format!("must be `{wanted}`: {what}")),
        )),
        Some(v) if v.eq_ignore_ascii_case(wanted) => None,
        Some(v) => Some(Verdict::Missing(
            format!(
                "`{}` is `{v}`{}, not `{wanted}` ({what})",
                fact.field(),
                fact.at()
            ),
            fact.keys,
        )),
    }
}

/// The prerequisites the profile contradicts or does not state.
fn prerequisites(profile: &Profile) -> Vec<Verdict> {
    [
        version_fact(
            profile.kubernetes_version(),
            "v1.30",
            "the cluster Kubernetes version",
        ),
        string_fact(
            profile.network_cni(),
            "vpc-cni",
            "the VPC-CNI network model",
        ),
        string_fact(
            profile.network_pod_interface(),
            "ipvlan",
            "IPvlan pod network interfaces",
        ),
        string_fact(
            profile.network_service_forwarding(),
            "ebpf",
            "eBPF Service forwarding",
        ),
        version_fact(
            profile.cloud_controller_manager(),
            "v1.43.0",
            "the cloud-controller-manager add-on",
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The severity and message for Service `name`: an error when a prerequisite is missing
/// (naming the unstated ones too), a warning naming the fields when only unstated.
fn words(cx: &Context<'_>, name: &str, verdicts: &[Verdict]) -> (Severity, String, String) {
    let missing: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Missing(s, _) => Some(s.as_str()),
            Verdict::Unknown(_) => None,
        })
        .collect();
    let unknown: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Unknown(s) => Some(s.as_str()),
            Verdict::Missing(..) => None,
        })
        .collect();
    let profile = cx.profile.path.as_deref().map_or_else(
        || "the cluster profile".to_string(),
        |p| format!("the cluster profile {p}"),
    );
    // The lead names the fields; what each must be is the help's first sentence.
    let fields = |texts: &[&str]| {
        crate::rules::verdict::field_list(&texts.join("; ")).unwrap_or_else(|| texts.join(", "))
    };
    if missing.is_empty() {
        return (
            Severity::Warning,
            format!(
                "Service `{name}` uses the `Proxy` IP mode, whose prerequisites the cluster profile does \
                 not state: set {}.",
                fields(&unknown)
            ),
            format!(
                "`Proxy` works only on clusters that meet its prerequisites, and {profile} does not say \
                 whether this one does: {}.",
                unknown.join("; ")
            ),
        );
    }
    // "`spec.network.cni` is `flannel`": each missing fact up to where it is stated.
    let facts: Vec<&str> = missing
        .iter()
        .map(|m| m.split_once(" (").map_or(*m, |(fact, _)| fact))
        .collect();
    let mut message = format!(
        "Service `{name}` uses the `Proxy` IP mode, which this cluster does not support: {}.",
        facts.join("; ")
    );
    let mut detail = format!("{}.", missing.join("; "));
    if !unknown.is_empty() {
        message.push_str(&format!(" Also not stated: {}.", fields(&unknown)));
        detail.push_str(&format!(
            " Also not stated in {profile}: {}.",
            unknown.join(", ")
        ));
    }
    (Severity::Error, message, detail)
}

impl Rule for ProxyPrerequisites {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let verdicts = prerequisites(cx.profile);
        if verdicts.is_empty() {
            return;
        }
        for (_, _, object, value) in proxy_services(cx) {
            let (severity, message, detail) = words(cx, object.name(), &verdicts);
            let mut d = META
                .diagnostic(severity, cx.ws.location(object, value.span()), message)
                .with_help(format!(
                    "{detail} `Proxy` needs Kubernetes v1.30 or later, the VPC-CNI network model with IPvlan pod interfaces \
                     and eBPF Service forwarding, and the cloud-controller-manager add-on v1.43.0 or later: upgrade \
                     the cluster and add-on, or set `{IP_MODE}` to `VIP` (the default) before the Service is \
                     created. See {SEED_DOC}"
                ));
            for keys in verdicts.iter().filter_map(|v| match v {
                Verdict::Missing(_, keys) => Some(*keys),
                Verdict::Unknown(_) => None,
            }) {
                if let Some(at) = cx.profile.fact_location(keys) {
                    d = d.with_related(
                        at,
                        "the cluster profile states this prerequisite is not met",
                    );
                }
            }
            out.push(d.on(object).with_fix(to_vip_fix(cx.ws, object, value)));
        }
    }
}
