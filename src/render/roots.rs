//! What to render: kustomization roots (a kustomization no other kustomization of the
//! walked tree includes, and not a `Component`) and chart folders (a `Chart.yaml` not inside another chart), each
//! with the raw files its render replaces. Paths are absolute and lexical, as the walk
//! names files (links are not resolved).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::catalog::lbl;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::Location;
use crate::source::{SourceFile, Span};
use crate::walk::{absolute, display_relative, InputFile, InputSource};

/// File names kustomize reads as a kustomization, in its order.
pub(super) const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// One kustomization file, read.
pub(super) struct Kustomization {
    /// The folder (absolute).
    pub(super) dir: PathBuf,
    pub(super) source: Arc<SourceFile>,
    pub(super) refs: Vec<Ref>,
    /// `kind: Component`: only ever included by another kustomization, never built alone
    /// (kustomize refuses to).
    pub(super) component: bool,
}

/// A path a kustomization names: where it is written, and what it resolves to.
pub(super) struct Ref {
    pub(super) written: String,
    pub(super) offset: usize,
    /// `resources`, `bases` or `components`: another kustomization or a manifest.
    pub(super) includes: bool,
    /// A strategic-merge patch file (`patchesStrategicMerge`, `patches[].path`).
    pub(super) patch: bool,
    pub(super) resolved: PathBuf,
}

impl Ref {
    /// A URL or git reference kustomize would fetch.
    pub(super) fn is_remote(&self) -> bool {
        let w = self.written.as_str();
        !self.resolved.exists()
            && (w.contains("://")
                || w.starts_with("git@")
                || w.starts_with("git::")
                || ["github.com/", "gitlab.com/", "bitbucket.org/"]
                    .iter()
                    .any(|host| w.starts_with(host)))
    }
}

/// A kustomization root to render, and the files it replaces.
pub(super) struct Root {
    pub(super) kustomization: Kustomization,
    pub(super) covered: Vec<PathBuf>,
    /// Remote resources anywhere in its tree: rendering would fetch them.
    pub(super) remote: Vec<(Arc<SourceFile>, usize, String)>,
    /// Patch files anywhere in its tree, the root's first (the last to apply).
    pub(super) patches: Vec<PathBuf>,
    /// Its tree's kustomization files, the root's first.
    pub(super) kustomizations: Vec<PathBuf>,
    /// Files its tree names that do not exist: the kustomization and where each is named.
    pub(super) missing: Vec<Missing>,
}

/// A file a kustomization names that does not exist.
pub(super) struct Missing {
    pub(super) file: Arc<SourceFile>,
    pub(super) offset: usize,
    pub(super) path: PathBuf,
}

/// A chart folder to render, and the files it replaces.
pub(super) struct Chart {
    pub(super) dir: PathBuf,
    pub(super) source: Arc<SourceFile>,
    pub(super) covered: Vec<PathBuf>,
}

pub(super) struct Found {
    pub(super) kustomizations: Vec<Root>,
    pub(super) charts: Vec<Chart>,
    /// Kustomizations that include themselves, directly or through others: the file, the
    /// offset of the include that closes the loop, and the loop as displayed.
    pub(super) loops: Vec<(Arc<SourceFile>, usize, String)>,
}

/// The kustomization file of `dir`, if it has one.
pub(super) fn kustomization_in(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// Read and parse the kustomization file `file` (absolute); `None` when it cannot be read.
pub(super) fn read_kustomization(file: &Path, cwd: &Path) -> Option<Kustomization> {
    let bytes = crate::read::read_regular(file, crate::settings::MAX_BYTES as u64).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let dir = file.parent()?.to_path_buf();
    let value: Value =
        serde_saphyr::from_str_with_options(&text, crate::settings::yaml_options()).ok()?;
    let mut refs = Vec::new();
    let mut add = |written: &str, includes: bool, patch: bool| {
        // An inline patch (a YAML text, not a path).
        if written.contains('\n') || written.is_empty() {
            return;
        }
        refs.push(Ref {
            written: written.to_string(),
            offset: text.find(written).unwrap_or(0),
            includes,
            patch,
            resolved: absolute(&dir.join(written), cwd),
        });
    };
    let strings = |key: &str| -> Vec<&str> {
        let list = value.get(key).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    };
    for key in ["resources", "bases", "components"] {
        strings(key).into_iter().for_each(|w| add(w, true, false));
    }
    for key in [
        "patchesStrategicMerge",
        "crds",
        "transformers",
        "generators",
    ] {
        let patch = key == "patchesStrategicMerge";
        strings(key).into_iter().for_each(|w| add(w, false, patch));
    }
    for key in ["patches", "patchesJson6902", "replacements"] {
        let list = value.get(key).and_then(Value::as_array);
        for path in list.into_iter().flatten().filter_map(|p| p.get("path")) {
            let patch = key == "patches";
            path.as_str().into_iter().for_each(|w| add(w, false, patch));
        }
    }
    // kustomize loads the OpenAPI schema from this path, and fetches it when it is a URL.
    let openapi = value.get("openapi").and_then(|o| o.get("path"));
    if let Some(path) = openapi.and_then(Value::as_str) {
        add(path, false, false);
    }
    // Generator inputs: a missing one is located at its entry (`KEY=path` names `path`).
    for key in ["configMapGenerator", "secretGenerator"] {
        let list = value.get(key).and_then(Value::as_array);
        for entry in list.into_iter().flatten() {
            let files = ["files", "envs"].into_iter().filter_map(|k| entry.get(k));
            let files = files.filter_map(Value::as_array).flatten();
            let env = entry.get("env").into_iter();
            for written in files.chain(env).filter_map(Value::as_str) {
                let path = written.split_once('=').map_or(written, |(_, p)| p);
                add(path, false, false);
            }
        }
    }
    let shown = display_relative(file, cwd);
    let component = value.get("kind").and_then(Value::as_str) == Some("Component");
    Some(Kustomization {
        dir,
        source: Arc::new(SourceFile::new(shown, text)),
        refs,
        component,
    })
}

/// Absolute paths of the walked files.
fn walked_paths(files: &[InputFile], cwd: &Path) -> Vec<PathBuf> {
    files
        .iter()
        .filter_map(|f| match &f.source {
            InputSource::File(path) => Some(absolute(path, cwd)),
            InputSource::Stdin => None,
        })
        .collect()
}

/// The kustomizations of the walked tree: walked kustomization files, and a
/// `Kustomization` (no extension, so not walked) beside any walked file.
fn kustomizations(walked: &[PathBuf], cwd: &Path) -> Vec<Kustomization> {
    let dirs: HashSet<&Path> = walked.iter().filter_map(|p| p.parent()).collect();
    let mut dirs: Vec<&Path> = dirs.into_iter().collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(kustomization_in)
        .filter_map(|file| read_kustomization(&file, cwd))
        .collect()
}

/// Roots and charts among the walked files.
pub(super) fn find(files: &[InputFile], cwd: &Path) -> Found {
    let walked = walked_paths(files, cwd);
    let all = kustomizations(&walked, cwd);
    let included: HashSet<PathBuf> = all
        .iter()
        .flat_map(|k| &k.refs)
        .filter(|r| r.includes)
        .map(|r| r.resolved.clone())
        .collect();
    let loops = loops(&all, cwd);
    let kustomizations = all
        .into_iter()
        .filter(|k| !k.component && !included.contains(&k.dir))
        .map(|k| closure(k, cwd))
        .collect();
    Found {
        kustomizations,
        charts: charts(&walked, cwd),
        loops,
    }
}

/// The include loops among the walked kustomizations (`resources: [.]`, or two that list
/// each other): kustomize cannot build them, and as each is included by another none would
/// be a root, so without this they would be silently never rendered. One per loop, at the
/// first of its kustomizations in walk order.
fn loops(all: &[Kustomization], cwd: &Path) -> Vec<(Arc<SourceFile>, usize, String)> {
    let by_dir: HashMap<&Path, &Kustomization> = all.iter().map(|k| (k.dir.as_path(), k)).collect();
    let mut reported: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    for start in all {
        if reported.contains(&start.dir) {
            continue;
        }
        // Depth-first along includes, keeping the path, until the start comes back.
        let mut stack: Vec<(&Kustomization, usize)> = vec![(start, 0)];
        let mut on_path: HashSet<&Path> = HashSet::from([start.dir.as_path()]);
        while let Some((k, next)) = stack.last_mut() {
            let Some(r) = k.refs.iter().filter(|r| r.includes).nth(*next) else {
                on_path.remove(k.dir.as_path());
                stack.pop();
                continue;
            };
            *next += 1;
            if r.resolved == start.dir {
                let names: Vec<String> = stack
                    .iter()
                    .map(|(k, _)| crate::walk::display_relative(&k.dir, cwd))
                    .chain(std::iter::once(crate::walk::display_relative(
                        &start.dir, cwd,
                    )))
                    .map(|d| if d.is_empty() { ".".to_string() } else { d })
                    .collect();
                reported.extend(stack.iter().map(|(k, _)| k.dir.clone()));
                // The start's include that leads into the loop.
                let into = stack[0].1 - 1;
                let mut includes = start.refs.iter().filter(|r| r.includes);
                let at = includes.nth(into).map_or(0, |r| r.offset);
                out.push((start.source.clone(), at, names.join(" → ")));
                break;
            }
            if let Some(inner) = by_dir.get(r.resolved.as_path()) {
                if on_path.insert(inner.dir.as_path()) {
                    stack.push((inner, 0));
                }
            }
        }
    }
    out
}

/// A root with every file its tree names, and the remote resources in that tree.
fn closure(root: Kustomization, cwd: &Path) -> Root {
    let mut covered = Vec::new();
    let mut remote = Vec::new();
    let mut patches = Vec::new();
    let mut missing = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut kustomizations = Vec::new();
    let mut visit = |k: &Kustomization, queue: &mut Vec<PathBuf>| {
        let file = absolute(Path::new(&*k.source.path), cwd);
        kustomizations.push(file.clone());
        covered.push(file);
        for r in &k.refs {
            if r.is_remote() {
                remote.push((k.source.clone(), r.offset, r.written.clone()));
            } else if !r.resolved.exists() {
                missing.push(Missing {
                    file: k.source.clone(),
                    offset: r.offset,
                    path: r.resolved.clone(),
                });
            } else if r.resolved.is_dir() {
                queue.push(r.resolved.clone());
            } else {
                covered.push(r.resolved.clone());
                if r.patch {
                    patches.push(r.resolved.clone());
                }
            }
        }
    };
    let mut queue = Vec::new();
    seen.insert(root.dir.clone());
    visit(&root, &mut queue);
    while let Some(dir) = queue.pop() {
        if !seen.insert(dir.clone()) {
            continue;
        }
        let read = kustomization_in(&dir).and_then(|f| read_kustomization(&f, cwd));
        if let Some(k) = read {
            visit(&k, &mut queue);
        }
    }
    Root {
        kustomization: root,
        covered,
        remote,
        patches,
        kustomizations,
        missing,
    }
}

/// Chart folders of the walked tree (not subcharts), with their walked files.
fn charts(walked: &[PathBuf], cwd: &Path) -> Vec<Chart> {
    let dirs: Vec<&Path> = walked
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "Chart.yaml"))
        .filter_map(|p| p.parent())
        .collect();
    let top: Vec<&Path> = dirs
        .iter()
        .copied()
        .filter(|d| !dirs.iter().any(|other| other != d && d.starts_with(other)))
        .collect();
    top.into_iter()
        .filter_map(|dir| {
            let file = dir.join("Chart.yaml");
            let bytes = crate::read::read_regular(&file, crate::settings::MAX_BYTES as u64).ok()?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let source = Arc::new(SourceFile::new(display_relative(&file, cwd), text));
            let covered = walked.iter().filter(|p| p.starts_with(dir)).cloned();
            Some(Chart {
                dir: dir.to_path_buf(),
                source,
                covered: covered.collect(),
            })
        })
        .collect()
}

/// An `LBL008` finding at `offset` of `file`.
pub(crate) fn failure(
    file: &Arc<SourceFile>,
    offset: usize,
    severity: Severity,
    message: String,
    help: String,
) -> Diagnostic {
    let at = file.pos_at(offset);
    lbl::RENDER_FAILED
        .diagnostic(
            severity,
            Location {
                file: file.path.clone(),
                span: Span { start: at, end: at },
            },
            message,
        )
        .with_help(help)
}

/// Without `--render`: one `LBL009` note on the first kustomization of the walked files
/// whose resources lie outside the linted `paths` (absolute), counting the others.
pub fn unrendered_note(
    files: &[InputFile],
    paths: &[PathBuf],
) -> Option<(Diagnostic, Arc<SourceFile>)> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let walked = walked_paths(files, &cwd);
    let inside = |p: &Path| paths.iter().any(|root| p.starts_with(root));
    let outside: Vec<(Kustomization, usize)> = kustomizations(&walked, &cwd)
        .into_iter()
        .filter_map(|k| {
            let first = k.refs.iter().find(|r| r.includes && !inside(&r.resolved))?;
            let offset = first.offset;
            Some((k, offset))
        })
        .collect();
    let (k, offset) = outside.first()?;
    let others = match outside.len() - 1 {
        0 => String::new(),
        1 => " (and 1 other kustomization)".into(),
        n => format!(" (and {n} other kustomizations)"),
    };
    let at = k.source.pos_at(*offset);
    let note = lbl::KUSTOMIZATION_NOT_RENDERED
        .diagnostic(
            Severity::Note,
            Location {
                file: k.source.path.clone(),
                span: Span { start: at, end: at },
            },
            format!(
                "Kustomization not rendered: its resources lie outside the linted paths, so the objects it builds were not linted{others}."
            ),
        )
        .with_help("run `lblint check --render` to lint what it builds, with each finding in the base file that produced the object");
    Some((note, k.source.clone()))
}
