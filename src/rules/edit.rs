//! The YAML edits fixes are made of (replace a scalar's value in place, keeping its quotes;
//! insert a mapping entry, keeping the indentation and line ending), so no rule inspects
//! indentation itself; and the check that keeps every fix off YAML that aliases share.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, FixRef};
use crate::objects::{LintFile, Object, Workspace};
use crate::source::Span;
use crate::yaml::{NodeKind, NodeRef};

/// Replace the text of a one-line scalar (plain, or quoted without escapes) with `new`,
/// keeping the quotes it was written with. `None` for anything else (block scalars,
/// escapes, aliases), where a mechanical edit could change more than the value.
pub(crate) fn replace_scalar(
    ws: &Workspace,
    object: &Object,
    node: NodeRef<'_>,
    new: &str,
    description: String,
    applicability: Applicability,
) -> Option<Fix> {
    let value = node.as_str()?;
    let source = ws.source(object);
    let extent = node.extent();
    let raw = extent.slice(&source.text);
    if raw.contains(['\n', '\r']) {
        return None;
    }
    let inner = if raw == value {
        0
    } else if raw.len() == value.len() + 2
        && (raw.starts_with('"') || raw.starts_with('\''))
        && raw.get(1..raw.len() - 1) == Some(value)
    {
        1
    } else {
        return None;
    };
    let start = extent.start() + inner;
    let end = start + value.len();
    Some(Fix {
        description,
        applicability,
        edits: vec![Edit {
            span: Span {
                start: source.pos_at(start),
                end: source.pos_at(end),
            },
            content: new.to_string(),
        }],
    })
}

/// Insert `entry` (`key: value`, one line) into the block `mapping` holding the entry
/// `(key, value)`, on the line after that entry, at its key's indentation and with the line
/// ending that line already has. `None` where the layout is not a plain block mapping (a
/// flow mapping, tab indentation, another key on the line) or the entry ends the file
/// without a line break.
pub(crate) fn insert_entry_after(
    ws: &Workspace,
    object: &Object,
    mapping: NodeRef<'_>,
    (key, value): (NodeRef<'_>, NodeRef<'_>),
    entry: &str,
) -> Option<Edit> {
    let source = ws.source(object);
    let text = source.text.as_str();
    // A flow mapping would need a comma and its own layout.
    if mapping.extent().slice(text).starts_with('{') {
        return None;
    }
    let key_start = key.extent().start();
    let indent = &text[crate::source::line_start(text, key_start)..key_start];
    if !indent.chars().all(|c| c == ' ') {
        return None;
    }
    let lines = source.lines();
    let value_end = value.extent().end().max(key_start + 1);
    let line = lines.line_of(value_end - 1);
    let next = lines.start(line + 1)?;
    let break_len = if text[..next].ends_with("\r\n") { 2 } else { 1 };
    let eol = &text[next - break_len..next];
    let at = source.pos_at(next);
    Some(Edit {
        span: Span { start: at, end: at },
        // Exactly as long as it is (`format!` here left half the allocation unused).
        content: [indent, entry, eol].concat(),
    })
}

/// Source a fix must not edit: an alias (it stands for another node; replacing it makes
/// a copy) or a node whose anchor an alias refers to (the edit would reach every alias).
struct Shared {
    start: usize,
    /// For a collection, the start of the line after it: an insertion there joins it.
    end: usize,
    what: String,
}

/// Take apart every fix and suggestion that edits shared YAML: the fix becomes a
/// by-hand suggestion naming the anchor or alias, so `--fix` never applies it. Run once
/// over all diagnostics, so no rule can forget it.
pub(crate) fn refuse_shared_node_edits(ws: &Workspace, diagnostics: &mut [Diagnostic]) {
    let mut files: HashMap<&str, usize> = HashMap::new();
    let mut shared: HashMap<usize, SharedIndex> = HashMap::new();
    for d in diagnostics {
        let has_edits = d.fix().is_some() || d.suggestions().any(|s| s.has_edits());
        if !has_edits {
            continue;
        }
        if files.is_empty() {
            files = ws
                .files
                .iter()
                .enumerate()
                .map(|(i, f)| (&*f.source.path, i))
                .collect();
        }
        let Some(&file) = files.get(&*d.location().file) else {
            continue;
        };
        let ranges = shared
            .entry(file)
            .or_insert_with(|| SharedIndex::new(shared_nodes(&ws.files[file])));
        if ranges.nodes.is_empty() {
            continue;
        }
        d.refuse_edits(|fix| ranges.touched(fix).map(|what| refused(fix, what)));
    }
}

fn refused(fix: FixRef<'_>, what: &str) -> Fix {
    Fix::manual(format!(
        "{}, by hand if right for every use: lblint does not edit {what}",
        fix.description()
    ))
}

/// A file's shared nodes sorted by start, with the running maximum of their ends, so
/// one edit is checked in O(log n) whatever the number of anchors and fixes.
struct SharedIndex {
    nodes: Vec<Shared>,
    /// `(end, index)` of the node ending last among `nodes[..=i]`.
    furthest: Vec<(usize, usize)>,
}

impl SharedIndex {
    fn new(mut nodes: Vec<Shared>) -> SharedIndex {
        nodes.sort_by_key(|n| n.start);
        let mut furthest: Vec<(usize, usize)> = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let best = match furthest.last() {
                Some(&(end, at)) if end >= node.end => (end, at),
                _ => (node.end, i),
            };
            furthest.push(best);
        }
        SharedIndex { nodes, furthest }
    }

    /// The shared node an edit of `fix` touches, if any. A replacement touches a node it
    /// overlaps; an insertion, one it lands in or at either end of.
    fn touched(&self, fix: FixRef<'_>) -> Option<&str> {
        fix.edits().find_map(|edit| {
            let (start, end) = (edit.span.start.offset, edit.span.end.offset);
            let insertion = start == end;
            let before = self.nodes.partition_point(|n| {
                if insertion {
                    n.start <= start
                } else {
                    n.start < end
                }
            });
            let &(furthest, at) = self.furthest.get(before.checked_sub(1)?)?;
            let reaches = if insertion {
                furthest >= start
            } else {
                furthest > start
            };
            reaches.then(|| self.nodes[at].what.as_str())
        })
    }
}

fn shared_nodes(file: &LintFile) -> Vec<Shared> {
    let text = &file.source.text;
    let mut out = Vec::new();
    for doc in &file.loaded.documents {
        let mut aliased = Vec::new();
        for node in &doc.nodes {
            if let NodeKind::Alias(target) = node.kind {
                let name = target.and_then(|t| doc.anchor(t)).unwrap_or("?");
                out.push(Shared {
                    start: node.extent.start(),
                    end: node.extent.end(),
                    what: format!("the alias `*{name}` (change its anchor `&{name}` instead)"),
                });
                aliased.extend(target);
            }
        }
        // The anchors, in node order; most documents have none, and then their text is
        // not searched for aliases (a stream with a fix in every document was searched whole).
        let names = doc.rare.as_deref().map_or(&[][..], |r| &r.names[..]);
        let mut anchors = names
            .iter()
            .filter_map(|(id, n)| Some((*id, n.anchor.as_deref()?)))
            .peekable();
        if anchors.peek().is_none() {
            continue;
        }
        aliased.sort_unstable();
        // A slimmed document drops parts an alias may sit in: the text still has it.
        let aliases_in_text = alias_names(doc.span.slice(text));
        for (id, anchor) in anchors {
            if aliased.binary_search(&id).is_err() && !aliases_in_text.contains(anchor) {
                continue;
            }
            let node = doc.node(id);
            let mut end = node.extent.end();
            if matches!(node.kind, NodeKind::Mapping(_) | NodeKind::Sequence(_)) {
                end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
            }
            out.push(Shared {
                start: node.extent.start(),
                end,
                what: format!("the anchored node `&{anchor}`, which an alias shares"),
            });
        }
    }
    out
}

/// Every `*name` token of a document's text, in one pass (conservative: a `*name` inside
/// a quoted string counts too, which only ever refuses a fix).
fn alias_names(text: &str) -> HashSet<&str> {
    let ends_name = |c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}');
    text.match_indices('*')
        .map(|(at, _)| {
            let rest = &text[at + 1..];
            &rest[..rest.find(ends_name).unwrap_or(rest.len())]
        })
        .filter(|name| !name.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diagnostic::Severity;
    use crate::source::Location;
    use crate::source::SourceFile;
    use crate::yaml::{load_with, Limits};

    /// Load like `lblint check` does: every document slimmed as it is parsed.
    fn workspace(text: &str) -> Workspace {
        let source = Arc::new(SourceFile::new(Arc::from("m.yaml"), text.to_string()));
        let loaded = load_with(&source.text, &Limits::default(), &mut crate::views::slim);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        Workspace::new(vec![LintFile {
            source,
            loaded: Arc::new(loaded),
        }])
    }

    /// A diagnostic whose fix replaces the `nth` match of `needle` (or inserts at its start
    /// when `insert`), run through the guard.
    fn guarded(text: &str, needle: &str, insert: bool) -> Diagnostic {
        let ws = workspace(text);
        let source = &ws.files[0].source;
        let start = text.find(needle).unwrap();
        let end = if insert { start } else { start + needle.len() };
        let span = Span {
            start: source.pos_at(start),
            end: source.pos_at(end),
        };
        let mut d = Diagnostic::new(
            "T001",
            "t",
            Severity::Error,
            Location {
                file: source.path.clone(),
                span,
            },
            "m",
        )
        .with_fix(Fix {
            description: "change it".into(),
            applicability: Applicability::Safe,
            edits: vec![Edit {
                span,
                content: "x".into(),
            }],
        })
        .with_suggestion(Fix {
            description: "or this".into(),
            applicability: Applicability::Unsafe,
            edits: vec![Edit {
                span,
                content: "y".into(),
            }],
        });
        let mut all = [d];
        refuse_shared_node_edits(&ws, &mut all);
        [d] = all;
        d
    }

    fn refused_descriptions(d: &Diagnostic) -> Vec<&str> {
        assert!(d.fix().is_none(), "{d:?}");
        assert!(d.suggestions().all(|s| !s.has_edits()), "{d:?}");
        d.suggestions().map(|s| s.description()).collect()
    }

    const SHARED: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    \
                          on: &on yes\n    again: *on\n  annotations: &ann\n    k: v\nspec:\n  \
                          selector: *ann\n";

    #[test]
    fn an_edit_of_an_aliased_anchor_becomes_a_by_hand_suggestion() {
        let d = guarded(SHARED, "yes", false);
        assert_eq!(
            refused_descriptions(&d),
            vec![
                "change it, by hand if right for every use: lblint does not edit the anchored node \
                 `&on`, which an alias shares",
                "or this, by hand if right for every use: lblint does not edit the anchored node \
                 `&on`, which an alias shares",
            ]
        );
    }

    #[test]
    fn an_alias_is_never_edited() {
        let d = guarded(SHARED, "*on", false);
        assert_eq!(
            refused_descriptions(&d)[0],
            "change it, by hand if right for every use: lblint does not edit the alias `*on` \
             (change its anchor `&on` instead)"
        );
    }

    #[test]
    fn an_insertion_at_the_end_of_an_aliased_mapping_is_refused() {
        // Inserting a line after `k: v` adds an entry to the mapping `*ann` shares.
        let d = guarded(SHARED, "spec:", true);
        assert_eq!(refused_descriptions(&d).len(), 2);
        // Before the mapping, nothing shared is touched.
        let d = guarded(SHARED, "  name: a", true);
        assert_eq!(d.fix().unwrap().edits().next().unwrap().content, "x");
        assert_eq!(
            d.suggestions()
                .next()
                .unwrap()
                .edits()
                .next()
                .unwrap()
                .content,
            "y"
        );
    }

    #[test]
    fn an_anchor_without_an_alias_may_be_edited() {
        let text =
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    on: &on yes\n";
        let d = guarded(text, "yes", false);
        assert_eq!(d.fix().unwrap().edits().next().unwrap().content, "x");
    }

    #[test]
    fn an_alias_in_a_part_the_loader_dropped_still_counts() {
        // A ServiceAccount is slimmed to apiVersion, kind and metadata: its other fields are
        // gone from the tree, their alias is still in the text.
        let text =
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n  labels:\n    on: &on yes\n\
                    secrets:\n  - name: *on\n";
        let ws = workspace(text);
        let root = ws.root(&ws.objects[0]);
        assert!(root.get("secrets").is_none(), "slimmed");
        let d = guarded(text, "yes", false);
        assert_eq!(refused_descriptions(&d).len(), 2);
        // `*onward` is another anchor's alias, not `*on`.
        let other = text
            .replace("*on\n", "*onward\n")
            .replace("  name: a\n", "  name: a\n  x: &onward 1\n");
        let d = guarded(&other, "yes", false);
        assert!(d.fix().is_some(), "{d:?}");
    }
}

#[cfg(test)]
mod insert_entry_tests {
    use std::sync::Arc;

    use super::*;
    use crate::objects::LintFile;
    use crate::source::SourceFile;
    use crate::yaml::{load, Limits};

    /// The text after inserting `x: "1"` after the annotation `a`, or `None`.
    fn inserted(text: &str) -> Option<String> {
        let source = Arc::new(SourceFile::new("m.yaml", text));
        let loaded = load(text, &Limits::default());
        let ws = Workspace::new(vec![LintFile {
            source,
            loaded: Arc::new(loaded),
        }]);
        let object = ws.objects.first().expect("a Service");
        let annotations = ws.root(object).path(&["metadata", "annotations"])?;
        let entry = annotations.get_entry("a")?;
        let edit = insert_entry_after(&ws, object, annotations, entry, "x: \"1\"")?;
        let at = edit.span.start.offset;
        Some(format!("{}{}{}", &text[..at], edit.content, &text[at..]))
    }

    #[test]
    fn an_entry_is_inserted_at_the_indentation_and_line_ending_of_its_neighbour() {
        let doc = |eol: &str| {
            [
                "apiVersion: v1",
                "kind: Service",
                "metadata:",
                "  annotations:",
                "    a: b # why",
                "    c: d",
                "",
            ]
            .join(eol)
        };
        for eol in ["\n", "\r\n", "\r"] {
            let want = doc(eol).replace(
                &format!("# why{eol}"),
                &format!("# why{eol}    x: \"1\"{eol}"),
            );
            assert_eq!(
                inserted(&doc(eol)).as_deref(),
                Some(want.as_str()),
                "{eol:?}"
            );
        }
        // Flow mappings, tabs and a last line without a break are left to the user.
        let head = "apiVersion: v1\nkind: Service\nmetadata:\n  annotations:";
        assert!(inserted(&format!("{head}\n    a: b\n")).is_some());
        assert_eq!(inserted(&format!("{head} {{a: b}}\n")), None);
        assert_eq!(inserted(&format!("{head} {{\n    a: b }}\n")), None);
        assert_eq!(inserted(&format!("{head}\n    a: b")), None);
    }
}
