//! Findings in rendered text, moved to the file that produced the object: the base file a
//! kustomize origin annotation names (the object found there by kind and name, then the
//! same key path), the kustomization whose generator made a ConfigMap or Secret, or the
//! Helm template a `# Source:` comment names (a template is not YAML: its lines are
//! matched by indentation). A key the base lacks is shown in the tree's patch file that
//! has it (its suppression comments then apply), else at its nearest parent in the base. Each finding keeps the rendered object's identity, names the kustomization or
//! chart that rendered it, and its origin, so `--fix` refuses it ("edit that file").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::generator;
use crate::diagnostic::Diagnostic;
use crate::objects::{LintFile, Object, Workspace};
use crate::render::{Buffer, Origin};
use crate::source::{Location, SourceFile, SourceMap, Span};
use crate::yaml::{LoadedFile, NodeRef};

/// One step from an object's root to a node: a key, or a list item (by index, and by its
/// `name` when it has one: a patch may reorder a list).
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Item(usize, Option<String>),
}

/// The way to a node of a rendered object: the steps, and whether it ends on a key.
#[derive(Clone, Debug, Default, PartialEq)]
struct Way {
    steps: Vec<Step>,
    on_key: bool,
}

fn holds(extent: crate::yaml::Extent, offset: usize) -> bool {
    extent.start() <= offset && offset < extent.end().max(extent.start() + 1)
}

/// The way from `root` to the node at byte `offset`.
fn way_to(root: NodeRef<'_>, offset: usize) -> Way {
    let mut way = Way::default();
    let mut node = root.resolved();
    'down: loop {
        if node.is_mapping() {
            for (key, value) in node.written_entries() {
                let name = key.as_str().unwrap_or_default().to_string();
                if holds(key.extent(), offset) {
                    way.steps.push(Step::Key(name));
                    way.on_key = true;
                    return way;
                }
                if holds(value.extent(), offset) {
                    way.steps.push(Step::Key(name));
                    node = value.resolved();
                    continue 'down;
                }
            }
        } else if node.is_sequence() {
            for (i, item) in node.items().enumerate() {
                if holds(item.extent(), offset) {
                    let name = item.get("name").and_then(|n| n.as_str()).map(String::from);
                    way.steps.push(Step::Item(i, name));
                    node = item.resolved();
                    continue 'down;
                }
            }
        }
        return way;
    }
}

/// Where `way` leads in `root` (a base object): the node itself, else the key of the
/// deepest step found, else the object's name; and whether the whole way was found.
fn follow(root: NodeRef<'_>, way: &Way) -> (crate::yaml::Extent, bool) {
    let fallback = root
        .path(&["metadata", "name"])
        .map_or(root.extent(), |n| n.extent());
    let (mut node, mut best) = (root.resolved(), fallback);
    for (i, step) in way.steps.iter().enumerate() {
        let last = i + 1 == way.steps.len();
        match step {
            Step::Key(name) => {
                let Some((key, value)) = node.get_entry(name) else {
                    return (best, false);
                };
                best = if last && !way.on_key {
                    value.extent()
                } else {
                    key.extent()
                };
                node = value.resolved();
            }
            Step::Item(index, name) => {
                let by_name = name.as_ref().and_then(|want| {
                    node.items()
                        .find(|item| item.get("name").and_then(|n| n.as_str()) == Some(want))
                });
                // A named item the base lacks is the overlay's own: not the base's item there.
                let item = match name {
                    Some(_) => by_name,
                    None => node.items().nth(*index),
                };
                let Some(item) = item else {
                    return (best, false);
                };
                best = item.extent();
                node = item.resolved();
            }
        }
    }
    (best, true)
}

/// The document of `loaded` that holds the rendered object `kind`/`name`: same kind and
/// name, else the longest name the rendered one contains (a prefix or suffix was added),
/// else the only one of that kind.
fn base_object<'l>(loaded: &'l LoadedFile, kind: &str, name: &str) -> Option<NodeRef<'l>> {
    let of_kind: Vec<(NodeRef<'l>, &str)> = loaded
        .documents
        .iter()
        .filter_map(|d| d.root())
        .filter(|r| r.get("kind").and_then(|k| k.as_str()) == Some(kind))
        .map(|r| {
            let n = r.path(&["metadata", "name"]).and_then(|n| n.as_str());
            (r, n.unwrap_or_default())
        })
        .collect();
    let exact = of_kind.iter().find(|(_, n)| *n == name);
    let within = || {
        of_kind
            .iter()
            .filter(|(_, n)| !n.is_empty() && name.contains(*n))
            .max_by_key(|(_, n)| n.len())
    };
    let only = || (of_kind.len() == 1).then(|| &of_kind[0]);
    exact.or_else(within).or_else(only).map(|(r, _)| *r)
}

/// `path` (absolute) with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    crate::walk::absolute(path, Path::new("/"))
}

/// The lines of kustomize's origin annotation: `path`, else `configuredIn`.
fn kustomize_origin(ws: &Workspace, object: &Object) -> Option<(String, bool)> {
    let text = ws
        .metadata(object, "annotations")?
        .get("config.kubernetes.io/origin")?
        .as_str()?;
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let value = l.trim().strip_prefix(name)?.strip_prefix(':')?;
            Some(value.trim().trim_matches(['"', '\'']).to_string())
        })
    };
    field("path")
        .map(|p| (p, false))
        .or_else(|| field("configuredIn").map(|p| (p, true)))
}

/// A base file read once, with its parse.
struct Base {
    source: Arc<SourceFile>,
    loaded: Option<LoadedFile>,
}

/// Reads and caches base files and templates: only inside the repositories rendered.
struct Bases {
    cwd: PathBuf,
    files: HashMap<PathBuf, Option<Base>>,
    /// The canonical folders a base may be in (the rendered roots' repositories).
    confine: Vec<PathBuf>,
    /// Paths a rendered text named that resolve outside them, as named.
    refused: Vec<PathBuf>,
}

impl Bases {
    /// The base at `path`, read once; `None` when it cannot be read or resolves (symbolic
    /// links followed) outside every confining folder: a kustomize origin annotation or a
    /// Helm `# Source:` line is text the repository controls, and must not make lblint read
    /// `/proc/self/environ` into a report.
    fn get(&mut self, path: &Path, yaml: bool) -> Option<&Base> {
        let cwd = &self.cwd;
        let confine = &self.confine;
        let refused = &mut self.refused;
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let real = std::fs::canonicalize(path).ok()?;
                if !confine.iter().any(|root| real.starts_with(root)) {
                    refused.push(path.to_path_buf());
                    return None;
                }
                let limit = crate::walk::DEFAULT_MAX_FILE_SIZE;
                let bytes = crate::read::read_regular(&real, limit).ok()?;
                let text = String::from_utf8(bytes).ok()?;
                let shown = crate::walk::display_relative(path, cwd);
                let loaded = yaml.then(|| crate::yaml::load(&text, &Default::default()));
                Some(Base {
                    source: Arc::new(SourceFile::new(shown, text)),
                    loaded,
                })
            })
            .as_ref()
    }
}

/// Where a finding at `offset` of a rendered object goes: the file and its span.
fn target(
    ws: &Workspace,
    object: &Object,
    origin: &Origin,
    offset: usize,
    bases: &mut Bases,
) -> Option<Location> {
    let way = way_to(ws.root(object), offset);
    let (file, extent) = match origin {
        Origin::Kustomize {
            wrapper,
            patches,
            kustomizations,
        } => kustomize_target(ws, object, (wrapper, patches, kustomizations), &way, bases)?,
        Origin::Helm { chart } => {
            let written = object.origin.as_deref()?;
            let rest: PathBuf = Path::new(written).components().skip(1).collect();
            let base = bases.get(&normalize(&chart.join(rest)), false)?;
            let text = &base.source.text;
            let at = super::template::locate(text, &rendered_from(ws, object), &way_keys(&way));
            (
                base.source.clone(),
                Some(crate::yaml::Extent::new(at.0, at.1)),
            )
        }
    };
    let extent = extent.unwrap_or_else(|| crate::yaml::Extent::new(0, 0));
    Some(Location {
        file: file.path.clone(),
        span: Span {
            start: file.pos_at(extent.start()),
            end: file.pos_at(extent.end()),
        },
    })
}

/// `object` among the objects of its kind that the same template rendered (same
/// `# Source:`, same rendered text), in the text's order.
fn rendered_from<'o>(ws: &Workspace, object: &'o Object) -> super::template::Rendered<'o> {
    let mut siblings: Vec<&Object> = ws
        .objects
        .iter()
        .filter(|o| o.file == object.file && o.origin == object.origin && o.kind() == object.kind())
        .collect();
    siblings.sort_by_key(|o| ws.document(o).span.start.offset);
    let at = ws.document(object).span.start.offset;
    super::template::Rendered {
        kind: object.kind(),
        name: object.name(),
        index: siblings
            .iter()
            .position(|o| ws.document(o).span.start.offset == at)
            .unwrap_or(0),
        count: siblings.len(),
    }
}

/// Where a finding's `way` leads for a kustomize-rendered object: the base file's object
/// (or the generator entry that made it); when the base lacks the way, the first patch
/// file of the tree (the root's first) whose object of that kind and name has it.
fn kustomize_target(
    ws: &Workspace,
    object: &Object,
    (wrapper, patches, kustomizations): (&Path, &[PathBuf], &[PathBuf]),
    way: &Way,
    bases: &mut Bases,
) -> Option<(Arc<SourceFile>, Option<crate::yaml::Extent>)> {
    let (path, generated) = kustomize_origin(ws, object)?;
    if generated {
        if let Some(found) = generated_target(object, kustomizations, way, bases) {
            return Some(found);
        }
    }
    let base = bases.get(&normalize(&wrapper.join(path)), true)?;
    let loaded = base.loaded.as_ref()?;
    let source = base.source.clone();
    if generated {
        return Some((source.clone(), generator_entry(&source.text, object)));
    }
    let found = base_object(loaded, object.kind(), object.name()).map(|r| follow(r, way));
    if found.is_some_and(|(_, whole)| !whole) {
        for patch in patches {
            let Some(loaded) = bases.get(patch, true).and_then(|p| p.loaded.as_ref()) else {
                continue;
            };
            let named = base_object(loaded, object.kind(), object.name()).filter(|r| {
                let name = r.path(&["metadata", "name"]).and_then(|n| n.as_str());
                name.is_some_and(|n| !n.is_empty() && object.name().contains(n))
            });
            if let Some((extent, true)) = named.map(|r| follow(r, way)) {
                let file = bases.get(patch, true)?.source.clone();
                return Some((file, Some(extent)));
            }
        }
    }
    Some((source, found.map(|(extent, _)| extent)))
}

/// A generated object's finding: in the first of the tree's kustomizations (the root's
/// first) whose generator entry holds the value (see [`super::generator`]).
fn generated_target(
    object: &Object,
    kustomizations: &[PathBuf],
    way: &Way,
    bases: &mut Bases,
) -> Option<(Arc<SourceFile>, Option<crate::yaml::Extent>)> {
    let key = match way.steps.as_slice() {
        [Step::Key(data), Step::Key(key), ..]
            if ["data", "stringData", "binaryData"].contains(&data.as_str()) =>
        {
            Some(key.as_str())
        }
        _ => None,
    };
    kustomizations.iter().find_map(|file| {
        let base = bases.get(file, true)?;
        let extent = generator::holder(base.loaded.as_ref()?, object.kind(), object.name(), key)?;
        Some((base.source.clone(), Some(extent)))
    })
}

/// The keys of a way, without list items (a template is matched by keys).
fn way_keys(way: &Way) -> Vec<&str> {
    way.steps
        .iter()
        .filter_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Item(..) => None,
        })
        .collect()
}

/// The `name:` of the generator entry that made `object` (its name without the overlay's
/// prefix and the content hash), in the kustomization's text.
fn generator_entry(text: &str, object: &Object) -> Option<crate::yaml::Extent> {
    let mut best: Option<(usize, usize)> = None;
    for (at, _) in text.match_indices("name:") {
        let value = text[at + 5..].lines().next().unwrap_or_default().trim();
        let value = value.trim_matches(['"', '\'']);
        if !value.is_empty() && object.name().contains(value) {
            let start = at + 5 + text[at + 5..].find(value).unwrap_or(0);
            if best.is_none_or(|(_, len)| value.len() > len) {
                best = Some((start, value.len()));
            }
        }
    }
    best.map(|(start, len)| crate::yaml::Extent::new(start, start + len))
}

/// Move every finding in a rendered text to the file that produced its object (see the
/// module). Files pointed into join `sources`, for snippets; the YAML ones come back, for
/// their suppression comments.
pub fn map_back(
    ws: &Workspace,
    buffers: &[Buffer],
    diagnostics: &mut Vec<Diagnostic>,
    sources: &mut SourceMap,
) -> Vec<LintFile> {
    if buffers.is_empty() {
        return Vec::new();
    }
    let by_display: HashMap<&str, &Buffer> =
        buffers.iter().map(|b| (b.display.as_str(), b)).collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let confine = buffers
        .iter()
        .filter_map(|b| {
            let root = crate::walk::absolute(Path::new(&*b.root.path), &cwd);
            std::fs::canonicalize(super::committed::repository(&root, &cwd)).ok()
        })
        .collect();
    let mut bases = Bases {
        cwd,
        files: HashMap::new(),
        confine,
        refused: Vec::new(),
    };
    // The objects of each rendered text, by where their documents start: a finding's
    // object is found by binary search, not a scan of every object.
    let mut objects: HashMap<&str, Vec<(usize, usize, &Object)>> = HashMap::new();
    for o in &ws.objects {
        let path = &*ws.files[o.file].source.path;
        if by_display.contains_key(path) {
            let span = ws.document(o).span;
            let list = objects.entry(path).or_default();
            list.push((span.start.offset, span.end.offset, o));
        }
    }
    for list in objects.values_mut() {
        list.sort_by_key(|(start, _, _)| *start);
    }
    let locate = |location: &Location, bases: &mut Bases| -> Option<(Location, Arc<SourceFile>)> {
        let buffer = by_display.get(&*location.file)?;
        let offset = location.span.start.offset;
        let list = objects.get(&*location.file)?;
        let i = list
            .partition_point(|(start, _, _)| *start <= offset)
            .checked_sub(1)?;
        let (_, end, object) = list[i];
        if offset > end {
            return None;
        }
        let to = target(ws, object, &buffer.origin, offset, bases)?;
        Some((to, buffer.root.clone()))
    };
    let mut roots = HashMap::new();
    for d in diagnostics.iter_mut() {
        let Some((to, root)) = locate(d.location(), &mut bases) else {
            continue;
        };
        let related = d.related().to_vec();
        let mut moved = d.clone().relocated(to.clone());
        for (i, r) in related.iter().enumerate() {
            if let Some((there, _)) = locate(&r.location, &mut bases) {
                moved.relocate_related(i, there);
            }
        }
        moved.set_origin(Arc::from(&*to.file));
        moved.drop_edits();
        let start = root.pos_at(0);
        let at = Location {
            file: root.path.clone(),
            span: Span { start, end: start },
        };
        *d = moved.with_related(at, format!("rendered by `{}`", root.path));
        roots.insert(root.path.clone(), root);
    }
    for root in roots.into_values() {
        if sources.get(&root.path).is_none() {
            sources.insert(root);
        }
    }
    diagnostics.extend(refusals(&bases.refused, buffers, &bases.cwd, sources));
    let mut files = Vec::new();
    for base in bases.files.into_values().flatten() {
        if sources.get(&base.source.path).is_none() {
            sources.insert(base.source.clone());
        }
        if let Some(loaded) = base.loaded {
            files.push(LintFile {
                source: base.source,
                loaded: Arc::new(loaded),
            });
        }
    }
    files
}

/// One LBL008 per path outside the repository that a rendered text named as a source, at
/// the first rendered root (the target is named as written, never read or quoted).
fn refusals(
    refused: &[PathBuf],
    buffers: &[Buffer],
    cwd: &Path,
    sources: &mut SourceMap,
) -> Vec<Diagnostic> {
    let Some(root) = buffers.first().map(|b| b.root.clone()) else {
        return Vec::new();
    };
    if !refused.is_empty() && sources.get(&root.path).is_none() {
        sources.insert(root.clone());
    }
    refused
        .iter()
        .map(|path| {
            crate::render::failure(
                &root,
                0,
                crate::diagnostic::Severity::Error,
                format!(
                    "the rendered output names `{}` as the source of an object, outside the repository: \
                     not read, and the findings on that object stay in the rendered text",
                    crate::walk::display_relative(path, cwd)
                ),
                "a kustomize origin annotation (`config.kubernetes.io/origin`) or a Helm `# Source:` line \
                 is text the repository controls; point it at a file of the repository, or remove it"
                    .to_string(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_way_down_a_rendered_object_is_followed_in_its_base() {
        let rendered = "kind: Service\nmetadata:\n  name: prod-api\n  namespace: prod\nspec:\n  type: LoadBalancer\n  ports:\n  - name: http\n    port: 80\n  - name: extra\n    port: 81\n";
        let base = "# base\nkind: Service\nmetadata:\n  name: api\nspec:\n  ports:\n    - name: extra\n      port: 81\n  type: LoadBalancer\n";
        let r = crate::yaml::load(rendered, &Default::default());
        let b = crate::yaml::load(base, &Default::default());
        let root = r.documents[0].root().unwrap();
        let base_root = base_object(&b, "Service", "prod-api").unwrap();
        let at = |needle: &str| rendered.find(needle).unwrap();
        let found = |needle: &str| {
            let way = way_to(root, at(needle));
            let (e, _) = follow(base_root, &way);
            &base[e.start()..e.end()]
        };
        assert_eq!(found("LoadBalancer"), "LoadBalancer");
        assert_eq!(found("type"), "type");
        assert_eq!(found("81"), "81", "the item by its name, not its index");
        assert_eq!(
            found("80"),
            "ports",
            "an item the base lacks: its list's key"
        );
        assert_eq!(found("namespace"), "metadata", "a key the overlay added");
    }
}
