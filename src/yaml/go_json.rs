//! A JSON text decoded into a Go struct of string fields as Go's `encoding/json` `Unmarshal`
//! does (Linode's per-port annotation, `getPortConfigAnnotation`), with Go's error texts
//! where lblint can give them exactly.
//!
//! Go's rules kept here: keys match a field's JSON name exactly or case-insensitively; later
//! keys overwrite earlier ones; unknown keys are ignored; `null` leaves a field as it is;
//! any other non-string value is a type error, reported after the whole object is read;
//! a top-level `null` decodes to nothing.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// Why `Unmarshal` refuses a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GoJsonError {
    /// Go's own text (`unexpected end of JSON input`, `json: cannot unmarshal …`).
    Go(String),
    /// Not JSON; Go says so in its own words (`invalid character …`), which lblint does not
    /// reproduce: this is serde_json's description of the same fault.
    Syntax(String),
}

/// The string fields of `go_type` (e.g. `linode.portConfigAnnotation`) that `text` sets, as
/// (JSON name, value), each once.
pub(crate) fn go_unmarshal_strings(
    text: &str,
    go_type: &str,
    fields: &[&'static str],
) -> Result<Vec<(&'static str, String)>, GoJsonError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            GoJsonError::Go("unexpected end of JSON input".to_string())
        } else {
            GoJsonError::Syntax(e.to_string())
        }
    })?;
    let entries = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Object(_) => {
            serde_json::from_str::<Ordered>(text)
                .map_err(|e| GoJsonError::Syntax(e.to_string()))?
                .0
        }
        other => {
            return Err(GoJsonError::Go(format!(
                "json: cannot unmarshal {} into Go value of type {go_type}",
                kind(&other)
            )))
        }
    };
    let struct_name = go_type.rsplit('.').next().unwrap_or(go_type);
    let mut set: Vec<(&'static str, String)> = Vec::new();
    let mut first_error = None;
    for (key, value) in entries {
        let field = fields
            .iter()
            .find(|f| **f == key)
            .or_else(|| fields.iter().find(|f| f.eq_ignore_ascii_case(&key)));
        let Some(&field) = field else { continue };
        match value {
            Value::String(text) => {
                set.retain(|(f, _)| *f != field);
                set.push((field, text));
            }
            Value::Null => {}
            other => {
                first_error.get_or_insert_with(|| {
                    format!(
                        "json: cannot unmarshal {} into Go struct field {struct_name}.{field} of type string",
                        kind(&other)
                    )
                });
            }
        }
    }
    match first_error {
        Some(error) => Err(GoJsonError::Go(error)),
        None => Ok(set),
    }
}

/// Go's name for a JSON value's kind in `UnmarshalTypeError`.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A JSON object's entries in document order (serde_json's map sorts its keys, and Go's
/// "later key wins" needs the order).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPE: &str = "linode.portConfigAnnotation";
    const FIELDS: &[&str] = &["tls-secret-name", "protocol", "proxy-protocol"];

    fn decode(text: &str) -> Result<Vec<(&'static str, String)>, GoJsonError> {
        go_unmarshal_strings(text, TYPE, FIELDS)
    }

    #[test]
    fn keys_match_as_go_matches_them() {
        assert_eq!(
            decode(
                r#"{"Protocol": "http", "protocol": "https", "other": 1, "proxy-protocol": null}"#
            ),
            Ok(vec![("protocol", "https".to_string())])
        );
        assert_eq!(decode("null"), Ok(vec![]));
    }

    #[test]
    fn refusals_carry_gos_texts() {
        // linode-cloud-controller-manager loadbalancers_test.go Test_getPortConfigAnnotation.
        assert_eq!(
            decode(r#"{ "tls-secret-name": "prod-app-tls" "#),
            Err(GoJsonError::Go("unexpected end of JSON input".to_string()))
        );
        assert_eq!(
            decode(r#"{"protocol": 443}"#),
            Err(GoJsonError::Go(
                "json: cannot unmarshal number into Go struct field portConfigAnnotation.protocol of type string"
                    .to_string()
            ))
        );
        assert_eq!(
            decode(r#""https""#),
            Err(GoJsonError::Go(
                "json: cannot unmarshal string into Go value of type linode.portConfigAnnotation"
                    .to_string()
            ))
        );
        assert!(matches!(
            decode("{protocol: https}"),
            Err(GoJsonError::Syntax(_))
        ));
    }
}
