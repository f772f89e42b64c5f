//! Every rule's metadata, generated at build time from the front matter of `rules/<ID>.md`
//! (see `build.rs`): a rule is declared once, in its document.

use super::{FixAvailability, RuleMeta};
use crate::diagnostic::Severity;

include!(concat!(env!("OUT_DIR"), "/rule_meta.rs"));
