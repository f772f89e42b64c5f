//! `lblint profile init`: a commented profile to fill in.
//!
//! Facts the caller did not give stay commented out, so the generated profile claims
//! nothing that nobody checked: uncommenting a line is how a user states a fact.
//! Convention (tests rely on it): prose comments start with a capital letter, commented-out
//! YAML starts with a lowercase key or `- `.
//!
//! The seed providers (tke, vke, ack) and generic share one text; each provider beyond them
//! explains its own facts (`clouds.rs`), every claim as its rule documents' sources state it.

mod clouds;

use std::fmt::Write as _;

use super::{Provider, ProxyMode};

/// Builds the YAML text line by line; `fact` lines are commented out unless known.
struct Out(String);

impl Out {
    fn comment(&mut self, indent: usize, text: &str) {
        for line in text.lines() {
            let _ = writeln!(self.0, "{:indent$}# {line}", "");
        }
    }

    /// A `key: value` line, active when `known`, commented out otherwise.
    fn fact(&mut self, indent: usize, known: bool, line: &str) {
        let hash = if known { "" } else { "# " };
        let _ = writeln!(self.0, "{:indent$}{hash}{line}", "");
    }

    fn blank(&mut self) {
        self.0.push('\n');
    }
}

/// The `provider:` comment: every cloud of [`crate::profile::CLOUDS`] by name and label,
/// a cloud never split across lines.
fn provider_choices() -> String {
    let clouds: Vec<String> = Provider::clouds()
        .map(|c| format!("{} ({})", c.name, c.label))
        .collect();
    let mut items = vec!["Cloud provider:".to_string()];
    items.extend(clouds.iter().map(|c| format!("{c},")));
    if let Some(last) = items.last_mut() {
        last.pop();
    }
    items.push("or generic.".to_string());
    let mut text = String::new();
    let mut line_len = 0;
    for item in items {
        if line_len > 0 && line_len + 1 + item.len() > 86 {
            text.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            text.push(' ');
            line_len += 1;
        }
        line_len += item.len();
        text.push_str(&item);
    }
    text + "\nSelects the provider's load-balancer rules and annotations. The only required field."
}

/// A commented profile that [`super::parse_profile`] accepts, for any arguments.
/// `own_rules` are the ids of the provider's own rules, named in the provider's comment
/// (the caller knows the rules; the profile stage sits below them).
pub(crate) fn init_template(
    provider: Option<Provider>,
    proxy_mode: Option<ProxyMode>,
    own_rules: &[&str],
) -> String {
    let p = provider.unwrap_or(Provider::Generic);
    // `None` for the seeds and generic, which keep their original text.
    let cloud = clouds::notes(p);
    let mut o = Out(String::new());

    o.comment(
        0,
        "lblint cluster profile: facts about the cluster your manifests are deployed to.\n\
         A fact that is left out (or commented out) is UNKNOWN: rules then assume nothing\n\
         about it and report what can go wrong either way. Uncomment a line only once you\n\
         have checked it on the cluster.",
    );
    o.fact(0, true, "apiVersion: lblint.dev/v1alpha1");
    o.fact(0, true, "kind: ClusterProfile");
    o.fact(0, true, "metadata:");
    o.comment(2, "Shown in reports, so you can tell profiles apart.");
    o.fact(2, true, "name: my-cluster");
    o.fact(0, true, "spec:");

    o.comment(2, &provider_choices());
    if provider.is_none() {
        o.comment(
            2,
            "Provider not given: generic means none of the named clouds, so only the\n\
             provider-neutral rules run; name your cloud to run its rules too.",
        );
    }
    if let Some(cloud) = cloud {
        o.comment(2, cloud.about);
        let text = if own_rules.is_empty() {
            format!(
                "lblint has no {} rules yet: the provider-neutral rules run,\n\
                 and the facts below are the ones its rules will read.",
                p.label()
            )
        } else {
            format!(
                "The {} rules ({}) and the provider-neutral rules\nread the facts below.",
                p.label(),
                own_rules.join(", ")
            )
        };
        o.comment(2, &text);
    }
    o.fact(2, true, &format!("provider: {p}"));
    o.blank();

    o.comment(
        2,
        "Kubernetes version, quoted (\"1.30\" unquoted would be a number).\n\
         Used by rules whose fix or trap depends on the Kubernetes release.",
    );
    if let Some(why) = cloud.and_then(|c| c.version) {
        o.comment(2, why);
    }
    o.fact(2, false, "kubernetesVersion: \"1.30.2\"");
    o.blank();

    if p == Provider::Cce {
        clouds::cce_flavour(&mut o);
    }

    kube_proxy(&mut o, p, cloud, proxy_mode);
    network(&mut o, p, cloud);
    node_pools(&mut o, p);
    addons(&mut o, p, cloud, proxy_mode);

    if cloud.is_none() {
        o.comment(
            2,
            "Account features enabled by support ticket (TKE CLB). Used by rules whose fix\n\
             needs one of these features, so they do not suggest one you cannot use.",
        );
        o.comment(2, "allowlists:");
        o.comment(4, "clbL4Snat: true");
        o.comment(4, "clbL7Snat: false");
        o.comment(4, "clbKeepAlive: false");
        o.blank();
    }

    load_balancers(&mut o, cloud.is_none());
    o.0
}

/// kubeProxy: the mode decides whether LB addresses are answered on the node itself.
fn kube_proxy(
    o: &mut Out,
    p: Provider,
    cloud: Option<&clouds::Notes>,
    proxy_mode: Option<ProxyMode>,
) {
    let mode_known = proxy_mode.is_some();
    o.comment(
        2,
        cloud.map_or(
            "How Services are forwarded on the nodes. Used by the loopback rules: upstream\n\
             kube-proxy (iptables, IPVS) answers a load-balancer IP on the node itself, but TKE in\n\
             IPVS mode does not bind the CLB address to kube-ipvs0, so a pod's call reaches the\n\
             real CLB and can loop back to its own node.",
            |c| c.kube_proxy,
        ),
    );
    o.fact(2, mode_known, "kubeProxy:");
    o.comment(
        4,
        match cloud {
            None => "One of iptables, ipvs, nftables, ebpf.",
            Some(_) => "One of iptables, ipvs, nftables, ebpf (ebpf: the CNI replaces kube-proxy).",
        },
    );
    let mode = proxy_mode.unwrap_or(ProxyMode::Ipvs);
    o.fact(4, mode_known, &format!("mode: {mode}"));
    let proxy_version = match p {
        Provider::Tke => "v1.30.2-tke.3",
        _ => "v1.30.2",
    };
    if cloud.is_some() {
        o.comment(
            4,
            "The kube-proxy version as the cluster shows it (version-gated rules).",
        );
        o.fact(4, false, &format!("version: \"{proxy_version}\""));
        o.blank();
        return;
    }
    o.comment(
        4,
        "The kube-proxy build as the cluster shows it, e.g. \"v1.30.2-tke.3\" (version-gated rules).",
    );
    o.fact(4, false, &format!("version: \"{proxy_version}\""));
    o.comment(
        4,
        "True when LB addresses are bound to the IPVS NIC. Needed by prevent-loopback to know\n\
         whether the trap is armed.",
    );
    o.fact(4, false, "lbAddressBinding: true");
    o.blank();
}

fn network(o: &mut Out, p: Provider, cloud: Option<&clouds::Notes>) {
    if let Some(cloud) = cloud {
        o.comment(2, "Pod networking.");
        o.comment(2, "network:");
        o.comment(4, "CNI plugin, free text.");
        o.comment(4, &format!("cni: {}", cloud.cni));
        o.blank();
        return;
    }
    o.comment(
        2,
        "Pod networking. Used by the direct-to-pod (ENI / IP mode) backend rules.",
    );
    o.comment(2, "network:");
    let cni = match p {
        Provider::Tke => "vpc-cni          # or global-router",
        Provider::Vke => "vpc-cni",
        Provider::Ack => "terway           # or flannel",
        _ => "cilium           # free text: flannel, calico, cilium, ...",
    };
    o.comment(4, "CNI plugin, free text.");
    o.comment(4, &format!("cni: {cni}"));
    o.comment(
        4,
        "VKE: pod interface type; ipvlan is needed for IP-mode (direct-to-pod) LBs.",
    );
    o.comment(4, "podInterface: ipvlan");
    o.comment(4, "VKE: how Services are forwarded, e.g. ebpf.");
    o.comment(4, "serviceForwarding: ebpf");
    o.comment(
        4,
        "ACK: pods get ENI addresses (Terway or inclusive ENI), so `backend-type: eni` works.",
    );
    o.comment(4, "eniDirect: true");
    o.blank();
}

fn node_pools(o: &mut Out, p: Provider) {
    o.comment(
        2,
        "Node pools. Used by rules that depend on where pods run (e.g. TKE super nodes versus\n\
         regular nodes), matched through labels and taints.\n\
         Pool type: regular | native | super; taint effect: NoSchedule | PreferNoSchedule | NoExecute",
    );
    o.comment(2, "nodePools:");
    o.comment(4, "- name: general");
    o.comment(4, "  type: regular");
    o.comment(4, "  labels: {pool: general}");
    o.comment(4, "  taints: []");
    if p == Provider::Tke {
        o.comment(4, "- name: serverless");
        o.comment(4, "  type: super");
        o.comment(4, "  labels: {node.kubernetes.io/instance-type: eklet}");
        o.comment(
            4,
            "  taints: [{key: eks.tke.cloud.tencent.com/eklet, effect: NoSchedule}]",
        );
    }
    o.blank();
}

fn addons(o: &mut Out, p: Provider, cloud: Option<&clouds::Notes>, mode: Option<ProxyMode>) {
    // Cilium matters only where it replaces kube-proxy; with the mode unknown it may.
    let cilium = matches!(mode, None | Some(ProxyMode::Ebpf));
    let own = cloud.is_none_or(|c| c.addons.is_some());
    if !own && !cilium {
        return;
    }
    o.comment(
        2,
        "Versions of provider add-ons; rules that know which release fixed a trap use them.",
    );
    o.comment(2, "addons:");
    match cloud {
        Some(cloud) => {
            if let Some(write) = cloud.addons {
                write(o);
            }
        }
        None => {
            o.comment(4, "TKE: L7 (CLB Ingress) controller version.");
            o.comment(4, "ingressController: \"v2.9.1\"");
            o.comment(
                4,
                match p {
                    Provider::Generic => {
                        "The provider's own cloud controller manager version (VKE CCM, Hetzner\n\
                         hcloud CCM, Scaleway CCM, OpenStack OCCM, ...)."
                    }
                    _ => "VKE: cloud-controller-manager version.",
                },
            );
            o.comment(4, "cloudControllerManager: \"v1.43.0\"");
        }
    }
    if cilium {
        o.comment(
            4,
            "Cilium version, when Cilium is the dataplane (kubeProxy.mode: ebpf).\n\
             Cilium honours ipMode from 1.17 (1.18.0 regressed); 1.17 is inferred from the date\n\
             the change merged, not read in Cilium's release notes.\n\
             Its kube-proxy replacement also serves externalTrafficPolicy: Local Services to\n\
             in-cluster callers on nodes without a local backend.",
        );
        o.comment(4, "cilium: \"1.17.3\"");
    }
    o.blank();
}

/// `reused`: the seeds' reused load balancers (an existing CLB named by ID), whose network
/// only the profile can state.
fn load_balancers(o: &mut Out, reused: bool) {
    let mut about = String::from(
        "Addresses (IPs or DNS names) that resolve to this cluster's own load balancers.\n\
         Used by the loopback rules to spot in-cluster clients calling their own LB.\n\
         Each object is Kind/namespace/name, where Kind is Service, Ingress or IstioGateway.",
    );
    if reused {
        about.push_str(
            "\n`network: private` or `public` states what a reused load balancer (an existing CLB\n\
             named by ID in the manifest) is, which the manifest cannot say.",
        );
    }
    o.comment(2, &about);
    o.comment(2, "loadBalancers:");
    o.comment(4, "- object: Service/istio-system/istio-ingressgateway");
    o.comment(4, "  addresses: [\"192.0.2.10\", \"gw.example.com\"]");
    if reused {
        o.comment(4, "  network: private");
    }
    o.blank();
    o.comment(
        2,
        "Which LoadBalancer Service fronts the ingress controller of a class, when the\n\
         controller's pods are not in the manifests linted: the hosts of Ingresses of that\n\
         class are then addresses of that Service's load balancer.",
    );
    o.comment(2, "ingressControllers:");
    o.comment(4, "- class: nginx");
    o.comment(
        4,
        "  service: Service/ingress-nginx/ingress-nginx-controller",
    );
}
