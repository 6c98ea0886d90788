#!jinja | metalk8s_kubernetes

{%- from "metalk8s/repo/macro.sls" import build_image_name with context %}

# It comes from: https://github.com/projectcalico/calico/blob/v3.24.1/manifests/calico.yaml

---
# Source: calico/templates/calico-config.yaml
kind: ConfigMap
apiVersion: v1
metadata:
  name: calico-config
  namespace: kube-system
data:
  # NOTE: MTU for calico = workload MTU - 20
  veth_mtu: "{{ networks.workload_plane.mtu - 20 }}"
  cni_network_config: |-
    {
      "plugins": [
        {
          "type": "portmap",
          "capabilities": {"portMappings": true},
          "conditionsV4": ["-d", "{{ portmap_ips | join(',') }}"]
        }
      ]
    }
---
# Source: calico/templates/calico-node.yaml
kind: DaemonSet
apiVersion: apps/v1
metadata:
  name: calico-node
  namespace: kube-system
spec:
  template:
    metadata:
      # NOTE: restart on ConfigMap change
      annotations:
        checksum/config: __slot__:salt:metalk8s_kubernetes.get_object_digest(kind="ConfigMap",
          apiVersion="v1", name="calico-config", path="data")
      labels:
        k8s-app: calico-node
    spec:
      initContainers:
        - name: install-cni
          image: {{ build_image_name('calico-cni') }}
          command: ["/opt/cni/bin/install"]
      containers:
        - name: calico-node
          image: {{ build_image_name('calico-node') }}
