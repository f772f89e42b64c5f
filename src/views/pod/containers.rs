//! What a pod's containers say: the values the pod may dial (env values, args, commands,
//! probe hosts, hostAliases), their images, and the ConfigMap and Secret keys they read.

use crate::yaml::NodeRef;

use super::PodTemplate;

/// Where in the pod a value is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site<'w> {
    /// An `env[].value`, with the variable's name.
    Env(&'w str),
    Arg(Argv<'w>),
    Command(Argv<'w>),
    /// `httpGet.host` of a liveness, readiness or startup probe.
    Probe,
    /// `hostAliases[].ip`.
    HostAlias,
}

/// What surrounds a `command`/`args` word: the program (the command's first word, when the
/// container writes one) and the word before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Argv<'w> {
    pub program: Option<&'w str>,
    pub previous: Option<&'w str>,
}

/// How a container reads a store's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read<'w> {
    /// `envFrom`: each key is an env variable, named with the prefix.
    EnvFrom { prefix: &'w str },
    /// `valueFrom.*KeyRef`: the key is the value of this env variable.
    KeyRef { env: &'w str },
    /// A volume: each key is a file of that name.
    Volume,
}

/// A store a pod reads: its name, the one key read (`None`: every key) and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consumed<'w> {
    pub name: &'w str,
    pub key: Option<&'w str>,
    pub read: Read<'w>,
}

/// Where a pod reads configuration from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Store {
    ConfigMap,
    Secret,
}

/// The field names that refer to a store in a pod spec.
struct Refs {
    env_from: &'static str,
    key_ref: &'static str,
    volume: &'static str,
    /// The name field of a volume source (`secret` volumes say `secretName`).
    volume_name: &'static str,
}

impl Store {
    fn refs(self) -> Refs {
        match self {
            Store::ConfigMap => Refs {
                env_from: "configMapRef",
                key_ref: "configMapKeyRef",
                volume: "configMap",
                volume_name: "name",
            },
            Store::Secret => Refs {
                env_from: "secretRef",
                key_ref: "secretKeyRef",
                volume: "secret",
                volume_name: "secretName",
            },
        }
    }
}

/// One container of a pod template.
#[derive(Clone, Copy, Debug)]
pub struct Container<'w> {
    pub node: NodeRef<'w>,
}

impl<'w> Container<'w> {
    pub fn image(&self) -> Option<&'w str> {
        self.image_node()?.as_str()
    }

    /// The `image` value, where it is written.
    pub fn image_node(&self) -> Option<NodeRef<'w>> {
        self.node.get("image")
    }

    /// `command` then `args`, the strings only.
    pub fn words(&self) -> Vec<&'w str> {
        ["command", "args"]
            .into_iter()
            .flat_map(|k| self.list(k))
            .filter_map(|n| n.as_str())
            .collect()
    }

    fn list(&self, key: &str) -> impl Iterator<Item = NodeRef<'w>> {
        self.node.get(key).into_iter().flat_map(NodeRef::items)
    }

    /// Each `command` then `args` item, with the program and the word before it.
    fn argv(&self, out: &mut Vec<(NodeRef<'w>, Site<'w>)>) {
        let program = self.list("command").next().and_then(|n| n.as_str());
        let mut previous = None;
        for key in ["command", "args"] {
            for item in self.list(key) {
                let argv = Argv { program, previous };
                out.push((
                    item,
                    if key == "command" {
                        Site::Command(argv)
                    } else {
                        Site::Arg(argv)
                    },
                ));
                previous = item.as_str();
            }
        }
    }
}

impl<'w> PodTemplate<'w> {
    /// `spec.containers[]` (not init or ephemeral ones).
    pub fn containers(&self) -> impl Iterator<Item = Container<'w>> {
        self.list("containers").map(|node| Container { node })
    }

    /// Init, regular and ephemeral containers, in that order.
    pub fn all_containers(&self) -> impl Iterator<Item = Container<'w>> {
        let spec = self.spec;
        ["initContainers", "containers", "ephemeralContainers"]
            .into_iter()
            .flat_map(move |key| spec.get(key).into_iter().flat_map(NodeRef::items))
            .map(|node| Container { node })
    }

    fn list(&self, key: &str) -> impl Iterator<Item = NodeRef<'w>> {
        self.spec.get(key).into_iter().flat_map(NodeRef::items)
    }

    /// Every value the pod may dial, where it is written: each container's env values,
    /// args, commands and probe hosts, then the hostAliases' IPs (a pod that maps a name to
    /// an address calls that address for the name).
    pub fn values(&self) -> Vec<(NodeRef<'w>, Site<'w>)> {
        let mut out = Vec::new();
        for container in self.all_containers() {
            for env in container.list("env") {
                if let Some(value) = env.get("value") {
                    let name = env.get("name").and_then(|n| n.as_str()).unwrap_or("");
                    out.push((value, Site::Env(name)));
                }
            }
            container.argv(&mut out);
            for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
                if let Some(host) = container.node.path(&[probe, "httpGet", "host"]) {
                    out.push((host, Site::Probe));
                }
            }
        }
        for alias in self.list("hostAliases") {
            if let Some(ip) = alias.get("ip") {
                out.push((ip, Site::HostAlias));
            }
        }
        out
    }

    /// `hostAliases[]` as (ip, hostnames).
    pub fn host_aliases(&self) -> Vec<(Option<&'w str>, Vec<&'w str>)> {
        self.list("hostAliases")
            .map(|alias| {
                let ip = alias.get("ip").and_then(|ip| ip.as_str());
                let names = alias.get("hostnames").into_iter().flat_map(NodeRef::items);
                (ip, names.filter_map(|n| n.as_str()).collect())
            })
            .collect()
    }

    /// The stores of `store`'s kind the pod reads, each with the one key read (`None`: every
    /// key) and how. `envFrom` and a volume without `items:` read every key;
    /// `configMapKeyRef`/`secretKeyRef` and a volume with `items:` only those.
    pub fn consumed(&self, store: Store) -> Vec<Consumed<'w>> {
        let refs = store.refs();
        let text = |node: Option<NodeRef<'w>>| node.and_then(|n| n.as_str());
        let mut out = Vec::new();
        for key in ["initContainers", "containers"] {
            for container in self.list(key).map(|node| Container { node }) {
                for from in container.list("envFrom") {
                    if let Some(name) = text(from.path(&[refs.env_from, "name"])) {
                        let prefix = text(from.get("prefix")).unwrap_or("");
                        let read = Read::EnvFrom { prefix };
                        out.push(Consumed {
                            name,
                            key: None,
                            read,
                        });
                    }
                }
                for env in container.list("env") {
                    let key_ref = env.path(&["valueFrom", refs.key_ref]);
                    let name = text(key_ref.and_then(|r| r.get("name")));
                    let key = text(key_ref.and_then(|r| r.get("key")));
                    if let (Some(name), Some(key)) = (name, key) {
                        let read = Read::KeyRef {
                            env: text(env.get("name")).unwrap_or(key),
                        };
                        out.push(Consumed {
                            name,
                            key: Some(key),
                            read,
                        });
                    }
                }
            }
        }
        // A volume with `items:` mounts only the keys it lists; without, every key.
        let mut mounted = |source: Option<NodeRef<'w>>, name_field: &str| {
            let Some(name) = text(source.and_then(|c| c.get(name_field))) else {
                return;
            };
            match source.and_then(|c| c.get("items")) {
                Some(items) => out.extend(
                    items
                        .items()
                        .filter_map(|item| item.get("key")?.as_str())
                        .map(|key| Consumed {
                            name,
                            key: Some(key),
                            read: Read::Volume,
                        }),
                ),
                None => out.push(Consumed {
                    name,
                    key: None,
                    read: Read::Volume,
                }),
            }
        };
        for volume in self.list("volumes") {
            mounted(volume.get(refs.volume), refs.volume_name);
            for source in volume
                .path(&["projected", "sources"])
                .into_iter()
                .flat_map(NodeRef::items)
            {
                // Projected sources name a Secret by `name`, like a ConfigMap.
                mounted(source.get(refs.volume), "name");
            }
        }
        out
    }
}
