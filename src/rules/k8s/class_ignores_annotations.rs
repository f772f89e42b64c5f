//! K8S012 load-balancer-class-ignores-annotations: `spec.loadBalancerClass` with the
//! default cloud controller's annotations, which that controller then ignores.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::EntryKind;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::catalog::meta::K8S012 as META;

pub(crate) struct ClassIgnoresAnnotations;

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
            let class_node = cx.views.service(entry.object);
            let Some(class_node) = class_node.and_then(|s| s.load_balancer_class()) else {
                continue;
            };
            let Some(class) = class_node.as_str().filter(|c| !c.is_empty()) else {
                continue;
            };
            let annotations = Annotations::of(ws, object).mapping();
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
                        format!("{controller} reads this annotation only on Services it handles"),
                    );
                }
                d = d.on(object);
                out.push(d);
            }
        }
    }
}
