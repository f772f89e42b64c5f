//! A settings file's JSON Schema, derived from its serde types (schemars), and the tables
//! its error help is read from: what shape each key's value has, where a set of fields
//! lives, which field a set of enum values belongs to. The types are the one place a field
//! is written; the schema and the help follow from them.

use std::collections::{BTreeMap, VecDeque};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The draft-07 schema of `T`, every subschema inline (an editor shows each field's
/// description where it is used), with the touches the derive cannot know:
/// - `null` is refused where serde would read it as "not given": the schema says what to
///   write, and writing `null` says nothing;
/// - doc comments wrapped at 100 columns are joined into one line per paragraph.
pub(crate) fn json_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    tidy(&mut schema);
    schema
}

fn tidy(value: &mut Value) {
    match value {
        Value::Object(object) => {
            drop_null(object);
            if let Some(Value::String(text)) = object.get_mut("description") {
                *text = unwrap_lines(text);
            }
            object.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// `Option<T>` as schemars writes it (`"type": ["string", "null"]`, `null` among the enum
/// values, or `anyOf: [T, {"type": "null"}]`) back to `T`.
fn drop_null(object: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = object.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [one] = &kept[..] {
            object.insert("type".into(), one.clone());
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    // What `#[serde(default)]` gives an `Option`: not a value to write.
    if object.get("default") == Some(&Value::Null) {
        object.remove("default");
    }
    let Some(Value::Array(any_of)) = object.get("anyOf") else {
        return;
    };
    let kept: Vec<&Value> = any_of.iter().filter(|s| s["type"] != "null").collect();
    if let [Value::Object(only)] = &kept[..] {
        let only = only.clone();
        object.remove("anyOf");
        for (key, value) in only {
            // The field's own description wins over its type's.
            object.entry(key).or_insert(value);
        }
    }
}

/// Single line breaks become spaces; a blank line still separates paragraphs.
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The shape a field's value must have, for type errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Bool,
    List,
    Mapping,
    Text,
    /// One of these values.
    Choice(Vec<String>),
}

impl Shape {
    fn of(schema: &Value) -> Option<Shape> {
        if let Some(values) = schema["enum"].as_array() {
            let names = values.iter().filter_map(Value::as_str).map(str::to_owned);
            return Some(Shape::Choice(names.collect()));
        }
        if schema.get("const").is_some() {
            return Some(Shape::Text);
        }
        Some(match schema["type"].as_str()? {
            "boolean" => Shape::Bool,
            "array" => Shape::List,
            "object" => Shape::Mapping,
            "string" => Shape::Text,
            _ => return None,
        })
    }
}

/// What a schema says about its fields, read once for error help.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    /// Shape by key name; where two fields share a name, the shallower one's.
    shapes: BTreeMap<String, Shape>,
    /// Each mapping's field names (sorted), and how messages name the mapping (`` `spec` ``).
    sections: Vec<Named>,
    /// Each enum field's values, and how messages name the field.
    enums: Vec<Named>,
}

/// A list of names (a mapping's fields, an enum's values), and what messages call its owner.
type Named = (Vec<String>, String);

/// The owner of exactly the names `names`.
fn owner<'t>(table: &'t [Named], names: &[&str]) -> Option<&'t str> {
    table
        .iter()
        .find(|(list, _)| list.iter().map(String::as_str).eq(names.iter().copied()))
        .map(|(_, owner)| owner.as_str())
}

impl Tables {
    /// Walk `schema` breadth-first. A field is named by its path (`spec.kubeProxy.mode`;
    /// `[]` for list items); inside a list that is itself in a list item, from the inner
    /// list on (`taints[].effect`). `shown` renames the paths messages name otherwise.
    pub(crate) fn of(schema: &Value, shown: &[(&str, &str)]) -> Tables {
        let mut tables = Tables::default();
        let name = |path: &[String]| {
            let full = path.join(".");
            if let Some((_, name)) = shown.iter().find(|(p, _)| *p == full) {
                return (*name).to_owned();
            }
            let lists: Vec<usize> = (0..path.len())
                .filter(|&i| path[i].ends_with("[]"))
                .collect();
            match lists[..] {
                [_, .., inner] => path[inner..].join("."),
                _ => full,
            }
        };
        let mut queue = VecDeque::from([(Vec::<String>::new(), schema)]);
        while let Some((path, schema)) = queue.pop_front() {
            let Some(properties) = schema["properties"].as_object() else {
                continue;
            };
            let section = if path.is_empty() {
                "the top level".to_owned()
            } else {
                format!("`{}`", name(&path))
            };
            let mut fields: Vec<String> = properties.keys().cloned().collect();
            fields.sort_unstable();
            tables.sections.push((fields, section));
            for (key, field) in properties {
                let mut at = path.clone();
                at.push(key.clone());
                let shape = Shape::of(field);
                if let Some(Shape::Choice(values)) = &shape {
                    tables
                        .enums
                        .push((values.clone(), format!("`{}`", name(&at))));
                }
                if let Some(shape) = shape {
                    tables.shapes.entry(key.clone()).or_insert(shape);
                }
                let items = &field["items"];
                if items.is_object() {
                    let last = at.len() - 1;
                    at[last].push_str("[]");
                    queue.push_back((at, items));
                } else {
                    queue.push_back((at, field));
                }
            }
        }
        tables
    }

    /// The shape of the field named `key`.
    pub(crate) fn shape(&self, key: &str) -> Option<&Shape> {
        self.shapes.get(key)
    }

    /// Where the fields in serde's `expected` list live: `` `spec` ``, `the top level`.
    pub(crate) fn section(&self, expected: &[&str]) -> Option<&str> {
        let mut fields = expected.to_vec();
        fields.sort_unstable();
        owner(&self.sections, &fields)
    }

    /// Which field takes serde's `expected` list of enum values: `` `spec.kubeProxy.mode` ``.
    pub(crate) fn enum_field(&self, expected: &[&str]) -> Option<&str> {
        owner(&self.enums, expected)
    }

    /// Key names whose fields have different shapes (the shallower wins in [`Tables::shape`]).
    #[cfg(test)]
    pub(crate) fn ambiguous_keys(schema: &Value) -> std::collections::BTreeSet<String> {
        let mut seen: BTreeMap<String, Shape> = BTreeMap::new();
        let mut ambiguous = std::collections::BTreeSet::new();
        let mut stack = vec![schema];
        while let Some(schema) = stack.pop() {
            for (key, field) in schema["properties"].as_object().into_iter().flatten() {
                if let Some(shape) = Shape::of(field) {
                    if *seen.entry(key.clone()).or_insert_with(|| shape.clone()) != shape {
                        ambiguous.insert(key.clone());
                    }
                }
                stack.push(if field["items"].is_object() {
                    &field["items"]
                } else {
                    field
                });
            }
        }
        ambiguous
    }

    /// Every key name with a shape.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.shapes.keys().map(String::as_str)
    }

    /// Mappings with the same field names, enums with the same values: lookups by serde's
    /// list could not tell them apart.
    #[cfg(test)]
    pub(crate) fn ambiguities(&self) -> Vec<&str> {
        [&self.sections, &self.enums]
            .into_iter()
            .flat_map(|table| {
                table.iter().enumerate().filter_map(|(i, (list, owner))| {
                    table[..i]
                        .iter()
                        .any(|(l, _)| l == list)
                        .then_some(owner.as_str())
                })
            })
            .collect()
    }

    /// Whether `keys` (`["spec", "kubeProxy", "mode"]`) names a field of `schema`; list
    /// items are stepped into without an index.
    pub(crate) fn has_path(schema: &Value, keys: &[&str]) -> bool {
        let mut at = schema;
        for key in keys {
            if at["items"].is_object() {
                at = &at["items"];
            }
            match at["properties"].get(*key) {
                Some(field) => at = field,
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_go_and_lines_join() {
        let mut schema = json!({
            "description": "One\nparagraph.\n\nTwo.",
            "properties": {
                "a": {"type": ["string", "null"], "default": null},
                "b": {"enum": ["x", null], "type": ["string", "null"]},
                "c": {"anyOf": [{"type": "object", "description": "T"}, {"type": "null"}], "description": "c"}
            }
        });
        tidy(&mut schema);
        assert_eq!(
            schema,
            json!({
                "description": "One paragraph.\n\nTwo.",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"enum": ["x"], "type": "string"},
                    "c": {"type": "object", "description": "c"}
                }
            })
        );
    }

    #[test]
    fn tables_name_fields_by_path() {
        let schema = json!({"properties": {
            "spec": {"type": "object", "properties": {
                "mode": {"enum": ["a", "b"]},
                "pools": {"type": "array", "items": {"type": "object", "properties": {
                    "on": {"type": "boolean"},
                    "taints": {"type": "array", "items": {"type": "object", "properties": {
                        "effect": {"enum": ["x"]}
                    }}}
                }}}
            }}
        }});
        let t = Tables::of(&schema, &[("spec.mode", "mode")]);
        assert_eq!(t.section(&["spec"]), Some("the top level"));
        assert_eq!(t.section(&["pools", "mode"]), Some("`spec`"));
        assert_eq!(t.section(&["taints", "on"]), Some("`spec.pools[]`"));
        assert_eq!(t.section(&["effect"]), Some("`taints[]`"));
        assert_eq!(t.enum_field(&["x"]), Some("`taints[].effect`"));
        assert_eq!(t.enum_field(&["a", "b"]), Some("`mode`"));
        assert_eq!(t.shape("on"), Some(&Shape::Bool));
        assert_eq!(t.shape("pools"), Some(&Shape::List));
        assert_eq!(t.shape("effect"), Some(&Shape::Choice(vec!["x".into()])));
        assert!(Tables::has_path(
            &schema,
            &["spec", "pools", "taints", "effect"]
        ));
        assert!(!Tables::has_path(&schema, &["spec", "pool"]));
    }
}
