package standalone

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestGardenerOnlySettingsAreRefusedAtFilePaths: a plain cluster has no kube-apiserver addresses and
// no VPA, so the settings that need them fail at their paths in the cluster file.
func TestGardenerOnlySettingsAreRefusedAtFilePaths(t *testing.T) {
	file := []byte(`apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  kind: NetworkConfig
  kubeAPIServerGlobalNetworkSet:
    enabled: true
  autoScaling:
    mode: vpa
`)
	_, cfg, errs := ReadFile("cluster.yaml", file)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	facts := Facts{KubernetesVersion: "1.34.3", PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}, IPFamilies: []string{"IPv4"}, KubeProxyEnabled: true, KubeProxyMode: "IPTables"}
	_, errs = pipeline.Options(pipeline.Source{Shoot: facts.Shoot(nil), SeedNamespace: "no-seed"}, cfg, values.Settings{})
	var got []string
	for _, e := range FileErrors(errs) {
		got = append(got, e.Field)
	}
	want := []string{"networkConfig.autoScaling.mode", "networkConfig.kubeAPIServerGlobalNetworkSet.enabled"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fields (-want +got):\n%s\nerrors: %v", d, errs)
	}
}
