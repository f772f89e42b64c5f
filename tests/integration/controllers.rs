//! In-cluster controllers and Gateway implementations linked to the Services in front of
//! them, end to end through `lblint model`: Contour (Ingress, HTTPProxy), Emissary
//! (Mapping, Host) and Gateway API implementations whose Service is in the manifests.

/// `lblint model` of `text` (read from standard input), as text.
fn model_text(text: &str) -> String {
    let run = crate::lblint_stdin(&["model", "-", "--no-config"], Some(text.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Contour (`contour serve`) serves IngressClass `contour` and, without
/// `--ingress-class-name`, Ingresses without a class, behind its Envoy Service
/// (`--envoy-service-name`, default `envoy` in its own namespace): a pod calling such an
/// Ingress's host calls the Envoy Service's load balancer.
#[test]
fn contour_links_its_ingresses_to_the_envoy_service() {
    let path = "testdata/model/contour/contour.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let linked = |text: &str| {
        model_text(text).contains(
            "served by controller pods Deployment/projectcontour/contour (Contour's Envoy Service \
             projectcontour/envoy, --envoy-service-name)",
        )
    };
    assert!(linked(&text));
    // With --ingress-class-name, only that class: the classless Ingress is not Contour's ...
    let named = text.replace(
        "            - --incluster\n",
        "            - --incluster\n            - --ingress-class-name=public,internal\n",
    );
    assert!(!linked(&named));
    // ... and an Ingress of one of its classes is.
    let classed = named.replace(
        "spec:\n  rules:",
        "spec:\n  ingressClassName: internal\n  rules:",
    );
    assert!(linked(&classed));
    // Another Envoy Service name.
    let renamed = text
        .replace(
            "            - --incluster\n",
            "            - --incluster\n            - --envoy-service-name=edge\n",
        )
        .replace("  name: envoy\n", "  name: edge\n");
    assert!(!linked(&renamed.replace(
        "--envoy-service-name=edge",
        "--envoy-service-name=other"
    )));
}

/// Contour's HTTPProxy roots: `spec.virtualhost.fqdn` is a host of the Envoy Service when a
/// Contour serves the proxy's class (none: a Contour without `--ingress-class-name`).
#[test]
fn contour_http_proxy_hosts_are_envoy_addresses() {
    let contour = std::fs::read_to_string("testdata/model/contour/contour.yaml").unwrap();
    let proxy = std::fs::read_to_string("testdata/model/contour/httpproxy.yaml").unwrap();
    let linked = |proxy: &str| {
        model_text(&format!("{contour}{proxy}")).contains("through HTTPProxy/shop/api, served by controller pods Deployment/projectcontour/contour")
    };
    assert!(linked(&proxy));
    let other = proxy.replace("  namespace: shop\nspec:\n  virtualhost:", "  namespace: shop\n  annotations:\n    projectcontour.io/ingress.class: other\nspec:\n  virtualhost:");
    assert!(!linked(&other));
    let ours = other.replace("ingress.class: other", "ingress.class: contour");
    assert!(linked(&ours));
}

/// Emissary-ingress: a Mapping's or Host's host (for the `default` ambassador id) is an
/// address of the LoadBalancer Service in front of the Emissary pods; another id, a glob,
/// or the `apiext` command (same image) link nothing.
#[test]
fn emissary_mapping_hosts_are_addresses_of_its_service() {
    let text = std::fs::read_to_string("testdata/model/emissary/emissary.yaml").unwrap();
    let linked = |text: &str| {
        model_text(text).contains(
            "through Mapping/shop/quote, served by controller pods Deployment/emissary/emissary-ingress",
        )
    };
    assert!(linked(&text));
    let other_id = text.replace(
        "  service: quote\n",
        "  service: quote\n  ambassador_id: [internal]\n",
    );
    assert!(!linked(&other_id));
    let glob = text.replace(
        "hostname: quote.example.com",
        "hostname: \"quote-*.example.com\"",
    );
    assert!(!linked(&glob));
    let apiext = text.replace(
        "          image: docker.io/emissaryingress/emissary:3.9.1\n",
        "          image: docker.io/emissaryingress/emissary:3.9.1\n          command: [apiext]\n",
    );
    assert!(!linked(&apiext));
}

/// A Gateway API Gateway with no address in the manifests: when the Service its
/// implementation created is there (an export), matched by the implementation's labels, the
/// Gateway's routes' hostnames are that Service's addresses. Envoy Gateway's labels name the
/// Gateway's namespace too; a Service labelled for another Gateway links nothing.
#[test]
fn gateway_routes_reach_the_service_their_implementation_created() {
    let text = std::fs::read_to_string("testdata/model/gateway-impl/istio.yaml").unwrap();
    let linked = |text: &str| {
        model_text(text).contains(
            "through HTTPRoute/shop/storefront, parentRef to Gateway/shop/web, served by this \
             Service, which the Gateway's implementation created for Gateway/shop/web",
        )
    };
    assert!(linked(&text));
    let other = text.replace(
        "    gateway.networking.k8s.io/gateway-name: web\n    gateway.istio.io",
        "    gateway.networking.k8s.io/gateway-name: admin\n    gateway.istio.io",
    );
    assert!(!linked(&other));
    let envoy_gateway = text
        .replace("  name: web-istio\n  namespace: shop\n", "  name: envoy-shop-web-3f2a9c1d\n  namespace: envoy-gateway-system\n")
        .replace(
            "    gateway.networking.k8s.io/gateway-name: web\n    gateway.istio.io/managed: istio.io-gateway-controller\n",
            "    gateway.envoyproxy.io/owning-gateway-name: web\n    gateway.envoyproxy.io/owning-gateway-namespace: shop\n",
        );
    assert!(linked(&envoy_gateway));
    // Contour's provisioner before v1.28.0 labels it only with its own key.
    let contour = text.replace(
        "    gateway.networking.k8s.io/gateway-name: web\n    gateway.istio.io",
        "    projectcontour.io/owning-gateway-name: web\n    gateway.istio.io",
    );
    assert_ne!(contour, text);
    assert!(linked(&contour));
}
