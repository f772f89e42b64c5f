//! EKS002 eks-instance-without-node-ports: an NLB with instance targets and
//! `allocateLoadBalancerNodePorts: false`, which the controller cannot reconcile.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule};

use super::{instance_nlbs, key, LBC_DOC};

use crate::catalog::meta::EKS002 as META;

pub(crate) struct InstanceWithoutNodePorts;

impl Rule for InstanceWithoutNodePorts {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (service, view) in instance_nlbs(cx) {
            let Some(allocate) = view.allocate_node_ports() else {
                continue;
            };
            if allocate.as_bool() != Some(false) {
                continue;
            }
            let Some(port) = view.ports.iter().find(|p| p.node_port.is_none()) else {
                continue;
            };
            let d = META
                .diagnostic(
                    Severity::Error,
                    ws.location(service, allocate.span()),
                    format!(
                        "Service `{}` gets an NLB with instance targets but `allocateLoadBalancerNodePorts: false`, and \
                         port {} has no `nodePort`: the AWS Load Balancer Controller \"will fail to reconcile instance \
                         mode NLB\".",
                        service.name(),
                        port.port.map_or_else(|| "?".to_string(), |p| p.to_string())
                    ),
                )
                .with_help(format!(
                    "set a `nodePort` on every port, allow node ports, or use `{}: ip`. See {LBC_DOC}",
                    key("nlb-target-type")
                ))
                .on(service);
            out.push(d);
        }
    }
}
