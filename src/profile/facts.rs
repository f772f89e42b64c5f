//! Shorthands for the facts rules ask about; `None` means the profile does not say.

use super::model::{LoadBalancer, NodePool, NodeType, Profile, Provider, ProxyMode};

impl Profile {
    pub fn provider(&self) -> Provider {
        self.spec.provider
    }

    pub fn proxy_mode(&self) -> Option<ProxyMode> {
        self.spec.kube_proxy.as_ref()?.mode
    }

    /// `None` when the profile lists no node pools: scheduling is then unknown.
    pub fn node_pools(&self) -> Option<&[NodePool]> {
        self.spec.node_pools.as_deref()
    }

    pub fn load_balancers(&self) -> impl Iterator<Item = &LoadBalancer> {
        self.spec.load_balancers.iter().flatten()
    }
}

impl NodePool {
    pub fn node_type(&self) -> Option<NodeType> {
        self.node_type
    }
}
