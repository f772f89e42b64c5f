//! K8S001's finding on a call whose host several controller-served load balancers serve
//! equally (`model::ambiguous`): reported once, naming the candidates and the profile field
//! that decides, and charged to none of them.

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::ambiguous::Ambiguous;
use crate::rules::rename::call_location;
use crate::rules::Context;

use crate::catalog::meta::K8S001 as META;

/// A warning: the call is real, and which load balancer it reaches hangs on a profile fact
/// (DEVELOPERS.md, Severity), `spec.ingressControllers`.
pub(super) fn diagnostic(cx: &Context<'_>, ambiguous: &Ambiguous) -> Diagnostic {
    let ws = cx.ws;
    let caller = &ambiguous.caller;
    let workload = &ws.objects[caller.workload];
    let names: Vec<String> = ambiguous
        .candidates
        .iter()
        .map(|&c| ws.objects[cx.model.entry_points[c].object].id.to_string())
        .collect();
    let (last, rest) = names
        .split_last()
        .map_or((String::new(), &[][..]), |(l, r)| (l.clone(), r));
    let mut d = META
        .diagnostic(
            Severity::Warning,
            call_location(caller),
            format!(
                "{} calls {}, a host that {} and {last} {} serve: the profile's `spec.ingressControllers` says which load balancer it reaches.",
                workload.id,
                caller.address,
                rest.join(", "),
                if rest.len() == 1 { "both" } else { "all" }
            ),
        )
        .with_help(
            "which of these load balancers the call reaches depends on the controller the cluster runs \
             for the Ingress's class, which these manifests do not settle; until the profile names the \
             Service in front of it (`spec.ingressControllers: [{{class: <class>, service: \
             Service/<namespace>/<name>}}]`), no load balancer is charged with the call, and then the \
             provider rules judge it against that one. Calling the backend Service behind the Ingress \
             rule by its in-cluster name instead leaves both the controller and the load balancer out \
             of the path",
        )
        .on(workload);
    for &candidate in &ambiguous.candidates {
        let entry = &cx.model.entry_points[candidate];
        let service = &ws.objects[entry.object];
        let link = entry
            .addresses
            .iter()
            .filter(|a| a.matches(&caller.address))
            .find_map(|a| a.link.as_deref())
            .unwrap_or("an in-cluster controller");
        d = d.with_related(
            ws.location(service, ws.name_node(service).span()),
            format!(
                "{} may get this call: the host reaches it through {link}",
                service.id
            ),
        );
    }
    d
}
