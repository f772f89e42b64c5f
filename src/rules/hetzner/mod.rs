//! Hetzner Cloud (rules/HETZNER001.md to HETZNER003.md). HETZNER001 (PROXY protocol bypassed
//! by in-cluster calls) is a member of the PROXY-protocol family
//! (`rules::family::proxy_protocol::hetzner`). HETZNER002: the hostname workaround kept after
//! the controller sets `ipMode: Proxy` itself. HETZNER003: a private-IP load balancer whose
//! private ingress loops IPVS.

pub(crate) mod ipvs_private_ingress;
pub(crate) mod stale_hostname;

const USE_PRIVATE_IP: &str = "load-balancer.hetzner.cloud/use-private-ip";
const DISABLE_PRIVATE_INGRESS: &str = "load-balancer.hetzner.cloud/disable-private-ingress";
