//! The values of the ConfigMap and Secret keys a pod reads (which keys: `PodTemplate::
//! consumed`). A Secret's `stringData` is text; its `data` is base64, decoded (bounded in
//! size) so an address in it is found.

use std::borrow::Cow;

use base64::Engine as _;

use crate::objects::{Object, Workspace};
use crate::views::DataView;
use crate::yaml::NodeRef;

use crate::views::Store;

/// A decoded Secret value larger than this is not scanned: a certificate bundle or a
/// binary, not a setting.
const MAX_DECODED: usize = 64 * 1024;

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
