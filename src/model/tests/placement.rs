//! Where workloads can run: node pools by selector, affinity and tolerations, sharing a
//! node, the backends of a Service, and the three-valued fits.

use super::*;

const POOLS: &str = "  provider: tke
  nodePools:
    - name: general
      type: regular
      labels: {pool: general}
      taints: []
    - name: gpu
      type: native
      labels: {pool: gpu}
      taints: [{key: gpu, effect: NoSchedule}]
    - name: serverless
      type: super
      taints: [{key: eks.tke.cloud.tencent.com/eklet, effect: NoSchedule}]
";

fn fits(model: &Model, ws: &Workspace, name: &str) -> Vec<Fit> {
    model
        .placement(index_of(ws, "Deployment", name))
        .unwrap()
        .pools
        .clone()
        .unwrap()
}

#[test]
fn placement_by_selector_affinity_and_tolerations() {
    let text = [
        deployment("plain", "{app: plain}", ""),
        deployment("gpu", "{app: gpu}", "      nodeSelector: {pool: gpu}\n      tolerations: [{key: gpu, operator: Exists}]\n"),
        deployment("gpu-untolerated", "{app: g2}", "      nodeSelector: {pool: gpu}\n"),
        deployment(
            "super",
            "{app: s}",
            "      nodeSelector: {node.kubernetes.io/instance-type: eklet}\n      tolerations: [{operator: Exists}]\n",
        ),
        deployment(
            "not-general",
            "{app: n}",
            "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n              - matchExpressions: [{key: pool, operator: NotIn, values: [general]}]\n      tolerations: [{operator: Exists}]\n",
        ),
    ]
    .concat();
    let ws = workspace(&text);
    let model = Model::build(&ws, &profile(POOLS));
    assert_eq!(fits(&model, &ws, "plain"), vec![Fit::Yes, Fit::No, Fit::No]);
    assert_eq!(fits(&model, &ws, "gpu"), vec![Fit::No, Fit::Yes, Fit::No]);
    assert_eq!(
        fits(&model, &ws, "gpu-untolerated"),
        vec![Fit::No, Fit::No, Fit::No]
    );
    assert_eq!(fits(&model, &ws, "super"), vec![Fit::No, Fit::No, Fit::Yes]);
    // The super pool lists no labels, so `pool NotIn [general]` is unknown there.
    assert_eq!(
        fits(&model, &ws, "not-general"),
        vec![Fit::No, Fit::Yes, Fit::Unknown]
    );
    // No node pools in the profile: scheduling is unknown.
    let model = Model::build(&ws, &profile("  provider: tke\n"));
    assert_eq!(
        model
            .placement(index_of(&ws, "Deployment", "plain"))
            .unwrap()
            .pools,
        None
    );
}

#[test]
fn sharing_a_node_and_anti_affinity() {
    let anti = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            - topologyKey: kubernetes.io/hostname\n              labelSelector: {matchLabels: {app: api}}\n";
    let text = [
        deployment("api", "{app: api}", ""),
        deployment("client", "{app: client}", ""),
        deployment("apart", "{app: apart}", anti),
        deployment(
            "gpu-client",
            "{app: gc}",
            "      nodeSelector: {pool: gpu}\n      tolerations: [{key: gpu, operator: Exists}]\n",
        ),
    ]
    .concat();
    let ws = workspace(&text);
    let model = Model::build(&ws, &profile(POOLS));
    let api = index_of(&ws, "Deployment", "api");
    let any = |_: &crate::profile::NodePool| Fit::Yes;
    assert_eq!(
        model.can_share_node(&ws, index_of(&ws, "Deployment", "client"), api, any),
        Fit::Yes
    );
    assert_eq!(
        model.can_share_node(&ws, index_of(&ws, "Deployment", "apart"), api, any),
        Fit::No
    );
    assert_eq!(
        model.can_share_node(&ws, index_of(&ws, "Deployment", "gpu-client"), api, any),
        Fit::No
    );
    // Unknown pools: unknown, but anti-affinity still decides.
    let model = Model::build(&ws, &generic());
    assert_eq!(
        model.can_share_node(&ws, index_of(&ws, "Deployment", "client"), api, any),
        Fit::Unknown
    );
    assert_eq!(
        model.can_share_node(&ws, index_of(&ws, "Deployment", "apart"), api, any),
        Fit::No
    );
}

#[test]
fn daemonset_covers_the_callers_pools() {
    let text = format!(
        "{}---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: gateway
  namespace: shop
spec:
  selector:
    matchLabels: {{app: gateway}}
  template:
    metadata:
      labels: {{app: gateway}}
    spec:
      nodeSelector: {{pool: general}}
      containers: [{{name: g, image: x}}]
{}",
        deployment("client", "{app: client}", ""),
        deployment(
            "gpu-client",
            "{app: gc}",
            "      nodeSelector: {pool: gpu}\n      tolerations: [{key: gpu, operator: Exists}]\n"
        ),
    );
    let ws = workspace(&text);
    let model = Model::build(&ws, &profile(POOLS));
    let gateway = index_of(&ws, "DaemonSet", "gateway");
    assert_eq!(
        model.covers(&ws, gateway, index_of(&ws, "Deployment", "client")),
        Fit::Yes
    );
    assert_eq!(
        model.covers(&ws, gateway, index_of(&ws, "Deployment", "gpu-client")),
        Fit::No
    );
    // A Deployment is never guaranteed on every node.
    assert_eq!(
        model.covers(
            &ws,
            index_of(&ws, "Deployment", "client"),
            index_of(&ws, "Deployment", "gpu-client")
        ),
        Fit::No
    );
}

#[test]
fn workloads_of_every_kind_are_backends() {
    let text = format!(
        "{LB_SERVICE}---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: shop, labels: {{app: api}}}}
spec: {{containers: [{{name: c, image: x}}]}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {{name: cj, namespace: shop}}
spec:
  jobTemplate:
    spec:
      template:
        metadata: {{labels: {{app: api}}}}
        spec: {{containers: [{{name: c, image: x}}]}}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {{name: r, namespace: shop}}
spec:
  template:
    metadata: {{labels: {{app: api}}}}
    spec: {{containers: [{{name: c, image: x}}]}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: other-ns, namespace: elsewhere}}
spec:
  template:
    metadata: {{labels: {{app: api}}}}
    spec: {{containers: [{{name: c, image: x}}]}}
"
    );
    let ws = workspace(&text);
    let model = Model::build(&ws, &generic());
    let names: Vec<&str> = model.entry_points[0]
        .backends
        .iter()
        .map(|&b| ws.objects[b].name())
        .collect();
    assert_eq!(names, vec!["p", "cj", "r"]);
}

/// Services that share a selector (written in any key order) share one backend list, matched
/// once: N such Services over N workloads stay linear.
#[test]
fn services_sharing_a_selector_share_one_backend_list() {
    let service = |name: &str, selector: &str| {
        format!(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: shop\n\
             spec:\n  type: LoadBalancer\n  selector: {selector}\n  ports: [{{port: 80}}]\n"
        )
    };
    let text = [
        service("a", "{app: api, tier: web}"),
        service("b", "{tier: web, app: api}"),
        service("c", "{app: api, tier: db}"),
        deployment("web", "{app: api, tier: web}", ""),
        deployment("db", "{app: api, tier: db}", ""),
    ]
    .concat();
    let ws = workspace(&text);
    let model = Model::build(&ws, &generic());
    let backends = |name: &str| {
        let object = index_of(&ws, "Service", name);
        let entry = model.entry_points.iter().find(|e| e.object == object);
        entry.expect("an entry point").backends.clone()
    };
    let (a, b, c) = (backends("a"), backends("b"), backends("c"));
    assert_eq!(*a, [index_of(&ws, "Deployment", "web")]);
    assert!(std::sync::Arc::ptr_eq(&a, &b), "one list for one selector");
    assert_eq!(*c, [index_of(&ws, "Deployment", "db")]);
}

#[test]
fn fit_is_three_valued_logic() {
    use Fit::{No, Unknown, Yes};
    assert_eq!(Fit::any([No, Unknown]), Unknown);
    assert_eq!(Fit::any([No, Unknown, Yes]), Yes);
    assert_eq!(Fit::any([]), No);
    assert_eq!(Fit::all([Yes, Unknown]), Unknown);
    assert_eq!(Fit::all([Yes, Unknown, No]), No);
    assert_eq!(Fit::all([]), Yes);
    assert_eq!(Yes.and(Unknown), Unknown);
    assert_eq!(No.or(Unknown), Unknown);
}
