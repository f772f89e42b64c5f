//! The ConfigMap and Secret keys a pod reads (README, "The cluster model"): `envFrom` and a
//! volume without `items:` read every key; `configMapKeyRef`/`secretKeyRef` and a volume
//! with `items:` read only those. A Secret's `stringData` is text; its `data` is base64,
//! decoded (bounded in size) so an address in it is found.

use std::borrow::Cow;

use base64::Engine as _;

use super::views::DataView;
use crate::objects::{Object, Workspace};
use crate::views::PodTemplate;
use crate::yaml::NodeRef;

/// Where a pod reads configuration from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Store {
    ConfigMap,
    Secret,
}

/// The field names that refer to a store in a pod spec.
struct Refs {
    env_from: &'static str,
    key_ref: &'static str,
    volume: &'static str,
    /// The name field of a volume source (`secret` volumes say `secretName`).
    volume_name: &'static str,
}

impl Store {
    fn refs(self) -> Refs {
        match self {
            Store::ConfigMap => Refs {
                env_from: "configMapRef",
                key_ref: "configMapKeyRef",
                volume: "configMap",
                volume_name: "name",
            },
            Store::Secret => Refs {
                env_from: "secretRef",
                key_ref: "secretKeyRef",
                volume: "secret",
                volume_name: "secretName",
            },
        }
    }
}

/// A decoded Secret value larger than this is not scanned: a certificate bundle or a
/// binary, not a setting.
const MAX_DECODED: usize = 64 * 1024;

/// The stores of `store`'s kind a pod reads: `(name, Some(key))` for one key, `(name,
/// None)` for every key.
pub fn consumed<'w>(template: &PodTemplate<'w>, store: Store) -> Vec<(&'w str, Option<&'w str>)> {
    let refs = store.refs();
    let spec = template.spec;
    let text = |node: Option<NodeRef<'w>>| node.and_then(|n| n.as_str());
    let mut out = Vec::new();
    for list in ["initContainers", "containers"] {
        for container in spec.get(list).into_iter().flat_map(NodeRef::items) {
            for from in container
                .get("envFrom")
                .into_iter()
                .flat_map(NodeRef::items)
            {
                if let Some(name) = text(from.path(&[refs.env_from, "name"])) {
                    out.push((name, None));
                }
            }
            for env in container.get("env").into_iter().flat_map(NodeRef::items) {
                let key_ref = env.path(&["valueFrom", refs.key_ref]);
                let name = text(key_ref.and_then(|r| r.get("name")));
                if let (Some(name), Some(key)) = (name, text(key_ref.and_then(|r| r.get("key")))) {
                    out.push((name, Some(key)));
                }
            }
        }
    }
    // A volume with `items:` mounts only the keys it lists; without, every key.
    let mut mounted = |source: Option<NodeRef<'w>>, name_field: &str| {
        let Some(name) = text(source.and_then(|c| c.get(name_field))) else {
            return;
        };
        match source.and_then(|c| c.get("items")) {
            Some(items) => out.extend(
                items
                    .items()
                    .filter_map(|item| item.get("key")?.as_str())
                    .map(|key| (name, Some(key))),
            ),
            None => out.push((name, None)),
        }
    };
    for volume in spec.get("volumes").into_iter().flat_map(NodeRef::items) {
        mounted(volume.get(refs.volume), refs.volume_name);
        for source in volume
            .path(&["projected", "sources"])
            .into_iter()
            .flat_map(NodeRef::items)
        {
            // Projected sources name a Secret by `name`, like a ConfigMap.
            mounted(source.get(refs.volume), "name");
        }
    }
    out
}

/// Every key of a ConfigMap (`data`) or Secret (`stringData`, then `data` decoded), as
/// (key, value node, text), read through its [`DataView`].
pub fn store_values<'w>(
    ws: &'w Workspace,
    object: &'w Object,
    store: Store,
) -> Vec<(&'w str, NodeRef<'w>, Cow<'w, str>)> {
    let Some(view) = DataView::of(ws, object) else {
        return Vec::new();
    };
    let plain = match store {
        Store::ConfigMap => &view.data,
        Store::Secret => &view.string_data,
    };
    let mut out = Vec::new();
    for &(k, v) in plain {
        if let (Some(k), Some(text)) = (k.as_str(), v.as_str()) {
            out.push((k, v, Cow::Borrowed(text)));
        }
    }
    if store == Store::Secret {
        for &(k, v) in &view.data {
            if let (Some(k), Some(text)) = (k.as_str(), v.as_str().and_then(decode)) {
                out.push((k, v, Cow::Owned(text)));
            }
        }
    }
    out
}

/// A Secret `data` value as text: standard base64 (whitespace ignored), at most
/// [`MAX_DECODED`] bytes, valid UTF-8.
fn decode(encoded: &str) -> Option<String> {
    let compact: String = encoded.split_whitespace().collect();
    if compact.len() / 4 * 3 > MAX_DECODED {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_data_is_decoded_within_bounds() {
        assert_eq!(
            decode("aHR0cHM6Ly9hcGkuZXhhbXBsZS5jb20=").as_deref(),
            Some("https://api.example.com")
        );
        assert_eq!(
            decode("aHR0cHM6Ly9h\n  cGkuZXhhbXBsZS5jb20=").as_deref(),
            Some("https://api.example.com")
        );
        assert_eq!(decode("not base64!"), None);
        assert_eq!(decode("//79"), None, "not UTF-8");
        assert_eq!(decode(&"QUFB".repeat(30_000)), None, "over the bound");
    }
}
