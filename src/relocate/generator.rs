//! Where a finding on a generated ConfigMap or Secret goes: the generator entry that set
//! the value. kustomize's origin annotation names the kustomization whose generator
//! created the object (`configuredIn`) even when an overlay's entry of the same name
//! merges into it or replaces it (`behavior: merge` / `replace`); a value that overlay
//! sets is changed in the overlay, so the tree's kustomizations are asked root first.

use crate::yaml::{Extent, LoadedFile, NodeRef};

/// The kustomization list that generates objects of `kind`.
fn list_key(kind: &str) -> Option<&'static str> {
    match kind {
        "ConfigMap" => Some("configMapGenerator"),
        "Secret" => Some("secretGenerator"),
        _ => None,
    }
}

/// The entry of a kustomization that generates `name` (kustomize adds a prefix, a suffix
/// and a hash): the longest entry name that the object's name contains.
fn entry<'l>(loaded: &'l LoadedFile, kind: &str, name: &str) -> Option<NodeRef<'l>> {
    let root = loaded.documents.first()?.root()?;
    let list = root.get(list_key(kind)?)?;
    let named = |e: &NodeRef<'l>| e.get("name").and_then(|n| n.as_str()).unwrap_or_default();
    list.items()
        .filter(|e| !named(e).is_empty() && name.contains(named(e)))
        .max_by_key(|e| named(e).len())
}

/// Where an entry sets `key`: its literal `KEY=value`, or its file source `KEY=path` or
/// a file named KEY.
fn sets(entry: NodeRef<'_>, key: &str) -> Option<Extent> {
    let literal = entry.get("literals").into_iter().flat_map(|l| l.items());
    let literal = literal.filter(|l| {
        l.as_str()
            .is_some_and(|s| s.split_once('=').is_some_and(|(k, _)| k == key))
    });
    let file = entry.get("files").into_iter().flat_map(|f| f.items());
    let file = file.filter(|f| {
        let written = f.as_str().unwrap_or_default();
        match written.split_once('=') {
            Some((k, _)) => k == key,
            None => written.rsplit('/').next() == Some(key),
        }
    });
    literal.chain(file).next().map(|n| n.extent())
}

/// Whether this kustomization holds the value at `key` (a `data` key; `None` for the
/// object itself) of the generated `kind`/`name`, and where: an entry that replaces or
/// creates the object holds all of it, at the key's source or else its name; one that
/// merges, only the keys it sets.
pub(super) fn holder(
    loaded: &LoadedFile,
    kind: &str,
    name: &str,
    key: Option<&str>,
) -> Option<Extent> {
    let entry = entry(loaded, kind, name)?;
    let set = key.and_then(|k| sets(entry, k));
    let behavior = entry.get("behavior").and_then(|b| b.as_str());
    if behavior == Some("merge") {
        return set;
    }
    set.or_else(|| entry.get("name").map(|n| n.extent()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merging_entry_holds_only_the_keys_it_sets() {
        let text = "configMapGenerator:\n  - name: report-settings\n    behavior: merge\n    literals:\n      - ORDERS_URL=http://10.0.0.1\n    files:\n      - cfg/MODE\n";
        let loaded = crate::yaml::load(text, &Default::default());
        let at = |key: Option<&str>| {
            let e = holder(&loaded, "ConfigMap", "prod-report-settings-h4sh", key)?;
            Some(&text[e.start()..e.end()])
        };
        assert_eq!(at(Some("ORDERS_URL")), Some("ORDERS_URL=http://10.0.0.1"));
        assert_eq!(at(Some("MODE")), Some("cfg/MODE"));
        assert_eq!(at(Some("OTHER")), None);
        assert_eq!(at(None), None);
        assert_eq!(holder(&loaded, "Secret", "report-settings", None), None);
        let created = text.replace("    behavior: merge\n", "");
        let loaded = crate::yaml::load(&created, &Default::default());
        let e = holder(&loaded, "ConfigMap", "report-settings-h4sh", Some("OTHER")).unwrap();
        assert_eq!(&created[e.start()..e.end()], "report-settings");
    }
}
