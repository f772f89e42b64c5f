//! Which TKE kube-proxy builds bind LB addresses to the IPVS NIC (`kube-ipvs0`), which
//! `service.cloud.tencent.com/prevent-loopback` needs (rules/TKE004.md). One table, read by
//! TKE004, TKE001's help and `profile import` (which writes `kubeProxy.lbAddressBinding`).
//!
//! Sources: TKE Kubernetes Revision Version History
//! (<https://intl.cloud.tencent.com/document/product/457/9315>; its source,
//! tencentyun/intlcloud-documents, "TKE Kubernetes Revision 版本历史"): on 2022-01-20 the
//! builds v1.12.4-tke.30, v1.14.3-tke.24, v1.16.3-tke.25, v1.18.4-tke.20 and v1.20.6-tke.12
//! "support binding LB addresses to the ipvs NIC". Every later minor's first build came
//! after that (v1.22.5-tke.1 and v1.24.4-tke.1 on 2022-05-07) and TKE documents no minor
//! without it, so a later minor binds, except 1.28: v1.28.3-tke.3 (2024-04-24) notes "lb vip
//! binding issue fixed (kube-proxy)", so earlier 1.28 builds are not known to bind.

use super::version::{parse_version, Version};

/// The documented first build of each minor that binds LB addresses.
pub(crate) const DOCUMENTED_BUILDS: &[&str] = &[
    "v1.20.6-tke.12",
    "v1.18.4-tke.20",
    "v1.16.3-tke.25",
    "v1.14.3-tke.24",
    "v1.12.4-tke.30",
];

/// Minors newer than every documented one whose early builds are not known to bind: the
/// first build after TKE's fix note.
const FIXED_LATER: &[&str] = &["v1.28.3-tke.3"];

/// The newest minor with a documented build: later minors were first built after the
/// feature shipped.
const NEWEST_DOCUMENTED_MINOR: (u64, u64) = (1, 20);

/// One sentence for help texts: the builds that bind, newest first.
pub(crate) const SUPPORTED_BUILDS: &str =
    "any TKE build of 1.22 or later (on 1.28, v1.28.3-tke.3 or \
     later), v1.20.6-tke.12, v1.18.4-tke.20, v1.16.3-tke.25, v1.14.3-tke.24 or v1.12.4-tke.30 \
     or later in their lines";

/// What the table says of one kube-proxy version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// It binds; the reason names the build or the rule that says so.
    Binds(String),
    /// It does not: older than its line's first binding build (named).
    Older(String),
    /// Not settled, and why.
    Unknown(String),
}

fn minor(v: &Version) -> (u64, u64) {
    (
        v.parts.first().copied().unwrap_or(0),
        v.parts.get(1).copied().unwrap_or(0),
    )
}

/// The verdict for a kube-proxy version as written (`v1.30.0-tke.11`).
pub(crate) fn binding(text: &str) -> Binding {
    let Some(version) = parse_version(text) else {
        return Binding::Unknown(format!(
            "kube-proxy version `{text}` is not a version lblint can compare"
        ));
    };
    if !text.contains("-tke.") {
        return Binding::Unknown(format!(
            "kube-proxy {text} is not a TKE build (no `-tke.N`), and only TKE's builds bind LB addresses"
        ));
    }
    let line = minor(&version);
    for build in DOCUMENTED_BUILDS.iter().chain(FIXED_LATER) {
        let Some(first) = parse_version(build) else {
            continue;
        };
        if minor(&first) != line {
            continue;
        }
        return if version >= first {
            Binding::Binds(format!("kube-proxy {text} is {build} or later"))
        } else if DOCUMENTED_BUILDS.contains(build) {
            Binding::Older(format!(
                "kube-proxy {text} is older than {build}, the first {}.{} build that binds LB addresses to \
                 the IPVS NIC",
                line.0, line.1
            ))
        } else {
            Binding::Unknown(format!(
                "kube-proxy {text} is older than {build}, whose release note says \"lb vip binding issue fixed\""
            ))
        };
    }
    if line > NEWEST_DOCUMENTED_MINOR {
        Binding::Binds(format!(
            "kube-proxy {text}: every TKE build of {}.{} came after v1.20.6-tke.12 and binds LB addresses",
            line.0, line.1
        ))
    } else {
        Binding::Unknown(format!(
            "TKE documents no build of {}.{} that binds LB addresses to the IPVS NIC",
            line.0, line.1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_lines_later_minors_and_the_1_28_fix() {
        let binds = |v: &str| matches!(binding(v), Binding::Binds(_));
        assert!(binds("v1.20.6-tke.12") && binds("v1.20.6-tke.30") && binds("v1.18.4-tke.20"));
        assert!(matches!(binding("v1.20.6-tke.9"), Binding::Older(_)));
        assert!(matches!(binding("v1.12.4-tke.29"), Binding::Older(_)));
        assert!(binds("v1.22.5-tke.1") && binds("v1.30.0-tke.11") && binds("v1.32.2-tke.1"));
        assert!(matches!(binding("v1.28.3-tke.2"), Binding::Unknown(_)));
        assert!(binds("v1.28.3-tke.3") && binds("v1.28.9-tke.1"));
        // Undocumented old minors and builds that are not TKE's stay unknown.
        assert!(matches!(binding("v1.10.5-tke.1"), Binding::Unknown(_)));
        assert!(matches!(binding("v1.30.2"), Binding::Unknown(_)));
        assert!(matches!(binding("latest"), Binding::Unknown(_)));
    }
}
