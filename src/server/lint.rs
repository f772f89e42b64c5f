//! The lint a worker thread runs: each workspace root as `lblint <root>` run there would
//! lint it (its lblint.yaml, include/exclude, profile), with the open documents' texts in
//! place of the files' own, and the findings turned into LSP diagnostics by file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use gen_lsp_types as lsp;

use super::cache::LoadCache;
use super::convert;
use super::settings::Settings;
use super::text::{self, Encoding};
use super::uri;
use crate::check::{CheckOptions, CheckOutcome, Inputs, Pipeline};
use crate::diagnostic::Diagnostic;
use crate::settings::SettingsError;
use crate::source::Location;
use crate::source::SourceFile;
use crate::walk::absolute;

/// One lint of the whole workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct Job {
    pub generation: u64,
    /// Absolute, none inside another.
    pub roots: Vec<PathBuf>,
    /// Open documents under no root, each linted alone.
    pub loose: Vec<PathBuf>,
    /// Open documents' texts, by canonical path (as `CheckOptions::overlay` wants them).
    pub overlay: HashMap<PathBuf, String>,
    /// Open documents that are not on disk, as `WalkOptions::unsaved` takes them.
    pub unsaved: Vec<PathBuf>,
    /// Open documents' versions, by path.
    pub versions: HashMap<PathBuf, i32>,
    pub settings: Settings,
    pub encoding: Encoding,
    /// What displayed paths are relative to.
    pub cwd: PathBuf,
    /// Files the client said changed on disk since the last job: read again.
    pub forget: Vec<PathBuf>,
}

/// The worker's loaded files, one cache per root or loose file.
type Caches = HashMap<PathBuf, Arc<LoadCache>>;

/// One file's findings.
#[derive(Debug, Default)]
pub(crate) struct FileResult {
    /// The text the findings' offsets are in; `None` for settings errors.
    pub source: Option<Arc<SourceFile>>,
    pub findings: Vec<Diagnostic>,
    /// In `findings` order, then settings errors, as the client gets them; shared with
    /// what was last shown for the file (held once, not per copy).
    pub diagnostics: Arc<super::published::Published>,
}

/// What a lint found, by absolute path.
#[derive(Debug, Default)]
pub(crate) struct Linted {
    pub generation: u64,
    pub files: HashMap<PathBuf, FileResult>,
    /// The documents' versions the lint read.
    pub versions: HashMap<PathBuf, i32>,
    /// Why a root could not be linted (an unknown rule in the settings, a path gone).
    pub errors: Vec<String>,
    pub elapsed: Duration,
}

/// The worker thread: lints each job it gets and sends the result back. A crash in the
/// pipeline costs that lint only.
pub(crate) fn spawn(results: Sender<Linted>) -> std::io::Result<Sender<Job>> {
    let (jobs, queue): (Sender<Job>, Receiver<Job>) = crossbeam_channel::unbounded();
    std::thread::Builder::new()
        .name("lblint-lint".to_string())
        .spawn(move || {
            let mut caches = Caches::new();
            for job in queue {
                let started = Instant::now();
                let mut linted = match crate::panic::catch(|| lint(&job, &mut caches)) {
                    Ok(linted) => linted,
                    Err(crash) => Linted {
                        generation: job.generation,
                        errors: vec![format!("the lint crashed: {crash}")],
                        ..Linted::default()
                    },
                };
                linted.elapsed = started.elapsed();
                if results.send(linted).is_err() {
                    break;
                }
            }
        })?;
    Ok(jobs)
}

fn lint(job: &Job, caches: &mut Caches) -> Linted {
    let mut out = Linted {
        generation: job.generation,
        versions: job.versions.clone(),
        ..Linted::default()
    };
    let overlay = Arc::new(job.overlay.clone());
    let units: Vec<(&PathBuf, &Path)> = job
        .roots
        .iter()
        .map(|root| (root, root.as_path()))
        .chain(
            job.loose
                .iter()
                .map(|file| (file, file.parent().unwrap_or(Path::new("/")))),
        )
        .collect();
    caches.retain(|path, _| units.iter().any(|(unit, _)| *unit == path));
    for (path, dir) in units {
        let cache = caches.entry(path.clone()).or_default();
        for changed in &job.forget {
            cache.forget(changed);
        }
        let unit = Unit {
            path,
            dir,
            cache: cache.clone(),
        };
        lint_unit(&unit, job, &overlay, &mut out);
    }
    for file in out.files.values_mut() {
        Arc::make_mut(&mut file.diagnostics).shrink();
    }
    out
}

/// One lint unit: a root, or a loose file, with the config found from `dir`.
struct Unit<'a> {
    path: &'a Path,
    dir: &'a Path,
    cache: Arc<LoadCache>,
}

/// Lint a unit with the config found from its `dir` and the profile it or the settings name;
/// an unusable config or profile is reported on its own file instead.
fn lint_unit(
    unit: &Unit<'_>,
    job: &Job,
    overlay: &Arc<HashMap<PathBuf, String>>,
    out: &mut Linted,
) {
    let (path, dir) = (unit.path, unit.dir);
    // The editor's profile setting is relative to the folder; the config's, to its own.
    let profile = job
        .settings
        .profile
        .as_ref()
        .map(|p| absolute(Path::new(p), dir));
    let choice = crate::config::ConfigChoice::Discover(dir);
    let (config, profile) = match crate::config::resolve(choice, profile.as_deref(), &job.cwd) {
        Ok(resolved) => (resolved.config, resolved.profile),
        Err(
            crate::config::ResolveError::Config(err) | crate::config::ResolveError::Profile(err),
        ) => return settings_errors(&err, job, out),
    };
    let inputs = Inputs {
        paths: vec![path.to_path_buf()],
        overlay: Some(overlay.clone()),
        cache: Some(unit.cache.clone()),
        walk: crate::walk::WalkOptions {
            unsaved: job.unsaved.clone(),
            ..crate::walk::WalkOptions::default()
        },
        ..Inputs::default()
    };
    let pipeline = Pipeline {
        select: job.settings.select.clone(),
        ignore: job.settings.ignore.clone(),
        // A value that is no namespace name is passed by, as kubectl would refuse it.
        namespace: job
            .settings
            .namespace
            .clone()
            .filter(|ns| crate::objects::is_namespace_name(ns)),
        ..Pipeline::default()
    };
    let options = CheckOptions { inputs, pipeline }.configured(config.as_ref(), &job.cwd);
    match crate::check::check(&options, &profile) {
        Ok(outcome) => collect(outcome, job, out),
        Err(err) => out.errors.push(format!("{}: {err}", path.display())),
    }
}

fn settings_errors(err: &SettingsError, job: &Job, out: &mut Linted) {
    for e in err.each() {
        let path = absolute(Path::new(&e.path), &job.cwd);
        let file = out.files.entry(path).or_default();
        Arc::make_mut(&mut file.diagnostics).push(&convert::settings_error(e, job.encoding));
    }
}

/// The findings of one lint, converted and filed under their absolute paths.
fn collect(outcome: CheckOutcome, job: &Job, out: &mut Linted) {
    // Each finding moves into its file's list: never a second copy, even for a moment.
    let CheckOutcome {
        diagnostics,
        sources,
        files_on_disk,
        ..
    } = outcome;
    let path_of = |display: &str| match files_on_disk.get(display) {
        Some(path) => absolute(path, &job.cwd),
        None => absolute(Path::new(display), &job.cwd),
    };
    let locate = |location: &Location| {
        let source = sources.get(&location.file)?;
        Some(lsp::Location {
            uri: lsp::Uri(uri::from_path(&path_of(&location.file))),
            range: text::range(source, location.span, job.encoding),
        })
    };
    let empty = Arc::new(SourceFile::default());
    for d in diagnostics {
        let display = &d.location().file;
        let source = sources.get(display).unwrap_or(&empty);
        let file = out.files.entry(path_of(display)).or_default();
        file.source.get_or_insert_with(|| source.clone());
        Arc::make_mut(&mut file.diagnostics).push(&convert::diagnostic(
            &d,
            source,
            &locate,
            job.encoding,
        ));
        file.findings.push(d);
    }
}
