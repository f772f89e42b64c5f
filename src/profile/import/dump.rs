//! Reading `kubectl … -o yaml` (or `-o json`) dumps: single objects, `List`s and multi-document
//! streams, and `kubectl version`. The read is bounded: a List's items are parsed one at a
//! time (YAML: cut at the items' `- ` lines, [`super::split`]; JSON: streamed), each object
//! is cut down to the fields its kind's facts come from ([`keep`]) or folded into the node
//! facts, and its parse tree dropped before the next one. A file with nothing a kubectl dump
//! holds, a dump of kinds the importer does not read, or a syntax error is a located error.

use std::sync::Arc;

use super::nodes::Nodes;
use super::split::{documents_of_list, ListItems};
use super::value::{copy, keep, Tree, Val};
use crate::settings::{Place, SettingsError};
use crate::yaml::{load, load_with, Limits};

/// The miette code of import errors.
pub(crate) const CODE: &str = "lblint::import";

/// One input file: its name for messages, and its text (a `String`, not shared: a dump can
/// be hundreds of MB, and only an error needs a shared copy).
pub(crate) struct Input {
    pub name: String,
    pub text: String,
}

/// One kept object.
struct Kept {
    kind: String,
    namespace: String,
    name: String,
    value: Val,
}

/// What the inputs hold, as kept.
pub(crate) struct Loaded {
    kept: Vec<Kept>,
    nodes: Nodes,
    /// `serverVersion.gitVersion` of `kubectl version`, with its input.
    server_version: Option<(String, usize)>,
}

/// One object of a dump.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'d> {
    pub kind: &'d str,
    pub namespace: &'d str,
    pub name: &'d str,
    pub node: &'d Val,
}

impl<'d> Obj<'d> {
    /// `Kind/namespace/name` (or `Kind/name` for cluster-scoped objects). A static pod's
    /// mirror is named after its node, which is per-node data: `kube-proxy-<node>`.
    pub(crate) fn id(&self) -> String {
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
        mirrored_node(self.node)
    }

    pub(crate) fn get(&self, path: &[&str]) -> Option<&'d Val> {
        self.node.path(path)
    }

    pub(crate) fn text(&self, path: &[&str]) -> Option<&'d str> {
        self.get(path)?.as_str()
    }
}

fn mirrored_node(pod: &Val) -> Option<&str> {
    pod.path(&["metadata", "ownerReferences"])?
        .items()
        .find(|o| o.get("kind").and_then(Val::as_str) == Some("Node"))?
        .get("name")?
        .as_str()
}

/// What the dumps hold.
pub(crate) struct Dump<'d> {
    pub objects: Vec<Obj<'d>>,
    pub nodes: &'d Nodes,
    /// `serverVersion.gitVersion` of `kubectl version -o yaml`, with its input.
    pub server_version: Option<(&'d str, usize)>,
}

/// What one input showed, for its "not a dump" and "nothing to import" errors.
#[derive(Default)]
struct Seen {
    /// Objects (with a `kind`) or a server version.
    anything: bool,
    /// Objects of a kind the importer reads.
    read: bool,
    /// The first object's kind and offset, if it is of a kind the importer does not read.
    first_other: Option<(String, usize)>,
    /// The offset of the first object's document.
    first_object: usize,
    /// Items without the `kind: List` kubectl writes after them: the dump was cut short.
    cut_short: bool,
    /// Something only a cluster holds: a server version, a Node, a kube-system object, an
    /// object the API server stamped (`uid`, `resourceVersion`, `creationTimestamp`, a
    /// status). Manifests as a repository holds them have none.
    from_cluster: bool,
}

impl Loaded {
    /// Read every input; a syntax error, or an input with nothing to import, is an error at
    /// its place.
    pub(crate) fn parse(inputs: &[Input]) -> Result<Loaded, SettingsError> {
        let mut loaded = Loaded {
            kept: Vec::new(),
            nodes: Nodes::default(),
            server_version: None,
        };
        let mut errors = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            let mut seen = Seen::default();
            let text = &input.text;
            let result = if text.trim_start().starts_with('{') {
                let (kept, nodes) = (loaded.kept.len(), loaded.nodes.clone());
                loaded.read_json(i, text, &mut seen).or_else(|json| {
                    // A YAML flow mapping (`{kind: Node, …}`) is no JSON; a file that is
                    // neither gets the JSON error.
                    loaded.kept.truncate(kept);
                    loaded.nodes = nodes;
                    seen = Seen::default();
                    loaded.read_yaml(i, text, &mut seen).map_err(|_| json)
                })
            } else {
                loaded.read_yaml(i, text, &mut seen)
            };
            match result {
                Err((offset, len, message)) => {
                    // A parser's message may quote the text (an alias's name).
                    let message = match super::redact::may_show_secret(text, offset, len) {
                        true => unquoted(&message),
                        false => message,
                    };
                    errors.push(error(input, offset, len, &message, None));
                }
                Ok(()) if seen.cut_short => errors.push(error(
                    input,
                    input.text.len(),
                    0,
                    "cut short: `items` without the `kind: List` that kubectl writes after them",
                    Some("dump it again; a List ends with `kind: List`".to_string()),
                )),
                Ok(()) if !seen.anything => errors.push(error(
                    input,
                    0,
                    0,
                    "not a kubectl dump: no object with a `kind` and no `serverVersion`",
                    Some(super::COMMANDS.to_string()),
                )),
                Ok(()) if seen.read && !seen.from_cluster => errors.push(error(
                    input,
                    seen.first_object,
                    0,
                    "nothing to import: these are manifests as written, not objects read from a \
                     cluster (no uid, resourceVersion, creationTimestamp or status, no Node, nothing \
                     in kube-system), and a profile takes nothing from them",
                    Some(format!(
                        "lint manifests with `lblint check`; {}",
                        super::COMMANDS
                    )),
                )),
                Ok(()) => {
                    if let (false, Some((kind, offset))) = (seen.read, seen.first_other) {
                        errors.push(error(
                            input,
                            offset,
                            0,
                            &format!(
                                "nothing to import: a dump of {kind} objects, which say nothing \
                                 a cluster profile holds"
                            ),
                            Some(super::COMMANDS.to_string()),
                        ));
                    }
                }
            }
        }
        match SettingsError::all(errors) {
            Some(first) => Err(first),
            None => Ok(loaded),
        }
    }

    /// Every kept object.
    pub(crate) fn dump(&self) -> Dump<'_> {
        Dump {
            objects: self
                .kept
                .iter()
                .map(|k| Obj {
                    kind: &k.kind,
                    namespace: &k.namespace,
                    name: &k.name,
                    node: &k.value,
                })
                .collect(),
            nodes: &self.nodes,
            server_version: self.server_version.as_ref().map(|(v, i)| (v.as_str(), *i)),
        }
    }

    /// YAML: a List in one document item by item; anything else document by document.
    fn read_yaml(&mut self, input: usize, text: &str, seen: &mut Seen) -> Result<(), Located> {
        if let Some(list) = documents_of_list(text) {
            let (kept, nodes) = (self.kept.len(), self.nodes.clone());
            match self.read_items(text, &list, seen) {
                Ok(()) => return Ok(()),
                // An item that does not parse on its own: the whole document says where.
                Err(_) => {
                    self.kept.truncate(kept);
                    self.nodes = nodes;
                    *seen = Seen::default();
                }
            }
        }
        let limits = Limits::default();
        let file = load_with(text, &limits, &mut |doc| {
            if let Some(root) = doc.root() {
                self.root(input, root, root.span().start.offset, seen);
            }
            // Kept: nothing; what the importer needs is copied out above.
            doc.keep_top_level(&[])
        });
        match (file.errors.first(), file.too_complex.first()) {
            (Some(e), _) => Err((e.span.start.offset, e.span.len(), e.message.clone())),
            // An alias or merge-key bomb: the document is dropped, and said so at the alias
            // (before, "not a kubectl dump").
            (None, Some(t)) => Err((
                t.span.start.offset,
                t.span.len(),
                format!("a document is not read: {}", t.message),
            )),
            (None, None) => Ok(()),
        }
    }

    /// A List's items, parsed a batch of neighbours at a time (one parse per item costs more
    /// than the parse itself); a batch's tree is dropped before the next is parsed.
    fn read_items(&mut self, text: &str, list: &ListItems, seen: &mut Seen) -> Result<(), Located> {
        const BATCH_BYTES: usize = 256 * 1024;
        const ITEMS: &str = "items:\n";
        let limits = Limits::default();
        let mut rest = &list.items[..];
        while let Some(&(start, _)) = rest.first() {
            let count = rest
                .iter()
                .position(|&(_, end)| end - start > BATCH_BYTES)
                .unwrap_or(rest.len())
                .max(1);
            let (batch, next) = rest.split_at(count);
            rest = next;
            let end = batch[count - 1].1;
            // Under a key, as in the dump: lblint's fast reader takes the block style
            // manifests are written in, not a sequence at the root.
            let batch_text = format!("{ITEMS}{}", &text[start..end]);
            let file = load(&batch_text, &limits);
            if let Some(e) = file.errors.first() {
                let at = (start + e.span.start.offset).saturating_sub(ITEMS.len());
                return Err((at, e.span.len(), e.message.clone()));
            }
            let items: Vec<_> = file
                .documents
                .first()
                .and_then(|d| d.root()?.get("items"))
                .filter(|items| items.is_sequence())
                .map(|items| items.items().collect())
                .unwrap_or_default();
            if items.len() != count {
                return Err((start, 0, "not the List's items".to_string()));
            }
            for (object, &(at, _)) in items.into_iter().zip(batch) {
                self.object(object, at, seen);
            }
        }
        seen.anything = true;
        Ok(())
    }

    /// JSON: a List's `items` streamed one at a time; other top-level keys kept as a value.
    fn read_json(&mut self, input: usize, text: &str, seen: &mut Seen) -> Result<(), Located> {
        let mut de = serde_json::Deserializer::from_str(text);
        let rest = {
            let mut each = |item: serde_json::Value| self.object(&item, 0, seen);
            super::split::json_items(&mut de, &mut each)
        };
        let rest = rest
            .and_then(|rest| de.end().map(|()| rest))
            .map_err(|e| json_error(text, &e))?;
        self.root(input, &serde_json::Value::Object(rest), 0, seen);
        Ok(())
    }

    /// A document's root: `kubectl version`, a List, or one object.
    fn root<T: Tree>(&mut self, input: usize, root: T, offset: usize, seen: &mut Seen) {
        if let Some(version) = root.get("serverVersion").and_then(|v| v.get("gitVersion")) {
            if let Some(version) = version.text() {
                seen.anything = true;
                seen.read = true;
                seen.from_cluster = true;
                self.server_version.get_or_insert((version, input));
            }
        }
        match root.get("kind").and_then(T::text) {
            Some(kind) if kind.ends_with("List") => {
                seen.anything = true;
                for item in root.get("items").and_then(T::seq).unwrap_or_default() {
                    self.object(item, offset, seen);
                }
            }
            Some(_) => self.object(root, offset, seen),
            None => seen.cut_short |= root.get("items").and_then(T::seq).is_some(),
        }
    }

    /// One object: folded (Nodes), kept cut down to what its facts need, or passed over.
    fn object<T: Tree>(&mut self, node: T, offset: usize, seen: &mut Seen) {
        let Some(kind) = node.get("kind").and_then(T::text) else {
            return;
        };
        if !seen.anything {
            seen.first_object = offset;
        }
        seen.anything = true;
        seen.from_cluster |= stamped(node, &kind);
        let Some(paths) = keep(&kind) else {
            if !seen.read && seen.first_other.is_none() {
                seen.first_other = Some((kind, offset));
            }
            return;
        };
        seen.read = true;
        let value = copy(node, paths);
        let text = |path: &[&str]| value.path(path).and_then(Val::as_str).map(str::to_string);
        let wanted = match kind.as_str() {
            "Node" => {
                self.nodes.add(&value);
                false
            }
            // Pods of DaemonSets and ReplicaSets repeat their owners; static pods do not.
            "Pod" => {
                mirrored_node(&value).is_some()
                    || value.path(&["metadata", "ownerReferences"]).is_none()
            }
            "Service" => text(&["spec", "type"]).as_deref() == Some("LoadBalancer"),
            _ => true,
        };
        let Some(name) = text(&["metadata", "name"]).filter(|_| wanted) else {
            return;
        };
        self.kept.push(Kept {
            namespace: text(&["metadata", "namespace"]).unwrap_or_default(),
            name,
            kind,
            value,
        });
    }
}

/// Whether an object shows it was read from a cluster (see [`Seen::from_cluster`]).
fn stamped<T: Tree>(node: T, kind: &str) -> bool {
    let metadata = node.get("metadata");
    let field = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .is_some_and(|v| !v.is_null())
    };
    kind == "Node"
        || field("uid")
        || field("resourceVersion")
        || field("creationTimestamp")
        || metadata
            .and_then(|m| m.get("namespace"))
            .and_then(T::text)
            .is_some_and(|ns| ns == "kube-system")
        || node.get("status").is_some_and(|s| !s.is_null())
}

/// An error's offset, length and message.
type Located = (usize, usize, String);

/// serde_json's line and column, as an offset into `text`.
fn json_error(text: &str, e: &serde_json::Error) -> Located {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = (line_start + e.column().saturating_sub(1)).min(text.len());
    let message = e.to_string();
    // serde_json appends " at line L column C"; the location says it.
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m)
        .to_string();
    (offset, 0, message)
}

/// No dump settles the cloud (or they disagree): an error naming the dump to add, at the
/// first input.
pub(crate) fn unsettled_cloud(inputs: &[Input], conflict: Option<&str>) -> SettingsError {
    let message = match conflict {
        Some(both) => format!("the dumps disagree on the cloud: {both}"),
        None => {
            "no dump shows the cloud: no node with a spec.providerID, and nothing in kube-system \
                 (a vendor's version suffix, image registry or controller ConfigMap) names one"
                .to_string()
        }
    };
    let help = "add `kubectl get nodes -o yaml` (the nodes' providerID names the cloud) and \
                `kubectl -n kube-system get ds,deploy,cm,pods -o yaml`, or state it with \
                `--provider NAME` (`generic` for a cluster on no cloud lblint models)"
        .to_string();
    match inputs.first() {
        Some(input) => error(input, 0, 0, &message, Some(help)),
        None => SettingsError::new(
            CODE,
            "-",
            Arc::from(""),
            Place::NOWHERE,
            &message,
            Some(help),
        ),
    }
}

/// An error at its place in `input`; its lines are not shown when they may be a Secret's
/// ([`super::redact`]), and the message says so.
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
    if super::redact::may_show_secret(&input.text, at.offset, at.len) {
        let message = format!("{message} (its lines are not shown: they may be a Secret's)");
        return SettingsError::new(CODE, &input.name, Arc::from(""), at, message, help).withheld();
    }
    SettingsError::new(
        CODE,
        &input.name,
        Arc::from(input.text.as_str()),
        at,
        message,
        help,
    )
}

/// `message` with every `quoted` part left out.
fn unquoted(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { "…" } else { part })
        .collect::<Vec<_>>()
        .join("`")
}
