//! The kit every settings file (the cluster profile, lblint.yaml) is read with: the parser's
//! options and budget (`syntax`), the recovering parse that reports every error of a file
//! in one run (`recover`), serde errors worded as a message and a "did you mean" help
//! (`translate`, `suggest`), the located error (`error`), and the JSON Schema and error-help
//! tables derived from a file's serde types (`schema`). `profile/` and `config/` are two
//! schemas on top of it.

mod error;
pub(crate) mod recover;
pub(crate) mod schema;
pub(crate) mod suggest;
mod syntax;
pub(crate) mod translate;

pub(crate) use error::Place;
pub(crate) use error::SettingsError;
pub(crate) use syntax::MAX_BYTES;
pub(crate) use syntax::{first_content_offset, is_empty_yaml, place_of, yaml_options};
