//! Oracle OKE (rules/OKE001.md, OKE002.md). The opt-in `oci.oraclecloud.com/ingress-ip-mode`
//! annotation: OKE001, a value the controller rejects; OKE002, set on a cluster before
//! Kubernetes 1.30, where the ipMode field does not take effect. PROXY protocol and TLS
//! termination bypassed without it are OKE003, the PROXY-protocol family's adapter
//! (`rules::family::proxy_protocol::oke`), which reads the annotation through this module.

pub mod ip_mode_before_1_30;
pub mod ip_mode_invalid;

pub const INGRESS_IP_MODE: &str = "oci.oraclecloud.com/ingress-ip-mode";
pub(crate) const DOC: &str = "Oracle, \"Support for controlling the IPMode of services of type LoadBalancer (Kubernetes version 1.30 or later)\", \
                   https://docs.oracle.com/iaas/releasenotes/conteng/conteng-LoadBalancer-IPMode-Release-Notes.htm";

/// `proxy` or `vip`, in any case (the controller's `getIngressIpMode`).
pub(crate) fn valid(value: &str) -> bool {
    value.eq_ignore_ascii_case("proxy") || value.eq_ignore_ascii_case("vip")
}
