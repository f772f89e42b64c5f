//! Which TkeServiceConfig each Service and Ingress uses (TKE; Tencent docs
//! <https://www.tencentcloud.com/document/product/457/36834> and .../457/37015): the one
//! named by its manual annotation, else the controller's
//! `<name>-auto-{service,ingress}-config` with the auto annotation, in the same namespace.
//! Computed once per run, for every rule that asks.

use std::collections::HashMap;

use crate::objects::{Object, ObjectId, Workspace};
use crate::source::Location;
use crate::yaml::NodeRef;

use crate::views::tke::{is_config, Section};
use crate::views::Annotations;

pub const SERVICE_CONFIG: &str = "service.cloud.tencent.com/tke-service-config";
pub const SERVICE_CONFIG_AUTO: &str = "service.cloud.tencent.com/tke-service-config-auto";
pub const INGRESS_CONFIG: &str = "ingress.cloud.tencent.com/tke-service-config";
pub const INGRESS_CONFIG_AUTO: &str = "ingress.cloud.tencent.com/tke-service-config-auto";
pub const SERVICE_CONFIG_DOC: &str = "https://www.tencentcloud.com/document/product/457/36834";
pub const INGRESS_CONFIG_DOC: &str = "https://www.tencentcloud.com/document/product/457/37015";
pub const SERVICE_AUTO_SUFFIX: &str = "-auto-service-config";
pub const INGRESS_AUTO_SUFFIX: &str = "-auto-ingress-config";

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
    pub fn section(self) -> Section {
        match self {
            Owner::Service => Section::L4,
            Owner::Ingress => Section::L7,
        }
    }

    pub fn doc(self) -> &'static str {
        match self {
            Owner::Service => SERVICE_CONFIG_DOC,
            Owner::Ingress => INGRESS_CONFIG_DOC,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Owner::Service => "Service",
            Owner::Ingress => "Ingress",
        }
    }
}

/// A Service or Ingress that carries a TkeServiceConfig annotation.
pub struct Reference<'w> {
    pub object: ObjectId,
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
    ws.ids()
        .filter_map(|(index, object)| {
            let owner = Owner::of(object)?;
            let annotations = Annotations::of(ws, object);
            let manual = annotations.entry(owner.manual_key());
            let auto = annotations
                .entry(owner.auto_key())
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
    configs: HashMap<&'w str, Vec<ObjectId>>,
    /// Positions in `references` by the config each uses.
    users: HashMap<ObjectId, Vec<usize>>,
    /// The config each referring object uses, by object index.
    config_for: HashMap<ObjectId, ObjectId>,
}

impl<'w> Index<'w> {
    pub fn new(ws: &'w Workspace) -> Index<'w> {
        let mut configs: HashMap<&'w str, Vec<ObjectId>> = HashMap::new();
        for (index, object) in ws.ids() {
            if is_config(object) {
                configs.entry(object.name()).or_default().push(index);
            }
        }
        let mut index = Index {
            ws,
            references: references(ws),
            configs,
            users: HashMap::new(),
            config_for: HashMap::new(),
        };
        for position in 0..index.references.len() {
            let reference = &index.references[position];
            if let Some(config) = index.config_of(reference) {
                index.config_for.insert(reference.object, config);
                index.users.entry(config).or_default().push(position);
            }
        }
        index
    }

    /// The TkeServiceConfig the object (an index into [`Workspace::objects`]) uses.
    pub fn config_for(&self, object: ObjectId) -> Option<&'w Object> {
        let ws = self.ws;
        self.config_for.get(&object).map(|&c| &ws.objects[c])
    }

    /// Configs named `name`, as (index, object).
    pub fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = (ObjectId, &'w Object)> + 's {
        let ws = self.ws;
        self.configs
            .get(name)
            .into_iter()
            .flatten()
            .map(move |&i| (i, &ws.objects[i]))
    }

    /// The config a reference uses (manual name, else auto name), in its namespace.
    pub fn config_of(&self, reference: &Reference<'_>) -> Option<ObjectId> {
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
    pub fn users(&self, config: ObjectId) -> impl Iterator<Item = &Reference<'w>> + '_ {
        self.users
            .get(&config)
            .into_iter()
            .flatten()
            .map(|&p| &self.references[p])
    }

    /// Related locations for the objects that use a config: the manual annotation's
    /// value, or the auto annotation's key.
    pub fn user_locations(&self, config: ObjectId) -> Vec<(Location, String)> {
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
