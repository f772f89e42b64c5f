//! Where a key is in a Helm template. A template is not YAML (`{{ }}` actions), so its
//! lines are read by indentation: each `key:` line opens a level, action and comment lines
//! are passed over, and the line whose chain of keys matches the most of the wanted keys
//! wins. Only the template's document of the right `kind` is searched.

/// The byte range (start, end) of the best-matching key of `keys` in `text`, the
/// document's `kind:` line when no key matches, else the file's start.
pub(super) fn locate(text: &str, kind: &str, keys: &[&str]) -> (usize, usize) {
    let (from, to) = document_of(text, kind);
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
    match best {
        Some((_, start, len)) => (start, start + len),
        None => {
            let at = text[from..to].find("kind:").map_or(0, |i| from + i);
            (at, at)
        }
    }
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

/// The byte range of the `---`-separated document of `text` that says `kind: KIND`, or
/// the whole text.
fn document_of(text: &str, kind: &str) -> (usize, usize) {
    let mut start = 0;
    let mut offset = 0;
    let wanted = format!("kind: {kind}");
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            if text[start..offset].lines().any(|l| l.trim() == wanted) {
                return (start, offset);
            }
            start = offset + line.len();
        }
        offset += line.len();
    }
    if text[start..].lines().any(|l| l.trim() == wanted) {
        return (start, text.len());
    }
    (0, text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_through_actions_and_lists() {
        let text = "{{- if .Values.enabled }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include \"web.fullname\" . }}\n  annotations:\n    {{- with .Values.annotations }}\n    {{- toYaml . | nindent 4 }}\n    {{- end }}\nspec:\n  type: {{ .Values.service.type }}\n  ports:\n    - port: 80\n      targetPort: http\n{{- end }}\n";
        let at = |keys: &[&str]| {
            let (s, e) = locate(text, "Service", keys);
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
