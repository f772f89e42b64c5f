//! Helpers of the tree builder: scalar styles and values from parser events, the text
//! around them, and the checks run when a mapping or document closes.

use std::collections::HashMap;

use granit_parser::{ScalarStyle, Tag};

use super::resolve::resolve_plain;
use super::resolve::Resolved;
use super::tree::{Document, Entry, Extent, NodeId, NodeKind, Style};
use super::types::DuplicateKey;

/// Record the scalar keys of mapping `id` that repeat an earlier key (`<<` merge keys
/// excepted). Keys compare by value, so `name`, `"name"` and `'name'` are one key.
pub(super) fn find_duplicates(doc: &Document, id: NodeId, root: bool, out: &mut Vec<DuplicateKey>) {
    let entries = doc.mapping_entries(id);
    if entries.len() < 2 {
        return;
    }
    let key_text = |e: &Entry| -> Option<(&str, Extent)> {
        let s = doc.scalar(e.key)?;
        let merge = s.style == Style::Plain && s.value == "<<";
        (!merge).then(|| (s.value, doc.node(e.key).extent))
    };
    let mut push = |text: &str, first: Extent, second: Extent| {
        out.push(DuplicateKey {
            document: 0,
            key: text.to_string(),
            first: doc.span_of(first),
            second: doc.span_of(second),
            root,
        });
    };
    if entries.len() <= 16 {
        // Small mappings (nearly all of them): no allocation.
        for (j, later) in entries.iter().enumerate().skip(1) {
            let Some((text, span)) = key_text(later) else {
                continue;
            };
            // A third occurrence is reported against the second.
            if let Some((_, first)) = entries[..j]
                .iter()
                .rev()
                .filter_map(key_text)
                .find(|(t, _)| *t == text)
            {
                push(text, first, span);
            }
        }
        return;
    }
    let mut seen: HashMap<&str, Extent> = HashMap::with_capacity(entries.len());
    for entry in entries {
        let Some((text, span)) = key_text(entry) else {
            continue;
        };
        if let Some(first) = seen.insert(text, span) {
            push(text, first, span);
        }
    }
}

/// granit gives an empty document (`---` alone) a null scalar root; the source has none.
pub(super) fn drop_implicit_empty_root(doc: &mut Document) {
    let Some(root) = doc.root else { return };
    let node = &doc.nodes[root.0 as usize];
    let implicit = node.extent.is_empty()
        && doc.names(root).is_none()
        && matches!(&node.kind, NodeKind::Scalar(s) if s.style == Style::Plain);
    if implicit && doc.nodes.len() == 1 {
        doc.nodes.clear();
        doc.root = None;
    }
}

/// Find the `|` or `>` that opens a block scalar, scanning the properties and indicators
/// (`:`, `-`, `?`, `&anchor`, `!tag`, comments) between the previous token and the content.
pub(super) fn find_block_indicator(source: &str, from: usize, to: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = from;
    while i < to.min(bytes.len()) {
        match bytes[i] {
            b'|' | b'>' => return Some(i),
            b' ' | b'\t' | b'\r' | b'\n' | b':' | b'-' | b'?' => i += 1,
            b'&' | b'!' => {
                while i < to && !matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
                    i += 1;
                }
            }
            b'#' => {
                while i < to && !matches!(bytes[i], b'\r' | b'\n') {
                    i += 1;
                }
            }
            _ => return None,
        }
    }
    None
}

/// End of the char starting at `off` (for one-char error spans); `off` itself at EOF.
pub(super) fn next_char_end(source: &str, off: usize) -> usize {
    source
        .get(off..)
        .and_then(|rest| rest.chars().next())
        .map_or(off, |c| off + c.len_utf8())
}

pub(super) fn map_style(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

/// Resolution of a scalar as go-yaml v2 reads it: untagged plain scalars by their text,
/// everything written quoted or as a block is a string, core-schema tags force a type.
pub(super) fn resolve_scalar(value: &str, style: Style, tag: Option<&Tag>) -> Resolved {
    let Some(tag) = tag else {
        return if style == Style::Plain {
            resolve_plain(value)
        } else {
            Resolved::Str
        };
    };
    let by_text = resolve_plain(value);
    let core = |s: &str| tag.is_yaml_core_schema_tag(s);
    let ok = if core("int") {
        matches!(by_text, Resolved::Int(_))
    } else if core("bool") {
        matches!(by_text, Resolved::Bool(_))
    } else if core("null") {
        matches!(by_text, Resolved::Null)
    } else if core("float") {
        // v2 accepts an int for `!!float` and converts it.
        if let Resolved::Int(i) = by_text {
            return Resolved::Float(i as f64);
        }
        matches!(by_text, Resolved::Float(_))
    } else if tag
        .suffix_in_namespace("tag:yaml.org,2002:")
        .is_some_and(|name| name == "timestamp")
    {
        matches!(by_text, Resolved::Timestamp)
    } else {
        // `!!str`, `!`, `!!binary`, custom tags: the text.
        false
    };
    if ok {
        by_text
    } else {
        Resolved::Str
    }
}
