//! What each cloud controller does with the annotation values it parses: the values it
//! rejects, in its own words. One row per annotation, each read from the controller's code
//! at the commit named in rules/K8S015.md.

use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::family::proxy_protocol::doks;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::go_values::{go_parse_bool, go_quote};

/// One annotation a controller refuses to reconcile with when its value is wrong.
pub(crate) struct Check {
    pub provider: Provider,
    /// Which controller, for the message ("AWS Load Balancer Controller").
    pub controller: &'static str,
    /// The event the controller records on the Service when it fails.
    pub event: &'static str,
    pub key: &'static str,
    /// The controller and where it parses the value (repository, file, function).
    pub parser: &'static str,
    /// The values it takes, for the help.
    pub accepts: &'static str,
    /// The controller's error for `value`, or `None` when it takes it.
    pub rejects: fn(key: &str, value: &str) -> Option<String>,
    /// Whether the controller reads the key for this Service at all.
    pub reads: fn(&Context<'_>, &Service<'_>) -> Reads,
}

/// What the rule knows of the Service beside the value.
pub(crate) struct Service<'a> {
    pub object: &'a Object,
    pub annotations: Annotations<'a>,
    pub class: Option<&'a str>,
}

/// Whether the controller reads an annotation for a Service.
pub(crate) enum Reads {
    Yes,
    No,
    /// It hangs on an unstated fact: what it is.
    Unknown(String),
}

impl From<bool> for Reads {
    fn from(reads: bool) -> Reads {
        if reads {
            Reads::Yes
        } else {
            Reads::No
        }
    }
}

const DO: &str = "service.beta.kubernetes.io/do-loadbalancer-";
/// The service controller's event for a cloud provider's error (k8s.io/cloud-provider).
const SYNC_EVENT: &str =
    "SyncLoadBalancerFailed: Error syncing load balancer: failed to ensure load balancer: …";
/// The AWS Load Balancer Controller's event when it cannot build the Service's model.
const LBC_EVENT: &str = "FailedBuildModel: Failed build model due to …";
const GO_BOOL: &str =
    "Go's strconv.ParseBool forms: 1, t, T, TRUE, true, True and 0, f, F, FALSE, false, False";
const AWS: &str = "service.beta.kubernetes.io/aws-load-balancer-";

fn always(_: &Context<'_>, _: &Service<'_>) -> Reads {
    Reads::Yes
}

/// `getBool` (DigitalOcean) and the other controllers that only pass on ParseBool's error.
fn bool_error(value: &str) -> Option<String> {
    go_parse_bool(value).err()
}

pub(crate) static CHECKS: &[Check] = &[
    Check {
        provider: Provider::Doks,
        controller: "DigitalOcean cloud controller manager",
        event: SYNC_EVENT,
        key: "service.beta.kubernetes.io/do-loadbalancer-protocol",
        parser: "digitalocean/digitalocean-cloud-controller-manager, cloud-controller-manager/do/loadbalancers.go getProtocol (from buildForwardingRules)",
        accepts: "tcp, http, https, http2 or http3, lower-case",
        rejects: |key, value| {
            (!matches!(value, "tcp" | "http" | "https" | "http2" | "http3")).then(|| {
                format!("invalid protocol {} specified in annotation {}", go_quote(value), go_quote(key))
            })
        },
        reads: not_regional_network,
    },
    Check {
        provider: Provider::Hetzner,
        controller: "hcloud cloud controller manager",
        event: SYNC_EVENT,
        key: "load-balancer.hetzner.cloud/use-private-ip",
        parser: "hetznercloud/hcloud-cloud-controller-manager, internal/annotation/name.go Name.BoolFromService (from internal/hcops/load_balancer.go getPrivateIPEnabled)",
        accepts: GO_BOOL,
        rejects: |key, value| {
            let e = bool_error(value)?;
            Some(format!("annotation/Name.BoolFromService: {key}: {e}"))
        },
        reads: always,
    },
    oci_internal("service.beta.kubernetes.io/oci-load-balancer-internal", false),
    oci_internal("oci-network-load-balancer.oraclecloud.com/internal", true),
    Check {
        provider: Provider::Eks,
        controller: "in-tree AWS cloud controller (Classic ELB)",
        event: SYNC_EVENT,
        key: "service.beta.kubernetes.io/aws-load-balancer-proxy-protocol",
        parser: "kubernetes/cloud-provider-aws, pkg/providers/v1/aws.go EnsureLoadBalancer",
        accepts: "`*` (every port)",
        rejects: |key, value| {
            (!value.is_empty() && value != "*").then(|| {
                format!(
                    "annotation {}={} detected, but the only value supported currently is '*'",
                    go_quote(key),
                    go_quote(value)
                )
            })
        },
        // Its NLB path returns before it reads the annotation; the AWS Load Balancer
        // Controller's Services are the next row's.
        reads: |cx, s| {
            let nlb = s.annotations.text(&format!("{AWS}type")) == Some("nlb");
            (!nlb && matches!(aws_lbc(cx, s), Reads::No)).into()
        },
    },
    Check {
        provider: Provider::Eks,
        controller: "AWS Load Balancer Controller",
        event: LBC_EVENT,
        key: "service.beta.kubernetes.io/aws-load-balancer-proxy-protocol",
        parser: "kubernetes-sigs/aws-load-balancer-controller, pkg/service/model_build_target_group.go buildTargetGroupAttributes",
        accepts: "`*` (every port)",
        rejects: |_, value| {
            (value != "*").then(|| {
                format!(
                    "invalid value {value} for Load Balancer proxy protocol v2 annotation, only value \
                     currently supported is *"
                )
            })
        },
        reads: aws_lbc,
    },
    Check {
        provider: Provider::Eks,
        controller: "AWS Load Balancer Controller",
        event: LBC_EVENT,
        key: "service.beta.kubernetes.io/aws-load-balancer-scheme",
        parser: "kubernetes-sigs/aws-load-balancer-controller, pkg/service/model_build_load_balancer.go buildLoadBalancerSchemeViaAnnotation",
        accepts: "internet-facing or internal, exactly",
        rejects: |_, value| {
            (!matches!(value, "internet-facing" | "internal")).then(|| format!("unknown scheme: {value}"))
        },
        reads: aws_lbc,
    },
    Check {
        provider: Provider::Eks,
        controller: "AWS Load Balancer Controller",
        event: LBC_EVENT,
        key: "service.beta.kubernetes.io/aws-load-balancer-internal",
        parser: "kubernetes-sigs/aws-load-balancer-controller, pkg/annotations/parser.go ParseBoolAnnotation (from buildLoadBalancerSchemeLegacyAnnotation)",
        accepts: GO_BOOL,
        rejects: |key, value| {
            let e = bool_error(value)?;
            Some(format!("failed to parse bool annotation, {key}: {value}: {e}"))
        },
        // `aws-load-balancer-scheme`, when written, is read instead.
        reads: |cx, s| match aws_lbc(cx, s) {
            Reads::Yes => s.annotations.text(&format!("{AWS}scheme")).is_none().into(),
            other => other,
        },
    },
    Check {
        provider: Provider::Eks,
        controller: "AWS Load Balancer Controller",
        event: LBC_EVENT,
        key: "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes",
        parser: "kubernetes-sigs/aws-load-balancer-controller, pkg/annotations/parser.go ParseStringMapAnnotation and pkg/service/model_build_target_group.go validateAndParseAttributes",
        accepts: "comma-separated key=value pairs; `preserve_client_ip.enabled` takes Go's strconv.ParseBool forms",
        rejects: |key, value| {
            let mut preserve = None;
            for pair in value.split(',').filter(|p| !p.trim().is_empty()) {
                let Some((k, v)) = pair.split_once('=') else {
                    return Some(format!("failed to parse stringMap annotation, {key}: {value}"));
                };
                if k.trim() == "preserve_client_ip.enabled" {
                    preserve = Some(v.trim());
                }
            }
            let v = preserve?;
            let e = bool_error(v)?;
            Some(format!("failed to parse attribute preserve_client_ip.enabled={v}: {e}"))
        },
        reads: aws_lbc,
    },
];

const fn oci_internal(key: &'static str, network_lb: bool) -> Check {
    Check {
        provider: Provider::Oke,
        controller: "OCI cloud controller manager",
        event: SYNC_EVENT,
        key,
        parser: "oracle/oci-cloud-controller-manager, pkg/cloudprovider/providers/oci/load_balancer_spec.go isInternalLB",
        accepts: GO_BOOL,
        rejects: |key, value| {
            let e = bool_error(value)?;
            Some(format!("invalid value: {value} provided for annotation: {key}: {e}"))
        },
        reads: if network_lb { oci_network_lb } else { oci_lb },
    }
}

fn is_oci_network_lb(s: &Service<'_>) -> bool {
    crate::rules::family::proxy_protocol::oke::is_network_lb(&s.annotations)
}

fn oci_network_lb(_: &Context<'_>, s: &Service<'_>) -> Reads {
    is_oci_network_lb(s).into()
}

fn oci_lb(_: &Context<'_>, s: &Service<'_>) -> Reads {
    (!is_oci_network_lb(s)).into()
}

/// DigitalOcean builds no HTTP or TLS rules for a network load balancer (the default type
/// from v0.1.61).
fn not_regional_network(cx: &Context<'_>, s: &Service<'_>) -> Reads {
    match doks::builds_http_rules(cx, s.object) {
        Some(builds) => builds.into(),
        None => Reads::Unknown(format!(
            "the load balancer's type (`{DO}type` is not written, and the controller's default \
             changed to REGIONAL_NETWORK in v0.1.61; `spec.addons.cloudControllerManager` is not \
             stated)"
        )),
    }
}

/// The AWS Load Balancer Controller's Services as the manifest shows them: its class,
/// `type: nlb-ip`, or `type: external` with an `ip` or `instance` target type
/// (`checkAWSLoadBalancerTypeAnnotation`, pkg/service/service_utils.go).
fn aws_lbc(_: &Context<'_>, s: &Service<'_>) -> Reads {
    let target = s.annotations.text(&format!("{AWS}nlb-target-type"));
    (s.class == Some(crate::rules::family::internal_lb::NLB_CLASS)
        || match s.annotations.text(&format!("{AWS}type")) {
            Some("nlb-ip") => true,
            Some("external") => matches!(target, Some("ip" | "instance")),
            _ => false,
        })
    .into()
}
