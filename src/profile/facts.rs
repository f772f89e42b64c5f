//! Shorthands for the facts rules ask about; `None` means the profile does not say.

use std::sync::Arc;

use super::model::{LoadBalancer, NodePool, NodeType, Profile, Provider, ProxyMode};
use crate::diagnostic::Location;

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

    /// Where the profile states a fact, e.g. `["spec", "kubeProxy", "mode"]`, for related
    /// locations and "(cluster.yaml:9)" in messages. Sequence items are addressed by index.
    pub fn fact_location(&self, keys: &[&str]) -> Option<Location> {
        let (path, text) = (self.path.as_deref()?, self.text.as_deref()?);
        // Parsed once per run, however many findings cite the profile.
        let document = self.tree.0.get_or_init(|| {
            crate::yaml::load(text, &crate::yaml::Limits::default())
                .documents
                .into_iter()
                .next()
        });
        let mut node = document.as_ref()?.root()?;
        for key in keys {
            node = match key.parse::<usize>() {
                Ok(index) => node.items().nth(index)?,
                Err(_) => node.get(key)?,
            };
        }
        Some(Location {
            file: Arc::from(path),
            span: node.span(),
        })
    }

    /// `path:line` of a fact, when the profile states it.
    pub fn fact_line(&self, keys: &[&str]) -> Option<String> {
        self.fact_location(keys)
            .map(|l| format!("{}:{}", l.file, l.span.start.line))
    }

    /// ` (path:line)` of a fact, for messages; empty when the profile does not state it.
    pub fn fact_at(&self, keys: &[&str]) -> String {
        self.fact_line(keys)
            .map(|at| format!(" ({at})"))
            .unwrap_or_default()
    }
}

impl NodePool {
    pub fn node_type(&self) -> Option<NodeType> {
        self.node_type
    }
}
