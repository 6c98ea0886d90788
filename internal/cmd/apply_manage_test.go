package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// TestClusterObject: the file becomes the Cluster default with its fields as written, apply's flags
// as the controller's annotations, and nothing of a status; a bare NetworkConfig is the networkConfig.
func TestClusterObject(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		accept     []string
		disrupt    bool
		want       string
	}{
		{"today's file", "apiVersion: standalone.calico-pilot.dev/v1alpha1\nkind: Cluster\ncluster:\n  podCIDR: 10.244.0.0/16\nnetworkConfig:\n  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n  kind: NetworkConfig\n  backend: bird\n",
			[]string{"IPPool a", "IPPool b"}, true,
			`apiVersion: standalone.calico-pilot.dev/v1alpha1
cluster:
  podCIDR: 10.244.0.0/16
kind: Cluster
metadata:
  annotations:
    calico-pilot.dev/accept-blockers: IPPool a;IPPool b
    calico-pilot.dev/allow-disruption: "true"
  name: default
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  backend: bird
  kind: NetworkConfig
`},
		{"bare NetworkConfig", "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nbackend: vxlan\n", nil, false,
			`apiVersion: standalone.calico-pilot.dev/v1alpha1
cluster: {}
kind: Cluster
metadata:
  name: default
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  backend: vxlan
  kind: NetworkConfig
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, errs := standalone.ReadFile("cluster.yaml", []byte(tc.file))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			u, err := clusterObject(f, tc.accept, tc.disrupt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := yaml.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("the Cluster object (-want +got):\n%s", d)
			}
		})
	}
}
