//! The model for people: `lblint model` prints entry points, addresses, backends,
//! callers and placements, as text or JSON.

use serde_json::{json, Value};

use crate::objects::{ObjectId, Workspace};
use crate::source::Location;

use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit, Model, Via};
use crate::views::Views;

/// The Service a Gateway entry point's implementation creates, when lblint infers it.
fn inferred_service<'w>(
    ws: &'w Workspace,
    views: &Views<'w>,
    entry: &EntryPoint,
) -> Option<crate::model::implementation::InferredService<'w>> {
    if entry.kind != EntryKind::Gateway {
        return None;
    }
    crate::model::implementation::inferred_service(ws, views, views.gateway(entry.object)?)
}

fn at(location: &Location) -> String {
    format!(
        "{}:{}:{}",
        location.file, location.span.start.line, location.span.start.column
    )
}

fn location_json(location: &Location) -> Value {
    json!({"file": &*location.file, "line": location.span.start.line, "column": location.span.start.column})
}

fn placement_json(model: &Model, workload: ObjectId) -> Value {
    match model.placement(workload).and_then(|p| p.pools.as_ref()) {
        None => Value::Null,
        Some(fits) => Value::Object(
            fits.iter()
                .zip(model.pools())
                .enumerate()
                .map(|(i, (fit, pool))| {
                    (
                        pool.name.clone().unwrap_or_else(|| format!("pool-{i}")),
                        json!(fit),
                    )
                })
                .collect(),
        ),
    }
}

fn placement_text(model: &Model, workload: ObjectId) -> String {
    match model.placement(workload).and_then(|p| p.pools.as_ref()) {
        None => "node pools unknown (no spec.nodePools in the profile)".to_string(),
        Some(fits) => {
            let names: Vec<String> = fits
                .iter()
                .zip(model.pools())
                .enumerate()
                .filter(|(_, (fit, _))| **fit != Fit::No)
                .map(|(i, (fit, pool))| {
                    let name = pool.name.clone().unwrap_or_else(|| format!("pool-{i}"));
                    if *fit == Fit::Unknown {
                        format!("{name}?")
                    } else {
                        name
                    }
                })
                .collect();
            if names.is_empty() {
                "no node pool fits".to_string()
            } else {
                format!("pools {}", names.join(", "))
            }
        }
    }
}

/// The callers of an entry point as the model found them, identities too (the rules'
/// `callers_of` leaves those out), and the calls it shares equally with other load
/// balancers (`model::ambiguous`): the evidence view shows every verdict and its reason.
fn every_caller(model: &Model, entry: EntryId) -> impl Iterator<Item = &Caller> {
    let shared = model
        .ambiguous
        .iter()
        .filter(move |a| a.candidates.contains(&entry))
        .map(|a| &a.caller);
    model
        .callers
        .iter()
        .filter(move |c| c.target == entry)
        .chain(shared)
}

pub(crate) fn to_json(ws: &Workspace, views: &Views<'_>, model: &Model) -> Value {
    let object_id = |i: ObjectId| json!(*ws.objects[i].id);
    let entry_points: Vec<Value> = model.all_entries()
        .map(|(index, e)| {
            let object = &ws.objects[e.object];
            let mut entry = json!({
                "object": object_id(e.object),
                "file": &*ws.files[object.file].source.path,
                "kind": e.kind,
                "layer": e.layer,
                "provider": e.provider.map(|p| p.as_str()),
                "network": e.network,
                "class": e.class,
                "addresses": e.addresses.iter().map(|a| json!({
                    "value": a.value, "source": a.source, "link": a.link,
                    "location": a.location.as_ref().map(location_json),
                })).collect::<Vec<_>>(),
                "services": e.services.iter().map(|&s| object_id(s)).collect::<Vec<_>>(),
                "backends": e.backends.iter().map(|&b| json!({
                    "object": object_id(b), "pools": placement_json(model, b),
                })).collect::<Vec<_>>(),
                "callers": every_caller(model, index).map(|c| json!({
                    "object": object_id(c.workload), "address": c.address, "via": c.via,
                    "alias": c.alias.map(object_id),
                    "evidence": c.evidence, "reason": c.reason,
                    "hostNetwork": c.from_node && c.via != Via::ImagePull, "fromNode": c.from_node,
                    "location": location_json(&c.location), "pools": placement_json(model, c.workload),
                })).collect::<Vec<_>>(),
            });
            // Gateways only: the Service their implementation creates, as lblint infers it.
            if let (Some(service), Some(map)) = (inferred_service(ws, views, e), entry.as_object_mut()) {
                map.insert("inferredService".to_string(), json!({
                    "implementation": service.implementation.label(),
                    "name": service.name,
                    "namespace": service.namespace,
                    "annotationsFrom": service.annotations_from,
                    "loadBalancer": service.load_balancer,
                    "inferredFrom": service.told_by,
                }));
            }
            entry
        })
        .collect();
    let safe_calls: Vec<Value> = model
        .safe_calls
        .iter()
        .map(|s| {
            json!({
                "object": object_id(s.workload), "service": object_id(s.service), "host": s.host,
                "via": s.via, "location": location_json(&s.location),
            })
        })
        .collect();
    json!({"version": 1, "entryPoints": entry_points, "safeCalls": safe_calls})
}

pub(crate) fn to_human(ws: &Workspace, views: &Views<'_>, model: &Model) -> String {
    let mut out = String::new();
    if model.entry_points.is_empty() {
        out.push_str(
            "No load-balancer entry points (LoadBalancer Services, Ingresses, Gateways) found.\n",
        );
    }
    for (index, e) in model.all_entries() {
        let object = &ws.objects[e.object];
        let root = ws.root(object);
        let provider = e.provider.map_or("provider unknown", |p| p.as_str());
        let external = if e.kind == EntryKind::External {
            "external load balancer (profile) in front of "
        } else {
            ""
        };
        out.push_str(&format!(
            "{external}{} ({:?}, {}, {}{})  {}\n",
            object.id,
            e.layer,
            provider,
            match e.network {
                crate::model::Network::Private => "private",
                crate::model::Network::Public => "public",
                crate::model::Network::Unknown => "network unknown",
            },
            e.class
                .as_ref()
                .map(|c| format!(", class {c}"))
                .unwrap_or_default(),
            at(&ws.location(object, root.span())),
        ));
        if let Some(service) = inferred_service(ws, views, e) {
            out.push_str(&format!(
                "  load balancer: {}; annotations from the Gateway's {}\n",
                service.describe(),
                service.annotations_from
            ));
        }
        if e.addresses.is_empty() {
            out.push_str(
                "  addresses: none known (add status, or spec.loadBalancers in the profile)\n",
            );
        }
        for a in &e.addresses {
            out.push_str(&format!("  address {} ({:?})\n", a.value, a.source));
            if let Some(link) = &a.link {
                out.push_str(&format!("    through {link}\n"));
            }
        }
        for &s in &e.services {
            out.push_str(&format!("  service {}\n", ws.objects[s].id));
        }
        if e.backends.is_empty() {
            out.push_str("  backends: none in these manifests\n");
        }
        for &b in e.backends.iter() {
            out.push_str(&format!(
                "  backend {}  [{}]\n",
                ws.objects[b].id,
                placement_text(model, b)
            ));
        }
        for c in every_caller(model, index) {
            out.push_str(&format!(
                "  caller {} -> {}{} via {}  {}  [{}]\n    {}: {}\n",
                ws.objects[c.workload].id,
                c.address,
                c.alias
                    .map(|a| format!(" (through {})", ws.objects[a].id))
                    .unwrap_or_default(),
                c.via,
                at(&c.location),
                placement_text(model, c.workload),
                c.evidence.as_str(),
                c.reason
            ));
        }
    }
    for s in &model.safe_calls {
        out.push_str(&format!(
            "safe call {} -> {} ({}) via {}  {}\n",
            ws.objects[s.workload].id,
            s.host,
            ws.objects[s.service].id,
            s.via,
            at(&s.location)
        ));
    }
    out
}
