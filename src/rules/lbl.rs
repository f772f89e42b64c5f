//! Diagnostics the loader itself reports: input lblint could not read or lint.

use super::RuleMeta;

pub use crate::rules::meta::LBL001 as YAML_SYNTAX;

pub use crate::rules::meta::LBL002 as UNRENDERED_TEMPLATE;

pub use crate::rules::meta::LBL003 as FILE_SKIPPED;

pub use crate::rules::meta::LBL004 as UNUSED_SUPPRESSION;

pub use crate::rules::meta::LBL005 as DUPLICATE_KEY;

pub use crate::rules::meta::LBL006 as EXCESSIVE_ALIASING;

pub static ALL: [&RuleMeta; 6] = [
    &YAML_SYNTAX,
    &UNRENDERED_TEMPLATE,
    &FILE_SKIPPED,
    &UNUSED_SUPPRESSION,
    &DUPLICATE_KEY,
    &EXCESSIVE_ALIASING,
];
