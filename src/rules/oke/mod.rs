//! Oracle OKE (rules/OKE001.md, OKE002.md). The opt-in `oci.oraclecloud.com/ingress-ip-mode`
//! annotation: OKE001, a value the controller rejects; OKE002, set on a cluster before
//! Kubernetes 1.30, where the ipMode field does not take effect. (TLS termination bypassed
//! in-cluster on OCI is KEP reasoning only, with no Oracle text, so it is not a rule; OKE is
//! still a member of the PROXY-protocol family, `rules::family::proxy_protocol::members`.)

pub mod ip_mode_before_1_30;
pub mod ip_mode_invalid;

pub const INGRESS_IP_MODE: &str = "oci.oraclecloud.com/ingress-ip-mode";
const DOC: &str = "Oracle, \"Support for controlling the IPMode of services of type LoadBalancer (Kubernetes version 1.30 or later)\", \
                   https://docs.oracle.com/iaas/releasenotes/conteng/conteng-LoadBalancer-IPMode-Release-Notes.htm";

/// `proxy` or `vip`, in any case (the controller's `getIngressIpMode`).
fn valid(value: &str) -> bool {
    value.eq_ignore_ascii_case("proxy") || value.eq_ignore_ascii_case("vip")
}
