//! What `profile init` says for the providers beyond the seeds: per provider, the trap in a
//! few lines and why each fact matters. Every sentence restates a source that the
//! provider's rule documents cite (`rules/<ID>.md`, `references:`); what no primary source
//! confirms is not claimed here.

use super::Out;
use crate::profile::Provider;

/// The provider's own text for the shared sections of the template.
pub(super) struct Notes {
    /// The trap on this cloud, under the provider line.
    pub about: &'static str,
    /// Why the Kubernetes version matters here, beyond the shared sentence.
    pub version: Option<&'static str>,
    /// Why the kube-proxy mode matters here.
    pub kube_proxy: &'static str,
    /// The commented `cni:` example.
    pub cni: &'static str,
    /// Writes the provider's own `addons` entries (4 spaces in).
    pub addons: Option<fn(&mut Out)>,
}

/// The KEP-1860 gate (feature-gate page: beta and on by default in 1.30, GA in 1.32).
const IP_MODE_GATE: &str =
    "ipMode Proxy takes effect from Kubernetes 1.30 (LoadBalancerIPMode: beta and on by\n\
     default; GA in 1.32).";

/// kube-proxy per mode (rules/K8S010.md, rules/K8S013.md): every Linux mode honours
/// `ipMode: Proxy` (pkg/proxy/serviceport.go `newBaseServiceInfo`).
const KUBE_PROXY: &str =
    "How Services are forwarded on the nodes. kube-proxy answers pod calls to a load-balancer\n\
     IP on the node itself, bypassing the load balancer, unless the status has only a hostname\n\
     or `ipMode: Proxy` (iptables, IPVS and nftables honour it). With externalTrafficPolicy:\n\
     Local, IPVS fails hostNetwork callers on nodes without a local endpoint.";

/// nftables eTP=Local drop, fixed in v1.34.0 (kubernetes/kubernetes#132456); the 1.33.6
/// backport is known only from a third-party copy of the changelog, so it is not named.
const NFTABLES_FIX: &str =
    "With externalTrafficPolicy: Local, nftables kube-proxy before 1.34.0 drops in-cluster\n\
     calls to the LB IP from nodes without a local endpoint.";

const CNI: &str = "cilium           # free text: flannel, calico, cilium, ...";

/// The provider's notes; `None` for the seeds and generic, whose text is the template's own.
pub(super) fn notes(p: Provider) -> Option<&'static Notes> {
    Some(match p {
        Provider::Tke | Provider::Vke | Provider::Ack | Provider::Generic => return None,
        Provider::Eks => &EKS_NOTES,
        Provider::Aks => &AKS_NOTES,
        Provider::Gke => &GKE_NOTES,
        Provider::Cce => &CCE_NOTES,
        Provider::Oke => &OKE_NOTES,
        Provider::Doks => &DOKS_NOTES,
        Provider::Lke => &LKE_NOTES,
        Provider::Scaleway => &SCALEWAY_NOTES,
        Provider::Hetzner => &HETZNER_NOTES,
        Provider::Openstack => &OPENSTACK_NOTES,
        Provider::Cloudscale => &CLOUDSCALE_NOTES,
    })
}

// One record per provider, read best side by side.
static EKS_NOTES: Notes = Notes {
    about: "AWS EKS: an NLB that keeps the client IP (instance targets do by default) times\n\
            out a backend's call that it routes back to the same instance. Its status is\n\
            a hostname, so in-cluster calls really cross the NLB.",
    version: None,
    kube_proxy: "How Services are forwarded on the nodes (provider-neutral rules). EKS\n\
                 load-balancer statuses are hostnames, which kube-proxy never answers on\n\
                 the node.",
    cni: "vpc-cni          # free text: the Amazon VPC CNI, cilium, calico, ...",
    addons: Some(eks_addons),
};

static AKS_NOTES: Notes = Notes {
    about: "Azure AKS: a backend VM's call to the frontend of its own internal load\n\
            balancer fails when the flow comes back to that VM. The Azure CCM never\n\
            sets ipMode: Proxy and kube-proxy answers most pod calls to the LB IP on\n\
            the node, so it can show on the paths kube-proxy does not short-circuit.",
    version: Some(NFTABLES_FIX),
    kube_proxy: "How Services are forwarded on the nodes: AKS offers iptables, IPVS and\n\
                 nftables. With externalTrafficPolicy: Local, IPVS fails hostNetwork\n\
                 callers on nodes without a local endpoint.",
    cni: CNI,
    addons: None,
};

static GKE_NOTES: Notes = Notes {
    about: "Google GKE: a backend VM routes the IP of its internal passthrough load\n\
            balancer back to itself (iptables on Container-Optimized OS nodes), so such\n\
            calls stay on the node; they fail only where that local path cannot serve\n\
            them.",
    version: Some(NFTABLES_FIX),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: None,
};

static CCE_NOTES: Notes = Notes {
    about: "Huawei CCE: kube-proxy adds the ELB addresses of LoadBalancer Services to the\n\
            nodes' local rules by default; with externalTrafficPolicy: Local a client on a\n\
            node without a backend pod may fail to reach them, unless the Service sets\n\
            `kubernetes.io/elb.pass-through` (in-cluster calls then go to the ELB).",
    version: Some("`kubernetes.io/elb.pass-through` needs cluster version v1.19 or later."),
    kube_proxy: "How Services are forwarded on the nodes. In IPVS mode, the Services on one\n\
                 ELB must agree on `kubernetes.io/elb.pass-through`.",
    cni: CNI,
    addons: None,
};

static OKE_NOTES: Notes = Notes {
    about: "Oracle OKE: the CCM leaves ipMode at VIP unless a Service sets\n\
            `oci.oraclecloud.com/ingress-ip-mode: proxy`, so kube-proxy answers\n\
            in-cluster calls to the LB IP on the node, without the load balancer.",
    version: Some(
        "ipMode Proxy takes effect from Kubernetes 1.30 (LoadBalancerIPMode: beta and on by\n\
         default; GA in 1.32); OKE's `oci.oraclecloud.com/ingress-ip-mode` needs 1.30 or\n\
         later.",
    ),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: None,
};

static DOKS_NOTES: Notes = Notes {
    about: "DigitalOcean DOKS: kube-proxy answers in-cluster calls to a load balancer's IP\n\
            on the node, so they skip its PROXY protocol and TLS termination. The CCM never\n\
            sets ipMode; the way out is a hostname-only status:\n\
            `service.beta.kubernetes.io/do-loadbalancer-hostname`.",
    version: Some(
        "The DigitalOcean CCM never sets ipMode, so no Kubernetes release sends in-cluster\n\
         calls through the load balancer by itself.",
    ),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(doks_addons),
};

static LKE_NOTES: Notes = Notes {
    about: "Linode / Akamai LKE: kube-proxy answers in-cluster calls to a NodeBalancer's IP\n\
            on the node, so they skip its PROXY protocol. The CCM never sets ipMode; the\n\
            way out is a hostname-only status:\n\
            `service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress: \"true\"`,\n\
            or the CCM's LINODE_HOSTNAME_ONLY_INGRESS for every Service.",
    version: Some(
        "The Linode CCM never sets ipMode, so no Kubernetes release sends in-cluster calls\n\
         through the NodeBalancer by itself.",
    ),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(lke_addons),
};

static SCALEWAY_NOTES: Notes = Notes {
    about: "Scaleway Kapsule: kube-proxy answers in-cluster calls to a load balancer's IP on\n\
            the node, so they skip its PROXY protocol, unless the status has ipMode: Proxy\n\
            or only a hostname (`service.beta.kubernetes.io/scw-loadbalancer-use-hostname`).",
    version: Some(IP_MODE_GATE),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(scaleway_addons),
};

static HETZNER_NOTES: Notes = Notes {
    about: "Hetzner Cloud: kube-proxy answers in-cluster calls to a load balancer's IP on the\n\
            node, so they skip its PROXY protocol, unless the status has ipMode: Proxy or\n\
            only a hostname (`load-balancer.hetzner.cloud/hostname`).",
    version: Some(IP_MODE_GATE),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(hetzner_addons),
};

static OPENSTACK_NOTES: Notes = Notes {
    about: "OpenStack cloud controller manager (OCCM), which OVHcloud MKS (Octavia),\n\
            Selectel / Servercore, plusserver and SovereignCloudStack run: kube-proxy\n\
            answers in-cluster calls to a load balancer's IP on the node, so they skip its\n\
            PROXY protocol, unless the status has ipMode: Proxy or a hostname\n\
            (`loadbalancer.openstack.org/hostname`).",
    version: Some(IP_MODE_GATE),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(openstack_addons),
};

static CLOUDSCALE_NOTES: Notes = Notes {
    about: "cloudscale.ch: from Kubernetes 1.30 the CCM sets ipMode: Proxy by default, so\n\
            in-cluster calls go through the load balancer and its PROXY protocol;\n\
            `k8s.cloudscale.ch/loadbalancer-ip-mode: VIP` turns that off.",
    version: Some(
        "ipMode Proxy takes effect from Kubernetes 1.30 (LoadBalancerIPMode: beta and on by\n\
         default; GA in 1.32). The cloudscale CCM writes ipMode only from 1.30; before,\n\
         only `k8s.cloudscale.ch/loadbalancer-force-hostname` keeps in-cluster calls on the\n\
         load balancer.",
    ),
    kube_proxy: KUBE_PROXY,
    cni: CNI,
    addons: Some(cloudscale_addons),
};

/// `spec.cceFlavour`, after the Kubernetes version.
pub(super) fn cce_flavour(o: &mut Out) {
    o.comment(
        2,
        "CCE Standard or CCE Turbo. On CCE Standard, with a dedicated ELB and pass-through,\n\
         calls to the ELB's private IP from a backend pod's node fail; CCE Turbo sends\n\
         in-cluster calls to a LoadBalancer Service through the ELB (pass-through) by default.",
    );
    o.fact(2, false, "cceFlavour: standard       # or turbo");
    o.blank();
}

fn eks_addons(o: &mut Out) {
    o.comment(
        4,
        "AWS Load Balancer Controller version. From v2.5.0 its Service webhook gives plain\n\
         `type: LoadBalancer` Services its class; with its defaults (internal scheme, instance\n\
         targets, client IP kept) such a Service is the NLB setup that cannot hairpin.",
    );
    o.comment(4, "awsLoadBalancerController: \"v2.8.2\"");
    o.comment(4, "awsLoadBalancerControllerOptions:");
    o.comment(
        6,
        "Helm value enableServiceMutatorWebhook (default true from v2.5.0); false: the webhook\n\
         does not give plain Services the controller's class.",
    );
    o.comment(6, "serviceMutatorWebhook: true");
    o.comment(
        4,
        "cloud-provider-aws version (the in-tree controller behind aws-load-balancer-type: nlb).\n\
         It reads preserve_client_ip.enabled=false from v1.34.0 (not v1.34.1), v1.33.3, v1.32.6.",
    );
    o.comment(4, "cloudControllerManager: \"v1.34.2\"");
}

fn doks_addons(o: &mut Out) {
    o.comment(
        4,
        "DigitalOcean CCM version.\n\
         Without `service.beta.kubernetes.io/do-loadbalancer-type`, CCM < v0.1.61 makes REGIONAL\n\
         load balancers (they can terminate TLS); v0.1.61 and later make REGIONAL_NETWORK ones\n\
         (TCP pass-through) unless the CCM's DEFAULT_LB_TYPE says REGIONAL.",
    );
    o.comment(4, "cloudControllerManager: \"v0.1.61\"");
}

fn cloudscale_addons(o: &mut Out) {
    o.comment(
        4,
        "cloudscale CCM version.\n\
         From 1.1.0 the CCM sets ipMode Proxy by default and reads\n\
         `k8s.cloudscale.ch/loadbalancer-ip-mode` and `…-force-hostname`; 1.0.x has neither.",
    );
    o.comment(4, "cloudControllerManager: \"1.1.0\"");
}

fn lke_addons(o: &mut Out) {
    o.comment(4, "Settings of the Linode CCM.");
    o.comment(4, "cloudControllerManagerOptions:");
    o.comment(
        6,
        "Env LINODE_HOSTNAME_ONLY_INGRESS: every Service status carries only a hostname, so\n\
         kube-proxy cannot short-circuit in-cluster calls.",
    );
    o.comment(6, "hostnameOnlyIngress: false");
}

fn scaleway_addons(o: &mut Out) {
    o.comment(
        4,
        "Scaleway CCM version.\n\
         Scaleway CCM ≥ v0.33.0 sets ipMode Proxy only when PROXY is on all ports\n\
         (`service.beta.kubernetes.io/scw-loadbalancer-ip-mode` overrides it); older ones\n\
         never set it.",
    );
    o.comment(4, "cloudControllerManager: \"v0.33.0\"");
}

fn hetzner_addons(o: &mut Out) {
    o.comment(
        4,
        "Hetzner hcloud CCM version.\n\
         Hetzner CCM ≥ v1.21.0 sets ipMode: Proxy for PROXY-protocol Services, except when\n\
         `load-balancer.hetzner.cloud/hostname` is set: the status is then that hostname only.",
    );
    o.comment(4, "cloudControllerManager: \"v1.21.0\"");
    o.comment(4, "Settings of the hcloud CCM (its environment variables).");
    o.comment(4, "cloudControllerManagerOptions:");
    o.comment(
        6,
        "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL: PROXY protocol is the default for every\n\
         Service.",
    );
    o.comment(6, "usesProxyProtocol: false");
    o.comment(
        6,
        "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS. Needed under IPVS for load balancers\n\
         on the private network (every one when HCLOUD_NETWORK is set) unless the Service sets\n\
         `load-balancer.hetzner.cloud/disable-private-ingress: \"true\"`: otherwise the LB IP\n\
         sits on the nodes' dummy interface, IPVS loops, and no node passes the health probes.",
    );
    o.comment(6, "disablePrivateIngress: false");
    o.comment(
        6,
        "HCLOUD_NETWORK is set: the CCM attaches every load balancer to that private network\n\
         and reports its private IP in the status (unless private ingress is disabled).",
    );
    o.comment(6, "privateNetwork: false");
}

fn openstack_addons(o: &mut Out) {
    o.comment(
        4,
        "OpenStack cloud controller manager (OCCM) version.\n\
         OpenStack OCCM ≥ v1.30.0 sets ipMode Proxy unless enable-ingress-hostname, for\n\
         Services with `loadbalancer.openstack.org/proxy-protocol`.",
    );
    o.comment(4, "cloudControllerManager: \"v1.30.0\"");
    o.comment(4, "Settings of the OCCM.");
    o.comment(4, "cloudControllerManagerOptions:");
    o.comment(
        6,
        "[LoadBalancer] enable-ingress-hostname: the status is a hostname <ip>.<suffix>\n\
         (nip.io by default) instead of an IP, so kube-proxy cannot short-circuit.",
    );
    o.comment(6, "enableIngressHostname: false");
}
