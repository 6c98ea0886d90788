#!jinja | metalk8s_kubernetes
{%- from "metalk8s/repo/macro.sls" import build_image_name with context %}
---
kind: DaemonSet
apiVersion: apps/v1
metadata:
  name: calico-node
  namespace: kube-system
spec:
  template:
    spec:
      initContainers:
        # This init container mounts the filesystems the BPF data plane needs.
        - name: "mount-bpffs"
          image: {{ build_image_name('calico-node') }}
          imagePullPolicy: IfNotPresent
          command: ["calico-node", "-init", "-best-effort"]
          securityContext:
            privileged: true
      containers:
        - name: calico-node
          image: {{ build_image_name('calico-node') }}
