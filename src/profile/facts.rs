//! The facts rules ask about, as [`Fact`]s: the value (`None` when the profile does not
//! say), the field that holds it and where the profile writes it.

use std::sync::Arc;

use super::model::{
    Addons, AwsLoadBalancerControllerOptions, CceFlavour, CloudControllerManagerOptions,
    LoadBalancer, NodePool, Profile, ProxyMode,
};
use super::provider::Provider;
use crate::source::Location;

impl Profile {
    pub(crate) fn provider(&self) -> Provider {
        self.spec.provider
    }

    /// Whether no profile was given ([`super::generic`], the only profile without a file):
    /// then each object's own annotations say which cloud it is written for, and that
    /// cloud's rules judge it at most as a warning. A profile that says `provider: generic`
    /// states the opposite: the cluster is none of the named clouds.
    pub(crate) fn is_absent(&self) -> bool {
        self.path.is_none() && self.spec.provider == Provider::Generic
    }

    pub(crate) fn proxy_mode(&self) -> Option<ProxyMode> {
        self.spec.kube_proxy.as_ref()?.mode
    }

    /// `None` when the profile lists no node pools: scheduling is then unknown.
    pub(crate) fn node_pools(&self) -> Option<&[NodePool]> {
        self.spec.node_pools.as_deref()
    }

    pub(crate) fn load_balancers(&self) -> impl Iterator<Item = &LoadBalancer> {
        self.spec.load_balancers.iter().flatten()
    }

    /// Where the profile states a fact, e.g. `["spec", "kubeProxy", "mode"]`, for related
    /// locations and "(cluster.yaml:9)" in messages. Sequence items are addressed by index.
    pub(crate) fn fact_location(&self, keys: &[&str]) -> Option<Location> {
        let (path, text) = (self.path.as_deref()?, self.text.as_deref()?);
        // Parsed once per run, however many findings cite the profile.
        let document = self.tree.0.get_or_init(|| {
            crate::yaml::load(text, &crate::yaml::Limits::default())
                .documents
                .into_iter()
                .next()
        });
        let mut node = document.as_ref()?.root()?;
        for key in keys {
            node = match key.parse::<usize>() {
                Ok(index) => node.items().nth(index)?,
                Err(_) => node.get(key)?,
            };
        }
        Some(Location {
            file: Arc::from(path),
            span: node.span(),
        })
    }

    /// `path:line` of a fact, when the profile states it.
    pub(crate) fn fact_line(&self, keys: &[&str]) -> Option<String> {
        self.fact_location(keys)
            .map(|l| format!("{}:{}", l.file, l.span.start.line))
    }

    /// ` (path:line)` of a fact, for messages; empty when the profile does not state it.
    pub(crate) fn fact_at(&self, keys: &[&str]) -> String {
        self.fact_line(keys)
            .map(|at| format!(" ({at})"))
            .unwrap_or_default()
    }
}

/// A fact of the cluster profile: its value when the profile states it, and the field that
/// holds it. Every message that names a fact goes through here, so "set
/// `spec.kubeProxy.mode`" and "`ipvs` (cluster.yaml:10)" are written once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fact<'p, T> {
    pub value: Option<T>,
    /// The field's path, e.g. `["spec", "kubeProxy", "mode"]`.
    pub keys: &'static [&'static str],
    profile: &'p Profile,
}

impl<T> Fact<'_, T> {
    /// `spec.kubeProxy.mode`.
    pub(crate) fn field(&self) -> String {
        self.keys.join(".")
    }

    /// Where the profile states it, for a related location.
    pub(crate) fn location(&self) -> Option<Location> {
        self.profile.fact_location(self.keys)
    }

    /// ` (cluster.yaml:10)` when the profile states it, else empty: for messages.
    pub(crate) fn at(&self) -> String {
        self.profile.fact_at(self.keys)
    }

    /// ` at cluster.yaml:10` when the profile states it, else empty: for messages.
    pub(crate) fn at_line(&self) -> String {
        self.profile
            .fact_line(self.keys)
            .map(|line| format!(" at {line}"))
            .unwrap_or_default()
    }

    /// `` `spec.kubeProxy.mode` (why) ``: the field to set when the verdict needs it.
    pub(crate) fn unknown(&self, why: &str) -> String {
        format!("`{}` ({why})", self.field())
    }
}

impl Profile {
    /// A fact at `keys`, a path of the profile's schema (every test run checks it).
    pub(crate) fn fact<T>(&self, keys: &'static [&'static str], value: Option<T>) -> Fact<'_, T> {
        debug_assert!(
            super::document::has_field(keys),
            "`{}` is no field of the profile",
            keys.join(".")
        );
        Fact {
            value,
            keys,
            profile: self,
        }
    }

    pub(crate) fn kube_proxy_mode(&self) -> Fact<'_, ProxyMode> {
        self.fact(&["spec", "kubeProxy", "mode"], self.proxy_mode())
    }

    pub(crate) fn kube_proxy_version(&self) -> Fact<'_, &str> {
        let value = self.spec.kube_proxy.as_ref();
        let value = value.and_then(|k| k.version.as_deref());
        self.fact(&["spec", "kubeProxy", "version"], value)
    }

    pub(crate) fn kube_proxy_lb_address_binding(&self) -> Fact<'_, bool> {
        let value = self
            .spec
            .kube_proxy
            .as_ref()
            .and_then(|k| k.lb_address_binding);
        self.fact(&["spec", "kubeProxy", "lbAddressBinding"], value)
    }

    /// The node pools; `None` when the profile lists none (scheduling is then unknown).
    pub(crate) fn node_pool_list(&self) -> Fact<'_, &[NodePool]> {
        self.fact(&["spec", "nodePools"], self.node_pools())
    }

    pub(crate) fn ingress_controller(&self) -> Fact<'_, &str> {
        let value = self.addon(|a| a.ingress_controller.as_deref());
        self.fact(&["spec", "addons", "ingressController"], value)
    }

    pub(crate) fn kubernetes_version(&self) -> Fact<'_, &str> {
        let value = self.spec.kubernetes_version.as_deref();
        self.fact(&["spec", "kubernetesVersion"], value)
    }

    pub(crate) fn network_cni(&self) -> Fact<'_, &str> {
        let value = self.spec.network.as_ref().and_then(|n| n.cni.as_deref());
        self.fact(&["spec", "network", "cni"], value)
    }

    pub(crate) fn network_pod_interface(&self) -> Fact<'_, &str> {
        let value = self.spec.network.as_ref();
        let value = value.and_then(|n| n.pod_interface.as_deref());
        self.fact(&["spec", "network", "podInterface"], value)
    }

    pub(crate) fn network_service_forwarding(&self) -> Fact<'_, &str> {
        let value = self.spec.network.as_ref();
        let value = value.and_then(|n| n.service_forwarding.as_deref());
        self.fact(&["spec", "network", "serviceForwarding"], value)
    }

    pub(crate) fn network_eni_direct(&self) -> Fact<'_, bool> {
        let value = self.spec.network.as_ref().and_then(|n| n.eni_direct);
        self.fact(&["spec", "network", "eniDirect"], value)
    }

    /// The provider's own cloud controller manager version (VKE, Hetzner, Scaleway,
    /// OpenStack OCCM, ...).
    pub(crate) fn cloud_controller_manager(&self) -> Fact<'_, &str> {
        let value = self.addon(|a| a.cloud_controller_manager.as_deref());
        self.fact(&["spec", "addons", "cloudControllerManager"], value)
    }

    /// EKS: the AWS Load Balancer Controller version.
    pub(crate) fn aws_load_balancer_controller(&self) -> Fact<'_, &str> {
        let value = self.addon(|a| a.aws_load_balancer_controller.as_deref());
        self.fact(&["spec", "addons", "awsLoadBalancerController"], value)
    }

    /// The Cilium version, when Cilium is the dataplane.
    pub(crate) fn cilium(&self) -> Fact<'_, &str> {
        let value = self.addon(|a| a.cilium.as_deref());
        self.fact(&["spec", "addons", "cilium"], value)
    }

    /// OpenStack OCCM `enable-ingress-hostname`.
    pub(crate) fn ccm_enable_ingress_hostname(&self) -> Fact<'_, bool> {
        let keys = &[SPEC, ADDONS, CCM_OPTIONS, "enableIngressHostname"];
        self.fact(keys, self.ccm_option(|o| o.enable_ingress_hostname))
    }

    /// Linode CCM `LINODE_HOSTNAME_ONLY_INGRESS`.
    pub(crate) fn ccm_hostname_only_ingress(&self) -> Fact<'_, bool> {
        let keys = &[SPEC, ADDONS, CCM_OPTIONS, "hostnameOnlyIngress"];
        self.fact(keys, self.ccm_option(|o| o.hostname_only_ingress))
    }

    /// Hetzner CCM `HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS`.
    pub(crate) fn ccm_disable_private_ingress(&self) -> Fact<'_, bool> {
        let keys = &[SPEC, ADDONS, CCM_OPTIONS, "disablePrivateIngress"];
        self.fact(keys, self.ccm_option(|o| o.disable_private_ingress))
    }

    /// Hetzner CCM `HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL`.
    pub(crate) fn ccm_uses_proxy_protocol(&self) -> Fact<'_, bool> {
        let keys = &[SPEC, ADDONS, CCM_OPTIONS, "usesProxyProtocol"];
        self.fact(keys, self.ccm_option(|o| o.uses_proxy_protocol))
    }

    /// Hetzner CCM env `HCLOUD_NETWORK` set.
    pub(crate) fn ccm_private_network(&self) -> Fact<'_, bool> {
        let keys = &[SPEC, ADDONS, CCM_OPTIONS, "privateNetwork"];
        self.fact(keys, self.ccm_option(|o| o.private_network))
    }

    /// AWS Load Balancer Controller `enableServiceMutatorWebhook`. Unknown when the profile
    /// does not say, even though the controller turns it on by default from v2.5.0: the
    /// rule that needs it decides what an unknown means.
    pub(crate) fn aws_lbc_service_mutator_webhook(&self) -> Fact<'_, bool> {
        let value = self.aws_lbc_option(|o| o.service_mutator_webhook);
        let keys = &[SPEC, ADDONS, AWS_LBC_OPTIONS, "serviceMutatorWebhook"];
        self.fact(keys, value)
    }

    /// Huawei CCE Standard or Turbo.
    pub(crate) fn cce_flavour(&self) -> Fact<'_, CceFlavour> {
        self.fact(&["spec", "cceFlavour"], self.spec.cce_flavour)
    }

    fn addon<'p, T>(&'p self, get: impl FnOnce(&'p Addons) -> Option<T>) -> Option<T> {
        self.spec.addons.as_ref().and_then(get)
    }

    fn ccm_option<T>(
        &self,
        get: impl FnOnce(&CloudControllerManagerOptions) -> Option<T>,
    ) -> Option<T> {
        self.addon(|a| a.cloud_controller_manager_options.as_ref())
            .and_then(get)
    }

    fn aws_lbc_option<T>(
        &self,
        get: impl FnOnce(&AwsLoadBalancerControllerOptions) -> Option<T>,
    ) -> Option<T> {
        self.addon(|a| a.aws_load_balancer_controller_options.as_ref())
            .and_then(get)
    }
}

const SPEC: &str = "spec";
const ADDONS: &str = "addons";
const CCM_OPTIONS: &str = "cloudControllerManagerOptions";
const AWS_LBC_OPTIONS: &str = "awsLoadBalancerControllerOptions";
