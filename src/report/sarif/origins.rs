//! Where a rendered object's template really is, for SARIF (issue 15 item 3). The origin is
//! written relative to something the log does not know: a kustomize origin is relative to
//! the overlay that rendered it, a Helm `# Source:` starts with the chart's name. Resolved
//! to a file under the working directory, or left out: a link to a file that does not exist
//! is worse than none.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How deep the search for charts and kustomizations goes below the working directory.
const MAX_DEPTH: usize = 6;
/// Directories never searched (as the walk skips them), besides hidden ones.
const SKIPPED: &[&str] = &["target", "node_modules", "vendor"];

/// Resolves origins once each; the directory search runs on the first one that needs it.
pub(super) struct Origins<'a> {
    cwd: Option<&'a Path>,
    /// Chart directories (holding `Chart.yaml`) and kustomization directories.
    roots: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
    resolved: HashMap<String, Option<String>>,
}

impl<'a> Origins<'a> {
    pub(super) fn new(cwd: Option<&'a Path>) -> Origins<'a> {
        Origins {
            cwd,
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
        if !origin.starts_with("..") && cwd.join(written).is_file() {
            return Some(relative(&cwd.join(written), cwd));
        }
        let (charts, kustomizations) = self.roots.get_or_insert_with(|| search(cwd));
        // Helm: `<chart>/templates/x.yaml`, under a directory named for the chart.
        let mut parts = written.components();
        if let Some(chart) = parts.next() {
            let rest = parts.as_path();
            for dir in charts
                .iter()
                .filter(|d| d.file_name() == Some(chart.as_os_str()))
            {
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
        let mut origins = Origins::new(Some(cwd));
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
        assert_eq!(Origins::new(None).resolve("k8s/base/orders.yaml"), None);
    }
}
