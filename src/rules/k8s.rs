//! Rules for any provider.

pub mod annotation_value_not_string {
    //! K8S002 annotation-value-not-string: an annotation or label value that YAML reads as
    //! a boolean, number, null or timestamp. Kubernetes wants strings.

    use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
    use crate::objects::{pod_template, Object, Workspace};
    use crate::rules::{Context, Rule, RuleMeta};
    use crate::yaml::{NodeRef, Resolved, Style};

    pub static META: RuleMeta = RuleMeta {
        id: "K8S002",
        name: "annotation-value-not-string",
        default_severity: Severity::Error,
        providers: &["any"],
        summary: "An unquoted annotation or label value is not a string (`true`, `1`, `yes`): the API server rejects it.",
        doc: include_str!("../../rules/K8S002.md"),
    };

    pub struct AnnotationValueNotString;

    impl Rule for AnnotationValueNotString {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            let ws = cx.ws;
            for object in &ws.objects {
                let root = ws.root(object);
                let mut maps = vec![
                    ("annotation", root.path(&["metadata", "annotations"])),
                    ("label", root.path(&["metadata", "labels"])),
                ];
                if let Some(template) = pod_template(ws, object) {
                    maps.push(("pod label", template.labels));
                }
                for (what, map) in maps {
                    for (key, value) in map.into_iter().flat_map(NodeRef::entries) {
                        if let Some(d) = check_value(ws, object, what, key, value) {
                            out.push(d);
                        }
                    }
                }
            }
        }
    }

    fn check_value(
        ws: &Workspace,
        object: &Object,
        what: &str,
        key: NodeRef<'_>,
        value: NodeRef<'_>,
    ) -> Option<Diagnostic> {
        let scalar = value.scalar()?;
        if value.node().tag.is_some() || scalar.style != Style::Plain {
            return None;
        }
        let source = ws.source(object);
        let raw = value.span().slice(&source.text);
        let key_text = key.as_str().unwrap_or_default();
        let (severity, reading) = match scalar.resolved {
            Resolved::Str => return None,
            Resolved::Bool(b) => (Severity::Error, format!("the boolean {b}")),
            Resolved::Int(i) => (Severity::Error, format!("the number {i}")),
            Resolved::Float(f) => (Severity::Error, format!("the number {f}")),
            // An empty value is null: the API server stores "", which is rarely what was meant.
            Resolved::Null if raw.is_empty() => return None,
            Resolved::Null => (
                Severity::Warning,
                "null (stored as an empty string)".to_string(),
            ),
            Resolved::Timestamp => (
                Severity::Warning,
                "a timestamp (re-encoded as RFC 3339)".to_string(),
            ),
        };
        let message = format!(
            "{what} `{key_text}: {raw}` on {} is not a string: Kubernetes (YAML 1.1) reads `{raw}` as {reading}, and \
             {what} values must be strings{}.",
            object.id,
            if severity == Severity::Error { ", so the API server rejects the object" } else { "" }
        );
        let mut d = META
            .diagnostic(severity, ws.location(object, value.span()), message)
            .with_help(format!("quote the value: `{key_text}: \"{raw}\"`"));
        d.object = Some(object.id.clone());
        d.origin = object.origin.clone();
        d.fix = Some(Fix {
            description: format!("quote `{raw}`"),
            // Quoting keeps the text the author wrote; it only makes YAML read it as a string.
            applicability: Applicability::Safe,
            edits: vec![Edit {
                span: value.span(),
                content: format!("\"{raw}\""),
            }],
        });
        Some(d)
    }
}

pub mod lb_address_in_cluster {
    //! K8S001 lb-address-in-cluster: a pod calls its own cluster's load-balancer address.

    use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
    use crate::model::{Caller, EntryKind};
    use crate::rules::{Context, Rule, RuleMeta};

    pub static META: RuleMeta = RuleMeta {
        id: "K8S001",
        name: "lb-address-in-cluster",
        default_severity: Severity::Note,
        providers: &["any"],
        summary: "A pod calls its own cluster's load-balancer address; call the Service by its DNS name instead.",
        doc: include_str!("../../rules/K8S001.md"),
    };

    pub struct LbAddressInCluster;

    impl Rule for LbAddressInCluster {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            for caller in &cx.model.callers {
                out.push(diagnostic(cx, caller));
            }
        }
    }

    fn diagnostic(cx: &Context<'_>, caller: &Caller) -> Diagnostic {
        let ws = cx.ws;
        let entry = &cx.model.entry_points[caller.target];
        let target = &ws.objects[entry.object];
        let workload = &ws.objects[caller.workload];
        // The in-cluster name that reaches the same pods without leaving the cluster.
        let dns = match entry.kind {
            EntryKind::Service => Some(format!(
                "{}.{}.svc.cluster.local",
                target.name(),
                target.namespace()
            )),
            EntryKind::Ingress => match entry.services.as_slice() {
                [only] => {
                    let service = &ws.objects[*only];
                    Some(format!(
                        "{}.{}.svc.cluster.local",
                        service.name(),
                        service.namespace()
                    ))
                }
                _ => None,
            },
            EntryKind::IstioGateway | EntryKind::Gateway => None,
        };
        let location = match caller.address_span {
            Some(span) => crate::diagnostic::Location {
                file: caller.location.file.clone(),
                span,
            },
            None => caller.location.clone(),
        };
        let message = format!(
            "{} calls {}, the load-balancer address of {} in this cluster ({}): the traffic leaves the cluster \
             and comes back through the load balancer.",
            workload.id, caller.address, target.id, caller.via
        );
        let help = match (&dns, entry.kind) {
            (Some(dns), EntryKind::Service) => format!(
                "call `{dns}` (or `{}.{}`) instead: in-cluster traffic then goes straight to a backend pod, \
                 with no load-balancer loopback",
                target.name(),
                target.namespace()
            ),
            (Some(dns), _) => format!(
                "call the backend Service `{dns}` instead of the Ingress host (mind the Ingress path and TLS \
                 settings the direct call skips)"
            ),
            (None, _) => format!(
                "call the Service behind {} by its DNS name `<service>.<namespace>.svc.cluster.local` instead",
                target.id
            ),
        };
        let mut d = META
            .diagnostic(Severity::Note, location.clone(), message)
            .with_help(help);
        d.object = Some(workload.id.clone());
        d.origin = workload.origin.clone();
        // Point at where the manifest states the address (else at the object's name).
        let stated = entry
            .addresses
            .iter()
            .find(|a| a.matches(&caller.address))
            .and_then(|a| a.location.clone())
            .or_else(|| {
                let root = ws.root(target);
                let name = root.path(&["metadata", "name"]).unwrap_or(root);
                Some(ws.location(target, name.span()))
            });
        if let Some(stated) = stated {
            d = d.with_related(
                stated,
                format!("{} gets this load-balancer address", target.id),
            );
        }
        if let (Some(dns), Some(span), EntryKind::Service) = (dns, caller.address_span, entry.kind)
        {
            d.fix = Some(Fix {
                description: format!("call `{dns}` instead of {}", caller.address),
                // The Service port equals the load-balancer port, but TLS names and
                // source-IP based rules may differ: review before applying.
                applicability: Applicability::Unsafe,
                edits: vec![Edit { span, content: dns }],
            });
        }
        d
    }
}

pub mod no_short_circuit {
    //! K8S010 lb-no-short-circuit-in-cluster: the Service status says kube-proxy will not
    //! short-circuit calls to the load-balancer address (`ipMode: Proxy`, or a hostname
    //! only), and a pod calls that address.

    use crate::diagnostic::{Diagnostic, Severity};
    use crate::model::EntryKind;
    use crate::profile::{version, Provider};
    use crate::rules::{vke, Context, Rule, RuleMeta};
    use crate::yaml::NodeRef;

    pub static META: RuleMeta = RuleMeta {
        id: "K8S010",
        name: "lb-no-short-circuit-in-cluster",
        default_severity: Severity::Warning,
        providers: &["any"],
        summary: "With `ipMode: Proxy` or a hostname-only load-balancer status, in-cluster calls to the address really go through the load balancer.",
        doc: include_str!("../../rules/K8S010.md"),
    };

    pub struct NoShortCircuit;

    impl Rule for NoShortCircuit {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            let ws = cx.ws;
            // Before 1.30 the LoadBalancerIPMode gate is off by default (alpha in 1.29).
            let version = cx.profile.spec.kubernetes_version.as_deref();
            let ip_mode_honoured = version.and_then(|v| version::at_least(v, "1.30"));
            for (index, entry) in cx.model.entry_points.iter().enumerate() {
                if entry.kind != EntryKind::Service {
                    continue;
                }
                let object = &ws.objects[entry.object];
                let callers: Vec<_> = cx.model.callers_of(index).collect();
                if callers.is_empty() {
                    continue;
                }
                // VKE004 judges a Service that asks for Proxy mode by annotation.
                if matches!(cx.profile.provider(), Provider::Vke | Provider::Generic)
                    && ws
                        .annotation(object, vke::IP_MODE)
                        .and_then(|(_, v)| v.as_str())
                        == Some("Proxy")
                {
                    continue;
                }
                let ingress: Vec<NodeRef<'_>> = ws
                    .root(object)
                    .path(&["status", "loadBalancer", "ingress"])
                    .into_iter()
                    .flat_map(NodeRef::items)
                    .collect();
                let proxy = ingress
                    .iter()
                    .filter_map(|i| i.get("ipMode"))
                    .find(|m| m.as_str() == Some("Proxy"));
                let hostname_only = !ingress.is_empty()
                    && ingress.iter().all(|i| i.get("ip").is_none())
                    && ingress.iter().any(|i| i.get("hostname").is_some());
                let (at, why) = match (proxy, hostname_only) {
                    (Some(mode), _) if ip_mode_honoured != Some(false) => {
                        let gate = if ip_mode_honoured.is_none() {
                            " (on Kubernetes 1.30 or later, where the LoadBalancerIPMode feature is on by default; \
                             the cluster profile does not state `spec.kubernetesVersion`)"
                        } else {
                            ""
                        };
                        (mode, format!("its status reports `ipMode: Proxy`{gate}"))
                    }
                    (_, true) => (
                        ingress
                            .iter()
                            .find_map(|i| i.get("hostname"))
                            .expect("hostname_only has a hostname"),
                        "its status has a hostname and no IP, which kube-proxy cannot bind"
                            .to_string(),
                    ),
                    _ => continue,
                };
                let first = callers[0];
                let mut d = META
                    .diagnostic(
                        Severity::Warning,
                        ws.location(object, at.span()),
                        format!(
                            "In-cluster calls to the load-balancer address of Service `{}` really go through the load \
                             balancer: {why}, so kube-proxy does not short-circuit them. {} calls {}; whether the load \
                             balancer can send that traffic back into the same cluster, or the caller's own node \
                             (hairpin), is now up to the provider.",
                            object.name(),
                            ws.objects[first.workload].id,
                            first.address
                        ),
                    )
                    .with_help(format!(
                        "have in-cluster clients call `{}.{}.svc.cluster.local` (or the ClusterIP) instead, or check \
                         that the provider's load balancer supports hairpin traffic from its own backends",
                        object.name(),
                        object.namespace()
                    ));
                for caller in &callers {
                    d = d.with_related(
                        caller.location.clone(),
                        format!(
                            "{} calls the load-balancer address {} from inside the cluster",
                            ws.objects[caller.workload].id, caller.address
                        ),
                    );
                }
                d.object = Some(object.id.clone());
                d.origin = object.origin.clone();
                out.push(d);
            }
        }
    }
}

pub mod internal_traffic_policy_local {
    //! K8S011 internal-traffic-policy-local-drop: `internalTrafficPolicy: Local` on a Service
    //! whose backends are not on every node its callers can use.

    use crate::diagnostic::{Applicability, Diagnostic, Severity};
    use crate::model::Fit;
    use crate::objects::{pod_template, selector_matches};
    use crate::rules::{edit, Context, Rule, RuleMeta};

    pub static META: RuleMeta = RuleMeta {
        id: "K8S011",
        name: "internal-traffic-policy-local-drop",
        default_severity: Severity::Error,
        providers: &["any"],
        summary: "With `internalTrafficPolicy: Local`, calls from nodes without a backend pod are dropped.",
        doc: include_str!("../../rules/K8S011.md"),
    };

    pub struct InternalTrafficPolicyLocal;

    impl Rule for InternalTrafficPolicyLocal {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            let ws = cx.ws;
            for (index, object) in ws.objects.iter().enumerate() {
                if object.kind() != "Service" || !object.group().is_empty() {
                    continue;
                }
                let Some(policy) = ws
                    .spec(object)
                    .and_then(|s| s.get("internalTrafficPolicy"))
                    .filter(|p| p.as_str() == Some("Local"))
                else {
                    continue;
                };
                let selector = ws.spec(object).and_then(|s| s.get("selector"));
                let backends: Vec<usize> = cx
                    .model
                    .workloads
                    .iter()
                    .copied()
                    .filter(|&w| {
                        let workload = &ws.objects[w];
                        workload.namespace() == object.namespace()
                            && pod_template(ws, workload)
                                .is_some_and(|t| selector_matches(selector, t.labels))
                    })
                    .collect();
                let mut calls: Vec<_> = cx
                    .model
                    .safe_calls
                    .iter()
                    .filter(|c| c.service == index)
                    .collect();
                calls.dedup_by_key(|c| c.workload);
                // Per caller: can it run on a node without a backend pod?
                let verdicts: Vec<Fit> = calls
                    .iter()
                    .map(|c| {
                        if backends.is_empty() {
                            return Fit::Unknown;
                        }
                        let mut covered = Fit::No;
                        for &b in &backends {
                            // A backend calling its own Service always has a local endpoint: itself.
                            let fit = if b == c.workload {
                                Fit::Yes
                            } else {
                                cx.model.covers(ws, b, c.workload)
                            };
                            match fit {
                                Fit::Yes => return Fit::No,
                                Fit::Unknown => covered = Fit::Unknown,
                                Fit::No => {}
                            }
                        }
                        if covered == Fit::Unknown {
                            Fit::Unknown
                        } else {
                            Fit::Yes
                        }
                    })
                    .collect();
                let name = object.name();
                let found = calls
                    .iter()
                    .zip(&verdicts)
                    .find(|(_, v)| **v == Fit::Yes)
                    .or_else(|| {
                        calls
                            .iter()
                            .zip(&verdicts)
                            .find(|(_, v)| **v == Fit::Unknown)
                    });
                let (severity, message) = match found {
                    Some((call, Fit::Yes)) => (
                        Severity::Error,
                        format!(
                            "Service `{name}` has `internalTrafficPolicy: Local` and {} calls it ({}) from a pod that \
                             can run on a node without a backend pod (no backend DaemonSet covers every node pool it can use{}): kube-proxy \
                             drops traffic on nodes without a local endpoint.",
                            ws.objects[call.workload].id,
                            call.host,
                            cx.profile
                        .fact_line(&["spec", "nodePools"])
                        .map(|l| format!(" at {l}"))
                        .unwrap_or_default()
                        ),
                    ),
                    Some((call, _)) => (
                        Severity::Warning,
                        format!(
                            "Service `{name}` has `internalTrafficPolicy: Local` and {} calls it ({}); whether a \
                             backend pod runs on every node that caller can use is unknown ({}): kube-proxy drops \
                             traffic on nodes without a local endpoint.",
                            ws.objects[call.workload].id,
                            call.host,
                            if backends.is_empty() {
                                "the backend pods are not in these manifests"
                            } else {
                                "set `spec.nodePools` in the cluster profile"
                            }
                        ),
                    ),
                    None if !calls.is_empty() => continue,
                    None => {
                        // Without callers, only report backends that cannot be on every node.
                        if backends.is_empty()
                            || backends.iter().any(|&b| ws.objects[b].kind() == "DaemonSet")
                        {
                            continue;
                        }
                        (
                            Severity::Warning,
                            format!(
                                "Service `{name}` has `internalTrafficPolicy: Local` but its backends are not a \
                                 DaemonSet: calls from pods on nodes without a backend pod are dropped. No \
                                 in-cluster caller is visible in these manifests."
                            ),
                        )
                    }
                };
                let mut d = META
                    .diagnostic(severity, ws.location(object, policy.span()), message)
                    .with_help(
                        "set `spec.internalTrafficPolicy: Cluster` (or remove it; `Cluster` is the default), or run \
                         the backends as a DaemonSet on every node the callers use. See \
                         https://kubernetes.io/docs/reference/networking/virtual-ips/",
                    );
                for call in &calls {
                    d = d.with_related(
                        call.location.clone(),
                        format!("{} calls the Service here", ws.objects[call.workload].id),
                    );
                }
                d.object = Some(object.id.clone());
                d.origin = object.origin.clone();
                d.fix = edit::replace_scalar(
                    ws,
                    object,
                    policy,
                    "Cluster",
                    "set `internalTrafficPolicy: Cluster`".to_string(),
                    // Node-local routing may be intended (e.g. a node agent).
                    Applicability::Unsafe,
                );
                out.push(d);
            }
        }
    }
}

pub mod class_ignores_annotations {
    //! K8S012 load-balancer-class-ignores-annotations: `spec.loadBalancerClass` with the
    //! default cloud controller's annotations, which that controller then ignores.

    use crate::diagnostic::{Diagnostic, Severity};
    use crate::model::EntryKind;
    use crate::rules::{Context, Rule, RuleMeta};

    pub static META: RuleMeta = RuleMeta {
        id: "K8S012",
        name: "load-balancer-class-ignores-annotations",
        default_severity: Severity::Warning,
        providers: &["any"],
        summary: "A Service with `spec.loadBalancerClass` is ignored by the default cloud controller, and so are its annotations.",
        doc: include_str!("../../rules/K8S012.md"),
    };

    pub struct ClassIgnoresAnnotations;

    /// Annotation families whose controller is known to skip Services with a class:
    /// (prefixes, controller, its own classes that it does handle).
    const FAMILIES: &[(&[&str], &str, &[&str])] = &[
        (
            &[
                "service.beta.kubernetes.io/alibaba-cloud-",
                "service.beta.kubernetes.io/alicloud-",
            ],
            "the Alibaba Cloud CLB controller",
            // The NLB class is handled by Alibaba's NLB controller; which annotations it
            // reads is not confirmed, so it is not judged.
            &["alibabacloud.com/nlb"],
        ),
        (
            &["service.beta.kubernetes.io/volcengine-"],
            "the Volcengine cloud-controller-manager",
            &["volcengine.com/clb"],
        ),
    ];

    impl Rule for ClassIgnoresAnnotations {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            let ws = cx.ws;
            for entry in cx
                .model
                .entry_points
                .iter()
                .filter(|e| e.kind == EntryKind::Service)
            {
                let object = &ws.objects[entry.object];
                let Some(class_node) = ws.spec(object).and_then(|s| s.get("loadBalancerClass"))
                else {
                    continue;
                };
                let Some(class) = class_node.as_str().filter(|c| !c.is_empty()) else {
                    continue;
                };
                let annotations = ws.root(object).path(&["metadata", "annotations"]);
                for (prefixes, controller, own) in FAMILIES {
                    if own.contains(&class) {
                        continue;
                    }
                    let keys: Vec<_> = annotations
                        .into_iter()
                        .flat_map(|a| a.entries())
                        .filter(|(k, _)| {
                            k.as_str().is_some_and(|k| {
                                let k = k.to_ascii_lowercase();
                                prefixes.iter().any(|p| k.starts_with(p))
                            })
                        })
                        .map(|(k, _)| k)
                        .collect();
                    if keys.is_empty() {
                        continue;
                    }
                    let names: Vec<String> = keys
                        .iter()
                        .filter_map(|k| k.as_str())
                        .map(|k| format!("`{k}`"))
                        .collect();
                    let mut d = META
                        .diagnostic(
                            Severity::Warning,
                            ws.location(object, class_node.span()),
                            format!(
                                "Service `{}` sets `spec.loadBalancerClass: {class}`, so {controller} ignores it and \
                                 its annotations {} have no effect.",
                                object.name(),
                                names.join(", ")
                            ),
                        )
                        .with_help(format!(
                            "remove `spec.loadBalancerClass` if {controller} should provision the load balancer \
                             (the field is immutable: recreate the Service), or drop the annotations the class's own \
                             controller does not read. See https://kubernetes.io/docs/concepts/services-networking/service/#load-balancer-class"
                        ));
                    for key in keys {
                        d = d.with_related(
                            ws.location(object, key.span()),
                            format!(
                                "{controller} reads this annotation only on Services it handles"
                            ),
                        );
                    }
                    d.object = Some(object.id.clone());
                    d.origin = object.origin.clone();
                    out.push(d);
                }
            }
        }
    }
}
