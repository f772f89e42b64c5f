//! JSON, XML/HTML and SQL inside ConfigMap and Secret values. JSON is indexed once per
//! value (every string with the key it sits under) by a small scanner: serde_json gives no
//! byte offsets, and the question is only "which key holds the string at this offset".

use super::keys::{floor, key_value, WINDOW};
use super::{names, Evidence, Judged, Spot};

/// Nesting deeper than this is not indexed: a hostile value cannot grow the key stack
/// without bound (its strings are then judged without a key).
const MAX_DEPTH: usize = 256;

/// A JSON string: its bytes (quotes excluded), and the key it is the value of (for an
/// array element, the key of the array), or `None` when it is itself a key.
#[derive(Clone, Debug)]
pub struct JsonString {
    start: usize,
    end: usize,
    key: Option<(usize, usize)>,
    is_key: bool,
}

struct Frame {
    object: bool,
    key: Option<(usize, usize)>,
}

/// Every string of a JSON text, in order, in one pass (invalid JSON is read as far as it
/// goes: the scanner never fails, never recurses).
pub fn json_strings(text: &str) -> Vec<JsonString> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect_key = false;
    // Brackets opened beyond MAX_DEPTH, closed before any indexed frame is.
    let mut deeper = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' if stack.len() >= MAX_DEPTH => deeper += 1,
            b'}' | b']' if deeper > 0 => deeper -= 1,
            b'{' | b'[' => {
                let object = bytes[i] == b'{';
                // An array's elements sit under the key that holds the array.
                let key = stack.last().and_then(|f| f.key);
                stack.push(Frame { object, key });
                expect_key = object;
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
            }
            b',' => expect_key = stack.last().is_some_and(|f| f.object),
            b':' => expect_key = false,
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let end = i.min(bytes.len());
                let top = stack.last_mut();
                let is_key = expect_key && top.as_ref().is_some_and(|f| f.object);
                let key = top.as_ref().and_then(|f| f.key);
                if is_key {
                    if let Some(top) = top {
                        top.key = Some((start, end));
                    }
                }
                out.push(JsonString {
                    start,
                    end,
                    key: if is_key { None } else { key },
                    is_key,
                });
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// An address in a JSON document: by the key its string sits under.
pub fn json(strings: &[JsonString], spot: &Spot<'_>) -> Judged {
    let i = strings.partition_point(|s| s.end < spot.at);
    let Some(string) = strings.get(i).filter(|s| s.start <= spot.at) else {
        return Judged::new(Evidence::Mention, "JSON outside a string");
    };
    if string.is_key {
        return Judged::new(Evidence::Mention, "a JSON key's name, not its value");
    }
    let value = &spot.text[string.start..string.end];
    match string.key {
        Some((s, e)) => key_value(&spot.text[s..e], value, spot).prefixed("JSON"),
        None => key_value("", value, spot).prefixed("JSON"),
    }
}

/// An address in XML or HTML: namespace and schema identifiers, comments and a page's
/// links are not calls; an attribute or element named for a destination is.
pub fn xml(html: bool, spot: &Spot<'_>) -> Judged {
    let low = floor(spot.text, spot.at.saturating_sub(WINDOW));
    let before = &spot.text[low..spot.at];
    if let Some(open) = before.rfind("<!--") {
        if !before[open..].contains("-->") {
            return Judged::new(Evidence::Mention, "an XML comment");
        }
    }
    if html {
        return Judged::new(Evidence::Mention, "HTML, read by a browser");
    }
    let tag_open = before.rfind('<');
    let tag_close = before.rfind('>');
    if tag_open > tag_close {
        // Inside a tag: the attribute whose value holds the address.
        let attr = before.rfind('=').map_or("", |eq| {
            let name = before[..eq].trim_end();
            name.rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("")
        });
        let lower = attr.to_ascii_lowercase();
        if lower.starts_with("xmlns") || lower.ends_with("schemalocation") {
            return Judged::new(
                Evidence::Mention,
                format!("{attr} is an XML namespace identifier"),
            );
        }
        return element_or_attribute("attribute", attr, spot);
    }
    // Text content: the element it sits in, or a Hadoop-style `<name>` beside a `<value>`.
    let element = tag_open.map_or("", |o| {
        let name = &before[o + 1..];
        name.split(|c: char| c.is_whitespace() || c == '>')
            .next()
            .unwrap_or("")
    });
    if element == "value" {
        if let Some(name) = before.rfind("<name>").map(|n| &before[n + 6..]) {
            let name = name.split('<').next().unwrap_or("");
            return element_or_attribute("property", name.trim(), spot);
        }
    }
    element_or_attribute("element", element, spot)
}

fn element_or_attribute(what: &str, name: &str, spot: &Spot<'_>) -> Judged {
    let label = format!("XML {what} {name}");
    if let Some(judged) = names::not_a_destination(name, &label) {
        return judged;
    }
    match names::destination_word(name) {
        Some(word) if spot.shaped() => {
            Judged::new(Evidence::Call, format!("{label} ends in {word}"))
        }
        _ if spot.connection_scheme().is_some() => {
            Judged::new(Evidence::Call, format!("{label} holds a connection string"))
        }
        _ => Judged::new(
            Evidence::Mention,
            format!("{label} is not a destination setting"),
        ),
    }
}

/// An address in SQL: data rows and comments are text; the host option of a foreign
/// server (`CREATE SERVER … OPTIONS (host '…')`) is dialed by the database.
pub fn sql(spot: &Spot<'_>) -> Judged {
    let low = floor(spot.text, spot.at.saturating_sub(WINDOW));
    let before = &spot.text[low..spot.at];
    let line = before.rsplit('\n').next().unwrap_or("");
    if line.contains("--") {
        return Judged::new(Evidence::Mention, "an SQL comment");
    }
    let statement = before
        .rsplit(';')
        .next()
        .unwrap_or("")
        .trim_start()
        .to_ascii_lowercase();
    let verb = statement.split_whitespace().next().unwrap_or("");
    match verb {
        "insert" | "update" | "values" | "copy" | "replace" | "upsert" | "merge" => Judged::new(
            Evidence::Mention,
            format!("an SQL {} data row", verb.to_uppercase()),
        ),
        "create" | "alter" if statement.contains("server") && statement.contains("host") => {
            Judged::new(Evidence::Call, "an SQL foreign server's host")
        }
        _ => Judged::new(Evidence::Mention, "SQL text"),
    }
}
