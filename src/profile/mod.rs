//! Cluster profiles: what lblint knows about the target cluster (provider, kube-proxy mode,
//! node pools, account allowlists, own load-balancer addresses). Facts left out are unknown.
//!
//! A schema on top of the settings kit ([`crate::settings`]): the types (`model.rs`,
//! `document.rs`), the header pass (`header.rs`), the typed pass and its errors (`load.rs`),
//! values no rule can use (`values.rs`), and a `Fact` per fact rules ask about (`facts.rs`).

mod document;
mod facts;
mod header;
pub(crate) mod import;
pub(crate) use facts::Fact;
mod load;
mod model;
mod object_key;
mod provider;
pub(crate) mod suggest;
pub(crate) mod template;
pub(crate) mod tke_binding;
pub(crate) mod values;
pub(crate) mod version;

pub use document::json_schema;
pub use load::{generic, load_profile, parse_profile};
pub use model::Profile;
pub(crate) use model::{
    CceFlavour, IngressControllerLink, LbNetwork, LoadBalancer, NodePool, NodeType, ObjectKey,
    ProxyMode, TaintEffect, TargetType,
};
pub use provider::{tke, Cloud, Provider, CLOUDS};
pub(crate) use template::init_template;

/// Profiles are hand-written and small; anything bigger is a mistake or an attack.
pub(crate) const MAX_PROFILE_BYTES: usize = crate::settings::MAX_BYTES;

#[cfg(test)]
mod tests;
