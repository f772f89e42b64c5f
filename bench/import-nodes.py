#!/usr/bin/env python3
"""A `kubectl get nodes -o yaml` dump of N EKS nodes in 20 node groups, for timing
`lblint profile import` (bench/README.md, "Profile import"). Usage: import-nodes.py N > nodes.yaml"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
print("apiVersion: v1\nkind: List\nitems:")
for i in range(n):
    group = f"group-{i % 20}"
    print(f"""  - apiVersion: v1
    kind: Node
    metadata:
      name: ip-10-{i // 250}-{i % 250}-1.ec2.internal
      labels:
        eks.amazonaws.com/nodegroup: {group}
        eks.amazonaws.com/capacityType: ON_DEMAND
        kubernetes.io/hostname: ip-10-{i // 250}-{i % 250}-1.ec2.internal
        node.kubernetes.io/instance-type: m6i.large
        topology.kubernetes.io/zone: us-east-1{"abc"[i % 3]}
    spec:
      providerID: aws:///us-east-1{"abc"[i % 3]}/i-{i:017x}
      taints:
        - key: dedicated
          value: {group}
          effect: NoSchedule
    status:
      addresses:
        - type: InternalIP
          address: 10.{i // 250}.{i % 250}.1
      capacity:
        cpu: "2"
        memory: 7934496Ki
      nodeInfo:
        kubeletVersion: v1.30.4-eks-a737599
        osImage: Amazon Linux 2023""")
