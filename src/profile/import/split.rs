//! Cutting a List into its items without parsing it whole. YAML: kubectl writes a List as
//! one document whose top-level `items:` is a block sequence; each item starts with a `- `
//! line at the sequence's indent and runs to the next one, because every line of an item's
//! content (block scalars, continued scalars, nested collections) is indented deeper than
//! its `- `. Anything else (directives, several documents, tabs, flow style) is left to the
//! whole-document parse. JSON: serde_json hands the `items` array over one element at a time.

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::yaml::{load, Limits};

/// A List document's items, as byte ranges of the text.
pub(crate) struct ListItems {
    pub items: Vec<(usize, usize)>,
}

/// The items of `text` when it is one block-style List document, else `None`.
pub(crate) fn documents_of_list(text: &str) -> Option<ListItems> {
    let mut header = String::new();
    let mut items: Vec<(usize, usize)> = Vec::new();
    // None: before `items:`; Some(None): after it, before the first item; Some(Some(k)):
    // in the items, at indent k.
    let mut state: Option<Option<usize>> = None;
    let mut done = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body.starts_with("---") || body.starts_with("...") || body.starts_with('%') {
            return None;
        }
        let content = body.trim_start_matches(' ');
        if content.starts_with('\t') {
            return None;
        }
        let blank = content.is_empty() || content.starts_with('#');
        let indent = body.len() - content.len();
        let dash = content == "-" || content.starts_with("- ");
        match state {
            Some(None) if blank => {}
            Some(None) if dash => {
                state = Some(Some(indent));
                items.push((at, at));
            }
            // `items:` followed by something other than a block sequence.
            Some(None) => return None,
            Some(Some(_)) if blank => {}
            Some(Some(k)) if indent > k => {}
            Some(Some(k)) if indent == k && dash => items.push((at, at)),
            // A second `items:` (the last one counts, as in Kubernetes): not this shape.
            Some(Some(_)) if indent == 0 && is_items_key(content) => return None,
            Some(Some(_)) => {
                state = None;
                done = true;
                header.push_str(line);
            }
            None if !done && indent == 0 && is_items_key(content) => state = Some(None),
            None if indent == 0 && is_items_key(content) => return None,
            None => header.push_str(line),
        }
        if let Some(Some(_)) = state {
            if let Some(last) = items.last_mut() {
                last.1 = offset;
            }
        }
    }
    // Items run to the start of the next one.
    for i in 1..items.len() {
        items[i - 1].1 = items[i].0;
    }
    let root = load(&header, &Limits::default());
    let kind = root.documents.first()?.root()?.get("kind")?.as_str()?;
    (root.errors.is_empty() && kind.ends_with("List") && !items.is_empty())
        .then_some(ListItems { items })
}

/// `items:`, possibly with a comment after it.
fn is_items_key(content: &str) -> bool {
    content
        .strip_prefix("items:")
        .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
}

/// Read a top-level JSON object, handing each element of its `items` array to `each` as it
/// is parsed; the other keys are returned.
pub(crate) fn json_items<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    each: &mut dyn FnMut(serde_json::Value),
) -> Result<serde_json::Map<String, serde_json::Value>, serde_json::Error> {
    TopLevel { each }.deserialize(de)
}

struct TopLevel<'a> {
    each: &'a mut dyn FnMut(serde_json::Value),
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = serde_json::Map<String, serde_json::Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = serde_json::Map<String, serde_json::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rest = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                map.next_value_seed(Items {
                    each: &mut *self.each,
                })?;
            } else {
                rest.insert(key, map.next_value()?);
            }
        }
        Ok(rest)
    }
}

struct Items<'a> {
    each: &'a mut dyn FnMut(serde_json::Value),
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<serde_json::Value>()? {
            (self.each)(item);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::documents_of_list;

    fn items(text: &str) -> Option<Vec<&str>> {
        let list = documents_of_list(text)?;
        Some(list.items.iter().map(|&(s, e)| &text[s..e]).collect())
    }

    #[test]
    fn kubectl_lists_are_cut_at_their_items() {
        // kubectl's shape: items at column 0, `kind: List` after them; a block scalar and a
        // comment at column 0 stay in their item.
        let text = "apiVersion: v1\nitems:\n- kind: ConfigMap\n  data:\n    config: |\n      \
                    mode: ipvs\n\n# between\n- kind: Node\nkind: List\nmetadata: {}\n";
        assert_eq!(
            items(text).unwrap(),
            [
                "- kind: ConfigMap\n  data:\n    config: |\n      mode: ipvs\n\n# between\n",
                "- kind: Node\n"
            ]
        );
        // Indented items, `kind: List` first.
        let text = "kind: List\nitems:\n  - kind: A\n    x: 1\n  - kind: B\n";
        assert_eq!(
            items(text).unwrap(),
            ["  - kind: A\n    x: 1\n", "  - kind: B\n"]
        );
    }

    #[test]
    fn anything_else_is_left_to_the_whole_parse() {
        for text in [
            // Flow items, several documents, no List kind, a tab, a second `items:`.
            "kind: List\nitems: [{kind: A}]\n",
            "kind: List\nitems:\n- kind: A\n---\nkind: Node\n",
            "apiVersion: v1\nitems:\n- kind: A\n",
            "kind: List\nitems:\n\t- kind: A\n",
            "kind: List\nitems:\n- kind: A\nitems:\n- kind: B\n",
            "kind: Node\nmetadata: {name: a}\n",
        ] {
            assert!(items(text).is_none(), "{text}");
        }
    }
}
