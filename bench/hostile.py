#!/usr/bin/env python3
"""Inputs for bench/run.sh's scaling cases (issue 10): paths that were quadratic.

    python3 bench/hostile.py WORKDIR [SCALE]

writes into WORKDIR:
  callers.yaml    4,000 private-CLB LoadBalancer Services and 100 Deployments, each calling
                  every Service's address (400,000 callers; callers indexed by target)
  selectors.yaml  2,000 Services sharing one selector with 2,000 Deployments
  findings.yaml   4,000 documents with a finding each (human report vs compact)
  fixes.yaml      20,000 safe K8S002 fixes in one ~20 MB file (--fix planning)
  ingresses.yaml  200 ingress-nginx controllers (each published by its own LoadBalancer
                  Service) serving class nginx, and 2,000 Ingresses of that class
                  (400,000 controller hosts; Services indexed by name and backend)
SCALE (default 1) multiplies every count, for the scaling table.
"""
import os
import sys

work = sys.argv[1]
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
os.makedirs(work, exist_ok=True)


def n(count):
    return max(1, int(count * scale))


def ip(i):
    return f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


def service(i, name="svc"):
    return f"""---
apiVersion: v1
kind: Service
metadata:
  name: {name}-{i}
  namespace: shop
  annotations:
    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-8a1b2c3d
spec:
  type: LoadBalancer
  selector:
    app: {name}-{i}
  ports:
    - port: 80
status:
  loadBalancer:
    ingress:
      - ip: {ip(i)}
"""


def deployment(name, app, env):
    lines = "".join(f"            - {{name: E{k}, value: \"{v}\"}}\n" for k, v in enumerate(env))
    env_block = lines if lines else "            []\n"
    return f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: shop
spec:
  selector:
    matchLabels:
      app: {app}
  template:
    metadata:
      labels:
        app: {app}
    spec:
      containers:
        - name: app
          image: app:1
          env:
{env_block}"""


services, callers = n(4000), n(100)
with open(os.path.join(work, "callers.yaml"), "w") as f:
    for i in range(services):
        f.write(service(i))
    for c in range(callers):
        f.write(deployment(f"caller-{c}", f"caller-{c}", [f"http://{ip(i)}:80" for i in range(services)]))

shared = n(2000)
with open(os.path.join(work, "selectors.yaml"), "w") as f:
    for i in range(shared):
        f.write(service(i).replace(f"app: svc-{i}", "app: shared"))
    for d in range(shared):
        f.write(deployment(f"backend-{d}", "shared", []))

with open(os.path.join(work, "findings.yaml"), "w") as f:
    for i in range(n(4000)):
        f.write(service(i, "finding"))

with open(os.path.join(work, "fixes.yaml"), "w") as f:
    for i in range(n(20000)):
        # K8S002: an unquoted boolean annotation value, fixed safely by quoting it.
        f.write(f"""---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-{i}
  namespace: shop
  annotations:
    example.com/enabled: true
data:
  payload: "{'x' * 880}"
""")

controllers, ingresses = n(200), n(2000)
with open(os.path.join(work, "ingresses.yaml"), "w") as f:
    for c in range(controllers):
        f.write(service(c, "ingress-nginx"))
        f.write(f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-{c}
  namespace: shop
spec:
  selector:
    matchLabels:
      app: ingress-nginx-{c}
  template:
    metadata:
      labels:
        app: ingress-nginx-{c}
    spec:
      containers:
        - name: controller
          image: registry.k8s.io/ingress-nginx/controller:v1.11.2
          args:
            - /nginx-ingress-controller
            - --ingress-class=nginx
            - --publish-service=shop/ingress-nginx-{c}
""")
    for i in range(ingresses):
        f.write(f"""---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: site-{i}
  namespace: shop
spec:
  ingressClassName: nginx
  rules:
    - host: site-{i}.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service: {{name: web, port: {{number: 80}}}}
""")
