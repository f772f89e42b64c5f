//! `Kind/namespace/name` of an object the profile names (`loadBalancers[].object`,
//! `ingressControllers[].service`), checked as it is read.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

use crate::settings::suggest::{did_you_mean, list};
use crate::settings::translate::refuse;

/// Kinds a `loadBalancers[].object` may name.
pub(crate) const OBJECT_KINDS: [&str; 3] = ["Service", "Ingress", "IstioGateway"];

/// `Kind/namespace/name` of the object that owns a load balancer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// Why an `object:` string is not a valid [`ObjectKey`]; `help` is shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ObjectKeyError {
    pub message: String,
    pub help: String,
}

impl ObjectKey {
    pub(crate) fn parse(text: &str) -> Result<ObjectKey, ObjectKeyError> {
        let parts: Vec<&str> = text.split('/').collect();
        let [kind, namespace, name] = parts[..] else {
            return Err(ObjectKeyError {
                message: format!(
                    "invalid object `{text}`: expected `Kind/namespace/name` ({} part{} found)",
                    parts.len(),
                    if parts.len() == 1 { "" } else { "s" }
                ),
                help: "write it as e.g. `Service/istio-system/istio-ingressgateway`".into(),
            });
        };
        if let Some(empty) = [("Kind", kind), ("namespace", namespace), ("name", name)]
            .iter()
            .find(|(_, v)| v.trim().is_empty())
        {
            return Err(ObjectKeyError {
                message: format!("invalid object `{text}`: {} is empty", empty.0),
                help: "write it as e.g. `Service/istio-system/istio-ingressgateway`".into(),
            });
        }
        if !OBJECT_KINDS.contains(&kind) {
            let mut help = format!("Kind must be one of {}", list(&OBJECT_KINDS));
            if let Some(s) = did_you_mean(kind, &OBJECT_KINDS) {
                help = format!("did you mean `{s}`? {help}");
            }
            return Err(ObjectKeyError {
                message: format!("invalid object `{text}`: unknown Kind `{kind}`"),
                help,
            });
        }
        Ok(ObjectKey {
            kind: kind.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

impl<'de> Deserialize<'de> for ObjectKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ObjectKey::parse(&text).map_err(|e| refuse(&e.message, &e.help))
    }
}

/// A string `Kind/namespace/name` whose Kind is one of [`OBJECT_KINDS`].
impl JsonSchema for ObjectKey {
    fn schema_name() -> Cow<'static, str> {
        "ObjectKey".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let pattern = format!("^({})/[^/]+/[^/]+$", OBJECT_KINDS.join("|"));
        json_schema!({"type": "string", "pattern": pattern})
    }
}
