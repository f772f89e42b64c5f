//! `lblint check`: the pipeline driver. Paths are walked (`walk`), read and parsed (`load`),
//! turned into objects and the cluster model, linted by every rule, then filtered and sorted
//! (`filter`); `--fix` and the reporters take the outcome from here.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use crate::catalog::{self, RuleMeta};
use crate::config::RuleLevel;
use crate::diagnostic::{Diagnostic, Severity, Summary};
use crate::filter::Filter;
use crate::load::{guarded, load_all, load_bytes, FileCache, Loaded};
use crate::model::Model;
use crate::objects::Workspace;
use crate::panic::InternalError;
use crate::profile::Profile;
use crate::relocate::relocate;
use crate::render::{self, RenderOptions, Rendered};
use crate::rules::claims::Claims;
use crate::rules::{self, Context, Rule};
use crate::source::{SourceFile, SourceMap};
use crate::suppress::ConfigIgnores;
use crate::views::Views;
use crate::walk::{self, InputSource, RebasedGlobs, WalkError, WalkOptions};
use crate::yaml::{Limits, Split};

/// What one check reads, and how it lints it: the two halves a front end fills apart (the
/// language server lints many inputs with one pipeline; `--fix` lints the same inputs again
/// with its fixes as an overlay).
#[derive(Clone, Debug, Default)]
pub(crate) struct CheckOptions {
    pub inputs: Inputs,
    pub pipeline: Pipeline,
}

/// The workspace a check reads: paths, how they are walked, and texts that stand in for
/// the files on disk.
#[derive(Clone, Debug, Default)]
pub(crate) struct Inputs {
    /// OS paths (any bytes); `-` is standard input.
    pub paths: Vec<std::path::PathBuf>,
    pub stdin_filename: Option<String>,
    pub walk: WalkOptions,
    /// `--context DIR`: the manifests under DIR are linted with `paths`, and only findings
    /// that involve a file of `paths` are reported (the pre-commit hook's view).
    pub context: Option<std::path::PathBuf>,
    /// Texts to lint instead of the files' own, by canonical path: `--diff` lints the
    /// result of its fixes without writing them.
    pub overlay: Option<Arc<HashMap<std::path::PathBuf, String>>>,
    /// Files loaded by an earlier run of the same paths, reused while unchanged (the
    /// language server lints the workspace after every edit).
    pub(crate) cache: Option<Arc<dyn FileCache>>,
}

/// How a check lints: rules, levels, suppressions, rendering, threads, the namespace.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pipeline {
    /// Rule ids or names; empty means all.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Worker threads for reading and parsing; 0 means one per core.
    pub threads: usize,
    /// Config `rules:` levels: `off` drops a rule's findings, a severity overrides theirs.
    pub levels: Vec<(&'static RuleMeta, RuleLevel)>,
    /// Config `ignore:` entries.
    pub config_ignores: Option<ConfigIgnores>,
    /// The config file, shown in snippets of LBL004 notes about its entries.
    pub config_source: Option<Arc<SourceFile>>,
    /// `--no-ignores`: comments, annotations and config entries suppress nothing.
    pub no_ignores: bool,
    /// `--render`: kustomization roots and charts are rendered and linted as rendered.
    pub render: Option<RenderOptions>,
    /// `--namespace` (else the config's `namespace:`): where objects without
    /// `metadata.namespace` land, as `kubectl apply -n` puts them.
    pub namespace: Option<String>,
}

impl CheckOptions {
    /// What a config file sets: its include/exclude (relative to its directory), rule
    /// levels and `ignore:` entries; `check` and the language server read it the same way.
    pub(crate) fn configured(mut self, config: Option<&crate::config::Config>, cwd: &Path) -> Self {
        let Some(config) = config else {
            return self;
        };
        self.inputs.walk.rebased = Some(RebasedGlobs {
            base: config.dir.clone(),
            include: config.include.clone(),
            exclude: config.exclude.clone(),
        });
        let pipeline = &mut self.pipeline;
        pipeline.levels = config.rules.clone();
        if pipeline.namespace.is_none() {
            pipeline.namespace.clone_from(&config.namespace);
        }
        pipeline.config_ignores = Some(config.ignores(cwd));
        pipeline.config_source = Some(config.source.clone());
        self
    }
}

#[derive(Debug)]
pub struct CheckOutcome {
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    pub sources: SourceMap,
    /// Rules that crashed (a bug): their findings are missing, and the run exits 2.
    pub internal_errors: Vec<InternalError>,
    /// The OS path of each file read from disk, by displayed path (a display name is
    /// text for people; `--fix` writes to the file it stands for).
    pub files_on_disk: HashMap<Arc<str>, std::path::PathBuf>,
    /// The displayed path of every file linted, in walk order (`--verbose` lists them).
    pub linted: Vec<Arc<str>>,
    /// `--render -v`: the tools that rendered, with their paths and versions.
    pub render_tools: Vec<String>,
}

impl CheckOutcome {
    /// The most severe diagnostic, if any.
    pub(crate) fn max_severity(&self) -> Option<Severity> {
        self.diagnostics.iter().map(|d| d.severity()).max()
    }
}

/// Problems that stop the run before linting (exit status 2).
#[derive(Debug)]
pub(crate) enum CheckError {
    Walk(WalkError),
    UnknownRule(catalog::UnknownRule),
    Stdin(std::io::Error),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Walk(e) => e.fmt(f),
            CheckError::UnknownRule(e) => e.fmt(f),
            CheckError::Stdin(e) => write!(f, "cannot read standard input: {e}"),
        }
    }
}

impl std::error::Error for CheckError {}

fn resolve_rules(keys: &[String]) -> Result<Vec<&'static RuleMeta>, CheckError> {
    catalog::resolve(keys).map_err(CheckError::UnknownRule)
}

/// The rules this run reports (`--select`, `--ignore`, config `off`): SARIF describes these.
pub(crate) fn enabled_rules(options: &CheckOptions) -> Result<Vec<&'static RuleMeta>, CheckError> {
    let selected = resolve_rules(&options.pipeline.select)?;
    let ignored = resolve_rules(&options.pipeline.ignore)?;
    let filter = Filter {
        selected: &selected,
        ignored: &ignored,
        levels: &options.pipeline.levels,
        config_ignores: None,
        config_source: None,
        suppress: false,
    };
    Ok(catalog::all_meta()
        .iter()
        .copied()
        .filter(|m| filter.enabled(m.id))
        .collect())
}

/// Run the whole check. Bad arguments are errors; bad input files are diagnostics.
pub(crate) fn check(options: &CheckOptions, profile: &Profile) -> Result<CheckOutcome, CheckError> {
    let selected = resolve_rules(&options.pipeline.select)?;
    let ignored = resolve_rules(&options.pipeline.ignore)?;
    let (walked, loaded, named, rendered) = walk_and_load(options)?;
    let mut diagnostics: Vec<Diagnostic> = walked
        .skipped
        .iter()
        .map(|skipped| crate::catalog::lbl::file_skipped(&skipped.display, &skipped.reason, None))
        .collect();
    diagnostics.extend(rendered.diagnostics.iter().cloned());
    let order: Vec<&str> = walked
        .files
        .iter()
        .map(|f| f.display.as_str())
        .chain(rendered.buffers.iter().map(|b| b.display.as_str()))
        .collect();
    let filter = Filter {
        selected: &selected,
        ignored: &ignored,
        levels: &options.pipeline.levels,
        config_ignores: options.pipeline.config_ignores.as_ref(),
        config_source: options.pipeline.config_source.as_ref(),
        suppress: !options.pipeline.no_ignores,
    };
    let mut outcome = lint_loaded(
        loaded,
        diagnostics,
        &order,
        profile,
        &filter,
        &rules::registry(),
        crate::load::cores(options.pipeline.threads),
        &rendered,
        options.pipeline.namespace.as_deref(),
    );
    outcome.render_tools = rendered.tools.clone();
    outcome.files_on_disk = walked
        .files
        .iter()
        .filter_map(|f| match &f.source {
            InputSource::File(path) => Some((Arc::from(f.display.as_str()), path.clone())),
            InputSource::Stdin => None,
        })
        .collect();
    crate::relocate::mark_absent_templates(
        &mut outcome.diagnostics,
        &outcome.sources,
        &outcome.files_on_disk,
    );
    if let Some(named) = named {
        // A staged base or patch feeds the roots that list it: their findings count.
        let fed = rendered.fed_by(&named);
        keep_involving(&mut outcome, &named, &fed);
    }
    Ok(outcome)
}

/// `--context`: keep the findings that involve a named file (where they are reported, or
/// a related location) or a root it feeds, and a root's failure (`LBL008`, on any file of
/// its tree). The named files count as linted, the rendered ones too.
fn keep_involving(outcome: &mut CheckOutcome, named: &HashSet<String>, fed: &render::Fed) {
    let counts = |file: &str| named.contains(file) || fed.roots.contains(file);
    let involves = |d: &Diagnostic| {
        counts(&d.location().file)
            || d.related().iter().any(|r| counts(&r.location.file))
            || (d.rule() == crate::catalog::lbl::RENDER_FAILED.id
                && fed.files.contains(&*d.location().file))
    };
    outcome.diagnostics.retain(involves);
    outcome
        .files_on_disk
        .retain(|display, _| named.contains(&**display));
    // The context is read, not linted: `-v` and the no-input warning speak of named files,
    // a named file a render replaced among them.
    outcome.linted.retain(|display| named.contains(&**display));
    let mut rendered: Vec<&String> = named.iter().filter(|n| fed.files.contains(*n)).collect();
    rendered.sort();
    outcome
        .linted
        .extend(rendered.into_iter().map(|n| Arc::from(n.as_str())));
    let mut summary = Summary {
        files: outcome.linted.len(),
        objects: outcome.summary.objects,
        suppressed: outcome.summary.suppressed,
        ..Summary::default()
    };
    for d in &outcome.diagnostics {
        summary.count(d.severity());
    }
    outcome.summary = summary;
}

/// Lint in-memory files (display path, bytes) with every rule: the whole flow minus the walk
/// (and minus the config file: comment and annotation suppressions apply).
pub fn check_sources(files: &[(String, Vec<u8>)], profile: &Profile) -> CheckOutcome {
    check_sources_with(files, profile, &rules::registry())
}

/// [`check_sources`] with these rules instead of the registry's.
pub fn check_sources_with(
    files: &[(String, Vec<u8>)],
    profile: &Profile,
    rules: &[&dyn Rule],
) -> CheckOutcome {
    let limits = Limits::default();
    let loaded = files
        .iter()
        .map(|(path, bytes)| {
            guarded(path, || {
                load_bytes(path, Ok(bytes.clone()), &limits, Split::new(1))
            })
        })
        .collect();
    let order: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let filter = Filter {
        selected: &[],
        ignored: &[],
        levels: &[],
        config_ignores: None,
        config_source: None,
        suppress: true,
    };
    let none = Rendered::default();
    lint_loaded(
        loaded,
        Vec::new(),
        &order,
        profile,
        &filter,
        rules,
        1,
        &none,
        None,
    )
}

// The stages' inputs, each its own: a struct of them would be built in one place only.
#[allow(clippy::too_many_arguments)]
fn lint_loaded(
    loaded: Vec<Loaded>,
    mut diagnostics: Vec<Diagnostic>,
    order: &[&str],
    profile: &Profile,
    filter: &Filter<'_>,
    rules: &[&dyn Rule],
    threads: usize,
    rendered: &Rendered,
    namespace: Option<&str>,
) -> CheckOutcome {
    let file_count = order.len();
    let linted = order.iter().map(|f| Arc::from(*f)).collect();
    let mut files = Vec::new();
    let mut sources = SourceMap::default();
    for outcome in loaded {
        diagnostics.extend(outcome.diagnostics);
        if let Some(file) = outcome.file {
            sources.insert(file.source.clone());
            files.push(file);
        }
    }

    // Findings may point into the profile (the fact that decided them): show its snippet too.
    if let (Some(path), Some(text)) = (&profile.path, &profile.text) {
        if sources.get(path).is_none() {
            sources.insert(Arc::new(SourceFile::new(
                Arc::from(path.as_str()),
                text.to_string(),
            )));
        }
    }
    let ws = Workspace::new(files).in_namespace(namespace);
    let views = Views::build(&ws);
    let model = Model::build_on(&ws, &views, profile, threads);
    let rules = rules::for_profile(rules, profile);
    let cx = Context {
        ws: &ws,
        // Among the rules this run reports: an ignored rule judges nothing.
        claims: Claims::new(&rules, |id| filter.enabled(id)),
        profile,
        model: &model,
        tke_configs: crate::model::tke_config::Index::new(&ws),
        views,
    };
    let internal_errors = crate::rules::run_rules(&rules, &cx, &mut diagnostics);
    rules::edit::refuse_shared_node_edits(&ws, &mut diagnostics);

    let order: HashMap<&str, usize> = order.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let (mut diagnostics, mut suppressed) = filter.apply(&ws, diagnostics, &order);
    // After suppression (annotations are found by the rendered object), before output.
    suppressed += relocate(
        &ws,
        rendered,
        &mut diagnostics,
        &mut sources,
        filter,
        &order,
    );
    if let Some(config) = filter.config_source {
        if diagnostics.iter().any(|d| d.location().file == config.path) {
            sources.insert(config.clone());
        }
    }

    let mut summary = Summary {
        files: file_count,
        objects: ws.objects.len(),
        suppressed,
        ..Summary::default()
    };
    for d in &diagnostics {
        summary.count(d.severity());
    }
    CheckOutcome {
        diagnostics,
        summary,
        sources,
        internal_errors,
        files_on_disk: HashMap::new(),
        linted,
        render_tools: Vec::new(),
    }
}

/// Walk and load like `check`, build the views and the cluster model, and hand them to
/// `show` (`lblint model` prints them).
pub(crate) fn with_model<R>(
    options: &CheckOptions,
    profile: &Profile,
    show: impl FnOnce(&Workspace, &Views<'_>, &Model) -> R,
) -> Result<R, CheckError> {
    let (_, loaded, _, _) = walk_and_load(options)?;
    let ws = Workspace::new(loaded.into_iter().filter_map(|l| l.file).collect())
        .in_namespace(options.pipeline.namespace.as_deref());
    let views = Views::build(&ws);
    let model = Model::build_on(
        &ws,
        &views,
        profile,
        crate::load::cores(options.pipeline.threads),
    );
    Ok(show(&ws, &views, &model))
}

/// The walk, then every file read (standard input once, capped at the size limit) and
/// parsed on worker threads, in walk order. With `--context`, the context's files follow
/// the named ones, and the display names of the named files come back too.
type WalkedAndLoaded = (walk::Walked, Vec<Loaded>, Option<HashSet<String>>, Rendered);

fn walk_and_load(options: &CheckOptions) -> Result<WalkedAndLoaded, CheckError> {
    let paths = if options.inputs.paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        options.inputs.paths.clone()
    };
    let mut walked = walk::walk(
        &paths,
        options.inputs.stdin_filename.as_deref(),
        &options.inputs.walk,
    )
    .map_err(CheckError::Walk)?;
    let named = match &options.inputs.context {
        None => None,
        Some(root) => {
            let named: HashSet<String> = walked.files.iter().map(|f| f.display.clone()).collect();
            let context = walk::walk(std::slice::from_ref(root), None, &options.inputs.walk)
                .map_err(CheckError::Walk)?;
            // A named file is also under the context root: load it once.
            let same = |f: &walk::InputFile| match &f.source {
                InputSource::File(path) => std::fs::canonicalize(path).ok(),
                InputSource::Stdin => None,
            };
            let seen: HashSet<_> = walked.files.iter().filter_map(same).collect();
            walked.files.extend(context.files.into_iter().filter(|f| {
                !named.contains(&f.display) && same(f).is_none_or(|p| !seen.contains(&p))
            }));
            Some(named)
        }
    };
    let rendered = render_walked(options, &paths, &mut walked);
    let stdin_text = if walked.files.iter().any(|f| f.source == InputSource::Stdin) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(options.inputs.walk.max_file_size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(CheckError::Stdin)?;
        Some(bytes)
    } else {
        None
    };
    let mut loaded = load_cached(&walked.files, stdin_text.as_deref(), options);
    let limits = Limits::default();
    loaded.extend(rendered.buffers.iter().map(|b| {
        let bytes = Ok(b.text.clone().into_bytes());
        guarded(&b.display, || {
            load_bytes(&b.display, bytes, &limits, Split::new(1))
        })
    }));
    Ok((walked, loaded, named, rendered))
}

/// `--render`: render the roots among the walked files, whose raw files then leave the
/// walk. Without it, a note when a kustomization's resources lie outside the linted paths.
fn render_walked(
    options: &CheckOptions,
    paths: &[std::path::PathBuf],
    walked: &mut walk::Walked,
) -> Rendered {
    let cwd = std::env::current_dir().unwrap_or_default();
    let Some(render_options) = &options.pipeline.render else {
        let mut rendered = Rendered::default();
        // The context is what is linted in the pre-commit hook.
        let linted: Vec<std::path::PathBuf> = match &options.inputs.context {
            Some(root) => vec![walk::absolute(root, &cwd)],
            None => paths
                .iter()
                .filter(|p| p.as_os_str() != "-")
                .map(|p| walk::absolute(p, &cwd))
                .collect(),
        };
        if let Some((note, source)) = render::unrendered_note(&walked.files, &linted) {
            rendered.diagnostics.push(note);
            rendered.sources.push(source);
        }
        return rendered;
    };
    let rendered = render::render(
        &walked.files,
        render_options,
        crate::load::cores(options.pipeline.threads),
    );
    walked.files.retain(|f| !rendered.covers(f, &cwd));
    rendered
}

/// [`load_all`], through `options.inputs.cache` when there is one (the language server's: the
/// files unchanged since its last run are taken from it, the others loaded and kept).
fn load_cached(
    files: &[walk::InputFile],
    stdin: Option<&[u8]>,
    options: &CheckOptions,
) -> Vec<Loaded> {
    let overlay = options.inputs.overlay.as_deref();
    let load = |files: &[walk::InputFile]| {
        load_all(
            files,
            stdin,
            options.pipeline.threads,
            options.inputs.walk.max_file_size,
            overlay,
        )
    };
    match &options.inputs.cache {
        Some(cache) => cache.load(files, overlay, &load),
        None => load(files),
    }
}
