//! Each resolution step of the model on small inline manifests.

use std::sync::Arc;

use super::*;
use crate::objects::{LintFile, ObjectId, Workspace};
use crate::profile::{parse_profile, Profile};
use crate::source::SourceFile;
use crate::yaml::{load, Limits};

mod owners;
mod placement;

fn workspace(text: &str) -> Workspace {
    let source = Arc::new(SourceFile::new(Arc::from("m.yaml"), text.to_string()));
    let loaded = load(&source.text, &Limits::default());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    Workspace::new(vec![LintFile {
        source,
        loaded: Arc::new(loaded),
    }])
}

fn profile(spec: &str) -> Profile {
    let text = format!("apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n{spec}");
    parse_profile(&text, "p.yaml").unwrap()
}

fn generic() -> Profile {
    crate::profile::generic()
}

fn index_of(ws: &Workspace, kind: &str, name: &str) -> ObjectId {
    ws.ids()
        .find(|(_, o)| o.kind() == kind && o.name() == name)
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no {kind}/{name}"))
}

const LB_SERVICE: &str = "
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
  annotations:
    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-1
    external-dns.alpha.kubernetes.io/hostname: api.example.com,api2.example.com.
spec:
  type: LoadBalancer
  loadBalancerIP: 10.0.0.9
  externalIPs: [10.0.0.10]
  clusterIP: 172.16.0.5
  selector: {app: api}
  ports: [{port: 80}]
status:
  loadBalancer:
    ingress: [{ip: 10.0.0.8}, {hostname: lb.example.net}]
";

fn deployment(name: &str, labels: &str, spec_extra: &str) -> String {
    format!(
        "---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: shop
spec:
  selector:
    matchLabels: {labels}
  template:
    metadata:
      labels: {labels}
    spec:
{spec_extra}      containers:
        - name: c
          image: x
"
    )
}

#[test]
fn service_entry_point_addresses_and_network() {
    let ws = workspace(LB_SERVICE);
    let model = Model::build(&ws, &generic());
    assert_eq!(model.entry_points.len(), 1);
    let e = &model.entry_points[0];
    assert_eq!(
        (e.kind, e.layer, e.network),
        (EntryKind::Service, Layer::L4, Network::Private)
    );
    assert_eq!(e.provider, Some(Provider::Tke));
    let addresses: Vec<(&str, AddressSource)> = e
        .addresses
        .iter()
        .map(|a| (a.value.as_str(), a.source))
        .collect();
    assert_eq!(
        addresses,
        vec![
            ("10.0.0.8", AddressSource::Status),
            ("lb.example.net", AddressSource::Status),
            ("10.0.0.9", AddressSource::LoadBalancerIp),
            ("10.0.0.10", AddressSource::ExternalIp),
            ("api.example.com", AddressSource::ExternalDns),
            ("api2.example.com", AddressSource::ExternalDns),
        ]
    );
    let status_ip = e.addresses[0].location.as_ref().unwrap();
    assert_eq!(
        (status_ip.span.start.line, status_ip.span.start.column),
        (19, 20)
    );
}

#[test]
fn profile_addresses_attach_to_their_object() {
    let ws = workspace(LB_SERVICE);
    let p = profile("  provider: tke\n  loadBalancers:\n    - object: Service/shop/api\n      addresses: [\"47.100.1.2\"]\n    - object: Service/other/api\n      addresses: [\"1.1.1.1\"]\n");
    let model = Model::build(&ws, &p);
    let values: Vec<&str> = model.entry_points[0]
        .addresses
        .iter()
        .map(|a| a.value.as_str())
        .collect();
    assert!(values.contains(&"47.100.1.2"));
    assert!(!values.contains(&"1.1.1.1"));
}

#[test]
fn public_and_reused_clbs() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n    service.kubernetes.io/tke-existed-lbid: lb-1\nspec:\n  type: LoadBalancer\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  type: LoadBalancer\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: c\nspec:\n  type: ClusterIP\n";
    let ws = workspace(text);
    let model = Model::build(&ws, &profile("  provider: tke\n"));
    let networks: Vec<Network> = model.entry_points.iter().map(|e| e.network).collect();
    assert_eq!(networks, vec![Network::Unknown, Network::Public]);
    // Without a provider, an unannotated LoadBalancer Service's network is unknown.
    let model = Model::build(&ws, &generic());
    assert_eq!(model.entry_points[1].network, Network::Unknown);
    assert_eq!(model.entry_points[1].provider, None);
}

#[test]
fn other_clouds_private_annotations() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n    service.beta.kubernetes.io/alicloud-loadbalancer-address-type: intranet\nspec:\n  type: LoadBalancer\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  annotations:\n    service.beta.kubernetes.io/volcengine-loadbalancer-address-type: PRIVATE\nspec:\n  type: LoadBalancer\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: c\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-internal: \"true\"\nspec:\n  type: LoadBalancer\n";
    let ws = workspace(text);
    let model = Model::build(&ws, &generic());
    let got: Vec<(Option<Provider>, Network)> = model
        .entry_points
        .iter()
        .map(|e| (e.provider, e.network))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some(Provider::Ack), Network::Private),
            (Some(Provider::Vke), Network::Private),
            (Some(Provider::Eks), Network::Private),
        ]
    );
}

#[test]
fn ingress_hosts_class_and_backends() {
    let text = format!(
        "{LB_SERVICE}---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
  annotations:
    kubernetes.io/ingress.subnetId: subnet-2
spec:
  tls: [{{hosts: ['*.shop.example.com']}}]
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {{service: {{name: api, port: {{number: 80}}}}}}
{}",
        deployment("api", "{app: api}", "")
    );
    let ws = workspace(&text);
    let model = Model::build(&ws, &profile("  provider: tke\n"));
    let ingress = &model.entry_points[1];
    assert_eq!(
        (ingress.kind, ingress.layer, ingress.network),
        (EntryKind::Ingress, Layer::L7, Network::Private)
    );
    assert_eq!(ingress.class, None);
    assert_eq!(ingress.services, vec![index_of(&ws, "Service", "api")]);
    assert_eq!(*ingress.backends, [index_of(&ws, "Deployment", "api")]);
    assert!(ingress
        .addresses
        .iter()
        .any(|a| a.matches("www.shop.example.com")));
    assert!(ingress
        .addresses
        .iter()
        .any(|a| a.matches("shop.example.com")));
    // Another class is not a TKE CLB: its network is unknown.
    let nginx = text.replace(
        "kubernetes.io/ingress.subnetId: subnet-2",
        "kubernetes.io/ingress.class: nginx",
    );
    let ws = workspace(&nginx);
    let model = Model::build(&ws, &profile("  provider: tke\n"));
    assert_eq!(model.entry_points[1].class.as_deref(), Some("nginx"));
    assert_eq!(model.entry_points[1].network, Network::Unknown);
}

#[test]
fn callers_in_env_args_probes_host_aliases_and_config_maps() {
    let client = "      hostAliases:
        - ip: 10.0.0.9
          hostnames: [api.internal]
";
    let text = format!(
        "{LB_SERVICE}{}{}---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  API_URL: https://api.example.com/v1
  OTHER: nothing here
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: worker
  namespace: shop
spec:
  template:
    metadata:
      labels: {{app: worker}}
    spec:
      containers:
        - name: w
          image: x
          envFrom: [{{configMapRef: {{name: settings}}}}]
          env:
            - name: JAVA_OPTS
              value: -Dapi=http://10.0.0.8:8080
            - name: SAFE
              value: http://api.shop.svc.cluster.local
            - name: SHORT
              value: http://api:80
            - name: CLUSTER_IP
              value: 172.16.0.5
            - name: ELSEWHERE
              value: http://10.9.9.9
          args: [--upstream, lb.example.net:443]
          readinessProbe:
            httpGet: {{host: 10.0.0.10, path: /, port: 80}}
",
        deployment("api", "{app: api}", ""),
        deployment("client", "{app: client}", client),
    );
    let ws = workspace(&text);
    let model = Model::build(&ws, &generic());
    let calls: Vec<(String, String, String)> = model
        .callers
        .iter()
        .map(|c| {
            (
                ws.objects[c.workload].name().to_string(),
                c.address.clone(),
                c.via.to_string(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "client".into(),
                "10.0.0.9".into(),
                "hostAliases entry".into()
            ),
            ("worker".into(), "10.0.0.8".into(), "env JAVA_OPTS".into()),
            (
                "worker".into(),
                "lb.example.net".into(),
                "container argument".into()
            ),
            ("worker".into(), "10.0.0.10".into(), "probe host".into()),
            (
                "worker".into(),
                "api.example.com".into(),
                "ConfigMap settings key API_URL".into()
            ),
        ]
    );
    // The address span inside `-Dapi=http://10.0.0.8:8080` is exactly the IP.
    let java = &model.callers[1];
    let span = java.address_span.unwrap();
    assert_eq!(span.slice(&ws.files[0].source.text), "10.0.0.8");
    // ConfigMap callers point into the ConfigMap.
    let cm = &model.callers[4];
    assert_eq!(
        cm.location.span.start.line,
        index_line(&text, "API_URL: https")
    );
    let safe: Vec<&str> = model.safe_calls.iter().map(|s| s.host.as_str()).collect();
    assert_eq!(
        safe,
        vec!["api.shop.svc.cluster.local", "api", "172.16.0.5"]
    );
}

#[test]
fn a_service_without_a_namespace_is_named_in_any_namespace_never_default_alone() {
    // A kustomize base: the overlay picks the namespace, so `orders.shop.svc` may be it.
    let text = "apiVersion: v1
kind: Service
metadata:
  name: orders
spec:
  selector: {app: orders}
---
apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  containers:
    - name: c
      image: curl
      env:
        - {name: A, value: http://orders.shop.svc.cluster.local/}
        - {name: B, value: orders.shop.svc}
        - {name: C, value: http://orders.shop:80/}
        - {name: D, value: orders.shop}
        - {name: E, value: orders.shop.example.com}
";
    let ws = workspace(text);
    let model = Model::build(&ws, &generic());
    let safe: Vec<&str> = model.safe_calls.iter().map(|s| s.host.as_str()).collect();
    // `name.ns` alone counts only in host position, like a bare name.
    assert_eq!(
        safe,
        vec![
            "orders.shop.svc.cluster.local",
            "orders.shop.svc",
            "orders.shop"
        ]
    );
    assert_eq!(model.safe_calls[2].location.span.start.line, 19);
}

fn index_line(text: &str, needle: &str) -> u32 {
    text[..text.find(needle).unwrap()].matches('\n').count() as u32 + 1
}

#[test]
fn service_view_reads_ports_policies_class_and_status() {
    let ws = workspace(
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  type: LoadBalancer\n  \
         ports: [{port: 80}, {port: 53, protocol: UDP}, {name: x}]\n  selector: {app: a}\n  \
         externalTrafficPolicy: Local\n  internalTrafficPolicy: Cluster\n  loadBalancerClass: c\n\
         status:\n  loadBalancer:\n    ingress: [{hostname: lb.example.net, ipMode: Proxy}]\n\
         ---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    );
    let views = crate::views::Views::build(&ws);
    assert!(
        views.service(ObjectId(1)).is_none(),
        "a ConfigMap has no Service view"
    );
    let service = views.service(ObjectId(0)).expect("a Service view");
    assert!(service.is_load_balancer());
    let ports: Vec<(Option<i64>, &str)> =
        service.ports.iter().map(|p| (p.port, p.protocol)).collect();
    assert_eq!(ports, [(Some(80), "TCP"), (Some(53), "UDP"), (None, "TCP")]);
    assert_eq!(
        service.external_traffic_policy().and_then(|n| n.as_str()),
        Some("Local")
    );
    assert_eq!(
        service.internal_traffic_policy().and_then(|n| n.as_str()),
        Some("Cluster")
    );
    assert_eq!(
        service.load_balancer_class().and_then(|n| n.as_str()),
        Some("c")
    );
    assert_eq!(service.selector().map(|s| s.span().start.line), Some(7));
    let modes: Vec<Option<&str>> = service.ip_modes().map(|m| m.as_str()).collect();
    assert_eq!(modes, [Some("Proxy")]);
    assert_eq!(
        service.hostname_only().and_then(|h| h.as_str()),
        Some("lb.example.net")
    );
}

#[test]
fn tke_service_config_listeners_are_typed() {
    let ws = workspace(
        "apiVersion: cloud.tencent.com/v1alpha1\nkind: TkeServiceConfig\nmetadata: {name: c}\n\
         spec:\n  loadBalancer:\n    l7Listeners:\n      - {protocol: HTTPS, port: 443, keepaliveEnable: 1}\n      \
         - {protocol: http, port: 80, snatEnable: false, session: {enable: true}}\n",
    );
    use crate::views::tke::{listeners, Section};
    let found = listeners(&ws, &ws.objects[0], Section::L7);
    assert_eq!(found.len(), 2);
    assert!(found[0].is("https", 443) && !found[0].is("HTTPS", 80));
    assert_eq!(
        found[0].l7_snat().map(|(k, _)| k.as_str()),
        Some(Some("keepaliveEnable"))
    );
    assert_eq!(found[0].snat_on().map(|(k, _)| k.span()), None);
    assert_eq!(found[1].label(), "http:80");
    assert!(found[1].l7_snat().is_none() && found[1].session.is_some());
    assert!(listeners(&ws, &ws.objects[0], Section::L4).is_empty());
}

#[test]
fn ingress_and_istio_gateway_views() {
    let ws = workspace(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nspec:\n  \
         ingressClassName: nginx\n  tls: []\n  rules: [{host: a.example.com}]\n---\n\
         apiVersion: istio.alibabacloud.com/v1beta1\nkind: IstioGateway\nmetadata: {name: g}\n\
         spec:\n  externalTrafficPolicy: Local\n  serviceAnnotations: {a: b}\n",
    );
    let views = crate::views::Views::build(&ws);
    let ingress = views.ingress(ObjectId(0)).expect("an Ingress view");
    assert_eq!(ingress.class_name.and_then(|c| c.as_str()), Some("nginx"));
    assert!(
        !ingress.has_tls(),
        "an empty tls list gets no HTTPS listener"
    );
    assert_eq!(ingress.rules.map(|(k, _)| k.span().start.line), Some(7));
    assert!(views.ingress(ObjectId(1)).is_none() && views.istio_gateway(ObjectId(0)).is_none());
    let gateway = views
        .istio_gateway(ObjectId(1))
        .expect("an IstioGateway view");
    assert_eq!(
        gateway.external_traffic_policy.and_then(|p| p.as_str()),
        Some("Local")
    );
    assert!(gateway
        .service_annotations
        .and_then(|a| a.get("a"))
        .is_some());
}

#[test]
fn ingress_class_gateway_route_and_data_views() {
    let ws = workspace(
        "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: nginx\n  \
         annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}\n\
         spec: {controller: k8s.io/ingress-nginx}\n---\n\
         apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\n\
         spec:\n  gatewayClassName: eg\n  listeners: [{name: web, hostname: '*.example.com', \
         protocol: HTTPS, port: 443}]\n  addresses: [{value: 10.0.0.7}]\n\
         status: {addresses: [{value: lb.example.net}]}\n---\n\
         apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\n\
         spec:\n  parentRefs: [{name: gw, sectionName: web}]\n  hostnames: [api.example.com]\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: aHR0cDovL3g=}\n\
         stringData: {url: 'https://api.example.com'}\n",
    );
    let views = crate::views::Views::build(&ws);
    let class = views
        .ingress_class(ObjectId(0))
        .expect("an IngressClass view");
    assert!(class.is_default());
    assert_eq!(
        class.controller.and_then(|c| c.as_str()),
        Some("k8s.io/ingress-nginx")
    );
    let gateway = views.gateway(ObjectId(1)).expect("a Gateway view");
    assert_eq!(gateway.class_name.and_then(|c| c.as_str()), Some("eg"));
    let hosts: Vec<Option<&str>> = gateway
        .listeners
        .iter()
        .map(|l| l.hostname.and_then(|h| h.as_str()))
        .collect();
    assert_eq!(hosts, [Some("*.example.com")]);
    let addresses: Vec<Option<&str>> = gateway.addresses.iter().map(|a| a.as_str()).collect();
    assert_eq!(addresses, [Some("10.0.0.7"), Some("lb.example.net")]);
    let route = views.route(ObjectId(2)).expect("a route view");
    assert_eq!(
        (route.parent_refs[0].name, route.parent_refs[0].namespace),
        (Some("gw"), None)
    );
    assert_eq!(route.parent_refs[0].section_name, Some("web"));
    assert_eq!(route.hostnames[0].as_str(), Some("api.example.com"));
    let secret = views
        .data(ObjectId(3))
        .expect("a Secret's data, not slimmed away");
    assert_eq!(
        secret.get("url").and_then(|v| v.as_str()),
        Some("https://api.example.com")
    );
    assert_eq!(
        secret.get("a").and_then(|v| v.as_str()),
        Some("aHR0cDovL3g=")
    );
    assert!(views.data(ObjectId(0)).is_none());
}

#[test]
fn calls_are_the_same_scanned_on_one_thread_or_several() {
    let mut text = LB_SERVICE.to_string();
    for i in 0..300 {
        let env = match i % 3 {
            0 => "http://api.example.com/",
            1 => "10.0.0.8:80",
            _ => "api.shop.svc.cluster.local",
        };
        let pod = deployment(&format!("d{i}"), &format!("{{app: d{i}}}"), "");
        text.push_str(&pod);
        text.push_str(&format!(
            "          env: [{{name: URL, value: \"{env}\"}}]\n"
        ));
    }
    let ws = workspace(&text);
    let views = crate::views::Views::build(&ws);
    let one = Model::build_on(&ws, &views, &generic(), 1);
    assert_eq!((one.callers.len(), one.safe_calls.len()), (200, 100));
    for threads in [2, 3, 8] {
        let many = Model::build_on(&ws, &views, &generic(), threads);
        assert_eq!(format!("{:?}", many.callers), format!("{:?}", one.callers));
        assert_eq!(
            format!("{:?}", many.safe_calls),
            format!("{:?}", one.safe_calls)
        );
    }
}
