//! One resolver of a lint's settings, for every front end: the CLI's `check` and `model` and
//! the language server call it, so the config file is found and the profile chosen the same
//! way everywhere (as ruff's CLI and server share `ruff_workspace::resolver`). What is left
//! to each front end is what only it has: flags, or the editor's settings.

use std::path::{Path, PathBuf};

use super::{discover, load_config, Config, ConfigError};
use crate::profile::{self, Profile};
use crate::settings::SettingsError;

/// Which config file a lint reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ConfigChoice<'a> {
    /// This file (`--config`).
    Named(&'a Path),
    /// The nearest `lblint.yaml` (or `.lblint.yaml`) from this directory up.
    Discover(&'a Path),
    /// None (`--no-config`).
    Off,
}

/// A lint's config file and cluster profile.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub config: Option<Config>,
    pub profile: Profile,
}

/// Why the settings cannot be used: the config file's errors or the profile's, located.
#[derive(Debug)]
pub(crate) enum ResolveError {
    Config(ConfigError),
    Profile(SettingsError),
}

/// The config file `choice` names, then the profile: `profile` (a flag or the editor's
/// setting) wins over the config's `profile:` (already relative to its directory); with
/// neither, the generic profile of a cluster lblint knows nothing about.
pub(crate) fn resolve(
    choice: ConfigChoice<'_>,
    profile: Option<&Path>,
    cwd: &Path,
) -> Result<Resolved, ResolveError> {
    let path: Option<PathBuf> = match choice {
        ConfigChoice::Named(path) => Some(path.to_path_buf()),
        ConfigChoice::Discover(dir) => discover(dir),
        ConfigChoice::Off => None,
    };
    let config = match path {
        Some(path) => Some(load_config(&path, cwd).map_err(ResolveError::Config)?),
        None => None,
    };
    let profile_path = profile
        .map(Path::to_path_buf)
        .or_else(|| config.as_ref().and_then(|c| c.profile.clone()));
    let profile = match profile_path {
        None => profile::generic(),
        Some(path) => profile::load_profile(&path).map_err(ResolveError::Profile)?,
    };
    Ok(Resolved { config, profile })
}
