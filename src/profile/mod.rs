//! Cluster profiles: what lblint knows about the target cluster (provider, kube-proxy mode,
//! node pools, account allowlists, own load-balancer addresses). Facts left out are unknown.

mod error;
mod facts;
mod header;
pub use facts::Fact;
mod load;
mod model;
pub(crate) mod recover;
mod schema;
pub mod suggest;
mod syntax;
pub mod template;
pub mod version;

pub(crate) use error::Place;
pub use error::{ProfileDiagnostic, ProfileError};
pub use load::{generic, load_profile, parse_profile};
pub use model::{
    Addons, Allowlists, AwsLoadBalancerControllerOptions, CceFlavour,
    CloudControllerManagerOptions, FactTree, IngressControllerLink, KubeProxy, LbNetwork,
    LoadBalancer, Network, NodePool, NodeType, ObjectKey, ObjectKeyError, Profile, Provider,
    ProxyMode, Spec, Taint, TaintEffect, OBJECT_KINDS,
};
pub use schema::json_schema;
pub(crate) use syntax::{is_empty_yaml, place_of, yaml_options};
pub use syntax::{API_VERSION, KIND, MAX_PROFILE_BYTES};
pub use template::init_template;
#[cfg(test)]
mod tests;
