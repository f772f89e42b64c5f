//! AWS EKS (rules/EKS001.md to EKS003.md): Network Load Balancers that keep the client's IP
//! cannot hairpin. EKS001: an NLB with client IP preservation called from inside the cluster.
//! EKS002: instance targets without node ports. EKS003: PROXY v2 with instance targets and
//! `externalTrafficPolicy: Local`.
//!
//! An NLB's status is a hostname, so kube-proxy never short-circuits calls to it: the trap
//! holds in every kube-proxy mode.

pub(crate) mod instance_without_node_ports;
mod nlb_facts;
pub(crate) mod nlb_hairpin;
pub(crate) mod proxy_protocol_instance_local;

use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::Object;
use crate::profile::{version, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::views::ServiceView;

use crate::rules::family::internal_lb::NLB_CLASS;

const PREFIX: &str = "service.beta.kubernetes.io/aws-load-balancer-";
/// The controller's webhook that gives every LoadBalancer Service its class.
const WEBHOOK_SINCE: &str = "v2.5.0";
const TROUBLESHOOTING: &str = "AWS, \"Troubleshoot your Network Load Balancer\", connections time out for requests \
                               from a target to its load balancer: https://docs.aws.amazon.com/elasticloadbalancing/\
                               latest/network/load-balancer-troubleshooting.html#loopback-timeout";
const LBC_DOC: &str =
    "AWS Load Balancer Controller, Service annotations: https://kubernetes-sigs.github.io/\
                       aws-load-balancer-controller/latest/guide/service/annotations/";

fn key(suffix: &str) -> String {
    format!("{PREFIX}{suffix}")
}

/// Which controller makes the load balancer, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Nlb {
    /// The AWS Load Balancer Controller: instance or IP targets. `took_nlb_type`: the Service
    /// says `aws-load-balancer-type: nlb`, which the controller's webhook overrode.
    Controller {
        ip_targets: bool,
        took_nlb_type: bool,
    },
    /// The legacy in-tree (cloud-provider-aws) controller with `aws-load-balancer-type: nlb`;
    /// `or_controller`: the fact that decides whether the controller's webhook takes it.
    InTree { or_controller: Option<String> },
}

/// How the Service's load balancer is made, with the fact it hangs on when unknown.
#[derive(PartialEq, Eq)]
enum Made {
    Nlb(Nlb),
    /// A plain Service: the controller's webhook may make it an NLB.
    Maybe(String),
    NotNlb,
}

/// Does the controller's webhook give a plain LoadBalancer Service its class?
fn webhook_runs(cx: &Context<'_>) -> Gate {
    let version = cx.profile.aws_load_balancer_controller();
    let webhook = cx.profile.aws_lbc_service_mutator_webhook();
    if webhook.value == Some(false) {
        return Gate::No(format!("`{}: false`", webhook.field()));
    }
    match version.value.map(|v| (v, version::at_least(v, WEBHOOK_SINCE))) {
        Some((_, Some(true))) => Gate::Yes,
        Some((v, Some(false))) => Gate::No(format!(
            "the AWS Load Balancer Controller {v} predates the {WEBHOOK_SINCE} Service webhook"
        )),
        Some((v, None)) => Gate::Unknown(version.unknown(&format!(
            "`{v}` is not a version lblint can compare; from {WEBHOOK_SINCE} its webhook makes every \
             LoadBalancer Service an NLB"
        ))),
        None => Gate::Unknown(version.unknown(&format!(
            "the AWS Load Balancer Controller from {WEBHOOK_SINCE} makes every LoadBalancer Service an \
             internal NLB with instance targets, unless its Service webhook is off"
        ))),
    }
}

/// Who makes the Service's load balancer. The controller takes a Service with its class
/// (set by its webhook on every classless LoadBalancer Service, `MutateCreate` in
/// webhooks/core/service_mutator.go) and, without a class, `nlb-ip` or `external` with a
/// target type (`checkAWSLoadBalancerTypeAnnotation` in pkg/service/service_utils.go); the
/// in-tree controller takes a classless `nlb`.
fn made(cx: &Context<'_>, entry: &EntryPoint, service: &Object, class: Option<&str>) -> Made {
    let annotations = cx.lb_annotations(service);
    let lb_type = annotations.text(&key("type"));
    let target_type = annotations.text(&key("nlb-target-type"));
    let controller = |took_nlb_type: bool| {
        Made::Nlb(Nlb::Controller {
            // pkg/service/model_build_target_group.go: `nlb-ip` or target type `ip`.
            ip_targets: lb_type == Some("nlb-ip") || target_type == Some("ip"),
            took_nlb_type,
        })
    };
    match (class, lb_type) {
        (Some(NLB_CLASS), _) => controller(lb_type == Some("nlb")),
        (Some(_), _) => Made::NotNlb,
        (None, Some("nlb-ip")) => controller(false),
        (None, Some("external")) if matches!(target_type, Some("ip" | "instance")) => {
            controller(false)
        }
        (None, Some(t @ ("nlb" | "external"))) => match (webhook_runs(cx), t) {
            (Gate::Yes, _) => controller(t == "nlb"),
            (Gate::No(_), "nlb") => Made::Nlb(Nlb::InTree {
                or_controller: None,
            }),
            (Gate::Unknown(why), "nlb") => Made::Nlb(Nlb::InTree {
                or_controller: Some(why),
            }),
            (Gate::Unknown(why), _) => Made::Maybe(why),
            // `external` without a target type and no webhook: neither controller takes it.
            (Gate::No(_), _) => Made::NotNlb,
        },
        (None, Some(_)) => Made::NotNlb,
        (None, None) if entry.provider == Some(Provider::Eks) => match webhook_runs(cx) {
            Gate::Yes => controller(false),
            Gate::No(_) => Made::NotNlb,
            Gate::Unknown(why) => Made::Maybe(why),
        },
        (None, None) => Made::NotNlb,
    }
}

/// A Service's `loadBalancerClass`.
fn class_of<'w>(view: &ServiceView<'w>) -> Option<&'w str> {
    view.load_balancer_class().and_then(|c| c.as_str())
}

/// LoadBalancer Services an AWS controller may handle: annotated for AWS, on an `eks`
/// profile, or with the controller's class.
fn load_balancers<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object, &'c ServiceView<'c>)> + 'c {
    cx.model.entries().filter_map(move |(index, entry)| {
        if entry.kind != EntryKind::Service {
            return None;
        }
        let view = cx.views.service(entry.object)?;
        let class = view.load_balancer_class().and_then(|c| c.as_str());
        let ours = entry.provider == Some(Provider::Eks) || class == Some(NLB_CLASS);
        (ours && view.is_load_balancer())
            .then(|| (index, entry, &cx.ws.objects[entry.object], view))
    })
}

/// Services the AWS Load Balancer Controller surely makes an NLB with instance targets.
fn instance_nlbs<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (&'c Object, &'c ServiceView<'c>)> + 'c {
    load_balancers(cx)
        .filter(move |(_, entry, service, view)| {
            matches!(
                made(cx, entry, service, class_of(view)),
                Made::Nlb(Nlb::Controller {
                    ip_targets: false,
                    ..
                })
            )
        })
        .map(|(_, _, service, view)| (service, view))
}
