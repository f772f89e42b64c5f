//! Rule families: one trap that several providers share, judged by one neutral engine over
//! per-provider adapters, so every member words and weighs the finding alike and a new
//! provider of a known family is one adapter. A family's module holds its engine and every
//! member's adapter (the rule itself); a provider's other rules stay in `rules/<provider>/`.
//!
//! - [`kube_proxy`]: what upstream kube-proxy does, which the families ask: whether
//!   `ipMode: Proxy` takes effect, and where `externalTrafficPolicy: Local` strands a caller.
//! - [`local_policy`]: `externalTrafficPolicy: Local` called in-cluster (ACK001, CCE001,
//!   K8S013), each entry point judged once by whoever documents the gap.
//! - [`proxy_protocol`]: PROXY protocol or TLS termination skipped by short-circuited calls
//!   (DOKS001, LKE001, HETZNER001, SCALEWAY001, OPENSTACK001, CLOUDSCALE001), table-driven.
//! - [`internal_lb`]: a load balancer that cannot take a backend's own call back (AKS001,
//!   GKE001; EKS001 on its own verdict).

pub(crate) mod internal_lb;
pub(crate) mod kube_proxy;
pub(crate) mod local_policy;
pub(crate) mod proxy_protocol;
