//! One owner per load balancer (issue 29 item 2): the profile's provider decides which
//! controller provisions a Service; with no profile, the Service's own annotations do.

use super::*;

/// Three Services, each annotated for another cloud, and one with IBM's annotation.
fn annotated() -> String {
    [
        (
            "ack",
            "service.beta.kubernetes.io/alicloud-loadbalancer-address-type: intranet",
        ),
        (
            "tke",
            "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-1",
        ),
        (
            "aws",
            "service.beta.kubernetes.io/aws-load-balancer-internal: \"true\"",
        ),
        (
            "ibm",
            "service.kubernetes.io/ibm-load-balancer-cloud-provider-ip-type: private",
        ),
    ]
    .iter()
    .map(|(name, annotation)| {
        format!(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  annotations:\n    \
             {annotation}\nspec:\n  type: LoadBalancer\n"
        )
    })
    .collect()
}

fn owners(profile: &Profile) -> Vec<(Option<Provider>, Network)> {
    owners_in(&annotated(), profile)
}

/// Each entry point's owner and network in `text` with `profile`.
fn owners_in(text: &str, profile: &Profile) -> Vec<(Option<Provider>, Network)> {
    let ws = workspace(text);
    let model = Model::build(&ws, profile);
    model
        .entry_points
        .iter()
        .map(|e| (e.provider, e.network))
        .collect()
}

#[test]
fn the_profiles_cloud_owns_every_service_and_reads_only_its_own_annotations() {
    use Network::{Private, Public, Unknown};
    let tke = Some(Provider::Tke);
    // TKE's controller ignores the other clouds' internal annotations: their CLBs are public.
    assert_eq!(
        owners(&profile("  provider: tke\n")),
        [(tke, Public), (tke, Private), (tke, Public), (tke, Public)]
    );
    let eks = Some(Provider::Eks);
    assert_eq!(
        owners(&profile("  provider: eks\n")),
        [
            (eks, Unknown),
            (eks, Unknown),
            (eks, Private),
            (eks, Unknown)
        ]
    );
    // `provider: generic`: none of the named clouds; only IBM's annotation is read.
    assert_eq!(
        owners(&profile("  provider: generic\n")),
        [
            (None, Unknown),
            (None, Unknown),
            (None, Unknown),
            (None, Private)
        ]
    );
    // No profile: each Service's annotations say which cloud it is written for.
    assert_eq!(
        owners(&generic()),
        [
            (Some(Provider::Ack), Private),
            (tke, Private),
            (eks, Private),
            (None, Private)
        ]
    );
}

/// A vendor's own class or kind names its cloud only when no profile names one.
#[test]
fn a_vendor_class_names_the_owner_only_without_a_profile() {
    let text = "\
apiVersion: v1
kind: Service
metadata:
  name: gke
spec:
  type: LoadBalancer
  loadBalancerClass: networking.gke.io/l4-regional-internal
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: qcloud
  annotations:
    kubernetes.io/ingress.class: qcloud
spec:
  rules: [{host: a.example.com}]
";
    let providers = |profile: &Profile| owners_in(text, profile);
    assert_eq!(
        providers(&generic()),
        [
            (Some(Provider::Gke), Network::Private),
            (Some(Provider::Tke), Network::Public)
        ]
    );
    let aks = Some(Provider::Aks);
    assert_eq!(
        providers(&profile("  provider: aks\n")),
        [(aks, Network::Unknown), (aks, Network::Unknown)]
    );
}
