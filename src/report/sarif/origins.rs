//! Where a rendered object's template really is, for SARIF. The origin is
//! written relative to something the log does not know: a kustomize origin is relative to
//! the overlay that rendered it, a Helm `# Source:` starts with the chart's name. Resolved
//! to a file in a chart root the user named (`--chart-root`, `chartRoots`) or under the
//! working directory, or left out: a link to a file that does not exist is worse than none.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

/// How deep the search for charts and kustomizations goes below the working directory.
const MAX_DEPTH: usize = 6;
/// Directories never searched (as the walk skips them), besides hidden ones.
const SKIPPED: &[&str] = &["target", "node_modules", "vendor"];

/// Resolves origins once each; the directory search runs on the first one that needs it.
pub(super) struct Origins<'a> {
    cwd: Option<&'a Path>,
    /// Chart roots named by the user, tried first for Helm origins (absolute).
    chart_roots: &'a [PathBuf],
    /// Chart directories (holding `Chart.yaml`) and kustomization directories.
    roots: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
    resolved: HashMap<String, Option<String>>,
}

impl<'a> Origins<'a> {
    pub(super) fn new(cwd: Option<&'a Path>, chart_roots: &'a [PathBuf]) -> Origins<'a> {
        Origins {
            cwd,
            chart_roots,
            roots: None,
            resolved: HashMap::new(),
        }
    }

    /// The origin as a path relative to the working directory, if such a file exists.
    pub(super) fn resolve(&mut self, origin: &str) -> Option<String> {
        if let Some(done) = self.resolved.get(origin) {
            return done.clone();
        }
        let found = self.find(origin);
        self.resolved.insert(origin.to_string(), found.clone());
        found
    }

    fn find(&mut self, origin: &str) -> Option<String> {
        let cwd = self.cwd?;
        let written = Path::new(origin);
        if written.is_absolute() {
            return written.is_file().then(|| origin.to_string());
        }
        let helm = helm_parts(written);
        // Helm, in the chart roots the user named: they win over any search.
        if let Some(found) = helm.and_then(|(chart, rest)| in_roots(self.chart_roots, chart, rest))
        {
            return Some(relative(&found, cwd));
        }
        if !origin.starts_with("..") && cwd.join(written).is_file() {
            return Some(relative(&cwd.join(written), cwd));
        }
        let (charts, kustomizations) = self.roots.get_or_insert_with(|| search(cwd));
        // Helm: `<chart>/templates/x.yaml`, under a directory named for the chart.
        if let Some((chart, rest)) = helm {
            for dir in charts.iter().filter(|d| d.file_name() == Some(chart)) {
                if dir.join(rest).is_file() {
                    return Some(relative(&dir.join(rest), cwd));
                }
            }
        }
        // kustomize: relative to the kustomization that rendered it.
        kustomizations
            .iter()
            .map(|dir| normalize(&dir.join(written)))
            .find(|path| path.starts_with(cwd) && path.is_file())
            .map(|path| relative(&path, cwd))
    }
}

/// A Helm origin's chart name and the path in the chart: `shop` and `templates/x.yaml` for
/// `shop/templates/x.yaml`. `None` when the path could lead out of the chart (`..`).
fn helm_parts(written: &Path) -> Option<(&OsStr, &Path)> {
    let mut parts = written.components();
    let Some(Component::Normal(chart)) = parts.next() else {
        return None;
    };
    let rest = parts.as_path();
    let inside = rest.components().all(|c| matches!(c, Component::Normal(_)));
    (inside && !rest.as_os_str().is_empty()).then_some((chart, rest))
}

/// `rest` of chart `chart` in the first of `roots` that has it: the root itself when it is
/// that chart (its `Chart.yaml` names it, or it has none and the file is there), else the
/// chart's directory in the root (`<root>/<chart>/...`).
fn in_roots(roots: &[PathBuf], chart: &OsStr, rest: &Path) -> Option<PathBuf> {
    roots.iter().find_map(|root| {
        let own = chart_name(root).is_none_or(|name| OsStr::new(&name) == chart);
        [
            own.then(|| root.join(rest)),
            Some(root.join(chart).join(rest)),
        ]
        .into_iter()
        .flatten()
        .find(|path| path.is_file())
    })
}

/// The `name:` in `dir/Chart.yaml`, when there is one to read.
fn chart_name(dir: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct Chart {
        name: Option<String>,
    }
    let limit = crate::settings::MAX_BYTES as u64;
    let bytes = crate::read::read_regular(&dir.join("Chart.yaml"), limit).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let options = crate::settings::yaml_options();
    serde_saphyr::from_str_with_options::<Chart>(&text, options)
        .ok()?
        .name
}

/// Chart and kustomization directories under `cwd`, in name order.
fn search(cwd: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut charts = Vec::new();
    let mut kustomizations = Vec::new();
    let walker = walkdir::WalkDir::new(cwd)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| n.starts_with('.') || SKIPPED.contains(&n)))
        });
    for entry in walker.flatten() {
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        let Some(dir) = entry.path().parent() else {
            continue;
        };
        match name {
            "Chart.yaml" => charts.push(dir.to_path_buf()),
            "kustomization.yaml" | "kustomization.yml" | "Kustomization" => {
                kustomizations.push(dir.to_path_buf())
            }
            _ => {}
        }
    }
    (charts, kustomizations)
}

/// Lexical normalisation (`.` dropped, `dir/..` folded).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn relative(path: &Path, cwd: &Path) -> String {
    let path = normalize(path);
    path.strip_prefix(normalize(cwd))
        .unwrap_or(&path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_resolve_to_files_that_exist_or_are_left_out() {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path();
        let make = |p: &str| {
            let path = cwd.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x: 1\n").unwrap();
        };
        make("k8s/base/orders.yaml");
        make("k8s/overlays/prod/kustomization.yaml");
        make("charts/shop/Chart.yaml");
        make("charts/shop/templates/svc.yaml");
        let mut origins = Origins::new(Some(cwd), &[]);
        assert_eq!(
            origins.resolve("../../base/orders.yaml").as_deref(),
            Some("k8s/base/orders.yaml")
        );
        assert_eq!(
            origins.resolve("shop/templates/svc.yaml").as_deref(),
            Some("charts/shop/templates/svc.yaml")
        );
        assert_eq!(
            origins.resolve("k8s/base/orders.yaml").as_deref(),
            Some("k8s/base/orders.yaml")
        );
        assert_eq!(origins.resolve("other/templates/svc.yaml"), None);
        assert_eq!(origins.resolve("../../../../etc/passwd"), None);
        assert_eq!(origins.resolve("shop/../../k8s/base/orders.yaml"), None);
        assert_eq!(
            Origins::new(None, &[]).resolve("k8s/base/orders.yaml"),
            None
        );
    }

    #[test]
    fn chart_roots_are_tried_first_as_the_chart_or_as_its_parent() {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path();
        let make = |p: &str, text: &str| {
            let path = cwd.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // A chart in a directory named for something else: the search cannot tell.
        make(
            "deploy/chart/Chart.yaml",
            "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        );
        make("deploy/chart/templates/svc.yaml", "x: 1\n");
        // Another chart, whose own templates must not pass for shop's.
        make("web/Chart.yaml", "name: web\n");
        make("web/templates/svc.yaml", "x: 1\n");
        // A folder of charts, and a root that is no chart (no Chart.yaml).
        make("far/shop/templates/svc.yaml", "x: 1\n");
        make("plain/templates/cm.yaml", "x: 1\n");
        let origin = "shop/templates/svc.yaml";
        assert_eq!(Origins::new(Some(cwd), &[]).resolve(origin), None);
        let resolve = |roots: &[&str], origin: &str| {
            let roots: Vec<PathBuf> = roots.iter().map(|r| cwd.join(r)).collect();
            Origins::new(Some(cwd), &roots).resolve(origin)
        };
        let chart = Some("deploy/chart/templates/svc.yaml".to_string());
        assert_eq!(resolve(&["deploy/chart"], origin), chart);
        assert_eq!(resolve(&["web", "deploy/chart"], origin), chart);
        assert_eq!(resolve(&["web"], origin), None);
        assert_eq!(
            resolve(&["web", "far"], origin).as_deref(),
            Some("far/shop/templates/svc.yaml")
        );
        assert_eq!(
            resolve(&["plain"], "shop/templates/cm.yaml").as_deref(),
            Some("plain/templates/cm.yaml")
        );
        assert_eq!(
            resolve(&["deploy/chart"], "shop/../../web/Chart.yaml"),
            None
        );
    }
}
