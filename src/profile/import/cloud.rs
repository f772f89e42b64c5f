//! The cloud, when no node names it (app teams often may not list nodes): what kube-system
//! and the cluster's versions show. Strong evidence is what only the vendor ships: a version
//! suffix of its builds, its add-ons' image registry, its controllers' ConfigMaps. Provider
//! annotations on the dumped Services are weak (a chart may carry every cloud's) and count
//! only when nothing strong is there and they name one cloud.
//!
//! Sources: version suffixes `-tke.N` (TKE revision history,
//! <https://intl.cloud.tencent.com/document/product/457/9315>), `-eks-<hash>` and
//! `-eksbuild.N` (amazon-eks-ami#546; EKS add-on images), `-gke.N` (GKE release notes),
//! `-aliyun.N` (ACK release notes), `-vke.N` (VKE images); registries: TKE
//! `ccr.ccs.tencentyun.com`, EKS `<account>.dkr.ecr.<region>.amazonaws.com/eks/`, GKE
//! `gke.gcr.io` and `*gcr.io/gke-release/`, AKS `mcr.microsoft.com/aks/`, ACK
//! `*.aliyuncs.com/acs/`, VKE `*.cr.volces.com`, DigitalOcean `digitalocean/` images,
//! AWS's `public.ecr.aws/eks/` add-ons, and the self-managed cloud controllers' images
//! (hcloud, OpenStack, Scaleway, Linode, cloudscale, OCI, Azure); TKE's controllers read the
//! ConfigMaps `tke-service-controller-config` and `tke-ingress-controller-config`.

use std::collections::BTreeMap;

use super::dump::Dump;
use super::workloads::Container;
use crate::profile::Provider;

/// Evidence by provider: strong, then weak.
#[derive(Default)]
pub(crate) struct Clues {
    strong: BTreeMap<&'static str, (Provider, Vec<String>)>,
    weak: BTreeMap<&'static str, (Provider, Vec<String>)>,
}

impl Clues {
    fn add(&mut self, strong: bool, provider: Provider, what: String) {
        let map = if strong {
            &mut self.strong
        } else {
            &mut self.weak
        };
        let (_, list) = map
            .entry(provider.as_str())
            .or_insert_with(|| (provider, Vec::new()));
        if !list.contains(&what) && list.len() < 3 {
            list.push(what);
        }
    }

    /// One provider and its evidence; `Err` with every candidate when they disagree, `Ok(None)`
    /// when nothing names a cloud.
    pub(crate) fn verdict(&self) -> Result<Option<(Provider, String)>, String> {
        let pick = |map: &BTreeMap<&'static str, (Provider, Vec<String>)>| {
            let mut all = map.values();
            match (all.next(), all.next()) {
                (Some((p, why)), None) => Ok(Some((*p, why.join(", ")))),
                (None, _) => Ok(None),
                _ => Err(map
                    .values()
                    .map(|(p, why)| format!("{} ({})", p.as_str(), why.join(", ")))
                    .collect::<Vec<_>>()
                    .join(" and ")),
            }
        };
        match pick(&self.strong)? {
            Some(found) => Ok(Some(found)),
            None => Ok(pick(&self.weak)?.map(|(p, why)| {
                (
                    p,
                    format!("{why}, only annotations: check it, a chart may carry any cloud's"),
                )
            })),
        }
    }
}

/// A vendor's version suffix ([`crate::profile::Cloud::version_suffixes`]).
fn version_suffix(version: &str) -> Option<Provider> {
    Provider::clouds()
        .find(|c| {
            c.version_suffixes
                .iter()
                .any(|suffix| version.contains(suffix))
        })
        .map(|c| c.provider)
}

/// A vendor's registry or add-on image.
fn registry(image: &str) -> Option<Provider> {
    let (host, path) = image.split_once('/').unwrap_or(("", image));
    let ecr =
        host.split('.').next().is_some_and(|account| {
            account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit())
        }) && host.contains(".dkr.ecr.")
            && path.starts_with("eks/");
    if host == "ccr.ccs.tencentyun.com" {
        Some(Provider::Tke)
    } else if ecr {
        Some(Provider::Eks)
    } else if host == "gke.gcr.io" || (host.ends_with("gcr.io") && path.starts_with("gke-release/"))
    {
        Some(Provider::Gke)
    } else if host == "mcr.microsoft.com" && path.starts_with("aks/") {
        Some(Provider::Aks)
    } else if host.ends_with(".aliyuncs.com") && path.starts_with("acs/") {
        Some(Provider::Ack)
    } else if host.ends_with(".cr.volces.com") {
        Some(Provider::Vke)
    } else if host == "public.ecr.aws" && path.starts_with("eks/") {
        // AWS's own add-ons (the Load Balancer Controller, the VPC CNI) published for EKS.
        Some(Provider::Eks)
    } else if image.starts_with("digitalocean/") || image.starts_with("docker.io/digitalocean/") {
        Some(Provider::Doks)
    } else {
        cloud_controller(image)
    }
}

/// A cloud's own controller, self-managed in kube-system: its image names the cloud
/// ([`crate::profile::Cloud::controller_images`]).
fn cloud_controller(image: &str) -> Option<Provider> {
    Provider::clouds()
        .find(|c| c.controller_images.iter().any(|name| image.contains(name)))
        .map(|c| c.provider)
}

/// What the dumps other than nodes say of the cloud.
pub(crate) fn clues(dump: &Dump<'_>, containers: &[Container<'_>], names: &[String]) -> Clues {
    let mut clues = Clues::default();
    if let Some((version, input)) = dump.server_version {
        if let Some(p) = version_suffix(version) {
            let why = format!("server version {version} ({})", names[input]);
            clues.add(true, p, why);
        }
    }
    for c in containers {
        if let Some(p) = version_suffix(c.image).or_else(|| registry(c.image)) {
            clues.add(true, p, format!("{} image {}", c.owner.id(), c.image));
        }
    }
    for obj in &dump.objects {
        let tke_config = obj.kind == "ConfigMap"
            && obj.namespace == "kube-system"
            && matches!(
                obj.name,
                "tke-service-controller-config" | "tke-ingress-controller-config"
            );
        if tke_config {
            clues.add(true, Provider::Tke, obj.id());
        }
        if obj.kind != "Service" && obj.kind != "Ingress" {
            continue;
        }
        let annotations = obj.get(&["metadata", "annotations"]);
        for (key, _) in annotations.into_iter().flat_map(|a| a.entries()) {
            if let Some(p) = Provider::annotated(|| std::iter::once(key)) {
                clues.add(false, p, format!("{} annotation {key}", obj.id()));
            }
        }
    }
    clues
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_and_suffixes() {
        assert_eq!(
            registry("602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/kube-proxy:v1.33.3"),
            Some(Provider::Eks)
        );
        // An ECR repository that is not EKS's own add-ons says nothing.
        assert_eq!(
            registry("123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app:1"),
            None
        );
        assert_eq!(
            registry("ccr.ccs.tencentyun.com/tkeimages/kube-proxy:v1.30.0-tke.11"),
            Some(Provider::Tke)
        );
        assert_eq!(
            registry("registry-cn-hangzhou-vpc.ack.aliyuncs.com/acs/terway:v1.9"),
            Some(Provider::Ack)
        );
        assert_eq!(
            registry("us-central1-artifactregistry.gcr.io/gke-release/gke-release/kube-proxy:x"),
            Some(Provider::Gke)
        );
        assert_eq!(registry("registry.k8s.io/kube-proxy:v1.30.0"), None);
        assert_eq!(
            registry("public.ecr.aws/eks/aws-load-balancer-controller:v2.8.2"),
            Some(Provider::Eks)
        );
        assert_eq!(
            registry("registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.31.1"),
            Some(Provider::Openstack)
        );
        assert_eq!(version_suffix("v1.30.0-tke.11"), Some(Provider::Tke));
        assert_eq!(version_suffix("v1.29.4-eks-036c24b"), Some(Provider::Eks));
        assert_eq!(version_suffix("v1.30.5-gke.1014001"), Some(Provider::Gke));
        assert_eq!(version_suffix("v1.30.2"), None);
    }
}
