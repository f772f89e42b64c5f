//! Documents → Kubernetes objects: identity, template origin, and typed accessors.

use std::sync::Arc;

use compact_str::CompactString;

use crate::source::{Location, ObjectRef, SourceFile, Span};
use crate::yaml::{Document, LoadedFile, NodeId, NodeRef};

/// Kinds that live in no namespace: `kubectl apply -n` leaves them as they are.
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "StorageClass",
    "IngressClass",
    "GatewayClass",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PriorityClass",
    "RuntimeClass",
    "CSIDriver",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "APIService",
    "ClusterIssuer",
    "List",
];

/// What [`is_namespace_name`] takes, for the messages that refuse a name.
pub const NAMESPACE_NAME_HELP: &str =
    "a namespace is a DNS label: lower-case letters, digits and `-`, at most 63";

/// A namespace name: a DNS-1123 label.
pub fn is_namespace_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

/// A loaded input file.
#[derive(Clone, Debug)]
pub struct LintFile {
    pub source: Arc<SourceFile>,
    /// Shared: the language server keeps each unchanged file's trees between lints, and a
    /// lint takes them without copying.
    pub loaded: Arc<LoadedFile>,
}

/// One Kubernetes object: a document, or an item of a `kind: List`.
#[derive(Clone, Debug)]
pub struct Object {
    /// Index into [`Workspace::files`].
    pub file: usize,
    /// Index into that file's documents.
    pub doc: usize,
    pub root: NodeId,
    /// Shared with the object's findings (`Diagnostic::on`), not copied into each.
    pub id: Arc<ObjectRef>,
    /// Template the object was rendered from: Helm `# Source:` or kustomize origin annotation.
    pub origin: Option<Arc<str>>,
}

impl crate::diagnostic::Subject for Object {
    fn identity(&self) -> &Arc<ObjectRef> {
        &self.id
    }

    fn origin(&self) -> Option<&Arc<str>> {
        self.origin.as_ref()
    }
}

impl Object {
    /// Whether the profile's `Kind/namespace/name` names this object.
    pub fn is(&self, key: &crate::profile::ObjectKey) -> bool {
        key.kind == self.kind() && key.namespace == self.namespace() && key.name == self.name()
    }

    pub fn kind(&self) -> &str {
        &self.id.kind
    }

    pub fn name(&self) -> &str {
        &self.id.name
    }

    /// The namespace the object lands in; unset means the apply-time default. For
    /// matching objects only (two unset namespaces land together): never print it, since
    /// an overlay (kustomize `namespace:`, `kubectl -n`) may choose another one.
    pub fn namespace(&self) -> &str {
        self.id.namespace.as_deref().unwrap_or("default")
    }

    /// The namespace as written in the manifest; `None` when applying chooses it.
    pub fn written_namespace(&self) -> Option<&str> {
        self.id.namespace.as_deref()
    }

    /// The name a pod of `caller` reaches this Service by: the bare name, unless both
    /// namespaces are written and differ (`name.namespace`). An unwritten namespace is
    /// never guessed: a kustomize base's overlay puts both objects in its own namespace.
    pub fn service_host_for(&self, caller: &Object) -> String {
        match (self.written_namespace(), caller.written_namespace()) {
            (Some(own), Some(theirs)) if own != theirs => format!("{}.{own}", self.name()),
            _ => self.name().to_string(),
        }
    }

    /// This Service's in-cluster names, for advice to callers not known here.
    pub fn service_hosts_hint(&self) -> String {
        let name = self.name();
        match self.written_namespace() {
            Some(ns) => format!("`{name}` (`{name}.{ns}` from other namespaces)"),
            None => format!("`{name}` (`{name}.<namespace>` from other namespaces)"),
        }
    }

    /// `apiVersion` group, `""` for the core group.
    pub fn group(&self) -> &str {
        self.id.api_version.rsplit_once('/').map_or("", |(g, _)| g)
    }
}

/// An object's position in [`Workspace::objects`]: `ws.objects[id]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub usize);

impl std::ops::Index<ObjectId> for Vec<Object> {
    type Output = Object;

    fn index(&self, id: ObjectId) -> &Object {
        &self[id.0]
    }
}

/// Every file and object of a run; rules read objects through it.
#[derive(Debug, Default)]
pub struct Workspace {
    pub files: Vec<LintFile>,
    pub objects: Vec<Object>,
    /// Object indices sorted by (kind, name), then input order: references by name resolve
    /// by binary search, without a scan. A map of copied keys to lists took 130 bytes an
    /// object; this takes 4.
    by_name: Vec<u32>,
}

impl Workspace {
    /// Objects without `metadata.namespace` land in `namespace`, as `kubectl apply -n`
    /// puts them (`--namespace`, the config's `namespace:`); cluster-scoped kinds do not.
    pub fn in_namespace(mut self, namespace: Option<&str>) -> Workspace {
        let Some(namespace) = namespace else {
            return self;
        };
        for object in &mut self.objects {
            if object.id.namespace.is_none() && !CLUSTER_SCOPED.contains(&object.kind()) {
                let mut id = (*object.id).clone();
                id.namespace = Some(namespace.into());
                object.id = Arc::new(id);
            }
        }
        self
    }

    /// Every object with its id, in input order.
    pub fn ids(&self) -> impl Iterator<Item = (ObjectId, &Object)> {
        self.objects
            .iter()
            .enumerate()
            .map(|(i, o)| (ObjectId(i), o))
    }

    pub fn new(files: Vec<LintFile>) -> Workspace {
        let mut objects = Vec::new();
        for (file_index, file) in files.iter().enumerate() {
            for (doc_index, doc) in file.loaded.documents.iter().enumerate() {
                collect_document(file_index, doc_index, doc, &mut objects);
            }
        }
        objects.shrink_to_fit();
        let mut by_name: Vec<u32> = (0..objects.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        // Stable: objects of one kind and name stay in input order.
        by_name.sort_by_key(|&i| name_key(&objects[i as usize]));
        Workspace {
            files,
            objects,
            by_name,
        }
    }

    /// Every object of this kind and name, in input order.
    pub fn named<'w>(&'w self, kind: &str, name: &str) -> impl Iterator<Item = &'w Object> + 'w {
        self.named_ids(kind, name).map(move |id| &self.objects[id])
    }

    /// The ids of every object of this kind and name, in input order.
    pub fn named_ids(&self, kind: &str, name: &str) -> impl Iterator<Item = ObjectId> + '_ {
        let key = |&i: &u32| name_key(&self.objects[i as usize]);
        let start = self.by_name.partition_point(|i| key(i) < (kind, name));
        let end = start + self.by_name[start..].partition_point(|i| key(i) <= (kind, name));
        self.by_name[start..end]
            .iter()
            .map(|&i| ObjectId(i as usize))
    }

    pub fn document(&self, object: &Object) -> &Document {
        &self.files[object.file].loaded.documents[object.doc]
    }

    pub fn root(&self, object: &Object) -> NodeRef<'_> {
        self.document(object).at(object.root)
    }

    pub fn location(&self, object: &Object, span: Span) -> Location {
        Location {
            file: self.files[object.file].source.path.clone(),
            span,
        }
    }

    pub fn source(&self, object: &Object) -> &SourceFile {
        &self.files[object.file].source
    }

    /// Of several same-named candidates (a base and overlays, or dev/ and prod/ in one
    /// namespace), the ones nearest to `from`: the same file, else the same folder, else
    /// the longest shared folder path. All of them when they tie.
    pub fn nearest(&self, from: &Object, candidates: &[ObjectId]) -> Vec<ObjectId> {
        let folders = |object: &Object| -> Vec<&str> {
            let path: &str = &self.files[object.file].source.path;
            let mut parts: Vec<&str> = path.split('/').collect();
            parts.pop();
            parts
        };
        let here = folders(from);
        let distance = |id: &ObjectId| {
            let other = &self.objects[*id];
            if other.file == from.file {
                return 0;
            }
            let there = folders(other);
            let shared = here.iter().zip(&there).take_while(|(a, b)| a == b).count();
            1 + (here.len() - shared) + (there.len() - shared)
        };
        let best = candidates.iter().map(distance).min();
        candidates
            .iter()
            .copied()
            .filter(|id| Some(distance(id)) == best)
            .collect()
    }

    /// `metadata.<field>`: `name`, `namespace`, `annotations`, `labels` …
    pub fn metadata(&self, object: &Object, field: &str) -> Option<NodeRef<'_>> {
        self.root(object).path(&["metadata", field])
    }

    /// `metadata.name` as written.
    pub fn written_name(&self, object: &Object) -> Option<NodeRef<'_>> {
        self.metadata(object, "name")
    }

    /// `metadata.namespace` as written.
    pub fn written_namespace_node(&self, object: &Object) -> Option<NodeRef<'_>> {
        self.metadata(object, "namespace")
    }

    /// `metadata.labels`.
    pub fn labels(&self, object: &Object) -> Option<NodeRef<'_>> {
        self.metadata(object, "labels")
    }

    /// Where to point at the object as a whole: its `metadata.name`, else its first line.
    pub fn name_node(&self, object: &Object) -> NodeRef<'_> {
        self.metadata(object, "name")
            .unwrap_or_else(|| self.root(object))
    }

    pub fn spec(&self, object: &Object) -> Option<NodeRef<'_>> {
        self.root(object).get("spec")
    }
}

/// What [`Workspace::named`] looks objects up by.
fn name_key(object: &Object) -> (&str, &str) {
    (object.kind(), object.name())
}

fn identity(node: NodeRef<'_>) -> Option<ObjectRef> {
    let api_version = CompactString::new(node.get("apiVersion")?.as_str()?);
    let kind = CompactString::new(node.get("kind")?.as_str()?);
    if api_version.is_empty() || kind.is_empty() {
        return None;
    }
    let metadata = node.get("metadata");
    let text = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(CompactString::new)
    };
    Some(ObjectRef {
        api_version,
        kind,
        namespace: text("namespace"),
        name: text("name")
            .or_else(|| text("generateName").map(|g| compact_str::format_compact!("{g}*")))
            .unwrap_or_default(),
    })
}

/// Helm writes `# Source: chart/templates/x.yaml` before each rendered document.
fn helm_source(doc: &Document) -> Option<String> {
    doc.leading_comments.iter().rev().find_map(|c| {
        c.text
            .trim()
            .strip_prefix("Source:")
            .map(|path| path.trim().to_string())
            .filter(|path| !path.is_empty())
    })
}

/// kustomize `buildMetadata: [originAnnotations]` writes
/// `config.kubernetes.io/origin: "path: base/x.yaml\n..."`.
fn kustomize_origin(node: NodeRef<'_>) -> Option<String> {
    let origin = node
        .path(&["metadata", "annotations", "config.kubernetes.io/origin"])?
        .as_str()?;
    origin.lines().find_map(|line| {
        line.trim()
            .strip_prefix("path:")
            .map(|p| p.trim().trim_matches(['"', '\'']).to_string())
            .filter(|p| !p.is_empty())
    })
}

fn collect_document(file: usize, doc_index: usize, doc: &Document, out: &mut Vec<Object>) {
    let Some(root) = doc.root() else { return };
    let Some(id) = identity(root) else { return };
    let helm: Option<Arc<str>> = helm_source(doc).map(Arc::from);
    let is_list = id.kind == "List"
        || (id.kind.ends_with("List") && root.get("items").is_some_and(|i| i.is_sequence()));
    if is_list {
        for item in root
            .get("items")
            .into_iter()
            .flat_map(|items| items.items())
        {
            let item = item.resolved();
            if let Some(item_id) = identity(item) {
                out.push(Object {
                    file,
                    doc: doc_index,
                    root: item.id,
                    origin: kustomize_origin(item)
                        .map(Arc::from)
                        .or_else(|| helm.clone()),
                    id: Arc::new(item_id),
                });
            }
        }
        return;
    }
    out.push(Object {
        file,
        doc: doc_index,
        root: root.resolved().id,
        origin: kustomize_origin(root).map(Arc::from).or(helm),
        id: Arc::new(id),
    });
}
