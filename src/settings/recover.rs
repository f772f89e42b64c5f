//! Every error of a settings file in one run: after an error, the offending entry is blanked
//! out (its bytes become spaces, so every later position stays where it was) and the file is
//! parsed again.

use serde_saphyr::Error as YamlError;

use super::error::SettingsError;
use super::translate::is_refusal;

/// Errors reported from one file, at most (a runaway file stops there).
const MAX_ERRORS: usize = 20;

/// What goes with an error before the file is parsed again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blank {
    /// The key (or the entry after a `- `) and what is nested under it. Sequence items
    /// keep their place, so a fact found later by its index (the profile's
    /// `loadBalancers.0.addresses`) is still where the index says; but an item left
    /// without a required field ends the search.
    Entry,
    /// The whole sequence item holding the error, `- ` included, when there is one; else
    /// as [`Blank::Entry`]. No item is left without a required field, so a missing field
    /// is an error of its own; later items move up one index, which is fine for a file
    /// whose places come from spans (the config file).
    Item,
}

/// Deserialize `text`, and after each error blank its entry (as `blank` says) and try
/// again: the document when one parse succeeds, and every error found on the way
/// (`convert` words them).
pub(crate) fn parse_all<T: serde::de::DeserializeOwned>(
    text: &str,
    blank: Blank,
    convert: impl Fn(&YamlError) -> SettingsError,
) -> (Option<T>, Vec<SettingsError>) {
    let mut errors: Vec<SettingsError> = Vec::new();
    let mut work = text.to_string();
    // Where the last blank ends: an error there or before it is the blank's doing.
    let mut blanked_end = 0;
    loop {
        match serde_saphyr::from_str_with_options::<T>(&work, super::yaml_options()) {
            Ok(doc) => return (Some(doc), errors),
            Err(e) => {
                let err = convert(&e);
                // Only a wrong value, type or key is an error of its own; anything else
                // after a blank (end of file, a mapping now empty, a field now missing) is
                // the blank's doing. serde reads in document order, so a real one is later.
                let own = match e.without_snippet() {
                    YamlError::SerdeInvalidType { .. }
                    | YamlError::SerdeInvalidValue { .. }
                    | YamlError::SerdeUnknownVariant { .. }
                    | YamlError::SerdeUnknownField { .. } => true,
                    YamlError::Message { msg, .. } => is_refusal(msg),
                    // A value of the wrong shape (a string for a list), a required field
                    // missing: the blank's doing when an item is kept as a bare `- `, never
                    // when items go whole.
                    YamlError::Unexpected { .. } | YamlError::SerdeMissingField { .. } => {
                        blank == Blank::Item
                    }
                    _ => false,
                };
                if !errors.is_empty() && (!own || err.offset <= blanked_end) {
                    return (None, errors);
                }
                let offset = err.offset;
                errors.push(err);
                let blanked = match blank {
                    Blank::Entry => blank_entry(&mut work, offset),
                    Blank::Item => blank_item(&mut work, offset),
                };
                match blanked {
                    Some(end) if own && errors.len() < MAX_ERRORS => {
                        blanked_end = end.max(offset);
                    }
                    _ => return (None, errors),
                }
            }
        }
    }
}

/// The start of the line holding `offset` and the line (without its line break).
fn line_at(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    (start, text[start..end].trim_end_matches('\r'))
}

fn is_item(trimmed: &str) -> bool {
    trimmed.starts_with("- ") || trimmed == "-"
}

/// Blank out the YAML entry at `offset`: the key on that line and every more-indented line
/// under it. The end of what was blanked; `None` when nothing is left to blank (the caller
/// then stops retrying).
pub(crate) fn blank_entry(text: &mut String, offset: usize) -> Option<usize> {
    let offset = offset.min(text.len());
    let (start, first) = line_at(text, offset);
    let trimmed = first.trim_start();
    let indent = first.len() - trimmed.len();
    // A sequence item keeps its `- `: only the entry after it goes.
    let key_at = start + indent + if trimmed.starts_with("- ") { 2 } else { 0 };
    blank_block(text, key_at, key_at - start)
}

/// Blank out the block sequence item holding `offset`, `- ` and all; the entry at `offset`
/// when it is in no item (a top-level key, a flow sequence).
pub(crate) fn blank_item(text: &mut String, offset: usize) -> Option<usize> {
    let offset = offset.min(text.len());
    match item_start(text, offset) {
        Some(dash) => {
            let column = dash - line_at(text, dash).0;
            blank_block(text, dash, column)
        }
        None => blank_entry(text, offset),
    }
}

/// The `-` of the innermost block sequence item holding `offset`: on its line, or on the
/// nearest line above that is less indented and starts an item (a key less indented
/// than the line, and no item above it, means there is none).
pub(crate) fn item_start(text: &str, offset: usize) -> Option<usize> {
    let (mut start, line) = line_at(text, offset);
    let trimmed = line.trim_start();
    let mut threshold = line.len() - trimmed.len();
    if is_item(trimmed) {
        return Some(start + threshold);
    }
    while start > 0 && threshold > 0 {
        let (above, line) = line_at(text, start - 1);
        start = above;
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') || indent >= threshold {
            continue;
        }
        if is_item(trimmed) {
            return Some(start + indent);
        }
        threshold = indent;
    }
    None
}

/// Blank from `from` to the end of its line, and every following line indented deeper
/// than `column` (with the blank and comment lines among them); the end of the range.
fn blank_block(text: &mut String, from: usize, column: usize) -> Option<usize> {
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let mut end = line_end(from);
    while end < text.len() {
        let next = end + 1;
        let line = &text[next..line_end(next)];
        let trimmed = line.trim_start();
        let deeper = line.len() - trimmed.len() > column;
        if !(trimmed.trim_end().is_empty() || trimmed.starts_with('#') || deeper) {
            break;
        }
        end = line_end(next);
    }
    let blanked: String = text[from..end]
        .chars()
        .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
        .collect();
    if blanked == text[from..end] {
        return None;
    }
    text.replace_range(from..end, &blanked);
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanking_keeps_positions_and_takes_the_nested_block() {
        let mut text = "spec:\n  kubeProxy:\n    mode: ipvss\n  provider: tke\n".to_string();
        let before = text.len();
        let at = text.find("ipvss").unwrap();
        assert!(blank_entry(&mut text, at).is_some());
        assert_eq!(text.len(), before);
        assert_eq!(
            text,
            "spec:\n  kubeProxy:\n               \n  provider: tke\n"
        );
        let mut text = "a:\n  b:\n    c: 1\n  d: 2\n".to_string();
        assert_eq!(blank_entry(&mut text, 4), Some(16));
        assert_eq!(text, "a:\n    \n        \n  d: 2\n");
        assert_eq!(blank_entry(&mut text, 4), None);
        let mut text = "pools:\n  - name: a\n    type: x\n".to_string();
        let at = text.find("name").unwrap();
        assert!(blank_entry(&mut text, at).is_some());
        assert_eq!(text, "pools:\n  -        \n    type: x\n");
    }

    #[test]
    fn blanking_an_item_takes_the_whole_item() {
        let item = |text: &str, at: &str| {
            let mut work = text.to_string();
            let blanked = blank_item(&mut work, text.find(at).unwrap()).is_some();
            (blanked, work)
        };
        let blank = |n: usize| " ".repeat(n);
        // An error on any line of an item takes the item, `- ` and all.
        let text = "ignore:\n  - rule: X\n    path: \"[\"\n  - rule: Y\n";
        let expected = format!("ignore:\n{}\n{}\n  - rule: Y\n", blank(11), blank(13));
        assert_eq!(item(text, "path"), (true, expected));
        // Items at the indentation of their key, and scalar items.
        let text = "ignore:\n- rule: X\n  reason: r\nfailOn: x\n";
        let expected = format!("ignore:\n{}\n{}\nfailOn: x\n", blank(9), blank(11));
        assert_eq!(item(text, "reason"), (true, expected));
        let text = "include:\n  - a\n  - \"[\"\n";
        let expected = format!("include:\n  - a\n{}\n", blank(7));
        assert_eq!(item(text, "\""), (true, expected));
        // In no item: the entry; nothing left to blank: false.
        let text = "rules:\n  TKE001: warn\nfailOn: x\n";
        let expected = format!("rules:\n{}\nfailOn: x\n", blank(14));
        assert_eq!(item(text, "warn"), (true, expected.clone()));
        assert_eq!(item(&expected, "    "), (false, expected.clone()));
    }
}
