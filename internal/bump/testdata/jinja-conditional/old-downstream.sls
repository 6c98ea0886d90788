#!jinja | metalk8s_kubernetes
---
kind: DaemonSet
apiVersion: apps/v1
metadata:
  name: calico-node
spec:
  template:
    spec:
      containers:
        - name: calico-node
          env:
            - name: IP
              value: "autodetect"
{%- if networks.workload_plane.cidr %}
            - name: IP_AUTODETECTION_METHOD
              value: cidr={{ networks.workload_plane.cidr | join(',') }}
{%- endif %}
            - name: FELIX_HEALTHENABLED
              value: "true"
