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
pub mod filter;
pub mod fix;
pub mod load;
pub mod model;
pub mod objects;
pub mod panic;
pub mod profile;
pub mod read;
pub(crate) mod relocate;
pub mod render;
pub mod report;
pub mod rules;
pub mod server;
pub mod settings;
pub mod source;
pub mod suppress;
pub mod text;
pub mod views;
pub mod walk;
pub mod yaml;
