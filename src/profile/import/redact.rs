//! Whether an import error's excerpt could quote a Secret. Secrets are never read, but an
//! error in or next to one (a one-line `jq -c` Secret, a flow mapping, a dump cut inside
//! one, a syntax error in its data) would show its lines, values included. The text is cut
//! into objects as kubectl writes them, whatever the error: documents at `---`, a List's
//! items at the `- ` (YAML) or `{` (JSON) lines under `items`. The lines an excerpt shows
//! are withheld when they touch an object that names kind Secret, or that names no kind at
//! all: kubectl writes `data` before `kind`, so a dump cut in a Secret's data shows none.

use crate::text::excerpt::CONTEXT_LINES;

/// Whether the excerpt of an error at `offset..offset + len` of `text` touches an object
/// that is, or may be, a Secret.
pub(crate) fn may_show_secret(text: &str, offset: usize, len: usize) -> bool {
    let mut cut = Cut {
        text,
        shown: shown(text, offset, len),
        header: Vec::new(),
        has_items: false,
        item: None,
        items_indent: None,
        in_items: false,
        withheld: false,
    };
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        cut.line(at, line);
        at += line.len();
    }
    cut.end_document();
    cut.withheld
}

/// The byte range of the lines an excerpt shows: the error's, and [`CONTEXT_LINES`]
/// either side.
fn shown(text: &str, offset: usize, len: usize) -> (usize, usize) {
    let floor = |mut p: usize| {
        p = p.min(text.len());
        while !text.is_char_boundary(p) {
            p -= 1;
        }
        p
    };
    let line_start = |p: usize| text[..p].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |p: usize| text[p..].find('\n').map_or(text.len(), |i| p + i + 1);
    let offset = floor(offset);
    let mut start = line_start(offset);
    let mut stop = line_end(floor(offset + len.saturating_sub(1)).max(offset));
    for _ in 0..CONTEXT_LINES {
        start = line_start(start.saturating_sub(1));
        stop = line_end(stop);
    }
    (start, stop)
}

/// The objects of the text, line by line; each one that ends is judged.
struct Cut<'t> {
    text: &'t str,
    shown: (usize, usize),
    /// The current document's lines outside its List's items.
    header: Vec<(usize, usize)>,
    has_items: bool,
    /// The current item's lines.
    item: Option<(usize, usize)>,
    /// The items' indent, once the first line after `items` shows it.
    items_indent: Option<usize>,
    in_items: bool,
    withheld: bool,
}

impl Cut<'_> {
    fn line(&mut self, start: usize, line: &str) {
        let end = start + line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body.starts_with("---") || body.starts_with("...") {
            return self.end_document();
        }
        let content = body.trim_start_matches([' ', '\t']);
        let indent = body.len() - content.len();
        let blank = content.is_empty() || content.starts_with('#');
        if !self.in_items {
            self.header_line(start, end);
            if is_items_line(content, indent) {
                (self.in_items, self.has_items, self.items_indent) = (true, true, None);
            }
            return;
        }
        if blank && self.items_indent.is_none() {
            return self.header_line(start, end);
        }
        let k = *self.items_indent.get_or_insert(indent);
        if blank || indent > k || (indent == k && content.starts_with('}')) {
            match &mut self.item {
                Some(item) => item.1 = end,
                None => self.header_line(start, end),
            }
        } else if indent == k && (content.starts_with('-') || content.starts_with('{')) {
            self.end_item();
            self.item = Some((start, end));
        } else {
            self.end_item();
            self.in_items = false;
            self.header_line(start, end);
        }
    }

    fn header_line(&mut self, start: usize, end: usize) {
        match self.header.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => self.header.push((start, end)),
        }
    }

    /// An item that names no kind was cut before it: it may be a Secret.
    fn end_item(&mut self) {
        if let Some(item) = self.item.take() {
            self.judge(&[item], true);
        }
    }

    fn end_document(&mut self) {
        self.end_item();
        let header = std::mem::take(&mut self.header);
        // A List's own lines name no kind when it is cut short: they are not an object.
        self.judge(&header, !self.has_items);
        (self.has_items, self.in_items, self.items_indent) = (false, false, None);
    }

    fn judge(&mut self, ranges: &[(usize, usize)], kindless_may_be_secret: bool) {
        let (from, to) = self.shown;
        if !ranges.iter().any(|&(s, e)| s < to && from < e) {
            return;
        }
        let kinds: Vec<&str> = ranges
            .iter()
            .flat_map(|&(s, e)| kinds(&self.text[s..e]))
            .collect();
        self.withheld |= kinds.contains(&"Secret") || (kinds.is_empty() && kindless_may_be_secret);
    }
}

/// `items:` at the top of a YAML document, or `"items": [` in JSON.
fn is_items_line(content: &str, indent: usize) -> bool {
    if let Some(rest) = content.strip_prefix("items:") {
        let rest = rest.trim();
        return indent == 0 && (rest.is_empty() || rest.starts_with('#'));
    }
    content
        .strip_prefix("\"items\"")
        .and_then(|rest| rest.trim_start().strip_prefix(':'))
        .is_some_and(|rest| rest.trim() == "[")
}

/// The values of every `kind` key in `text`: YAML block or flow style, or JSON.
fn kinds(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("kind").filter_map(|(at, _)| {
        let before = text[..at].bytes().next_back();
        if !matches!(
            before,
            None | Some(b' ' | b'\t' | b'\n' | b'{' | b',' | b'"' | b'\'')
        ) {
            return None;
        }
        let rest = text[at + 4..].trim_start_matches(['"', '\'']).trim_start();
        let value = rest
            .strip_prefix(':')?
            .trim_start()
            .trim_start_matches(['"', '\'']);
        let len = value
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(value.len());
        Some(&value[..len])
    })
}

#[cfg(test)]
mod tests {
    use super::may_show_secret;

    /// Whether an error at the first `at` of `text` is withheld.
    fn withheld(text: &str, at: &str) -> bool {
        may_show_secret(text, text.find(at).unwrap(), 0)
    }

    #[test]
    fn secrets_and_objects_without_a_kind_are_withheld() {
        let list = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    \
                    name: a\n  spec: {}\n  status: {}\n- apiVersion: v1\n  data:\n    pw: \
                    aHVudGVyMg==\n  kind: Secret\n  metadata:\n    name: db\n  type: Opaque\n\
                    - apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n  spec: {}\n\
                    kind: List\n";
        assert!(!withheld(list, "name: a"));
        assert!(withheld(list, "pw:"));
        // Its neighbours' excerpts would show its first or last line.
        assert!(withheld(list, "  status"));
        assert!(withheld(
            list,
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b"
        ));
        assert!(!withheld(list, "  kind: Node\n  metadata:\n    name: b"));
        assert!(!withheld(list, "spec: {}\nkind"));
        // Cut in a Secret's data: no kind yet.
        assert!(withheld(
            "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    pw: aHVu",
            "pw"
        ));
        let json =
            "{\n    \"items\": [\n        {\n            \"kind\": \"Node\"\n        },\n        \
                    {\n            \"data\": {\"pw\": \"aHVudGVyMg==\"},\n            \"kind\": \
                    \"Secret\"\n        }\n    ],\n    \"kind\": \"List\"\n}\n";
        assert!(!withheld(json, "\"Node\""));
        assert!(withheld(json, "\"pw\""));
        assert!(withheld(
            "{\"kind\":\"Secret\",\"data\":{\"pw\":\"aHVudGVyMg==\"}}\n",
            "pw"
        ));
        assert!(withheld(
            "---\n{kind: Secret, data: {pw: x}}\n---\nkind: Node\n",
            "pw"
        ));
        assert!(!withheld(
            "kind: SecretProviderClass\nspec: {}\n---\nkind: Node\n",
            "spec"
        ));
    }
}
