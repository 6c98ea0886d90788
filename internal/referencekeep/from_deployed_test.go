package referencekeep_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/referencekeep"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: calico-config
  namespace: kube-system
data:
  calico_backend: bird
  cni_network_config: |-
    {
        "name": "k8s-pod-network"
    }
`

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: calico-node
  namespace: kube-system
spec:
  template:
    metadata:
      annotations:
        checksum/configmap-calico: abc123
    spec:
      initContainers:
      - name: log-mtu-issues
        command: ["sh", "-c", "echo mtu"]
      - name: install-cni
        command: ["/opt/cni/bin/install"]
      containers:
      - name: add-snat-rule-to-upstream-dns
        command: ["/bin/sh", "-c", "echo snat"]
      - name: calico-node
`

func TestFromDeployed(t *testing.T) {
	fingerprint := render.ConfigFingerprint(map[string]string{"calico_backend": "bird", "cni_network_config": `{"name":"k8s-pod-network"}`})
	want := &calicov1alpha1.TakenOverTemplate{
		ConfigChecksum: "abc123", ConfigFingerprint: fingerprint,
		// Only the helper containers whose scripts calico-pilot cannot derive.
		Commands: map[string][]string{
			"log-mtu-issues":                {"sh", "-c", "echo mtu"},
			"add-snat-rule-to-upstream-dns": {"/bin/sh", "-c", "echo snat"},
		},
	}
	compressed, err := mrdata.Compress([]byte(daemonSet))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data map[string][]byte
		want *calicov1alpha1.TakenOverTemplate
	}{
		{"one YAML stream", map[string][]byte{"config.yaml": []byte(configMap + "---\n" + daemonSet)}, want},
		{"two keys, one compressed", map[string][]byte{"a.yaml": []byte(configMap), "b.yaml.br": compressed}, want},
		{"no calico-node", map[string][]byte{"config.yaml": []byte(configMap)}, nil},
		{"no calico-config: no checksum to take", map[string][]byte{"config.yaml": []byte(daemonSet)}, &calicov1alpha1.TakenOverTemplate{Commands: want.Commands}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := referencekeep.FromDeployed(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := referencekeep.FromDeployed(map[string][]byte{"config.yaml": []byte("kind: [")}); err == nil {
		t.Error("a manifest that does not decode: no error")
	}
}
