//! Every rule's metadata, generated at build time from the front matter of `rules/<ID>.md`
//! (see `build.rs`): a rule is declared once, in its document.

use super::{FixAvailability, Providers, RuleMeta};
use crate::diagnostic::Severity;
use crate::profile::Provider;

include!(concat!(env!("OUT_DIR"), "/rule_meta.rs"));
