//! TEMPORARY stub, replaced by the profile module.
#[derive(Clone, Debug, Default)]
pub struct Profile { pub spec: Spec }
#[derive(Clone, Debug, Default)]
pub struct Spec {}
pub struct ObjectKey { pub kind: String, pub namespace: String, pub name: String }
pub struct LoadBalancer { pub object: ObjectKey, pub addresses: Vec<String> }
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider { Tke, Vke, Ack, Generic }
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyMode { Iptables, Ipvs, Nftables, Ebpf }
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType { Regular, Native, Super }
pub struct NodePool {}
impl NodePool { pub fn node_type(&self) -> Option<NodeType> { None } }
impl Profile {
    pub fn load_balancers(&self) -> &[LoadBalancer] { &[] }
    pub fn provider(&self) -> Provider { Provider::Generic }
    pub fn proxy_mode(&self) -> Option<ProxyMode> { None }
    pub fn node_pools(&self) -> Option<&[NodePool]> { None }
}
pub mod suggest { pub fn did_you_mean<'a>(_k: &str, _c: impl IntoIterator<Item = &'a str>) -> Option<String> { None } }
