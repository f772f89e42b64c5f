//! Command-line interface: clap types and one function per subcommand.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::check::{check, CheckOptions};
use crate::config::{self, Config, FailOnLevel};
use crate::diagnostic::Severity;
use crate::guard::{self, InternalError};
use crate::profile::{self, Profile, Provider, ProxyMode};
use crate::report::escape::{escape, Keep};
use crate::report::{self, Format, ReportOptions};
use crate::rules;
use crate::walk::{RebasedGlobs, WalkOptions, DEFAULT_MAX_FILE_SIZE};

/// Exit status: no diagnostic at or above --fail-on.
pub const EXIT_OK: i32 = 0;
/// Exit status: a diagnostic at or above --fail-on.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit status: the run itself failed.
pub const EXIT_FAILURE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "lblint",
    version,
    about = "Find cloud load-balancer loopback traps in Kubernetes manifests (TKE, VKE, ACK)",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per run: the size of `Check` does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lint manifests (files, directories, or `-` for stdin).
    Check(CheckArgs),
    /// List the rules.
    Rules {
        #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
        format: RulesFormat,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule id (TKE001) or name (tke-l4-loopback).
        rule: String,
    },
    /// Print the cluster model: load-balancer entry points, their addresses, backends,
    /// in-cluster callers and where each pod can run.
    Model(ModelArgs),
    /// Create or validate a cluster profile.
    #[command(subcommand)]
    Profile(ProfileCommand),
    /// Print the JSON Schema of a cluster profile or of the config file.
    Schema {
        #[arg(value_enum)]
        which: SchemaArg,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SchemaArg {
    /// The cluster profile (`lblint profile init`).
    Profile,
    /// The config file (`lblint.yaml`, `.lblint.yaml`).
    Config,
}

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// Files or directories; `-` reads standard input.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ModelFormat::Table)]
    pub format: ModelFormat,
}

#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// Print a commented cluster profile to start from.
    Init {
        #[arg(long, value_enum)]
        provider: Option<ProviderArg>,
        #[arg(long = "proxy-mode", value_enum)]
        proxy_mode: Option<ProxyModeArg>,
    },
    /// Validate a cluster profile file.
    Check { file: PathBuf },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModelFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
    /// The table in README.md's "Rules" section.
    Markdown,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProviderArg {
    Tke,
    Vke,
    Ack,
    Generic,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProxyModeArg {
    Iptables,
    Ipvs,
    Nftables,
    Ebpf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Human,
    Compact,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to lint; `-` reads standard input.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Cluster profile (provider, kube-proxy mode, node pools...). Without one, every
    /// cluster fact is unknown.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 1 when a diagnostic at or above this severity remains [default: warning,
    /// or the config file's `failOn`].
    #[arg(long = "fail-on", value_enum)]
    pub fail_on: Option<FailOn>,
    /// Only these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,
    /// Skip these rules (ids or names).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Lint only files matching these globs (default: *.yaml, *.yml, *.json); replaces the
    /// config file's `include`.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files and directories matching these globs, even when named explicitly; adds
    /// to the config file's `exclude`.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Use this config file instead of looking for lblint.yaml / .lblint.yaml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Do not look for a config file.
    #[arg(long = "no-config")]
    pub no_config: bool,
    /// Report findings hidden by suppression comments, annotations and config `ignore:`.
    #[arg(long = "no-ignores")]
    pub no_ignores: bool,
    /// Path to show for standard input.
    #[arg(long = "stdin-filename", value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// Follow symbolic links while walking directories.
    #[arg(long = "follow-links")]
    pub follow_links: bool,
    /// Skip files larger than this many bytes.
    #[arg(long = "max-file-size", value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Apply safe fixes in place, then report what remains.
    #[arg(long)]
    pub fix: bool,
    /// With --fix, also apply fixes that change behaviour (review them).
    #[arg(long = "unsafe-fixes", requires = "fix")]
    pub unsafe_fixes: bool,
}

/// Parse arguments, run, and return the exit status.
pub fn main() -> i32 {
    guard::install_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() {
                EXIT_FAILURE
            } else {
                EXIT_OK
            };
            let _ = err.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(args) => run_check(args),
        Command::Rules { format } => run_rules(format),
        Command::Explain { rule } => run_explain(&rule),
        Command::Model(args) => run_model(args),
        Command::Profile(ProfileCommand::Init {
            provider,
            proxy_mode,
        }) => run_profile_init(provider, proxy_mode),
        Command::Profile(ProfileCommand::Check { file }) => run_profile_check(&file),
        Command::Schema { which } => run_schema(which),
    }
}

fn run_schema(which: SchemaArg) -> i32 {
    let schema = match which {
        SchemaArg::Profile => profile::json_schema(),
        SchemaArg::Config => config::json_schema(),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&schema).unwrap_or_default()
    );
    EXIT_OK
}

fn fail(message: impl std::fmt::Display) -> i32 {
    // Messages can name files and values from the repository: no terminal controls.
    eprintln!(
        "lblint: error: {}",
        escape(&message.to_string(), Keep::Newlines)
    );
    EXIT_FAILURE
}

/// One line per crash on stderr; the run failed (exit 2) even if the report was written.
fn internal_failure(crashes: &[InternalError]) -> i32 {
    for crash in crashes {
        eprintln!("lblint: {crash}");
    }
    EXIT_FAILURE
}

fn stderr_color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

fn print_profile_error(err: &profile::ProfileError) {
    print_located_error("invalid cluster profile", err);
}

fn print_located_error(heading: &str, err: &profile::ProfileError) {
    let handler = if stderr_color() {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode())
    } else {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
    };
    let mut rendered = String::new();
    // A rendering failure (or a miette bug) still shows the error, as plain text.
    if !matches!(
        guard::catch(|| handler.render_report(&mut rendered, &err.diagnostic())),
        Ok(Ok(()))
    ) {
        rendered = err.to_string();
    }
    eprintln!("lblint: error: {heading}\n{rendered}");
}

fn load_profile(path: Option<&PathBuf>) -> Result<Profile, i32> {
    match path {
        None => Ok(profile::generic()),
        Some(path) => profile::load_profile(path).map_err(|err| {
            print_profile_error(&err);
            EXIT_FAILURE
        }),
    }
}

/// The config file of the run: `--config`, else discovery from the working directory.
fn load_config(args: &CheckArgs, cwd: &std::path::Path) -> Result<Option<Config>, i32> {
    let path = match (&args.config, args.no_config) {
        (_, true) => return Ok(None),
        (Some(path), _) => path.clone(),
        (None, false) => match config::discover(cwd) {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    config::load_config(&path, cwd).map(Some).map_err(|err| {
        print_located_error("invalid config file", &err);
        EXIT_FAILURE
    })
}

fn run_check(args: CheckArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let config = match load_config(&args, &cwd) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Flags win over the config file; the config's profile path is relative to its directory.
    let profile_path = args
        .profile
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.profile.clone()));
    let profile = match load_profile(profile_path.as_ref()) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let fail_on = args
        .fail_on
        .unwrap_or_else(|| match config.as_ref().and_then(|c| c.fail_on) {
            Some(FailOnLevel::Error) => FailOn::Error,
            Some(FailOnLevel::Note) => FailOn::Note,
            Some(FailOnLevel::Never) => FailOn::Never,
            Some(FailOnLevel::Warning) | None => FailOn::Warning,
        });
    let format = match args.format {
        FormatArg::Human => Format::Human,
        FormatArg::Compact => Format::Compact,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
        FormatArg::Github => Format::Github,
    };
    let options = CheckOptions {
        paths: args.paths,
        stdin_filename: args.stdin_filename,
        walk: WalkOptions {
            include: args.include,
            exclude: args.exclude,
            follow_links: args.follow_links,
            max_file_size: args.max_file_size,
            rebased: config.as_ref().map(|c| RebasedGlobs {
                base: c.dir.clone(),
                include: c.include.clone(),
                exclude: c.exclude.clone(),
            }),
        },
        select: args.select,
        ignore: args.ignore,
        threads: args.threads,
        levels: config.as_ref().map(|c| c.rules.clone()).unwrap_or_default(),
        config_ignores: config.as_ref().map(|c| c.ignores(&cwd)),
        config_source: config.as_ref().map(|c| c.source.clone()),
        no_ignores: args.no_ignores,
    };
    if args.fix && options.paths.iter().any(|p| p.as_os_str() == "-") {
        return fail("--fix cannot write back to standard input; lint files instead");
    }
    // A file --fix could not write is an error (exit 2), after the report of what remains.
    let mut fix_failed = false;
    if args.fix {
        match crate::fix::apply(&options, &profile, args.unsafe_fixes) {
            Ok(done) => {
                for (file, reason) in &done.failures {
                    eprintln!("lblint: error: cannot fix {file}: {reason}; it is left as it was");
                }
                fix_failed = !done.failures.is_empty();
                if done.fixed > 0 {
                    let n = done.fixed;
                    eprintln!("lblint: fixed {n} problem{}", if n == 1 { "" } else { "s" });
                }
            }
            Err(err) => return fail(err),
        }
    }
    // Rules are guarded one by one; this catches a crash anywhere else in the pipeline.
    let outcome = match guard::catch(|| check(&options, &profile)) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(err)) => return fail(err),
        Err(crash) => {
            return internal_failure(&[InternalError {
                what: "the check".to_string(),
                lost: "no report was written",
                crash,
            }])
        }
    };
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            args.output.is_none()
                && std::env::var_os("NO_COLOR").is_none()
                && std::io::stdout().is_terminal()
        }
    };
    let report_options = ReportOptions {
        color,
        width: terminal_width(args.output.is_none()),
        rules: crate::check::enabled_rules(&options).unwrap_or_else(|_| rules::all_meta()),
        cwd: std::env::current_dir().ok(),
    };
    let rendered = guard::render_report(format, |format, out| {
        report::write_report(
            format,
            &outcome.diagnostics,
            &outcome.summary,
            &outcome.sources,
            &report_options,
            out,
        )
    });
    let (buffer, report_crash) = match rendered {
        Ok(rendered) => (rendered.bytes, rendered.crash),
        Err(err) => return fail(format!("cannot write the report: {err}")),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, &buffer)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&buffer)
                .and_then(|_| stdout.flush())
                .map_err(|e| e.to_string())
        }
    };
    if let Err(err) = written {
        return fail(err);
    }
    let crashes: Vec<InternalError> = outcome
        .internal_errors
        .iter()
        .cloned()
        .chain(report_crash)
        .collect();
    if !crashes.is_empty() {
        return internal_failure(&crashes);
    }
    if fix_failed {
        return EXIT_FAILURE;
    }
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Note => Some(Severity::Note),
        FailOn::Never => None,
    };
    match (threshold, outcome.max_severity()) {
        (Some(threshold), Some(max)) if max >= threshold => EXIT_FINDINGS,
        _ => EXIT_OK,
    }
}

/// The width the human report wraps at: $COLUMNS when set and valid, else the width of
/// the terminal the report goes to, else 100. Under 40 columns counts as not valid.
fn terminal_width(to_stdout: bool) -> usize {
    let valid = |w: &usize| *w >= 40;
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let terminal = || {
        to_stdout
            .then(|| terminal_size::terminal_size_of(std::io::stdout()))
            .flatten()
            .map(|(terminal_size::Width(w), _)| usize::from(w))
    };
    columns
        .filter(valid)
        .or_else(|| terminal().filter(valid))
        .unwrap_or(100)
}

fn run_model(args: ModelArgs) -> i32 {
    let profile = match load_profile(args.profile.as_ref()) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let options = CheckOptions {
        paths: args.paths,
        ..CheckOptions::default()
    };
    let (ws, model) = match crate::check::load_model(&options, &profile) {
        Ok(built) => built,
        Err(err) => return fail(err),
    };
    match args.format {
        ModelFormat::Json => {
            let json = crate::model::report::to_json(&ws, &model);
            println!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
        }
        ModelFormat::Table => {
            let table = crate::model::report::to_human(&ws, &model);
            print!("{}", escape(&table, Keep::Newlines));
        }
    }
    EXIT_OK
}

fn run_rules(format: RulesFormat) -> i32 {
    let metas = rules::all_meta();
    let text = match format {
        RulesFormat::Json => {
            let list: Vec<serde_json::Value> = metas
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "id": m.id,
                        "name": m.name,
                        "severity": m.default_severity.as_str(),
                        "providers": m.providers,
                        "summary": m.summary,
                        "fix": m.fix.as_str(),
                        "url": m.url(),
                    })
                })
                .collect();
            serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
        }
        RulesFormat::Table => {
            let width = metas.iter().map(|m| m.name.len()).max().unwrap_or(4).max(4);
            let mut out = format!(
                "{:<7} {:<width$} {:<8} {:<9} {:<9} SUMMARY\n",
                "ID", "NAME", "SEVERITY", "PROVIDERS", "FIX"
            );
            for m in &metas {
                out.push_str(&format!(
                    "{:<7} {:<width$} {:<8} {:<9} {:<9} {}\n",
                    m.id,
                    m.name,
                    m.default_severity.as_str(),
                    m.providers.join(","),
                    m.fix.as_str(),
                    m.summary
                ));
            }
            out
        }
        RulesFormat::Markdown => rules::markdown_table(),
    };
    print!("{text}");
    EXIT_OK
}

fn run_explain(key: &str) -> i32 {
    match rules::lookup(key) {
        Some(meta) => {
            print!("{}", meta.doc);
            EXIT_OK
        }
        None => {
            let keys = crate::rules::rule_keys();
            let suggestion = profile::suggest::did_you_mean(key, &keys);
            match suggestion {
                Some(s) => fail(format!(
                    "unknown rule `{key}`; did you mean `{s}`? (see `lblint rules`)"
                )),
                None => fail(format!("unknown rule `{key}` (see `lblint rules`)")),
            }
        }
    }
}

fn run_profile_init(provider: Option<ProviderArg>, proxy_mode: Option<ProxyModeArg>) -> i32 {
    let provider = provider.map(|p| match p {
        ProviderArg::Tke => Provider::Tke,
        ProviderArg::Vke => Provider::Vke,
        ProviderArg::Ack => Provider::Ack,
        ProviderArg::Generic => Provider::Generic,
    });
    let proxy_mode = proxy_mode.map(|m| match m {
        ProxyModeArg::Iptables => ProxyMode::Iptables,
        ProxyModeArg::Ipvs => ProxyMode::Ipvs,
        ProxyModeArg::Nftables => ProxyMode::Nftables,
        ProxyModeArg::Ebpf => ProxyMode::Ebpf,
    });
    print!("{}", profile::init_template(provider, proxy_mode));
    EXIT_OK
}

fn run_profile_check(file: &std::path::Path) -> i32 {
    match profile::load_profile(file) {
        Ok(p) => {
            println!(
                "{}: valid ClusterProfile (provider {})",
                file.display(),
                p.provider().as_str()
            );
            EXIT_OK
        }
        Err(err) => {
            print_profile_error(&err);
            EXIT_FAILURE
        }
    }
}
