//! Command-line interface: the clap types are in `args`, `lblint check` is in `check`,
//! and this file has one function for each other subcommand.

// The CLI is where lblint prints: reports, notices and errors.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::IsTerminal;

use clap::Parser;

use crate::catalog;
use crate::check::CheckOptions;
use crate::config;
use crate::panic::{self, InternalError};
use crate::profile::{self, Provider, ProxyMode};
use crate::text::escape::{escape, Keep};
use check::run_check;

mod args;
mod check;
mod color;
mod notices;
mod profile_import;
mod settings;
mod size;

pub use args::Cli;
pub(crate) use args::{
    CheckArgs, ColorArg, Command, ModelArgs, ModelFormat, ProfileCommand, RulesFormat, SchemaArg,
};

/// Exit status: no diagnostic at or above --fail-on.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit status: a diagnostic at or above --fail-on.
pub(crate) const EXIT_FINDINGS: i32 = 1;
/// Exit status: the run itself failed.
pub(crate) const EXIT_FAILURE: i32 = 2;

/// Parse arguments, run, and return the exit status.
pub fn main() -> i32 {
    panic::install_hook();
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
        Command::Profile(ProfileCommand::Import {
            files,
            output,
            max_file_size,
            provider,
        }) => profile_import::run(&files, output.as_deref(), max_file_size, provider),
        Command::Schema { which } => run_schema(which),
        Command::Completions { shell } => run_completions(shell),
        Command::Server => crate::server::run_stdio(),
    }
}

/// Completions from the parser's own Command, so they list exactly the flags it takes.
fn run_completions(shell: clap_complete::Shell) -> i32 {
    use clap::CommandFactory;
    use std::io::Write as _;
    // Into memory first: clap_complete panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "lblint", &mut script);
    match std::io::stdout().write_all(&script) {
        Ok(()) => EXIT_OK,
        Err(err) => fail(format!("cannot write the completion script: {err}")),
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
    color::use_color_here(ColorArg::Auto, std::io::stderr().is_terminal())
}

fn print_profile_error(err: &crate::settings::SettingsError) {
    print_located_error("invalid cluster profile", err);
}

fn print_located_error(heading: &str, err: &crate::settings::SettingsError) {
    let handler = if stderr_color() {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode())
    } else {
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
    };
    let count = err.each().count();
    let heading = if count > 1 {
        format!("{heading} ({count} errors)")
    } else {
        heading.to_string()
    };
    let mut all = String::new();
    for err in err.each() {
        let mut rendered = String::new();
        // A rendering failure (or a miette bug) still shows the error, as plain text.
        if !matches!(
            panic::catch(|| handler.render_report(&mut rendered, &err.diagnostic())),
            Ok(Ok(()))
        ) {
            rendered = err.to_string();
        }
        all.push_str(&rendered);
    }
    eprintln!("lblint: error: {heading}\n{all}");
}

/// `lblint model`: the config file is found and read as `check` does (its `profile`,
/// `include` and `exclude`; the rest is about findings, which the model has none of).
fn run_model(args: ModelArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let resolved = settings::resolve(
        args.config.as_deref(),
        args.no_config,
        args.profile.as_deref(),
        &cwd,
    );
    let crate::config::Resolved { config, profile } = match resolved {
        Ok(resolved) => resolved,
        Err(code) => return code,
    };
    let inputs = crate::check::Inputs {
        paths: args.paths,
        walk: crate::walk::WalkOptions {
            rebased: config.map(|c| crate::walk::RebasedGlobs {
                base: c.dir,
                include: c.include,
                exclude: c.exclude,
            }),
            ..crate::walk::WalkOptions::default()
        },
        ..crate::check::Inputs::default()
    };
    let options = CheckOptions {
        inputs,
        ..CheckOptions::default()
    };
    let printed =
        crate::check::with_model(&options, &profile, |ws, views, model| match args.format {
            ModelFormat::Json => {
                let json = crate::report::model::to_json(ws, views, model);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
            }
            ModelFormat::Table => {
                let table = crate::report::model::to_human(ws, views, model);
                print!("{}", escape(&table, Keep::Newlines));
            }
        });
    match printed {
        Ok(()) => EXIT_OK,
        Err(err) => fail(err),
    }
}

fn run_rules(format: RulesFormat) -> i32 {
    let metas = catalog::all_meta();
    let text = match format {
        RulesFormat::Json => {
            let list: Vec<serde_json::Value> = metas
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "id": m.id,
                        "name": m.name,
                        "severity": m.default_severity.as_str(),
                        "providers": m.providers.names(),
                        "summary": m.summary,
                        "fix": m.fix.as_str(),
                        "url": m.url(),
                    })
                })
                .collect();
            serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
        }
        RulesFormat::Table => {
            let id_width = metas.iter().map(|m| m.id.len()).max().unwrap_or(2).max(2);
            let width = metas.iter().map(|m| m.name.len()).max().unwrap_or(4).max(4);
            let providers = metas
                .iter()
                .map(|m| m.providers.names().join(",").len())
                .max()
                .unwrap_or(9)
                .max(9);
            // The summary wraps to the terminal, continuing under itself; on a terminal too
            // narrow for a summary column it goes under the row, indented.
            let columns = check::terminal_width(true);
            let beside = id_width + width + 8 + providers + 9 + 5;
            let (indent, room) = if beside + 30 <= columns {
                (beside, columns - beside)
            } else {
                (4, columns.saturating_sub(4).max(20))
            };
            let mut out = format!(
                "{:<id_width$} {:<width$} {:<8} {:<providers$} {:<9} {}",
                "ID",
                "NAME",
                "SEVERITY",
                "PROVIDERS",
                "FIX",
                if indent == beside { "SUMMARY" } else { "" }
            )
            .trim_end()
            .to_string();
            out.push('\n');
            for m in metas {
                let lines = textwrap::wrap(m.summary, room);
                let row = format!(
                    "{:<id_width$} {:<width$} {:<8} {:<providers$} {:<9} {}",
                    m.id,
                    m.name,
                    m.default_severity.as_str(),
                    m.providers.names().join(","),
                    m.fix.as_str(),
                    if indent == beside {
                        lines.first().map_or("", |l| l.as_ref())
                    } else {
                        ""
                    }
                );
                out.push_str(row.trim_end());
                out.push('\n');
                let rest = if indent == beside { 1 } else { 0 };
                for line in lines.iter().skip(rest) {
                    out.push_str(&format!("{:indent$}{line}\n", ""));
                }
            }
            out
        }
        RulesFormat::Markdown => catalog::markdown_table(),
    };
    print!("{text}");
    EXIT_OK
}

fn run_explain(key: &str) -> i32 {
    match catalog::lookup(key) {
        Some(meta) => {
            print!("{}", meta.doc);
            EXIT_OK
        }
        None => {
            let keys = crate::catalog::rule_keys();
            let suggestion = crate::settings::suggest::did_you_mean(key, &keys);
            match suggestion {
                Some(s) => fail(format!(
                    "unknown rule `{key}`; did you mean `{s}`? (see `lblint rules`)"
                )),
                None => fail(format!("unknown rule `{key}` (see `lblint rules`)")),
            }
        }
    }
}

fn run_profile_init(provider: Option<Provider>, proxy_mode: Option<ProxyMode>) -> i32 {
    let own_rules = provider.map_or_else(Vec::new, crate::catalog::ids_for_provider);
    print!(
        "{}",
        profile::init_template(provider, proxy_mode, &own_rules)
    );
    EXIT_OK
}

fn run_profile_check(file: &std::path::Path) -> i32 {
    match profile::load_profile(file) {
        Ok(p) => {
            // Whether the objects it names exist needs the manifests: `check` says (LBL007).
            let named = p.load_balancers().filter(|lb| lb.object.is_some()).count()
                + p.load_balancers().filter(|lb| lb.targets.is_some()).count()
                + p.spec.ingress_controllers.as_ref().map_or(0, Vec::len);
            let later = match named {
                0 => String::new(),
                n => format!(
                    "; the {n} object key(s) it names are checked against the manifests by \
                     `lblint check` (LBL007)"
                ),
            };
            println!(
                "{}: valid ClusterProfile (provider {}){later}",
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
