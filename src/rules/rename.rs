//! Calling the Service by name instead of its load-balancer address, at one call: the name
//! the caller would write, and whether the rename keeps the call working. K8S001 offers it
//! for a call no other rule judges; a rule that judges the call offers it in its own
//! finding (`verdict::with_callers`), so each call gets one verdict and one rewrite.

use crate::diagnostic::{Applicability, Edit, Fix};
use crate::model::{Caller, EntryKind, Evidence, Via};
use crate::rules::Context;
use crate::source::Location;

/// The in-cluster name that reaches the same pods, as this caller writes it: the Service's
/// own name, or the one Service behind an Ingress.
pub(crate) fn in_cluster_host(cx: &Context<'_>, caller: &Caller) -> Option<String> {
    let ws = cx.ws;
    let entry = &cx.model.entry_points[caller.target];
    let workload = &ws.objects[caller.workload];
    match entry.kind {
        // An external load balancer's entry point is the Service it forwards to.
        EntryKind::Service | EntryKind::External => {
            Some(ws.objects[entry.object].service_host_for(workload))
        }
        EntryKind::Ingress => match entry.services.as_slice() {
            [only] => Some(ws.objects[*only].service_host_for(workload)),
            _ => None,
        },
        EntryKind::IstioGateway | EntryKind::Gateway => None,
    }
}

/// Where a call is shown: the address inside the value when it maps to the source bytes,
/// else the whole value.
pub(crate) fn call_location(caller: &Caller) -> Location {
    match caller.address_span {
        Some(span) => Location {
            file: caller.location.file.clone(),
            span,
        },
        None => caller.location.clone(),
    }
}

/// The rewrite at the call, display-only, for a finding reported in `file`: an edit when the
/// call is in that file (a finding's edits go to its own file), else the same change by hand
/// with its place. `None` when no rewrite keeps the call working: a TLS call (the client checks
/// the certificate against the name it dials), an image pull (the node resolves it with its
/// own DNS), a call a controller makes, a host that reaches the Service through a
/// controller or gateway that routes by the host (the Service's name would not be routed), or
/// no single Service behind the entry point.
pub(crate) fn rename(cx: &Context<'_>, caller: &Caller, file: &str) -> Option<Fix> {
    let entry = &cx.model.entry_points[caller.target];
    // Only a call is rewritten: a mention or the app's own public identity (Grafana's
    // `domain`, a redirect URI) must keep the public host.
    // A Secret's value is never shown, so never rewritten in a preview either.
    if caller.evidence != Evidence::Call
        || caller.via.is_secret()
        || !matches!(entry.kind, EntryKind::Service | EntryKind::External)
        || caller.via == Via::ImagePull
        || caller.via.is_implied()
        || link(cx, caller).is_some()
        || tls_call(cx.ws, caller)
    {
        return None;
    }
    let host = in_cluster_host(cx, caller)?;
    let span = caller.address_span?;
    if *caller.location.file != *file {
        let at = call_location(caller);
        return Some(Fix::manual(format!(
            "call `{host}` instead of {} at {}:{}:{}, by hand",
            caller.address, at.file, at.span.start.line, at.span.start.column
        )));
    }
    Some(Fix {
        description: format!("call `{host}` instead of {}", caller.address),
        applicability: Applicability::DisplayOnly,
        edits: vec![Edit {
            span,
            content: host,
        }],
    })
}

/// How the called host reaches the entry point through other objects (an Ingress that an
/// in-cluster controller serves, a route of a gateway), as `lblint model` shows it; `None`
/// for the entry point's own address.
pub(crate) fn link<'m>(cx: &'m Context<'_>, caller: &Caller) -> Option<&'m str> {
    cx.model.entry_points[caller.target]
        .addresses
        .iter()
        .filter(|a| a.matches(&caller.address))
        .find_map(|a| a.link.as_deref())
}

/// Whether the call at the caller's address is TLS: a TLS scheme right before the host, or
/// port 443 right after it. Renaming such a host breaks certificate verification.
pub(crate) fn tls_call(ws: &crate::objects::Workspace, caller: &Caller) -> bool {
    const TLS_SCHEMES: [&str; 7] = [
        "https://",
        "wss://",
        "grpcs://",
        "rediss://",
        "amqps://",
        "ldaps://",
        "tls://",
    ];
    let Some(span) = caller.address_span else {
        return false;
    };
    let Some(file) = ws
        .files
        .iter()
        .find(|f| f.source.path == caller.location.file)
    else {
        return false;
    };
    let text = &file.source.text;
    let (Some(before), Some(after)) = (text.get(..span.start.offset), text.get(span.end.offset..))
    else {
        return false;
    };
    // The last 8 bytes (the longest scheme), from a character boundary.
    let from = (before.len().saturating_sub(8)..before.len())
        .find(|&i| before.is_char_boundary(i))
        .unwrap_or(before.len());
    let tail = before[from..].to_ascii_lowercase();
    TLS_SCHEMES.iter().any(|s| tail.ends_with(s))
        || after
            .strip_prefix(":443")
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The words a verdict adds about a TLS call to `host` (the Service's name), beside the call.
pub(crate) fn tls_aside(host: &str) -> String {
    format!("; TLS, so no rename is offered (`{host}` fails certificate verification unless the certificate names it)")
}

/// The words K8S001's help adds about a TLS call to `host` (the Service's name).
pub(crate) fn tls_caveat(host: &str, address: &str) -> String {
    format!(
        "this call is TLS, and the client checks the certificate against the name it dials: \
         calling `{host}` fails verification unless the certificate also names `{host}` (or the \
         client keeps {address} as its TLS server name), so no rewrite is offered"
    )
}
