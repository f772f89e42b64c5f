//! lblint: finds Kubernetes Services and Ingresses whose cloud load balancer will loop
//! in-cluster traffic back to its own node, and misused vendor fixes for it.
//!
//! Data flow: walk → render (--render) → load (yaml) → objects → views → model → rules →
//! filter → relocate (--render) → report; `check` drives it.

pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub(crate) mod filter;
pub mod fix;
pub(crate) mod load;
pub(crate) mod model;
pub(crate) mod objects;
pub(crate) mod panic;
pub mod profile;
pub(crate) mod read;
pub(crate) mod relocate;
pub(crate) mod render;
pub mod report;
pub mod rules;
pub mod server;
pub mod settings;
pub mod source;
pub(crate) mod suppress;
pub(crate) mod text;
pub(crate) mod views;
pub(crate) mod walk;
pub mod yaml;
