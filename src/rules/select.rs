//! What provider rules select, shared by several providers and families: the LoadBalancer
//! Services a provider's controller handles, and annotation values compared as written.

use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::Context;

/// LoadBalancer Services that `provider`'s controller handles: annotated for it (or on its
/// profile), and not claimed by another controller's `loadBalancerClass` (K8S012 says so).
pub(crate) fn services_of<'c>(
    cx: &'c Context<'_>,
    provider: Provider,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entries()
        .filter(move |(_, e)| {
            e.kind == EntryKind::Service
                && e.provider == Some(provider)
                && e.class.as_deref().is_none_or(str::is_empty)
        })
        .filter(|(_, e)| {
            cx.views
                .service(e.object)
                .is_some_and(|s| s.is_load_balancer())
        })
        .map(|(i, e)| (i, e, &cx.ws.objects[e.object]))
}

/// [`services_of`], with the Gateway API Gateways whose implementation creates a
/// LoadBalancer Service for the provider's controller (`model::implementation`: its name and
/// annotations inferred from the Gateway), in entry order.
pub(crate) fn load_balancers_of<'c>(
    cx: &'c Context<'_>,
    provider: Provider,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entries()
        .filter(move |(_, e)| e.provider == Some(provider))
        .filter(|(_, e)| match e.kind {
            EntryKind::Service => {
                e.class.as_deref().is_none_or(str::is_empty)
                    && cx
                        .views
                        .service(e.object)
                        .is_some_and(|s| s.is_load_balancer())
            }
            EntryKind::Gateway => cx
                .inferred_service(&cx.ws.objects[e.object])
                .is_some_and(|s| s.load_balancer),
            _ => false,
        })
        .map(|(i, e)| (i, e, &cx.ws.objects[e.object]))
}
