//! LBL007 profile-object-missing: the cluster profile names an object (a load balancer's
//! `object` or `targets`, an ingress controller's `service`) that the linted manifests do
//! not hold, so the facts stated for it apply to nothing. Reported at the profile's line.

use crate::catalog::{meta, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::ObjectKey;
use crate::rules::{Context, Rule};

pub(crate) struct ProfileObjectMissing;

impl Rule for ProfileObjectMissing {
    fn meta(&self) -> &'static RuleMeta {
        &meta::LBL007
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (keys, key, what, imported) in named_objects(cx) {
            if cx.ws.objects.iter().any(|o| o.is(key)) {
                continue;
            }
            // An imported entry describes the whole cluster: its object is usually another
            // team's. Only the same object left to apply time's namespace is worth a word.
            if imported && unplaced(cx, key).is_none() {
                continue;
            }
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let Some(at) = cx.profile.fact_location(&keys) else {
                continue;
            };
            let field = keys
                .iter()
                .map(|k| match k.parse::<usize>() {
                    Ok(i) => format!("[{i}]"),
                    Err(_) => format!(".{k}"),
                })
                .collect::<String>();
            out.push(
                meta::LBL007
                    .diagnostic(
                        Severity::Warning,
                        at,
                        format!(
                            "The cluster profile names `{key}` ({}), which is not in the linted \
                             manifests: {what} apply to nothing.",
                            field.trim_start_matches('.')
                        ),
                    )
                    .with_help(help(cx, key)),
            );
        }
    }
}

/// Every object key the profile names, with the path of its field (items by index) and
/// what the profile states for it.
fn named_objects<'p>(cx: &'p Context<'_>) -> Vec<(Vec<String>, &'p ObjectKey, &'static str, bool)> {
    let path = |list: &str, i: usize, field: &str| -> Vec<String> {
        ["spec", list, &i.to_string(), field]
            .map(str::to_owned)
            .to_vec()
    };
    let mut named = Vec::new();
    for (i, lb) in cx.profile.load_balancers().enumerate() {
        if let Some(key) = &lb.object {
            named.push((
                path("loadBalancers", i, "object"),
                key,
                "the addresses and network stated for it",
                lb.imported,
            ));
        }
        if let Some(key) = &lb.targets {
            named.push((
                path("loadBalancers", i, "targets"),
                key,
                "the load balancer stated in front of it and its addresses",
                lb.imported,
            ));
        }
    }
    for (i, link) in cx
        .profile
        .spec
        .ingress_controllers
        .iter()
        .flatten()
        .enumerate()
    {
        named.push((
            path("ingressControllers", i, "service"),
            &link.service,
            "the Ingresses of its class it should front",
            link.imported,
        ));
    }
    named
}

/// The help: the object of the manifests the key most likely meant (a typo, or the same
/// kind and name in another namespace), else how to write the key.
/// The object of that kind and name whose manifest leaves its namespace to apply time
/// (`kubectl apply -n`), in another namespace than the key's.
fn unplaced<'w>(cx: &Context<'w>, key: &ObjectKey) -> Option<&'w crate::objects::Object> {
    cx.ws.objects.iter().find(|o| {
        o.kind() == key.kind
            && o.name() == key.name
            && o.namespace() != key.namespace
            && cx.ws.written_namespace_node(o).is_none()
    })
}

fn help(cx: &Context<'_>, key: &ObjectKey) -> String {
    if let Some(object) = unplaced(cx, key) {
        return format!(
            "`{}/{}` has no `metadata.namespace`, so it lands where it is applied: if it is applied \
             with `kubectl -n {ns}`, lint with `--namespace {ns}` or set `namespace: {ns}` in lblint.yaml",
            object.kind(),
            object.name(),
            ns = key.namespace
        );
    }
    let written = key.to_string();
    let same_kind: Vec<String> = cx
        .ws
        .objects
        .iter()
        .filter(|o| o.kind() == key.kind)
        .map(|o| format!("{}/{}/{}", o.kind(), o.namespace(), o.name()))
        .collect();
    let meant = crate::settings::suggest::did_you_mean(&written, &same_kind).or_else(|| {
        let name = format!("/{}", key.name);
        same_kind
            .iter()
            .map(String::as_str)
            .find(|k| k.ends_with(&name))
    });
    let how = "write the key as the manifest's `metadata` spells it (`Kind/namespace/name`), or \
               lint the manifests that hold the object too";
    match meant {
        Some(meant) => format!("did you mean `{meant}`? Otherwise {how}"),
        None => how.to_owned(),
    }
}
