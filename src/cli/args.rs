//! The command line as clap parses it: subcommands, their arguments and value enums.

use std::path::PathBuf;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, ArgGroup, Args, Parser, Subcommand, ValueEnum};

use crate::diagnostic::FailOn;
use crate::profile::{Provider, ProxyMode};
use crate::report::Format;

#[derive(Parser, Debug)]
#[command(
    name = "lblint",
    version,
    about = "Find cloud load-balancer loopback and hairpin traps in Kubernetes manifests, on every cloud",
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
        /// How to print the list.
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
        /// Which file's schema.
        #[arg(value_enum)]
        which: SchemaArg,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Run the language server on stdin/stdout (diagnostics, code actions, hover).
    Server,
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
    /// Cluster profile [default: the config file's `profile`, else none: every cluster
    /// fact unknown].
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// How to print the model.
    #[arg(long, value_enum, default_value_t = ModelFormat::Table)]
    pub format: ModelFormat,
    /// Use this config file (its `profile`, `include` and `exclude`) instead of looking
    /// for lblint.yaml / .lblint.yaml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Do not look for a config file.
    #[arg(long = "no-config")]
    pub no_config: bool,
}

#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// Print a commented cluster profile to start from.
    Init {
        /// The cluster's provider; its facts are the ones the profile explains [default:
        /// generic].
        #[arg(long, value_parser = ProviderParser)]
        provider: Option<Provider>,
        /// The cluster's kube-proxy mode, filled in as `spec.kubeProxy.mode` [default: left
        /// for you to state].
        #[arg(long = "proxy-mode", value_enum)]
        proxy_mode: Option<ProxyMode>,
    },
    /// Write a cluster profile from read-only kubectl dumps (offline; never reads Secrets).
    ///
    /// Give the output of: kubectl version -o yaml; kubectl get nodes -o yaml; kubectl -n
    /// kube-system get ds,deploy,cm,pods -o yaml; kubectl get svc,ingress,ingressclass -A
    /// -o yaml. YAML or JSON, in any order; `-` reads standard input.
    Import {
        /// The dump files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the profile here instead of to standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The cluster's provider, when the dumps cannot show it (no nodes dump, nothing in
        /// kube-system names the cloud); `generic` for a cluster on no cloud lblint models.
        #[arg(long, value_parser = ProviderParser)]
        provider: Option<Provider>,
        /// Refuse dump files larger than this: bytes, or a number with a unit (KB, MB, GB
        /// are powers of 1000; KiB, MiB, GiB powers of 1024). The read is streamed: memory
        /// stays near the size of the largest file.
        #[arg(
            long = "max-file-size",
            value_name = "SIZE",
            default_value = "1GiB",
            value_parser = super::size::parse_size
        )]
        max_file_size: u64,
    },
    /// Validate a cluster profile file.
    Check {
        /// The profile to validate.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModelFormat {
    /// For people.
    Table,
    /// For scripts.
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RulesFormat {
    /// One line per rule.
    Table,
    /// For scripts: id, name, severity, providers, summary, fix, url.
    Json,
    /// The table in README.md's "Rules" section.
    Markdown,
}

/// `--provider`: exactly the profile's names, from the one list in the profile model, and
/// the profile loader's suggestion when a value is none of them (`aws` → `eks`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProviderParser;

impl TypedValueParser for ProviderParser {
    type Value = Provider;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Provider, clap::Error> {
        let text = value.to_string_lossy();
        if let Some(provider) = Provider::ALL.into_iter().find(|p| p.as_str() == text) {
            return Ok(provider);
        }
        let mut err = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
        let arg = arg.map_or_else(|| "--provider".to_owned(), ToString::to_string);
        let names = Provider::NAMES.map(str::to_owned).to_vec();
        err.insert(ContextKind::InvalidArg, ContextValue::String(arg));
        err.insert(
            ContextKind::InvalidValue,
            ContextValue::String(text.to_string()),
        );
        err.insert(ContextKind::ValidValue, ContextValue::Strings(names));
        if let Some(name) = crate::profile::suggest::suggest_provider(&text) {
            err.insert(
                ContextKind::SuggestedValue,
                ContextValue::String(name.to_owned()),
            );
        }
        Err(err)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let values = Provider::ALL.map(|p| PossibleValue::new(p.as_str()).help(p.label()));
        Some(Box::new(values.into_iter()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// When the report goes to a terminal, unless NO_COLOR, FORCE_COLOR or
    /// CLICOLOR_FORCE say otherwise.
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
// --unsafe-fixes says which fixes count; it means something only beside one of these.
#[command(group(
    ArgGroup::new("fixing")
        .args(["fix", "diff", "show_fixes", "statistics"])
        .multiple(true)
))]
pub struct CheckArgs {
    /// Files or directories to lint; `-` reads standard input.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Cluster profile (provider, kube-proxy mode, node pools...). Without one, every
    /// cluster fact is unknown.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
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
    /// The namespace objects without `metadata.namespace` are applied to (`kubectl apply
    /// -n NS`): they are matched to the profile's `Kind/NS/name` entries in it. Wins over
    /// the config's `namespace:`.
    #[arg(short = 'n', long, value_name = "NS", value_parser = namespace_name)]
    pub namespace: Option<String>,
    /// Lint the named files in the context of the manifests under DIR (`--context=DIR`;
    /// `--context` alone: the working directory): those
    /// are loaded too (with the same include and exclude), and the findings reported are
    /// the ones that involve a named file, where it is reported or as a related location
    /// (a caller in one file of a load balancer in another). For pre-commit.
    #[arg(
        long,
        value_name = "DIR",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "."
    )]
    pub context: Option<PathBuf>,
    /// A Helm chart directory, or a directory holding charts, where SARIF looks first for
    /// the template of a `# Source: CHART/templates/...` origin (repeatable; tried before
    /// the config file's `chartRoots`, then charts are searched for under the working
    /// directory).
    #[arg(long = "chart-root", value_name = "DIR")]
    pub chart_root: Vec<PathBuf>,
    /// Render each kustomization root (`kubectl kustomize`, or `kustomize build`) and Helm
    /// chart (`helm template`) with your own tools, and lint what they render; findings
    /// point at the base files and templates. Slower: one process per root. Settings:
    /// `render:` in lblint.yaml.
    #[arg(long, conflicts_with = "no_render")]
    pub render: bool,
    /// Never render, whatever the config file says (`render.enabled`): for CI on pull
    /// requests from forks, whose lblint.yaml is the fork author's.
    #[arg(long = "no-render")]
    pub no_render: bool,
    /// Path to show for standard input.
    #[arg(long = "stdin-filename", value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// Follow symbolic links while walking directories.
    #[arg(long = "follow-links")]
    pub follow_links: bool,
    /// Skip (and report) files larger than this: bytes, or a number with a unit (KB, MB,
    /// GB are powers of 1000; KiB, MiB, GiB powers of 1024).
    #[arg(
        long = "max-file-size",
        value_name = "SIZE",
        default_value = "64MiB",
        value_parser = super::size::parse_size
    )]
    pub max_file_size: u64,
    /// Colour the human report.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Apply safe fixes in place, then report what remains.
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff, also apply fixes that change behaviour (review them); with
    /// --show-fixes or --statistics, count them as applied.
    #[arg(long = "unsafe-fixes", requires = "fixing")]
    pub unsafe_fixes: bool,
    /// Print what --fix would change as a unified diff and write nothing; exit 1 when there
    /// is something to change, else 0.
    #[arg(long, conflicts_with_all = ["show_fixes", "statistics"])]
    pub diff: bool,
    /// Under each finding, its fix and suggestions with their safety and the lines they
    /// change (human and compact formats), then how many fixes --fix applies with and
    /// without --unsafe-fixes.
    #[arg(long = "show-fixes")]
    pub show_fixes: bool,
    /// Count the findings of each rule instead of listing them (human, compact, json).
    #[arg(long)]
    pub statistics: bool,
    /// Print findings only, no summary lines or notices (-q); nothing but errors (-qq).
    #[arg(short, long, action = ArgAction::Count, conflicts_with = "verbose")]
    pub quiet: u8,
    /// Name the config file, the profile and every file linted, on stderr.
    #[arg(short, long)]
    pub verbose: bool,
    /// Exit 0 even when findings remain (still 2 when the run itself fails).
    #[arg(long = "exit-zero")]
    pub exit_zero: bool,
}

/// `--namespace`: a namespace name (a DNS label), as kubectl takes it.
fn namespace_name(text: &str) -> Result<String, String> {
    if crate::objects::is_namespace_name(text) {
        Ok(text.to_string())
    } else {
        Err(crate::objects::NAMESPACE_NAME_HELP.into())
    }
}
