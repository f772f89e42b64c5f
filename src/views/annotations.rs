//! `metadata.annotations`, read the way the cloud controllers read them: the one place
//! where an annotation's value is parsed (Go's `strconv.ParseBool`, exact text, a list of
//! accepted values), so no rule compares an annotation value by hand.

use crate::objects::{Object, Workspace};
use crate::yaml::go_values::parse_go_bool;
use crate::yaml::NodeRef;

/// An object's annotations (empty when it has none).
#[derive(Clone, Copy, Debug)]
pub struct Annotations<'w> {
    map: Option<NodeRef<'w>>,
}

impl<'w> Annotations<'w> {
    pub fn of(ws: &'w Workspace, object: &Object) -> Annotations<'w> {
        Annotations {
            map: ws.root(object).path(&["metadata", "annotations"]),
        }
    }

    /// The annotations written in an annotations mapping elsewhere (an ASM IstioGateway's
    /// `spec.serviceAnnotations`, which ASM copies onto its Service).
    pub fn in_mapping(map: Option<NodeRef<'w>>) -> Annotations<'w> {
        Annotations { map }
    }

    /// The annotations mapping itself (where a fix inserts a new annotation).
    pub fn mapping(&self) -> Option<NodeRef<'w>> {
        self.map
    }

    /// `key` as (key node, value node), whatever its value.
    pub fn entry(&self, key: &str) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
        self.map?.get_entry(key)
    }

    /// The value node of `key`.
    pub fn value(&self, key: &str) -> Option<NodeRef<'w>> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The value of `key` as text (a non-string value, which Kubernetes rejects, is `None`).
    pub fn text(&self, key: &str) -> Option<&'w str> {
        self.value(key)?.as_str()
    }

    /// `key` when its text is one of `accepted` exactly (controllers that compare strings).
    pub fn value_in(&self, key: &str, accepted: &[&str]) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
        self.entry(key)
            .filter(|(_, v)| v.as_str().is_some_and(|text| accepted.contains(&text)))
    }

    /// The key node of `key` when its text is one of `accepted` exactly.
    pub fn key_if_in(&self, key: &str, accepted: &[&str]) -> Option<NodeRef<'w>> {
        self.value_in(key, accepted).map(|(k, _)| k)
    }

    /// The text of `key` when it is written and not blank.
    pub fn non_empty(&self, key: &str) -> Option<&'w str> {
        self.text(key).filter(|v| !v.trim().is_empty())
    }

    /// `key` as (key node, text) when its value is a string.
    pub fn text_entry(&self, key: &str) -> Option<(NodeRef<'w>, &'w str)> {
        let (k, v) = self.entry(key)?;
        Some((k, v.as_str()?))
    }

    /// `key` read with Go's `strconv.ParseBool`: `Some(Ok(b))` for its forms, `Some(Err(text))`
    /// for text the controller rejects, `None` when the annotation is not written.
    pub fn go_bool(&self, key: &str) -> Option<Result<bool, &'w str>> {
        let text = self.text(key)?;
        Some(parse_go_bool(text).ok_or(text))
    }

    /// The first of `keys` that is written, as (key node, value node): a controller that
    /// reads a deprecated spelling when the current one is missing (Linode's
    /// `getPortProxyProtocol` reads `…-default-proxy-protocol`, then the deprecated
    /// `…-proxy-protocol`).
    pub fn first_of(&self, keys: &[&str]) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
        keys.iter().find_map(|key| self.entry(key))
    }

    /// `key`'s text lower-cased, as a controller that applies Go's `strings.ToLower` before
    /// comparing reads it (`None` when it is not written or not a string).
    pub fn lowercase(&self, key: &str) -> Option<String> {
        self.text(key).map(str::to_lowercase)
    }

    /// `key` as comma-separated `k=v` pairs, read the way kubernetes/cloud-provider-aws reads
    /// them (`getKeyValuePropertiesFromAnnotation`): the text and each pair trimmed, split
    /// at `=`, neither side trimmed again; a pair without `=` has an empty value.
    pub fn aws_legacy_pairs(&self, key: &str) -> Option<Vec<(&'w str, &'w str)>> {
        let text = self.text(key)?.trim();
        Some(
            text.split(',')
                .filter_map(|pair| {
                    let mut parts = pair.trim().split('=');
                    let k = parts.next().filter(|k| !k.is_empty())?;
                    Some((k, parts.next().unwrap_or("")))
                })
                .collect(),
        )
    }

    /// `key` as comma-separated `k=v` pairs, read the way the AWS Load Balancer Controller
    /// reads them (`ParseStringMapAnnotation`): split at the first `=`, key and value
    /// trimmed; a pair without `=` makes the controller reject the whole annotation
    /// (`None` here too). Backslash escapes of `,` are not read.
    pub fn lbc_string_map(&self, key: &str) -> Option<Vec<(&'w str, &'w str)>> {
        let text = self.text(key)?;
        text.split(',')
            .filter(|pair| !pair.trim().is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=')?;
                let k = k.trim();
                (!k.is_empty()).then(|| (k, v.trim()))
            })
            .collect()
    }

    /// Every annotation, as (key node, value node), in written order.
    pub fn entries(&self) -> impl Iterator<Item = (NodeRef<'w>, NodeRef<'w>)> + 'w {
        self.map.into_iter().flat_map(NodeRef::entries)
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then a `0x`, `0o`, `0b` or `0`
/// (octal) prefix, or decimal, `_` between digits. `None` where Go reports an error
/// ([`crate::yaml::go_values::go_parse_int_base0`] gives its text).
pub fn parse_go_int(text: &str) -> Option<i64> {
    crate::yaml::go_values::go_parse_int_base0(text).ok()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{parse_go_bool, parse_go_int, Annotations};
    use crate::objects::{LintFile, ObjectId, Workspace};
    use crate::source::SourceFile;
    use crate::yaml::{load, Limits};

    fn pairs_of(
        value: &str,
        read: impl Fn(&Annotations<'_>) -> Option<Vec<(String, String)>>,
    ) -> Option<Vec<(String, String)>> {
        let text = format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    k: \"{value}\"\n"
        );
        let source = Arc::new(SourceFile::new(Arc::from("s.yaml"), text));
        let loaded = load(&source.text, &Limits::default());
        let ws = Workspace::new(vec![LintFile {
            source,
            loaded: Arc::new(loaded),
        }]);
        let object = &ws.objects[ObjectId(0)];
        read(&Annotations::of(&ws, object))
    }

    fn owned(pairs: Vec<(&str, &str)>) -> Vec<(String, String)> {
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn aws_key_value_lists_are_read_as_each_controller_reads_them() {
        let legacy = |v: &str| pairs_of(v, |a| a.aws_legacy_pairs("k").map(owned));
        let lbc = |v: &str| pairs_of(v, |a| a.lbc_string_map("k").map(owned));
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            legacy(" a=1, b = 2,c"),
            Some(vec![pair("a", "1"), pair("b ", " 2"), pair("c", "")])
        );
        assert_eq!(
            lbc(" a=1, b = 2"),
            Some(vec![pair("a", "1"), pair("b", "2")])
        );
        assert_eq!(lbc("a=1,c"), None);
    }

    #[test]
    fn go_parse_bool_forms() {
        for text in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(parse_go_bool(text), Some(true), "{text}");
        }
        for text in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(parse_go_bool(text), Some(false), "{text}");
        }
        for text in ["", "yes", "on", "tRUE", " true", "true ", "2"] {
            assert_eq!(parse_go_bool(text), None, "{text}");
        }
    }

    #[test]
    fn go_parse_int_base_zero_forms() {
        for (text, n) in [
            ("443", 443),
            ("+443", 443),
            ("-1", -1),
            ("0x1bb", 443),
            ("0o673", 443),
            ("0673", 443),
            ("0b1", 1),
            ("0", 0),
        ] {
            assert_eq!(parse_go_int(text), Some(n), "{text}");
        }
        for text in ["", "x", "44 3", "0x", "1e3", "089"] {
            assert_eq!(parse_go_int(text), None, "{text}");
        }
    }
}
