//! How a small hand-written YAML file (a profile, lblint.yaml) is read: the parser's options
//! and budget, and how a serde-saphyr location becomes a [`Place`] in the text.

use super::error::Place;

/// Settings files are hand-written and small; anything bigger is a mistake or an attack.
pub(crate) const MAX_BYTES: usize = 1024 * 1024;

/// Parser options and safety budget for small hand-written files (profiles, config).
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    // A settings file has a few hundred nodes at most; these limits leave ample room for
    // that and stop alias bombs and deep nesting long before they cost anything.
    let mut options = serde_saphyr::Options::default();
    options.budget = serde_saphyr::budget! {
        max_events: 100_000,
        max_nodes: 50_000,
        max_depth: 24,
        max_documents: 2,
        max_aliases: 256,
        max_anchors: 256,
        max_merge_keys: 64,
        max_total_scalar_bytes: MAX_BYTES,
        max_recorded_anchor_events: 10_000,
        max_recorded_anchor_bytes: MAX_BYTES,
    };
    options.alias_limits.max_total_replayed_events = 10_000;
    options.alias_limits.max_replay_stack_depth = 16;
    // We render our own snippets (miette); the wrapper would only copy the text again.
    options.with_snippet = false;
    // `strict_booleans` stays false on purpose: YAML 1.1 `yes`/`no`/`on`/`off` are booleans,
    // as they are for Kubernetes (go-yaml v2), so `lbAddressBinding: yes` means true.
    options
}

/// Only blank lines, comments and document markers.
pub(crate) fn is_empty_yaml(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---" || l == "..."
    })
}

/// Where the first line that is not blank, a comment or `---` starts (0 when none is).
pub(crate) fn first_content_offset(text: &str) -> usize {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with('#') || t == "---") {
            return offset + (line.len() - line.trim_start().len());
        }
        offset += line.len();
    }
    0
}

/// The place of a serde-saphyr location in `text`.
pub(crate) fn place_of(loc: &serde_saphyr::Location, text: &str) -> Place {
    if loc.line() == 0 {
        return Place::at_offset(text, 0, 0);
    }
    let span = loc.span();
    match span.byte_offset() {
        Some(off) => Place::at_offset(
            text,
            usize::try_from(off).unwrap_or(usize::MAX),
            usize::try_from(span.byte_len().unwrap_or(0)).unwrap_or(0),
        ),
        // Parser (syntax) errors come without byte info: map line/column back to an offset.
        None => Place::at_line_column(
            text,
            usize::try_from(loc.line()).unwrap_or(1),
            usize::try_from(loc.column()).unwrap_or(1),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_yaml() {
        assert!(is_empty_yaml(""));
        assert!(is_empty_yaml("# c\n\n---\n"));
        assert!(!is_empty_yaml("a: 1"));
    }
}
