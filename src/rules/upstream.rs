//! Upstream Kubernetes facts that several providers' rules share (KEP-1860; rules/K8S010.md):
//! whether `ipMode: Proxy` takes effect on this cluster. Each answer says why, naming the
//! profile field when the answer is unknown.

use crate::profile::version::{self, parse_version};
use crate::profile::ProxyMode;
use crate::rules::Context;

/// A yes/no/unknown answer with the reason, written for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    Yes,
    No(String),
    Unknown(String),
}

impl Gate {
    /// Both must hold: `No` wins, then `Unknown` (reasons joined).
    pub fn and(self, other: Gate) -> Gate {
        match (self, other) {
            (Gate::No(a), _) | (_, Gate::No(a)) => Gate::No(a),
            (Gate::Unknown(a), Gate::Unknown(b)) => Gate::Unknown(format!("{a}; {b}")),
            (Gate::Unknown(a), Gate::Yes) | (Gate::Yes, Gate::Unknown(a)) => Gate::Unknown(a),
            (Gate::Yes, Gate::Yes) => Gate::Yes,
        }
    }
}

/// First Cilium release that honours `ipMode` (cilium/cilium#34780; the release number
/// comes from a third-party comment).
const CILIUM_IP_MODE_SINCE: &str = "1.17.0";
/// Cilium 1.18.0 ignores `ipMode: Proxy` (cilium/cilium#40913, fixed by #40915).
const CILIUM_IP_MODE_REGRESSION: &str = "1.18.0";

/// Does `status.loadBalancer.ingress[].ipMode: Proxy` stop the in-cluster shortcut here?
/// Kubernetes 1.30 or later (the LoadBalancerIPMode gate is beta and on from 1.30), and a
/// dataplane that honours it: kube-proxy in iptables or IPVS mode (KEP-1860), Cilium's
/// kube-proxy replacement from 1.17 except 1.18.0. Whether nftables honours it is not
/// documented (KEP-1860 names iptables and IPVS only), so it stays unknown.
pub fn ip_mode_proxy_honoured(cx: &Context<'_>) -> Gate {
    kubernetes_has_ip_mode(cx).and(dataplane_honours_ip_mode(cx))
}

/// Kubernetes 1.30 or later.
pub fn kubernetes_has_ip_mode(cx: &Context<'_>) -> Gate {
    let stated = cx.profile.kubernetes_version();
    match stated.value.map(|v| (v, version::at_least(v, "1.30"))) {
        Some((_, Some(true))) => Gate::Yes,
        Some((v, Some(false))) => Gate::No(format!(
            "Kubernetes {v} (profile `{}`{}) is before 1.30, where the LoadBalancerIPMode feature \
             gate is off by default, so `ipMode: Proxy` is ignored",
            stated.field(),
            stated.at_line()
        )),
        Some((v, None)) => Gate::Unknown(stated.unknown(&format!(
            "`{v}` is not a version lblint can compare; `ipMode: Proxy` needs 1.30 or later"
        ))),
        None => Gate::Unknown(stated.unknown("`ipMode: Proxy` takes effect from Kubernetes 1.30")),
    }
}

fn dataplane_honours_ip_mode(cx: &Context<'_>) -> Gate {
    let mode = cx.profile.kube_proxy_mode();
    match mode.value {
        Some(ProxyMode::Iptables | ProxyMode::Ipvs) => Gate::Yes,
        Some(ProxyMode::Nftables) => Gate::Unknown(format!(
            "kube-proxy runs in nftables mode (profile `{}`{}), and no Kubernetes document says \
             that mode honours `ipMode: Proxy` (KEP-1860 names iptables and IPVS)",
            mode.field(),
            mode.at_line()
        )),
        Some(ProxyMode::Ebpf) => cilium_honours_ip_mode(cx),
        None => Gate::Unknown(mode.unknown(
            "kube-proxy in iptables or IPVS mode honours `ipMode: Proxy`; nftables is not \
             documented to, and an eBPF dataplane depends on its version",
        )),
    }
}

fn cilium_honours_ip_mode(cx: &Context<'_>) -> Gate {
    let cilium = cx.profile.cilium();
    let Some(text) = cilium.value else {
        return Gate::Unknown(cilium.unknown(
            "the eBPF dataplane replaces kube-proxy; Cilium honours `ipMode: Proxy` from 1.17, \
             except 1.18.0",
        ));
    };
    let (Some(v), Some(since), Some(broken)) = (
        parse_version(text),
        parse_version(CILIUM_IP_MODE_SINCE),
        parse_version(CILIUM_IP_MODE_REGRESSION),
    ) else {
        return Gate::Unknown(
            cilium.unknown(&format!("`{text}` is not a version lblint can compare")),
        );
    };
    if v < since {
        Gate::No(format!(
            "Cilium {text} (profile `{}`{}) predates {CILIUM_IP_MODE_SINCE}, the first release \
             that honours `ipMode: Proxy` (cilium/cilium#34780)",
            cilium.field(),
            cilium.at_line()
        ))
    } else if v == broken {
        Gate::No(format!(
            "Cilium {text} (profile `{}`{}) ignores `ipMode: Proxy` (cilium/cilium#40913, fixed \
             in 1.18.1)",
            cilium.field(),
            cilium.at_line()
        ))
    } else {
        Gate::Yes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_combine_no_first_then_unknown() {
        let no = || Gate::No("n".into());
        let unknown = |s: &str| Gate::Unknown(s.into());
        assert_eq!(Gate::Yes.and(no()), no());
        assert_eq!(unknown("a").and(no()), no());
        assert_eq!(unknown("a").and(unknown("b")), unknown("a; b"));
        assert_eq!(Gate::Yes.and(unknown("a")), unknown("a"));
        assert_eq!(Gate::Yes.and(Gate::Yes), Gate::Yes);
    }
}
