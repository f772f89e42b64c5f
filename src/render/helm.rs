//! Rendering charts: `helm template RELEASE CHART -f VALUES...`, offline. Helm's dependency
//! commands (`dependency build`/`update`) are never run: a dependency `Chart.yaml` lists
//! that is not vendored in `charts/` is reported, and the chart is not rendered.

use std::path::Path;

use serde_json::Value;

use super::roots::Chart;
use super::run::{run_all, Job, Ran};
use super::tools::{describe, on_path};
use super::{ran_message, Buffer, Fail, Origin, Part, RenderOptions, TOO_LARGE};

const INSTALL: &str = "install Helm 3 (https://helm.sh/docs/intro/install/) and put `helm` on PATH";

/// The dependencies `Chart.yaml` lists that `charts/` lacks (neither a folder nor a
/// `NAME-VERSION.tgz`), with where each is written.
fn missing_dependencies(chart: &Chart) -> Vec<(String, usize)> {
    let text = &chart.source.text;
    let Ok(value) =
        serde_saphyr::from_str_with_options::<Value>(text, crate::settings::yaml_options())
    else {
        return Vec::new();
    };
    let deps = value.get("dependencies").and_then(Value::as_array);
    let vendored = |name: &str| {
        let dir = chart.dir.join("charts");
        dir.join(name).join("Chart.yaml").is_file()
            || std::fs::read_dir(&dir).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    let file = e.file_name().to_string_lossy().into_owned();
                    file.starts_with(&format!("{name}-")) && file.ends_with(".tgz")
                })
            })
    };
    deps.into_iter()
        .flatten()
        .filter_map(|d| d.get("name")?.as_str())
        .filter(|name| !vendored(name))
        .map(|name| {
            let at = text.find(&format!("name: {name}")).unwrap_or(0);
            (name.to_string(), at)
        })
        .collect()
}

fn job(program: &Path, chart: &Chart, options: &RenderOptions) -> Job {
    let mut args: Vec<std::ffi::OsString> = vec![
        "template".into(),
        options.helm_release.clone().into(),
        chart.dir.clone().into_os_string(),
    ];
    for values in &options.helm_values {
        args.push("-f".into());
        args.push(values.clone().into_os_string());
    }
    Job {
        program: program.to_path_buf(),
        args,
    }
}

/// Render every chart; failures become findings through `fail`.
pub(super) fn render_all(
    charts: &[Chart],
    options: &RenderOptions,
    threads: usize,
    fail: &mut Fail<'_>,
) -> Part {
    let mut part = Part::default();
    let mut ready = Vec::new();
    for chart in charts {
        if let Some((message, help)) = refused(&chart.dir) {
            let message = format!("Chart not rendered: {message}");
            part.diagnostics
                .push(fail(&chart.source, 0, message, help.into()));
            continue;
        }
        let missing = missing_dependencies(chart);
        match missing.first() {
            Some((name, at)) => part.diagnostics.push(fail(
                &chart.source,
                *at,
                format!("Chart not rendered: its dependency `{name}` is not vendored in `charts/`, and lblint never fetches dependencies (no `helm dependency build`)."),
                "run `helm dependency build` once where the network is allowed, and commit the chart's `charts/` folder".into(),
            )),
            None => ready.push(chart),
        }
    }
    if ready.is_empty() {
        return part;
    }
    let Some(program) = on_path("helm") else {
        for chart in ready {
            let message = "Chart not rendered: `helm` is not on PATH.".to_string();
            part.diagnostics
                .push(fail(&chart.source, 0, message, INSTALL.into()));
        }
        return part;
    };
    if options.verbose {
        part.tools
            .push(describe("helm template", &program, &["version", "--short"]));
    }
    let jobs: Vec<Job> = ready.iter().map(|c| job(&program, c, options)).collect();
    let ran = run_all(&jobs, options.timeout, options.max_output, threads);
    for (chart, ran) in ready.into_iter().zip(ran) {
        if let Some(message) = ran_message("helm template", &ran, options.timeout) {
            let help = match ran {
                Ran::TimedOut => "raise `render.timeout` in lblint.yaml".into(),
                Ran::TooLarge(_) => TOO_LARGE.into(),
                Ran::NotStarted(_) => INSTALL.into(),
                Ran::Done { .. } => "fix the chart or its values (`render.helm.values` in lblint.yaml); `helm template` shows the same error".into(),
            };
            let stop = super::full_stop(&message);
            let message = format!("Chart not rendered: {message}{stop}");
            part.diagnostics.push(fail(&chart.source, 0, message, help));
            continue;
        }
        let Ran::Done { stdout, .. } = ran else {
            continue;
        };
        part.buffers.push(Buffer {
            display: format!("{}#rendered", chart.source.path),
            text: String::from_utf8_lossy(&stdout).into_owned(),
            origin: Origin::Helm {
                chart: chart.dir.clone(),
            },
            root: chart.source.clone(),
        });
    }
    part
}

/// Why the chart at `dir` must not reach helm, with the help, from one walk of it (links
/// not followed): a symbolic link whose target resolves outside it (helm follows links into
/// `.Files.Get` and templates, so a file of the machine would reach the output or an error
/// message: Argo CD's CheckOutOfBoundsSymlinks, CVE-2022-31036), else a `values.schema.json`
/// (the chart's or a subchart's) with a `$ref` to a URL, which helm would fetch.
fn refused(dir: &Path) -> Option<(String, &'static str)> {
    let root = std::fs::canonicalize(dir).ok()?;
    let inside = |path: &Path| {
        let path = path.strip_prefix(dir).unwrap_or(path);
        path.to_string_lossy().into_owned()
    };
    let mut schema = None;
    let entries = walkdir::WalkDir::new(dir).follow_links(false).max_depth(32);
    for e in entries.into_iter().flatten() {
        if e.path_is_symlink() {
            if std::fs::canonicalize(e.path()).map_or(true, |real| !real.starts_with(&root)) {
                let message = format!(
                    "it holds a symbolic link, `{}`, that leads outside the chart, and helm would follow it.",
                    inside(e.path())
                );
                let help =
                    "replace the link with the file itself, or a link to a file inside the chart";
                return Some((message, help));
            }
        } else if schema.is_none()
            && e.file_type().is_file()
            && e.file_name() == "values.schema.json"
        {
            schema = remote_ref(e.path()).map(|reference| {
                let message = format!(
                    "`{}` refers to `{reference}`, which helm would fetch, and lblint renders offline.",
                    inside(e.path())
                );
                let help = "vendor the referenced schema into the chart and refer to it by a relative path";
                (message, help)
            });
        }
    }
    schema
}

/// The first `$ref` to a URL in the JSON schema at `path`.
fn remote_ref(path: &Path) -> Option<String> {
    fn find(value: &Value) -> Option<String> {
        match value {
            Value::Object(map) => map.iter().find_map(|(key, v)| match v {
                Value::String(r) if key == "$ref" && r.contains("://") => Some(r.clone()),
                v => find(v),
            }),
            Value::Array(items) => items.iter().find_map(find),
            _ => None,
        }
    }
    let bytes = crate::read::read_regular(path, crate::settings::MAX_BYTES as u64).ok()?;
    find(&serde_json::from_slice(&bytes).ok()?)
}
