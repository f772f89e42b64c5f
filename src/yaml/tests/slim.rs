//! Slimming (`Document::keep_top_level`): what is kept of a document, and where.

use super::*;

#[test]
fn keep_top_level_copies_kept_subtrees_once_and_keeps_spans() {
    let text = "apiVersion: v1\nkind: X\nmetadata:\n  labels: &l {a: b}\n  annotations: *l\nspec:\n  big: [1, 2, 3]\n";
    let file = load(text, &Limits::default());
    let doc = file.documents.into_iter().next().unwrap();
    let before = doc
        .root()
        .unwrap()
        .path(&["metadata", "labels", "a"])
        .unwrap()
        .span();
    let slim = doc.keep_top_level(&["apiVersion", "kind", "metadata"]);
    let root = slim.root().unwrap();
    assert!(root.get("spec").is_none());
    assert_eq!(root.get("kind").and_then(|k| k.as_str()), Some("X"));
    // The alias still resolves, to the one copy of the anchored mapping.
    assert_eq!(
        root.path(&["metadata", "annotations", "a"])
            .and_then(|v| v.as_str()),
        Some("b")
    );
    assert_eq!(
        root.path(&["metadata", "labels", "a"]).unwrap().span(),
        before
    );
    // root, 3 kept keys, apiVersion and kind values, metadata map, 2 keys, mapping, a, b, alias
    assert_eq!(slim.nodes.len(), 13);
}

/// Slimming keeps what the kept keys share with the dropped ones: an alias and a `<<`
/// merge in `metadata` of anchors under `spec` still resolve, with their positions, and
/// every collection's children range stays inside the new document's arrays.
#[test]
fn slimming_keeps_anchors_the_kept_keys_share_with_dropped_ones() {
    let text =
        "apiVersion: example.com/v1\nkind: Widget\nspec:\n  shared: &s {team: a, tier: web}\n  \
                list: &items [x, y]\n  big: [1, 2, 3, 4]\nmetadata:\n  name: w\n  labels: *s\n  \
                annotations:\n    <<: *s\n    tier: api\n    items: *items\n";
    let file = crate::yaml::load_with(text, &Limits::default(), &mut crate::views::slim);
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let doc = &file.documents[0];
    let root = doc.root().unwrap();
    assert!(root.get("spec").is_none(), "spec was dropped");
    let labels = root.path(&["metadata", "labels"]).unwrap();
    let team = labels.get("team").unwrap();
    assert_eq!(team.as_str(), Some("a"));
    // Where the anchored value is written, under the dropped `spec`.
    assert_eq!(lco(team.span().start), (4, 21, 66));
    let annotations = root.path(&["metadata", "annotations"]).unwrap();
    assert_eq!(annotations.get("team").and_then(|v| v.as_str()), Some("a"));
    assert_eq!(
        annotations.get("tier").and_then(|v| v.as_str()),
        Some("api")
    );
    let items: Vec<_> = annotations
        .get("items")
        .unwrap()
        .items()
        .filter_map(|i| i.as_str())
        .collect();
    assert_eq!(items, ["x", "y"]);
    // The dropped `big` list is not copied; every range is in bounds.
    assert!(doc.items.len() == 2, "{:?}", doc.items);
    for node in &doc.nodes {
        match node.kind {
            NodeKind::Sequence(c) => assert!(doc
                .items_of(c)
                .iter()
                .all(|i| (i.0 as usize) < doc.nodes.len())),
            NodeKind::Mapping(c) => assert!(doc
                .entries_of(c)
                .iter()
                .all(|e| (e.key.0 as usize) < doc.nodes.len()
                    && (e.value.0 as usize) < doc.nodes.len())),
            _ => {}
        }
    }
}
