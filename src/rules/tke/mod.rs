//! Tencent Kubernetes Engine (TKE): CLB loopback rules.
//! Source: Tencent Cloud, "Guide to CLB Loopback" (seed 000) and provider-facts §1.

pub mod l4_loopback;
pub mod service_config;
pub mod tradeoffs;

/// Creates a private-network CLB in the given subnet (Service).
pub const INTERNAL_SUBNET: &str = "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid";
/// Reuses an existing CLB (Service); public or private cannot be told from the manifest.
pub const EXISTED_LB: &str = "service.kubernetes.io/tke-existed-lbid";
pub const PREVENT_LOOPBACK: &str = "service.cloud.tencent.com/prevent-loopback";
pub const SERVICE_CONFIG: &str = "service.cloud.tencent.com/tke-service-config";
pub const SERVICE_CONFIG_AUTO: &str = "service.cloud.tencent.com/tke-service-config-auto";
/// Super (virtual) nodes carry this label value; pods target them with a nodeSelector.
pub const INSTANCE_TYPE_LABEL: &str = "node.kubernetes.io/instance-type";
pub const SUPER_NODE_INSTANCE_TYPE: &str = "eklet";
pub const SEED_DOC: &str = "https://www.tencentcloud.com/document/product/457/42976";
