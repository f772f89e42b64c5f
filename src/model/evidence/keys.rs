//! What every embedded format shares: the bounded look around an address, and the
//! judgement of a `key = value` setting by its key's name and its value's shape.

use super::{names, value_of, Evidence, Judged, Spot};

/// How far around an address a line is read: a minified file is one huge line, and each
/// address must cost a bounded look, not a pass over the whole value.
pub const WINDOW: usize = 4096;

/// The largest char boundary of `text` at or below `i`.
pub fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The line holding the address (at most [`WINDOW`] bytes either side), and where the
/// address starts in it.
pub fn line_of<'t>(spot: &Spot<'t>) -> (&'t str, usize) {
    let text = spot.text;
    let low = floor(text, spot.at.saturating_sub(WINDOW));
    let high = floor(text, (spot.at + WINDOW).min(text.len()));
    let start = text[low..spot.at].rfind('\n').map_or(low, |i| low + i + 1);
    let end = text[spot.at..high].find('\n').map_or(high, |i| spot.at + i);
    (&text[start..end], spot.at - start)
}

/// Keys that name a schema or a type, not a place to connect to.
const IDENTIFIER_KEYS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "@context",
    "@id",
    "@type",
    "xmlns",
    "apiversion",
    "apigroup",
    "apigroups",
    "group",
    "kind",
    "namespace",
    "schema",
];

/// The value of `key` (the rest of its line being `value`): identifiers, identity and
/// allow-lists first, then prose, then what the key's name and the value's shape say.
pub fn key_value(key: &str, value: &str, spot: &Spot<'_>) -> Judged {
    let what = if key.is_empty() {
        "a list item".to_string()
    } else {
        format!("key {key}")
    };
    if IDENTIFIER_KEYS.contains(&key.to_ascii_lowercase().as_str()) {
        return Judged::new(Evidence::Mention, format!("{what} is an identifier"));
    }
    if let Some(judged) = names::not_a_destination(key, &what) {
        return judged;
    }
    if spot.prose(value) {
        return Judged::new(Evidence::Mention, format!("{what} holds prose"));
    }
    value_of(key, &what, spot, value, true)
}
