//! Committed Helm output whose chart is not in the repository (`helm template` run
//! elsewhere, its output committed): that rendered file is the one the team changes, so a
//! finding's fix applies there. Its origin stays for the reports, and the finding is marked
//! ([`Diagnostic::set_template_absent`]) when no chart of the repository has the template
//! its `# Source:` comment names; a template that is there is still the file to edit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;

/// The repository `file` is in: the nearest folder above it with `.git`, else `cwd`.
pub(super) fn repository(file: &Path, cwd: &Path) -> PathBuf {
    let file = crate::walk::absolute(file, cwd);
    file.parent()
        .and_then(crate::walk::repository_root)
        .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf)
}

/// The chart folders under `root` with their names (`name:` in `Chart.yaml`, which is
/// what `# Source:` starts with), hidden folders, `target` and `node_modules` passed over.
fn charts(root: &Path) -> Vec<(String, PathBuf)> {
    let skip = |name: &str| name.starts_with('.') || name == "target" || name == "node_modules";
    walkdir::WalkDir::new(root)
        .max_depth(12)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skip(&e.file_name().to_string_lossy()))
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == "Chart.yaml")
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            let name = text.lines().find_map(|l| l.strip_prefix("name:"))?;
            let name = name.trim().trim_matches(['"', '\'']).to_string();
            Some((name, e.path().parent()?.to_path_buf()))
        })
        .collect()
}

/// Mark each fixable finding in a file on disk whose text names its origin in a
/// `# Source:` comment, when no chart under the file's repository holds that template
/// (`<chart>/templates/...`: the path after the chart's name).
pub fn mark_absent_templates(
    diagnostics: &mut [Diagnostic],
    sources: &SourceMap,
    on_disk: &HashMap<Arc<str>, PathBuf>,
) {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut found: HashMap<PathBuf, Vec<(String, PathBuf)>> = HashMap::new();
    for d in diagnostics.iter_mut() {
        let (Some(origin), Some(_)) = (d.origin(), d.fix()) else {
            continue;
        };
        let file = &d.location().file;
        let (Some(path), Some(source)) = (on_disk.get(file), sources.get(file)) else {
            continue;
        };
        let comment = format!("# Source: {origin}");
        if !source.text.lines().any(|l| l.trim_end() == comment) {
            continue;
        }
        let mut parts = Path::new(origin).components();
        let chart = parts
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let rest = parts.as_path();
        let root = repository(path, &cwd);
        let charts = found.entry(root.clone()).or_insert_with(|| charts(&root));
        let here = |(name, dir): &(String, PathBuf)| {
            Some(name) == chart.as_ref() && dir.join(rest).is_file()
        };
        if !charts.iter().any(here) {
            d.set_template_absent();
        }
    }
}
