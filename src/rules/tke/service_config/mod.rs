//! TKE007–TKE011: TkeServiceConfig reference integrity, for Services
//! (`service.cloud.tencent.com/tke-service-config[-auto]`) and Ingresses
//! (`ingress.cloud.tencent.com/tke-service-config[-auto]`).
//!
//! Facts (Tencent docs <https://www.tencentcloud.com/document/product/457/36834> and
//! .../457/37015):
//! - the config must be in the same namespace as the Service or Ingress;
//! - the manual and the auto annotation cannot be used together;
//! - a manual name cannot end with `-auto-service-config` or `-auto-ingress-config`;
//! - a listener with no matching section is not modified (and a section that matches no
//!   listener therefore does nothing);
//! - the auto config `<name>-auto-service-config` / `<name>-auto-ingress-config` is created
//!   (and deleted) by the controller.
//!
//! The links (which config each Service and Ingress uses) are computed once per run in
//! `crate::model::tke_config`; rules read them from [`Context::tke_configs`].

use crate::objects::{Object, ObjectId, Workspace};
use crate::rules::Context;
use crate::yaml::NodeRef;

use super::ingress_listeners;

/// Is this Ingress handled by the TKE CLB controller (class `qcloud`, or none)?
fn tke_clb_ingress(ws: &Workspace, ingress: &Object) -> bool {
    matches!(
        crate::model::entry::ingress_class(ws, ingress),
        None | Some("qcloud")
    )
}

/// A Service's numbered ports as (protocol, port); the protocol defaults to TCP.
fn service_ports(cx: &Context<'_>, service: ObjectId) -> Vec<(String, i64)> {
    cx.views
        .service(service)
        .into_iter()
        .flat_map(|s| &s.ports)
        .filter_map(|p| Some((p.protocol.to_ascii_uppercase(), p.port?)))
        .collect()
}

fn name_value<'w>(ws: &'w Workspace, object: &Object) -> Option<NodeRef<'w>> {
    ws.written_name(object)
}

fn namespace_note(object: &Object) -> String {
    match &object.id.namespace {
        Some(ns) => format!("namespace `{ns}`"),
        None => "its namespace".to_string(),
    }
}

mod manual_and_auto;
mod missing;
mod reserved_name;
mod unmatched_listener;
mod unused;

pub(crate) use manual_and_auto::ManualAndAuto;
pub(crate) use missing::MissingConfig;
pub(crate) use reserved_name::ReservedName;
pub(crate) use unmatched_listener::UnmatchedListener;
pub(crate) use unused::UnusedConfig;
