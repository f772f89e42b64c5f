//! Oracle OKE (rules/OKE001.md, OKE002.md). The opt-in `oci.oraclecloud.com/ingress-ip-mode`
//! annotation: OKE001, a value the controller rejects; OKE002, set on a cluster before
//! Kubernetes 1.30, where the ipMode field does not take effect. PROXY protocol and TLS
//! termination bypassed without it are OKE003, the PROXY-protocol family's adapter
//! (`rules::family::proxy_protocol::oke`), which holds the annotation's facts these rules
//! read too.

pub(crate) mod ip_mode_before_1_30;
pub(crate) mod ip_mode_invalid;
