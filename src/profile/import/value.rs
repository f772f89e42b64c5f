//! What the importer keeps of an object: an owned tree of the few fields it reads (by kind,
//! [`keep`]), copied out of the parsed document or JSON value before the next object is
//! parsed, so memory follows what is kept, not the size of the dump.

use crate::yaml::NodeRef;

/// A kept YAML/JSON value; scalars keep their text (as Kubernetes coerces into strings).
#[derive(Clone, Debug, Default)]
pub(crate) enum Val {
    #[default]
    Null,
    Str(Box<str>),
    Seq(Vec<Val>),
    Map(Vec<(Box<str>, Val)>),
}

impl Val {
    pub(crate) fn get(&self, key: &str) -> Option<&Val> {
        match self {
            // The last duplicate wins, as in Kubernetes.
            Val::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| &**k == key)
                .map(|e| &e.1),
            _ => None,
        }
    }

    pub(crate) fn path(&self, keys: &[&str]) -> Option<&Val> {
        keys.iter().try_fold(self, |v, k| v.get(k))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Sequence items (none for anything else).
    pub(crate) fn items(&self) -> std::slice::Iter<'_, Val> {
        match self {
            Val::Seq(items) => items.iter(),
            _ => [].iter(),
        }
    }

    /// Mapping entries (none for anything else).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &Val)> {
        let entries: &[(Box<str>, Val)] = match self {
            Val::Map(entries) => entries,
            _ => &[],
        };
        entries.iter().map(|(k, v)| (&**k, v))
    }
}

/// A parsed value the importer reads: a YAML node or a JSON value.
pub(crate) trait Tree: Copy {
    fn get(self, key: &str) -> Option<Self>;
    fn text(self) -> Option<String>;
    fn is_null(self) -> bool;
    fn seq(self) -> Option<Vec<Self>>;
    fn map(self) -> Option<Vec<(String, Self)>>;
}

impl Tree for NodeRef<'_> {
    fn get(self, key: &str) -> Option<Self> {
        NodeRef::get(self, key)
    }

    fn text(self) -> Option<String> {
        self.as_str().map(str::to_string)
    }

    fn is_null(self) -> bool {
        NodeRef::is_null(&self)
    }

    fn seq(self) -> Option<Vec<Self>> {
        self.is_sequence().then(|| self.items().collect())
    }

    fn map(self) -> Option<Vec<(String, Self)>> {
        self.is_mapping().then(|| {
            self.entries()
                .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v)))
                .collect()
        })
    }
}

impl Tree for &serde_json::Value {
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }

    fn text(self) -> Option<String> {
        use serde_json::Value;
        match self {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    fn is_null(self) -> bool {
        self.is_null()
    }

    fn seq(self) -> Option<Vec<Self>> {
        self.as_array().map(|a| a.iter().collect())
    }

    fn map(self) -> Option<Vec<(String, Self)>> {
        self.as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v)).collect())
    }
}

/// The fields each kind's facts are read from; `None`: a kind the importer does not read
/// (Secrets among them: never copied).
pub(crate) fn keep(kind: &str) -> Option<&'static [&'static [&'static str]]> {
    const NAME: &[&str] = &["metadata", "name"];
    const NAMESPACE: &[&str] = &["metadata", "namespace"];
    Some(match kind {
        "Node" => &[
            NAME,
            &["metadata", "labels"],
            &["spec", "providerID"],
            &["spec", "taints"],
            &["status", "nodeInfo", "kubeletVersion"],
        ],
        "DaemonSet" | "Deployment" | "StatefulSet" => &[
            NAME,
            NAMESPACE,
            &["spec", "template", "spec", "containers"],
            &["spec", "template", "spec", "initContainers"],
            &["spec", "template", "spec", "volumes"],
        ],
        "Pod" => &[
            NAME,
            NAMESPACE,
            &["metadata", "ownerReferences"],
            &["spec", "containers"],
            &["spec", "initContainers"],
            &["spec", "volumes"],
        ],
        "ConfigMap" => &[NAME, NAMESPACE, &["data"]],
        "Service" | "Ingress" => &[
            NAME,
            NAMESPACE,
            // Provider annotations: weak evidence of the cloud (import/cloud.rs).
            &["metadata", "annotations"],
            &["spec", "type"],
            &["status", "loadBalancer"],
        ],
        "IngressClass" => &[NAME, &["spec", "controller"]],
        "MutatingWebhookConfiguration" => &[NAME, &["webhooks", "name"]],
        _ => return None,
    })
}

/// Copy the parts of `node` that `paths` name (a path ends in a whole subtree; sequences
/// pass the paths on to their items).
pub(crate) fn copy<T: Tree>(node: T, paths: &[&[&str]]) -> Val {
    if paths.iter().any(|p| p.is_empty()) {
        return copy_all(node);
    }
    if let Some(items) = node.seq() {
        return Val::Seq(items.into_iter().map(|i| copy(i, paths)).collect());
    }
    let Some(entries) = node.map() else {
        return scalar(node);
    };
    let mut kept = Vec::new();
    for (key, value) in entries {
        let below: Vec<&[&str]> = paths
            .iter()
            .filter(|p| p.first() == Some(&key.as_str()))
            .map(|p| &p[1..])
            .collect();
        if !below.is_empty() {
            kept.push((key.into_boxed_str(), copy(value, &below)));
        }
    }
    Val::Map(kept)
}

fn copy_all<T: Tree>(node: T) -> Val {
    if let Some(items) = node.seq() {
        return Val::Seq(items.into_iter().map(copy_all).collect());
    }
    match node.map() {
        Some(entries) => Val::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.into_boxed_str(), copy_all(v)))
                .collect(),
        ),
        None => scalar(node),
    }
}

fn scalar<T: Tree>(node: T) -> Val {
    match node.text() {
        Some(text) if !node.is_null() => Val::Str(text.into_boxed_str()),
        _ => Val::Null,
    }
}
