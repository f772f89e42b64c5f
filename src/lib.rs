//! lblint: finds Kubernetes Services and Ingresses whose cloud load balancer will loop
//! in-cluster traffic back to its own node, and misused vendor fixes for it.
//!
//! Data flow: walk → load (yaml) → objects → model → rules → report.

pub mod diagnostic;
pub mod profile;
pub mod source;
pub mod yaml;
