//! Emissary-ingress (Ambassador) `Mapping` and `Host` (getambassador.io): the hosts the
//! Emissary pods serve.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds [`EmissaryHostView`] reads.
pub const EMISSARY: &[Kind] = &[
    ("getambassador.io", "Mapping"),
    ("getambassador.io", "Host"),
];

/// A Mapping's or Host's host, as Emissary reads it: Host and v3 Mapping `spec.hostname`,
/// v2 Mapping `spec.host` unless `host_regex` is true; and its `ambassador_id`s.
#[derive(Clone, Debug)]
pub struct EmissaryHostView<'w> {
    pub object: &'w Object,
    pub host: Option<NodeRef<'w>>,
    /// `spec.ambassador_id` (a string or a list); empty: Emissary's `default`.
    pub ambassador_ids: Vec<&'w str>,
}

impl<'w> EmissaryHostView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<EmissaryHostView<'w>> {
        if !super::is_kind(object, EMISSARY) {
            return None;
        }
        let spec = ws.spec(object)?;
        let regex = spec.get("host_regex").and_then(|r| r.as_bool()) == Some(true);
        let host = spec
            .get("hostname")
            .or_else(|| spec.get("host").filter(|_| !regex));
        let ids = spec.get("ambassador_id");
        let ambassador_ids = match ids.and_then(|i| i.as_str()) {
            Some(id) => vec![id],
            None => ids
                .into_iter()
                .flat_map(NodeRef::items)
                .filter_map(|i| i.as_str())
                .collect(),
        };
        Some(EmissaryHostView {
            object,
            host,
            ambassador_ids,
        })
    }
}
