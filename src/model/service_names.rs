//! The Services a host names inside the cluster: `name.namespace[.svc[.cluster.local]]`,
//! a ClusterIP, or (in host position) a bare name in the caller's namespace.
//!
//! The in-cluster names are not built as strings: a host is split into name and namespace
//! when it is looked up. Three names a Service, each a string in a hash table, were the
//! peak of a run over many Services (about 85 MB for 183,749 Services while the model was
//! built, above everything the rules' findings later hold).

use std::collections::HashMap;

use crate::objects::{Object, ObjectId};

/// What the in-cluster names of a Service end with, after `name.namespace`.
const SUFFIXES: [&str; 3] = ["", ".svc", ".svc.cluster.local"];

/// Services by namespace and name, and by ClusterIP.
#[derive(Default)]
pub(super) struct ServiceNames<'w> {
    /// By (namespace, name): the last Service of that name in that namespace (an unwritten
    /// namespace counts as `default`), and the last whose namespace is written.
    by_name: HashMap<(&'w str, &'w str), Named>,
    /// Normalized ClusterIPs.
    ips: HashMap<String, ObjectId>,
    /// A written namespace or the name of a Service with one has a `.` (not a valid name,
    /// but linted as written): a host may then split into name and namespace at any dot.
    dotted: bool,
    /// The lengths of the written namespaces and of the ClusterIPs: a host whose parts
    /// have none of them is turned down without hashing it (most tokens are no name).
    namespace_lengths: Lengths,
    ip_lengths: Lengths,
}

/// A set of lengths, those of 63 bytes and more counted as one.
#[derive(Clone, Copy, Default)]
struct Lengths(u64);

impl Lengths {
    fn add(&mut self, text: &str) {
        self.0 |= 1 << text.len().min(63);
    }

    fn may_hold(self, text: &str) -> bool {
        self.0 & 1 << text.len().min(63) != 0
    }
}

#[derive(Clone, Copy)]
struct Named {
    any: ObjectId,
    written: Option<ObjectId>,
}

impl<'w> ServiceNames<'w> {
    /// Add a Service; Services come in object order, and a later one wins a name.
    pub(super) fn add(&mut self, id: ObjectId, object: &'w Object, ips: &[&str]) {
        let written = object.written_namespace();
        let named = self
            .by_name
            .entry((object.namespace(), object.name()))
            .or_insert(Named {
                any: id,
                written: None,
            });
        named.any = id;
        if let Some(namespace) = written {
            named.written = Some(id);
            self.dotted |= namespace.contains('.') || object.name().contains('.');
            self.namespace_lengths.add(namespace);
        }
        for &ip in ips {
            if ip != "None" && !ip.is_empty() {
                let ip = super::address::normalize(ip);
                self.ip_lengths.add(&ip);
                self.ips.insert(ip, id);
            }
        }
    }

    /// The Service `host` names as `name.namespace[.svc[.cluster.local]]` (written
    /// namespaces only) or as a ClusterIP. Where several do, the last one added: each name
    /// was one key of a table, and the last insert won it.
    pub(super) fn in_cluster(&self, host: &str) -> Option<ObjectId> {
        // Called for every host-like token of every workload: most have no match, and
        // are turned down by a byte search or two.
        let ip = match self.ip_lengths.may_hold(host) {
            true => self.ips.get(host).copied(),
            false => None,
        };
        let Some(first) = host.bytes().position(|b| b == b'.') else {
            return ip;
        };
        let written = |namespace: &str, name: &str| match self.namespace_lengths.may_hold(namespace)
        {
            true => self.by_name.get(&(namespace, name)).and_then(|n| n.written),
            false => None,
        };
        let mut found = ip;
        if self.dotted {
            for suffix in SUFFIXES {
                let Some(stem) = host.strip_suffix(suffix) else {
                    continue;
                };
                for (at, _) in stem.match_indices('.') {
                    found = found.max(written(&stem[at + 1..], &stem[..at]));
                }
            }
            return found;
        }
        // No name or namespace has a dot: the name ends at the first one.
        let (name, rest) = (&host[..first], &host[first + 1..]);
        let namespaces = [
            Some(rest),
            rest.strip_suffix(".svc"),
            rest.strip_suffix(".svc.cluster.local"),
        ];
        for namespace in namespaces.into_iter().flatten() {
            if self.namespace_lengths.may_hold(namespace) && !namespace.contains('.') {
                found = found.max(written(namespace, name));
            }
        }
        found
    }

    /// The last Service named `name` in `namespace` (written or not).
    pub(super) fn short(&self, namespace: &str, name: &str) -> Option<ObjectId> {
        self.by_name.get(&(namespace, name)).map(|n| n.any)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use super::ServiceNames;
    use crate::objects::{LintFile, Workspace};
    use crate::source::SourceFile;
    use crate::yaml::{load, Limits};

    /// The same answers as the table of every in-cluster name it replaced, where names
    /// and namespaces with dots make one host several Services' names.
    #[test]
    fn same_as_a_table_of_every_name() {
        let services = [
            ("a", Some("b")),
            ("a", Some("b.svc")),
            ("a.b", Some("svc")),
            ("a", None),
            ("web", Some("shop")),
            ("web", Some("default")),
            ("web", None),
            ("x.y", Some("z")),
            ("x", Some("y.z")),
            ("a", Some("b")),
        ];
        let mut text = String::new();
        for (i, (name, namespace)) in services.iter().enumerate() {
            let namespace = namespace.map_or(String::new(), |n| format!("  namespace: {n}\n"));
            text += &format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n{namespace}spec:\n  clusterIP: 10.0.0.{}\n", i % 4);
        }
        let source = Arc::new(SourceFile::new(Arc::from("m.yaml"), text.clone()));
        let loaded = load(&source.text, &Limits::default());
        let ws = Workspace::new(vec![LintFile {
            source,
            loaded: Arc::new(loaded),
        }]);
        let mut index = ServiceNames::default();
        let mut table = HashMap::new();
        for (i, (id, object)) in ws.ids().enumerate() {
            let ip = format!("10.0.0.{}", i % 4);
            if let Some(ns) = object.written_namespace() {
                let name = object.name();
                for host in [
                    format!("{name}.{ns}"),
                    format!("{name}.{ns}.svc"),
                    format!("{name}.{ns}.svc.cluster.local"),
                ] {
                    table.insert(host, id);
                }
            }
            table.insert(ip.clone(), id);
            index.add(id, object, &[ip.as_str()]);
        }
        let hosts = [
            "a.b",
            "a.b.svc",
            "a.b.svc.svc",
            "a.b.svc.cluster.local",
            "x.y.z",
            "x.y.z.svc",
            "web.shop",
            "web.default",
            "web.default.svc",
            "10.0.0.1",
            "10.0.0.3",
            "a",
            "b.svc",
            ".svc",
            "",
            "a.b.svc.cluster",
            "a.b.svc.svc.cluster.local",
        ];
        for host in hosts {
            assert_eq!(index.in_cluster(host), table.get(host).copied(), "{host}");
        }
        let web = |ns: &str| {
            index
                .short(ns, "web")
                .map(|id| ws.objects[id].written_namespace())
        };
        assert_eq!(web("default"), Some(None), "the last one, written or not");
        assert_eq!(web("shop"), Some(Some("shop")));
    }
}
