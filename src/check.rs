//! `lblint check`: the whole data flow, from paths to sorted, filtered diagnostics.

use std::collections::HashMap;
use std::fmt;
use std::io::Read as _;
use std::sync::Arc;

use crate::config::RuleLevel;
use crate::diagnostic::{Diagnostic, Location, Severity, Summary};
use crate::guard::{self, InternalError};
use crate::model::Model;
use crate::objects::{LintFile, Workspace};
use crate::profile::Profile;
use crate::read::ReadError;
use crate::rules::{self, lbl, Context, Rule, RuleMeta};
use crate::source::{SourceFile, SourceMap};
use crate::suppress::{self, ConfigIgnores};
use crate::walk::{self, InputFile, InputSource, WalkError, WalkOptions};
use crate::yaml::{self, Limits, LoadedFile, MemoryBudget, Pos, Span};

#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// OS paths (any bytes); `-` is standard input.
    pub paths: Vec<std::path::PathBuf>,
    pub stdin_filename: Option<String>,
    pub walk: WalkOptions,
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
}

/// The filter stage's settings: which rules run, at which severity, and suppressions.
struct Filter<'a> {
    selected: &'a [&'static RuleMeta],
    ignored: &'a [&'static RuleMeta],
    levels: &'a [(&'static RuleMeta, RuleLevel)],
    config_ignores: Option<&'a ConfigIgnores>,
    config_source: Option<&'a Arc<SourceFile>>,
    suppress: bool,
}

impl Filter<'_> {
    fn level(&self, id: &str) -> Option<RuleLevel> {
        self.levels
            .iter()
            .find(|(r, _)| r.id == id)
            .map(|(_, level)| *level)
    }

    /// Whether the rule's findings are reported at all in this run.
    fn enabled(&self, id: &str) -> bool {
        (self.selected.is_empty() || self.selected.iter().any(|m| m.id == id))
            && !self.ignored.iter().any(|m| m.id == id)
            && self.level(id) != Some(RuleLevel::Off)
    }

    fn set_severity(&self, d: &mut Diagnostic) {
        if let Some(RuleLevel::Severity(severity)) = self.level(d.rule) {
            d.severity = severity;
        }
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
}

impl CheckOutcome {
    /// The most severe diagnostic, if any.
    pub fn max_severity(&self) -> Option<Severity> {
        self.diagnostics.iter().map(|d| d.severity).max()
    }
}

/// Problems that stop the run before linting (exit status 2).
#[derive(Debug)]
pub enum CheckError {
    Walk(WalkError),
    UnknownRule {
        key: String,
        suggestion: Option<String>,
    },
    Stdin(std::io::Error),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Walk(e) => e.fmt(f),
            CheckError::UnknownRule { key, suggestion } => {
                write!(f, "unknown rule `{key}` (see `lblint rules`)")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                Ok(())
            }
            CheckError::Stdin(e) => write!(f, "cannot read standard input: {e}"),
        }
    }
}

impl std::error::Error for CheckError {}

fn resolve_rules(keys: &[String]) -> Result<Vec<&'static RuleMeta>, CheckError> {
    keys.iter()
        .flat_map(|k| k.split(','))
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|key| {
            rules::lookup(key).ok_or_else(|| CheckError::UnknownRule {
                key: key.to_string(),
                suggestion: crate::profile::suggest::did_you_mean(key, &rule_keys())
                    .map(str::to_string),
            })
        })
        .collect()
}

/// The rules this run reports (`--select`, `--ignore`, config `off`): SARIF describes these.
pub fn enabled_rules(options: &CheckOptions) -> Result<Vec<&'static RuleMeta>, CheckError> {
    let selected = resolve_rules(&options.select)?;
    let ignored = resolve_rules(&options.ignore)?;
    let filter = Filter {
        selected: &selected,
        ignored: &ignored,
        levels: &options.levels,
        config_ignores: None,
        config_source: None,
        suppress: false,
    };
    Ok(rules::all_meta()
        .into_iter()
        .filter(|m| filter.enabled(m.id))
        .collect())
}

/// Every id and name a rule can be selected by.
pub fn rule_keys() -> Vec<&'static str> {
    rules::all_meta()
        .iter()
        .flat_map(|m| [m.id, m.name])
        .collect()
}

/// Run the whole check. Bad arguments are errors; bad input files are diagnostics.
pub fn check(options: &CheckOptions, profile: &Profile) -> Result<CheckOutcome, CheckError> {
    let selected = resolve_rules(&options.select)?;
    let ignored = resolve_rules(&options.ignore)?;
    let (walked, loaded) = walk_and_load(options)?;
    let diagnostics = walked
        .skipped
        .iter()
        .map(|skipped| file_skipped(&skipped.display, &skipped.reason, None))
        .collect();
    let order: Vec<&str> = walked.files.iter().map(|f| f.display.as_str()).collect();
    let filter = Filter {
        selected: &selected,
        ignored: &ignored,
        levels: &options.levels,
        config_ignores: options.config_ignores.as_ref(),
        config_source: options.config_source.as_ref(),
        suppress: !options.no_ignores,
    };
    let mut outcome = lint_loaded(
        loaded,
        diagnostics,
        &order,
        profile,
        &filter,
        &rules::registry(),
    );
    outcome.files_on_disk = walked
        .files
        .iter()
        .filter_map(|f| match &f.source {
            InputSource::File(path) => Some((Arc::from(f.display.as_str()), path.clone())),
            InputSource::Stdin => None,
        })
        .collect();
    Ok(outcome)
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
        .map(|(path, bytes)| guarded(path, || load_bytes(path, Ok(bytes.clone()), &limits)))
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
    lint_loaded(loaded, Vec::new(), &order, profile, &filter, rules)
}

fn sort(diagnostics: &mut Vec<Diagnostic>, order: &HashMap<&str, usize>) {
    diagnostics.sort_by(|a, b| {
        let fa = order.get(&*a.location.file).copied().unwrap_or(usize::MAX);
        let fb = order.get(&*b.location.file).copied().unwrap_or(usize::MAX);
        (fa, a.sort_key()).cmp(&(fb, b.sort_key()))
    });
    diagnostics.dedup();
}

fn lint_loaded(
    loaded: Vec<Loaded>,
    mut diagnostics: Vec<Diagnostic>,
    order: &[&str],
    profile: &Profile,
    filter: &Filter<'_>,
    rules: &[&dyn Rule],
) -> CheckOutcome {
    let file_count = order.len();
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
    let ws = Workspace::new(files);
    let model = Model::build(&ws, profile);
    let cx = Context {
        ws: &ws,
        profile,
        model: &model,
    };
    let internal_errors = guard::run_rules(rules, &cx, &mut diagnostics);
    rules::edit::refuse_shared_node_edits(&ws, &mut diagnostics);

    // Filter stage: rules that do not run, severity overrides, then suppressions.
    diagnostics.retain(|d| filter.enabled(d.rule));
    for d in &mut diagnostics {
        filter.set_severity(d);
    }
    let order: HashMap<&str, usize> = order.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    sort(&mut diagnostics, &order);
    let mut suppressed = 0;
    if filter.suppress {
        let filtered = suppress::apply(&ws, diagnostics, filter.config_ignores, &|rule| {
            filter.enabled(rule.id)
        });
        diagnostics = filtered.kept;
        suppressed = filtered.suppressed;
        if filter.enabled(lbl::UNUSED_SUPPRESSION.id) {
            for mut note in filtered.notes {
                filter.set_severity(&mut note);
                diagnostics.push(note);
            }
        }
        sort(&mut diagnostics, &order);
    }
    if let Some(config) = filter.config_source {
        if diagnostics.iter().any(|d| d.location.file == config.path) {
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
        summary.count(d.severity);
    }
    CheckOutcome {
        diagnostics,
        summary,
        sources,
        internal_errors,
        files_on_disk: HashMap::new(),
    }
}

struct Loaded {
    file: Option<LintFile>,
    diagnostics: Vec<Diagnostic>,
}

/// Parse trees (and texts) a run may hold: 16 times the file size limit, 1 GiB by default.
/// Real manifests build trees of 5 to 10 times their size; a file of one-character list
/// items, 40 times. Raising --max-file-size raises it with the files it admits.
pub fn memory_budget(max_file_size: u64) -> u64 {
    max_file_size.saturating_mul(16)
}

/// Read and parse files on worker threads; results come back in input order.
fn load_all(
    inputs: &[InputFile],
    stdin: Option<&[u8]>,
    threads: usize,
    max_size: u64,
) -> Vec<Loaded> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(inputs.len().max(1));
    let limits = Limits {
        budget: Some(Arc::new(MemoryBudget::new(memory_budget(max_size)))),
        ..Limits::default()
    };
    if threads <= 1 {
        return inputs
            .iter()
            .map(|i| load_one(i, stdin, &limits, max_size))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Loaded>> = (0..inputs.len()).map(|_| None).collect();
    let chunks: Vec<Vec<(usize, Loaded)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(input) = inputs.get(i) else { break };
                        done.push((i, load_one(input, stdin, &limits, max_size)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            // `load_one` catches panics per file; one escaping here is re-raised, never
            // turned into silently missing files.
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for (i, loaded) in chunks.into_iter().flatten() {
        results[i] = Some(loaded);
    }
    results.into_iter().flatten().collect()
}

fn file_skipped(path: &str, reason: &str, pos: Option<Pos>) -> Diagnostic {
    let pos = pos.unwrap_or(Pos {
        line: 1,
        column: 1,
        offset: 0,
    });
    lbl::FILE_SKIPPED.diagnostic(
        Severity::Warning,
        Location {
            file: Arc::from(path),
            span: Span {
                start: pos,
                end: pos,
            },
        },
        format!("File not linted: {reason}."),
    )
}

/// Decode a file's bytes the way kubectl reads a file (cli-runtime's `FileVisitor`:
/// `unicode.BOMOverride(UTF8)`): UTF-8 with an optional BOM, or UTF-16 LE/BE when it starts
/// with a byte-order mark (what Windows PowerShell `>` writes). Anything else is reported,
/// not guessed. Positions in a UTF-16 file are lines and characters, the same in both.
pub(crate) fn decode(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(big_endian) = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(false),
        Some([0xFE, 0xFF]) => Some(true),
        _ => None,
    } {
        return decode_utf16(&bytes[2..], big_endian);
    }
    let bytes = match bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        // ASCII text saved as UTF-16 without a BOM: every other byte is NUL.
        let sample = &bytes[..bytes.len().min(512)];
        let half = |skip: usize| sample.iter().skip(skip).step_by(2);
        let nuls = half(nul % 2).filter(|&&b| b == 0).count();
        let text = half(1 - nul % 2).filter(|&&b| b != 0).count();
        let pairs = sample.len() / 2;
        if pairs >= 2 && nuls * 10 >= pairs * 9 && text * 10 >= pairs * 9 {
            return Err("it looks UTF-16 encoded without a byte-order mark; save it as UTF-8 (kubectl reads UTF-16 only with a BOM)".into());
        }
        return Err("it is a binary file (it contains NUL bytes)".into());
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        format!("it is not valid UTF-8 (first invalid byte on line {line}); Kubernetes manifests must be UTF-8")
    })
}

fn decode_utf16(bytes: &[u8], big_endian: bool) -> Result<String, String> {
    if bytes.len() % 2 != 0 {
        return Err("it is UTF-16 encoded (byte-order mark) but has an odd number of bytes".into());
    }
    let units = bytes.chunks_exact(2).map(|c| {
        if big_endian {
            u16::from_be_bytes([c[0], c[1]])
        } else {
            u16::from_le_bytes([c[0], c[1]])
        }
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    for (i, unit) in char::decode_utf16(units).enumerate() {
        match unit {
            Ok('\0') => return Err("it is a binary file (it contains NUL characters)".into()),
            Ok(c) => text.push(c),
            Err(_) => {
                let line = text.matches('\n').count() + 1;
                return Err(format!(
                    "it is UTF-16 encoded (byte-order mark) but invalid: unpaired surrogate at code unit {i}, line {line}"
                ));
            }
        }
    }
    // A UTF-8 BOM after the UTF-16 one is not content.
    Ok(match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

fn load_one(input: &InputFile, stdin: Option<&[u8]>, limits: &Limits, max_size: u64) -> Loaded {
    guarded(&input.display, || {
        let bytes = match &input.source {
            InputSource::Stdin => Ok(stdin.unwrap_or_default().to_vec()),
            InputSource::File(path) => read_capped(path, max_size),
        };
        let bytes = bytes.and_then(|b| match b.len() as u64 {
            len if len > max_size => Err(walk::too_large(len, max_size)),
            _ => Ok(b),
        });
        load_bytes(&input.display, bytes, limits)
    })
}

/// Read a regular file of at most `max_size` bytes: a FIFO or device is never opened, and a
/// file that grew after the walk measured it cannot exhaust memory.
fn read_capped(path: &std::path::Path, max_size: u64) -> Result<Vec<u8>, String> {
    crate::read::read_regular(path, max_size).map_err(|e| match e {
        ReadError::TooLarge { len, limit } => walk::too_large(len, limit),
        ReadError::NotRegular(kind) => walk::not_regular(kind),
        ReadError::Io(e) => format!("cannot read: {e}"),
    })
}

/// Run one file's loading so that a bug (a panic) costs only that file: it becomes an
/// `LBL003` diagnostic on the file, and every other file is still linted.
fn guarded(display: &str, load: impl FnOnce() -> Loaded) -> Loaded {
    match guard::catch(load) {
        Ok(loaded) => loaded,
        Err(crash) => {
            let what = crash.to_string();
            Loaded {
                file: None,
                diagnostics: vec![file_skipped(
                    display,
                    &format!("lblint crashed while loading it ({what}); this is a bug in lblint, please report it with the file"),
                    None,
                )],
            }
        }
    }
}

fn load_bytes(display: &str, bytes: Result<Vec<u8>, String>, limits: &Limits) -> Loaded {
    let text = match bytes.and_then(decode) {
        Ok(text) => text,
        Err(reason) => {
            return Loaded {
                file: None,
                diagnostics: vec![file_skipped(display, &reason, None)],
            }
        }
    };
    let over_budget = |limit: u64| {
        Loaded {
        file: None,
        diagnostics: vec![file_skipped(
            display,
            &format!(
                "the run's memory budget ({} MiB of parse trees, 16 times --max-file-size) is used up; lint it in a separate run, or raise --max-file-size",
                limit >> 20
            ),
            None,
        )],
    }
    };
    let text_cost = text.len() as u64;
    if let Some(budget) = &limits.budget {
        if !budget.charge(text_cost) {
            return over_budget(budget.limit());
        }
    }
    let source = Arc::new(SourceFile::new(display, text));
    // Documents are slimmed as they are parsed; first note where their block and quoted
    // scalars hold `{{` (data, not Helm actions, see `unrendered_template`).
    let mut braced = Vec::new();
    let mut loaded = yaml::load_with(&source.text, limits, &mut |doc| {
        braced.extend(braced_scalar_spans(&doc, &source.text));
        crate::objects::slim(doc)
    });
    braced.sort_unstable();
    if let (Some(limit), Some(budget)) = (loaded.over_budget, &limits.budget) {
        budget.release(text_cost);
        return over_budget(limit);
    }
    let mut diagnostics = Vec::new();
    if let Some(at) = unrendered_template(&source.text, loaded.errors.is_empty(), &braced) {
        let pos = source.pos_at(at);
        diagnostics.push(
            lbl::UNRENDERED_TEMPLATE
                .diagnostic(
                    Severity::Note,
                    Location {
                        file: source.path.clone(),
                        span: Span {
                            start: pos,
                            end: source.pos_at(at + 2),
                        },
                    },
                    "Unrendered Helm template skipped: `{{ ... }}` actions are not Kubernetes YAML.",
                )
                .with_help("lint the rendered output instead: `helm template RELEASE CHART | lblint check -`"),
        );
        loaded = LoadedFile::default();
    }
    for error in &loaded.errors {
        diagnostics.push(
            lbl::YAML_SYNTAX
                .diagnostic(
                    Severity::Error,
                    Location {
                        file: source.path.clone(),
                        span: error.span,
                    },
                    format!("YAML syntax error: {}.", error.message.trim_end_matches('.')),
                )
                .with_help("this document is not linted until the syntax error is fixed; other documents are"),
        );
    }
    for too_complex in &loaded.too_complex {
        let (severity, help) = if too_complex.rejected_by_kubernetes {
            (Severity::Error, "write the repeated content out, or merge fewer copies per level; `kubectl apply` fails on this document")
        } else {
            (Severity::Warning, "write the repeated content out, or merge fewer copies per level; this document is not linted")
        };
        diagnostics.push(
            lbl::EXCESSIVE_ALIASING
                .diagnostic(
                    severity,
                    Location {
                        file: source.path.clone(),
                        span: too_complex.span,
                    },
                    format!("Document not linted: {}.", too_complex.message),
                )
                .with_help(help),
        );
    }
    // Like every other finding, only in Kubernetes objects: other YAML is skipped silently.
    let is_object = |doc: usize| {
        let root = loaded.documents.get(doc).and_then(|d| d.root());
        root.is_some_and(|r| r.get("apiVersion").is_some() && r.get("kind").is_some())
    };
    for dup in loaded
        .duplicate_keys
        .iter()
        .filter(|d| is_object(d.document))
    {
        let at = |span: Span| Location {
            file: source.path.clone(),
            span,
        };
        diagnostics.push(
            lbl::DUPLICATE_KEY
                .diagnostic(
                    Severity::Warning,
                    at(dup.second),
                    format!(
                        "Duplicate key `{}`: Kubernetes keeps this value and silently drops the earlier one.",
                        dup.key
                    ),
                )
                .with_related(at(dup.first), "first written here; this value is discarded")
                .with_help("delete one of the two entries (or merge them) so the manifest says what is applied"),
        );
    }
    Loaded {
        file: Some(LintFile { source, loaded }),
        diagnostics,
    }
}

/// A Helm template, not rendered output: a line that starts with a `{{` action (control
/// structures, includes), or `{{` in a file that does not parse. `{{` inside values of a
/// file that parses is data (Prometheus alert templates, Go templates in ConfigMaps), and
/// so is a line inside a block or quoted scalar of such a file (Istio's sidecar-injector
/// ConfigMap holds whole Go templates in `|` blocks).
fn unrendered_template(text: &str, parsed: bool, braced: &[(usize, usize)]) -> Option<usize> {
    let first = text.find("{{")?;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("{{") {
            let at = offset + (line.len() - trimmed.len());
            if !parsed {
                return Some(at);
            }
            let i = braced.partition_point(|&(start, _)| start <= at);
            if !(i > 0 && at < braced[i - 1].1) {
                return Some(at);
            }
        }
        offset += line.len();
    }
    (!parsed).then_some(first)
}

/// Byte ranges of a document's block and quoted scalars that hold `{{`, outermost first.
fn braced_scalar_spans(doc: &yaml::Document, text: &str) -> Vec<(usize, usize)> {
    doc.nodes
        .iter()
        .filter_map(|n| match &n.kind {
            yaml::NodeKind::Scalar(s) if s.style != yaml::Style::Plain => {
                let (start, end) = (n.span.start.offset, n.span.end.offset);
                text.get(start..end)?.contains("{{").then_some((start, end))
            }
            _ => None,
        })
        .collect()
}

/// Walk and load like `check`, then build the cluster model (for `lblint model`).
pub fn load_model(
    options: &CheckOptions,
    profile: &Profile,
) -> Result<(Workspace, Model), CheckError> {
    let (_, loaded) = walk_and_load(options)?;
    let ws = Workspace::new(loaded.into_iter().filter_map(|l| l.file).collect());
    let model = Model::build(&ws, profile);
    Ok((ws, model))
}

/// The walk, then every file read (standard input once, capped at the size limit) and
/// parsed on worker threads, in walk order.
fn walk_and_load(options: &CheckOptions) -> Result<(walk::Walked, Vec<Loaded>), CheckError> {
    let paths = if options.paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let walked = walk::walk(&paths, options.stdin_filename.as_deref(), &options.walk)
        .map_err(CheckError::Walk)?;
    let stdin_text = if walked.files.iter().any(|f| f.source == InputSource::Stdin) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(options.walk.max_file_size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(CheckError::Stdin)?;
        Some(bytes)
    } else {
        None
    };
    let loaded = load_all(
        &walked.files,
        stdin_text.as_deref(),
        options.threads,
        options.walk.max_file_size,
    );
    Ok((walked, loaded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped_reason(loaded: &Loaded) -> &str {
        assert!(loaded.file.is_none());
        assert_eq!(loaded.diagnostics.len(), 1);
        assert_eq!(loaded.diagnostics[0].rule, "LBL003");
        &loaded.diagnostics[0].message
    }

    #[test]
    fn read_error_is_a_file_diagnostic() {
        let loaded = load_bytes(
            "gone.yaml",
            Err("cannot read: gone".into()),
            &Limits::default(),
        );
        assert!(skipped_reason(&loaded).contains("cannot read: gone"));
    }

    #[test]
    fn file_that_vanished_after_the_walk_is_reported() {
        let dir = std::env::temp_dir().join(format!("lblint-vanish-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("vanishing.yaml");
        std::fs::write(&path, "kind: x\n").unwrap();
        let input = InputFile {
            display: "vanishing.yaml".into(),
            source: InputSource::File(path.clone()),
        };
        // Walked, then deleted before the read.
        std::fs::remove_file(&path).unwrap();
        let loaded = load_all(&[input], None, 1, u64::MAX).pop().unwrap();
        assert!(skipped_reason(&loaded).contains("cannot read"));
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn file_that_grew_past_the_limit_after_the_walk_is_reported() {
        let loaded = load_one(
            &InputFile {
                display: "<stdin>".into(),
                source: InputSource::Stdin,
            },
            Some(&b"# 0123456789\n"[..]),
            &Limits::default(),
            4,
        );
        assert!(skipped_reason(&loaded).contains("over the size limit of 4 bytes"));
    }

    #[test]
    fn a_panic_while_loading_becomes_a_diagnostic_for_that_file() {
        let loaded = guarded("boom.yaml", || panic!("kaboom"));
        let reason = skipped_reason(&loaded);
        assert!(
            reason.contains("kaboom") && reason.contains("bug"),
            "{reason}"
        );
        assert_eq!(&*loaded.diagnostics[0].location.file, "boom.yaml");
    }

    #[test]
    fn utf16_with_a_bom_is_decoded_like_kubectl_does() {
        let text = "\u{FEFF}kind: Service # café\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(le.clone()).unwrap(), "kind: Service # café\n");
        assert_eq!(decode(be).unwrap(), "kind: Service # café\n");
        assert!(decode(le[..le.len() - 1].to_vec())
            .unwrap_err()
            .contains("odd number"));
        let lone = [0xFF, 0xFE, 0x00, 0xD8, b'a', 0];
        assert!(decode(lone.to_vec())
            .unwrap_err()
            .contains("unpaired surrogate"));
        let no_bom: Vec<u8> = "kind: x\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(decode(no_bom)
            .unwrap_err()
            .contains("without a byte-order mark"));
        assert!(decode(vec![1, 2, 0, 0, 0, 5, 6, 7, 8, 9])
            .unwrap_err()
            .contains("binary"));
    }
}
