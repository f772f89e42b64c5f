//! The render stage (`check --render`), between the walk and the load: kustomization roots
//! and Helm charts among the walked files are rendered with the user's own tools (`kubectl
//! kustomize` or `kustomize build`, `helm template`), in parallel and under a time budget.
//! Each rendered root becomes one text to lint in place of its raw files; the relocate stage
//! (`crate::relocate`) then moves each finding from the rendered text to the base file or
//! template that produced the object (kustomize origin annotations, Helm `# Source:`). A
//! root that cannot
//! be rendered is an `LBL008` finding on its kustomization.yaml or Chart.yaml, never a
//! silent skip. Nothing here fetches: remote kustomize resources and chart dependencies
//! missing from `charts/` are reported instead of rendered.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;
use crate::walk::InputFile;

mod helm;
mod interrupt;
mod kustomize;
mod message;
mod roots;
mod run;
mod tools;

pub(crate) use roots::failure;
pub use roots::unrendered_note;

/// How `--render` renders; `render:` in lblint.yaml.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Which kustomize to run.
    pub kustomize: KustomizeTool,
    /// The release name `helm template` renders with.
    pub helm_release: String,
    /// Values files for every chart (`-f`, in order), absolute.
    pub helm_values: Vec<PathBuf>,
    /// How long one render may run before it is stopped.
    pub timeout: Duration,
    /// The severity of a render that failed (`LBL008`): error, or warning when configured.
    pub failure: Severity,
    /// Name the tools and their versions (`-v`): one more process each.
    pub verbose: bool,
    /// The most a render may print (`--max-file-size`, the budget of one file): past it
    /// the tool is stopped and the root is an LBL008.
    pub max_output: u64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            kustomize: KustomizeTool::Auto,
            // What `helm template CHART` names the release when no name is given.
            helm_release: "release-name".into(),
            helm_values: Vec::new(),
            timeout: Duration::from_secs(60),
            failure: Severity::Error,
            verbose: false,
            max_output: crate::walk::DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// `render.kustomize`: `kubectl kustomize`, `kustomize build`, or whichever is on PATH
/// (kubectl first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KustomizeTool {
    Auto,
    Kubectl,
    Kustomize,
}

/// How a rendered text's origins are resolved.
#[derive(Clone, Debug)]
pub enum Origin {
    /// kustomize: origin paths are relative to the wrapper kustomization's folder; a key
    /// the base lacks may come from one of the tree's patch files, and a generated value
    /// from any of its kustomization files, the root's first (absolute).
    Kustomize {
        wrapper: PathBuf,
        patches: Vec<PathBuf>,
        kustomizations: Vec<PathBuf>,
    },
    /// Helm: `# Source: <chart name>/templates/...`, under the chart's folder.
    Helm { chart: PathBuf },
}

/// One rendered root: a text to lint under `display`.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub display: String,
    pub text: String,
    pub origin: Origin,
    /// The root's kustomization.yaml or Chart.yaml.
    pub root: Arc<SourceFile>,
}

/// A root (rendered or not) and every raw file its render replaces, as displayed: in the
/// pre-commit context a staged base feeds the roots that list it.
#[derive(Clone, Debug)]
pub struct Feeds {
    pub root: String,
    pub files: Vec<String>,
}

/// What the named (staged) files feed: the roots that list one, and those roots' files.
#[derive(Debug, Default)]
pub struct Fed {
    pub roots: HashSet<String>,
    pub files: HashSet<String>,
}

/// What the render stage hands to the load and the check.
#[derive(Debug, Default)]
pub struct Rendered {
    pub buffers: Vec<Buffer>,
    /// `LBL008` findings (and `LBL009` without `--render`).
    pub diagnostics: Vec<Diagnostic>,
    /// The files those findings point into, for snippets.
    pub sources: Vec<Arc<SourceFile>>,
    /// Raw files the run does not lint: rendered (or failed) roots' own files. Absolute.
    pub covered: HashSet<PathBuf>,
    /// `-v`: each tool used, with its path and version.
    pub tools: Vec<String>,
    /// Every root found, rendered or failed, with the files it replaces.
    pub feeds: Vec<Feeds>,
}

impl Rendered {
    /// Whether a walked file is replaced by a render.
    pub fn covers(&self, file: &InputFile, cwd: &Path) -> bool {
        match &file.source {
            crate::walk::InputSource::File(path) => {
                self.covered.contains(&crate::walk::absolute(path, cwd))
            }
            crate::walk::InputSource::Stdin => false,
        }
    }

    /// The roots (rendered or failed) that list a `named` file, and their files.
    pub fn fed_by(&self, named: &HashSet<String>) -> Fed {
        let mut fed = Fed::default();
        for feeds in &self.feeds {
            if feeds.files.iter().any(|f| named.contains(f)) {
                fed.roots.insert(feeds.root.clone());
                fed.files.extend(feeds.files.iter().cloned());
            }
        }
        fed
    }
}

/// Render every kustomization root and chart among `files`.
pub fn render(files: &[InputFile], options: &RenderOptions, threads: usize) -> Rendered {
    interrupt::install();
    let cwd = std::env::current_dir().unwrap_or_default();
    let found = roots::find(files, &cwd);
    let mut out = Rendered::default();
    let mut sources: HashMap<Arc<str>, Arc<SourceFile>> = HashMap::new();
    let mut fail = |file: &Arc<SourceFile>, offset: usize, message: String, help: String| {
        sources.insert(file.path.clone(), file.clone());
        roots::failure(file, offset, options.failure, message, help)
    };
    let kustomizations = found.kustomizations.iter();
    let all = kustomizations
        .map(|r| (&r.kustomization.source, &r.covered))
        .chain(found.charts.iter().map(|c| (&c.source, &c.covered)));
    for (root, covered) in all {
        out.covered.extend(covered.iter().cloned());
        out.feeds.push(Feeds {
            root: root.path.to_string(),
            files: kustomize::displays(covered),
        });
    }
    for (file, offset, names) in &found.loops {
        out.diagnostics.push(fail(
            file,
            *offset,
            format!("Kustomization not rendered: it includes itself ({names}), which kustomize cannot build."),
            "remove the include that closes the loop: a kustomization lists its bases, never itself or an overlay of its own".into(),
        ));
    }
    let kustomized = kustomize::render_all(&found.kustomizations, options, threads, &mut fail);
    let charted = helm::render_all(&found.charts, options, threads, &mut fail);
    for part in [kustomized, charted] {
        out.buffers.extend(part.buffers);
        out.diagnostics.extend(part.diagnostics);
        out.tools.extend(part.tools);
    }
    out.sources = sources.into_values().collect();
    out
}

/// What one tool's renders gave.
#[derive(Default)]
struct Part {
    buffers: Vec<Buffer>,
    diagnostics: Vec<Diagnostic>,
    tools: Vec<String>,
}

/// How a failure becomes a finding: the file, an offset in it, the message and the help.
type Fail<'f> = dyn FnMut(&Arc<SourceFile>, usize, String, String) -> Diagnostic + 'f;

/// The help for a render stopped for printing too much.
const TOO_LARGE: &str =
    "raise --max-file-size if the output is meant to be that large; a template or \
     generator that never ends its output is a bug in the chart or kustomization";

/// The message for a render that did not finish.
fn ran_message(tool: &str, ran: &run::Ran, timeout: Duration) -> Option<String> {
    match ran {
        run::Ran::Done { code: Some(0), .. } => None,
        run::Ran::Done { code, stderr, .. } => Some(format!(
            "`{tool}` failed ({}): {}",
            code.map_or("killed by a signal".into(), |c| format!("exit code {c}")),
            message::tool_message(stderr)
        )),
        run::Ran::TimedOut => Some(format!(
            "`{tool}` ran over the time budget of {} s and was stopped",
            timeout.as_secs()
        )),
        run::Ran::NotStarted(e) => Some(format!("`{tool}` could not be started: {e}")),
        run::Ran::TooLarge(limit) => Some(format!(
            "`{tool}` printed more than {limit} bytes (the --max-file-size budget) and was stopped"
        )),
    }
}

/// `message` as the end of a sentence: a full stop unless the tool's text ends with one.
fn full_stop(message: &str) -> &'static str {
    match message.ends_with('.') {
        true => "",
        false => ".",
    }
}
