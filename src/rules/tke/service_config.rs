//! TKE007–TKE011: TkeServiceConfig reference integrity, for Services
//! (`service.cloud.tencent.com/tke-service-config[-auto]`) and Ingresses
//! (`ingress.cloud.tencent.com/tke-service-config[-auto]`).
//!
//! Facts (provider-facts §1.4, §1.5; Tencent docs 457/36834 and 457/37015):
//! - the config must be in the same namespace as the Service or Ingress;
//! - the manual and the auto annotation cannot be used together;
//! - a manual name cannot end with `-auto-service-config` or `-auto-ingress-config`;
//! - a listener with no matching section is not modified (and a section that matches no
//!   listener therefore does nothing);
//! - the auto config `<name>-auto-service-config` / `<name>-auto-ingress-config` is created
//!   (and deleted) by the controller.
//!
//! [`Index`] maps every TkeServiceConfig reference of the set at once, for the integrity
//! checks; [`super::tke_service_config`] answers one object's question.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::objects::{Object, Workspace};
use crate::profile::Provider;
use crate::rules::{Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

use super::{
    ingress_listeners, INGRESS_CONFIG, INGRESS_CONFIG_AUTO, INGRESS_CONFIG_DOC, SERVICE_CONFIG,
    SERVICE_CONFIG_AUTO, SERVICE_CONFIG_DOC,
};

pub const SERVICE_AUTO_SUFFIX: &str = "-auto-service-config";
pub const INGRESS_AUTO_SUFFIX: &str = "-auto-ingress-config";

pub static MISSING_META: RuleMeta = RuleMeta {
    id: "TKE007",
    name: "tke-service-config-missing",
    default_severity: Severity::Note,
    providers: &["tke"],
    summary: "The TkeServiceConfig a Service or Ingress names is not in its namespace in these manifests.",
    doc: include_str!("../../../rules/TKE007.md"),
};

pub static BOTH_META: RuleMeta = RuleMeta {
    id: "TKE008",
    name: "tke-service-config-manual-and-auto",
    default_severity: Severity::Error,
    providers: &["tke"],
    summary: "A Service or Ingress sets both the manual and the auto TkeServiceConfig annotation.",
    doc: include_str!("../../../rules/TKE008.md"),
};

pub static RESERVED_META: RuleMeta = RuleMeta {
    id: "TKE009",
    name: "tke-service-config-reserved-name",
    default_severity: Severity::Error,
    providers: &["tke"],
    summary:
        "A manually referenced TkeServiceConfig name ends with a suffix reserved for auto configs.",
    doc: include_str!("../../../rules/TKE009.md"),
};

pub static UNMATCHED_META: RuleMeta = RuleMeta {
    id: "TKE010",
    name: "tke-service-config-unmatched-listener",
    default_severity: Severity::Warning,
    providers: &["tke"],
    summary: "A TkeServiceConfig listener section matches no port of the Service or listener of the Ingress that uses it.",
    doc: include_str!("../../../rules/TKE010.md"),
};

pub static UNUSED_META: RuleMeta = RuleMeta {
    id: "TKE011",
    name: "tke-service-config-unused",
    default_severity: Severity::Note,
    providers: &["tke"],
    summary: "A TkeServiceConfig that no Service or Ingress in these manifests uses.",
    doc: include_str!("../../../rules/TKE011.md"),
};

/// Which kind of object refers to a TkeServiceConfig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Service,
    Ingress,
}

impl Owner {
    pub fn of(object: &Object) -> Option<Owner> {
        match (object.kind(), object.group()) {
            ("Service", "") => Some(Owner::Service),
            ("Ingress", "networking.k8s.io" | "extensions") => Some(Owner::Ingress),
            _ => None,
        }
    }

    pub fn manual_key(self) -> &'static str {
        match self {
            Owner::Service => SERVICE_CONFIG,
            Owner::Ingress => INGRESS_CONFIG,
        }
    }

    pub fn auto_key(self) -> &'static str {
        match self {
            Owner::Service => SERVICE_CONFIG_AUTO,
            Owner::Ingress => INGRESS_CONFIG_AUTO,
        }
    }

    pub fn auto_suffix(self) -> &'static str {
        match self {
            Owner::Service => SERVICE_AUTO_SUFFIX,
            Owner::Ingress => INGRESS_AUTO_SUFFIX,
        }
    }

    /// The `spec.loadBalancer` list that configures this kind's listeners.
    pub fn section(self) -> &'static str {
        match self {
            Owner::Service => "l4Listeners",
            Owner::Ingress => "l7Listeners",
        }
    }

    pub fn doc(self) -> &'static str {
        match self {
            Owner::Service => SERVICE_CONFIG_DOC,
            Owner::Ingress => INGRESS_CONFIG_DOC,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Owner::Service => "Service",
            Owner::Ingress => "Ingress",
        }
    }
}

/// A Service or Ingress that carries a TkeServiceConfig annotation.
pub struct Reference<'w> {
    /// Index into [`Workspace::objects`].
    pub object: usize,
    pub owner: Owner,
    /// The manual annotation (key, value), whatever its value.
    pub manual: Option<(NodeRef<'w>, NodeRef<'w>)>,
    /// The auto annotation (key, value), only when its value is `"true"`.
    pub auto: Option<(NodeRef<'w>, NodeRef<'w>)>,
}

impl Reference<'_> {
    /// The manual name, if set and not empty.
    pub fn manual_name(&self) -> Option<&str> {
        self.manual
            .and_then(|(_, v)| v.as_str())
            .map(str::trim)
            .filter(|n| !n.is_empty())
    }

    /// The config the controller creates for the auto annotation.
    pub fn auto_name(&self, ws: &Workspace) -> Option<String> {
        self.auto.map(|_| {
            format!(
                "{}{}",
                ws.objects[self.object].name(),
                self.owner.auto_suffix()
            )
        })
    }

    /// Every config name this object may use (manual first).
    pub fn names(&self, ws: &Workspace) -> Vec<String> {
        self.manual_name()
            .map(str::to_string)
            .into_iter()
            .chain(self.auto_name(ws))
            .collect()
    }
}

/// Every Service and Ingress with a TkeServiceConfig annotation, in object order.
pub fn references(ws: &Workspace) -> Vec<Reference<'_>> {
    ws.objects
        .iter()
        .enumerate()
        .filter_map(|(index, object)| {
            let owner = Owner::of(object)?;
            let manual = ws.annotation(object, owner.manual_key());
            let auto = ws
                .annotation(object, owner.auto_key())
                .filter(|(_, v)| v.as_str().is_some_and(|v| v.trim() == "true"));
            (manual.is_some() || auto.is_some()).then_some(Reference {
                object: index,
                owner,
                manual,
                auto,
            })
        })
        .collect()
}

pub fn is_config(object: &Object) -> bool {
    object.kind() == "TkeServiceConfig" && object.group() == "cloud.tencent.com"
}

/// Both objects land in the same namespace. An unset namespace is the apply-time
/// namespace, which may be either, so it matches any.
pub fn same_namespace(a: &Object, b: &Object) -> bool {
    a.id.namespace.is_none() || b.id.namespace.is_none() || a.namespace() == b.namespace()
}

/// References and configs of a run, indexed once per rule (a rule never scans all
/// objects per reference).
pub struct Index<'w> {
    ws: &'w Workspace,
    /// Every Service and Ingress with a TkeServiceConfig annotation, in object order.
    pub references: Vec<Reference<'w>>,
    /// Config indices by `metadata.name`, in object order.
    configs: HashMap<&'w str, Vec<usize>>,
    /// Positions in `references` by the config each uses.
    users: HashMap<usize, Vec<usize>>,
}

impl<'w> Index<'w> {
    pub fn new(ws: &'w Workspace) -> Index<'w> {
        let mut configs: HashMap<&'w str, Vec<usize>> = HashMap::new();
        for (index, object) in ws.objects.iter().enumerate() {
            if is_config(object) {
                configs.entry(object.name()).or_default().push(index);
            }
        }
        let mut index = Index {
            ws,
            references: references(ws),
            configs,
            users: HashMap::new(),
        };
        for position in 0..index.references.len() {
            if let Some(config) = index.config_of(&index.references[position]) {
                index.users.entry(config).or_default().push(position);
            }
        }
        index
    }

    /// Configs named `name`, as (index, object).
    pub fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = (usize, &'w Object)> + 's {
        let ws = self.ws;
        self.configs
            .get(name)
            .into_iter()
            .flatten()
            .map(move |&i| (i, &ws.objects[i]))
    }

    /// The config a reference uses (manual name, else auto name), in its namespace.
    pub fn config_of(&self, reference: &Reference<'_>) -> Option<usize> {
        let owner = &self.ws.objects[reference.object];
        let name = reference
            .manual_name()
            .map(str::to_string)
            .or_else(|| reference.auto_name(self.ws))?;
        self.named(&name)
            .find(|(_, c)| same_namespace(owner, c))
            .map(|(i, _)| i)
    }

    /// The references that use a config.
    pub fn users(&self, config: usize) -> impl Iterator<Item = &Reference<'w>> + '_ {
        self.users
            .get(&config)
            .into_iter()
            .flatten()
            .map(|&p| &self.references[p])
    }

    /// Related locations for the objects that use a config: the manual annotation's
    /// value, or the auto annotation's key.
    pub fn user_locations(&self, config: usize) -> Vec<(Location, String)> {
        let ws = self.ws;
        self.users(config)
            .filter_map(|r| {
                let object = &ws.objects[r.object];
                let node = match (r.manual_name(), r.manual, r.auto) {
                    (Some(_), Some((_, value)), _) => value,
                    (_, _, Some((key, _))) => key,
                    _ => return None,
                };
                Some((
                    ws.location(object, node.span()),
                    format!(
                        "{} `{}` uses this TkeServiceConfig",
                        r.owner.label(),
                        object.name()
                    ),
                ))
            })
            .collect()
    }
}

/// Is this Ingress handled by the TKE CLB controller (class `qcloud`, or none)?
fn tke_clb_ingress(ws: &Workspace, ingress: &Object) -> bool {
    matches!(
        crate::model::entry::ingress_class(ws, ingress),
        None | Some("qcloud")
    )
}

/// A Service's ports as (protocol, port); the protocol defaults to TCP.
fn service_ports(ws: &Workspace, service: &Object) -> Vec<(String, i64)> {
    ws.spec(service)
        .and_then(|s| s.get("ports"))
        .into_iter()
        .flat_map(NodeRef::items)
        .filter_map(|p| {
            let port = p.get("port")?.as_i64()?;
            let protocol = p
                .get("protocol")
                .and_then(|v| v.as_str())
                .unwrap_or("TCP")
                .to_ascii_uppercase();
            Some((protocol, port))
        })
        .collect()
}

fn runs(cx: &Context<'_>) -> bool {
    matches!(cx.profile.provider(), Provider::Tke | Provider::Generic)
}

fn with_object(mut d: Diagnostic, object: &Object) -> Diagnostic {
    d.object = Some(object.id.clone());
    d.origin = object.origin.clone();
    d
}

fn name_value<'w>(ws: &'w Workspace, object: &Object) -> Option<NodeRef<'w>> {
    ws.root(object).path(&["metadata", "name"])
}

fn namespace_note(object: &Object) -> String {
    match &object.id.namespace {
        Some(ns) => format!("namespace `{ns}`"),
        None => "its namespace".to_string(),
    }
}

pub struct MissingConfig;

impl Rule for MissingConfig {
    fn meta(&self) -> &'static RuleMeta {
        &MISSING_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        if !runs(cx) {
            return;
        }
        let ws = cx.ws;
        let index = Index::new(ws);
        for reference in &index.references {
            // The controller creates auto configs: a missing one is expected.
            let Some(name) = reference.manual_name() else {
                continue;
            };
            let Some((_, value)) = reference.manual else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let all: Vec<(usize, &Object)> = index.named(name).collect();
            if all.iter().any(|(_, c)| same_namespace(owner, c)) {
                continue;
            }
            let location = ws.location(owner, value.span());
            let doc = reference.owner.doc();
            let ns = owner.namespace();
            let d = if all.is_empty() {
                MISSING_META
                    .diagnostic(
                        Severity::Note,
                        location,
                        format!(
                            "TkeServiceConfig `{name}` named by {kind} `{}` is not in these manifests. \
                             It may be created elsewhere; it must exist in namespace `{ns}`.",
                            owner.name()
                        ),
                    )
                    .with_help(format!(
                        "lint the TkeServiceConfig `{name}` (namespace `{ns}`) together with this {kind}, or check \
                         that it exists in the cluster; see {doc}"
                    ))
            } else {
                let others: Vec<&str> = all.iter().map(|(_, c)| c.namespace()).collect();
                let mut d = MISSING_META
                    .diagnostic(
                        Severity::Error,
                        location,
                        format!(
                            "TkeServiceConfig `{name}` named by {kind} `{}` is in namespace `{}`, not `{ns}`: \
                             TKE reads it only from the {kind}'s own namespace.",
                            owner.name(),
                            others.join("`, `")
                        ),
                    )
                    .with_help(format!(
                        "set `metadata.namespace: {ns}` on TkeServiceConfig `{name}` (or create a copy in \
                         namespace `{ns}`); see {doc}"
                    ));
                for (_, config) in &all {
                    let span = ws
                        .root(config)
                        .path(&["metadata", "namespace"])
                        .or_else(|| name_value(ws, config))
                        .map_or_else(|| ws.root(config).span(), |n| n.span());
                    d = d.with_related(
                        ws.location(config, span),
                        format!(
                            "TkeServiceConfig `{name}` is in namespace `{}`",
                            config.namespace()
                        ),
                    );
                }
                d
            };
            out.push(with_object(d, owner));
        }
    }
}

pub struct ManualAndAuto;

impl Rule for ManualAndAuto {
    fn meta(&self) -> &'static RuleMeta {
        &BOTH_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        if !runs(cx) {
            return;
        }
        let ws = cx.ws;
        for reference in references(ws) {
            let (Some((manual_key, _)), Some((auto_key, _))) = (reference.manual, reference.auto)
            else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let auto_name = reference.auto_name(ws).unwrap_or_default();
            let manual = reference.owner.manual_key();
            let auto = reference.owner.auto_key();
            let d = BOTH_META
                .diagnostic(
                    Severity::Error,
                    ws.location(owner, auto_key.span()),
                    format!(
                        "{kind} `{}` sets both `{manual}` and `{auto}: \"true\"`; TKE does not allow the two together.",
                        owner.name()
                    ),
                )
                .with_related(
                    ws.location(owner, manual_key.span()),
                    "the manual TkeServiceConfig reference",
                )
                .with_help(format!(
                    "keep one: remove `{auto}` to use the TkeServiceConfig you wrote, or remove `{manual}` to let \
                     the controller create and manage `{auto_name}`; see {}",
                    reference.owner.doc()
                ));
            out.push(with_object(d, owner));
        }
    }
}

pub struct ReservedName;

impl Rule for ReservedName {
    fn meta(&self) -> &'static RuleMeta {
        &RESERVED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        if !runs(cx) {
            return;
        }
        let ws = cx.ws;
        let index = Index::new(ws);
        for reference in &index.references {
            let (Some(name), Some((_, value))) = (reference.manual_name(), reference.manual) else {
                continue;
            };
            let Some(suffix) = [SERVICE_AUTO_SUFFIX, INGRESS_AUTO_SUFFIX]
                .into_iter()
                .find(|s| name.ends_with(s))
            else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let stem = name.strip_suffix(suffix).unwrap_or(name);
            let stem = if stem.is_empty() { owner.name() } else { stem };
            let mut d = RESERVED_META
                .diagnostic(
                    Severity::Error,
                    ws.location(owner, value.span()),
                    format!(
                        "{kind} `{}` names TkeServiceConfig `{name}` manually, but names ending in `{suffix}` \
                         are reserved for the configs the controller creates.",
                        owner.name()
                    ),
                )
                .with_help(format!(
                    "rename the TkeServiceConfig and this value to a name without the suffix (for example \
                     `{stem}-config`), or replace the annotation with `{}: \"true\"` to let the controller \
                     manage `{}{}`; see {}",
                    reference.owner.auto_key(),
                    owner.name(),
                    reference.owner.auto_suffix(),
                    reference.owner.doc()
                ));
            for (_, config) in index.named(name).filter(|(_, c)| same_namespace(owner, c)) {
                if let Some(n) = name_value(ws, config) {
                    d = d.with_related(
                        ws.location(config, n.span()),
                        "the TkeServiceConfig to rename",
                    );
                }
            }
            out.push(with_object(d, owner));
        }
    }
}

pub struct UnmatchedListener;

impl Rule for UnmatchedListener {
    fn meta(&self) -> &'static RuleMeta {
        &UNMATCHED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        if !runs(cx) {
            return;
        }
        let ws = cx.ws;
        let index = Index::new(ws);
        for (config_index, config) in ws.objects.iter().enumerate() {
            if !is_config(config) {
                continue;
            }
            for kind in [Owner::Service, Owner::Ingress] {
                let users: Vec<&Reference<'_>> = index
                    .users(config_index)
                    .filter(|r| r.owner == kind)
                    .collect();
                if users.is_empty() {
                    continue;
                }
                // The listeners of every user; a user whose listeners are unknown settles nothing.
                let mut listeners: Vec<(String, i64)> = Vec::new();
                let mut known = true;
                for user in &users {
                    let object = &ws.objects[user.object];
                    match kind {
                        Owner::Service => {
                            let ports = service_ports(ws, object);
                            known &= !ports.is_empty();
                            listeners.extend(ports);
                        }
                        Owner::Ingress => {
                            known &= tke_clb_ingress(ws, object);
                            listeners.extend(
                                ingress_listeners(ws, object)
                                    .into_iter()
                                    .map(|(p, n)| (p.to_string(), n)),
                            );
                        }
                    }
                }
                if !known {
                    continue;
                }
                listeners.sort();
                listeners.dedup();
                for section in super::listeners(ws, config, kind.section()) {
                    let Some((port_key, port_value)) = section.get_entry("port") else {
                        continue;
                    };
                    let (Some(port), Some(protocol)) = (
                        port_value.as_i64(),
                        section.get("protocol").and_then(|p| p.as_str()),
                    ) else {
                        continue;
                    };
                    let protocol = protocol.to_ascii_uppercase();
                    if listeners.iter().any(|(p, n)| *p == protocol && *n == port) {
                        continue;
                    }
                    out.push(unmatched(
                        ws, config, kind, &users, &listeners, port_key, &protocol, port,
                    ));
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn unmatched(
    ws: &Workspace,
    config: &Object,
    kind: Owner,
    users: &[&Reference<'_>],
    listeners: &[(String, i64)],
    port_key: NodeRef<'_>,
    protocol: &str,
    port: i64,
) -> Diagnostic {
    let names: Vec<String> = users
        .iter()
        .map(|u| format!("`{}`", ws.objects[u.object].name()))
        .collect();
    let available: Vec<String> = listeners.iter().map(|(p, n)| format!("{p}:{n}")).collect();
    let what = match kind {
        Owner::Service => "port",
        Owner::Ingress => "listener",
    };
    let mut d = UNMATCHED_META
        .diagnostic(
            Severity::Warning,
            ws.location(config, port_key.span()),
            format!(
                "`{}` entry {protocol}:{port} of TkeServiceConfig `{}` matches no {what} of {} {} ({}), so it \
                 configures nothing: TKE matches sections to listeners by protocol and port and leaves the others unmodified.",
                kind.section(),
                config.name(),
                kind.label(),
                names.join(", "),
                available.join(", ")
            ),
        )
        .with_help(format!(
            "set `protocol` and `port` to one of {} or remove the entry; see {}",
            available.join(", "),
            kind.doc()
        ));
    for user in users {
        let object = &ws.objects[user.object];
        let span = match kind {
            Owner::Service => ws
                .spec(object)
                .and_then(|s| s.get_entry("ports"))
                .map(|(k, _)| k.span()),
            Owner::Ingress => ws
                .spec(object)
                .and_then(|s| s.get_entry("tls").or_else(|| s.get_entry("rules")))
                .map(|(k, _)| k.span()),
        };
        let span = span
            .or_else(|| user.manual.or(user.auto).map(|(k, _)| k.span()))
            .unwrap_or_else(|| ws.root(object).span());
        let message = match kind {
            Owner::Service => format!("the ports of Service `{}`", object.name()),
            Owner::Ingress => format!(
                "Ingress `{}` gets the CLB listeners {}",
                object.name(),
                ingress_listeners(ws, object)
                    .iter()
                    .map(|(p, n)| format!("{p}:{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        d = d.with_related(ws.location(object, span), message);
        if let Some((key, value)) = user.manual.or(user.auto) {
            let node = if user.manual.is_some() { value } else { key };
            if node.span() != span {
                d = d.with_related(
                    ws.location(object, node.span()),
                    format!(
                        "{} `{}` uses this TkeServiceConfig",
                        kind.label(),
                        object.name()
                    ),
                );
            }
        }
    }
    with_object(d, config)
}

pub struct UnusedConfig;

impl Rule for UnusedConfig {
    fn meta(&self) -> &'static RuleMeta {
        &UNUSED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        if !runs(cx) {
            return;
        }
        let ws = cx.ws;
        // Names used from any namespace: a reference from another namespace is TKE007's
        // error, not an unused config.
        let used: HashSet<String> = references(ws).iter().flat_map(|r| r.names(ws)).collect();
        for config in ws.objects.iter().filter(|o| is_config(o)) {
            if used.contains(config.name()) {
                continue;
            }
            let Some(name) = name_value(ws, config) else {
                continue;
            };
            let owner_hint = [
                (SERVICE_AUTO_SUFFIX, Owner::Service),
                (INGRESS_AUTO_SUFFIX, Owner::Ingress),
            ]
            .into_iter()
            .find_map(|(suffix, owner)| {
                config
                    .name()
                    .strip_suffix(suffix)
                    .filter(|s| !s.is_empty())
                    .map(|s| (s, owner))
            });
            let message = match owner_hint {
                Some((stem, owner)) => format!(
                    "TkeServiceConfig `{}` is the auto config of {} `{stem}`, but no {} `{stem}` with `{}: \"true\"` \
                     is in {} in these manifests.",
                    config.name(),
                    owner.label(),
                    owner.label(),
                    owner.auto_key(),
                    namespace_note(config)
                ),
                None => format!(
                    "No Service or Ingress in these manifests uses TkeServiceConfig `{}`.",
                    config.name()
                ),
            };
            let d = UNUSED_META
                .diagnostic(Severity::Note, ws.location(config, name.span()), message)
                .with_help(format!(
                    "reference it from a Service in {ns} with `{SERVICE_CONFIG}: {n}` or from an Ingress with \
                     `{INGRESS_CONFIG}: {n}`, or delete it if nothing uses it; see {SERVICE_CONFIG_DOC}",
                    ns = namespace_note(config),
                    n = config.name()
                ));
            out.push(with_object(d, config));
        }
    }
}
