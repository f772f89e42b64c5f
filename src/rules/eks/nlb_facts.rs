//! What EKS001 reads of an NLB, as each controller reads it: the scheme, and whether a
//! port's target group keeps the client IP (rules/EKS001.md, "Sources").

use crate::objects::Object;
use crate::profile::version::at_least;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::yaml::go_values::parse_go_bool;

use super::{key, Nlb};

const PRESERVE: &str = "preserve_client_ip.enabled";
/// The controller reads `target-group-attributes.<port>` from v2.14.0 (commit f587f697e,
/// "Support configure target-group-attributes for different service port").
const PER_PORT_SINCE: &str = "v2.14.0";
/// The cloud-provider-aws releases that read `preserve_client_ip.enabled`: commit 73428cd2
/// ("feat/tg-attr: support target group attrib annotation on NLB", 2025-08-20) is in v1.34.0
/// and later minors; its cherry-picks are in v1.33.3 and v1.32.6; v1.34.1 (cut from the
/// release-1.34 branch before the cherry-pick) and every v1.31 tag lack it.
pub(crate) const IN_TREE_READS_SINCE: &str = "v1.34.0 (not v1.34.1), v1.33.3 or v1.32.6";

/// Is the load balancer internet-facing, and is that the controller's default?
pub(crate) struct Scheme {
    pub internet_facing: bool,
    /// The controller's default, not written on the Service.
    pub by_default: bool,
}

/// The scheme each controller builds. In-tree (pkg/providers/v1/aws.go
/// `EnsureLoadBalancer`): internal when `aws-load-balancer-internal` is set to anything but
/// `false`, else internet-facing. The AWS Load Balancer Controller
/// (pkg/service/model_build_load_balancer.go `buildLoadBalancerSchemeViaAnnotation`):
/// `aws-load-balancer-scheme`, else the deprecated `aws-load-balancer-internal` read with
/// `strconv.ParseBool`, else its `--default-load-balancer-scheme`, `internal` by default.
pub(crate) fn scheme(cx: &Context<'_>, service: &Object, nlb: &Nlb) -> Scheme {
    let annotations = cx.lb_annotations(service);
    let internal = key("internal");
    match nlb {
        Nlb::InTree { .. } => {
            let written = annotations.text(&internal).filter(|v| !v.is_empty());
            Scheme {
                internet_facing: written.is_none_or(|v| v == "false"),
                by_default: written.is_none(),
            }
        }
        Nlb::Controller { .. } => {
            let facing = match annotations.text(&key("scheme")) {
                Some(scheme) => Some(scheme == "internet-facing"),
                None => annotations
                    .go_bool(&internal)
                    .map(|parsed| parsed == Ok(false)),
            };
            Scheme {
                internet_facing: facing.unwrap_or(false),
                by_default: facing.is_none(),
            }
        }
    }
}

/// Whether the target group for `port` keeps the client IP, by the Service's attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kept {
    Yes,
    No,
    /// The Service turns it off, but the in-tree controller this old ignores that.
    Ignored(String),
    /// The Service turns it off; whether the in-tree controller reads that is unknown.
    Unknown(String),
}

/// `preserve_client_ip.enabled` for `port`, as the controller that makes `nlb` reads it.
pub(crate) fn kept(cx: &Context<'_>, service: &Object, nlb: &Nlb, port: Option<i64>) -> Kept {
    let annotations = cx.lb_annotations(service);
    match nlb {
        Nlb::Controller { ip_targets, .. } => {
            // pkg/service/model_build_target_group.go `buildPortSpecificTargetGroupAttributes`:
            // the per-port annotation's non-empty values win; `validateAndParseAttributes`
            // reads the flag with strconv.ParseBool.
            let read = |name: String| {
                let pairs = annotations.lbc_string_map(&key(&name))?;
                let (_, value) = pairs.into_iter().rev().find(|(k, _)| *k == PRESERVE)?;
                parse_go_bool(value)
            };
            let per_port = port
                .filter(|_| per_port_read(cx))
                .and_then(|p| read(format!("target-group-attributes.{p}")));
            // IP targets do not keep it over TCP unless told to (annotations.md).
            match per_port.or_else(|| read("target-group-attributes".to_string())) {
                Some(true) => Kept::Yes,
                Some(false) => Kept::No,
                None if *ip_targets => Kept::No,
                None => Kept::Yes,
            }
        }
        Nlb::InTree { .. } => {
            // pkg/providers/v1/aws_loadbalancer.go `buildTargetGroupAttributes` over
            // `getKeyValuePropertiesFromAnnotation`; aws_validations.go accepts exactly
            // `true` and `false`. One annotation for every port.
            let off = annotations
                .aws_legacy_pairs(&key("target-group-attributes"))
                .is_some_and(|pairs| pairs.iter().any(|&(k, v)| k == PRESERVE && v == "false"));
            if !off {
                return Kept::Yes;
            }
            match in_tree_reads_preservation(cx) {
                Gate::Yes => Kept::No,
                Gate::No(why) => Kept::Ignored(why),
                Gate::Unknown(why) => Kept::Unknown(why),
            }
        }
    }
}

/// Does the stated controller read `target-group-attributes.<port>`? Unstated: assumed
/// current.
fn per_port_read(cx: &Context<'_>) -> bool {
    let version = cx.profile.aws_load_balancer_controller();
    version
        .value
        .and_then(|v| at_least(v, PER_PORT_SINCE))
        .unwrap_or(true)
}

/// Does the in-tree controller (`spec.addons.cloudControllerManager`) read
/// `preserve_client_ip.enabled`?
pub(crate) fn in_tree_reads_preservation(cx: &Context<'_>) -> Gate {
    let ccm = cx.profile.cloud_controller_manager();
    let Some(text) = ccm.value else {
        return Gate::Unknown(ccm.unknown(&format!(
            "the version of cloud-provider-aws, which reads `{PRESERVE}` from {IN_TREE_READS_SINCE}"
        )));
    };
    let from = |v: &str| at_least(text, v);
    let reads = match (from("1.32.6"), from("1.33"), from("1.33.3"), from("1.34")) {
        (None, ..) => None,
        (Some(false), ..) => Some(false),
        (_, Some(false), ..) => Some(true),
        (_, _, Some(false), _) => Some(false),
        (_, _, _, Some(false)) => Some(true),
        // v1.34.1 was cut before the cherry-pick reached release-1.34.
        _ => Some(!(from("1.34.1") == Some(true) && from("1.34.2") == Some(false))),
    };
    match reads {
        Some(true) => Gate::Yes,
        Some(false) => Gate::No(format!(
            "cloud-provider-aws {text} (profile `{}`{}) ignores `{PRESERVE}=false`, which it reads \
             from {IN_TREE_READS_SINCE}",
            ccm.field(),
            ccm.at_line()
        )),
        None => Gate::Unknown(ccm.unknown(&format!(
            "`{text}` is not a version lblint can compare; cloud-provider-aws reads `{PRESERVE}` \
             from {IN_TREE_READS_SINCE}"
        ))),
    }
}
