//! The data of ConfigMaps and Secrets.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds [`DataView`] reads.
pub const DATA: &[Kind] = &[("", "ConfigMap"), ("", "Secret")];

/// The keys of a ConfigMap or Secret, each as its (key, value) nodes. Secret `data` values
/// are base64, as written; `stringData` values are text.
#[derive(Clone, Debug)]
pub struct DataView<'w> {
    pub object: &'w Object,
    pub data: Vec<(NodeRef<'w>, NodeRef<'w>)>,
    /// Secret `stringData`.
    pub string_data: Vec<(NodeRef<'w>, NodeRef<'w>)>,
}

impl<'w> DataView<'w> {
    /// The data of a core ConfigMap or Secret.
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<DataView<'w>> {
        if !super::is_kind(object, DATA) {
            return None;
        }
        let root = ws.root(object);
        let entries = |key: &str| {
            root.get(key)
                .into_iter()
                .flat_map(NodeRef::entries)
                .collect::<Vec<_>>()
        };
        Some(DataView {
            object,
            data: entries("data"),
            string_data: entries("stringData"),
        })
    }

    /// The value of one key of `data` only (a ConfigMap's files).
    pub fn data_value(&self, key: &str) -> Option<NodeRef<'w>> {
        self.data
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|&(_, v)| v)
    }

    /// The value of one key, from `data` or `stringData`.
    pub fn get(&self, key: &str) -> Option<NodeRef<'w>> {
        self.data
            .iter()
            .chain(&self.string_data)
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|&(_, v)| v)
    }
}
