//! Where a key is in a Helm template. A template is not YAML (`{{ }}` actions), so its
//! lines are read by indentation: each `key:` line opens a level, action and comment lines
//! are passed over, and the line whose chain of keys matches the most of the wanted keys
//! wins. Only the template's document that rendered the object is searched (see
//! [`document_of`]).

/// The rendered object a finding is on: its kind, its name, and its place among the
/// objects of that kind the same template rendered (`index` of `count`).
pub(super) struct Rendered<'r> {
    pub kind: &'r str,
    pub name: &'r str,
    pub index: usize,
    pub count: usize,
}

/// The byte range (start, end) of the best-matching key of `keys` in the template's
/// document that rendered `object`, the document's `kind:` line when no key matches, else
/// the file's start.
pub(super) fn locate(text: &str, object: &Rendered<'_>, keys: &[&str]) -> (usize, usize) {
    let (from, to) = document_of(text, object);
    match best_key(text, from, to, keys) {
        Some((start, len)) => (start, start + len),
        None => {
            let at = text[from..to].find("kind:").map_or(0, |i| from + i);
            (at, at)
        }
    }
}

/// The start and length of the deepest key of `text[from..to]` whose chain of keys is a
/// prefix of `keys`.
fn best_key(text: &str, from: usize, to: usize, keys: &[&str]) -> Option<(usize, usize)> {
    let mut stack: Vec<(usize, &str)> = Vec::new();
    let mut best: Option<(usize, usize, usize)> = None;
    let mut offset = from;
    for line in text[from..to].split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let Some((indent, key, key_at)) = key_of(line) else {
            continue;
        };
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        stack.push((indent, key));
        let depth = stack.len();
        let matched = depth <= keys.len() && stack.iter().zip(keys).all(|((_, k), w)| k == w);
        if matched && best.is_none_or(|(d, _, _)| depth > d) {
            best = Some((depth, at + key_at, key.len()));
        }
    }
    best.map(|(_, start, len)| (start, len))
}

/// A `key:` line: its indentation (list dashes count as indentation), the key, and where
/// the key starts in the line. `None` for blank, comment and action lines.
fn key_of(line: &str) -> Option<(usize, &str, usize)> {
    let mut rest = line.trim_end();
    let mut indent = rest.len() - rest.trim_start().len();
    rest = rest.trim_start();
    while let Some(after) = rest.strip_prefix("- ") {
        let spaces = after.len() - after.trim_start().len();
        indent += 2 + spaces;
        rest = after.trim_start();
    }
    if rest.is_empty() || rest.starts_with('#') || rest.starts_with("{{") {
        return None;
    }
    let colon = rest.find(':')?;
    let key = rest[..colon].trim_matches(['"', '\'']);
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./".contains(c));
    let after = &rest[colon + 1..];
    (plain && (after.is_empty() || after.starts_with(' '))).then(|| {
        let key_at = line.len() - line.trim_start().len()
            + (indent - (line.len() - line.trim_start().len()));
        (
            indent,
            key,
            key_at + usize::from(rest.starts_with(['"', '\''])),
        )
    })
}

/// The byte ranges of the `---`-separated documents of `text`.
fn documents(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut start, mut offset) = (0, 0);
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            out.push((start, offset));
            start = offset + line.len();
        }
        offset += line.len();
    }
    out.push((start, text.len()));
    out
}

/// How well the template's `metadata.name` in `text[from..to]` fits the rendered `name`:
/// the length of its literal text, when every literal piece (between `{{ }}` actions)
/// occurs in the name in order; `None` when one does not. A name made only of actions
/// fits any name, with 0.
fn name_fit(text: &str, from: usize, to: usize, name: &str) -> Option<usize> {
    let Some((start, len)) = best_key(text, from, to, &["metadata", "name"]) else {
        return Some(0);
    };
    let line = text[start + len..].lines().next().unwrap_or_default();
    let value = line.trim_start_matches(':').trim();
    let mut literals = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find("{{") {
        literals.push(&rest[..open]);
        rest = rest[open..]
            .find("}}")
            .map_or("", |close| &rest[open + close + 2..]);
    }
    literals.push(rest);
    let (mut at, mut fit) = (0, 0);
    for literal in literals {
        let literal = literal.trim_matches(['"', '\'']);
        if literal.is_empty() {
            continue;
        }
        at += name[at..].find(literal)? + literal.len();
        fit += literal.len();
    }
    Some(fit)
}

/// The byte range of the template's document that rendered `object`. Helm keeps the
/// order of a template's documents, so when the template has as many documents of the
/// kind as were rendered, the one at the object's index; otherwise (a `range` or an `if`
/// changed the count) the one whose `metadata.name` fits the rendered name best, the
/// earliest of equals. The whole text when no document says `kind: KIND`.
fn document_of(text: &str, object: &Rendered<'_>) -> (usize, usize) {
    let wanted = format!("kind: {}", object.kind);
    let of_kind: Vec<(usize, usize)> = documents(text)
        .into_iter()
        .filter(|(from, to)| text[*from..*to].lines().any(|l| l.trim() == wanted))
        .collect();
    let fit = |&(from, to): &(usize, usize)| name_fit(text, from, to, object.name);
    if of_kind.len() == object.count {
        if let Some(doc) = of_kind.get(object.index).filter(|d| fit(d).is_some()) {
            return *doc;
        }
    }
    let mut best: Option<((usize, usize), usize)> = None;
    for doc in &of_kind {
        if let Some(f) = fit(doc) {
            if best.is_none_or(|(_, b)| f > b) {
                best = Some((*doc, f));
            }
        }
    }
    best.map(|(d, _)| d)
        .or_else(|| of_kind.first().copied())
        .unwrap_or((0, text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_through_actions_and_lists() {
        let text = "{{- if .Values.enabled }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include \"web.fullname\" . }}\n  annotations:\n    {{- with .Values.annotations }}\n    {{- toYaml . | nindent 4 }}\n    {{- end }}\nspec:\n  type: {{ .Values.service.type }}\n  ports:\n    - port: 80\n      targetPort: http\n{{- end }}\n";
        let at = |keys: &[&str]| {
            let object = Rendered {
                kind: "Service",
                name: "release-name-web",
                index: 0,
                count: 1,
            };
            let (s, e) = locate(text, &object, keys);
            let line = text[..s].matches('\n').count() + 1;
            (line, &text[s..e])
        };
        assert_eq!(at(&["spec", "type"]), (17, "type"));
        assert_eq!(at(&["spec", "ports", "targetPort"]), (20, "targetPort"));
        assert_eq!(at(&["metadata", "name"]), (11, "name"));
        assert_eq!(at(&["metadata", "annotations", "x"]), (12, "annotations"));
        assert_eq!(at(&["status"]).0, 9, "no such key: the kind line");
    }
}
