//! Reading `kubectl … -o yaml` (or `-o json`) dumps: single objects, `List`s and multi-document
//! streams, and `kubectl version -o yaml`. Every object is kept as its parse tree; a file with
//! nothing a kubectl dump holds, or a syntax error, is a located error.

use std::sync::Arc;

use crate::settings::{Place, SettingsError};
use crate::yaml::{load, Limits, LoadedFile, NodeRef};

/// The miette code of import errors.
pub const CODE: &str = "lblint::import";

/// One input file: its name for messages, and its text.
pub struct Input {
    pub name: String,
    pub text: Arc<str>,
}

/// The loaded inputs; objects borrow from it.
pub struct Loaded {
    pub inputs: Vec<Input>,
    pub files: Vec<LoadedFile>,
}

/// One object of a dump.
#[derive(Clone, Copy)]
pub struct Obj<'d> {
    pub kind: &'d str,
    pub namespace: &'d str,
    pub name: &'d str,
    pub node: NodeRef<'d>,
}

impl<'d> Obj<'d> {
    /// `Kind/namespace/name` (or `Kind/name` for cluster-scoped objects). A static pod's
    /// mirror is named after its node, which is per-node data: `kube-proxy-<node>`.
    pub fn id(&self) -> String {
        let name = match self.mirrored_node() {
            Some(node) => match self.name.strip_suffix(node) {
                Some(prefix) => format!("{prefix}<node>"),
                None => "<static pod>".to_string(),
            },
            None => self.name.to_string(),
        };
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, name)
        } else {
            format!("{}/{}/{name}", self.kind, self.namespace)
        }
    }

    /// The node a static pod's mirror pod belongs to (its owner reference).
    fn mirrored_node(&self) -> Option<&'d str> {
        if self.kind != "Pod" {
            return None;
        }
        self.get(&["metadata", "ownerReferences"])?
            .items()
            .find(|o| o.get("kind").and_then(|k| k.as_str()) == Some("Node"))?
            .get("name")?
            .as_str()
    }

    pub fn get(&self, path: &[&str]) -> Option<NodeRef<'d>> {
        self.node.path(path)
    }

    pub fn text(&self, path: &[&str]) -> Option<&'d str> {
        self.get(path)?.as_str()
    }
}

/// What the dumps hold.
pub struct Dump<'d> {
    pub objects: Vec<Obj<'d>>,
    /// `serverVersion.gitVersion` of `kubectl version -o yaml`, with its input.
    pub server_version: Option<(&'d str, usize)>,
}

impl Loaded {
    /// Parse every input; a syntax error or an input with no object is an error at its place.
    pub fn parse(inputs: Vec<Input>) -> Result<Loaded, SettingsError> {
        let limits = Limits::default();
        let mut errors = Vec::new();
        let mut files = Vec::new();
        for input in &inputs {
            let file = load(&input.text, &limits);
            for e in &file.errors {
                errors.push(error(
                    input,
                    e.span.start.offset,
                    e.span.len(),
                    &e.message,
                    None,
                ));
            }
            files.push(file);
        }
        let loaded = Loaded { inputs, files };
        for (i, input) in loaded.inputs.iter().enumerate() {
            let dump = loaded.dump_of(i);
            if dump.objects.is_empty() && dump.server_version.is_none() && errors.is_empty() {
                errors.push(error(
                    input,
                    0,
                    0,
                    "not a kubectl dump: no object with a `kind` and no `serverVersion`",
                    Some(super::COMMANDS.to_string()),
                ));
            }
        }
        match SettingsError::all(errors) {
            Some(first) => Err(first),
            None => Ok(loaded),
        }
    }

    /// Every object of every input, `List` items unwrapped.
    pub fn dump(&self) -> Dump<'_> {
        let mut all = Dump {
            objects: Vec::new(),
            server_version: None,
        };
        for i in 0..self.inputs.len() {
            let dump = self.dump_of(i);
            all.objects.extend(dump.objects);
            all.server_version = all.server_version.or(dump.server_version);
        }
        all
    }

    fn dump_of(&self, input: usize) -> Dump<'_> {
        let mut dump = Dump {
            objects: Vec::new(),
            server_version: None,
        };
        for root in self.files[input].documents.iter().filter_map(|d| d.root()) {
            if let Some(version) = root.path(&["serverVersion", "gitVersion"]) {
                dump.server_version = version.as_str().map(|v| (v, input));
            }
            let items: Vec<NodeRef<'_>> = match root.get("kind").and_then(|k| k.as_str()) {
                Some(kind) if kind.ends_with("List") => root
                    .get("items")
                    .into_iter()
                    .flat_map(NodeRef::items)
                    .collect(),
                Some(_) => vec![root],
                None => Vec::new(),
            };
            dump.objects.extend(items.into_iter().filter_map(|node| {
                Some(Obj {
                    kind: node.get("kind")?.as_str()?,
                    namespace: node
                        .path(&["metadata", "namespace"])
                        .and_then(|n| n.as_str())
                        .unwrap_or(""),
                    name: node.path(&["metadata", "name"])?.as_str()?,
                    node,
                })
            }));
        }
        dump
    }
}

fn error(
    input: &Input,
    offset: usize,
    len: usize,
    message: &str,
    help: Option<String>,
) -> SettingsError {
    let at = if input.text.is_empty() {
        Place::NOWHERE
    } else {
        Place::at_offset(&input.text, offset, len)
    };
    SettingsError::new(CODE, &input.name, input.text.clone(), at, message, help)
}
