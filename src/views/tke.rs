//! Tencent TKE's `TkeServiceConfig`: the listener settings (SNAT, session, health check,
//! scheduler) the TKE controllers apply to a CLB's listeners.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds read here.
pub const TKE_SERVICE_CONFIG: &[Kind] = &[("cloud.tencent.com", "TkeServiceConfig")];

pub fn is_config(object: &Object) -> bool {
    super::is_kind(object, TKE_SERVICE_CONFIG)
}

/// Which listener list of a TkeServiceConfig: `spec.loadBalancer.l4Listeners` (Services)
/// or `l7Listeners` (Ingresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    L4,
    L7,
}

impl Section {
    pub fn key(self) -> &'static str {
        match self {
            Section::L4 => "l4Listeners",
            Section::L7 => "l7Listeners",
        }
    }
}

/// One listener section of a TkeServiceConfig, each setting as its (key, value) nodes.
#[derive(Clone, Copy, Debug)]
pub struct Listener<'w> {
    pub port: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub protocol: Option<NodeRef<'w>>,
    pub snat_enable: Option<(NodeRef<'w>, NodeRef<'w>)>,
    /// The field ingress-controller releases before v2.9.0 read for layer-7 SNAT.
    pub keepalive_enable: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub session: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub health_check: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub scheduler: Option<(NodeRef<'w>, NodeRef<'w>)>,
}

impl<'w> Listener<'w> {
    fn of(node: NodeRef<'w>) -> Listener<'w> {
        Listener {
            port: node.get_entry("port"),
            protocol: node.get("protocol"),
            snat_enable: node.get_entry("snatEnable"),
            keepalive_enable: node.get_entry("keepaliveEnable"),
            session: node.get_entry("session"),
            health_check: node.get_entry("healthCheck"),
            scheduler: node.get_entry("scheduler"),
        }
    }

    pub fn port_number(&self) -> Option<i64> {
        self.port.and_then(|(_, v)| v.as_i64())
    }

    pub fn protocol_str(&self) -> Option<&'w str> {
        self.protocol.and_then(|p| p.as_str())
    }

    /// Whether it configures the listener `protocol:port`.
    pub fn is(&self, protocol: &str, port: i64) -> bool {
        self.port_number() == Some(port)
            && self
                .protocol_str()
                .is_some_and(|p| p.eq_ignore_ascii_case(protocol))
    }

    /// The `session` key when session persistence is on (`enable: true`).
    pub fn session_on(&self) -> Option<NodeRef<'w>> {
        let (key, session) = self.session?;
        (session.get("enable").and_then(|e| e.as_bool()) == Some(true)).then_some(key)
    }

    /// The `healthCheck` key when a health check is configured and not turned off (an
    /// explicit `enable: false` turns it off).
    pub fn health_check_on(&self) -> Option<NodeRef<'w>> {
        let (key, check) = self.health_check?;
        let off = check.get("enable").and_then(|e| e.as_bool()) == Some(false);
        (check.is_mapping() && !off).then_some(key)
    }

    /// `snatEnable: true`, as (key, value).
    pub fn snat_on(&self) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
        self.snat_enable.filter(|(_, v)| v.as_bool() == Some(true))
    }

    /// Layer-7 SNAT by either documented field: `snatEnable: true`, or `keepaliveEnable: 1`.
    pub fn l7_snat(&self) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
        self.snat_on()
            .or_else(|| self.keepalive_enable.filter(|(_, v)| v.as_i64() == Some(1)))
    }

    /// `protocol:port` as written, for messages.
    pub fn label(&self) -> String {
        let protocol = self.protocol_str().unwrap_or("?");
        let port = self.port.and_then(|(_, v)| v.as_str()).unwrap_or("?");
        format!("{protocol}:{port}")
    }
}

/// The listener sections of a TkeServiceConfig.
pub fn listeners<'w>(ws: &'w Workspace, config: &Object, section: Section) -> Vec<Listener<'w>> {
    ws.root(config)
        .path(&["spec", "loadBalancer", section.key()])
        .into_iter()
        .flat_map(NodeRef::items)
        .map(Listener::of)
        .collect()
}
