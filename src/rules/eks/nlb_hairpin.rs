//! EKS001 eks-nlb-hairpin: an NLB with client IP preservation called from inside the
//! cluster. A member of the internal-LB family on its own verdict (`rules::family::internal_lb`).

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint};
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::select::load_balancers_of;
use crate::rules::verdict::{calls_first, weigh, with_callers};
use crate::rules::{Context, Rule};
use crate::views::ServicePort;
use crate::yaml::NodeRef;

use super::nlb_facts::{kept, scheme, Kept, Scheme, IN_TREE_READS_SINCE};
use super::{class_of, key, load_balancers, made, Made, Nlb, LBC_DOC, TROUBLESHOOTING};

use crate::catalog::meta::EKS001 as META;

pub(crate) struct NlbHairpin;

impl Rule for NlbHairpin {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// AWS load balancers (and the controller's NLB class anywhere): this rule knows whether
    /// the NLB can take a call back (rules/EKS001.md).
    fn claims(&self, _cx: &Context<'_>, entry: &crate::model::EntryPoint) -> bool {
        entry.provider == Some(crate::profile::Provider::Eks)
            || entry.class.as_deref() == Some(super::NLB_CLASS)
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry, service, view) in load_balancers(cx) {
            if let Some(hairpin) = hairpin(cx, entry, service, (class_of(view), &view.ports)) {
                report(cx, index, service, &hairpin, out);
            }
        }
        // Gateways whose implementation creates the Service (inferred, without a class).
        for (index, entry, gateway) in
            load_balancers_of(cx, Provider::Eks).filter(|(_, e, _)| e.kind == EntryKind::Gateway)
        {
            let ports = cx.lb_ports(entry);
            if let Some(hairpin) = hairpin(cx, entry, gateway, (None, &ports)) {
                report(cx, index, gateway, &hairpin, out);
            }
        }
    }
}

/// EKS001's verdict on one Service, before it is worded.
struct Hairpin<'w> {
    nlb: Nlb,
    /// Whether the Service becomes an NLB hangs on this fact.
    maybe: Option<String>,
    /// The first port whose target group keeps the client IP: its node and number.
    port: (NodeRef<'w>, Option<i64>),
    /// That port cannot opt out (UDP, QUIC).
    always: bool,
    /// Why the port keeps it although the Service turns it off, or what that hangs on.
    kept: Kept,
}

/// `None` unless the Service gets (or may get) an NLB with a port that keeps (or may keep)
/// the client IP: the first port that surely keeps it, else the first that may.
fn hairpin<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
    (class, ports): (Option<&str>, &[ServicePort<'w>]),
) -> Option<Hairpin<'w>> {
    let quic: Vec<i64> = cx
        .lb_annotations(service)
        .text(&key("quic-enabled-ports"))
        .map(|v| v.split(',').filter_map(|p| p.trim().parse().ok()).collect())
        .unwrap_or_default();
    let (nlb, maybe) = match made(cx, entry, service, class) {
        Made::Nlb(nlb) => (nlb, None),
        Made::Maybe(why) => (
            Nlb::Controller {
                ip_targets: false,
                took_nlb_type: false,
            },
            Some(why),
        ),
        Made::NotNlb => return None,
    };
    let judged: Vec<Hairpin<'w>> = ports
        .iter()
        .map(|port| {
            let always = port.protocol_is("UDP") || port.port.is_some_and(|p| quic.contains(&p));
            Hairpin {
                nlb: nlb.clone(),
                maybe: maybe.clone(),
                port: (port.node, port.port),
                always,
                kept: if always {
                    Kept::Yes
                } else {
                    kept(cx, service, &nlb, port.port)
                },
            }
        })
        .filter(|h| h.kept != Kept::No)
        .collect();
    let surely = judged
        .iter()
        .position(|h| matches!(h.kept, Kept::Yes | Kept::Ignored(_)));
    judged.into_iter().nth(surely.unwrap_or(0))
}

fn report(
    cx: &Context<'_>,
    index: EntryId,
    service: &Object,
    hairpin: &Hairpin<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let callers = calls_first(cx.model.callers_of(index));
    let (severity, message, detail) = words(cx, service, hairpin, callers.first().copied());
    let d = META
        .diagnostic(
            severity,
            ws.location(service, hairpin.port.0.span()),
            message,
        )
        .with_help(format!(
            "{detail} Way out: {}. See {TROUBLESHOOTING} and {LBC_DOC}",
            ways_out(hairpin)
        ))
        .on(service);
    let d = with_callers(d, cx, callers.iter().copied(), "address");
    out.push(d.with_fix(preservation_off_fix(cx, service, hairpin)));
}

/// The controller's way out as an unsafe fix: `target-group-attributes:
/// preserve_client_ip.enabled=false`, added after the Service's load-balancer type or
/// scheme annotation. Only for the AWS Load Balancer Controller (the in-tree one reads it
/// only from a version the profile may not state), only where it helps (not UDP or QUIC),
/// and only where no attributes are set yet (merging a list is the author's call). Unsafe:
/// the backends then see the NLB's address instead of the client's.
fn preservation_off_fix(cx: &Context<'_>, service: &Object, hairpin: &Hairpin<'_>) -> Option<Fix> {
    let attributes = key("target-group-attributes");
    let view = cx.lb_annotations(service);
    if hairpin.always
        || !matches!(hairpin.nlb, Nlb::Controller { .. })
        || view.entries().any(|(k, _)| {
            k.as_str()
                .is_some_and(|k| k.starts_with(attributes.as_str()))
        })
    {
        return None;
    }
    let after = ["nlb-target-type", "type", "scheme"]
        .map(key)
        .into_iter()
        .find(|k| view.entry(k).is_some())?;
    crate::rules::family::proxy_protocol::add_annotation(
        cx,
        service,
        &after,
        (&attributes, "preserve_client_ip.enabled=false"),
        Applicability::Unsafe,
    )
}

/// The severity, the lead message and the detail the help opens with. With a caller: an
/// error when the NLB is internal and nothing about it is unsure; a warning when it is
/// internet-facing (AWS's older guide exempted that), when IP targets keep the client IP
/// (AWS documents the timeout for an instance calling its own load balancer; for a pod
/// registered by IP it is inferred), or when the verdict hangs on a profile fact (the lead
/// names the fields). Without one: a warning for an internal NLB, a note for an
/// internet-facing one or an inferred case.
fn words(
    cx: &Context<'_>,
    service: &Object,
    hairpin: &Hairpin<'_>,
    first: Option<&Caller>,
) -> (Severity, String, String) {
    let ws = cx.ws;
    let scheme = scheme(cx, service, &hairpin.nlb);
    let inferred = matches!(
        hairpin.nlb,
        Nlb::Controller {
            ip_targets: true,
            ..
        }
    );
    let unsure = match (&hairpin.maybe, &hairpin.kept) {
        (Some(why), _) => Some(format!(
            ", if its load balancer is an NLB: that depends on {why}"
        )),
        (None, Kept::Unknown(why)) => Some(format!(": whether it does depends on {why}")),
        _ => None,
    };
    let subject = cx.lb_subject(service);
    let mut detail = what(&subject, hairpin);
    if inferred {
        detail.push_str(
            ". AWS documents this for an instance that calls its own load balancer; that a pod \
             registered by IP meets the same timeout is inferred, not documented",
        );
    }
    if let Some(why) = &unsure {
        detail.push_str(why);
    }
    detail.push_str(
        ". When the NLB picks the caller's own node, the source and destination are the \
                     same and the connection times out (intermittently, by node), for any pod that calls \
                     its hostname or a host that an ingress controller behind it serves.",
    );
    // What lowers the verdict, or a default it assumes (DEVELOPERS.md: said in the message),
    // in a few words; the help says why.
    let lowered = if inferred {
        " That IP targets meet the timeout is inferred, not documented.".to_string()
    } else if scheme.internet_facing {
        " The NLB is internet-facing, which AWS's older guide exempted.".to_string()
    } else {
        scheme_words(&scheme, &hairpin.nlb)
    };
    if inferred || scheme.internet_facing {
        detail.push_str(&scheme_words(&scheme, &hairpin.nlb));
    }
    let ignored_by = match &hairpin.kept {
        Kept::Ignored(_) => cx.profile.cloud_controller_manager().value,
        _ => None,
    };
    let lead = lead(&subject, hairpin, unsure.as_deref(), ignored_by);
    let Some(caller) = first else {
        // An inferred failure is a note; else as in every rule (verdict::unseen): the
        // controller's scheme says whether the NLB is private.
        let network = match (inferred, scheme.internet_facing) {
            (true, _) | (false, true) => crate::model::Network::Public,
            (false, false) => crate::model::Network::Private,
        };
        let severity = match inferred {
            true => Severity::Note,
            false => crate::rules::verdict::unseen(network),
        };
        let ways_out = crate::rules::verdict::unseen_why(
            network,
            META.id,
            "turn off client IP preservation (`preserve_client_ip.enabled=false`) or use IP targets",
        );
        return (
            severity,
            format!(
                "{lead}; no in-cluster caller is visible in these manifests.{lowered}{ways_out}"
            ),
            detail,
        );
    };
    let severity = if unsure.is_some() || inferred || scheme.internet_facing {
        Severity::Warning
    } else {
        Severity::Error
    };
    let (severity, message) = weigh(
        severity,
        caller,
        format!(
            "{lead}: {} calls {} ({}) from inside the cluster.{lowered}",
            ws.objects[caller.workload].id, caller.address, caller.via,
        ),
    );
    (severity, message, detail)
}

/// "Service `web` gets an NLB with instance targets, which keeps the client IP on port 80
/// and so cannot take a target's own call back", naming the profile fields an unsure
/// verdict hangs on; the full reasoning is the help's ([`what`]).
fn lead(
    subject: &str,
    hairpin: &Hairpin<'_>,
    unsure: Option<&str>,
    ignored_by: Option<&str>,
) -> String {
    let kind = match &hairpin.nlb {
        Nlb::InTree { .. } => "the in-tree controller's NLB",
        Nlb::Controller {
            ip_targets: false, ..
        } => "an NLB with instance targets",
        Nlb::Controller {
            ip_targets: true, ..
        } => "an NLB with IP targets",
    };
    let port = hairpin
        .port
        .1
        .map_or_else(|| "a port".to_string(), |p| format!("port {p}"));
    let settle = unsure
        .and_then(crate::rules::verdict::settle)
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    let keeps = if unsure.is_some() {
        "may keep"
    } else {
        "keeps"
    };
    let despite = ignored_by
        .map(|v| {
            format!(" although the Service turns it off (cloud-provider-aws {v} ignores that)")
        })
        .unwrap_or_default();
    format!(
        "{subject} gets {kind}, which {keeps} the client IP on {port}{despite} and so cannot take a \
         target's own call back{settle}"
    )
}

/// "Service `web` gets …; its target group for port 80 keeps the client IP, and …".
fn what(subject: &str, hairpin: &Hairpin<'_>) -> String {
    let port_text = hairpin
        .port
        .1
        .map_or_else(|| "a port".to_string(), |p| format!("port {p}"));
    let kind = match &hairpin.nlb {
        Nlb::InTree { or_controller } => format!(
            "the in-tree controller's NLB (`aws-load-balancer-type: nlb`, kubernetes/cloud-provider-aws), whose \
             instance targets keep the client IP{}",
            or_controller
                .as_ref()
                .map(|why| format!(
                    " (or, if the AWS Load Balancer Controller's Service webhook runs, that controller's NLB \
                     with instance targets, which keep it too: that depends on {why})"
                ))
                .unwrap_or_default()
        ),
        Nlb::Controller { ip_targets: false, took_nlb_type } => format!(
            "an NLB with instance targets, which keep the client IP by default{}",
            if *took_nlb_type {
                " (the AWS Load Balancer Controller's Service webhook gives the Service the class \
                 `service.k8s.aws/nlb`, so that controller makes it, not the in-tree one that \
                 `aws-load-balancer-type: nlb` names)"
            } else {
                ""
            }
        ),
        Nlb::Controller { ip_targets: true, .. } => "an NLB with IP targets".to_string(),
    };
    let why_kept = match &hairpin.kept {
        _ if hairpin.always => {
            format!("{port_text} is UDP or QUIC, whose target groups always keep the client IP")
        }
        Kept::Ignored(why) => format!("its target group for {port_text} keeps the client IP: {why}"),
        Kept::Unknown(_) => format!(
            "its target group for {port_text} keeps the client IP unless the in-tree controller reads \
             `preserve_client_ip.enabled=false`"
        ),
        _ => format!("its target group for {port_text} keeps the client IP"),
    };
    format!(
        "{subject} gets {kind}; {why_kept}, and such a load balancer cannot send a target's own call back to \
         it (\"Load balancers with client IP preservation enabled do not support hairpinning or loopback\")"
    )
}

/// The scheme, when it lowers the severity or is the controller's default.
fn scheme_words(scheme: &Scheme, nlb: &Nlb) -> String {
    match (scheme.internet_facing, scheme.by_default, nlb) {
        (true, true, Nlb::InTree { .. }) => format!(
            " The in-tree controller makes it internet-facing (no `{}`), which AWS's older guide exempted; its \
             current troubleshooting text is not scheme-specific.",
            key("internal")
        ),
        (true, ..) => " The load balancer is internet-facing, which AWS's older guide exempted; its current \
                        troubleshooting text is not scheme-specific."
            .to_string(),
        (false, true, Nlb::Controller { .. }) => format!(
            " Assuming the controller's default scheme, internal (its `--default-load-balancer-scheme`); set \
             `{}` to state it.",
            key("scheme")
        ),
        _ => String::new(),
    }
}

/// The ways out this NLB allows.
fn ways_out(hairpin: &Hairpin<'_>) -> String {
    let attributes = key("target-group-attributes");
    if hairpin.always {
        "call the Service by its in-cluster name from inside the cluster: UDP and QUIC target groups cannot turn \
         client IP preservation off"
            .to_string()
    } else if matches!(hairpin.nlb, Nlb::InTree { .. }) {
        format!(
            "set `{attributes}: preserve_client_ip.enabled=false`, which the in-tree controller reads from \
             cloud-provider-aws {IN_TREE_READS_SINCE} (state its version in `spec.addons.cloudControllerManager`), \
             or call the Service by its in-cluster name from inside the cluster"
        )
    } else {
        format!(
            "set `{attributes}: preserve_client_ip.enabled=false` (TCP and TLS target groups), or \
             `{}: ip` without `preserve_client_ip.enabled=true` (IP targets do not keep the client IP over TCP \
             by default), or call the Service by its in-cluster name from inside the cluster",
            key("nlb-target-type")
        )
    }
}
